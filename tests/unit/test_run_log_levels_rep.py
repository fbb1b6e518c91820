"""A program that calls `farm.run` (the public API) with its logging at WARNING: farm.log's
set-up put the root logger at INFO (and httpx & co. at WARNING) for good, so after the run the
program's own INFO lines were printed by its handlers, and its chosen library levels lost.
The run's end gives the loggers back the levels they had."""

from __future__ import annotations

import logging

from farm.run_log import drop_handler, setup_logging


def test_the_run_s_end_gives_the_loggers_their_levels_back(tmp_path) -> None:
    root, httpx = logging.getLogger(), logging.getLogger("httpx")
    before = root.level, httpx.level
    root.setLevel(logging.WARNING)
    httpx.setLevel(logging.DEBUG)
    try:
        handler = setup_logging(tmp_path, lambda text: text)
        logging.getLogger("farm.rep").info("during the run")     # farm.log takes INFO
        drop_handler(handler)
        assert (root.level, httpx.level) == (logging.WARNING, logging.DEBUG)
        assert not logging.getLogger("myapp.rep").isEnabledFor(logging.INFO)
        assert "during the run" in (tmp_path / "farm.log").read_text(encoding="utf-8")
    finally:
        root.setLevel(before[0])
        httpx.setLevel(before[1])
