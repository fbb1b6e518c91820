"""What farm holds of a phone command's output while it runs (`farm.devices.android_shell.
Tail`): the last bytes only, however much comes (an endless command's output was all held:
3 GB in 8 s), and the step's note counts what was dropped on the way."""

from __future__ import annotations

from farm.devices.android_shell import Tail


def test_a_stream_is_held_as_its_tail_and_the_note_counts_all_of_it():
    tail = Tail(keep=100)
    for i in range(10_000):
        tail.add(f"line {i:05d}\n".encode())          # 11 bytes a line, 110,000 in all
        assert len(tail.data) <= 200
    assert tail.total == 110_000
    assert tail.text() == kept(110_000, "".join(f"line {i:05d}\n" for i in range(9991, 10_000)))


def kept(total: int, tail: str) -> str:
    return f"[farm: {total - len(tail):,} characters of {total:,} cut; the last " \
           f"{len(tail):,} kept]\n{tail}"


def test_a_short_stream_is_kept_whole():
    tail = Tail(keep=100)
    tail.add(b"done\r\n")
    assert tail.text(crlf=True) == "done\n"
