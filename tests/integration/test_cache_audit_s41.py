"""The caches over weeks of nightly runs (real `farm run` on headless Chromium, the scripted
model server counting what it was asked, FARM_STATE_DIR per test): each night either replays
what is still right, or asks the model again and says so; never a tap on another element
than the one the entry was made for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer, message_texts
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


@pytest.fixture
def shop() -> Iterator[Shop]:
    shown = Shop()

    class Pages(QuietHandler):
        def do_GET(self) -> None:
            found = self.path.split("?")[0] == "/list.html"
            self.send_page(shown.page().encode() if found else b"", 200 if found else 404)

    with serving(Pages) as url:
        shown.url = url
        yield shown


def night(farm: FarmCli, tmp_path: Path, srv: ModelServer, name: str, case: str) -> dict:
    """One nightly `farm run` of ``case`` (the state dir kept between nights): its status,
    the tap's tier and how many model requests it made."""
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    (suite / "case.yaml").write_text(case)
    asked = len(srv.requests)
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / name,
                    FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url)
    [result] = results(tmp_path / name)["cases"]
    assert result["status"] == "passed", (result.get("error"), done.stdout + done.stderr)
    return {"tier": result["steps"][0]["tier"], "asked": len(srv.requests) - asked}


@pytest.mark.parametrize("prompt", ["the Add to cart button in the Blue Mug row",
                                    "Add to cart"])
def test_a_reordered_list_does_not_tap_the_row_that_took_the_blue_mugs_place(
        farm: FarmCli, tmp_path: Path, shop: Shop, prompt: str) -> None:
    """The Blue Mug's "Add to cart" (id add-0) was found by the model; overnight the list is
    reordered and add-0 is the Green Mug's button: the cache does not tap it (the page would
    say Added Green Mug), the model is asked, and the entry is replaced: the next night asks
    nothing again."""
    case = LIST_CASE.format(url=shop.url, prompt=prompt)
    with ModelServer(lambda body, i: json.dumps({"bbox": shop.blue_button()})) as srv:
        nights = [night(farm, tmp_path, srv, "n1", case), night(farm, tmp_path, srv, "n2", case)]
        shop.rows = [MUGS[1], MUGS[0], MUGS[2]]
        nights += [night(farm, tmp_path, srv, "n3", case), night(farm, tmp_path, srv, "n4", case)]
    assert nights == [{"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0},
                      {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0}]


# ---- two CI jobs sharing one cache --------------------------------------------------------------
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
        farm: FarmCli, tmp_path: Path) -> None:
    """"Sign in" became "Log in": the replayed plan stops at that step, the model plans the
    rest (told which steps are done) and the case passes on what the model did; the entry is
    rewritten, and the night after replays it with no model call."""
    suite = demo_copy(tmp_path / "shop")
    (suite / "ai_buy.yaml").write_text(AI_CASE)
    flow = [XML_FLOW]

    def script(body: dict, index: int) -> str:
        if any("Find the element:" in text for text in message_texts(body)):
            return '{"bbox": [], "error": "not there"}'     # (the AI locate of "Sign in")
        return by_progress(flow[0])(body, index)

    def one(name: str) -> tuple[str, str | None, int]:
        asked = len(srv.requests)
        done = farm.run("run", suite / "ai_buy.yaml", "--devices", "browser:1",
                        "--report-dir", tmp_path / name, FARM_MODEL="openai/scripted",
                        FARM_MODEL_BASE_URL=srv.base_url)
        [case] = results(tmp_path / name)["cases"]
        assert case["status"] == "passed", (case["error"], done.stdout + done.stderr)
        return case["status"], case["steps"][0]["cache"]["plan"], len(srv.requests) - asked

    with ModelServer(script) as srv:
        nights = [one("n1"), one("n2")]
        page = suite / "app" / "index.html"
        html = page.read_text()
        assert 'btn-block">Sign in</button>' in html
        page.write_text(html.replace('btn-block">Sign in</button>', 'btn-block">Log in</button>'))
        flow[0] = [reply.replace('"Sign in"', '"Log in"') for reply in XML_FLOW]
        nights += [one("n3"), one("n4")]
    assert [n[:2] for n in nights] == [("passed", "miss"), ("passed", "hit"),
                                       ("passed", "replanned"), ("passed", "hit")]
    assert nights[1][2] == nights[3][2] == 0 and nights[2][2] > 0


# ---- what the plan key holds, night after night -------------------------------------------------
def test_the_plan_key_follows_what_the_model_read_and_a_phone_sized_viewport_replays_checked(
        farm: FarmCli, tmp_path: Path) -> None:
    """A comment in the case file and another case beside it change nothing (no model call);
    the aiActContext's ${SHOPPER} changing from alice to bob is another plan (the model is
    asked); the case moved to a 390x844 viewport replays the plan made at 1280x800 through
    the locators (no coordinates replayed), and the cart holds the Blue Mug."""
    suite = demo_copy(tmp_path / "shop")
    case = AI_CASE.replace("tasks:", "agent:\n  aiActContext: shop as ${SHOPPER}\ntasks:")

    def one(name: str, text: str, shopper: str) -> tuple[str | None, int]:
        (suite / "ai_buy.yaml").write_text(text)
        asked = len(srv.requests)
        done = farm.run("run", suite / "ai_buy.yaml", "--devices", "browser:1",
                        "--report-dir", tmp_path / name, FARM_MODEL="openai/scripted",
                        FARM_MODEL_BASE_URL=srv.base_url, SHOPPER=shopper)
        [result] = results(tmp_path / name)["cases"]
        assert result["status"] == "passed", (result["error"], done.stdout + done.stderr)
        return result["steps"][0]["cache"]["plan"], len(srv.requests) - asked

    with ModelServer(by_progress(XML_FLOW)) as srv:
        first = one("n1", case, "alice")
        (suite / "other.yaml").write_text(AI_CASE.replace("AI buys", "Another buys"))
        commented = one("n2", "# nightly\n" + case.replace("tasks:", "# the flow\ntasks:"),
                        "alice")
        bob = one("n3", case, "bob")
        phone = one("n4", case.replace("index.html\n", "index.html\n  viewportWidth: 390\n"
                                       "  viewportHeight: 844\n"), "bob")
    assert first[0] == "miss" and first[1] > 0
    assert commented == ("hit", 0)
    assert bob[0] == "miss" and bob[1] > 0
    assert phone == ("hit", 0)
