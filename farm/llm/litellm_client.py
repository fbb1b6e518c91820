"""LiteLLMClient: the real ModelClient, any provider litellm speaks, over its HTTP path.

The one module that imports litellm (lazily, on the first client built). Retries with
exponential backoff on 429, 5xx, timeouts and connection failures; when they are spent the
call raises ModelUnavailable (an infrastructure error: the case is an *error*, not a failure).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from farm.errors import ModelUnavailable
from farm.llm.client import ModelReply, Usage
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
    ``gemini/gemini-2.5-flash``, ...); ``base_url`` an OpenAI-compatible API base."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 family: str = "gpt", timeout: float = 60.0, temperature: float = 0.0,
                 retries: int = 2, backoff: float = 0.5, max_tokens: int | None = None) -> None:
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
        self._lib = _litellm()

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

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        """Send ``messages``; retry transient failures; raise ModelUnavailable when spent."""
        usage = Usage()
        kwargs: dict[str, Any] = dict(model=self.model, messages=messages, timeout=self.timeout,
                                      temperature=self.temperature, num_retries=0,
                                      max_retries=0)
        if self.base_url:
            kwargs["api_base"] = self.base_url
        # OpenAI-compatible servers that need no key still make the SDK demand one.
        kwargs["api_key"] = self.api_key or ("none" if self.base_url else None)
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        for attempt in range(self.retries + 1):
            started = time.monotonic()
            try:
                response = self._lib.completion(**kwargs)
            except Exception as exc:
                usage.latency_s += time.monotonic() - started
                if not self._retryable(exc):
                    raise ModelUnavailable(f"model {self.model} refused the request: "
                                           f"{type(exc).__name__}: {_short(exc)}") from exc
                if attempt == self.retries:
                    raise ModelUnavailable(
                        f"model {self.model} unavailable after {attempt + 1} attempts: "
                        f"{type(exc).__name__}: {_short(exc)}") from exc
                usage.retries += 1
                delay = self.backoff * (2 ** attempt)
                log.info("model %s: %s; retry %d in %.1fs", self.model, type(exc).__name__,
                         attempt + 1, delay)
                time.sleep(delay)
                continue
            usage.latency_s += time.monotonic() - started
            usage.calls += 1
            return ModelReply(self._text(response), self._usage(response, usage))
        raise AssertionError("unreachable")

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


def _short(exc: BaseException) -> str:
    text = clean(str(exc)).strip()
    return text.splitlines()[0][:300] if text else ""
