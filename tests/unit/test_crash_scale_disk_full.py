"""A disk that fills up during a run (the report dir on a small volume): what farm writes as it
goes — the journal, the screenshots, results.json — fails alone, said once on stderr, and the
cases go on to their own verdicts. Files are made to fail as on a full disk by linking them to
/dev/full, where every write ends in ENOSPC."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.executors.base import NullEvents
from farm.executors.local import LocalExecutor
from farm.journal import JOURNAL, JournalEvents
from farm.results import ArtifactStore, RunSummary, write_json
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

FULL = Path("/dev/full")
pytestmark = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full (Linux)")

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])


def _case(name: str) -> Case:
    return Case(id=f"s/{name}", name=name, file=Path(f"/tmp/{name}.yaml"),
                suite_root=Path("/tmp"), platform="web",
                web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="aiTap", target="Sign in"),
                                             Step(kind="assertText", value="Welcome")])])


def _jpeg() -> bytes:
    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, "JPEG")
    return out.getvalue()


def test_a_journal_on_a_full_disk_costs_no_case_and_is_said_once(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / JOURNAL).symlink_to(FULL)
    cases = [_case("a"), _case("b"), _case("c")]
    journal = JournalEvents(NullEvents(), tmp_path, "r1",
                            [(c.id, c.name, str(c.file), "web") for c in cases])
    services = Services(settings=Settings(watchdog_grace_seconds=0.3, cache="off"),
                        artifacts=ArtifactStore(tmp_path), run_id="r1", env={})
    executor = LocalExecutor([FakeDevice(SCREEN)], {c.id: c for c in cases}, services,
                             RetryPolicy())
    outcome = executor.run([Job(c.id, "web", 1.0) for c in cases], journal)
    journal.close()
    services.artifacts.flush()
    assert {r.case_id: r.status for r in outcome.results} == dict.fromkeys(
        ("s/a", "s/b", "s/c"), "passed")
    err = capsys.readouterr().err
    assert err.count("farm: warning: cannot write the run's journal") == 1, err
    assert "No space left on device" in err


def test_screenshots_that_do_not_reach_a_full_disk_are_counted_not_raised(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    store = ArtifactStore(tmp_path)
    full, fine = store.path_for("s/a", 1, "step1"), store.path_for("s/a", 1, "step2")
    (tmp_path / full).parent.mkdir(parents=True)
    (tmp_path / full).symlink_to(FULL)
    store.store(full, _jpeg())
    store.store(fine, _jpeg())
    store.flush()                                   # no OSError out of the run's end
    err = capsys.readouterr().err
    assert "farm: warning: 1 screenshot(s) not written under" in err, err
    assert "No space left on device" in err
    assert not (tmp_path / full).exists() and not (tmp_path / full).is_symlink()  # no torn file
    assert (tmp_path / fine).read_bytes()[:2] == b"\xff\xd8"
    store.flush()
    assert capsys.readouterr().err == ""            # said once


def test_results_json_that_does_not_fit_leaves_no_torn_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import farm.report.paths as paths

    def full(*_args: object) -> None:          # the rename after a write that did not fit
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(paths.os, "replace", full)
    with pytest.raises(OSError):
        write_json(tmp_path / "results.json", RunSummary(run_id="r1", started="", cases=[]))
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.undo()
    write_json(tmp_path / "results.json", RunSummary(run_id="r1", started="", cases=[]))
    assert json.loads((tmp_path / "results.json").read_text())["run_id"] == "r1"

def test_farm_log_on_a_full_disk_is_said_once_and_never_raises(tmp_path: Path, capsys) -> None:
    """farm.log on a disk that filled up: one line on stderr, not logging's traceback for every
    line after it, and its close at the end of the run does not raise (that turned a run's
    verdict into an internal error, exit 3)."""
    import logging

    from farm.run_log import drop_handler, setup_logging
    (tmp_path / "farm.log").symlink_to(FULL)
    handler = setup_logging(tmp_path, lambda text: text)
    try:
        for n in range(3):
            logging.getLogger("farm.test").warning("line %d", n)
    finally:
        drop_handler(handler)                     # closes it: must not raise
    err = capsys.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err, err
    assert err.count("farm.log stops here") == 1, err


def test_the_failed_cases_kept_for_last_failed_survive_a_full_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--last-failed's list is replaced whole or not at all: a disk that is full when the run
    ends keeps the last good list (it was truncated to nothing: every case ran again)."""
    import errno

    import farm.report.paths as paths
    from farm.results import CaseResult
    from farm.run_outputs import LAST_FAILED, load_failures, remember_failures

    def case(status: str) -> CaseResult:
        return CaseResult(run_id="r", case_id="s/a", name="a", file="s/a.yaml",
                          platform="web", status=status)
    remember_failures(tmp_path, [case("failed")])
    assert load_failures(tmp_path) == ["s/a"]

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(paths.os, "replace", full)
    remember_failures(tmp_path, [case("passed")])
    assert load_failures(tmp_path) == ["s/a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [LAST_FAILED]
