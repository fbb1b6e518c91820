"""--collect-only predicts aiLocate as the run finds it: zero-token tiers first, as aiTap."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

from tests.support.midscene_layout import case, collect, qa, write  # noqa: F401 (fixtures)


def test_ailocate_found_by_text_is_not_predicted_to_skip(collect, tmp_path):
    """aiLocate is located as aiTap's target is (zero-token tiers first): --collect-only
    predicted a skip and exit 1 with --fail-on-skip the run never had."""
    write(tmp_path / "qa" / "loc.yaml", case("aiLocate: Username"))
    code, out, err = collect("loc.yaml", "--fail-on-skip")
    assert code == 0, err
    assert "would be skipped" not in err + out
    write(tmp_path / "qa" / "ask.yaml", case("aiQuery: the total"))
    code, out, err = collect("ask.yaml", "--fail-on-skip")
    assert "would be skipped" in err + out and code == 1
