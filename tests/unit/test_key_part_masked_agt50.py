"""A key an endpoint echoes in part is hidden too: "your key is <key> and <key[3:]>" showed
as "your key is *** and good-key-123456" on the console, in farm.log, results.json, the report
and JUnit. Now a tail of 12 or more of a secret's characters is hidden, and a key's body
after a known prefix (sk-, sk-ant-, sk-proj-) of 8 characters or more; short values, and a
secret's start or middle that is ordinary text, as before."""

from __future__ import annotations

from farm.llm.litellm_client import _masker
from farm.suite.vars import Variables

KEY = "sk-good-key-123456"


def test_a_key_quoted_in_part_by_the_endpoint_is_hidden_agt50():
    mask = _masker("http://127.0.0.1:1/v1", [KEY])
    said = mask(f"401: your key is {KEY} and {KEY[3:]}; also {KEY[6:]}. Check it.")
    assert said == "401: your key is *** and ***; also ***. Check it."


def test_a_keys_body_after_its_known_prefix_is_hidden_agt50():
    mask = Variables.hiding(["sk-proj-abcd1234", "sk-ant-zyxw9876"]).mask
    assert mask("got proj-abcd1234 and zyxw9876") == "got proj-*** and ***"


def test_short_runs_and_short_values_stay_as_they_were_agt50():
    mask = Variables.hiding([KEY, "pw-1234"]).mask
    assert mask("key-123456 is 10 characters of it") == "key-123456 is 10 characters of it"
    assert mask("od-key-12345 is its middle") == "od-key-12345 is its middle"
    assert mask("pw-1234 and pw-123") == "*** and pw-123"
