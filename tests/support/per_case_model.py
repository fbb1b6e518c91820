"""One scripted model for several cases of one `farm run` (cases run at once on
``--devices browser:2``): each request is answered by the script of the case it came from,
told apart by a marker in what the model reads (the task, ``Find the element: <prompt>.``).

    model = PerCase(loop=("Task: press Go until", lambda body, i: ...),
                    stop=("Find the element: the Stop control.", ['{"bbox": []}']))
    with ModelServer(model) as srv:
        ...
    model.asked("loop"), model.texts("loop", 5), model.unrouted   # what each case was asked

A route's script gets the case's own request index (0, 1, ... as a server of its own would).
Routes are tried in the order given: put one whose marker is inside another's first.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from tests.support.model_server import Entry, Script, message_texts

UNROUTED = "no case of this test asks this"


class PerCase:
    def __init__(self, **routes: tuple[str | Sequence[str], Script]) -> None:
        self.markers = {name: (m,) if isinstance(m, str) else tuple(m)
                        for name, (m, _) in routes.items()}
        self.scripts: dict[str, Script] = {name: s for name, (_, s) in routes.items()}
        self.bodies: dict[str, list[dict[str, Any]]] = {name: [] for name in routes}
        self.unrouted: list[str] = []
        self._lock = threading.Lock()

    def route(self, body: dict) -> str | None:
        """The name of the case ``body`` came from (None: no marker in it)."""
        text = "\n".join(message_texts(body))
        return next((name for name, markers in self.markers.items()
                     if any(m in text for m in markers)), None)

    def __call__(self, body: dict, index: int) -> Entry:
        name = self.route(body)
        with self._lock:
            if name is None:
                self.unrouted.append("\n".join(message_texts(body))[-300:])
                return UNROUTED
            own = len(self.bodies[name])
            self.bodies[name].append(body)
        script = self.scripts[name]
        return script(body, own) if callable(script) else script[min(own, len(script) - 1)]

    def asked(self, name: str) -> int:
        """How many requests the case ``name`` made so far."""
        return len(self.bodies[name])

    def texts(self, name: str, index: int) -> str:
        """All text parts of the case's own request ``index`` joined."""
        return "\n".join(message_texts(self.bodies[name][index]))
