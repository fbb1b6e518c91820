"""A suite's served app is sent as UTF-8: a page without <meta charset> ("‹ Inbox", "Müller")
was read as windows-1252 by Chromium and showed "â€¹ Inbox" on screen and to every text check.
Real `farm run`, real Chromium, the suite's `serve:` app server."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results


def test_a_served_page_without_a_charset_reads_as_utf8(tmp_path: Path, farm: FarmCli):
    (tmp_path / "page.html").write_text("<!doctype html><p>‹ Inbox · Müller · 東京</p>"
                                        "<script src='app.js'></script>", encoding="utf-8")
    (tmp_path / "app.js").write_text("document.body.append('— ok ✓')", encoding="utf-8")
    (tmp_path / "utf8.yaml").write_text("""name: utf8
web:
  serve: .
  url: page.html
tasks:
  - name: t
    flow:
      - assertText: ‹ Inbox · Müller · 東京
      - assertText: — ok ✓
""", encoding="utf-8")
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    steps = results(tmp_path / "run")["cases"][0]["steps"]
    assert done.returncode == 0, [s["error"] for s in steps]
