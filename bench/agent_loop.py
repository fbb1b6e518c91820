"""Agent loop overhead with a scripted zero-latency model and a FakeDevice.

Prints the median orchestration overhead per loop iteration (ms: everything but the model,
which answers instantly), peak traced memory after 100 iterations, and the prompt tokens of
the planning request at iterations 2, 10 and 20 (they must stay flat, not grow with history).

    .venv/bin/python bench/agent_loop.py [--iterations 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from farm.agent.api import Agent  # noqa: E402
from farm.agent.loop import LoopLimits  # noqa: E402
from farm.devices.base import Rect, UINode, UITree  # noqa: E402
from farm.devices.fake import FakeDevice  # noqa: E402
from farm.llm.client import ScriptedModelClient, estimate_tokens  # noqa: E402
from farm.llm.models import ModelSet  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=100)
    n = ap.parse_args().iterations
    nodes = [UINode(id=i, role="button", text=f"Item {i}", clickable=True,
                    rect=Rect(x=20 + (i % 4) * 300, y=20 + (i // 4) * 60, width=280, height=40))
             for i in range(40)]
    screens = {f"s{k}": UITree(source="dom", nodes=nodes, page_text="items") for k in range(2)}
    # every tap flips screens, so the loop never looks stuck
    dev = FakeDevice(screens=screens, transitions={("s0", n.text): "s1" for n in nodes}
                     | {("s1", n.text): "s0" for n in nodes})
    stamps: list[float] = []
    sizes: dict[int, int] = {}

    def reply(messages, index):
        stamps.append(time.perf_counter())
        sizes[index + 1] = estimate_tokens(messages)
        if index + 1 >= n:
            return '<complete success="true">done</complete>'
        return (f"<thought>tap item {index % 40}</thought><log>tap item {index % 40}</log>"
                f"<action-type>Tap</action-type><action-param-json>"
                f'{{"locate": {{"prompt": "Item {index % 40}"}}}}</action-param-json>')

    client = ScriptedModelClient(reply, keep_requests=False)
    agent = Agent(dev, ModelSet.single(client), limits=LoopLimits(cap=n + 1))
    tracemalloc.start()
    agent.ai_act("tap every item")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    gaps = [(b - a) * 1000 for a, b in zip(stamps, stamps[1:])]
    print(f"iterations: {len(stamps)}")
    print(f"median overhead per iteration: {statistics.median(gaps):.2f} ms "
          f"(p90 {sorted(gaps)[int(len(gaps) * 0.9)]:.2f} ms; under tracemalloc)")
    print(f"peak traced memory after {len(stamps)} iterations: {peak / 1e6:.1f} MB")
    print("prompt tokens per planning request: " + ", ".join(
        f"iteration {i}: {sizes[i]}" for i in (2, 10, 20) if i in sizes))


if __name__ == "__main__":
    main()
