"""`farm.run("suites/demo", ...)` (the public API given one path, not a list) read the string
as its characters: 's', 'h', 'o', 'p' each 'no such file or directory', and a "/" in it a walk
of the whole disk. One path, str or Path, is that path (as `farm.load_suites` takes it)."""

from __future__ import annotations

import io
from pathlib import Path

import farm
from farm.select import Choice

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_one_path_as_a_string_or_a_path_is_that_suite(tmp_path, monkeypatch):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "login.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    settings = farm.Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "r")
    for given in ("shop", Path("shop"), tmp_path / "shop", ["shop"]):
        out = io.StringIO()
        code = farm.run(given, "browser:1", settings, out=out,
                        choice=Choice(collect_only=True, devices_given=False))
        assert code == 0, out.getvalue()
        assert "shop/login  [web]" in out.getvalue()
        assert "1 case(s) collected" in out.getvalue()
