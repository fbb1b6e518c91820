"""iOS findings of a tester on `farm sim` (`farm.devices.ios`, `farm.devices.phone_edges`)."""

from __future__ import annotations

import pytest

from farm.devices.ios import wda_phone_key


@pytest.mark.parametrize("spelling", [
    "http://127.1:58367", "http://127.3.4.5:58367", "http://[::1]:58367",
    "http://127.0.0.1:58367/", "http://LOCALHOST:58367", "http://0.0.0.0:58367",
    "http://[::ffff:127.0.0.1]:58367", "HTTP://Localhost:58367//"])
def test_every_spelling_of_this_machine_claims_one_iphone(spelling):
    assert wda_phone_key(spelling) == wda_phone_key("http://127.0.0.1:58367")


def test_other_hosts_and_ports_are_other_iphones():
    keys = {wda_phone_key(u) for u in ("http://127.0.0.1:58367", "http://127.0.0.1:58368",
                                       "http://10.0.0.5:58367", "http://abc:58367")}
    assert len(keys) == 4
