"""What the model reads of a suite's ``${NAME}``s, as Midscene substitutes them before a script
runs: a plain variable (``vars:`` or the environment) is read as its value in an instruction,
an assertion, a query and a target; a secret (``secrets:``, or a credential such as
``…_TOKEN`` in the environment) stays a placeholder, and what the model types of it gets the
value on the device only. The plan cache is keyed by that text: a plan made for one value is
not replayed for another. Through the loader and `run_case`, with litellm calling the scripted
server over HTTP; only the device is a fake."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st
import pytest

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.loader import load_case_file
from farm.suite.vars import UndefinedVariable, Variables, model_text
from tests.support.model_server import message_texts, serve

PASSWORD = "hunter22-secret"
TOKEN = "tok-5f3a9c1d7e"
SHOP = UITree(source="dom", page_text="shop", nodes=[
    UINode(id=0, role="input", placeholder="Query", editable=True,
           rect=Rect(x=10, y=10, width=200, height=30)),
    UINode(id=1, role="input", placeholder="Password", editable=True,
           rect=Rect(x=10, y=60, width=200, height=30)),
    UINode(id=2, role="button", text="Add Blue Mug", clickable=True,
           rect=Rect(x=10, y=110, width=200, height=30)),
    UINode(id=3, role="button", text="Add Red Mug", clickable=True,
           rect=Rect(x=10, y=160, width=200, height=30))])
CASE = """\
secrets: [SHOP_PIN]
vars:
  PRODUCT: Blue Mug
  SHOP_PIN: hunter22-secret
web:
  url: http://127.0.0.1:1/
tasks:
  - name: shop
    flow:
      - aiAssert: the page lists ${PRODUCT} and hides ${DEPLOY_TOKEN}
      - aiQuery: "string, price of ${PRODUCT}"
        name: price
      - ai: TYPE USER ${MY_USER} into the Query field, SIGN IN WITH ${SHOP_PIN}
      - aiTap: the basket icon next to ${PRODUCT}
"""


def xml(action: str, params: dict) -> str:
    return (f"<thought>as asked</thought><log>{action}</log><action-type>{action}"
            f"</action-type><action-param-json>{json.dumps(params)}</action-param-json>")


def shopper(body: dict, index: int) -> str:
    """A model that does what it reads: it types the words after TYPE USER / SIGN IN WITH
    exactly as it sees them."""
    text = "\n".join(message_texts(body))
    if "Judge this statement" in text:
        return '{"pass": true, "thought": "it is listed"}'
    if "Extract from the screenshot" in text:
        return '{"data": "$5", "thought": "next to it"}'
    if "Find the element" in text:
        return '{"bbox": [300, 110, 330, 140]}'
    if "Feedback" not in text and "Steps done" not in text:
        user = re.search(r"TYPE USER (\S+)", text)[1]
        return xml("Input", {"value": user, "locate": {"prompt": "Query"}})
    if "Password" not in text.split("Steps done")[-1]:
        word = re.search(r"SIGN IN WITH (\S+)", text)[1]
        return xml("Input", {"value": word, "locate": {"prompt": "Password"}})
    return '<complete success="true">typed both</complete>'


def run(tmp_path: Path, srv, case_text: str, env: dict[str, str], dev: FakeDevice,
        cache: str = "off"):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "shop.yaml").write_text(case_text)
    case = load_case_file(tmp_path / "s" / "shop.yaml", env=env)
    settings = Settings(model="openai/scripted", model_base_url=srv.base_url, cache=cache,
                        state_dir=tmp_path / ".farm")
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r1", env=env)
    return run_case(Job(case.id, "web", 1), case, dev, services)


def test_the_model_reads_plain_variables_expanded_and_secrets_as_placeholders(server, tmp_path):
    srv = serve(server, shopper)
    dev = FakeDevice(SHOP)
    env = {"MY_USER": "alice", "DEPLOY_TOKEN": TOKEN}
    res = run(tmp_path, srv, CASE, env, dev)
    assert res.status == "passed", res.error
    read = ["\n".join(message_texts(body)) for body in srv.requests]
    judged = next(t for t in read if "Judge this statement" in t)
    assert "the page lists Blue Mug and hides ${DEPLOY_TOKEN}" in judged
    assert "price of Blue Mug" in next(t for t in read if "Extract from" in t)
    assert "TYPE USER alice into the Query field, SIGN IN WITH ${SHOP_PIN}" in read[2]
    assert "Find the element: the basket icon next to Blue Mug" in read[-1]
    assert not [t for t in read if "${PRODUCT}" in t or "${MY_USER}" in t]
    sent = b"".join(srv.raw)
    assert PASSWORD.encode() not in sent and TOKEN.encode() not in sent
    # what the model typed: the user it read, and the secret's value on the device only
    assert [a[1] for a in dev.actions if a[0] == "type_text"] == ["alice", PASSWORD]
    assert res.data["price"] == "$5"
    assert res.steps[2].output.get("notes") in (None, [])


def test_a_plan_cached_for_one_value_is_not_replayed_for_another(server, tmp_path):
    """`ai: add ${PRODUCT} to the basket` planned with PRODUCT=Blue Mug taps "Add Blue Mug";
    run with Red Mug it must ask the model again, not replay that tap."""
    def adder(body: dict, index: int) -> str:
        text = "\n".join(message_texts(body))
        if "Feedback" in text or "Steps done" in text:
            return '<complete success="true">added</complete>'
        product = re.search(r"add (.+?) to the basket", text)[1]
        return xml("Tap", {"locate": {"prompt": f"Add {product}"}})
    srv = serve(server, adder)
    case = "web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: buy\n    flow:\n" \
           "      - ai: add ${PRODUCT} to the basket\n"
    taps = {}
    for product in ("Blue Mug", "Red Mug", "Blue Mug"):
        dev, asked = FakeDevice(SHOP), len(srv.requests)
        res = run(tmp_path, srv, case, {"PRODUCT": product}, dev, cache="read-write")
        assert res.status == "passed", res.error
        taps.setdefault(product, []).append(
            ([a[1:] for a in dev.actions if a[0] == "tap"], len(srv.requests) - asked))
    blue, red = SHOP.nodes[2].rect.center, SHOP.nodes[3].rect.center
    assert taps["Red Mug"] == [([red], 2)]                    # planned anew, for Red Mug
    assert taps["Blue Mug"] == [([blue], 2), ([blue], 0)]     # Blue's own plan, replayed


PIECES = ["${PLAIN}", "${SECRET}", "${ODD}", "${BRACE}", "${MISSING:-d}", "${PLAIN:-d}", "$",
          "{", "}", "$${", "x"]


@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
@example("${x}")        # ("$" "{" "x" "}": a variable no one set)
def test_what_the_model_reads_still_resolves_to_what_the_device_gets(template):
    """A target is located through the text the model reads; the device resolves that text
    again and must get exactly what the suite's text resolves to (values with ``$`` or
    ``${`` in them included)."""
    values = Variables({"PLAIN": "Blue Mug", "SECRET": "hunter22", "ODD": "5$",
                        "BRACE": "a${b}"}, secrets=["SECRET"])
    # (the model reads a variable no one set as written: the device's resolve says it)
    shown = (lambda name, ref: None if name == "SECRET" or name not in values.names
             else values.resolve(ref))
    read = model_text(template, shown)
    assert "hunter22" not in read
    try:
        wanted = values.resolve(template)
    except UndefinedVariable:       # ("$" "{" "x" "}": a variable no one set) the same error
        with pytest.raises(UndefinedVariable):
            values.resolve(read)
        return
    assert values.resolve(read) == wanted
