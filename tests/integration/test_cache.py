"""The locate/plan cache, end to end: a solved ai case runs again with no model call on a
browser, a simulated Android phone and a simulated iPhone; its export runs with no model;
an app change makes a cached XPath stale and the run still passes (re-located, rewritten);
two `farm worker`s share one Redis store; four processes write one SQLite store at once."""

from __future__ import annotations

import io
import json
import multiprocessing
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from farm.cli import cli
from farm.config import load_settings
from farm.session import run
from tests.support.agent_scripts import DONE_XML, XML_FLOW, by_progress, xml
from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_idle
from tests.support.farm_cli import PLUGIN, results, wait_for
from tests.support.model_server import ModelServer, message_texts
from tests.support.suites import demo_copy

SECRET = "farm-demo-pass"
MOBILE_FLOW = [
    xml("Input", {"value": "demo", "locate": {"prompt": "Enter your username"}}),
    xml("Input", {"value": "${DEMO_PASSWORD}", "locate": {"prompt": "Enter your password"}}),
    xml("Tap", {"locate": {"prompt": "Sign in"}}),
    '<complete success="true">signed in</complete>',
]
MOBILE_CASE = """name: AI signs in on {platform}
{platform}:
  launch: com.farm.demo.shop
tasks:
  - name: sign in
    flow:
      - ai: log in as demo with the password ${{DEMO_PASSWORD}}
      - waitForText: Welcome back, demo
        timeout: 8000
"""


def shop_script(body: dict, index: int) -> str:
    """The web flow for the browser, the sign-in flow for the phones (told apart by the
    platform's actions in the system prompt)."""
    system = message_texts(body)[0]
    phone = "AndroidBackButton" in system or "IOSHomeButton" in system
    return by_progress(MOBILE_FLOW if phone else XML_FLOW)(body, index)


def run_suite(path: Path | list[Path], devices: str, tmp: Path, name: str,
              srv: ModelServer | None, **flags) -> tuple[int, dict, str]:
    model = dict(model="openai/scripted", model_base_url=srv.base_url) if srv else {}
    settings = load_settings(report_dir=tmp / name, state_dir=tmp / "state", **model, **flags)
    out = io.StringIO()
    code = run(path if isinstance(path, list) else [path], devices, settings, progress=False,
               out=out)
    return code, results(tmp / name), out.getvalue()


