"""A web target's ``url:`` with an IPv6 host missing a bracket (``http://[::1:3999/``) ended
the load in "farm: internal error: ValueError: Invalid IPv6 URL". It is a suite error at the
url's file:line saying how such an address is written."""

from __future__ import annotations

import pytest

from farm.suite.urls import url_problem
from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "web:\n  url: '{}'\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"
SAID = ("the host has a '[' without its ']' (or a ']' without its '['): an IPv6 address is "
        "written in brackets, http://[::1]:3999/index.html")


def test_an_unclosed_bracket_is_the_urls_suite_error(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE.format("http://[::1:3999/"))
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4
    assert problems(err) == ["farm: 1 problem in suite files:",
                             f"  s/c.yaml:2:8: web.url: 'http://[::1:3999/': {SAID}"]


@pytest.mark.parametrize("url, said", [("https://::1]:8443/", SAID),
                                       ("http://[::1]:3999/index.html", None),
                                       ("http://[::1]/", None)])
def test_bracketed_hosts(url: str, said: str | None) -> None:
    assert url_problem(url) == said
