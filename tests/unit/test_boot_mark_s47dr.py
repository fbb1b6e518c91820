"""Which boot of a phone a case's app was started in (`farm.devices.android.boot_mark`): a
phone that started again since is the device's failure, not the app's crash."""

from __future__ import annotations

from farm.devices.android import boot_mark, restart_between

ID_A = "548ab376-3df7-4d42-a50f-47ab648fa7c3"
ID_B = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"


def test_the_boot_id_and_uptime_are_read_from_the_phones_answer() -> None:
    boot, up, _at = boot_mark(f"{ID_A}\n1234.56 4000.12\n")
    assert (boot, up) == (ID_A, 1234.56)
    assert boot_mark("cat: /proc/uptime: Permission denied\n")[:2] == (None, None)


def test_a_new_boot_id_is_a_restart_and_the_same_one_is_not() -> None:
    assert restart_between((ID_A, 100.0, 0.0), (ID_B, 900.0, 10.0)) == "its boot id changed"
    assert restart_between((ID_A, 100.0, 0.0), (ID_A, 3.0, 10.0)) is None


def test_without_a_boot_id_an_uptime_shorter_than_the_time_since_is_a_restart() -> None:
    assert restart_between((None, 100.0, 0.0), (None, 3.0, 50.0)) == "it has been up 3 s"
    assert restart_between((None, 100.0, 0.0), (None, 150.2, 50.0)) is None
    assert restart_between((None, None, 0.0), (None, 3.0, 50.0)) is None
