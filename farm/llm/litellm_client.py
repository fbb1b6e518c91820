"""LiteLLMClient: the real ModelClient, any provider litellm speaks, over its HTTP path.

The one module that imports litellm (lazily, on the first client built). Retries with
exponential backoff (at most BACKOFF_CAP_S between tries, however many FARM_MODEL_RETRIES) on
429, 5xx, timeouts and connection failures — after what a 429 / 503's ``Retry-After`` asked
for instead, when it says (at most RETRY_AFTER_CAP_S); when they are spent the call raises
ModelUnavailable (an infrastructure error: the case is an *error*, not a failure). A refused
API key (401 / 403) is ModelRefused at once: no retry can fix it. An endpoint that cannot be
reached (connection refused, a host name DNS does not know; not a timeout nor a 5xx, which can
pass) after every retry is ModelUnavailable, and like the refused key it is not sent again by
the run's later calls.
A caller's time budget bounds every wait (DeadlineReached when it runs out; a retry the
endpoint or the backoff would start past it is ModelUnavailable saying so), and a reply over
FARM_MODEL_MAX_REPLY_BYTES is refused unread (ModelUnavailable, never retried). The run's cancel
event ends a call at once (Interrupted), in flight or between retries, and a request whose reply
drips in is abandoned a little past its timeout, its connection shut (OpenAI-compatible
endpoints: farm.llm.request_watch, farm.llm.capped_http). Settings that cannot
work (farm.llm.preflight) are ModelMisconfigured, with nothing sent or counted. Every error
carries the call's usage so far (``.usage``), and no message or log line names an API key or
the endpoint's password (``***``). A reply without token usage counts its cost as unknown.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
import warnings
from typing import Any, Callable, Sequence

from farm import metrics
from farm.errors import (FarmError, Interrupted, ModelMisconfigured, ModelRefused,
                         ModelUnavailable)
from farm.cancellable import Cancelled
from farm.llm.capped_http import ReplyTooLarge
from farm.llm.client import DeadlineReached, ModelReply, RequestBudget, Usage
from farm.llm.preflight import config_problem, provider_of, url_password
from farm.llm.request_watch import GRACE_S, LATE_ANSWER_S, Abandoned, send
from farm.text import clean

log = logging.getLogger("farm.llm")
_import_lock = threading.Lock()
RETRY_AFTER_CAP_S = 60.0    # the longest a Retry-After header makes a retry wait
BACKOFF_CAP_S = 30.0        # the longest the doubling backoff grows (FARM_MODEL_BACKOFF if longer)
# How long after a connection refused through all its retries later calls are not sent (each
# would wait out the same retries); after it, one fresh try: a model server restarted meanwhile
# is used again, one still down is not sent to for another such while.
UNREACHABLE_HOLD_S = 30.0


# litellm's import takes seconds (10+ on a loaded machine): a run begins it in the background
# as it starts (`start_import`), overlapping what the run does meanwhile; whoever needs the
# module first (the run's model check, a client) waits for it there, said once when that wait
# is longer than LOAD_SAID_AFTER_S: "loading the model library (litellm)…".
LOAD_SAID_AFTER_S = 1.0
LOADING = "loading the model library (litellm)…"
_loader: threading.Thread | None = None
_loader_lock = threading.Lock()
_load_said = False


def start_import() -> None:
    """Begin importing litellm in a background thread (once a process; nothing when it is
    imported already). Its failure is the first user's to raise (`_litellm` imports again)."""
    global _loader
    # litellm fetches its cost map from the network at import unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with _loader_lock:
        if _loader is None:
            _loader = threading.Thread(target=_import_in_background, daemon=True,
                                       name="farm-litellm-import")
            _loader.start()


def _import_in_background() -> None:
    try:
        with _import_lock:
            import litellm  # noqa: F401
    except BaseException as exc:  # said by the caller that needs it (its own import raises)
        log.debug("background import of litellm failed: %s", exc)


def _await_import(say: Callable[[str], None] | None) -> None:
    """Wait for the background import; past LOAD_SAID_AFTER_S said once a process (``say``,
    else farm.log)."""
    global _load_said
    loader = _loader
    if loader is None:
        return
    loader.join(LOAD_SAID_AFTER_S)
    if loader.is_alive():
        with _loader_lock:
            first, _load_said = not _load_said, True
        if first:
            (say or log.info)(LOADING)
        loader.join()


def _litellm(say: Callable[[str], None] | None = None) -> Any:
    """The litellm module, set up for farm: imported here, or waited for when `start_import`
    began it (``say`` tells a long wait: `_await_import`)."""
    start_import()
    _await_import(say)
    with _import_lock:
        import litellm
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    # litellm logs every call at INFO to its own stdout handler: that would run through the
    # progress view. Keep its warnings; farm logs the calls itself.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx", "httpcore", "openai"):
        logging.getLogger(name).setLevel(logging.WARNING)
    # A reply whose message content is a list of parts (litellm wants a string): litellm's
    # Message, serialized as it fails, printed pydantic's "Pydantic serializer warnings: ...
    # field_name='content'" on stderr, under farm's progress, besides the failure farm reports
    warnings.filterwarnings("ignore", category=UserWarning, module=r"pydantic\.main",
                            message=r"(?s)Pydantic serializer warnings:.*"
                                    r"field_name='content'")
    return litellm


