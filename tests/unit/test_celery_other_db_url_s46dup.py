"""A run whose workers are on another database of its Redis says where they are: the other
databases are looked at through the run's own URL (its password, TLS options kept) with the
database swapped, also when the URL names its database in the query (``?db=3``)."""

from __future__ import annotations

from farm.executors.celery import _on_db


def test_another_database_of_the_runs_redis_keeps_the_url_but_its_database():
    url = "rediss://u:p%40ss@redis.example:6380/3?ssl_cert_reqs=none&db=3"
    assert _on_db(url, 0) == "rediss://u:p%40ss@redis.example:6380/0?ssl_cert_reqs=none"
    assert _on_db("redis://h:6379", 5) == "redis://h:6379/5"


def test_the_database_named_in_a_message_is_just_server_and_number():
    assert _on_db("redis://h:6379/3?db=3&x=1#f", 0, shown=True) == "redis://h:6379/0"
