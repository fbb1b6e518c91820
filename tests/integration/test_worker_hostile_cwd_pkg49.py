"""`farm worker` from a folder holding a `worker.py` (or a `farm.py`): it exec'd `python -m
worker`, and its device processes `python -m worker.main`, and `-m` put the working directory
first on sys.path: the user's worker.py ran instead (printing, exit 7), or farm.py shadowed
farm ("'farm' is not a package"). The children run as `python -P -m`: farm's worker starts."""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, FarmProcess, kill_tree

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

HOSTILE = 'print("MINE_pkg49", flush=True)\nimport sys\nsys.exit(7)\n'


@pytest.mark.parametrize("script", ["worker.py", "farm.py", "both"])
def test_a_worker_started_beside_a_worker_py_or_farm_py_runs_farms_worker_pkg49(
        tmp_path: Path, redis_url: str, script: str) -> None:
    here = tmp_path / "w"
    here.mkdir()
    for name in (["worker.py", "farm.py"] if script == "both" else [script]):
        (here / name).write_text(HOSTILE)
    farm = Path(sys.executable).parent / "farm"     # the installed command, as a user runs it
    env = FarmCli(tmp_path).env(FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    popen = subprocess.Popen([str(farm), "worker", "--broker", redis_url, "--devices",
                              "fake:1", "--metrics-port", "0"], cwd=here, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    proc = FarmProcess(popen)
    try:
        proc.wait_for_line(" ready (queues ", timeout=120)   # farm's device process said so
        proc.send_signal(signal.SIGTERM)
        out = proc.finish(timeout=120)
    finally:
        kill_tree(popen)
    assert "MINE_pkg49" not in out and "Traceback" not in out, out
    assert popen.returncode == 0, out


def _bare_m_spawns(path: Path) -> list[str]:
    """`[sys.executable, "-m", ...]` lists (a child without -P) in the module at ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.List) and len(node.elts) >= 2 and \
                ast.unparse(node.elts[0]) == "sys.executable" and \
                isinstance(node.elts[1], ast.Constant) and node.elts[1].value in ("-m", "-c"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_module_of_farm_or_worker_starts_python_without_dash_p_pkg49() -> None:
    found = [hit for package in ("farm", "worker") for path in (ROOT / package).rglob("*.py")
             for hit in _bare_m_spawns(path)]
    assert not found, "start Python children with farm.python_child.python_m:\n" + \
        "\n".join(found)
