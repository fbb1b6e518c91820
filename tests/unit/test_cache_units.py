"""The cache's pure parts and the locate-cache tier on the fake device: keys and modes,
the stores' contract (memory fake and SQLite), XPath generation, validation and staleness."""

from __future__ import annotations

import json

import pytest

from farm.agent.api import zero_token_chain
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace, app_version, case_mode, case_prefix, split_key
from farm.cache.locate import LocateCacheTier
from farm.cache.sqlite_store import SqliteStore
from farm.cache.store import MemoryStore
from farm.cache.xpaths import candidates, node_for_rect, pick
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice

NS = Namespace("demo/login", "web", "shop-2")


def node(i, role, parent=None, rect=(0, 0, 100, 30), **kw):
    return UINode(id=i, parent=parent, role=role, rect=Rect(x=rect[0], y=rect[1],
                  width=rect[2], height=rect[3]), **kw)


def R(x, y, w, h):
    return Rect(x=x, y=y, width=w, height=h)


PAGE = UITree(source="dom", nodes=[
    node(0, "form", rect=(0, 0, 600, 400)),
    node(1, "input:text", 0, (120, 10, 200, 20), label="Username", resource_id="user",
         placeholder="Enter your username", editable=True, clickable=True),
    node(2, "button", 0, (10, 100, 120, 40), clickable=True, resource_id="signin"),
    node(3, "span", 2, (20, 110, 80, 20), text="Sign in"),
])


# ---- keys and modes ----------------------------------------------------------------------------
def test_keys_separate_uses_versions_platforms_and_kinds():
    keys = {NS.key("locate", "Sign in", 0), NS.key("locate", "Sign in", 1),
            NS.key("plan", "Sign in", 0), Namespace("demo/login", "web", "shop-3").key(
                "locate", "Sign in", 0), Namespace("demo/login", "android", "shop-2").key(
                "locate", "Sign in", 0), NS.key("locate", "Sign on", 0)}
    assert len(keys) == 6
    assert all(k.startswith(case_prefix("demo/login")) for k in keys)
    assert not NS.key("locate", "x", 0).startswith(case_prefix("demo/log"))
    assert split_key(NS.key("locate", "Sign in", 2)) | {"digest": ""} == {
        "case": "demo/login", "platform": "web", "version": "shop-2", "kind": "locate", "n": 2,
        "digest": ""}


def test_app_version_and_mode_precedence():
    assert app_version("shop-2", {"cache": {"id": "nightly"}}) == "shop-2/nightly"
    assert app_version(None, {}) == ""
    assert case_mode(None, {}) == "read-write"
    assert case_mode(None, {"cache": {"strategy": "read-only"}}) == "read-only"
    assert case_mode(None, {"cache": False}) == "off"
    assert case_mode("write-only", {"cache": {"strategy": "read-only"}}) == "write-only"


# ---- stores ------------------------------------------------------------------------------------
@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    s = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "cache.db")
    yield s
    s.close()


def test_store_contract(store):
    store.put("v1|a|1", {"x": 1})
    store.put("v1|a|2", {"x": "é"}, ttl=60)
    store.put("v1|b|1", {"x": 3})
    store.put("v1|a|1", {"x": 4})              # replaced, not duplicated
    assert store.get("v1|a|1") == {"x": 4} and store.get("nope") is None
    assert [k for k, _ in store.items("v1|a|")] == ["v1|a|1", "v1|a|2"]
    assert store.delete("v1|a|") == 2
    assert [k for k, _ in store.items()] == ["v1|b|1"]


def test_expired_entries_are_gone(tmp_path):
    now = [1000.0]
    mem = MemoryStore(clock=lambda: now[0])
    mem.put("k", {"x": 1}, ttl=10)
    now[0] += 11
    assert mem.get("k") is None and list(mem.items()) == []
    sql = SqliteStore(tmp_path / "c.db")
    sql.put("k", {"x": 1}, ttl=-1)
    assert sql.get("k") is None and list(sql.items()) == []


