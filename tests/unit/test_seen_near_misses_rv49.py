"""A locate miss's "seen:" list: the model's answer the message already says whole is not
said twice; a near miss that only appears inside the message (the target's words) is shown."""

from __future__ import annotations

from farm.agent.tasks import _msg
from farm.errors import LocateError

ANSWER = "the model did not find 'Log in button': there is no such button"


def test_a_near_miss_inside_the_target_words_is_still_seen_rv49():
    exc = LocateError("no element matches 'Log in button'", ["Log in", "Sign up"])
    assert _msg(exc).endswith("(seen: Log in; Sign up)")


def test_the_models_answer_quoted_whole_is_not_said_twice_rv49():
    exc = LocateError(f"no element matches \"Log in button\"; {ANSWER}; the closest on "
                      "screen is \"Log in\"", [ANSWER, "Log in"])
    said = _msg(exc)
    assert said.count(ANSWER) == 1, said
    assert said.endswith("(seen: Log in)")


def test_a_cut_model_answer_is_seen_whole_rv49():
    exc = LocateError(f"no element matches \"Log in button\"; {ANSWER[:40]}…", [ANSWER])
    assert _msg(exc).endswith(f"(seen: {ANSWER})")
