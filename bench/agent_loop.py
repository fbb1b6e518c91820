"""Agent loop overhead with a scripted zero-latency model and a FakeDevice.

Prints the median orchestration overhead per loop iteration (ms: everything but the model,
which answers instantly; measured without tracemalloc), peak traced memory after 100
iterations (a separate traced run), and the prompt tokens of
the planning request at iterations 2, 10 and 20 (they must stay flat, not grow with history).
Then the slowest parse of a reply at the size cap built to make a parser backtrack (unclosed
tags: must stay well under 1 s), and one unparseable reply of --reply-mb MB (0 skips it) from
the scripted model server over HTTP with real litellm: how long until it is a model error, and
the peak traced memory (FARM_MODEL_MAX_REPLY_BYTES keeps both small).

    .venv/bin/python bench/agent_loop.py [--iterations 100] [--reply-mb 20]
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


def huge_reply(megabytes: int) -> None:
    """One ai step against a model whose reply is ``megabytes`` MB of garbage."""
    from farm.errors import ModelUnavailable
    from farm.llm.litellm_client import LiteLLMClient
    from tests.support.model_server import ModelServer, Reply
    with ModelServer(["warm-up", Reply(stream_bytes=megabytes * 1_000_000)]) as srv:
        client = LiteLLMClient("openai/bench", base_url=srv.base_url)
        client.complete([{"role": "user", "content": "hi"}])   # litellm's first-call imports
        agent = Agent(FakeDevice(), ModelSet.single(client))
        tracemalloc.start()
        started = time.perf_counter()
        try:
            agent.ai_act("anything")
            outcome = "no error (!)"
        except ModelUnavailable as exc:
            outcome = "ModelUnavailable" + (" (size cap)" if "REPLY_BYTES" in str(exc) else "")
        took = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(f"{megabytes} MB unparseable reply: {outcome} after {took:.2f} s, "
          f"peak traced memory {peak / 1e6:.1f} MB, {len(srv.requests) - 1} request(s)")


def parse_worst_case(size: int = 1_000_000) -> None:
    """The slowest parse, over grammars, of garbage at the size cap that once made regexes
    rescan the rest of the reply for every unclosed tag (quadratic)."""
    from farm.llm.plan import ReplyParseError, parse_plan
    shapes = {"<thought ": "", "<think>": "", "<sub-goal index=1>": "<update-plan-content>",
              "click(a='x', ": "Action: ", 'do(action="x", ': ""}
    worst = (0.0, "")
    for unit, head in shapes.items():
        text = head + unit * (size // len(unit))
        for grammar in ("xml", "uitars", "autoglm"):
            started = time.perf_counter()
            try:
                parse_plan(text, grammar)
            except ReplyParseError:
                pass
            worst = max(worst, (time.perf_counter() - started, f"{unit!r} × n, {grammar}"))
    print(f"slowest parse of a {size // 1000} kB adversarial reply: {worst[0]:.3f} s "
          f"({worst[1]})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--reply-mb", type=int, default=20)
    args = ap.parse_args()
    n = args.iterations
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

    def loop(traced: bool) -> tuple[list[float], int]:
        stamps.clear()
        client = ScriptedModelClient(reply, keep_requests=False)
        agent = Agent(dev, ModelSet.single(client), limits=LoopLimits(cap=n + 1))
        if traced:
            tracemalloc.start()
        agent.ai_act("tap every item")
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
        if traced:
            tracemalloc.stop()
        return [(b - a) * 1000 for a, b in zip(stamps, stamps[1:])], peak

    loop(traced=False)                   # warm-up: first-use imports, caches
    gaps, _ = loop(traced=False)
    _, peak = loop(traced=True)          # memory: a separate run (tracemalloc slows Python)
    print(f"iterations: {len(stamps)}")
    print(f"median overhead per iteration: {statistics.median(gaps):.2f} ms "
          f"(p90 {sorted(gaps)[int(len(gaps) * 0.9)]:.2f} ms)")
    print(f"peak traced memory after {len(stamps)} iterations: {peak / 1e6:.1f} MB")
    print("prompt tokens per planning request: " + ", ".join(
        f"iteration {i}: {sizes[i]}" for i in (2, 10, 20) if i in sizes))
    parse_worst_case()
    if args.reply_mb:
        huge_reply(args.reply_mb)


if __name__ == "__main__":
    main()
