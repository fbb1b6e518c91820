"""`--pushgateway http://HOST:PORT/metrics` (the gateway's scrape page, not its base URL) was
taken, and the run ended with 'could not push metrics … HTTP 404': now it stops the run
before it starts, exit 4, naming the base URL to give."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main
from tests.unit.test_ci_flags import suite  # noqa: F401  (the fixture: a one-case suite)


@pytest.mark.parametrize("url, base", [("http://127.0.0.1:9091/metrics", "http://127.0.0.1:9091"),
                                       ("pushgw:9091/metrics/", "http://pushgw:9091"),
                                       ("http://gw/p/metrics/job/x", "http://gw/p")])
def test_a_pushgateway_url_with_a_metrics_path_stops_the_run(
        suite, monkeypatch, capsys, url, base):  # noqa: F811
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--pushgateway", url,
                              "--devices", "browser:1", "--no-progress")
    assert (code, out) == (4, ""), err
    assert "give the Pushgateway's base URL, without /metrics" in err, err
    assert f"({base};" in err, err


def test_a_base_url_whose_path_only_contains_metrics_in_a_word_is_taken():
    from farm.config import load_settings
    assert load_settings(pushgateway_url="http://gw:9091/farmmetrics").pushgateway_url
