"""The model clients one run uses: planning, locating, judging assertions.

Built from Settings: FARM_MODEL_* is the default for all three; FARM_PLANNING_MODEL_* and
FARM_ASSERT_MODEL_* override one role each. With a separate planning model the planner's boxes
are not trusted as locate results (the locate model finds elements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from farm.llm.client import ModelClient
from farm.llm.families import Family, family_for

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


def build_models(settings: "Settings") -> ModelSet | None:
    """LiteLLM clients for the configured models, or None when FARM_MODEL is unset."""
    if not settings.model:
        return None
    from farm.llm.litellm_client import LiteLLMClient
    # Every client hides every model key in what it says (an endpoint may echo any of them).
    keys = [k for k in (_secret(settings.model_api_key), _secret(settings.planning_model_api_key),
                        _secret(settings.assert_model_api_key)) if k]

    def client(model: str, base: str | None, key: Any, family: str | None,
               role: str = "") -> LiteLLMClient:
        fam = family_for(family, model)
        own = getattr(settings, f"{role.lower()}model_api_key") is not None
        return LiteLLMClient(model, base_url=base, api_key=_secret(key), family=fam.name,
                             timeout=settings.model_timeout,
                             temperature=settings.model_temperature,
                             retries=settings.model_retries, backoff=settings.model_backoff,
                             max_reply_bytes=settings.model_max_reply_bytes, secrets=keys,
                             key_setting=f"FARM_{role}MODEL_API_KEY" if own or not role
                             else f"FARM_{role}MODEL_API_KEY or FARM_MODEL_API_KEY")

    main = client(settings.model, settings.model_base_url, settings.model_api_key,
                  settings.model_family)
    plan = main
    if settings.planning_model:
        plan = client(settings.planning_model,
                      settings.planning_model_base_url or settings.model_base_url,
                      settings.planning_model_api_key or settings.model_api_key,
                      settings.planning_model_family, "PLANNING_")
    judge = main
    if settings.assert_model:
        judge = client(settings.assert_model,
                       settings.assert_model_base_url or settings.model_base_url,
                       settings.assert_model_api_key or settings.model_api_key,
                       settings.assert_model_family, "ASSERT_")
    return ModelSet(plan=plan, locate=main, judge=judge, planner_locates=plan is main)
