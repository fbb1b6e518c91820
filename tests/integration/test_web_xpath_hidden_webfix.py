"""A step whose `xpath:` matches only an element the page does not show (a submenu's link
while its menu is closed) says so: "matched 1 element, not shown: display:none on its
div.sub; hover or open its menu first?". Before, it said the XPath "matched nothing", which
sent the tester to fix an XPath that was right. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><head><style>
.menu .sub { display: none; } .menu:hover .sub { display: block; }
</style></head><body>
<div class="menu">Account<div class="sub"><a href="#s">Settings</a></div></div>
</body></html>"""


def test_an_xpath_matching_a_hidden_link_says_it_is_not_shown(tmp_path: Path,
                                                               farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: Settings\n        xpath: //div[@class='sub']/a\n")
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    # a failure, not a skip "needs a model": a model could not tap a hidden link either
    assert case["status"] == "failed", case
    said = case["error"]["message"]
    assert "its xpath //div[@class='sub']/a matched 1 element, not shown: display:none " \
        "on its div.sub; hover or open its menu first?" in said, case
    assert "matched nothing" not in said, case
