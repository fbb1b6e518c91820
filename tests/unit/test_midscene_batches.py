"""Midscene batch files and project folders as Midscene users bring them: a ``concurrent: 1``
batch keeps its listed order in the scheduler, ``files:`` may point outside the batch's folder,
``headed: false`` is accepted, Midscene's ``midscene_run/`` output and cache files are not
cases, and the working directory's ``.env`` gives ``${NAME}`` values as Midscene's CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from farm.cluster.jobs import payload, read_payload
from farm.errors import SuiteErrors
from farm.schedule import Job, enqueue, order_jobs, pick_job
from farm.suite.loader import display_path, load_suites
from farm.suite.vars import Variables
from tests.support.load_errors import problems

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"


def write(path: Path, text: str = CASE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cases_of(*paths: Path, **kw) -> dict:
    return {c.id: c for s in load_suites(list(paths), env={}, dotenv=None, **kw)
            for c in s.cases}


# -- concurrent: 1 keeps the listed order -------------------------------------------------------

def _sequence(expected: list[float]) -> list[Job]:
    """create → use → cleanup, with remembered durations ``expected``."""
    return [Job(f"b/{name}", "web", secs, sequence="b/index.yaml", place=i)
            for i, (name, secs) in enumerate(zip(("01_create", "02_use", "03_cleanup"),
                                                 expected))]


@given(st.lists(st.floats(0, 1e4), min_size=3, max_size=3),
       st.lists(st.floats(0, 1e4), max_size=5))
def test_a_sequence_runs_in_place_order_whatever_the_remembered_durations(secs, others):
    jobs = _sequence(secs) + [Job(f"other/{i}", "web", s) for i, s in enumerate(others)]
    ordered = [j.case_id for j in order_jobs(jobs) if j.sequence]
    assert ordered == ["b/01_create", "b/02_use", "b/03_cleanup"]
    rest = [j.expected_seconds for j in order_jobs(jobs) if not j.sequence]
    assert rest == sorted(rest, reverse=True)       # independent cases stay longest-first


def test_a_retried_file_runs_again_before_the_files_listed_after_it():
    create, use, cleanup = _sequence([1, 200, 400])
    queue = enqueue(order_jobs([use, cleanup]), Job(create.case_id, "web", 1, attempt=2,
                                                    sequence=create.sequence, place=0))
    assert [(j.case_id, j.attempt) for j in queue] == [
        ("b/01_create", 2), ("b/02_use", 1), ("b/03_cleanup", 1)]


def test_a_later_file_waits_while_an_earlier_one_cannot_be_taken_by_this_device():
    create, use, _ = _sequence([1, 2, 3])
    infra_retry = Job(create.case_id, "web", 1, attempt=2, avoid_devices=frozenset({"b1"}),
                      sequence=create.sequence, place=0)
    other = Job("other/x", "web", 5)
    # b1 must not jump to 02_use while 01_create waits for another browser ...
    assert pick_job([infra_retry, use, other], "b1", "web", other_live_devices=1) == 2
    # ... and takes 01_create itself when it is the only browser left
    assert pick_job([infra_retry, use], "b1", "web", other_live_devices=0) == 0
    pinned = Job(create.case_id, "android", 1, pin="emulator-5554",
                 sequence=create.sequence, place=0)
    phone_use = Job(use.case_id, "android", 2, sequence=use.sequence, place=1)
    assert pick_job([pinned, phone_use], "emulator-5556", "android", 1) is None


def _orders(tmp_path: Path, head: str) -> Path:
    for name in ("01_create", "02_use", "03_cleanup"):
        write(tmp_path / "b" / "scripts" / f"{name}.yaml")
    return write(tmp_path / "b" / "index.yaml", head + "files:\n  - scripts/03_cleanup.yaml\n"
                 "  - scripts/01_create.yaml\n  - scripts/02_use.yaml\n")


def test_the_files_of_a_concurrent_1_batch_get_their_listed_places(tmp_path):
    cases = cases_of(_orders(tmp_path, "concurrent: 1\n"))
    places = {cid: (c.in_order.batch, c.in_order.place) for cid, c in cases.items()}
    batch = display_path(tmp_path / "b" / "index.yaml")
    assert places == {"b/scripts/03_cleanup": (batch, 0), "b/scripts/01_create": (batch, 1),
                      "b/scripts/02_use": (batch, 2)}
    assert all(c.in_order for c in cases_of(_orders(tmp_path, "")).values())  # Midscene's default
    assert not any(c.in_order for c in cases_of(_orders(tmp_path, "concurrent: 2\n")).values())


def test_a_files_place_travels_to_a_farm_worker_with_its_job(tmp_path):
    [case] = cases_of(write(tmp_path / "b" / "a.yaml")).values()
    job = Job(case.id, "web", 1.0, sequence="b/index.yaml", place=2)
    _, back, _ = read_payload(payload("run1", job, case, {}, {}))
    assert back == job


# -- files outside the batch's folder ----------------------------------------------------------

def test_two_batches_may_list_the_same_files_in_a_sibling_folder(tmp_path):
    write(tmp_path / "e2e" / "login.yaml")
    write(tmp_path / "e2e" / "cart" / "checkout.yaml")
    write(tmp_path / "e2e" / "node_modules" / "pkg" / "config.yaml", "name: x\n")
    smoke = write(tmp_path / "configs" / "smoke.yaml",
                  "web:\n  viewportWidth: 800\nfiles:\n  - ../e2e/**/*.yaml\n")
    nightly = write(tmp_path / "configs" / "nightly.yaml",
                    "web:\n  viewportWidth: 1100\nfiles:\n  - ../e2e/login.yaml\n")
    alone = cases_of(tmp_path / "e2e")
    assert sorted(alone) == ["e2e/cart/checkout", "e2e/login"]
    # the ids are the ones `farm run e2e` gives: results and remembered durations line up
    for batch, width in ((smoke, 800), (nightly, 1100)):
        cases = cases_of(batch)
        assert set(cases) <= set(alone) and "e2e/login" in cases
        assert cases["e2e/login"].web.viewport_width == width
        assert cases["e2e/login"].batch == display_path(batch)
    assert sorted(cases_of(smoke)) == sorted(alone)         # node_modules is not a case
    assert cases_of(smoke)["e2e/login"].in_order.place == 1  # cart/checkout sorts first


def test_two_batches_may_list_the_same_files_in_a_folder_of_their_suite(tmp_path):
    top = tmp_path / "proj"
    write(top / "farm.yaml", "")            # the suite: the batches' folder and e2e/ below it
    write(top / "e2e" / "login.yaml")
    write(top / "e2e" / "cart" / "checkout.yaml")
    write(top / "e2e" / "node_modules" / "pkg" / "config.yaml", "name: x\n")
    smoke = write(top / "configs" / "smoke.yaml",
                  "web:\n  viewportWidth: 800\nfiles:\n  - ../e2e/**/*.yaml\n")
    nightly = write(top / "configs" / "nightly.yaml",
                    "web:\n  viewportWidth: 1100\nfiles:\n  - ../e2e/login.yaml\n")
    alone = cases_of(top / "e2e")
    assert sorted(alone) == ["proj/e2e/cart/checkout", "proj/e2e/login"]
    # the ids are the ones `farm run e2e` gives: results and remembered durations line up
    for batch, width in ((smoke, 800), (nightly, 1100)):
        cases = cases_of(batch)
        assert set(cases) <= set(alone) and "proj/e2e/login" in cases
        assert cases["proj/e2e/login"].web.viewport_width == width
        assert cases["proj/e2e/login"].batch == display_path(batch)
    assert sorted(cases_of(smoke)) == sorted(alone)         # node_modules is not a case
    assert cases_of(smoke)["proj/e2e/login"].in_order.place == 1  # cart/ sorts first


def test_a_file_named_in_node_modules_is_still_listed(tmp_path):
    write(tmp_path / "b" / "node_modules" / "kit" / "flow.yaml")
    batch = write(tmp_path / "b" / "index.yaml", "files:\n  - node_modules/kit/flow.yaml\n")
    assert list(cases_of(batch)) == ["b/node_modules/kit/flow"]


def test_a_batch_glob_passes_over_the_files_discovery_passes_over(tmp_path):
    write(tmp_path / "b" / "farm.yaml", "apps:\n  shop: {serve: app}\n")
    (tmp_path / "b" / "app").mkdir()
    write(tmp_path / "b" / "login.yaml")
    write(tmp_path / "b" / "pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters: {}\n")
    write(tmp_path / "b" / "pnpm-workspace.yaml", "packages: [app]\n")
    write(tmp_path / "b" / "more" / "pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    write(tmp_path / "b" / "more" / "cart.yaml")
    batch = write(tmp_path / "b" / "index.yaml", "files: ['**/*.yaml']\n")
    assert list(cases_of(batch)) == ["b/login", "b/more/cart"]


def test_a_listed_link_to_a_file_elsewhere_loads_as_that_file(tmp_path):
    target = write(tmp_path / "kept" / "flow.yaml")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "flow.yaml").symlink_to(target)
    batch = write(tmp_path / "b" / "index.yaml", "files:\n  - ../links/flow.yaml\n")
    assert list(cases_of(batch)) == ["kept/flow"]


def test_a_listed_link_in_the_batch_folder_to_a_file_elsewhere_loads_as_that_file(tmp_path):
    target = write(tmp_path / "kept" / "flow.yaml")
    (tmp_path / "b" / "links").mkdir(parents=True)
    (tmp_path / "b" / "links" / "flow.yaml").symlink_to(target)
    batch = write(tmp_path / "b" / "index.yaml", "files:\n  - links/flow.yaml\n")
    assert list(cases_of(batch)) == ["kept/flow"]


# -- headed: false, keepWindow: false ----------------------------------------------------------

def test_switches_farm_cannot_turn_on_are_accepted_off_and_refused_on(tmp_path):
    write(tmp_path / "b" / "a.yaml")
    off = write(tmp_path / "b" / "index.yaml", "headed: false\nkeepWindow: false\n"
                "dotenvOverride: false\nfiles:\n  - a.yaml\n")
    assert list(cases_of(off)) == ["b/a"]
    off.write_text("headed: true\nkeepWindow: false\nfiles:\n  - a.yaml\n")
    with pytest.raises(SuiteErrors) as caught:
        cases_of(off)
    [error] = caught.value.errors
    assert (error.line, error.column) == (1, 1)
    assert error.message.startswith("headed: the boolean true is not supported by farm: farm "
                                    "runs headless browsers")
    assert "only `headed: false` is accepted" in error.message


# -- Midscene's own files ----------------------------------------------------------------------

MIDSCENE_CACHE = """\
midsceneVersion: 0.30.0
cacheId: login
caches:
  - type: plan
    prompt: Click me
    yamlWorkflow: "tasks: []"
