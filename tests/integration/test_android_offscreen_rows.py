"""A long list on a simulated Android phone, as a real phone shows it to farm: `uiautomator
dump` lists only what the user can see (a row below the fold is not in it, a row cut by the
screen's edge is, its bounds clipped), so ``aiTap: Note 38`` with no model finds the row by
swiping through the list and reading the screen again after each swipe, as
UiScrollable.scrollIntoView does. The simulator's dump used to hold every row, off-screen ones
too: the text tier found them there, so the step passed on the simulator and needed a model on
a real phone."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.example.notes"
NOTES_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width"><title>Notes</title>
<style>body{margin:0;font:18px sans-serif} header{position:fixed;top:0;left:0;right:0;
height:48px;background:#fff;border-bottom:1px solid #888} ul{margin:56px 0 0;padding:0}
li{list-style:none;height:72px;padding:8px;border-bottom:1px solid #ccc;cursor:pointer}
</style></head>
<body><header id="opened">No note open</header><ul id="notes"></ul>
<script>
  const list = document.getElementById("notes");
  for (let i = 1; i <= 60; i++) {
    const row = document.createElement("li");
    row.textContent = "Note " + i;
    row.onclick = () => { document.getElementById("opened").textContent = "Opened Note " + i; };
    list.appendChild(row);
  }
</script></body></html>"""

CASES = {
    "far_row": """\
android:
  launch: com.example.notes
tasks:
  - name: open a note far below the fold
    flow:
      - aiTap: Note 38
      - assertText: Opened Note 38
""",
    "no_such_row": """\
android:
  launch: com.example.notes
tasks:
  - name: a note the list does not have
    flow:
      - aiTap: Note 99
""",
}


@pytest.fixture
def notes_phone(tmp_path: Any) -> Iterator[Any]:
    """One simulated Android phone (adb server in this process) with NOTES_PAGE installed as
    com.example.notes."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "notes-app"
    app.mkdir()
    (app / "index.html").write_text(NOTES_PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with AndroidSimulator(1, {PKG: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def _dump(phone: Any) -> str:
    """The app's screen as a driver reads it: launched and dumped over adb (adbutils)."""
    import adbutils
    dev = adbutils.AdbClient(host="127.0.0.1", port=phone.port).device(phone.serials[0])
    dev.shell(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    said = dev.shell("uiautomator dump /sdcard/window_dump.xml")
    assert "dumped to" in said, said
    return dev.sync.read_bytes("/sdcard/window_dump.xml").decode("utf-8")


def test_the_dump_holds_only_the_rows_a_user_sees(notes_phone):
    xml = _dump(notes_phone)
    rows = re.findall(r'text="Note (\d+)"[^>]*bounds="\[\d+,(\d+)\]\[\d+,(\d+)\]"', xml)
    shown = [int(n) for n, _, _ in rows]
    assert shown[0] == 1 and shown == list(range(1, len(shown) + 1)), shown
    assert 'text="Note 38"' not in xml and len(shown) < 20, shown   # far below the fold
    # the last row listed is cut by the screen's bottom edge: there, bounds clipped to it
    top, bottom = int(rows[-1][1]), int(rows[-1][2])
    assert bottom == 2400 and bottom - top < int(rows[0][2]) - int(rows[0][1]), rows
    # and the page says it scrolls, as a list does on a phone
    assert 'scrollable="true"' in xml


def test_a_zero_token_tap_on_a_row_far_below_the_fold_finds_it(farm: FarmCli, notes_phone):
    suite = farm.tmp / "notes-suite"
    suite.mkdir()
    for name, case in CASES.items():
        (suite / f"{name}.yaml").write_text(case)
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(notes_phone.port))
    cases = by_name(results(farm.tmp / "run"))
    far = cases["far_row"]
    # no model configured: passed means the text tier found it, and the tap opened the note
    assert far["status"] == "passed", (far.get("error"), done.stdout)
    missing = cases["no_such_row"]
    message = missing["error"]["message"]
    assert missing["status"] == "failed", (missing["status"], message)
    assert re.search(r'no element matches "Note 99" \(swiped \d+ times through the '
                     r"scrolling list and did not find it\)", message), message
    assert done.returncode == 1, done.stdout + done.stderr
