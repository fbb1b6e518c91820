"""The caches against a list reordered overnight, in process (fakes, `run_case`, the
scripted client): a target one of alike elements (every row's "Add to cart") is trusted only
while it still sits in the row it sat in, whatever XPath selects it: an id numbered by the
row (add-0, add-1, ...) is a place too. A replay then asks the model again; it never taps
the row that took the place."""

from __future__ import annotations

from pathlib import Path

from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.agent_scripts import steps_done

NS = Namespace("s/mugs", "web")
PROMPT = "the Add to cart button of the Red Mug"


def shop(order: list[str], rows: bool = True) -> FakeDevice:
    """A web list of mugs, one row each: its name and an "Add to cart" button whose id is its
    row's place (add-0, add-1, ...), an XPath for each id. ``rows=False``: no row element
    holds a mug's name and button (a flat grid): nothing tells one button from another."""
    nodes: list[UINode] = []
    xpaths: dict[str, list[Rect]] = {}
    for i, name in enumerate(order):
        row = 3 * i
        button = Rect(x=600, y=100 * i + 30, width=200, height=40)
        nodes += [UINode(id=row, role="listitem", resource_id=f"row-{name}",
                         rect=Rect(x=0, y=100 * i, width=1280, height=100)),
                  UINode(id=row + 1, role="text", text=f"{name} Mug",
                         parent=row if rows else None,
                         rect=Rect(x=10, y=100 * i + 10, width=100, height=30)),
                  UINode(id=row + 2, role="button", text="Add to cart", clickable=True,
                         resource_id=f"add-{i}", parent=row if rows else None, rect=button)]
        xpaths[f"//*[@id='add-{i}']"] = [button]
    screens = {"list": UITree(source="dom", page_text="Mugs", nodes=nodes)}
    for name in order:
        screens[name] = UITree(source="dom", page_text=f"{name} Mug added", nodes=[
            UINode(id=0, role="text", text=f"{name} Mug added",
                   rect=Rect(x=10, y=10, width=300, height=30))])
    return FakeDevice(screens=screens, start="list", xpaths=xpaths,
                      transitions={f"row-{name}": name for name in order})


def _button(dev: FakeDevice, name: str) -> Rect:
    return dev.screens["list"].nodes[3 * [n.text for n in dev.screens["list"].nodes
                                          if n.role == "text"].index(f"{name} Mug") + 2].rect


# ---- the locate cache --------------------------------------------------------------------------
def _model_found(store: MemoryStore, dev: FakeDevice) -> int:
    """The model found the Red Mug's button (the AI tier's hit): entries written."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    LocateCacheTier(cache).remember(PROMPT, LocateHit(_button(dev, "Red"), "ai"),
                                    LocateContext(dev))
    use = cache.end_step()
    return use.written if use is not None else 0


def _looked_up(store: MemoryStore, dev: FakeDevice) -> LocateHit | None:
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    return LocateCacheTier(cache).locate(PROMPT, LocateContext(dev))


def test_an_id_numbered_by_row_selects_the_row_that_took_the_place_and_is_not_trusted():
    store = MemoryStore()
    assert _model_found(store, shop(["Blue", "Red", "Green"])) == 1
    [(_, entry)] = store.items()
    assert entry["xpaths"] == ["//*[@id='add-1']"] and entry["around"] == ["red mug"]
    same = shop(["Blue", "Red", "Green"])
    hit = _looked_up(store, same)
    assert hit is not None and hit.rect == _button(same, "Red")
    moved = shop(["Red", "Blue", "Green"])       # add-1 is now the Blue Mug's button
    assert _looked_up(store, moved) is None, "the Blue Mug's button tapped for the red one"


def test_alike_buttons_with_nothing_around_them_are_not_cached():
    """A flat grid: no element holds a mug's name with its button; an entry could not tell
    the Red Mug's button from the one that takes its place."""
    store = MemoryStore()
    assert _model_found(store, shop(["Blue", "Red", "Green"], rows=False)) == 0
    assert list(store.items()) == []


# ---- the plan cache: a box-only target (UI-TARS) remembered by an id numbered by row -----------
def red_mug(where: dict[str, int]):
    """UI-TARS taps the Red Mug's button (at ``where["y"]``, 0-1000), then is done."""
    def script(messages: list, index: int) -> str:
        if steps_done({"messages": messages}) == 0:
            return f"Thought: red\nAction: click(start_box='(547,{where['y']})')"
        return "Thought: done\nAction: finished(content='added')"
    return script


def night(tmp_path: Path, store: MemoryStore, client: ScriptedModelClient,
          dev: FakeDevice) -> CaseResult:
    case = Case(id="s/mugs", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="add the red mug"),
                                             Step(kind="assertText", value="Red Mug added")])])
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                        model=ModelSet.single(client))
    return run_case(Job(case.id, "web", 1), case, dev, services)


def test_a_box_remembered_by_an_id_numbered_by_row_is_planned_again_after_a_reorder(
        tmp_path: Path):
    where = {"y": 188}                          # the second row: (700, 150) on 1280×800
    client = ScriptedModelClient(red_mug(where), family="ui-tars", name="ui-tars-7b")
    store = MemoryStore()
    assert night(tmp_path, store, client, shop(["Blue", "Red", "Green"])).status == "passed"
    [plan] = [v for _, v in store.items() if v.get("type") == "plan"]
    assert plan["actions"][0]["params"]["locate"]["xpath"] == "//*[@id='add-1']"
    solved = client.calls
    same = shop(["Blue", "Red", "Green"])
    again = night(tmp_path, store, client, same)
    assert again.steps[0].cache.plan == "hit" and client.calls == solved
    where["y"] = 63                             # the Red Mug moved to the first row
    moved = shop(["Red", "Blue", "Green"])
    third = night(tmp_path, store, client, moved)
    assert ("tap", 700, 150) not in moved.actions, "the Blue Mug's button tapped"
    assert third.status == "passed", third.error
    assert third.steps[0].cache.plan == "replanned" and client.calls > solved
