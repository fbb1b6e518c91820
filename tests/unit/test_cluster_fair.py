"""Fair sharing of a device pool between concurrent cluster runs (pure arithmetic)."""

from hypothesis import given, strategies as st

from farm.cluster.fair import fair_allocation, to_dispatch


def test_equal_split_between_two_hungry_runs():
    assert fair_allocation(4, {"a": 10, "b": 10}) == {"a": 2, "b": 2}


def test_small_demand_leaves_the_rest_to_others():
    assert fair_allocation(6, {"a": 1, "b": 10, "c": 10}) == {"a": 1, "b": 3, "c": 2}


def test_every_run_gets_a_device_when_capacity_allows():
    alloc = fair_allocation(3, {"a": 5, "b": 5, "c": 5})
    assert all(v == 1 for v in alloc.values())


def test_new_run_waits_for_free_devices_not_preemption():
    # a holds both devices; b arrives: b's share is 1 but nothing is free yet
    assert to_dispatch(2, "b", {"a": 8, "b": 8}, {"a": 2, "b": 0}, 8) == 0
    # a must not top up past its share of 1 once b is waiting
    assert to_dispatch(2, "a", {"a": 8, "b": 8}, {"a": 1, "b": 0}, 6) == 0
    assert to_dispatch(2, "b", {"a": 8, "b": 8}, {"a": 1, "b": 0}, 8) == 1


def test_alone_a_run_uses_every_free_device():
    assert to_dispatch(5, "a", {"a": 20}, {"a": 2}, 18) == 3


@given(st.integers(0, 50), st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 30),
                                           min_size=1))
def test_allocation_never_exceeds_capacity_or_demand(capacity, demands):
    alloc = fair_allocation(capacity, demands)
    assert sum(alloc.values()) == min(capacity, sum(demands.values()))
    assert all(0 <= alloc[r] <= demands[r] for r in demands)
    hungry = [r for r in demands if alloc[r] < demands[r]]
    if hungry:      # max-min fair: nobody left wanting has less than anyone else minus one
        assert max(alloc.values()) - min(alloc[r] for r in hungry) <= 1
