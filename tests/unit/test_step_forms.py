"""What the loader makes of a step's form before anything runs: Midscene's three aiInput forms,
key names a device would refuse, results that would overwrite each other, and an
agent.groupName the case's own name: hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.kinds import KINDS, NEAR_MISSES
from farm.suite.loader import display_path, load_suites

TARGETS = {"web": "web:\n  url: https://example.com\n", "android": "android:\n  launch: a.b\n",
           "ios": "ios:\n  launch: a.b\n"}


def write_case(tmp_path: Path, flow: str, platform: str = "web", head: str = "") -> Path:
    """A case whose flow items start at line 6 + head's lines (``flow`` is indented for it)."""
    path = tmp_path / "c.yaml"
    path.write_text(f"{head}{TARGETS[platform]}tasks:\n  - name: t\n    flow:\n{flow}")
    return path


def loaded(path: Path, **kw):
    [case] = [c for s in load_suites([path], env={"KEY": "Enter"}, **kw) for c in s.cases]
    return case


def refused(path: Path) -> list[str]:
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={})
    return [str(e) for e in info.value.errors]


# ---- aiInput ------------------------------------------------------------------------------------

def test_aiinput_with_no_value_of_its_own_takes_locate_and_value(tmp_path):
    """Midscene's "new format 2" ({aiInput: undefined, locate, value}) types value into the
    located field; it is not a mixture of the other two forms."""
    for empty in ("", " ''", " null"):
        path = write_case(tmp_path, f"      - aiInput:{empty}\n        locate: Search\n"
                                    "        value: cup\n")
        [step] = loaded(path).steps
        assert (step.kind, step.target, step.value) == ("aiInput", "Search", "cup")
        assert step.action_params()["value"] == "cup"


def test_aiinput_with_text_locate_and_value_is_refused_for_what_it_has(tmp_path):
    path = write_case(tmp_path, "      - aiInput: cup\n        locate: Search\n"
                                "        value: mug\n")
    [err] = refused(path)
    assert err.startswith(f"{path}:7:17: aiInput: this step has the string 'cup' after "
                          "`aiInput:` as well as `locate:` and `value:`")
    assert "an empty `aiInput:` with `locate: <target>` and `value: <text>`" in err


# ---- key names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform, key, col, phrase", [
    ("web", "Entr", 26, "unknown key 'Entr' (did you mean 'Enter'?); expected a key name such "
                        "as Enter"),
    ("web", "Control+Entr", 26, "unknown key 'Entr' in 'Control+Entr' (did you mean 'Enter'?)"),
    ("web", "F13", 26, "unknown key 'F13'"),
    ("android", "Entr", 26, "unknown key 'Entr' on Android (did you mean 'enter'?); expected one "
                            "of enter, return"),
    ("android", "Control+A", 26, "or an Android KEYCODE_* name"),
    ("ios", "Escape", 26, "unknown key 'Escape' on iOS; expected one of enter, return, "
                          "backspace, delete, tab, space, home, volumeup, volumedown"),
])
def test_a_key_the_device_would_refuse_is_a_suite_error_at_its_line(tmp_path, platform, key,
                                                                    col, phrase):
    path = write_case(tmp_path, f"      - aiKeyboardPress: {key}\n", platform)
    [err] = refused(path)
    assert err.startswith(f"{path}:6:{col}: aiKeyboardPress: ") and phrase in err, err


def test_keyname_is_checked_too_and_points_at_it(tmp_path):
    path = write_case(tmp_path, "      - aiKeyboardPress: the search box\n        keyName: Tabb\n")
    [err] = refused(path)
    assert err.startswith(f"{path}:7:18: aiKeyboardPress: unknown key 'Tabb' (did you mean "
                          "'Tab'?)")


