"""`farm` commands other than a served worker against a broker whose ACL user may not do what
the command does (Redis NOPERM): each says it in the one line `store.refused` gives (URL with
its password masked, the user, what was refused, the grant that serves farm), exit 4, no
traceback; a run still writes its outputs, its cases errors naming the refusal."""

from __future__ import annotations

import json

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX
from tests.support.farm_cli import PLUGIN
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


def _said(done, name: str) -> str:
    out = done.stdout + done.stderr
    assert done.returncode == 4, out
    assert "Traceback" not in out and "internal error" not in out, out
    assert f"pw-{name}" not in out, out
    return out


GRANT = f"(farm needs every command on the keys {PREFIX}:* and Celery's channels: ACL SETUSER"


def test_a_worker_whose_user_may_not_ping_names_the_grant_with_the_prefix(private_redis, farm):
    """PING was checked before the key prefix was set: the advice could not name farm's keys
    ('its keys (FARM_CLUSTER_PREFIX)') and gave no ACL SETUSER to copy."""
    url = _user(private_redis(), "noping", "~*", "&*", "+@all", "-ping")
    out = _said(farm.run("worker", "--broker", url, "--devices", "fake:1", timeout=60, **ENV),
                "noping")
    masked = url.replace(":pw-noping@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'noping' PING: this user has no "
            "permissions to run the 'ping' command") in out, out
    assert f"{GRANT} noping ~{PREFIX}:* &* +@all)" in out, out


@pytest.mark.parametrize("denied", ["scan", "hgetall"])
def test_devices_whose_user_may_not_read_the_cluster_says_so_exit_4(private_redis, farm,
                                                                    denied):
    """`farm devices --broker` with a user lacking SCAN (the leases) or HGETALL (the
    quarantine): 'internal error: NoPermissionError', exit 3."""
    url = _user(private_redis(), "reader", "~*", "&*", "+@all", f"-{denied}")
    out = _said(farm.run("devices", "--broker", url, timeout=60, **ENV), "reader")
    masked = url.replace(":pw-reader@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'reader': this user has no "
            f"permissions to run the '{denied}' command {GRANT} reader") in out, out
    assert out.count("refuses user") == 1, out


@pytest.mark.parametrize("rules, said", [
    (("~other:*", "&*", "+@all"), ": this user has no permissions to access one of the keys"),
    (("~*", "&*", "+@all", "-ping"), " PING: this user has no permissions to run the 'ping'")])
def test_a_run_refused_at_its_start_writes_its_cases_as_not_run(private_redis, farm, tmp_path,
                                                                rules, said):
    """A refusal as the run starts (its user may not touch farm's keys) said exit 4 but wrote
    no results.json nor junit.xml: CI found nothing to read. Now as a broker not there at
    the start: each case an error, not run, naming the refusal and the grant (a refused PING
    named no grant: the key prefix was not set yet)."""
    url = _user(private_redis(), "client", *rules)
    run_dir = tmp_path / "r"
    out = _said(farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", url,
                         "--report-dir", run_dir, **ENV), "client")
    masked = url.replace(":pw-client@", ":***@")
    why = f"the broker {masked} refuses user 'client'{said}"
    assert f"farm: error: {why}" in out and out.count("refuses user") == 1, out
    assert f"{GRANT} client ~{PREFIX}:* &* +@all)" in out, out
    summary = json.loads((run_dir / "results.json").read_text())
    assert summary["exit_code"] == 4 and summary["counts"]["error"] == 2, summary["counts"]
    for case in summary["cases"]:
        assert (case["status"], case["reason"], case["error"]["kind"]) == (
            "error", "not run", "ConfigError"), case
        assert why in case["error"]["message"], case
    assert 'errors="2"' in (run_dir / "junit.xml").read_text()


@pytest.fixture
def cache_as(private_redis, tmp_path, monkeypatch):
    """``cache_as(*rules)``: FARM_CACHE_URL as an ACL user with ``rules`` of a Redis holding
    one plan of demo/ai_shopping; the cache store's name as messages give it."""
    from farm.cache.keys import Namespace
    from farm.cache.redis_store import RedisStore
    server = private_redis()
    admin = RedisStore(server.url)
    admin.put(Namespace("demo/ai_shopping", "web").key("plan", "Add a keyboard", 0),
              {"prompt": "Add a keyboard", "actions": [{"type": "Tap"}], "updated": 1})
    admin.close()
    for name in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_CLUSTER_PREFIX"):
        monkeypatch.delenv(name, raising=False)

    def as_user(*rules: str) -> str:
        url = _user(server, "cacher", *rules)
        monkeypatch.setenv("FARM_CACHE_URL", url)
        return RedisStore(url).where
    return as_user


@pytest.mark.parametrize("command, rules, said", [
    (("ls",), ("~*", "+@all", "-mget"), "to run the 'mget' command"),
    (("clear", "demo"), ("~*", "+@all", "-del"), "to run the 'del' command"),
    (("export", "suites/demo/ai_shopping.yaml", "-o", "{tmp}/out.yaml"), ("~*", "+@all", "-get"),
     "to run the 'get' command"),
    (("ls",), ("~other:*", "+@all"), "to access one of the keys used as arguments")])
