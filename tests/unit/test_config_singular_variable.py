"""FARM_RETRY for FARM_RETRIES: the singular of a setting's name, three letters away from it,
was ignored without a word (the typo check allowed two), so a CI job ran with no retries."""

from __future__ import annotations

from farm.config import misspelt_variables


def test_the_singular_of_a_plural_setting_is_named():
    said = misspelt_variables(environ={"FARM_RETRY": "2", "FARM_INFRA_RETRY": "1",
                                       "FARM_SCREENSHOT": "off"})
    assert said == [
        "FARM_INFRA_RETRY is not a farm setting and is ignored (did you mean "
        "FARM_INFRA_RETRIES?)",
        "FARM_RETRY is not a farm setting and is ignored (did you mean FARM_RETRIES?)",
        "FARM_SCREENSHOT is not a farm setting and is ignored (did you mean "
        "FARM_SCREENSHOTS?)"]


def test_a_suites_own_variables_are_still_left_alone():
    assert misspelt_variables(environ={"FARM_DEMO_URL": "http://x", "FARM_URLS": "a",
                                       "FARM_TEST_FAKE_FAIL": "1", "FARM_RETRIES": "1"}) == []
