"""A runWdaRequest whose answer holds a huge string (GET /screenshot: the PNG's base64) keeps
its last 64K characters after a line saying how much was cut: the whole string went into
results.json twice (1.9 MB for the simulator's small screen). A small answer is kept as WDA
gave it."""

from __future__ import annotations

import io
import json

from farm.config import load_settings
from farm.devices.sim import IosSimulator
from farm.session import run

PKG = "com.farm.demo.shop"


def test_a_screenshot_answer_keeps_its_tail_and_a_small_one_is_whole(demo_app, tmp_path,
                                                                      monkeypatch):
    suite = tmp_path / "read.yaml"
    suite.write_text(f"""\
ios:
  launch: {PKG}
tasks:
  - name: read
    flow:
      - runWdaRequest:
          method: GET
          endpoint: /screenshot
        name: shot
      - runWdaRequest:
          method: GET
          endpoint: /status
        name: status
""")
    with IosSimulator(1, {PKG: demo_app + "/"}) as ios:
        monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
        code = run([suite], "ios:1", settings, progress=False, out=out)
    case, = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 0, out.getvalue()
    note, _, tail = case["data"]["shot"].partition("\n")
    assert note.startswith("[farm: ") and note.endswith(" cut; the last 65,536 kept]"), note
    assert len(tail) == 65_536 and case["steps"][0]["output"] == case["data"]["shot"]
    assert case["data"]["status"]["ready"] is True          # a small answer, as it came
    assert len(json.dumps(case)) < 300_000
