"""`farm sim` as a mobile QA engineer starts it:

- `launch: com.qa.labb` (a typo) printed a Python traceback on the iOS simulator's console
  ("wda sim: POST /session failed", "Traceback ... RuntimeError: The application under test
  ... is not installed"): an answer WebDriverAgent gives is one line, as any other.
- `farm sim android` without --app installed nothing though --help showed a default package;
  `--app ftp://x` started with the app mapped to ftp://x; an --app URL nothing serves was not
  mentioned.
"""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration


def test_a_launch_of_an_app_not_installed_is_one_line_on_the_ios_sims_console(farm: FarmCli):
    app = farm.tmp / "app"
    app.mkdir()
    (app / "index.html").write_text("<h1>Lab</h1>")
    sim = farm.start("sim", "ios", "--app", app, "--package", "com.qa.lab")
    url = sim.wait_for_line("WebDriverAgent on ").split()[-1]
    sim.wait_for_line("Ctrl-C stops.")
    body = json.dumps({"capabilities": {"alwaysMatch": {"bundleId": "com.qa.labb"}}}).encode()
    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(urllib.request.Request(
            url + "/session", body, {"Content-Type": "application/json"}), timeout=30)
    said = json.loads(answered.value.read())["value"]
    assert (answered.value.code, said["error"]) == (500, "unknown error")
    sim.wait_for_line("wda sim: POST /session: ")
    sim.send_signal(signal.SIGINT)
    out = sim.finish()
    assert ("wda sim: POST /session: The application under test with bundle id "
            "'com.qa.labb' is not installed on the device") in out.splitlines(), out
    assert "Traceback" not in out


def test_without_app_farm_sim_says_no_app_is_installed(farm: FarmCli):
    sim = farm.start("sim", "android")
    sim.wait_for_line("Ctrl-C stops.")
    sim.send_signal(signal.SIGINT)
    out = sim.finish()
    assert ("  no app installed (--app DIR_OR_URL installs one, as --package, default "
            "com.farm.sim.app)") in out.splitlines(), out
    done = farm.run("sim", "android", "--package", "com.qa.lab")
    assert done.returncode == 4
    assert ("Error: --package com.qa.lab: the id --app's web app is installed as: give --app "
            "DIR_OR_URL too (without --app no app is installed)") in done.stderr


def test_an_app_url_no_phone_can_show_is_refused(farm: FarmCli):
    done = farm.run("sim", "ios", "--app", "ftp://x")
    assert done.returncode == 4 and not done.stdout
    assert ("Error: --app ftp://x: the phones show a web app: give a directory (served here) "
            "or an http:// or https:// URL") in done.stderr


def test_an_app_url_nothing_serves_yet_is_a_warning(farm: FarmCli):
    import socket
    with socket.socket() as s:       # a port that was free: nothing listens there now
        s.bind(("127.0.0.1", 0))
        gone = f"http://127.0.0.1:{s.getsockname()[1]}/"
    sim = farm.start("sim", "ios", "--app", gone)
    sim.wait_for_line("Ctrl-C stops.")
    sim.send_signal(signal.SIGINT)
    out = sim.finish()
    assert (f"farm sim: warning: --app {gone}: nothing answers there (Connection refused): its "
            "phones show an error page where the app should be until it is served"
            ) in out.splitlines(), out
    assert f"  com.farm.sim.app -> {gone}" in out.splitlines()
