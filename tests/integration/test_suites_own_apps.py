"""Several suites in one run, each serving its own app under the same URL variable (the way
every team writes `apps: {site: {serve: app, env: APP_URL}}`): each suite's cases open their
own app. The run used to give the variable one value, the last app's: alpha's case checked
beta's pages, and a suite that took APP_URL from its vars: or the environment got beta's."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results

pytestmark = pytest.mark.integration

CASE = """\
name: {name}
web:
  url: ${{APP_URL}}/index.html
tasks:
  - name: look
    flow:
      - assertText: I am {name}
{others}"""


def _suite(root: Path, name: str, others: list[str], farm_yaml: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "farm.yaml").write_text(farm_yaml)
    (root / "check.yaml").write_text(CASE.format(name=name, others="".join(
        f"      - assertNoText: I am {other}\n" for other in others)))


def _page(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(f"<h1>I am {name}</h1>")
    return folder


SERVING = "apps:\n  site:\n    serve: app\n    env: APP_URL\n"


def _serving_suites(root: Path) -> None:
    """alpha and beta, each serving its own app under APP_URL."""
    for name in ("alpha", "beta"):
        _page(root / name / "app", name)
        _suite(root / name, name, [n for n in ("alpha", "beta") if n != name], SERVING)


def test_each_suite_opens_its_own_app(tmp_path, monkeypatch):
    _serving_suites(tmp_path)
    # gamma gives APP_URL in its vars:, delta takes it from the environment
    gamma = _page(tmp_path / "pages" / "gamma", "gamma").as_uri()
    _suite(tmp_path / "gamma", "gamma", ["alpha", "beta", "delta"],
           f"vars:\n  APP_URL: {gamma}\n")
    monkeypatch.setenv("APP_URL", _page(tmp_path / "pages" / "delta", "delta").as_uri())
    _suite(tmp_path / "delta", "delta", ["alpha", "beta", "gamma"], "timeout: 60\n")
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([tmp_path / n for n in ("alpha", "beta", "delta")], "browser:1", settings,
               progress=False, out=out)
    cases = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert {c["case_id"]: c["status"] for c in cases} == {
        "alpha/check": "passed", "beta/check": "passed", "delta/check": "passed"}, out.getvalue()
    assert code == 0
    # a suite's vars: value wins over the environment's, and another suite's app never does
    monkeypatch.delenv("APP_URL")
    code = run([tmp_path / n for n in ("beta", "gamma")], "browser:1", load_settings(
        report_dir=tmp_path / "run2", state_dir=tmp_path / "state"), progress=False, out=out)
    assert code == 0, out.getvalue()


def test_each_suite_opens_its_own_app_on_cluster_workers(tmp_path, redis_url, workers, farm):
    """The URL a worker is sent with a case is its own suite's app's."""
    _serving_suites(tmp_path)
    workers("browser:1")
    wait_idle(redis_url, 1)
    proc = farm.start("run", tmp_path / "alpha", tmp_path / "beta", "--broker", redis_url,
                      "--report-dir", tmp_path / "run", "--devices", "browser:1",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    out = proc.finish(300)
    assert proc.returncode == 0, out
    assert {c["case_id"]: c["status"] for c in results(tmp_path / "run")["cases"]} == {
        "alpha/check": "passed", "beta/check": "passed"}
