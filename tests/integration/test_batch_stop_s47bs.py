"""A Midscene batch file's ``continueOnError: false`` (the default) stops the batch's own
files, not the run: `farm run` in real Chromium of a suite with a batch (no
``shareBrowserContext``) in a subfolder beside other cases, on one browser, once on the local
executor and once on a real `farm worker` (the cluster executor). The batch's first file fails
first (a ``concurrent: 1`` batch's files go before the other cases, in order); its second file
then ends skipped, "not run: one.yaml failed (the batch has continueOnError: false)", and the
other cases still run. Before, the batch made the whole run --maxfail 1: every other case
ended "not run: --maxfail 1 reached"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import FarmCli, results

CASE = """name: {name}
web:
  url: "data:text/html,<h1>Shop</h1>"
tasks:
  - name: look
    flow:
      - assertText: {text}
"""


def _suite(root: Path, keep_going: bool = False) -> Path:
    suite = root / "suite"
    (suite / "sub").mkdir(parents=True)
    for name, text in (("a_bad", "Absent words"), ("b_ok", "Shop"), ("c_ok", "Shop")):
        (suite / f"{name}.yaml").write_text(CASE.format(name=name, text=text))
    for name, text in (("one", "Absent words"), ("two", "Shop"), ("three", "Shop")):
        (suite / "sub" / f"{name}.yaml").write_text(CASE.format(name=name, text=text))
    (suite / "sub" / "batch.yaml").write_text(
        "files:\n  - one.yaml\n  - two.yaml\n  - three.yaml\nconcurrent: 1\n"
        + ("continueOnError: true\n" if keep_going else ""))
    return suite


def _statuses(run: Path) -> dict[str, tuple[str, str | None]]:
    return {c["case_id"]: (c["status"], c.get("reason")) for c in results(run)["cases"]}


@pytest.fixture(params=["local", pytest.param("cluster", marks=pytest.mark.cluster)])
def where(request, farm: FarmCli, workers, redis_url: str) -> list[str]:
    """The `farm run` arguments of one executor: one browser here, or a real `farm worker`
    with one browser."""
    if request.param == "local":
        return []
    workers("browser:1")
    wait_idle(redis_url, 1)
    return ["--broker", redis_url]


def test_a_failed_file_stops_only_its_batch_s_files(farm: FarmCli, where: list[str],
                                                    tmp_path: Path):
    suite = _suite(tmp_path)
    done = farm.run("run", suite, "--devices", "browser:1", *where, "--report-dir",
                    tmp_path / "r", **CLUSTER_ENV)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "--maxfail" not in said, said
    assert ("/suite/sub/batch.yaml: concurrent 1: its files one at a time, in its order, "
            "continueOnError false: none of its files starts after one of them failed (the "
            "run's other cases go on)") in said, said
    why = "not run: one.yaml failed (the batch has continueOnError: false)"
    assert _statuses(tmp_path / "r") == {
        "suite/sub/one": ("failed", None), "suite/sub/two": ("skipped", why),
        "suite/sub/three": ("skipped", why), "suite/a_bad": ("failed", None),
        "suite/b_ok": ("passed", None), "suite/c_ok": ("passed", None)}, said


def test_a_batch_with_continue_on_error_runs_every_file(farm: FarmCli, where: list[str],
                                                       tmp_path: Path):
    suite = _suite(tmp_path, keep_going=True)
    done = farm.run("run", suite, "--devices", "browser:1", *where, "--report-dir",
                    tmp_path / "r", **CLUSTER_ENV)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "continueOnError false" not in said, said
    assert _statuses(tmp_path / "r") == {
        "suite/sub/one": ("failed", None), "suite/sub/two": ("passed", None),
        "suite/sub/three": ("passed", None), "suite/a_bad": ("failed", None),
        "suite/b_ok": ("passed", None), "suite/c_ok": ("passed", None)}, said
