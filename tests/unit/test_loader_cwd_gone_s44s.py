"""The working directory deleted during a run (a CI cleanup step): a case's file is still
said as it was (relative to it), where each device thread printed a chained traceback
(os.getcwd: FileNotFoundError) and the finished cases' results were lost. And an app's
`env:` name that is no variable name says the rule as `vars:` says it (ASCII letters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite import loader
from farm.suite.loader import display_path, load_suites


def test_a_case_file_is_said_as_before_once_the_working_directory_is_gone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert display_path(tmp_path / "s" / "pay.yaml") == "s/pay.yaml"

    def gone() -> str:
        raise FileNotFoundError(2, "No such file or directory")
    monkeypatch.setattr(loader.os, "getcwd", gone)
    assert display_path(tmp_path / "s" / "pay.yaml") == "s/pay.yaml"
    assert display_path(Path("/elsewhere/pay.yaml")) == "/elsewhere/pay.yaml"


def test_an_app_env_name_that_is_no_variable_name_says_the_ascii_rule(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "farm.yaml").write_text("apps:\n  site:\n    serve: app\n    env: 站点\n",
                                        encoding="utf-8")
    (tmp_path / "one.yaml").write_text("name: One\nweb:\n  url: ${SITE_URL}/\ntasks:\n"
                                       "  - name: t\n    flow:\n      - javascript: '1'\n")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path], env={}, dotenv=None)
    assert "apps.site.env: '站点' is not a valid variable name (ASCII letters A-Z and a-z, " \
           "digits and _, not starting with a digit" in str(caught.value), str(caught.value)
