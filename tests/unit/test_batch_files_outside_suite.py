"""A batch file's ``files:`` and ``setup:`` stay in the batch's suite folder (where its
farm.yaml is, else the batch's own folder), as farm.yaml's ``exclude:`` globs do:
``files: ['/']`` or ``../../**/*.yaml`` made ``farm run --collect-only`` walk the whole
filesystem (minutes, then an interrupt). Such an entry is a suite error at its file:line,
before anything is searched, and says how to make the other folder part of the suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"
NO_FARM_YAML = ("a farm.yaml, even an empty one, in a folder above both the batch file and the "
                "files makes that folder the suite")


def write(path: Path, text: str = CASE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS... --collect-only`` in ``tmp_path``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args, "--collect-only")


@pytest.mark.parametrize("entry", ["/", "'../../**/*.yaml'", "..", "'*/../../x.yaml'",
                                   "'./../b/../../x.yaml'"])
def test_an_entry_reaching_outside_the_batch_folder_is_refused_where_written(
        collect, tmp_path, entry) -> None:
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml", f"files:\n  - a.yaml\n  - {entry}\n")
    code, out, err = collect("b")
    assert code == 4 and "collected" not in out
    assert err.splitlines()[:2] == [
        "farm: 1 problem in suite files:",
        f"  b/index.yaml:3:5: files: {entry.strip(chr(39))!r} reaches outside the suite's "
        f"folder b: a batch lists only its suite's files ({NO_FARM_YAML})"]


def test_a_setup_file_outside_the_suite_is_refused(collect, tmp_path) -> None:
    write(tmp_path / "login.yaml")
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml",
          "shareBrowserContext: true\nsetup: ../login.yaml\nfiles: [a.yaml]\n")
    code, _, err = collect("b/index.yaml")
    assert code == 4
    assert f"  b/index.yaml:2:8: setup: '../login.yaml' reaches outside the suite's folder " \
           f"b: a batch lists only its suite's files ({NO_FARM_YAML})" \
           in err.splitlines()


def test_with_a_farm_yaml_above_the_batch_its_folder_is_the_limit(collect, tmp_path) -> None:
    write(tmp_path / "proj" / "farm.yaml", "retries: 0\n")
    write(tmp_path / "proj" / "e2e" / "login.yaml")
    write(tmp_path / "elsewhere" / "x.yaml")
    write(tmp_path / "proj" / "configs" / "smoke.yaml",
          f"files:\n  - ../e2e/*.yaml\n  - {tmp_path / 'proj' / 'e2e' / 'login.yaml'}\n"
          "  - ../../elsewhere/*.yaml\n")
    code, _, err = collect("proj/configs/smoke.yaml")
    assert code == 4
    assert err.splitlines()[1:] == [
        "  proj/configs/smoke.yaml:4:5: files: '../../elsewhere/*.yaml' reaches outside the "
        "suite's folder proj: a batch lists only its suite's files (the suite's folder is "
        "where its farm.yaml is: move that to a folder above both)"]


def test_entries_inside_the_suite_are_listed(collect, tmp_path) -> None:
    write(tmp_path / "proj" / "farm.yaml", "")
    write(tmp_path / "proj" / "e2e" / "login.yaml")
    write(tmp_path / "proj" / "e2e" / "cart" / "pay.yaml")
    write(tmp_path / "proj" / "configs" / "smoke.yaml",
          "files:\n  - ../e2e/*/../login.yaml\n  - ../e2e/cart\n")
    code, out, err = collect("proj/configs/smoke.yaml")
    assert code == 0, err
    assert sorted(line.split()[0] for line in out.splitlines() if "[web]" in line) == [
        "proj/e2e/cart/pay", "proj/e2e/login"]


def test_an_entry_refused_is_never_searched(collect, tmp_path, monkeypatch) -> None:
    """``files: ['/', a.yaml]``: after the refusal, finding the line that lists a.yaml
    searched '/' first, walking the whole filesystem."""
    import os
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml", "files:\n  - /\n  - ../*\n  - a.yaml\n")
    looked: list[str] = []
    real_scandir = os.scandir

    def scandir(path="."):
        looked.append(os.fspath(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = collect("b")
    assert code == 4 and len(err.splitlines()) == 3        # the count, then the 2 refusals
    outside = [p for p in looked if not Path(os.path.abspath(p)).is_relative_to(tmp_path)]
    assert outside == []
