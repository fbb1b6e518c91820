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
