"""dom.js's answer as the browser device reads it (`farm.devices.web.dom_read._walk`): parsed
and validated in one pass, the same tree the slower json.loads-then-a-model-per-node gave, and
a page's half emoji (a lone surrogate) made valid text rather than an error."""

from __future__ import annotations

import json

from farm.devices.base import UINode
from farm.devices.web.dom_read import _walk


def _node(i: int, **over: object) -> dict:
    node = {"id": i, "parent": None if i == 0 else 0, "role": "button", "text": f"Pay {i}",
            "name": "", "placeholder": "", "resource_id": f"b{i}", "label": "",
            "rect": {"x": 10 * i, "y": 20, "width": 90, "height": 34}, "clickable": True,
            "editable": False, "value": "", "focused": False, "enabled": True,
            "visible": True}
    node.update(over)
    return node


def test_the_one_pass_read_gives_the_tree_a_model_per_node_gave() -> None:
    nodes = [_node(0, role="main", clickable=False), _node(1, reached=True),
             _node(2, text='Café "Zoë" — 価格\n\t¥1,200 🍵', reached=False),
             _node(3, visible=False, enabled=False, label="Ünïcode label")]
    text = json.dumps({"truncated": True, "nodes": nodes, "token": "17.3:9"})
    walk = _walk(text)
    assert walk.nodes == [UINode.model_validate(n) for n in nodes]
    assert [n.reached for n in walk.nodes] == [None, True, False, None]
    assert walk.nodes[2].text == 'Café "Zoë" — 価格\n\t¥1,200 🍵'
    assert (walk.truncated, walk.token) == (True, "17.3:9")


def test_a_read_without_a_token_has_none() -> None:
    walk = _walk(json.dumps({"nodes": [_node(0)]}))
    assert (walk.token, walk.truncated) == (None, False)
    assert walk.nodes[0].rect.center == (45, 37)


def test_half_an_emoji_on_the_page_becomes_a_replacement_character() -> None:
    # JSON.stringify writes a lone surrogate as an escape; Python's json decodes it to a str
    # that cannot be encoded (a report, a log line would fail on it later)
    text = json.dumps({"nodes": [_node(0, text="Pay \\ud83c", label="Price \\ud83c")]}
                      ).replace("\\\\ud83c", "\\ud83c")
    walk = _walk(text)
    assert walk.nodes[0].text == "Pay \ufffd"
    assert walk.nodes[0].label == "Price \ufffd"
    walk.nodes[0].text.encode("utf-8")
