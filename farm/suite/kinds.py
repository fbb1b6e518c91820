"""Every flow-step kind farm understands, declared once.

The loader reads what a kind's main value means, how it is written (``shape``), its options,
whether it needs a model and the one platform it may be limited to; the runner reads which
action of the action space it runs (`farm.agent.actions`: ``aiTap`` runs ``Tap`` as a
model-planned Tap does, Midscene's ``callActionInActionSpace('Tap')``) or which Agent call it
makes, whether it only looks at the screen, and whether its output is data kept under its
``name:``. Nothing else lists step kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How the loader reads a kind (farm.suite.steps): a target to locate, aiInput's two forms,
# a key, aiScroll's options, milliseconds, a WebDriverAgent request, or one string.
Shape = Literal["locate", "input", "key", "scroll", "ms", "request", "text", "swipe", "drag",
                "pinch", "record", "prompt"]

# Keys allowed beside every kind (`timeout` only where it is honoured: see the kinds).
COMMON_OPTIONS = frozenset({"name", "cacheable"})
TIMEOUT = frozenset({"timeout"})
# deepThink: Midscene's deprecated name for deepLocate on locate options (loaded as deepLocate);
# `locate:` / `prompt:` carry the target in Midscene's object forms.
LOCATE_OPTIONS = frozenset({"xpath", "deepLocate", "deepThink", "locate", "prompt"})
# Insight steps (aiQuery & co, aiAssert, aiWaitFor): what the model is shown.
INSIGHT_OPTIONS = frozenset({"domIncluded", "screenshotIncluded"})

# aiWaitFor's checkIntervalMs when a step gives none: Midscene's default (its docs: checks
# "at least checkIntervalMs apart to avoid unnecessary AI calls"). A 1 s default judged a
# condition that never came true up to 30 times in its 30 s, each a screenshot to the model.
WAIT_FOR_INTERVAL_MS = 3000

# Options that only some platforms honour (a device elsewhere has no way to do it), as
# ``StepKind.platforms`` limits a whole kind: fileChooserAccept answers a web page's file chooser.
OPTION_PLATFORMS: dict[str, tuple[str, ...]] = {"fileChooserAccept": ("web",)}

# What a kind's main value must be, for messages ("expected <this>").
MEANINGS = {
    "target": "a target description", "key": "a key name (e.g. Enter)",
    "ms": "milliseconds as a non-negative integer", "code": "JavaScript code",
    "text": "the text to look for", "task": "a task description in plain words",
    "assertion": "a statement about the screen", "query": "a question about the screen",
    "command": "a shell command", "request": "a WebDriverAgent request",
    "title": "a title for the screenshot", "app": "an app id (package / bundle id) or URL",
}


@dataclass(frozen=True)
class StepKind:
    name: str
    main: str                           # what the main value means (a key of MEANINGS)
    shape: Shape = "text"
    options: frozenset[str] = frozenset()   # allowed beside the kind key, besides COMMON_OPTIONS
    needs_model: bool = False           # always needs a model, whatever the screen shows
    platforms: tuple[str, ...] = ()     # the only platforms it runs on (empty: every one)
    # the runner: an action of the action space ...
    action: str | None = None           # its class name in farm.agent.actions
    value_param: str | None = None      # the action parameter the step's value fills
    passes: tuple[str, ...] = ()        # step options passed on as action parameters
    # ... or an Agent call (farm.runner maps the name to the call)
    call: str | None = None
    looks_only: bool = False            # only reads the screen: its "after" is its "before"
    data: bool = False                  # its output is data, kept under the step's `name:`

    @property
    def allowed(self) -> frozenset[str]:
        return COMMON_OPTIONS | self.options

    @property
    def keeps_named(self) -> bool:
        """Whether a ``name:`` keeps its output in the case's data (farm.runner): a data kind's,
        an ai step's summary, a recorded screenshot's title."""
        return self.data or self.call in ("ai_act", "record")

    @property
    def expected(self) -> str:
        return MEANINGS[self.main]

    @property
    def form(self) -> str:
        return f"`{self.name}: <{self.main}>`"


def _declare(*kinds: StepKind) -> dict[str, StepKind]:
    for k in kinds:
        assert (k.action is None) != (k.call is None), f"{k.name}: an action or a call"
    return {k.name: k for k in kinds}


_QUERY = dict(main="query", shape="prompt", options=INSIGHT_OPTIONS, needs_model=True,
              call="ai_query", data=True)
# planningStrategy: fast | standard | max (farm.agent.loop.PLANNING)
_ACT = dict(main="task", shape="prompt",
            options=frozenset({"deepThink", "deepLocate", "planningStrategy", "context"}),
            needs_model=True, call="ai_act")
_MOBILE = ("android", "ios")

KINDS: dict[str, StepKind] = _declare(
    # zero-token (work without a model): actions of the action space
    StepKind("aiTap", "target", "locate", LOCATE_OPTIONS | {"fileChooserAccept"}, action="Tap",
             passes=("fileChooserAccept",)),
    # (web only, as Midscene's: a phone's Hover does nothing, so the step only found it)
    StepKind("aiHover", "target", "locate", LOCATE_OPTIONS, platforms=("web",),
             action="Hover"),
    StepKind("aiDoubleClick", "target", "locate", LOCATE_OPTIONS, action="DoubleClick"),
    StepKind("aiRightClick", "target", "locate", LOCATE_OPTIONS, platforms=("web",),
             action="RightClick"),
    StepKind("aiLongPress", "target", "locate", LOCATE_OPTIONS | {"duration"},
             action="LongPress", passes=("duration",)),
    StepKind("aiClearInput", "target", "locate", LOCATE_OPTIONS, action="ClearInput"),
    StepKind("aiSwipe", "target", "swipe",
             frozenset({"start", "end", "direction", "distance", "duration", "repeat"}),
             action="Swipe", passes=("direction", "distance", "duration", "repeat")),
    StepKind("aiDragAndDrop", "target", "drag", frozenset({"from", "to", "deepLocate"}),
             action="DragAndDrop"),
    StepKind("aiPinch", "target", "pinch",
             LOCATE_OPTIONS | {"direction", "distance", "duration"}, platforms=_MOBILE,
             action="Pinch", passes=("direction", "distance", "duration")),
    StepKind("aiInput", "target", "input",
             LOCATE_OPTIONS | {"value", "locate", "mode", "autoDismissKeyboard"},
             action="Input", value_param="value", passes=("mode", "autoDismissKeyboard")),
    StepKind("aiKeyboardPress", "key", "key", LOCATE_OPTIONS | {"keyName", "locate"},
             action="KeyboardPress", value_param="keyName"),
    StepKind("aiScroll", "target", "scroll",
             LOCATE_OPTIONS | {"direction", "scrollType", "distance", "locate"},
             action="Scroll", passes=("direction", "scrollType", "distance")),
    StepKind("sleep", "ms", "ms", action="Sleep", value_param="timeMs"),
    # zero-token checks and scripts
    StepKind("javascript", "code", options=TIMEOUT, platforms=("web",), call="javascript",
             data=True),
    StepKind("logScreenshot", "title", "record", frozenset({"content"}), call="record",
             looks_only=True),
    StepKind("recordToReport", "title", "record", frozenset({"content"}), call="record",
             looks_only=True),
    StepKind("launch", "app", platforms=_MOBILE, action="Launch", value_param="uri"),
    StepKind("terminate", "app", platforms=_MOBILE, action="Terminate", value_param="uri"),
    StepKind("assertText", "text", call="assert_text", looks_only=True),
    StepKind("assertNoText", "text", call="assert_no_text", looks_only=True),
    StepKind("waitForText", "text", options=TIMEOUT, call="wait_for_text"),
    # need a model
    StepKind("ai", **_ACT),
    StepKind("aiAct", **_ACT),
    StepKind("aiAction", **_ACT),
    StepKind("aiAssert", "assertion", "prompt", INSIGHT_OPTIONS | {"errorMessage"},
             needs_model=True, call="ai_assert", data=True),
    StepKind("aiWaitFor", "assertion", "prompt",
             INSIGHT_OPTIONS | {"checkIntervalMs", "timeoutMs"} | TIMEOUT,
             needs_model=True, call="ai_wait_for"),
    StepKind("aiQuery", **_QUERY),
    StepKind("aiBoolean", **_QUERY),
    StepKind("aiNumber", **_QUERY),
    StepKind("aiString", **_QUERY),
    StepKind("aiAsk", **_QUERY),
    # Located as aiTap's target is, zero-token tiers first: a target the page's text names
    # needs no model (it was needs_model, and --collect-only predicted a skip the run never had).
    StepKind("aiLocate", "target", "locate", LOCATE_OPTIONS,
             call="ai_locate", looks_only=True, data=True),
    # platform specific: their output (stdout, the WDA answer) is data
    StepKind("runAdbShell", "command", options=TIMEOUT, platforms=("android",),
             action="RunAdbShell", value_param="command", data=True),
    StepKind("runWdaRequest", "request", "request", platforms=("ios",), action="RunWdaRequest",
             passes=("method", "endpoint", "data"), data=True),
)

# Step kinds people write meaning another one (other tools' words, Midscene's older names): an
# unknown kind is told to use the one it means, where spelling alone would point elsewhere
# (aiClick is one letter nearer aiRightClick than aiTap).
NEAR_MISSES = {
    "aiClick": "aiTap", "click": "aiTap", "tap": "aiTap", "aiPressButton": "aiTap",
    "aiType": "aiInput", "aiFill": "aiInput", "type": "aiInput", "fill": "aiInput",
    "aiWait": "aiWaitFor", "aiExpect": "aiAssert", "aiVerify": "aiAssert",
    "aiDoubleTap": "aiDoubleClick", "aiLongTap": "aiLongPress", "aiPressKey": "aiKeyboardPress",
    # spelling alone pointed these at a wrong kind (wait → aiTap, press → aiLongPress,
    # evaluate → aiLocate) or at none
    "pause": "sleep", "delay": "sleep", "press": "aiKeyboardPress", "drag": "aiDragAndDrop",
    "evaluate": "javascript", "js": "javascript", "execute": "javascript",
    "clear": "aiClearInput",
}
# A step's options people write meaning another one (Playwright's, Cypress's words), where
# spelling alone suggests nothing: (the option meant, what to add).
OPTION_NEAR_MISSES = {
    "text": ("value", ""), "amount": ("distance", ""), "key": ("keyName", ""),
    **dict.fromkeys(("selector", "css", "cssSelector"),
                    ("xpath", " farm finds an element by its text or an XPath, not a CSS "
                              "selector: #login is //*[@id='login']")),
}
# Options Midscene's agent takes on a step that farm cannot honour: the kinds they go with
# there, why farm refuses them and what to write instead (said at the option's line, in place
# of "unknown option"). ``{what}`` is what the kind's main value is.
_ACTS = frozenset(k for k, s in KINDS.items() if s.call == "ai_act")
_ASKS = frozenset(k for k, s in KINDS.items() if s.call in ("ai_assert", "ai_query",
                                                             "ai_wait_for"))
_AIMED = frozenset(k for k, s in KINDS.items() if s.shape in ("locate", "input", "key",
                                                               "scroll", "pinch"))
REFUSED_OPTIONS: dict[str, tuple[frozenset[str], str]] = {
    "context": (_ASKS | _AIMED, "farm sends the model no per-step context there (only on "
                                "`ai:` / `aiAct:`); write it into the {what}"),
    "keyboardTypeDelay": (frozenset({"aiInput"}),
                          "farm types a text at once, with no delay between keys; to type "
                          "slowly, split the value over `aiInput:` steps with `mode: "
                          "typeOnly` and a `sleep:` between them"),
    "fileChooserAccept": (_ACTS, "farm answers a file chooser only on the step that opens it; "
                                 "put fileChooserAccept on an `aiTap:` of the button that "
                                 "opens it"),
    "fileChooserAllowedDir": (_ACTS, "farm uploads no file a model names; put "
                                     "`fileChooserAccept: <path>` on an `aiTap:` of the "
                                     "button that opens the file chooser"),
    "observe": (_ASKS, "Midscene's runner refuses it in YAML too (it is "
                       "agent.startObserving() in code); leave it out"),
}
# Kinds a platform's device cannot do although Midscene's can: why, after "only works in ...".
PLATFORM_GAPS = {
    **{("aiHover", phone): "a touch screen has no pointer to hover with (Midscene has no "
                          "aiHover on phones either); to show what a hover would, `aiTap:` or "
                          "`aiLongPress:` the element" for phone in _MOBILE},
    ("aiPinch", "web"): "farm's browser has no two-finger touch (Midscene pinches through "
                        "Chromium touch events); zoom with the page's own controls (`aiTap: "
                        "<zoom button>`) or `javascript:`",
}
# Unknown kinds that mean something farm does in another way: said as such.
OTHER_WAYS = {
    "wait": "sleep: <ms> waits a time, waitForText: <text> until a text shows",
    **dict.fromkeys(("navigate", "goto", "open", "visit", "aiNavigate"),
                    "a web case opens its url: (`javascript: location.href = \"<url>\"` goes "
                    "to another page), a phone case its launch:"),
    # Midscene's agent methods, not flow items (its YAML runner refuses them too)
    **dict.fromkeys(("freezePageContext", "unfreezePageContext"),
                    "a method of Midscene's agent in code, not a YAML step, which Midscene's "
                    "runner refuses too: leave it out; farm reads the screen afresh for each "
                    "step"),
    # Midscene's (1.10, Beta): one Gherkin Scenario as a flow item
    "runGherkinScenario": "not supported by farm, which reads no Gherkin: write the "
                          "scenario's steps as flow items, `ai:` for each Given and When, "
                          "`aiAssert:` for each Then",
}
