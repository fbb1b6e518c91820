"""The iOS simulator's fault switch (POST /farm/fault) answers a body it cannot use with 400
and what it expects: a count that is no number closed the connection with a traceback on the
simulator's terminal."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from farm.devices.sim import IosSimulator


@pytest.mark.parametrize("body", [b'{"name": "drop", "count": "abc"}', b"[1]", b'{"count": 1}'])
def test_a_body_it_cannot_use_is_answered_400(body):
    with IosSimulator(1, {"com.x": "about:blank"}) as ios:
        req = urllib.request.Request(ios.urls[0].rstrip("/") + "/farm/fault", data=body,
                                     method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req)
        said = json.loads(refused.value.read())["value"]
        assert refused.value.code == 400 and said["error"] == "invalid argument", said
        assert said["message"].startswith('{"name": NAME, "count": COUNT} expected'), said
        assert ios.screens[0].faults.active() == {}
