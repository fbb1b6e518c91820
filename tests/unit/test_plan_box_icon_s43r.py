"""A plan-cache target the model gave only as a box (UI-TARS, AutoGLM), kept as the XPath of the
element the box hit, is replayed only while that XPath still selects an element like it when
that element showed no text (an icon): the app moved id="gear" from the grey gear icon to a
"Delete everything" button, and the replay tapped it (the ai step "opened the settings" by
deleting everything). An element that shows text where the icon showed none, or whose size is
far from the icon's (over 1.5× or under 1/1.5× either way), stops the replay there: the model
plans again from that step, told why, and farm.log warns what changed. Real litellm over HTTP
against the scripted model server (a thread), a FakeDevice and `run_case`."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import CaseResult
from farm.suite.model import Step
from tests.support.agent_scripts import steps_done
from tests.support.box_plan_nights_s43r import night as box_night
from tests.support.model_server import ModelServer, message_texts, serve
GEAR = Rect(x=1200, y=20, width=32, height=32)          # centre (1216, 36): (950, 45) of 1000
DELETE = Rect(x=40, y=300, width=120, height=21)        # centre (100, 310)


def settings_page(gear: tuple[str, Rect, str] = ("gear", GEAR, ""),
                  *more: tuple[str, Rect, str], size: tuple[int, int] = (1280, 800),
                  where: dict[str, str] | None = None) -> FakeDevice:
    """A home screen of buttons (id, rect, text); the gear icon opens the preferences, a
    "Delete everything" button deletes everything. ``where``: the XPath selecting each id, by
    default //*[@id='...']."""
    nodes = [UINode(id=0, role="body", rect=Rect(x=0, y=0, width=size[0], height=size[1]))]
    for i, (rid, rect, text) in enumerate((gear, *more), 1):
        nodes.append(UINode(id=i, parent=0, role="button", rect=rect, clickable=True,
                            resource_id=rid, text=text))
    screens = {"home": UITree(source="dom", page_text="Home", nodes=nodes)}
    for name, text in (("prefs", "Preferences"), ("deleted", "EVERYTHING DELETED")):
        screens[name] = UITree(source="dom", page_text=text, nodes=[
            UINode(id=0, role="text", text=text, rect=Rect(x=10, y=10, width=300, height=30))])
    xpaths = {(where or {}).get(rid, f"//*[@id='{rid}']"): [rect]
              for rid, rect, _ in (gear, *more) if rid}
    return FakeDevice(screens=screens, start="home", size=size, xpaths=xpaths,
                      transitions={"Delete everything": "deleted", "gear": "prefs",
                                   "cog": "prefs"})


def opens_the_settings(body: dict, index: int) -> str:
    """The model taps the gear icon where it is (top right, in 0-1000), then is done."""
    if steps_done(body) == 0:
        return "Thought: the gear\nAction: click(start_box='(950,45)')"
    return "Thought: done\nAction: finished(content='settings open')"


def night(tmp_path: Path, store: MemoryStore, srv: ModelServer, dev: FakeDevice) -> CaseResult:
    return box_night(tmp_path, store, srv, dev, [Step(kind="ai", value="open the settings"),
                                                Step(kind="assertText", value="Preferences")])


def told(srv: ModelServer, first: int) -> str:
    return "\n".join(t for body in srv.requests[first:] for t in message_texts(body))


def solved(tmp_path: Path, server: list, dev: FakeDevice | None = None
           ) -> tuple[MemoryStore, ModelServer, int]:
    """A first night that solved the step with the model (the gear icon, 32×32)."""
    srv = serve(server, opens_the_settings)
    store = MemoryStore()
    first = night(tmp_path, store, srv, dev or settings_page())
    assert first.status == "passed", first.error
    return store, srv, len(srv.requests)


def test_the_gear_icon_s_id_moved_to_delete_everything_is_planned_again_not_tapped(
        tmp_path, server, caplog):
    store, srv, calls = solved(tmp_path, server)
    [plan] = [v for _, v in store.items() if v.get("type") == "plan"]
    assert plan["actions"][0]["params"]["locate"]["xpath"] == "//*[@id='gear']"
    same = settings_page()
    again = night(tmp_path, store, srv, same)               # nothing changed: replayed
    assert again.status == "passed" and again.steps[0].cache.plan == "hit"
    assert len(srv.requests) == calls and same.screen == "prefs"

    moved = settings_page(("gear", DELETE, "Delete everything"), ("cog", GEAR, ""))
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        night3 = night(tmp_path, store, srv, moved)
    assert ("tap", 100, 310) not in moved.actions           # nothing deleted
    assert night3.status == "passed", night3.error
    assert moved.screen == "prefs" and night3.steps[0].cache.plan == "replanned"
    why = ("Locate XPath //*[@id='gear'] failed: XPath //*[@id='gear'] now hits a button "
           "\"delete everything\" (120×21); when the step was planned it hit a button "
           "showing no text (32×32)")
    assert f"Step 1 of the remembered plan failed: {why}" in told(srv, calls)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [f"cached plan for 'open the settings': step 1 of 1 failed ({why}); "
                    "planning again",
                    f"[fake-1] s/box: step 1 (line 0): the cached plan failed at its step 1 "
                    f"of 1 ({why}) and was planned again"], said   # (the step's note too)


@pytest.mark.parametrize("now, replayed", [
    (Rect(x=1100, y=60, width=36, height=30), True),       # moved, re-laid out a little
    (Rect(x=1200, y=20, width=96, height=32), False),      # three times as wide, no text
    (Rect(x=1200, y=20, width=32, height=16), False),      # half as tall
])
def test_an_icon_far_from_its_size_is_planned_again(tmp_path, server, now, replayed):
    """The gear's id on an element that shows no text either but is no longer icon-sized
    (an empty wide button: a "Delete" whose label is an image) is not trusted."""
    store, srv, calls = solved(tmp_path, server)
    dev = settings_page(("gear", now, ""), ("cog", GEAR, ""))
    again = night(tmp_path, store, srv, dev)
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == ("hit" if replayed else "replanned")
    assert (len(srv.requests) == calls) == replayed


def test_a_screen_twice_as_wide_with_the_icon_twice_as_big_replays(tmp_path, server):
    """A phone of another density shares the plan: the screen and the icon scale alike."""
    store, srv, calls = solved(tmp_path, server)
    big = Rect(x=2400, y=40, width=64, height=64)
    dev = settings_page(("gear", big, ""), size=(2560, 1600))
    again = night(tmp_path, store, srv, dev)
    assert again.status == "passed" and again.steps[0].cache.plan == "hit"
    assert len(srv.requests) == calls and dev.screen == "prefs"


def test_an_entry_from_before_sizes_were_kept_still_stops_at_text(tmp_path, server):
    """A plan stored before farm kept the element's size: a gear now showing text is still
    another element; one that only grew cannot be told and replays as before."""
    store, srv, calls = solved(tmp_path, server)
    [(key, plan)] = [(k, v) for k, v in store.items() if v.get("type") == "plan"]
    del plan["actions"][0]["seen"]["locate"]["size"]
    store.put(key, plan)
    wide = settings_page(("gear", Rect(x=1100, y=20, width=96, height=32), ""))
    assert night(tmp_path, store, srv, wide).steps[0].cache.plan == "hit"
    moved = settings_page(("gear", DELETE, "Delete everything"), ("cog", GEAR, ""))
    again = night(tmp_path, store, srv, moved)
    assert again.steps[0].cache.plan == "replanned" and moved.screen == "prefs"
    assert ("tap", 100, 310) not in moved.actions
