"""The model clients one run uses: planning, locating, judging assertions.

Built from Settings: FARM_MODEL_* is the default for all three; FARM_PLANNING_MODEL_* and
FARM_ASSERT_MODEL_* override one role each. With a separate planning model the planner's boxes
are not trusted as locate results (the locate model finds elements). `check_models` refuses
settings that cannot work (farm.llm.preflight) before a run starts any device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from farm.llm.client import ModelClient
from farm.llm.families import Family, family_for, family_named

if TYPE_CHECKING:
    from farm.config import Settings


@dataclass
class ModelSet:
    plan: ModelClient
    locate: ModelClient
    judge: ModelClient
    planner_locates: bool = True

    @property
    def plan_family(self) -> Family:
        return family_for(self.plan.family, self.plan.name)

    @property
    def locate_family(self) -> Family:
        return family_for(self.locate.family, self.locate.name)

    @classmethod
    def single(cls, client: ModelClient) -> "ModelSet":
        return cls(client, client, client, True)


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


def configured_families(settings: "Settings") -> set[str]:
    """The families of the configured models (none without FARM_MODEL)."""
    if not settings.model:
        return set()
    pairs = [(settings.model_family, settings.model),
             (settings.planning_model_family, settings.planning_model),
             (settings.assert_model_family, settings.assert_model)]
    return {family_for(f, m).name for f, m in pairs if m}


@dataclass(frozen=True)
class _Role:
    """One configured model: where its settings come from and what they resolve to."""
    setting: str                # FARM_MODEL, FARM_PLANNING_MODEL, FARM_ASSERT_MODEL
    named: str                  # the model as a message names it: where it was set (--model)
    model: str
    base_url: str | None
    api_key: str | None
    family: str | None
    key_setting: str            # what a missing or refused key names


def _roles(settings: "Settings") -> dict[str, _Role]:
    """The configured models by role ("" main, "PLANNING_", "ASSERT_"): a role's own settings,
    else the main model's base URL and key; none without FARM_MODEL."""
    if not settings.model:
        return {}
    roles = {"": _Role("FARM_MODEL", _named(settings, "model"), settings.model,
                       settings.model_base_url,
                       _secret(settings.model_api_key), settings.model_family,
                       _key_named(settings))}
    for role in ("PLANNING_", "ASSERT_"):
        prefix = role.lower()
        model = getattr(settings, f"{prefix}model")
        if not model:
            continue
        own_key = getattr(settings, f"{prefix}model_api_key")
        roles[role] = _Role(f"FARM_{role}MODEL", _named(settings, f"{prefix}model"), model,
                            getattr(settings, f"{prefix}model_base_url")
                            or settings.model_base_url,
                            _secret(own_key or settings.model_api_key),
                            getattr(settings, f"{prefix}model_family"),
                            _named(settings, f"{prefix}model_api_key") if own_key is not None
                            else f"FARM_{role}MODEL_API_KEY or {_key_named(settings)}")
    return roles


def check_models(settings: "Settings", say: Callable[[str], None] | None = None) -> None:
    """ConfigError (exit 4) for configured models that cannot work: a family farm does not
    know (Settings refuses one too; settings copied with another may skip that), a name whose
    provider litellm cannot tell, a provider that needs an API key with none set
    (farm.llm.preflight), a cost budget over a model litellm cannot price
    (`unpriced_cost_budget`). No request is sent: run it before any device starts. ``say``
    tells a wait for litellm's import (`farm.llm.litellm_client._await_import`)."""
    roles = _roles(settings)
    if not roles:
        return
    from farm.errors import ConfigError
    families = [f"{r.setting}_FAMILY={r.family}: {exc}" for r in roles.values()
                if r.family and (exc := _unknown_family(r.family)) is not None]
    if families:
        raise ConfigError("\n".join(families))
    from farm.llm.litellm_client import _litellm
    from farm.llm.preflight import config_problem
    lib = _litellm(say)
    problems = [f"{r.named}={problem}" for r in roles.values()
                if (problem := config_problem(lib, r.model, r.base_url, bool(r.api_key),
                                              r.key_setting)) is not None]
    if problems:
        raise ConfigError("\n".join(dict.fromkeys(problems)))
    unenforceable = unpriced_cost_budget(settings, lib)
    if unenforceable:
        raise ConfigError(unenforceable)