class LiteLLMClient:
    """One model endpoint. ``model`` is a litellm model string (``openai/gpt-4o``,
    ``gemini/gemini-2.5-flash``, ...); ``base_url`` an OpenAI-compatible API base.
    ``max_reply_bytes`` caps what is read of a reply (FARM_MODEL_MAX_REPLY_BYTES);
    ``secrets`` are more values (the other models' API keys) no message may show, besides
    ``api_key``; ``key_setting`` names where ``api_key`` comes from (for a refused key)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 family: str = "gpt", timeout: float = 60.0, temperature: float = 0.0,
                 retries: int = 2, backoff: float = 0.5, max_tokens: int | None = None,
                 max_reply_bytes: int = 1_000_000, secrets: Sequence[str] = (),
                 key_setting: str = "FARM_MODEL_API_KEY") -> None:
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
        self.key_setting = key_setting
        self.refused: str | None = None     # what the endpoint said when it refused the key
        self.unreachable: str | None = None     # why no connection to it could be made
        self.unreachable_until = 0.0        # (clock) when a fresh try may be made again
        self.clock: Callable[[], float] = time.monotonic    # (tests drive the hold with it)
        self._hold_lock = threading.Lock()
        self._lib = _litellm()
        self._provider = provider_of(self._lib, model, base_url)
        self._provider_key()
        self.misconfigured = config_problem(self._lib, model, base_url, bool(self.api_key),
                                            self.key_setting)
        self._usage_warned = False          # a reply without token usage: said once
        # a key from the environment is hidden with the environment's (8+ characters)
        self._mask = _masker(base_url, (api_key or "", *secrets))
        self._sdk_client = self._capped_sdk_client()

    def _capped_sdk_client(self) -> Any:
        """For endpoints litellm reaches through the OpenAI SDK (``openai/…``, any
        OpenAI-compatible server): an SDK client whose HTTP transport stops reading a reply
        at the cap. Other providers' replies are capped after reading (see `_capped_text`)."""
        if self._provider != "openai":    # (None: litellm does not know the model)
            return None
        import openai

        from farm.llm.capped_http import capped_client
        try:
            http = capped_client(self.max_reply_bytes, follow_redirects=True)
            hooks = http.event_hooks
            http.event_hooks = {**hooks, "response": [*hooks["response"], _heard]}
            return openai.OpenAI(base_url=self.base_url, api_key=self._key() or None,
                                 max_retries=0, timeout=self.timeout, http_client=http)
        except openai.OpenAIError:   # e.g. no key anywhere: completion() reports it
            return None

    def _provider_key(self) -> None:
        """No key configured: the provider's own variable (OPENAI_API_KEY, ...) when it is
        set, as litellm would read it -- also with a base URL, where farm would otherwise send
        the placeholder below -- and a refusal then names that variable."""
        if self.api_key or url_password(self.base_url):    # its user:password is the login
            return
        from farm.config import provider_key
        found = provider_key(self._provider) if self._provider else None
        if found is not None:
            self.key_setting, self.api_key = found

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
        if self.family == "qwen2.5-vl":
            # Qwen2.5-VL answers in pixels of the image it saw; DashScope shrinks an image
            # above ~1M pixels (a phone screenshot, a padded 1280x800 page) unless asked not
            # to, and its boxes would then land short of their targets. Servers that know no
            # such field (vLLM, Ollama) ignore it; Midscene sends it too.
            kwargs["extra_body"] = {"vl_high_resolution_images": True}
        return kwargs

    def complete(self, messages: list[dict[str, Any]], timeout: float | None = None,
                 cancel: threading.Event | None = None) -> ModelReply:
        """Send ``messages``; retry transient failures; raise ModelUnavailable when spent.

        ``timeout`` bounds the whole call: each request waits at most min(FARM_MODEL_TIMEOUT,
        what is left), no retry starts that its wait would push past the end (ModelUnavailable
        naming the wait and the time left), and DeadlineReached says the time ran out (not the
        model's health). ``cancel`` (the run's stop event) ends the call at once with
        Interrupted: the request in flight is no longer waited for, no backoff is waited out,
        no retry is sent. Whatever is raised carries the usage of the call so far as
        ``.usage`` (the call, its retries, its time)."""
        usage = Usage()
        self._refuse_unsendable(usage)
        budget = RequestBudget(self.timeout, timeout)
        kwargs = self._kwargs(messages)
        for attempt in range(self.retries + 1):
            if cancel is not None and cancel.is_set():
                raise self._interrupted(usage, sent=attempt > 0)
            started = time.monotonic()
            kwargs["timeout"] = budget.request_timeout(started)
            if kwargs["timeout"] <= 0:
                raise _carrying(DeadlineReached(
                    f"model {self.model} gave no answer in the time left (no time for attempt "
                    f"{attempt + 1})"), usage, sent=attempt > 0)
            request, heard = dict(kwargs), []
            request["timeout"] = self._http_timeout(kwargs["timeout"])
            try:
                response = send(lambda: _hearing(heard, self._lib.completion, request), cancel,
                                started + kwargs["timeout"] + self._grace(), self._late,
                                f"model {self.model}")
            except Cancelled:      # the request was sent: the endpoint may have processed it
                usage.latency_s += time.monotonic() - started
                usage.tokens_unknown = usage.cost_unknown = True
                metrics.model_request(self.family, "interrupted", time.monotonic() - started,
                                      unpriced="unknown")
                raise self._interrupted(usage, sent=True) from None
            except Exception as exc:
                if isinstance(exc, Abandoned):     # as httpx's own timeout would have said
                    exc = self._lib.Timeout(message=str(exc), model=self.model,
                                            llm_provider=self._provider or "openai")
                delay = self._failed(exc, attempt, budget, kwargs["timeout"], started, usage,
                                     answered=any(200 <= status < 300 for status in heard),
                                     messages=messages)
                if _wait_unless_cancelled(delay, cancel):
                    raise self._interrupted(usage, sent=True) from None
                continue
            self.unreachable = None     # (connected: a hold is lifted)
            return self._reply(response, usage, time.monotonic() - started, messages)
        raise AssertionError("unreachable")

    def _grace(self) -> float:
        """How long past its timeout a request is waited for: none where httpx is given more
        (`_http_timeout`: farm's wait is the timeout); GRACE_S elsewhere, for httpx's own
        timeout to end it first."""
        return 0.0 if self._sdk_client is not None else GRACE_S

    def _http_timeout(self, seconds: float) -> Any:
        """What httpx is given for a request farm waits ``seconds`` for. On an
        OpenAI-compatible endpoint (farm's own httpx client, which can end the request:
        `farm.llm.capped_http`) the reply may take LATE_ANSWER_S more: `send` stops waiting
        at ``seconds`` all the same, and an answer that comes meanwhile is counted (`_late`);
        httpx's own read timeout closed the connection at ``seconds`` and no answer ever came
        late. Connecting is bounded by ``seconds``. Other providers: ``seconds``."""
        if self._sdk_client is None:
            return seconds
        import httpx
        return httpx.Timeout(seconds + LATE_ANSWER_S, connect=max(seconds, 0.001))

    def _late(self, response: Any) -> None:
        """An answer that came after farm stopped waiting for it (the call counted it, its
        tokens and cost unknown): what it spent goes to the metrics' tokens and cost, and the
        log says it."""
        usage = self._usage(response, Usage())
        metrics.MODEL_TOKENS.labels(self.family, "prompt").inc(usage.prompt_tokens)
        metrics.MODEL_TOKENS.labels(self.family, "completion").inc(usage.completion_tokens)
        metrics.MODEL_COST.labels(self.family).inc(max(usage.cost_usd, 0.0))
        log.info("model %s answered after farm had stopped waiting: %s, %s", self.model,
                 usage.tokens_text(), usage.cost_text())

    def _refuse_unsendable(self, usage: Usage) -> None:
        """Settings that cannot work, a key the endpoint already refused, or an endpoint that
        refused the connection less than UNREACHABLE_HOLD_S ago: nothing is sent (and no call
        counted). After the hold one call is the fresh try (the others held on meanwhile)."""
        if self.misconfigured is not None:
            raise _carrying(ModelMisconfigured(f"model {self.misconfigured}"), usage, sent=False)
        if self.refused is not None:       # the key will not do better on the next case
            raise _carrying(ModelRefused(f"{self.refused} (not sent again after the first "
                                         "refusal)"), usage, sent=False)
        with self._hold_lock:
            if self.unreachable is None:
                return
            now = self.clock()
            left = self.unreachable_until - now
            if left <= 0:       # this call is the fresh try: the others wait for its outcome
                self.unreachable_until = now + UNREACHABLE_HOLD_S
                return
        raise _carrying(ModelUnavailable(   # nor will a port nothing listens on, for a while
            f"{self.unreachable} (not sent again after the first failed connection: tried "
            f"again in {_secs(max(left, 0.1))} s)"), usage, sent=False)

    def _interrupted(self, usage: Usage, sent: bool) -> FarmError:
        return _carrying(Interrupted(f"interrupted while waiting for the model {self.model}"),
                         usage, sent=sent)

    def _failed(self, exc: Exception, attempt: int, budget: RequestBudget, waited: float,
                started: float, usage: Usage, answered: bool = False,
                messages: list[dict[str, Any]] | None = None) -> float:
        """A request that failed: counted, then raised as what the caller sees, or the
        seconds to wait before the retry (logged). A 429 / 5xx is not billed; a request that
        timed out, or whose answer came and could not be read (a broken 200, one over the size
        cap, one whose connection closed mid-body: ``answered``, its 2xx headers came), may
        have been processed: its tokens and cost are unknown."""
        usage.latency_s += time.monotonic() - started
        timed_out = self._timed_out(exc)
        unknown = answered or timed_out or _answered(exc)
        if unknown:       # its prompt was read, perhaps billed: estimated, as a budget needs
            usage.tokens_unknown = usage.cost_unknown = True
            usage.timeouts += int(timed_out)
            self._estimated(usage, messages)
        metrics.model_request(self.family, "timeout" if self._timed_out(exc) else "error",
                              time.monotonic() - started, unpriced="unknown" if unknown else "")
        delay, why = self._delay(exc, attempt)
        error = self._error(exc, attempt, budget, waited, delay, why)
        if self.unreachable is not None and not _unreachable(exc):
            self.unreachable = None     # the fresh try after a hold connected: lifted
        if error is not None:
            if isinstance(error, ModelRefused):
                self.refused = str(error)
            elif attempt == self.retries and _unreachable(exc) \
                    and type(error) is ModelUnavailable:   # (its retries spent, not the time)
                self._hold(str(error))
            raise _carrying(error, usage, sent=True) from exc
        if self.unreachable is not None:        # the fresh try after a hold, refused again
            error = ModelUnavailable(f"model {self.model}{self._at()} still unavailable: "
                                     f"{self._said(exc, waited, named=True)}")
            self._hold(str(error))              # (held again, its retries not waited out)
            raise _carrying(error, usage, sent=True) from exc
        usage.retries += 1
        log.info("model %s: %s; retry %d in %.1fs (%s)", self.model,
                 self._said(exc, waited), attempt + 1, delay, why)
        return delay

    def _hold(self, why: str) -> None:
        """No connection could be made through the retries: later calls are not sent for
        UNREACHABLE_HOLD_S (then one fresh try)."""
        self.unreachable = why
        self.unreachable_until = self.clock() + UNREACHABLE_HOLD_S
        log.error("%s: the run's model calls are not sent for the next %s s", why,
                  _secs(UNREACHABLE_HOLD_S))

    def _reply(self, response: Any, usage: Usage, took: float,
               messages: list[dict[str, Any]] | None = None) -> ModelReply:
        usage.latency_s += took
        usage.calls += 1
        try:
            text = self._capped_text(response)
        except ModelUnavailable as too_large:    # answered, so perhaps billed: unknown
            usage.tokens_unknown = usage.cost_unknown = True
            self._estimated(usage, messages)
            metrics.model_request(self.family, "error", took, unpriced="unknown")
            raise _carrying(too_large, usage, sent=False)
        own = self._usage(response, Usage(), messages)
        usage.add(own)
        reply = ModelReply(text, usage, cut=self._finish(response) == "length")
        # (the metrics count what the endpoint said: an estimate is the case's, not theirs)
        metrics.model_request(self.family, "ok", took, Usage() if own.tokens_estimated else own)
        if not reply.text.strip() and self._finish(response) == "length":
            # nothing to read, however often asked: said here, not as "the reply was empty"
            raise _carrying(ModelUnavailable(
                f"model {self.model} reached its token limit before writing an answer "
                f"(finish_reason length{self._max_tokens()}: a reasoning model can spend it "
                "all thinking)"), usage, sent=False)
        why = None if reply.text.strip() else _textless(response)
        if why is not None:   # asked again, it answers alike: not "the reply was empty"
            raise _carrying(ModelUnavailable(f"model {self.model}{self._at()} {why}"), usage,
                            sent=False)
        return reply

    def _max_tokens(self) -> str:
        return f", max_tokens {self.max_tokens}" if self.max_tokens else ""

    def _error(self, exc: Exception, attempt: int, budget: RequestBudget, waited: float,
               delay: float, why: str) -> FarmError | None:
        """None when ``exc`` is worth another attempt after ``delay`` seconds (``why``: the
        endpoint's Retry-After or the backoff); otherwise what the caller sees. ``waited``:
        what this attempt's request was allowed (less than FARM_MODEL_TIMEOUT: what was left)."""
        said = self._said(exc, waited)
        if _in_chain(exc, ReplyTooLarge) is not None:
            return self._too_large()
        if self._refused_key(exc):
            return self._refused(exc, said)
        if not self._retryable(exc):
            return ModelUnavailable(f"model {self.model}{self._at()} refused the request: "
                                    f"{said}{self._not_found(exc)}")
        now = time.monotonic()
        timed_out = self._timed_out(exc)
        if (timed_out and waited < self.timeout) or budget.spent(now):
            return DeadlineReached(f"model {self.model} gave no answer in the time left "
                                   f"({said})")
        if attempt == self.retries:
            if timed_out:
                return ModelUnavailable(
                    f"model {self.model}{self._at()} did not answer within {_secs(self.timeout)} s "
                    f"(FARM_MODEL_TIMEOUT)" + (f" in {attempt + 1} attempts" if attempt else ""))
            # named with its endpoint: with several endpoints configured, which one is down
            return ModelUnavailable(f"model {self.model}{self._at()} unavailable after "
                                    f"{attempt + 1} attempt{'s' if attempt else ''}: "
                                    f"{self._said(exc, waited, named=True)}")
        # what Retry-After asked, not the capped wait: a retry sooner is refused again
        if not budget.allows_retry(now, max(delay, _retry_after(exc) or 0.0)):
            return self._no_time_to_retry(exc, self._said(exc, waited, named=True), delay, why,
                                          budget.end - now)
        return None

    def _no_time_to_retry(self, exc: BaseException, said: str, delay: float, why: str,
                          left: float) -> ModelUnavailable:
        """The retry would start past the caller's time: the model's error (the case has not
        run out of time; the endpoint's answer is why it cannot go on), saying what it asked
        for (a 429 / 503's Retry-After) or what the backoff would wait."""
        asked = _retry_after(exc)
        if asked is not None:
            status = getattr(exc, "status_code", None)
            state = "rate-limited" if status == 429 else "unavailable"
            return ModelUnavailable(f"model {self.model}{self._at()} is {state} ({status}): "
                                    f"Retry-After {_secs(asked)} s is more than the "
                                    f"{_secs(left)} s left")
        return ModelUnavailable(f"model {self.model}{self._at()} failed ({said}) and a retry "
                                f"in {_secs(delay)} s ({why}) would not fit in the "
                                f"{_secs(left)} s left")

    def _not_found(self, exc: BaseException) -> str:
        """What a 404 says of the settings: the base URL's path (an OpenAI-compatible
        server's ends in /v1 as a rule) or the model's name is not the endpoint's; the SDK
        says only "Error code: 404"."""
        if getattr(exc, "status_code", None) != 404:
            return ""
        name = self.model.split("/", 1)[-1]
        where = ("the base URL's path, which for an OpenAI-compatible server usually ends in "
                 "/v1, and " if self.base_url else "")
        return f" (a 404: check {where}the model name {name!r})"

    def _at(self) -> str:
        """`` at http://…`` when the model has a base URL: credentials masked, and without its
        query string or fragment (where a key may ride under a name `mask_url` does not know)."""
        if not self.base_url:
            return ""
        shown = self._mask(self.base_url).partition("?")[0].partition("#")[0]
        return f" at {shown}"

    def _said(self, exc: BaseException, waited: float, named: bool = False) -> str:
        """What went wrong, masked; a timeout as the limit it ran into. ``named``: the
        message names the endpoint already (`_at`), a failed connection need not again."""
        if self._timed_out(exc):
            return f"no answer within {_secs(waited)} s"
        if isinstance(exc, getattr(self._lib, "Timeout", ())):    # the endpoint's 408 / 504
            said = _LITELLM_NAMES.sub("", _short(exc, self._mask))
            return f"it answered {_status_line(exc)}" + (f": {said}" if said else "")
        return _said(exc, self.base_url, self._mask, named and bool(self.base_url))

    def _timed_out(self, exc: BaseException) -> bool:
        """No answer came in the time a request had. litellm raises its Timeout for an
        endpoint's answer 408 too: that one answered (at once, maybe), and the time left is
        no reason for it."""
        if not isinstance(exc, getattr(self._lib, "Timeout", ())):
            return False
        import httpx
        import openai
        return _in_chain(exc, (openai.APIStatusError, httpx.HTTPStatusError)) is None

    def _refused_key(self, exc: BaseException) -> bool:
        """A 401 / 403: the endpoint will not take this key, however often it is sent."""
        kinds = tuple(k for k in (getattr(self._lib, "AuthenticationError", None),
                                  getattr(self._lib, "PermissionDeniedError", None)) if k)
        return isinstance(exc, kinds) or getattr(exc, "status_code", None) in (401, 403)

    def _refused(self, exc: BaseException, said: str) -> ModelRefused:
        status = getattr(exc, "status_code", None)
        said = f"{status} {said}" if isinstance(status, int) else said
        if self.api_key:
            return ModelRefused(f"model {self.model} refused the API key ({said}): check "
                                f"{self.key_setting}")
        return ModelRefused(f"model {self.model} refused the request without an API key "
                            f"({said}): set {self.key_setting}")

    def _delay(self, exc: BaseException, attempt: int) -> tuple[float, str]:
        """Seconds to wait before the next attempt and why: what a 429 / 503 asked for in
        Retry-After (at most RETRY_AFTER_CAP_S), else the exponential backoff."""
        asked = _retry_after(exc)
        if asked is None:
            return _backoff(self.backoff, attempt)
        if asked > RETRY_AFTER_CAP_S:
            return RETRY_AFTER_CAP_S, (f"the endpoint asked for {_secs(asked)} s in Retry-After,"
                                       f" capped at {_secs(RETRY_AFTER_CAP_S)} s")
        return asked, f"the endpoint asked for {_secs(asked)} s in Retry-After"

    def _too_large(self) -> ModelUnavailable:
        return ModelUnavailable(f"model {self.model} sent a reply over {self.max_reply_bytes} "
                                "bytes (the FARM_MODEL_MAX_REPLY_BYTES cap); it was not parsed")

    def _capped_text(self, response: Any) -> str:
        """The reply text; ModelUnavailable past the cap (the transport stops reading there
        for OpenAI-compatible endpoints; other providers' replies are read, never parsed)."""
        text = self._text(response)
        if self._finish(response) == "length":     # what the parse error will not say
            log.warning("model %s: its reply was cut at its token limit (finish_reason length"
                        "%s)%s", self.model, self._max_tokens(),
                        "" if text.strip() else ", nothing written")
        if len(text) > self.max_reply_bytes or len(text.encode("utf-8", "replace")) > \
                self.max_reply_bytes:
            raise self._too_large()
        return text

    @staticmethod
    def _finish(response: Any) -> str:
        try:
            return str(response.choices[0].finish_reason or "")
        except (AttributeError, IndexError, KeyError):
            return ""

    @staticmethod
    def _text(response: Any) -> str:
        try:
            return clean(response.choices[0].message.content or "")   # lone surrogates
        except (AttributeError, IndexError, KeyError):
            return ""

    def _usage(self, response: Any, usage: Usage,
               messages: list[dict[str, Any]] | None = None) -> Usage:
        """Tokens and cost of a reply. A reply that says nothing of its tokens (litellm then
        reads 0 + 0: no prompt is free) has them estimated from ``messages`` and its text
        (litellm's token counter; warned once), priced as the model is; without ``messages``
        (an answer that came late) they are unknown."""
        u = getattr(response, "usage", None)
        usage.prompt_tokens = int(getattr(u, "prompt_tokens", 0) or 0)
        usage.completion_tokens = int(getattr(u, "completion_tokens", 0) or 0)
        if not (usage.prompt_tokens or usage.completion_tokens):
            if not self._usage_warned:
                self._usage_warned = True
                log.warning("model %s sent no token usage with its reply: %s", self.model,
                            "farm estimates its calls' tokens from the request and the reply "
                            "(litellm's token counter; shown as partly estimated), and a model "
                            "budget counts the estimates" if messages is not None else
                            "the tokens and cost of its calls are unknown")
            usage.cost_usd, usage.cost_unknown, usage.tokens_unknown = 0.0, True, True
            if messages is not None:
                self._estimated(usage, messages, self._text(response))
            return usage
        try:
            usage.cost_usd = float(self._lib.completion_cost(completion_response=response) or 0)
        except Exception:   # model missing from the cost map: count 0, say so
            usage.cost_usd, usage.cost_unknown = 0.0, True
        return usage

    def _estimated(self, usage: Usage, messages: list[dict[str, Any]] | None,
                   reply: str | None = None) -> None:
        """``usage`` plus the tokens of ``messages`` (and of the ``reply`` text, when it came)
        as litellm's token counter makes them, priced as the model is (the price unknown when
        it has none), marked estimated. A reply with its text counted is known in full; a
        request without (it timed out) keeps its answer unknown."""
        if not messages:
            return
        try:
            prompt = int(self._lib.token_counter(model=self.model, messages=messages))
            answer = int(self._lib.token_counter(model=self.model, text=reply)) if reply else 0
        except Exception as exc:    # noqa: BLE001 - a message it cannot read: left unknown
            log.debug("model %s: no token estimate: %s", self.model, exc)
            return
        usage.prompt_tokens += prompt
        usage.completion_tokens += answer
        usage.tokens_estimated = True
        if reply is not None:
            usage.tokens_unknown = False
        try:
            usage.cost_usd += sum(self._lib.cost_per_token(
                model=self.model, prompt_tokens=prompt, completion_tokens=answer))
            if reply is not None:
                usage.cost_unknown = False
        except Exception:   # noqa: BLE001 - a model litellm has no price for
            usage.cost_unknown = True


