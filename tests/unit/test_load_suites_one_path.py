"""`farm.load_suites("suites/demo")` (the public API given one path, not a list) read the
string as its characters: each a path that is not there, and "/" a walk of the whole disk
(it never came back); a `Path` was a TypeError. One path, str or Path, is that path."""

from __future__ import annotations

from pathlib import Path

import farm

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_one_path_as_a_string_or_a_path_is_that_suite(tmp_path, monkeypatch):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "login.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    for given in ("shop", Path("shop"), tmp_path / "shop", ["shop"]):
        [suite] = farm.load_suites(given, env={})
        assert [c.id for c in suite.cases] == ["shop/login"]
