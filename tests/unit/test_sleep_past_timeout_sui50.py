"""`sleep: 90000` in a case with `timeout: 60` passed --collect-only, then burnt 60 s and
ended in an error: a sleep longer than the case's own timeout is refused at load, at the
sleep's line; against a timeout the case does not set (farm.yaml's, farm's default: --timeout
may raise it) it is a warning."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "page:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1000\n"


def _load(tmp_path, text: str, warnings: list[str] | None = None):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "slow.yaml").write_text(text)
    return load_suites([tmp_path / "s"], env={}, dotenv=None, warnings=warnings)


def test_a_sleep_past_the_cases_own_timeout_is_refused_at_its_line_sui50(tmp_path):
    with pytest.raises(SuiteErrors) as refused:
        _load(tmp_path, "timeout: 60\n" + FLOW + "      - sleep: 90000\n")
    said = str(refused.value)
    assert "slow.yaml:8:9: sleep: 90000 ms is 90 s, longer than the case's timeout: 60 s " \
           "(line 1)" in said
    assert "shorten the sleep or raise timeout:" in said


def test_a_sleep_within_the_timeout_loads_sui50(tmp_path):
    warnings: list[str] = []
    suites = _load(tmp_path, "timeout: 60\n" + FLOW + "      - sleep: 60000\n", warnings)
    assert [c.timeout for s in suites for c in s.cases] == [60]
    assert not any("sleep" in w for w in warnings)


def test_a_sleep_past_the_default_timeout_is_a_warning_sui50(tmp_path):
    warnings: list[str] = []
    suites = _load(tmp_path, FLOW + "      - sleep: 400000\n", warnings)
    assert len([c for s in suites for c in s.cases]) == 1
    assert any("slow.yaml:7:9: sleep: 400000 ms is 400 s, longer than the case's timeout of "
               "300 s (it sets no timeout: of its own" in w for w in warnings)
