"""Annotated screenshots: the runner records where each action touched the device (through the
action context, so suite steps and planned actions alike) and the artifact pool draws it."""

from __future__ import annotations

from PIL import Image

from farm.agent.api import Agent
from farm.config import Settings
from farm.report.marks import draw_marks
from farm.results import ArtifactStore, Mark
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Step
from tests.unit.test_action_space import case_of, planner, shop, xml


def red(img: Image.Image, x: float, y: float) -> bool:
    r, g, b = img.convert("RGB").getpixel((round(x), round(y)))
    return r > 180 and g < 90 and b < 120


def test_steps_record_where_they_acted_and_the_marked_shot_shows_it(tmp_path):
    case = case_of(Step(kind="aiInput", target="Password", value="pw"),
                   Step(kind="aiTap", target="Sign in"))
    store = ArtifactStore(tmp_path)
    services = Services(settings=Settings(), artifacts=store, run_id="r", env={})
    res = run_case(Job(case.id, case.platform, 1), case, shop(), services)
    store.flush()
    assert res.status == "passed", res.error
    typed, tapped = res.steps
    assert [(m.kind, m.points) for m in typed.marks] == [("type", [[110, 25]])]
    assert [(m.kind, m.points) for m in tapped.marks] == [("tap", [[60, 75]])]
    assert tapped.rect == [10, 60, 100, 30] and tapped.tier == "text"
    img = Image.open(tmp_path / tapped.marked)
    scale = img.width / tapped.screen[0]
    assert red(img, 60 * scale, 75 * scale)
    assert not red(Image.open(tmp_path / tapped.before), 60 * scale, 75 * scale)


def test_a_planned_swipe_is_a_path_with_the_model_s_thought():
    device = shop()
    agent = Agent(device, planner(
        "<thought>the list is below</thought><log>swipe up</log>"
        + xml("Swipe", {"direction": "up", "distance": 100}),
        '<complete success="true">done</complete>'))
    agent.ai_act("see the list")
    (mark,) = agent.acted
    w, h = device.size()
    assert mark["kind"] == "swipe" and mark["points"] == [[w // 2, h // 2], [w // 2, h // 2 - 100]]
    assert mark["note"] == "the list is below · swipe up"


def test_marks_scale_with_the_screenshot():
    img = Image.new("RGB", (200, 100), "white")          # a 400x200 screen, stored at half size
    out = draw_marks(img, [Mark(kind="tap", points=[[300, 150]])], [250, 120, 100, 60], "xpath",
                     [400, 200])
    assert red(out, 150, 75) and not red(out, 50, 25)
    assert out.getpixel((125, 60)) != (255, 255, 255)   # the located box's corner


def test_a_failed_ai_assert_keeps_the_model_s_reasoning(tmp_path):
    """With errorMessage the step fails with the suite's words, and the report still shows why
    the model judged it false (the step's output)."""
    from farm.llm.client import ScriptedModelClient
    from tests.unit.test_agent_insight import STATEMENT, app, judge_of, run_steps
    dev = app()
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken"})])
    assert res.status == "failed" and res.error.message == "login is broken"
    assert res.steps[0].output.startswith("the model: ") and "spinner" in res.steps[0].output
