"""The broker check a `farm worker` makes as it starts (farm.cluster.store.check with a
``wait``): a Redis that is not up yet (Compose starts it with its workers) is waited for, said
once on stderr, and the worker starts as soon as it answers; one that never comes ends it after
the wait (BrokerLost: exit 3); a wrong password still ends it at once (ConfigError: exit 4),
whenever Redis answers. Real redis-server; without ``wait`` a Redis that is not there is a
ConfigError at once, as before."""

from __future__ import annotations

import threading

import pytest

from farm.cluster import store
from farm.errors import BrokerLost, ConfigError
from tests.support.farm_cli import wait_for
from tests.support.redis_server import RedisServer

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_broker_not_up_yet_is_waited_for_and_said_once(capfd):
    server = RedisServer(password="s43-pw")      # its port chosen, not started yet
    got: list = []
    checking = threading.Thread(target=lambda: got.append(
        store.check(server.url, wait=600, who="farm worker")), daemon=True)
    checking.start()
    said: list[str] = []
    wait_for(lambda: said.append(capfd.readouterr().err) or "waiting for" in "".join(said),
             30, "the check saying it waits")
    try:
        server.start()
        checking.join(60)
        assert got and got[0].ping(), got
    finally:
        server.stop()
    said.append(capfd.readouterr().err)
    masked = server.url.replace("s43-pw", "***")
    lines = "".join(said).splitlines()
    assert lines[0].startswith(f"farm worker: waiting for the broker {masked} (Error 111 "), lines
    assert lines[0].endswith("): up to 600s (FARM_CLUSTER_OUTAGE_SECONDS)"), lines
    assert lines[1:] == ["farm worker: the broker answers: starting"], lines
    assert "s43-pw" not in "".join(said)


def test_a_broker_that_never_comes_ends_the_wait(capfd):
    url = RedisServer(password="s43-pw").url     # nothing listens there
    with pytest.raises(BrokerLost) as lost:
        store.check(url, wait=1, who="farm worker")
    assert str(lost.value).startswith(f"cannot reach the broker {url.replace('s43-pw', '***')}: "
                                      "Error 111 "), lost.value
    assert str(lost.value).endswith(" (waited 1s: FARM_CLUSTER_OUTAGE_SECONDS)")
    assert capfd.readouterr().err.count("waiting for the broker") == 1


def test_a_wrong_password_is_said_at_once_not_waited_for(private_redis, capfd):
    server = private_redis(password="right-pw")
    with pytest.raises(ConfigError, match="refused the password"):
        store.check(server.url.replace("right-pw", "wrong-pw"), wait=600, who="farm worker")
    assert "waiting" not in capfd.readouterr().err


def test_without_a_wait_a_broker_not_there_is_a_config_error_at_once(capfd):
    url = RedisServer().url
    with pytest.raises(ConfigError, match=r"^cannot reach the broker .*Error 111"):
        store.check(url)
    assert capfd.readouterr().err == ""
