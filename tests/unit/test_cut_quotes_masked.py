"""A quoted text farm shortens (a model's unreadable answer, a device's error output) ends in
"…" where it was cut, so the secret masking hides a secret's start there: cut bare, the first
characters of a password reached the step's error, results.json and the report."""

from __future__ import annotations

from farm.agent.insight import _shown
from farm.suite.vars import Variables
from farm.text import cut

SECRET = "Qx7-s3cret-passphrase"


def test_a_cut_inside_a_secret_ends_in_an_ellipsis_and_the_mask_hides_its_start():
    said = "w" * 190 + SECRET
    shown = cut(said, 200)
    assert shown == "w" * 190 + SECRET[:10] + "\u2026"
    masked = Variables({"PW": SECRET}, secrets=["PW"]).mask(shown)
    assert SECRET[:6] not in masked and masked.startswith("w" * 190)
    assert cut("short", 200) == "short"


def test_a_models_unreadable_answer_quoting_a_password_shows_none_of_it():
    """aiQuery's "expected ..., got <the answer>" quotes 200 characters of what the model
    wrote; a password it read off the screen, cut there, kept its start."""
    answer = {"data": None, "note": "x" * 170 + SECRET}
    masked = Variables({"PW": SECRET}, secrets=["PW"]).mask(f"got {_shown(answer)}")
    assert SECRET[:6] not in masked, masked[-40:]
