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


@pytest.mark.parametrize("head, said", [
    ("name: x\nweb:\nurl: data:text/html,hi\nviewportWidth: 800\n",
     ["c.yaml:2:1: web: expected a mapping with url: (the page to open), got nothing",
      "c.yaml:3:1: url: is an option of web:, here at the column of web: itself: indent it "
      "under web:",
      "c.yaml:4:1: viewportWidth: is an option of web:, here at the column of web: itself: "
      "indent it under web:"]),
    ("name: x\nandroid:\nlaunch: com.x\n",
     ["c.yaml:3:1: launch: is an option of android:, here at the column of android: itself: "
      "indent it under android:"]),
])
def test_a_target_option_not_indented_under_its_section(tmp_path: Path, head, said):
    """It was "unknown key 'url' in the case", listing the case's keys: url: among none."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(head + "tasks:\n  - name: t\n    flow:\n"
                                                  "      - sleep: 1\n")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    assert [str(e).rsplit("/", 1)[-1] for e in caught.value.errors] == said
