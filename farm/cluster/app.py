"""The Celery app shared by `farm run` (to send) and `farm worker` (to consume); the worker
registers the task on it (worker/tasks.py), the client sends by name.

Hardening per REFERENCE.md §8: JSON only; acks_late with prefetch 1 so a message is only taken
by a device that is free and is not acknowledged until its case is done; reject on worker loss;
a visibility timeout above the hard limit of the longest case, for the broker and the result
backend; cancel long-running tasks when the broker connection drops (the client re-runs them,
keyed by attempt, so nothing counts twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from celery import Celery

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings

SOFT_GRACE_S = 15.0     # soft limit = case timeout + this (farm's own timeout fires first)
HARD_GRACE_S = 45.0     # hard limit = soft + this
# visibility timeout = FARM_CLUSTER_MAX_CASE_SECONDS + this (above the hard limit)
VISIBILITY_MARGIN_S = int(SOFT_GRACE_S + HARD_GRACE_S + 600)
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
TASK = "farm.run_case"


def broker_url(settings: "Settings") -> str:
    return settings.broker_url.get_secret_value() if settings.broker_url else DEFAULT_BROKER


def visibility_timeout(settings: "Settings") -> int:
    """Above the hard limit of the longest case, so a running case is never redelivered."""
    return int(settings.cluster_max_case_seconds) + VISIBILITY_MARGIN_S


def outlasting(timeouts: dict[str, float], settings: "Settings") -> str | None:
    """What to tell the user of cases (id → timeout) that may run past the visibility timeout:
    Redis then gives a running case's job to a second worker, which drops it (its claim), so
    the case still runs once, but that worker's log says 'attempt already claimed'. The
    value that counts is the workers': each consumer sweeps the unacked messages of all."""
    longest = settings.cluster_max_case_seconds
    over = sorted(((t, cid) for cid, t in timeouts.items() if t > longest), reverse=True)
    if not over:
        return None
    named = ", ".join(f"{cid} {t:g}s" for t, cid in over[:3])
    more = f" and {len(over) - 3} more" if len(over) > 3 else ""
    need = f"{over[0][0]:g}"
    return (f"{len(over)} case timeout(s) above FARM_CLUSTER_MAX_CASE_SECONDS={longest:g} "
            f"({named}{more}): once one runs past a worker's visibility timeout "
            f"(FARM_CLUSTER_MAX_CASE_SECONDS + {VISIBILITY_MARGIN_S}s),"
            f" Redis hands its job to a second worker, which drops it (the case runs once); "
            f"set FARM_CLUSTER_MAX_CASE_SECONDS={need} where each `farm worker` runs (the "
            f"workers apply it) and for this run")


def time_limits(case_timeout: float, settings: "Settings") -> tuple[float, float]:
    """(soft, hard) Celery limits for a case: soft < hard < visibility timeout."""
    soft = min(case_timeout, settings.cluster_max_case_seconds) + SOFT_GRACE_S
    return soft, soft + HARD_GRACE_S


def make_app(settings: "Settings") -> Celery:
    """A Celery app on the settings' broker (``redis://`` or ``rediss://``, password allowed)."""
    url = broker_url(settings)
    app = Celery("farm", broker=url, backend=url)
    transport = {"visibility_timeout": visibility_timeout(settings),
                 "global_keyprefix": settings.cluster_prefix + ":celery:"}
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
