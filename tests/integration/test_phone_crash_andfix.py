"""An app that crashes at a step's tap fails that step, saying it crashed and why (the
crash log's exception): the one-step case passed ("1 passed", the after-image showing the
launcher), and in a longer case the next step failed for it."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<p id="n">0</p><button onclick="n.textContent = +n.textContent + 1">Increment</button>
</body></html>"""


def _case(steps: list[str]) -> str:
    flow = "".join(f"      - {step}\n" for step in steps)
    return ("android:\n  launch: com.qa.counter\ntasks:\n  - name: count\n    flow:\n"
            + flow)


@pytest.fixture
def counter_phone(tmp_path):
    """One simulated Android phone with PAGE installed as com.qa.counter."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "counter-app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="counter", serve=app)])
        with AndroidSimulator(1, {"com.qa.counter": served.urls[app.resolve()] + "/"}) as sim:
            yield sim


@pytest.mark.parametrize("steps", [["aiTap: Increment"],
                                   ["aiTap: Increment", "aiAssert: the counter shows 1"]])
def test_the_step_whose_tap_crashed_the_app_fails(farm: FarmCli, counter_phone, steps):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "crash.yaml").write_text(_case(steps))
    counter_phone.fault(0, "crash", 1)          # the first tap kills the app
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(counter_phone.port))
    case = by_name(results(farm.tmp / "run"))["crash"]
    assert case["status"] == "failed", (case.get("error"), done.stdout)
    assert done.returncode == 1, done.stdout + done.stderr
    message = case["error"]["message"]
    assert "com.qa.counter is no longer running" in message, message
    assert "crashed at this step's input (tap)" in message, message
    assert "IllegalStateException: crashed at an input" in message, message
    failed = [s for s in case["steps"] if s["status"] == "failed"]
    assert [s["label"] for s in failed] == ['aiTap "Increment"'], case["steps"]
