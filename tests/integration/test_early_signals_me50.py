"""A CI cancel (SIGTERM) or a Ctrl-C that comes while the `farm` command still loads its
modules (about a second on a cold machine) stops `farm run` as one a moment later does: exit 2,
"farm: interrupted", and a --junit-xml file that says the run did not finish — not 143 with
the previous run's green junit.xml left for CI to publish, nor a Ctrl-C lost (a script's
background `farm run … &`, whose SIGINT is ignored) and the run going on to its end.

The signal is sent from inside the loading itself (when farm.cli first imports click), so the
test does not depend on timing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import builtins, os, signal, sys
sig = getattr(signal, sys.argv[1])
if sys.argv[2] == "ignored":
    signal.signal(sig, signal.SIG_IGN)
sys.argv = ["farm", *sys.argv[3:]]
real, fired = builtins.__import__, []
def hook(name, *a, **k):
    if name == "click" and not fired:
        fired.append(1)
        os.kill(os.getpid(), sig)
    return real(name, *a, **k)
builtins.__import__ = hook
from farm.entry import main
main()
"""
GREEN = '<testsuites tests="2" failures="0"><testsuite name="last night" tests="2"/></testsuites>'


@pytest.mark.parametrize("sig, disposition", [("SIGTERM", "default"), ("SIGINT", "ignored"),
                                              ("SIGINT", "default")])
def test_a_signal_while_farm_loads_stops_the_run_and_its_junit_says_so_me50(
        tmp_path, sig, disposition):
    junit = tmp_path / "junit.xml"
    junit.write_text(GREEN)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, sig, disposition, "run", str(ROOT / "suites" / "demo"),
         "--devices", "browser:1", "--junit-xml", str(junit), "--no-progress"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == "farm: interrupted"
    assert "Traceback" not in done.stderr and "never awaited" not in done.stderr
    text = junit.read_text()
    assert "last night" not in text and 'type="RunNotFinished"' in text
    assert "before any case started: no case ran" in text
