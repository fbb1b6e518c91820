"""A web journey's findings, real `farm run`, real Chromium: a target a loading spinner covers
is waited for as a disabled or missing one is (its cover goes, the tap passes); a target the
zero-token tiers find on the page but not shown (a hover menu never opened) fails the step,
since a model could not tap it either, while a true miss stays a skip for a model; a dialog
farm answered and a download the page started are step notes of a step that passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

# A spinner over the button, taken away by the page's own timer (well inside the 5 s wait
# a disabled or missing target gets)
SPINNER = """<!doctype html><html><body>
<div style="position:relative"><button style="margin:40px"
  onclick="document.getElementById('o').textContent='Pay clicked'">Pay now</button>
<div id="spin" style="position:absolute;left:0;top:0;width:400px;height:200px;
  background:rgba(255,255,255,.9)">Loading…</div></div>
<p id="o">unpaid</p>
<script>setTimeout(() => document.getElementById('spin').remove(), 800);</script>
</body></html>"""

HOVER = """<!doctype html><html><head><style>
.menu .sub{display:none;position:absolute;background:#eee}.menu:hover .sub{display:block}
</style></head><body><h1>Hover page</h1>
<nav class="menu"><span>Account menu</span><div class="sub"><a href="#"
  onclick="document.getElementById('o').textContent='Settings opened';return false"
  >Settings</a></div></nav>
<p style="margin-top:80px" id="o">menu closed</p></body></html>"""

WINDOWS = """<!doctype html><html><body>
<button onclick="document.getElementById('o').textContent='confirm=' + confirm('Delete item?')"
  >Ask confirm</button>
<button onclick="const a = document.createElement('a');
  a.href = window.URL.createObjectURL(new Blob(['q3 figures'], {type: 'text/plain'}));
  a.download = 'report.txt'; document.body.append(a); a.click();
  document.getElementById('o').textContent = 'download asked'">Download report</button>
<p id="o">nothing yet</p></body></html>"""


# A list that loads 30 more rows 200 ms after it is scrolled to its end, up to 90
ENDLESS = """<!doctype html><html><body><ul id="l"></ul><script>
let n = 0;
function more() { for (let i = 0; i < 30; i++) { n++; const li = document.createElement('li');
  li.style.height = '30px'; li.textContent = 'Row item ' + n;
  document.getElementById('l').appendChild(li); } }
more();
let loading = false;   // (rows come from the server as a list's do: no timer to race)
addEventListener('scroll', () => { if (innerHeight + scrollY >= document.body.scrollHeight - 50
  && n < 90 && !loading) { loading = true;
  fetch('more.txt').then((r) => r.text()).then(() => { more(); loading = false; }); } });
</script></body></html>"""

# A list that adds its rows at once as its scroll ends at the bottom: they are there before
# farm's next look at the page (the look must count from the scroll's end, not from now)
AT_END = """<!doctype html><html><body><ul id="l"></ul><script>
let n = 0;
function more() { for (let i = 0; i < 30; i++) { n++; const li = document.createElement('li');
  li.style.height = '30px'; li.textContent = 'Row item ' + n;
  document.getElementById('l').appendChild(li); } }
more();
addEventListener('scrollend', () => {
  if (innerHeight + scrollY >= document.body.scrollHeight - 50 && n < 90) more(); });
</script></body></html>"""


def _case(folder: Path, stem: str, page: str, *steps: str) -> None:
    flow = "".join(f"      - {s}\n" for s in steps)
    (folder / f"{stem}.yaml").write_text(
        f"name: {stem}\nweb:\n  url: ./{page}\n  viewportWidth: 800\n  viewportHeight: 600\n"
        f"tasks:\n  - name: t\n    flow:\n{flow}")


@pytest.fixture(scope="module")
def cases_web49(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("web49")
    suite = tmp / "s"
    suite.mkdir()
    (suite / "spinner.html").write_text(SPINNER)
    (suite / "hover.html").write_text(HOVER)
    (suite / "windows.html").write_text(WINDOWS)
    (suite / "endless.html").write_text(ENDLESS)
    (suite / "more.txt").write_text("30 more\n")
    _case(suite, "endless", "endless.html",
          "aiScroll:\n        direction: down\n        scrollType: scrollToBottom",
          "javascript: return document.querySelectorAll('li').length\n        name: rows")
    endless = suite / "endless.yaml"        # (served: the page fetches its rows)
    endless.write_text(endless.read_text().replace("  url: ./endless.html\n",
                                                   "  serve: .\n  url: endless.html\n"))
    assert "serve: ." in endless.read_text()
    (suite / "at_end.html").write_text(AT_END)
    _case(suite, "at_end", "at_end.html",
          "aiScroll:\n        direction: down\n        scrollType: scrollToBottom",
          "javascript: return document.querySelectorAll('li').length\n        name: rows")
    _case(suite, "spinner", "spinner.html", "aiTap: Pay now", "assertText: Pay clicked")
    _case(suite, "hover_text", "hover.html", "aiTap: Settings")
    _case(suite, "hover_xpath", "hover.html",
          "aiTap: Settings\n        xpath: //a[text()='Settings']")
    _case(suite, "hover_opened", "hover.html", "aiHover: Account menu", "aiTap: Settings",
          "assertText: Settings opened")
    _case(suite, "true_miss", "hover.html", "aiTap: the gear icon")
    _case(suite, "notes", "windows.html", "aiTap: Ask confirm", "assertText: confirm=false",
          "aiTap: Download report", "assertText: download asked")
    farm = FarmCli(tmp)
    try:
        farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp / "run")
    finally:
        farm.close()
    return {c["name"]: c for c in results(tmp / "run")["cases"]}


def _said(case: dict) -> tuple[str, str | None]:
    return case["status"], (case.get("error") or {}).get("message")


def test_a_target_a_spinner_covers_is_tapped_once_the_spinner_goes_web49(
        cases_web49: dict[str, dict]) -> None:
    assert _said(cases_web49["spinner"]) == ("passed", None)


def test_a_target_found_but_not_shown_fails_and_a_true_miss_is_skipped_web49(
        cases_web49: dict[str, dict]) -> None:
    hidden = "matched 1 element, not shown: display:none on its div.sub; hover or open its " \
             "menu first?"
    assert _said(cases_web49["hover_text"]) == (
        "failed", f'no element on screen matches "Settings": its text {hidden}')
    status, message = _said(cases_web49["hover_xpath"])
    assert (status, message.splitlines()[0]) == (
        "failed", f"no element on screen matches \"Settings\": its xpath "
                  f"//a[text()='Settings'] {hidden}")
    assert _said(cases_web49["hover_opened"]) == ("passed", None)
    assert cases_web49["true_miss"]["status"] == "skipped"


def test_an_answered_dialog_and_a_download_are_notes_of_passed_steps_web49(
        cases_web49: dict[str, dict]) -> None:
    case = cases_web49["notes"]
    assert case["status"] == "passed"
    notes = {s["index"]: s.get("notes") for s in case["steps"]}
    assert notes[1] == ['the page opened a confirm dialog "Delete item?" and farm answered '
                        "Cancel; `dialogs: accept` in the web: section answers OK"]
    download = 'the page started a download of "report.txt" (farm does not keep downloaded ' \
               "files)"
    # (the browser tells of a download as it begins: the tap's step, or the check after it)
    assert [i for i, n in notes.items() if download in (n or [])] in ([3], [4])


def test_a_scroll_to_the_bottom_waits_for_the_rows_a_list_loads_at_its_end_web49(
        cases_web49: dict[str, dict]) -> None:
    case = cases_web49["endless"]
    assert case["status"] == "passed"
    assert [s.get("output") for s in case["steps"]] == [None, 90]


def test_rows_a_list_adds_as_its_scroll_ends_are_scrolled_through_too_web49(
        cases_web49: dict[str, dict]) -> None:
    case = cases_web49["at_end"]
    assert case["status"] == "passed"
    assert [s.get("output") for s in case["steps"]] == [None, 90]
