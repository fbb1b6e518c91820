"""A locate-cache entry replays only what the tier that stored it would still decide, through
real `farm run` on real Chromium.

Before 8e07c16 the OCR tier took the label "Username" for `aiInput: User name` (a near miss
the text tier had rejected) on a page with a same-origin iframe, and the locate cache kept
that find. Every later run passed with `tier: cache`: the cache checked "User name" like a
model's description (same role, still shows "username"). An entry the text or OCR tier
stored must match its target as the text tier matches, or it is dropped and the tiers decide:
the step fails as the README shows, farm.log says the entry was dropped, and it is gone from
the cache. A right OCR entry ("Username" on the field) still replays."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import FarmCli, results
from tests.support.near_miss_page import FRAME, FRAMED, TYPO, TYPO_CASE

pytestmark = pytest.mark.integration

CASES = {
    "typo": TYPO_CASE,
    "right": """name: right target
web:
  url: ${QA_URL}/framed.html
tasks:
  - name: t
    flow:
      - aiInput: Username
        value: bob
      - aiTap: Log in
      - assertText: Signed in as bob
""",
}
# what the OCR tier stored for each prompt (an older farm's near miss, and a right find)
ENTRIES = {
    ("suite/typo", "User name"): {
        "xpaths": ["//label[normalize-space(.)='Username']"], "rect": [8, 81, 65, 17],
        "element": {"role": "label", "shown": ["username"]}},
    ("suite/right", "Username"): {
        "xpaths": ["//*[@id='u']"], "rect": [77, 80, 153, 21],
        "element": {"role": "input:text", "shown": ["username"]}},
}


def seed(state: Path) -> None:
    """The entries an OCR find stored, as farm's cache API stores them."""
    state.mkdir(parents=True, exist_ok=True)
    store = SqliteStore(state / "cache.db")
    try:
        for (case, prompt), value in ENTRIES.items():
            store.put(Namespace(case, "web").key("locate", prompt, 0),
                      {"type": "locate", "prompt": prompt, **value, "screen": [1280, 800],
                       "tier": "ocr", "updated": time.time()}, 30 * 86400.0)
    finally:
        store.close()


def stored(state: Path, case: str, prompt: str) -> dict | None:
    store = SqliteStore(state / "cache.db")
    try:
        return store.get(Namespace(case, "web").key("locate", prompt, 0))
    finally:
        store.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """Two nights of `farm run` on a state that holds the OCR entries, then `farm cache ls`:
    (each night's results.json by case id, the first night's output and farm.log, the
    listing; the state dir)."""
    tmp = tmp_path_factory.mktemp("wordtier")
    suite = tmp / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  qa:\n    serve: app\n"
                                     "    env: QA_URL\n")
    (suite / "app" / "framed.html").write_text(FRAMED)
    (suite / "app" / "frame.html").write_text(FRAME)
    for name, case in CASES.items():
        (suite / f"{name}.yaml").write_text(case)
    seed(tmp / "state")
    farm = FarmCli(tmp)
    try:
        first = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp / "n1")
        second = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp / "n2")
        listed = farm.run("cache", "ls", "suite/")
    finally:
        farm.close()
    nights = [{c["case_id"].rsplit("/", 1)[-1]: c for c in results(tmp / n)["cases"]}
              for n in ("n1", "n2")]
    log = (tmp / "n1" / "farm.log").read_text()
    return {"nights": nights, "first": first.stdout + first.stderr, "log": log,
            "ls": listed.stdout + listed.stderr}, tmp / "state"


def test_an_ocr_near_miss_in_the_cache_fails_as_the_text_tier_does(run) -> None:
    """The entry is no pass: the step fails with the text tier's message, its cache cell says
    the entry was stale, farm.log says it was dropped, and the next night is the same miss
    with no entry to find (a miss, not a stale one)."""
    seen, state = run
    case = seen["nights"][0]["typo"]
    assert case["status"] == "failed", (case, seen["first"])
    assert case["error"]["message"].splitlines()[0] == TYPO
    step = case["steps"][0]
    assert step["tier"] is None and step["cache"]["stale"] == 1, step
    assert "FAILED suite/typo" in seen["first"] and TYPO in seen["first"]
    dropped = [line for line in seen["log"].splitlines() if "User name" in line
               and "dropped" in line]
    assert dropped and "WARNING" in dropped[0], seen["log"]
    assert stored(state, "suite/typo", "User name") is None
    again = seen["nights"][1]["typo"]
    assert again["status"] == "failed" and again["error"]["message"].splitlines()[0] == TYPO
    assert again["steps"][0]["cache"]["misses"] == 1, again["steps"][0]


def test_a_right_ocr_entry_still_replays(run) -> None:
    """"Username" is the field's label: the text tier takes the field for it, so the OCR
    entry is replayed (tier: cache) and kept."""
    seen, state = run
    for night in seen["nights"]:
        case = night["right"]
        assert case["status"] == "passed", case
        assert case["steps"][0]["tier"] == "cache", case["steps"][0]
    assert stored(state, "suite/right", "Username")["tier"] == "ocr"
    assert "suite/right" in seen["ls"] and "suite/typo" not in seen["ls"], seen["ls"]
