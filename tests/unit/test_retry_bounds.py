"""No retry storm (REFERENCE §7: Marathon re-queues incomplete tests without limit): whatever
mix of device losses and test failures a case meets, it gets at most one attempt plus its
infrastructure quota plus its test-retry quota, and every retry after a device loss avoids
the devices that lost it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from farm.attempts import Outcome, RetryPolicy, next_attempt
from farm.schedule import Job


# (the other outcomes end a case: tests/unit/test_attempts.py)
@given(outcomes=st.lists(st.sampled_from([Outcome.INFRA, Outcome.FAILED]), min_size=1,
                         max_size=40),
       infra=st.integers(0, 3), policy_retries=st.integers(0, 3),
       own=st.one_of(st.none(), st.integers(0, 3)))
def test_attempts_stay_within_both_quotas(outcomes, infra, policy_retries, own):
    policy = RetryPolicy(infra_retries=infra, test_retries=policy_retries)
    quota = policy_retries if own is None else own
    job: Job | None = Job("s/case", "android", 60.0, test_retries=own)
    attempts, lost_on = 0, set()
    for i, result in enumerate(outcomes):
        if job is None:
            break
        attempts += 1
        assert job.attempt == attempts
        assert lost_on <= job.avoid_devices
        if result is Outcome.INFRA:
            lost_on.add(f"phone-{i}")
        job = next_attempt(job, result, f"phone-{i}", policy)
    assert attempts <= 1 + infra + quota
    infra_losses = sum(1 for o in outcomes[:attempts] if o is Outcome.INFRA)
    assert infra_losses <= infra + 1
