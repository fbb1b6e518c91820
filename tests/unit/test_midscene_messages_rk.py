"""Messages a user migrating Midscene scripts met: each says what the Midscene form means and
what farm does instead (not "did you mean 'page'?", "got nothing", click's bare "No such
option"), and a pinned case's result is at the line its message names."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.suite.loader import load_suites
from farm.errors import SuiteErrors
from tests.support.farm_cli import run_main

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - {step}\n"


@pytest.fixture
def farm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.yaml").write_text(CASE.format(step="aiTap: Sign in"))
    return lambda *args: run_main(monkeypatch, capsys, *args)


def problems(path: Path) -> str:
    with pytest.raises(SuiteErrors) as caught:
        load_suites([path])
    return "\n".join(str(e) for e in caught.value.errors)


def test_reuse_page_says_what_it_is_in_midscene(tmp_path, farm):
    (tmp_path / "index.yaml").write_text("reusePage: true\nfiles:\n  - web/a.yaml\n")
    said = problems(tmp_path / "index.yaml")
    assert "did you mean 'page'" not in said
    assert "reusePage is not a key of Midscene's batch config" in said
    assert "shareBrowserContext: true" in said


def test_the_expected_keys_name_the_switches_taken_as_false(tmp_path, farm):
    (tmp_path / "index.yaml").write_text("keepWindw: false\nfiles:\n  - web/a.yaml\n")
    said = problems(tmp_path / "index.yaml")
    assert "did you mean 'keepWindow'?" in said
    for key in ("headed", "keepWindow", "dotenvOverride", "dotenvDebug"):
        assert key in said.split("expected one of:")[1]


@pytest.mark.parametrize("args, said", [
    (("--config", "index.yaml"), "`farm run index.yaml`"),
    (("--concurrent", "2", "index.yaml"), "the batch file's `concurrent:`"),
    (("--continue-on-error", "index.yaml"), "the batch file's `continueOnError:`"),
])
def test_midscene_cli_options_say_where_the_setting_goes(farm, args, said):
    code, out, err = farm("run", *args)
    assert code == 4
    assert "No such option" not in err
    assert f"farm has no {args[0]}" in err and said in err


def test_ai_input_without_value_says_the_value_is_missing(tmp_path, farm):
    (tmp_path / "web" / "a.yaml").write_text(CASE.format(step="aiInput: demo"))
    said = problems(tmp_path / "web" / "a.yaml")
    assert "got nothing" not in said
    assert ("aiInput: expected the text to type in `value:`, which is missing: "
            "`aiInput: demo` names the field") in said


def test_a_pinned_case_is_at_its_device_id_line(tmp_path, farm):
    (tmp_path / "p.yaml").write_text("android:\n  deviceId: emulator-9999\n  launch: com.x\n"
                                     "tasks:\n  - name: t\n    flow:\n      - aiTap: OK\n")
    [suite] = load_suites([tmp_path / "p.yaml"])
    [case] = suite.cases
    assert (case.pin_line, case.setup_line) == (2, 3)


def test_a_missing_pin_result_is_at_the_line_its_message_names(tmp_path, farm):
    from farm.errors import ConfigError
    from farm.session import _end_missing_pins
    from farm.schedule import Job
    (tmp_path / "p.yaml").write_text("android:\n  deviceId: emulator-9999\n  launch: com.x\n"
                                     "tasks:\n  - name: t\n    flow:\n      - aiTap: OK\n")
    [suite] = load_suites([tmp_path / "p.yaml"])
    [case] = suite.cases
    jobs = [Job(case_id=case.id, platform="android", pin="emulator-9999", expected_seconds=1)]
    upfront: list = []
    _end_missing_pins({"p.yaml": ConfigError("p.yaml:2: deviceId emulator-9999: no such device")},
                      jobs, upfront, {case.id: case}, "r1")
    assert [r.line for r in upfront] == [2] and jobs == []
