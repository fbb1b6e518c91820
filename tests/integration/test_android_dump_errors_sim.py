"""What a real `uiautomator dump` says when it fails, through the simulator and adbutils: it
prints an ERROR line on stderr and exits 0 (so `&& echo success` still prints "success"), and
writes no file. A screen that has no accessibility root for a moment ("null root node") is read
again and then left to vision, as "could not get idle state" is; it was the phone's error (the
missing file's sync FAIL), retried on another phone and counted toward its quarantine."""

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
    dev.start_session(AndroidTarget(launch=PKG))
    yield dev
    for name in ("idle", "null_root"):
        android.fault(0, name, 0)
    dev.close()


def test_a_null_root_node_is_read_again(android, phone):
    android.fault(0, "null_root", 2)
    tree = phone.hierarchy()
    assert tree is not None and "Sign in" in tree.visible_text()
    assert phone.last_observation == "tree"


def test_a_null_root_node_that_stays_leaves_the_screen_to_vision(android, phone):
    android.fault(0, "null_root", -1)
    assert phone.hierarchy() is None and phone.last_observation == "empty-tree"
    assert phone.tree_problem == ("uiautomator dump: ERROR: null root node returned by "
                                  "UiTestAutomationBridge.")


def test_could_not_get_idle_state_with_success_after_it_is_read_again(android, phone):
    android.fault(0, "idle", -1)
    assert phone.hierarchy() is None
    assert phone.tree_problem == "uiautomator dump: ERROR: could not get idle state."
    android.fault(0, "idle", 2)
    assert phone.hierarchy() is not None and phone.last_observation == "tree"
