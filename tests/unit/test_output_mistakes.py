"""A path farm cannot write or read, as the user sees it: `farm run --junit-xml / --alluredir`
and `farm report` (RUN_DIR, --history --out / --results) say what is wrong with which path and
exit 4 (no traceback, no "internal error"); an output that fails at the end of a run costs only
itself. Runs use the in-memory ``fake`` device kind (tests/support/devices.py): no browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cache.sqlite_store import SqliteStore
from farm.results import CaseResult, RunSummary, write_json
from tests.support.farm_cli import run_main as farm

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a one-case suite ``s`` (it passes on a fake device), a
    regular file ``afile`` and a directory ``somedir``; devices note what they do in
    ``devices/``."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    (tmp_path / "afile").write_text("hi\n")
    (tmp_path / "somedir").mkdir()
    (tmp_path / "devices").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path / "devices"))
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


RUN = ["run", "s", "--devices", "fake:1", "--no-progress", "--report-dir", "r"]


@pytest.mark.parametrize("option, said", [
    (["--junit-xml", "afile/j.xml"], "--junit-xml afile/j.xml: cannot write there (afile is a file)"),
    (["--junit-xml", "somedir"], "--junit-xml somedir: cannot write there (is a directory)"),
    (["--alluredir", "afile/allure"],
     "--alluredir afile/allure: cannot write there (afile is a file)"),
])
def test_an_output_path_that_cannot_be_written_stops_the_run_before_any_device_starts(
        here, monkeypatch, capsys, option, said):
    """As --report-dir is checked: said at once, exit 4, not found out after the run."""
    code, out, err = farm(monkeypatch, capsys, *RUN, *option)
    assert (code, err) == (4, f"farm: error: {said}\n")
    assert list((here / "devices").iterdir()) == []         # no device was opened
    assert not (here / "r").exists() and not (here / "somedir.tmp").exists()


@pytest.mark.parametrize("junit, said", [("afile/j.xml", "afile is a file"),
                                         ("somedir", "is a directory")])
def test_an_output_that_fails_at_the_end_costs_only_itself(here, monkeypatch, capsys,
                                                           junit, said):
    """A --junit-xml that went bad during the run (the check up front passed): every other
    output is written, the summary line printed, the failed one named; exit 3."""
    from farm import run_outputs
    monkeypatch.setattr(run_outputs, "check_outputs", lambda *a: None)
    code, out, err = farm(monkeypatch, capsys, *RUN, "--junit-xml", junit)
    assert err == f"farm: error: not written: --junit-xml {junit}: {said}\n"
    assert code == 3
    assert "farm: 1 passed in" in out
    assert out.splitlines()[-1] == str((here / "r" / "report.html").resolve())
    for name in ("results.json", "junit.xml", "report.html", "metrics.prom"):
        assert (here / "r" / name).is_file(), name
    assert not (here / "somedir.tmp").exists()      # no stray temporary file either
    assert _said_code(here / "r") == (3, 3)        # results.json tells the code farm exits with


def _run_dir(here: Path, journal: bool) -> Path:
    """RUN: a finished one-case run's results.json (and its journal)."""
    case = CaseResult(run_id="r1", case_id="s/one", name="One", file="s/one.yaml",
                      platform="web", device="fake-1", status="passed", started="2026-01-01")
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", cases=[case])
    summary.recount()
    run = here / "RUN"
    run.mkdir()
    write_json(run / "results.json", summary)
    if journal:
        (run / "results.jsonl").write_text(case.model_dump_json() + "\n")
    return run


@pytest.mark.parametrize("text, said", [
    ('{"run_id": \n', "RUN/results.json: not valid JSON at line 2 column 1 (Expecting value)"),
    ("[]\n", "RUN/results.json: not farm's results (top level: Input should be a valid "
             "dictionary or instance of RunSummary)"),
])
def test_farm_report_on_a_corrupt_results_json_says_what_is_wrong(here, monkeypatch, capsys,
                                                                  text, said):
    run = _run_dir(here, journal=False)
    (run / "results.json").write_text(text)
    code, out, err = farm(monkeypatch, capsys, "report", "RUN")
    assert (code, err) == (4, f"farm: error: {said}\n")
    assert (run / "results.json").read_text() == text          # left as it was


def test_farm_report_rebuilds_a_corrupt_results_json_from_the_journal(here, monkeypatch,
                                                                      capsys):
    run = _run_dir(here, journal=True)
    (run / "results.json").write_text('{"run_id": \n')
    code, out, err = farm(monkeypatch, capsys, "report", "RUN")
    assert (code, err) == (0, "farm: RUN/results.json is unreadable (not valid JSON at line 2 "
                              "column 1 (Expecting value)): rebuilt from RUN/results.jsonl "
                              "(1 case(s) finished)\nfarm: the run is now in the results "
                              "history (and --last-failed)\n")
    assert out == f"{(run / 'report.html').resolve()}\n"
    rebuilt = RunSummary.model_validate_json((run / "results.json").read_text())
    assert [(c.case_id, c.status) for c in rebuilt.cases] == [("s/one", "passed")]


