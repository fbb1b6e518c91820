"""The action name a model plans: "tap" or "TAP" is Tap (it was an unknown action, a wasted
round and an error towards the cap), and an action of another platform (AndroidBackButton on
web) is named as such in the feedback the model gets."""

from __future__ import annotations

import pytest

from farm.agent.actions import registry
from farm.agent.tasks import PlanError, build_tasks
from farm.llm.plan import PlannedAction


@pytest.mark.parametrize("name", ["tap", "TAP", " Tap ", "keyboardpress"])
def test_a_name_in_another_case_is_the_action(name):
    params = {"keyName": "Enter"} if "key" in name else {"locate": {"prompt": "Go"}}
    tasks = build_tasks(PlannedAction(type=name, params=params), registry("web"))
    assert tasks[-1].action.name == name.strip().title().replace("press", "Press")


@pytest.mark.parametrize("platform, name, said", [
    ("web", "AndroidBackButton", "unknown action 'AndroidBackButton' on web: it is an action "
                                 "of android; use one of: Tap,"),
    ("web", "launch", "unknown action 'launch' on web: it is an action of android and ios;"),
    ("ios", "Navigate", "unknown action 'Navigate' on ios: it is an action of web;"),
    ("web", "Fly", "unknown action 'Fly'; use one of: Tap,"),
])
def test_an_action_of_another_platform_is_named_as_such(platform, name, said):
    with pytest.raises(PlanError) as got:
        build_tasks(PlannedAction(type=name), registry(platform))
    assert str(got.value).startswith(said)
