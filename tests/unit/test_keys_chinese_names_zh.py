"""A key written in Chinese ("aiKeyboardPress: 回车") is still no key (a device presses its
own names), but its error says which one was meant: "did you mean 'Enter'?", where it said
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.devices.keys import native_key, unknown_key
from farm.errors import UserError
from farm.suite.loader import load_suites

HEADS = {"web": "web:\n  url: https://example.test/\n",
         "android": "android:\n  launch: a.b\n", "ios": "ios:\n  launch: a.b\n"}


def refusal(tmp_path: Path, platform: str, key: str) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(HEADS[platform] + "tasks:\n  - name: t\n    flow:\n"
                    f"      - aiKeyboardPress: '{key}'\n", encoding="utf-8")
    with pytest.raises(UserError) as refused:
        load_suites([path], env={})
    assert f"{path}:6:" in str(refused.value)
    return str(refused.value)


@pytest.mark.parametrize("platform, key, meant", [
    ("web", "回车", "Enter"), ("web", "回车键", "Enter"), ("web", "退格", "Backspace"),
    ("web", "删除", "Delete"), ("web", "空格", "Space"), ("web", "Tab键", "Tab"),
    ("web", "制表符", "Tab"), ("web", "向上", "ArrowUp"), ("web", "主页", "Home"),
    ("android", "返回", "Back"), ("android", "回车", "Enter"), ("ios", "返回", "Back"),
    ("ios", "主页", "Home"),
])
def test_a_chinese_key_name_is_refused_with_the_key_meant(tmp_path, platform, key, meant):
    said = refusal(tmp_path, platform, key)
    assert f"unknown key '{key}'" in said and f"(did you mean '{meant}'?)" in said
    assert unknown_key(meant, platform) is None       # (what it offers is pressed there)


def test_a_key_the_platform_lacks_is_not_offered(tmp_path):
    said = refusal(tmp_path, "web", "返回")        # a browser has no Back key
    assert "did you mean 'Back'" not in said
    assert native_key("向上", "ios") is None          # an iPhone has no arrow keys


def test_a_part_of_a_combination(tmp_path):
    said = refusal(tmp_path, "web", "Control+回车")
    assert "unknown key '回车' in 'Control+回车'" in said and "did you mean 'Enter'?" in said
