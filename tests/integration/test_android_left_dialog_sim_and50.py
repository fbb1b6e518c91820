"""On `farm sim android`: case 1 opens a page and then starts the shop by a shell command (no
launch of its own: nothing is stopped at its end), which asks for a permission nobody answers;
its dialog stays in the shop's task. Case 2 opens a URL: the dialog is closed first, so when
case 2 later brings the shop up it shows the shop, not a dialog left from case 1."""

from __future__ import annotations

import logging

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.suite.model import AndroidTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"
ASKS = "Allow Shop to send you notifications?"


def test_a_case_opening_a_url_closes_the_dialog_a_case_before_left_and50(demo_app, caplog):
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            sim.fault(0, "permission_dialog", 1)
            phone.start_session(AndroidTarget(launch=demo_app + "/"))       # case 1
            phone.shell_result(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
            assert ASKS in phone.hierarchy().visible_text()
            phone.end_session()
            with caplog.at_level(logging.INFO, logger="farm.devices.android"):
                phone.start_session(AndroidTarget(launch=demo_app + "/"))   # case 2
            assert f'closing a system dialog left from before the case: "{ASKS}"' in \
                caplog.text
            phone.launch(PKG)               # case 2's step: the shop, as it was left
            shown = phone.hierarchy().visible_text()
            assert ASKS not in shown and "Sign in" in shown
            assert phone.error_page() is None
        finally:
            phone.end_session()
            phone.close()
