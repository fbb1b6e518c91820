"""Midscene scripts that write an option where Midscene allows it but farm did not look: agent
options under web:, config: at the top, viewportScale, harmless android: options, and a
JavaScript template literal's ${ in a javascript: step."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _load(tmp_path, text: str, warnings: list[str] | None = None):
    path = tmp_path / "case.yaml"
    path.write_text(text)
    [suite] = load_suites([path], env={}, warnings=warnings)
    return suite.cases[0]


def _problems(tmp_path, text: str) -> list:
    path = tmp_path / "case.yaml"
    path.write_text(text)
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={})
    return info.value.errors


def test_agent_options_under_web_mean_what_they_mean_under_agent(tmp_path) -> None:
    case = _load(tmp_path, "web:\n  url: https://example.com\n  aiActContext: close the banner\n"
                           "  cache:\n    id: shop\n  replanningCycleLimit: 10\n"
                           "  groupName: Checkout\n" + FLOW)
    assert case.agent == {"aiActContext": "close the banner", "replanningCycleLimit": 10,
                          "cache": {"id": "shop", "strategy": "read-write"}}
    assert case.name == "Checkout"


def test_the_legacy_aiActionContext_under_web_is_read_too(tmp_path) -> None:
    case = _load(tmp_path, "web:\n  url: https://example.com\n  aiActionContext: be brief\n"
                           "agent:\n  testId: t1\n" + FLOW)
    assert case.agent["aiActContext"] == "be brief" and case.agent["testId"] == "t1"


def test_one_agent_option_under_web_and_agent_is_refused_naming_both_lines(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  aiActionContext: one\n"
                                "agent:\n  aiActContext: two\n" + FLOW)
    assert (err.line, err.column) == (3, 3), str(err)
    assert err.message.startswith("web.aiActionContext and agent.aiActContext (line 5) both "
                                  "set the agent's aiActContext: give it once")


def test_an_agent_option_under_android_says_to_move_it_under_agent(tmp_path) -> None:
    [err] = _problems(tmp_path, "android:\n  launch: com.example.app\n  aiActContext: x\n"
                                + FLOW)
    assert (err.line, err.column) == (3, 3), str(err)
    assert "move it under agent:" in err.message and "unknown key" not in err.message


def test_config_output_is_the_targets_output(tmp_path) -> None:
    case = _load(tmp_path, "web:\n  url: https://example.com\nconfig:\n  output: ./out/a.json\n"
                           "  unstableLogContent: true\n" + FLOW)
    assert (case.output, case.log_content) == ("./out/a.json", "unstableLogContent.json")


def test_config_and_the_target_giving_one_output_is_refused(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  output: a.json\n"
                                "config:\n  output: b.json\n" + FLOW)
    assert (err.line, err.column) == (5, 3), str(err)
    assert err.message == "config.output and web.output (line 3) both set it: give it once"


def test_viewportScale_is_deviceScaleFactor(tmp_path) -> None:
    case = _load(tmp_path, "web:\n  url: https://example.com\n  viewportScale: 2\n" + FLOW)
    assert case.web.device_scale_factor == 2


def test_viewportScale_beside_deviceScaleFactor_is_refused(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  deviceScaleFactor: 1\n"
                                "  viewportScale: 2\n" + FLOW)
    assert (err.line, err.column) == (4, 18), str(err)
    assert "older name of deviceScaleFactor (line 3): give it once" in err.message


def test_harmless_android_options_load(tmp_path) -> None:
    warnings: list[str] = []
    case = _load(tmp_path, "android:\n  launch: com.example.app\n  displayId: 0\n"
                           "  alwaysRefreshScreenInfo: true\n  androidAdbPath: /opt/sdk/adb\n"
                           + FLOW, warnings)
    assert case.android.launch == "com.example.app"
    [warning] = warnings
    assert ":5:19: android.androidAdbPath is not used: farm runs no adb binary" in warning
    assert "ANDROID_ADB_SERVER_HOST:ANDROID_ADB_SERVER_PORT (default localhost:5037)" in warning


def test_another_display_is_still_refused(tmp_path) -> None:
    [err] = _problems(tmp_path, "android:\n  launch: com.example.app\n  displayId: 1\n" + FLOW)
    assert (err.line, err.column) == (3, 14), str(err)
    assert err.message == ("android.displayId is not supported by farm: farm drives the "
                           "default display only")


def test_a_template_literal_in_javascript_is_told_how_to_escape(tmp_path) -> None:
    errors = _problems(tmp_path, "web:\n  url: https://example.com\ntasks:\n  - name: t\n"
                                 "    flow:\n      - javascript: return `n=${n}`\n"
                                 "      - aiTap: ${NOPE}\n")
    js, tap = errors
    assert js.message.endswith("; if ${n} is JavaScript's own, write $${n} (farm reads $${ as "
                               "a literal ${)")
    assert "$${" not in tap.message


def test_the_escaped_template_literal_loads(tmp_path) -> None:
    case = _load(tmp_path, "web:\n  url: https://example.com\ntasks:\n  - name: t\n"
                           "    flow:\n      - javascript: return `n=$${n}`\n")
    assert case.steps[0].kind == "javascript"
