"""On a loaded machine the time left was remembered durations summed over the devices, about
half the truth, and it never corrected itself: once a few cases have finished, the time left
is scaled by how long they took against their remembered durations."""

from __future__ import annotations

from farm.progress import Standing
from farm.results import CaseResult


def _done(cid: str, took: float) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status="passed", duration=took)


def _standing() -> Standing:
    standing = Standing({f"s/{n}": 10.0 for n in range(10)})
    standing.devices.add("browser-1")
    return standing


def test_cases_taking_twice_their_remembered_time_double_the_time_left():
    standing = _standing()
    for n in range(3):
        standing.finished(_done(f"s/{n}", 20.0), final=True)
    assert standing.left({}) == 140.0            # 7 cases of 10s remembered, at 2x
    assert standing.about({}) == "about 2m left"


def test_a_case_or_two_do_not_set_the_pace_yet():
    standing = _standing()
    standing.finished(_done("s/0", 50.0), final=True)
    assert standing.left({}) == 90.0


def test_the_pace_follows_the_run_as_it_goes():
    standing = _standing()
    for n, took in enumerate((20.0, 20.0, 20.0, 5.0, 5.0, 5.0)):
        standing.finished(_done(f"s/{n}", took), final=True)
    assert standing.pace() == 75.0 / 60.0
    assert standing.left({"s/6": 5.0}) == 45.0    # (12.5 - 5) + 3 x 12.5
