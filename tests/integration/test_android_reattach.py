"""A phone that goes offline for a moment (a cable replugged, adbd restarting: adb lists it
"offline" for a few seconds) is waited for when farm reopens it, as ``adb wait-for-device``
waits, instead of being written off for the rest of the run after one look.

The simulator's ``offline`` fault lists the phone as offline and refuses it for COUNT requests.
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""


@pytest.fixture
def simulator(tmp_path):
    """One simulated phone (adb server in this process) with PAGE installed as PACKAGE."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def test_reopening_a_phone_waits_while_adb_lists_it_offline(simulator):
    from farm.devices.android import AndroidDevice

    phone = AndroidDevice("a1", None, simulator.serials[0], port=simulator.port)
    phone.open()
    simulator.fault(0, "offline", 3)           # three answers "offline", then back
    phone.open()
    assert phone.shell("echo back").strip() == "back"


def test_a_phone_that_glitched_between_cases_runs_the_next_one(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    # a_ runs first (same expected duration: ordered by case id); its last step takes the
    # phone offline for a few requests, as a replugged cable does
    (suite / "a_glitch.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: use the phone, then lose it for a moment
    flow:
      - aiTap: New note
      - runAdbShell: farm-sim fault offline 5
""")
    (suite / "b_after.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: the next case
    flow:
      - aiTap: New note
""")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(simulator.port))
    summary = results(farm.tmp / "run")
    cases = by_name(summary)
    assert cases["b_after"]["status"] == "passed", (cases["b_after"].get("error"), done.stdout)
    assert cases["a_glitch"]["status"] == "passed", (cases["a_glitch"].get("error"), done.stdout)
    assert "restarting" in done.stdout + done.stderr          # the glitch was seen
    assert not summary.get("lost"), summary.get("lost")
    assert done.returncode == 0, done.stdout + done.stderr
