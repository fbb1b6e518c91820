"""Failure screenshots in junit.xml as Jenkins' junit-attachments plugin stores them: per test
class (the case's folder), by file name, the first file of a name standing for every later one
of that name. farm names screenshots by step (``003-after.jpg``) in a folder per case, so two
failed cases of one folder could name the same file name."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary

XSD = Path(__file__).parents[1] / "schemas" / "junit-10.xsd"


def _failed(run_dir: Path, cid: str, picture: bytes) -> CaseResult:
    rel = f"artifacts/{cid.replace('/', '-')}/attempt-1/003-after.jpg"
    (run_dir / rel).parent.mkdir(parents=True)
    (run_dir / rel).write_bytes(picture)
    return CaseResult(run_id="r1", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status="failed", screenshot=rel,
                      error=CaseError(kind="AssertionFailed", message="no Total", step=3))


def _attached(junit: Path) -> dict[str, Path]:
    found = {}
    for case in ET.parse(junit).iter("testcase"):
        said = re.search(r"\[\[ATTACHMENT\|(.+)\]\]", case.findtext("system-out") or "")
        found[f"{case.get('classname')}/{case.get('name')}"] = Path(said.group(1))
    return found


def test_each_failed_case_of_a_folder_attaches_a_file_of_its_own_name(tmp_path):
    """Jenkins showed the first case's screenshot on every failed case of the folder."""
    run_dir = tmp_path / "run"
    summary = RunSummary(run_id="r1", started="", cases=[
        _failed(run_dir, "shop/cart", b"cart"), _failed(run_dir, "shop/pay", b"pay"),
        _failed(run_dir, "shop/pay card", b"card"), _failed(run_dir, "other/cart", b"other")])
    junit = write_junit(summary, run_dir / "junit.xml")
    xmlschema.XMLSchema(str(XSD)).validate(str(junit))
    attached = _attached(junit)
    assert {k: v.read_bytes() for k, v in attached.items()} == {
        "shop/cart": b"cart", "shop/pay": b"pay", "shop/pay card": b"card",
        "other/cart": b"other"}
    shop = [v.name for k, v in attached.items() if k.startswith("shop/")]
    assert sorted(shop) == ["003-after.jpg", "pay-003-after.jpg", "pay_card-003-after.jpg"]
    assert attached["other/cart"].name == "003-after.jpg"       # another test class
    assert all(p.is_relative_to(run_dir) for p in attached.values())
    write_junit(summary, run_dir / "junit.xml")                 # `farm report` again: the same
    assert _attached(junit) == attached
