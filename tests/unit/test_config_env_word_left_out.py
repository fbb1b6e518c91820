"""FARM_MODEL_KEY / FARM_MODEL_URL (a middle word of FARM_MODEL_API_KEY / FARM_MODEL_BASE_URL
left out) get the warning a misspelt setting gets: they were ignored without a word, and the
model was called with no key or at its provider's own address. A variable that leaves out the
first word (FARM_BASE_URL, FARM_API_KEY: a suite's own, as FARM_DEMO_URL is) is left alone."""

from __future__ import annotations

from farm.config import misspelt_variables


def test_a_middle_word_left_out_names_the_setting():
    said = misspelt_variables(environ={"FARM_MODEL_KEY": "k", "FARM_MODEL_URL": "u",
                                       "FARM_RESULTS_URL": "r"})
    assert said == [
        "FARM_MODEL_KEY is not a farm setting and is ignored (did you mean FARM_MODEL_API_KEY?)",
        "FARM_MODEL_URL is not a farm setting and is ignored (did you mean "
        "FARM_MODEL_BASE_URL?)",
        "FARM_RESULTS_URL is not a farm setting and is ignored (did you mean "
        "FARM_RESULTS_HISTORY_URL?)"]


def test_a_suites_own_variables_are_left_alone():
    assert misspelt_variables(environ={"FARM_BASE_URL": "http://app", "FARM_API_KEY": "k",
                                       "FARM_DEMO_URL": "http://x", "FARM_APP_URL": "y",
                                       "FARM_CLUSTER_SECONDS": "9"}) == []
