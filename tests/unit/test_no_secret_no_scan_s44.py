"""A run with no secret gives its browsers no mask: their screenshots are not scanned for a
secret to black out (a page read more before each report image, for nothing); a case with a
secret, or a run where another case has one, still gets the mask that blacks it out."""

from __future__ import annotations

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.loader import load_suites
from farm.text import unmasked

CASE = """name: sign in
web:
  url: https://example.com
{vars}tasks:
  - name: t
    flow:
      - assertText: Shop
"""
PAGE = UITree(source="dom", page_text="Shop", nodes=[
    UINode(id=0, role="text", text="Shop", rect=Rect(x=10, y=10, width=100, height=30))])


def device_mask(tmp_path, own_vars: str, run_hides: bool):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(vars=own_vars))
    case = load_suites([tmp_path / "s"], env={})[0].cases[0]
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r", env={}, hides=run_hides)
    device = FakeDevice(PAGE)
    device.hide = None      # (a browser's: what its screenshots black out)
    result = run_case(Job(case.id, "web", 1), case, device, services)
    assert result.status == "passed", result.error
    return device.hide


def test_a_run_without_secrets_gives_the_browser_no_mask(tmp_path):
    assert device_mask(tmp_path, "", run_hides=False) is unmasked


def test_a_case_with_a_secret_gives_the_browser_its_mask(tmp_path):
    hide = device_mask(tmp_path, "vars:\n  LOGIN_PASSWORD: open-sesame-42\n", run_hides=False)
    assert hide is not unmasked and hide("pw open-sesame-42") == "pw ***"


def test_another_cases_secret_keeps_the_mask_on(tmp_path):
    """The page may show a secret another case of the run typed (a shared account)."""
    hide = device_mask(tmp_path, "", run_hides=True)
    assert hide is not unmasked
