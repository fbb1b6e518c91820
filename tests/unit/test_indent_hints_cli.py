"""The indentation slips a suite author makes most, each said with what to do at its
file:line:col: a step's option at the column of the list's '- ' (libyaml's "did not find
expected '-' indicator" and nothing else), one indented deeper than its step (which read
"a value holding ': ' must be quoted: value: "demo"", wrong advice), and `-assertText` with
no space after the dash."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

HEAD = "name: x\nweb:\n  url: data:text/html,hi\ntasks:\n"


@pytest.mark.parametrize("tasks, said", [
    ("  - name: t\n    flow:\n      - aiInput: Username\n      value: demo\n",
     "c.yaml:8:7: invalid YAML: did not find expected '-' indicator (in the list that starts at "
     "line 7); line 8 is at the column of the list's '- ' items: to make value: part of the "
     "item above, indent it to column 9, under aiInput:"),
    ("  - name: t\n  flow:\n    - assertText: hi\n",
     "c.yaml:6:3: invalid YAML: did not find expected '-' indicator (in the list that starts at "
     "line 5); line 6 is at the column of the list's '- ' items: to make flow: part of the "
     "item above, indent it to column 5, under name:"),
    ("  - name: t\n    flow:\n      - aiInput: Username\n          value: demo\n",
     "c.yaml:8:16: invalid YAML: mapping values are not allowed in this context; line 8 is "
     "indented deeper than aiInput: on line 7, so YAML reads it as more of that value: put "
     "value: and aiInput: at one column (aiInput: is at column 9)"),
    ("  - name: t\n    flow:\n      - assertText: a\n      -assertText: b\n",
     "c.yaml:8:7: invalid YAML: did not find expected '-' indicator (in the list that starts at "
     "line 7); a new item of the list starts with '- ' (a dash, then a space)"),
    ("- name: t\n  flow:\n  - assertText: a\n  -assertText: b\n",
     "c.yaml:8:3: unknown key '-assertText' in a task (a list item is '- ' with a space: "
     "`- assertText`); expected one of: continueOnError, flow, name"),
    ("  - name: t\n    flow:\n      - assertText: Total: $5\n",       # (as before)
     "c.yaml:7:26: invalid YAML: mapping values are not allowed in this context; a value "
     "holding ': ' must be quoted: assertText: \"Total: $5\""),
])
def test_an_indentation_slip_says_where_the_line_goes(tmp_path: Path, tasks, said):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(HEAD + tasks)
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    assert [str(e).rsplit("/", 1)[-1] for e in caught.value.errors] == [said]
