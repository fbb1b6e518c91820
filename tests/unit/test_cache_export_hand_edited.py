"""farm cache export of entries edited by hand in a shared store (a plan's actions that are
not a list of actions, a locate entry's xpaths as one string): the export ended in an internal
error (AttributeError), or wrote the string's first character as the step's XPath ("/"). It
reads them as a run does: a plan it cannot read is no plan (the ai step kept as written), a
target given as its prompt alone is that prompt, an unusable XPath is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cache.export import export_case
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore
from farm.suite.loader import load_case_file

CASE = ("name: c\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
        "    flow:\n      - ai: log in\n      - aiTap: Accept cookies\n")


def _exported(tmp_path: Path, actions: object, xpaths: object) -> tuple[str, list]:
    """The export's text and its steps (kind, target or value, xpath), as they load."""
    (tmp_path / "c.yaml").write_text(CASE)
    case = load_case_file(tmp_path / "c.yaml", env={})
    ns, store = Namespace(case.id, "web"), MemoryStore()
    store.put(ns.key("plan", "log in", 0), {"type": "plan", "actions": actions})
    for n in (0, 1):        # (the plan's tap on it is its first use)
        store.put(ns.key("locate", "Accept cookies", n), {"type": "locate", "xpaths": xpaths})
    text = export_case(case, store)
    (tmp_path / "c.solved.yaml").write_text(text)
    steps = load_case_file(tmp_path / "c.solved.yaml", env={}).steps
    return text, [(s.kind, s.target or s.value, s.xpath) for s in steps]


@pytest.mark.parametrize("actions", ["tap Sign in", {"type": "Tap"}, ["Tap"],
                                     [{"type": "Tap", "params": "Sign in"}]])
def test_a_plan_that_is_not_a_list_of_actions_is_kept_as_written(tmp_path, actions):
    text, steps = _exported(tmp_path, actions, ["//*[@id='ok']"])
    assert "c.yaml:7 `ai: log in` has a cached plan farm cannot read" in text
    assert steps == [("ai", "log in", None), ("aiTap", "Accept cookies", "//*[@id='ok']")]


def test_a_target_given_as_its_prompt_alone_is_that_prompt(tmp_path):
    _, steps = _exported(tmp_path, [{"type": "Tap", "params": {"locate": "Sign in"}}],
                         ["//*[@id='ok']"])
    assert steps == [("aiTap", "Sign in", None), ("aiTap", "Accept cookies", "//*[@id='ok']")]


@pytest.mark.parametrize("xpaths", ["//*[@id='ok']", [5], [""], {"0": "//a"}])
def test_xpaths_that_are_not_a_list_of_xpaths_give_the_step_none(tmp_path, xpaths):
    _, steps = _exported(tmp_path, [{"type": "Tap", "params": {"locate": {
        "prompt": "Accept cookies"}}}], xpaths)
    assert steps == [("aiTap", "Accept cookies", None), ("aiTap", "Accept cookies", None)]
