"""Shared by every test: each test gets its own farm state directory (FARM_STATE_DIR), so
nothing a test writes there — the locate/plan cache in ``cache.db``, case durations — reaches
another test or the developer's own ``.farm``; and its own folder of phone claims, so a phone
URL two tests both name (``http://127.0.0.1:1``, nothing there) is not "driven by another farm
process" when the two run at once (`make test` runs two pytest processes)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline and no "too slow" health check: on a loaded shared machine a slow
# example or a slow data generation is not a failure.
settings.register_profile("farm", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("farm")


@pytest.fixture(autouse=True)
def _private_farm_state(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path_factory.mktemp("farm-state")))
    claims = tmp_path_factory.mktemp("phone-claims")
    monkeypatch.setattr("farm.devices.procs.claims_dir", lambda: claims)
