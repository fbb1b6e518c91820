"""An undefined ${VAR} in a value on one line is pointed at where its ``${`` is written, as it
is inside a ``|`` block: `b.yaml:8:26`, not the value's start (8:21), which left a user
looking for the name in a long line. Quotes and escapes before it are counted as written; a
``${`` only an escape makes keeps the value's start."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = [
    "      - assertText: 欢迎回来，${SHOP_USRE}！\n",                  # plain, line 6
    "      - assertText: 'it''s ${SHOP_USRE}'\n",                    # single-quoted, line 7
    '      - assertText: "a\\tb \\"q\\" ${SHOP_USRE}"\n',            # escapes before it, 8
    '      - assertText: "made \\x24{SHOP_USRE}"\n',                 # an escape makes ${, 9
    "      - aiTap: {prompt: 'the ${SHOP_USRE} row'}\n",             # flow mapping, line 10
    "      - assertText: |\n          欢迎，${SHOP_USRE}\n",          # block, line 12
]


def test_an_undefined_placeholder_is_pointed_at_its_dollar(tmp_path: Path):
    path = tmp_path / "b.yaml"
    path.write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
                    + "".join(FLOW), encoding="utf-8")
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={"SHOP_USER": "x"})
    where = [(e.line, e.column) for e in info.value.errors
             if "undefined variable ${SHOP_USRE}" in e.message]
    assert where == [(6, 26), (7, 28), (8, 33), (9, 21), (10, 30), (12, 14)]
