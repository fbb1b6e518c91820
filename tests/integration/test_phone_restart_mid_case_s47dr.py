"""A phone that starts again in the middle of a case (a reboot, an emulator restarted): `farm
sim android` is stopped while a case waits for its model's answer, and started again on the
same port before the answer comes, as a QA engineer restarting a simulator half a second
later did.

What a user sees: the case's app is gone because its phone started again (its boot id
changed), and farm says so as the device's failure, retrying the case (before, every case in
flight failed "com.qa.lab is no longer running ... it crashed", a new failure of the app,
exit 1, not retried, while the phone's crash log had no crash).
"""

from __future__ import annotations

import re
import signal
import threading
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results, wait_for

pytestmark = pytest.mark.integration

PACKAGE = "com.qa.lab"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""
CASE = f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: t
    flow:
      - assertText: Notes
      - aiAssert: the notes screen is shown
      - aiTap: New note
"""


def test_a_phone_restarted_mid_case_is_the_devices_failure_and_the_case_is_retried(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    asked, answer = threading.Event(), threading.Event()

    def model(body: dict, index: int) -> str:       # the first question waits for the test
        if index == 0:
            asked.set()
            answer.wait(120)
        return '{"pass": true, "thought": "Notes is shown"}'

    srv = model_server(model)
    sim = farm.start("sim", "android", "--app", app, "--package", PACKAGE)
    port = re.search(r"127\.0\.0\.1:(\d+)", sim.wait_for_line("adb server on ")).group(1)
    sim.wait_for_line("Ctrl-C stops.")
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "notes.yaml").write_text(CASE)
    try:
        run = farm.start("run", suite, "--devices", "android:1", "--retries", "0",
                         "--report-dir", tmp_path / "run", "--model", "openai/scripted",
                         "--model-base-url", srv.base_url, ANDROID_ADB_SERVER_PORT=port)
        wait_for(lambda: asked.is_set() or run.popen.poll() is not None, 120,
                 "the case's model question")
        sim.send_signal(signal.SIGTERM)         # the phone goes away ...
        sim.finish(60)
        again = farm.start("sim", "android", "--app", app, "--package", PACKAGE,
                           "--port", port)      # ... and starts again
        again.wait_for_line("Ctrl-C stops.")
    finally:
        answer.set()
    out = run.finish(180)
    case = by_name(results(tmp_path / "run"))["notes"]
    assert (case["status"], case["attempt"]) == ("passed", 2), out
    first = case["previous"][0]
    assert first["status"] == "error" and first["error"]["kind"] == "DeviceLost", first
    said = (f"emulator-5554 restarted during the case (its boot id changed): {PACKAGE} stopped "
            "with it, no crash of its own")
    assert first["error"]["message"] == said
    assert "RETRY (error) s/notes" in out and said in out, out
    assert "crashed" not in out and run.returncode == 0, out
