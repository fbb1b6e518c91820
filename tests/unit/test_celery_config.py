"""The Celery hardening the cluster relies on (REFERENCE.md §8); no broker needed."""

import pytest

from farm.cluster.app import make_app, time_limits, visibility_timeout
from farm.config import Settings
from farm.devices.specs import parse_device_specs
from farm.errors import ConfigError


def settings(url="redis://:pw@127.0.0.1:6399/3", **kw):
    return Settings(broker_url=url, **kw)


def test_json_only_acks_late_prefetch_one():
    conf = make_app(settings()).conf
    assert conf.task_serializer == conf.result_serializer == "json"
    assert conf.accept_content == ["json"]
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1 and conf.worker_concurrency == 1
    assert conf.worker_cancel_long_running_tasks_on_connection_loss


@pytest.mark.parametrize("longest", [60.0, 3600.0, 7200.0])
def test_limits_ordered_below_visibility_timeout(longest):
    s = settings(cluster_max_case_seconds=longest)
    soft, hard = time_limits(longest * 10, s)
    assert soft < hard < visibility_timeout(s)
    conf = make_app(s).conf
    assert conf.broker_transport_options["visibility_timeout"] == visibility_timeout(s)
    assert conf.result_backend_transport_options["visibility_timeout"] == visibility_timeout(s)


def test_cluster_prefix_keys_celery_queues():
    conf = make_app(settings(cluster_prefix="nightly")).conf
    assert conf.broker_transport_options["global_keyprefix"] == "nightly:celery:"


def test_rediss_url_gets_tls():
    conf = make_app(settings("rediss://:pw@redis.example:6380/0")).conf
    assert conf.broker_use_ssl and conf.redis_backend_use_ssl


def test_worker_device_specs_one_parser():
    specs = parse_device_specs("browser:2,android", Settings())
    assert [(s.kind, s.count, s.platform) for s in specs] == [("browser", 2, "web"),
                                                              ("android", 1, "android")]
    with pytest.raises(ConfigError, match="unknown device kind 'fake'"):
        parse_device_specs("fake:1", Settings())
