"""`android: {deviceId: ${PHONE}}` and `ios: {wdaHost: ${WDA_HOST}}` pinned the case to the
text "${PHONE}" (no such device), while `wdaPort: ${WDA_PORT}` beside it was read: a pin picks
the device before any case starts, so its variables are read when the suite loads, from the
environment, .env or vars:, and a secret is refused there with the file's line."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _cases(tmp_path, text: str, env: dict[str, str]):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "pinned.yaml").write_text(text + FLOW)
    suites = load_suites([tmp_path / "s"], env=env, dotenv=None)
    return [c for s in suites for c in s.cases]


def test_device_id_from_the_environment_pins_its_value_sui50(tmp_path):
    case, = _cases(tmp_path, "android:\n  deviceId: ${PHONE}\n  launch: com.farm.demo.shop\n",
                   {"PHONE": "emulator-5554"})
    assert case.pin == "emulator-5554"
    assert case.android.launch == "com.farm.demo.shop"


def test_device_id_default_is_used_when_the_variable_is_unset_sui50(tmp_path):
    case, = _cases(tmp_path, "android:\n  deviceId: ${ANDROID_SERIAL:-emulator-5554}\n", {})
    assert case.pin == "emulator-5554"


def test_wda_host_is_substituted_as_wda_port_is_sui50(tmp_path):
    case, = _cases(tmp_path, "ios:\n  wdaHost: ${WDA_HOST}\n  wdaPort: ${WDA_PORT}\n",
                   {"WDA_HOST": "10.0.0.2", "WDA_PORT": "8101"})
    assert case.pin == "10.0.0.2:8101"


def test_wda_host_from_vars_sui50(tmp_path):
    case, = _cases(tmp_path, "vars:\n  LAB: 10.0.0.9\nios:\n  wdaHost: ${LAB}\n", {})
    assert case.pin == "10.0.0.9:8100"


def test_a_secret_pin_is_refused_with_its_line_sui50(tmp_path):
    with pytest.raises(SuiteErrors) as refused:
        _cases(tmp_path, "secrets: [WDA_HOST]\nios:\n  wdaHost: ${WDA_HOST}\n",
               {"WDA_HOST": "10.0.0.2"})
    said = str(refused.value)
    assert "pinned.yaml:3:12: ios.wdaHost: ${WDA_HOST} is a secret (secrets:)" in said
    assert "when the suite loads" in said and "10.0.0.2" not in said


def test_a_credential_named_pin_is_refused_sui50(tmp_path):
    with pytest.raises(SuiteErrors) as refused:
        _cases(tmp_path, "android:\n  deviceId: ${PHONE_TOKEN}\n",
               {"PHONE_TOKEN": "s4ey59ytbitot4yp"})
    said = str(refused.value)
    assert "pinned.yaml:2:13: android.deviceId: ${PHONE_TOKEN} is a secret" in said
    assert "s4ey59ytbitot4yp" not in said


def test_an_unset_pin_variable_is_named_at_load_sui50(tmp_path):
    with pytest.raises(SuiteErrors) as refused:
        _cases(tmp_path, "android:\n  deviceId: ${PHONE}\n", {})
    assert "undefined variable ${PHONE}" in str(refused.value)
