"""Two farm runs of one machine never drive one phone at once: each run claims its phones (an
flock the kernel drops with the process), passes over phones another run drives, and says which
phone and whose pid when too few are free. Both runs used to drive emulator-5554 together and
each failed in its own confusing way ("no longer running", "did not come to the front").

Another process's hold is played here by a descriptor of the phone's lock file that this test
opens and flocks itself (an flock on another open file conflicts as another process's does)."""

from __future__ import annotations

import fcntl
import os
from typing import Callable, Iterator

import pytest

import farm.devices.procs as procs
import farm.devices.specs as specs
from farm.config import Settings
from farm.devices.android import AndroidDevice, adb_phone_key
from farm.devices.ios import IosDevice, wda_phone_key
from farm.devices.procs import PhoneBusy, PhoneClaim, claim_path
from farm.devices.specs import DeviceSpec, make_devices
from farm.errors import ConfigError, DeviceLost

SERVER = ("127.0.0.1", 5037)


@pytest.fixture(autouse=True)
def lock_dir(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(procs, "claims_dir", lambda: tmp_path)


@pytest.fixture
def other_run() -> Iterator[Callable[[str], None]]:
    """``hold(key)``: another farm process (this test's pid) holds the phone ``key`` names."""
    fds: list[int] = []

    def hold(key: str) -> None:
        fd = os.open(claim_path(key), os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        fds.append(fd)
    yield hold
    for fd in fds:
        os.close(fd)


def test_a_phone_another_process_holds_is_refused_naming_it_and_its_pid(other_run):
    key = adb_phone_key(*SERVER, "emulator-5554")
    other_run(key)
    with pytest.raises(PhoneBusy) as busy:
        PhoneClaim.take(key, "emulator-5554")
    assert str(busy.value) == (f"emulator-5554 is driven by another farm process on this "
                               f"machine (pid {os.getpid()})")


def test_a_process_that_ends_leaves_its_phone_free(tmp_path):
    key = adb_phone_key(*SERVER, "emulator-5554")
    fd = os.open(claim_path(key), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.close(fd)                     # as the kernel does for a run killed with SIGKILL
    claim = PhoneClaim.take(key, "emulator-5554")
    assert claim.held
    claim.release()


def test_one_process_claims_a_phone_again_and_lets_go_with_its_last_claim(other_run):
    key = adb_phone_key("localhost", 5037, "emulator-5554")
    first = PhoneClaim.take(key, "emulator-5554")
    second = PhoneClaim.take(key, "emulator-5554")      # a device reopened: not refused
    first.release()
    first.release()                                       # twice is once
    with pytest.raises(BlockingIOError):
        other_run(key)                                    # still held: the second claim
    second.release()
    assert not claim_path(key).exists()                   # nothing left in the temp dir
    other_run(key)                                        # free for another run now


def test_keys_name_a_phone_however_its_server_or_url_is_written():
    assert adb_phone_key("localhost", 5037, "R58M") == adb_phone_key("127.0.0.1", 5037, "R58M")
    assert adb_phone_key("127.0.0.1", 5037, "emulator-5554") != \
        adb_phone_key("127.0.0.1", 5637, "emulator-5554")    # two simulators' 5554s
    assert wda_phone_key("http://localhost:8100/") == wda_phone_key("http://127.0.0.1:8100")
    assert wda_phone_key("http://127.0.0.1:8100") != wda_phone_key("http://127.0.0.1:8101")


def test_opening_a_phone_another_run_drives_is_a_lost_device_naming_the_run(other_run):
    other_run(adb_phone_key(*SERVER, "emulator-5554"))
    phone = AndroidDevice("emulator-5554", None, "emulator-5554", host=SERVER[0],
                          port=SERVER[1])
    with pytest.raises(DeviceLost) as lost:
        phone.open()
    assert f"emulator-5554 is driven by another farm process on this machine (pid " \
           f"{os.getpid()})" in str(lost.value)
    assert "ANDROID_SERIAL" in str(lost.value)


def test_opening_an_iphone_another_run_drives_is_a_lost_device_naming_the_run(other_run):
    other_run(wda_phone_key("http://localhost:8100"))
    with pytest.raises(DeviceLost) as lost:
        IosDevice("iphone-1", None, "http://127.0.0.1:8100/").open()
    assert f"the iPhone at http://127.0.0.1:8100/ is driven by another farm process on this " \
           f"machine (pid {os.getpid()})" in str(lost.value)


@pytest.fixture
def two_phones(monkeypatch) -> None:
    monkeypatch.setattr(specs, "attach_targets", lambda kind, count, settings, every=False:
                        ["emulator-5554", "emulator-5556"])
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)


def test_a_run_passes_over_a_phone_another_run_drives(two_phones, other_run):
    other_run(adb_phone_key(*SERVER, "emulator-5554"))
    devices = make_devices([DeviceSpec("android", 1, "android")], Settings())
    assert [d.name for d in devices] == ["emulator-5556"]
    assert devices[0].claim.held
    devices[0].close()
    assert not devices[0].claim.held


def test_too_few_free_phones_is_a_configuration_error_naming_the_busy_ones(two_phones,
                                                                           other_run):
    other_run(adb_phone_key(*SERVER, "emulator-5554"))
    with pytest.raises(ConfigError) as refused:
        make_devices([DeviceSpec("android", 2, "android")], Settings())
    assert str(refused.value) == (
        f"--devices android:2: 1 of 2 android phone(s) free: emulator-5554 is driven by "
        f"another farm process on this machine (pid {os.getpid()}) (a phone runs one farm "
        "run's cases at a time: wait for that run to end, or ask for 1)")
    # the free phone it had claimed is let go: another run may take it
    other_run(adb_phone_key(*SERVER, "emulator-5556"))


def test_a_case_pinned_to_a_phone_another_run_drives_says_so(monkeypatch, other_run):
    """Not "which this run did not take; give --devices android:N to take more", which
    sent the user to ask for more phones: the pinned phone was passed over as busy."""
    from farm.devices.specs import check_pins
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)
    other_run(adb_phone_key(*SERVER, "emulator-5554"))
    other_run(wda_phone_key("http://127.0.0.1:8100"))
    devices = [AndroidDevice("emulator-5556", None, "emulator-5556"),
               IosDevice("iphone-1", None, "http://127.0.0.1:8101")]
    for platform, pin, busy in (("android", "emulator-5554", "emulator-5554"),
                                ("ios", "127.0.0.1:8100", "the iPhone at http://127.0.0.1:8100")):
        with pytest.raises(ConfigError) as refused:
            check_pins({"c.yaml": (platform, pin)}, devices)
        assert str(refused.value) == (
            f"c.yaml: pinned to {pin} (Midscene deviceId / wdaHost:wdaPort), which this run "
            f"could not take: {busy} is driven by another farm process on this machine (pid "
            f"{os.getpid()}) (a phone runs one farm run's cases at a time: wait for that run "
            "to end)")
    with pytest.raises(ConfigError) as refused:     # a phone no run drives, that is not there
        check_pins({"c.yaml": ("android", "emulator-5558")}, devices)
    assert "deviceId emulator-5558: no such device" in str(refused.value)


def test_one_iphone_listed_twice_is_not_two_devices(monkeypatch):
    """FARM_IOS_WDA_URLS=http://127.0.0.1:8731,http://localhost:8731/ with --devices ios:2
    drove one iPhone as two devices: each took the other's WDA session, and the run ended
    "quarantined: iphone-1" though nothing was wrong with it."""
    urls = ["http://127.0.0.1:8731", "http://localhost:8731/", "http://127.0.0.1:8732"]
    monkeypatch.setattr(specs, "attach_targets", lambda kind, count, settings, every=False:
                        urls)
    devices = make_devices([DeviceSpec("ios", 2, "ios")], Settings())
    assert [d.url for d in devices] == ["http://127.0.0.1:8731", "http://127.0.0.1:8732"]
    for device in devices:
        device.close()
    with pytest.raises(ConfigError) as refused:
        make_devices([DeviceSpec("ios", 3, "ios")], Settings())
    assert str(refused.value) == (
        "--devices ios:3: FARM_IOS_WDA_URLS lists 2 iPhone(s): http://localhost:8731/ is "
        "http://127.0.0.1:8731 again (one iPhone driven as two devices: each would take the "
        "other's WebDriverAgent session)")
