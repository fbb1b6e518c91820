"""What a cluster task carries through Redis (farm/cluster/jobs.py): only the variables its
case needs."""

from __future__ import annotations

from pathlib import Path

from farm.cluster.jobs import payload
from farm.schedule import Job
from farm.suite.loader import load_suites

DEMO = Path(__file__).resolve().parents[2] / "suites" / "demo"
SERVED = "http://127.0.0.1:43123"


def demo_case(name: str):
    cases = {c.id.split("/", 1)[1]: c for s in load_suites([DEMO]) for c in s.cases}
    return cases[name]


def client_env() -> dict[str, str]:
    return {"FARM_DEMO_URL": SERVED,                     # apps.shop.env, served by the run
            "DEMO_PASSWORD": "from-the-env",              # a secret the suite declares
            "UNRELATED_TOKEN": "tok",
            "FARM_PUSHGATEWAY_URL": "http://u:pgw-pw@pgw:9091",
            "FARM_CACHE_URL": "redis://:cache-pw@cache:6379/1",
            "FARM_RESULTS_HISTORY_URL": "redis://:hist-pw@hist:6379/2",
            "FARM_MODEL_BASE_URL": "https://u:model-pw@model.example/v1",
            "FARM_BROKER_URL": "redis://:broker-pw@redis:6379/0"}


def sent_env(name: str) -> dict[str, str]:
    case = demo_case(name)
    job = Job(case_id=case.id, platform=case.platform, expected_seconds=1.0)
    data = payload("run1", job, case, client_env(), {DEMO / "app": SERVED})
    return data["env"]


def test_a_task_carries_the_served_app_url_and_the_variables_its_case_uses_only():
    env = sent_env("login_success")              # ${FARM_DEMO_URL}, ${DEMO_PASSWORD}
    assert env == {"FARM_DEMO_URL": SERVED, "DEMO_PASSWORD": "from-the-env"}


def test_settings_urls_with_passwords_never_travel():
    for name in ("login_success", "mobile/android_login"):
        env = sent_env(name)
        assert env["FARM_DEMO_URL"] == SERVED       # a model's output may use it
        for setting in ("FARM_PUSHGATEWAY_URL", "FARM_CACHE_URL", "FARM_RESULTS_HISTORY_URL",
                        "FARM_MODEL_BASE_URL", "FARM_BROKER_URL", "UNRELATED_TOKEN"):
            assert setting not in env, (name, env)
        assert not any("-pw@" in v for v in env.values()), env
