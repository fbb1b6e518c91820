"""The Celery app shared by `farm run` (to send) and `farm worker` (to consume).

Hardening per REFERENCE.md §8: JSON only; acks_late with prefetch 1 so a message is only taken
by a device that is free and is not acknowledged until its case is done; reject on worker loss;
a visibility timeout above the hard limit of the longest case, for the broker and the result
backend; cancel long-running tasks when the broker connection drops (the client re-runs them,
keyed by attempt, so nothing counts twice).
"""

from __future__ import annotations

import os

from celery import Celery

MAX_CASE_SECONDS = float(os.environ.get("FARM_CLUSTER_MAX_CASE_SECONDS", "3600"))
SOFT_GRACE_S = 15.0     # soft limit = case timeout + this (farm's own timeout fires first)
HARD_GRACE_S = 45.0     # hard limit = soft + this
VISIBILITY_TIMEOUT_S = int(MAX_CASE_SECONDS + SOFT_GRACE_S + HARD_GRACE_S + 600)


def broker_url() -> str:
    return (os.environ.get("FARM_BROKER_URL") or os.environ.get("CELERY_BROKER_URL")
            or "redis://127.0.0.1:6379/0")


def time_limits(case_timeout: float) -> tuple[float, float]:
    """(soft, hard) Celery limits for a case: soft < hard < visibility timeout."""
    soft = min(case_timeout, MAX_CASE_SECONDS) + SOFT_GRACE_S
    return soft, soft + HARD_GRACE_S


def make_app(url: str | None = None) -> Celery:
    """A Celery app on ``url`` (``redis://`` or ``rediss://``, password allowed)."""
    url = url or broker_url()
    app = Celery("farm", broker=url, backend=url, include=["worker.tasks"])
    transport = {"visibility_timeout": VISIBILITY_TIMEOUT_S,
                 "global_keyprefix": os.environ.get("FARM_CLUSTER_PREFIX", "farm") + ":celery:"}
    app.conf.update(
        task_serializer="json", result_serializer="json", accept_content=["json"],
        event_serializer="json",
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_concurrency=1,
        worker_pool="solo",
        worker_max_tasks_per_child=None,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        worker_soft_shutdown_timeout=0,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        task_ignore_result=True,      # results travel as farm events keyed run/case/attempt
        task_default_queue="farm.default",
        task_create_missing_queues=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_send_sent_event=False,
        broker_pool_limit=4,
    )
    if url.startswith("rediss://"):
        import ssl
        tls = {"ssl_cert_reqs": ssl.CERT_REQUIRED}
        app.conf.broker_use_ssl = tls
        app.conf.redis_backend_use_ssl = tls
    return app


app = make_app()
