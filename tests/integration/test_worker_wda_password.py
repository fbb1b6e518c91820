"""A WebDriverAgent URL with a password (FARM_IOS_WDA_URLS=http://user:pw@host:8100, a phone
behind an authenticating proxy): farm's WDA client sends no credentials and looked
``user:pw@host`` up as a host name, so the device "could not start: ... lost (status): Name or
service not known", and `farm worker` printed the URL, password and all, on its console. Now
`farm worker` and `farm run` refuse it at once (exit 4), the password masked. Real
redis-server, real `farm worker` / `farm run` processes."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

SECRET = "s3cret-pw"
URL = f"http://tester:{SECRET}@127.0.0.1:9/"
SAID = ("farm: error: FARM_IOS_WDA_URLS: http://tester:***@127.0.0.1:9/: farm's "
        "WebDriverAgent client sends no user:password; give the URL without them (an ssh "
        "tunnel's or iproxy's on this machine)")


def test_a_worker_refuses_a_wda_url_with_a_password_and_never_prints_it(redis_url, farm):
    done = farm.run("worker", "--broker", redis_url, "--devices", "ios:1", "--metrics-port",
                    "0", timeout=120, FARM_IOS_WDA_URLS=URL, **CLUSTER_ENV)
    text = done.stdout + done.stderr
    assert done.returncode == 4, text
    assert SAID in text.splitlines(), text
    assert SECRET not in text, text


def test_a_run_refuses_it_too(tmp_path, farm):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "notes.yaml").write_text(
        "ios:\n  launch: com.farm.notes\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: New note\n")
    done = farm.run("run", tmp_path / "s", "--devices", "ios:1", "--report-dir",
                    tmp_path / "run", FARM_IOS_WDA_URLS=URL)
    text = done.stdout + done.stderr
    assert done.returncode == 4, text
    assert SAID in text.splitlines(), text
    assert SECRET not in text + (tmp_path / "run" / "farm.log").read_text()