_answering = threading.local()    # .heard: the statuses the request this thread sends got


def _hearing(heard: list[int], completion: Callable[..., Any], request: dict[str, Any]) -> Any:
    """``completion(**request)``, the status of each reply whose headers came to it (on
    OpenAI-compatible endpoints: `_heard`) appended to ``heard``: a 200 whose body then broke
    off was answered (and billed), one that never came was not -- the same httpx error says
    both."""
    _answering.heard = heard
    try:
        return completion(**request)
    finally:
        _answering.heard = None


def _heard(response: Any) -> None:
    """httpx response hook (its headers came, its body is yet to be read): its status goes
    to the list of the request this thread sends (`_hearing`)."""
    heard = getattr(_answering, "heard", None)
    if heard is not None:
        heard.append(response.status_code)


def _textless(response: Any) -> str | None:
    """Why a reply with no text has none, when it says: no choice at all, tool calls in place
    of the text (a server that turns answers into tool calls: vLLM's auto tool choice), a
    content filter. None for a reply that is just empty."""
    choices = getattr(response, "choices", None)
    if not choices:
        return 'answered with no choices (an empty "choices" list): nothing to read'
    message = getattr(choices[0], "message", None)
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        names = ", ".join(str(getattr(getattr(c, "function", None), "name", "?"))
                          for c in calls[:3])
        return (f"answered with tool calls ({names[:120]}) and no text: farm offers the model "
                "no tools and reads the reply's text (is the server's automatic tool choice "
                "on?)")
    finish = str(getattr(choices[0], "finish_reason", "") or "")
    if finish == "content_filter":
        return "answered nothing: its content filter stopped the reply (finish_reason " \
               "content_filter)"
    return None


