"""One action space: a suite step and a model-planned action run the same Action class, and
the step-kind registry (farm.suite.kinds) is the one place kinds are declared."""

import json
from pathlib import Path

import pytest

from farm.agent.actions import Input, Scroll, Sleep, Tap, registry
from farm.agent.api import Agent
from farm.agent.loop import LoopLimits
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import _CALLS, Services, run_case
from farm.schedule import Job
from farm.suite.kinds import KINDS, LOCATE_OPTIONS, StepKind
from farm.suite.model import AndroidTarget, Case, IosTarget, Step, Task, WebTarget

LOGIN = UITree(source="dom", page_text="login", nodes=[
    UINode(id=0, role="input", placeholder="Password", editable=True, clickable=True,
           rect=Rect(x=10, y=10, width=200, height=30)),
    UINode(id=1, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=60, width=100, height=30))])
HOME = UITree(source="dom", page_text="Welcome back")


def shop(platform: str = "web") -> FakeDevice:
    return FakeDevice(screens={"login": LOGIN, "home": HOME}, transitions={"Sign in": "home"},
                      platform=platform)


def case_of(*steps: Step, platform: str = "web", secrets=(), vars=None) -> Case:
    targets = {"web": {"web": WebTarget(url="http://127.0.0.1:1/")},
               "android": {"android": AndroidTarget()}, "ios": {"ios": IosTarget()}}
    return Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform=platform, tasks=[Task(name="t", steps=list(steps))],
                secrets=list(secrets), vars=vars or {}, **targets[platform])


def run(case: Case, device: FakeDevice, tmp_path: Path, model=None):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r",
                        env={}, model=model)
    return run_case(Job(case.id, case.platform, 1), case, device, services)


def xml(action: str, params: dict) -> str:
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def planner(*replies: str) -> ModelSet:
    return ModelSet.single(ScriptedModelClient(list(replies)))


@pytest.fixture
def taps(monkeypatch):
    """Every Tap.run call, as (action, where it tapped)."""
    seen = []
    real = Tap.run

    def spy(self, ctx):
        seen.append((self, self.locate.rect.center))
        return real(self, ctx)

    monkeypatch.setattr(Tap, "run", spy)
    return seen


def test_suite_aitap_public_ai_tap_and_planned_tap_run_the_same_action(tmp_path, taps):
    res = run(case_of(Step(kind="aiTap", target="Sign in")), shop(), tmp_path)
    assert res.status == "passed", res.error
    assert res.steps[0].tier == "text"
    Agent(shop()).ai_tap("Sign in")
    device = shop()
    Agent(device, planner(xml("Tap", {"locate": {"prompt": "Sign in"}}),
                          '<complete success="true">in</complete>')).ai_act("sign in")
    assert device.screen == "home"
    assert [(type(a), a.locate.prompt, at) for a, at in taps] == [(Tap, "Sign in", (60, 75))] * 3


def test_a_broken_tap_breaks_the_step_and_the_planned_action_alike(tmp_path, monkeypatch):
    def broken(self, ctx):
        raise StepFailed("Tap is broken")

    monkeypatch.setattr(Tap, "run", broken)
    res = run(case_of(Step(kind="aiTap", target="Sign in")), shop(), tmp_path)
    assert res.status == "failed" and "Tap is broken" in res.error.message
    agent = Agent(shop(), planner(xml("Tap", {"locate": {"prompt": "Sign in"}})),
                  limits=LoopLimits(max_errors=0))
    with pytest.raises(StepFailed, match="Tap is broken"):
        agent.ai_act("sign in")


def test_input_step_types_the_secret_only_when_the_action_runs(tmp_path, monkeypatch):
    values = []
    real = Input.run
    monkeypatch.setattr(Input, "run", lambda self, ctx: (values.append(self.value),
                                                          real(self, ctx))[1])
    device = shop()
    case = case_of(Step(kind="aiInput", target="Password", value="${PW}",
                        options={"mode": "replace"}),
                   secrets=["PW"], vars={"PW": "s3cr3t"})
    res = run(case, device, tmp_path)
    assert res.status == "passed", res.error
    assert values == ["${PW}"]                       # the action holds the template ...
    assert ("type_text", "s3cr3t") in device.actions  # ... and types the value
    assert "s3cr3t" not in res.model_dump_json()


def test_a_model_tier_sees_the_target_as_written(tmp_path):
    # The text tier gets ${LABEL} resolved (no match on screen); the AI locate tier must get
    # the placeholder, never the value.
    client = ScriptedModelClient(['{"bbox": [10, 60, 110, 90]}'])
    case = case_of(Step(kind="aiTap", target="${LABEL}"), secrets=["LABEL"],
                   vars={"LABEL": "the big sign-in button"})
    res = run(case, shop(), tmp_path, model=ModelSet.single(client))
    assert res.status == "passed", res.error
    assert res.steps[0].tier == "ai"
    sent = repr(client.requests)
    assert "${LABEL}" in sent and "the big sign-in button" not in sent


