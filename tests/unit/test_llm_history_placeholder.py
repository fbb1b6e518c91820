"""planningStrategy max sends every kept message: after the history is compressed (past 50
messages, the newest 20 kept) the request starts with a placeholder saying how many earlier
messages of the task were dropped, where it started mid-task with nothing to say so (inside
the first user message: the roles still take turns). The
usual 3-round window never reaches that far back and gets no placeholder."""

from __future__ import annotations

from farm.agent.history import ConversationHistory


def texts(messages):
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
            for m in messages]


def rounds(h: ConversationHistory, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        h.add_user(f"round {i}", None)
        h.add_assistant(f"reply {i}")


def test_every_kept_message_follows_a_placeholder_after_compression():
    h = ConversationHistory()
    rounds(h, 25)
    assert texts(h.snapshot(rounds=None))[0] == "round 0"          # nothing dropped yet
    h.add_user("round 25", None)                                   # the 51st: 31 dropped
    snap = h.snapshot(rounds=None)
    sent = texts(snap)
    # the first kept message, "reply 15", is a reply: not sent first, counted as omitted; the
    # placeholder opens the first user message (not a user message of its own before it)
    assert [p["text"] for p in snap[0]["content"]] == [
        "(32 earlier messages of this task omitted)", "round 16"]
    assert [m["role"] for m in snap] == ["user", "assistant"] * 9 + ["user"]
    assert sent[-1] == "round 25" and len(sent) == 19
    h.add_assistant("reply 25")
    rounds(h, 15, start=26)                                        # past 50 again
    assert texts(h.snapshot(rounds=None))[0] == "(62 earlier messages of this task omitted)"


def test_the_round_window_gets_no_placeholder():
    h = ConversationHistory()
    rounds(h, 30)
    h.add_user("round 30", None)
    assert texts(h.snapshot()) == ["round 27", "reply 27", "round 28", "reply 28", "round 29",
                                   "reply 29", "round 30"]


def test_a_new_task_starts_with_nothing_dropped():
    h = ConversationHistory()
    rounds(h, 30)
    h.reset()
    h.add_user("round 0", None)
    assert texts(h.snapshot(rounds=None)) == ["round 0"]
