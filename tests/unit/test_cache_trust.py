"""When the locate cache may be trusted, and the `farm cache` commands a user types: a cached
XPath that now selects another element is stale (an id moved to "Forgot password?" must not
be tapped for "Sign in"); entries a failed attempt used are dropped; `ls`/`clear` take a case
id or a suite, not any prefix; `export RUN_DIR` works from any directory; a cache store that
cannot be reached is a clear error, and an internal error's traceback goes to the state dir."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from click.testing import CliRunner

from farm.agent.api import zero_token_chain
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace, selection_prefixes, split_key
from farm.cache.locate import LocateCacheTier
from farm.cache.sqlite_store import SqliteStore
from farm.cache.store import MemoryStore
from farm.cli import cli
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import NeedsModel
from tests.support.farm_cli import run_main

NS = Namespace("demo/login", "web")
SIGN_IN_RECT = (10, 100, 120, 40)
FORGOT_RECT = (10, 160, 120, 40)


def node(i, role, parent=None, rect=(0, 0, 100, 30), **kw):
    return UINode(id=i, parent=parent, role=role, rect=Rect(x=rect[0], y=rect[1],
                  width=rect[2], height=rect[3]), **kw)


def R(rect):
    return Rect(x=rect[0], y=rect[1], width=rect[2], height=rect[3])


def login_page(sign_in_id="login-button", forgot_id=None):
    """The demo's form: a "Sign in" button (its label in a <span>), optionally a "Forgot
    password?" button under it."""
    nodes = [node(0, "form", rect=(0, 0, 600, 400)),
             node(1, "button", 0, SIGN_IN_RECT, clickable=True, resource_id=sign_in_id),
             node(2, "span", 1, (20, 110, 80, 20), text="Sign in")]
    if forgot_id is not None:
        nodes.append(node(3, "button", 0, FORGOT_RECT, clickable=True, resource_id=forgot_id,
                          text="Forgot password?"))
    xpaths = {f"//*[@id='{n.resource_id}']": [n.rect] for n in nodes if n.resource_id}
    return FakeDevice(UITree(source="dom", nodes=nodes), xpaths=xpaths)


def locate(store, device, prompt="Sign in", mode="read-write"):
    cache = CaseCache(store, NS, mode)
    cache.begin_step()
    hit = zero_token_chain(lambda t: t, cache).locate(prompt, device)
    return hit, cache.end_step(), cache


# ---- a cache hit must still be the element the prompt means -------------------------------------
def test_an_id_moved_to_another_button_is_stale_and_the_real_one_is_tapped():
    """The app gave "Forgot password?" the id the cached XPath names: the text tier finds
    "Sign in" again, and the entry is rewritten to its new id."""
    store = MemoryStore()
    hit, _, _ = locate(store, login_page())
    assert hit.tier == "text"
    entry = store.get(NS.key("locate", "Sign in", 0))
    assert entry["element"] == {"role": "button", "shown": ["sign in"], "size": [120, 40]}
    moved = login_page(sign_in_id="signin-submit", forgot_id="login-button")
    hit, use, _ = locate(store, moved)
    assert (hit.tier, hit.rect) == ("text", R(SIGN_IN_RECT))
    assert (use.hits, use.stale, use.written) == (0, 0, 1)
    assert store.get(NS.key("locate", "Sign in", 0))["xpaths"] == ["//*[@id='signin-submit']"]
    hit, use, _ = locate(store, moved)                  # the rewritten entry needs no writing
    assert (hit.tier, hit.rect, use) == ("text", R(SIGN_IN_RECT), None)


def test_an_entry_from_before_elements_were_kept():
    """Entries written by an older farm hold no element: one the text tier had found is left
    to that tier (its stale XPath is not tapped); one a model found is trusted as before."""
    moved = login_page(sign_in_id="signin-submit", forgot_id="login-button")
    store = MemoryStore()
    store.put(NS.key("locate", "Sign in", 0), {"xpaths": ["//*[@id='login-button']"],
                                               "tier": "text"})
    hit, use, _ = locate(store, moved, mode="read-only")
    assert (hit.tier, hit.rect, use) == ("text", R(SIGN_IN_RECT), None)
    store.put(NS.key("locate", "the sign-in button", 0), {
        "xpaths": ["//*[@id='signin-submit']"], "tier": "ai"})
    assert locate(store, moved, "the sign-in button", "read-only")[0].tier == "cache"


