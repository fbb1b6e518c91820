"""Pages a QA team's app really has, run through `farm run` on browser:1 with zero-token suites,
checked as the user sees them (verdict, step error, exit code). Real Chromium.

- A case whose url (or a Navigate) the server answers with a file to download was an
  infrastructure error ("open URL failed on browser-1: Page.goto: Download is starting"),
  retried on the browser and exit 3: now the case fails saying a download came, not a page.
- aiInput of "1234567" into a field of maxlength 5 passes as typing would, the field holding
  "12345"; a step that then failed (the form sent another value than the step gave) did not
  say so: now its error ends with "(the input[type=text] kept 5 of the 7 characters of
  "1234567" typed into it (its maxlength is 5))", a secret's value unquoted (its first
  characters would escape its mask).
- chromeArgs: [--force-dark-mode] (or --force-prefers-reduced-motion) left the page light: the
  headless shell ignores that flag and Playwright emulates a light screen in every context,
  overriding the blink-settings that would do it. The page now sees what the flag asks for.
- aiKeyboardPress: F5 (ctrl+r, Alt+Left) passed having done nothing: a key event sent to the
  page does not reach the browser's own shortcuts. Now the page reloads (goes back), unless
  the page prevented the key (an app using F5 itself keeps it).
- aiTap with fileChooserAccept on a button that opens no chooser waited 30 s before failing;
  Chromium opens a chooser only within 5 s of the tap: the step now gives up after 10 s and
  says why; a button that opens its chooser 3 s after the tap still gets the file.
- A step failing after the case had left a page said "(the page threw an uncaught
  ReferenceError …)" of the page it left (the current one threw nothing): notes of a page
  left behind now say "an earlier page …"; a route an app changes with pushState is the same
  page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path == "/report.csv":        # a file to save, not a page to show
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", 'attachment; filename="report.csv"')
                self.send_header("Content-Length", "4")
                self.end_headers()
                self.wfile.write(b"a,b\n")
                return
            self.send_page(b"<h1>Reports</h1><a href='/report.csv'>Download report</a>")

    with serving(Handler) as url:
        yield url


def run(farm: FarmCli, folder: Path) -> tuple[int, dict]:
    done = farm.run("run", folder, "--devices", "browser:1", "--report-dir", folder / "run")
    return done.returncode, {c["name"]: c for c in results(folder / "run")["cases"]}


def test_a_case_opening_a_download_fails_saying_so_not_the_browser(tmp_path: Path,
                                                                  farm: FarmCli, site: str):
    (tmp_path / "download.yaml").write_text(
        f"name: download\nweb:\n  url: {site}/report.csv\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: a,b\n")
    (tmp_path / "link.yaml").write_text(
        f"name: link\nweb:\n  url: {site}/\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: Download report\n      - assertText: Reports\n")
    code, cases = run(farm, tmp_path)
    assert code == 1, cases
    assert cases["link"]["status"] == "passed", cases["link"]
    download = cases["download"]
    assert (download["status"], download["attempt"]) == ("failed", 1), download
    assert download["error"]["message"] == (
        f"cannot open {site}/report.csv: the server sent a file to download there, not a page "
        "(a case's url, or a Navigate, opens pages; an aiTap on the page's download link "
        "downloads it)"), download["error"]


FIELDS = """<!doctype html><html><body>
<label>Zip <input id="zip" maxlength="5"></label>
<label>PIN <input type="password" maxlength="4"></label>
<label>Comment <textarea id="comment" maxlength="8"></textarea></label>
<button onclick="out.textContent = 'Sent ' + zip.value + ' / ' + comment.value">Send</button>
<p id="out"></p></body></html>"""


def test_a_value_cut_at_a_maxlength_is_said_when_a_later_step_fails(tmp_path: Path,
                                                                   farm: FarmCli):
    (tmp_path / "fields.html").write_text(FIELDS)
    (tmp_path / "farm.yaml").write_text("secrets: [PIN]\n")
    flow = "".join(f"      - aiInput: {field}\n        value: \"{value}\"\n" for field, value in
                   [("Zip", "1234567"), ("Comment", "a long comment"), ("PIN", "${PIN}")])
    (tmp_path / "fields.yaml").write_text(
        "name: fields\nweb:\n  serve: .\n  url: fields.html\ntasks:\n  - name: t\n"
        "    continueOnError: true\n    flow:\n" + flow + "      - aiTap: Send\n"
        "      - assertText: Sent 12345 / a long c\n"
        "  - name: u\n    flow:\n      - assertText: Sent 1234567\n")
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    PIN="271828")
    steps = results(tmp_path / "run")["cases"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 5 + ["failed"], steps
    # each cut is its own step's note; a failure three steps later does not name them
    assert steps[-1]["error"] == (
        'expected text "Sent 1234567" is not on screen; the closest text on it is "Sent 12345 / '
        'a long c"'     # (the whole text of the element the closest words are in)
    ), steps[-1]["error"]
    notes = [" ".join(s.get("notes") or []) for s in steps]
    assert 'kept 5 of the 7 characters of "1234567"' in notes[0], notes
    assert 'kept 8 of the 14 characters of "a long comment"' in notes[1], notes
    assert ("the input[type=password] kept 4 of the 6 characters of the text typed into it "
            "(its maxlength is 4)") in notes[2], notes
    assert "2718" not in done.stdout + done.stderr + (tmp_path / "run/results.json").read_text()
    log = (tmp_path / "run/farm.log").read_text()
    assert ('the input[type=text] kept 5 of the 7 characters of "1234567" typed into it (its '
            "maxlength is 5)") in log
    assert 'the textarea kept 8 of the 14 characters of "a long comment"' in log


MEDIA = """<!doctype html><html><body><p id="m"></p><script>
m.textContent = ['dark', 'reduce'].map((v) => v + '=' + matchMedia(
  '(prefers-' + (v === 'dark' ? 'color-scheme' : 'reduced-motion') + ': ' + v + ')').matches)
  .join(' ');
