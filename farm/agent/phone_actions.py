"""The actions only phones have: Android's Back and Home buttons, iOS's Home, an app's launch
and stop, adb shell, WebDriverAgent requests, a pinch. `farm.agent.actions.registry` imports
them for an android or ios device only: a browser run does not build their models (~2.5 ms of
CPU at each start).
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import AliasChoices, Field

from farm.agent.action_base import Action, ActionContext, Locate
from farm.devices.base import masking
from farm.errors import CaseTimeout, StepFailed
from farm.text import map_strings


class AndroidBackButton(Action):
    name, doc = "AndroidBackButton", "press the Android Back button"

    def run(self, ctx: ActionContext) -> None:
        back = getattr(ctx.device, "back", None)
        back() if back else ctx.device.press("Back")


class AndroidHomeButton(Action):
    name, doc = "AndroidHomeButton", "press the Android Home button"

    def run(self, ctx: ActionContext) -> None:
        home = getattr(ctx.device, "home", None)
        home() if home else ctx.device.press("Home")


class IOSHomeButton(AndroidHomeButton):
    name, doc = "IOSHomeButton", "go to the iOS home screen"


class Launch(Action):
    name, doc = "Launch", "launch an app (package / bundle id / URL)"
    uri: str

    def run(self, ctx: ActionContext) -> None:
        ctx.device.launch(ctx.resolve(self.uri))    # ${NAME} in the app id or URL


class Terminate(Action):
    name, doc = "Terminate", "stop an app"
    uri: str

    def run(self, ctx: ActionContext) -> None:
        ctx.device.terminate(ctx.resolve(self.uri))


class RunAdbShell(Action):
    name, doc = "RunAdbShell", "run an adb shell command; its stdout is the result"
    command: str
    # the step's `timeout` (runAdbShell); not for the planner
    timeoutMs: Optional[int] = Field(default=None, json_schema_extra={"hidden": 1})

    def run(self, ctx: ActionContext) -> str:
        """The command's output; it is given the step's `timeout` (else the phone's limit on
        a silence, 30 s, holds: a `cat` waiting for input fails then), and no more than the
        case's time left: one that runs on (logcat without -d) is stopped at the case's end
        as the case's timeout, where the case's watchdog stopped the phone (and the case
        read "device stopped answering")."""
        shell = ctx.optional("shell_result")
        command = ctx.resolve(self.command)
        left = ctx.remaining()
        step = self.timeoutMs / 1000 if self.timeoutMs else None
        cut = left != float("inf") and (step is None or left < step)
        if not cut:
            given = {"timeout_s": step} if step else {}
        else:   # a step's timeout is the command's whole time; without one, the case's end
            # is an end besides the silence's limit, not instead of it
            given = {"timeout_s" if step else "within_s": max(left, 0.1)}
        try:
            with masking(ctx.mask):     # what is cut of a long output is masked first
                out, err, code = shell(command, **given)
        except StepFailed:
            if cut and ctx.remaining() <= 0:
                raise CaseTimeout(f"case timed out during adb shell `{self.command}`") \
                    from None
            raise
        if code:
            # masked before it is cut: a secret cut there would leave its start
            said = ctx.mask(err.strip() or out.strip() or "no output")[:500]
            raise StepFailed(f"adb shell `{self.command}` exited {code}: {said}")
        return out


class RunWdaRequest(Action):
    name, doc = "RunWdaRequest", ("send a WebDriverAgent request (method, endpoint, data); "
                                  "its answer is the result")
    method: str = "GET"
    endpoint: str = Field(validation_alias=AliasChoices("endpoint", "url"))
    data: Optional[Any] = None

    def run(self, ctx: ActionContext) -> Any:
        request = ctx.optional("wda_request")
        with masking(ctx.mask):         # what is cut of a long string is masked first
            return request(self.method.upper(), ctx.resolve(self.endpoint),
                           map_strings(self.data, ctx.resolve))


class Pinch(Action):
    name, doc = "Pinch", ("two-finger pinch on an element or the screen's centre: direction "
                          "in (fingers together, zoom out) or out (apart, zoom in)")
    locate: Optional[Locate] = None
    direction: Literal["in", "out"] = "out"
    distance: Optional[int] = None
    duration: int = 500

    def run(self, ctx: ActionContext) -> None:
        w, h = ctx.device.size()
        x, y = (self.locate.gesture_start(ctx.device, "a pinch") if self.locate is not None
                else (w // 2, h // 2))
        reach = self.distance or min(w, h) // 4     # how far each finger moves
        ctx.optional("pinch")(x, y, reach, self.direction == "out", self.duration)


PHONE: dict[str, list[type[Action]]] = {
    "android": [AndroidBackButton, AndroidHomeButton, Launch, Terminate, RunAdbShell, Pinch],
    "ios": [IOSHomeButton, Launch, Terminate, RunWdaRequest, Pinch],
}
