"""A QA team's phone suite, run as they run it (`farm run --devices android-sim:1,ios-sim:1`):
what they saw go wrong on phones, each kept fixed here.

- ``aiInput`` into a field that already holds text (an edit form: a saved address, a note of
  several lines) replaces all of it on Android as on iOS: Android cleared with a
  cursor-to-end and 40 Deletes, so a 60-character value kept its start and a multi-line one
  every line but the caret's.
- An app that crashes in the middle of a case (a tap kills it: the launcher shows) fails the
  step saying the app is no longer running and where to look, where the next step's miss on
  the launcher read "needs a model" and the case was SKIPPED: a crash hidden from the pass
  rate. An app sent to the background on purpose (Home) is not a crash.
- Back pressed while the soft keyboard is up hides the keyboard and goes nowhere, as on a
  phone: the simulated phone had no keyboard, so a suite whose one Back after an aiInput left
  the screen passed on the simulator and failed on every real phone. farm hides the keyboard
  after typing (``autoDismissKeyboard``, true by default as in Midscene), and one Back
  navigates; with ``autoDismissKeyboard: false`` the keyboard stays up and takes the Back.
- A key name Android does not have (``aiKeyboardPress: KEYCODE_VOLUMEUP`` for
  KEYCODE_VOLUME_UP) fails the case naming the key: it was an infrastructure error, retried
  on the next phone and counted against each one it ran on, as if the phones were broken.
- ``aiDoubleClick`` double-taps on both simulated phones (the page gets its dblclick: "double
  tap to like"); two single taps in a row are not one, as on a phone. Both simulators played
  a double tap as two separate taps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

LONG = "1600 Amphitheatre Parkway, Building 40, Floor 3, Mountain View CA"      # 65 characters
EDIT_PAGE = f"""<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width"><title>Edit address</title>
<style>body{{font:16px sans-serif;padding:16px}} input,textarea,button{{display:block;
margin:8px 0;font-size:18px;padding:8px;width:90%}}</style></head><body><h1>Edit address</h1>
<label for="a">Street address</label><input id="a" value="{LONG}">
<label for="n">Notes</label><textarea id="n" rows="4">first line of the note
second line
third line here</textarea>
<button onclick="document.getElementById('out').textContent = 'A=[' +
  document.getElementById('a').value + '] N=[' +
  document.getElementById('n').value.replace(/\\n/g, '|') + ']'">Save</button>
<p id="out"></p></body></html>"""

EDIT_CASE = """\
name: edit a saved address on {platform}
{platform}:
  launch: com.example.edit
tasks:
  - name: replace both fields
    flow:
      - aiInput: Street address
        value: 1 Main St
      - aiInput: Notes
        value: just one line
      - aiTap: Save
      - assertText: "A=[1 Main St] N=[just one line]"
"""


def write_suite(root: Path) -> Path:
    suite = root / "edit-suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(EDIT_PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  edit:\n    serve: app\n"
                                     "    android: com.example.edit\n"
                                     "    ios: com.example.edit\n")
    for platform in ("android", "ios"):
        (suite / f"edit_{platform}.yaml").write_text(EDIT_CASE.format(platform=platform))
    return suite


def test_ai_input_replaces_a_long_and_a_multi_line_value_on_both_phones(farm: FarmCli):
    suite = write_suite(farm.tmp)
    done = farm.run("run", suite, "--devices", "android-sim:1,ios-sim:1",
                    "--report-dir", farm.tmp / "run")
    cases = by_name(results(farm.tmp / "run"))
    for platform in ("android", "ios"):
        case = cases[f"edit_{platform}"]
        assert case["status"] == "passed", (platform, case.get("error"), done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr


NOTES_PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><label for="t">Title</label><input id="t">
<button>Save note</button></body></html>"""

CRASH_CASE = """\
android:
  launch: com.example.notes
tasks:
  - name: write a note
    flow:
      - aiInput: Title
        value: groceries
      - aiTap: Save note
"""

HOME_CASE = """\
android:
  launch: com.example.notes
tasks:
  - name: leave and come back
    flow:
      - aiKeyboardPress: Home
      - assertNoText: Save note
      - launch: com.example.notes
      - aiTap: Save note
"""


@pytest.fixture
def notes_app(tmp_path):
    """NOTES_PAGE served on a loopback port: its URL."""
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec

    app = tmp_path / "notes-app"
    app.mkdir()
    (app / "index.html").write_text(NOTES_PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        yield served.urls[app.resolve()] + "/"


@pytest.fixture
def notes_iphone(notes_app):
    """One simulated iPhone (a WDA endpoint in this process) with NOTES_PAGE installed as
    com.example.notes."""
    from farm.devices.sim import IosSimulator

    with IosSimulator(1, {"com.example.notes": notes_app}) as sim:
        yield sim


@pytest.fixture
def notes_phone(tmp_path):
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
        with AndroidSimulator(1, {"com.example.notes": served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def test_an_app_that_crashes_mid_case_fails_it_saying_so(farm: FarmCli, notes_phone):
    suite = farm.tmp / "crash-suite"
    suite.mkdir()
    (suite / "crash.yaml").write_text(CRASH_CASE)
    notes_phone.fault(0, "crash", 1)           # the first tap (on the Title field) kills it
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(notes_phone.port))
    case = by_name(results(farm.tmp / "run"))["crash"]
    assert case["status"] == "failed", (case["status"], case.get("error"), done.stdout)
    message = case["error"]["message"]
    assert "com.example.notes is no longer running" in message, message
    assert "front: com.android.launcher3" in message and "adb logcat" in message
    assert done.returncode == 1, done.stdout + done.stderr


def test_an_app_sent_home_on_purpose_is_not_a_crash(farm: FarmCli, notes_phone):
    suite = farm.tmp / "home-suite"
    suite.mkdir()
    (suite / "home.yaml").write_text(HOME_CASE)
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(notes_phone.port))
    case = by_name(results(farm.tmp / "run"))["home"]
    assert case["status"] == "passed", (case.get("error"), done.stdout)


def test_an_iphone_app_that_crashes_mid_case_fails_it_saying_so(farm: FarmCli, notes_iphone):
    suite = farm.tmp / "ios-crash-suite"
    suite.mkdir()
    (suite / "crash.yaml").write_text(CRASH_CASE.replace("android:", "ios:"))
    (suite / "home.yaml").write_text(HOME_CASE.replace("android:", "ios:"))
    notes_iphone.fault(0, "crash", 1)          # the first tap (on the Title field) kills it
    done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=notes_iphone.urls[0])
    cases = by_name(results(farm.tmp / "run"))
    crash, home = cases["crash"], cases["home"]
    assert crash["status"] == "failed", (crash["status"], crash.get("error"), done.stdout)
    message = crash["error"]["message"]
    assert "com.example.notes is no longer running" in message, message
    assert "front: com.apple.springboard" in message
    assert home["status"] == "passed", (home.get("error"), done.stdout)


