"""A case that ends before its first step (the app is not installed, the page does not open)
points at the line that set it up, as a failing step points at its own line."""

from __future__ import annotations

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.results import ArtifactStore, RunSummary
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.run_console import failure_lines
from farm.suite.loader import load_suites

CASE = """name: open the shop
android:
  deviceId: emulator-5554
  launch: com.not.installed
tasks:
  - name: t
    flow:
      - aiTap: Sign in
"""


def test_a_case_that_fails_to_launch_names_its_launch_line(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "noapp.yaml").write_text(CASE)
    case = load_suites([tmp_path / "s"], env={})[0].cases[0]
    assert case.setup_line == 4
    phone = FakeDevice(UITree(source="uiautomator", nodes=[]), platform="android",
                       errors={"start_session": StepFailed("com.not.installed is not installed")})
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r", env={})
    result = run_case(Job(case.id, case.platform, 1), case, phone, services)
    assert result.status == "failed" and result.line == 4
    summary = RunSummary(run_id="r", started="", cases=[result])
    assert failure_lines(summary)[0].startswith("FAILED s/noapp (") and \
        "noapp.yaml:4) — com.not.installed is not installed" in failure_lines(summary)[0]
