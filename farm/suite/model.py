"""Case and Step: what a suite file becomes after loading and validation.

Strings inside steps stay *templates* (``${NAME}`` placeholders intact); they are resolved on
the device at execution time (`farm.suite.vars.Variables.resolve`), so secrets never reach
results, logs, caches or models. Names (the case's, a task's, a step's) are substituted when the
suite loads, from variables that are not secret (`farm.suite.checks.Problems.name`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from farm.suite.kinds import KINDS, StepKind

Platform = Literal["web", "android", "ios"]
LOCATE_OPTIONS_OF_GESTURES = ("from", "to", "start", "end")


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

    @field_validator("kind")
    @classmethod
    def _known(cls, kind: str) -> str:
        if kind not in KINDS:
            raise ValueError(f"unknown step kind {kind!r}")
        return kind

    @property
    def spec(self) -> StepKind:
        """What farm knows about this step's kind (farm.suite.kinds)."""
        return KINDS[self.kind]

    @property
    def needs_model(self) -> bool:
        return self.spec.needs_model

    def action_params(self) -> dict[str, Any]:
        """The parameters of the action this step runs, as a model would plan them (templates
        intact: ``${NAME}`` is resolved on the device)."""
        spec = self.spec
        params = {k: self.options[k] for k in spec.passes if self.options.get(k) is not None}
        if spec.value_param and self.value is not None:
            params[spec.value_param] = self.value
        if self.timeout_ms and spec.action == "RunAdbShell":
            params["timeoutMs"] = self.timeout_ms
        deep = bool(self.options.get("deepLocate"))
        if self.target or self.xpath:
            where = "start" if spec.shape == "swipe" else "locate"
            params[where] = {"prompt": self.target or "", "xpath": self.xpath,
                             "deepLocate": deep}
            if self.options.get("images"):     # a {prompt, images} target
                params[where]["images"] = self.options["images"]
        for name in LOCATE_OPTIONS_OF_GESTURES:     # aiDragAndDrop from/to, aiSwipe start/end
            if self.options.get(name):
                params[name] = {"prompt": self.options[name], "deepLocate": deep}
        return params

    @property
    def label(self) -> str:
        """Short human description, with placeholders (never secret values)."""
        main = self.target if self.target is not None else self.value
        text = f"{self.kind}"
        if main is not None:
            text += f" {main!r}" if not isinstance(main, str) else f' "{main}"'
        shape = self.spec.shape
        if self.kind == "sleep" and main is not None:   # sleep 1500 ms (was sleep "1500")
            text = f"sleep {main} ms"
        if shape == "input" and self.value is not None:
            text += f' = "{self.value}"'
        if shape == "drag":
            text = f'{self.kind} "{self.options.get("from")}" -> "{self.options.get("to")}"'
        if shape == "key" and self.target and self.value:
            text = f'{self.kind} "{self.value}" on "{self.target}"'
        if shape == "swipe":        # aiSwipe up, distance 400 from "the list"
            text = self._swipe_label()
        if shape == "scroll":       # aiScroll down, untilBottom on "Results"
            how = [str(self.options.get("direction") or "down")]
            kind = self.options.get("scrollType")
            if kind and kind not in ("singleAction", "once"):
                how.append(str(kind))
            if self.options.get("distance") is not None:
                how.append(f'distance {self.options["distance"]}')
            text = f"{self.kind} {', '.join(how)}"
            if self.target:
                text += f' on "{self.target}"'
        return text

    def _swipe_label(self) -> str:
        """aiSwipe from "the card" to "the bin"; aiSwipe left, distance 300, 3 times from "X"
        (no direction is up, as the swipe runs)."""
        start = self.target or self.options.get("start")
        end = self.options.get("end")
        repeat = self.options.get("repeat")
        times = f", {repeat} times" if repeat not in (None, 1) else ""
        if end:
            where = f'from "{start}" to "{end}"' if start else f'to "{end}"'
            return f"{self.kind} {where}{times}"
        how = [str(self.options.get("direction") or "up")]
        if self.options.get("distance") is not None:
            how.append(f'distance {self.options["distance"]}')
        text = f"{self.kind} {', '.join(how)}{times}"
        return text + (f' from "{start}"' if start else "")


class Task(BaseModel):
    """A named group of steps (one step group in the report)."""

    name: str
    continue_on_error: bool = False
    steps: list[Step]


class WebTarget(BaseModel):
    """``page:`` / ``browser:`` / ``web:`` (farm.suite.targets): what each field does is what
    Midscene's docs say of its key."""

    url: str
    mode: Literal["page", "browser"] = "page"
    viewport_width: int = 1280
    viewport_height: int = 800
    user_agent: str | None = None
    device_scale_factor: float | None = None
    serve: Path | None = None               # folder served for the case; url is relative to it
    cookies: list[dict[str, Any]] = Field(default_factory=list)   # from the `cookie:` file
    extra_http_headers: dict[str, str] = Field(default_factory=dict)
    accept_insecure_certs: bool = False
    chrome_args: list[str] = Field(default_factory=list)
    network_idle_ms: int | None = None      # waitForNetworkIdle.timeout (None: no waiting)
    network_idle_continue: bool = True      # waitForNetworkIdle.continueOnNetworkIdleError
    same_tab: bool = True                   # forceSameTabNavigation (page agents)
    follow_new_pages: bool = False          # autoFollowNewPage (browser agents)
    # farm's own: what an alert / confirm / prompt the page opens is answered with (Cancel, as
    # Playwright does, or OK: a prompt then gets its default text)
    dialogs: Literal["dismiss", "accept"] = "dismiss"
    # what the page is told of its user (farm.suite.web_emulation; Playwright's names)
    permissions: list[str] = Field(default_factory=list)     # granted for every origin
    geolocation: dict[str, float] | None = None     # latitude, longitude, accuracy?
    locale: str | None = None
    timezone_id: str | None = None
    color_scheme: Literal["light", "dark", "no-preference"] | None = None