# ---- XPath generation --------------------------------------------------------------------------
def test_web_candidates_prefer_ids_then_text_anchors():
    button = PAGE.nodes[2]
    assert candidates(PAGE, button)[0] == "//*[@id='signin']"
    span_hit = node_for_rect(PAGE, R(15, 105, 100, 30))     # a model's box around the button
    assert span_hit.id == 2                                   # the clickable node, not the span
    text_only = node(9, "a", None, (0, 0, 10, 10), text="Sign in", clickable=True)
    assert candidates(PAGE, text_only)[0] == "//a[normalize-space(.)='Sign in']"
    field = candidates(PAGE, PAGE.nodes[1])
    assert "//input[@placeholder='Enter your username']" in field
    assert not any("normalize-space(.)=''" in x for x in field)


def test_native_candidates_and_positions():
    android = UITree(source="uiautomator", nodes=[
        node(0, "android.widget.FrameLayout", rect=(0, 0, 1080, 2400)),
        node(1, "android.widget.Button", 0, (10, 10, 100, 50), resource_id="signin",
             text="Sign in", clickable=True),
        node(2, "android.widget.Button", 0, (10, 100, 100, 50), text="Help")])
    out = candidates(android, android.nodes[1], package="com.shop")
    assert out[0] == "//node[@resource-id='com.shop:id/signin']"
    assert candidates(android, android.nodes[2])[-1] == "/node[1]/node[2]"
    ios = UITree(source="wda", nodes=[
        node(0, "XCUIElementTypeWindow", rect=(0, 0, 390, 844)),
        node(1, "XCUIElementTypeButton", 0, (10, 10, 100, 50), name="Sign in"),
        node(2, "XCUIElementTypeButton", 0, (10, 100, 100, 50), name="Help")])
    assert candidates(ios, ios.nodes[1])[0] == "//XCUIElementTypeButton[@label='Sign in']"
    assert candidates(ios, ios.nodes[2])[-1] == (
        "/XCUIElementTypeWindow[1]/XCUIElementTypeButton[2]")


def test_pick_needs_one_match_in_the_same_place_and_no_secret():
    rect = R(10, 100, 120, 40)
    answers = {"//a": [rect, rect], "//b": [R(500, 500, 10, 10)], "//c": [rect],
               "//d": [rect]}
    assert pick(["//a", "//b", "//c"], lambda x: answers[x], rect) == "//c"
    assert pick(["//a", "//b"], lambda x: answers[x], rect) is None
    assert pick(["//c", "//d"], lambda x: answers[x], rect, safe=lambda x: x != "//c") == "//d"


# ---- the locate-cache tier ---------------------------------------------------------------------
def cache_for(store, mode="read-write", mask=lambda t: t) -> CaseCache:
    return CaseCache(store, NS, mode, mask=mask)


def test_hit_is_stored_then_served_from_the_cache():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    first = cache_for(store)
    first.begin_step()
    hit = zero_token_chain(lambda t: t, first).locate("Sign in", device)
    assert hit.tier == "text"
    assert first.end_step().model_dump(exclude={"mode", "saved"}) == {
        "plan": None, "hits": 0, "misses": 0, "stale": 0, "written": 1}   # (found by the text
    # tier: no cache miss, as the metrics count it; its entry is written)
    entry = store.get(NS.key("locate", "Sign in", 0))
    assert entry["xpaths"] == ["//*[@id='signin']"] and entry["rect"] == [10, 100, 120, 40]
    # found by the text tier: the next run leaves it to that tier (checking the entry would
    # take the same UI tree), nothing is written again, the entry stays for export
    again = cache_for(store)
    again.begin_step()
    hit = zero_token_chain(lambda t: t, again).locate("Sign in", device)
    assert hit.tier == "text" and hit.rect == R(10, 100, 120, 40)
    assert again.end_step() is None         # no cache use to report for the step
    assert store.get(NS.key("locate", "Sign in", 0))["updated"] == entry["updated"]
    # what a model found is served from the cache (no model call)
    model_found = cache_for(store)
    model_found.begin_step()
    LocateCacheTier(model_found).remember("the sign-in button", LocateHit(
        R(10, 100, 120, 40), "ai"), LocateContext(device))
    model_found.end_step()
    last = cache_for(store)
    last.begin_step()
    hit = zero_token_chain(lambda t: t, last).locate("the sign-in button", device)
    assert hit.tier == "cache" and hit.rect == R(10, 100, 120, 40)
    assert last.end_step().hits == 1


