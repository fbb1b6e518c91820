"""An unknown step kind is pointed at the kind it means, not at the nearest spelling: `wait`
was told "did you mean 'aiTap'?", `press` 'aiLongPress', `evaluate` and `navigate` 'aiLocate'
(a model step that finds an element: nothing like either)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "name: x\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n      - {step}\n"


@pytest.mark.parametrize("step, hint", [
    ("wait: 1000", "(sleep: <ms> waits a time, waitForText: <text> until a text shows)"),
    ("press: Enter", "(did you mean 'aiKeyboardPress'?)"),
    ("evaluate: document.title", "(did you mean 'javascript'?)"),
    ("pause: 500", "(did you mean 'sleep'?)"),
    ("navigate: http://127.0.0.1:8000/", "(a web case opens its url: (`javascript: "
     "location.href = \"<url>\"` goes to another page), a phone case its launch:)"),
    ("click: Sign in", "(did you mean 'aiTap'?)"),                        # as before
])
def test_an_unknown_kind_names_what_it_means(tmp_path: Path, step, hint):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(step=step))
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    [error] = caught.value.errors
    assert (error.line, error.column) == (7, 9)
    assert error.message == f"unknown step kind '{step.split(':')[0]}' {hint}"


@pytest.mark.parametrize("option, hint", [
    ("text: demo", "(did you mean 'value'?)"),
    ("selector: '#login'", "(did you mean 'xpath'? farm finds an element by its text or an "
     "XPath, not a CSS selector: #login is //*[@id='login'])"),
])
def test_another_tools_option_names_the_one_meant(tmp_path: Path, option, hint):
    """`text:` (Playwright's fill) and `selector:` were 'unknown option' with no suggestion."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(step="aiInput: Username\n        "
                                                            "value: x\n        " + option))
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    [error] = caught.value.errors
    assert error.message.startswith(f"unknown option '{option.split(':')[0]}' for aiInput {hint}")
