"""shareBrowserContext as farm plans it (farm.shared_context, farm.select): Midscene's own
share-context batch becomes one unit with its setup first; a shard takes a unit whole; a unit's
result is reported per file."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.results import CaseResult
from farm.select import SelectOptions, select_cases
from farm.shared_context import build_units, expand
from farm.suite.loader import load_suites

UPSTREAM = Path(__file__).resolve().parents[1] / "midscene" / "upstream" / "tests"


@pytest.fixture(autouse=True)
def _upstream_cwd(monkeypatch) -> None:
    monkeypatch.chdir(UPSTREAM.parent)      # the scripts' `serve: ./tests/server_root`


def _cases(*paths: Path):
    return [c for s in load_suites(list(paths), env={}) for c in s.cases]


def test_the_files_of_a_shared_batch_become_one_unit_in_the_batch_order() -> None:
    shared = _cases(UPSTREAM / "share_context_test_scripts")
    others = _cases(UPSTREAM / "multi_yaml_scripts")
    units = build_units(sorted(others + shared, key=lambda c: c.id))
    unit = next(u for u in units if u.parts)
    assert unit.id == "share_context_test_scripts/index" and len(units) == len(others) + 1
    assert [p.file.name for p in unit.parts] == ["01-login.yaml", "02-check-login.yaml"]
    assert unit.parts[0].shared.setup and not unit.parts[1].shared.setup
    assert unit.platform == "web" and unit.timeout == sum(p.timeout for p in unit.parts)
    assert all(c.shared is None for c in others)      # shareBrowserContext: false


def test_a_shard_takes_a_shared_unit_whole() -> None:
    cases = _cases(UPSTREAM / "share_context_test_scripts", UPSTREAM / "multi_yaml_scripts")
    shards = [select_cases(cases, SelectOptions(shard=(i, 3))).selected
              for i in (1, 2, 3)]
    assert sorted(c.id for s in shards for c in s) == sorted(c.id for c in cases)
    holding = [i for i, s in enumerate(shards) if any(c.shared for c in s)]
    assert len(holding) == 1
    assert sum(1 for c in shards[holding[0]] if c.shared) == 2


def _result(cid: str, status: str, **kw) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status=status, **kw)


def test_a_unit_result_is_reported_per_file() -> None:
    [unit] = build_units(_cases(UPSTREAM / "share_context_test_scripts"))
    a, b = (p.id for p in unit.parts)
    first = _result(unit.id, "failed", attempt=1, parts=[_result(a, "passed"),
                                                         _result(b, "failed")])
    last = _result(unit.id, "flaky", attempt=2, device="browser-1", previous=[first],
                   parts=[_result(a, "passed"), _result(b, "passed")])
    files = {r.case_id: r for r in expand([last], {unit.id: unit})}
    assert files[a].status == "passed" and files[b].status == "flaky"
    assert files[b].device == "browser-1" and files[b].attempt == 2
    assert [p.status for p in files[b].previous] == ["failed"]
    never = _result(unit.id, "skipped", reason="needs a model")
    assert [(r.case_id, r.status, r.reason) for r in expand([never], {unit.id: unit})] == [
        (a, "skipped", "needs a model"), (b, "skipped", "needs a model")]


def test_a_selected_file_of_a_shared_batch_brings_its_setup_file() -> None:
    cases = _cases(UPSTREAM / "share_context_test_scripts", UPSTREAM / "multi_yaml_scripts")
    chosen = select_cases(cases, SelectOptions(keyword="check-login or after-login"))
    assert sorted(c.id for c in chosen.selected) == [
        "multi_yaml_scripts/after-login", "share_context_test_scripts/01-login",
        "share_context_test_scripts/02-check-login"]
    alone = select_cases(cases, SelectOptions(keyword="01-login"))
    assert [c.id for c in alone.selected] == ["share_context_test_scripts/01-login"]


def test_a_file_retried_after_its_device_was_lost_is_passed_not_flaky() -> None:
    """As any case retried after an infrastructure error: the device broke, not the app (CI
    called the file flaky, and the run warned of it)."""
    [unit] = build_units(_cases(UPSTREAM / "share_context_test_scripts"))
    a, b = (p.id for p in unit.parts)
    lost = _result(unit.id, "error", attempt=1, parts=[_result(a, "error"),
                                                      _result(b, "skipped")])
    last = _result(unit.id, "passed", attempt=2, previous=[lost],
                   parts=[_result(a, "passed"), _result(b, "passed")])
    files = {r.case_id: r for r in expand([last], {unit.id: unit})}
    assert (files[a].status, files[b].status) == ("passed", "passed")
    assert [p.status for p in files[a].previous] == ["error"]


def test_an_earlier_attempt_without_files_is_kept_its_spend_counted_once() -> None:
    """A unit's attempt whose result has no files' results (as an older journal has them) is
    each file's earlier attempt; what it spent on the model, on the first file only."""
    from farm.usage import Usage
    [unit] = build_units(_cases(UPSTREAM / "share_context_test_scripts"))
    a, b = (p.id for p in unit.parts)
    lost = _result(unit.id, "error", attempt=1, usage=Usage(prompt_tokens=500, calls=2),
                   tokens={"prompt": 500})
    last = _result(unit.id, "passed", attempt=2, previous=[lost],
                   parts=[_result(a, "passed"), _result(b, "passed")])
    files = {r.case_id: r for r in expand([last], {unit.id: unit})}
    (first,), (second,) = files[a].previous, files[b].previous
    assert (first.case_id, first.status, second.case_id, second.status) == (
        a, "error", b, "error")
    assert first.usage is not None and first.usage.calls == 2 and second.usage is None
    assert second.tokens == {}


def test_a_retried_unit_s_file_takes_the_time_of_every_attempt() -> None:
    """Each file of a retried shared-context unit reports, as any retried case, the time of
    all its attempts (1 s failing, then 2 s), its last attempt's own kept apart."""
    [unit] = build_units(_cases(UPSTREAM / "share_context_test_scripts"))
    a, b = (p.id for p in unit.parts)
    first = _result(unit.id, "failed", attempt=1, parts=[
        _result(a, "passed", duration=0.5), _result(b, "failed", duration=1.0)])
    last = _result(unit.id, "flaky", attempt=2, previous=[first], parts=[
        _result(a, "passed", duration=0.25), _result(b, "passed", duration=2.0)])
    files = {r.case_id: r for r in expand([last], {unit.id: unit})}
    assert (files[b].duration, files[b].attempt_duration) == (3.0, 2.0)
    assert (files[a].duration, files[a].attempt_duration) == (0.75, 0.25)
