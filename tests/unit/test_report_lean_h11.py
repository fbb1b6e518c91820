"""A 500-case report.html stays clearly under its 2.5 MB budget: wrapping a closed case's body
in <noscript> (with its id, facets and link) took it to 2.49 MB. What was written twice or
escaped needlessly is not: a case's summary words again in its search text, each quote of a
step's label as &quot;, a blank line between step rows."""

from __future__ import annotations

import re

from farm.report.html import render_html
from tests.support.reports import five_hundred_cases


def _big() -> str:
    return render_html(five_hundred_cases())     # as test_report.py's 500-case report


def test_a_500_case_report_is_well_under_its_budget():
    page = _big()
    # 2.49 MB with the noscript bodies; 2.42 MB before them
    assert len(page.encode()) < 2_400_000, len(page.encode())
    case = re.search(r'<details class="case st-passed" id="case=suite/case-000"[^>]*>', page)
    assert case and 'data-q="suite/case-000"' in case.group(0)    # no name, file, device again
    assert '<td>aiTap "button number 0 of case 0" <i>line 20</i>' in page
    assert "button number 0 of case 0&quot;" not in page
    assert not re.search(r'alt="after">\n<tr>', page)
