"""A farm.yaml ``exclude:`` pattern that matches nothing (``fixture`` for ``fixtures/``,
``docker-compose.yml`` for ``docker-compose.yaml``) is named at its line: the files it was
meant to leave out failed to load as cases ("no target section", "list it under exclude:")
while the exclude: the author had written said nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 1\n")


def _suite(tmp_path: Path, exclude: str) -> Path:
    root = tmp_path / "s"
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "data.yaml").write_text("users: [ada]\n")
    (root / ".old").mkdir()
    (root / "c.yaml").write_text(CASE)
    (root / "farm.yaml").write_text(f"exclude: {exclude}\n")
    return root


def test_a_pattern_that_matches_nothing_is_among_the_problems(tmp_path):
    with pytest.raises(SuiteErrors) as caught:
        load_suites([_suite(tmp_path, "[fixture, .old]")], env={}, dotenv=None)
    said = [str(e).split(":", 1)[0].rsplit("/", 1)[-1] + ":" + str(e).split(":", 1)[1]
            for e in caught.value.errors]
    assert said[0] == ("farm.yaml:1:11: exclude: 'fixture' matches no file or folder of the "
                       "suite (globs are relative to farm.yaml's folder)")
    assert len(said) > 1 and all(s.startswith("data.yaml") for s in said[1:]), said


def test_without_other_problems_it_is_a_warning(tmp_path):
    warnings: list[str] = []
    [suite] = load_suites([_suite(tmp_path, "[fixtures/, generated/*.yaml]")], env={},
                          dotenv=None, warnings=warnings)
    assert [c.id for c in suite.cases] == ["s/c"]
    assert [w.split("/s/", 1)[-1] for w in warnings] == [
        "farm.yaml:1:22: exclude: 'generated/*.yaml' matches no file or folder of the suite "
        "(globs are relative to farm.yaml's folder)"]
