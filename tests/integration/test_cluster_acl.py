"""A broker whose ACL user may not do what farm does (Redis NOPERM): `farm worker` and `farm
run` say in one line what was refused, for which user, on which URL (password masked), and
the grant that serves farm; exit 4. Before: a device process died with a traceback of
redis-py's (or Celery's) insides and was started again and again; `farm run` ended as an
internal error (exit 3)."""

from __future__ import annotations

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_idle
from tests.support.farm_cli import PLUGIN, results, wait_for
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

ENV = {"FARM_DEVICE_PLUGINS": PLUGIN, "FARM_WORKER_METRICS_PORT": "0", **CLUSTER_ENV}


def _user(server, name: str, *rules: str) -> str:
    """A URL of ``server`` as the ACL user ``name`` (password "pw-<name>") with ``rules``."""
    admin = redis.Redis(port=server.port, socket_timeout=5)
    admin.acl_setuser(name, enabled=True, passwords=[f"+pw-{name}"], reset_keys=True,
                      reset_channels=True)
    admin.execute_command("ACL", "SETUSER", name, *rules)
    return f"redis://{name}:pw-{name}@127.0.0.1:{server.port}/0"


@pytest.mark.parametrize("denied, said", [
    ("eval", "this user has no permissions to run the 'eval' command"),
    # (inside a script the ACL answers apart: EVAL allowed, RPUSH in farm's script not)
    ("rpush", "The user executing the script can't run this command or subcommand")])
def test_a_worker_whose_user_may_not_run_its_scripts_says_so_once_and_exits_4(
        private_redis, farm, denied, said):
    url = _user(private_redis(), "nope", "~*", "&*", "+@all", f"-{denied}")
    proc = farm.start("worker", "--broker", url, "--devices", "fake:2", **ENV)
    out = proc.finish(timeout=180)
    assert proc.returncode == 4, out
    masked = url.replace(":pw-nope@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'nope' EVAL (farm's scripts: "
            f"EXISTS, GET, SET, RPUSH, EXPIRE, DEL) on {PREFIX}:*: {said}") in out, out
    assert (f"(farm needs every command on the keys {PREFIX}:* and Celery's channels: "
            f"ACL SETUSER nope ~{PREFIX}:* &* +@all)") in out, out
    assert out.count("refuses user") == 1, out
    assert "Traceback" not in out and "ready" not in out and "pw-nope" not in out, out


def test_a_command_only_celery_sends_ends_the_device_with_one_line_not_restarts(
        private_redis, farm):
    """BRPOP is Celery's alone (farm's own checks pass): its consumer died of an
    'Unrecoverable error' traceback, exit 1, and `farm worker` started it again forever."""
    url = _user(private_redis(), "nobrpop", "~*", "&*", "+@all", "-brpop")
    proc = farm.start("worker", "--broker", url, "--devices", "fake:1", **ENV)
    out = proc.finish(timeout=90)
    assert proc.returncode == 4, out
    masked = url.replace(":pw-nobrpop@", ":***@")
    assert ("farm worker: device fake-1@"
            in out and f": the broker {masked} refuses user 'nobrpop': this user has no "
            "permissions to run the 'brpop' command" in out), out
    assert "Not started again" in out and "starting it again" not in out, out
    assert "Traceback" not in out and "pw-nobrpop" not in out, out


def test_the_grant_the_message_gives_serves_a_worker_and_a_run(private_redis, farm, tmp_path):
    server = private_redis()
    refused = _user(server, "scoped", f"~{PREFIX}:*", f"&{PREFIX}:*", "+@all")
    worker = farm.start("worker", "--broker", refused, "--devices", "fake:1", **ENV)
    said = worker.finish(timeout=180)
    assert worker.returncode == 4, said
    grant = said.split("ACL SETUSER scoped ", 1)[1].split(")", 1)[0].split()
    url = _user(server, "scoped", *grant)
    assert url == refused
    farm.worker("fake:1", broker=url, **ENV)
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", url,
                    "--report-dir", tmp_path / "r1", **ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout + done.stderr


def test_a_run_whose_user_may_not_touch_farms_keys_is_a_config_error(private_redis, farm,
                                                                     tmp_path):
    url = _user(private_redis(), "nokeys", "~other:*", "&*", "+@all")
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", url,
                    "--report-dir", tmp_path / "r", **ENV)
    err = done.stdout + done.stderr
    assert done.returncode == 4, err
    masked = url.replace(":pw-nokeys@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'nokeys': this user has no "
            "permissions to access one of the keys used as arguments") in err, err
    assert "internal error" not in err and "pw-nokeys" not in err, err


def test_a_heartbeat_the_acl_refuses_mid_life_is_said_once_and_recovers_once_granted(
        private_redis, farm):
    """A grant taken back while a worker serves (an ACL edited): its heartbeat logged
    'heartbeat failed: ...' every 2 s, for as long as it lasted, naming neither the user
    nor the broker. Now it says so as an outage is said (once, then every 30 s) and says
    when the lease is renewed again, once the grant is back."""
    server = private_redis()
    url = _user(server, "mid", "~*", "&*", "+@all")
    admin = redis.Redis(port=server.port, socket_timeout=5)
    farm.worker("fake:1", broker=url, **ENV)
    wait_idle(url, 1)
    admin.execute_command("ACL", "SETUSER", "mid", "-eval")
    wait_for(lambda: not leases(url), 60, "the lease expiring, its renewals refused")
    masked = url.replace(":pw-mid@", ":***@")
    logs = farm.worker_logs()
    assert logs.count("not renewed") == 1, logs      # (five heartbeats refused, at least)
    assert (f"the lease not renewed (the broker {masked} refuses user 'mid': this user has "
            "no permissions to run the 'eval' command") in logs, logs
    admin.execute_command("ACL", "SETUSER", "mid", "+eval")
    wait_for(lambda: "the lease renewed again after" in farm.worker_logs(), 60,
             "the worker saying its lease is renewed again")
    wait_idle(url, 1)
    assert "heartbeat failed" not in farm.worker_logs() and "pw-mid" not in farm.worker_logs()


def test_a_command_the_acl_refuses_the_run_mid_way_ends_its_cases_naming_it(private_redis,
                                                                           farm, tmp_path):
    """BLMOVE is the run's alone (its workers' events), first sent once a case is: the run
    died of a NoPermissionError (exit 3, 'internal error'), results.json never written."""
    server = private_redis()
    farm.worker("fake:1", broker=_user(server, "worker", "~*", "&*", "+@all"), **ENV)
    wait_idle(server.url, 1)
    url = _user(server, "client", "~*", "&*", "+@all", "-blmove")
    run_dir = tmp_path / "r"
    done = farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", url,
                    "--report-dir", run_dir, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    masked = url.replace(":pw-client@", ":***@")
    why = (f"the broker {masked} refuses user 'client': this user has no permissions to run "
           "the 'blmove' command")
    assert f"farm: error: {why}" in out and out.count("farm: error:") == 1, out
    summary = results(run_dir)
    assert summary["counts"]["error"] == 2, summary["counts"]
    assert all(why in c["error"]["message"] for c in summary["cases"]), summary["cases"]
    assert "internal error" not in out and "Traceback" not in out and "pw-client" not in out
