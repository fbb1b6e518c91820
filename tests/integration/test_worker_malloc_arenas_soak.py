"""A `farm worker` starts its device processes with MALLOC_ARENA_MAX=2: glibc gave each thread
that allocated an arena of its own, and a phone's device process grew from 83 to over 300 MB
in ten demo runs (134 MB with 2). A value the user set is kept. Real `farm worker`."""

from __future__ import annotations

import pytest

from tests.support.cluster import wait_idle

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        pairs = [e.decode().partition("=") for e in f.read().split(b"\0") if e]
    return {k: v for k, _, v in pairs}


@pytest.mark.parametrize("given, used", [(None, "2"), ("4", "4")])
def test_device_processes_cap_their_malloc_arenas(redis_url, workers, monkeypatch, given, used):
    if given is None:
        monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
        workers("fake:1")
    else:
        workers("fake:1", MALLOC_ARENA_MAX=given)
    [lease] = wait_idle(redis_url, 1).values()
    assert environ(lease["pid"])["MALLOC_ARENA_MAX"] == used
