"""A case's ``timeout:`` is in seconds while every other time in a suite file is milliseconds
(Midscene's ``waitForText`` ``timeout: 5000``, ``sleep: 1000``): ``timeout: 30000`` in a case
or farm.yaml was taken as 8.3 hours without a word, so a hung case held its device (and the CI
job) for hours. Such a value now gets a warning at its file:line:col; it is still taken."""

from __future__ import annotations

from pathlib import Path

from farm.suite.loader import load_suites

CASE = ("name: c\n{timeout}web:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - waitForText: hi\n        timeout: 5000\n")


def _load(tmp_path: Path, case_timeout: str, suite_timeout: str | None):
    (tmp_path / "s").mkdir()
    if suite_timeout is not None:
        (tmp_path / "s" / "farm.yaml").write_text(f"timeout: {suite_timeout}\n")
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(timeout=case_timeout))
    warnings: list[str] = []
    [suite] = load_suites([tmp_path / "s"], env={}, dotenv=None, warnings=warnings)
    return suite.cases[0], warnings


def test_a_timeout_written_in_milliseconds_is_warned_about(tmp_path):
    case, warnings = _load(tmp_path, "timeout: 60000\n", "30000")
    assert case.timeout == 60000
    assert [w.split(": timeout:")[0].rsplit("/", 1)[-1] for w in warnings] == [
        "farm.yaml:1:10", "c.yaml:2:10"]
    assert warnings[1].endswith("timeout: 60000 seconds is 16.7 hours: a case's timeout is in "
                                "seconds (a step's timeout: and sleep: are milliseconds); for "
                                "60 s write timeout: 60")


def test_a_timeout_in_seconds_is_not(tmp_path):
    case, warnings = _load(tmp_path, "timeout: 3600\n", "90")
    assert case.timeout == 3600 and warnings == []


def test_a_step_timeout_written_in_seconds_is_warned_about(tmp_path):
    """The mirror slip: `waitForText` `timeout: 5` (seconds, as the case's timeout: is written)
    gave up after 5 ms, failing a wait that would have passed, without a word at load."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(
        "name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - waitForText: hi\n        timeout: 5\n      - waitForText: hi\n"
        "        timeout: 500\n")
    warnings: list[str] = []
    [suite] = load_suites([tmp_path / "s"], env={}, dotenv=None, warnings=warnings)
    assert [w.rsplit("/", 1)[-1] for w in warnings] == [
        "c.yaml:8:18: waitForText timeout: 5 milliseconds: a step's timeout is in milliseconds "
        "(the case's timeout: is seconds); for 5 s write timeout: 5000"]
    assert [s.timeout_ms for s in suite.cases[0].tasks[0].steps] == [5, 500]
