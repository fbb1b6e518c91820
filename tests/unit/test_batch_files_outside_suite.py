"""A batch file's ``files:`` and ``setup:`` may name any file and search any folder but one
holding the batch file outside its suite: ``files: ['/']`` or ``../../**/*.yaml`` made
``farm run --collect-only`` walk the whole filesystem (minutes, then an interrupt). Such an
entry is a suite error at its file:line, before anything is searched, saying what to write
instead; Midscene's layout, ``configs/smoke.yaml`` listing ``../e2e/**/*.yaml``, still runs
(a sibling folder: tests/unit/test_midscene_batches.py), as does a search of the suite's
folder where a farm.yaml marks one above the batch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"
MAY = ("a batch's glob or folder may search its own folder, one beside it (as "
       "'../e2e/**/*.yaml'){} or any below these, not one holding the batch file; start it at "
       "the folder the files are in, or list them by name")


def write(path: Path, text: str = CASE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def collected(out: str) -> list[str]:
    return sorted(line.split()[0] for line in out.splitlines() if "[web]" in line)


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS... --collect-only`` in ``tmp_path``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args, "--collect-only")


@pytest.mark.parametrize(("entry", "folder"), [
    ("/", "/"), ("'../../**/*.yaml'", "../.."), ("..", ".."), ("'../**'", ".."),
    ("'*/../../**/*.yaml'", ".."), ("'./../b/../../*.yaml'", "../..")])
def test_an_entry_searching_a_folder_above_the_batch_is_refused_where_written(
        collect, tmp_path, entry, folder) -> None:
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml", f"files:\n  - a.yaml\n  - {entry}\n")
    code, out, err = collect("b")
    assert code == 4 and "collected" not in out
    real = os.path.realpath(tmp_path / "b" / folder)
    shown = folder if folder == "/" else f"{folder} ({real})"
    widen = "" if folder == "/" else f" (a farm.yaml in {folder} would make it the suite's folder)"
    assert err.splitlines()[:2] == [
        "farm: 1 problem in suite files:",
        f"  b/index.yaml:3:5: files: {entry.strip(chr(39))!r} would search all of {shown}, "
        f"which holds the batch file: {MAY.format('')}{widen}"]


def test_the_farm_yaml_the_refusal_suggests_makes_the_search_one_of_the_suite(
        collect, tmp_path) -> None:
    write(tmp_path / "proj" / "b" / "a.yaml")
    write(tmp_path / "proj" / "e2e" / "x.yaml")
    write(tmp_path / "proj" / "b" / "index.yaml", "files:\n  - '../**/*.yaml'\n")
    assert collect("proj/b")[0] == 4
    write(tmp_path / "proj" / "farm.yaml", "")
    code, out, err = collect("proj/b")
    assert code == 0, err
    assert collected(out) == ["proj/b/a", "proj/e2e/x"]


def test_a_link_to_a_folder_holding_the_batch_is_refused_as_that_folder(collect, tmp_path):
    """A folder named in a pattern is entered, a link too: a link to .. (or to /) in the
    batch's folder searched what holds it."""
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "e2e" / "x.yaml")
    (tmp_path / "b" / "up").symlink_to("..")
    write(tmp_path / "b" / "index.yaml", "files:\n  - a.yaml\n  - up\n  - 'up/e2e/*.yaml'\n"
                                         "  - 'up/**/*.yaml'\n")
    code, out, err = collect("b")
    assert code == 4 and "collected" not in out
    real = os.path.realpath(tmp_path)
    assert problems(err)[1:] == [
        f"  b/index.yaml:{line}:5: files: {entry!r} would search all of up ({real}), which "
        f"holds the batch file: {MAY.format('')} (a farm.yaml in up would make it the suite's "
        "folder)" for line, entry in ((3, "up"), (5, "up/**/*.yaml"))]


