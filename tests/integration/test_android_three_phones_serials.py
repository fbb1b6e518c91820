"""The journey of an Android tester with three phones (`farm sim android`, emulator-5554,
-5556, -5558) while another farm run holds emulator-5556:

- `farm devices` marks emulator-5556 as held by that run's pid (it listed all three as usable);
- `--devices android:emulator-5554,android:emulator-5558` runs on exactly those two phones
  (it was refused, pointing at ANDROID_SERIAL, which takes one phone);
- a case pinned to the held phone under `--devices android:3` is told the pinned phone is held
  by that pid and that asking for fewer phones does not help it (it was told "or ask for 2").

The holding run's case waits on screen for "Released", which the page shows once the test
writes flag.txt beside it: the run holds its phone exactly as long as the test needs."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

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
PINNED = f"""\
android:
  launch: {PACKAGE}
  deviceId: emulator-5556
tasks:
  - name: look
    flow:
      - assertText: Gate
"""


@pytest.fixture
def gate(tmp_path):
    """(simulator with three phones showing PAGE as PACKAGE, the app's folder)."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="gate", serve=app)])
        with AndroidSimulator(3, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim, app


def suite(farm: FarmCli, name: str, **files: str):
    (farm.tmp / name).mkdir()
    for case, text in files.items():
        (farm.tmp / name / f"{case}.yaml").write_text(text)
    return farm.tmp / name


def test_three_phones_one_held_by_another_run(farm, gate):
    sim, app = gate
    port = str(sim.port)
    held = farm.start("run", suite(farm, "waits", waits=WAITS), "--devices",
                      "android:emulator-5556", "--report-dir", farm.tmp / "r1",
                      ANDROID_ADB_SERVER_PORT=port)
    held.wait_for_line("start waits/waits")
    try:
        listing = farm.run("devices", ANDROID_ADB_SERVER_PORT=port).stdout
        rows = {line.split()[0]: line for line in listing.splitlines()[1:] if line[:1] == " "}
        assert ", 2 free:" in listing, listing
        assert rows["emulator-5556"].endswith(f"[held by another farm run (pid {held.pid})]")
        assert "held" not in rows["emulator-5554"] + rows["emulator-5558"]

        named = farm.run("run", suite(farm, "two", a=QUICK, b=QUICK), "--devices",
                         "android:emulator-5554,android:emulator-5558", "--report-dir",
                         farm.tmp / "r2", ANDROID_ADB_SERVER_PORT=port)
        assert named.returncode == 0, named.stdout + named.stderr
        # (the named phones that ran a case: one may run both before the other is up)
        assert 0 < len(set(results(farm.tmp / "r2")["devices"]) & {
            "emulator-5554", "emulator-5558"}) == len(results(farm.tmp / "r2")["devices"])

        pinned = farm.run("run", suite(farm, "pinned", p=PINNED), "--devices", "android:3",
                          "--report-dir", farm.tmp / "r3", ANDROID_ADB_SERVER_PORT=port)
        assert pinned.returncode == 4, pinned.stdout + pinned.stderr
        assert f"emulator-5556 is driven by another farm process on this machine (pid " \
               f"{held.pid})" in pinned.stderr
        assert "asking for fewer phones does not help it" in pinned.stderr
        assert "ask for 2" not in pinned.stderr
    finally:
        (app / "flag.txt").write_text("Released")
    out = held.finish()
    assert held.returncode == 0, out
    assert by_name(results(farm.tmp / "r1"))["waits"]["status"] == "passed"
