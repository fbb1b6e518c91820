"""A simulator's screens after their stop: a client's request that comes as `farm sim` shuts
down fails at once (it waited out its 30 s timeout), and leaves no coroutine never awaited (a
RuntimeWarning at the end of `make test`)."""

from __future__ import annotations

import asyncio
import gc
import inspect
import threading
import warnings

import pytest

from farm.devices.sim.screen import ScreenHost, ScreensStopped


def started() -> ScreenHost:
    """A host with its loop thread running and no Chromium (none is needed to stop it)."""
    host = ScreenHost()
    host._thread.start()
    return host


async def answer() -> str:
    return "screenshot"


def test_a_call_after_the_stop_fails_at_once_and_its_coroutine_is_closed():
    host = started()
    assert host.run(answer()) == "screenshot"
    host.stop()
    coro = answer()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(ScreensStopped, match="stopped"):
            host.run(coro, timeout=60)
        del coro
        gc.collect()
    assert not [w for w in seen if "never awaited" in str(w.message)]


def test_a_call_the_stop_leaves_unfinished_is_ended_not_left_to_its_timeout():
    host = started()
    began, outcome = threading.Event(), []

    async def forever() -> None:
        began.set()
        await asyncio.Event().wait()

    def client() -> None:
        try:
            host.run(forever(), timeout=600)
        except ScreensStopped as exc:
            outcome.append(exc)

    caller = threading.Thread(target=client, daemon=True)
    caller.start()
    assert began.wait(60)
    host.stop()
    caller.join(60)       # (without the stop's ending it: 600 s)
    assert not caller.is_alive()
    assert [type(e) for e in outcome] == [ScreensStopped]


def test_stopping_a_host_never_started_makes_its_calls_fail_at_once():
    host = ScreenHost()
    host.stop()
    coro = answer()
    with pytest.raises(ScreensStopped):
        host.run(coro, timeout=60)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED
