"""The results journal (farm/journal.py): what `farm report RUN_DIR` rebuilds from it after
`farm run` was killed outright (kill -9, the OOM killer, a power cut)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from farm.executors.base import NullEvents
from farm.journal import JOURNAL, JournalEvents, recover
from farm.results import CaseResult


def test_a_killed_run_is_rebuilt_with_its_duration_the_case_it_was_in_and_those_never_run(
        tmp_path):
    planned = [("s/a", "A", "s/a.yaml", "web"), ("s/b", "B", "s/b.yaml", "web"),
               ("s/c", "C", "s/c.yaml", "android")]
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", planned)
    head = json.loads((tmp_path / JOURNAL).read_text().splitlines()[0])["started"]
    began = datetime.fromisoformat(head)
    journal.case_started("browser-1", "s/a", "A", 1)
    journal.case_finished("browser-1", CaseResult(
        run_id="run-1", case_id="s/a", name="A", file="s/a.yaml", platform="web",
        device="browser-1", status="passed", duration=2.5,
        started=(began + timedelta(seconds=1)).isoformat()), final=True)
    journal.case_started("browser-1", "s/b", "B", 1)
    with (tmp_path / JOURNAL).open("a") as half:     # the line being written at the kill
        half.write('{"run_id": "run-1", "case_id": "s/b", "sta')
    # no close(): the process is gone

    summary = recover(tmp_path)
    cases = {c.case_id: c for c in summary.cases}
    assert (summary.run_id, summary.started) == ("run-1", head)
    assert summary.farm_version and summary.interrupted and summary.exit_code == 2
    assert summary.duration >= 3.5                   # to the end of s/a at least, not 0
    # its end: the last thing the journal recorded (s/b's start, or s/a's end if later)
    last = json.loads((tmp_path / JOURNAL).read_text().splitlines()[-2])["started"]
    ends = max(datetime.fromisoformat(last), began + timedelta(seconds=3.5))
    assert datetime.fromisoformat(summary.finished) == ends
    assert (datetime.fromisoformat(summary.finished) - began).total_seconds() == \
        pytest.approx(summary.duration, abs=0.001)
    assert cases["s/a"].status == "passed"
    b = cases["s/b"]
    assert (b.status, b.device, b.file) == ("interrupted", "browser-1", "s/b.yaml")
    assert b.reason == "farm stopped while it ran: its steps were not saved" and b.started
    c = cases["s/c"]
    assert (c.status, c.platform, c.reason) == ("skipped", "android",
                                               "not run: farm stopped before it started")
    assert {k: n for k, n in summary.counts.items() if n} == {
        "passed": 1, "interrupted": 1, "skipped": 1, "total": 3}


def test_a_journal_from_before_the_markers_still_rebuilds(tmp_path):
    """A run dir written by an older farm: result lines only."""
    result = CaseResult(run_id="old", case_id="s/a", name="A", file="s/a.yaml", platform="web",
                        status="failed", started=datetime.now(timezone.utc).isoformat())
    (tmp_path / JOURNAL).write_text(result.model_dump_json() + "\n")
    summary = recover(tmp_path)
    assert summary.run_id == "old" and [c.status for c in summary.cases] == ["failed"]


def test_a_killed_run_keeps_what_its_devices_were(tmp_path):
    """A device says what it is when it opens (the slot passes it on): a run killed in its first
    case, before any result was written, still reports the phone's model and OS."""
    from farm.config import Settings
    from farm.devices.base import UITree
    from farm.devices.fake import FakeDevice
    from farm.results import ArtifactStore
    from farm.runner import Services
    from farm.slot import DeviceSlot

    journal = JournalEvents(NullEvents(), tmp_path, "run-1", [("s/a", "A", "s/a.yaml", "android")])
    phone = FakeDevice(UITree(source="uiautomator", nodes=[]), name="emulator-5554",
                       platform="android")
    phone.about = "Pixel 7, Android 14"
    slot = DeviceSlot(phone, Services(settings=Settings(), artifacts=ArtifactStore(tmp_path),
                                      run_id="run-1", env={}), events=journal)
    assert slot.open()
    journal.case_started("emulator-5554", "s/a", "A", 1)        # then kill -9
    summary = recover(tmp_path)
    assert summary.device_info == {"emulator-5554": "Pixel 7, Android 14"}
    assert summary.cases[0].device == "emulator-5554"


