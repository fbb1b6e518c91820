"""`farm run` flags a CI script gets wrong: each is one usage line and exit 4, before anything
runs, never a silent choice between them."""

from __future__ import annotations

import pytest

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

CASE = "web: {url: 'about:blank'}\ntasks:\n  - name: t\n    flow:\n      - javascript: '1'\n"


@pytest.fixture
def suite(tmp_path, monkeypatch):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(CASE)
    return tmp_path / "s"


def test_exitfirst_and_a_different_maxfail_are_refused(suite, monkeypatch, capsys):
    """`farm run s -x --maxfail 3` ran with --maxfail 1 without a word (pytest takes the last
    one given): the job stopped after one failure where the user asked for three."""
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "-x", "--maxfail", "3",
                              "--collect-only")
    assert (code, out) == (4, "")
    assert err.endswith("Error: -x and --maxfail 3 disagree: -x is --maxfail 1; give one of "
                        "them\n"), err
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "-x", "--maxfail", "1",
                              "--collect-only")
    assert (code, err) == (0, counted(1)) and "1 case(s) collected" not in out


def test_a_pushgateway_without_a_scheme_is_http_as_prometheus_client_takes_it():
    """`--pushgateway pushgw:9091` (prometheus_client's own form) ran every case, then only
    warned "unknown url type" and pushed nothing: farm read "pushgw" as the URL's scheme."""
    from farm.config import load_settings
    assert load_settings(pushgateway_url="pushgw:9091").pushgateway_url == "http://pushgw:9091"
    assert load_settings(pushgateway_url="https://u:pw@pushgw/x").pushgateway_url == \
        "https://u:pw@pushgw/x"


@pytest.mark.parametrize("url, why", [
    ("ftp://pushgw:9091", "a Pushgateway is an http:// or https:// URL, got ftp"),
    ("http://pushgw:99999", "has a port that is not a number from 1 to 65535"),
    ("http://:9091", "names no host (http://HOST:9091)")])
def test_a_pushgateway_that_cannot_be_one_stops_the_run_before_it_starts(
        suite, monkeypatch, capsys, url, why):
    """It was found out after every case had run, as a warning, with exit 0."""
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--pushgateway", url,
                              "--devices", "browser:1", "--no-progress")
    assert (code, out) == (4, "")
    assert err == f"farm: error: invalid configuration:\n  --pushgateway {url}: {why}\n"
