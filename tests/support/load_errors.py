"""A suite that did not load: its problems and, last, the closing line, all on stderr (the
closing line was on stdout, where `2>/dev/null` left it alone)."""

from __future__ import annotations

NOT_LISTED = ("farm: no case is listed: --collect-only lists cases only when every suite file "
              "loads (fix the problems listed, or name only the files to list)")
NOT_RUN = ("farm: no case ran: a run starts only when every suite file loads (fix the problems "
           "listed, or name only the files to run)")

# a suite's own file (farm.yaml) did not load: naming fewer case files would not help
NOT_LISTED_SUITE = ("farm: no case is listed: --collect-only lists cases only when every suite "
                    "file loads (fix the problems listed)")
NOT_RUN_SUITE = ("farm: no case ran: a run starts only when every suite file loads (fix the "
                 "problems listed)")


def problems(err: str, closing: str = NOT_LISTED) -> list[str]:
    """stderr's lines before its closing line, which must be ``closing`` (NOT_LISTED for
    --collect-only, NOT_RUN for a run; their _SUITE forms when a farm.yaml did not load)."""
    lines = err.splitlines()
    assert lines and lines[-1] == closing, err
    return lines[:-1]