def test_stale_xpath_relocates_and_replaces_the_entry():
    store = MemoryStore()
    store.put(NS.key("locate", "Sign in", 0), {"xpaths": ["//*[@id='old']"]})
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    cache = cache_for(store)
    cache.begin_step()
    assert zero_token_chain(lambda t: t, cache).locate("Sign in", device).tier == "text"
    use = cache.end_step()
    assert (use.stale, use.written) == (1, 1)
    assert store.get(NS.key("locate", "Sign in", 0))["xpaths"] == ["//*[@id='signin']"]


def test_a_cached_xpath_that_matches_nothing_is_stale_at_once(monkeypatch):
    """No fixed wait for each stale entry (after a page refactor it made a zero-token suite
    several times slower): a device read already waits for a navigation under way, so the
    cached XPath is asked once and the text tier answers at once."""
    import time
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)

    class Counting(FakeDevice):
        asked: list[str] = []

        def query_xpath(self, xpath):
            self.asked.append(xpath)
            return super().query_xpath(xpath)

    store = MemoryStore()
    store.put(NS.key("locate", "Sign in", 0), {"xpaths": ["//*[@id='old']"]})
    device = Counting(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    cache = cache_for(store, "read-only")
    cache.begin_step()
    assert zero_token_chain(lambda t: t, cache).locate("Sign in", device).tier == "text"
    assert cache.end_step().stale == 1
    assert device.asked.count("//*[@id='old']") == 1 and slept == []


def test_off_screen_or_ambiguous_cached_xpath_is_stale():
    store = MemoryStore()
    store.put(NS.key("locate", "Sign in", 0), {"xpaths": ["//*[@id='signin']"]})
    off = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 2000, 120, 40)]})
    cache = cache_for(store, mode="read-only")
    cache.begin_step()
    assert zero_token_chain(lambda t: t, cache).locate("Sign in", off).tier == "text"
    assert cache.end_step().stale == 1


def test_modes_and_cacheable_false():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    ro = cache_for(store, "read-only")
    ro.begin_step()
    zero_token_chain(lambda t: t, ro).locate("Sign in", device)
    assert list(store.items()) == []                      # read-only never writes
    wo = cache_for(store, "write-only")
    wo.begin_step(cacheable=False)
    zero_token_chain(lambda t: t, wo).locate("Sign in", device)
    assert wo.end_step() is None and list(store.items()) == []
    wo.begin_step()
    zero_token_chain(lambda t: t, wo).locate("Sign in", device)
    assert len(list(store.items())) == 1
    wo.begin_step()                                       # write-only never reads
    assert zero_token_chain(lambda t: t, wo).locate("Sign in", device).tier == "text"


def test_a_hit_that_is_no_element_is_not_cached():
    """An OCR or model box on a canvas: the element holding it is not what was found, and
    replaying its XPath would tap the canvas' centre."""
    from farm.agent.locator import LocateContext, LocateHit
    from farm.cache.locate import LocateCacheTier
    canvas = UITree(source="dom", nodes=[node(0, "canvas", None, (0, 0, 800, 600),
                                              resource_id="game", clickable=True)])
    device = FakeDevice(canvas, xpaths={"//*[@id='game']": [R(0, 0, 800, 600)]})
    store = MemoryStore()
    tier = LocateCacheTier(cache_for(store))
    tier.remember("Start", LocateHit(R(40, 500, 90, 30), "ocr"), LocateContext(device))
    assert list(store.items()) == []
    tier.remember("Board", LocateHit(R(0, 0, 800, 600), "ocr"), LocateContext(device))
    assert len(list(store.items())) == 1


def test_nth_use_of_a_prompt_is_its_own_entry():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    cache = cache_for(store)
    chain = zero_token_chain(lambda t: t, cache)
    for _ in range(3):
        chain.locate("Sign in", device)
    assert sorted(split_key(k)["n"] for k, _ in store.items()) == [0, 1, 2]


def test_a_secret_value_is_never_stored():
    secret = "hunter22"
    tree = UITree(source="dom", nodes=[node(0, "button", None, (0, 0, 50, 20),
                                            text=f"Pay {secret}", clickable=True)])
    device = FakeDevice(tree, xpaths={f"//button[normalize-space(.)='Pay {secret}']":
                                      [R(0, 0, 50, 20)]})
    store = MemoryStore()
    cache = cache_for(store, mask=lambda t: t.replace(secret, "***"))
    chain = zero_token_chain(lambda t: t.replace("${CARD}", secret), cache)
    assert chain.locate("Pay ${CARD}", device).tier == "text"
    assert secret not in json.dumps(list(store.items()))


