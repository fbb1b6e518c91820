"""aiLocate's kept result has the shape Midscene's ``agent.aiLocate`` returns, so a script
moved from Midscene reads ``found.rect.left`` and ``found.center``: ``rect`` {left, top, width,
height}, ``center`` [x, y], and on the web ``dpr``. farm kept ``rect: [x, y, w, h]``, so
``rect.left`` was undefined, and no ``dpr``. farm's ``tier`` (which locate tier found it) stays.
"""

from __future__ import annotations

import json
from pathlib import Path

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import AndroidTarget, Case, Step, Task, WebTarget

BUTTON = UINode(id=1, role="button", text="Sign in", rect=Rect(x=40, y=100, width=120, height=40),
                clickable=True)


def located(tmp_path: Path, platform: str, **target) -> dict:
    """The case's data after one ``aiLocate: Sign in`` named ``button``."""
    step = Step(kind="aiLocate", target="Sign in", options={"name": "button"})
    where = ({"web": WebTarget(url="http://127.0.0.1:1/", **target)} if platform == "web"
             else {"android": AndroidTarget(launch="com.example")})
    case = Case(id=f"s/{platform}", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform=platform, tasks=[Task(name="t", steps=[step])], **where)
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path / "art"), env={},
                        model=ModelSet.single(ScriptedModelClient(["unused"])))
    tree = UITree(source="dom" if platform == "web" else "uiautomator", page_text="Sign in",
                  nodes=[BUTTON])
    result = run_case(Job(case.id, platform, 1), case, FakeDevice(tree, platform=platform),
                      services)
    assert result.status == "passed", result.error
    return json.loads(result.model_dump_json())["data"]


def test_ai_locate_keeps_midscene_s_rect_center_and_dpr(tmp_path):
    assert located(tmp_path, "web", device_scale_factor=2) == {"button": {
        "rect": {"left": 40, "top": 100, "width": 120, "height": 40},
        "center": [100, 120], "dpr": 2, "tier": "text"}}


def test_a_page_at_its_default_scale_has_dpr_1(tmp_path):
    assert located(tmp_path, "web")["button"]["dpr"] == 1


def test_on_a_phone_there_is_no_dpr_as_in_midscene(tmp_path):
    assert located(tmp_path, "android")["button"] == {
        "rect": {"left": 40, "top": 100, "width": 120, "height": 40},
        "center": [100, 120], "tier": "text"}
