"""farm: a distributed device-farm test orchestrator.

Public API: ``Agent``, ``Settings``, ``load_settings``, ``load_suites``, ``run``. Everything else
may move.
Heavy modules (Playwright, litellm) are imported lazily.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Agent", "Settings", "load_settings", "load_suites", "run", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("Settings", "load_settings"):
        from farm import config
        return getattr(config, name)
    if name == "load_suites":
        from farm.suite.loader import load_suites
        return load_suites
    if name == "Agent":
        from farm.agent.api import Agent
        return Agent
    if name == "run":
        from farm.session import run
        return run
    raise AttributeError(name)
