"""Midscene's model variables, read as farm's model settings when farm's own are not given.

A user coming from Midscene has ``MIDSCENE_MODEL_NAME`` / ``MIDSCENE_MODEL_BASE_URL`` /
``MIDSCENE_MODEL_API_KEY`` / ``MIDSCENE_MODEL_FAMILY`` set (or the older form: the model name
with ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` and a ``MIDSCENE_USE_*`` family switch). Midscene
speaks to every model as an OpenAI-compatible endpoint, so the model becomes litellm's
``openai/<name>``. Pure: `config` decides precedence (any farm setting wins) and says which
were used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from farm.dotenv_lines import dotenv_text, dotenv_values

NAME = "MIDSCENE_MODEL_NAME"
BASE_URLS = ("MIDSCENE_MODEL_BASE_URL", "OPENAI_BASE_URL")
API_KEYS = ("MIDSCENE_MODEL_API_KEY", "OPENAI_API_KEY")
FAMILY = "MIDSCENE_MODEL_FAMILY"

# Midscene's MIDSCENE_MODEL_FAMILY values whose farm family has another name
FAMILIES = {"doubao-vision": "doubao", "doubao-seed": "doubao", "vlm-ui-tars": "ui-tars",
            "vlm-ui-tars-doubao": "ui-tars", "vlm-ui-tars-doubao-1.5": "ui-tars",
            "auto-glm-multilingual": "auto-glm", "qwen3.5": "qwen3-vl", "qwen3.6": "qwen3-vl",
            "gpt-5": "gpt"}
# the older switches (MIDSCENE_USE_QWEN_VL=1): the family each one names
SWITCHES = {"MIDSCENE_USE_QWEN_VL": "qwen2.5-vl", "MIDSCENE_USE_QWEN3_VL": "qwen3-vl",
            "MIDSCENE_USE_DOUBAO_VISION": "doubao", "MIDSCENE_USE_GEMINI": "gemini",
            "MIDSCENE_USE_VLM_UI_TARS": "ui-tars"}
OTHERS = (*BASE_URLS[:1], API_KEYS[0], FAMILY)      # Midscene-only: set without a model name
NAMES = (NAME, FAMILY, *BASE_URLS, *API_KEYS, *SWITCHES)
DOTENV = Path(".env")      # Midscene's CLI reads the working directory's


@dataclass
class MidsceneModel:
    """farm's model settings taken from Midscene's variables: ``values`` by setting name, each
    with the variable it came from; ``warnings`` for what could not be taken."""
    values: dict[str, tuple[str, str]] = field(default_factory=dict)
    warnings: dict[str, str] = field(default_factory=dict)   # by the setting not taken, .env
    name: str = ""          # MIDSCENE_MODEL_NAME as written
    family: str = ""        # the family variable as written (doubao-vision: farm's doubao)


def midscene_model(environ: Mapping[str, str], dotenv: Path | None = None) -> MidsceneModel:
    """What Midscene's variables in ``environ`` set (blank values are unset), and in the
    ``dotenv`` file (``.env``, as Midscene's CLI loads it) those the environment does not."""
    env = {k.upper(): v.strip() for k, v in environ.items() if v and v.strip()}
    read, problem = read_names(dotenv) if dotenv else ({}, "")
    in_file = {n: v for n, v in read.items() if n not in env and v}
    env.update(in_file)
    out = MidsceneModel()
    if problem:
        out.warnings[".env"] = problem   # no setting of its own: said whenever this is read
    if NAME not in env:
        if unused := [n for n in (*OTHERS, *SWITCHES) if n in env]:
            out.warnings["model"] = (f"{', '.join(unused)} set but not {NAME}: farm takes no "
                                     "model from them (set MIDSCENE_MODEL_NAME, or FARM_MODEL)")
        return out
    name = out.name = env[NAME]
    out.values["model"] = (name if name.startswith("openai/") else f"openai/{name}", NAME)
    for setting, names in (("model_base_url", BASE_URLS), ("model_api_key", API_KEYS)):
        if found := next((n for n in names if n in env), None):
            out.values[setting] = (env[found], found)
    family, var = _family(env)
    if family is not None:
        known, problem = _known_family(family)
        if known:
            out.values["model_family"], out.family = (known, var), env[var]
        else:
            out.warnings["model_family"] = (
                f"{var}={env[var]} is no model family farm knows ({problem}); the family is "
                "guessed from the model name: set FARM_MODEL_FAMILY to one farm knows")
    out.values = {k: (v, f"{var} (.env)" if var in in_file else var)
                  for k, (v, var) in out.values.items()}
    return out


def read_names(path: Path) -> tuple[dict[str, str], str]:
    """Midscene's model variables set in the dotenv file ``path`` ({} when there is none), read
    as farm.suite.dotenv reads the whole file (farm.dotenv_lines), and what is wrong with the
    file ("" when nothing is): one that is not UTF-8 gives none, as `farm run` refuses it."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}, ""
    text = dotenv_text(data)
    if text is not None:
        return {n: v for n, v in dotenv_values(text).items() if n in NAMES}, ""
    from farm.text import is_utf16, not_utf8
    said, line = not_utf8(data)
    # the names are ASCII: they read in any encoding but UTF-16's
    names = [n for n in dotenv_values(data.decode("utf-16" if is_utf16(data) else "latin-1",
                                                  "replace")) if n in NAMES]
    return {}, (f"{path}{f':{line}' if line else ''}: {said}; save it as UTF-8 (Midscene's CLI "
                "reads .env as UTF-8 too): farm did not read "
                + (", ".join(names) if names else "Midscene's model variables") + " from it")


def _family(env: Mapping[str, str]) -> tuple[str | None, str]:
    """The family Midscene's variables name, and the variable that names it."""
    if FAMILY in env:
        return env[FAMILY], FAMILY
    for var, family in SWITCHES.items():
        if env.get(var, "").lower() not in ("", "0", "false"):
            # MIDSCENE_USE_VLM_UI_TARS=1.5 is the open-weights UI-TARS-1.5 (pixels)
            return ("ui-tars-1.5" if env[var] == "1.5" else family), var
    return None, FAMILY


def _known_family(value: str) -> tuple[str | None, str]:
    """farm's family for Midscene's ``value``, or None and why not."""
    from farm.llm.families import family_named
    key = value.strip().lower()
    try:
        return family_named(FAMILIES.get(key, key)).name, ""
    except ValueError as exc:
        return None, str(exc).split("; ", 1)[-1]


def told(model: MidsceneModel, shown_url: str | None) -> str:
    """The one line saying which of Midscene's variables farm took (never the key's value):
    ``farm: model from MIDSCENE_MODEL_NAME=qwen3-vl-plus (MIDSCENE_MODEL_BASE_URL https://…,
    MIDSCENE_MODEL_API_KEY, MIDSCENE_MODEL_FAMILY=qwen3-vl): openai/qwen3-vl-plus; …``."""
    vals = model.values
    url, key, family = (vals.get(k) for k in ("model_base_url", "model_api_key", "model_family"))
    extra = [_var(url[1], f" {shown_url}") if url else None, _var(key[1], "") if key else None,
             _var(family[1], f"={model.family}" + (f" (farm's {family[0]})"
                                                   if family[0] != model.family else ""))
             if family else None]
    said = ", ".join(x for x in extra if x)
    return (f"farm: model from {_var(vals['model'][1], '=' + model.name)}"
            + (f" ({said})" if said else "")
            + f": {vals['model'][0]}; FARM_MODEL and FARM_MODEL_* win over them")


def _var(label: str, value: str) -> str:
    """``NAME=value``, ``NAME=value in .env`` for a variable the .env file gave."""
    name, _, where = label.partition(" (")
    return f"{name}{value}" + (" in .env" if where else "")
