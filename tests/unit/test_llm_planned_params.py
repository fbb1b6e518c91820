"""A planned target however the model wrote it: "locate": "the Go button" is a Locate of that
description, and a box's numbers are read from a string ("400,300,600,400"), corner pairs or
"400px" (doubao's lenient number extraction). They were "bad parameters for Tap: ... Input
should be a valid list" (pydantic's words) fed back, a wasted round and an error towards the
cap; six in a row made the model unusable. A direction is read in any case ("Up" scrolled down)
and an unknown one is a bad parameter, not a scroll down."""

from __future__ import annotations

import pytest

from farm.agent.actions import registry
from farm.agent.tasks import PlanError, build_tasks
from farm.llm.plan import PlannedAction


def target(params: dict):
    return build_tasks(PlannedAction(type="Tap", params=params), registry("web"))[-1].action.locate


def test_a_bare_description_is_a_locate():
    loc = target({"locate": "the Go button"})
    assert loc.prompt == "the Go button" and loc.bbox is None


@pytest.mark.parametrize("bbox", ["400,300,600,400", "[400, 300, 600, 400]", "400 300 600 400",
                                  [[400, 300], [600, 400]], ["400px", "300px", "600px", "400"],
                                  [400, 300, 600, 400]])
def test_a_box_is_read_however_its_numbers_are_written(bbox):
    assert target({"locate": {"prompt": "Go", "bbox": bbox}}).bbox == [400, 300, 600, 400]


def test_a_box_that_is_not_numbers_is_still_a_bad_parameter():
    with pytest.raises(PlanError, match="bad parameters for Tap: locate.bbox"):
        target({"locate": {"prompt": "Go", "bbox": {"x1": 400}}})


def action(name: str, params: dict, platform: str = "android"):
    return build_tasks(PlannedAction(type=name, params=params), registry(platform))[-1].action


@pytest.mark.parametrize("name", ["Scroll", "Swipe"])
@pytest.mark.parametrize("written, meant", [("Up", "up"), (" LEFT ", "left"), ("down", "down")])
def test_a_direction_in_any_case_is_that_direction(name, written, meant):
    """("Up" scrolled down: an unknown direction fell back to down.)"""
    assert action(name, {"direction": written}).direction == meant


@pytest.mark.parametrize("name", ["Scroll", "Swipe"])
def test_an_unknown_direction_is_a_bad_parameter(name):
    with pytest.raises(PlanError, match=f"bad parameters for {name}: direction: unknown "
                                        "direction 'sideways'; use one of: down, up, right, left"):
        action(name, {"direction": "sideways"})


@pytest.mark.parametrize("value, typed", [(3, "3"), (12.5, "12.5"), ("007", "007")])
def test_a_number_to_type_is_typed(value, typed):
    """({"value": 3} was "Input should be a valid string", a wasted round.)"""
    assert action("Input", {"value": value, "locate": {"prompt": "Quantity"}}, "web").value == typed


def test_a_boolean_is_not_text_to_type():
    with pytest.raises(PlanError, match="bad parameters for Input: value"):
        action("Input", {"value": True, "locate": {"prompt": "Quantity"}}, "web")
