"""``--devices ios:2`` with two WebDriverAgent URLs listed, one of which nothing answers: the
run went ahead on one iPhone ("lost: iphone-2", exit 0). Now it is refused up front as too few
adb phones are (exit 4), naming the URL that does not answer."""

from __future__ import annotations

import socket

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration


@pytest.fixture
def simulator():
    from farm.devices.sim import IosSimulator
    with IosSimulator(1, {"com.example.none": "http://127.0.0.1:9/"}) as sim:
        yield sim


@pytest.fixture
def silent_url():
    """A port of this machine held with nothing listening on it: connections are refused."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"


def test_two_iphones_asked_for_with_one_not_answering_is_refused_up_front(
        farm: FarmCli, simulator, silent_url):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "home.yaml").write_text("""\
ios: {}
tasks:
  - name: home
    flow:
      - assertText: Nothing here
""")
    done = farm.run("run", suite, "--devices", "ios:2", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=f"{simulator.urls[0]},{silent_url}")
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert f"{silent_url} is not answering" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
