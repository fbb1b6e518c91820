"""A newcomer following README.md: `farm cache ls demo/login` offered demo/mobile/ios_login, not
the demo/login_* cases it starts; `farm report --history` with no history left an empty .farm/;
`--tag smok` on a suite without tags said only "16 deselected by --tag smok"; and
`default_timeout = "90s"` in farm.toml read pydantic's "unable to parse string as a number"."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

CASES = ("demo/login_success", "demo/login_failure", "demo/mobile/ios_login", "demo/checkout")


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_CACHE_URL", "FARM_BROKER_URL", "FARM_RESULTS_HISTORY_URL",
                 "FARM_DEFAULT_TIMEOUT", "FARM_RETRIES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cache_ls_of_the_start_of_case_ids_offers_those_cases(here, monkeypatch, capsys):
    store = SqliteStore(here / "state" / "cache.db")
    for case in CASES:
        store.put(Namespace(case, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='b']"]})
    code, out, err = run_main(monkeypatch, capsys, "cache", "ls", "demo/login")
    assert (code, err) == (0, "")
    assert out.strip().endswith("no case or suite named demo/login has any (did you mean "
                                "demo/login_failure or demo/login_success?)")
    code, out, err = run_main(monkeypatch, capsys, "cache", "ls", "demo/mob")
    assert out.strip().endswith("(did you mean demo/mobile/?)")
    store.close()


def test_report_history_with_no_history_creates_no_folder(here, monkeypatch, capsys):
    work = here / "work"
    work.mkdir()
    monkeypatch.setenv("FARM_STATE_DIR", ".farm")
    monkeypatch.chdir(work)
    code, out, err = run_main(monkeypatch, capsys, "report", "--history")
    assert code == 4 and "Nothing written" in err
    code, out, err = run_main(monkeypatch, capsys, "report", "--history", "--out",
                              "pages/night/h.html")
    assert code == 4 and "Nothing written" in err
    assert list(work.iterdir()) == []


def test_report_history_with_no_history_keeps_a_folder_the_user_had(here, monkeypatch, capsys):
    """`--out new/../existing/h.html` removed the user's empty existing/ after Nothing written."""
    work = here / "work"
    (work / "existing").mkdir(parents=True)
    monkeypatch.setenv("FARM_STATE_DIR", ".farm")
    monkeypatch.chdir(work)
    code, out, err = run_main(monkeypatch, capsys, "report", "--history", "--out",
                              "new/../existing/h.html")
    assert code == 4 and "Nothing written" in err
    assert (work / "existing").is_dir()


def test_a_tag_on_a_suite_without_tags_says_no_case_has_one(here, monkeypatch, capsys):
    (here / "s").mkdir()
    for name in ("a", "b"):
        (here / "s" / f"{name}.yaml").write_text(
            f"name: {name}\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
            "      - sleep: 1\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "browser:1",
                              "--tag", "smok")
    assert code == 5
    assert ("--tag smok: no case has a tag (a case file's or farm.yaml's `tags: [smoke]` "
            "sets them)") in out + err


@pytest.mark.parametrize("where", ["toml", "env"])
def test_a_duration_in_default_timeout_says_it_takes_seconds(here, monkeypatch, capsys, where):
    if where == "toml":
        (here / "farm.toml").write_text('retries = 1\ndefault_timeout = "90s"\n')
        said, written = "farm.toml:2", "default_timeout = 90"
    else:
        monkeypatch.setenv("FARM_DEFAULT_TIMEOUT", "1m30s")
        said, written = "env FARM_DEFAULT_TIMEOUT", "FARM_DEFAULT_TIMEOUT=90"
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert (f"setting 'default_timeout' ({said}): " in err
            and f"is not a number: it takes seconds as a number ({written}); --timeout and "
                "farm.yaml's timeout: take a duration such as 90s" in err)
    assert "unable to parse" not in err


def test_other_numbers_say_what_they_take(here, monkeypatch, capsys):
    (here / "farm.toml").write_text('retries = "two"\nmodel_timeout = "2m"\n')
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert ("setting 'retries' (farm.toml:1): 'two' is not a number: it takes a whole number "
            "(retries = 2)") in err
    assert ("setting 'model_timeout' (farm.toml:2): '2m' is not a number: it takes seconds as "
            "a number (model_timeout = 120)") in err
