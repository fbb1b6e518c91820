"""User mistakes end with a clear message and exit 4 — never a traceback, never "internal
error" — and, where a run was refused after its cases were known, results.json says so."""

from __future__ import annotations

import json

import pytest

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.redis_server import RedisServer

DEMO = ROOT / "suites" / "demo"


@pytest.fixture
def cli(tmp_path):
    cli = FarmCli(tmp_path)
    yield cli
    cli.close()


def refused(done, *phrases: str) -> None:
    text = done.stdout + done.stderr
    assert done.returncode == 4, text
    assert "Traceback" not in text and "internal error" not in text
    for phrase in phrases:
        assert phrase in done.stderr, done.stderr


def test_report_dir_that_is_a_file(cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    refused(cli.run("run", DEMO, "--report-dir", tmp_path / "afile"), "--report-dir",
            "is a file")


def test_report_dir_that_cannot_be_created(cli):
    # root may write anywhere on disk; /proc refuses everyone
    refused(cli.run("run", DEMO, "--report-dir", "/proc/farm-run"), "--report-dir",
            "cannot write there")


def test_state_dir_that_is_a_file(cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    refused(cli.run("run", DEMO, FARM_STATE_DIR=str(tmp_path / "afile")), "FARM_STATE_DIR")


def test_broker_that_is_not_redis(cli):
    refused(cli.run("run", DEMO, "--broker", "http://127.0.0.1:9/"), "--broker http://",
            "redis://")


def test_no_redis_listening_writes_results_with_nothing_run(cli, tmp_path):
    from tests.support.redis_server import free_port
    run_dir = tmp_path / "run"
    done = cli.run("run", DEMO, "--broker", f"redis://127.0.0.1:{free_port()}/0",
                   "--report-dir", run_dir, FARM_CLUSTER_OUTAGE_SECONDS="1")
    # waited for (a Redis restarting as the job starts), then an infrastructure error: exit 3
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "cannot reach the broker" in done.stderr, done.stderr
    # said once, not once more for every case that could not start
    assert (done.stdout + done.stderr).count("cannot reach the broker") == 1, done.stdout
    summary = json.loads((run_dir / "results.json").read_text())
    # what CI dashboards read says red, as the exit code does: each case that would have run
    # is an error, not run, naming the broker; only those skipped up front stay skipped
    assert summary["exit_code"] == 3 and summary["counts"]["error"] > 0
    for case in summary["cases"]:
        if case["status"] == "skipped":
            assert case["reason"].startswith("needs a model")
            continue
        assert (case["status"], case["reason"], case["error"]["kind"]) == (
            "error", "not run", "BrokerLost")
        assert "cannot reach the broker" in case["error"]["message"]
    junit = (run_dir / "junit.xml").read_text()
    assert f'errors="{summary["counts"]["error"]}"' in junit


def test_a_report_dir_holding_a_run_needs_overwrite(cli, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.json").write_text("{}")
    (run_dir / "artifacts").mkdir()
    (run_dir / "artifacts" / "old.jpg").write_bytes(b"old")
    refused(cli.run("run", DEMO / "login_success.yaml", "--report-dir", run_dir),
            "already holds a run", "--overwrite")
    done = cli.run("run", DEMO / "login_success.yaml", "--report-dir", run_dir, "--overwrite")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((run_dir / "results.json").read_text())["counts"]["passed"] == 1
    assert not (run_dir / "artifacts" / "old.jpg").exists()


def test_worker_with_a_wrong_redis_password(cli, tmp_path):
    server = RedisServer(password="right").start()
    try:
        done = cli.run("worker", "--broker", server.url.replace(":right@", ":wrong@"),
                       "--devices", "browser:1", timeout=60)
    finally:
        server.stop()
    refused(done, "refused the password")
    assert "wrong" not in done.stderr


def test_a_cluster_run_says_its_model_is_the_workers_not_its_own(cli, tmp_path):
    """--model on `farm run --broker` was ignored without a word: the ai cases ran (or were
    skipped) with whatever model the workers have."""
    server = RedisServer().start()
    try:
        done = cli.run("run", DEMO / "login_success.yaml", "--broker", server.url,
                       "--model", "openai/x", "--report-dir", tmp_path / "run",
                       FARM_CLUSTER_DEVICE_WAIT="1")       # no worker: the case ends at once
    finally:
        server.stop()
    assert "the model of this run (--model / FARM_MODEL) is not sent to the workers" in \
        done.stderr, done.stdout + done.stderr


def test_a_url_from_a_variable_that_cannot_be_a_page_fails_its_case_not_the_browser(cli,
                                                                                      tmp_path):
    """`url: ${BAD_URL}` with BAD_URL=htp://…: the load cannot check it, and Chromium's
    net::ERR_ABORTED made it a device error — retried, the browser quarantined, the next good
    case "no usable web device left". It is the case's mistake: that case fails, once."""
    from tests.support.suites import demo_copy
    suite = demo_copy(tmp_path / "demo", "login_success.yaml")
    for name in ("bad_a", "bad_b", "bad_c"):
        (suite / f"{name}.yaml").write_text(
            "name: bad url\nweb:\n  url: ${BAD_URL}\ntasks:\n  - name: t\n    flow:\n"
            "      - sleep: 1\n")
    done = cli.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                   BAD_URL="htp://127.0.0.1:3999/index.html")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    cases = {c["case_id"].split("/")[-1]: c for c in summary["cases"]}
    assert cases["login_success"]["status"] == "passed", cases["login_success"]
    for name in ("bad_a", "bad_b", "bad_c"):
        case = cases[name]
        assert (case["status"], case["attempt"], case["previous"]) == ("failed", 1, []), case
        assert "unsupported scheme 'htp:' (did you mean 'http'?)" in case["error"]["message"]
    assert summary["quarantined"] == []



@pytest.mark.parametrize("encoding", [
    "ascii",
    # a C / POSIX locale with UTF-8 mode off: Python's own surrogateescape, which fails on
    # "—" as strict does; the output stopped at the first "—", the FAILED line and tally lost
    "ascii:surrogateescape"])
def test_a_terminal_that_is_not_utf8_gets_escapes_not_an_internal_error(cli, tmp_path,
                                                                         encoding):
    """An ASCII or ISO-8859-1 locale (a bare container, PYTHONIOENCODING=ascii): farm's own
    lines ("—") and Chinese page text are written with \\u escapes, and the run ends with its
    own exit code (1: a failed case), not an internal error (3) after the run."""
    case = tmp_path / "s" / "zh.yaml"
    case.parent.mkdir()
    case.write_text("name: 中文\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
                    "      - assertText: 你好\n", encoding="utf-8")
    done = cli.run("run", case.parent, "--devices", "browser:1", "--no-progress",
                   "--report-dir", tmp_path / "run", PYTHONIOENCODING=encoding)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert "internal error" not in text and "Traceback" not in text
    assert '\\u2014 step 1: expected text "\\u4f60\\u597d" is not on screen' in done.stdout
    assert "farm: 1 failed" in done.stdout


@pytest.mark.parametrize("given, said", [
    ("", "needs a password, and the URL gives none (redis://:PASSWORD@host:port/db)"),
    (":wrong@", "refused the password")])
def test_cache_store_password_missing_or_wrong(cli, given, said):
    """A cache store (FARM_CACHE_URL) asking for a password the URL does not give read
    'refused the password: Authentication required', as if a wrong one had been sent."""
    server = RedisServer(password="right").start()
    try:
        url = server.url.replace(":right@", given)
        done = cli.run("cache", "ls", FARM_CACHE_URL=url, timeout=60)
    finally:
        server.stop()
    refused(done, said)
    assert "wrong" not in done.stderr and "right" not in done.stderr
