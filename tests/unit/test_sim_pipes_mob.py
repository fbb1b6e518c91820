"""The simulated phone's shell answers `| wc -c` / `-w` / `-l` and `false` as a phone's toybox
does, so a suite's runAdbShell output on the simulator is what the phone would give."""

from __future__ import annotations

from farm.devices.sim import pipes
from farm.devices.sim.androidshell import AndroidShell


def test_wc_prints_only_the_counts_asked_for():
    data = "its q\nnäh\n".encode()
    assert pipes.wc(["-c"], data)[0] == b"11\n"
    assert pipes.wc(["-w"], data)[0] == b"3\n"
    assert pipes.wc(["-l"], data)[0] == b"2\n"
    assert pipes.wc(["-m"], data)[0] == b"10\n"
    assert pipes.wc(["-lc"], data)[0] == b"2 11\n"
    assert pipes.wc([], data)[0] == b"2 3 11\n"


def test_false_exits_1_and_a_piped_wc_c_is_the_byte_count():
    sh = AndroidShell("emulator-5554", None, dict, 1080, 2400)  # type: ignore[arg-type]
    assert sh.pipeline(["false"]) == (b"", b"", 1)
    assert sh.pipeline(["echo", "its", "q", "|", "wc", "-c"])[0] == b"6\n"