def test_a_file_named_outside_the_batch_folder_is_read_not_searched(collect, tmp_path):
    """A path without a wildcard names one file, wherever it is, as in Midscene."""
    write(tmp_path / "proj" / "login.yaml")
    write(tmp_path / "proj" / "checkout.yaml")
    write(tmp_path / "proj" / "b" / "a.yaml")
    write(tmp_path / "proj" / "b" / "index.yaml",
          "shareBrowserContext: true\nsetup: ../login.yaml\n"
          "files: [a.yaml, ./../b/../checkout.yaml]\n")
    code, out, err = collect("proj/b/index.yaml")
    assert code == 0, err
    assert collected(out) == ["b/a", "proj/checkout", "proj/login"]


def test_a_setup_glob_searching_above_the_batch_is_refused(collect, tmp_path) -> None:
    write(tmp_path / "login.yaml")
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml",
          "shareBrowserContext: true\nsetup: ../*login.yaml\nfiles: [a.yaml]\n")
    code, _, err = collect("b/index.yaml")
    assert code == 4
    assert f"  b/index.yaml:2:8: setup: '../*login.yaml' would search all of .. " \
           f"({os.path.realpath(tmp_path)}), which holds the batch file: {MAY.format('')} " \
           "(a farm.yaml in .. would make it the suite's folder)" in err.splitlines()


def test_with_a_farm_yaml_above_the_batch_its_folder_may_be_searched(collect, tmp_path):
    write(tmp_path / "proj" / "farm.yaml", "retries: 0\n")
    write(tmp_path / "proj" / "e2e" / "login.yaml")
    write(tmp_path / "proj" / "e2e" / "cart" / "pay.yaml")
    write(tmp_path / "elsewhere" / "x.yaml")
    smoke = write(tmp_path / "proj" / "configs" / "smoke.yaml",
                  f"files:\n  - ../e2e/*.yaml\n  - {tmp_path / 'proj' / 'e2e' / 'login.yaml'}\n"
                  "  - ../../elsewhere/*.yaml\n  - '../**/pay.yaml'\n  - '../../**/*.yaml'\n")
    code, _, err = collect("proj/configs/smoke.yaml")
    assert code == 4
    assert problems(err)[1:] == [
        f"  proj/configs/smoke.yaml:6:5: files: '../../**/*.yaml' would search all of ../.. "
        f"({os.path.realpath(tmp_path)}), which holds the batch file: "
        f"{MAY.format(', its suite' + chr(39) + 's folder proj (where its farm.yaml is)')} "
        "(moving the farm.yaml to ../.. would make it the suite's folder)"]
    smoke.write_text(smoke.read_text().replace("  - '../../**/*.yaml'\n", ""))
    code, out, err = collect("proj/configs/smoke.yaml")
    assert code == 0, err       # a sibling of the suite's folder: a case of its own folder
    assert collected(out) == ["elsewhere/x", "proj/e2e/cart/pay", "proj/e2e/login"]


def test_entries_inside_the_suite_are_listed(collect, tmp_path) -> None:
    write(tmp_path / "proj" / "farm.yaml", "")
    write(tmp_path / "proj" / "e2e" / "login.yaml")
    write(tmp_path / "proj" / "e2e" / "cart" / "pay.yaml")
    write(tmp_path / "proj" / "configs" / "smoke.yaml",
          "files:\n  - ../e2e/*/../login.yaml\n  - ../e2e/cart\n")
    code, out, err = collect("proj/configs/smoke.yaml")
    assert code == 0, err
    assert collected(out) == ["proj/e2e/cart/pay", "proj/e2e/login"]


def test_an_entry_refused_is_never_searched(collect, tmp_path, monkeypatch) -> None:
    """``files: ['/', a.yaml]``: after the refusal, finding the line that lists a.yaml
    searched '/' first, walking the whole filesystem."""
    write(tmp_path / "b" / "a.yaml")
    write(tmp_path / "b" / "index.yaml", "files:\n  - /\n  - ../*\n  - a.yaml\n")
    looked: list[str] = []
    real_scandir = os.scandir

    def scandir(path="."):
        looked.append(os.fspath(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = collect("b")
    assert code == 4 and len(problems(err)) == 3        # the count, then the 2 refusals
    outside = [p for p in looked if not Path(os.path.abspath(p)).is_relative_to(tmp_path)]
    assert outside == []
