"""A userAgent or extraHTTPHeaders entry Chromium refuses (a line break in it, the last one a
YAML `>` block keeps, a header name with a space) is a suite error at its file:line:col; each
case with one was an infrastructure error on the browser ("Protocol error
(Emulation.setUserAgentOverride): Invalid characters found in userAgent"), retried, exit 3."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

REFUSED = "Chromium refuses it (an HTTP header is one line of text)"


def _problems(tmp_path, web: str) -> list[str]:
    case = tmp_path / "c.yaml"
    case.write_text(f"web:\n  url: about:blank\n{web}tasks:\n  - name: t\n    flow:\n"
                    "      - sleep: 1\n")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, warnings=[])
    return [f"{e.line}:{e.column} {e.message}" for e in caught.value.errors]


def test_a_user_agent_in_a_folded_block_is_refused_with_the_way_to_write_it(tmp_path):
    web = "  userAgent: >\n    Mozilla/5.0 (X11)\n    FarmTest/1.0\n"
    assert _problems(tmp_path, web) == [
        "3:14 web.userAgent: ends with a line break (a YAML > or | block keeps its last one: "
        f"write >- or |-); {REFUSED}"]


def test_a_line_break_inside_a_header_value_or_user_agent_is_refused(tmp_path):
    web = '  userAgent: "a\\nb"\n  extraHTTPHeaders:\n    X-Token: "a\\r\\nb"\n'
    assert _problems(tmp_path, web) == [
        f"3:14 web.userAgent: holds a line break; {REFUSED}",
        f"5:14 web.extraHTTPHeaders.X-Token: holds a line break; {REFUSED}"]


def test_a_header_name_with_a_space_is_refused_at_its_key(tmp_path):
    web = "  extraHTTPHeaders:\n    X Token: abc\n"
    assert _problems(tmp_path, web) == [
        "4:5 web.extraHTTPHeaders: 'X Token' is no HTTP header name (letters, digits and "
        "!#$%&'*+-.^_`|~: no space or colon)"]


def test_what_chromium_takes_still_loads(tmp_path):
    case = tmp_path / "ok.yaml"
    case.write_text("web:\n  url: about:blank\n  userAgent: >-\n    Mozilla/5.0 (X11)\n"
                    "    FarmTest/1.0\n  extraHTTPHeaders:\n    Authorization: Bearer ${TOK}\n"
                    "    X-Odd_Name.v2: \"a b\"\ntasks:\n  - name: t\n    flow:\n"
                    "      - sleep: 1\n")
    [suite] = load_suites([case], env={"TOK": "t"}, warnings=[])
    web = suite.cases[0].web
    assert web.user_agent == "Mozilla/5.0 (X11) FarmTest/1.0"
    assert web.extra_http_headers == {"Authorization": "Bearer ${TOK}", "X-Odd_Name.v2": "a b"}
