"""Every suite problem names its file:line:col, and none is an internal error.

A key missing from a mapping (``aiQuery: {images: [...]}`` without ``prompt:``, an image
without ``name:``, ``runWdaRequest: {endpoint: /status}`` without ``method:``) was said with
the file alone, above the other problems, and for runWdaRequest's method nowhere else; a number
of 4,300 digits or more (a paste gone wrong) stopped the load with Python's ValueError: exit 3,
"internal error", instead of the field's problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

WEB = "name: x\nweb:\n  url: {url}\ntasks:\n  - name: t\n    flow:\n"
IOS = "name: x\nios:\n  launch: com.x\ntasks:\n  - name: t\n    flow:\n"
HUGE = "9" * 5000


def _problems(tmp_path: Path, text: str, env: dict[str, str] | None = None):
    case = tmp_path / "s" / "c.yaml"
    case.parent.mkdir()
    case.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env=env or {}, dotenv=None)
    return caught.value.errors


@pytest.mark.parametrize("head, steps, said", [
    (WEB, "      - aiQuery: {images: []}\n", (7, "aiQuery: expected `prompt: <text>`")),
    (WEB, "      - aiTap: {deepLocate: true}\n", (7, "aiTap: expected `prompt: <text>`")),
    (WEB, "      - aiTap:\n          prompt: logo\n          images:\n            - url: a.png\n",
     (10, "aiTap image: expected both name: and url:")),
    (IOS, "      - runWdaRequest: {endpoint: /status}\n",
     (7, "runWdaRequest: expected `method: <GET|POST|PUT|PATCH|DELETE>`, got nothing")),
])
def test_a_missing_key_is_said_at_its_mapping(tmp_path, head, steps, said):
    errors = _problems(tmp_path, head.format(url="data:text/html,hi") + steps)
    assert [e for e in errors if e.line is None] == []
    assert any((e.line, e.message[:len(said[1])]) == said for e in errors)


@pytest.mark.parametrize("url, step, env, said", [
    ("data:text/html,hi", f'      - sleep: "{HUGE}"\n', {}, "sleep: expected milliseconds"),
    ("data:text/html,hi", "      - waitForText: x\n        timeout: ${N}\n", {"N": HUGE},
     "waitForText timeout: expected milliseconds"),
    ("data:text/html,hi", "      - sleep: ${N}\n", {"N": HUGE}, "sleep: expected millisec"),
    (f"http://127.0.0.1:{HUGE}/", "      - sleep: 1\n", {}, "web.url: 'http://127.0.0.1:999"),
])
def test_a_number_too_long_for_python_is_a_suite_problem(tmp_path, url, step, env, said):
    web = WEB.format(url=url).replace("  url:", "  viewportWidth: ${N}\n  url:") if env \
        else WEB.format(url=url)
    errors = _problems(tmp_path, web + step, env)
    assert any(e.message.startswith(said) and e.line for e in errors)
    assert all(e.line for e in errors)
