"""`farm run --pushgateway URL` with a URL no push can be sent to: exit 4 and one line before
anything runs, as `ftp://…` got. "not a url" ran every case, exited 0, and ended with Python's
own "could not push metrics to http://not a url: URL can't contain control characters"."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main
from tests.unit.test_ci_flags import suite  # noqa: F401  (the fixture: a one-case suite)

SPACE = "has a space in it (a URL has none: http://HOST:9091)"
QUERY = ("has a query or fragment (?... or #...): the push adds /metrics/job/... to the URL; "
         "give http://HOST:9091[/PATH]")


@pytest.mark.parametrize("url, why", [
    ("not a url", SPACE),
    ("http://push gw:9091", SPACE),
    ("http://pushgw:9091/a b", SPACE),
    ("http://pushgw:9091/\tx", "has a control character ('\\t') in it (a URL has none: "
                                 "http://HOST:9091)"),
    ("http://pu$h:9091", "names a host that cannot be one: 'pu$h' (a host is a name of "
                         "letters, digits, '-' and '.', or an IP address)"),
    ("http://pushgw:9091/?job=x", QUERY),
    ("http://pushgw:9091#top", QUERY)])
def test_a_pushgateway_url_no_push_can_use_stops_the_run_before_it_starts(
        suite, monkeypatch, capsys, url, why):  # noqa: F811
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--pushgateway", url,
                              "--devices", "browser:1", "--no-progress")
    assert (code, out) == (4, "")
    shown = url.replace("job=x", "job=***")     # a URL's query values are hidden (config show)
    assert err == f"farm: error: invalid configuration:\n  --pushgateway {shown}: {why}\n"


@pytest.mark.parametrize("url", ["pushgw:9091", "http://[::1]:9091", "http://10.0.0.5:9091/p",
                                 "https://u:pw@push-gw.example.com", "http://push_gw:9091/"])
def test_the_pushgateway_urls_a_push_can_use_are_still_taken(url):
    from farm.config import load_settings
    assert load_settings(pushgateway_url=url).pushgateway_url.endswith(url.split("//")[-1])
