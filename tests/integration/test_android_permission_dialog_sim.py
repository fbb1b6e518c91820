"""An app that asks for a runtime permission as it starts (Android 13's notifications, the
camera) has the system's dialog in front of it: its window is the permission controller's, not
the app's. Its launch still succeeds and the dialog is on the screen for the case's steps to
answer; the launch used to wait for the app's own window and fail the case with "did not come
to the front ... it crashed or closed on start; check the app build", every case of such an
app (`pm clear` before each case takes its permissions back, so it asks every time)."""

from __future__ import annotations

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.suite.model import AndroidTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module")
def android(demo_app):
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture
def phone(android):
    dev = AndroidDevice("a1", None, android.serials[0], port=android.port)
    dev.open()
    yield dev
    android.fault(0, "permission_dialog", 0)
    dev.end_session()
    dev.close()


def _node(tree, text):
    return next(n for n in tree.nodes if n.text == text)


def test_a_case_starts_with_the_apps_permission_dialog_in_front(android, phone):
    android.fault(0, "permission_dialog", 1)
    phone.start_session(AndroidTarget(launch=PKG))
    tree = phone.hierarchy()
    assert "Allow Shop to send you notifications?" in tree.visible_text()
    assert "Sign in" not in tree.visible_text()
    assert phone.screenshot().startswith(b"\x89PNG") and not phone.screenshot_black
    phone.tap(*_node(tree, "Allow").rect.center)
    assert "Sign in" in phone.hierarchy().visible_text()
    assert phone.current_app() == PKG


def test_back_answers_the_dialog_and_the_app_is_watched_as_launched(android, phone):
    android.fault(0, "permission_dialog", 1)
    phone.start_session(AndroidTarget(launch=PKG))
    phone.back()                        # Don't allow
    assert "Sign in" in phone.hierarchy().visible_text()
    phone.end_session()                 # the launched app is the one stopped at the case's end
    assert phone.current_app() != PKG


def test_farm_run_answers_the_dialog_with_the_cases_first_step(tmp_path, monkeypatch,
                                                                demo_app):
    import io
    import json

    from farm.config import load_settings
    from farm.session import run

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "allow.yaml").write_text(
        f"name: Allow then look\nandroid:\n  launch: {PKG}\ntasks:\n  - name: start\n"
        "    flow:\n      - aiTap: Allow\n      - assertText: Sign in\n")
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        sim.fault(0, "permission_dialog", -1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
        code = run([suite], "android:1", settings, progress=False, out=out)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    assert code == 0 and [c["status"] for c in summary["cases"]] == ["passed"], out.getvalue()
