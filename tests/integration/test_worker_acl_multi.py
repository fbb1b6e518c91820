"""`farm worker` whose broker ACL user is refused MULTI (``-multi``): Celery's Redis transport
(kombu) sends MULTI/EXEC as a device's consumer starts (the size of its queues) and to ack
a case. Each device process said "ready", died of an "EXEC without MULTI" traceback and was
started again, forever: no case ever reached it, and a run waited for a worker
(FARM_CLUSTER_DEVICE_WAIT) before failing its cases. The start-up check names the refusal
now, as the others: one line, exit 4, before any device starts. A device process whose
user loses MULTI while it runs (the ACL changed under it) ends as one refused BRPOP does:
one line naming the refusal, not started again."""

from __future__ import annotations

import logging

import pytest
from redis.exceptions import NoPermissionError, ResponseError

from tests.integration.test_cli_acl import ENV, GRANT, _user
from tests.support.cluster import PREFIX
from worker.main import _FailoverSaidPlainly

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_worker_whose_user_may_not_run_multi_says_so_once_and_exits_4(private_redis, farm):
    url = _user(private_redis(), "nomulti", "~*", "&*", "+@all", "-multi")
    proc = farm.start("worker", "--broker", url, "--devices", "fake:1", **ENV)
    out = proc.finish(timeout=180)
    assert proc.returncode == 4, out
    masked = url.replace(":pw-nomulti@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'nomulti' MULTI on {PREFIX}:* "
            f"(Celery's queues): this user has no permissions to run the 'multi' command "
            f"{GRANT} nomulti ~{PREFIX}:* &* +@all)") in out, out
    assert out.count("refuses user") == 1, out
    assert "ready" not in out and "starting it again" not in out, out
    assert "Traceback" not in out and "EXEC without MULTI" not in out, out
    assert "pw-nomulti" not in out, out


def _dying_of(exc: BaseException) -> logging.LogRecord:
    return logging.LogRecord("celery.worker", logging.CRITICAL, __file__, 1,
                             "Unrecoverable error: %r", (exc,), (type(exc), exc, None))


def test_a_consumer_dead_of_a_refused_multi_is_the_acl_s_refusal():
    """(Celery's consumer dying of kombu's MULTI, as redis-py reports it: the device's
    process keeps it for its one line and exit 4, and does not log the traceback.)"""
    said = _FailoverSaidPlainly("fake-1@h")
    assert said.filter(_dying_of(ResponseError("EXEC without MULTI"))) is False
    assert isinstance(said.refused, NoPermissionError)
    assert "no permissions to run the 'multi' command" in str(said.refused)
    other = _FailoverSaidPlainly("fake-1@h")
    assert other.filter(_dying_of(ResponseError("ERR something else"))) is True
    assert other.refused is None
