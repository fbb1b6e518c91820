"""A key farm was never given, only the provider's own variable (OPENAI_API_KEY, which litellm
reads itself), is hidden as ``***`` like FARM_MODEL_API_KEY: an endpoint that quotes it back in
a 401 leaves it in no line `farm run` prints or logs and in no file the run writes. Through the
command's entry point, with litellm calling the scripted server over HTTP; only the device is a
fake (no Chromium in unit tests)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import farm.session
from farm.attempts import RetryPolicy
from farm.devices.fake import FakeDevice
from farm.executors.local import LocalExecutor
from tests.support.agent_scripts import SIGN_IN_CASE as CASE, SIGN_IN_SCREEN as SCREEN
from tests.support.farm_cli import run_main
from tests.support.model_server import Reply, serve

KEY = "sk-proj-ONLY-IN-THE-ENV-5f3a9c1d7e"


def _on_a_fake_browser(settings, specs, cases, services, *_rest) -> LocalExecutor:
    return LocalExecutor([FakeDevice(SCREEN)], {c.id: c for c in cases}, services,
                         RetryPolicy(infra_retries=0))


def test_a_provider_key_from_the_environment_is_in_no_output_of_the_run(
        server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture) -> None:
    """The user set only OPENAI_API_KEY (and OPENAI_BASE_URL): litellm sends that key, the
    endpoint refuses it and quotes it back, as OpenAI does."""
    srv = serve(server, [Reply(status=401, raw=json.dumps({"error": {
        "message": f"Incorrect API key provided: {KEY}. You can find your API key at "
                   "https://platform.openai.com/account/api-keys.", "type": "invalid_request_error",
        "code": "invalid_api_key"}}).encode())])
    for name in ("FARM_MODEL_API_KEY", "FARM_MODEL_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_MODEL", "openai/scripted")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(farm.session, "_executor", _on_a_fake_browser)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    caplog.set_level(logging.DEBUG)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress",
                              "--report-dir", "out")
    said = "\n".join((out, err, caplog.text))
    assert code == 3 and len(srv.requests) == 1, said   # refused once: an error
    written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert {"results.json", "junit.xml", "report.html"} <= {p.name for p in written}
    leaked = [str(p.relative_to(tmp_path)) for p, data in written.items() if b"sk-proj" in data]
    assert not leaked, f"the key is in {leaked}"  # run dir, history, farm.log: none
    assert KEY not in said and "sk-proj" not in said         # not even cut in two
    [case] = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    assert case["error"]["kind"] == "ModelRefused"
    assert "Incorrect API key provided: ***" in case["error"]["message"]


def test_which_variables_of_the_environment_are_secrets() -> None:
    from farm.config import environment_secrets
    env = {"OPENAI_API_KEY": "sk-openai-123", "GEMINI_API_KEY": " gm-key-4567 \n",
           "GITHUB_TOKEN": "ghp_abcdefgh", "AWS_SECRET": "aws/secret+9", "DB_PASSWORD": "hunter2!x",
           "deepseek_api_key": "ds-lower-case",
           "CI_TOKEN": "1", "DEBUG_KEY": "true", "FEATURE_SECRET": "",   # flags: too short
           "KEYBOARD": "us-international", "TOKEN_URL": "https://auth.example.com/token",
           "PATH": "/usr/local/bin:/usr/bin"}
    assert environment_secrets(env) == ["sk-openai-123", "gm-key-4567", "ghp_abcdefgh",
                                        "aws/secret+9", "hunter2!x", "ds-lower-case"]