</script></body></html>"""


@pytest.mark.parametrize("flags, shown", [
    ("[]", "dark=false reduce=false"),
    ("[--force-dark-mode, --force-prefers-reduced-motion]", "dark=true reduce=true"),
    ("['--blink-settings=preferredColorScheme=0']", "dark=true reduce=false")])
def test_chrome_args_for_dark_mode_and_reduced_motion_reach_the_page(tmp_path: Path,
                                                                    farm: FarmCli,
                                                                    flags: str, shown: str):
    (tmp_path / "media.html").write_text(MEDIA)
    (tmp_path / "media.yaml").write_text(
        f"name: media\nweb:\n  serve: .\n  url: media.html\n  chromeArgs: {flags}\n"
        "tasks:\n  - name: t\n    flow:\n      - javascript: m.textContent\n"
        "        name: media\n")
    code, cases = run(farm, tmp_path)
    assert code == 0, cases
    assert cases["media"]["data"]["media"] == shown


KEYS = """<!doctype html><html><body><p id="c"></p>
<a href="#" onclick="history.pushState({}, '', '?page=2'); c.textContent = 'page two';
  return false">Next</a>
<script>c.textContent = 'load ' + (sessionStorage.n = (+sessionStorage.n || 0) + 1);
addEventListener('popstate', () => c.textContent = 'back at ' + location.search);
addEventListener('keydown', (e) => {
  if (e.key === 'F5' && e.shiftKey) { e.preventDefault(); c.textContent = 'kept'; } });
