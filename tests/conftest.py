"""Shared by every test: each test gets its own farm state directory (FARM_STATE_DIR), so
nothing a test writes there — the locate/plan cache in ``cache.db``, case durations — reaches
another test or the developer's own ``.farm``."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_farm_state(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path_factory.mktemp("farm-state")))
