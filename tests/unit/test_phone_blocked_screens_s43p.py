"""What a phone shows in place of the case's screen, read from its tree as real phones show it
(Chrome's and Safari's error pages, a server's 404 page, Android's permission controller and
"isn't responding" dialogs), and the iOS keys a suite may press: Back is the edge swipe, not a
near miss of Backspace."""

from __future__ import annotations

from farm.devices.android import SYSTEM_DIALOG_FRONTS, app_package
from farm.devices.keys import key_names, unknown_key
from farm.devices.native_tree import (android_dialog, browser_error_shown, dialog_failure,
                                      page_failure)
from farm.suite.checks import suggest


def _dump(package: str, *nodes: tuple[str, str, str]) -> str:
    inner = "".join(f'<node text="{text}" resource-id="{rid}" class="{cls}" package="{package}"'
                    ' bounds="[100,900][980,1000]" />' for cls, rid, text in nodes)
    return (f'<hierarchy rotation="0"><node text="" class="android.widget.FrameLayout" '
            f'package="{package}" bounds="[0,0][1080,2400]">{inner}</node></hierarchy>')


def test_chromes_and_safaris_error_pages_name_why_the_page_did_not_load():
    # Chrome on Android (and on iOS): its title, the host, the reason code
    assert page_failure(["This site can’t be reached", "127.0.0.1 refused to connect.",
                         "ERR_CONNECTION_REFUSED"], "http://127.0.0.1:3999/") == (
        'the browser could not load the page: "This site can’t be reached" '
        "(ERR_CONNECTION_REFUSED); the case opened http://127.0.0.1:3999/")
    assert browser_error_shown(["Your connection is not private",
                                "NET::ERR_CERT_AUTHORITY_INVALID"]) == (
        '"Your connection is not private" (NET::ERR_CERT_AUTHORITY_INVALID)')
    assert browser_error_shown(["Webpage not available",
                                "net::ERR_NAME_NOT_RESOLVED"]) == (
        '"Webpage not available" (ERR_NAME_NOT_RESOLVED)')
    # Safari says no code
    assert page_failure(["Safari Can’t Open the Page", "Safari can’t open the page because "
                         "the server can’t be found."], None) == (
        'the browser could not load the page: "Safari Can’t Open the Page"')


def test_an_http_error_page_is_named_only_for_a_page_the_case_opened():
    python = ["Error response", "Error code: 404", "Message: File not found."]
    assert page_failure(python, "http://h/nope.html") == (
        'the page shows HTTP error 404 Not Found ("Error code: 404"); the case opened '
        "http://h/nope.html")
    assert page_failure(python, None) is None           # an app's own screen: not said
    assert page_failure(["503 Service Unavailable", "nginx"], "u").startswith(
        "the page shows HTTP error 503 Service Unavailable")
    # Chrome's own page for an error with an empty body: the status wins over its title
    assert page_failure(["This page isn’t working", "HTTP ERROR 500"], "u").startswith(
        'the page shows HTTP error 500 Internal Server Error ("HTTP ERROR 500")')
    # a number among words is no status
    assert page_failure(["Order 404 items", "500 pts", "Greet"], "u") is None


def test_androids_system_dialogs_are_named_with_their_buttons():
    ids = "com.android.permissioncontroller:id/"
    asks = _dump("com.google.android.permissioncontroller",
                 ("android.widget.TextView", ids + "permission_message",
                  "Allow Maps to access this device’s location?"),
                 ("android.widget.Button", ids + "permission_allow_foreground_only_button",
                  "While using the app"),
                 ("android.widget.Button", ids + "permission_allow_one_time_button",
                  "Only this time"),
                 ("android.widget.Button", ids + "permission_deny_button", "Don’t allow"))
    said = android_dialog(asks, SYSTEM_DIALOG_FRONTS)
    assert said == ("Allow Maps to access this device’s location?",
                    ["While using the app", "Only this time", "Don’t allow"])
    assert dialog_failure("a system dialog", *said) == (
        'a system dialog is in front of the app: "Allow Maps to access this device’s '
        'location?" (buttons: While using the app, Only this time, Don’t allow); answer it '
        "with a step first (aiTap: While using the app)")
    anr = _dump("android", ("android.widget.TextView", "android:id/alertTitle",
                            "Maps isn't responding"),
                ("android.widget.Button", "android:id/aerr_close", "Close app"),
                ("android.widget.Button", "android:id/aerr_wait", "Wait"))
    assert android_dialog(anr, SYSTEM_DIALOG_FRONTS) == ("Maps isn't responding",
                                                         ["Close app", "Wait"])
    # the app's own screen, with buttons of its own: no system dialog
    app = _dump("com.example.maps", ("android.widget.Button", "", "Allow"))
    assert android_dialog(app, SYSTEM_DIALOG_FRONTS) is None


def test_ios_back_loads_and_no_navigation_key_is_offered_a_text_editing_one():
    assert unknown_key("Back", "ios") is None and unknown_key("back", "ios") is None
    for key in ("Menu", "AppSwitch", "RecentApps", "Search", "Power"):
        assert unknown_key(key, "ios") == key
        assert suggest(key, key_names("ios")) == "", key


def test_midscene_package_activity_form_names_its_package():
    assert app_package("com.qa.lab/.MainActivity") == "com.qa.lab"
    assert app_package("com.qa.lab") == "com.qa.lab"
    assert app_package("https://example.com/a/b") == "https://example.com/a/b"