def _answered(exc: BaseException) -> bool:
    """Whether ``exc`` is an answer that came and could not be used (a 200 whose body is no
    JSON or no completion, one cut at the size cap; litellm says "InternalServerError" of
    both), not an HTTP error status or a connection that failed: the request may have been
    processed, and billed."""
    import httpx
    import openai
    if _in_chain(exc, ReplyTooLarge) is not None:
        return True
    not_served = (openai.APIStatusError, openai.APIConnectionError, httpx.HTTPStatusError,
                  httpx.TransportError)
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        # (litellm's own classes, the mapping, derive from openai's whatever happened)
        if isinstance(cur, not_served) and not type(cur).__module__.startswith("litellm"):
            return False
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return type(exc).__name__ == "InternalServerError"


def _status_line(exc: BaseException) -> str:
    """"504 Gateway Timeout": the status an endpoint answered that litellm raises its Timeout
    for (a 408, a gateway's 504; it said "408" of both)."""
    from http import HTTPStatus
    status = getattr(exc, "status_code", None)
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return "408 Request Timeout" if status is None else str(status)


def _unreachable(exc: BaseException) -> bool:
    """Whether no connection could be made because nothing will answer there: the connection
    was refused, or DNS does not know the host name (not its temporary failure, nor a
    timeout, nor a 5xx: those can pass)."""
    import socket
    if _in_chain(exc, ConnectionRefusedError) is not None:
        return True
    dns = _in_chain(exc, socket.gaierror)
    gone = {getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n)}
    return dns is not None and getattr(dns, "errno", None) in gone