"""


def test_midscene_output_and_cache_files_are_not_cases(tmp_path):
    write(tmp_path / "s" / "login.yaml")
    write(tmp_path / "s" / "midscene_run" / "cache" / "login.cache.yaml", MIDSCENE_CACHE)
    write(tmp_path / "s" / "midscene_run" / "report" / "x.yaml", "not: a case\n")
    write(tmp_path / "s" / "pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    write(tmp_path / "s" / "old" / "login.cache.yaml", MIDSCENE_CACHE)     # copied by hand
    skipped: list[str] = []
    warnings: list[str] = []
    assert list(cases_of(tmp_path / "s", skipped=skipped, warnings=warnings)) == ["s/login"]
    shown = display_path(tmp_path / "s")
    assert skipped == [f"Midscene's output folder (reports, logs, caches) {shown}/midscene_run/",
                       f"pnpm's lock file {shown}/pnpm-lock.yaml"]
    assert warnings == [f"{shown}/old/login.cache.yaml: a Midscene cache file (midsceneVersion:"
                        " and caches:), not a case: skipped (Midscene writes them to "
                        "midscene_run/cache/; farm keeps its own cache, see `farm cache ls`)"]


# -- .env --------------------------------------------------------------------------------------

GREETING = CASE.replace("aiTap: go", "assertText: ${GREETING}")


def test_the_working_directorys_env_file_gives_values_the_environment_overrides(tmp_path):
    case_file = write(tmp_path / "s" / "two.yaml", GREETING.replace(
        "url: https://example.com", "url: https://example.com/${PAGE:-x}"))
    dotenv = write(tmp_path / ".env", "# Midscene's .env\nexport GREETING='Audit page'\n"
                   "UNUSED_KEY=sk-not-for-this-case\nPAGE=home # a comment\n")
    [case] = [c for s in load_suites([case_file], env={}, dotenv=dotenv) for c in s.cases]
    assert case.vars == {"GREETING": "Audit page", "PAGE": "home"}     # only what it refers to
    values = Variables.from_sources(case.vars, env={})
    assert values.resolve("${GREETING}") == "Audit page"
    assert values.mask("Audit page") == "Audit page"            # not a secret unless declared
    assert Variables.from_sources(case.vars, env={}, secrets=["GREETING"]).mask(
        "Audit page") == "***"
    assert Variables.from_sources(case.vars, env={"GREETING": "from env"}).resolve(
        "${GREETING}") == "from env"
    with pytest.raises(SuiteErrors):
        load_suites([case_file], env={}, dotenv=None)


def test_an_env_file_value_is_taken_as_written_not_as_a_template(tmp_path):
    case_file = write(tmp_path / "s" / "one.yaml", GREETING)
    dotenv = write(tmp_path / ".env", "GREETING=Price: ${PRICE} $${ ${\n")
    [case] = [c for s in load_suites([case_file], env={}, dotenv=dotenv) for c in s.cases]
    values = Variables.from_sources(case.vars, env={"PRICE": "9"})
    assert values.resolve("${GREETING}") == "Price: ${PRICE} $${ ${"


def test_a_missing_variable_names_the_working_directorys_env_file_as_a_source(tmp_path,
                                                                              monkeypatch):
    """The message lists every place a value may come from; the .env it names is the one
    the next `farm run` in this directory reads."""
    monkeypatch.chdir(tmp_path)
    case_file = write(tmp_path / "s" / "two.yaml", GREETING)
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case_file], env={})
    [error] = caught.value.errors
    assert error.message == ("undefined variable ${GREETING} (set it in the environment, a "
                             ".env file in the working directory, vars:, or a secrets dir)")
    write(tmp_path / ".env", "GREETING=Audit page\n")
    [case] = [c for s in load_suites([case_file], env={}) for c in s.cases]
    assert case.vars == {"GREETING": "Audit page"}


def test_an_env_file_beside_the_suite_is_named_when_a_variable_is_missing(tmp_path):
    write(tmp_path / "b1" / ".env", "GREETING=Audit page\n")
    case_file = write(tmp_path / "b1" / "scripts" / "two.yaml", GREETING)
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "b1"], env={}, dotenv=tmp_path / "elsewhere" / ".env")
    [error] = caught.value.errors
    assert error.file == display_path(case_file)
    assert error.message == (
        "undefined variable ${GREETING} (set it in the environment, a .env file in the working "
        "directory, vars:, or a secrets dir); "
        f"{display_path(tmp_path / 'b1' / '.env')} sets it, but farm reads .env from the "
        "working directory only, as Midscene's CLI does (run farm in "
        f"{display_path(tmp_path / 'b1')}, or set GREETING in the environment)")


def test_farm_run_reads_env_from_where_it_runs(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from farm.cli import cli
    write(tmp_path / "b1" / "two.yaml", GREETING)
    write(tmp_path / "b1" / ".env", "GREETING=Audit page\n")
    monkeypatch.delenv("GREETING", raising=False)
    monkeypatch.chdir(tmp_path / "b1")
    listed = CliRunner().invoke(cli, ["run", ".", "--collect-only"])
    assert listed.exit_code == 0, listed.output
    assert "1 case(s) collected" in listed.output


# -- a folder holding batch files --------------------------------------------------------------

@pytest.fixture
def farm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS...`` in ``tmp_path``: (exit code, stdout, stderr)."""
    from tests.support.farm_cli import run_main
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args)


