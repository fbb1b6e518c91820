"""A viewport Chromium refuses (wider or taller than 10,000,000 pixels: a typo such as
`viewportWidth: 12800000000`) is a suite error at its file:line:col, before any browser
starts; it was an infrastructure error on the device ("Protocol error
(Browser.setWindowBounds): Invalid parameters"), retried, and the run exited 3."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = ("web:\n  url: about:blank\n  viewportWidth: {w}\n  viewportHeight: {h}\n"
        "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")


@pytest.mark.parametrize("w, h, where", [(12800000000, 800, "3:18 web.viewportWidth"),
                                         (1280, 10000001, "4:19 web.viewportHeight")])
def test_a_viewport_chromium_refuses_is_a_suite_error(tmp_path, w, h, where):
    case = tmp_path / "big.yaml"
    case.write_text(CASE.format(w=w, h=h))
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, warnings=[])
    [error] = caught.value.errors
    assert f"{error.line}:{error.column} {error.message}" == (
        f"{where}: expected pixels as a positive integer no larger than 10000000, got the "
        f"number {max(w, h)}")


def test_a_large_viewport_a_screenshot_can_hold_loads(tmp_path):
    """(Chromium takes up to 10,000,000 a side; farm refuses more than a screenshot can hold:
    tests/unit/test_viewport_screen_s47jb.py.)"""
    case = tmp_path / "wide.yaml"
    case.write_text(CASE.format(w=3840, h=2160))
    [suite] = load_suites([case], env={}, warnings=[])
    assert (suite.cases[0].web.viewport_width, suite.cases[0].web.viewport_height) == (
        3840, 2160)