def test_a_finished_run_rebuilt_from_its_journal_is_not_called_interrupted(here, monkeypatch,
                                                                         capsys):
    """Every case ran, the report was written, then results.json got lost: the rebuild is
    the run it was (its start, duration, exit code, its new failure, the cases its selection
    left out), not a partial one, and farm says so."""
    from farm.journal import JournalEvents
    from farm.results import DeselectedCase
    from farm.run_outputs import write_outputs
    run = here / "RUN"
    run.mkdir()
    journal = JournalEvents(None, run, "r1", [("s/bad", "Bad", "s/bad.yaml", "web")])
    bad = CaseResult(run_id="r1", case_id="s/bad", name="Bad", file="s/bad.yaml",
                     platform="web", device="fake-1", status="failed",
                     started="2026-01-01T02:00:01+00:00", duration=2.0)
    journal._write(bad.model_dump_json())
    journal.close()
    bad.since_last = "new failure"
    left_out = [DeselectedCase(case_id=f"s/slow{n}", name=f"Slow {n}", file=f"s/slow{n}.yaml",
                               platform="web", reason="-k bad", tags=["nightly"])
                for n in range(2)]
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", duration=7.3,
                         finished="2026-01-01T02:00:07+00:00", cases=[bad], deselected=left_out)
    summary.recount()
    summary.exit_code = 1
    assert write_outputs(summary, run) == []
    for lose, said in [
            (lambda: (run / "results.json").write_text('{"run_id": \n'),
             "farm: RUN/results.json is unreadable (not valid JSON at line 2 column 1 "
             "(Expecting value)): rebuilt from RUN/results.jsonl: the run had finished (1 case)\n"),
            (lambda: (run / "results.json").unlink(),
             "farm: rebuilt from RUN/results.jsonl: the run had finished (1 case)\n")]:
        lose()
        code, out, err = farm(monkeypatch, capsys, "report", "RUN")
        assert (code, err) == (0, said)
        rebuilt = RunSummary.model_validate_json((run / "results.json").read_text())
        assert (rebuilt.interrupted, rebuilt.exit_code, rebuilt.started, rebuilt.duration) == (
            False, 1, "2026-01-01T02:00:00+00:00", 7.3)
        assert rebuilt.cases[0].since_last == "new failure"
        assert rebuilt.deselected == left_out
        html = (run / "report.html").read_text()
        assert "Run interrupted" not in html and "s/slow1" in html


def test_farm_report_history_names_a_path_it_cannot_write_or_read(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--out", "afile/h.html")
    assert (code, err) == (4, "farm: error: --out afile/h.html: cannot write there "
                              "(afile is a file)\n")
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--results", "afile",
                          "--out", "h.html")
    assert (code, err) == (4, "farm: error: --results afile: cannot read it as a results "
                              "history (file is not a database)\n")
    assert (here / "afile").read_text() == "hi\n" and not (here / "h.html").exists()


def test_farm_report_history_refuses_a_results_path_that_does_not_exist(here, monkeypatch,
                                                                        capsys):
    """A typo is not an empty history: said, exit 4, and no file made there."""
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--results",
                          "typo.sqlite", "--out", "h.html")
    assert (code, err) == (4, "farm: error: --results typo.sqlite: no such results history "
                              "(a SQLite file farm wrote, or a redis:// URL)\n")
    assert not (here / "typo.sqlite").exists() and not (here / "h.html").exists()
    code, out, err = farm(monkeypatch, capsys, *RUN)          # a run records its verdicts
    assert code == 0
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--results",
                          ".farm/results.sqlite", "--out", "h.html")
    assert (code, out, err) == (0, f"{(here / 'h.html').resolve()}\n", "")
    assert "No runs recorded" not in (here / "h.html").read_text()


@pytest.mark.parametrize("output, said", [
    ("somedir", "--output somedir: cannot write there (is a directory)"),
    ("afile/x.yaml", "--output afile/x.yaml: cannot write there (afile is a file)"),
])
def test_farm_cache_export_names_an_output_it_cannot_write(here, monkeypatch, capsys,
                                                            output, said):
    """It ended in "farm: internal error: IsADirectoryError …", exit 3."""
    code, out, err = farm(monkeypatch, capsys, "cache", "export", "s/one.yaml", "-o", output)
    assert (code, out, err) == (4, "", f"farm: error: {said}\n")
    assert list((here / "somedir").iterdir()) == [] and (here / "afile").read_text() == "hi\n"
    SqliteStore(here / ".farm" / "cache.db").close()      # export reads a cache; makes none
    code, out, err = farm(monkeypatch, capsys, "cache", "export", "s/one.yaml", "-o",
                          "new/x.yaml")
    assert (code, out, err) == (0, "new/x.yaml\n", "")


