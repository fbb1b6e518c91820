"""The caches over weeks of nightly runs (real `farm run` on headless Chromium, the scripted
model server counting what it was asked): each night either replays what is still right, or
asks the model again and says so; never a tap on another element than the one the entry was
made for.

The reordered list, the renamed button and the plan key are cases of the same four nights
(one FARM_STATE_DIR, the cases on two browsers, each case's model answers and requests its
own: tests/support/per_case_model.py); the two CI jobs sharing a cache are runs of their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer, message_texts
from tests.support.per_case_model import PerCase
from tests.support.suites import demo_copy

pytestmark = pytest.mark.integration

# ---- a list reordered overnight -----------------------------------------------------------------
# Each row's button has an id by its place in the list (add-0, add-1, ...), as many apps
# number the rows they render: after the reorder, add-0 is the Green Mug's button.
ROW = """<div class="row"
  style="position:absolute; left:20px; top:{top}px; width:500px; height:40px">
  <span style="position:absolute; left:0; width:200px">{name}</span>
  <span style="position:absolute; left:200px; width:80px">{price}</span>
  <button id="add-{i}" style="position:absolute; left:300px; width:120px; height:30px"
    onclick="document.getElementById('added').textContent = 'Added {name}'">Add to cart
  </button></div>"""
LIST = """<!doctype html><html><body style="margin:0"><h1>Mugs</h1>{rows}
<p id="added" style="position:absolute; left:20px; top:400px"></p></body></html>"""
MUGS = [("Blue Mug", "$12.50"), ("Green Mug", "$10.00"), ("Red Mug", "$11.00")]

LIST_CASE = """name: add the blue mug
web:
  url: {url}/list.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: add
    flow:
      - aiTap: {prompt}
      - waitForText: Added Blue Mug
        timeout: 3000
"""


class Shop:
    """The list page; its rows' order is set between nights."""

    def __init__(self) -> None:
        self.rows = list(MUGS)
        self.url = ""

    def page(self) -> str:
        rows = "".join(ROW.format(top=80 + 50 * i, name=name, price=price, i=i)
                       for i, (name, price) in enumerate(self.rows))
        return LIST.format(rows=rows)

    def blue_button(self) -> list[int]:
        """Where the Blue Mug's button shows: [x1, y1, x2, y2] (a model's bbox)."""
        i = [name for name, _ in self.rows].index("Blue Mug")
        return [320, 80 + 50 * i, 440, 80 + 50 * i + 30]


@pytest.fixture(scope="module")
def shop() -> Iterator[Shop]:
    shown = Shop()

    class Pages(QuietHandler):
        def do_GET(self) -> None:
            found = self.path.split("?")[0] == "/list.html"
            self.send_page(shown.page().encode() if found else b"", 200 if found else 404)

    with serving(Pages) as url:
        shown.url = url
        yield shown


# ---- the AI cases and the nights they share ----------------------------------------------------
AI_CASE = """name: AI buys the blue mug
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: shop
    flow:
      - ai: log in as demo, search for mug and add the Blue Mug to the cart
      - aiTap: Cart (1)
      - waitForText: Your cart
      - assertText: Blue Mug
"""
ZERO_TOKEN = ["login_success.yaml", "add_to_cart.yaml", "logout.yaml", "search_filters.yaml"]


PROMPTS = {"row": "the Add to cart button in the Blue Mug row", "add": "Add to cart"}
KEYED = AI_CASE.replace("tasks:", "agent:\n  aiActContext: shop as ${SHOPPER}\ntasks:")
SIGN_IN, LOG_IN = 'btn-block">Sign in</button>', 'btn-block">Log in</button>'