class AndroidTarget(BaseModel):
    device_id: str | None = None
    launch: str | None = None
    ime_strategy: str | None = None         # always-yadb: every text through the IME
    auto_dismiss_keyboard: bool = True      # as Midscene: hide the keyboard after aiInput
    keyboard_dismiss_strategy: str = "esc-first"    # or back-first: the key tried first


class IosTarget(BaseModel):
    launch: str | None = None
    auto_dismiss_keyboard: bool = True      # as Midscene: hide the keyboard after aiInput
    wda_port: int | None = None
    wda_host: str | None = None


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
    cache_key: str | None = None    # ``cache: {key: …}``: the app version cache entries belong to
    exclude: list[str] = Field(default_factory=list)   # globs of YAML files that are no cases


class Shared(BaseModel):
    """A case's place in a Midscene batch with ``shareBrowserContext: true``."""

    batch: str                          # the batch file, as displayed (names the unit)
    unit_id: str                        # the id of the unit the case runs in
    order: int                          # 0-based place in the batch (setup first)
    setup: bool = False                 # the batch's setup file: if it fails, nothing else runs
    continue_on_error: bool = False     # the batch's continueOnError


class InOrder(BaseModel):
    """A case's place in a Midscene batch with ``concurrent: 1`` (Midscene's default): the
    batch's files run one at a time, in the order it lists them (a farm.schedule sequence)."""

    batch: str                          # the batch file, as displayed (names the sequence)
    place: int                          # 0-based place in the batch (setup first)


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
    own_timeout: bool = False       # its own file set timeout: (--timeout and
                                    # FARM_DEFAULT_TIMEOUT apply to the cases that set none)
    retries: int = 0
    tags: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    vars: dict[str, str] = Field(default_factory=dict)   # suite/case defaults for ${NAME}
    agent: dict[str, Any] = Field(default_factory=dict)   # Midscene ``agent:`` section, kept
    cache_key: str | None = None    # farm.yaml ``cache.key`` (farm.cache namespaces by it)
    output: str | None = None           # JSON file for the named results (`output:`)
    log_content: str | None = None      # JSON file for the step log (`unstableLogContent:`)
    # "web.output" / "config.unstableLogContent" -> (line, column) where it is written
    outputs_at: dict[str, tuple[int, int]] = Field(default_factory=dict)
    batch: str | None = None            # the Midscene index.yaml that listed this case
    description: str | None = None      # agent.groupDescription, shown in the report
    shared: "Shared | None" = None      # in a shareBrowserContext batch: its unit, its place
    in_order: "InOrder | None" = None   # in a concurrent: 1 batch: its place in the sequence
    parts: list["Case"] = Field(default_factory=list)   # a shared-context unit: its files
    report_file: str | None = None      # agent.reportFileName: the case's own report page
    setup_line: int = 0                 # its launch: / url: line (else its target section's)
    pin_line: int = 0                   # its deviceId: / wdaHost: / wdaPort: line (0: none)

    @property
    def steps(self) -> list[Step]:
        return [s for t in self.tasks for s in t.steps] + [s for p in self.parts for s in p.steps]

    @property
    def first_line(self) -> int:
        """Where the case starts in its file: its first step's line (0 without steps)."""
        return next((s.line for s in self.steps if s.line), 0)

    @property
    def pin(self) -> str | None:
        """The one device this case may run on: Midscene's android.deviceId, or
        ios.wdaHost:wdaPort (Midscene's defaults localhost and 8100 fill the other)."""
        if self.android is not None:
            return self.android.device_id
        if self.ios is not None and (self.ios.wda_host or self.ios.wda_port):
            return f"{self.ios.wda_host or 'localhost'}:{self.ios.wda_port or 8100}"
        return None


class Batch(BaseModel):
    """A Midscene batch file (index.yaml) listing case files (farm.suite.batch)."""

    # built on first use: most runs have no batch file, and every `farm` start paid ~3 ms
    model_config = ConfigDict(defer_build=True)

    file: str                            # as displayed
    concurrent: int = 1
    continue_on_error: bool = False
    retry: int | None = None
    summary: str | None = None           # where the JSON summary goes
    overrides: dict[str, dict[str, Any]] = Field(default_factory=dict)  # platform -> fields
    case_ids: list[str] = Field(default_factory=list)
    share_context: bool = False          # shareBrowserContext: the web files run as one unit
    unit_id: str = ""                    # the id of that unit ("<suite>/<batch file>")
    setup: str | None = None             # the setup file (real path), run first
    files: list[str] = Field(default_factory=list)      # real paths, in the order they run


class Suite(BaseModel):
    root: Path
    defaults: SuiteDefaults
    cases: list[Case]
