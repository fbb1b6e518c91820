"""What a fresh interpreter pays to start farm: heavy libraries stay out until they are needed.

Issue 14: farm's own CPU in `farm run` is compared with plain Playwright's, and importing farm's
~600 modules was a third of it. A browser run of zero-token steps must not import what only
other runs use (cluster, phones, the ai_act loop and model clients, a second settings library)
nor let pydantic scan every installed distribution for plugins.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.farm_cli import ROOT, FarmCli


@pytest.mark.parametrize("module, heavy", [
    ("farm.devices.chromium", "playwright"),
    ("farm.cli", "litellm"),
    ("farm.session", "litellm"),
])
def test_import_does_not_pull_in_heavy_libraries(module: str, heavy: str) -> None:
    code = f"import sys, {module}; print({heavy!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", f"importing {module} imports {heavy}"


# `farm run` in a child that, at exit, writes down every module it imported and whether
# pydantic loaded its plugins (None: it never scanned the installed distributions for them).
CHILD = r"""
import atexit, json, sys
where = sys.argv[1]
def dump():
    loader = sys.modules.get("pydantic.plugin._loader")
    with open(where, "w") as f:
        json.dump({"modules": sorted(sys.modules),
                   "plugins_scanned": getattr(loader, "_plugins", None) is not None}, f)
atexit.register(dump)
sys.argv = ["farm", *sys.argv[2:]]
from farm.cli import main
main()
"""

# Modules a browser run of zero-token steps has no use for (each was imported by one once, or
# sits one import away from the run's path).
NOT_FOR_A_BROWSER_RUN = [
    "litellm", "openai", "celery", "kombu", "redis", "adbutils",   # models, cluster, phones
    "pydantic_settings", "dotenv",          # farm.config reads its sources itself
    "junitparser", "xml.dom.minidom",       # junit.xml is written as text (no dependency)
    "farm.report.allure",                   # --alluredir only
    "farm.cluster", "farm.executors.celery", "farm.cache.redis_store",
    "farm.devices.android", "farm.devices.ios", "farm.devices.sim", "farm.devices.sim.screen",
    "farm.devices.sim.adb", "farm.devices.sim.wda",                  # simulators: *-sim runs
    "farm.agent.loop", "farm.agent.insight", "farm.cache.plan",      # the ai_act loop, aiAssert
    "farm.agent.phone_actions",                     # adb shell, WDA requests, Home, Back...
    "farm.llm",             # the model clients, and the plan readers (their reply models)
]


def test_a_browser_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    farm = FarmCli(tmp_path)
    out = tmp_path / "imported.json"
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(out), "run",
             str(ROOT / "suites" / "demo" / "login_success.yaml"), "--devices", "browser:1",
             "--report-dir", str(tmp_path / "report"), "--no-progress"],
            cwd=ROOT, env=farm.env(), capture_output=True, text=True, timeout=240)
    finally:
        farm.close()
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(out.read_text())
    modules = set(seen["modules"])
    assert "farm.devices.browser" in modules        # the check ran where a case had run
    unneeded = [m for m in NOT_FOR_A_BROWSER_RUN
                if m in modules or any(n.startswith(m + ".") for n in modules)]
    assert not unneeded, f"a browser run of zero-token steps imported {unneeded}"
    assert not seen["plugins_scanned"], "pydantic scanned the installed distributions for plugins"