def ai_steps(summary: dict) -> dict[str, dict]:
    return {c["platform"]: next(s for s in c["steps"] if s["kind"] == "ai")
            for c in summary["cases"]}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The demo suite's ai case plus one per phone, in a copy of the suite; solved once (the
    model plans), then run again. Yields what both runs left."""
    tmp = tmp_path_factory.mktemp("cache")
    suite = demo_copy(tmp / "demo", "ai_shopping.yaml")
    for platform in ("android", "ios"):
        (suite / f"{platform}_ai.yaml").write_text(MOBILE_CASE.format(platform=platform))
    with ModelServer(shop_script) as srv:
        devices = "browser:1,android-sim:1,ios-sim:1"
        first = run_suite(suite, devices, tmp, "first", srv)
        calls = len(srv.requests)
        second = run_suite(suite, devices, tmp, "second", srv)
        yield {"tmp": tmp, "suite": suite, "srv": srv, "first": first, "second": second,
               "calls": (calls, len(srv.requests))}


def test_second_run_makes_no_model_call_on_every_platform(shop):
    (code1, first, out1), (code2, second, out2) = shop["first"], shop["second"]
    assert code1 == 0, out1
    assert code2 == 0, out2
    solved, replayed = ai_steps(first), ai_steps(second)
    assert set(replayed) == {"web", "android", "ios"}
    before, after = shop["calls"]
    assert before >= 3 + 7 and after == before          # not one request in the second run
    for platform, step in replayed.items():
        assert step["cache"]["plan"] == "hit", (platform, step)
        assert step["usage"] is None and step["status"] == "passed"
        # targets from the cache or the UI-tree text match: no model tier
        assert set(step["tier"].split(",")) <= {"cache", "text", "xpath"}, (platform, step)
        assert solved[platform]["cache"]["written"] >= 4, solved[platform]
        assert step["cache"]["written"] == 0, (platform, step)   # the app did not change


def test_cache_holds_placeholders_never_secret_values(shop):
    stored = b"".join(p.read_bytes() for p in (shop["tmp"] / "state").glob("cache.db*"))
    assert stored and SECRET.encode() not in stored
    assert b"${DEMO_PASSWORD}" in stored


def test_export_runs_with_no_model(shop):
    """`farm cache export RUN_DIR` writes every passed case of the run as a flow with no ai
    step, beside its case; each, on a browser, a simulated Android phone and a simulated
    iPhone, then passes with no model configured, its targets found by XPath. The suite
    itself does not collect them as cases of its own."""
    from farm.suite.loader import load_suites
    tmp = shop["tmp"]
    res = CliRunner().invoke(cli, ["cache", "export", str(tmp / "second")],
                             env={"FARM_STATE_DIR": str(tmp / "state")})
    assert res.exit_code == 0, res.output
    files = {Path(line).name: Path(line) for line in res.output.split()}
    assert set(files) == {f"{n}.solved.yaml" for n in ("ai_shopping", "android_ai", "ios_ai")}
    text = "\n".join(f.read_text() for f in files.values())
    assert "- ai:" not in text and "xpath: //*[@id='login-button']" in text
    assert "${DEMO_PASSWORD}" in text and SECRET not in text
    assert "xpath: //node[@resource-id='com.farm.demo.shop:id/login-button']" in \
        files["android_ai.solved.yaml"].read_text()
    assert "auto_dismiss_keyboard" not in text
    code, summary, out = run_suite(sorted(files.values()), "browser:1,android-sim:1,ios-sim:1",
                                   tmp, "exported", None)
    assert code == 0, out + text
    assert {c["platform"]: c["status"] for c in summary["cases"]} == {
        "web": "passed", "android": "passed", "ios": "passed"}, out
    for case in summary["cases"]:
        assert case["usage"] is None, case
        assert {s["tier"] for s in case["steps"] if s["kind"] == "aiTap"} == {"xpath"}, case
    assert sorted(c.id for s in load_suites([shop["suite"]], env={}) for c in s.cases) == [
        "demo/ai_shopping", "demo/android_ai", "demo/ios_ai"]


def test_export_of_a_run_from_another_directory_reads_the_store_the_run_used(
        shop, tmp_path, monkeypatch):
    """A run records its store (cache-store.json in its run directory): `farm cache export
    RUN_DIR` from another working directory, with no FARM_STATE_DIR, reads that store and
    makes no empty ./.farm/cache.db."""
    tmp = shop["tmp"]
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["cache", "export", str(tmp / "first")],
                             env={"FARM_STATE_DIR": None})
    assert res.exit_code == 0, res.output
    exported = [Path(line).read_text() for line in res.output.split()]
    assert len(exported) == 3 and all("xpath: " in text for text in exported)
    assert not (tmp_path / ".farm").exists()
    assert json.loads((tmp / "first" / "cache-store.json").read_text()) == {
        "sqlite": str((tmp / "state" / "cache.db").resolve())}


def test_renamed_and_moved_button_is_relocated_and_rewritten(shop):
    tmp, suite = shop["tmp"], shop["suite"]
    page = suite / "app" / "index.html"
    html = page.read_text()
    assert 'id="login-button" data-testid="login-button"' in html
    page.write_text(html.replace('id="login-button" data-testid="login-button"',
                                 'id="signin-btn" data-testid="signin-btn" '
                                 'style="margin-top: 64px"'))
    before = len(shop["srv"].requests)
    code, summary, out = run_suite(suite / "ai_shopping.yaml", "browser:1", tmp, "changed",
                                   shop["srv"])
    assert code == 0, out
    step = ai_steps(summary)["web"]
    assert step["cache"]["plan"] == "hit" and step["tier"] in ("text", "cache,text", "text,cache")
    # the button, and what its new margin moved, are written again; no model call
    assert step["cache"]["written"] >= 1 and len(shop["srv"].requests) == before
    store = SqliteStore(tmp / "state" / "cache.db")
    entry = store.get(Namespace("demo/ai_shopping", "web").key("locate", "Sign in", 0))
    assert entry["xpaths"] == ["//*[@id='signin-btn']"]


# ---- shared and concurrent stores ---------------------------------------------------------------
THINK = """name: think
web:
  url: about:blank
tasks:
  - name: t
    flow:
      - ai: wait a moment, then say done
