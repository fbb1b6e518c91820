"""A device whose every screenshot fails: the run stays green, and its end says so, once."""

from __future__ import annotations

import json

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import DeviceError, DeviceLost
from farm.evidence import CaseEvidence
from farm.results import ArtifactStore, StepRecord
from tests.support.farm_cli import run_main
from tests.unit.test_plugin_contract_s46plug import plugin  # noqa: F401 (its fixture)

BAD_SHOT_TV = '''
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind


class TvDevice(FakeDevice):
    def __init__(self, name, settings, index):
        super().__init__(UITree(source="tv", nodes=[UINode(id=0, text="Home",
                         rect=Rect(x=0, y=0, width=100, height=50))]),
                         name=name, platform="android")

    def screenshot(self):
        return b"not a png"


def farm_device_kinds():
    return {"tv": DeviceKind("android", TvDevice)}
'''

CASE = """name: home
android:
  launch: com.acme.tv
tasks:
  - name: look
    flow:
      - assertText: Home
      - assertText: Home
"""




def test_a_plugin_whose_screenshots_are_no_images_is_said_at_the_runs_end(
        plugin, monkeypatch, capsys, tmp_path):
    """Before: a green run, no console line, a report without images; only farm.log knew."""
    module = plugin(BAD_SHOT_TV)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "home.yaml").write_text(CASE)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "tv:1",
                              "--no-progress", "--report-dir", "r")
    assert code == 0, out + err                       # the verdict is the steps'
    [case] = json.loads((tmp_path / "r" / "results.json").read_text())["cases"]
    assert case["status"] == "passed"
    said = [line for line in err.splitlines() if "report image(s) could not be taken" in line]
    assert len(said) == 1, err
    count = int(said[0].removeprefix("farm: warning: ").split(" ")[0])
    assert count >= 2, said                           # (a before and each step's after)
    assert said[0].endswith(f"could not be taken: tv-1: screenshot() of device plugin "
                            f"{module!r} returned bytes b'not a png': expected the PNG or JPEG bytes "
                            "of the screen (9 bytes, not a PNG or JPEG)"), said
    assert "report image" not in out


def _evidence(tmp_path, error: Exception) -> tuple[CaseEvidence, ArtifactStore]:
    device = FakeDevice(UITree(source="t", nodes=[UINode(id=0, text="Home", rect=Rect(
        x=0, y=0, width=10, height=10))]), name="phone-2", errors={"screenshot": error})
    store = ArtifactStore(tmp_path)
    return CaseEvidence("all", ScreenshotGrabber(device), store, "s/a", 1), store


def _run_steps(evidence: CaseEvidence) -> None:
    evidence.start()
    records = [StepRecord(task="t", index=i, kind="tap", label="tap", status="passed") for i in (1, 2, 3)]
    for rec in records:
        rec.after = evidence.after_step(rec, looks_only=False)


def test_failed_captures_are_counted_with_the_first_reason_and_the_device(tmp_path, capsys):
    evidence, store = _evidence(tmp_path, DeviceError("screencap: permission denied"))
    _run_steps(evidence)
    store.flush()
    err = capsys.readouterr().err
    assert err == ("farm: warning: 4 report image(s) could not be taken: phone-2: "
                   "screencap: permission denied\n")
    store.flush()                                     # said once
    assert capsys.readouterr().err == ""


def test_a_device_that_died_is_not_said_again_as_images_not_taken(tmp_path, capsys):
    evidence, store = _evidence(tmp_path, DeviceLost("adb: device offline"))
    _run_steps(evidence)
    store.flush()
    assert "could not be taken" not in capsys.readouterr().err