def _model(shop: Shop, flow: list[list[str]]) -> PerCase:
    """The nights' model: the list's locates get where the Blue Mug's button shows; the AI
    cases, by how far they got, the replies of ``flow[0]``, and "not there" to a locate."""
    def blue(body: dict, index: int) -> str:
        return json.dumps({"bbox": shop.blue_button()})

    def planned(body: dict, index: int) -> str:
        if any("Find the element:" in text for text in message_texts(body)):
            return '{"bbox": [], "error": "not there"}'     # (the AI locate of "Sign in")
        return by_progress(flow[0])(body, index)

    return PerCase(row=(f"Find the element: {PROMPTS['row']}.", blue),
                   add=(f"Find the element: {PROMPTS['add']}.", blue),
                   keyed=("Context: shop as", planned),
                   renamed=(("Task: log in as demo", "Find the element:"), planned))


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory, shop: Shop) -> dict[str, list[dict]]:
    """Four nights of one farm state, four cases each, on two browsers: the list's Blue Mug
    by each prompt (the list reordered after night 2); the AI case whose "Sign in" is renamed
    "Log in" after night 2 (the model then plans with "Log in"); the AI case whose plan key
    is watched (its aiActContext's ${SHOPPER} alice on nights 1-2, bob on 3-4; night 2 adds a
    comment to it and another case beside it, night 4 moves it to a 390x844 viewport).
    Each case's nights: its status, error, first step and how many model requests it made."""
    tmp = tmp_path_factory.mktemp("nights")
    for name, prompt in PROMPTS.items():
        (tmp / "list").mkdir(exist_ok=True)
        (tmp / "list" / f"{name}.yaml").write_text(LIST_CASE.format(url=shop.url, prompt=prompt))
    suite = demo_copy(tmp / "shop")
    (suite / "renamed.yaml").write_text(AI_CASE)
    (suite / "keyed.yaml").write_text(KEYED)
    files = [tmp / "list" / "row.yaml", tmp / "list" / "add.yaml", suite / "renamed.yaml",
             suite / "keyed.yaml"]
    flow = [XML_FLOW]
    model = _model(shop, flow)
    farm, seen = FarmCli(tmp), {name: [] for name in model.scripts}

    def night(run: str, shopper: str) -> None:
        asked = {name: model.asked(name) for name in seen}
        done = farm.run("run", *files, "--devices", "browser:2", "--report-dir", tmp / run,
                        FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url,
                        SHOPPER=shopper, timeout=600)
        ran = by_name(results(tmp / run))
        for name in seen:
            seen[name].append({"status": ran[name]["status"], "error": ran[name].get("error"),
                               "out": done.stdout[-3000:] + done.stderr,
                               "step": ran[name]["steps"][0],
                               "asked": model.asked(name) - asked[name]})

    try:
        with ModelServer(model) as srv:
            night("n1", "alice")
            (suite / "other.yaml").write_text(AI_CASE.replace("AI buys", "Another buys"))
            (suite / "keyed.yaml").write_text(
                "# nightly\n" + KEYED.replace("tasks:", "# the flow\ntasks:"))
            night("n2", "alice")
            shop.rows = [MUGS[1], MUGS[0], MUGS[2]]
            page = suite / "app" / "index.html"
            html = page.read_text()
            assert SIGN_IN in html
            page.write_text(html.replace(SIGN_IN, LOG_IN))
            flow[0] = [reply.replace('"Sign in"', '"Log in"') for reply in XML_FLOW]
            (suite / "keyed.yaml").write_text(KEYED)
            night("n3", "bob")
            (suite / "keyed.yaml").write_text(KEYED.replace(
                "index.html\n", "index.html\n  viewportWidth: 390\n  viewportHeight: 844\n"))
            night("n4", "bob")
    finally:
        farm.close()
    assert not model.unrouted, model.unrouted
    return seen


def passed(nights: list[dict]) -> list[dict]:
    """A case's nights, once each is known to have passed."""
    for night in nights:
        assert night["status"] == "passed", (night["error"], night["out"])
    return nights