@pytest.mark.parametrize("platform, keys", [
    ("web", ["Enter", "enter", "Control+A", "Meta+a", "ctrl+shift+k", "Page Down", "F5", "a",
             "+", "Control++", "NumpadEnter", "${KEY}"]),
    ("android", ["Enter", "Home", "Back", "page_down", "KEYCODE_MOVE_HOME", "${KEY}"]),
    ("ios", ["Enter", "Backspace", "Home", "VolumeUp", "${KEY}"]),
])
def test_keys_the_device_presses_load(tmp_path, platform, keys):
    flow = "".join(f"      - aiKeyboardPress: \"{k}\"\n" for k in keys)
    case = loaded(write_case(tmp_path, flow, platform))
    assert [s.value for s in case.steps] == keys


# ---- results under one key ----------------------------------------------------------------------

def test_two_results_under_one_name_are_refused_at_the_second(tmp_path):
    path = write_case(tmp_path, "      - javascript: 'return 1'\n        name: x\n"
                                "      - javascript: 'return 2'\n        name: x\n")
    [err] = refused(path)
    assert err == (f"{path}:9:9: name 'x' is already the result key of the javascript at line "
                   "6: one result would overwrite the other in the case's data and output: "
                   "file; give each step a name: of its own")


def test_a_name_that_is_an_unnamed_results_number_is_refused(tmp_path):
    """Unnamed results are numbered "0", "1", … over the case, across tasks: a name: "1" and
    the second unnamed result clash whichever comes first."""
    path = write_case(tmp_path, "      - javascript: 'return 0'\n      - aiQuery: how many?\n"
                                "        name: '1'\n  - name: u\n    flow:\n"
                                "      - javascript: 'return 1'\n")
    [err] = refused(path)
    assert err.startswith(f"{path}:11:9: this unnamed javascript's result is numbered '1' "
                          "(unnamed results are numbered \"0\", \"1\", … over the case), "
                          "already the result key of the aiQuery at line 7")
    path = write_case(tmp_path, "      - javascript: 'return 0'\n      - aiQuery: how many?\n"
                                "        name: '0'\n")
    [err] = refused(path)
    assert err.startswith(f"{path}:8:9: name '0' is already the result key of the unnamed "
                          "javascript at line 6")


def test_names_of_steps_that_keep_no_result_may_repeat(tmp_path):
    """An aiTap or aiWaitFor keeps nothing under its name: two of them with one name (or with
    a data step's name) overwrite nothing."""
    case = loaded(write_case(tmp_path, "      - aiTap: a\n        name: x\n"
                                       "      - aiTap: b\n        name: x\n"
                                       "      - aiWaitFor: ready\n        name: x\n"
                                       "      - javascript: 'return 1'\n        name: x\n"))
    assert [s.options["name"] for s in case.steps] == ["x"] * 4


# ---- agent.groupName ----------------------------------------------------------------------------

def test_group_name_beside_a_name_is_a_warning_at_it(tmp_path):
    agent = "agent:\n  groupName: Group title\n"
    warnings: list[str] = []
    path = write_case(tmp_path, "      - sleep: 1\n", head=f"name: Own name\n{agent}")
    assert loaded(path, warnings=warnings).name == "Own name"
    assert warnings == [f"{path}:3:3: agent.groupName is not used: the case has its own name: "
                        "(line 1); groupName titles a case that has no name:"]
    warnings.clear()
    path = write_case(tmp_path, "      - sleep: 1\n", head=agent)
    assert loaded(path, warnings=warnings).name == "Group title" and warnings == []


# ---- unknown step kinds ---------------------------------------------------------------------------

def test_an_unknown_step_kind_is_pointed_at_the_kind_it_usually_means(tmp_path):
    path = write_case(tmp_path, "      - aiClick: Sign in\n      - aiType: demo\n"
                                "      - aiTapp: Sign in\n      - aiclick\n")
    assert refused(path) == [
        f"{display_path(path)}:6:9: unknown step kind 'aiClick' (did you mean 'aiTap'?)",
        f"{display_path(path)}:7:9: unknown step kind 'aiType' (did you mean 'aiInput'?)",
        f"{display_path(path)}:8:9: unknown step kind 'aiTapp' (did you mean 'aiTap'?)",
        f"{display_path(path)}:9:9: expected a step like `aiTap: <target>`, got the string "
        "'aiclick' (did you mean 'aiTap'?)"]
    assert set(NEAR_MISSES.values()) <= set(KINDS)
