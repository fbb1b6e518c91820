"""A job sent while the only device able to take it was starting (its process restarted: the
supervisor brought a killed device back, and its Celery consumer starts seconds later on a
busy machine) was called "vanished from the broker" 20 s after it was sent, as soon as the
device showed idle, though its consumer had not yet read its queue: the attempt was written
off and run again elsewhere. The 20 s now count from when the device came idle."""

from __future__ import annotations

from tests.unit.test_cluster_versions_clu import DEVICE, Clock, lease, sent


def test_a_job_waits_its_grace_from_when_a_restarted_device_comes_idle(tmp_path):
    clock = Clock()
    ex, _ = sent(tmp_path, clock)
    starting = lease(state="starting", token="new")
    clock.t += 5
    ex._check_inflight({DEVICE: starting}, {}, clock(), {})    # (not usable yet: no pool)
    idle = lease(token="new")
    clock.t += 25                       # idle now, 30 s after the job was sent
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    clock.t += 15
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    assert not ex.ledger.results()      # its consumer had 15 s: not lost
    clock.t += 10
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    result, = ex.ledger.results()       # idle 25 s and never took it: it vanished
    assert result.error is not None and "vanished from the broker" in result.error.message


def test_a_device_idle_all_along_loses_a_job_it_never_took_after_the_grace(tmp_path):
    clock = Clock()
    ex, _ = sent(tmp_path, clock)
    idle = lease(token="same")
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    clock.t += 21
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    result, = ex.ledger.results()
    assert "vanished from the broker" in result.error.message
