"""Small suites written on the fly: cases for the ``fake`` device kind (tests.support.devices).

    sleep_suite(tmp_path / "s", 6, 300)            # s/c00.yaml ... s/c05.yaml, each sleeps 300 ms
    write_case(folder, "hang", ["javascript: farm-test:hang"], timeout=1)
    demo_copy(tmp_path / "demo", "login_success.yaml")   # the demo app + farm.yaml + those cases
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Sequence

DEMO = Path(__file__).resolve().parents[2] / "suites" / "demo"


def write_case(folder: Path, stem: str, flow: Sequence[str], name: str | None = None,
               timeout: float | None = None, url: str = "about:blank") -> Path:
    """``folder/stem.yaml``: one task whose steps are the YAML lines in ``flow``."""
    folder.mkdir(parents=True, exist_ok=True)
    head = f"name: {name or stem}\n" + (f"timeout: {timeout:g}\n" if timeout else "")
    steps = "".join(f"      - {line}\n" for line in flow)
    path = folder / f"{stem}.yaml"
    path.write_text(f"{head}web:\n  url: {url}\ntasks:\n  - name: steps\n    flow:\n{steps}")
    return path


def demo_copy(root: Path, *cases: str) -> Path:
    """A copy of the demo suite a test may change: its app, its farm.yaml (600 s a case: the
    demo's 60 s is for people, a loaded 2-core CI machine needs more) and ``cases``."""
    root.mkdir(parents=True)
    shutil.copytree(DEMO / "app", root / "app")
    (root / "farm.yaml").write_text((DEMO / "farm.yaml").read_text().replace(
        "timeout: 60 ", "timeout: 600 "))
    for case in cases:
        shutil.copy(DEMO / case, root)
    return root


def sleep_suite(folder: Path, n: int, ms: int, prefix: str = "c") -> Path:
    """``n`` cases that only sleep ``ms`` each."""
    for i in range(n):
        write_case(folder, f"{prefix}{i:02d}", [f"sleep: {ms}"], name=f"sleep {prefix}{i}")
    return folder
