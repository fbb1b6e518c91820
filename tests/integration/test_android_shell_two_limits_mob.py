"""A runAdbShell step without a `timeout:` keeps both of a phone's limits: it fails once its
command is silent for FARM_ADB_SILENCE_SECONDS (30 s; here 2), and it is stopped at
the case's end, which then reads as the case's timeout naming the command. When the case's
time left became the command's only limit, a silent hang (`cat` waiting for input; `sleep`
here) ran to the case's end, minutes of a phone, where it failed after 30 s.

The two cases run at once on two simulated phones, so the printing one's 6 s are the
test's time: its step must begin within them (a loaded machine took over 2 s to take the
case's first screenshot, and the timeout then named that), and `yes` must not fall silent
for the silence limit while it prints (2 s, not 0.5: a starved simulator thread can pause)."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.session import run

pytestmark = pytest.mark.integration

CASE = """name: {name}
timeout: {timeout}
android:
tasks:
  - name: shell
    flow:
      - runAdbShell: {command}
"""


def test_silence_fails_the_step_and_the_case_s_end_stops_a_printing_command(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_ADB_SILENCE_SECONDS", "2")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "silent.yaml").write_text(CASE.format(name="silent", timeout=20,
                                                   command="sleep 60"))
    (suite / "endless.yaml").write_text(CASE.format(name="endless", timeout=6,
                                                    command="yes farm"))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    run([suite], "android-sim:2", settings, progress=False, out=out)
    cases = {c["name"]: c for c in
             json.loads((tmp_path / "run" / "results.json").read_text())["cases"]}

    silent = cases["silent"]
    assert silent["status"] == "failed" and silent["attempt"] == 1, (silent, out.getvalue())
    assert "the shell command gave no output for 2s (FARM_ADB_SILENCE_SECONDS) and " \
        "was given up" in silent["error"]["message"], silent["error"]

    endless = cases["endless"]
    assert endless["status"] == "error", (endless, out.getvalue())
    assert endless["error"]["message"] == \
        "case timed out after 6s during adb shell `yes farm`", endless["error"]
