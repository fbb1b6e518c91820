"""A device process SIGKILLed 1.8 s into a case: its `farm worker` gives up its lease as it
dies, and the attempt's time ends when the run first saw the lease gone; it ended at the
worker's last heartbeat (up to 2 s before the death: 1.2 s, the time of its last step). A lease
that expired by itself (the host gone: up to its TTL after the death) still ends it at the
last heartbeat."""

from __future__ import annotations

import time

from farm.cluster import store
from farm.executors.celery import LEASE_GRACE_S
from tests.unit.test_cluster_versions_clu import DEVICE, Clock, lease, sent


def lost_after(tmp_path, gone_after: float) -> float:
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    inf = ex._inflight[job.case_id]
    inf.began = clock()
    busy = lease(state="busy", run="r1", case=job.case_id, attempt=1, beat=time.time())
    clock.t += 0.6                      # its last heartbeat, seen running
    ex._check_inflight({DEVICE: busy}, {"web": [busy]}, clock())
    clock.t += gone_after               # its lease gone
    ex._check_inflight({}, {}, clock())
    clock.t += LEASE_GRACE_S + 1
    ex._check_inflight({}, {}, clock())
    result, = ex.ledger.results()
    assert result.status == "error" and result.error.kind == "DeviceLost", result
    return result.duration


def test_a_lost_attempt_s_time_ends_when_its_lease_was_given_up_clu49(tmp_path):
    assert abs(lost_after(tmp_path, 1.2) - 1.8) < 0.1


def test_a_lease_that_expired_by_itself_still_ends_it_at_the_last_heartbeat_clu49(tmp_path):
    assert abs(lost_after(tmp_path, store.LEASE_TTL_S) - 0.6) < 0.1
