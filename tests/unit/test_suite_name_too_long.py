"""A path in a suite file with a name longer than the file system takes (over 255 bytes: a
pasted token, a mangled glob) is a suite problem at its file:line like any path that is not
there; in a batch's files:, a serve: folder or an image it stopped farm with an internal error
(OSError: [Errno 36] File name too long) and a traceback file."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

LONG = "x" * 300
STEP = "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _problems(path) -> list[str]:
    with pytest.raises(SuiteErrors) as caught:
        load_suites([path], env={}, warnings=[])
    return [f"{e.line}:{e.column} {e.message.replace(LONG, 'LONG')}"
            for e in caught.value.errors]


def test_a_batch_listing_a_too_long_name_says_it_matches_nothing(tmp_path):
    batch = tmp_path / "index.yaml"
    batch.write_text(f"files:\n  - {LONG}.yaml\n  - {LONG}/\n")
    assert _problems(batch) == [
        "2:5 files: 'LONG.yaml' matches no .yaml file (relative to the batch file)",
        "3:5 files: 'LONG/' matches no .yaml file (relative to the batch file)"]


def test_a_served_folder_with_a_too_long_name_does_not_exist(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_text(f"web:\n  url: index.html\n  serve: {LONG}\n{STEP}")
    assert _problems(case) == [
        "3:10 web.serve: folder 'LONG' does not exist (relative to the case file or the "
        "working directory)"]
    (tmp_path / "farm.yaml").write_text(f"apps:\n  a:\n    serve: {LONG}\n    env: U\n")
    case.write_text(f"web:\n  url: about:blank\n{STEP}")
    assert _problems(tmp_path) == [
        "3:12 apps.a.serve: directory 'LONG' does not exist (expected a directory relative "
        "to farm.yaml)"]


def test_an_image_with_a_too_long_name_cannot_be_read(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_text("web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiTap:\n          prompt: the logo\n          images:\n"
                    f"            - name: logo\n              url: {LONG}.png\n")
    [problem] = _problems(case)
    assert problem.startswith("10:20 aiTap image 'LONG.png': cannot read it (File name too "
                              "long")
