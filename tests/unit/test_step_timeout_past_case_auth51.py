"""`waitForText` (or aiWaitFor) with a `timeout:` longer than its case's passed load, then
ended as an infrastructure ERROR (exit 3, not retried) when the case was stopped in it. It is
warned of at load, naming both (a wait's timeout is only its longest: its text usually comes
in a second, and a suite that passed must keep loading; a `sleep:` is refused)."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "page:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _load(tmp_path, text: str, warnings: list[str] | None = None):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "wait.yaml").write_text(text)
    return load_suites([tmp_path / "s"], env={}, dotenv=None, warnings=warnings)


def test_a_wait_past_the_cases_own_timeout_is_warned_of_and_loads(tmp_path):
    warnings: list[str] = []
    suites = _load(tmp_path, "timeout: 3s\n" + FLOW + "      - waitForText: Done\n"
                             "        timeout: 10000\n      - aiWaitFor: the list shows\n"
                             "        timeoutMs: 5000\n", warnings)
    assert [c.timeout for s in suites for c in s.cases] == [3]
    said = "\n".join(map(str, warnings))
    assert "wait.yaml:8:9: waitForText: timeout: 10000 ms is 10 s, longer than the case's " \
           "timeout: 3 s (line 1)" in said
    assert "wait.yaml:10:9: aiWaitFor: timeout: 5000 ms is 5 s, longer than the case's " \
           "timeout: 3 s (line 1)" in said


def test_a_sleep_past_the_cases_own_timeout_is_still_refused(tmp_path):
    with pytest.raises(SuiteErrors) as refused:
        _load(tmp_path, "timeout: 3s\n" + FLOW + "      - sleep: 10000\n")
    assert "wait.yaml:8:9: sleep: 10000 ms is 10 s, longer than the case's timeout: 3 s " \
           "(line 1)" in str(refused.value)


def test_a_wait_within_the_timeout_loads(tmp_path):
    warnings: list[str] = []
    suites = _load(tmp_path, "timeout: 10\n" + FLOW + "      - waitForText: Done\n"
                             "        timeout: 10000\n", warnings)
    assert [c.timeout for s in suites for c in s.cases] == [10]
    assert not any("waitForText" in w for w in warnings)


def test_a_wait_past_the_default_timeout_is_a_warning(tmp_path):
    warnings: list[str] = []
    _load(tmp_path, FLOW + "      - waitForText: Done\n        timeout: 900000\n", warnings)
    assert [w for w in warnings if "waitForText: timeout: 900000 ms is 900 s" in w]
