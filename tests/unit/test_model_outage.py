"""A model that fails is the model's problem, not the devices': `farm run` against a scripted
endpoint that answers 500, nonsense or actions farm does not have. No device is quarantined for
it, the cases that need no model still run, each model case ends once with the model's error
(another device would get the same answers: a second attempt only doubles the spend), and the
error names the model. Through the command's entry point, litellm calling the scripted server
over HTTP; only the devices are fakes (no Chromium in unit tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import farm.session
from farm.attempts import RetryPolicy
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.executors.local import LocalExecutor
from tests.support.agent_scripts import xml
from tests.support.farm_cli import run_main
from tests.support.model_server import Reply, serve

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
AI_CASE = """\
web:
  url: http://127.0.0.1:1/
tasks:
  - name: shop
    flow:
      - ai: sign in and buy a mug
"""
PLAIN_CASE = """\
web:
  url: http://127.0.0.1:1/
tasks:
  - name: look
    flow:
      - assertText: Welcome
      - aiTap: Sign in
"""


def on_fake_browsers(count: int):
    """`farm.session._executor` with ``count`` fake web devices and the run's retry policy."""
    def executor(settings, specs, cases, services, *_rest) -> LocalExecutor:
        devices = [FakeDevice(SCREEN, name=f"browser-{i + 1}") for i in range(count)]
        return LocalExecutor(devices, {c.id: c for c in cases}, services,
                             RetryPolicy(infra_retries=settings.infra_retries))
    return executor


def farm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
             base_url: str, devices: int, ai_cases: int) -> tuple[int, str, dict]:
    """`farm run` of ``ai_cases`` cases with an ai step and one (``z_plain``, queued last)
    that needs no model; (exit code, stdout + stderr, results.json)."""
    for name in ("FARM_MODEL_API_KEY", "OPENAI_API_KEY", "FARM_RETRIES", "FARM_INFRA_RETRIES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_MODEL", "openai/scripted")
    monkeypatch.setenv("FARM_MODEL_BASE_URL", base_url)
    monkeypatch.setenv("FARM_MODEL_RETRIES", "1")
    monkeypatch.setenv("FARM_MODEL_BACKOFF", "0.01")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(farm.session, "_executor", on_fake_browsers(devices))
    suite = tmp_path / "s"
    suite.mkdir()
    for i in range(ai_cases):
        (suite / f"ai_{i}.yaml").write_text(AI_CASE)
    (suite / "z_plain.yaml").write_text(PLAIN_CASE)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress", "--cache",
                              "off", "--report-dir", "out")
    return code, out + err, json.loads((tmp_path / "out" / "results.json").read_text())


def test_a_model_outage_quarantines_no_device_and_the_other_cases_still_run(
        server, tmp_path, monkeypatch, capsys):
    """One browser, three cases whose model answers 500 and one that needs no model: the
    device used to be quarantined after the third model error ("3 infrastructure errors in a
    row") and the last case ended "no usable web device left", the model named only in an
    earlier attempt."""
    srv = serve(server, [Reply(status=500)])
    code, said, results = farm_run(tmp_path, monkeypatch, capsys, srv.base_url, devices=1,
                                   ai_cases=3)
    assert code == 3, said
    assert not results.get("quarantined") and "quarantined" not in said, said
    cases = {c["case_id"]: c for c in results["cases"]}
    assert cases["s/z_plain"]["status"] == "passed", cases["s/z_plain"]
    for i in range(3):
        case = cases[f"s/ai_{i}"]
        assert case["status"] == "error" and case["error"]["kind"] == "ModelUnavailable"
        assert case["error"]["message"].startswith(
            f"model openai/scripted at {srv.base_url} unavailable after 2 attempts: "
            "InternalServerError"), case
        assert case["attempt"] == 1 and not case.get("previous")
    assert len(srv.requests) == 3 * 2       # each case once: 1 request + 1 retry


@pytest.mark.parametrize("reply, said", [
    (Reply(status=500), "unavailable after 2 attempts"),
    ("Sure! I will click the login button for you :)", "could not be parsed twice"),
    (xml("Fly", {"to": "moon"}), "unknown action 'Fly'"),
], ids=["5xx after retries", "unreadable replies", "invented actions"])
def test_a_model_error_is_not_run_again_on_another_device(
        server, tmp_path, monkeypatch, capsys, reply, said):
    """Two browsers: the case used to run a second time on the other one, for the same
    answers, doubling the requests (and the bill)."""
    srv = serve(server, [reply])
    code, out, results = farm_run(tmp_path, monkeypatch, capsys, srv.base_url, devices=2,
                                  ai_cases=1)
    assert code == 3, out
    case = next(c for c in results["cases"] if c["case_id"] == "s/ai_0")
    assert case["status"] == "error" and case["error"]["kind"] == "ModelUnavailable", case
    assert said in case["error"]["message"]
    assert case["attempt"] == 1 and not case.get("previous"), case
    assert case["usage"]["calls"] >= 1 and len(srv.requests) == case["usage"]["calls"] + \
        case["usage"]["retries"]        # every request the server saw is this one attempt's