</script></body></html>"""


def test_a_reload_or_back_key_does_what_the_browser_would(tmp_path: Path, farm: FarmCli):
    (tmp_path / "keys.html").write_text(KEYS)
    flow = ["assertText: load 1", "aiKeyboardPress: F5", "assertText: load 2",
            "aiKeyboardPress: ctrl+r", "assertText: load 3", "aiTap: Next",
            "assertText: page two", "aiKeyboardPress: Alt+Left", "waitForText: back at",
            "aiKeyboardPress: Shift+F5", "assertText: kept"]
    (tmp_path / "keys.yaml").write_text(
        "name: keys\nweb:\n  serve: .\n  url: keys.html\ntasks:\n  - name: t\n    flow:\n"
        + "".join(f"      - {step}\n" for step in flow))
    code, cases = run(farm, tmp_path)
    steps = cases["keys"]["steps"]
    assert code == 0, [(s["label"], s["error"]) for s in steps if s["error"]]


CHOOSERS = """<!doctype html><html><body>
<input type="file" id="f" onchange="o.textContent = 'file: ' + this.files[0].name">
<button onclick="o.textContent = 'nothing to upload'">Plain</button>
<button onclick="setTimeout(() => f.click(), 3000)">Slow upload</button>
<p id="o"></p></body></html>"""


def test_a_tap_that_opens_no_file_chooser_fails_once_none_can_open(tmp_path: Path,
                                                                  farm: FarmCli):
    (tmp_path / "photo.txt").write_text("x")
    (tmp_path / "choosers.html").write_text(CHOOSERS)
    (tmp_path / "choosers.yaml").write_text(
        "name: choosers\nweb:\n  serve: .\n  url: choosers.html\ntasks:\n"
        "  - name: slow\n    continueOnError: true\n    flow:\n"
        f"      - aiTap: Slow upload\n        fileChooserAccept: {tmp_path / 'photo.txt'}\n"
        "      - assertText: 'file: photo.txt'\n"
        "  - name: none\n    flow:\n"
        f"      - aiTap: Plain\n        fileChooserAccept: {tmp_path / 'photo.txt'}\n")
    code, cases = run(farm, tmp_path)
    steps = cases["choosers"]["steps"]
    assert [s["status"] for s in steps] == ["passed", "passed", "failed"], steps
    assert steps[2]["error"] == (
        "the tap opened no file chooser within 10 s (fileChooserAccept; a page can open one "
        "only in the first 5 s after a tap, and farm waited 5 s more for a busy machine)"
    ), steps[2]["error"]


LEFT = """<!doctype html><html><body>
<button onclick="confirm('Sure?'); undefinedThing()">Ask</button>
<a href="next.html" onclick="confirm('Sure?'); undefinedThing()">Go on</a>
<a href="#" onclick="history.pushState({}, '', '?route=2'); return false">Route</a>
</body></html>"""


def test_notes_of_a_page_the_case_left_say_it_was_an_earlier_page(tmp_path: Path,
                                                                  farm: FarmCli):
    (tmp_path / "left.html").write_text(LEFT)
    (tmp_path / "next.html").write_text("<p>Next page</p>")
    # (a failure names what the page did in its own step or the one before: not earlier)
    flow = ["aiTap: Route", "aiTap: Ask", "assertText: Gone one",
            "aiTap: Go on", "assertText: Gone two"]
    (tmp_path / "left.yaml").write_text(
        "name: left\nweb:\n  serve: .\n  url: left.html\ntasks:\n"
        "  - name: route\n    continueOnError: true\n    flow:\n"
        + "".join(f"      - {step}\n" for step in flow[:3])
        + "  - name: leave\n    flow:\n" + "".join(f"      - {step}\n" for step in flow[3:]))
    code, cases = run(farm, tmp_path)
    steps = cases["left"]["steps"]
    notes = ('{0} opened a confirm dialog "Sure?" and farm answered Cancel; `dialogs: accept` '
             "in the web: section answers OK; {0} threw an uncaught ReferenceError: "
             "undefinedThing is not defined (left.html:{1}))")
    assert steps[2]["error"].startswith('expected text "Gone one" is not on screen'), steps
    assert steps[2]["error"].endswith(" (" + notes.format("the page", 2)), steps[2]["error"]
    # (the Ask step's dialog and error, two steps before, are counted, not named)
    assert steps[4]["error"] == (
        'expected text "Gone two" is not on screen (an earlier page opened a confirm dialog '
        '"Sure?" and farm answered Cancel; `dialogs: accept` in the web: section answers OK; 1 '
        "more before; an earlier page threw an uncaught ReferenceError: undefinedThing is not "
        "defined (left.html:3); 1 more before)"), steps[4]["error"]
