"""An attempt's claim outlives the broker's visibility timeout, whatever the longest case a
cluster allows (FARM_CLUSTER_MAX_CASE_SECONDS, at most a day): the copy of a case Redis gives
out again after that timeout (its worker was killed mid-case; or the case is still running)
finds the claim and is dropped. Had the claim expired first, a second device would run an
attempt the run no longer waits for, for as long as the case takes, while the run goes on."""

import pytest

from farm.cluster import store
from farm.cluster.app import visibility_timeout
from farm.config import MAX_SECONDS, Settings

SWEEP_S = 100       # kombu's sweep of the unacked index: every 10 s, scanning every 10th time


@pytest.mark.parametrize("longest", [60.0, 3600.0, 4 * 3600.0, 12 * 3600.0, MAX_SECONDS])
def test_a_claim_is_still_there_when_its_message_comes_back(longest):
    settings = Settings(broker_url="redis://127.0.0.1:6379/0",
                        cluster_max_case_seconds=longest)
    assert visibility_timeout(settings) + SWEEP_S < store.CLAIM_TTL_S
