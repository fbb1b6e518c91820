"""Case and Step: what a suite file becomes after loading and validation.

Strings inside steps stay *templates* (``${NAME}`` placeholders intact); they are resolved on
the device at execution time (`farm.suite.vars.Variables.resolve`), so secrets never reach
results, logs, caches or models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Platform = Literal["web", "android", "ios"]

# Every flow-step kind farm understands.  Value = what the kind's main value means.
STEP_KINDS: dict[str, str] = {
    # zero-token (work without a model)
    "aiTap": "target",
    "aiHover": "target",
    "aiInput": "target",
    "aiKeyboardPress": "key",
    "aiScroll": "target",
    "sleep": "ms",
    "javascript": "code",
    "assertText": "text",
    "assertNoText": "text",
    "waitForText": "text",
    # need a model
    "ai": "task",
    "aiAct": "task",
    "aiAction": "task",
    "aiAssert": "assertion",
    "aiWaitFor": "assertion",
    "aiQuery": "query",
    "aiBoolean": "query",
    "aiNumber": "query",
    "aiString": "query",
    "aiLocate": "target",
    # platform specific
    "runAdbShell": "command",
    "runWdaRequest": "request",
}

# Step kinds that always need a model, whatever the page looks like.
MODEL_STEP_KINDS = frozenset(
    {"ai", "aiAct", "aiAction", "aiAssert", "aiWaitFor", "aiQuery", "aiBoolean", "aiNumber",
     "aiString", "aiLocate"}
)

# Keys allowed beside a step's kind key, per kind ("*" applies to every kind).
STEP_OPTIONS: dict[str, set[str]] = {
    "*": {"name", "timeout", "cacheable"},
    # deepThink: Midscene's deprecated name for deepLocate on locate options (loaded as deepLocate)
    "aiTap": {"xpath", "deepLocate", "deepThink"},
    "aiHover": {"xpath", "deepLocate", "deepThink"},
    "aiInput": {"xpath", "deepLocate", "deepThink", "value", "locate", "mode"},
    "aiKeyboardPress": {"xpath", "deepLocate", "deepThink", "keyName", "locate"},
    "aiScroll": {"xpath", "deepLocate", "deepThink", "direction", "scrollType", "distance",
                 "locate"},
    "aiLocate": {"xpath", "deepLocate", "deepThink"},
    "aiAssert": {"errorMessage"},
    "aiWaitFor": {"checkIntervalMs"},
    "ai": {"deepThink"},
    "aiAct": {"deepThink"},
    "aiAction": {"deepThink"},
}


class Step(BaseModel):
    """One flow item. ``target`` is a locate prompt; ``value`` the kind's payload."""

    model_config = ConfigDict(frozen=True)

    kind: str
    target: str | None = None
    value: str | None = None
    xpath: str | None = None
    timeout_ms: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    line: int = 0
    column: int = 0

    @property
    def needs_model(self) -> bool:
        return self.kind in MODEL_STEP_KINDS

    @property
    def label(self) -> str:
        """Short human description, with placeholders (never secret values)."""
        main = self.target if self.target is not None else self.value
        text = f"{self.kind}"
        if main is not None:
            text += f" {main!r}" if not isinstance(main, str) else f' "{main}"'
        if self.kind == "aiInput" and self.value is not None:
            text += f' = "{self.value}"'
        if self.kind in {"aiKeyboardPress"} and self.target and self.value:
            text = f'{self.kind} "{self.value}" on "{self.target}"'
        return text


class Task(BaseModel):
    """A named group of steps (one step group in the report)."""

    name: str
    continue_on_error: bool = False
    steps: list[Step]


class WebTarget(BaseModel):
    url: str
    viewport_width: int = 1280
    viewport_height: int = 800
    user_agent: str | None = None
    device_scale_factor: float | None = None


class AndroidTarget(BaseModel):
    device_id: str | None = None
    launch: str | None = None


class IosTarget(BaseModel):
    launch: str | None = None


class AppSpec(BaseModel):
    """An app the suite serves or installs (``apps:`` in farm.yaml)."""

    name: str
    serve: Path | None = None      # directory served over loopback HTTP for the run
    env: str | None = None         # variable that receives the served URL
    android: str | None = None     # package name on Android
    ios: str | None = None         # bundle id on iOS


class SuiteDefaults(BaseModel):
    """``farm.yaml`` at a suite's root."""

    timeout: float = 300.0          # seconds per case
    retries: int = 0                # re-runs after a test failure
    tags: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    vars: dict[str, str] = Field(default_factory=dict)
    apps: list[AppSpec] = Field(default_factory=list)


class Case(BaseModel):
    """One case = one ``*.yaml`` file = one device session."""

    id: str                         # "<suite>/<relative path without .yaml>"
    name: str
    file: Path
    suite_root: Path
    platform: Platform
    web: WebTarget | None = None
    android: AndroidTarget | None = None
    ios: IosTarget | None = None
    tasks: list[Task]
    timeout: float = 300.0
    retries: int = 0
    tags: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    vars: dict[str, str] = Field(default_factory=dict)   # suite/case defaults for ${NAME}
    agent: dict[str, Any] = Field(default_factory=dict)   # Midscene ``agent:`` section, kept

    @property
    def steps(self) -> list[Step]:
        return [s for t in self.tasks for s in t.steps]

    def model_step(self) -> Step | None:
        """The first step that needs a model, if any."""
        return next((s for s in self.steps if s.needs_model), None)


class Suite(BaseModel):
    root: Path
    defaults: SuiteDefaults
    cases: list[Case]
