"""Every exception farm raises on purpose, as one tree.

    FarmError
    ├── UserError                 exit 4: the user must fix something before anything runs
    │   ├── SuiteError            a suite file is malformed (names file, line, column)
    │   ├── SuiteErrors           several SuiteErrors, all reported at once
    │   └── ConfigError           settings, flags or device specs are wrong
    ├── TestFailure               the app under test misbehaved: the case *failed* (red)
    │   ├── AssertionFailed       assertText / assertNoText / waitForText / aiAssert said no
    │   ├── LocateError           no unique element for a target (lists what it saw)
    │   └── StepFailed            a step's own action failed (javascript threw, ...)
    │       └── ScriptSyntaxError a javascript: step's code does not parse: not retried
    ├── NeedsModel                a step needs a model and none is configured: case *skipped*
    ├── InfraError                farm or its environment broke: case *error* (grey), retried
    │   ├── DeviceLost            the device/browser died or stopped answering
    │   ├── DeviceError           the device refused an action
    │   ├── ModelUnavailable      the model endpoint is down / timing out
    │   ├── ModelRefused          the endpoint refused the API key (401/403): not retried
    │   │   └── ModelMisconfigured    no provider litellm knows, or no API key: nothing is sent
    │   └── BrokerLost            the cluster's Redis stayed away: the run gives up
    ├── CaseTimeout               the case ran past its timeout: case *error*, not retried
    ├── Interrupted               the user pressed Ctrl-C: case *interrupted*
    └── InternalError             a bug in farm: case *error*, not retried (traceback in farm.log)

A result names its error by class (``CaseError.kind``, e.g. "DeviceLost"); `farm.attempts`
maps kinds back to these classes to decide outcomes and retries — never by message text.

The model's errors (ModelUnavailable, ModelRefused and below) are infrastructure errors (exit
3), but `farm.attempts` neither retries them on another device nor counts them against one:
the next device would get the same answers from the same model.

A test failure is never reported as an infrastructure error and vice versa: they get different
exit codes, retries and report colours.
"""

from __future__ import annotations

from pathlib import Path


class FarmError(Exception):
    """Base of every deliberate farm error."""

    exit_code = 3


class UserError(FarmError):
    exit_code = 4


class SuiteError(UserError):
    """A suite file is malformed. ``str()`` reads ``file:line:col: message``."""

    def __init__(self, file: str | Path, message: str, line: int | None = None,
                 column: int | None = None) -> None:
        self.file = str(file)
        self.message = message
        self.line = line
        self.column = column
        super().__init__(self.location + ": " + message)

    @property
    def location(self) -> str:
        loc = self.file
        if self.line is not None:
            loc += f":{self.line}"
            if self.column is not None:
                loc += f":{self.column}"
        return loc


class SuiteErrors(UserError):
    """Every problem found while loading suites, reported together."""

    outcome: str | None = None      # what the command did about it (`farm run`: ran nothing)

    def __init__(self, errors: list[SuiteError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class ConfigError(UserError):
    pass


class TestFailure(FarmError):
    __test__ = False  # not a pytest class
    exit_code = 1


class AssertionFailed(TestFailure):
    pass


class LocateError(TestFailure):
    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        self.candidates = candidates or []
        super().__init__(message)


class StepFailed(TestFailure):
    pass


class ScriptSyntaxError(StepFailed):
    """A ``javascript:`` step's code does not parse: every attempt fails on it the same way,
    so, as a served page not there (`farm.attempts.ServedFileMissing`), it is not retried."""


class NeedsModel(FarmError):
    exit_code = 0

    def __init__(self, what: str = "") -> None:
        self.what = what
        msg = "needs a model (set FARM_MODEL)"
        super().__init__(f"{msg}: {what}" if what else msg)


class InfraError(FarmError):
    exit_code = 3


class DeviceLost(InfraError):
    pass


class DeviceError(InfraError):
    pass


class ModelUnavailable(InfraError):
    pass


class ModelRefused(InfraError):
    """The model endpoint refused farm's credentials (401 / 403): re-sending the request or
    re-running the case on another device cannot help, so neither happens."""


class ModelMisconfigured(ModelRefused):
    """The model settings cannot work: litellm knows no provider for the model's name, or the
    provider needs an API key and none is set. Nothing is sent, now or later; `farm run` says
    so before any device starts (a ConfigError, exit 4), a `farm worker`'s cases end with it."""


class BrokerLost(InfraError):
    pass


class CaseTimeout(FarmError):
    exit_code = 3


class Interrupted(FarmError):
    exit_code = 2


class InternalError(FarmError):
    """Stands for an unexpected exception (a farm bug) in results; never raised by farm."""

    exit_code = 3
