"""`farm worker` and `farm run --broker` as an operator meets them: a mistake in how the
devices are asked for ends at once with what to change (exit 4), never as device processes
crashing with a traceback at each restart; a run waiting for workers says which one to start."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import PLUGIN
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


@pytest.mark.parametrize("where", ["option", "env"])
def test_metrics_ports_past_65535_are_refused_before_any_device_starts(redis_url, farm,
                                                                      where):
    args = ["--metrics-port", "65535"] if where == "option" else []
    env = {"FARM_WORKER_METRICS_PORT": "65535"} if where == "env" else {}
    proc = farm.start("worker", "--broker", redis_url, "--devices", "fake:2", *args,
                      FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV, **env)
    out = proc.finish(timeout=180)       # before: device 2 crashed and restarted, forever
    assert proc.returncode == 4, out
    name = "--metrics-port" if where == "option" else "FARM_WORKER_METRICS_PORT"
    assert f"farm: error: {name} 65535: the 2 devices serve /metrics on ports 65535-65536" in out
    assert "give at most 65534" in out
    assert "Traceback" not in out and "ready" not in out, out


def test_a_broker_url_without_the_password_redis_wants_says_it_needs_one(private_redis, farm):
    """Before, a URL with no password at all read 'refused the password', as if a wrong one
    had been given: the operator checked the password instead of adding it."""
    server = private_redis(password="right-pw")
    bare = f"redis://127.0.0.1:{server.port}/0"
    for command in (["worker", "--devices", "fake:1"], ["devices"]):
        done = farm.run(*command, "--broker", bare, FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
        assert done.returncode == 4, done.stdout + done.stderr
        assert (f"farm: error: the broker {bare} needs a password, and the URL gives none "
                f"(redis://:PASSWORD@host:port/db)") in done.stderr, done.stderr
        assert "refused the password" not in done.stderr
    wrong = server.url.replace(":right-pw@", ":wrong-pw@")
    done = farm.run("worker", "--devices", "fake:1", "--broker", wrong,
                    FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert done.returncode == 4 and "refused the password" in done.stderr, done.stderr
    assert "wrong-pw" not in done.stdout + done.stderr


@pytest.mark.parametrize("option", ["db=3", "socket_timeout=5"])
def test_a_broker_url_option_celery_cannot_take_is_refused_up_front(tmp_path, redis_url, farm,
                                                                   option):
    """redis-py takes ``?db=3`` and ``?socket_timeout=5``, Celery does not: before, `farm
    worker` started and each device process died with a TypeError traceback at every
    restart, and `farm run` waited for workers that could never come (or crashed sending)."""
    url = f"{redis_url}?{option}"
    name = option.split("=")[0]
    proc = farm.start("worker", "--devices", "fake:1", "--broker", url,
                      FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    out = proc.finish(timeout=180)
    assert proc.returncode == 4, out
    assert f"farm: error: the broker URL {url} is not one Celery takes: option '{name}'" in out
    assert "Traceback" not in out and "ready" not in out, out
    write_case(tmp_path / "s", "one", ["sleep: 100"])
    done = farm.run("run", tmp_path / "s", "--broker", url, "--report-dir", tmp_path / "run",
                    FARM_CLUSTER_DEVICE_WAIT="1", **CLUSTER_ENV)
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"is not one Celery takes: option '{name}'" in done.stderr, done.stderr


def test_a_tls_broker_url_on_a_plain_redis_port_says_what_to_check(redis_url, farm):
    """Before: 'cannot reach the broker rediss://...: Timeout connecting to server', and the
    operator looked for a firewall rather than at the scheme."""
    url = redis_url.replace("redis://", "rediss://", 1)
    done = farm.run("worker", "--devices", "fake:1", "--broker", url,
                    FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"cannot reach the broker {url}: " in done.stderr, done.stderr
    assert ("(rediss:// talks TLS: is that port a TLS one? redis:// for a plain port)"
            in done.stderr), done.stderr
