"""A YAML file of a suite's folder that is no case (a compose.yaml, a data file) is one line
naming it and the way to leave it out (farm.yaml's ``exclude:``), not three errors among which
"unknown key 'services' … (did you mean 'secrets'?)". A case with a misspelt key is still
told what is wrong with it."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "name: c\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n" \
       "      - sleep: 1\n"
COMPOSE = "name: shop\nservices:\n  web:\n    image: nginx\n    ports:\n      - '8080:80'\n"


def _collect(tmp_path: Path, monkeypatch, capsys, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / "s" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "s" / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return run_main(monkeypatch, capsys, "run", "s", "--collect-only")


def test_a_compose_file_is_one_line_naming_exclude(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              {"c.yaml": CASE, "deploy/compose.yaml": COMPOSE})
    assert code == 4
    assert problems(err)[1:] == [
        "  s/deploy/compose.yaml:1:1: not a farm case (no tasks:, no page:/browser:/web:/"
        "android:/ios: section); leave it out with `exclude: [deploy/compose.yaml]` in "
        "s/farm.yaml (a new file there)"]


def test_excluded_it_loads_and_a_misspelt_case_is_still_told(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              {"c.yaml": CASE, "compose.yaml": COMPOSE,
                               "farm.yaml": "exclude: [compose.yaml]\n"})
    assert code == 0, err
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              {"compose.yaml": COMPOSE, "typo.yaml": CASE.replace("tasks", "taks")})
    assert code == 4 and "s/compose.yaml" not in err
    assert "s/typo.yaml:4:1: unknown key 'taks'" in err
