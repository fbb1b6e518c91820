"""What a first-time user of `farm run` read and misread: a deselected phone case's hint that
named only real phones (no adb server here: exit 4), --collect-only counting cases the run
then left out, a model skip located at the case's first step, the run's time after the
model's calls (read as the model's), and --timeout 5m, file:line and a quoted glob refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import farm.session
from farm.results import CaseResult, RunSummary, StepRecord
from farm.run_console import summary_line
from farm.runner import case_line
from farm.suite.loader import load_suites
from farm.usage import Usage
from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

WEB = """web:
  url: https://example.com
tasks:
  - name: t
    flow:
      - aiAssert: the page loaded
"""
PHONE = "android:\n  launch: com.example\n" + WEB[WEB.index("tasks"):]
IPHONE = "ios:\n  launch: com.example\n" + WEB[WEB.index("tasks"):]


def _write(path: Path, text: str = WEB) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def farm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS...`` in ``tmp_path``, no device ever opened: (code, stdout, stderr)."""
    def no_device(*_args, **_kw):
        raise AssertionError("a device was asked for")
    monkeypatch.setattr(farm.session, "_executor", no_device)
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args)


# ---- 1: a deselected phone case names the simulators too ---------------------------------------

def test_deselected_phone_cases_name_the_simulators_farm_starts(farm_run, tmp_path) -> None:
    _write(tmp_path / "m" / "phone.yaml", PHONE)
    _write(tmp_path / "m" / "tablet.yaml", IPHONE)
    notes = {}
    for label, devices in (("default", []), ("given", ["--devices", "browser:2"])):
        code, out, err = farm_run("m", *devices, "--no-progress")
        assert code == 5, out + err
        notes[label] = [line for line in out.splitlines() if "deselected" in line]
    assert notes["given"] == [
        "farm: deselected 1 android case(s): no android device in --devices browser:2: add "
        "android:1, or android-sim:1 for simulated phones farm starts itself",
        "farm: deselected 1 ios case(s): no ios device in --devices browser:2: add ios:1, or "
        "ios-sim:1 for simulated iPhones farm starts itself"]
    assert len(notes["default"]) == 2
    assert notes["default"][0].endswith(
        "give --devices android:1 (--devices browser:1,android:1 runs both), or android-sim:1 "
        "for simulated phones farm starts itself")


def would_skip(n: int) -> str:
    """--collect-only's note (on stderr) of the cases a run without a model would skip."""
    return (f"farm: {n} case(s) would be skipped (before they start): a step needs a model "
            "(set FARM_MODEL)\n")


# ---- 2: --collect-only says what the run would leave out ---------------------------------------

def test_collect_only_without_devices_says_the_run_would_deselect_the_phone_cases(
        farm_run, tmp_path) -> None:
    _write(tmp_path / "m" / "web.yaml")
    _write(tmp_path / "m" / "phone.yaml", PHONE)
    _write(tmp_path / "m" / "tablet.yaml", IPHONE)
    code, out, err = farm_run("m", "--collect-only")
    assert code == 0 and "farm:" not in out
    assert err.splitlines()[-1] == (
        "farm: a run without --devices takes browser:1 alone and would deselect 2 of these "
        "(1 android, 1 ios): give --devices browser:1,android:1,ios:1, or --devices "
        "browser:1,android-sim:1,ios-sim:1 (simulated)")
    code, out, err = farm_run("m", "--collect-only", "--devices", "browser:1,android-sim:1")
    assert "a run without --devices" not in out + err    # the run's own devices: no note


# ---- 3: a skip for a model points at the step that needs it ------------------------------------

def test_a_case_skipped_for_a_model_is_located_at_the_step_that_needs_one(tmp_path) -> None:
    _write(tmp_path / "s" / "shop.yaml", """web:
  url: https://example.com
tasks:
  - name: no model
    flow:
      - aiInput: Password
        value: secret
  - name: the agent
    flow:
      - ai: buy a mug
      - assertText: Cart (1)
""")
    case = load_suites([tmp_path / "s"])[0].cases[0]
    result = CaseResult(run_id="r1", case_id=case.id, name=case.name, file="s/shop.yaml",
                        platform="web", status="skipped", started="2026-01-05T02:00:00+00:00",
                        reason="needs a model (set FARM_MODEL): ai at line 10", steps=[
        StepRecord(task="no model", index=1, kind="aiInput", label="Password", line=6),
        StepRecord(task="the agent", index=2, kind="ai", label="buy a mug", line=10,
                   status="skipped", error="ai at line 10"),
        StepRecord(task="the agent", index=3, kind="assertText", label="Cart (1)", line=11,
                   status="skipped")])
    assert case.first_line == 6
    assert case_line(result, case) == 10