def unpriced_cost_budget(settings: "Settings", lib: Any) -> str | None:
    """Why the run's cost budget (--max-model-cost) cannot hold, or None: a configured model
    litellm's cost map has no price for would count $0 a call, and the run would spend
    without limit. None too when a token budget is also set (--max-model-tokens holds for
    every call; the cost one counts the priced calls, and the run's end says so)."""
    if settings.max_model_cost is None or settings.max_model_tokens is not None:
        return None
    unpriced = [f"{r.model} ({r.named})" for r in _roles(settings).values()
                if not _priced(lib, r.model)]
    if not unpriced:
        return None
    cost = settings.named("max_model_cost") if settings.source("max_model_cost") \
        else "--max-model-cost"
    limit = f"{settings.max_model_cost:g}"
    return (f"{cost} {limit} cannot be enforced: litellm's cost map has no price for "
            f"{', '.join(dict.fromkeys(unpriced))}, so its calls would count $0 and the run "
            "would spend without limit. Give a token budget as well (--max-model-tokens N, "
            "FARM_MAX_MODEL_TOKENS: it counts every call, and the cost budget then counts the "
            "priced calls), or leave out the cost budget")


def _priced(lib: Any, model: str) -> bool:
    """Whether litellm's cost map prices ``model``."""
    try:
        lib.cost_per_token(model=model, prompt_tokens=1, completion_tokens=1)
    except Exception:    # noqa: BLE001 - litellm's "This model isn't mapped yet"
        return False
    return True


def _named(settings: "Settings", name: str) -> str:
    """Model setting ``name`` as an error names it: where it was set (``--model``,
    ``farm.toml model``), its variable when nothing says (a value given in code)."""
    return settings.named(name) if settings.source(name) else f"FARM_{name.upper()}"


def _key_named(settings: "Settings") -> str:
    """The main model's API key as an error names it: where it was set (``FARM_MODEL_API_KEY``,
    ``MIDSCENE_MODEL_API_KEY in .env``, ``farm.toml model_api_key``); with none set, the
    variable beside the model's own: Midscene's for a model Midscene's variables gave."""
    from farm.midscene_env import API_KEYS, NAME
    if settings.source("model_api_key"):
        return settings.named("model_api_key").replace(" (.env)", " in .env")
    model = settings.source("model") or ""
    if model.partition(" (")[0] == NAME:
        return API_KEYS[0] + (" in .env" if model != NAME else "")
    return "FARM_MODEL_API_KEY"


def _unknown_family(name: str) -> ValueError | None:
    try:
        family_named(name)
    except ValueError as exc:
        return exc
    return None


def build_models(settings: "Settings") -> ModelSet | None:
    """LiteLLM clients for the configured models, or None when FARM_MODEL is unset."""
    roles = _roles(settings)
    if not roles:
        return None
    from farm.llm.litellm_client import LiteLLMClient
    # Every client hides every model key in what it says (an endpoint may echo any of them).
    keys = [k for k in (_secret(settings.model_api_key), _secret(settings.planning_model_api_key),
                        _secret(settings.assert_model_api_key)) if k]

    def client(role: _Role) -> LiteLLMClient:
        fam = family_for(role.family, role.model)
        return LiteLLMClient(role.model, base_url=role.base_url, api_key=role.api_key,
                             family=fam.name, timeout=settings.model_timeout,
                             temperature=settings.model_temperature,
                             retries=settings.model_retries, backoff=settings.model_backoff,
                             max_reply_bytes=settings.model_max_reply_bytes, secrets=keys,
                             key_setting=role.key_setting)

    main = client(roles[""])
    plan = client(roles["PLANNING_"]) if "PLANNING_" in roles else main
    judge = client(roles["ASSERT_"]) if "ASSERT_" in roles else main
    return ModelSet(plan=plan, locate=main, judge=judge, planner_locates=plan is main)
