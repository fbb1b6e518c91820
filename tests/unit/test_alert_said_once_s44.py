"""A text check that fails behind an alert names the alert once: the device's note (its
text, its buttons, the step that answers it), not a second "the screen shows … (an alert)"."""

from __future__ import annotations

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.native_tree import dialog_failure
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.loader import load_suites

CASE = """name: home
ios:
  launch: com.example.app
tasks:
  - name: t
    flow:
      - assertText: Home
"""
ASKS = "“App” Would Like to Send You Notifications"
SCREEN = UITree(source="wda", page_text=f"{ASKS}\nAllow\nDon’t Allow", nodes=[
    UINode(id=0, role="XCUIElementTypeAlert", text=ASKS, rect=Rect(x=0, y=300, width=390,
                                                                   height=200))])


class Phone(FakeDevice):
    def failure_note(self) -> str:
        return dialog_failure("an alert", ASKS, ["Allow", "Don’t Allow"])


def test_an_alert_in_front_of_the_app_is_named_once(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    case = load_suites([tmp_path / "s"], env={})[0].cases[0]
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r", env={})
    result = run_case(Job(case.id, "ios", 1), case, Phone(SCREEN, platform="ios"), services)
    assert result.status == "failed"
    said = result.error.message
    assert said.startswith('expected text "Home" is not on screen (an alert is in front of the '
                           f'app: "{ASKS}" (buttons: Allow, Don’t Allow); answer it'), said
    assert said.count(ASKS) == 1, said
