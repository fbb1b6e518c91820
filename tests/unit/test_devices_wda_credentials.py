"""`farm devices` with a WebDriverAgent URL that holds a password (FARM_IOS_WDA_URLS=
http://user:password@host:port, a device lab's reverse proxy, or a `farm worker` driving such a
phone): the password is never printed, and the listing says what a run would meet."""

from __future__ import annotations

from tests.support.farm_cli import run_main

PASSWORD = "wda-s3cret"


def test_devices_never_prints_a_wda_password_and_says_the_url_is_not_usable(
        monkeypatch, capsys, tmp_path):
    """It printed `http://lab:wda-s3cret@127.0.0.1:8100  not answering: [Errno -2] Name or
    service not known`: the password in clear on a CI log, and a DNS failure for an address
    that is right (farm's WDA client, in `farm devices` and in a run, sends no credentials:
    it looks `lab:wda-s3cret@127.0.0.1` up as a host name)."""
    for key in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_DEVICE_PLUGINS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")     # no adb server there
    monkeypatch.setenv("FARM_IOS_WDA_URLS", f"http://lab:{PASSWORD}@127.0.0.1:8100")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert PASSWORD not in out + err
    ios = [line.strip() for line in out.splitlines() if ":8100" in line]
    assert ios == ["http://lab:***@127.0.0.1:8100  not usable: farm's WebDriverAgent client "
                   "sends no user:password (give a URL without them, e.g. an ssh tunnel's)"]


def test_the_cluster_listing_masks_the_password_of_the_phone_a_worker_drives(
        monkeypatch, capsys, tmp_path):
    """A `farm worker` on an iPhone behind basic auth keeps its WDA URL in its lease; `farm
    devices --broker` printed it, password and all (`on http://lab:wda-s3cret@...`), and the
    quarantine reason that names it too."""
    import uuid

    from farm.cluster import store
    for key in ("FARM_IOS_WDA_URLS", "FARM_DEVICE_PLUGINS", "CELERY_BROKER_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")
    prefix = f"farm-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("FARM_CLUSTER_PREFIX", prefix)
    url = f"http://lab:{PASSWORD}@10.0.0.7:8100"
    store.use_prefix(prefix)
    r = store.connect("redis://127.0.0.1:6379/0")
    try:
        store.acquire_lease(r, "mac1-ios-1", {"platform": "ios", "group": "ios", "state": "idle",
                                              "target": url})
        store.acquire_lease(r, "mac1-ios-2", {"platform": "ios", "group": "ios", "state": "idle",
                                              "target": url.replace("7:", "8:")})
        r.hset(store.key("quarantine"), "mac1-ios-2", f"WDA at {url} did not answer")
        code, out, err = run_main(monkeypatch, capsys, "devices", "--broker",
                                  "redis://127.0.0.1:6379/0")
    finally:
        for name in r.scan_iter(match=f"{prefix}:*"):
            r.delete(name)
        store.use_prefix("farm")
    assert code == 0, out + err
    assert PASSWORD not in out + err
    assert "idle  on http://lab:***@10.0.0.7:8100" in out, out
    assert "quarantined: WDA at http://lab:***@10.0.0.7:8100 did not answer" in out, out


def test_one_iphone_listed_twice_is_said_to_be_one(monkeypatch, capsys, tmp_path):
    """`farm devices` listed http://127.0.0.1:8731 and http://localhost:8731/ as two endpoints,
    where `farm run --devices ios:2` takes them for one iPhone (it refuses the second)."""
    for key in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_DEVICE_PLUGINS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")     # no adb server there
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "http://127.0.0.1:1,http://localhost:1/")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    ios = [line.strip() for line in out.splitlines() if ":1" in line and "http" in line]
    assert ios[1] == "http://localhost:1/  the iPhone at http://127.0.0.1:1 again (a run drives " \
        "it once)", out
    assert "again" not in ios[0], out
