"""Suite files and .env as a Chinese team saves them: UTF-8 with a BOM and CRLF (Windows
Notepad), or not UTF-8 at all (GBK/GB18030 "ANSI", UTF-16 "Unicode"): read as meant, or refused
with the file, the line and the encoding it is in, never silently emptied."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.dotenv import read_dotenv
from farm.suite.loader import load_suites
from farm.suite.yamlpos import read_yaml
from farm.text import not_utf8

CASE = """name: 中文登录 🚀
web:
  url: https://example.com/
tasks:
  - name: 检查
    flow:
      - assertText: ${GREETING}
"""
ENV = "# 中文注释\nGREETING=你好，世界\nOTHER='全角：标点。'\n"


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf" + ENV.encode(),
                                  b"\xef\xbb\xbf" + ENV.replace("\n", "\r\n").encode(),
                                  b"\xef\xbb\xbfGREETING=\xe4\xbd\xa0\xe5\xa5\xbd\r\n"])
def test_a_dotenv_saved_with_a_bom_keeps_its_first_variable(tmp_path, data):
    """The BOM was read as part of the first name, and the line was skipped."""
    values = read_dotenv(_write(tmp_path / ".env", data))
    assert values["GREETING"].startswith("你好")


@pytest.mark.parametrize("encoding, said", [
    ("gbk", "not UTF-8 (byte 2): it reads as Chinese text in a legacy encoding"),
    ("big5", "invalid UTF-8 at byte 2"),
    ("utf-16", "saved as UTF-16")])
def test_a_dotenv_in_another_encoding_is_an_error_naming_it(tmp_path, encoding, said):
    """It was silently read as empty: every ${NAME} it sets was "undefined", nothing said why."""
    env = _write(tmp_path / ".env", "# 說明\nGREETING=你好，世界\n".encode(encoding))
    case = _write(tmp_path / "s" / "c.yaml", CASE.encode())
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, dotenv=env)
    [error] = caught.value.errors
    assert error.file == str(env) and error.message.startswith(said)
    assert error.message.endswith("save it as UTF-8 (Midscene's CLI reads .env as UTF-8 too)")
    assert error.line == (None if encoding == "utf-16" else 1)


def test_a_suite_dotenv_that_farm_does_not_read_is_not_an_error(tmp_path):
    """A GBK .env beside the suite is not the working directory's: farm does not read it."""
    _write(tmp_path / "s" / ".env", ENV.encode("gbk"))
    case = _write(tmp_path / "s" / "c.yaml", CASE.encode())
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, dotenv=tmp_path / "none" / ".env")
    [error] = caught.value.errors
    assert error.message.startswith("undefined variable ${GREETING}")


def test_a_case_with_a_bom_and_crlf_loads(tmp_path):
    case = _write(tmp_path / "s" / "c.yaml",
                  b"\xef\xbb\xbf" + CASE.replace("\n", "\r\n").encode())
    [suite] = load_suites([case], env={"GREETING": "你好"}, dotenv=None)
    [loaded] = suite.cases
    assert loaded.name == "中文登录 🚀" and loaded.tasks[0].name == "检查"


@pytest.mark.parametrize("encoding, said, line", [
    ("gbk", "not UTF-8 (byte 6): it reads as Chinese text in a legacy encoding (GBK/GB18030", 1),
    ("gb18030", "not UTF-8 (byte 6): it reads as Chinese text in a legacy encoding", 1),
    ("utf-16", "saved as UTF-16 (it starts with a UTF-16 byte order mark)", None)])
def test_a_case_in_another_encoding_names_it(tmp_path, encoding, said, line):
    """GBK was "not a text file (invalid UTF-8 …)", UTF-16 "not a text file (contains NUL
    bytes)": both are text, saved in the wrong encoding."""
    text = CASE.replace(" 🚀", "")
    path = _write(tmp_path / "c.yaml", text.encode(encoding))
    root, [error] = read_yaml(path)
    assert root is None and error.message.startswith(said)
    assert error.message.endswith("; save it as UTF-8 (Midscene reads YAML as UTF-8 too)")
    assert error.line == line


def test_latin1_bytes_are_not_taken_for_chinese():
    assert not_utf8("Müller straße\n".encode("latin-1")) == ("invalid UTF-8 at byte 1", 1)
    assert not_utf8("x\ncafé\n".encode("latin-1")) == ("invalid UTF-8 at byte 5", 2)
    assert not_utf8("中文".encode()) == ("", None)