CONTACTS = {"index.html": "<h1>Contacts</h1><a href=\"edit.html\">Add contact</a>",
            "edit.html": "<h1>New contact</h1><label for=\"n\">Name</label><input id=\"n\">"}

BACK_CASE = """\
android:
  launch: com.example.contacts{dismiss}
tasks:
  - name: add a contact, then leave
    flow:
      - aiTap: Add contact
      - aiInput: Name
        value: Zoë
      - runAdbShell: dumpsys input_method | grep mInputShown
        name: keyboard
      - aiKeyboardPress: Back
      - assertText: {after_one_back}
"""


def test_back_with_the_keyboard_up_hides_it_first(farm: FarmCli):
    suite = farm.tmp / "contacts"
    (suite / "app").mkdir(parents=True)
    for name, body in CONTACTS.items():
        (suite / "app" / name).write_text(
            '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width"></head><body>{body}</body></html>')
    (suite / "farm.yaml").write_text("apps:\n  contacts:\n    serve: app\n"
                                     "    android: com.example.contacts\n")
    (suite / "keyboard_up.yaml").write_text(BACK_CASE.format(
        dismiss="\n  autoDismissKeyboard: false", after_one_back="New contact"))
    (suite / "keyboard_dismissed.yaml").write_text(  # by default, as in Midscene
        BACK_CASE.format(dismiss="", after_one_back="Contacts"))
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir", farm.tmp / "run")
    cases = by_name(results(farm.tmp / "run"))
    up, dismissed = cases["keyboard_up"], cases["keyboard_dismissed"]
    assert up["status"] == "passed", (up.get("error"), done.stdout)
    assert up["data"]["keyboard"].strip() == "mInputShown=true"
    assert dismissed["status"] == "passed", (dismissed.get("error"), done.stdout)
    assert dismissed["data"]["keyboard"].strip() == "mInputShown=false"


KEYS_CASE = """\
android:
  launch: com.example.notes
tasks:
  - name: press keys by their Android names
    flow:
      - aiKeyboardPress: KEYCODE_APP_SWITCH
      - aiKeyboardPress: {key}
"""


def test_a_key_android_does_not_have_is_the_suites_mistake(farm: FarmCli, notes_phone):
    suite = farm.tmp / "keys-suite"
    suite.mkdir()
    (suite / "real_key.yaml").write_text(KEYS_CASE.format(key="KEYCODE_VOLUME_UP"))
    (suite / "typo_key.yaml").write_text(KEYS_CASE.format(key="KEYCODE_VOLUMEUP"))
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(notes_phone.port))
    summary = results(farm.tmp / "run")
    cases = by_name(summary)
    assert cases["real_key"]["status"] == "passed", (cases["real_key"].get("error"), done.stdout)
    typo = cases["typo_key"]
    assert typo["status"] == "failed", (typo["status"], typo.get("error"), done.stdout)
    assert "knows no key KEYCODE_VOLUMEUP" in typo["error"]["message"]
    assert typo["attempt"] == 1 and not summary.get("quarantined")


PHOTO_PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
</head><body><div id="p" style="width:300px;height:300px;background:#9cf">Photo of a cat</div>
<p id="o">Likes 0</p><script>let n = 0; document.getElementById('p').addEventListener(
'dblclick', () => { n++; document.getElementById('o').textContent = 'Likes ' + n; });
</script></body></html>"""

LIKE_CASE = """\
{platform}:
  launch: com.example.photo
tasks:
  - name: double tap to like
    flow:
      - aiTap: Photo of a cat
      - aiTap: Photo of a cat
      - assertText: Likes 0
      - aiDoubleClick: Photo of a cat
      - assertText: Likes 1
"""


def test_a_double_tap_is_one_on_both_phones(farm: FarmCli):
    suite = farm.tmp / "photo"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PHOTO_PAGE)
    (suite / "farm.yaml").write_text("apps:\n  photo:\n    serve: app\n"
                                     "    android: com.example.photo\n"
                                     "    ios: com.example.photo\n")
    for platform in ("android", "ios"):
        (suite / f"like_{platform}.yaml").write_text(LIKE_CASE.format(platform=platform))
    done = farm.run("run", suite, "--devices", "android-sim:1,ios-sim:1",
                    "--report-dir", farm.tmp / "run")
    cases = by_name(results(farm.tmp / "run"))
    for platform in ("android", "ios"):
        case = cases[f"like_{platform}"]
        assert case["status"] == "passed", (platform, case.get("error"), done.stdout)