# ---- the plan cache, through run_case ----------------------------------------------------------
def _plan_xml(action: str, params: dict) -> str:
    return (f"<thought>next</thought><action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


SHOP = {
    "login": UITree(source="dom", page_text="login", nodes=[
        node(0, "input:password", None, (10, 10, 200, 30), placeholder="Password",
             editable=True, clickable=True),
        node(1, "button", None, (10, 60, 100, 30), text="Sign in", clickable=True)]),
    "home": UITree(source="dom", page_text="Welcome", nodes=[
        node(0, "p", None, (10, 10, 200, 30), text="Welcome")]),
}
PLAN = [_plan_xml("Input", {"value": "${PW}", "locate": {"prompt": "Password", "bbox": [1, 2, 3, 4]}}),
        _plan_xml("Tap", {"locate": {"prompt": "Sign in"}}),
        '<complete success="true">in</complete>']


def run_twice(tmp_path, plans, screens=SHOP, cache_mode=None, second_screens=None,
              store=None, task="log in"):
    from pathlib import Path

    from farm.config import Settings
    from farm.llm.client import ScriptedModelClient
    from farm.llm.models import ModelSet
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value=task)])],
                vars={"PW": "s3cret-value"}, secrets=["PW"])
    store = MemoryStore() if store is None else store
    out = []
    for screens_now in (screens, second_screens or screens):
        client = ScriptedModelClient(plans)
        services = Services(settings=Settings(cache=cache_mode), run_id="r",
                            artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                            model=ModelSet.single(client))
        dev = FakeDevice(screens=screens_now, transitions={"Sign in": "home", "Log in": "home"})
        out.append((run_case(Job(case.id, "web", 1), case, dev, services), client, dev))
    return store, out


def test_second_run_replays_the_plan_with_no_model_call(tmp_path):
    store, [(first, c1, _), (second, c2, dev)] = run_twice(tmp_path, PLAN)
    assert first.status == second.status == "passed"
    assert c1.calls == 3 and c2.calls == 0
    assert second.steps[0].cache.plan == "hit" and second.steps[0].usage is None
    assert ("type_text", "s3cret-value") in dev.actions and dev.screen == "home"
    dumped = json.dumps(list(store.items()))
    assert "s3cret-value" not in dumped and "${PW}" in dumped and "bbox" not in dumped


def test_read_only_and_off_write_no_plan(tmp_path):
    for mode in ("read-only", "off"):
        store, [(_, c1, _), (_, c2, _)] = run_twice(tmp_path, PLAN, cache_mode=mode)
        assert list(store.items()) == [] and c2.calls == c1.calls == 3


def test_failed_replay_plans_again_from_there_and_rewrites(tmp_path):
    renamed = {**SHOP, "login": UITree(source="dom", page_text="login", nodes=[
        SHOP["login"].nodes[0],
        node(1, "button", None, (10, 60, 100, 30), text="Log in", clickable=True)])}

    def script(messages, index):
        last = "\n".join(str(m["content"]) for m in messages[-1:])
        if '"bbox": []' in last:                 # AI locate of the vanished "Sign in"
            return '{"bbox": [], "error": "no such button"}'
        if "Step 2 of the remembered plan failed" in last:
            return _plan_xml("Tap", {"locate": {"prompt": "Log in"}})
        if index < 3:
            return PLAN[index]
        return '<complete success="true">in</complete>'

    store, [(first, _, _), (second, c2, dev)] = run_twice(tmp_path, script,
                                                          second_screens=renamed)
    assert first.status == second.status == "passed"
    assert second.steps[0].cache.plan == "replanned" and dev.screen == "home"
    assert c2.calls >= 1
    [(_, entry)] = [(k, v) for k, v in store.items() if v["type"] == "plan"]
    assert [a["params"]["locate"]["prompt"] for a in entry["actions"]] == ["Password", "Log in"]


