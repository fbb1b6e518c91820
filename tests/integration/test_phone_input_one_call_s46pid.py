"""A watched input on an Android phone costs one adb shell call, not two: farm asks whether
the case's app survived a tap (key, swipe) in the same call as the tap (`input ...; echo
<status>; pidof APP`), where it sent a second `pidof` call after every input (10-30 ms more
per tap on a USB phone). A tap that crashes the app still fails its own step, saying so,
on a newer phone (shell_v2) and on an Android 6 one (one stream, stderr in it)."""

from __future__ import annotations

import pytest

from farm.errors import StepFailed

pytestmark = pytest.mark.integration

PACKAGE = "com.qa.counter"
PAGE = """<!doctype html><html><body>
<p id="n">0</p><button onclick="n.textContent = +n.textContent + 1">Increment</button>
</body></html>"""


@pytest.fixture(params=["shell_v2", "android 6"])
def counted_phone(request, tmp_path):
    """(sim, an open AndroidDevice with PACKAGE launched, the shell lines the phone got)."""
    from farm.appserver import AppServer
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget, AppSpec

    app = tmp_path / "counter-app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="counter", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            shell = sim.server.shells[0]
            shell.shell_v2 = request.param == "shell_v2"
            lines: list[str] = []
            answer = shell.run_in_order

            def counted(line, emit=None):
                lines.append(line)
                return answer(line, emit)

            shell.run_in_order = counted
            phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
            phone.open()
            try:
                phone.start_session(AndroidTarget(launch=PACKAGE))
                yield sim, phone, lines
            finally:
                phone.close()


def test_a_tap_a_key_and_a_swipe_are_one_shell_call_each(counted_phone):
    _sim, phone, lines = counted_phone
    for act in (lambda: phone.tap(5, 5), lambda: phone.press("Enter"),
                lambda: phone.swipe(500, 1500, 500, 1000, 200)):
        lines.clear()
        act()
        assert len(lines) == 1, lines
        assert lines[0].startswith("input ") and f"pidof '{PACKAGE}'" in lines[0], lines


def test_a_tap_that_crashes_the_app_fails_at_that_tap_saying_why(counted_phone):
    sim, phone, _lines = counted_phone
    phone.tap(5, 5)                 # (it survives a tap)
    sim.fault(0, "crash", 1)
    with pytest.raises(StepFailed) as failed:
        phone.tap(5, 5)
    said = str(failed.value)
    assert f"{PACKAGE} is no longer running on a1" in said, said
    assert "crashed at this step's input (tap)" in said, said
    assert "IllegalStateException: crashed at an input" in said, said
