"""What stops a model configuration before anything is sent (no network): a model name whose
provider litellm cannot tell (``gpt4-typo``, ``nosuchprov/foo``), no model name after the
provider (``openai/``), and a provider that needs an API key when none is set anywhere.

`farm run` checks its models before any device starts (`farm.llm.models.check_models`: a
ConfigError, exit 4); a client built from such settings anyway (a `farm worker`'s) refuses
every call with ModelMisconfigured and sends nothing, so no call is counted.
"""

from __future__ import annotations

from typing import Any

EXAMPLES = ("write it as provider/model (openai/gpt-4o, gemini/gemini-2.5-flash; openai/<name> "
            "for an OpenAI-compatible server at FARM_MODEL_BASE_URL)")


def provider_of(lib: Any, model: str, base_url: str | None) -> str | None:
    """The litellm provider serving ``model`` (``openai``, ``gemini``, ...), None if it
    cannot tell (litellm then refuses the call without sending it)."""
    try:
        return lib.get_llm_provider(model, api_base=base_url)[1] or None
    except Exception:   # noqa: BLE001 - litellm's BadRequestError "LLM Provider NOT provided"
        return None


def config_problem(lib: Any, model: str, base_url: str | None, has_key: bool,
                   key_setting: str) -> str | None:
    """What is wrong with these settings, as a text that starts with the model's name, or
    None. ``has_key``: an API key was configured (``key_setting`` names where it goes). A
    base URL needs no key (farm sends a placeholder to key-less servers); the provider's own
    variable (``OPENAI_API_KEY``) is a key, as litellm reads it."""
    from farm.config import provider_key
    prefix, slash, name = model.partition("/")
    if slash and prefix and not name.strip():     # litellm sends model "" (or " ") as asked
        return f"{model}: no model name after {prefix}/: {EXAMPLES}"
    provider = provider_of(lib, model, base_url)
    if provider is None:
        return f"{model}: litellm cannot tell which provider serves it: {EXAMPLES}"
    if has_key and url_password(base_url):
        from farm.config import mask_url
        return (f"{model}: its base URL {mask_url(base_url or '')} carries a user:password and "
                f"{key_setting} is set too: a request has one Authorization header, so farm "
                "would send the password (basic auth) and never the key: remove the "
                "user:password@ from the URL (a key taken as Bearer) or unset the key (an "
                "endpoint behind basic auth)")
    if has_key or base_url or provider_key(provider) is not None:
        return None
    variable = f"{provider.upper()}_API_KEY"
    try:
        missing = lib.validate_environment(model).get("missing_keys") or []
    except Exception:   # noqa: BLE001 - litellm cannot say: the provider will
        return None
    if variable not in missing:     # a provider that takes no key, or another kind of login
        return None
    return f"{model} needs an API key and none is set: set {key_setting} (or {variable})"


def url_password(url: str | None) -> bool:
    """``url`` carries a password (``https://user:pw@host/v1``)."""
    from urllib.parse import urlsplit
    try:
        return bool(url and urlsplit(url).password)
    except ValueError:
        return False