def test_zero_token_tiers_see_the_target_resolved(tmp_path):
    case = case_of(Step(kind="aiTap", target="${BUTTON}"), vars={"BUTTON": "Sign in"})
    device = shop()
    res = run(case, device, tmp_path)
    assert res.status == "passed", res.error
    assert device.screen == "home" and res.steps[0].tier == "text"


def test_scroll_to_an_end_keeps_its_direction(tmp_path, monkeypatch):
    ran = []
    real = Scroll.run
    monkeypatch.setattr(Scroll, "run", lambda self, ctx: (ran.append(self.scrollType),
                                                           real(self, ctx))[1])
    device = shop()
    step = Step(kind="aiScroll", options={"direction": "up", "scrollType": "scrollToBottom"})
    assert run(case_of(step), device, tmp_path).status == "passed"
    Agent(device).ai_scroll(scroll_type="scrollToTop")
    scrolls = [a for a in device.actions if a[0] == "scroll"]
    assert ran == ["scrollToBottom", "scrollToTop"] and len(scrolls) == 20
    assert all(a[4] > 0 for a in scrolls[:10]) and all(a[4] < 0 for a in scrolls[10:])


def test_a_scroll_to_an_end_stops_where_the_device_saw_nothing_move(tmp_path, monkeypatch):
    device = shop()
    moves = iter([True, True, False])      # the web's scroll(): the third wheel moved nothing
    real = device.scroll
    monkeypatch.setattr(device, "scroll", lambda *a: (real(*a), next(moves, False))[1])
    step = Step(kind="aiScroll", options={"scrollType": "scrollToBottom"})
    assert run(case_of(step), device, tmp_path).status == "passed"
    assert len([a for a in device.actions if a[0] == "scroll"]) == 3


def test_sleep_step_is_the_sleep_action(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(Sleep, "run", lambda self, ctx: ran.append(self.timeMs))
    assert run(case_of(Step(kind="sleep", value="0")), shop(), tmp_path).status == "passed"
    Agent(shop()).sleep(0)
    assert ran == [0, 0]


class Phone(FakeDevice):
    """A fake phone with the platform calls of the real drivers."""

    def shell_result(self, command: str, timeout_s: float | None = None,
                     within_s: float | None = None) -> tuple[str, str, int]:
        self.actions.append(("shell", command))
        if command.startswith("echo "):
            return command[5:] + "\n", "", 0
        return "", f"/system/bin/sh: {command.split()[0]}: not found\n", 127

    def wda_request(self, method: str, path: str, data=None):
        self.actions.append(("wda", method, path, data))
        return {"ready": True} if path == "/status" else None


def test_run_adb_shell_output_is_the_step_output_and_a_bad_exit_fails(tmp_path):
    phone = Phone(LOGIN, platform="android")
    case = case_of(Step(kind="runAdbShell", value="echo ${WHO}", options={"name": "said"}),
                   Step(kind="runAdbShell", value="nope --now"),
                   platform="android", vars={"WHO": "hello"})
    res = run(case, phone, tmp_path)
    assert [s.status for s in res.steps] == ["passed", "failed"]
    assert res.steps[0].output == "hello\n" and res.data == {"said": "hello\n"}
    assert "`nope --now` exited 127: /system/bin/sh: nope: not found" in res.error.message


def test_run_wda_request_on_ios(tmp_path):
    phone = Phone(LOGIN, platform="ios")
    step = Step(kind="runWdaRequest", value="GET /status", options={
        "method": "GET", "endpoint": "/status", "name": "status"})
    res = run(case_of(step, platform="ios"), phone, tmp_path)
    assert res.status == "passed", res.error
    assert res.data == {"status": {"ready": True}}
    assert ("wda", "GET", "/status", None) in phone.actions


def test_a_platform_action_is_not_in_another_platforms_space(tmp_path):
    with pytest.raises(StepFailed, match="unknown action 'RunAdbShell'"):
        Agent(Phone(LOGIN, platform="ios")).call_action("RunAdbShell", {"command": "ls"})


def test_every_kind_runs_an_action_of_its_platforms_or_a_known_call():
    for kind in KINDS.values():
        if kind.action is not None:
            for platform in kind.platforms or ("web", "android", "ios"):
                assert kind.action in registry(platform), (kind.name, platform)
        else:
            assert kind.call in _CALLS, kind.name


def test_a_kind_declared_once_is_loaded_and_run(tmp_path, monkeypatch):
    from farm.suite.loader import load_case_file
    monkeypatch.setitem(KINDS, "aiPoke", StepKind("aiPoke", "target", "locate", LOCATE_OPTIONS,
                                                  action="Tap"))
    path = tmp_path / "poke.yaml"
    path.write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiPoke: Sign in\n        deepThink: false\n")
    case = load_case_file(path, env={})
    device = shop()
    assert run(case, device, tmp_path / "run").status == "passed"
    assert device.screen == "home"
