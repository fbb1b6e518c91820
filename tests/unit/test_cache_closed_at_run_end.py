"""A run's cache store is closed when the run ends (farm/session.py closes it once the
executor is done), not only at the process' exit: its entries are in cache.db itself then,
the write-ahead log checkpointed and gone, and a step asking after the end runs uncached."""

from __future__ import annotations

from farm.cache.keys import Namespace
from farm.config import Settings
from farm.results import ArtifactStore
from farm.runner import Services


def test_closing_the_run_s_cache_leaves_its_entries_in_cache_db(tmp_path):
    state = tmp_path / "state"
    services = Services(settings=Settings(state_dir=state), run_id="r",
                        artifacts=ArtifactStore(tmp_path / "run"), env={})
    store = services.cache_store()
    store.put(Namespace("s/a", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"]})
    assert (state / "cache.db-wal").exists()        # (in the log alone, while open)
    services.close_cache()
    assert not (state / "cache.db-wal").exists(), sorted(p.name for p in state.iterdir())
    assert services.cache_store() is None           # not opened again after the end
