"""One killed run's journal that farm could not read in an unforeseen way (anything but an
OSError or a ValueError) threw away every run --lf reads ("cannot read the results history"):
now only that run is left out."""

from __future__ import annotations

from tests.unit.test_lf_keeps_undone_cases_s46lf import (CTRL_C, _ended, _failed, _killed_run,
                                                         _lf, _run, here)  # noqa: F401


def test_a_killed_run_farm_cannot_read_costs_lf_that_run_only(here, monkeypatch, capsys):
    import farm.journal
    _failed(here, "s/f")
    _run(here, "20270115-080000-c0c0", 0, True, ("s/a", "passed", None),
         ("s/b", "interrupted", None), ("s/c", "skipped", CTRL_C))
    killed = "20270116-170000-bb22"
    _killed_run(here, killed, "2027-01-16T17:00:00+00:00", _ended(killed, "c", "failed"))

    def unreadable(run_dir):
        raise TypeError("a journal line of an unforeseen shape")

    monkeypatch.setattr(farm.journal, "recover", unreadable)
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/b", "s/c", "s/f"]       # the Ctrl-C'd run's and the failure kept
    assert not any("cannot read" in n for n in notes), notes
