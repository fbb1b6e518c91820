"""An agent option written under web: (Midscene's place for it) is named in errors as written,
web.<option>, at its own line:col, never as an agent: the file does not have."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _problems(tmp_path, text: str) -> list:
    path = tmp_path / "case.yaml"
    path.write_text(text)
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={})
    return info.value.errors


def test_both_context_names_under_web_name_web_twice(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  aiActContext: one\n"
                                "  aiActionContext: two\n" + FLOW)
    assert (err.line, err.column) == (4, 3), str(err)
    assert err.message.startswith("web.aiActionContext and web.aiActContext (line 3) both set "
                                  "the agent's aiActContext: give it once"), err.message
    assert "agent." not in err.message


def test_a_bad_cache_strategy_under_web_is_web_cache_strategy(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  cache:\n    id: shop\n"
                                "    strategy: sometimes\n" + FLOW)
    assert (err.line, err.column) == (5, 15), str(err)
    assert err.message.startswith("web.cache.strategy: expected one of"), err.message


def test_a_bad_replanning_limit_under_web_is_web_replanningCycleLimit(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n  replanningCycleLimit: 0\n"
                                + FLOW)
    assert (err.line, err.column) == (3, 25), str(err)
    assert err.message.startswith("web.replanningCycleLimit: expected a positive integer")


def test_report_options_under_web_are_named_under_web(tmp_path) -> None:
    errors = _problems(tmp_path, "web:\n  url: https://example.com\n  generateReport: false\n"
                                 "  screenshotShrinkFactor: 2\n" + FLOW)
    assert sorted((e.line, e.message.split(" ")[0]) for e in errors) == [
        (3, "web.generateReport:"), (4, "web.screenshotShrinkFactor")], errors


def test_the_same_options_under_agent_keep_their_agent_names(tmp_path) -> None:
    [err] = _problems(tmp_path, "web:\n  url: https://example.com\n"
                                "agent:\n  replanningCycleLimit: 0\n" + FLOW)
    assert err.message.startswith("agent.replanningCycleLimit: expected a positive integer")
