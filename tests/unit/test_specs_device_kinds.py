"""`--devices` as a user writes it: one kind given twice is refused, not half ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.devices.specs import parse_device_specs
from farm.errors import ConfigError
from tests.support.farm_cli import run_main

MOBILE = Path(__file__).resolve().parent / "good_suites" / "mobile"


@pytest.mark.parametrize("text, both, total", [
    ("android:2,android:1", "android:2 and android:1", "android:3"),
    ("browser, ios:2, browser:3", "browser and browser:3", "browser:4"),
])
def test_a_kind_given_twice_is_refused_naming_both(text, both, total):
    with pytest.raises(ConfigError) as refused:
        parse_device_specs(text)
    said = str(refused.value)
    assert f"is given twice ({both})" in said
    assert f"e.g. {total}" in said


def test_farm_run_refuses_a_kind_given_twice_before_any_device_starts(monkeypatch, capsys,
                                                                    tmp_path):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", MOBILE, "--collect-only",
                              "--devices", "android:2,android:1")
    assert code == 4, out + err
    assert "farm: error: device kind 'android' is given twice (android:2 and android:1)" \
        in err
    assert "Traceback" not in err
