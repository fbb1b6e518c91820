"""`farm worker --group` must be a word: a --matrix run names each case's run CASE@GROUP and
its output files after it, so a group "os@14" was read back as "14" (--last-failed matched
none of its failures) and "os/14" made a folder of the output's name. Such a group stops the
worker at once (exit 4); a blank one (`--group "$GROUP"`, unset) is no group, as before."""

from __future__ import annotations

import pytest

from farm.cli import _group_word
from tests.support.farm_cli import run_main


@pytest.mark.parametrize("group", ["os@14", "os/14", "a b", "-x", "ios:17"])
def test_a_group_that_is_no_word_stops_the_worker(monkeypatch, capsys, group):
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    code, out, err = run_main(monkeypatch, capsys, "worker", "--broker",
                              "redis://127.0.0.1:1/0", f"--group={group}")
    assert (code, out) == (4, "")
    assert (f"Invalid value for --group: {group!r}: a device group is a word of letters, "
            "digits, '.', '-' and '_' (e.g. pixel7, ios-17.2)") in err


@pytest.mark.parametrize("given, group", [("os14", "os14"), (" ios-17.2 ", "ios-17.2"),
                                          ("pixel_7", "pixel_7"), ("", None), ("  ", None),
                                          (None, None)])
def test_a_word_or_nothing_is_taken(given, group):
    assert _group_word(given) == group
