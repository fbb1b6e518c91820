"""The one Celery task: run a case attempt on this worker's device."""

from __future__ import annotations

import logging
from typing import Any

from farm.cluster.app import TASK, make_app
from farm.config import load_settings

log = logging.getLogger("farm.worker")

app = make_app(load_settings())
RUNTIME: Any = None     # the DeviceRuntime of this process, set by worker.main


class _GivenBackSaidOnce(logging.Filter):
    """Drop Celery's warning, with a traceback, for a job this device gave back (``Reject``):
    the device process has said why in one line (`DeviceRuntime._make_ready`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from celery.exceptions import Reject
        return not (record.exc_info and isinstance(record.exc_info[1], Reject))


logging.getLogger("celery.app.trace").addFilter(_GivenBackSaidOnce())


@app.task(name=TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_case_task(payload: dict[str, Any]) -> str:
    """Run one case attempt. ``payload`` is JSON: run_id, job, case, env, app_dirs."""
    if RUNTIME is None:
        raise RuntimeError("farm.run_case needs a device: start workers with `farm worker`")
    from worker.runtime import NotReady
    try:
        what = RUNTIME.execute(payload)
    except NotReady as exc:     # back to its queue, unclaimed: another device runs it
        from celery.exceptions import Reject
        raise Reject(str(exc), requeue=True) from None
    log.info("%s attempt %s: %s (run %s)", payload["job"]["case_id"], payload["job"]["attempt"],
             what, payload.get("run_id", "?"))
    return what
