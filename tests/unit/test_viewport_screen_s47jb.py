"""A viewport farm cannot take a screenshot of is a suite error at its file:line:col, before any
browser starts. ``viewportWidth: 12800`` (for 1280) passed with a raw Pillow
DecompressionBombWarning naming a site-packages path (a 100-million-pixel screenshot) and report
images given up on; ``viewportWidth: 99999`` failed saying "the device's screenshot is not an
image Pillow can read (not a PNG or JPEG)", which was untrue."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: about:blank\n{fields}tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _fields(**given: float) -> str:
    return "".join(f"  {key}: {value}\n" for key, value in given.items())


@pytest.mark.parametrize("given, said", [
    ({"viewportWidth": 12800, "viewportHeight": 8000},
     "3:18 web: a 12800 x 8000 viewport is 102 million pixels, more than 8K UHD's 7680 x 4320 "
     "(33 million): farm takes no screenshot that large (a typo? the usual desktop is "
     "1280 x 800)"),
    ({"viewportWidth": 99999},
     "3:18 web: a 99999 x 800 viewport is more than 16384 pixels a side, the most Chromium "
     "draws with a GPU: farm takes no screenshot that large (a typo? the usual desktop is "
     "1280 x 800)"),
    ({"viewportWidth": 4000, "viewportHeight": 3000, "deviceScaleFactor": 3},
     "3:18 web: a 4000 x 3000 viewport at deviceScaleFactor 3 (12000 x 9000 device pixels) is "
     "108 million pixels, more than 8K UHD's 7680 x 4320 (33 million): farm takes no "
     "screenshot that large (a typo? the usual desktop is 1280 x 800)"),
    ({"deviceScaleFactor": 40},
     "3:22 web: a 1280 x 800 viewport at deviceScaleFactor 40 (51200 x 32000 device pixels) is "
     "more than 16384 pixels a side, the most Chromium draws with a GPU: farm takes no "
     "screenshot that large (a typo? the usual desktop is 1280 x 800)"),
])
def test_a_screen_too_large_to_take_is_refused_where_it_is_written(tmp_path, given, said):
    case = tmp_path / "big.yaml"
    case.write_text(CASE.format(fields=_fields(**given)))
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, warnings=[])
    [error] = caught.value.errors
    assert f"{error.line}:{error.column} {error.message}" == said


@pytest.mark.parametrize("given", [
    {"viewportWidth": 7680, "viewportHeight": 4320},                       # 8K UHD
    {"viewportWidth": 3840, "viewportHeight": 2160, "deviceScaleFactor": 2},
    {"viewportWidth": 16384, "viewportHeight": 600},
    {"viewportWidth": 390, "viewportHeight": 844, "deviceScaleFactor": 3},  # a phone
])
def test_large_real_screens_load(tmp_path, given):
    case = tmp_path / "ok.yaml"
    case.write_text(CASE.format(fields=_fields(**given)))
    [suite] = load_suites([case], env={}, warnings=[])
    assert suite.cases[0].web.viewport_width == given["viewportWidth"]


def test_a_batch_s_shared_viewport_is_checked_too(tmp_path):
    (tmp_path / "a.yaml").write_text(CASE.format(fields=""))
    (tmp_path / "index.yaml").write_text("files: [a.yaml]\nweb:\n  viewportWidth: 99999\n")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path], env={}, warnings=[])
    [error] = caught.value.errors
    assert (error.line, error.message.split(" viewport ")[0]) == (3, "web: a 99999 x 800")
