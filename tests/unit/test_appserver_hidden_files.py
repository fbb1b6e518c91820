"""A suite's folder served whole (``serve: .``, on ``FARM_SERVE_HOST=0.0.0.0`` for cluster
workers) put its ``.env``, ``.git/config`` and ``.npmrc`` on the network, and listed every file
of a folder without an index.html: neither is served now; the app's own files are."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from farm.appserver import AppServer
from farm.suite.model import AppSpec


def status(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def served(tmp_path: Path):
    (tmp_path / "index.html").write_text("<p>shop</p>")
    (tmp_path / ".env").write_text("SHOP_PASSWORD=hunter2-secret\n")
    (tmp_path / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_secret\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("url = https://user:token@example.com/x\n")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log('hi')")
    (tmp_path / ".well-known").mkdir()
    (tmp_path / ".well-known" / "security.txt").write_text("Contact: a@b.c\n")
    with AppServer() as server:
        server.serve([AppSpec(name="shop", serve=tmp_path)])
        yield server.urls[tmp_path.resolve()]


@pytest.mark.parametrize("path", ["/.env", "/.npmrc", "/.git/config", "/.git/", "/%2Eenv",
                                  "/assets/../.env", "/.env?x=1"])
def test_dot_files_are_not_served(served: str, path: str):
    code, body = status(served + path)
    assert code == 404, body
    assert b"secret" not in body and b"token" not in body


def test_a_folder_without_an_index_is_not_listed(served: str):
    code, body = status(served + "/assets/")
    assert code == 404 and b"app.js" not in body


def test_the_app_s_own_files_are_served(served: str):
    assert status(served + "/") == (200, b"<p>shop</p>")
    assert status(served + "/index.html") == (200, b"<p>shop</p>")
    assert status(served + "/assets/app.js") == (200, b"console.log('hi')")
    assert status(served + "/.well-known/security.txt")[0] == 200
