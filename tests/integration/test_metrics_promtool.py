"""`promtool check metrics` (Debian's prometheus package) on the metrics.prom of a real
`farm run`: demo cases on two browsers, one with the AI agent against the scripted model server,
one failing and retried, so every kind of series farm writes has samples. promtool lints what
Prometheus's own parser accepts: HELP on every metric, `_total` on counters alone, base units."""

from __future__ import annotations

import subprocess

import pytest

from tests.integration.test_metrics import SHOPPING, demo_suite, model_args
from tests.support.agent_scripts import by_progress
from tests.support.farm_cli import results
from tests.support.prometheus import PROMTOOL

pytestmark = pytest.mark.integration


def test_promtool_finds_nothing_to_lint_in_a_real_runs_metrics_prom(tmp_path, farm,
                                                                     model_server):
    srv = model_server(by_progress(SHOPPING))
    proc = farm.run("run", demo_suite(tmp_path), "--devices", "browser:2", "--no-progress",
                    "--retries", "1", "--report-dir", tmp_path / "run",
                    *model_args(srv.base_url), timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr        # wrong_text fails twice
    summary = results(tmp_path / "run")
    assert [len(c.get("previous", [])) for c in summary["cases"] if c["status"] == "failed"] \
        == [1]
    text = (tmp_path / "run" / "metrics.prom").read_text()
    assert "farm_model_tokens_total{" in text and "farm_agent_iterations_bucket{" in text
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
