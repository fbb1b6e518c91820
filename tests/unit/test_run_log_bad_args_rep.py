"""farm.log's secret mask never raises into the code that logs: a log call whose arguments do
not fit its format (a library's slip) raised TypeError from inside logging, where logging itself
would have said so and gone on, turning a log line into the case's internal error."""

from __future__ import annotations

import logging

from farm.run_log import drop_handler, setup_logging


def test_a_log_call_with_arguments_that_do_not_fit_is_logged_masked_not_raised(tmp_path):
    handler = setup_logging(tmp_path, lambda text: text.replace("s3cret-value", "***"))
    logging.getLogger().removeHandler(handler)    # farm.log alone (not pytest's own capture)
    library = logging.getLogger("some.library.rep")
    library.propagate = False
    library.addHandler(handler)
    try:
        library.warning("token %s expired at %s", "s3cret-value")
        library.warning("next line %s", "fine")
    finally:
        library.removeHandler(handler)
        drop_handler(handler)
    log = (tmp_path / "farm.log").read_text(encoding="utf-8")
    assert "token %s expired at %s" in log and "next line fine" in log
    assert "s3cret-value" not in log and "***" in log