@pytest.mark.parametrize("option", [["--since", "7d"], ["--suite", "demo"],
                                    ["--out", "h.html"], ["--results", "r.sqlite"]])
def test_farm_report_of_a_run_refuses_the_history_options(here, monkeypatch, capsys, option):
    """`farm report RUN --since 7d` rebuilt RUN's report, --since unused, exit 0."""
    run = _run_dir(here, journal=False)
    code, out, err = farm(monkeypatch, capsys, "report", "RUN", *option)
    assert code == 4 and out == "", out + err
    assert (f"Error: {option[0]}: only with --history (the page across runs); RUN_DIR's "
            "report is rebuilt in RUN_DIR") in err
    assert not (run / "report.html").exists()


@pytest.mark.parametrize("given, named", [(["RUN"], "RUN_DIR RUN"),
                                          (["--alluredir", "allure"], "--alluredir"),
                                          (["RUN", "--alluredir", "allure"],
                                           "RUN_DIR RUN and --alluredir")])
def test_farm_report_history_refuses_what_only_a_run_s_report_takes(here, monkeypatch, capsys,
                                                                   given, named):
    """`farm report --history RUN` wrote the history page, RUN unused, exit 0."""
    run = _run_dir(here, journal=False)
    code, out, err = farm(monkeypatch, capsys, "report", "--history", *given)
    assert (code, out, err) == (4, "", f"farm: error: {named}: not with --history (the page "
                                       "across runs, from the results history): give one or "
                                       "the other\n")
    assert not (run / "report.html").exists() and not (here / ".farm" / "history.html").exists()
    assert not (here / "allure").exists()


def _with_outputs(here: Path, output: str, log: str) -> None:
    (here / "s" / "one.yaml").write_text(CASE.replace(
        "  url: http://app.invalid/\n",
        f"  url: http://app.invalid/\n  output: {output}\n  unstableLogContent: {log}\n"))


def test_case_outputs_that_cannot_be_written_stop_the_run_before_any_device_starts(
        here, monkeypatch, capsys):
    """output: / unstableLogContent: under a file or on a directory: the run passed, exit 0,
    with only WARNING lines in farm.log."""
    _with_outputs(here, "afile/x.json", "log.json")
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert (code, err) == (4, "farm: error: s/one.yaml: output: afile/x.json: cannot write "
                              "there (afile is a file)\n")
    _with_outputs(here, "out.json", "somedir")
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert (code, err) == (4, "farm: error: s/one.yaml: unstableLogContent: somedir: cannot "
                              "write there (is a directory)\n")
    assert list((here / "devices").iterdir()) == [] and not (here / "r").exists()


def test_case_outputs_not_written_at_the_end_are_named_and_exit_3(here, monkeypatch, capsys):
    """Paths that went bad during the run, or that only ${NAME} makes: every other output is
    written, the failed ones named on stderr, exit 3 (an output that could not be written)."""
    from farm import session
    monkeypatch.setattr(session, "check_case_outputs", lambda *a: None)
    monkeypatch.setenv("LOG_AT", "somedir")
    _with_outputs(here, "afile/x.json", "${LOG_AT}")
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert err == ("farm: error: not written: s/one.yaml: output: afile/x.json: afile is a "
                   "file\n"
                   "farm: error: not written: s/one.yaml: unstableLogContent: somedir: is a "
                   "directory\n")
    assert code == 3 and "farm: 1 passed in" in out
    for name in ("results.json", "junit.xml", "report.html"):
        assert (here / "r" / name).is_file(), name


def test_a_chromium_path_that_is_none_is_said_before_the_run_starts(here, monkeypatch, capsys):
    """FARM_CHROMIUM_PATH=/nonexistent printed "farm: 1 error …" and the report's path, then
    the real problem; results.json listed the case as not run."""
    monkeypatch.setenv("FARM_CHROMIUM_PATH", str(here / "no-chromium"))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "browser:1",
                          "--no-progress", "--report-dir", "r")
    assert (code, out) == (4, "")
    assert err == (f"farm: error: chromium_path '{here / 'no-chromium'}' (FARM_CHROMIUM_PATH) "
                   "does not exist or is not executable\n")
    assert not (here / "r").exists()