def test_a_folder_run_as_its_batch_says_which_files_the_batch_leaves_out(tmp_path, farm_run):
    write(tmp_path / "f" / "farm.yaml", "timeout: 30\n")
    for name in ("a.yaml", "b.yaml", "d.yaml", "more/c.yaml"):
        write(tmp_path / "f" / name)
    write(tmp_path / "f" / "index.yaml", "files: [a.yaml]\n")
    write(tmp_path / "f" / "nightly.yaml", "files: [more/c.yaml]\n")   # a batch of its own
    code, out, err = farm_run("f", "-v", "--collect-only")
    assert code == 0 and "farm:" not in out
    lines = out.splitlines()
    assert err.splitlines()[:3] == [
        "farm: skipped file not listed by f/index.yaml or f/nightly.yaml: f/b.yaml",
        "farm: skipped file not listed by f/index.yaml or f/nightly.yaml: f/d.yaml",
        "farm: warning: f/index.yaml: f/b.yaml, f/d.yaml are in its folder but not in the "
        "files: of any of its batch files, so they do not run (a folder holding a batch file "
        "runs that batch: add them to files:, or name them to run them alone)"]
    assert [line.split()[0] for line in lines if "[web]" in line] == ["f/a", "f/more/c"]
    code, out, err = farm_run("f/b.yaml", "--collect-only")      # named, it runs alone
    assert code == 0 and "f/b  [web]" in out and "warning" not in out + err


