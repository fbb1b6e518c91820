"""A `--matrix` run and a plain run on the same devices share them fairly.

A matrix run names its pools per device group (web.g1), a plain run per platform (web); both
must count the other's demand for the devices they both use, or one takes every device while
the other waits for it (a nightly plain run starving a team's matrix run on a shared farm).
"""

from __future__ import annotations

import pytest

from tests.support.cluster import PREFIX, leases, runs, wait_busy, wait_idle
from tests.support.farm_cli import results, wait_for
from tests.support.suites import write_case
from tests.integration.test_cluster import one_final_result_each, run_on

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def gated_suite(folder, prefix: str, gates, n: int):
    """``n`` cases that each hold their device until their file ``gates / <case stem>``
    exists (the test lets them end one at a time)."""
    for i in range(n):
        write_case(folder, f"{prefix}{i:02d}",
                   [f"javascript: farm-test:wait-for:{gates / f'{prefix}{i:02d}'}"])
    return folder


def heartbeat(url: str, run_id: str) -> float | None:
    """When the run's client last announced its demand (each of its scheduling ticks)."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        return r.zscore(f"{PREFIX}:runs", run_id)
    finally:
        r.close()


def held_by(url: str, run_id: str) -> dict[str, str]:
    """Devices busy with a case of ``run_id``: device → case id."""
    return {name: lease["case"] for name, lease in leases(url).items()
            if lease.get("state") == "busy" and lease.get("run") == run_id}


def let_end(gates, case_id: str) -> None:
    """Let the held case ``case_id`` (``a/a03``, ``a/a03@g1``) end."""
    (gates / case_id.split("/", 1)[1].split("@", 1)[0]).touch()


@pytest.mark.parametrize("older", ["matrix", "plain"])
def test_a_matrix_run_and_a_plain_run_each_keep_a_device(older, tmp_path, redis_url, workers,
                                                         farm):
    """The ``older`` run holds both devices when the other arrives; as its cases end one by
    one, the first freed device goes to the newcomer, the next stays the older run's."""
    flags = {"matrix": ("--matrix",), "plain": ()}
    younger = {"matrix": "plain", "plain": "matrix"}[older]
    gates = tmp_path / "gates"
    gates.mkdir()
    workers("fake:2", "--group", "g1")              # pools: web (plain), web.g1 (--matrix)
    wait_idle(redis_url, 2)
    pa = run_on(farm, redis_url, gated_suite(tmp_path / "a", "a", gates, 6), tmp_path / "ra",
                "--devices", "fake:2", *flags[older])
    wait_busy(redis_url, 2)                         # the older run holds both devices
    (a_id,) = runs(redis_url)
    first, second = sorted(held_by(redis_url, a_id).values())
    pb = run_on(farm, redis_url, gated_suite(tmp_path / "b", "b", gates, 4), tmp_path / "rb",
                "--devices", "fake:2", *flags[younger])
    wait_for(lambda: len(runs(redis_url)) == 2, 60, "the younger run competing for devices")
    (b_id,) = set(runs(redis_url)) - {a_id}
    tick = heartbeat(redis_url, b_id)               # a whole tick of the younger run passes
    wait_for(lambda: heartbeat(redis_url, b_id) not in (None, tick), 60, "a second tick")
    let_end(gates, first)           # its device goes to the younger run (the older's share: 1)
    wait_for(lambda: held_by(redis_url, b_id), 60, "the younger run to get a device")
    let_end(gates, second)          # its device: the older run's again, not the younger's
    wait_for(lambda: len(held_by(redis_url, b_id)) == 2
             or set(held_by(redis_url, a_id).values()) - {first, second}, 60,
             "the older run's next case, or the younger run on both devices")
    held_a, held_b = held_by(redis_url, a_id), held_by(redis_url, b_id)
    for stem in [f"a{i:02d}" for i in range(6)] + [f"b{i:02d}" for i in range(4)]:
        (gates / stem).touch()
    out_a, out_b = pa.finish(), pb.finish()
    assert pa.returncode == 0 and pb.returncode == 0, out_a + out_b
    assert (len(held_a), len(held_b)) == (1, 1), (f"{older} run", held_a, held_b)
    one_final_result_each(results(tmp_path / "ra"), 6)
    one_final_result_each(results(tmp_path / "rb"), 4)


def test_two_matrix_runs_each_keep_a_device_when_each_group_has_one(tmp_path, redis_url,
                                                                      workers, farm):
    """One device per group: the older run used to keep every group while the younger one
    waited for it to run out of cases; now each takes one device, none stands idle."""
    gates = tmp_path / "gates"
    gates.mkdir()
    workers("fake:1", "--group", "g1")
    workers("fake:1", "--group", "g2")
    wait_idle(redis_url, 2)
    ra = run_on(farm, redis_url, gated_suite(tmp_path / "a", "a", gates, 4), tmp_path / "ra",
                "--devices", "fake:2", "--matrix")
    wait_busy(redis_url, 2)                         # run A holds both groups' devices
    (a_id,) = runs(redis_url)
    firsts = set(held_by(redis_url, a_id).values())
    rb = run_on(farm, redis_url, gated_suite(tmp_path / "b", "b", gates, 4), tmp_path / "rb",
                "--devices", "fake:2", "--matrix")
    wait_for(lambda: len(runs(redis_url)) == 2, 60, "run B competing for the devices")
    (b_id,) = set(runs(redis_url)) - {a_id}
    tick = heartbeat(redis_url, b_id)
    wait_for(lambda: heartbeat(redis_url, b_id) not in (None, tick), 60, "a second tick of B")
    for case in firsts:
        let_end(gates, case)        # both devices free up at once

    def next_cases() -> dict[str, str] | None:
        held = {**held_by(redis_url, a_id), **held_by(redis_url, b_id)}
        return held if len(set(held.values()) - firsts) == 2 else None
    held = wait_for(next_cases, 60, "both devices busy again")
    by_run = {run: sum(case.startswith(f"{run}/") for case in held.values()) for run in "ab"}
    for stem in [f"{run}{i:02d}" for run in "ab" for i in range(4)]:
        (gates / stem).touch()
    out_a, out_b = ra.finish(), rb.finish()
    assert ra.returncode == 0 and rb.returncode == 0, out_a + out_b
    assert by_run == {"a": 1, "b": 1}, held
    one_final_result_each(results(tmp_path / "ra"), 8)
    one_final_result_each(results(tmp_path / "rb"), 8)