def test_a_label_that_changes_with_the_state_still_matches_a_literal_prompt():
    """"Cart" was found on "Cart (0)": the link reads "Cart (2)" now and is still the cart."""
    def cart(count):
        tree = UITree(source="dom", nodes=[node(0, "a", None, (900, 10, 90, 30), clickable=True,
                                                resource_id="cart-link",
                                                text=f"Cart ({count})")])
        return FakeDevice(tree, xpaths={"//*[@id='cart-link']": [R((900, 10, 90, 30))]})
    store = MemoryStore()
    entry = description_entry(store, cart(0), "Cart", R((900, 10, 90, 30)))  # a model found it
    assert entry["element"]["shown"] == ["cart (0)"]
    hit, use, _ = locate(store, cart(2), "Cart")
    assert (hit.tier, use.hits, use.stale) == ("cache", 1, 0)


def description_entry(store, device, prompt="the blue cart icon", rect=R(SIGN_IN_RECT)):
    """An entry as a model tier leaves it (the prompt is a description, not text on screen)."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    tier = LocateCacheTier(cache)
    tier.remember(prompt, LocateHit(rect, "ai"), LocateContext(device))
    return store.get(NS.key("locate", prompt, 0))


def test_a_description_prompt_trusts_only_the_element_it_was():
    """A model's "the primary button" cannot be text-matched: the cached element must still
    be of its role and still show what it showed."""
    store = MemoryStore()
    entry = description_entry(store, login_page(), "the primary button")
    assert entry["element"] == {"role": "button", "shown": ["sign in"], "size": [120, 40]}
    assert locate(store, login_page(), "the primary button", "read-only")[0].tier == "cache"
    link = UITree(source="dom", nodes=[node(0, "a", None, SIGN_IN_RECT, clickable=True,
                                            resource_id="login-button", text="Sign in")])
    for changed in (login_page(sign_in_id="signin-submit", forgot_id="login-button"),
                    FakeDevice(link, xpaths={"//*[@id='login-button']": [R(SIGN_IN_RECT)]})):
        cache = CaseCache(store, NS, "read-only")
        cache.begin_step()
        with pytest.raises(NeedsModel):     # stale: only a model could find it now
            zero_token_chain(lambda t: t, cache).locate("the primary button", changed)
        assert cache.step.stale == 1


def test_a_secret_shown_by_the_element_is_not_kept_in_the_entry():
    secret = "hunter22"
    tree = UITree(source="dom", nodes=[node(0, "button", None, SIGN_IN_RECT, clickable=True,
                                            resource_id="pay", text=f"Pay {secret}",
                                            name="Pay now")])
    device = FakeDevice(tree, xpaths={"//*[@id='pay']": [R(SIGN_IN_RECT)]})
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write", mask=lambda t: t.replace(secret, "***"))
    cache.begin_step()
    assert zero_token_chain(lambda t: t.replace("${CARD}", secret), cache).locate(
        "Pay ${CARD}", device).tier == "text"
    [(_, entry)] = list(store.items())
    assert secret not in json.dumps(entry) and entry["element"]["shown"] == ["pay now"]


# ---- entries a failed attempt used are dropped, like plans ------------------------------------
@pytest.mark.parametrize("status, mode, kept", [
    ("failed", "read-write", False), ("error", "read-write", False),
    ("passed", "read-write", True), ("interrupted", "read-write", True),
    ("failed", "read-only", True)])
def test_locate_entries_used_in_a_failed_attempt_are_dropped(status, mode, kept, caplog):
    store = MemoryStore()
    description_entry(store, login_page(), "the primary button")   # a model found it
    _, use, cache = locate(store, login_page(), "the primary button", mode=mode)
    assert use.hits == 1
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        cache.finish(status)
    assert (store.get(NS.key("locate", "the primary button", 0)) is not None) is kept
    if not kept:
        assert "locate cache: 1 entry used in this attempt dropped: the case " in caplog.text


def test_locate_entries_written_in_a_failed_attempt_are_not_kept():
    store = MemoryStore()
    _, use, cache = locate(store, login_page())
    assert use.written == 1
    cache.finish("failed")
    assert list(store.items()) == []


# ---- farm cache ls / clear: a case id or a suite, never any prefix ------------------------------
CASES = ("demo/login", "demo/login_success", "demo/login_failure", "demo/login/nested",
         "demo2/login")


@pytest.fixture
def filled(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path))
    monkeypatch.delenv("FARM_CACHE_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    store = SqliteStore(tmp_path / "cache.db")
    for case in CASES:
        store.put(Namespace(case, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='b']"]})
    yield store
    store.close()


def listed(*args):
    out = CliRunner().invoke(cli, ["cache", "ls", *args]).output
    return sorted(line.split("  ")[0] for line in out.splitlines() if "  web  " in line)


def test_cache_ls_takes_a_case_id_or_a_suite_not_any_prefix(filled):
    assert listed("demo/login") == ["demo/login", "demo/login/nested"]
    assert listed("demo/") == listed("demo") == sorted(CASES[:4])
    assert listed("demo/log") == [] and listed() == sorted(CASES)


def test_cache_clear_of_one_case_leaves_the_cases_whose_ids_start_alike(filled):
    out = CliRunner().invoke(cli, ["cache", "clear", "demo/login"]).output
    assert out.startswith("removed 2 entries from")       # the case and the folder below it
    left = sorted(split_key(k)["case"] for k, _ in filled.items())
    assert left == ["demo/login_failure", "demo/login_success", "demo2/login"]
    CliRunner().invoke(cli, ["cache", "clear", "demo/"])
    assert [split_key(k)["case"] for k, _ in filled.items()] == ["demo2/login"]


def test_selection_prefixes_stop_at_a_slash():
    assert selection_prefixes("demo/login") == ["v1|demo/login|", "v1|demo/login@",
                                                 "v1|demo/login/"]
    assert selection_prefixes("demo/login@pixel") == ["v1|demo/login@pixel|"]
    assert selection_prefixes("demo/") == ["v1|demo/"] and selection_prefixes("") == ["v1|"]


# ---- farm cache export RUN_DIR from any working directory ---------------------------------------
@pytest.fixture
def started_run(tmp_path, monkeypatch):
    """A project whose run was started in it (`farm run ai` → results.json names
    ai/shop.yaml, relative to the project), with the case's plan cached."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "ai").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "ai" / "farm.yaml").write_text("timeout: 60\n")
    (project / "ai" / "shop.yaml").write_text(
        "name: shop\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
        "      - ai: sign in\n")
    run_dir = project / ".farm" / "runs" / "20261202-010806-a9e0"
    run_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(json.dumps({"cases": [
        {"case_id": "ai/shop", "file": "ai/shop.yaml", "status": "passed"}]}))
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_CACHE_URL", raising=False)
    store = SqliteStore(tmp_path / "state" / "cache.db")
    store.put(Namespace("ai/shop", "web").key("plan", "sign in", 0), {"actions": [
        {"type": "Tap", "params": {"locate": {"prompt": "Sign in"}}}]})
    store.close()
    monkeypatch.chdir(elsewhere)
    return project, run_dir, elsewhere


