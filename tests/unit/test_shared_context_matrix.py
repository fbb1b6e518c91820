"""A --matrix run runs a shareBrowserContext unit once per device group (``unit@group``); its
result was not split per file (`expand` looked units up by the plain id), so the report showed
one case per group, "batch (shared context: a.yaml, b.yaml) [g1]" with no step and the worst
file's error, not saying which file failed; junit.xml, the counts, results.json and the
results history had one case per unit. Each group's result is now its files', named for the
group as any case of a --matrix run is (``s/a@g1``, "a [g1]")."""

from __future__ import annotations

from pathlib import Path

from farm.results import CaseError, CaseResult
from farm.shared_context import expand
from farm.suite.model import Case, Shared, Task, WebTarget


def _unit() -> Case:
    parts = [Case(id=f"s/{n}", name=n, file=Path(f"/tmp/s/{n}.yaml"),
                  suite_root=Path("/tmp/s"), platform="web", web=WebTarget(url="about:blank"),
                  tasks=[Task(name="t", steps=[])],
                  shared=Shared(batch="index.yaml", unit_id="s/index", order=i,
                                continue_on_error=True))
             for i, n in enumerate(("a", "b"))]
    return parts[0].model_copy(update={"id": "s/index", "name": "batch", "tasks": [],
                                       "parts": parts})


def _file(name: str, status: str, attempt: int = 1) -> CaseResult:
    error = CaseError(kind="TestFailure", message="boom", step=1) if status == "failed" else None
    return CaseResult(run_id="r", case_id=f"s/{name}", name=name, file=f"s/{name}.yaml",
                      platform="web", status=status, error=error, attempt=attempt)


def _ran(group: str, *files: CaseResult, **kw) -> CaseResult:
    worst = next((f for f in files if f.status == "failed"), files[0])
    return worst.model_copy(update={"case_id": f"s/index@{group}", "name": f"batch [{group}]",
                                    "device": f"browser-{group}", "parts": list(files), **kw})


def test_each_group_s_run_of_a_unit_is_its_files_named_for_the_group() -> None:
    unit = _unit()
    first = _ran("g2", _file("a", "failed"), _file("b", "passed"))
    results = [_ran("g1", _file("a", "failed"), _file("b", "passed")),
               _ran("g2", _file("a", "passed", 2), _file("b", "passed", 2),
                    previous=[first], attempt=2, status="flaky")]
    files = {r.case_id: r for r in expand(results, {unit.id: unit})}
    assert {cid: (r.name, r.status, r.device) for cid, r in files.items()} == {
        "s/a@g1": ("a [g1]", "failed", "browser-g1"), "s/b@g1": ("b [g1]", "passed", "browser-g1"),
        "s/a@g2": ("a [g2]", "flaky", "browser-g2"), "s/b@g2": ("b [g2]", "passed", "browser-g2")}
    assert files["s/a@g1"].error is not None and files["s/a@g1"].error.message == "boom"
    assert [(p.case_id, p.name, p.status) for p in files["s/a@g2"].previous] == [
        ("s/a@g2", "a [g2]", "failed")]


def test_a_group_s_unit_that_never_ran_is_its_files_not_run_on_that_group() -> None:
    never = CaseResult(run_id="r", case_id="s/index@g1", name="batch [g1]", file="s/a.yaml",
                       platform="web", status="skipped", reason="not run: no device")
    assert [(r.case_id, r.name, r.status) for r in expand([never], {"s/index": _unit()})] == [
        ("s/a@g1", "a [g1]", "skipped"), ("s/b@g1", "b [g1]", "skipped")]


def test_a_case_whose_file_name_holds_an_at_is_itself() -> None:
    alone = CaseResult(run_id="r", case_id="s/index@home", name="index@home",
                       file="s/index@home.yaml", platform="web", status="passed")
    assert expand([alone], {"s/index": _unit()}) == [alone]


def test_files_already_named_for_their_group_are_not_named_twice() -> None:
    """A unit result rebuilt from a killed run's journal names its files per group already."""
    named = [f.model_copy(update={"case_id": f"{f.case_id}@g1", "name": f"{f.name} [g1]"})
             for f in (_file("a", "failed"), _file("b", "passed"))]
    assert [r.case_id for r in expand([_ran("g1", *named)], {"s/index": _unit()})] == [
        "s/a@g1", "s/b@g1"]


def test_a_group_s_run_of_a_unit_keeps_its_files_screens_apart_from_another_group_s(tmp_path):
    """The runner names each file for the group (its screenshots' folder is the case id's):
    each group's run of a file wrote its screenshots over the other's."""
    from farm.config import Settings
    from farm.devices.base import UITree
    from farm.devices.fake import FakeDevice
    from farm.results import ArtifactStore
    from farm.runner import Services, run_unit
    from farm.schedule import Job
    from farm.suite.model import Step
    unit = _unit()
    unit = unit.model_copy(update={"parts": [p.model_copy(update={"tasks": [Task(
        name="t", steps=[Step(kind="javascript", value="1")])]}) for p in unit.parts]})
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r",
                        env={})
    shots = {}
    for group in ("g1", "g2"):
        ran = unit.model_copy(update={"id": f"s/index@{group}", "name": f"batch [{group}]"})
        result = run_unit(Job(ran.id, "web", 1.0), ran, FakeDevice(UITree(source="dom"),
                                                                   scripts={"1": 1}), services)
        assert [(p.case_id, p.name) for p in result.parts] == [
            (f"s/a@{group}", f"a [{group}]"), (f"s/b@{group}", f"b [{group}]")]
        shots[group] = {s.after for p in result.parts for s in p.steps if s.after}
    assert shots["g1"] and not shots["g1"] & shots["g2"]
