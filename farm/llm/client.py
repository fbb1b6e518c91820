"""The ModelClient seam: chat messages in, reply text + usage out.

`LiteLLMClient` (farm.llm.litellm_client) is the real one; `ScriptedModelClient` here is the
in-process fake for unit tests and benchmarks (zero latency, replies from a script).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from farm.errors import Interrupted, ModelUnavailable
from farm.usage import Usage


@dataclass
class ModelReply:
    text: str
    usage: Usage = field(default_factory=Usage)
    cut: bool = False     # it ended at the model's token limit (finish_reason "length")


def cut_note(ask: Any) -> str:
    """What a reply that could not be parsed twice adds when the last one was cut at the
    model's token limit (``ask``: the Agent's ``ask``, which keeps ``last_cut``): a reply
    cut short is unreadable however well the model follows the grammar."""
    if not getattr(getattr(ask, "__self__", None), "last_cut", False):
        return ""
    return (" (its last reply was cut at the model's token limit, finish_reason length: a "
            "reasoning model can spend it thinking; raise the endpoint's max tokens)")


class DeadlineReached(ModelUnavailable):
    """The time a caller gave `ModelClient.complete` ran out before the model answered (the
    Agent turns it into a CaseTimeout that names the model)."""


class RequestBudget:
    """How long each attempt of one call may wait: min(per-request timeout, what is left of
    the call's ``total`` (None: no limit)). Times (monotonic seconds) come in as arguments."""

    def __init__(self, per_request: float, total: float | None,
                 now: float | None = None) -> None:
        self.per_request = per_request
        start = time.monotonic() if now is None else now
        self.end = float("inf") if total is None else start + total

    def request_timeout(self, now: float) -> float:
        return min(self.per_request, self.end - now)

    def spent(self, now: float) -> bool:
        return now >= self.end

    def allows_retry(self, now: float, delay: float) -> bool:
        """Whether a retry after ``delay`` would still have time to wait for an answer."""
        return now + delay < self.end


class ModelClient(Protocol):
    """One model endpoint. ``family`` names its grammar and coordinate convention
    (farm.llm.families); ``name`` is for logs and metrics."""

    name: str
    family: str

    def complete(self, messages: list[dict[str, Any]], timeout: float | None = None,
                 cancel: threading.Event | None = None) -> ModelReply:
        """Send OpenAI-style chat messages; return the reply. ``timeout``: seconds the whole
        call may take, retries included (DeadlineReached when they run out). ``cancel``: the
        run's stop event; once set the call ends at once with Interrupted (no retry, no
        backoff, no wait for the request in flight). Raises ModelUnavailable when the endpoint
        cannot answer (after retries) or its reply is over the size cap, ModelRefused when it
        refuses the API key. A raised error may carry the usage the failed call spent as
        ``.usage`` (calls, retries, latency) for the caller to count."""


def estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A rough prompt size for fakes: 4 characters a token, 765 per image (a 1280x800 image
    in OpenAI's high-detail accounting)."""
    total = 0
    for m in messages:
        content = m.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for part in parts:
            if part.get("type") == "image_url":
                total += 765
            else:
                total += len(part.get("text") or "") // 4 + 1
        total += 4
    return total


Script = Sequence[str] | Callable[[list[dict[str, Any]], int], str]


class ScriptedModelClient:
    """Replies from a list (one per call, the last repeats) or a function
    ``(messages, call_index) -> text``; a script may raise (ModelUnavailable, DeadlineReached)
    to stand for an endpoint that fails. Records every request in ``.requests`` and the time
    each call was given in ``.timeouts``."""

    def __init__(self, script: Script, family: str = "gpt", name: str = "scripted",
                 keep_requests: bool = True) -> None:
        self.script = script
        self.family = family
        self.name = name
        self.keep_requests = keep_requests
        self.requests: list[list[dict[str, Any]]] = []
        self.timeouts: list[float | None] = []
        self.calls = 0

    def complete(self, messages: list[dict[str, Any]], timeout: float | None = None,
                 cancel: threading.Event | None = None) -> ModelReply:
        if cancel is not None and cancel.is_set():
            raise Interrupted(f"interrupted while waiting for the model {self.name}")
        started = time.perf_counter()
        index = self.calls
        self.calls += 1
        self.timeouts.append(timeout)
        if self.keep_requests:
            self.requests.append(list(messages))   # as sent: callers extend their list
        if callable(self.script):
            text = self.script(messages, index)
        else:
            text = self.script[min(index, len(self.script) - 1)]
        usage = Usage(prompt_tokens=estimate_tokens(messages),
                      completion_tokens=len(text) // 4 + 1, cost_unknown=True,
                      latency_s=time.perf_counter() - started, calls=1)
        return ModelReply(text, usage)
