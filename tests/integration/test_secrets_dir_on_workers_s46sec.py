"""A cluster run whose case takes ``${LOGIN_PHRASE}`` (a name that marks no credential) from
the run's FARM_SECRETS_DIR (the workers have none): the case ended as "internal error:
undefined variable ${LOGIN_PHRASE}" and each worker logged a traceback. The secrets-dir values a case refers to now travel with
its task, as its environment variables do, and are secrets on the worker too: typed into the
page, and hidden in the worker's log and the run's outputs. Real worker, real Chromium."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import results, wait_for
from tests.support.suites import demo_copy

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

SECRET = "s46-dir-secret"

CASE = """\
name: a password from the run's secrets dir
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: type it
    flow:
      - aiInput: Username
        value: ${LOGIN_PHRASE}
      - javascript: "alert('pw ' + document.querySelector('#username').value); 1"
      - javascript: >-
          document.body.insertAdjacentHTML('beforeend', '<p>typed back: '
          + document.querySelector('#username').value + '</p>'); 1
  - name: check
    flow:
      - assertText: "typed back: s46-dir-secreX"
"""


def ended(logs: str) -> str | None:
    return logs if "shop/fromdir attempt 1: failed" in logs else None


def test_a_secrets_dir_value_travels_to_the_worker_as_a_secret(tmp_path, chromium, redis_url,
                                                              workers, farm):
    suite = demo_copy(tmp_path / "shop")
    (suite / "fromdir.yaml").write_text(CASE)
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "LOGIN_PHRASE").write_text(SECRET + "\n")
    workers("browser:1", "--loglevel", "INFO")
    wait_idle(redis_url, 1)
    proc = farm.start("run", suite / "fromdir.yaml", "--broker", redis_url, "--report-dir",
                      tmp_path / "run", FARM_SECRETS_DIR=str(secrets), **CLUSTER_ENV)
    out = proc.finish()
    assert proc.returncode == 1, out            # failed on the check, not an error
    case = results(tmp_path / "run")["cases"][0]
    assert case["status"] == "failed", case
    assert 'the closest text on it is "typed back: ***"' in out, out   # typed: it arrived
    logs = wait_for(lambda: ended(farm.worker_logs()), 60, "the worker logging the case's end")
    assert 'opened an alert dialog "pw ***" and farm answered OK' in logs, logs
    assert "undefined variable" not in logs + out and "Traceback" not in logs, logs
    assert SECRET not in logs and SECRET not in out
