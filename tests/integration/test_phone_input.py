"""Text input on phones takes the platform's fast path, and what lands is what was typed.

iOS: `farm sim ios` (a separate process, as a user starts it) and `farm run --devices ios:1`
through facebook-wda. ``aiInput`` replaces a field's content with WDA's element ``/clear`` and
``/value`` (the whole string in one request), ``mode: typeOnly`` types key by key through
``/wda/keys``; the simulator's request log (``GET /farm/requests``) shows which path was taken.
Android: `input text` gets ``%`` through as ``%`` (not only ``%s`` as a space).
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.farm.sim.app"
# A field that counts its key events: "keys N value V" says how the text came.
KEYS_PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Keys</title></head><body><label for="entry">Field</label> <input id="entry">
<p id="out">keys 0 value</p><script>
const field = document.getElementById('entry'); let keys = 0;
const show = () => { document.getElementById('out').textContent =
  'keys ' + keys + ' value ' + field.value; };
field.addEventListener('keydown', () => { keys++; show(); });
field.addEventListener('input', show);</script></body></html>"""
TRICKY = "100% off & more, 5%s too"      # `input text` reads %s as a space


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    farm = FarmCli(tmp_path_factory.mktemp("phone-input"))
    yield farm
    farm.close()


@pytest.fixture(scope="module")
def wda_url(cli) -> str:
    """A `farm sim ios` process showing KEYS_PAGE as app BUNDLE; its WebDriverAgent URL."""
    app = cli.tmp / "app"
    app.mkdir()
    (app / "index.html").write_text(KEYS_PAGE)
    sim = cli.start("sim", "ios", "--count", "1", "--app", app, "--package", BUNDLE)
    line = sim.wait_for_line("WebDriverAgent on ")
    return re.search(r"(http://\S+)", line).group(1)


def requests_served(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/farm/requests", timeout=30) as reply:
        return json.loads(reply.read())["value"]


def test_ios_input_fills_in_one_request_and_type_only_types_key_by_key(cli, wda_url):
    case = cli.tmp / "suite" / "ios_input.yaml"
    case.parent.mkdir()
    case.write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: type into the field
    flow:
      - aiInput: Field
        value: hello
      - assertText: keys 0 value hello
      - aiInput: Field
        value: abc
        mode: typeOnly
      - assertText: keys 3 value helloabc
      - aiInput: Field
        value: "{TRICKY}"
      - assertText: "keys 3 value {TRICKY}"
""")
    before = len(requests_served(wda_url))
    done = cli.run("run", case.parent, "--devices", "ios:1", "--report-dir", cli.tmp / "run",
                   FARM_IOS_WDA_URLS=wda_url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert by_name(results(cli.tmp / "run"))["ios_input"]["status"] == "passed"

    served = requests_served(wda_url)[before:]
    values = [r for r in served if re.fullmatch(r"POST /session/[^/]+/element/[^/]+/value", r)]
    clears = [r for r in served if re.fullmatch(r"POST /session/[^/]+/element/[^/]+/clear", r)]
    keys = [r for r in served if r.endswith("/wda/keys")]
    assert len(values) == 2 and len(clears) == 2, served    # the two replacing inputs
    assert len(keys) == 1, served                           # typeOnly, one request of keys


def test_wda_element_endpoints_behave_as_webdriveragent(wda_url):
    """The simulator's side, through facebook-wda alone: no focused field is "no such
    element"; ``/value`` types at the caret (appends), ``/clear`` empties, a reference to a
    field of a page that went away is stale."""
    import wda
    from wda.exceptions import WDARequestError, WDAStaleElementReferenceError

    session = wda.Client(wda_url).session(BUNDLE)
    http = session._session_http
    with pytest.raises(WDARequestError) as refused:
        http.get("/element/active")
    assert refused.value.value["error"] == "no such element"

    session.tap(100, 18)                                 # on the field: it takes the focus
    found = http.get("/element/active").value
    field = wda.Element(session, found["ELEMENT"])
    assert found["element-6066-11e4-a52e-4f735466cecf"] == found["ELEMENT"]
    assert http.get("/element/active").value["ELEMENT"] == found["ELEMENT"]   # same field
    field.set_text("one")
    field.set_text(["t", "wo"])
    assert "keys 0 value onetwo" in session.source()
    field.clear_text()
    field.set_text("x\b\by")                             # backspace deletes, as on a keyboard
    assert "keys 2 value y" in session.source()

    session.app_terminate(BUNDLE)
    session.app_launch(BUNDLE)
    with pytest.raises(WDAStaleElementReferenceError):
        field.set_text("late")


@pytest.fixture(scope="module")
def android_phone(cli):
    """One simulated Android phone (adb server in process) showing KEYS_PAGE, driven by farm's
    AndroidDevice over adbutils."""
    from farm.appserver import AppServer
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget, AppSpec

    app = cli.tmp / "android-app"
    app.mkdir()
    (app / "index.html").write_text(KEYS_PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="keys", serve=app)])
        with AndroidSimulator(1, {BUNDLE: served.urls[app.resolve()] + "/"}) as sim:
            phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
            phone.open()
            phone.start_session(AndroidTarget(launch=BUNDLE))
            yield phone
            phone.close()


def field_of(phone: Any) -> Any:
    return next(n for n in phone.hierarchy().nodes if n.editable)


def test_android_input_text_types_percent_signs_exactly(android_phone):
    android_phone.tap(*field_of(android_phone).rect.center)
    android_phone.type_text(TRICKY)
    assert field_of(android_phone).text == TRICKY
