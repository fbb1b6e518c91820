"""Options and items of Midscene's current YAML reference as farm reads them: what farm cannot
honour is refused at its line saying why and what to write instead (never "unknown option,
did you mean"); what it honours under Midscene's other name loads as that."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from tests.support.farm_cli import run_main

HEAD = {"web": "page:\n  url: https://example.com\n",
        "android": "android:\n  launch: com.example.app\n",
        "ios": "ios:\n  launch: com.example.app\n"}


def _write(tmp_path, flow: str, platform: str = "web"):
    path = tmp_path / "case.yaml"
    path.write_text(HEAD[platform] + "tasks:\n  - name: t\n    flow:\n" + flow)
    return path


def _problems(tmp_path, flow: str, platform: str = "web"):
    with pytest.raises(SuiteErrors) as info:
        load_suites([_write(tmp_path, flow, platform)], env={})
    return info.value.errors


def _steps(tmp_path, flow: str, platform: str = "web"):
    [suite] = load_suites([_write(tmp_path, flow, platform)], env={})
    return suite.cases[0].steps


# (flow item, what the one line says after "<kind> <option>: not supported by farm: ")
REFUSED = [
    ("      - aiTap: Login\n        context: the blue one\n",
     "aiTap context", "write it into the target description"),
    ("      - aiAssert: the new version shows\n        context: tabs on top\n",
     "aiAssert context", "write it into the assertion"),
    ("      - aiQuery: the title\n        context: the header\n",
     "aiQuery context", "write it into the question"),
    ("      - aiInput: Name\n        value: bob\n        keyboardTypeDelay: 50\n",
     "aiInput keyboardTypeDelay", "`mode: typeOnly` and a `sleep:` between them"),
    ("      - aiAct: upload the avatar\n        fileChooserAccept: ./avatar.png\n",
     "aiAct fileChooserAccept", "put fileChooserAccept on an `aiTap:`"),
    ("      - aiAct: upload the avatar\n        fileChooserAllowedDir: ./fixtures\n",
     "aiAct fileChooserAllowedDir", "on an `aiTap:` of the button that opens"),
    ("      - aiAssert: a toast showed\n        observe: true\n",
     "aiAssert observe", "agent.startObserving() in code"),
]


@pytest.mark.parametrize("flow, where, instead", REFUSED, ids=[r[1] for r in REFUSED])
def test_a_midscene_option_farm_cannot_honour_says_why_and_what_instead(tmp_path, flow, where,
                                                                       instead) -> None:
    [err] = _problems(tmp_path, flow)
    last = 5 + flow.count("\n")        # the option (the item's last line), at its key
    assert (err.line, err.column) == (last, 9), str(err)
    assert err.message.startswith(f"{where}: not supported by farm: "), err.message
    assert instead in err.message
    assert "unknown option" not in err.message and "did you mean" not in err.message


def test_a_context_on_a_step_without_a_prompt_is_still_an_unknown_option(tmp_path) -> None:
    [err] = _problems(tmp_path, "      - sleep: 100\n        context: x\n")
    assert err.message.startswith("unknown option 'context' for sleep")


def test_pinch_on_the_web_says_why_farm_cannot_and_what_to_do(tmp_path) -> None:
    [err] = _problems(tmp_path, "      - aiPinch: the map\n        direction: out\n")
    assert (err.line, err.column) == (6, 9)
    assert err.message.startswith("aiPinch only works in android and ios cases (this case "
                                  "is for web): farm's browser has no two-finger touch")
    assert "`aiTap: <zoom button>`" in err.message


def test_pinch_on_android_still_loads(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiPinch: the map\n        direction: out\n", "android")
    assert step.action_params() == {"direction": "out", "locate": {
        "prompt": "the map", "xpath": None, "deepLocate": False}}


@pytest.mark.parametrize("kind", ["freezePageContext", "unfreezePageContext"])
def test_midscenes_agent_methods_are_said_to_be_no_yaml_steps(tmp_path, kind) -> None:
    [err] = _problems(tmp_path, f"      - {kind}: true\n")
    assert f"unknown step kind '{kind}' (a method of Midscene's agent in code, not a YAML " \
           "step" in err.message
    assert "expected one of" not in err.message


def test_wait_for_takes_midscenes_timeout_ms_as_its_timeout(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiWaitFor: the list shows\n        timeoutMs: 4000\n")
    assert step.timeout_ms == 4000


def test_wait_for_with_timeout_and_timeout_ms_is_refused_at_the_second(tmp_path) -> None:
    [err] = _problems(tmp_path, "      - aiWaitFor: x\n        timeout: 3000\n"
                                "        timeoutMs: 4000\n")
    assert (err.line, err.column) == (8, 9)
    assert "give `timeout` once (`timeoutMs` is another name for it)" in err.message


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_hover_on_a_phone_is_refused_where_it_would_only_have_found_the_element(
        tmp_path, platform) -> None:
    [err] = _problems(tmp_path, "      - aiHover: the menu\n", platform)
    assert (err.line, err.column) == (6, 9)
    assert err.message.startswith(f"aiHover only works in web cases (this case is for "
                                  f"{platform}): a touch screen has no pointer to hover with")
    assert "`aiTap:` or `aiLongPress:` the element" in err.message


def test_hover_on_the_web_still_loads(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiHover: the menu\n")
    assert step.spec.action == "Hover" and step.target == "the menu"


def _with_agent(tmp_path, agent: str):
    path = tmp_path / "case.yaml"
    path.write_text(f"agent:\n{agent}" + HEAD["web"]
                    + "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    return path


def test_agent_persist_execution_dump_loads(tmp_path) -> None:
    [suite] = load_suites([_with_agent(tmp_path, "  persistExecutionDump: true\n")], env={})
    assert suite.cases[0].web is not None


def test_agent_screenshot_shrink_factor_is_refused_saying_why(tmp_path) -> None:
    with pytest.raises(SuiteErrors) as info:
        load_suites([_with_agent(tmp_path, "  screenshotShrinkFactor: 2\n")], env={})
    [err] = info.value.errors
    assert (err.line, err.column) == (2, 3)
    assert err.message.startswith("agent.screenshotShrinkFactor is not supported by farm: "
                                  "the model gets each screenshot at the size the device")
    assert "unknown key" not in err.message


def test_deep_locate_inside_a_drag_end_says_to_write_it_beside_the_step(tmp_path) -> None:
    [err] = _problems(tmp_path, "      - aiDragAndDrop:\n        from: a\n        to:\n"
                                "          prompt: b\n          deepLocate: true\n")
    assert (err.line, err.column) == (10, 11)
    assert err.message == ("aiDragAndDrop to: only `prompt:` is read here (write `deepLocate: "
                           "true` beside aiDragAndDrop: farm locates both ends with it)")


def test_deep_locate_beside_a_drag_reaches_both_ends(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiDragAndDrop:\n        from: a\n        to: b\n"
                              "        deepLocate: true\n")
    params = step.action_params()
    assert params["from"] == {"prompt": "a", "deepLocate": True}
    assert params["to"] == {"prompt": "b", "deepLocate": True}


def test_farm_run_says_each_refusal_on_one_line_and_exits_4(tmp_path, monkeypatch,
                                                            capsys) -> None:
    path = _write(tmp_path, "      - aiTap: Login\n        context: the blue one\n"
                            "      - aiInput: Name\n        value: bob\n"
                            "        keyboardTypeDelay: 50\n"
                            "      - aiPinch: the map\n        direction: out\n")
    code, out, err = run_main(monkeypatch, capsys, "run", path, "--collect-only")
    assert code == 4 and "Traceback" not in out + err
    lines = [line.strip() for line in err.splitlines() if str(path) in line]
    assert [line.split(": ", 1)[0] for line in lines] == [f"{path}:7:9", f"{path}:10:9",
                                                          f"{path}:11:9"]
    assert "not supported by farm" in lines[0] and "not supported by farm" in lines[1]
    assert "farm's browser has no two-finger touch" in lines[2]


@pytest.mark.parametrize("kind", ["ai", "aiAct", "aiAction"])
def test_an_ai_steps_own_context_is_read(tmp_path, kind) -> None:
    """Midscene's per-step `context:` on aiAct: the model reads it with the task, in place of
    the file's agent.aiActContext (the runner gives it to `Agent.ai_act`)."""
    [step] = _steps(tmp_path, f"      - {kind}: log in\n        context: as admin\n")
    assert step.options["context"] == "as admin"
    [err] = _problems(tmp_path, f"      - {kind}: log in\n        context: ''\n")
    assert err.message.startswith(f"{kind} context:"), err.message


@pytest.mark.parametrize("kind", ["ai", "aiAct", "aiAction"])
def test_ai_deep_think_unset_is_midscenes_legacy_false(tmp_path, kind) -> None:
    [step] = _steps(tmp_path, f"      - {kind}: log in\n        deepThink: unset\n")
    assert step.options["deepThink"] is False


def test_deep_think_unset_on_a_locate_step_is_still_refused(tmp_path) -> None:
    [err] = _problems(tmp_path, "      - aiTap: x\n        deepThink: unset\n")
    assert err.message == "aiTap deepThink: expected true or false, got the string 'unset'"
