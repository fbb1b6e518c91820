"""A cluster run whose cases take secrets only the workers have (their own FARM_SECRETS_DIR,
as README's cluster section offers): `farm run --broker` refused the suite at load
("undefined variable ${SHOP_TOKEN}", exit 4, no run). A ``${NAME}`` the run cannot resolve is
now left to the worker when it is a secret — named in ``secrets:`` (SHOP_PHRASE) or named as a
credential (SHOP_TOKEN) —: the worker types its own values (the case's check of them passes),
masked in its log and in what it sends back; one no worker has either (NOBODY_TOKEN) fails its own case as a configuration
error naming it and its file:line, while the other cases run. Real Redis, a real `farm
worker` process, real headless Chromium."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import results, wait_for
from tests.support.suites import demo_copy

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PHRASE = "s47ws-phrase-value"
TOKEN = "s47ws-token-value"

TYPED = """\
name: secrets the worker holds
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: type them
    flow:
      - aiInput: Username
        value: ${SHOP_PHRASE}
      - aiInput: Password
        value: ${SHOP_TOKEN}
      - javascript: "alert('pw ' + document.querySelector('#password').value); 1"
      - javascript: >-
          document.body.insertAdjacentHTML('beforeend', '<p>typed back: '
          + document.querySelector('#username').value + ' / '
          + document.querySelector('#password').value + '</p>'); 1
  - name: check
    flow:
      - assertText: "typed back: ${SHOP_PHRASE} / ${SHOP_TOKEN}"
"""

NOBODY = """\
name: a secret no one has
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: type it
    flow:
      - aiInput: Password
        value: ${NOBODY_TOKEN}
"""

PLAIN = """\
name: no secret
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: look
    flow:
      - assertText: Sign in
"""


def ended(logs: str) -> str | None:
    return logs if "shop/typed attempt 1: passed" in logs else None


def test_secrets_only_the_workers_hold(tmp_path, chromium, redis_url, workers, farm):
    suite = demo_copy(tmp_path / "shop")
    settings = suite / "farm.yaml"
    settings.write_text(settings.read_text().replace("secrets: [DEMO_PASSWORD]",
                                                     "secrets: [DEMO_PASSWORD, SHOP_PHRASE]"))
    for name, text in (("typed", TYPED), ("nobody", NOBODY), ("plain", PLAIN)):
        (suite / f"{name}.yaml").write_text(text)
    secrets = tmp_path / "worker-secrets"
    secrets.mkdir()
    (secrets / "SHOP_PHRASE").write_text(PHRASE + "\n")
    (secrets / "SHOP_TOKEN").write_text(TOKEN + "\n")
    workers("browser:1", "--loglevel", "INFO", FARM_SECRETS_DIR=str(secrets))
    wait_idle(redis_url, 1)
    proc = farm.start("run", suite / "typed.yaml", suite / "nobody.yaml", suite / "plain.yaml",
                      "--broker", redis_url, "--report-dir", tmp_path / "run", **CLUSTER_ENV)
    out = proc.finish()
    assert "undefined variable ${SHOP_TOKEN}" not in out, out     # not refused at load
    cases = {c["case_id"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["shop/plain"]["status"] == "passed", cases["shop/plain"]
    typed = cases["shop/typed"]
    assert typed["status"] == "passed", typed      # the worker's values typed, and checked
    nobody = cases["shop/nobody"]
    assert nobody["status"] == "error", nobody
    message = nobody["error"]["message"]
    assert "undefined variable ${NOBODY_TOKEN}" in message, message
    assert "nobody.yaml:7" in message, message
    assert "workers' FARM_SECRETS_DIR" in message, message       # where a worker reads one
    assert proc.returncode != 4, out           # the run ran: one case's error, not the run's
    logs = wait_for(lambda: ended(farm.worker_logs()), 60, "the worker logging the case's end")
    shown = out + logs + "".join(p.read_text(errors="replace")
                                 for p in (tmp_path / "run").rglob("*")
                                 if p.is_file() and p.suffix in (".json", ".xml", ".html",
                                                                 ".log", ".txt"))
    assert PHRASE not in shown and TOKEN not in shown
    assert 'opened an alert dialog "pw ***" and farm answered OK' in logs, logs
    assert "Traceback" not in logs, logs
