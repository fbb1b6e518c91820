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


@pytest.mark.parametrize("text, said", [
    ("", "--devices '': no devices given: use e.g. --devices browser:2"),
    ("browser:1,,", "--devices 'browser:1,,': an empty item between commas: write "
                    "KIND[:COUNT] items joined by commas, e.g. browser:2,android:1"),
    (" , browser", "--devices ' , browser': an empty item between commas"),
])
def test_an_empty_device_spec_or_item_is_refused_naming_the_spec(monkeypatch, capsys, tmp_path,
                                                                 text, said):
    """`--devices ''` and `--devices 'browser:1,,'` ran as browser:1."""
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", MOBILE, "--collect-only",
                              "--devices", text)
    assert (code, out) == (4, ""), out + err
    assert err.startswith(f"farm: error: {said}") and "Traceback" not in err


PINNED = """name: pinned
android:
  deviceId: emulator-9999
tasks:
  - name: t
    flow:
      - sleep: 1
"""


def test_a_case_pinned_to_a_device_the_run_did_not_take_is_a_configuration_error(
        monkeypatch, capsys, tmp_path):
    """deviceId: emulator-9999 on --devices android-sim:1 was an error case, exit 3, and the
    console cut its hint at "choose them with AN". Now: exit 4 before any case starts, the
    whole hint on stderr, and results.json written (the cases not run)."""
    import json

    import farm.devices.specs as specs
    from farm.devices.fake import FakeDevice
    opened: list[str] = []

    class Phone(FakeDevice):
        def open(self) -> None:
            opened.append(self.name)

    monkeypatch.setattr(specs, "make_devices", lambda *a, **k: [
        Phone(name="emulator-5554", platform="android")])
    import farm.devices.android as android    # the adb server has emulator-9999 too
    monkeypatch.setattr(android, "adb_server_problem", lambda client: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: [("emulator-5554", "device"),
                                                      ("emulator-9999", "device")])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "pinned.yaml").write_text(PINNED)
    (tmp_path / "s" / "free.yaml").write_text(PINNED.replace("  deviceId: emulator-9999\n", ""))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "android:1",
                              "--no-progress", "--report-dir", "r")
    assert code == 4, out + err
    assert err == ("farm: error: s/pinned.yaml:3: pinned to emulator-9999 (Midscene deviceId / "
                   "wdaHost:wdaPort), which this run did not take: its android devices are "
                   "emulator-5554; give --devices android:N to take more, or choose them with "
                   "ANDROID_SERIAL\n")
    assert opened == []
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["exit_code"] == 4
    assert [(c["case_id"], c["status"], c["reason"]) for c in results["cases"]] == [
        ("s/free", "error", "not run"), ("s/pinned", "error", "not run")]
    # a run that never started is no run of the history: its cases are not "new failures"
    # the next night, and --last-failed has nothing from it
    from farm.config import Settings
    from farm.results_history import open_results
    assert open_results(Settings()).recent(10) == []
    assert not list((tmp_path / ".farm").glob("lastfailed*"))


def test_a_kind_written_in_capitals_is_that_kind():
    """`--devices Browser:1` was "bad device spec 'Browser:1'": a kind is one word whatever
    its case."""
    assert [(s.kind, s.count) for s in parse_device_specs("Browser:1, ANDROID:2")] == [
        ("browser", 1), ("android", 2)]


@pytest.mark.parametrize("spec", ["android:-1", "browser:0", "browser:+0", "ios:-3"])
def test_a_count_below_one_is_named_as_a_count(spec):
    """`--devices android:-1` said "bad device spec ... expected KIND[:COUNT]" (as if the form
    were wrong) where `browser:0` said what is wrong: the count."""
    with pytest.raises(ConfigError) as refused:
        parse_device_specs(spec)
    assert str(refused.value) == f"device count must be at least 1 in {spec!r}"
