"""A model answering in another family's grammar (a UI-TARS model whose name farm cannot guess
run as gpt, a family set wrong): the step's error said only that the reply could not be parsed
twice, quoting the reply, as if the model were broken. It now says first which family's grammar
the reply is in and which setting to fix; a reply no grammar reads says what it said before."""

import pytest

from farm.agent.api import Agent
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.llm.plan import other_grammar
from tests.unit.test_agent_loop import shop, xml

UITARS = "Thought: the button\nAction: click(start_box='(500,500)')"
AUTOGLM = '<think>tap it</think><answer>do(action="Tap", element=[500,500])</answer>'
XML = xml("Tap", {"locate": {"prompt": "Sign in"}})


@pytest.mark.parametrize("family, reply, said", [
    ("gpt", UITARS, "it answers in the grammar of ui-tars, not of its family gpt: set "
                    "FARM_MODEL_FAMILY (--model-family); its reply could not be parsed twice"),
    ("gpt", AUTOGLM, "it answers in the grammar of auto-glm, not of its family gpt"),
    ("ui-tars", XML, "it answers in the grammar of gpt / qwen2.5-vl / qwen2-vl / qwen3-vl / "
                     "gemini / doubao / glm-v, not of its family ui-tars"),
])
def test_a_reply_in_another_family_grammar_names_the_setting(family, reply, said):
    client = ScriptedModelClient([reply], family=family)
    with pytest.raises(ModelUnavailable) as info:
        Agent(shop(), ModelSet.single(client)).ai_act("sign in")
    assert str(info.value).startswith(f"model scripted: {said}"), info.value
    assert client.calls == 2        # the one retry with the parse error, as before


def test_a_separate_planner_names_its_own_setting():
    planner = ScriptedModelClient([UITARS], name="planner")
    models = ModelSet(planner, ScriptedModelClient(["{}"]), ScriptedModelClient(["{}"]),
                      planner_locates=False)
    with pytest.raises(ModelUnavailable, match="of its family gpt: set "
                                               "FARM_PLANNING_MODEL_FAMILY; its reply"):
        Agent(shop(), models).ai_act("sign in")


def test_a_reply_no_grammar_reads_says_only_that():
    client = ScriptedModelClient(["Sure! I will click the login button for you :)"])
    with pytest.raises(ModelUnavailable) as info:
        Agent(shop(), ModelSet.single(client)).ai_act("sign in")
    assert str(info.value).startswith("model scripted: its reply could not be parsed twice")
    assert other_grammar("I would do(it) if I could", "xml") is None
    assert other_grammar('<complete success="true">ok</complete>', "uitars") == "xml"
