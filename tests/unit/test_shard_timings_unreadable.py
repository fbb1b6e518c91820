"""--shard-timings naming a file that holds no timings as text: one saved as UTF-16 ended in
"farm: internal error: UnicodeDecodeError", /dev/zero was read until the memory ran out, and
a FIFO waited forever for a writer. Each is the flag's error (exit 4), read no further."""

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


@pytest.mark.timeout(30)        # (before the fix: opening the FIFO waited for a writer)
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_is_refused_without_reading_it(tmp_path, kind):
    path = tmp_path / "timings"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")                     # never ends
    with pytest.raises(ConfigError, match="not a regular file: expected a results.json, a "
                                          "run directory or a JUnit XML file"):
        read_timings(path)
