"""`farm report --history --out FILE` naming a file that holds something other than HTML (a
case, tab-completed: `--out s/login.yaml`) is refused, exit 4, the file kept: the history page
was written over the case, which was lost. An earlier page, or a new path, is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = "name: c\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL",):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(CASE)
    return tmp_path


def test_a_case_file_given_as_the_page_is_kept(here, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "report", "--history", "--out", "c.yaml")
    assert (code, out) == (4, "")
    assert err == ("farm: error: --out c.yaml: the file holds something other than HTML (farm "
                   "would write the history page over it): give another file name, or delete "
                   "the file first\n")
    assert (here / "c.yaml").read_text() == CASE


def test_a_new_page_and_an_earlier_one_are_written(here, monkeypatch, capsys):
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    code, _, err = run_main(monkeypatch, capsys, "run", "c.yaml", "--devices", "fake:1",
                            "--no-progress", "--cache", "off")     # (a run the page shows)
    assert code == 0, err
    for _ in range(2):
        code, out, _ = run_main(monkeypatch, capsys, "report", "--history", "--out", "h.html")
        assert (code, out) == (0, f"{(here / 'h.html').resolve()}\n")
    assert (here / "h.html").read_text().startswith("<!doctype html>")