def test_failed_replay_the_model_cannot_finish_is_a_failure(tmp_path):
    renamed = {**SHOP, "login": UITree(source="dom", page_text="login", nodes=[
        SHOP["login"].nodes[0]])}

    def script(messages, index):
        last = str(messages[-1]["content"])
        if '"bbox": []' in last:
            return '{"bbox": [], "error": "no such button"}'
        if index < 3 and "remembered plan" not in last:
            return PLAN[index]
        return '<complete success="false">no way to sign in</complete>'

    _, [(first, _, _), (second, _, _)] = run_twice(tmp_path, script, second_screens=renamed)
    assert first.status == "passed" and second.status == "failed"
    assert second.steps[0].cache.plan == "replanned"


def test_a_step_done_with_no_action_is_judged_by_the_model_every_run(tmp_path):
    """A model that answered "done" at once (the screen already showed it) left no plan to
    replay: an empty entry replayed as a pass with nothing done or checked, even when the
    screen then showed otherwise. No empty entry is stored, and one an older farm stored is
    a miss (removed): the model judges the step again."""
    said = ['<complete success="true">already signed in</complete>',
            '<complete success="false">the login form shows</complete>']
    store, [(first, c1, _), (second, c2, _)] = run_twice(tmp_path, said[:1])
    assert first.status == second.status == "passed" and c1.calls == c2.calls == 1
    assert [v for _, v in store.items() if v["type"] == "plan"] == []
    key = Namespace("s/login", "web").key("plan", "log in", 0)
    store.put(key, {"type": "plan", "prompt": "log in", "actions": [], "message": "in"})
    _, [(third, c3, _), _] = run_twice(tmp_path, said[1:], store=store)
    assert third.status == "failed" and c3.calls == 1
    assert third.steps[0].cache.plan == "miss" and store.get(key) is None


# ---- export ------------------------------------------------------------------------------------
def test_export_turns_the_cached_plan_into_steps_that_load(tmp_path):
    from farm.cache.export import export_case
    from farm.errors import UserError
    from farm.suite.loader import load_case_file
    (tmp_path / "farm.yaml").write_text("vars:\n  PW: x\nsecrets: [PW]\n")
    path = tmp_path / "login.yaml"
    path.write_text("name: login\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
                    "    flow:\n      - aiTap: Accept cookies\n      - ai: log in\n"
                    "      - aiTap: Accept cookies\n      - assertText: Welcome\n")
    case = load_case_file(path, env={})
    store = MemoryStore()
    with pytest.raises(UserError, match=r"login.yaml:8: no cached plan for `ai: log in`"):
        export_case(case, store)
    ns = Namespace(case.id, "web")
    store.put(ns.key("plan", "log in", 0), {"actions": [
        {"type": "Input", "params": {"value": "${PW}", "locate": {"prompt": "Password"}}},
        {"type": "KeyboardPress", "params": {"keyName": "Enter"}},
        {"type": "Tap", "params": {"locate": {"prompt": "Accept cookies"}}},
        {"type": "Sleep", "params": {"timeMs": 5}}]})
    for n, xpath in enumerate(["//*[@id='a0']", "//*[@id='a1']", "//*[@id='a2']"]):
        store.put(ns.key("locate", "Accept cookies", n), {"xpaths": [xpath]})
    store.put(ns.key("locate", "Password", 0), {"xpaths": ["//*[@id='pw']"]})
    out = tmp_path / "login.solved.yaml"
    out.write_text(export_case(case, store))
    steps = load_case_file(out, env={}).steps
    assert [(s.kind, s.target, s.value, s.xpath) for s in steps] == [
        ("aiTap", "Accept cookies", None, "//*[@id='a0']"),
        ("aiInput", "Password", "${PW}", "//*[@id='pw']"),
        ("aiKeyboardPress", None, "Enter", None),
        ("aiTap", "Accept cookies", None, "//*[@id='a1']"),     # the n-th use, in run order
        ("sleep", None, "5", None),
        ("aiTap", "Accept cookies", None, "//*[@id='a2']"),
        ("assertText", None, "Welcome", None)]


def test_export_keeps_an_ai_step_whose_cached_plan_has_no_action(tmp_path):
    """An older farm's empty plan (the model passed the step without acting) exported as no
    step at all: the exported flow silently lost the check. It is kept as written."""
    from farm.cache.export import export_case
    from farm.suite.loader import load_case_file
    path = tmp_path / "c.yaml"
    path.write_text("name: c\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
                    "    flow:\n      - ai: make sure the cart is empty\n")
    case = load_case_file(path, env={})
    store = MemoryStore()
    store.put(Namespace(case.id, "web").key("plan", "make sure the cart is empty", 0),
              {"type": "plan", "actions": [], "message": "it is"})
    text = export_case(case, store)
    assert "c.yaml:7 `ai: make sure the cart is empty` has a cached plan with no action" in text
    out = tmp_path / "c.solved.yaml"
    out.write_text(text)
    assert [(s.kind, s.value) for s in load_case_file(out, env={}).steps] == [
        ("ai", "make sure the cart is empty")]


