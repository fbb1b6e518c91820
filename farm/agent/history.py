"""ConversationHistory: what one ai_act remembers between rounds (reset per ai_act).

Prompt size must not grow with the number of rounds: only the newest screenshot is sent (2
with deep_think or planningStrategy standard), older images become a text placeholder, only
the last few rounds stay as messages (planningStrategy max: every kept message and image, at
most `max_messages`), a long reply is kept with its thought cut (`bounded_reply`: its action
whole), and the executed-step log keeps its newest entries (older ones counted).
Pure data: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from farm.llm.plan import SubGoal

WINDOW = -1        # snapshot(rounds=WINDOW): the history's own `window_rounds`
IMAGE_PLACEHOLDER = "(screenshot omitted: only the newest is kept)"
DROPPED = "({} earlier messages of this task omitted)"     # where compression cut


@dataclass
class ConversationHistory:
    max_messages: int = 50            # past this, keep the last `keep_messages`
    keep_messages: int = 20
    window_rounds: int = 3            # rounds sent back in full (user + assistant messages)
    max_logs: int = 10
    messages: list[dict[str, Any]] = field(default_factory=list)
    memories: list[str] = field(default_factory=list)
    sub_goals: list[SubGoal] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    pending_feedback: str = ""
    _dropped_logs: int = 0
    _dropped_messages: int = 0

    def reset(self) -> None:
        self.messages.clear()
        self.memories.clear()
        self.sub_goals.clear()
        self.logs.clear()
        self.pending_feedback = ""
        self._dropped_logs = 0
        self._dropped_messages = 0

    def add_user(self, text: str, image_url: str | None) -> None:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if image_url:
            content.append({"type": "image_url", "image_url": {"url": image_url}})
        self.messages.append({"role": "user", "content": content})
        self._compress()

    def add_assistant(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": bounded_reply(text)})
        self._compress()

    def drop_last(self) -> None:
        """Forget the newest message (a reply that could not be parsed: it would mislead)."""
        if self.messages:
            self.messages.pop()

    def log(self, entry: str) -> None:
        self.logs.append(entry)
        if len(self.logs) > self.max_logs:
            self._dropped_logs += len(self.logs) - self.max_logs
            del self.logs[:-self.max_logs]

    def remember(self, memory: str) -> None:
        if memory and memory not in self.memories:
            self.memories.append(memory)
            del self.memories[:-5]

    def feedback(self, text: str) -> None:
        self.pending_feedback = (self.pending_feedback + "\n" + text).strip()

    def take_feedback(self) -> str:
        text, self.pending_feedback = self.pending_feedback, ""
        return text

    def update_goals(self, goals: list[SubGoal], done: list[int]) -> None:
        if goals:
            self.sub_goals = list(goals)
        for g in self.sub_goals:
            if g.index in done:
                g.status = "finished"

    def _compress(self) -> None:
        if len(self.messages) > self.max_messages:
            self._dropped_messages += len(self.messages) - self.keep_messages
            del self.messages[:-self.keep_messages]

    def state_text(self, show_goals: bool) -> str:
        """Memories, sub-goals (deepThink, planningStrategy max) or executed steps, for the
        next prompt."""
        parts = []
        if show_goals and self.sub_goals:
            parts.append("Sub-goals:\n" + "\n".join(
                f"{g.index}. [{g.status}] {g.text}" for g in self.sub_goals))
        elif self.logs:
            head = f"({self._dropped_logs} earlier steps)\n" if self._dropped_logs else ""
            parts.append("Steps done so far:\n" + head + "\n".join(f"- {l}" for l in self.logs))
        if self.memories:
            parts.append("Memory:\n" + "\n".join(f"- {m}" for m in self.memories))
        return "\n\n".join(parts)

    def snapshot(self, max_images: int | None = 1,
                 rounds: int | None = WINDOW) -> list[dict[str, Any]]:
        """The messages to send: the newest round and ``rounds`` earlier ones (default
        `window_rounds`; None: every message kept), the ``max_images`` newest images (None:
        all of them). After a compression, a snapshot of every kept message starts with a
        placeholder saying how many earlier ones were dropped."""
        rounds = self.window_rounds if rounds == WINDOW else rounds
        msgs = self.messages if rounds is None else self.messages[-(2 * rounds + 1):]
        if msgs and msgs[0].get("role") == "assistant":
            msgs = msgs[1:]
        unsent = len(self.messages) - len(msgs)
        if self._dropped_messages and unsent <= 1 and msgs:
            # every kept message is sent: a placeholder says the task did not start there, in
            # the first user message (a message of its own made two user turns in a row, which
            # strict chat templates refuse)
            msgs = [with_text_first(msgs[0], DROPPED.format(self._dropped_messages + unsent)),
                    *msgs[1:]]
        out: list[dict[str, Any]] = []
        seen = 0
        for m in reversed(msgs):
            content = m["content"]
            if isinstance(content, list):
                parts = []
                for p in content:
                    if p.get("type") == "image_url":
                        seen += 1
                        if max_images is not None and seen > max_images:
                            p = {"type": "text", "text": IMAGE_PLACEHOLDER}
                    parts.append(p)
                m = {**m, "content": parts}
            out.append(m)
        out.reverse()
        return out


def with_text_first(message: dict[str, Any], *parts: dict[str, Any] | str) -> dict[str, Any]:
    """``message`` (a user turn) with ``parts`` (texts or content parts) before its content:
    what would otherwise be a user message of its own right before it. Roles must take turns
    (system, user, assistant, user, ...): vLLM's Qwen and Llama templates refuse two user
    messages in a row."""
    content = message["content"]
    head = [{"type": "text", "text": p} if isinstance(p, str) else p for p in parts]
    body = content if isinstance(content, list) else [{"type": "text", "text": content}]
    return {**message, "content": [*head, *body]}


REPLY_CHARS = 4000      # a reply sent back in later rounds is cut to about this many characters
THOUGHT_CHARS = 1000    # ... its thought to this many
# the thought of each grammar: XML's <thought>, AutoGLM's <think>, UI-TARS' "Thought: ... Action:"
_THOUGHT = re.compile(r"(<thought>)(.*?)(</thought>|$)|(<think>)(.*?)(</think>|$)"
                      r"|(Thought:)(.*?)(\n\s*Action:|$)", re.S | re.I)
CUT = " […{} characters of the thought cut]"


def bounded_reply(text: str) -> str:
    """A model's reply as later rounds send it back: whole when short; else its thought cut to
    `THOUGHT_CHARS` with a marker (the action is kept whole). A reply with no thought the
    grammars mark keeps its start and its end (where the action is)."""
    if len(text) <= REPLY_CHARS:
        return text

    def cut(m: re.Match[str]) -> str:
        i = next(i for i in (1, 4, 7) if m.group(i) is not None)
        opener, body, closer = m.group(i), m.group(i + 1), m.group(i + 2)
        if len(body) <= THOUGHT_CHARS:
            return m.group(0)
        return opener + body[:THOUGHT_CHARS] + CUT.format(len(body) - THOUGHT_CHARS) + closer

    out = _THOUGHT.sub(cut, text, count=1)
    if len(out) <= REPLY_CHARS:
        return out
    head, tail = REPLY_CHARS // 4, REPLY_CHARS * 3 // 4
    return out[:head] + f" […{len(out) - head - tail} characters cut] " + out[-tail:]
