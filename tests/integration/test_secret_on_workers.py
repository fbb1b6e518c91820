"""A `farm worker` is sent its case's secrets, and what it logs on its own host (its stderr, a
container's log) hides them, as `farm run`'s farm.log does: a real worker whose Chromium page
shows a typed password in an alert (a WARNING line), in an error its scripts throw (INFO) and in
the text a failed check quotes, as typed and upper-cased."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import ROOT, wait_for
from tests.support.suites import demo_copy

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

SECRET = "farm-demo-pass"       # suites/demo/farm.yaml: DEMO_PASSWORD, in its `secrets:`

CASE = """\
name: a typed password shown back by the page
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: type it
    flow:
      - aiInput: Username
        value: ${DEMO_PASSWORD}
      - javascript: "alert('pw ' + document.querySelector('#username').value); 1"
      - javascript: >-
          setTimeout(() => { const typed = document.querySelector('#username').value;
          document.body.insertAdjacentHTML('beforeend', '<p>typed back: ' + typed + '</p>');
          throw new Error('thrown ' + typed.toUpperCase()) }); 1
      - waitForText: "typed back:"
  - name: check
    flow:
      - assertText: "typed back: farm-demo-pasz"
"""


def ended(logs: str) -> str | None:
    """The worker's output once it has said how the attempt ended (its last line of it)."""
    return logs if "shop/shown attempt 1: failed" in logs else None


def test_a_workers_log_masks_the_secrets_of_its_cases(tmp_path, chromium, redis_url, workers,
                                                     farm):
    suite = demo_copy(tmp_path / "shop")
    (suite / "shown.yaml").write_text(CASE)
    workers("browser:1", "--loglevel", "INFO")
    wait_idle(redis_url, 1)
    proc = farm.start("run", suite / "shown.yaml", "--broker", redis_url, "--report-dir",
                      tmp_path / "run", **CLUSTER_ENV)
    out = proc.finish()
    assert proc.returncode == 1, out
    assert 'the closest text on it is "typed back: ***"' in out, out     # (the run's: masked)
    logs = wait_for(lambda: ended(farm.worker_logs()), 60, "the worker logging the case's end")
    # the lines are there, the password in them hidden, as typed and upper-cased
    assert 'opened an alert dialog "pw ***" and farm answered OK' in logs, logs
    assert "the page threw an uncaught Error: thrown ***" in logs, logs
    assert SECRET not in logs.lower(), logs


SCRIPT = """
import logging
logging.basicConfig(format="%(name)s %(message)s")
from farm.suite.vars import Variables
from worker.log_mask import SECRETS, mask_logging
mask_logging()
log = logging.getLogger("farm.slot")
SECRETS.learn(Variables({"SHOP_PASSWORD": "Qx7-secret-Rm2", "USER": "ann"}))  # (by its name)
SECRETS.learn(Variables({"PIN": "4711-pin-2"}, secrets=["PIN"]))              # a later case
try:
    raise RuntimeError("the page said QX7-SECRET-RM2 and 4711-pin-2")
except RuntimeError:
    log.exception("run_case failed for %s", "Qx7-secret-Rm2 (ann)")
"""


def test_a_worker_s_log_lines_and_tracebacks_hide_its_cases_secrets():
    """Every line, a traceback's text included (a crash quoting a page, a driver's error), in
    the casings a page can give a secret, and still after its case (the next case's page may
    show it): in a process of its own, as a worker's logging is set up."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    err = done.stderr
    assert done.returncode == 0, err
    assert "run_case failed for *** (ann)" in err, err
    assert "RuntimeError: the page said *** and ***" in err, err
    assert "Traceback" in err and "qx7-secret-rm2" not in err.lower(), err
    assert "4711-pin-2" not in err, err
