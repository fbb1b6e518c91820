"""Two loader promises a journey found broken:

* a case's id does not depend on whether a batch file (``files: [...]``) sits in its folder:
  in a suite with no farm.yaml, ``idt/sub/x`` became ``sub/x`` once ``idt/sub/index.yaml``
  was added (history and --lf lost it; two such trees collided as ``duplicate case id``);
* every problem is said at once: two cases writing one ``output:`` file, or sharing an id,
  were said only once each file's own problems were fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: about:blank\n{extra}tasks:\n  - name: t\n    flow:\n      - sleep: {ms}\n"


def write(path: Path, extra: str = "", ms: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CASE.format(extra=extra, ms=ms))


def tree(top: Path) -> None:
    write(top / "y.yaml")
    write(top / "sub" / "x.yaml")
    (top / "sub" / "index.yaml").write_text("files: [x.yaml]\n")


def ids(paths: list[str]) -> list[str]:
    return sorted(c.id for s in load_suites(paths, env={}, dotenv=None) for c in s.cases)


def test_a_batch_file_in_a_subfolder_keeps_the_case_ids(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree(tmp_path / "idt")
    batches: list = []
    load_suites(["idt"], env={}, dotenv=None, batches=batches)
    assert [b.case_ids for b in batches] == [["idt/sub/x"]]       # the batch runs it
    assert ids(["idt"]) == ["idt/sub/x", "idt/y"]
    (tmp_path / "idt" / "sub" / "index.yaml").unlink()
    assert ids(["idt"]) == ["idt/sub/x", "idt/y"]                  # as without the batch


def test_two_such_trees_do_not_collide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree(tmp_path / "idt")
    tree(tmp_path / "idt2")
    assert ids(["idt", "idt2"]) == ["idt/sub/x", "idt/y", "idt2/sub/x", "idt2/y"]


def test_the_batch_folder_named_alone_is_its_own_suite_as_before(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree(tmp_path / "idt")
    assert ids(["idt/sub"]) == ids(["idt/sub/index.yaml"]) == ["sub/x"]


def errors(paths: list[str]) -> list[str]:
    with pytest.raises(SuiteErrors) as raised:
        load_suites(paths, env={}, dotenv=None)
    return [str(e) for e in raised.value.errors]


def test_a_shared_output_file_is_said_with_the_files_own_problems(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "s" / "a.yaml", "  output: o.json\n")
    write(tmp_path / "s" / "b.yaml", "  output: o.json\n", ms=-1)   # and a problem of its own
    said = errors(["s"])
    assert said == [
        "s/b.yaml:3:11: web.output 'o.json': s/a.yaml:3:11 (web.output, case s/a) writes the "
        "same file: each is written whole when its case ends, so the last one wins and the "
        "other's results are lost; give each its own file name",
        "s/b.yaml:7:16: sleep: expected milliseconds as a non-negative integer, got the "
        "number -1"]


def test_a_shared_id_is_said_with_the_files_own_problems(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "s" / "a.yaml")
    (tmp_path / "s" / "b.yaml").write_text("agent:\n  testId: a\n" + CASE.format(extra="",
                                                                                 ms=-1))
    (tmp_path / "s" / "c.yaml").write_text("agent:\n  testId: sub/x\n" + CASE.format(
        extra="", ms=1))
    write(tmp_path / "s" / "sub" / "x.yaml")      # its id is s/sub/x
    said = errors(["s"])
    assert said == [
        "s/b.yaml:2:11: duplicate case id 's/a': s/a.yaml:1 and s/b.yaml:2; change "
        "agent.testId in s/b.yaml",
        "s/b.yaml:8:16: sleep: expected milliseconds as a non-negative integer, got the "
        "number -1",
        # an id that is itself wrong is claimed by no case: only its own problem is said
        "s/c.yaml:2:11: agent.testId: 'sub/x': expected a name without '/' or surrounding spaces"]
