"""A run with no model skips a case before it starts when its first step needs a model,
unless that step is an ``ai`` step whose plan the cache holds (it replays with no model);
steps that always need a model (aiAssert, aiQuery, ...) are skipped as before."""

from __future__ import annotations

from pathlib import Path

from farm.runner import skipped_before_start
from farm.suite.loader import load_case_file


def case_with(tmp_path: Path, first: str):
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\nweb:\n  url: http://example.test/\ntasks:\n  - name: t\n"
                    f"    flow:\n      - {first}\n      - assertText: Done\n")
    return load_case_file(path)


def test_an_ai_step_with_a_cached_plan_is_not_skipped_up_front(tmp_path: Path):
    case = case_with(tmp_path, "ai: sign in as demo")
    asked: list[str] = []
    assert skipped_before_start(case, lambda step: asked.append(step.value) or True) is None
    assert asked == ["sign in as demo"]
    step = skipped_before_start(case, lambda step: False)
    assert step is not None and step.kind == "ai"
    assert skipped_before_start(case) is step or skipped_before_start(case).kind == "ai"


def test_a_step_that_always_needs_a_model_is_skipped_whatever_the_cache(tmp_path: Path):
    case = case_with(tmp_path, "aiAssert: the cart is empty")
    step = skipped_before_start(case, lambda step: True)
    assert step is not None and step.kind == "aiAssert"
