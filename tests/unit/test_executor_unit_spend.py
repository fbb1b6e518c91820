"""The ledger both executors keep: a shared-context unit's result spends what all its files
spent. Its own usage was its worst file's (farm.runner copies that file's result), so the run's
--max-model-tokens / --max-model-cost counted a 2-file unit's calls as one file's."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.executors.base import Ledger, NullEvents
from farm.results import CaseResult
from farm.schedule import Job
from farm.suite.model import Case, Task, WebTarget
from farm.usage import Usage


class Told(NullEvents):
    def __init__(self) -> None:
        self.finals: list[CaseResult] = []

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        if final:
            self.finals.append(result)


def file_result(cid: str, tokens: int | None) -> CaseResult:
    usage = Usage(prompt_tokens=tokens, completion_tokens=1, calls=1) if tokens else None
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status="passed", usage=usage)


def test_a_units_result_spends_what_its_files_spent():
    files = [Case(id=f"s/{n}", name=n, file=Path(f"/tmp/s/{n}.yaml"),
                  suite_root=Path("/tmp/s"), platform="web", web=WebTarget(url="http://x/"),
                  tasks=[Task(name="t", steps=[])]) for n in ("a", "b", "c")]
    unit = files[0].model_copy(update={"id": "s/index", "tasks": [], "parts": files})
    told = Told()
    ledger = Ledger({unit.id: unit}, "r", RetryPolicy(), told)
    worst = file_result("s/a", 1000)
    result = worst.model_copy(update={"case_id": unit.id, "parts": [
        worst, file_result("s/b", 30), file_result("s/c", None)]})
    ledger.record(Job(unit.id, "web", 1.0), result, "d1")
    final, = told.finals
    assert final.usage is not None
    assert (final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.calls) == (
        1030, 2, 2)
    assert final.tokens == {"prompt": 1030, "completion": 2}
