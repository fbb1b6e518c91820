"""farm_build_info{version="0.1.0"} was the same for a days-old checkout as for today's: the
version now carries the checkout's commit (read from .git, no git process), as a local version."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

import farm
from farm import metrics

pytestmark = pytest.mark.integration

ROOT = Path(farm.__file__).resolve().parent.parent


def _head() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("farm does not run from a git checkout here")


def test_build_info_names_the_commit_of_the_checkout_farm_runs_from():
    head = _head()
    metrics.build_info("worker")
    from prometheus_client import generate_latest
    text = generate_latest(metrics.REGISTRY).decode()
    info = next(s for f in text_string_to_metric_families(text) for s in f.samples
                if s.name == "farm_build_info")
    modified = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"]).returncode
    dirty = ".dirty" if modified else ""        # (a checkout with uncommitted changes says so)
    assert info.labels["version"] == f"{farm.__version__}+{head[:12]}{dirty}"
    assert info.labels["role"] == "worker"