def test_export_of_a_run_dir_works_from_another_directory(started_run, monkeypatch, capsys):
    project, run_dir, elsewhere = started_run
    code, _, err = run_main(monkeypatch, capsys, "cache", "export", run_dir, "-o", "x.yaml")
    assert code == 0, err
    assert "aiTap: Sign in" in (elsewhere / "x.yaml").read_text()


def test_export_names_the_run_s_missing_case_file(started_run, monkeypatch, capsys):
    project, run_dir, _ = started_run
    (project / "ai" / "shop.yaml").unlink()
    code, _, err = run_main(monkeypatch, capsys, "cache", "export", run_dir, "-o", "x.yaml")
    assert code == 4
    assert "the file of the run's case ai/shop, ai/shop.yaml, is missing" in err
    assert "problem in suite files" not in err


# ---- a store that cannot be reached; where an internal error's traceback goes ------------------
def closed_port() -> int:
    """A loopback port nothing listens on (taken from the OS, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_cache_url_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    url = f"redis://:hunter22@127.0.0.1:{closed_port()}/0"
    monkeypatch.setenv("FARM_CACHE_URL", url)
    code, _, err = run_main(monkeypatch, capsys, "cache", "ls")
    assert code == 4, err
    assert err.startswith(f"farm: error: cannot reach the cache store "
                          f"{url.replace('hunter22', '***')}")
    assert "hunter22" not in err and "internal error" not in err
    assert not (tmp_path / ".farm").exists()


def test_an_internal_error_s_traceback_goes_to_the_state_dir(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    SqliteStore(tmp_path / "state" / "cache.db").close()     # `cache ls` reads, makes none

    def broken(case=""):
        raise RuntimeError("a bug")
    monkeypatch.setattr("farm.cache.keys.selection_prefixes", broken)
    code, _, err = run_main(monkeypatch, capsys, "cache", "ls")
    log = tmp_path / "state" / "last-error.log"
    assert code == 3 and f"(traceback in {log})" in err
    assert "RuntimeError: a bug" in log.read_text()
    assert not (tmp_path / ".farm").exists()