def _in_chain(exc: BaseException,
              kind: type[BaseException] | tuple[type[BaseException], ...]
              ) -> BaseException | None:
    """``exc`` or the first exception of type ``kind`` it was raised from (SDKs wrap)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, kind):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _said(exc: BaseException, base_url: str | None,
          mask: Callable[[str], str] = str, named: bool = False) -> str:
    """What went wrong, once: a connection that failed names the endpoint and the OS's reason
    ("the connection to http://…/v1 failed: [Errno 111] Connection refused"); anything else
    is the error's kind and first line, without litellm's repeated "litellm.X: X: ".
    ``mask`` hides secrets before the text is cut short (no half key is left); ``named``:
    the caller names the endpoint itself ("the connection failed: …")."""
    import json
    import socket

    import httpx
    unreadable = _in_chain(exc, json.JSONDecodeError)
    if unreadable is not None and _answered(exc):
        # litellm says "InternalServerError: OpenAIException - … <APIResponse [200 OK] …>"
        return f"its answer is not JSON ({_short(unreadable, mask)})"
    # a server that closed the connection without an answer (not HTTP: a Redis port, a
    # proxy dropping it) is httpx's RemoteProtocolError; the SDK says "Connection error."
    dropped = _in_chain(exc, httpx.TransportError)
    lost = _in_chain(exc, ConnectionError) or _in_chain(exc, socket.gaierror) or (
        None if isinstance(dropped, httpx.TimeoutException) else dropped)
    if lost is not None and named:
        return f"the connection failed: {_short(lost, mask)}"
    if lost is not None:
        from farm.config import mask_url
        where = mask(mask_url(base_url)) if base_url else "the provider"
        return f"the connection to {where} failed: {_short(lost, mask)}"
    name, text = type(exc).__name__, _short(exc, mask)
    # litellm's own names before what the endpoint said, repeated ("litellm.BadRequestError:
    # ContextWindowExceededError: OpenAIException - This model's maximum context …")
    text = _LITELLM_NAMES.sub("", text)
    if not text:        # a 200 with {"error": …} in it: litellm keeps none of its message
        return f"{name} (it said nothing more)"
    if _BARE_STATUS.match(text):     # what the endpoint said is in the SDK error's body
        said = _body_said(exc, mask)
        text += f" - {said}" if said else ""
    return f"{name}: {text}"


_BARE_STATUS = re.compile(r"^Error code: \d+$")


def _body_said(exc: BaseException, mask: Callable[[str], str]) -> str:
    """What an error answer's body says when it is not OpenAI's ``{"error": {"message"}}``
    (the SDK's message is then "Error code: 503" alone): ``{"detail": "model is loading"}``
    (a FastAPI server), ``{"error": "rate limited"}``, a line of plain text; "" for HTML (a
    proxy's error page) and bodies that say nothing."""
    body, seen, cur = None, set(), exc     # (litellm's own error, first, has no body)
    while body is None and cur is not None and id(cur) not in seen:
        body = getattr(cur, "body", None)
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    if isinstance(body, dict):
        error = body.get("error")
        found = (error.get("message") if isinstance(error, dict) else error) \
            or body.get("detail") or body.get("message")
        body = found if isinstance(found, str) else None
    if not isinstance(body, str) or body.lstrip().startswith("<"):
        return ""
    text = mask(clean(body)).strip()
    return text.splitlines()[0][:200] if text else ""


_LITELLM_NAMES = re.compile(r"^(?:(?:litellm\.)?(?:\w+(?:Error|Exception)|Timeout(?: Error)?)"
                            r"(?::| -)(?: |$))+")


def _short(exc: BaseException, mask: Callable[[str], str] = str) -> str:
    text = _untraced(mask(clean(str(exc))).strip())
    return text.splitlines()[0][:300] if text else ""


_TRACEBACK = "Traceback (most recent call last):"
_RAISED = re.compile(r"^(?:\w+\.)*(\w+(?:Error|Exception|Warning))\b:?\s*(.*)$")


def _untraced(text: str) -> str:
    """``text`` with a Python traceback in it (litellm's "Invalid response object Traceback
    (most recent call last): …" of an answer it cannot read) as the text before it and the
    error the traceback ends in, on one line: the first line said only "Traceback (most
    recent call last):"."""
    head, found, trace = text.partition(_TRACEBACK)
    if not found:
        return text
    lines = trace.splitlines()
    raised = [i for i, line in enumerate(lines) if _RAISED.match(line)]
    if not raised:
        return head.strip() or text
    name, said = _RAISED.match(lines[raised[-1]]).groups()    # type: ignore[union-attr]
    rest = []
    for line in lines[raised[-1] + 1:]:
        if not line.strip() or line.lstrip().startswith("For further information"):
            break
        rest.append(line.strip())
    what = ": ".join(x for x in (said.strip(), *rest) if x)
    return f"{head.strip()} ({name}: {what})" if head.strip() else f"{name}: {what}"


def _masker(base_url: str | None, keys: Sequence[str]) -> Callable[[str], str]:
    """A function that hides ``keys`` and the credentials in ``base_url`` (its password,
    ``api_key=…`` parameters: what `farm.config.mask_url` hides) in a text, as ``***``; also
    %-, JSON-, HTML- or base64-encoded (`farm.suite.vars.Variables.mask`). Besides ``keys``,
    the credentials of the environment (`farm.config.environment_secrets`): litellm sends
    OPENAI_API_KEY & co. itself, so an endpoint may echo a key farm was never given. Values
    shorter than 4 characters are placeholders, not keys: hiding them would garble every
    message."""
    from farm.config import environment_secrets, mask_url, url_secrets
    from farm.suite.vars import Variables
    hidden = [k for k in (*keys, *environment_secrets(), *url_secrets(base_url))
              if len(k) >= 4]
    values = Variables({str(i): v for i, v in enumerate(hidden)}, secrets=map(str, range(
        len(hidden))))

    def mask(text: str) -> str:
        if base_url and base_url in text:
            text = text.replace(base_url, mask_url(base_url))
        return values.mask(text)
    return mask


def _backoff(first: float, attempt: int) -> tuple[float, str]:
    """``first`` doubled per earlier attempt, at most BACKOFF_CAP_S (``first`` itself when
    that is longer), and why. Uncapped, FARM_MODEL_RETRIES=10 waited 256 s before its last try
    (a case ended early: "would not fit in the time left") and 1,000 overflowed (a crash)."""
    ceiling = max(first, BACKOFF_CAP_S)
    delay = first * 2.0 ** min(attempt, 64)     # (2.0 ** 1024 is an OverflowError)
    if delay <= ceiling:
        return delay, "exponential backoff"
    return ceiling, f"exponential backoff, capped at {_secs(ceiling)} s"


def _wait_unless_cancelled(seconds: float, cancel: threading.Event | None) -> bool:
    """Wait ``seconds`` (a retry's backoff); True when ``cancel`` was set meanwhile."""
    if cancel is None:
        time.sleep(seconds)
        return False
    return cancel.wait(seconds)


def _carrying(error: FarmError, usage: Usage, sent: bool) -> FarmError:
    """``error`` with the call's usage (``.usage``) for the step it ends: the call counts
    when a request went out, with its retries and the time it waited."""
    spent = usage.copy()
    spent.calls += 1 if sent else 0
    error.usage = spent        # type: ignore[attr-defined]
    return error


def _retry_after(exc: BaseException) -> float | None:
    """Seconds a 429 / 503 reply asked for in ``retry-after-ms`` or ``Retry-After`` (seconds
    or an HTTP date), or None."""
    if getattr(exc, "status_code", None) not in (429, 503):
        return None
    headers = _headers(exc)
    ms = _wait(headers.get("retry-after-ms"))
    return ms / 1000 if ms is not None else _wait(headers.get("retry-after"))


def _headers(exc: BaseException) -> dict[str, str]:
    """The reply's headers, lower-case names (litellm keeps them on the error)."""
    for source in ("litellm_response_headers", "response"):
        try:
            found = getattr(exc, source, None)
            found = found.headers if source == "response" and found is not None else found
            if found:
                return {str(k).lower(): str(v) for k, v in found.items()}
        except Exception:   # noqa: BLE001 - a provider's odd error object: no headers
            continue
    return {}


def _wait(value: str | None) -> float | None:
    """A Retry-After value in seconds from now (never negative), or None if unreadable."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        from datetime import timezone
        from email.utils import parsedate_to_datetime
        try:
            when = parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = when.timestamp() - time.time()
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def _secs(seconds: float) -> str:
    """Seconds for a message: one decimal ("2.5"), and under 0.1 s its first digit ("0.04":
    FARM_MODEL_TIMEOUT=0.04 "did not answer within 0 s")."""
    if 0 < abs(seconds) < 0.05:
        return f"{seconds:.1g}"
    return f"{round(seconds, 1):g}"
