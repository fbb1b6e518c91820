"""A device process whose events the broker's ACL refuses for a while (NOPERM: a grant taken
back, then given again) keeps them and hands them in, in order, once it may, saying so once
each way with the user and the URL (password masked). Before, each event was dropped with a
traceback: the run never heard its cases end and took the attempts for lost."""

from __future__ import annotations

import logging
import threading
from typing import Any

from farm.cluster import store
from worker.outbox import NOPERM, Outbox

URL = "redis://mid:s3cret-pw@127.0.0.1:1/0"


class _Refusing:
    """Redis as the outbox sees it: ``refusals`` NOPERMs first, then it takes every event."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.pushed: list[str] = []

    def eval(self, _script: str, _keys: int, *args: Any) -> int:
        if self.refusals:
            self.refusals -= 1
            raise NOPERM("this user has no permissions to run the 'eval' command")
        self.pushed.append(args[2])
        return 1


def test_events_the_acl_refuses_for_a_while_are_kept_and_handed_in_once_it_may(caplog,
                                                                              monkeypatch):
    monkeypatch.setattr(store, "_prefix", "farm")
    monkeypatch.setattr(store, "_prefix_set", True)
    caplog.set_level(logging.WARNING, logger="farm.worker")
    r = _Refusing(2)
    outbox = Outbox(r, url=URL)
    outbox.put("r1", {"type": "case_started", "case": "s/c", "attempt": 1})
    outbox.put("r1", {"type": "case_finished", "case": "s/c", "attempt": 1})
    done = threading.Thread(target=outbox.flush, daemon=True)
    done.start()
    done.join(60)
    assert not done.is_alive()
    assert [e.split('"type": "')[1].split('"')[0] for e in r.pushed] == [
        "case_started", "case_finished"]
    said = [rec.getMessage() for rec in caplog.records]
    assert len(said) == 2, said
    assert said[0].startswith(
        "the broker refuses this device's events (the broker redis://mid:***@127.0.0.1:1/0 "
        "refuses user 'mid': this user has no permissions to run the 'eval' command"), said
    assert said[1].startswith("the broker takes this device's events again after"), said
    assert "s3cret-pw" not in caplog.text
