"""A suite folder holding YAML that is no case (test data, a tool's config): farm.yaml's
`exclude:` leaves it out (a glob from the suite's root, or a folder), `-v` says so; without it
the run stops (exit 4) and the error says where to list it. Before, such a folder could not run
at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: https://example.test/\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _suite(tmp_path: Path, farm_yaml: str | None) -> Path:
    root = tmp_path / "shop"
    (root / "fixtures" / "deep").mkdir(parents=True)
    (root / "login.yaml").write_text(CASE)
    (root / "docker-compose.yaml").write_text("services:\n  web:\n    image: nginx\n")
    (root / "fixtures" / "deep" / "users.yml").write_text("users: [ada, bob]\n")
    if farm_yaml is not None:
        (root / "farm.yaml").write_text(farm_yaml)
    return root


def test_excluded_yaml_files_are_left_out_and_said_with_v(tmp_path: Path):
    root = _suite(tmp_path, "exclude:\n  - docker-compose.yaml\n  - fixtures\n")
    skipped: list[str] = []
    suites = load_suites([root], env={}, skipped=skipped, dotenv=None)
    assert [c.id for s in suites for c in s.cases] == ["shop/login"]
    assert sorted(skipped) == sorted([
        f"excluded file {root / 'docker-compose.yaml'} (farm.yaml's exclude: "
        "'docker-compose.yaml')",
        f"excluded file {root / 'fixtures' / 'deep' / 'users.yml'} (farm.yaml's exclude: "
        "'fixtures')"])


def test_a_glob_crosses_folders_and_a_bad_exclude_is_a_suite_error(tmp_path: Path):
    root = _suite(tmp_path, "exclude: ['*compose*', './fixtures/*.yml']\n")
    suites = load_suites([root], env={}, dotenv=None)
    assert [c.id for s in suites for c in s.cases] == ["shop/login"]
    (root / "farm.yaml").write_text("exclude: fixtures\n")
    with pytest.raises(SuiteErrors) as info:
        load_suites([root], env={}, dotenv=None)
    assert any("exclude" in str(e) and "a list of strings" in str(e)
               for e in info.value.errors), info.value.errors


def test_without_exclude_a_data_file_says_where_to_list_it(tmp_path: Path):
    root = _suite(tmp_path, None)
    with pytest.raises(SuiteErrors) as info:
        load_suites([root], env={}, dotenv=None)
    said = [str(e) for e in info.value.errors if "not a farm case" in str(e)]
    assert len(said) == 2 and all(f"in {root / 'farm.yaml'} (a new file there)" in m
                                  for m in said), said
    assert "leave it out with `exclude: [docker-compose.yaml]`" in said[0] + said[1]
    assert "leave it out with `exclude: [fixtures/deep/users.yml]`" in said[0] + said[1]
