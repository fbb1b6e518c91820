"""A failed case drops the locate entries it wrote (farm.log: "locate cache: 1 entry used in
this attempt dropped: the case failed"): its steps' cache cell in results.json and the report
must not then say "1 written", which it did while `farm cache ls` listed 0 entries."""

from __future__ import annotations

from pathlib import Path

from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.unit.test_cache_trust import login_page


def _run(tmp_path: Path, store: MemoryStore, then: str):
    """aiTap "Sign in" (found by its text, its XPath cached), then assertText ``then``."""
    case = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="aiTap", target="Sign in"),
                                             Step(kind="assertText", value=then)])])
    services = Services(settings=Settings(), run_id="r1", env={}, cache=store,
                        artifacts=ArtifactStore(tmp_path / then))
    return run_case(Job(case.id, "web", 1), case, login_page(), services)


def test_a_failed_case_does_not_report_the_entries_it_dropped_as_written(tmp_path: Path):
    store = MemoryStore()
    result = _run(tmp_path, store, "Welcome back")      # not on the page: the case fails
    assert result.status == "failed"
    assert list(store.items()) == []                    # dropped, as farm.log says
    tap = result.steps[0]
    assert (tap.status, tap.tier) == ("passed", "text")
    assert tap.cache.written == 0
    assert tap.cache.summary() == "read-write"          # the report's "(cache: …)": the text
    # tier found it (no cache miss), nothing written


def test_a_passed_case_still_reports_the_entry_it_wrote(tmp_path: Path):
    store = MemoryStore()
    result = _run(tmp_path, store, "Sign in")
    assert result.status == "passed"
    assert len(list(store.items())) == 1
    assert result.steps[0].cache.summary() == "1 written"     # (the text tier found it)
