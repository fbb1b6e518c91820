"""Settings: one class, resolved flag > env (FARM_*) > farm.toml > [tool.farm] > defaults.

The sources are read here (`configured`), not by pydantic-settings: farm reads three flat
sources, and importing that library cost every `farm` command ~25 ms of CPU. What it did for
farm, this does the same way: environment names are matched case-insensitively; a field with a
``validation_alias`` (AliasChoices) is read from those names, in their order, and every other
field from ``FARM_<NAME>``; a list setting's variable holds JSON (``["--a", "--b"]``) unless
it is a `CommaList`; farm.toml and pyproject.toml are read from the current directory.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping, get_args, get_origin

from pydantic import (AliasChoices, BaseModel, ConfigDict, Field, PrivateAttr, SecretStr,
                      ValidationError, field_validator)

from farm.errors import ConfigError

MAX_RETRIES = 10        # more re-runs than this is a typo, not a policy
MAX_SECONDS = 86400     # a day: any longer timeout is a typo (and overflows thread waits)

ENV_PREFIX = "FARM_"
TOML_FILE = "farm.toml"                 # in the current directory
WDA_SCHEMES = ("http", "https", "http+usbmux")  # what facebook-wda reaches (devices/ios.py)
PYPROJECT_TABLE = ("tool", "farm")      # [tool.farm] of ./pyproject.toml
_UDID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40}")     # a real iPhone's


def usbmux_url(value: str) -> str | None:
    """The WebDriverAgent URL of a USB iPhone whose UDID ``value`` is (``http+usbmux://
    <udid>:8100``: WDA's port on the phone, reached through usbmuxd), or None when ``value``
    is no UDID (where ``http://UDID`` was suggested, which reaches no iPhone)."""
    value = value.strip()
    return f"http+usbmux://{value}:8100" if _UDID.fullmatch(value) else None


class _Raw:
    """Marks a list setting whose environment variable is taken as written (no JSON)."""


# A comma-separated list in the environment (``a,b``), a list in farm.toml.
CommaList = Annotated[list[str], _Raw()]


class Settings(BaseModel):
    """Everything farm can be told. ``farm config show`` prints the resolved values.

    ``Settings(**values)`` resolves like `load_settings`: ``values`` win over the
    environment, farm.toml and [tool.farm] (`configured`); unknown FARM_*
    variables are ignored (a suite may use its own), unknown names in a file are refused."""

    model_config = ConfigDict(
        extra="ignore",
        validate_default=True,
        populate_by_name=True,
        protected_namespaces=(),        # model_* are settings here, not pydantic's methods
        allow_inf_nan=False,    # `inf` / `nan` in farm.toml: an OverflowError deep in a run
    )

    # where each setting not at its default was set (`source`); flags: `load_settings`
    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    def __init__(self, **values: Any) -> None:
        sourced = _sourced(type(self))
        if "model" in values:       # a --model flag: Midscene's variables are not read either
            sourced = {k: v for k, v in sourced.items() if not _is_midscene(v[1])}
        elif "model" not in sourced or _is_midscene(sourced["model"][1]):
            _tell_midscene(sourced)
        super().__init__(**{**{name: value for name, (value, _) in sourced.items()}, **values})
        self._sources = {name: where.removeprefix("env ") for name, (_, where) in sourced.items()
                         if name not in values}

    def source(self, name: str) -> str | None:
        """Where setting ``name`` was set: its flag (``--report-dir``), its variable
        (``FARM_REPORT_DIR``), ``farm.toml`` or ``pyproject.toml [tool.farm]``; None when
        nothing did (its default, or a value given to ``Settings(...)`` in code)."""
        return self._sources.get(name)

    def named(self, name: str) -> str:
        """Setting ``name`` as a message names it, by where it was set: ``--report-dir``,
        ``FARM_REPORT_DIR``, ``farm.toml report_dir`` (``report_dir`` when nothing says)."""
        where = self.source(name)
        if where is None:
            return name
        is_file = where.startswith(TOML_FILE) or where.startswith("pyproject.toml")
        return f"{where} {name}" if is_file else where       # a flag or a variable

    # where run state lives: history, caches, run directories
    state_dir: Path = Path(".farm")
    report_dir: Path | None = None
    results_history_url: str | None = None  # shared results history: a path or redis:// URL
    results_history_keep: int = Field(default=2000, ge=0)  # newest runs it keeps (0: all)
    no_progress: bool = False
    fail_on_skip: bool = False      # a skipped case fails the run (exit 1), as CI may want

    # devices
    chromium_path: Path | None = None       # default: find_chromium (headless shell first)
    headless: bool = True
    screenshots: Literal["all", "on-failure", "off"] = "all"   # report images (farm.evidence)
    browser_args: list[str] = Field(default_factory=list)
    ios_wda_urls: CommaList = Field(default_factory=list)   # WDA endpoints of real iPhones
    android_serial: str | None = Field(      # only this phone of the adb server (adb's own name)
        default=None, validation_alias=AliasChoices("FARM_ANDROID_SERIAL", "ANDROID_SERIAL",
                                                    "android_serial"))
    adb_silence_seconds: float = 30.0  # a runAdbShell without `timeout:` fails after
                                             # this long without output
    device_plugins: CommaList = Field(default_factory=list)  # modules adding device kinds

    # run policy
    default_timeout: float | None = None    # seconds per case without a timeout: of its own
    retries: int | None = None              # test-failure retries; farm.yaml `retries` otherwise
    infra_retries: int = 1                  # re-runs on another device after an infra error
    default_case_seconds: float = 30.0      # expected duration of a case never seen before
    watchdog_grace_seconds: float = 10.0    # past a case's timeout before its device is killed
    keep_runs: int = Field(default=30, ge=0)  # runs kept under <state dir>/runs (0: all)
    secrets_dir: Path | None = None         # one file per secret, named after the variable

    # model (used from the agent issue on)
    model: str | None = None
    model_base_url: str | None = None
    model_api_key: SecretStr | None = None
    model_family: str | None = None         # gpt, qwen3-vl, gemini, ui-tars, auto-glm, ...
    model_timeout: float = 60.0             # seconds per model request
    model_temperature: float = 0.0
    model_retries: int = 2                  # re-sends after 429 / 5xx / timeout / refused
    model_backoff: float = 0.5              # seconds before the first re-send, doubling
    model_max_reply_bytes: int = Field(default=1_000_000, gt=0)   # larger replies: model error
    planning_model: str | None = None       # separate planner (its boxes are then not trusted)
    planning_model_base_url: str | None = None
    planning_model_api_key: SecretStr | None = None
    planning_model_family: str | None = None
    assert_model: str | None = None         # judges aiAssert / aiWaitFor
    assert_model_base_url: str | None = None
    assert_model_api_key: SecretStr | None = None
    assert_model_family: str | None = None
    replanning_cycle_limit: int | None = None   # default per family: 20 / UI-TARS 40 / AutoGLM 100
    max_model_cost: float | None = Field(default=None, gt=0)   # USD a run may spend on models
    max_model_tokens: int | None = Field(default=None, gt=0)   # tokens a run may spend
    max_execution_errors: int = 5           # more than this many failed actions fail an ai step

    # cache (farm.cache): locate / plan entries, so a solved case replays without the model
    cache: str | None = None                # read-write (default) | read-only | write-only | off
    cache_url: SecretStr | None = None      # redis://…: a shared store (cluster default: broker)
    cache_ttl_days: float = Field(default=30.0, gt=0)   # entries unused this long expire

    # locator chain: plan-bbox xpath cache text ocr ai deep-locate, cheapest first
    locate_off: CommaList = Field(default_factory=list)   # tiers switched off, e.g. ocr,ai
    locate_max_scrolls: int = 10            # scrolls/swipes to bring an off-screen match into view

    # cluster
    broker_url: SecretStr | None = Field(   # redis:// or rediss:// → run on `farm worker`s
        default=None, validation_alias=AliasChoices("FARM_BROKER_URL", "CELERY_BROKER_URL",
                                                    "broker_url"))
    cluster_prefix: str = "farm"            # every Redis key and Celery queue key under it
    cluster_max_case_seconds: float = 3600.0   # longest case timeout: sets the visibility timeout
    worker_host: str | None = None          # host part of worker device names (default hostname)
    cluster_infra_retries: int = 2          # cluster runs: re-runs after an infra error
    cluster_device_wait: float = 60.0       # fail a pool's jobs after this long without workers
    cluster_outage_seconds: float = 60.0    # fail the run after the broker is gone this long
    serve_host: str = "127.0.0.1"           # where suite apps are served (0.0.0.0 for workers
    serve_url_host: str | None = None       # elsewhere) and the host name workers should use

    # metrics (farm/metrics.py)
    metrics_port: int = 0                   # farm run: serve /metrics here while running (0 off)
    worker_metrics_port: int = 9464         # farm worker: first device's port, +1 per device
    metrics_host: str = ""                  # address /metrics listens on ("" = all)
    pushgateway_url: str | None = None      # farm run: push metrics here (start, periodic, end)
    pushgateway_timeout: float = 10.0       # seconds each request to the Pushgateway may take
    pushgateway_instance: str | None = None  # the pushed group's instance (default: host name)
    pushgateway_interval: float = 30.0      # farm run: push what it counted so far this often
    metrics_linger_seconds: float = 15.0    # farm run --metrics-port: wait this long at most
                                            # for a scrape to collect the final values

    @field_validator("ios_wda_urls", "device_plugins", "locate_off", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().startswith("["):
            value = _json_list(value)   # FARM_BROWSER_ARGS' form: ["ocr", "ai"] split at
        if isinstance(value, str):      # its commas was '["ocr"' and '"ai"]'
            return [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):     # farm.toml's ["a", ""]: no module named ''
            return [v.strip() if isinstance(v, str) else v for v in value
                    if not (isinstance(v, str) and not v.strip())]
        return value

    @field_validator("pushgateway_instance")
    @classmethod
    def _instance(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None     # "": the host name

    @field_validator("ios_wda_urls")
    @classmethod
    def _wda_urls(cls, value: list[str]) -> list[str]:
        """A WDA URL whose port no connection can use (``:99999``) stopped `farm run` with an
        internal error (a ValueError from a device's names) once the run had started."""
        from urllib.parse import urlsplit
        for url in value:
            if "://" not in url:    # found once the device was built: a "1 error" run report
                shown = _masked_value(url)              # (u:pw@host:8100 masked as a URL)
                raise ValueError(f"{shown} has no scheme: a USB iPhone's UDID is reached "
                                 f"through usbmuxd: write {usbmux_url(url)}"
                                 if usbmux_url(url) else
                                 f"{shown} has no scheme: write http://{shown} (or "
                                 "http+usbmux://<udid>:8100 for a USB iPhone)")
            scheme = url.split("://", 1)[0]     # (as devices/ios.py compares it)
            if scheme not in WDA_SCHEMES:
                raise ValueError(f"{mask_url(url)}: farm's WebDriverAgent client speaks "
                                 f"{', '.join(WDA_SCHEMES)}, not {scheme}")
            try:
                urlsplit(url).port
            except ValueError as exc:
                shown = mask_url(url)       # (*** when it cannot be parsed)
                if "ort" in str(exc):
                    raise ValueError(f"{shown} has a port that is not a number from 1 to "
                                     "65535") from None
                raise ValueError(f"{'an entry' if shown == '***' else shown} is not a usable URL "
                                 f"({exc})") from None
        return value

    @field_validator("locate_off")
    @classmethod
    def _tier_names(cls, value: list[str]) -> list[str]:
        if not value:       # the usual case: no need to import the locator (farm devices, …)
            return value
        from farm.agent.locator import TIER_NAMES
        unknown = [name for name in value if name not in TIER_NAMES]
        if unknown:
            raise ValueError(f"unknown locate tier {', '.join(unknown)}; the tiers are "
                             f"{', '.join(TIER_NAMES)}")
        return value

    @field_validator("model_family", "planning_model_family", "assert_model_family")
    @classmethod
    def _family(cls, value: str | None) -> str | None:
        if value:       # a typo ('qwen3vl') would only be found out on a device, mid-run
            from farm.llm.families import family_named
            family_named(value)
        return value

    @field_validator("broker_url")
    @classmethod
    def _redis_only(cls, value: SecretStr | None) -> SecretStr | None:
        raw = value.get_secret_value() if value is not None else ""
        if raw.startswith("unix://"):       # redis-py takes it; Celery's kombu has no such
            raise ValueError("the broker is a Redis URL (redis:// or rediss://): Celery "
                             "cannot use a Redis unix socket (unix://); give its TCP port")
        if raw and not raw.startswith(("redis://", "rediss://")):
            scheme = raw.split("://", 1)[0] if "://" in raw else "no scheme"
            raise ValueError(f"the broker is a Redis URL (redis:// or rediss://), got {scheme}")
        problem = redis_url_problem(raw)
        if problem:
            raise ValueError(f"the broker URL {problem}")
        return value

    @field_validator("pushgateway_url")
    @classmethod
    def _gateway(cls, value: str | None) -> str | None:
        """``host:9091`` is prometheus_client's own form (http by default): taken so, where
        farm's push read ``host`` as a URL scheme and only warned, after the run."""
        if not value or not value.strip():
            return None
        value = value.strip()
        if "://" not in value:
            value = "http://" + value
        from urllib.parse import urlsplit
        parts = urlsplit(value)
        if parts.scheme.lower() not in ("http", "https"):
            raise ValueError(f"a Pushgateway is an http:// or https:// URL, got {parts.scheme}")
        _port_and_host(parts, "http://HOST:9091")
        _gateway_url_whole(value, parts)
        return value

    @field_validator("model_base_url", "planning_model_base_url", "assert_model_base_url")
    @classmethod
    def _model_url(cls, value: str | None) -> str | None:
        """An OpenAI-compatible endpoint: ``localhost:11434/v1`` (no scheme) or a port past
        65535 failed every model call of the run, three attempts each, and ended its cases as
        infrastructure errors (exit 3), where nothing could have worked."""
        if not value or not value.strip():
            return None
        from urllib.parse import urlsplit
        parts = urlsplit(value.strip())
        if "://" not in value:
            raise ValueError("has no http:// or https:// before the host: give "
                             f"{mask_url('http://' + value.strip())}")
        if parts.scheme.lower() not in ("http", "https"):
            raise ValueError(f"is the model's http:// or https:// URL, got {parts.scheme}://")
        _port_and_host(parts, "http://HOST:PORT/v1")
        return value.strip()

    @field_validator("results_history_url")
    @classmethod
    def _history(cls, value: str | None) -> str | None:
        """A path or a Redis URL: ``http://…`` or ``postgres://…`` was taken as a path, a
        SQLite file made under ./http:/ (the password in a folder name), never shared."""
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", value or "")
        if scheme and scheme[1].lower() not in ("redis", "rediss", "unix"):
            raise ValueError("is a file path or a Redis URL (redis://, rediss://), got "
                             f"{scheme[1]}://")
        problem = redis_url_problem(value or "")
        if problem:
            raise ValueError(f"the results history's URL {problem}")
        return value

    @field_validator("serve_host", "serve_url_host")
    @classmethod
    def _host(cls, value: str | None) -> str | None:
        """A host, as the app URL is built from it (``http://HOST:PORT``): a URL here made
        ``http://http://10.0.0.5:PORT``, which workers failed to open case after case."""
        if value and ("/" in value or " " in value.strip()):
            raise ValueError("is a host name or address (10.0.0.5, build-host.lan), not a URL "
                             "or path")
        return value.strip() if value else value

    @field_validator("cache")
    @classmethod
    def _cache_mode(cls, value: str | None) -> str | None:
        modes = ("read-write", "read-only", "write-only", "off")
        if value is not None and value not in modes:
            raise ValueError(f"must be one of {', '.join(modes)}, got {value!r}")
        return value

    @field_validator("cache_url")
    @classmethod
    def _cache_redis(cls, value: SecretStr | None) -> SecretStr | None:
        raw = value.get_secret_value() if value is not None else ""
        if raw and not raw.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("the shared cache is a Redis URL (redis:// or rediss://)")
        problem = redis_url_problem(raw)
        if problem:
            raise ValueError(f"the shared cache's URL {problem}")
        return value

    @field_validator("infra_retries", "cluster_infra_retries", "retries", "model_retries")
    @classmethod
    def _retries(cls, value: int | None) -> int | None:
        """At most MAX_RETRIES: more is a typo (FARM_MODEL_RETRIES=100000 was taken, and one
        model call could have re-sent for days)."""
        if value is not None and not 0 <= value <= MAX_RETRIES:
            raise ValueError(f"must be between 0 and {MAX_RETRIES}")
        return value

    @field_validator("max_execution_errors", "locate_max_scrolls")
    @classmethod
    def _count(cls, value: int) -> int:
        """At most 1000: FARM_LOCATE_MAX_SCROLLS=100000 was taken, and a locate swiped to its
        step's end; more is a typo."""
        if not 0 <= value <= 1000:
            raise ValueError("must be between 0 and 1000")
        return value

    @field_validator("model_temperature")
    @classmethod
    def _temperature(cls, value: float) -> float:
        """Sampling temperature, 0 to 2 as OpenAI's API takes it: 5 was taken, and every model
        call of the run was then refused by the endpoint (400), case by case."""
        if not 0 <= value <= 2:
            raise ValueError("must be between 0 and 2")
        return value

    @field_validator("model_backoff")
    @classmethod
    def _backoff(cls, value: float) -> float:
        """Waited before a re-send: a negative one failed the re-send with a traceback."""
        if not 0 <= value <= MAX_SECONDS:
            raise ValueError(f"must be between 0 and {MAX_SECONDS} seconds")
        return value

    @field_validator("replanning_cycle_limit")
    @classmethod
    def _cycles(cls, value: int | None) -> int | None:
        """As a case's agent.replanningCycleLimit: -1 failed every ai step at once, 0 was
        the family's limit without a word."""
        if value is not None and not 1 <= value <= 1000:
            raise ValueError("must be between 1 and 1000")
        return value

    @field_validator("metrics_port", "worker_metrics_port")
    @classmethod
    def _port(cls, value: int) -> int:
        if not 0 <= value <= 65535:
            raise ValueError("must be a TCP port (1-65535), or 0 for off")
        return value

    @field_validator("metrics_linger_seconds", "pushgateway_interval")
    @classmethod
    def _linger(cls, value: float) -> float:
        if not 0 <= value <= MAX_SECONDS:
            raise ValueError(f"must be between 0 and {MAX_SECONDS} seconds")
        return value

    @field_validator("default_timeout", "model_timeout", "default_case_seconds",
                     "watchdog_grace_seconds", "pushgateway_timeout",
                     "cluster_max_case_seconds", "cluster_device_wait", "cluster_outage_seconds",
                     "adb_silence_seconds")
    @classmethod
    def _positive(cls, value: float | None) -> float | None:
        if value is not None and not 0 < value <= MAX_SECONDS:
            raise ValueError(f"must be more than 0 and at most {MAX_SECONDS} seconds")
        return value

    def masked(self) -> dict[str, Any]:
        """Resolved values with secrets replaced by ``***``; in every URL a setting holds,
        the password and every query value are hidden (`mask_url`'s ``every_value``: Azure
        Functions takes its key as ``?code=``), the host and path kept."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                raw = value.get_secret_value()
                value = _masked_value(raw) if name.endswith("_url") else ("***" if raw else "")
            elif isinstance(value, str) and name.endswith("_url"):
                value = _masked_value(value)
            elif isinstance(value, list) and name.endswith("_urls"):
                value = [_masked_value(v) for v in value]
            elif isinstance(value, str):            # a URL inside any other text, too
                value = mask_urls_in(value, every_value=True)
            elif isinstance(value, list):           # browser_args' --proxy-server=http://u:pw@…
                value = [mask_urls_in(v, every_value=True) if isinstance(v, str) else v
                         for v in value]
            elif isinstance(value, Path):
                value = str(value)
            out[name] = value
        return out


# What is in force for a setting nothing sets (None), as `farm config show` prints it.
_WHEN_UNSET = {
    "report_dir": "{state_dir}/runs/<run-id> (default)",
    "results_history_url": "{state_dir}/results.sqlite (default; the broker's Redis with a "
                           "broker)",
    "chromium_path": "(not set: found when a run starts, headless shell first, /usr/bin/chromium "
                     "with FARM_HEADLESS=false; `farm devices` shows which)",
    "metrics_host": "(not set: all addresses)",
    "default_timeout": "(not set: each case's timeout:, else its farm.yaml's, else 300)",
    "retries": "(not set: each case's retries:, else its farm.yaml's, else 0)",
    "replanning_cycle_limit": "(not set: the model family's: 20, UI-TARS 40, AutoGLM 100)",
    "cache": "read-write (default; a case's own agent.cache when it has one)",
    "cache_url": "(not set: {state_dir}/cache.db, or the broker's Redis with a broker)",
    "worker_host": "(not set: this machine's host name)",
}


def in_force(settings: Settings) -> dict[str, Any]:
    """`Settings.masked`, with each setting nothing set (None) given as what is in force then
    (``cache  read-write (default; …)``) or ``(not set)``: what `farm config show` prints."""
    out = settings.masked()
    for name, value in out.items():
        if value is None or (value == "" and name == "metrics_host"):
            out[name] = _WHEN_UNSET.get(name, "(not set)").format(state_dir=out["state_dir"])
    for role in ("", "planning_", "assert_"):      # the family farm reads the model's answers as
        model = getattr(settings, f"{role}model")
        if model and settings.model and getattr(settings, f"{role}model_family") is None:
            from farm.llm.families import family_for
            out[f"{role}model_family"] = (f"(not set: {family_for(None, model).name}, guessed "
                                          f"from the model name {model!r})")
        if model and settings.model and getattr(settings, f"{role}model_api_key") is None:
            out[f"{role}model_api_key"] = _key_in_force(settings, role, model)
    return out


def _key_in_force(settings: Settings, role: str, model: str) -> str:
    """What a model's key is when its own setting is unset: the main model's (a planning or
    assert model), else the provider's own variable (``OPENAI_API_KEY`` for ``openai/…``),
    which the model's calls read: "(not set)" sent a user whose key was refused looking for
    the wrong thing."""
    if role and settings.model_api_key is not None:
        return "(not set: model_api_key's is used: ***)"
    found = provider_key(model.split("/", 1)[0]) if "/" in model else None
    if found is None:
        return "(not set)"
    return f"(not set: {found[0]}, the provider's own variable, is used: ***)"


def unread_above(here: Path | None = None) -> Path | None:
    """The nearest farm.toml (or pyproject.toml with a [tool.farm]) in a folder above the
    working directory when the working directory has neither: farm reads only the working
    directory's, so `farm config show` run from a sub-folder said "set nowhere" with no word
    of it."""
    here = Path.cwd() if here is None else here
    if (here / TOML_FILE).is_file() or _has_farm_table(here / "pyproject.toml"):
        return None
    for folder in here.parents:
        if (folder / TOML_FILE).is_file():
            return folder / TOML_FILE
        if _has_farm_table(folder / "pyproject.toml"):
            return folder / "pyproject.toml"
    return None


def _has_farm_table(path: Path) -> bool:
    try:
        return re.search(r"^\s*\[\s*tool\s*\.\s*farm\b", path.read_text(encoding="utf-8"),
                         re.MULTILINE) is not None
    except (OSError, ValueError):
        return False


def places(cls: type[BaseModel] = Settings) -> dict[str, list[str]]:
    """Every place that sets each setting some place sets, the one in force first: its
    variable(s), then ``farm.toml:LINE``, then ``pyproject.toml [tool.farm]:LINE`` (what
    `farm config show` lists under "where set", so a value farm.toml shadows is seen)."""
    env = {key.lower() for key, value in os.environ.items() if value.strip()}   # blank: unset
    found: dict[str, list[str]] = {}
    for name, field in cls.model_fields.items():
        names = list(dict.fromkeys(n.upper() for n in _env_names(name, field)
                                   if n.lower() in env))
        if names:
            found[name] = names
    for path, table in ((Path(TOML_FILE), ()), (Path("pyproject.toml"), PYPROJECT_TABLE)):
        values = _from_toml(cls, path, table)
        if not values:
            continue
        lines = _key_lines(path.read_text(encoding="utf-8"), table)
        for name, field in cls.model_fields.items():
            if name in values:
                keys = (name, *(_env_names(name, field) if field.validation_alias else []))
                line = next((lines[k] for k in keys if k in lines), None)
                found.setdefault(name, []).append(_file_label(path, table, line))
    if "model" in cls.model_fields and "model" not in found:    # Midscene's, under farm's
        for name, (_, var) in _midscene().values.items():
            var, _, in_file = var.partition(" (")     # "MIDSCENE_MODEL_NAME (.env)"
            found.setdefault(name, []).append(f"{'.env ' if in_file else ''}{var} (Midscene's "
                                              "variable)")
    return found


_KEY = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""       # a TOML key: bare or quoted


def _key_lines(text: str, table: tuple[str, ...]) -> dict[str, int]:
    """The line of each ``key = …`` of ``table`` (top level for ``()``) in a TOML text: under
    its ``[a.b]`` header, as a dotted key (``farm.retries = 2`` under ``[tool]``) or inside an
    inline table (``farm = {retries = 2}``: TOML keeps one on a single line, which every key
    in it is said to be on)."""
    lines: dict[str, int] = {}
    current: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"\s*\[\[?([^\[\]]+)\]\]?\s*(#.*)?$", line)
        key = None if header else re.match(rf"\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*=(.*)$", line)
        if header:
            current = _key_path(header.group(1)) or ("[",)      # ("[",): none of ours
            path = current
        else:
            path = (*current, *_key_path(key.group(1))) if key else ()
        if not path or path[:len(table)] != table[:len(path)]:
            continue
        if len(path) > len(table):          # a key of the table, or a [table.sub] header
            lines.setdefault(path[len(table)], number)
        elif key and key.group(2).lstrip().startswith("{"):   # the table, or one holding it
            for name in _inline_keys(key.group(2), table[len(path):]):
                lines.setdefault(name, number)
    return lines


def _key_path(text: str) -> tuple[str, ...]:
    """``tool."farm" . retries`` -> ("tool", "farm", "retries")."""
    parts = re.findall(r"""\s*([A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*(?:\.|$)""", text)
    return tuple(part.strip("\"'") for part in parts)


def _inline_keys(value: str, inside: tuple[str, ...]) -> list[str]:
    """The keys of the inline table ``value`` (the rest of its line) at ``inside`` in it."""
    import tomllib
    try:
        found: Any = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return []
    for part in inside:
        found = found.get(part) if isinstance(found, dict) else None
    return list(found) if isinstance(found, dict) else []


def configured(cls: type[BaseModel] = Settings) -> dict[str, Any]:
    """What the environment, farm.toml and [tool.farm] set, by field name (the environment
    first, then farm.toml, then pyproject.toml). A broken file or a list variable that is not
    JSON raises ValueError naming it."""
    return {name: value for name, (value, _) in _sourced(cls).items()}


def _sourced(cls: type[BaseModel]) -> dict[str, tuple[Any, str]]:
    """`configured`, each value with where it was set: ``env FARM_RETRIES``, ``farm.toml``,
    ``pyproject.toml [tool.farm]``."""
    found = {name: (value, f"env {var}") for name, (value, var)
             in _from_environment(cls).items()}
    for path, table in ((Path(TOML_FILE), ()), (Path("pyproject.toml"), PYPROJECT_TABLE)):
        values = _from_toml(cls, path, table)
        lines = _key_lines(path.read_text(encoding="utf-8"), table) if values else {}
        for name, value in values.items():
            field = cls.model_fields[name]
            keys = (name, *(_env_names(name, field) if field.validation_alias else []))
            line = next((lines[k] for k in keys if k in lines), None)
            found.setdefault(name, (value, _file_label(path, table, line)))
    if "model" in cls.model_fields and "model" not in found:    # farm's own settings win
        for name, (value, var) in _midscene().values.items():
            found.setdefault(name, (value, f"env {var}"))
    return found


def _midscene() -> Any:
    """Midscene's model variables in the environment (`farm.midscene_env`)."""
    from farm.midscene_env import DOTENV, midscene_model
    return midscene_model(os.environ, DOTENV)


def _is_midscene(where: str) -> bool:
    """Whether a setting's source is one of Midscene's variables (not farm's own)."""
    from farm.midscene_env import NAMES
    return where.removeprefix("env ").removesuffix(" (.env)") in NAMES


_TOLD: set[str] = set()     # what this process said on stderr about Midscene's variables


def _tell_midscene(sourced: dict[str, tuple[Any, str]]) -> None:
    """With no farm model setting: say once, on stderr, which of Midscene's variables gave the
    model (never the key) and what could not be taken from them (an unknown family)."""
    import sys

    from farm.midscene_env import told
    found = _midscene()
    # a farm setting that won over one of them (FARM_MODEL_BASE_URL): only what is in force
    found.values = {k: v for k, v in found.values.items()
                    if sourced.get(k, (None, ""))[1] == f"env {v[1]}"}
    url = found.values.get("model_base_url")
    lines = [told(found, _masked_value(url[0]) if url else None)] if found.values else []
    lines += [f"farm: warning: {text}" for name, text in found.warnings.items()
              if name not in sourced]
    for line in lines:
        if line not in _TOLD:
            _TOLD.add(line)
            print(line, file=sys.stderr)


def _file_label(path: Path, table: tuple[str, ...] = (), line: int | None = None) -> str:
    """``farm.toml``, ``pyproject.toml [tool.farm]``; with a line, ``farm.toml:3``,
    ``pyproject.toml:7 [tool.farm]`` (file:line first, as editors and terminals read it)."""
    at = f"{path}:{line}" if line else str(path)
    return f"{at} [{'.'.join(table)}]" if table else at


def _env_names(name: str, field: Any) -> list[str]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    return [ENV_PREFIX + name]


def _json_from_env(field: Any) -> bool:
    """A list / dict setting (not a `CommaList`): its variable holds JSON."""
    if any(isinstance(m, _Raw) for m in field.metadata):
        return False
    kinds = [field.annotation, *get_args(field.annotation)]
    return any(get_origin(k) in (list, dict, set, tuple) for k in kinds)


def _from_environment(cls: type[BaseModel]) -> dict[str, tuple[Any, str]]:
    """(value, the variable it came from) by field name. A variable set to nothing (or
    blanks) is not set: `FARM_NO_PROGRESS=` or compose's `${FARM_MODEL:-}` leave the default.
    Values are stripped: a docker --env-file or a secret file keeps a trailing blank or newline,
    and ``FARM_STATE_DIR=/data `` made a directory named "data " ("gpt-4o\n" no model)."""
    env = {key.lower(): value.strip() for key, value in os.environ.items() if value.strip()}
    values: dict[str, tuple[Any, str]] = {}
    for name, field in cls.model_fields.items():
        found = next(((n, env[n.lower()]) for n in _env_names(name, field) if n.lower() in env),
                     None)
        if found is None:
            continue
        var, value = found
        if _json_from_env(field):
            try:
                value = json.loads(value)
            except ValueError:
                raise ValueError(f"environment variable {var.upper()}: setting {name!r} is "
                                 "a list, written as JSON (e.g. [\"a\", \"b\"]), got "
                                 f"{mask_urls_in(value)!r}") from None   # a proxy's password
        values[name] = (value, var.upper())
    return values


def _from_toml(cls: type[BaseModel], path: Path,
               table: tuple[str, ...] = ()) -> dict[str, Any]:
    """The settings of ``path`` (of its ``table``), by field name; a name may also be one of
    the field's aliases. {} when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}): save it as "
                         "UTF-8") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if table and table[-1] not in text:    # a project's pyproject.toml without [tool.farm]
        return {}
    import tomllib
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:     # "… (at line 3, column 11)": file:line:col first
        at = re.search(r"^(.*) \(at line (\d+), column (\d+)\)$", str(exc))
        said = f"{path}:{at[2]}:{at[3]}: {at[1]}" if at else f"{path}: {exc}"
        raise ValueError(said) from None
    for key in table:
        data = data.get(key, {}) if isinstance(data, dict) else {}
    if not isinstance(data, dict):
        return {}
    values: dict[str, Any] = {}
    known: set[str] = set()
    for name, field in cls.model_fields.items():
        aliases = _env_names(name, field) if field.validation_alias is not None else []
        known.update((name, *aliases))
        for key in (name, *aliases):
            if key in data:     # blank is not set, as in the environment (`report_dir = ""`
                if not (isinstance(data[key], str) and not data[key].strip()):    # was ".")
                    values[name] = data[key]
                break
    _refuse_unknown(path, table, data, known)
    return values


# `farm run` flags that are no setting: in farm.toml, said so, not taken for a setting's typo.
RUN_FLAGS_ONLY = {"devices", "maxfail", "exitfirst", "shard", "shard_timings", "tag",
                  "exclude_tag", "last_failed", "junit_xml", "alluredir", "collect_only",
                  "matrix", "overwrite"}


def _refuse_unknown(path: Path, table: tuple[str, ...], data: dict[str, Any],
                    known: set[str]) -> None:
    """A name no setting has (``retires = 3``) would be ignored without a word: refuse it,
    with the nearest real name. (Not "see `farm config show`": it reads this file too.)"""
    unknown = sorted(key for key in data if key not in known or isinstance(data[key], dict))
    if not unknown:
        return
    names = sorted(n for n in known if n.islower())
    text = path.read_text(encoding="utf-8")
    lines = _key_lines(text, table)
    said: list[tuple[int, str]] = []
    for key in unknown:
        line = lines.get(key)   # its key, [section] header or inline table: `_key_lines`
        if key.replace("-", "_") in RUN_FLAGS_ONLY:    # not "did you mean device_plugins"
            hint = (f"{key!r} (--{key.replace('_', '-')} is a flag of `farm run`, given on "
                    "the command line each run, not a setting)")
        elif isinstance(data[key], dict):     # a [section]: farm's settings have none
            hint = _table_hint(path, table, key, data[key], names)
        else:
            near = nearest_setting(key, names)
            hint = f"{key!r}" + (f" (did you mean {near!r}?)" if near else "")
        what = "setting" if key in known else "unknown setting"    # [model]: model's table
        said.append((line or 0, f"{_file_label(path, table, line)}: {what} {hint}"))
    raise ValueError("; ".join(text for _, text in sorted(said)))


def _table_hint(path: Path, table: tuple[str, ...], key: str, value: dict[str, Any],
                names: list[str]) -> str:
    """What is wrong with a table among the settings: ``[tool.farm]`` copied into farm.toml,
    or any ``[section]`` (farm's settings are plain keys, none nested); with the plain keys
    its own keys are (``[model]`` with ``name``, ``base_url``: ``model``, ``model_base_url``),
    as pydantic's "Input should be a valid string" for ``[model]`` said nothing of that."""
    where = "farm.toml" if not table else "[tool.farm]"
    if not table and key == "tool" and "farm" in value:
        return ("'tool' ([tool.farm] is pyproject.toml's table: in farm.toml write its "
                "settings at the top, without a [section])")
    flat = [f"{key}_{sub}" for sub in value if f"{key}_{sub}" in names]
    if key in names and len(flat) < len(value):
        flat.insert(0, key)
    write = f": write {', '.join(f'{name} = …' for name in flat)}" if flat else ""
    return (f"{key!r} (a [{'.'.join((*table, key))}] table: {where}'s settings are plain "
            f"keys, none in a section{write})")


# Words a setting's name is given with that add nothing to it (FARM_CACHE_MODE for FARM_CACHE).
VALUE_WORDS = {"mode", "name", "id", "value", "count", "level", "enabled", "setting", "policy"}
# a first word other tools put before a setting's name (FARM_MAX_RETRIES, FARM_CASE_TIMEOUT)
QUALIFIER_WORDS = {"max", "case", "test"}


def nearest_setting(key: str, names: list[str], typo_only: bool = False) -> str | None:
    """The setting a name no setting has most likely meant: the one whose command-line flag it
    is (``timeout``: ``--timeout`` is default_timeout), else the closest name. ``typo_only``:
    only a name a slip of the keyboard away (at most two letters wrong, or the start of just
    one setting) -- the environment holds other programs' FARM_ variables too."""
    import difflib
    key = key.lower()
    by_flag = {flag[2:].replace("-", "_"): name for name, flag in FLAG_OF.items()}
    if by_flag.get(key) in names:
        return by_flag[key]
    first, _, rest = key.partition("_")     # FARM_MAX_RETRIES, FARM_CASE_TIMEOUT: one word more
    if first in QUALIFIER_WORDS and (by_flag.get(rest) or rest) in names:
        return by_flag.get(rest) or rest
    named, _, word = key.rpartition("_")    # FARM_CACHE_MODE, model_name: the setting itself
    if named in names and word in VALUE_WORDS:
        return named
    close = difflib.get_close_matches(key, names, n=1)
    if not typo_only:
        return close[0] if close else None
    if close and (_slips(key, close[0]) <= 2 or _singular(key) == _singular(close[0])):
        return close[0]
    starts = [n for n in names if n.startswith(key + "_")]
    if len(key) >= 5 and len(starts) == 1:
        return starts[0]
    # a middle word left out (FARM_MODEL_KEY, FARM_MODEL_URL: the model's key and base URL
    # went unread); not a first one (FARM_BASE_URL may be a suite's own variable)
    words = key.split("_")
    within = [n for n in names if len(words) >= 2 and n.split("_")[0] == words[0]
              and n.split("_")[-1] == words[-1] and _holds(n.split("_"), words)]
    return within[0] if len(within) == 1 and within[0].count("_") == key.count("_") + 1 \
        else None


def _holds(words: list[str], part: list[str]) -> bool:
    """``part`` is ``words`` with some of them left out, in order."""
    rest = iter(words)
    return all(word in rest for word in part)


def _singular(name: str) -> str:
    """``retries`` → ``retry``, ``keep_runs`` → ``keep_run``: FARM_RETRY is the setting
    FARM_RETRIES in the singular, three letters away but no other program's variable."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name.removesuffix("s")


def _slips(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: letters added, dropped, changed or swapped with the next."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb)))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def misspelt_variables(cls: type[BaseModel] = Settings,
                       environ: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each FARM_* variable no setting reads that looks like a setting's name
    misspelt (``FARM_RETRYS`` for FARM_RETRIES): it would be ignored without a word. Other
    FARM_* names (a suite's own ``FARM_DEMO_URL``) are left alone."""
    env = os.environ if environ is None else environ
    read = {n.upper() for name, field in cls.model_fields.items()
            for n in _env_names(name, field)}
    names = list(cls.model_fields)
    said = []
    for var in sorted(v.upper() for v in env):
        if not var.startswith(ENV_PREFIX) or var in read:
            continue
        flag = var[len(ENV_PREFIX):].lower()
        if flag in RUN_FLAGS_ONLY:      # FARM_DEVICES=browser:4 in a CI job: ran on browser:1
            said.append(f"{var} is not a farm setting and is ignored (--{flag.replace('_', '-')}"
                        " is a flag of `farm run`: give it on the command line)")
            continue
        near = nearest_setting(flag, names, typo_only=True)
        if near is not None:
            said.append(f"{var} is not a farm setting and is ignored (did you mean "
                        f"{_env_names(near, cls.model_fields[near])[0].upper()}?)")
    return said


# Query (or fragment) parameters whose values are credentials: api_key, access_token, sig,
# Azure Functions' code, ...
_CREDENTIAL_KEY = re.compile(r"key|token|secret|passw|pwd|sig|auth|credential|session|jwt"
                             r"|\bcode\b", re.IGNORECASE)


def mask_url(url: str, every_value: bool = False) -> str:
    """A URL with what would let someone in replaced by ``***``, the rest kept for debugging:
    ``redis://:pw@host:6379/0`` → ``redis://:***@host:6379/0``,
    ``https://u:pw@h/v1?api_key=k&x=1`` → ``https://u:***@h/v1?api_key=***&x=1``.
    ``every_value``: every query and fragment parameter's value hidden (``?api_key=***&x=***``),
    for a URL a setting holds: a gateway may take its key under any name, and the value is
    the user's own (the host and path say which it is)."""
    from urllib.parse import unquote_plus, urlsplit
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"

    def hide(params: str) -> str:
        out = []
        for param in re.split(r"([&;])", params):
            key, eq, value = param.partition("=")
            if eq and value and (every_value or _CREDENTIAL_KEY.search(unquote_plus(key))):
                param = f"{key}=***"
            out.append(param)
        return "".join(out)

    # Edit the text in place (urlunsplit would rewrite e.g. ``unix:///path`` as ``unix:/path``).
    # The password ends at the last "@": one with an "@", "/" or "#" not percent-encoded
    # ('redis://:p@ss/w#rd@host') is hidden whole, though urlsplit reads the host as "ss".
    scheme, sep, rest = url.partition("://")
    userinfo, at, hostport = rest.rpartition("@")
    if sep and at and ":" in userinfo:    # keep the user name and the host exactly as written
        url = f"{scheme}://{userinfo.split(':', 1)[0]}:***@{hostport}"
        parts = urlsplit(url)
    if parts.query:
        head, _, rest = url.partition("?")
        url = f"{head}?{hide(parts.query)}{rest[len(parts.query):]}"
    if parts.fragment:
        url = f"{url.partition('#')[0]}#{hide(parts.fragment)}"
    return url


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")


def mask_urls_in(text: str, every_value: bool = False) -> str:
    """``text`` with every URL in it masked as `mask_url` masks one (a Chromium flag
    ``--proxy-server=http://user:pw@proxy:3128`` keeps all but the password)."""
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0), every_value), text)


def _port_and_host(parts: Any, example: str) -> None:
    """An http(s) URL setting (split by urlsplit) a request can use: a port from 1 to 65535
    (urlsplit refuses others only when asked), and a host."""
    try:
        parts.port
    except ValueError:
        raise ValueError("has a port that is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ValueError(f"names no host ({example})")


def _gateway_url_whole(url: str, parts: Any) -> None:
    """What else keeps a push from being sent, found before the run, not after it as
    Python's own words with exit 0 ("could not push metrics to http://not a url: URL can't
    contain control characters"): a space or control character, a host no name or address
    can be, a query or fragment (the push appends /metrics/job/... to the URL)."""
    import ipaddress
    bad = next((c for c in url if ord(c) <= 0x20 or ord(c) == 0x7f), None)
    if bad is not None:
        what = "a space" if bad == " " else f"a control character ({bad!r})"
        raise ValueError(f"has {what} in it (a URL has none: http://HOST:9091)")
    host = parts.hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            ascii_host = ""
        if not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?", ascii_host):
            raise ValueError(f"names a host that cannot be one: {host!r} (a host is a name "
                             "of letters, digits, '-' and '.', or an IP address)") from None
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        raise ValueError("has a query or fragment (?... or #...): the push adds "
                         "/metrics/job/... to the URL; give http://HOST:9091[/PATH]")
    path = parts.path.rstrip("/")
    if path == "/metrics" or path.endswith("/metrics") or "/metrics/" in path:
        base = url.split("/metrics", 1)[0]
        raise ValueError(f"has a /metrics path: give the Pushgateway's base URL, without /metrics "
                         f"({mask_url(base)}; the push adds /metrics/job/...)")


def _json_list(text: str) -> list[str]:
    """A list setting written as JSON (``["ocr", "ai"]``), as FARM_BROWSER_ARGS is."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("is a comma-separated list (a,b) or a JSON list of strings "
                         '(["a", "b"])')
    return value


def redis_url_problem(url: str) -> str | None:
    """What is wrong with the Redis URL ``url`` (worded to follow "the broker URL"), or None.
    Caught here, before a client sees it: redis-py and Celery's kombu read a bad URL
    differently (a DB "x" is 0 to one and an error to the other; an unknown query parameter an
    internal error of redis-py), and a password's "@" or "/" not percent-encoded sends the
    connection to a host named after part of the password."""
    from urllib.parse import urlsplit
    if not url.startswith(("redis://", "rediss://")):
        return None
    parts = urlsplit(url)
    if "@" in parts.path or "@" in parts.query or parts.fragment:
        return ("has an '@', '/' or '#' in its password: percent-encode them "
                "(@ → %40, / → %2F, # → %23)")
    try:
        parts.port
    except ValueError:
        return "has a port that is not a number from 1 to 65535"
    db = parts.path.strip("/")
    if db and not db.isdigit():
        return f"names database {db!r}: a Redis database is a number (redis://host:6379/0)"
    return None


# Environment variables whose values are credentials though farm was never given them: the
# keys provider SDKs read themselves (OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_API_KEY, ...),
# tokens, passwords. An endpoint may echo one back, so they are masked like farm's own keys.
# (a name that is only the word counts too: PASSWORD, TOKEN; DB_PASS, SMTP_PWD, FTP_PASSWD,
# LOGIN_PASSPHRASE, GCP_CREDENTIALS as well; but not the shell's PWD, the working directory)
_SECRET_VARIABLE = re.compile(r"(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE"
                              r"|CREDENTIALS?)$|_(?:KEY|PASS|PWD)$", re.IGNORECASE)
MIN_SECRET_CHARS = 8     # a shorter value ("1", "true") is a flag: hiding it garbles messages


def secret_chars(value: str) -> int:
    """``value``'s length as MIN_SECRET_CHARS counts it: a wide character (Chinese, Japanese,
    Korean: East Asian Width W or F) as 2, so a password of 4 such characters ("芝麻开门")
    reaches 8, as a Latin one of 8 letters does."""
    import unicodedata
    value = value.strip()
    if value.isascii():
        return len(value)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in value)


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the variables in ``environ`` (default ``os.environ``) whose names mark a
    credential (`is_credential`), of MIN_SECRET_CHARS characters or more: what every message,
    log line and output hides as ``***``."""
    env = os.environ if environ is None else environ
    return [value.strip() for name, value in env.items() if is_credential(name, value)]


def model_keys(settings: "Settings") -> dict[str, str]:
    """farm's own model keys, by their variable, wherever they were set (environment,
    farm.toml, flags): hidden in every output at any length from 4 characters on (a short key
    of a local endpoint is still the key; shorter values are placeholders such as "x"), where
    other credential-named variables need MIN_SECRET_CHARS."""
    keys = {}
    for role in ("", "planning_", "assert_"):
        key = getattr(settings, f"{role}model_api_key")
        value = key.get_secret_value().strip() if key is not None else ""
        if len(value) >= 4:
            keys[f"FARM_{role.upper()}MODEL_API_KEY"] = value
        # an endpoint's password, and the basic-auth header's base64 of it (not ${}-names)
        url = getattr(settings, f"{role}model_base_url")
        for i, value in enumerate(v for v in url_secrets(url) if len(v) >= 4):
            keys[f"FARM_{role.upper()}MODEL_BASE_URL:{i}"] = value
    return keys


def url_secrets(url: str | None) -> list[str]:
    """The values `mask_url` replaces in ``url`` (as written and %-decoded)."""
    from urllib.parse import unquote_plus, urlsplit

    if not url:
        return []
    try:
        parts, masked = urlsplit(url), urlsplit(mask_url(url))
    except ValueError:
        return [url]
    found = [parts.password or ""]
    if parts.password:      # httpx sends it as basic auth: base64("user:password") in a header
        found += basic_auth_values(parts.username or "", parts.password)
    for field in ("query", "fragment"):
        for raw, hid in zip(re.split("[&;]", getattr(parts, field)),
                            re.split("[&;]", getattr(masked, field))):
            if raw != hid:
                found.append(raw.partition("=")[2])
    return [s for v in found if v for s in dict.fromkeys((v, unquote_plus(v)))]


def basic_auth_values(user: str, password: str) -> list[str]:
    """The base64 of ``user:password`` as a basic-auth header carries it (as written and
    %-decoded): a decodable copy of the password an endpoint may echo."""
    from base64 import b64encode
    from urllib.parse import unquote
    pairs = dict.fromkeys((f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"))
    return [b64encode(pair.encode()).decode() for pair in pairs]


def is_credential(name: str, value: str) -> bool:
    """A variable whose name marks a credential (``…_KEY``, ``_TOKEN``, ``_SECRET``,
    ``_PASSWORD``, ``_PASS``, ``_PWD``, ``_CREDENTIALS``, ...) and whose value is long enough to
    be one (`secret_chars`): hidden wherever it shows."""
    return credential_name(name) and secret_chars(value) >= MIN_SECRET_CHARS


def credential_name(name: str) -> bool:
    """Whether ``name`` marks a credential (`is_credential` without the value)."""
    return bool(_SECRET_VARIABLE.search(name))


def provider_key(provider: str) -> tuple[str, str] | None:
    """(variable, key) of the key a provider's SDK reads itself (``OPENAI_API_KEY`` for
    ``openai``), None when that variable is unset or empty."""
    name = f"{provider.upper()}_API_KEY"
    value = os.environ.get(name, "").strip()
    return (name, value) if value else None


# The command-line flag of a setting, where it is not --<setting-name> (farm/cli.py)
FLAG_OF = {"default_timeout": "--timeout", "broker_url": "--broker",
           "pushgateway_url": "--pushgateway", "worker_metrics_port": "--metrics-port"}


def flag_of(name: str) -> str:
    """The command-line flag of setting ``name`` (``--timeout`` for default_timeout)."""
    return FLAG_OF.get(name, "--" + name.replace("_", "-"))


def load_settings(**flags: Any) -> Settings:
    """Build Settings; ``flags`` (CLI options) win over everything. Unset flags are ignored."""
    given = {k: v for k, v in flags.items() if v is not None}
    try:
        settings = Settings(**given)
        settings._sources.update({name: flag_of(name) for name in given})
        return settings
    except ValidationError as exc:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(
            _invalid(exc, given))) from None
    except (ValueError, OSError) as exc:  # broken farm.toml / pyproject.toml
        raise ConfigError(f"cannot read configuration: {exc}") from None


def _invalid(exc: ValidationError, given: dict[str, Any]) -> list[str]:
    """A line per bad value, blamed on where it was set: the flag (with its value, secrets
    masked), the environment variable, farm.toml or [tool.farm]."""
    sources = _sourced(Settings)
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        name = str(err["loc"][0]) if err["loc"] else ""
        if name in given:     # the command line said it
            flag = flag_of(name)
            value = given[name]
            shown = (_masked_value(str(value)) if name.endswith("_url") else
                     "***" if "key" in name or "secret" in name else value)
            lines.append(f"{flag} {shown}: {msg}")
        elif name in sources and (takes := _not_a_number(name, err, sources[name][1])):
            lines.append(f"setting {loc!r} ({sources[name][1]}): {takes}")
        elif name in sources:
            lines.append(f"setting {loc!r} ({sources[name][1]}): {msg}{_got(name, err, msg)}")
        else:
            env = "FARM_" + "__".join(str(p) for p in err["loc"]).upper()
            lines.append(f"setting {loc!r} (env {env}, farm.toml or [tool.farm]): {msg}")
    return lines


# Settings in seconds (a number): `default_timeout = "90s"` read pydantic's "unable to parse
# string as a number"; `--timeout` and farm.yaml's `timeout:` take a duration.
_SECONDS = {"default_timeout", "model_timeout", "default_case_seconds", "watchdog_grace_seconds",
            "pushgateway_timeout", "pushgateway_interval", "cluster_max_case_seconds",
            "cluster_device_wait", "cluster_outage_seconds", "adb_silence_seconds",
            "model_backoff", "metrics_linger_seconds"}
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?")


def _not_a_number(name: str, err: Any, where: str) -> str:
    """For a numeric setting given text it cannot read as a number: what it takes, written as
    where it was set writes it (``default_timeout = 90`` or ``FARM_DEFAULT_TIMEOUT=90``); a
    duration (90s, 5m) as its seconds. "" for any other error."""
    value = err.get("input")
    if err.get("type") not in ("float_parsing", "int_parsing") or not isinstance(value, str):
        return ""
    whole = err["type"] == "int_parsing"
    text = value.strip().lower().replace(" ", "")
    parts = _DURATION.fullmatch(text) if text else None
    seconds = (sum(float(n or 0) * k for n, k in zip(parts.groups(), (3600, 60, 1)))
               if name in _SECONDS and parts and any(parts.groups()) else None)
    example = f"{seconds:g}" if seconds else "2" if whole else "60" if name in _SECONDS else "0.5"
    written = (f"{where.removeprefix('env ').split(' ')[0]}={example}"
               if where.startswith("env ") else f"{name} = {example}")
    what = ("seconds as a number" if name in _SECONDS else
            "a whole number" if whole else "a number")
    also = ("; --timeout and farm.yaml's timeout: take a duration such as 90s"
            if name == "default_timeout" else "")
    return f"{value!r} is not a number: it takes {what} ({written}){also}"


def _masked_value(url: str) -> str:
    """A URL setting's value as `mask_url` shows it, every query value hidden; one written
    without its scheme too (``:pw@redis:6379/0``, ``user:pw@localhost:11434/v1``): its
    password was printed whole."""
    if "://" in url:
        return mask_url(url, every_value=True)
    return mask_url("x://" + url, every_value=True).removeprefix("x://")


def _got(name: str, err: Any, msg: str) -> str:
    """``, got 'three'``: the value a setting refused, unless the message quotes it already or
    it may be a secret (a key, a token, a password; a URL's password masked)."""
    value = err.get("input")
    if value is None or isinstance(value, (dict, list)) or re.search(
            r"key|secret|token|password", name):
        return ""
    if name.endswith("_urls") and isinstance(value, str):   # (its message names the URL)
        return ""
    shown = _masked_value(str(value)) if name.endswith("_url") else value
    quoted = re.search(rf"(?<![\w.-]){re.escape(str(shown))}(?![\w.])", msg)
    said = quoted or (isinstance(shown, str) and repr(shown) in msg)   # not the 0 of '1000'
    if said:
        return ""
    # "…, got http" (a scheme) or pydantic's "got a number with…": not a second "got"
    return f": {shown!r}" if re.search(r"\bgot\b", msg) else f", got {shown!r}"