# ---- user-facing settings and commands ---------------------------------------------------------
def test_cache_settings_in_files_are_checked_with_file_and_line(tmp_path):
    from farm.errors import SuiteErrors
    from farm.suite.loader import load_case_file
    (tmp_path / "farm.yaml").write_text("cache:\n  key: shop-2.4\n")
    case = tmp_path / "c.yaml"
    case.write_text("web:\n  url: http://x/\nagent:\n  cache:\n    id: nightly\n"
                    "tasks:\n  - name: t\n    flow:\n      - aiTap: Go\n        cacheable: false\n")
    loaded = load_case_file(case, env={})
    assert loaded.cache_key == "shop-2.4" and loaded.steps[0].options["cacheable"] is False
    assert app_version(loaded.cache_key, loaded.agent) == "shop-2.4/nightly"
    case.write_text("web:\n  url: http://x/\nagent:\n  cache:\n    strategy: readonly\n"
                    "tasks:\n  - name: t\n    flow:\n      - aiTap: Go\n")
    (tmp_path / "farm.yaml").write_text("cache:\n  kee: 1\n")
    with pytest.raises(SuiteErrors) as info:
        load_case_file(case, env={})
    text = "\n".join(map(str, info.value.errors))
    assert "farm.yaml:2:3: unknown key 'kee' in cache" in text
    assert "c.yaml:5:15: agent.cache.strategy: expected one of read-write, read-only, " \
           "write-only, got 'readonly'" in text


def test_farm_cache_setting_is_checked():
    from farm.config import load_settings
    from farm.errors import ConfigError
    with pytest.raises(ConfigError, match="--cache sometimes: must be one of read-write"):
        load_settings(cache="sometimes")
    with pytest.raises(ConfigError, match="--cache-url http://cache:80: .*Redis URL"):
        load_settings(cache_url="http://cache:80")


def test_farm_cache_ls_and_clear(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from farm.cli import cli
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path))
    store = SqliteStore(tmp_path / "cache.db")
    for case in ("demo/login", "demo/logout"):
        store.put(Namespace(case, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='b']"]})
    store.put(NS.key("plan", "log in", 0), {"type": "plan", "prompt": "log in",
                                            "actions": [{"type": "Tap"}]})
    out = CliRunner().invoke(cli, ["cache", "ls", "demo/login"]).output
    assert "demo/login  web  -  locate#0  \"Sign in\"  //*[@id='b']" in out
    assert "demo/login  web  shop-2  plan#0  \"log in\"  1 action(s)" in out
    assert "2 entries in" in out and "logout" not in out
    out = CliRunner().invoke(cli, ["cache", "clear", "demo/login"]).output
    assert out.startswith("removed 2 entries")
    assert [split_key(k)["case"] for k, _ in store.items()] == ["demo/logout"]


def test_export_keeps_reference_images_and_their_cache_entries(tmp_path):
    """A pictured aiTap and an ai step with images export in the {prompt, images} form, with
    the XPaths cached under the images' keys; the exported file loads with the same images."""
    import base64

    from farm.agent.images import images_key
    from farm.cache.export import export_case
    from farm.suite.loader import load_case_file
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    path = tmp_path / "brand.yaml"
    path.write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiTap:\n        locate:\n          prompt: Logo\n"
                    "          images: [{name: brand, url: logo.png}]\n"
                    "      - ai:\n          prompt: open the brand page\n"
                    "          images: [{name: brand, url: logo.png}]\n"
                    "      - aiInput:\n          prompt: the note\n"
                    "          images: [{name: brand, url: logo.png}]\n        value: hi\n"
                    "      - aiKeyboardPress: Enter\n        locate:\n          prompt: the note\n"
                    "          images: [{name: brand, url: logo.png}]\n")
    case = load_case_file(path, env={})
    images = case.steps[0].options["images"]
    assert images[0]["url"] == "data:image/png;base64," + base64.b64encode(
        (tmp_path / "logo.png").read_bytes()).decode()
    ns, store, key = Namespace(case.id, "web"), MemoryStore(), images_key(images)
    store.put(ns.key("locate", "Logo" + key, 0), {"xpaths": ["//*[@id='pic']"]})
    store.put(ns.key("plan", "open the brand page" + key, 0), {"actions": [
        {"type": "Tap", "params": {"locate": {"prompt": "the brand picture"}}},
        {"type": "Input", "params": {"value": "x", "locate": {"prompt": "the field"}}}]})
    store.put(ns.key("locate", "the brand picture" + key, 0), {"xpaths": ["//*[@id='b']"]})
    store.put(ns.key("locate", "the note" + key, 0), {"xpaths": ["//*[@id='n']"]})
    out = tmp_path / "brand.solved.yaml"
    out.write_text(export_case(case, store))
    steps = load_case_file(out, env={}).steps
    assert [(s.kind, s.target, s.xpath, s.options["images"]) for s in steps] == [
        ("aiTap", "Logo", "//*[@id='pic']", images),
        ("aiTap", "the brand picture", "//*[@id='b']", images),
        ("aiInput", "the field", None, images),                # planned in the ai step
        ("aiInput", "the note", "//*[@id='n']", images),
        ("aiKeyboardPress", "the note", None, images)]     # the 2nd use: no entry


