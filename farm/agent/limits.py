"""How long the ai_act loop may go on (farm.agent.loop). On its own so that the runner and the
Agent, which every case builds, do not import the loop itself: a run of zero-token steps never
plans."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LoopLimits:
    cap: int | None = None            # None: the family's (20 / UI-TARS 40 / AutoGLM 100)
    max_errors: int = 5               # more than this many execution errors fail the act
    stuck_nudge: int = 3              # same action, same target, same screen: nudge …
    stuck_abort: int = 5              # … then abort
