"""A device process's stderr lines of farm's own ("farm: warning: cache store … unavailable"),
which Celery hands to logging, read with two prefixes among the worker's lines:
"farm worker: browser-1@vm farm: warning: cache store …". One prefix, the worker's."""

from __future__ import annotations

import logging

import pytest

from worker.main import _Said


def _line(message: str, level: int = logging.WARNING) -> str:
    record = logging.LogRecord("celery.redirected", level, __file__, 1, message, None, None)
    return _Said("browser-1@vm").format(record)


@pytest.mark.parametrize(("said", "seen"), [
    ("farm: warning: cache store redis://:***@r:6379/9 (farm:cache:*) unavailable (down)",
     "farm worker: warning: browser-1@vm cache store redis://:***@r:6379/9 (farm:cache:*) "
     "unavailable (down)"),
    ("farm: error: not written: /x/report.html", "farm worker: error: browser-1@vm not "
     "written: /x/report.html"),
    ("farm: 2 case(s) not run", "farm worker: browser-1@vm 2 case(s) not run"),
])
def test_farm_s_own_line_has_the_worker_s_prefix_only(said, seen):
    assert _line(said) == seen


def test_the_worker_s_own_lines_are_as_before():
    assert _line("redis unavailable (x): retrying") == \
        "farm worker: browser-1@vm redis unavailable (x): retrying"
    assert _line("lost", logging.ERROR) == "farm worker: error: browser-1@vm lost"
