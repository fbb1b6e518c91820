"""A damaged cache store (.farm/cache.db: pages garbled, or the file cut short), as the user
sees it: `farm cache ls` / `export` say which file and that `farm cache clear` fixes it (exit 4,
no "internal error", no misleading "no cached plan"); `farm cache clear` moves the file aside
(nothing lost) and starts a fresh one; so does a run, saying so once (a run that only reads
the cache says which file is corrupt and the fix, and runs uncached)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - ai: log in
"""


def _damaged(path: Path, how: str) -> bytes:
    """A cache.db that held entries, then ``garbled`` (every page after the first overwritten:
    its header and schema intact) or ``cut`` (truncated to 100 bytes); its bytes."""
    store = SqliteStore(path)
    for n in range(200):
        store.put(Namespace(f"s/case{n}", "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in " * 20, "xpaths": ["//button"]})
    store.close()
    data = bytearray(path.read_bytes())
    if how == "garbled":
        data[4096:] = b"\x5a" * (len(data) - 4096)
    else:
        data = data[:100]
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    (tmp_path / ".farm").mkdir()
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


FIX = ("the cache store .farm/cache.db is corrupt (database disk image is malformed): "
       "`farm cache clear` moves it aside and starts a fresh one")


@pytest.mark.parametrize("how", ["garbled", "cut"])
@pytest.mark.parametrize("command", [["ls"], ["ls", "s/case1"], ["export", "s/one.yaml"]])
def test_reading_a_corrupt_cache_names_the_file_and_the_fix(here, monkeypatch, capsys, how,
                                                            command):
    _damaged(here / ".farm" / "cache.db", how)
    code, out, err = farm(monkeypatch, capsys, "cache", *command)
    assert (code, out, err) == (4, "", f"farm: error: {FIX}\n")
    assert not (here / "s" / "one.solved.yaml").exists()


@pytest.mark.parametrize("how", ["garbled", "cut"])
@pytest.mark.parametrize("case", [[], ["s/case1"]])
def test_cache_clear_moves_a_corrupt_store_aside_and_starts_a_fresh_one(here, monkeypatch,
                                                                       capsys, how, case):
    damaged = _damaged(here / ".farm" / "cache.db", how)
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", *case)
    assert (code, err) == (0, "")
    [aside] = (here / ".farm").glob("cache.db.corrupt-*[0-9]")
    assert out == (f"the cache store .farm/cache.db was corrupt: moved it to .farm/{aside.name};"
                   " started a fresh, empty one\n")
    assert aside.read_bytes() == damaged        # kept as it was, for whoever wants to look
    code, out, err = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, out, err) == (0, "0 entries in .farm/cache.db\n", "")


def _run_twice(tmp_path: Path, how: str, **settings) -> tuple[list, Path, bytes]:
    """Two cases of one run on a damaged store: (their first steps' records, the store's
    path, the damaged bytes)."""
    from farm.config import Settings
    from farm.devices.fake import FakeDevice
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    from tests.unit.test_cache_units import SHOP
    path = tmp_path / "state" / "cache.db"
    path.parent.mkdir()
    damaged = _damaged(path, how)
    case = Case(id="s/login", name="c", file=tmp_path / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="aiTap", target="Sign in")])])
    services = Services(Settings(state_dir=tmp_path / "state", **settings),
                        ArtifactStore(tmp_path / "run"), "r1", {})
    steps = []
    for _ in range(2):
        result = run_case(Job(case.id, "web", 1), case, FakeDevice(
            screens=SHOP, transitions={"Sign in": "home"}), services)
        assert result.status == "passed"
        steps.append(result.steps[0])
    return steps, path, damaged


@pytest.mark.parametrize("how", ["garbled", "cut"])
def test_a_run_sets_a_corrupt_cache_aside_once_and_runs_cached(tmp_path, capsys, how):
    """A nightly run nobody watches must not run uncached night after night: the damaged
    file is kept beside (as `farm cache clear` does), and the run starts a fresh store."""
    steps, path, damaged = _run_twice(tmp_path, how)
    [aside] = path.parent.glob("cache.db.corrupt-*[0-9]")
    assert aside.read_bytes() == damaged
    assert capsys.readouterr().err == (
        f"farm: warning: the cache store {path} was corrupt (database disk image is "
        f"malformed): set it aside as {aside.name} and started a fresh one\n")
    # (the text tier found the target: no cache miss to record, nor a store that broke,
    # which would say so in the step's cell)
    assert [s.cache for s in steps] == [None, None]
    SqliteStore(path).check()                               # a healthy file in its place


@pytest.mark.parametrize("how", ["garbled", "cut"])
def test_a_read_only_run_on_a_corrupt_cache_says_once_which_file_and_the_fix(tmp_path,
                                                                             capsys, how):
    steps, path, damaged = _run_twice(tmp_path, how, cache="read-only")
    assert [s.cache.mode for s in steps] == ["unavailable", "unavailable"]
    assert path.read_bytes() == damaged and not list(path.parent.glob("*.corrupt-*"))
    err = capsys.readouterr().err
    assert err == (f"farm: warning: the cache store {path} is corrupt (database disk image is "
                   "malformed): `farm cache clear` moves it aside and starts a fresh one; "
                   "cases run uncached\n")
