"""`apps: {shop: {serve: /}}` was accepted: the run served the whole disk to the loopback (to
the cluster with FARM_SERVE_HOST=0.0.0.0); only dot-files were refused. The filesystem root,
the home directory and a folder holding it are refused at load, at their file:line:col, with
one line; an app's own folder (`.`, `../site`) is served as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from tests.support.farm_cli import run_main
from tests.support.load_errors import NOT_LISTED_SUITE, problems

CASE = "web:\n  url: ${SHOP}/index.html\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"
APP = "apps:\n  shop:\n    serve: {}\n    env: SHOP\n"
SAID = "apps.shop.serve: {!r} is {}: farm would serve every file in it; serve the app's own folder"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory ``me`` holding a suite ``me/work/s`` (its case ``a.yaml``) beside a
    site folder ``me/work/site``."""
    (tmp_path / "me" / "work" / "s").mkdir(parents=True)
    (tmp_path / "me" / "work" / "site").mkdir()
    (tmp_path / "me" / "work" / "s" / "a.yaml").write_text(CASE)
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.chdir(tmp_path / "me" / "work")
    return tmp_path / "me"


def _problems(suite: Path, serve: str) -> list[str]:
    (suite / "farm.yaml").write_text(APP.format(serve))
    with pytest.raises(SuiteErrors) as caught:
        load_suites([suite], env={}, warnings=[])
    return [f"{e.line}:{e.column} {e.message}" for e in caught.value.errors]


def test_serving_the_filesystem_root_stops_the_run_with_one_line(home, monkeypatch, capsys):
    (home / "work" / "s" / "farm.yaml").write_text(APP.format("/"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4
    assert problems(err, NOT_LISTED_SUITE) == ["farm: 1 problem in suite files:",
                                               "  s/farm.yaml:3:12: " + SAID.format("/", "the filesystem root")]


def test_the_home_directory_and_a_folder_holding_it_are_refused(home):
    suite = home / "work" / "s"
    assert _problems(suite, "../..") == ["3:12 " + SAID.format("../..", "the home directory")]
    assert _problems(suite, "../../..") == ["3:12 " + SAID.format(
        "../../..", f"a folder holding the home directory ({home})")]


def test_an_app_s_own_folder_is_still_served(home):
    suite = home / "work" / "s"
    for serve, folder in ((".", suite), ("../site", home / "work" / "site")):
        (suite / "farm.yaml").write_text(APP.format(serve))
        [loaded] = load_suites([suite], env={}, warnings=[])
        assert [Path(a.serve).resolve() for a in loaded.defaults.apps] == [folder.resolve()]


def test_a_case_s_own_web_serve_of_the_home_directory_is_refused(home):
    """`web: {serve: …}` (Midscene's key, a folder served for one case) is held to the same
    rule as `apps:`."""
    case = home / "work" / "s" / "a.yaml"
    case.write_text("web:\n  serve: ../..\n  url: /index.html\n"
                    "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, warnings=[])
    assert [f"{e.line}:{e.column} {e.message}" for e in caught.value.errors] == [
        "2:10 web.serve: '../..' is the home directory: farm would serve every file in it; "
        "serve the app's own folder"]
    case.write_text("web:\n  serve: ../site\n  url: /index.html\n"
                    "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    [loaded] = load_suites([case], env={}, warnings=[])
    assert Path(loaded.cases[0].web.serve) == (home / "work" / "site").resolve()
