"""A tap on an element that something else covers (a sticky header over it, a cookie banner, a
modal's backdrop) went to the cover, and the step passed. Now the target is scrolled to the
middle of the viewport once, which takes it from under a sticky header, and a target still
covered fails the step naming the cover. What takes a target's clicks is no cover: the label of
a styled checkbox, the rest of the link or button it is part of, a shadow root's content. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

# A sticky header; "Pay now" below the fold, brought under the header by a `javascript` step.
STICKY = """<!doctype html><html><body style="margin:0">
<header style="position:sticky;top:0;height:90px;background:#ddd;z-index:5">Shop</header>
<div style="height:1200px">Products</div>
<button id="pay" style="height:40px" onclick="this.textContent='Paid'">Pay now</button>
<div style="height:1200px"></div>
</body></html>"""

# A banner over everything but itself; the controls that are never covered, beside it.
BANNER = """<!doctype html><html><body style="margin:0">
<button onclick="this.textContent='Paid'">Pay now</button>
<input placeholder="Coupon code">
<label style="position:relative;display:inline-block;padding-left:24px">
  <input type="checkbox" id="agree" style="position:absolute;left:0;top:0;margin:0">
  <span style="position:absolute;left:0;top:0;width:20px;height:20px;background:#09f"></span>
  I agree to the terms</label>
<div style="position:relative;height:30px">
  <input type="checkbox" id="news" style="margin:0;width:20px;height:20px">
  <label for="news" style="position:absolute;left:0;top:0;width:180px;height:20px">
    <span style="display:inline-block;width:20px;height:20px;background:#09f"></span>
    Send me the newsletter</label></div>
<button onclick="this.textContent='Opened'"><span>Open details</span></button>
<p><a href="#" style="position:relative" onclick="this.firstChild.textContent='Cart open'"
  ><span>View the cart</span><b style="position:absolute;left:30px;top:0">2 items</b></a></p>
<shadow-pay></shadow-pay>
<div id="cookie-banner" style="position:fixed;top:0;left:0;right:0;bottom:0;z-index:9;
  background:rgba(0,0,0,.4)">
  <p style="background:#fff;margin:300px 0 0">We use cookies to make the shop work for you</p>
  <button onclick="document.getElementById('cookie-banner').remove()">Accept all</button>
</div>
<script>
customElements.define("shadow-pay", class extends HTMLElement {
  connectedCallback() {
    const b = document.createElement("button");
    b.textContent = "Shadow buy";
    b.onclick = () => { b.textContent = "Bought"; };
    this.attachShadow({mode: "open"}).append(b);
  }
});
</script>
</body></html>"""


def _case(folder: Path, stem: str, page: str, *steps: str) -> None:
    flow = "".join(f"      - {s}\n" for s in steps)
    (folder / f"{stem}.yaml").write_text(
        f"name: {stem}\nweb:\n  url: ./{page}\n  viewportWidth: 800\n  viewportHeight: 600\n"
        f"tasks:\n  - name: t\n    flow:\n{flow}")


def _checked(box: str) -> str:
    return (f"javascript: |\n          if (!document.getElementById('{box}').checked) "
            f"throw new Error('{box} is not checked')")


def test_a_covered_target_is_uncovered_by_a_scroll_or_fails_naming_the_cover(
        farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "sticky.html").write_text(STICKY)
    (suite / "banner.html").write_text(BANNER)
    under_header = ("javascript: \"window.scrollTo(0, document.getElementById('pay')"
                    ".offsetTop - 40)\"")
    _case(suite, "sticky", "sticky.html", under_header, "aiTap: Pay now", "assertText: Paid")
    _case(suite, "banner", "banner.html", "aiTap: Pay now")
    _case(suite, "double", "banner.html", "aiDoubleClick: Pay now")
    _case(suite, "right", "banner.html", "aiRightClick: Pay now")
    _case(suite, "press", "banner.html", "aiLongPress: Pay now")
    _case(suite, "coupon", "banner.html", "aiInput: Coupon code\n        value: SAVE10")
    _case(suite, "accepted", "banner.html", "aiTap: Accept all", "aiTap: Pay now",
          "assertText: Paid", "aiTap: I agree to the terms", _checked("agree"),
          "aiTap: Send me the newsletter", _checked("news"),
          "aiTap: Open details", "assertText: Opened", "aiTap: View the cart",
          "assertText: Cart open", "aiTap: Shadow buy",
          "assertText: Bought")
    farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    said = {name: (c["status"], (c.get("error") or {}).get("message"))
            for name, c in cases.items()}
    cover = '<div id="cookie-banner"> "We use cookies to make the…"'
    assert said == {
        "sticky": ("passed", None),
        "accepted": ("passed", None),
        "banner": ("failed", f'"Pay now" is covered by {cover}: a tap there would hit that'),
        "double": ("failed", f'"Pay now" is covered by {cover}: a double-click there would '
                             "hit that"),
        "right": ("failed", f'"Pay now" is covered by {cover}: a right-click there would '
                            "hit that"),
        "press": ("failed", f'"Pay now" is covered by {cover}: a long press there would '
                            "hit that"),
        "coupon": ("failed", f'"Coupon code" is covered by {cover}: a tap there would hit '
                             "that")}
