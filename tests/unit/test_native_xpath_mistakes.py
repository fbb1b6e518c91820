"""A step's XPath with a typo, over a phone's tree, fails the step saying what is wrong: an
unclosed ``[`` (``//*[@text='Go'``) ended the case as farm's own internal error ("'NoneType'
object is not callable", a traceback in farm.log), counted as an error, not a failure."""

from __future__ import annotations

import pytest

from farm.devices.native_tree import parse_uiautomator, query_xml
from farm.errors import StepFailed

DUMP = ("<hierarchy rotation='0'><node class='android.widget.Button' text='Go' "
        "bounds='[0,0][50,50]'/></hierarchy>")


@pytest.mark.parametrize("xpath, why", [
    ("//*[@text='Go'", "a [ is not closed"),
    ("//node[", "a [ is not closed"),
    ("//*[@text='Go']]", "']' is not understood there"),
    ("//*[@text=Go]", "invalid predicate"),
])
def test_a_typo_fails_the_step_saying_what_is_wrong(xpath, why):
    tree = parse_uiautomator(DUMP, 100, 100)
    with pytest.raises(StepFailed) as failed:
        query_xml(DUMP, xpath, tree)
    assert str(failed.value) == (f"invalid XPath {xpath!r} (native trees take ElementTree's "
                                 f"XPath subset): {why}")
