"""Real `farm run`, real Chromium: Chinese targets with a role noun (登录按钮, 用户名输入框,
同意用户协议复选框, 帮助链接, 「提交订单」) are found with no model, and a secret a page shows
in another width with a space put in (密码:芝麻开门 123 for 密码：芝麻开门123) is masked in
farm.log, results.json and junit.xml."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<h1>登录</h1>
<p id="mix">-</p>
<label>用户名 <input id="u" type="text"></label>
<label><input id="terms" type="checkbox"> 同意用户协议</label>
<button onclick="document.getElementById('mix').textContent='已登录'">登录</button>
<a href="#help" onclick="document.title='帮助'">帮助</a>
<button onclick="document.title='已下单'">提交订单</button>
</body></html>"""

SHOWN = ("A 密码:芝麻开门 123 B | G 密码: 芝麻开门123 H | "
         "C 密码：芝麻开门 １２３ D")


def test_chinese_role_targets_and_a_width_gapped_secret(tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    secrets = tmp_path / "密钥"
    secrets.mkdir()
    (secrets / "MY_SECRET").write_text("密码：芝麻开门123", encoding="utf-8")
    steps = ["aiTap: 登录按钮", "assertText: 已登录", "aiInput: 用户名输入框\n        value: 张三",
             "aiTap: 同意用户协议复选框", "aiTap: 帮助链接", "aiTap: 「提交订单」",
             "aiTap: 登录 按钮",
             f"javascript: \"document.getElementById('mix').textContent='{SHOWN}'; 'ok'\"",
             "assertText: 不存在 ${MY_SECRET}"]
    tasks = "".join(f"  - name: t{i}\n    continueOnError: true\n    flow:\n      - {step}\n"
                    for i, step in enumerate(steps))
    (tmp_path / "c.yaml").write_text("name: c\nweb:\n  serve: .\n  url: page.html\ntasks:\n"
                                     + tasks, encoding="utf-8")
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1", "--report-dir",
             tmp_path / "run", "--junit-xml", tmp_path / "run" / "junit.xml",
             FARM_SECRETS_DIR=str(secrets))
    (case,) = results(tmp_path / "run")["cases"]
    found = case["steps"][:8]
    assert [s["status"] for s in found] == ["passed"] * 8, found
    assert case["steps"][8]["status"] == "failed"
    for name in ("farm.log", "results.json", "junit.xml", "report.html"):
        text = (tmp_path / "run" / name).read_text(encoding="utf-8")
        assert "芝麻开门" not in text, name
    log = (tmp_path / "run" / "farm.log").read_text(encoding="utf-8")
    assert "A *** B" in log and "G *** H" in log and "C *** D" in log
