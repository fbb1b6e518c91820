"""What a phone user hits, second audit: real `farm run` on `android-sim` / `ios-sim` (and the
drivers through adbutils and facebook-wda against the simulators).

The soft keyboard: on a phone it stays up after a tap on a text field (or an aiInput with
autoDismissKeyboard: false) and covers the lower part of the screen; the app's views under it
stay in the app's tree with their bounds. A following aiTap on a button there ("Sign in" at
the bottom of a login form) tapped a key instead: the letter went into the field, the button
was never pressed.
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

PKG = "com.example.login"

LOGIN = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:18px sans-serif">
<h1 style="margin:16px">Log in</h1>
<input id="email" placeholder="Email" style="display:block;margin:8px 16px;font-size:18px">
<p id="said" style="margin:16px">not signed in</p>
<button id="go" style="position:fixed;left:16px;right:16px;bottom:48px;height:56px;
font-size:18px">Sign in</button>
<script>go.onclick = () => said.textContent = "Welcome " + email.value;</script>
</body></html>"""


def _suite(farm: FarmCli, cases: dict[str, str]) -> object:
    suite = farm.tmp / "login"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(LOGIN)
    (suite / "farm.yaml").write_text(f"apps:\n  login:\n    serve: app\n    android: {PKG}\n"
                                     f"    ios: {PKG}\n")
    for name, text in cases.items():
        (suite / f"{name}.yaml").write_text(text)
    return suite


KEYBOARD_UP = """\
{platform}:
  launch: {pkg}
tasks:
  - name: sign in with the keyboard up
    flow:
{typing}
      - aiTap: Sign in
      - assertText: Welcome zoe
      - assertNoText: not signed in
"""
TYPED_KEPT_UP = """\
      - aiInput: Email
        value: zoe
        autoDismissKeyboard: false"""
TAPPED_FIELD = """\
      - aiTap: Email
      - aiKeyboardPress: z
      - aiKeyboardPress: o
      - aiKeyboardPress: e"""


def test_an_android_tap_on_a_button_under_the_keyboard_hides_the_keyboard_first(farm):
    """The keyboard stays up after aiInput with autoDismissKeyboard: false, and after a tap
    on the field; "Sign in" lies under it: farm hides the keyboard and taps the button (the
    case passes), where the tap typed a letter into the field."""
    cases = {name: KEYBOARD_UP.format(platform="android", pkg=PKG, typing=typing)
             for name, typing in (("typed", TYPED_KEPT_UP), ("tapped", TAPPED_FIELD))}
    suite = _suite(farm, cases)
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    for name in cases:
        assert got[name]["status"] == "passed", (name, got[name].get("error"), done.stdout)


def test_an_iphone_tap_on_a_button_under_the_keyboard_dismisses_it_first(farm):
    """The same on an iPhone, whose WDA source holds the keyboard; when WDA cannot dismiss
    it (an iPhone keyboard without a hide key), the step fails saying the keyboard covers
    the button, where the tap typed a letter and the step passed."""
    stuck = KEYBOARD_UP.format(platform="ios", pkg=PKG, typing=TYPED_KEPT_UP.replace(
        "      - aiInput", "      - runWdaRequest:\n          method: POST\n"
        "          endpoint: /farm/fault\n          data: {name: keyboard_stuck, count: 1}\n"
        "      - aiInput"))
    cases = {"typed": KEYBOARD_UP.format(platform="ios", pkg=PKG, typing=TYPED_KEPT_UP),
             "stuck": stuck}
    suite = _suite(farm, cases)
    done = farm.run("run", suite, "--devices", "ios-sim:1", "--report-dir", farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    assert got["typed"]["status"] == "passed", (got["typed"].get("error"), done.stdout)
    assert got["stuck"]["status"] == "failed", done.stdout
    said = got["stuck"]["error"]["message"]
    assert '"Sign in" is under the soft keyboard, which stayed up' in said, said


@pytest.fixture(scope="module")
def login_url(tmp_path_factory):
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    app = tmp_path_factory.mktemp("login")
    (app / "index.html").write_text(LOGIN)
    with AppServer() as apps:
        apps.serve([AppSpec(name="login", serve=app, env="LOGIN_URL")])
        yield apps.env["LOGIN_URL"] + "/"


def test_the_android_simulators_keyboard_covers_the_screen_as_a_phones_does(login_url):
    """With a field focused: the screenshot shows the keyboard over the lower 40%, a tap
    there types a key and does not reach the app, the dump still holds "Sign in" with its
    bounds, and `dumpsys window InputMethod` says where the keyboard's window is."""
    import io

    from PIL import Image

    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget

    with AndroidSimulator(1, {PKG: login_url}) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            phone.start_session(AndroidTarget(launch=PKG))
            w, h = phone.size()
            assert phone.keyboard_top() is None
            field = next(n for n in phone.hierarchy().nodes if n.role.endswith("EditText"))
            phone.tap(*field.rect.center)
            assert phone.keyboard_top() == h - round(h * 0.4)
            shot = Image.open(io.BytesIO(phone.screenshot())).convert("RGB")
            assert shot.getpixel((5, h - 5)) == (210, 213, 219)      # the keyboard's grey
            button = next(n for n in phone.hierarchy().nodes if n.text == "Sign in")
            assert button.rect.y > h * 0.6 and button.visible     # still in the dump
            phone.tap(*button.rect.center)                        # a key, not the button
            tree = phone.hierarchy()
            assert "not signed in" in tree.visible_text()
        finally:
            phone.end_session()
            phone.close()


LOCKED_CASE = f"""\
ios:
  launch: {PKG}
tasks:
  - name: sign in
    flow:
      - aiInput: Email
        value: zoe
      - aiTap: Sign in
      - assertText: Welcome zoe
"""


@pytest.mark.parametrize("passcode", [False, True], ids=["swipe_lock", "passcode"])
def test_an_iphone_locked_at_the_start_is_unlocked_or_named_as_locked(farm, login_url,
                                                                      passcode):
    """An iPhone whose screen is locked when the run starts (no app launches behind its lock
    screen): farm unlocks it and the case runs; when a passcode keeps it locked, the case is
    the device's error naming the lock, not a launch failure to puzzle over."""
    from farm.devices.sim import IosSimulator

    suite = farm.tmp / "locked"
    suite.mkdir()
    (suite / "sign_in.yaml").write_text(LOCKED_CASE)
    with IosSimulator(1, {PKG: login_url}) as sim:
        sim.fault(0, "locked", -1)
        sim.fault(0, "passcode", -1 if passcode else 0)
        done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
                        FARM_IOS_WDA_URLS=sim.urls[0])
    case = by_name(results(farm.tmp / "run"))["sign_in"]
    if not passcode:
        assert (done.returncode, case["status"]) == (0, "passed"), (case.get("error"),
                                                                    done.stdout, done.stderr)
        return
    assert (done.returncode, case["status"]) == (3, "error"), (done.stdout, done.stderr)
    said = case["error"]["message"]
    assert "is locked, and WebDriverAgent could not unlock it (unknown error (Timed out " \
           "while waiting until the screen gets unlocked))" in said, said
