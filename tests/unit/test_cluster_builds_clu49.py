"""Workers on another commit of the same farm version: the run says so once on stderr (the
same words as for another version, with both builds; a checkout with uncommitted edits on one
side only as "locally edited"), and a case such a worker ran names its build in its
``device_info``. Before, only a different ``__version__`` was said: workers of three commits
served one run in silence."""

from __future__ import annotations

import pytest

from farm import __version__
from farm.executors import celery
from farm.results import CaseResult
from tests.unit.test_cluster_versions_clu import DEVICE, Clock, lease, sent

RUN = f"{__version__}+625b2e6605cf.dirty"


@pytest.fixture(autouse=True)
def run_build(monkeypatch):
    monkeypatch.setattr(celery, "_run_build", lambda: RUN)


def said(tmp_path, capsys, **more: object) -> str:
    ex, _ = sent(tmp_path, Clock())
    pools = {"web": [lease(version=__version__, **more)]}
    ex._say_versions(pools)
    ex._say_versions(pools)
    return capsys.readouterr().err


def test_a_worker_of_another_commit_is_said_once_with_both_builds_clu49(tmp_path, capsys):
    other = f"{__version__}+efee4000409f.dirty"
    assert said(tmp_path, capsys, build=other) == (
        f"farm: warning: worker {DEVICE} runs farm {other} (another commit), this run farm "
        f"{RUN}: it may not read this run's cases (run the same farm version on every worker "
        "and client)\n")


def test_the_same_commit_edited_on_one_side_is_said_as_locally_edited_clu49(tmp_path, capsys):
    clean = f"{__version__}+625b2e6605cf"
    err = said(tmp_path, capsys, build=clean)
    assert err.startswith(f"farm: warning: worker {DEVICE} runs farm {clean} (the same commit, "
                          f"this run's checkout locally edited), this run farm {RUN}: "), err
    assert err.count("\n") == 1, err


def test_the_same_build_or_one_without_a_commit_is_not_said_clu49(tmp_path, capsys):
    assert said(tmp_path, capsys, build=RUN) == ""
    assert said(tmp_path, capsys, build=__version__) == ""     # (no checkout: tells nothing)


def test_a_job_that_vanished_names_the_other_build_clu49(tmp_path):
    from tests.unit.test_cluster_versions_clu import vanished_error
    other = f"{__version__}+efee4000409f"
    err = vanished_error(tmp_path, lease(version=__version__, build=other))
    assert f"{DEVICE} runs farm {other} (another commit); this run farm {RUN}: " in err, err


def test_a_case_a_worker_of_another_build_ran_names_it_clu49():
    result = CaseResult(run_id="r", case_id="c", name="c", file="c.yaml", platform="web",
                        status="passed", device=DEVICE, device_info="Chromium 156.0")
    other = f"{__version__}+efee4000409f.dirty"
    assert celery._built_by({"build": other}, result).device_info == (
        f"Chromium 156.0 (worker farm {other})")
    assert celery._built_by({"build": RUN}, result).device_info == "Chromium 156.0"
    assert celery._built_by({}, result).device_info == "Chromium 156.0"    # an older worker
