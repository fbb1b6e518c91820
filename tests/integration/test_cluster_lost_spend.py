"""The model spend of a cluster attempt lost mid-step (its device process killed while an ai
step was planning) is counted: the calls that step made were paid for, yet its worker reports
a step's usage only once the step ends, so the run's results.json, its summary line and
farm_case_tokens_total counted none of them. Real redis-server, real `farm worker`, a scripted
model server."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import psutil
import pytest

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.cluster import CLUSTER_ENV, PREFIX, events, runs, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.model_server import Reply
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PROMPT = 1000       # prompt tokens of every reply
KEYS = ["Enter", "Tab", "Escape"]


def started(run_dir: Path) -> bool:
    """The run's journal has an attempt's start (the run has heard it start)."""
    path = run_dir / "results.jsonl"
    return path.exists() and '"journal": "start"' in path.read_text()


@contextmanager
def held(pid: int, url: str, run_dir: Path) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The run's client stopped once it has heard the attempt start: what the worker sends
    from then on stays in Redis, where the test reads it (the function yielded) before it
    kills the worker; the client goes on at the end and takes it all, in order."""
    wait_for(lambda: started(run_dir), 120, "the run hearing the attempt start")
    client = psutil.Process(pid)
    client.suspend()
    try:
        run_id, = runs(url)
        unblock(url, run_id)
        yield lambda: events(url, run_id)
    finally:
        client.resume()


def unblock(url: str, run_id: str) -> None:
    """An event of no consequence for the stopped client's BLMOVE, if it stopped waiting in
    one: Redis hands such a waiter the next event pushed, taking it from the list the test
    reads (and the client ignores this one)."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        r.rpush(f"{PREFIX}:events:{run_id}", json.dumps({"type": "device_state"}))
    finally:
        r.close()


def spent(sent: list[dict[str, Any]], calls: int) -> bool:
    """The worker has sent that the step in progress made ``calls`` model calls."""
    return any(e["type"] == "spend" and e["usage"]["calls"] == calls for e in sent)


def test_an_attempt_lost_mid_step_keeps_the_spend_of_that_step(tmp_path, redis_url, workers,
                                                               farm: FarmCli, model_server):
    answer, killed = threading.Event(), threading.Event()

    def script(body: dict, index: int) -> Reply:
        """Three planned key presses (once the run's client is held: what the worker sends
        then waits in Redis for the test to see), then a call held until the device process
        is killed; after that (the retry), done."""
        if index == 0:
            answer.wait(240)
        if index < len(KEYS):
            return Reply(xml("KeyboardPress", {"keyName": KEYS[index]}), prompt_tokens=PROMPT)
        if index == len(KEYS):
            killed.wait(240)
        return Reply(DONE_XML, prompt_tokens=PROMPT)

    server = model_server(script)
    write_case(tmp_path / "s", "c", ["ai: press the keys"])
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    (name, _), = wait_idle(redis_url, 1).items()
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                      "--report-dir", tmp_path / "run", "--no-progress",
                      "--metrics-port", "0",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV,
                         "FARM_METRICS_LINGER_SECONDS": "0"})
    busy, = wait_busy(redis_url)
    with held(proc.pid, redis_url, tmp_path / "run") as sent:
        answer.set()
        wait_for(lambda: len(server.requests) > len(KEYS) and spent(sent(), len(KEYS)), 120,
                 "the step's fourth model call, the spend of three sent")
        psutil.Process(busy["pid"]).kill()      # mid-step: three calls answered, paid for
    killed.set()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert (case["status"], case["attempt"]) == ("passed", 2), case
    lost, = case["previous"]
    assert lost["error"]["kind"] == "DeviceLost", lost
    assert lost["usage"]["calls"] == len(KEYS), lost
    assert lost["usage"]["prompt_tokens"] == PROMPT * len(KEYS), lost
    assert lost["tokens"]["prompt"] == PROMPT * len(KEYS), lost
    step, = lost["steps"]
    assert step["usage"]["calls"] == len(KEYS), step       # the step it was in spent them
    assert f"model: {len(KEYS) + 1} call(s)" in out, out
    prom = (tmp_path / "run" / "metrics.prom").read_text()
    assert (f'farm_case_tokens_total{{kind="prompt",platform="web"}} '
            f'{float(PROMPT * (len(KEYS) + 1))}') in prom, prom


def test_a_shared_context_unit_lost_in_its_second_file_keeps_the_first_files_spend(
        tmp_path, redis_url, workers, farm: FarmCli, model_server):
    """Its files are the run's cases: each keeps its share of the lost attempt (the first
    file's model call; before, the lost attempt was on neither file, its call counted by no
    total of results.json), farm_cases_total counts 2 cases (it counted the unit as a third)
    and the file retried after its device was lost is passed, not flaky."""
    answer = threading.Event()

    def script(body: dict, index: int) -> Reply:
        """The first file's call answered once the run's client is held (its step's record
        then waits in Redis for the test to see)."""
        if index == 0:
            answer.wait(240)
        return Reply(DONE_XML, prompt_tokens=PROMPT)

    server = model_server(script)
    go, s = tmp_path / "go", tmp_path / "b"
    write_case(s, "a_first", ["ai: do it"])
    write_case(s, "b_second", [f"javascript: farm-test:wait-for:{go}"])
    (s / "index.yaml").write_text("continueOnError: true\nshareBrowserContext: true\n"
                                  "files:\n  - a_first.yaml\n  - b_second.yaml\n")
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    wait_idle(redis_url, 1)
    proc = farm.start("run", s, "--broker", redis_url, "--devices", "fake:1",
                      "--report-dir", tmp_path / "run", "--no-progress",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    busy, = wait_busy(redis_url)
    with held(proc.pid, redis_url, tmp_path / "run") as sent:
        answer.set()
        wait_for(lambda: any(e["type"] == "step" for e in sent()), 120,
                 "the first file's step sent")
        psutil.Process(busy["pid"]).kill()      # in the second file
    journal = tmp_path / "run" / "results.jsonl"
    wait_for(lambda: "DeviceLost" in journal.read_text(), 120, "the attempt lost")
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    cases = {c["case_id"]: c for c in results(tmp_path / "run")["cases"]}
    first, second = cases["b/a_first"], cases["b/b_second"]
    assert (first["status"], second["status"]) == ("passed", "passed"), cases
    (lost_first,), (lost_second,) = first["previous"], second["previous"]
    assert lost_first["error"]["kind"] == lost_second["error"]["kind"] == "DeviceLost"
    assert lost_first["usage"]["calls"] == 1 and lost_second["usage"] is None, cases
    assert "model: 2 call(s)" in out, out
    prom = (tmp_path / "run" / "metrics.prom").read_text()
    assert 'farm_cases_total{platform="web",status="passed"} 2.0' in prom, prom
    assert f'farm_case_tokens_total{{kind="prompt",platform="web"}} {2.0 * PROMPT}' in prom
