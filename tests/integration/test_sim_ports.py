"""`farm sim` on a port something else holds: a clear error naming the port (and, for iOS, the
range of ports its devices need), exit 4, no traceback."""

from __future__ import annotations

import socket
from typing import Iterator

import pytest

pytestmark = pytest.mark.integration


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another server is listening on, for the test's duration."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def test_android_sim_on_a_busy_port(farm, busy_port):
    done = farm.run("sim", "android", "--count", "3", "--port", str(busy_port))
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stderr == (f"farm: error: farm sim android --port {busy_port}: port "
                           f"{busy_port} is already in use; choose another port, or --port 0 "
                           "for a free one\n")


def test_ios_sim_names_the_ports_its_devices_need(farm, busy_port):
    done = farm.run("sim", "ios", "--count", "2", "--port", str(busy_port))
    assert done.returncode == 4, done.stdout + done.stderr
    assert (f"ports {busy_port}..{busy_port + 1} are needed (one WebDriverAgent endpoint per "
            f"device) and port {busy_port} is already in use") in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_ios_sim_ports_past_the_last_one(farm):
    done = farm.run("sim", "ios", "--count", "2", "--port", "65535")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "ports 65535..65536 are needed" in done.stderr
    assert "port 65535 is the last one" in done.stderr
