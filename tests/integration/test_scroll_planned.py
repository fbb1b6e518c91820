"""A model-planned Scroll on a real browser: Midscene's legacy ``scrollType: once`` moves the
page by the planned distance (not to its end), and a scrollType farm does not know moves nothing
and goes back to the model as a planning error. Against the scripted model server."""

from __future__ import annotations

import io
import json
from pathlib import Path

from farm.config import load_settings
from farm.session import run
from tests.support.farm_cli import results
from tests.support.model_server import ModelServer, message_texts

PAGE = ("<!doctype html><html><head><title>long</title></head>"
        "<body style='margin:0'><div style='height:20000px'>Top of a long page</div>"
        "</body></html>")
CASE = """name: scroll a little
web:
  serve: app
  url: long.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: scroll
    flow:
      - ai: scroll down a little
      - javascript: window.scrollY
        name: scrolled
"""
DONE = '<complete success="true">scrolled</complete>'


def scroll(**params: object) -> str:
    return (f"<thought>down</thought><action-type>Scroll</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def scrolled(tmp_path: Path, srv: ModelServer) -> dict:
    """One run of the case; its result."""
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "long.html").write_text(PAGE)
    (suite / "scroll.yaml").write_text(CASE)
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                             model="openai/scripted", model_base_url=srv.base_url)
    out = io.StringIO()
    code = run([suite], "browser:1", settings, progress=False, out=out)
    [case] = results(tmp_path / "run")["cases"]
    assert code == 0, out.getvalue()
    return case


def test_a_planned_legacy_once_scrolls_the_planned_distance(tmp_path):
    with ModelServer([scroll(direction="down", scrollType="once", distance=200), DONE]) as srv:
        case = scrolled(tmp_path, srv)
    assert case["data"]["scrolled"] == 200            # not 10 × 8,000 px: the page's end


def test_an_unknown_scroll_type_moves_nothing_and_the_model_is_told(tmp_path):
    with ModelServer([scroll(direction="down", scrollType="sideways", distance=200),
                      DONE]) as srv:
        case = scrolled(tmp_path, srv)
        told = message_texts(srv.requests[1])[-1]
    assert case["data"]["scrolled"] == 0
    assert ("bad parameters for Scroll: scrollType: unknown scrollType 'sideways'; use one "
            "of: singleAction, scrollToBottom, scrollToTop, scrollToLeft, scrollToRight") in told