@pytest.mark.parametrize("where", ["env", "farm.toml"])
def test_farm_report_history_refuses_a_configured_results_path_that_does_not_exist(
        here, monkeypatch, capsys, where):
    """FARM_RESULTS_HISTORY_URL (or farm.toml) naming a missing file gave an empty page and
    exit 0, where --results with the same typo exits 4: the same, naming the setting."""
    if where == "env":
        monkeypatch.setenv("FARM_RESULTS_HISTORY_URL", "typo.sqlite")
        named = "FARM_RESULTS_HISTORY_URL"
    else:
        (here / "farm.toml").write_text('results_history_url = "typo.sqlite"\n')
        named = "farm.toml:1 results_history_url"
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--out", "h.html")
    assert (code, out, err) == (4, "", f"farm: error: {named} typo.sqlite: no such results "
                                       "history (a SQLite file farm wrote, or a redis:// URL)\n")
    assert not (here / "typo.sqlite").exists() and not (here / "h.html").exists()


def test_farm_report_history_names_the_suites_when_suite_matches_none(here, monkeypatch,
                                                                     capsys):
    """`--suite` with a typo wrote "No runs recorded in this window." and exit 0, while the
    history held that suite's runs: a usage error naming the suites there."""
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert code == 0
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--suite", "ss",
                          "--out", "h.html")
    assert (code, out, err) == (4, "", "farm: error: --suite ss: no case of that suite in the "
                                       "results history (all runs); did you mean 's'? its "
                                       "suites: s\n")
    assert not (here / "h.html").exists()
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--suite", "s",
                          "--since", "7d", "--out", "h.html")
    assert (code, out, err) == (0, f"{(here / 'h.html').resolve()}\n", "")


@pytest.mark.parametrize("options, said", [
    (["--overwrite"], "--overwrite is for a report directory that already holds a run: give "
                      "--report-dir DIR too (or set FARM_REPORT_DIR)"),
    (["--collect-only", "--junit-xml", "co.xml", "--report-dir", "codir"],
     "--report-dir, --junit-xml: --collect-only runs nothing and writes no report: leave them "
     "out, or drop --collect-only"),
    (["--collect-only", "--alluredir", "al"], "--alluredir: --collect-only runs nothing and "
                                              "writes no report: leave it out, or drop "
                                              "--collect-only"),
])
def test_an_output_flag_that_would_do_nothing_is_refused(here, monkeypatch, capsys, options,
                                                         said):
    """`--overwrite` without a report dir ran into .farm/runs/<id>, and `--collect-only` with
    --junit-xml / --report-dir wrote neither, exit 0, nothing said: refused as --shard-timings
    without --shard is, before anything runs."""
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", *options)
    assert (code, out, err) == (4, "", f"farm: error: {said}\n")
    assert list((here / "devices").iterdir()) == [] and not (here / ".farm").exists()
    assert not any((here / name).exists() for name in ("co.xml", "codir", "al"))


def test_overwrite_with_a_report_dir_from_the_environment_is_taken(here, monkeypatch, capsys):
    monkeypatch.setenv("FARM_REPORT_DIR", "r")
    assert farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress")[0] == 0
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--overwrite")
    assert (code, err) == (0, "")


def _said_code(run_dir: Path) -> tuple[int, int]:
    """The exit code in results.json and in the journal's end line."""
    import json
    end = json.loads((run_dir / "results.jsonl").read_text().splitlines()[-1])
    return json.loads((run_dir / "results.json").read_text())["exit_code"], end["exit_code"]


def test_a_case_output_that_cannot_be_written_at_the_end_is_the_run_s_code_in_results(
        here, monkeypatch, capsys):
    """`output: ${OUTDIR}/out.json` naming a file's folder: farm exited 3 as documented, but
    results.json (and the journal's end) said exit_code 0."""
    (here / "s" / "one.yaml").write_text(CASE.replace("web:\n", "web:\n  output: "
                                                                 "${OUTDIR}/out.json\n"))
    monkeypatch.setenv("OUTDIR", "afile")
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert (code, err) == (3, "farm: error: not written: s/one.yaml: output: afile/out.json: "
                              "afile is a file\n")
    assert "farm: 1 passed in" in out
    assert _said_code(here / "r") == (3, 3)


@pytest.mark.parametrize("root", ["/", "/.", "//"])
def test_a_report_dir_that_is_the_filesystem_root_is_refused(here, monkeypatch, capsys, root):
    """`--report-dir "$OUT/"` with OUT unset wrote results.json, report.html and the
    screenshots into / (as root, it could)."""
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--report-dir", root)
    assert (code, out) == (4, "")
    assert err == (f"farm: error: --report-dir {Path(root)}: that is the filesystem's root (an "
                   "unset variable, as in \"$OUT/\"?): give a directory of its own\n")
    assert list((here / "devices").iterdir()) == []         # no device was opened
