"""Midscene's ``shareBrowserContext: true`` with the demo shop: the batch's first file signs in
(the shop keeps the user in localStorage) and leaves a mark in sessionStorage; the second opens
a page behind the login and passes only when it runs in the same browser context. Without
sharing, the second file meets the login page and fails."""

from __future__ import annotations

from pathlib import Path

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results

SIGN_IN = """\
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: sign in
    flow:
      - aiInput: Username
        value: demo
      - aiInput: Password
        value: farm-demo-pass
      - aiTap: Sign in
      - waitForText: Welcome back, demo
        timeout: 10000
      - javascript: "sessionStorage.setItem('tab', 'kept'); 'ok'"
"""
CART = """\
web:
  url: ${FARM_DEMO_URL}/cart.html
  viewportWidth: 900
tasks:
  - name: the cart needs the session
    flow:
      - assertText: Your cart
      - assertText: Welcome back, demo
      - javascript: |
          if (sessionStorage.getItem('tab') !== 'kept') throw new Error('sessionStorage lost');
          return innerWidth;
        name: width
"""


def _batch(folder: Path, share: bool) -> Path:
    folder.mkdir()
    (folder / "a_cart.yaml").write_text(CART)        # listed second, sorted first: order is
    (folder / "b_sign_in.yaml").write_text(SIGN_IN)  # the batch's, not the file names'
    (folder / "index.yaml").write_text(
        f"concurrent: 2\ncontinueOnError: true\nshareBrowserContext: {str(share).lower()}\n"
        "files:\n  - b_sign_in.yaml\n  - a_cart.yaml\n")
    return folder


def test_shared_context_carries_the_sign_in_to_the_next_file(farm: FarmCli, demo_app: str,
                                                             tmp_path: Path) -> None:
    shared = _batch(tmp_path / "shared", share=True)
    listed = farm.run("run", shared, "--collect-only", FARM_DEMO_URL=demo_app)
    assert listed.returncode == 0, listed.stderr
    assert "shareBrowserContext: its 2 web file(s) run as one unit (shared/index): on one " \
           "device, in order, in one browser context" in listed.stderr
    assert "shared/a_cart  [web]  a_cart  " in listed.stdout and "[one unit: shared/index 2]" \
        in listed.stdout
    assert listed.stdout.index("shared/b_sign_in  ") < listed.stdout.index("shared/a_cart  ")

    done = farm.run("run", shared, "--devices", "browser:2", "--report-dir", tmp_path / "r1",
                    FARM_DEMO_URL=demo_app)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r1")["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {
        "shared/b_sign_in": "passed", "shared/a_cart": "passed"}
    assert cases["shared/a_cart"]["device"] == cases["shared/b_sign_in"]["device"]
    assert cases["shared/a_cart"]["data"]["width"] == 900    # the file's own viewport
    assert cases["shared/b_sign_in"]["started"] < cases["shared/a_cart"]["started"]

    alone = _batch(tmp_path / "alone", share=False)
    done = farm.run("run", alone, "--devices", "browser:2", "--report-dir", tmp_path / "r2",
                    FARM_DEMO_URL=demo_app)
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r2")["cases"]}
    assert cases["alone/b_sign_in"]["status"] == "passed"
    assert cases["alone/a_cart"]["status"] == "failed"
    assert "Your cart" in cases["alone/a_cart"]["error"]["message"]


def test_a_failed_setup_file_stops_the_shared_batch(farm: FarmCli, demo_app: str,
                                                    tmp_path: Path) -> None:
    """Midscene's ``setup:``: run first in the shared context; when it fails, no other file
    runs (whatever continueOnError says)."""
    folder = _batch(tmp_path / "setup", share=True)
    (folder / "login.yaml").write_text(SIGN_IN.replace("Welcome back, demo", "No such text")
                                       .replace("10000", "1000"))
    (folder / "index.yaml").write_text(
        "continueOnError: true\nshareBrowserContext: true\nsetup: login.yaml\n"
        "files:\n  - b_sign_in.yaml\n  - a_cart.yaml\n")
    done = farm.run("run", folder, "--devices", "browser:1", "--report-dir", tmp_path / "r",
                    FARM_DEMO_URL=demo_app)
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    assert cases["setup/login"]["status"] == "failed"
    for name in ("setup/b_sign_in", "setup/a_cart"):
        assert cases[name]["status"] == "skipped"
        assert cases[name]["reason"] == "not run: the batch's setup file login.yaml failed"


def test_a_shared_unit_runs_the_same_on_farm_workers(farm: FarmCli, demo_app: str,
                                                     tmp_path: Path, redis_url: str,
                                                     workers) -> None:
    """The unit travels to a `farm worker` as one job (its files inside) and comes back as one
    result per file."""
    shared = _batch(tmp_path / "shared", share=True)
    workers("browser:2")
    wait_idle(redis_url, 2)
    done = farm.run("run", shared, "--broker", redis_url, "--devices", "browser:2",
                    "--report-dir", tmp_path / "r", FARM_DEMO_URL=demo_app,
                    FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {
        "shared/b_sign_in": "passed", "shared/a_cart": "passed"}
    assert cases["shared/a_cart"]["device"] == cases["shared/b_sign_in"]["device"]