# ---- 4: the run's time is said before the model's calls ----------------------------------------

def test_the_run_time_is_not_read_as_the_model_s() -> None:
    usage = Usage(prompt_tokens=0, completion_tokens=0, cost_usd=0.0, latency_s=1.0, calls=1)
    summary = RunSummary(run_id="r1", started="2026-01-05T02:00:00+00:00", duration=10.2,
                         cases=[CaseResult(run_id="r1", case_id="s/a", name="a", file="s/a.yaml",
                                           platform="web", status="error",
                                           started="2026-01-05T02:00:00+00:00", usage=usage)])
    summary.recount()
    assert summary_line(summary) == (
        "farm: 1 error in 10.2s; model: 1 call(s), 0 tokens, $0.0000 (run r1)")


# ---- 5: --timeout 5m, file:line, a quoted glob -------------------------------------------------

@pytest.mark.parametrize("given, seconds", [("5m", 300), ("90s", 90), ("1h30m", 5400),
                                            ("2.5", 2.5), ("45", 45)])
def test_timeout_takes_a_duration(farm_run, tmp_path, monkeypatch, given, seconds) -> None:
    _write(tmp_path / "s" / "a.yaml")
    seen = {}
    monkeypatch.setattr(farm.session, "run", lambda *a, **k: seen.setdefault(
        "timeout", a[2].default_timeout) and 0)
    code, out, err = farm_run("s", "--timeout", given)
    assert code == 0, out + err
    assert seen["timeout"] == seconds


@pytest.mark.parametrize("given, said", [
    ("5x", "'5x' is no duration: give seconds (300) or a duration such as 90s, 5m, 1h30m"),
    ("5m5m", "'5m5m' is no duration"),
    ("25h", "'25h' is out of range: from 0.1 s to 86400 s (24h)")])
def test_timeout_refuses_what_is_no_duration(farm_run, tmp_path, given, said) -> None:
    _write(tmp_path / "s" / "a.yaml")
    code, out, err = farm_run("s", "--timeout", given, "--collect-only")
    assert code == 4 and said in err, out + err
    assert "float" not in err


def test_a_file_line_path_runs_that_file_s_case(farm_run, tmp_path) -> None:
    _write(tmp_path / "tests" / "add_item.yaml")
    _write(tmp_path / "tests" / "other.yaml")
    code, out, err = farm_run("tests/add_item.yaml:5", "--collect-only")
    assert (code, err) == (0, counted(1) + would_skip(1)), out + err
    assert "tests/add_item  [web]" in out and "other" not in out
    code, out, err = farm_run("tests/missing.yaml:5", "--collect-only")
    assert code == 4 and "does not exist" in err


def test_a_glob_the_shell_did_not_expand_is_expanded(farm_run, tmp_path) -> None:
    for name in ("a.yaml", "b.yaml"):
        _write(tmp_path / "tests" / name)
    _write(tmp_path / "tests" / "c.yml")
    code, out, err = farm_run("tests/*.yaml", "--collect-only")
    assert (code, err) == (0, counted(2) + would_skip(2)), out + err
    assert "tests/c" not in out + err
    code, out, err = farm_run("nothing/*.yaml", "--collect-only")
    assert code == 4 and "a glob that matches no file" in err, out + err


def test_collect_only_of_a_broker_run_leaves_its_devices_to_the_workers(farm_run,
                                                                       tmp_path) -> None:
    """(--matrix's last line says what a cluster run takes: no local-device note after it.)"""
    _write(tmp_path / "m" / "phone.yaml", PHONE)
    code, out, err = farm_run("m", "--collect-only", "--broker", "redis://broker.invalid:6379/1")
    assert (code, err) == (0, counted(1)), out + err
    assert "a run without --devices" not in out and "-sim" not in out
