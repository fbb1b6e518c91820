"""report.css beside a run's pages: `farm run` writes it with report.html, each page links it
(a server whose Content-Security-Policy blocks inline styles, as Jenkins' HTML Publisher's,
loads it instead), `farm report` of a folder without one (an older farm's) writes it, and a
rebuilt report's marked copies keep their rules. Runs use the in-memory ``fake`` device kind
(tests/support/devices.py): no browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
{agent}web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE.format(
        name="One", agent="agent:\n  reportFileName: one-own\n"))
    (tmp_path / "s" / "two.yaml").write_text(CASE.format(name="Two", agent=""))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_CACHE", "FARM_METRICS_PORT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _links(page: Path) -> list[str]:
    return re.findall(r'<link rel="stylesheet" href="([^"]+)">', page.read_text("utf-8"))


def test_a_run_and_its_rebuild_write_the_stylesheet_its_pages_link(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:2",
                          "--no-progress", "--report-dir", "r")
    assert code == 0, (out, err)
    run = here / "r"
    css = (run / "report.css").read_text("utf-8")
    assert ".track .bar" in css and ".x500{left:50%}" in css and ".w1000{width:100%}" in css
    assert _links(run / "report.html") == ["report.css"] == _links(run / "one-own.html")
    # the bars' places are classes whose rules both the page and the file have
    page = (run / "report.html").read_text("utf-8")
    assert ' style="' not in page.split("<body>", 1)[1].split("<main", 1)[0]
    for name in set(re.findall(r'class="bar st-\w+ (x\d+) (w\d+)', page)[0]):
        assert f".{name}{{" in css and f".{name}{{" in page

    (run / "report.css").unlink()                     # a run folder of an older farm
    code, out, err = farm(monkeypatch, capsys, "report", "r")
    assert code == 0, (out, err)
    assert (run / "report.css").read_text("utf-8") == css