@pytest.mark.parametrize("listed", ["scripts/", "scripts", "./scripts"])
def test_a_folder_in_files_is_its_yaml_files(tmp_path, listed):
    """Midscene's `files: [scripts/]` (its matchYamlFiles: a folder is its .yml / .yaml files,
    those below it too) was refused: "files: 'scripts/' matches no .yaml file"."""
    for name in ("scripts/a.yaml", "scripts/deep/b.yml", "other.yaml"):
        write(tmp_path / "f" / name)
    write(tmp_path / "f" / "index.yaml", f"files: ['{listed}']\n")
    assert sorted(cases_of(tmp_path / "f" / "index.yaml")) == ["f/scripts/a",
                                                                "f/scripts/deep/b"]


def test_a_batch_with_empty_files_says_only_that(tmp_path, farm_run):
    """``files: []`` is refused as listing no file; it also warned that the folder's other
    files "are in its folder but not in its files:, so they do not run", as if the batch
    listed some and left those out."""
    write(tmp_path / "f" / "a.yaml")
    write(tmp_path / "f" / "index.yaml", "files: []\n")
    code, out, err = farm_run("f", "--collect-only")
    assert code == 4 and "warning" not in out, out
    assert "f/index.yaml:1:8: files is empty: expected at least one file or glob" in err
    write(tmp_path / "f" / "index.yaml", "files: [index.yaml]\n")    # (itself: no problem)
    code, out, err = farm_run("f", "--collect-only")
    assert "warning: f/index.yaml: f/a.yaml is in its folder but not in its files:" in err


