"""A `serve:` that names a file (`apps.shop.serve: index.html`, `web.serve: app.zip`) was
said not to exist, though the user could see it there: it is said to be a file, not a
folder, at its file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: index.html\n{serve}tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _problems(path: Path) -> list[str]:
    with pytest.raises(SuiteErrors) as caught:
        load_suites([path], env={}, warnings=[])
    return [f"{e.line}:{e.column} {e.message}" for e in caught.value.errors]


def test_an_app_served_from_a_file_is_said_to_be_a_file(tmp_path):
    (tmp_path / "index.html").write_text("<p>shop</p>")
    (tmp_path / "a.yaml").write_text(CASE.format(serve=""))
    (tmp_path / "farm.yaml").write_text("apps:\n  shop:\n    serve: index.html\n    env: U\n")
    assert _problems(tmp_path) == [
        "3:12 apps.shop.serve: 'index.html' is a file, not a directory (expected a directory "
        "relative to farm.yaml)"]
    (tmp_path / "farm.yaml").write_text("apps:\n  shop:\n    serve: gone\n    env: U\n")
    assert _problems(tmp_path) == [
        "3:12 apps.shop.serve: directory 'gone' does not exist (expected a directory "
        "relative to farm.yaml)"]


def test_a_web_serve_of_a_file_is_said_to_be_a_file(tmp_path):
    (tmp_path / "app.zip").write_bytes(b"PK")
    case = tmp_path / "a.yaml"
    case.write_text(CASE.format(serve="  serve: app.zip\n"))
    assert _problems(case) == [
        "3:10 web.serve: 'app.zip' is a file, not a folder (relative to the case file or the "
        "working directory)"]
    case.write_text(CASE.format(serve="  serve: gone\n"))
    assert _problems(case) == [
        "3:10 web.serve: folder 'gone' does not exist (relative to the case file or the "
        "working directory)"]
