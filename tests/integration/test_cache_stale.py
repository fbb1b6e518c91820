"""The locate cache after the app changed under it, on real Chromium with the demo shop, night
after night: a cached XPath whose id moved to another element is not trusted (the right button
is tapped, the right product bought); a stale entry costs no wait; a case that
fails keeps none of the locate entries it used."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from farm.config import load_settings
from farm.session import run
from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.farm_cli import results
from tests.support.model_server import ModelServer
from tests.support.suites import demo_copy

AI_CASE = """name: AI buys the blue mug
web:
  url: ${FARM_DEMO_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: shop
    flow:
      - ai: log in as demo, search for mug and add the Blue Mug to the cart
      - aiTap: Cart (1)
      - waitForText: Your cart
      - assertText: Blue Mug
      - assertNoText: Green Mug
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A copy of the demo suite (its app, farm.yaml and login case) the test may change."""
    return demo_copy(tmp_path / "demo", "login_success.yaml")


def night(path: Path, name: str, srv: ModelServer | None = None) -> tuple[dict, str]:
    """One nightly run of ``path`` on one browser, with the suite's state kept between nights:
    (the case's result, its run's farm.log)."""
    tmp = path.parent.parent
    model = dict(model="openai/scripted", model_base_url=srv.base_url) if srv else {}
    settings = load_settings(report_dir=tmp / name, state_dir=tmp / "state", **model)
    out = io.StringIO()
    run([path], "browser:1", settings, progress=False, out=out)
    [case] = results(tmp / name)["cases"]
    return case, (tmp / name / "farm.log").read_text()


def step(case: dict, kind: str, target: str) -> dict:
    return next(s for s in case["steps"] if s["kind"] == kind and target in s["label"])


def change(path: Path, *edits: tuple[str, str]) -> None:
    """The app changes overnight: each (old, new) must be there."""
    text = path.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text)


def stored(suite: Path, case: str, prompt: str) -> dict | None:
    store = SqliteStore(suite.parent / "state" / "cache.db")
    try:
        return store.get(Namespace(case, "web").key("locate", prompt, 0))
    finally:
        store.close()


# ---- a cached XPath that now selects another element ---------------------------------------------
def test_an_id_moved_to_forgot_password_is_not_tapped_for_sign_in(suite: Path):
    """The app gives a new "Forgot password?" button the id the cache has for "Sign in", and
    the real button another id: "Sign in" is tapped, the case passes, the entry is rewritten."""
    case, _ = night(suite / "login_success.yaml", "first")
    assert case["status"] == "passed"
    change(suite / "app" / "index.html", (
        '<button id="login-button" data-testid="login-button" type="submit"',
        '<button id="login-button" type="button" class="btn btn-block" onclick="document.'
        "getElementById('login-subtitle').textContent='Reset link sent.'\">Forgot password?"
        '</button>\n        <button id="signin-submit" data-testid="login-submit" '
        'type="submit"'))
    case, _ = night(suite / "login_success.yaml", "moved")
    assert case["status"] == "passed", case["error"]
    tap = step(case, "aiTap", "Sign in")     # the text tier's entry is left to that tier
    assert tap["tier"] == "text" and tap["cache"]["written"] == 1, tap
    assert stored(suite, "demo/login_success", "Sign in")["xpaths"] == [
        "//*[@id='signin-submit']"]
    case, _ = night(suite / "login_success.yaml", "after")       # nothing to rewrite now
    assert case["status"] == "passed"
    tap = step(case, "aiTap", "Sign in")
    assert tap["tier"] == "text" and tap["cache"] is None, tap


def test_an_ai_case_replayed_after_a_product_took_the_id_buys_the_right_one(suite: Path):
    """The product "Blue Mug" had id blue-mug; the shop renames that product "Green Mug" and
    lists a new Blue Mug: the replayed plan adds the Blue Mug, with no model call."""
    shop = suite.parent / "ai"          # a suite of its own: its cases' ids are ai/...
    shop.mkdir()
    shutil.copy(suite / "farm.yaml", shop / "farm.yaml")
    shutil.copytree(suite / "app", shop / "app")
    (shop / "buy.yaml").write_text(AI_CASE)
    with ModelServer(by_progress(XML_FLOW)) as srv:
        case, _ = night(shop / "buy.yaml", "first", srv)
        assert case["status"] == "passed", case["error"]
        asked = len(srv.requests)
        change(shop / "app" / "app.js", (
            "{ id: 'blue-mug', name: 'Blue Mug', price: 12.5, category: 'Kitchen', art: 'mug', "
            "color: '#3b82f6',",
            "{ id: 'blue-mug', name: 'Green Mug', price: 12.5, category: 'Kitchen', "
            "art: 'mug', color: '#22c55e',\n      description: 'Green.' },\n    "
            "{ id: 'blue-mug-v2', name: 'Blue Mug', price: 12.5, category: 'Kitchen', "
            "art: 'mug', color: '#3b82f6',"))
        case, _ = night(shop / "buy.yaml", "changed", srv)
        assert case["status"] == "passed", case["error"]    # the cart holds the Blue Mug
        assert len(srv.requests) == asked
    ai = step(case, "ai", "log in as demo")
    assert ai["cache"]["plan"] == "hit" and ai["cache"]["written"] >= 1, ai
    assert stored(suite, "ai/buy", "Blue Mug")["xpaths"] == [
        "//*[@id='product-link-blue-mug-v2']"]


# ---- a stale entry is one look, not a wait -------------------------------------------------------
REFACTOR = {
    "index.html": [('for="username"', 'for="user-name"'), ('id="username"', 'id="user-name"'),
                   ('for="password"', 'for="pass-word"'), ('id="password"', 'id="pass-word"'),
                   ('id="login-button" data-testid="login-button"',
                    'id="signin" data-testid="signin"')],
    "app.js": [("$('username')", "$('user-name')"), ("$('password')", "$('pass-word')"),
               ("['username', 'password']", "['user-name', 'pass-word']")],
}


def test_after_a_page_refactor_no_stale_entry_is_waited_for(suite: Path, monkeypatch):
    """Every id of the login form changed: the text tier's entries are not queried (that tier
    answers at once; a stale entry was looked for again for 2 s before), and are rewritten."""
    from farm.devices.browser import BrowserDevice
    night(suite / "login_success.yaml", "first")
    for name, edits in REFACTOR.items():
        change(suite / "app" / name, *edits)
    asked: list[str] = []
    query = BrowserDevice.query_xpath
    monkeypatch.setattr(BrowserDevice, "query_xpath",
                        lambda self, xpath: asked.append(xpath) or query(self, xpath))
    case, _ = night(suite / "login_success.yaml", "refactored")
    assert case["status"] == "passed", case["error"]
    for kind, target, old in (("aiInput", "Username", "username"),
                              ("aiInput", "Password", "password"),
                              ("aiTap", "Sign in", "login-button")):
        record = step(case, kind, target)
        assert record["tier"] == "text" and record["cache"]["written"] == 1, record
        assert asked.count(f"//*[@id='{old}']") == 0, (old, asked)


# ---- a failed case replays nothing the next night ------------------------------------------------
def test_a_case_that_fails_is_located_afresh_when_fixed(suite: Path):
    """The text tier's entries are never what a failing case relied on: after a broken
    night the fixed app is located by the text match again and passes."""
    case, _ = night(suite / "login_success.yaml", "first")
    assert case["status"] == "passed" and stored(suite, "demo/login_success", "Sign in")
    change(suite / "app" / "app.js", ("'Cart (' + cartCount() + ')'",
                                      "'Basket (' + cartCount() + ')'"))
    case, log = night(suite / "login_success.yaml", "broken")
    assert case["status"] == "failed"
    assert step(case, "aiTap", "Sign in")["tier"] == "text"
    change(suite / "app" / "app.js", ("'Basket (' + cartCount() + ')'",
                                      "'Cart (' + cartCount() + ')'"))
    case, _ = night(suite / "login_success.yaml", "fixed")
    assert case["status"] == "passed"
    assert step(case, "aiTap", "Sign in")["tier"] == "text"


# ---- a target the UI lost --------------------------------------------------------------------------
def test_a_button_found_last_night_and_gone_now_fails_the_case_instead_of_skipping(suite: Path):
    """Without a model, a target with nothing similar on screen skips the case ("needs a
    model"): a nightly went green when the login button was renamed. A target the text tier
    found here before (the locate cache remembers it) and nothing like it now is the app's
    change: the case fails, naming what was there. A fresh state (no cache) still skips."""
    path = suite / "login_success.yaml"
    first, _ = night(path, "n1")
    assert first["status"] == "passed", first
    change(suite / "app" / "index.html", ('class="btn btn-primary btn-block">Sign in</button>',
                                          'class="btn btn-primary btn-block">Continue</button>'))
    broken, _ = night(path, "n2")
    assert broken["status"] == "failed", broken
    assert broken["error"]["kind"] == "LocateError", broken["error"]
    message = broken["error"]["message"]
    assert 'no element matches "Sign in": an earlier run found it here' in message, message
    assert 'button "sign in"' in message, message
    assert step(broken, "aiTap", "Sign in")["status"] == "failed"
    shutil.rmtree(suite.parent / "state")           # a machine that never ran it: no history
    fresh, _ = night(path, "n3")
    assert fresh["status"] == "skipped" and "needs a model" in fresh["reason"], fresh