@pytest.mark.parametrize("prompt", sorted(PROMPTS))
def test_a_reordered_list_does_not_tap_the_row_that_took_the_blue_mugs_place(
        nights: dict[str, list[dict]], prompt: str) -> None:
    """The Blue Mug's "Add to cart" (id add-0) was found by the model; overnight the list is
    reordered and add-0 is the Green Mug's button: the cache does not tap it (the page would
    say Added Green Mug), the model is asked, and the entry is replaced: the next night asks
    nothing again."""
    assert [{"tier": n["step"]["tier"], "asked": n["asked"]} for n in passed(nights[prompt])] \
        == [{"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0},
            {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0}]


# ---- two CI jobs sharing one cache --------------------------------------------------------------
def _two_jobs_at_once(farm: FarmCli, tmp_path: Path, srv: ModelServer, **env: str) -> None:
    """Two `farm run`s of the same suite at once, two browsers each, one cache between them:
    every case passes, and neither says a word about the cache store."""
    suite = demo_copy(tmp_path / "shop", *ZERO_TOKEN)
    (suite / "ai_buy.yaml").write_text(AI_CASE)
    model = dict(FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url, **env)
    jobs = [farm.start("run", suite, "--devices", "browser:2", "--report-dir",
                       tmp_path / f"job{i}", **model) for i in (1, 2)]
    said = [job.finish(timeout=600) for job in jobs]
    for i, out in enumerate(said, 1):
        statuses = {c["case_id"]: c["status"] for c in results(tmp_path / f"job{i}")["cases"]}
        assert set(statuses.values()) == {"passed"}, (statuses, out)
        assert "locked" not in out and "cache store" not in out, out


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_two_ci_jobs_sharing_one_cache_lose_nothing_and_fail_nothing(
        farm: FarmCli, tmp_path: Path, redis_url: str, store: str) -> None:
    """Two jobs at once on one cache.db (or one Redis, under a prefix of the test's own): no
    "database is locked", no case failed by the cache; the next night replays the AI case
    with no model call, and `farm cache ls` lists every case's entries."""
    env = {} if store == "sqlite" else dict(FARM_CACHE_URL=redis_url,
                                            FARM_CLUSTER_PREFIX=f"s41-{tmp_path.name}")
    with ModelServer(by_progress(XML_FLOW)) as srv:
        _two_jobs_at_once(farm, tmp_path, srv, **env)
        asked = len(srv.requests)
        done = farm.run("run", tmp_path / "shop" / "ai_buy.yaml", "--devices", "browser:1",
                        "--report-dir", tmp_path / "next", FARM_MODEL="openai/scripted",
                        FARM_MODEL_BASE_URL=srv.base_url, **env)
        [case] = results(tmp_path / "next")["cases"]
        assert case["status"] == "passed", done.stdout + done.stderr
        assert case["steps"][0]["cache"]["plan"] == "hit" and len(srv.requests) == asked
    listed = farm.run("cache", "ls", "shop", **env)
    assert listed.returncode == 0, listed.stderr
    for stem in ["ai_buy", *(name.removesuffix(".yaml") for name in ZERO_TOKEN)]:
        assert f"shop/{stem}" in listed.stdout, (stem, listed.stdout)


# ---- a cached plan's button renamed overnight ---------------------------------------------------
def test_a_plan_whose_button_was_renamed_is_planned_again_then_replayed_with_no_model_call(
        nights: dict[str, list[dict]]) -> None:
    """"Sign in" became "Log in": the replayed plan stops at that step, the model plans the
    rest (told which steps are done) and the case passes on what the model did; the entry is
    rewritten, and the night after replays it with no model call."""
    seen = [(n["status"], n["step"]["cache"]["plan"], n["asked"])
            for n in passed(nights["renamed"])]
    assert [n[:2] for n in seen] == [("passed", "miss"), ("passed", "hit"),
                                     ("passed", "replanned"), ("passed", "hit")]
    assert seen[1][2] == seen[3][2] == 0 and seen[2][2] > 0


# ---- what the plan key holds, night after night -------------------------------------------------
def test_the_plan_key_follows_what_the_model_read_and_a_phone_sized_viewport_replays_checked(
        nights: dict[str, list[dict]]) -> None:
    """A comment in the case file and another case beside it change nothing (no model call);
    the aiActContext's ${SHOPPER} changing from alice to bob is another plan (the model is
    asked); the case moved to a 390x844 viewport replays the plan made at 1280x800 through
    the locators (no coordinates replayed), and the cart holds the Blue Mug."""
    first, commented, bob, phone = [(n["step"]["cache"]["plan"], n["asked"])
                                    for n in passed(nights["keyed"])]
    assert first[0] == "miss" and first[1] > 0
    assert commented == ("hit", 0)
    assert bob[0] == "miss" and bob[1] > 0
    assert phone == ("hit", 0)
