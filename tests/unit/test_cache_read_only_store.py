"""A cache.db the run may read but not write (a read-only file or mount; simulated with
SQLite's query_only, since the tests run as root), and a Redis replica: a case whose first ai
step was edited (the model plans it; writing what it found fails) still replays its second
step from the cache, with no model call, where the failed write turned the cache off for the
rest of the case (model calls paid for a plan the store held). The run says once what the
store is and that ``--cache read-only`` says so; the steps' cache mode is read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from farm.cache.sqlite_store import ReadOnlyFile, SqliteStore
from farm.cache.xpaths import candidates
from tests.unit.test_cache_units import PLAN, SHOP, _plan_xml

DONE = '<complete success="true">home</complete>'
# the second step's plan: one action (a step the model passes without acting is not cached)
CHECK = [_plan_xml("Tap", {"locate": {"prompt": "Welcome"}}), DONE]


class QueryOnlyStore(SqliteStore):
    """The store as a user who may not write cache.db opens it."""

    def _conn(self) -> sqlite3.Connection:
        conn = super()._conn()
        conn.execute("PRAGMA query_only=1")
        return conn


def _night(tmp_path: Path, store, first_step: str, replies: list[str]):
    """One run of the two-step case on the fake shop: (its result, the model client)."""
    from farm.config import Settings
    from farm.llm.client import ScriptedModelClient
    from farm.llm.models import ModelSet
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.devices.fake import FakeDevice
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/login", name="c", file=tmp_path / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value=first_step),
                                             Step(kind="ai", value="check the home page")])],
                vars={"PW": "s3cret-value"}, secrets=["PW"])
    client = ScriptedModelClient(replies)
    services = Services(settings=Settings(), run_id="r", artifacts=ArtifactStore(tmp_path),
                        env={}, cache=store, model=ModelSet.single(client))
    login = SHOP["login"]
    sign_in = login.nodes[1]
    device = FakeDevice(screens=SHOP, transitions={"Sign in": "home"}, xpaths={
        xpath: [sign_in.rect] for xpath in candidates(login, sign_in, None)})
    return run_case(Job(case.id, "web", 1), case, device, services), client


def test_a_read_only_cache_file_still_replays_the_later_steps(tmp_path, capsys):
    path = tmp_path / "state" / "cache.db"
    writable = SqliteStore(path)
    first, _ = _night(tmp_path, writable, "log in", PLAN + CHECK)
    assert writable.delete("v1|s/login|web||locate|") > 0    # to write again: "Sign in"
    writable.close()
    assert first.status == "passed", first.error
    read_only = QueryOnlyStore(path)
    for _ in range(2):                  # two cases of one run: one warning
        result, client = _night(tmp_path, read_only, "log in please", PLAN + CHECK)
        assert result.status == "passed", result.error
        edited, replayed = (s.cache for s in result.steps)
        assert edited.plan == "miss" and edited.mode == "read-only" and edited.written == 0, \
            edited
        assert replayed.plan == "hit" and replayed.mode == "read-only"
        assert client.calls == 3        # the edited step's plan; none for the second step
    err = capsys.readouterr().err
    assert err == (f"farm: warning: the cache store {path} is read-only (attempt to write a "
                   "readonly database): cases read the cache and write nothing to it; run "
                   "with --cache read-only to say so\n")
    read_only.close()


def test_a_read_only_sqlite_file_says_what_it_is(tmp_path):
    store = QueryOnlyStore(tmp_path / "cache.db")
    with pytest.raises(ReadOnlyFile, match="is read-only"):
        store.put("k", {"a": 1})
    store.close()
