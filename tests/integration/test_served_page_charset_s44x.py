"""A served page is read in the charset it declares: a legacy GBK/GB2312 intranet page
(``<meta charset="gbk">``, or ``http-equiv`` Content-Type) was sent as UTF-8, the header won
over its <meta>, Chromium showed mojibake and the case failed with only 'expected text … is
not on screen'. Real `farm run`, real Chromium, the suite's `serve:` app server."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results


def _case(folder: Path, name: str, page: str, texts: list[str]) -> None:
    checks = "".join(f"      - assertText: {t}\n" for t in texts)
    (folder / f"{name}.yaml").write_text(
        f"name: {name}\nweb:\n  serve: .\n  url: {page}\ntasks:\n  - name: t\n    flow:\n"
        f"{checks}", encoding="utf-8")


def test_a_served_page_reads_in_the_charset_it_declares(tmp_path: Path, farm: FarmCli):
    (tmp_path / "gbk.html").write_bytes(
        '<!DOCTYPE html><html><head><meta charset="gbk"><title>GBK</title></head><body>'
        '<p>这是GBK编码的页面：你好，世界！</p><script src="app.js"></script></body></html>'
        .encode("gbk"))
    (tmp_path / "app.js").write_bytes("document.body.append('脚本：已加载')".encode("gbk"))
    (tmp_path / "gb2312.html").write_bytes(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">'
        '</head><body><p>欢迎登录内网系统</p></body></html>'.encode("gb2312"))
    _case(tmp_path, "gbk", "gbk.html", ["你好，世界！", "脚本：已加载"])
    _case(tmp_path, "gb2312", "gb2312.html", ["欢迎登录内网系统"])
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    cases = results(tmp_path / "run")["cases"]
    assert done.returncode == 0, [s["error"] for c in cases for s in c["steps"]]
    assert sorted(c["status"] for c in cases) == ["passed", "passed"]


def test_the_served_header_names_the_page_charset(tmp_path: Path):
    """What any client (curl, an HTTP step) is told: the page's declared charset, UTF-8 for a
    valid UTF-8 file that declares none, no charset for one that is neither (sniffed)."""
    import urllib.request

    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    (tmp_path / "gbk.html").write_bytes('<meta charset="GBK"><p>你好</p>'.encode("gbk"))
    (tmp_path / "utf8.html").write_text("<p>‹ Inbox · 東京</p>", encoding="utf-8")
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    (tmp_path / "ascii-gbk.html").write_bytes(b'<meta charset="gbk"><p>plain</p>')
    with AppServer() as served:
        served.serve([AppSpec(name="site", serve=str(tmp_path))])
        base = served.urls[tmp_path.resolve()]
        kinds = {name: urllib.request.urlopen(f"{base}/{name}").headers["Content-Type"]
                 for name in ("gbk.html", "utf8.html", "latin.txt", "ascii-gbk.html")}
    assert kinds == {"gbk.html": "text/html; charset=gbk",
                     "utf8.html": "text/html; charset=utf-8", "latin.txt": "text/plain",
                     "ascii-gbk.html": "text/html; charset=gbk"}
