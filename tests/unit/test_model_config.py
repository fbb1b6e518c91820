"""Model settings that cannot work are the user's to fix, not an outage: a model name whose
provider litellm cannot tell, or a provider that needs an API key when none is set. `farm run`
refuses them before any device starts (exit 4, naming the setting to fix); a client built from
them anyway (a `farm worker`'s) sends nothing, retries nothing and counts no call. Nothing here
reaches a hosted model: without the check, litellm and the OpenAI SDK refuse these calls
before any request leaves the machine."""

from __future__ import annotations

from pathlib import Path

import pytest

import farm.session
from farm import metrics
from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.errors import ConfigError, ModelMisconfigured
from farm.executors.local import LocalExecutor
from farm.llm.models import ModelSet, check_models
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.agent_scripts import SIGN_IN_CASE as CASE, SIGN_IN_SCREEN as SCREEN
from tests.support.farm_cli import run_main
from tests.support.model_server import serve

MSGS = [{"role": "user", "content": "hi"}]
NOT_INHERITED = ("FARM_MODEL_API_KEY", "FARM_MODEL_BASE_URL", "OPENAI_API_KEY", "OPENAI_API_BASE",
                 "OPENAI_BASE_URL", "FARM_PLANNING_MODEL", "FARM_ASSERT_MODEL")
NO_PROVIDER = "litellm cannot tell which provider serves it: write it as provider/model"


@pytest.fixture
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NOT_INHERITED:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("model, said", [
    ("gpt4-typo", f"FARM_MODEL=gpt4-typo: {NO_PROVIDER}"),
    ("nosuchprov/foo", f"FARM_MODEL=nosuchprov/foo: {NO_PROVIDER}"),
    ("openai/gpt-4o", "FARM_MODEL=openai/gpt-4o needs an API key and none is set: set "
                      "FARM_MODEL_API_KEY (or OPENAI_API_KEY)"),
], ids=["no provider", "unknown provider", "no API key"])
def test_farm_run_refuses_model_settings_that_cannot_work_before_any_device_starts(
        no_model_env, tmp_path, monkeypatch, capsys, model, said):
    """It used to start the browser and run every case twice: "InternalServerError: …
    Missing credentials" retried with backoff, or "LLM Provider NOT provided" counted as a
    call; exit 3, as if the model were down."""
    started: list[str] = []

    def executor(settings, specs, cases, services, *_rest) -> LocalExecutor:
        started.append("devices")
        return LocalExecutor([FakeDevice(SCREEN)], {c.id: c for c in cases}, services,
                             RetryPolicy(infra_retries=1))
    monkeypatch.setenv("FARM_MODEL", model)
    monkeypatch.setenv("FARM_MODEL_BACKOFF", "0.01")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(farm.session, "_executor", executor)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress",
                              "--report-dir", "out")
    assert code == 4, out + err
    assert said in err and "Traceback" not in out + err, err
    assert started == [] and not (tmp_path / "out").exists()


@pytest.mark.parametrize("settings", [
    dict(model="openai/scripted", model_base_url="http://127.0.0.1:1/v1"),   # a local server
    dict(model="openai/gpt-4o", model_api_key="sk-test-0000000000"),
    dict(model="ollama/llava"),                                              # takes no key
    dict(model="openai/gpt-4o", planning_model="openai/gpt-4o-mini",
         model_api_key="sk-test-0000000000"),                               # the main key
], ids=["base URL", "own key", "no key needed", "planner on the main key"])
def test_model_settings_that_can_work_are_not_refused(no_model_env, settings):
    check_models(Settings(**settings))


def test_the_check_names_the_key_setting_of_the_model_that_lacks_one(no_model_env):
    with pytest.raises(ConfigError) as raised:
        check_models(Settings(model="ollama/llava",
                              planning_model="anthropic/claude-3-5-sonnet"))
    assert str(raised.value) == (
        "FARM_PLANNING_MODEL=anthropic/claude-3-5-sonnet needs an API key and none is set: set "
        "FARM_PLANNING_MODEL_API_KEY or FARM_MODEL_API_KEY (or ANTHROPIC_API_KEY)")


def test_a_key_in_the_providers_variable_is_enough(no_model_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-from-env-000")
    check_models(Settings(model="openai/gpt-4o"))


def requests_counted(family: str) -> float:
    return sum(metrics.REGISTRY.get_sample_value(
        "farm_model_requests_total", {"family": family, "outcome": outcome}) or 0
        for outcome in metrics.MODEL_OUTCOMES)


@pytest.mark.parametrize("model, with_server, said", [
    ("gpt4-typo", True, f"model gpt4-typo: {NO_PROVIDER}"),
    ("openai/gpt-4o", False, "model openai/gpt-4o needs an API key and none is set: set "
                             "FARM_MODEL_API_KEY (or OPENAI_API_KEY)"),
], ids=["no provider", "no API key"])
def test_a_worker_with_such_settings_sends_nothing_and_counts_no_call(
        no_model_env, server, tmp_path, model, with_server, said):
    """What a `farm worker`'s cases read (its settings are not checked by `farm run`): the
    case ends once with the setting to fix; no call in its usage nor in the model metrics."""
    from farm.llm.litellm_client import LiteLLMClient
    srv = serve(server, ["<complete success=\"true\">ok</complete>"])
    counted = requests_counted("gpt")
    client = LiteLLMClient(model, base_url=srv.base_url if with_server else None,
                           family="gpt", retries=2, backoff=0.01)
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="log in")])])
    services = Services(settings=Settings(cache="off"), artifacts=ArtifactStore(tmp_path),
                        run_id="r1", env={}, model=ModelSet.single(client))
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)
    assert res.status == "error" and res.error.kind == "ModelMisconfigured", res.error
    assert res.error.message.startswith(said)
    assert not (res.usage and res.usage.spent), res.usage   # no call, no retry
    assert requests_counted("gpt") == counted and srv.requests == []
    with pytest.raises(ModelMisconfigured):      # and so on for every later case
        client.complete(MSGS)


