"""A disk already full when a run starts (no room for its outputs, or for the room set aside
for them): the run stops before any device starts, exit 4, naming the path and the free
space, where it ran every case and then saved nothing (exit 3)."""

from __future__ import annotations

import errno
import os

from farm import run_outputs
from tests.support.farm_cli import run_main as farm
from tests.unit.test_corrupt_results_history import here  # noqa: F401  (fixture)


def _full(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_no_room_to_set_aside_for_the_results_stops_the_run_before_it_starts(
        here, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(run_outputs.os, "posix_fallocate", _full)
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 4, out + err
    assert "farm: error: no room for the run's results in " in err, err
    assert " free on its disk, 272 KB needed for results.json" in err, err
    assert "start s/one" not in out + err and "passed" not in out


def test_a_junit_xml_that_cannot_be_written_at_the_start_stops_the_run(
        here, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(run_outputs, "_run_error_junit", _full)
    (here / "out").mkdir()
    (here / "out" / "j.xml").write_text("<testsuites/>")    # an earlier run's
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off", "--junit-xml", "out/j.xml")
    assert code == 4, out + err
    assert "farm: error: cannot write --junit-xml out/j.xml (No space left on device; " in err
    assert " free on its disk)" in err
    assert "start s/one" not in out + err and "passed" not in out
    assert not (here / "out" / "j.xml").exists()    # not taken for this run's
