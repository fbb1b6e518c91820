"""A batch file's shared target keys are honoured or refused at their line, never dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

from tests.support.midscene_layout import collect, qa, write  # noqa: F401 (fixtures)


def test_a_batch_shared_dialogs_is_honoured(tmp_path, monkeypatch):
    """`web: {dialogs: accept}` in a batch file reaches its files (it was dropped)."""
    from farm.suite.loader import load_suites
    root = tmp_path / "qa"
    write(root / "web" / "a.yaml")
    write(root / "index.yaml", "web:\n  dialogs: accept\nfiles:\n  - web/a.yaml\n")
    monkeypatch.chdir(root)
    [suite] = load_suites([root / "index.yaml"])
    assert [c.web.dialogs for c in suite.cases] == ["accept"]


@pytest.mark.parametrize("key, value", [("output", "./out/all.json"),
                                        ("unstableLogContent", "true")])
def test_a_batch_shared_output_is_refused_at_its_line(collect, qa, key, value):
    """A batch's `web: {output: …}` was dropped without a word."""
    write(qa / "b5" / "index.yaml",
          f"web:\n  viewportWidth: 800\n  {key}: {value}\nfiles:\n  - ../web/login.yaml\n")
    code, out, err = collect("b5/index.yaml")
    assert code == 4
    assert f"b5/index.yaml:3:3: web.{key} is not supported in a batch file" in err
    assert f"set {key}: in each file's own target section" in err
