"""A device's own Celery queue (``farm.dev.<device>``, where a run steers a retry) and the keys
kombu keeps for it in Redis: two binding tables with no TTL, ``<prefix>:celery:_kombu.binding.
farm.dev.<device>`` and ``…binding_permanent…``. A device name carries its host
(``browser-1@pod-7f9c``), so each pod a Deployment replaced left two keys for good. A device
that stops forgets its own (`forget`); a worker starting forgets those of devices whose lease
has been gone GONE_S or longer (`sweep`: killed processes, replaced pods).
"""

from __future__ import annotations

import time
from typing import Any

from farm.cluster.store import key

GONE_S = 24 * 3600      # a device's queue is forgotten once its lease has been gone this long
PRIORITIES = (3, 6, 9)  # kombu's extra lists of a queue, one per priority step above 0
_SEP = "\x06\x16"       # (kombu's separator in those lists' names)


def device_queue(device: str) -> str:
    return f"farm.dev.{device}"


def _bindings(device: str) -> list[str]:
    queue = device_queue(device)
    return [key("celery", f"_kombu.binding.{queue}"),
            key("celery", f"_kombu.binding_permanent.{queue}")]


def forget(r: Any, device: str, messages_too: bool = False) -> None:
    """Delete the binding tables of ``device``'s own queue. Its messages stay (a worker
    starting again under that name reads them; it binds the queue again as it starts)
    unless ``messages_too``: a queue nobody has read for GONE_S."""
    keys = _bindings(device)
    if messages_too:
        queue = key("celery", device_queue(device))
        keys += [queue, *(f"{queue}{_SEP}{p}" for p in PRIORITIES)]
    r.delete(*keys)


def sweep(r: Any, now: float | None = None) -> list[str]:
    """Forget the queues of devices whose lease has been gone GONE_S or longer; the devices
    forgotten. A device's queue found with no lease is noted in ``<prefix>:queues:gone``
    (device → when first found so), forgotten when a later sweep finds it still so past
    GONE_S, and taken off the note once its device holds a lease again."""
    now = time.time() if now is None else now
    devices: set[str] = set()
    for table in ("_kombu.binding.", "_kombu.binding_permanent."):
        start = key("celery", f"{table}{device_queue('')}")
        devices |= {k[len(start):] for k in r.scan_iter(match=_glob(start) + "*", count=500)}
    names = sorted(devices)
    held = r.mget([key("lease", d) for d in names]) if names else []
    unleased = {d for d, lease in zip(names, held) if lease is None}
    noted = {d: float(t) for d, t in r.hgetall(key("queues", "gone")).items()}
    forgotten = sorted(d for d in unleased if d in noted and now - noted[d] >= GONE_S)
    for device in forgotten:
        forget(r, device, messages_too=True)
    done = [d for d in noted if d not in unleased or d in forgotten]
    if done:
        r.hdel(key("queues", "gone"), *done)
    new = {d: now for d in unleased if d not in noted}
    if new:
        r.hset(key("queues", "gone"), mapping=new)
    return forgotten


def _glob(text: str) -> str:
    """``text`` as a literal in a SCAN pattern (a host name may hold ``[`` or ``*``...)."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)
