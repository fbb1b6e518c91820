"""Opening a page whose server accepts the connection and never answers (an app that has not
started, a proxy that holds requests): the case fails "cannot open URL: the server sent no
answer within N s", basic auth's password masked. Before, farm's hang guard, whose ping waits
for the document too, called it "the page stopped responding during open URL: a script of the
page did not return (an endless loop?)", with the URL's password in clear in the message,
the results, the JUnit file and the report. farm's BrowserDevice in real Chromium, its waits
shortened for the test."""

from __future__ import annotations

import socket
import threading
from typing import Any, Iterator

import pytest

from farm.errors import StepFailed
from farm.suite.model import WebTarget

pytestmark = pytest.mark.integration


@pytest.fixture
def silent() -> Iterator[int]:
    """A port whose server accepts connections and reads the request but never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()
    for conn in held:
        conn.close()


def test_a_server_that_never_answers_is_said_so_with_the_password_masked(
        browser: Any, silent: int) -> None:
    browser._wait.timeout = 4.0                       # the open's wait for an answer
    browser._hang.after, browser._hang.ping_s = 1.0, 1.0    # the hang guard's look: sooner
    try:
        with pytest.raises(StepFailed) as failed:
            browser.start_session(WebTarget(url=f"http://qa:hunter2@127.0.0.1:{silent}/app"))
    finally:
        browser._wait.timeout = 30.0
        browser._hang.after, browser._hang.ping_s = 15.0, 5.0
        browser.end_session()
    assert str(failed.value) == (f"cannot open http://qa:***@127.0.0.1:{silent}/app: the "
                                 "server sent no answer within 4 s")
