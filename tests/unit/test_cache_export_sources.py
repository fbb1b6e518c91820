"""Where `farm cache export` reads its entries, and what it does with steps a run never
cached: a run directory is exported from the store that run used, from any working directory
(and an earlier, richer export is never silently replaced); the read-only commands create no
store; a ``cacheable: false`` ai step is kept as written; an ai step with ``${NAME}`` is
looked up as the run keyed it, its value said in the header, never a secret's."""

from __future__ import annotations

import json

import pytest
from farm.cache.export import export_case
from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from farm.cache.store import MemoryStore
from farm.suite.loader import load_case_file
from tests.support.farm_cli import run_main

CASE = """name: login
web:
  url: http://127.0.0.1:1/
tasks:
  - name: t
    flow:
      - aiTap: Sign in
      - aiTap: Cart
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """proj/suite/login.yaml, run from proj/ (its store proj/.farm/cache.db holds the case's
    XPaths) with --report-dir out; the working directory is then elsewhere/."""
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    (proj / "suite").mkdir(parents=True)
    (proj / "out").mkdir()
    elsewhere.mkdir()
    path = proj / "suite" / "login.yaml"
    path.write_text(CASE)
    case = load_case_file(path, env={})
    store = SqliteStore(proj / ".farm" / "cache.db")
    for prompt, xpath in (("Sign in", "//*[@id='signin']"), ("Cart", "//*[@id='cart']")):
        store.put(Namespace(case.id, "web").key("locate", prompt, 0), {"xpaths": [xpath]})
    store.close()
    (proj / "out" / "results.json").write_text(json.dumps({"cases": [
        {"file": "suite/login.yaml", "case_id": case.id, "status": "passed"}]}))
    monkeypatch.chdir(elsewhere)
    return {"proj": proj, "elsewhere": elsewhere, "solved": proj / "suite" / "login.solved.yaml"}


@pytest.fixture
def farm(monkeypatch, capsys):
    """``farm ARGS`` as the command runs it: (exit code, stdout + stderr)."""
    def run(*args: str) -> tuple[int, str]:
        code, out, err = run_main(monkeypatch, capsys, *args)
        return code, out + err
    return run


def test_a_run_directory_is_exported_from_the_store_it_recorded(project, farm):
    from farm.cache.run_store import record_store
    from farm.config import Settings
    record_store(project["proj"] / "out", Settings(state_dir=project["proj"] / ".farm"))
    code, out = farm("cache", "export", "../proj/out")
    assert code == 0, out
    assert project["solved"].read_text().count("xpath:") == 2
    assert not (project["elsewhere"] / ".farm").exists()       # no empty store made here


def test_a_run_that_recorded_no_store_is_exported_from_the_one_beside_it(project, farm):
    code, out = farm("cache", "export", "../proj/out")
    assert code == 0, out
    assert project["solved"].read_text().count("xpath:") == 2
    assert not (project["elsewhere"] / ".farm").exists()


def test_an_export_that_would_lose_xpaths_does_not_replace_the_earlier_one(project, farm,
                                                                            monkeypatch):
    """A store that knows nothing of the case (another state dir): exit 4, naming the store
    it read and how to point at the right one; the good export is left as it was."""
    assert farm("cache", "export", "../proj/out")[0] == 0
    good = project["solved"].read_text()
    SqliteStore(project["elsewhere"] / "other" / "cache.db").close()
    monkeypatch.setenv("FARM_STATE_DIR", str(project["elsewhere"] / "other"))
    code, out = farm("cache", "export", "../proj/out")
    assert code == 4, out
    assert "holds 2 cached XPath(s); the export from the cache store" in out
    assert str(project["elsewhere"] / "other" / "cache.db") in out
    assert "FARM_STATE_DIR" in out and "not overwritten" in out
    assert project["solved"].read_text() == good


def test_read_only_commands_create_no_store(project, farm):
    assert farm("cache", "ls") == (0, "no cache at .farm/cache.db\n")
    code, out = farm("cache", "export", "../proj/suite/login.yaml")
    assert code == 4 and "no cache at .farm/cache.db" in out
    assert f"FARM_STATE_DIR={project['proj'] / '.farm'}" in out
    assert not (project["elsewhere"] / ".farm").exists()


def test_a_cacheable_false_ai_step_is_kept_as_written(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
                    "      - ai: search for tea\n      - ai: search for tea\n"
                    "        cacheable: false\n")
    case = load_case_file(path, env={})
    store = MemoryStore()
    store.put(Namespace(case.id, "web").key("plan", "search for tea", 0), {"actions": [
        {"type": "Tap", "params": {"locate": {"prompt": "Go"}}}]})
    text = export_case(case, store)
    assert "two.yaml:7 `ai: search for tea` is cacheable: false" in text
    out = tmp_path / "two.solved.yaml"
    out.write_text(text)
    assert [(s.kind, s.target, s.value, s.options.get("cacheable"))
            for s in load_case_file(out, env={}).steps] == [
        ("aiTap", "Go", None, None), ("ai", None, "search for tea", False)]


def test_an_ai_step_with_variables_is_looked_up_as_the_run_keyed_it(tmp_path, monkeypatch,
                                                                    farm):
    """The run keys a plan by its prompt as the model reads it: ``${PRODUCT}`` expanded from
    the environment, a secret's ``${PW}`` kept. The export says which values the entries
    were made with, keeps ``${BUTTON}`` as written, and never writes the secret's value."""
    (tmp_path / "farm.yaml").write_text("vars:\n  PW: x\nsecrets: [PW]\n")
    path = tmp_path / "search.yaml"
    path.write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
                    "      - ai: search for ${PRODUCT} as ${PW}\n      - aiTap: ${BUTTON}\n")
    env = {"PRODUCT": "tea", "BUTTON": "Go", "PW": "hunter2-secret",
           "FARM_STATE_DIR": str(tmp_path / "state")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ns, store = Namespace(load_case_file(path, env=env).id, "web"), SqliteStore(
        tmp_path / "state" / "cache.db")
    store.put(ns.key("plan", "search for tea as ${PW}", 0), {"actions": [
        {"type": "Input", "params": {"value": "tea", "locate": {"prompt": "Search"}}}]})
    store.put(ns.key("locate", "Search", 0), {"xpaths": ["//*[@id='q']"]})
    store.put(ns.key("locate", "Go", 0), {"xpaths": ["//*[@id='go']"]})
    store.close()
    code, out = farm("cache", "export", str(path))
    assert code == 0, out
    text = (tmp_path / "search.solved.yaml").read_text()
    assert "hunter2-secret" not in text
    assert 'search.yaml:6 `ai: search for ${PRODUCT} as ${PW}`: its cached entries were ' \
           'made with PRODUCT="tea"' in text
    assert 'search.yaml:7 `aiTap: ${BUTTON}`: its cached entries were made with BUTTON="Go"' \
        in text
    assert [(s.kind, s.target, s.value, s.xpath) for s in load_case_file(
        tmp_path / "search.solved.yaml", env=env).steps] == [
        ("aiInput", "Search", "tea", "//*[@id='q']"), ("aiTap", "${BUTTON}", None, "//*[@id='go']")]


def test_a_run_on_redis_records_its_store_without_the_password(tmp_path):
    """The export then needs FARM_CACHE_URL / --broker naming that Redis: another one (or
    none) is refused, naming the one the run used, never opened in its place."""
    from farm.cache.run_store import record_store, run_store
    from farm.config import Settings
    from farm.errors import ConfigError
    record_store(tmp_path, Settings(cache_url="redis://:hunter2pw@cache.example:6379/0"))
    recorded = (tmp_path / "cache-store.json").read_text()
    assert "hunter2pw" not in recorded and "redis://:***@cache.example:6379/0" in recorded
    with pytest.raises(ConfigError, match=r"used the cache store redis://:\*\*\*@cache.example"
                       r":6379/0 \(farm:cache:\*\) \(its cache-store.json\); set FARM_CACHE_URL"
                       r" \(or --broker\) to that Redis to export from it \(now: "
                       r"redis://:\*\*\*@other:6379/0"):
        run_store(tmp_path, Settings(cache_url="redis://:pw@other:6379/0"))


@pytest.mark.parametrize("named, said", [
    ("suite/farm.yaml", "a suite's farm.yaml"),
    ("suite/index.yaml", "a batch file (it lists 2 case(s))"),
])
def test_a_suite_or_batch_file_is_refused_not_exported_as_one_of_its_cases(project, farm,
                                                                          monkeypatch, named,
                                                                          said):
    """It wrote one arbitrary case's <case>.solved.yaml and exited 0."""
    suite = project["proj"] / "suite"
    (suite / "farm.yaml").write_text("timeout: 60\n")
    (suite / "logout.yaml").write_text(CASE.replace("login", "logout"))
    (suite / "index.yaml").write_text("files:\n  - login.yaml\n  - logout.yaml\n")
    monkeypatch.chdir(project["proj"])
    assert farm("cache", "export", named) == (
        4, f"farm: error: {named}: {said}, not a case file: farm cache export takes one case "
           "file (or a run directory: every case of the run)\n")
    assert sorted(p.name for p in suite.iterdir()) == ["farm.yaml", "index.yaml", "login.yaml",
                                                       "logout.yaml"]
    code, out = farm("cache", "export", "suite/login.yaml")       # a case file still is
    assert (code, out) == (0, f"{project['solved']}\n")


def test_the_export_keeps_the_case_file_settings(tmp_path):
    """The case file's timeout, retries, tags, secrets and vars: without them the export did
    not load (a ${NAME} from the case's vars: undefined), ran under the defaults, left the
    --tags runs and did not hide what the case's secrets: hid."""
    path = tmp_path / "login.yaml"
    path.write_text("name: login\ntimeout: 200\nretries: 2\ntags: [smoke]\nsecrets: [PIN]\n"
                    "vars:\n  ACCOUNT: demo\n  PIN: '1234'\nweb:\n  url: http://127.0.0.1:1/\n"
                    "tasks:\n  - name: t\n    flow:\n      - ai: sign in as ${ACCOUNT}\n"
                    "      - assertText: Welcome back, ${ACCOUNT}\n")
    case = load_case_file(path, env={})
    store = MemoryStore()
    store.put(Namespace(case.id, "web").key("plan", "sign in as demo", 0), {"actions": [
        {"type": "Input", "params": {"value": "${PIN}", "locate": {"prompt": "PIN"}}}]})
    solved = tmp_path / "login.solved.yaml"
    solved.write_text(export_case(case, store))
    again = load_case_file(solved, env={})
    assert (again.timeout, again.retries, again.tags, again.secrets) == (200, 2, ["smoke"],
                                                                         ["PIN"])
    assert again.vars == {"ACCOUNT": "demo", "PIN": "1234"}
    assert [(s.kind, s.value) for s in again.steps] == [
        ("aiInput", "${PIN}"), ("assertText", "Welcome back, ${ACCOUNT}")]
