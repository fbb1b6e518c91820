"""`farm cache export` of a plan whose target the model gave only as a box (UI-TARS, AutoGLM):
one remembered by an XPath exports as a step with that XPath; one remembered by its box alone
(no XPath named what it hit) cannot be a suite step, and the export says so (exit 4) instead of
writing `aiTap: null`, a file farm refuses to load."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cache.export import export_case
from farm.cache.keys import Namespace, app_version
from farm.cache.store import MemoryStore
from farm.errors import UserError
from farm.suite.loader import load_case_file

CASE = """name: mugs
web:
  url: http://127.0.0.1:1/
tasks:
  - name: t
    flow:
      - ai: add the red mug
"""


def exported(tmp_path: Path, target: dict) -> str:
    path = tmp_path / "mugs.yaml"
    path.write_text(CASE)
    case = load_case_file(path, env={})
    store = MemoryStore()
    ns = Namespace(case.id, case.platform, app_version(case.cache_key, case.agent))
    store.put(ns.key("plan", "add the red mug", 0), {"actions": [
        {"type": "Tap", "params": {"locate": target},
         "seen": {"locate": {"role": "button", "shown": ["add to cart"], "around": []}}}]})
    return export_case(case, store)


def test_a_box_remembered_by_its_xpath_exports_as_a_step_with_it(tmp_path):
    text = exported(tmp_path, {"prompt": "", "xpath": "//*[@id='add-red']"})
    out = tmp_path / "mugs.solved.yaml"
    out.write_text(text)
    [step] = load_case_file(out, env={}).steps
    assert (step.kind, step.xpath) == ("aiTap", "//*[@id='add-red']")


def test_a_box_remembered_by_its_place_alone_is_refused_saying_why(tmp_path):
    with pytest.raises(UserError) as err:
        exported(tmp_path, {"prompt": "", "at": {"rect": [696, 146, 9, 9],
                                                 "screen": [1280, 800]}})
    assert str(err.value) == (
        f"{tmp_path / 'mugs.yaml'}:7: the cached plan of `ai` uses Tap on a box the model "
        "gave (no XPath names what it hit), which no suite step runs; this case cannot be "
        "exported")