class _UnreachableStore(MemoryStore):
    """A Redis store nothing answers for (its driver quotes the URL, password and all)."""

    where = "redis://:***@127.0.0.1:1/0 (farm:cache:*)"

    def get(self, key):
        raise ConnectionError("Error 111 connecting to redis://:hunter2pw@127.0.0.1:1/0.")

    put = delete = get


def test_an_unreachable_store_is_said_once_and_recorded_as_unavailable(tmp_path, capsys):
    """Every step that wanted the cache says `unavailable` in results.json and the report,
    not `locate miss` / `plan miss`; the terminal gets one warning for the run, password
    masked; the case still passes, uncached."""
    from pathlib import Path

    from farm.config import Settings
    from farm.llm.client import ScriptedModelClient
    from farm.llm.models import ModelSet
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="log in"),
                                             Step(kind="assertText", value="Welcome"),
                                             Step(kind="aiTap", target="Welcome")])],
                vars={"PW": "s3cret-value"}, secrets=["PW"])
    store = _UnreachableStore()
    for _ in range(2):          # two cases of one run, one store: one warning
        services = Services(settings=Settings(), run_id="r", artifacts=ArtifactStore(tmp_path),
                            env={}, cache=store, model=ModelSet.single(ScriptedModelClient(PLAN)))
        result = run_case(Job(case.id, "web", 1), case, FakeDevice(
            screens=SHOP, transitions={"Sign in": "home"}), services)
        assert result.status == "passed"
        ai, check, tap = result.steps
        assert ai.cache.mode == tap.cache.mode == "unavailable" and check.cache is None
        assert (ai.cache.plan, ai.cache.misses, tap.cache.misses) == (None, 0, 0)
        assert ai.cache.summary() == "unavailable"
    err = capsys.readouterr().err
    assert err.count("farm: warning: cache store redis://:***@127.0.0.1:1/0") == 1, err
    assert "hunter2pw" not in err and "cases run uncached" in err and "FARM_CACHE_URL" in err


def test_a_store_that_cannot_be_opened_is_said_once_on_stderr(tmp_path, capsys):
    """A cache.db that cannot be opened (here a directory in its place): the run goes on
    uncached, and says so on the terminal once, naming the file and the setting (it was only
    in farm.log: a nightly run paid for the model calls without anyone knowing why)."""
    from farm.config import Settings
    from farm.results import ArtifactStore
    from farm.runner import Services

    (tmp_path / "state" / "cache.db").mkdir(parents=True)
    services = Services(Settings(state_dir=tmp_path / "state"), ArtifactStore(tmp_path / "run"),
                        "r1", {})
    assert services.cache_store() is None
    assert services.cache_store() is None
    err = capsys.readouterr().err
    assert err.count("farm: warning: cache store") == 1, err
    assert f"{tmp_path / 'state' / 'cache.db'} unavailable (" in err
    assert "check FARM_STATE_DIR (its cache.db), or run with --cache off" in err
