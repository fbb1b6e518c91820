"""--shard-timings naming a file that holds no timings as text: one saved as UTF-16 ended in
"farm: internal error: UnicodeDecodeError", and /dev/zero was read until the memory ran out.
Each is the flag's error (exit 4), read no further; a pipe (``<(curl …)``) is read as a file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.select import read_timings


def test_a_file_that_is_not_utf8_is_refused_naming_the_flag(tmp_path):
    path = tmp_path / "results.json"
    path.write_bytes(b"\xff\xfe{\x00}\x00")         # UTF-16, as an editor may save it
    with pytest.raises(ConfigError, match=r"^--shard-timings .*results.json: not a farm "
                                          r"results.json or JUnit XML \(not UTF-8 text at "
                                          r"byte 0\)$"):
        read_timings(path)


def test_a_device_is_refused_without_reading_it():
    with pytest.raises(ConfigError, match="^--shard-timings /dev/zero: not a file: expected a "
                                          "results.json, a run directory or a JUnit XML file$"):
        read_timings(Path("/dev/zero"))                 # never ends


def test_a_pipe_is_read(tmp_path):
    """`--shard-timings <(curl …)` names a pipe: the earlier run's file comes through it."""
    path = tmp_path / "timings"
    os.mkfifo(path)
    text = '<testsuite><testcase classname="s" name="a" time="1.5"/></testsuite>'

    def write() -> None:
        with open(path, "w") as pipe:       # (waits for the reader to open its end)
            pipe.write(text)
    import threading
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert read_timings(path) == {"s/a": 1.5}
    writer.join()
