"""A phone's soft keyboard after aiInput, as Midscene leaves it: hidden by default
(autoDismissKeyboard is true unless a case or a step says false), by Escape then Back
(keyboardDismissStrategy back-first: Back first), and only while it shows: a key sent with the
keyboard down goes to the app (Escape closes its dialog, Back leaves the screen). Real
`farm run` on `android-sim`, whose adb shell answers `dumpsys input_method` as a phone does."""

from __future__ import annotations

from tests.support.farm_cli import FarmCli, by_name, results

PAGES = {
    "index.html": ("<h1>Contacts</h1><a href=\"edit.html\">Add contact</a> "
                   "<a href=\"pad.html\">PIN entry</a>"),
    "edit.html": "<h1>New contact</h1><label for=\"n\">Name</label><input id=\"n\">",
    # a view that reads keys itself (a PIN pad, a game): typing there brings no keyboard up
    "pad.html": ("<h1>PIN</h1><div id=\"pad\" tabindex=\"0\" role=\"textbox\" "
                 "aria-label=\"PIN pad\">PIN pad</div><p id=\"keys\">keys:</p><script>"
                 "pad.addEventListener('keydown', e => keys.textContent += ' ' + e.key)"
                 "</script>"),
}

CASE = """\
android:
  launch: com.example.contacts{target}
tasks:
  - name: type a name
    flow:
      - aiTap: Add contact
      - aiInput: Name
        value: Zoe{step}
      - runAdbShell: dumpsys input_method | grep mInputShown
        name: keyboard
      - aiKeyboardPress: Back
      - assertText: {after_one_back}
"""

PAD_CASE = """\
android:
  launch: com.example.contacts
tasks:
  - name: type on a pad
    flow:
      - aiTap: PIN entry
      - aiTap: PIN pad
      - aiInput: PIN pad
        value: "42"
        mode: typeOnly
      - assertText: "keys: 4 2"
      - assertNoText: Escape
"""


def test_the_keyboard_after_ai_input_is_hidden_unless_a_case_or_step_says_not(farm: FarmCli):
    suite = farm.tmp / "contacts"
    (suite / "app").mkdir(parents=True)
    for name, body in PAGES.items():
        (suite / "app" / name).write_text(
            '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width"></head><body>{body}</body></html>')
    (suite / "farm.yaml").write_text("apps:\n  contacts:\n    serve: app\n"
                                     "    android: com.example.contacts\n")
    hidden, up = "Contacts", "New contact"      # where one Back leads
    cases = {
        "by_default": CASE.format(target="", step="", after_one_back=hidden),
        "case_says_no": CASE.format(target="\n  autoDismissKeyboard: false", step="",
                                    after_one_back=up),
        "step_says_no": CASE.format(target="", step="\n        autoDismissKeyboard: false",
                                    after_one_back=up),
        "step_says_yes": CASE.format(target="\n  autoDismissKeyboard: false",
                                     step="\n        autoDismissKeyboard: true",
                                     after_one_back=hidden),
        "back_first": CASE.format(target="\n  keyboardDismissStrategy: back-first", step="",
                                  after_one_back=hidden),
        "pad": PAD_CASE,
    }
    for name, text in cases.items():
        (suite / f"{name}.yaml").write_text(text)
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir", farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    for name in cases:
        assert got[name]["status"] == "passed", (name, got[name].get("error"), done.stdout)
    shown = {name: got[name]["data"]["keyboard"].strip() for name in cases if name != "pad"}
    assert shown == {"by_default": "mInputShown=false", "case_says_no": "mInputShown=true",
                     "step_says_no": "mInputShown=true", "step_says_yes": "mInputShown=false",
                     "back_first": "mInputShown=false"}
