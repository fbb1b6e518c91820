"""The Celery hardening the cluster relies on (REFERENCE.md §8); no broker needed."""

from worker.app import VISIBILITY_TIMEOUT_S, MAX_CASE_SECONDS, make_app, time_limits
from worker.main import parse_specs


def test_json_only_acks_late_prefetch_one():
    conf = make_app("redis://:pw@127.0.0.1:6399/3").conf
    assert conf.task_serializer == conf.result_serializer == "json"
    assert conf.accept_content == ["json"]
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1 and conf.worker_concurrency == 1
    assert conf.worker_cancel_long_running_tasks_on_connection_loss


def test_limits_ordered_below_visibility_timeout():
    soft, hard = time_limits(MAX_CASE_SECONDS * 10)
    assert soft < hard < VISIBILITY_TIMEOUT_S
    conf = make_app("redis://127.0.0.1:6399/0").conf
    assert conf.broker_transport_options["visibility_timeout"] == VISIBILITY_TIMEOUT_S
    assert conf.result_backend_transport_options["visibility_timeout"] == VISIBILITY_TIMEOUT_S


def test_rediss_url_gets_tls():
    conf = make_app("rediss://:pw@redis.example:6380/0").conf
    assert conf.broker_use_ssl and conf.redis_backend_use_ssl


def test_worker_device_specs():
    assert parse_specs("browser:2,fake") == [("browser", 2), ("fake", 1)]
