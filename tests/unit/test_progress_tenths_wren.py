"""A CI log of a 300-case run that ended inside 5 minutes had no tally nor time left in it:
the status line came only every STATUS_SECONDS or after QUIET_SECONDS of silence. In plain
mode a run of STATUS_EVERY_TENTH_FROM cases or more says how it stands each tenth done; a
small run stays as quiet as before. (A fake clock that stands still: no line is due by time.)"""

from __future__ import annotations

from farm.progress import STATUS_EVERY_TENTH_FROM, PlainProgress
from farm.results import CaseResult


class Out:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines += [line for line in text.splitlines() if line]

    def flush(self) -> None:
        pass


def _passed(n: int) -> CaseResult:
    return CaseResult(run_id="r", case_id=f"s/c{n:03}", name="c", file="s/c.yaml",
                      platform="web", device="browser-1", attempt=1, status="passed",
                      started="2026-12-07T00:00:00+00:00", duration=1.0)


def _status_lines(total: int) -> list[str]:
    out = Out()
    view = PlainProgress(0, total, stream=out, clock=lambda: 1000.0,
                         expected={f"s/c{n:03}": 1.0 for n in range(total)})
    view.run_started(["browser-1"], total)
    for n in range(total):
        view.case_started("browser-1", f"s/c{n:03}", "c", 1)
        view.case_finished("browser-1", _passed(n), final=True)
    return [line for line in out.lines if line.startswith("farm: ")]


def test_a_long_run_says_how_it_stands_each_tenth():
    said = _status_lines(100)
    assert [line.split(" done")[0] for line in said] == [f"farm: {n}/100" for n in
                                                        range(10, 100, 10)]
    # said as the device whose case made the tenth starts its next case: it is running
    assert said[0] == ("farm: 10/100 done (10 passed, 0 failed); about 2m left; running: "
                       "[browser-1] s/c010 0s")


def test_a_small_run_stays_quiet():
    assert _status_lines(STATUS_EVERY_TENTH_FROM - 1) == []
