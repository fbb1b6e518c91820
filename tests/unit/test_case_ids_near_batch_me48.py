"""A folder is its scripts' project (their ids start at it) only when it holds a real batch file
(one with `files:`): a Jekyll `_config.yml` with `title:` in the working directory — a near
miss of a batch's keys — changed `farm run tests/login.yaml` from `tests/login` to
`repo/tests/login`."""

from __future__ import annotations

from pathlib import Path

from farm.suite.loader import load_suites

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _ids(monkeypatch, repo: Path, *given: str) -> list[str]:
    monkeypatch.chdir(repo)
    return [c.id for s in load_suites([Path(g) for g in given], env={}, dotenv=None)
            for c in s.cases]


def test_a_near_miss_of_a_batch_file_makes_no_project(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "login.yaml").write_text(CASE)
    (repo / "_config.yml").write_text("title: My site\n")
    assert _ids(monkeypatch, repo, "tests/login.yaml") == ["tests/login"]


def test_a_real_batch_file_still_makes_its_folder_the_project(tmp_path, monkeypatch):
    repo = tmp_path / "qa"
    (repo / "web").mkdir(parents=True)
    (repo / "web" / "login.yaml").write_text(CASE)
    (repo / "index.yaml").write_text("files:\n  - web/*.yaml\n")
    assert _ids(monkeypatch, repo, "web/login.yaml") == ["qa/web/login"]