def test_a_batch_file_below_a_folder_run_as_its_batch_is_named_as_not_run(tmp_path, farm_run):
    write(tmp_path / "f" / "a.yaml")
    write(tmp_path / "f" / "index.yaml", "files: [a.yaml, sub/b.yaml]\n")
    write(tmp_path / "f" / "sub" / "b.yaml")
    write(tmp_path / "f" / "sub" / "index.yaml", "headed: true\nfiles: [b.yaml]\n")
    code, out, err = farm_run("f", "-v", "--collect-only")
    assert code == 0 and "farm:" not in out
    assert err.splitlines()[:2] == [
        "farm: skipped batch file below f/index.yaml: f/sub/index.yaml",
        "farm: warning: f/sub/index.yaml: a batch file in a folder below f/index.yaml's, which "
        "runs only the files f/index.yaml lists: it does not run (`farm run f/sub/index.yaml` "
        "runs it)"]
    assert [line.split()[0] for line in out.splitlines() if "[web]" in line] == ["f/a",
                                                                                "f/sub/b"]
    code, _, err = farm_run("f/sub/index.yaml", "--collect-only")     # named, it is read
    assert code == 4 and "f/sub/index.yaml:1:1: headed: the boolean true" in err


def test_a_batch_file_a_batch_s_glob_matches_is_named_not_read_as_a_case(tmp_path, farm_run):
    """(before: `**/*.yaml` reached sub/index.yaml and read it as a case: "unknown key
    'files' in the case", exit 4)"""
    write(tmp_path / "f" / "a.yaml")
    write(tmp_path / "f" / "index.yaml", "files: ['**/*.yaml']\n")
    write(tmp_path / "f" / "sub" / "b.yaml")
    write(tmp_path / "f" / "sub" / "index.yaml", "files: [b.yaml]\n")
    code, out, err = farm_run("f", "--collect-only")
    assert code == 0 and "farm:" not in out
    assert err.splitlines()[0] == (
        "farm: warning: f/sub/index.yaml: a batch file matched by f/index.yaml's files: it "
        "does not run as a case (`farm run f/sub/index.yaml` runs it)")
    assert "below f/index.yaml" not in err                     # said once
    assert [line.split()[0] for line in out.splitlines() if "[web]" in line] == ["f/a",
                                                                                "f/sub/b"]


