"""Suite apps served on IPv6 (FARM_SERVE_HOST=::1, or FARM_SERVE_URL_HOST=fd00::5 for cluster
workers): the server could not bind an IPv6 address (an IPv4-only socket), and the URL the
cases were given was http://::1:PORT, which no browser opens. URLs now bracket the address."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from farm.appserver import AppServer
from farm.suite.model import AppSpec


@pytest.fixture
def app(tmp_path):
    (tmp_path / "index.html").write_text("<p>served</p>")
    return tmp_path


def test_served_on_ipv6_and_given_as_a_url_that_opens(app):
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with AppServer("::1") as served:
        served.serve([AppSpec(name="site", serve=app, env="SITE_URL")])
        url = served.env["SITE_URL"]
        assert url.startswith("http://[::1]:"), url
        with urllib.request.urlopen(url + "/index.html", timeout=30) as reply:
            assert reply.read() == b"<p>served</p>"


def test_an_ipv6_url_host_is_bracketed(app):
    with AppServer("127.0.0.1", "fd00::5") as served:
        served.serve([AppSpec(name="site", serve=app, env="SITE_URL")])
        assert served.env["SITE_URL"].startswith("http://[fd00::5]:")
