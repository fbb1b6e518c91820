"""An icon the model found, night after night on real Chromium, after the page gave its id
to another button: `aiTap: the grey gear button` (a 32×32 button with no text, id="gear")
was cached as //*[@id='gear']; the page then moved id="gear" to a "Delete everything" button
and gave the icon id="cog". The third night tapped "Delete everything" from the cache and
passed. Now the entry is stale: the model locates the gear again, the step counts the entry
stale, farm.log says what changed, and the next night replays the new entry. A replayed plan
whose target had to be located again that way says what it saved net of that call."""

from __future__ import annotations

import io
from pathlib import Path

from farm.config import load_settings
from farm.session import run
from tests.support.agent_scripts import DONE_XML, steps_done, xml
from tests.support.farm_cli import results
from tests.support.model_server import ModelServer, message_texts

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Gear page</title>
<style>body{font-family:sans-serif} .icon{width:32px;height:32px;background:#888;border:none}
</style></head>
<body>
<h1>Settings demo</h1>
<p id="status">Ready</p>
<script>function say(t) { document.getElementById("status").textContent = t; }</script>
%s
</body></html>
"""
GEAR = """<button id="gear" class="icon" onclick="say('Settings open')"></button>"""
MOVED = ("""<button id="gear" onclick="say('EVERYTHING DELETED')">Delete """
         """everything</button>\n<button id="cog" class="icon" """
         """onclick="say('Settings open')"></button>""")
CASE = """web:
  serve: site
  url: index.html
  viewportWidth: 1024
  viewportHeight: 700
tasks:
  - name: gear
    flow:
      - %s
      - assertText: Settings open
"""
GEAR_BOX, COG_BOX = [8, 114, 40, 146], [132, 114, 164, 146]   # where each icon is drawn


class Model:
    """Finds the grey icon where the test says it is now; plans one tap on it."""

    def __init__(self) -> None:
        self.box = GEAR_BOX

    def __call__(self, body: dict, index: int) -> str:
        text = "\n".join(message_texts(body))
        if "Find the element" in text:
            return '{"bbox": %s}' % self.box
        plan = [xml("Tap", {"locate": {"prompt": "grey square button", "bbox": self.box}}),
                DONE_XML]
        return plan[min(steps_done(body), 1)]


def suite(tmp_path: Path, step: str) -> Path:
    (tmp_path / "s" / "site").mkdir(parents=True)
    (tmp_path / "s" / "site" / "index.html").write_text(PAGE % GEAR)
    (tmp_path / "s" / "gear.yaml").write_text(CASE % step)
    return tmp_path / "s"


def night(path: Path, name: str, srv: ModelServer) -> tuple[dict, str, str]:
    """One nightly run, the state kept between nights: (the case's result, the run's last
    console lines, its farm.log)."""
    tmp = path.parent
    settings = load_settings(report_dir=tmp / name, state_dir=tmp / "state",
                             model="openai/scripted", model_base_url=srv.base_url)
    out = io.StringIO()
    run([path], "browser:1", settings, progress=False, out=out)
    [case] = results(tmp / name)["cases"]
    return case, out.getvalue(), (tmp / name / "farm.log").read_text()


def move_the_id(s: Path, model: Model) -> None:
    (s / "site" / "index.html").write_text(PAGE % MOVED)
    model.box = COG_BOX


def test_an_icon_s_id_given_to_delete_everything_is_located_again(tmp_path):
    s = suite(tmp_path, "aiTap: the grey gear button")
    model = Model()
    with ModelServer(model) as srv:
        for name in ("n1", "n2"):
            case, _, _ = night(s, name, srv)
            assert case["status"] == "passed", case["error"]
        tap = case["steps"][0]
        assert (tap["tier"], tap["cache"]["hits"], len(srv.requests)) == ("cache", 1, 1)
        move_the_id(s, model)
        case, _, log = night(s, "n3", srv)
        assert case["status"] == "passed", case["error"]     # "Settings open", not deleted
        tap = case["steps"][0]
        assert tap["tier"] == "ai" and tap["rect"][2:] == [33, 33], tap
        assert (tap["cache"]["hits"], tap["cache"]["stale"], tap["cache"]["written"]) == \
            (0, 1, 1), tap["cache"]
        assert len(srv.requests) == 2
        assert ("WARNING farm.cache: locate cache entry for 'the grey gear button' is stale: "
                "its XPath //*[@id='gear'] now selects a button \"delete everything\" "
                "(120×21), where the ai tier stored a button showing no text (32×32); "
                "locating again") in log, log
        case, _, _ = night(s, "n4", srv)                      # the new entry: the cog
        assert case["status"] == "passed", case["error"]
        assert case["steps"][0]["tier"] == "cache" and len(srv.requests) == 2


def test_a_replayed_plan_says_what_it_saved_net_of_locating_again(tmp_path):
    """The plan held the target's words ("grey square button"); its locate entry was stale,
    so the replay asked the model to locate it: the run says it saved 1 call, not 2."""
    s = suite(tmp_path, "ai: tap the grey square settings button")
    model = Model()
    with ModelServer(model) as srv:
        case, _, _ = night(s, "n1", srv)
        assert case["status"] == "passed", case["error"]
        solve = case["steps"][0]["usage"]
        solved = solve["prompt_tokens"] + solve["completion_tokens"]
        assert solve["calls"] == 2
        case, said, _ = night(s, "n2", srv)
        assert f"cache: 1 plan(s) replayed (saved 2 model call(s), {solved:,} tokens)" in said
        move_the_id(s, model)
        case, said, _ = night(s, "n3", srv)
    assert case["status"] == "passed", case["error"]
    ai = case["steps"][0]
    assert (ai["cache"]["plan"], ai["cache"]["stale"], ai["usage"]["calls"]) == ("hit", 1, 1)
    spent = ai["usage"]["prompt_tokens"] + ai["usage"]["completion_tokens"]
    assert f"cache: 1 plan(s) replayed (saved 1 model call(s), {solved - spent:,} tokens)" \
        in said, said
    assert ai["cache"]["saved"]["replay_spent"] == {"calls": 1, "tokens": spent,
                                                    "cost_usd": None}
    assert ai["cache"]["saved"]["solved_with"]["calls"] == 2