"""


def test_two_workers_share_one_redis_store(farm, workers, redis_url, tmp_path):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text("timeout: 60\n")
    (suite / "think.yaml").write_text(THINK)
    with ModelServer([xml("Sleep", {"timeMs": 1}), DONE_XML]) as srv:
        model = {"FARM_MODEL": "openai/scripted", "FARM_MODEL_BASE_URL": srv.base_url}
        client = dict(model, FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
        started = {"first-host": workers("fake:1", FARM_WORKER_HOST="first-host", **model),
                   "second-host": workers("fake:1", FARM_WORKER_HOST="second-host", **model)}
        wait_idle(redis_url, 2)
        done = farm.run("run", suite, "--broker", redis_url, "--devices", "fake:1",
                        "--report-dir", tmp_path / "r1", **client)
        assert done.returncode == 0, done.stdout + done.stderr + farm.worker_logs()
        solved_by = results(tmp_path / "r1")["cases"][0]["device"]
        assert len(srv.requests) == 2
        solver = next(host for host in started if host in solved_by)
        started[solver].send_signal(signal.SIGTERM)       # only the other worker is left
        started[solver].wait(60)
        wait_for(lambda: solved_by not in leases(redis_url), 30, "the solving worker gone")
        done = farm.run("run", suite, "--broker", redis_url, "--devices", "fake:1",
                        "--report-dir", tmp_path / "r2", **client)
        assert done.returncode == 0, done.stdout + done.stderr + farm.worker_logs()
        [case] = results(tmp_path / "r2")["cases"]
        assert case["device"] != solved_by
        assert case["steps"][0]["cache"]["plan"] == "hit"
        assert len(srv.requests) == 2                 # the second worker asked the model nothing
    import redis
    r = redis.Redis.from_url(redis_url)
    assert r.keys(f"{PREFIX}:cache:v1|s/think|*")


def test_redis_store_contract_and_farm_cache_url(redis_url, tmp_path):
    from farm.cache import open_store
    from farm.config import Settings
    store = open_store(Settings(cache_url=redis_url, state_dir=tmp_path))
    assert type(store).__name__ == "RedisStore" and not (tmp_path / "cache.db").exists()
    store.put("v1|a*|1", {"x": 1})
    store.put("v1|a*|2", {"x": "é"}, ttl=60)
    store.put("v1|ab|1", {"x": 3})
    store.put("v1|gone", {"x": 5}, ttl=0.001)
    store.put("v1|a*|1", {"x": 4})                     # replaced, not duplicated
    assert store.get("v1|a*|1") == {"x": 4}
    wait_for(lambda: store.get("v1|gone") is None, 10, "expiry")
    assert [k for k, _ in store.items("v1|a*")] == ["v1|a*|1", "v1|a*|2"]   # '*' is literal
    assert store.delete("v1|a*|") == 2 and [k for k, _ in store.items()] == ["v1|ab|1"]
    store.close()


def _write_many(path: str, writer: int, count: int) -> None:
    store = SqliteStore(Path(path))
    for i in range(count):
        store.put(f"v1|w{writer}|{i}", {"writer": writer, "i": i})
        assert store.get(f"v1|w{writer}|{i}") == {"writer": writer, "i": i}
    store.close()


def test_four_processes_write_one_sqlite_store_and_lose_nothing(tmp_path):
    path, count = tmp_path / "cache.db", 300
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_many, args=(str(path), w, count)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = SqliteStore(path)
    got = [v for _, v in store.items()]
    assert len(got) == 4 * count
    assert {(v["writer"], v["i"]) for v in got} == {(w, i) for w in range(4)
                                                    for i in range(count)}


def test_the_second_run_says_what_the_cache_saved(shop):
    """The replay's last line says what the first run paid for and this one did not."""
    (_, first, _), (_, second, out2) = shop["first"], shop["second"]
    paid = [s["usage"] for s in ai_steps(first).values()]
    calls, tokens = (sum(u["calls"] for u in paid),
                     sum(u["prompt_tokens"] + u["completion_tokens"] for u in paid))
    assert calls == shop["calls"][0]
    assert f"; cache: 3 plan(s) replayed (saved {calls} model call(s), {tokens:,} tokens" \
        in out2, out2
    assert sorted(s["cache"]["saved"]["calls"] for s in ai_steps(second).values()) == \
        sorted(u["calls"] for u in paid)
