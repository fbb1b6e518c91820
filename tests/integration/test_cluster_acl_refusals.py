"""Broker and history users the ACL refuses a command. A run refused one its first tick sends
(before a case is handed to a worker): as refused at its start — exit 4, one line naming the
broker (password masked), the user, what was refused and the grant, each case an error "not
run". It ended exit 3 with the cases errored, its line carrying redis-py's "Command # 1 (HSET
…) of pipeline caused error:"; a user refused MULTI ended it as an internal error ("EXEC
without MULTI": redis-py drops MULTI's NOPERM), a traceback and no results.json. Where farm
needs no MULTI (the results history, `farm devices --release`) it sends none."""

from __future__ import annotations

import json

import pytest
import redis

from tests.integration.test_cli_acl import ENV, GRANT, _said, _user
from tests.support.cluster import PREFIX
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


@pytest.mark.parametrize("denied", ["hset", "multi"])
def test_a_run_refused_on_its_first_tick_says_so_as_at_its_start(private_redis, farm, tmp_path,
                                                                  denied):
    url = _user(private_redis(), "client", "~*", "&*", "+@all", f"-{denied}")
    run_dir = tmp_path / "r"
    out = _said(farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", url,
                         "--report-dir", run_dir, **ENV), "client")
    masked = url.replace(":pw-client@", ":***@")
    why = (f"the broker {masked} refuses user 'client': this user has no permissions to run "
           f"the '{denied}' command {GRANT} client ~{PREFIX}:* &* +@all)")
    assert f"farm: error: {why}\n" in out and out.count("refuses user") == 1, out
    assert "of pipeline" not in out and "EXEC without MULTI" not in out, out
    summary = json.loads((run_dir / "results.json").read_text())
    assert summary["exit_code"] == 4 and summary["counts"]["error"] == 2, summary["counts"]
    for case in summary["cases"]:
        assert (case["status"], case["reason"], case["error"]["kind"]) == (
            "error", "not run", "ConfigError"), case
        assert why in case["error"]["message"], case


def test_a_results_history_whose_user_may_not_run_multi_is_written(private_redis, farm,
                                                                    tmp_path):
    """FARM_RESULTS_HISTORY_URL as a user refused MULTI: the run warned 'results history not
    updated: EXEC without MULTI' (naming nothing), and the run was in the history all the
    same (the commands MULTI was to hold ran one by one). It needs no MULTI now."""
    server = private_redis()
    url = _user(server, "nomulti", f"~{PREFIX}:results:*", "+@all", "-multi")
    run_dir = tmp_path / "r"
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 0), "--devices", "fake:1",
                    "--report-dir", run_dir, FARM_RESULTS_HISTORY_URL=url, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "results history" not in out and "MULTI" not in out, out
    run_id = json.loads((run_dir / "results.json").read_text())["run_id"]
    admin = redis.Redis(port=server.port, decode_responses=True)
    assert admin.zrange(f"{PREFIX}:results:index", 0, -1) == [run_id]
    assert admin.hexists(f"{PREFIX}:results:runs", run_id)


def test_devices_release_as_a_user_refused_multi_releases(private_redis, farm):
    """`farm devices --release` as a user refused MULTI took the device out of quarantine
    (the commands ran one by one) and then said 'internal error: ResponseError: EXEC without
    MULTI', exit 3. It needs no MULTI now."""
    server = private_redis()
    admin = redis.Redis(port=server.port, decode_responses=True)
    admin.hset(f"{PREFIX}:quarantine", "fake-1@h", "3 infrastructure errors in a row")
    url = _user(server, "ops", "~*", "&*", "+@all", "-multi")
    done = farm.run("devices", "--broker", url, "--release", "fake-1@h", timeout=60, **ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "fake-1@h: released" in out and "error" not in out, out
    assert not admin.hgetall(f"{PREFIX}:quarantine")
