"""A corrupt cache.db set aside at a run's start (and a fresh one started) was said only on
stderr and in farm.log: the nightly whose cost jumped (every plan asked of the model again)
had nothing in results.json or the report to say why. The run's ``cache`` field and the
report's header say it now; a run whose store opened as it was has no ``cache`` field."""

from __future__ import annotations

import json
from pathlib import Path

from farm.config import Settings
from farm.report.html import render_html
from farm.results import RunSummary
from farm.runner import Services


def _services(tmp_path: Path) -> Services:
    from farm.results import ArtifactStore as Store
    return Services(settings=Settings(state_dir=tmp_path / "state"),
                    artifacts=Store(tmp_path / "run"), run_id="r", env={})


def test_a_corrupt_store_set_aside_is_in_results_and_the_report(tmp_path: Path, capsys):
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "cache.db").write_bytes(b"\x5a" * 8192)
    services = _services(tmp_path)
    assert services.cache_store() is not None
    services.close_cache()
    note = services.cache_note
    assert note and "was corrupt" in note and "set it aside as cache.db.corrupt-" in note
    summary = RunSummary(run_id="r", started="", cache={"renewed": note})
    assert json.loads(summary.model_dump_json())["cache"] == {"renewed": note}
    page = render_html(summary)
    assert "Cache store" in page and "started a fresh one" in page


def test_a_store_opened_as_it_was_says_nothing(tmp_path: Path):
    services = _services(tmp_path)
    assert services.cache_store() is not None
    services.close_cache()
    assert services.cache_note is None
    assert "cache" not in json.loads(RunSummary(run_id="r", started="").model_dump_json())
