"""The cluster rule for a ``${NAME}`` a `farm run --broker` cannot resolve (left to the
worker when it is a secret, never a FARM_* name), a worker's own FARM_* settings kept out of a
case's variables, and Celery's "Cannot connect to redis://:**@…" lines kept off the
terminal at the default log level."""

from __future__ import annotations

import logging

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from farm.suite.vars import cluster_load, from_workers
from worker import main, runtime

CASE = """\
name: t
secrets: [SHOP_PHRASE]
web:
  url: http://127.0.0.1/
tasks:
  - name: a
    flow:
      - aiInput: Username
        value: ${%s}
"""


def test_only_a_secret_is_left_to_the_workers_and_only_in_a_cluster_run():
    assert not from_workers("SHOP_TOKEN", [])             # a local run: the run defines all
    with cluster_load():
        assert from_workers("SHOP_PHRASE", ["SHOP_PHRASE"])    # named in secrets:
        assert from_workers("SHOP_TOKEN", [])                  # named as a credential
        assert not from_workers("BASE_HOST", [])               # no secret: the run's
        assert not from_workers("FARM_MODEL_API_KEY", ["FARM_MODEL_API_KEY"])
    assert not from_workers("SHOP_TOKEN", [])


@pytest.mark.parametrize("name,ok", [("SHOP_PHRASE", True), ("SHOP_TOKEN", True),
                                     ("BASE_HOST", False)])
def test_a_cluster_run_loads_a_case_whose_secret_only_workers_have(tmp_path, name, ok):
    (tmp_path / "c.yaml").write_text(CASE % name)
    with pytest.raises(SuiteErrors):          # a local run: undefined, at its file:line
        load_suites([tmp_path], env={}, dotenv=None)
    with cluster_load():
        if ok:
            assert load_suites([tmp_path], env={}, dotenv=None)[0].cases
            return
        with pytest.raises(SuiteErrors) as caught:
            load_suites([tmp_path], env={}, dotenv=None)
    said = str(caught.value)
    assert "c.yaml:9:16: undefined variable ${BASE_HOST}" in said, said
    assert "workers' FARM_SECRETS_DIR" in said, said


def test_a_worker_s_farm_settings_are_no_case_s_variables(monkeypatch):
    monkeypatch.setenv("FARM_BROKER_URL", "redis://:pw@host/0")
    monkeypatch.setenv("SHOP_TOKEN", "from-the-worker")
    own = runtime.own_env()
    assert "FARM_BROKER_URL" not in own and own["SHOP_TOKEN"] == "from-the-worker"


def test_celery_s_cannot_connect_lines_are_not_shown_at_the_default_level():
    retry = logging.LogRecord(
        "celery.worker.consumer.consumer", logging.ERROR, __file__, 1,
        "consumer: Cannot connect to %s: %s.\n%s",
        ("redis://:**@127.0.0.1:48285/0", "Error 111 connecting", "Trying again in 2.00 "
         "seconds... (1/None)"), None)
    other = logging.LogRecord("celery.worker.consumer.consumer", logging.ERROR, __file__, 1,
                              "consumer: something else", (), None)
    assert main._broker_lost_unsaid(retry) is False
    assert main._broker_lost_unsaid(other) is True


def test_a_suite_s_vars_made_of_a_secret_only_workers_have(tmp_path):
    (tmp_path / "farm.yaml").write_text('secrets: [SHOP_PHRASE]\nvars:\n  AUTH: "x-${SHOP_PHRASE}"\n')
    (tmp_path / "c.yaml").write_text(CASE.replace("secrets: [SHOP_PHRASE]\n", "") % "AUTH")
    with pytest.raises(SuiteErrors):
        load_suites([tmp_path], env={}, dotenv=None)
    with cluster_load():
        case = load_suites([tmp_path], env={}, dotenv=None)[0].cases[0]
    assert case.vars["AUTH"] == "x-${SHOP_PHRASE}" and "SHOP_PHRASE" in case.secrets
