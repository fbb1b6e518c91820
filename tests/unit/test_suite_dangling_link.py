"""A case file that is a link whose target is gone (a moved shared flow) says so: it said
"cannot read file: No such file or directory" of a file `ls` lists."""

from __future__ import annotations

import os

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_to_nothing_names_its_target(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "shared.yaml").symlink_to("../flows/login.yaml")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    assert [e.message for e in caught.value.errors] == [
        "a link to ../flows/login.yaml, which does not exist: fix or remove the link"]