def test_a_run_rebuilt_by_an_older_farm_gets_its_end_time(tmp_path):
    """`farm report RUN_DIR` once wrote an end line with ``"finished": ""`` for a killed run;
    rebuilding it again gives the time the journal last recorded, not ""."""
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", [("s/a", "A", "s/a.yaml", "web")])
    journal.case_started("browser-1", "s/a", "A", 1)
    journal.close()
    began = json.loads((tmp_path / JOURNAL).read_text().splitlines()[-1])["started"]
    with (tmp_path / JOURNAL).open("a") as f:
        f.write(json.dumps({"journal": "end", "finished": "", "interrupted": True}) + "\n")
    summary = recover(tmp_path)
    assert datetime.fromisoformat(summary.finished) == datetime.fromisoformat(began)


def test_a_shared_context_unit_is_rebuilt_as_its_files(tmp_path):
    """A shareBrowserContext batch runs as one unit (one job) whose result holds its files':
    the run's end lists the files, and so must a killed run rebuilt from its journal (it
    listed the unit, named after the batch: a case id matching no file, for the results
    history and --last-failed)."""
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", [
        ("s/index", "index.yaml (shared context: login.yaml, cart.yaml)", "s/login.yaml",
         "web"), ("s/slow", "slow", "s/slow.yaml", "web")])

    def part(case_id: str, status: str, attempt: int) -> CaseResult:
        return CaseResult(run_id="run-1", case_id=case_id, name=case_id[2:], platform="web",
                          file=f"{case_id}.yaml", device="browser-1", status=status,
                          attempt=attempt)

    first = part("s/index", "failed", 1).model_copy(update={
        "parts": [part("s/login", "passed", 1), part("s/cart", "failed", 1)]})
    journal.case_finished("browser-1", first, final=False)
    unit = part("s/index", "passed", 2).model_copy(update={
        "parts": [part("s/login", "passed", 2), part("s/cart", "passed", 2)],
        "previous": [first]})
    journal.case_finished("browser-1", unit, final=True)
    journal.case_started("browser-1", "s/slow", "slow", 1)       # then kill -9

    summary = recover(tmp_path)
    assert {c.case_id: (c.status, c.attempt) for c in summary.cases} == {
        "s/login": ("passed", 2), "s/cart": ("flaky", 2), "s/slow": ("interrupted", 1)}
    assert summary.counts["total"] == 3


def test_a_killed_matrix_run_is_rebuilt_with_each_group_run_of_its_cases(tmp_path):
    """--matrix plans each case once and runs it once per device group (``case@group``): a
    killed one was rebuilt with each planned case as a case never started beside its group
    runs, and its group runs begun without a result left out."""
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", [
        ("s/a", "A", "s/a.yaml", "web"), ("s/slow", "Slow", "s/slow.yaml", "web"),
        ("s/late", "Late", "s/late.yaml", "web")])
    for group in ("os14", "os15"):
        journal.case_started(f"fake-{group}", f"s/a@{group}", f"A [{group}]", 1)
        journal.case_finished(f"fake-{group}", CaseResult(
            run_id="run-1", case_id=f"s/a@{group}", name=f"A [{group}]", file="s/a.yaml",
            platform="web", device=f"fake-{group}", status="passed"), final=True)
        journal.case_started(f"fake-{group}", f"s/slow@{group}", f"Slow [{group}]", 1)
    # then kill -9

    summary = recover(tmp_path)
    assert {c.case_id: (c.name, c.status) for c in summary.cases} == {
        "s/a@os14": ("A [os14]", "passed"), "s/a@os15": ("A [os15]", "passed"),
        "s/slow@os14": ("Slow [os14]", "interrupted"),
        "s/slow@os15": ("Slow [os15]", "interrupted"),
        "s/late": ("Late", "skipped")}       # (none of its runs began: its groups unknown)
    assert {c.case_id: c.device for c in summary.cases}["s/slow@os15"] == "fake-os15"
