"""What a device process logs (its stderr: what an operator reads on the worker's host) with
the secrets of the cases it has run masked, as `farm run` masks its farm.log (`MaskFilter`):
a worker is sent its case's secrets, and a page, a check's message, a model's error or a
traceback can show one. A secret stays masked after its case (the latest `KEEP` values): the
next case's page or a late line (a watchdog's, a quarantine's) can still show it."""

from __future__ import annotations

import logging
import threading

from farm.run_log import MaskFilter
from farm.suite.vars import Variables

KEEP = 256      # secret values kept masked, the latest learned: a worker up for months, serving
                # runs that each bring a fresh token, must not slow every line it logs down


class CaseSecrets:
    """The secret values of the cases this process has run (the latest `KEEP`), and the mask
    that hides them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, None] = {}      # oldest learned first
        self._known = Variables({})

    def learn(self, variables: Variables) -> None:
        """Add the secret values of a case's ``variables`` (before the case runs)."""
        with self._lock:
            before = set(self._values)
            for value in variables.secret_values:
                self._values.pop(value, None)
                self._values[value] = None
            for value in list(self._values)[:-KEEP]:
                del self._values[value]
            if set(self._values) != before:
                self._known = Variables.hiding(self._values)

    def mask(self, text: str) -> str:
        return self._known.mask(text)


SECRETS = CaseSecrets()


def mask_logging() -> None:
    """Mask every line this process logs with `SECRETS`: the root logger's handlers (each of
    farm's loggers and Celery's propagate there) and Celery's task logger's, which does not
    propagate (it gets its handler when the Celery worker starts)."""
    from celery import signals

    def masked(logger: logging.Logger) -> None:
        for handler in logger.handlers:
            if not any(isinstance(f, MaskFilter) for f in handler.filters):
                handler.addFilter(MaskFilter(SECRETS.mask))

    masked(logging.getLogger())
    signals.after_setup_task_logger.connect(lambda logger, **_: masked(logger), weak=False)