def test_cache_commands_whose_user_the_acl_refuses_say_so_exit_4(cache_as, monkeypatch, capsys,
                                                                 tmp_path, command, rules,
                                                                 said):
    """`farm cache ls / clear / export` with a cache store whose user may not read or delete
    its keys: 'internal error: NoPermissionError', exit 3 (a traceback file)."""
    from tests.support.farm_cli import ROOT, run_main
    where = cache_as(*rules)
    monkeypatch.chdir(ROOT)
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    code, out, err = run_main(monkeypatch, capsys, "cache", *args)
    assert (code, out) == (4, ""), err
    assert err == (f"farm: error: the cache store {where} refuses user 'cacher': this user "
                   f"has no permissions {said} (farm's cache needs every command on its keys: "
                   "ACL SETUSER cacher ~farm:cache:* +@all)\n"), err
    assert "pw-cacher" not in err and not (tmp_path / "out.yaml").exists()


def test_collect_only_matrix_names_the_user_the_acl_refuses_its_groups(private_redis, farm,
                                                                      tmp_path):
    """`farm run --collect-only --matrix` reading the cluster's groups with a user refused
    MGET of the leases said '(this user has no permissions to run the 'mget' command)',
    naming neither the broker nor the user nor the grant."""
    server = private_redis()
    redis.Redis(port=server.port).set(f"{PREFIX}:lease:fake-1@h", json.dumps(
        {"platform": "web", "group": "g1", "state": "idle"}))
    url = _user(server, "lister", "~*", "&*", "+@all", "-mget")
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--collect-only", "--matrix",
                    "--broker", url, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    masked = url.replace(":pw-lister@", ":***@")
    assert (f"--matrix: cannot read the cluster's device groups (the broker {masked} refuses "
            "user 'lister': this user has no permissions to run the 'mget' command "
            f"{GRANT} lister ~{PREFIX}:* &* +@all))") in out, out
    assert "pw-lister" not in out and "Traceback" not in out, out


def test_collect_only_matrix_without_the_password_shows_where_it_goes(private_redis, farm,
                                                                      tmp_path):
    """The advice's example URL read 'redis://:***@host:port/db': its PASSWORD placeholder
    masked as a password is."""
    server = private_redis(password="sekret")
    url = f"redis://127.0.0.1:{server.port}/0"
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--collect-only", "--matrix",
                    "--broker", url, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert (f"cannot read the cluster's device groups (the broker {url} needs a password, and "
            "the URL gives none (redis://:PASSWORD@host:port/db))") in out, out


def test_a_run_whose_user_may_not_send_jobs_says_so_and_ends(private_redis, workers, farm,
                                                             tmp_path):
    """A client user refused LPUSH (sending a job to a worker's queue): Celery wraps the
    NOPERM in kombu's OperationalError, which the run took for a broker outage; Redis still
    answered, so it sent again and again: `farm run` hung without a word. Refused its first
    send, no case went: as a run refused at its start (exit 4, each case "not run"; it was
    exit 3, the cases errors)."""
    from tests.support.cluster import wait_idle
    server = private_redis()
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    url = _user(server, "nosend", "~*", "&*", "+@all", "-lpush")
    run_dir = tmp_path / "r"
    done = farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", url,
                    "--devices", "fake:1", "--report-dir", run_dir, timeout=180, **ENV)
    out = _said(done, "nosend")
    masked = url.replace(":pw-nosend@", ":***@")
    assert (f"farm: error: the broker {masked} refuses user 'nosend': this user has no "
            f"permissions to run the 'lpush' command {GRANT} nosend") in out, out
    cases = json.loads((run_dir / "results.json").read_text())["cases"]
    assert [(c["status"], c["reason"]) for c in cases] == [("error", "not run")] * 2, cases
    assert all("'lpush'" in c["error"]["message"] for c in cases), cases


def test_a_results_history_whose_user_may_not_write_names_redis_user_and_keys(
        private_redis, farm, tmp_path):
    """FARM_RESULTS_HISTORY_URL of a Redis whose ACL user may not run HSET: the warning
    read 'results history not updated: Command # 1 (HSET …) of pipeline caused error: this
    user has no permissions to run the 'hset' command', naming neither the store nor the
    user. The run's own results stand."""
    url = _user(private_redis(), "nohist", "~*", "&*", "+@all", "-hset")
    run_dir = tmp_path / "r"
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 0), "--devices", "fake:1",
                    "--report-dir", run_dir, FARM_RESULTS_HISTORY_URL=url, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    masked = url.replace(":pw-nohist@", ":***@")
    assert (f"farm: warning: results history not updated: Redis {masked} refuses user "
            "'nohist': this user has no permissions to run the 'hset' command (the results "
            f"history needs every command on the keys {PREFIX}:results:*: ACL SETUSER nohist "
            f"~{PREFIX}:results:* +@all)") in out, out
    assert "pw-nohist" not in out and "Traceback" not in out, out
    assert json.loads((run_dir / "results.json").read_text())["counts"]["passed"] == 1
