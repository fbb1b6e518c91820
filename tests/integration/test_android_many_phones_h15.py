"""Several phones behind one adb server, driven at once (`farm run --devices android:5`): each
phone's shell commands answer with that phone's output, and each command costs the adb server
one connection. adbutils asked the server's version on a connection of its own before every
command: two connections a command, ~45 a second for five simulated phones and thousands of
sockets left in TIME_WAIT on the adb server's host."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator

pytestmark = pytest.mark.integration

COMMANDS = 10       # per phone, all phones at once


def test_phones_driven_at_once_each_answer_their_own_commands_on_one_connection_each():
    with AndroidSimulator(3, {}) as sim:
        phones = [AndroidDevice(f"android-{i + 1}", None, serial, port=sim.port)
                  for i, serial in enumerate(sim.serials)]
        for phone in phones:
            phone.open()
        try:
            before = sim.server.connections
            with ThreadPoolExecutor(len(phones)) as pool:
                answers = list(pool.map(
                    lambda phone: [phone.shell("getprop ro.serialno").strip()
                                   for _ in range(COMMANDS)], phones))
            used = sim.server.connections - before
        finally:
            for phone in phones:
                phone.close()
    assert answers == [[serial] * COMMANDS for serial in sim.serials]
    sent = len(phones) * COMMANDS
    assert used == sent, f"{used} connections to the adb server for {sent} commands"
