"""`launch:` on phones through `farm run` on the simulators, over the real adbutils /
facebook-wda paths: the value's ``${NAME}``s are expanded (in the target and in a `- launch:`
step), a URL opens in the phone's browser as Midscene's `launch: https://...` does, and an app
that is not installed fails its case -- naming the app and the device -- instead of being
retried as the device's fault until the only phone is quarantined."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.farm_cli import ROOT, by_name, results

pytestmark = pytest.mark.integration

FARM_YAML = f"""\
timeout: 60
vars:
  PKG: com.farm.demo.shop
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    android: com.farm.demo.shop
    ios: com.farm.demo.shop
  site:
    serve: site
    env: SITE_URL
"""

PAGE = "<!doctype html><title>Hello</title><h1>Opened by URL</h1>\n"


def case(platform: str, launch: str | None, *flow: str) -> str:
    target = f"{platform}:\n  launch: {launch}\n" if launch else f"{platform}:\n"
    steps = "".join(f"      - {line}\n" for line in flow)
    return f"{target}tasks:\n  - name: t\n    flow:\n{steps}"


FRONT = {"android": "runAdbShell: dumpsys window windows\n        name: front",
         "ios": "runWdaRequest: {method: GET, endpoint: /wda/activeAppInfo}\n        name: front"}
OPENS = {
    # the app id from a variable, in the target and in a step
    "android_var": case("android", "${PKG}", "assertText: Sign in"),
    "ios_var": case("ios", "${PKG}", "launch: ${PKG}", "assertText: Sign in"),
    # a URL as the target's launch, and as a step after the app started
    "android_page": case("android", "${SITE_URL}/hello.html", "assertText: Opened by URL",
                         FRONT["android"]),
    "ios_page": case("ios", "${SITE_URL}/hello.html", "assertText: Opened by URL",
                     FRONT["ios"]),
    "android_step": case("android", "com.farm.demo.shop", "assertText: Sign in",
                         "launch: ${SITE_URL}/hello.html", "assertText: Opened by URL"),
    "ios_step": case("ios", "com.farm.demo.shop", "launch: ${SITE_URL}/hello.html",
                     "assertText: Opened by URL", FRONT["ios"]),
    # nobody answers there: the browser says so, as on a phone; the device did nothing wrong
    "android_down": case("android", None, "launch: http://127.0.0.1:9/",
                         "assertText: can’t be reached"),
}
MISTAKES = {
    **{f"android_wrong_{i}": case("android", "com.farm.no.such.app", "assertText: Sign in")
       for i in range(3)},
    "android_wrong_step": case("android", "${PKG}", "launch: com.farm.no.such.app"),
    "android_scheme": case("android", "${PKG}", "launch: farmshop://cart"),
    "ios_wrong": case("ios", "com.farm.no.such.app", "assertText: Sign in"),
    "ios_wrong_step": case("ios", "${PKG}", "launch: com.farm.no.such.app"),
    "ios_scheme": case("ios", "farmshop://cart", "assertText: Sign in"),
    "android_fine": case("android", "${PKG}", "assertText: Sign in"),
    "ios_fine": case("ios", "${PKG}", "assertText: Sign in"),
}


def run_on_phones(tmp_path: Path, cases: dict[str, str]) -> tuple[int, dict, str]:
    """``cases`` (stem → YAML) run on android-sim:1 and ios-sim:1: (exit code, results.json,
    what farm printed)."""
    suite = tmp_path / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "hello.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    for stem, text in cases.items():
        (suite / f"{stem}.yaml").write_text(text)
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    return code, results(tmp_path / "run"), out.getvalue()


def test_launch_expands_variables_and_opens_urls_in_the_browser(tmp_path):
    code, summary, printed = run_on_phones(tmp_path, OPENS)
    cases = by_name(summary)
    assert code == 0, printed
    assert {stem: c["status"] for stem, c in cases.items()} == dict.fromkeys(OPENS, "passed")
    # the page opened in the phone's browser, not in an app called "http://..."
    assert "com.android.chrome/" in cases["android_page"]["data"]["front"]
    assert cases["ios_page"]["data"]["front"]["bundleId"] == "com.apple.mobilesafari"
    assert cases["ios_step"]["data"]["front"]["bundleId"] == "com.apple.mobilesafari"


def test_app_not_installed_fails_the_case_and_spares_the_device(tmp_path):
    code, summary, printed = run_on_phones(tmp_path, MISTAKES)
    cases = by_name(summary)
    assert code == 1, printed                  # failed cases: the suite's problem, not infra
    assert summary["quarantined"] == [] and "no usable" not in printed
    assert cases["android_fine"]["status"] == cases["ios_fine"]["status"] == "passed"
    for stem in [s for s in MISTAKES if "fine" not in s]:
        c = cases[stem]
        assert (c["status"], c["error"]["kind"], c["attempt"]) == ("failed", "StepFailed", 1), c
    device = {"android": "android-sim-1", "ios": "iphone-sim-1"}
    for stem in ("android_wrong_0", "android_wrong_step", "ios_wrong", "ios_wrong_step"):
        assert (f"com.farm.no.such.app is not installed on {device[stem.split('_')[0]]}"
                in cases[stem]["error"]["message"]), cases[stem]["error"]
    assert cases["android_wrong_step"]["error"]["step"] == 1
    assert "no app on android-sim-1 opens farmshop://cart" in \
        cases["android_scheme"]["error"]["message"]
    assert "iphone-sim-1 cannot open farmshop://cart" in cases["ios_scheme"]["error"]["message"]


def test_an_app_that_crashes_on_launch_fails_its_cases_and_spares_the_phones(tmp_path, demo_app,
                                                                           monkeypatch):
    """Both phones' app crashes on start (the simulators' launch_fail): every case fails once,
    naming the app and the phone, on the phone it was given; no phone is quarantined and
    every case runs. It used to be an infrastructure error: retried on the other phone,
    both phones quarantined, the last case "no usable android device left", exit 3."""
    from farm.devices.sim import AndroidSimulator

    suite = tmp_path / "suite"
    suite.mkdir()
    for i in range(4):
        (suite / f"login{i}.yaml").write_text(case("android", "com.farm.demo.shop",
                                                   "assertText: Sign in"))
    with AndroidSimulator(2, {"com.farm.demo.shop": demo_app + "/"}) as sim:
        for i in range(2):
            sim.fault(i, "launch_fail", -1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
        code = run([suite], "android:2", settings, progress=False, out=out)
    summary = results(tmp_path / "run")
    assert code == 1, out.getvalue()
    assert summary["quarantined"] == [] and "no usable" not in out.getvalue()
    for c in summary["cases"]:
        assert (c["status"], c["error"]["kind"], c["attempt"]) == ("failed", "StepFailed", 1), c
        assert "com.farm.demo.shop did not come to the front on emulator-55" in \
            c["error"]["message"] and "crashed or closed on start" in c["error"]["message"]


def test_a_case_timed_out_by_a_hung_screencap_names_the_wait_in_the_step_it_took(tmp_path):
    """Every screencap hangs (the simulator's slow fault) from step 2 on, so step 2's
    after-image holds the case past its timeout. The step it hung in carries that time and
    says what the device was doing; it used to be the next step, "0 ms", with a bare "case
    timed out", and the error's screenshot could be from before the first step."""
    suite = tmp_path / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "farm.yaml").write_text(FARM_YAML.replace("timeout: 60", "timeout: 15"))
    (suite / "hang.yaml").write_text(case(
        "android", "${PKG}", "runAdbShell: farm-sim fault slow_seconds 600",
        "runAdbShell: farm-sim fault slow -1", "assertText: Sign in"))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                             watchdog_grace_seconds=1)
    code = run([suite], "android-sim:1", settings, progress=False, out=out)
    [c] = results(tmp_path / "run")["cases"]
    assert code == 3 and c["status"] == "error", out.getvalue()
    assert c["error"] == {"kind": "CaseTimeout", "step": 2, "message": (
        "case timed out after 15s: waiting for the device's screenshot (screencap) after the "
        "step")}, c["error"]
    hung = c["steps"][1]
    # the step that hung holds the case's time up to its timeout (it read 0 ms, the next
    # step's): more than step 1's, whatever the machine's speed
    assert hung["status"] == "error", hung
    assert hung["duration"] > max(c["steps"][0]["duration"], 0), hung
    assert [s["status"] for s in c["steps"]] == ["passed", "error", "skipped"]
    assert c["screenshot"] in (hung["before"], None)     # nothing older than step 2's


def test_a_case_timed_out_by_a_hung_screencap_at_its_start_says_so(tmp_path, demo_app,
                                                                   monkeypatch):
    """Every screencap hangs from the start, so the case's first image holds it past its
    timeout: the error says so (no step had begun). It read "step 1: case timed out after
    5s", a step of 0.0 s blamed for a wait that came before it."""
    from farm.devices.sim import AndroidSimulator

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "login.yaml").write_text(case("android", "com.farm.demo.shop",
                                           "assertText: Sign in"))
    with AndroidSimulator(1, {"com.farm.demo.shop": demo_app + "/"}) as sim:
        sim.fault(0, "slow_seconds", 600)
        sim.fault(0, "slow", -1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                                 default_timeout=12, watchdog_grace_seconds=1)
        code = run([suite], "android:1", settings, progress=False, out=out)
    [c] = results(tmp_path / "run")["cases"]
    assert code == 3 and c["status"] == "error", out.getvalue()
    assert c["error"] == {"kind": "CaseTimeout", "step": None, "message": (
        "case timed out after 12s: waiting for the device's screenshot (screencap) at the "
        "case's start")}, c["error"]
    assert [s["status"] for s in c["steps"]] == ["skipped"]
