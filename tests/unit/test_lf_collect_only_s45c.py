"""`farm run x --lf --collect-only` said "running 2 case(s)" though it runs nothing: the
note says "would run" under --collect-only, "running" for a run."""

from __future__ import annotations

from farm.select import Selection, _last_failed


def _sel(ids):
    class C:
        def __init__(self, i):
            self.id, self.file, self.setup_of, self.shared = i, None, None, None
    return Selection(selected=[C(i) for i in ids])


def test_lf_note_says_would_run_under_collect_only():
    sel = _sel(["s/a", "s/b", "s/c"])
    _last_failed(sel, {"s/a", "s/b"}, preview=True)
    assert "--last-failed: would run 2 case(s) that failed last time" in sel.notes
    sel = _sel(["s/a"])
    _last_failed(sel, set(), preview=True)
    assert sel.notes == ["--last-failed: no failures recorded, would run every case"]
    sel = _sel(["s/a", "s/b"])
    _last_failed(sel, {"s/a"})
    assert "--last-failed: running 1 case(s) that failed last time" in sel.notes
