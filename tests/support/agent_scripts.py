"""Scripted model replies that walk farm's agent through the demo shop (tests/support/
model_server.py serves them): the XML grammar, and scripts that answer by how far the agent
says it has got, so a retried request gets the same reply again.

    model_server(by_progress(XML_FLOW))     # log in, search "mug", add the Blue Mug to the cart
"""

from __future__ import annotations

import json
import re
from typing import Callable

from farm.devices.base import Rect, UINode, UITree
from tests.support.model_server import message_texts

# A page with one "Sign in" button, and a case file whose one step asks the agent to sign in:
# what the model-error tests run when the model's answer, not the page, is their subject.
SIGN_IN_SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
SIGN_IN_CASE = """\
web:
  url: http://127.0.0.1:1/
tasks:
  - name: log in
    flow:
      - ai: sign in
"""


def xml(action: str, params: dict) -> str:
    """One planned action in the XML grammar (gpt-style families)."""
    return (f"<thought>next</thought><log>{action} {json.dumps(params)}</log>"
            f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


DONE_XML = '<thought>the cart shows 1</thought><complete success="true">added</complete>'
XML_FLOW = [
    xml("Input", {"value": "demo", "locate": {"prompt": "Username"}}),
    xml("Input", {"value": "${DEMO_PASSWORD}", "locate": {"prompt": "Password"}}),
    xml("Tap", {"locate": {"prompt": "Sign in"}}),
    xml("Input", {"value": "mug", "locate": {"prompt": "Search products"}}),
    xml("KeyboardPress", {"keyName": "Enter"}),
    xml("Tap", {"locate": {"prompt": "Blue Mug"}}),
    xml("Tap", {"locate": {"prompt": "Add to cart"}}),
    DONE_XML,
]


def steps_done(body: dict) -> int:
    """How many actions the agent reports done in its newest prompt (robust to retries)."""
    last = message_texts(body)[-1]
    if "Steps done so far:" not in last:
        return 0
    block = last.split("Steps done so far:", 1)[1].split("\n\n", 1)[0]
    earlier = re.search(r"\((\d+) earlier steps\)", block)
    return block.count("\n- ") + (int(earlier.group(1)) if earlier else 0)


def by_progress(replies: list[str]) -> Callable[[dict, int], str]:
    """A script answering with ``replies[steps done so far]`` (the last one repeats)."""
    def script(body: dict, index: int) -> str:
        return replies[min(steps_done(body), len(replies) - 1)]
    return script
