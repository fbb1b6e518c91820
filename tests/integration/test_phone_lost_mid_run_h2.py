"""A run whose phone is lost in the middle: its adb server dies (`adb kill-server`, another
tool's adb of another version killing it) while a case runs on the phone, comes back, and dies
again for good. `farm run` on one simulated phone; the test kills and restarts the
simulator's adb server (`AndroidSimulator.kill_server` / `start_server`) when a case is in its
held step.

What a user sees: the phone is used again once its adb server is back (before, farm wrote it
off for the rest of the run the moment the server refused one connection); a case whose phone
died under it keeps that as its error, saying why it was not retried (before, it read only "no
usable android device left"); a case no phone was left for never starts on the dead phone and
has no attempt there (before, it started, ended "device emulator-5554 unusable" at once and
spent its retry on it).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.farm_cli import FarmCli, by_name, results, wait_for

pytestmark = pytest.mark.integration

PACKAGE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""


def held(name: str) -> str:
    """A step that waits on the phone the first time it runs (while the file ``name`` is
    there: it takes the file away), and passes at once after that."""
    hold = f"/data/local/tmp/{name}"
    return f"runAdbShell: cat {hold} && rm {hold} && sleep 60 || true"


def case(flow: list[str]) -> str:
    steps = "".join(f"      - {step}\n" for step in flow)
    return (f"android:\n  launch: {PACKAGE}\ntasks:\n  - name: steps\n    flow:\n"
            f"      - assertText: New note\n{steps}")


@pytest.fixture(scope="module")
def simulator(tmp_path_factory):
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path_factory.mktemp("app")
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def on_phone(sim: Any, command: str) -> str:
    from farm.devices.android import adb_client
    return adb_client(port=sim.port).device(sim.serials[0]).shell(command)


def taken(sim: Any, name: str) -> bool:
    """Has the held step of a case taken its file (it is in its wait now)?"""
    return "No such file" in on_phone(sim, f"cat /data/local/tmp/{name} 2>&1")


@pytest.fixture(scope="module")
def lost_twice(simulator, tmp_path_factory) -> tuple[Any, dict[str, Any], str]:
    """One phone, cases run in name order: a_held (its adb server dies as it waits), b_after
    (runs once the server is back), c_held (the server dies again, for good), d_never."""
    tmp = tmp_path_factory.mktemp("lost")
    suite = tmp / "s"
    suite.mkdir()
    (suite / "a_held.yaml").write_text(case([held("hold_a")]))
    (suite / "b_after.yaml").write_text(case(["aiTap: New note"]))
    (suite / "c_held.yaml").write_text(case([held("hold_c")]))
    (suite / "d_never.yaml").write_text(case(["aiTap: New note"]))
    on_phone(simulator, "touch /data/local/tmp/hold_a /data/local/tmp/hold_c")
    farm = FarmCli(tmp)
    try:
        proc = farm.start("run", suite, "--devices", "android:1", "--retries", "0",
                          "--report-dir", tmp / "run",
                          ANDROID_ADB_SERVER_PORT=str(simulator.port))
        log = tmp / "run" / "farm.log"

        def until(what: str, seen: Any) -> None:    # (or the run ended without it)
            wait_for(lambda: proc.popen.poll() is not None or seen(), 60, what)

        until("a_held in its held step", lambda: taken(simulator, "hold_a"))
        simulator.kill_server()
        # farm reopens the phone and finds no adb server there: it asks again
        until("farm waiting for the adb server",
              lambda: log.is_file() and "not ready yet; asking again" in log.read_text())
        simulator.start_server()
        until("c_held in its held step", lambda: taken(simulator, "hold_c"))
        simulator.kill_server()             # ... and gone for good
        out = proc.finish(120)
    finally:
        farm.close()
        simulator.start_server()
    return proc, results(tmp / "run"), out


def test_a_phone_whose_adb_server_came_back_runs_the_next_case(lost_twice) -> None:
    proc, summary, out = lost_twice
    after = by_name(summary)["b_after"]
    assert (after["status"], after["attempt"]) == ("passed", 1), out
    assert after["device"] == "emulator-5554"


def test_a_case_whose_phone_died_under_it_keeps_that_as_its_error(lost_twice) -> None:
    proc, summary, out = lost_twice
    cases = by_name(summary)
    for name in ("a_held", "c_held"):
        held_case = cases[name]
        assert (held_case["status"], held_case["attempt"]) == ("error", 1), out
        assert held_case["error"]["kind"] == "DeviceLost"
        assert held_case["error"]["message"].startswith("emulator-5554 lost ("), held_case
        assert "not retried: no usable android device left" in held_case["reason"], held_case
        assert f"{name}.yaml:7) — step 2: emulator-5554 lost (" in out, out


def test_a_case_no_phone_was_left_for_never_started_on_the_dead_one(lost_twice) -> None:
    proc, summary, out = lost_twice
    never = by_name(summary)["d_never"]
    assert (never["status"], never["attempt"]) == ("error", 1), out
    assert never["error"]["message"].startswith("no usable android device left ("), never
    assert not never.get("previous"), never["previous"]
    assert "start s/d_never" not in out, out
    assert list(summary["lost"]) == ["emulator-5554"], summary["lost"]
    assert proc.returncode == 3, out
