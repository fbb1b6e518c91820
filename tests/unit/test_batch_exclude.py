"""A batch folder whose farm.yaml excludes files (docker-compose.yaml, fixtures/): the batch's
globs pass over them as discovery does, and the warning about files its files: leaves out does
not name them. Before, `files: ["*.yaml"]` loaded docker-compose.yaml as a case (exit 4, "list
it under exclude:", which it was), and `files: [ok.yaml]` warned the excluded files "do not
run" as if the batch had forgotten them."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _folder(tmp_path: Path, files: str) -> Path:
    root = tmp_path / "s3"
    (root / "fixtures").mkdir(parents=True)
    (root / "farm.yaml").write_text("exclude: [fixtures, docker-compose.yaml]\n")
    (root / "index.yaml").write_text(f"files: {files}\n")
    (root / "ok.yaml").write_text(CASE)
    (root / "two.yaml").write_text(CASE)
    (root / "docker-compose.yaml").write_text("services: {}\n")
    (root / "fixtures" / "x.yaml").write_text("users: [ada]\n")
    return root


def _load(root: Path) -> tuple[list[str], list[str], list[str]]:
    skipped: list[str] = []
    warnings: list[str] = []
    suites = load_suites([root], env={}, skipped=skipped, warnings=warnings, dotenv=None)
    return [c.id for s in suites for c in s.cases], skipped, warnings


@pytest.mark.parametrize("files", ["[ok.yaml, two.yaml]", '["*.yaml"]', '["**/*.yaml"]'])
def test_excluded_files_are_neither_run_nor_called_unlisted(tmp_path: Path, files: str):
    root = _folder(tmp_path, files)
    ids, skipped, warnings = _load(root)
    assert ids == ["s3/ok", "s3/two"]
    assert not any("docker-compose" in w or "x.yaml" in w for w in warnings), warnings
    assert not any("not listed" in line for line in skipped), skipped
    assert sorted(skipped) == sorted([
        f"excluded file {root / 'docker-compose.yaml'} (farm.yaml's exclude: "
        "'docker-compose.yaml')",
        f"excluded file {root / 'fixtures' / 'x.yaml'} (farm.yaml's exclude: 'fixtures')"])


def test_an_unlisted_file_that_is_not_excluded_is_still_named(tmp_path: Path):
    root = _folder(tmp_path, "[ok.yaml]")
    _, _, warnings = _load(root)
    assert len(warnings) == 1 and "two.yaml is in its folder but not in its files:" \
        in warnings[0] and "docker-compose" not in warnings[0], warnings


def test_a_glob_matching_only_excluded_files_says_so(tmp_path: Path):
    root = _folder(tmp_path, '["fixtures/*.yaml"]')
    with pytest.raises(SuiteErrors) as info:
        _load(root)
    assert [e.message for e in info.value.errors] == [
        "files: 'fixtures/*.yaml' matches only files farm.yaml's exclude: leaves out "
        "(x.yaml): name one to run it"]
