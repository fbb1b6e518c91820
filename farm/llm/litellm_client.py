"""LiteLLMClient: the real ModelClient, any provider litellm speaks, over its HTTP path.

The one module that imports litellm (lazily, on the first client built). Retries with
exponential backoff on 429, 5xx, timeouts and connection failures; when they are spent the
call raises ModelUnavailable (an infrastructure error: the case is an *error*, not a failure).
A caller's time budget bounds every wait (DeadlineReached), and a reply over
FARM_MODEL_MAX_REPLY_BYTES is refused unread (ModelUnavailable, never retried).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from farm import metrics
from farm.errors import ModelUnavailable
from farm.llm.capped_http import ReplyTooLarge
from farm.llm.client import DeadlineReached, ModelReply, RequestBudget, Usage
from farm.text import clean

log = logging.getLogger("farm.llm")
_import_lock = threading.Lock()


def _litellm() -> Any:
    # litellm fetches its cost map from the network at import unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with _import_lock:
        import litellm
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    # litellm logs every call at INFO to its own stdout handler: that would run through the
    # progress view. Keep its warnings; farm logs the calls itself.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx", "httpcore", "openai"):
        logging.getLogger(name).setLevel(logging.WARNING)
    return litellm


class LiteLLMClient:
    """One model endpoint. ``model`` is a litellm model string (``openai/gpt-4o``,
    ``gemini/gemini-2.5-flash``, ...); ``base_url`` an OpenAI-compatible API base.
    ``max_reply_bytes`` caps what is read of a reply (FARM_MODEL_MAX_REPLY_BYTES)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 family: str = "gpt", timeout: float = 60.0, temperature: float = 0.0,
                 retries: int = 2, backoff: float = 0.5, max_tokens: int | None = None,
                 max_reply_bytes: int = 1_000_000) -> None:
        self.name = model
        self.model = model
        self.family = family
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.temperature = temperature
        self.retries = retries
        self.backoff = backoff
        self.max_tokens = max_tokens
        self.max_reply_bytes = max_reply_bytes
        self._lib = _litellm()
        self._sdk_client = self._capped_sdk_client()

    def _capped_sdk_client(self) -> Any:
        """For endpoints litellm reaches through the OpenAI SDK (``openai/…``, any
        OpenAI-compatible server): an SDK client whose HTTP transport stops reading a reply
        at the cap. Other providers' replies are capped after reading (see `_capped_text`)."""
        try:
            provider = self._lib.get_llm_provider(self.model, api_base=self.base_url)[1]
        except Exception:   # litellm does not know the model: let completion() say so
            return None
        if provider != "openai":
            return None
        import httpx
        import openai

        from farm.llm.capped_http import CappedTransport
        try:
            return openai.OpenAI(base_url=self.base_url, api_key=self._key() or None,
                                 max_retries=0, timeout=self.timeout,
                                 http_client=httpx.Client(
                                     transport=CappedTransport(self.max_reply_bytes),
                                     follow_redirects=True))
        except openai.OpenAIError:   # e.g. no key anywhere: completion() reports it
            return None

    def _key(self) -> str | None:
        # OpenAI-compatible servers that need no key still make the SDK demand one.
        return self.api_key or ("none" if self.base_url else None)

    def _retryable(self, exc: BaseException) -> bool:
        lib = self._lib
        kinds = tuple(k for k in (
            getattr(lib, "RateLimitError", None), getattr(lib, "Timeout", None),
            getattr(lib, "APIConnectionError", None), getattr(lib, "InternalServerError", None),
            getattr(lib, "ServiceUnavailableError", None), getattr(lib, "BadGatewayError", None),
        ) if k is not None)
        if isinstance(exc, kinds):
            return True
        status = getattr(exc, "status_code", None)
        return isinstance(status, int) and (status == 429 or status >= 500)

    def _kwargs(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(model=self.model, messages=messages,
                                      temperature=self.temperature, num_retries=0,
                                      max_retries=0, api_key=self._key())
        if self.base_url:
            kwargs["api_base"] = self.base_url
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        if self._sdk_client is not None:
            kwargs["client"] = self._sdk_client
        return kwargs

    def complete(self, messages: list[dict[str, Any]],
                 timeout: float | None = None) -> ModelReply:
        """Send ``messages``; retry transient failures; raise ModelUnavailable when spent.

        ``timeout`` bounds the whole call: each request waits at most min(FARM_MODEL_TIMEOUT,
        what is left), no retry starts that its backoff would push past the end, and
        DeadlineReached says the time ran out (not the model's health)."""
        usage = Usage()
        budget = RequestBudget(self.timeout, timeout)
        kwargs = self._kwargs(messages)
        for attempt in range(self.retries + 1):
            started = time.monotonic()
            kwargs["timeout"] = budget.request_timeout(started)
            if kwargs["timeout"] <= 0:
                raise DeadlineReached(f"model {self.model} gave no answer in the time left "
                                      f"(no time for attempt {attempt + 1})")
            try:
                response = self._lib.completion(**kwargs)
            except Exception as exc:
                usage.latency_s += time.monotonic() - started
                metrics.model_request(self.family, "timeout" if isinstance(
                    exc, getattr(self._lib, "Timeout", ())) else "error",
                    time.monotonic() - started)
                cut_short = kwargs["timeout"] < self.timeout   # waited only what was left
                self._raise_unless_retry(exc, attempt, budget, cut_short)
                usage.retries += 1
                delay = self.backoff * (2 ** attempt)
                log.info("model %s: %s; retry %d in %.1fs", self.model, type(exc).__name__,
                         attempt + 1, delay)
                time.sleep(delay)
                continue
            took = time.monotonic() - started
            usage.latency_s += took
            usage.calls += 1
            try:
                reply = ModelReply(self._capped_text(response), self._usage(response, usage))
            except ModelUnavailable:
                metrics.model_request(self.family, "error", took)
                raise
            metrics.model_request(self.family, "ok", took, reply.usage)
            return reply
        raise AssertionError("unreachable")

    def _raise_unless_retry(self, exc: Exception, attempt: int, budget: RequestBudget,
                            cut_short: bool) -> None:
        """Return when ``exc`` is worth another attempt; otherwise raise what the caller sees."""
        said = _said(exc, self.base_url)
        if _in_chain(exc, ReplyTooLarge) is not None:
            raise self._too_large() from exc
        if not self._retryable(exc):
            raise ModelUnavailable(f"model {self.model} refused the request: {said}") from exc
        now = time.monotonic()
        timed_out = isinstance(exc, getattr(self._lib, "Timeout", ()))
        if (cut_short and timed_out) or budget.spent(now) \
                or not budget.allows_retry(now, self.backoff * (2 ** attempt)):
            raise DeadlineReached(f"model {self.model} gave no answer in the time left "
                                  f"({said})") from exc
        if attempt == self.retries:
            raise ModelUnavailable(f"model {self.model} unavailable after {attempt + 1} "
                                   f"attempts: {said}") from exc

    def _too_large(self) -> ModelUnavailable:
        return ModelUnavailable(f"model {self.model} sent a reply over {self.max_reply_bytes} "
                                "bytes (the FARM_MODEL_MAX_REPLY_BYTES cap); it was not parsed")

    def _capped_text(self, response: Any) -> str:
        """The reply text; ModelUnavailable past the cap (the transport stops reading there
        for OpenAI-compatible endpoints; other providers' replies are read, never parsed)."""
        text = self._text(response)
        if len(text) > self.max_reply_bytes or len(text.encode("utf-8", "replace")) > \
                self.max_reply_bytes:
            raise self._too_large()
        return text

    @staticmethod
    def _text(response: Any) -> str:
        try:
            return clean(response.choices[0].message.content or "")   # lone surrogates
        except (AttributeError, IndexError, KeyError):
            return ""

    def _usage(self, response: Any, usage: Usage) -> Usage:
        u = getattr(response, "usage", None)
        usage.prompt_tokens = int(getattr(u, "prompt_tokens", 0) or 0)
        usage.completion_tokens = int(getattr(u, "completion_tokens", 0) or 0)
        try:
            usage.cost_usd = float(self._lib.completion_cost(completion_response=response) or 0)
        except Exception:   # model missing from the cost map: count 0, say so
            usage.cost_usd, usage.cost_unknown = 0.0, True
        return usage


def _in_chain(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """``exc`` or the first exception of type ``kind`` it was raised from (SDKs wrap)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, kind):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _said(exc: BaseException, base_url: str | None) -> str:
    """What went wrong, once: a connection that failed names the endpoint and the OS's reason
    ("the connection to http://…/v1 failed: [Errno 111] Connection refused"); anything else
    is the error's kind and first line, without litellm's repeated "litellm.X: X: "."""
    import socket

    lost = _in_chain(exc, ConnectionError) or _in_chain(exc, socket.gaierror)
    if lost is not None:
        from farm.config import mask_url
        where = mask_url(base_url) if base_url else "the provider"
        return f"the connection to {where} failed: {_short(lost)}"
    name, text = type(exc).__name__, _short(exc)
    for prefix in (f"litellm.{name}: ", f"{name}: "):
        text = text[len(prefix):] if text.startswith(prefix) else text
    return f"{name}: {text}"


def _short(exc: BaseException) -> str:
    text = clean(str(exc)).strip()
    return text.splitlines()[0][:300] if text else ""
