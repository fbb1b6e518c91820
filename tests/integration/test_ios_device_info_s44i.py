"""Two simulated iPhones of two `farm sim ios` runs were both "iPhone-sim-1 (iPhone), iOS 17.0"
in results.json and junit: which phone ran a case could not be told. Now a phone's device_info
names its UDID and its WebDriverAgent URL, as an Android phone's serial names it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.which"


@pytest.fixture
def two_sims(tmp_path):
    from farm.appserver import AppServer
    from farm.devices.sim import IosSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text("<!doctype html><title>W</title><h1>Which</h1>")
    with AppServer() as served:
        served.serve([AppSpec(name="which", serve=app)])
        apps = {BUNDLE: served.urls[app.resolve()] + "/"}
        with IosSimulator(1, apps) as one, IosSimulator(1, apps) as two:
            yield one.urls[0], two.urls[0]


def test_two_alike_iphones_read_differently_in_the_results(farm: FarmCli, two_sims):
    suite = farm.tmp / "suite"
    suite.mkdir()
    # each case pinned to one iPhone: unpinned, one phone may run both before the other is up
    for name, url in zip(("a", "b"), two_sims):
        where = urlsplit(url)
        (suite / f"{name}.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
  wdaHost: {where.hostname}
  wdaPort: {where.port}
tasks:
  - name: read
    flow:
      - assertText: Which
""")
    done = farm.run("run", suite, "--devices", "ios:2", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=",".join(two_sims))
    summary = results(farm.tmp / "run")
    assert {c["status"] for c in by_name(summary).values()} == {"passed"}, done.stdout
    said = summary["device_info"]
    assert sorted(said) == ["iphone-1", "iphone-2"]
    one, two = said["iphone-1"], said["iphone-2"]
    assert one != two and "UDID " in one and "UDID " in two
    assert {info.rsplit("WDA ", 1)[-1] for info in (one, two)} == set(two_sims), said
    junit = ET.parse(farm.tmp / "run" / "junit.xml").getroot()
    facts = {line for out in junit.iter("system-out") for line in (out.text or "").splitlines()}
    assert {f"device_info: {one}", f"device_info: {two}"} <= facts, facts
