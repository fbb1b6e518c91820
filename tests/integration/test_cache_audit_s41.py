"""The caches over weeks of nightly runs (real `farm run` on headless Chromium, the scripted
model server counting what it was asked, FARM_STATE_DIR per test): each night either replays
what is still right, or asks the model again and says so; never a tap on another element
than the one the entry was made for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer

pytestmark = pytest.mark.integration

# ---- a list reordered overnight ------------------------------------------------------------------
# Each row's button has an id by its place in the list (add-0, add-1, ...), as many apps
# number the rows they render: after the reorder, add-0 is the Green Mug's button.
ROW = """<div class="row" style="position:absolute; left:20px; top:{top}px; width:500px; height:40px">
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
