"""Midscene's batch file (``index.yaml``, the config of ``midscene --config``) as a farm suite.

    files: ['./scripts/*.yaml', ./checkout.yaml]     # globs, relative to the batch file
    concurrent: 2               # at most this many files at once (per platform)
    continueOnError: false      # false: after a failed file, no further file starts
    retry: 1                    # re-runs of a failed file (pass after fail = flaky)
    summary: out/summary.json   # a JSON summary of the files' outcomes (relative to this file)
    web: {viewportWidth: 1280}  # shared target settings, overriding each file's own
    shareBrowserContext: false

A YAML file with ``files:`` and no ``tasks:`` is a batch; a directory holding such an
``index.yaml`` is that batch. Keys farm cannot honour are refused with the reason.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from farm.suite.checks import Problems
from farm.suite.model import Batch
from farm.suite.targets import MOBILE_SECTIONS, WEB_SECTIONS, read_overrides
from farm.suite.yamlpos import Node

INDEX = "index.yaml"
BATCH_KEYS = {"files", "concurrent", "continueOnError", "retry", "summary",
              "shareBrowserContext", *WEB_SECTIONS, *MOBILE_SECTIONS}
REFUSED = {
    "setup": "it needs shareBrowserContext: true, which farm cannot honour (see there)",
    "headed": "farm runs headless browsers (FARM_HEADLESS=false for a visible one)",
    "keepWindow": "farm closes its browsers when the run ends",
    "dotenvOverride": "farm reads no .env file: set variables in the environment, vars: or a "
                      "secrets dir",
    "dotenvDebug": "farm reads no .env file",
}
SHARE_REFUSED = ("shareBrowserContext: true is not supported by farm: every file runs in its "
                 "own fresh browser context on whichever device is free, so one file's login "
                 "cannot carry to another; log in within each file (or keep the files in one "
                 "case)")


def looks_like_batch(node: Node | None) -> bool:
    return node is not None and node.kind == "map" and "files" in node.value \
        and "tasks" not in node.value


def read_batch(node: Node, path: Path, shown: str, p: Problems) -> tuple[Batch, list[Path]]:
    """The batch's settings and the case files it lists (sorted within each pattern, in the
    patterns' order, each once)."""
    top = node.value
    for name, why in REFUSED.items():
        if name in top:
            p.add(node.keys[name], f"{name} is not supported by farm: {why}")
    p.keys(node, BATCH_KEYS, "a batch file", REFUSED)
    share = p.boolean(top.get("shareBrowserContext"), "shareBrowserContext")
    if share:
        p.add(top["shareBrowserContext"], SHARE_REFUSED)
    sections = [k for k in (*WEB_SECTIONS, *MOBILE_SECTIONS) if k in top]
    web = [k for k in sections if k in WEB_SECTIONS]
    if len(web) > 1:
        p.add(node.keys[web[1]], f"a batch file takes one of page:, browser:, web: (got "
                                 f"{', '.join(web)})")
    overrides = {("web" if s in WEB_SECTIONS else s): read_overrides(s, top[s], path.parent, p)
                 for s in sections}
    batch = Batch(
        file=shown,
        concurrent=p.integer(top.get("concurrent"), "concurrent", minimum=1, maximum=1000) or 1,
        continue_on_error=bool(p.boolean(top.get("continueOnError"), "continueOnError")),
        retry=p.integer(top.get("retry"), "retry", maximum=10),
        summary=_summary_path(top.get("summary"), path.parent, p),
        overrides={k: v for k, v in overrides.items() if v})
    return batch, [f for f in _files(top["files"], path.parent, p) if f != path.resolve()]


def _summary_path(node: Node | None, base: Path, p: Problems) -> str | None:
    text = p.text(node, "summary", empty_ok=False, expected="a path for the JSON summary")
    return str(base / text) if text else None


def _files(node: Node, base: Path, p: Problems) -> list[Path]:
    patterns = p.sequence(node, "files", "a list of file paths or globs (relative to the "
                                          "batch file)")
    if patterns is not None and not patterns:
        p.add(node, "files is empty: expected at least one file or glob")
    out: list[Path] = []
    for item in patterns or []:
        pattern = p.text(item, "files item", required=True, empty_ok=False,
                         expected="a file path or glob")
        if pattern is None:
            continue
        matched = sorted(Path(m) for m in glob.glob(str(base / pattern), recursive=True)
                         if m.endswith((".yaml", ".yml")) and os.path.isfile(m))
        if not matched:
            p.add(item, f"files: {pattern!r} matches no .yaml file (relative to the batch "
                        "file)")
        for m in matched:
            resolved = m.resolve()
            if not resolved.is_relative_to(base.resolve()):
                p.add(item, f"files: {m} is outside the batch file's folder")
            elif resolved not in out:
                out.append(resolved)
    return out
