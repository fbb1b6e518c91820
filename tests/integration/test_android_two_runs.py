"""Two `farm run --devices android:1` of one machine on one phone: the second says at once
which phone another run drives and that run's pid (exit 4), where both drove emulator-5554
together and each failed in its own confusing way ("is no longer running", "did not come to
the front"); a run killed with SIGKILL leaves its phone free for the next one.

The first run's case waits on screen for "Released", which the page shows once the test writes
flag.txt beside it: the run holds the phone exactly as long as the test needs."""

from __future__ import annotations

import signal

import pytest

from tests.support.farm_cli import FarmCli, by_name, kill_tree, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.gate"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Gate</title></head><body><h1>Gate</h1><p id="said">Held</p><script>
setInterval(async () => {
  const r = await fetch("flag.txt", {cache: "no-store"});
  if (r.ok) document.getElementById("said").textContent = await r.text();
}, 200);
</script></body></html>"""
WAITS = f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: hold the phone until released
    flow:
      - waitForText: Released
        timeout: 120000
"""
QUICK = f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: look
    flow:
      - assertText: Gate
"""


@pytest.fixture
def gate(tmp_path):
    """(simulator with one phone showing PAGE as PACKAGE, the app's folder)."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="gate", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim, app


def suites(farm: FarmCli) -> tuple:
    for name, text in (("waits", WAITS), ("quick", QUICK)):
        (farm.tmp / name).mkdir()
        (farm.tmp / name / f"{name}.yaml").write_text(text)
    return farm.tmp / "waits", farm.tmp / "quick"


def test_a_second_run_on_a_phone_another_run_drives_names_the_phone_and_the_run(farm, gate):
    sim, app = gate
    waits, quick = suites(farm)
    port = str(sim.port)
    first = farm.start("run", waits, "--devices", "android:1", "--report-dir",
                       farm.tmp / "r1", ANDROID_ADB_SERVER_PORT=port)
    first.wait_for_line("start waits/waits")
    second = farm.run("run", quick, "--devices", "android:1", "--report-dir", farm.tmp / "r2",
                      ANDROID_ADB_SERVER_PORT=port)
    assert second.returncode == 4, second.stdout + second.stderr
    assert second.stderr.endswith(
        f"--devices android:1: 0 of 1 android phone(s) free: emulator-5554 is driven by "
        f"another farm process on this machine (pid {first.pid}) (a phone runs one farm run's "
        "cases at a time: wait for that run to end)\n")
    (app / "flag.txt").write_text("Released")
    out = first.finish()
    assert first.returncode == 0, out
    assert by_name(results(farm.tmp / "r1"))["waits"]["status"] == "passed"


def test_a_killed_run_leaves_its_phone_free(farm, gate):
    sim, _app = gate
    waits, quick = suites(farm)
    port = str(sim.port)
    crashed = farm.start("run", waits, "--devices", "android:1", "--report-dir",
                         farm.tmp / "r1", ANDROID_ADB_SERVER_PORT=port)
    crashed.wait_for_line("start waits/waits")
    kill_tree(crashed.popen, signal.SIGKILL)
    after = farm.run("run", quick, "--devices", "android:1", "--report-dir", farm.tmp / "r2",
                     ANDROID_ADB_SERVER_PORT=port)
    assert after.returncode == 0, after.stdout + after.stderr
    assert by_name(results(farm.tmp / "r2"))["quick"]["status"] == "passed"
