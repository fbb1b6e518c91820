"""A strict task (numbered steps) whose cached plan fails part way: the model planned again
with a fresh history, so it was told neither which steps the replay had done nor that the
remembered plan failed, and began again at step 1 on a screen where it was done (typing the
password twice, adding a second mug to the cart). Its first round now carries both."""

from __future__ import annotations

from farm.devices.base import UITree
from tests.support.model_server import message_texts
from tests.unit.test_cache_units import SHOP, _plan_xml, node, run_twice

TASK = "1. type the password\n2. sign in"
RENAMED = {**SHOP, "login": UITree(source="dom", page_text="login", nodes=[
    SHOP["login"].nodes[0],
    node(1, "button", None, (10, 60, 100, 30), text="Log in", clickable=True)])}


def _script(seen: list[str]):
    def script(messages, index):
        last = "\n".join(message_texts({"messages": messages[-1:]}))
        if '"bbox": []' in last:                 # AI locate of the vanished "Sign in"
            return '{"bbox": [], "error": "no such button"}'
        seen.append(last)
        if "Steps done so far" in last and "step 1 of 2" in last:
            return '<complete success="true">typed</complete>'
        if "step 1 of 2" in last:
            return _plan_xml("Input", {"value": "${PW}", "locate": {"prompt": "Password"}})
        if "Steps done so far" in last:
            return '<complete success="true">in</complete>'
        button = "Log in" if "remembered plan failed" in "".join(seen) else "Sign in"
        return _plan_xml("Tap", {"locate": {"prompt": button}})
    return script


def test_a_strict_replan_is_told_what_the_replay_did(tmp_path):
    seen: list[str] = []
    _, [(first, _, _), (second, _, dev)] = run_twice(
        tmp_path, _script(seen), second_screens=RENAMED, task=TASK)
    assert first.status == second.status == "passed", (first.error, second.error)
    assert second.steps[0].cache.plan == "replanned" and dev.screen == "home"
    replan = next(t for t in seen if "remembered plan failed" in t)
    assert "step 1 of 2" in replan and 'Steps done so far:\n- Input' in replan
    typed = [a for a in dev.actions if a[0] == "type_text"]
    assert typed == [("type_text", "s3cret-value")]      # the password typed once
