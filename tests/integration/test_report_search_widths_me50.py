"""The report's search reads full-width and half-width forms alike (NFKC), as `-k` and text
checks do: a Chinese team types "登录失败:用户名" with a half-width colon (or the other way
round) and finds the case whose name has the full-width "：", and "ＡＢＣ" finds "abc"."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

NAMES = {"zh/login_empty": "登录失败：用户名为空", "zh/cart": "加入购物车",
         "zh/abc": "Checkout ABC 100"}


@pytest.fixture
def report(tmp_path):
    from farm.report.html import write_html
    from farm.results import CaseResult, RunSummary
    cases = [CaseResult(run_id="r", case_id=cid, name=name, file=f"{cid}.yaml", platform="web",
                        device="browser-1", status="passed", duration=1.0)
             for cid, name in NAMES.items()]
    write_html(RunSummary(run_id="r", started="2026-12-07T02:00:00+00:00", cases=cases),
               tmp_path)
    return tmp_path / "report.html"


@pytest.mark.parametrize("typed, found", [
    ("登录失败:用户名", ["zh/login_empty"]),           # half-width colon typed
    ("登录失败：用户名", ["zh/login_empty"]),           # as written
    ("ＡＢＣ　１００", ["zh/abc"]),                     # full-width letters, digits and space
    ("购物车", ["zh/cart"]),
])
def test_a_search_finds_a_case_whatever_the_width_typed_me50(report, viewer_page, page_errors,
                                                              typed, found):
    from urllib.parse import quote
    viewer_page.goto(report.as_uri() + "#q=" + quote(typed))
    viewer_page.wait_for_load_state("load")
    shown = viewer_page.locator("details.case:not([hidden])")
    viewer_page.wait_for_function("document.querySelectorAll('details.case:not([hidden])')"
                                  f".length === {len(found)}")
    assert [c.get_attribute("data-q").split()[0] for c in shown.all()] == found
    assert page_errors == []