def test_a_batch_file_of_any_name_makes_its_folder_that_batch(tmp_path, farm_run):
    write(tmp_path / "g" / "a.yaml")
    smoke = write(tmp_path / "g" / "smoke.yaml", "files: [a.yaml]\n")
    [case] = cases_of(tmp_path / "g").values()
    assert (case.id, case.batch) == ("g/a", display_path(smoke))
    code, out, err = farm_run("g", "--collect-only")
    assert code == 0 and "farm:" not in out
    assert err.splitlines()[0].startswith("farm: g/smoke.yaml: concurrent 1")
    assert "farm: 1 case(s) collected" in err


@pytest.mark.parametrize("given", ["g", "g/smoke.yaml"])
def test_a_misspelt_files_key_is_a_batch_files_mistake(tmp_path, farm_run, given):
    write(tmp_path / "g" / "a.yaml")
    write(tmp_path / "g" / "smoke.yaml", "file: [a.yaml]\nconcurrent: 1\n")
    code, out, err = farm_run(given, "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err) == [
        "farm: 1 problem in suite files:",
        "  g/smoke.yaml:1:1: unknown key 'file' in a batch file (did you mean 'files'?); "
        "expected one of: android, browser, concurrent, continueOnError, dotenvDebug, "
        "dotenvOverride, files, headed, ios, keepWindow, page, retry, setup, "
        "shareBrowserContext, summary, target, web"]


def test_a_batch_file_without_files_says_so(tmp_path):
    write(tmp_path / "g" / "a.yaml")
    write(tmp_path / "g" / "smoke.yaml", "concurrent: 2\nretry: 1\n")
    with pytest.raises(SuiteErrors) as caught:
        cases_of(tmp_path / "g")
    [error] = caught.value.errors
    assert (error.line, error.column) == (1, 1)
    assert error.message.startswith("missing required key 'files': expected the list of case "
                                    "files")