def test_farm_worker_refuses_model_settings_that_cannot_work_before_it_serves(
        no_model_env, monkeypatch, capsys):
    """A worker started with a model that cannot work took cases and failed every model step
    on it ("model gpt4-typo: litellm cannot tell…") run after run: it now stops at start-up,
    as `farm run` does, before it reaches the broker (an unreachable one here)."""
    monkeypatch.setenv("FARM_MODEL", "gpt4-typo")
    code, out, err = run_main(monkeypatch, capsys, "worker", "--broker",
                              "redis://127.0.0.1:9/0", "--devices", "browser:1")
    assert code == 4, out + err
    assert f"FARM_MODEL=gpt4-typo: {NO_PROVIDER}" in err and "Traceback" not in out + err, err


FAMILY_SAID = ("unknown model family 'qwen3vl' (did you mean 'qwen3-vl'?); known: gpt, "
               "qwen2.5-vl, qwen2-vl, qwen3-vl, gemini, doubao, glm-v, ui-tars, auto-glm")


@pytest.mark.parametrize("how", [("--model-family", "qwen3vl"), ("FARM_MODEL_FAMILY",),
                                 ("FARM_PLANNING_MODEL_FAMILY",)])
def test_farm_run_refuses_an_unknown_model_family_before_any_device_starts(
        no_model_env, tmp_path, monkeypatch, capsys, how):
    """`--model-family qwen3vl` was accepted by --collect-only and `farm config show`, then
    each device thread died opening (ValueError, a traceback) and the run hung."""
    started: list[str] = []
    monkeypatch.setattr(farm.session, "_executor", lambda *a: started.append("devices"))
    monkeypatch.setenv("FARM_MODEL", "ollama/llava")         # a model that needs no key
    monkeypatch.setenv("FARM_PLANNING_MODEL", "ollama/llava")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    flag = list(how) if how[0].startswith("--") else []
    if not flag:
        monkeypatch.setenv(how[0], "qwen3vl")
    blamed = (f"--model-family qwen3vl: " if flag else
              f"setting {how[0].removeprefix('FARM_').lower()!r} (env {how[0]}): ")
    for command in (["run", "s", "--no-progress", "--report-dir", "out"],
                    ["run", "s", "--collect-only"], ["config", "show"]):
        if command[0] == "config" and flag:
            continue
        code, out, err = run_main(monkeypatch, capsys, *command, *(
            flag if command[0] == "run" else []))
        assert (code, out) == (4, ""), out + err
        assert err == f"farm: error: invalid configuration:\n  {blamed}{FAMILY_SAID}\n"
    assert started == [] and not (tmp_path / "out").exists()


def test_farm_worker_refuses_an_unknown_model_family_before_it_serves(
        no_model_env, monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL", "ollama/llava")
    monkeypatch.setenv("FARM_ASSERT_MODEL_FAMILY", "qwen3vl")
    code, out, err = run_main(monkeypatch, capsys, "worker", "--broker",
                              "redis://127.0.0.1:9/0", "--devices", "browser:1")
    assert code == 4, out + err
    assert err == ("farm: error: invalid configuration:\n  setting 'assert_model_family' "
                   f"(env FARM_ASSERT_MODEL_FAMILY): {FAMILY_SAID}\n")


def test_check_models_refuses_an_unknown_family_that_skipped_the_settings_check(
        no_model_env):
    """model_copy(update=...) does not validate: the up-front check still says it."""
    settings = Settings(model="ollama/llava").model_copy(update={"model_family": "qwen3vl"})
    with pytest.raises(ConfigError) as raised:
        check_models(settings)
    assert str(raised.value) == f"FARM_MODEL_FAMILY=qwen3vl: {FAMILY_SAID}"


@pytest.mark.parametrize("flags, said", [
    (["--model-family", "qwen3-vl"], "--model-family needs a model"),
    (["--model-base-url", "http://127.0.0.1:1/v1", "--model-family", "gpt"],
     "--model-family and --model-base-url need a model"),
])
def test_a_model_option_without_a_model_is_a_usage_error(no_model_env, tmp_path, monkeypatch,
                                                         capsys, flags, said):
    """It ran as if the option were in effect: the ai steps were skipped, needing a model."""
    monkeypatch.delenv("FARM_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only", *flags)
    assert code == 4 and out == "", out + err
    assert f"Error: {said}: give --model too (or set FARM_MODEL)" in err
