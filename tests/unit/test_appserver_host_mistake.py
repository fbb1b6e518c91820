"""FARM_SERVE_HOST that is no address of this machine (a typo, another machine's address) is
the setting's mistake: exit 4 naming FARM_SERVE_HOST. It was "farm: internal error: OSError:
[Errno 99] Cannot assign requested address" (exit 3) and a traceback file."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.appserver import AppServer
from farm.errors import ConfigError
from farm.suite.model import AppSpec


def test_a_host_that_is_not_this_machine_names_the_setting(tmp_path: Path):
    # 192.0.2.1: TEST-NET-1 (RFC 5737), documentation only, never an address of a machine
    with AppServer("192.0.2.1") as served, pytest.raises(ConfigError) as caught:
        served.serve([AppSpec(name="shop", serve=tmp_path)])
    assert str(caught.value).startswith("FARM_SERVE_HOST 192.0.2.1: cannot serve the suite's "
                                        "apps there (")
    assert str(caught.value).endswith("): give an address of this machine (127.0.0.1, or "
                                      "0.0.0.0 for workers on other machines)")
