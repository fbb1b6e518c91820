"""Jenkins' junit-attachments plugin keeps a test class's attachments by file name: failed
cases of one folder named in Chinese must each attach a file of a name no other case of the
folder attaches (it turned every Chinese name into ``case``: four ``case-004-step3.jpg``)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary, case_folder


def _failed(run_dir: Path, cid: str) -> CaseResult:
    rel = f"artifacts/{case_folder(cid)}/attempt-1/004-step3.jpg"
    (run_dir / rel).parent.mkdir(parents=True)
    (run_dir / rel).write_bytes(cid.encode())
    return CaseResult(run_id="r1", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status="failed", screenshot=rel,
                      error=CaseError(kind="AssertionFailed", message="不在屏幕上", step=4))


def _attached(junit: Path) -> dict[str, Path]:
    found = {}
    for case in ET.parse(junit).iter("testcase"):
        said = re.search(r"\[\[ATTACHMENT\|(.+)\]\]", case.findtext("system-out") or "")
        found[case.get("name")] = Path(said.group(1))
    return found


def test_chinese_cases_of_a_folder_attach_files_of_their_own_names(tmp_path):
    run_dir = tmp_path / "运行"
    names = ["近似匹配失败", "近似匹配失败三", "近似匹配失败二", "密码错误"]
    summary = RunSummary(run_id="r1", started="", cases=[
        _failed(run_dir, f"商城测试/{n}") for n in names])
    attached = _attached(write_junit(summary, run_dir / "结果.xml"))
    assert {k: v.read_bytes().decode() for k, v in attached.items()} == {
        n: f"商城测试/{n}" for n in names}
    assert sorted(v.name for v in attached.values()) == [
        "004-step3.jpg", "密码错误-004-step3.jpg", "近似匹配失败三-004-step3.jpg",
        "近似匹配失败二-004-step3.jpg"]


def test_names_that_read_alike_still_attach_distinct_files(tmp_path):
    """``密码 错误`` and ``密码_错误`` both read ``密码_错误``; a case whose own screenshot is
    named as another's renamed copy would be ``密码_错误-004-step3.jpg`` too."""
    run_dir = tmp_path / "run"
    cases = [_failed(run_dir, f"商城/{n}") for n in ("登录", "密码 错误", "密码_错误")]
    odd = _failed(run_dir, "商城/其他")
    shot = Path(odd.screenshot).with_name("密码_错误-004-step3.jpg")
    (run_dir / odd.screenshot).rename(run_dir / shot)
    odd = odd.model_copy(update={"screenshot": str(shot)})
    summary = RunSummary(run_id="r1", started="", cases=[*cases, odd])
    junit = write_junit(summary, run_dir / "junit.xml")
    attached = _attached(junit)
    assert len({v.name for v in attached.values()}) == 4
    assert {k: v.read_bytes().decode() for k, v in attached.items()} == {
        "登录": "商城/登录", "密码 错误": "商城/密码 错误", "密码_错误": "商城/密码_错误",
        "其他": "商城/其他"}
    write_junit(summary, junit)                         # `farm report` again: the same names
    assert _attached(junit) == attached
