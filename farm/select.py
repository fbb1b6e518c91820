"""Which cases a run takes, as pure functions (pytest's -k and last-failed, Flank's shards).

Every selector splits cases into (selected, deselected) and says why a case was left out, so
``farm run --collect-only`` and results.json can list deselected cases with their reason.
Order of application (`select_cases`): -k, --tag/--exclude-tag, platforms without a device (a
shared-context batch's setup file comes back with its unit), then --shard, so that every CI job
of a sharded run agrees on the same list before splitting it, and --last-failed last (it reads
what this machine remembers, which may differ between jobs).
"""

from __future__ import annotations

import heapq
import math
import os
import re
import shlex
import stat
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from farm.errors import ConfigError
from farm.suite.model import Case


@dataclass(frozen=True)
class Deselected:
    case: Case
    reason: str


@dataclass
class Selection:
    selected: list[Case]
    deselected: list[Deselected] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)     # one line each, printed before the run
    # --shard I/N left nothing only because N is more than the cases (a CI matrix wider than
    # the selection): nothing is wrong, unlike a -k or --tag that matched nothing
    empty_shard: bool = False
    shard: str | None = None    # --shard I/N as "I/N": the run's results say which part it is

    def drop(self, keep: Callable[[Case], str | None]) -> None:
        """Move the cases for which ``keep`` returns a reason to ``deselected``."""
        still = []
        for case in self.selected:
            reason = keep(case)
            if reason is None:
                still.append(case)
            else:
                self.deselected.append(Deselected(case, reason))
        self.selected = still


# ---- -k EXPR ---------------------------------------------------------------------------------
# full-width parentheses (and the small form ones) are parentheses, as NFKC reads them: a
# Chinese input method types （最近 or 数字）, and -k read it as two words that matched nothing
_TOKEN = re.compile(r"\s*([(（﹙]|[)）﹚]|[^\s()（）﹙﹚]+)")
# ... unless that does not parse: then they are a name's own (a case named 登录成功（中文用户名）,
# its name pasted into -k, was "unexpected '('"), part of the word they touch
_WORD_TOKEN = re.compile(r"\s*([(]|[)]|[^\s()]+)")
_WIDE_BRACKETS = re.compile("[（）﹙﹚]")


def nfkc(text: str) -> str:
    """``text`` as -k and --tag compare it: full-width and half-width forms alike (探针：歧义
    and 探针:歧义, ｌｏｇｉｎ and login), as an input method may type either."""
    return unicodedata.normalize("NFKC", text)


class KeywordExpr:
    """pytest's ``-k``: words joined by ``and``/``or``/``not`` and parentheses; a word matches
    when it is a case-insensitive substring of the case's name or id (`case_haystack`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self._parse(_TOKEN)
        except ConfigError as exc:
            if not _WIDE_BRACKETS.search(text):
                raise
            try:
                self._parse(_WORD_TOKEN)
            except ConfigError:
                raise exc from None

    def _parse(self, token: re.Pattern[str]) -> None:
        self.tokens: list[tuple[str, int]] = []
        self._written: dict[int, str] = {}      # column -> the token as typed (（ for ()
        pos = 0
        while pos < len(self.text):
            m = token.match(self.text, pos)
            if m is None:     # only trailing whitespace is left
                break
            self.tokens.append((nfkc(m.group(1)), m.start(1) + 1))
            self._written[m.start(1) + 1] = m.group(1)
            pos = m.end()
        if not self.tokens:
            raise self._error("expected a word, got nothing", 1)
        self._i = 0
        try:
            self.tree = self._or()
        except RecursionError:
            raise self._error("parentheses nested too deeply", 1) from None
        if self._i < len(self.tokens):
            word, col = self.tokens[self._i]
            raise self._error(f"unexpected {self._written[col]!r}{self._joined()}", col)

    def _joined(self) -> str:
        """`-k "Log in"` (a name's words): the expression with ``and`` between words that
        had only a space, when that parses; pytest's -k takes no phrase either."""
        ops = ("and", "or", "not", "(", ")")
        out: list[str] = []
        for word, _ in self.tokens:
            if out and (out[-1] not in ops or out[-1] == ")") and word not in ("and", "or", ")"):
                out.append("and")
            out.append(word)
        if len(out) == len(self.tokens) or any(     # (nothing to join; AND: said apart)
                w.lower() in ("and", "or", "not") and not w.islower() for w, _ in self.tokens):
            return ""
        text = _unquoted(" ".join(out).replace("( ", "(").replace(" )", ")"))   # "a b": a b
        try:
            KeywordExpr(text)
        except ConfigError:
            return ""
        return f"; a space joins no words: -k {shlex.quote(text)} matches cases with all of them"

    def _error(self, what: str, column: int) -> ConfigError:
        cased = [w for w, _ in self.tokens
                 if w.lower() in ("and", "or", "not") and not w.islower()]
        if cased:       # `-k "login AND checkout"`: a word to match, as in pytest
            what += f"; {cased[0]!r} is a word to match: and / or / not are lower case"
        return ConfigError(f"-k {self.text!r}: column {column}: {what} (write words joined by "
                           "and / or / not, with parentheses)")

    def _peek(self) -> str | None:
        return self.tokens[self._i][0] if self._i < len(self.tokens) else None

    # ``a or b or …`` is one node with a list of operands, not a nested pair per ``or``: a -k
    # generated from a list of a thousand case ids nested as deep as Python's recursion limit.
    def _or(self):
        terms = [self._and()]
        while self._peek() == "or":
            self._i += 1
            terms.append(self._and())
        return terms[0] if len(terms) == 1 else ("or", terms)

    def _and(self):
        terms = [self._not()]
        while self._peek() == "and":
            self._i += 1
            terms.append(self._not())
        return terms[0] if len(terms) == 1 else ("and", terms)

    def _not(self):
        negations = 0
        while self._peek() == "not":
            self._i += 1
            negations += 1
        atom = self._atom()
        return ("not", atom) if negations % 2 else atom

    def _atom(self):
        if self._i >= len(self.tokens):
            raise self._error("expected a word or '(' at the end", len(self.text) + 1)
        word, col = self.tokens[self._i]
        self._i += 1
        if word == "(":
            inner = self._or()
            if self._peek() != ")":
                raise self._error("missing ')'", len(self.text) + 1)
            self._i += 1
            return inner
        if word in ("and", "or", ")"):
            raise self._error(f"expected a word, got {self._written[col]!r}", col)
        return ("word", word.lower())

    def matches(self, haystack: str) -> bool:
        text = nfkc(haystack).lower()

        def ev(node) -> bool:
            op = node[0]
            if op == "word":
                return node[1] in text
            if op == "not":
                return not ev(node[1])
            if op == "and":
                return all(ev(term) for term in node[1])
            return any(ev(term) for term in node[1])
        return ev(self.tree)


def case_haystack(case: Case) -> str:
    """What -k looks in: the case's name and its id, which is its file's path in the suite
    (``demo/mobile/ios_login`` for suites/demo/mobile/ios_login.yaml). Not the path as given
    or shown: the folders above the suite (``/home/runner/work/…``, ``suites/``) and the
    ``.yaml`` every file has made a short word select every case, and a word select
    differently on another machine or working directory (pytest's -k leaves out the folders
    above its rootdir for the same reason). A case ``agent.testId`` names keeps its file's
    path in the suite too (``-k mobile/`` for demo/mobile/login.yaml, as --collect-only shows)."""
    try:
        inside = case.file.relative_to(case.suite_root).with_suffix("").as_posix()
    except ValueError:      # a batch's file outside its suite: its id alone
        return f"{case.name}\n{case.id}"
    path = f"{case.suite_root.name}/{inside}"
    return f"{case.name}\n{case.id}" + ("" if path == case.id else f"\n{path}")


# ---- --shard I/N -------------------------------------------------------------------------------
MAX_SHARDS = 10_000      # CI jobs of one run; more is a slip (and a plan of that many loads)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/3"`` -> (2, 3); 1 <= I <= N <= `MAX_SHARDS`. A blank one is an error, never "no
    shard": `--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"`'s "/" and `--shard "$SHARD"`'s "", with
    the variables unset, ran every case on every CI job."""
    if not (text or "").replace("/", "").strip():
        raise ConfigError(f"--shard {text!r}: an empty shard (an unset variable, as in "
                          "\"$SHARD\"?): expected I/N, e.g. 1/3, or leave --shard out")
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m:
        raise ConfigError(f"--shard {text!r}: expected I/N, e.g. 1/3")
    # past MAX_SHARDS's digits a number is too large anyway (and int() of 4,300 digits raises)
    index, total = (int(n.lstrip("0")[:len(str(MAX_SHARDS)) + 1] or 0) for n in m.groups())
    if total > MAX_SHARDS:
        raise ConfigError(f"--shard {text}: expected N of at most {MAX_SHARDS} (the number of "
                          "CI jobs the run is split over)")
    if total < 1 or not 1 <= index <= total:
        raise ConfigError(f"--shard {text}: expected 1 <= I <= N (shards are numbered from 1)")
    return index, total


def shard_weight(case: Case) -> int:
    """What a case weighs in a shard plan: its steps, plus one for opening its page or app.

    Read from the suite file alone, so every CI job of a sharded run, on whatever runner and
    with whatever state dir, weighs a case the same. Not remembered durations (each runner's
    history differs, and a state dir shared by sequential jobs learns between shards: the jobs
    would split differently, running some cases twice and others never); not the case's
    ``timeout`` (``--timeout``, FARM_DEFAULT_TIMEOUT or a ``${NAME}`` may set it per runner,
    and most cases share the default, which balances nothing)."""
    return 1 + len(case.steps)


def shard_plan(weights: Mapping[str, float], total: int) -> dict[str, int]:
    """Case id -> shard number (1..total), balancing weights as Flank balances seconds:
    heaviest first, each to the shard with the least weight so far (ties: the lower id, the
    lower shard number). The same ids and weights always give the same plan, so separate CI
    jobs agree as long as their weights come from what they all have (`shard_weight`)."""
    # (load, shard index) of each shard a case can reach: past one per case, shards stay empty
    loads = [(0.0, i) for i in range(min(total, len(weights)))]
    plan: dict[str, int] = {}
    for cid in sorted(weights, key=lambda c: (-weights[c], c)):
        load, best = heapq.heappop(loads)
        heapq.heappush(loads, (load + weights[cid], best))
        plan[cid] = best + 1
    return plan


class Timings(dict):
    """``--shard-timings``: case id -> seconds, merged from every file given; ``notes`` (one
    line each: a file that held none, a run read from its journal) and ``files``, how many
    files gave timings, for the shard's line. ``shard_runs``: the files that were one shard's
    run (file, "3/4") and gave a case's newest time; ``shards``, every shard a file was the
    run of, and ``ran``, the case ids those shards' runs took: a CI job given only its own
    shard's earlier run plans on other times than the other jobs (`_one_shards`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []
        self.files = 0
        self.shard_runs: list[tuple[Path, str]] = []
        self.shards: set[str] = set()
        self.ran: set[str] = set()


@dataclass
class _Run:
    """What one timings file says of its run besides the times: which shard it was (None: a
    whole run) and the case ids it took."""
    shard: str | None = None
    ran: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Source:
    path: Path              # a file, or a run directory read from its journal
    named: bool             # given as such, not found in a folder given
    journal: bool = False


class _Unusable(Exception):
    """A file that is no farm results.json or JUnit XML: the flag's error when it was named,
    left out with a warning when it was found in a folder given."""


def read_timings(paths: Path | Sequence[Path]) -> Timings:
    """``--shard-timings``: case id -> seconds a case took in earlier runs (its attempts
    together), from each path given: a results.json, a run directory (its results.json, else
    its journal, rebuilt as `farm report` does), a JUnit XML file (`--junit-xml`: the
    ``case_id`` line of each <system-out>, else classname/name), or a folder of them (every
    run directory, results.json and *.xml under it: a sharded pipeline's files). A case timed
    in several weighs its newest time (by its run's start; a tie: the later file, in the order
    given, a folder's sorted), so every CI job given the same files plans the same shards, as
    Flank shards on an earlier run's JUnit XML. A path that does not exist is an error (a
    typo); a file that holds no timings (a killed pipeline's placeholder) is a warning."""
    given = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out = Timings()
    newest: dict[str, tuple[datetime, int, float]] = {}
    sources = ((source, path) for path in map(Path, given) for source in _sources(path, out.notes))
    shard_runs: dict[int, tuple[Path, str]] = {}
    for order, (source, _) in enumerate(sources):    # (each path's notes before its files')
        run = _Run()
        found = _source_timings(source, out.notes, run)
        out.files += bool(found)
        if run.shard is not None:
            shard_runs[order] = (source.path, run.shard)
            out.shards.add(run.shard)
            out.ran |= run.ran
        for cid, (when, seconds) in found.items():
            if cid not in newest or (when, order) >= newest[cid][:2]:
                newest[cid] = (when, order, seconds)
    out.update((cid, seconds) for cid, (_, _, seconds) in newest.items())
    won = {order for _, order, _ in newest.values()}
    out.shard_runs = [run for order, run in shard_runs.items() if order in won]
    return out


def _sources(path: Path, notes: list[str]) -> list[_Source]:
    """What ``path`` stands for: itself; a run directory's results.json, else its journal; a
    folder's run directories, results.json and *.xml files, walked in sorted order (a run
    directory's own junit.xml and artifacts are the same run: not walked)."""
    if not path.is_dir():
        return [_Source(path, named=True)]
    from farm.journal import JOURNAL

    def unreadable(exc: OSError) -> None:
        raise ConfigError(f"--shard-timings {exc.filename or path}: cannot read it "
                          f"({exc.strerror or exc})")
    found: list[_Source] = []
    for root, dirs, files in os.walk(path, onerror=unreadable):
        dirs.sort()
        here = Path(root)
        if "results.json" in files:
            found.append(_Source(here / "results.json", named=here == path))
        elif JOURNAL in files:
            found.append(_Source(here, named=here == path, journal=True))
        else:
            found.extend(_Source(here / name, named=False) for name in sorted(files)
                         if name.lower().endswith(".xml"))
            continue
        dirs.clear()
    if not found:
        notes.append(f"warning: --shard-timings {path}: no results.json, run directory or "
                     "JUnit XML (*.xml) in it: planned without it")
    return found


def _source_timings(source: _Source, notes: list[str],
                    run: _Run | None = None) -> dict[str, tuple[datetime, float]]:
    """One file's timings, each with its run's start; a run directory without results.json
    read from its journal. A file that is no timings file is the flag's error when named, a
    warning when a folder held it; one without a case that ran to its end, a warning."""
    path = source.path
    try:
        if source.journal:
            text = _journal_text(path)
            notes.append(f"--shard-timings {path}: no results.json in it (a killed run?): its "
                         "timings read from its journal (results.jsonl)")
        else:
            text = _timings_text(path)
        found = _parsed(text, run or _Run())
    except _Unusable as exc:
        if source.named:
            raise ConfigError(f"--shard-timings {path}: not a farm results.json or JUnit XML "
                              f"({exc})") from None
        notes.append(f"warning: --shard-timings {path}: not a farm results.json or JUnit XML "
                     f"({exc}): planned without it")
        return {}
    if not found:
        notes.append(f"warning: --shard-timings {path}: no case timings in it (no case of it "
                     "ran to its end): planned without it")
    odd = next((cid for cid, (_, seconds) in found.items() if not math.isfinite(seconds)), None)
    if odd is not None:     # NaN / inf weights put every case in one shard
        raise ConfigError(f"--shard-timings {path}: case {odd} took {found[odd][1]} seconds: "
                          "not a number of seconds")
    return found


def _parsed(text: str, run: _Run) -> dict[str, tuple[datetime, float]]:
    try:
        if text.lstrip().startswith("<"):
            return _junit_timings(text, run)
        return _json_timings(text, run)
    except KeyError as exc:
        raise _Unusable(f"no {exc} in it") from None
    except (ValueError, TypeError, AttributeError, SyntaxError) as exc:   # ET.ParseError too
        raise _Unusable(str(exc)) from None


def _journal_text(run_dir: Path) -> str:
    """The results.json a run directory's journal rebuilds (`farm report`'s rebuild)."""
    from farm.journal import recover
    try:
        return recover(run_dir).model_dump_json()
    except OSError as exc:
        raise ConfigError(f"--shard-timings {run_dir}: cannot read its journal "
                          f"({exc.strerror or exc})") from None
    except ValueError as exc:       # (not UTF-8)
        raise _Unusable(f"its journal: {exc}") from None


MAX_TIMINGS_BYTES = 512 * 1024 * 1024   # a results.json of 100,000 cases is ~200 MB


def _timings_text(path: Path) -> str:
    """The text of ``--shard-timings`` file ``path``, UTF-8 as farm writes it: a file, or a
    pipe (``--shard-timings <(curl …)``, /dev/stdin under ``… |``); never a device (a terminal
    waits for typing, /dev/zero never ends)."""
    try:
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise ConfigError(f"--shard-timings {path}: not a file: expected a results.json, "
                              "a run directory or a JUnit XML file")
        with path.open("rb") as file:
            data = file.read(MAX_TIMINGS_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"--shard-timings {path}: cannot read it ({exc.strerror or exc})"
                          ) from None
    if len(data) > MAX_TIMINGS_BYTES:
        raise _Unusable(f"larger than {MAX_TIMINGS_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unusable(f"not UTF-8 text at byte {exc.start}") from None


_OLDEST = datetime.min.replace(tzinfo=timezone.utc)


def _when(stamp: object) -> datetime:
    """A run's start as its file gives it (ISO 8601); a file that gives none is the oldest."""
    try:
        when = datetime.fromisoformat(str(stamp or ""))
    except ValueError:
        return _OLDEST
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def timed(status: str, error_kind: str | None, device: str | None = None,
          reason: str | None = None) -> bool:
    """Whether a case that ended so in an earlier run ran to its end there, so its time is
    what it takes, as the durations history counts it (`farm.history`): a verdict, a timeout
    (it held its device that long), or a skip that came on its ``device`` (a step that needs a
    model: a run without one holds the device as long). Not a case skipped before a device
    opened, or never started (``reason`` "not run: …": `--maxfail`, Ctrl-C, the model budget,
    a batch's failed file), interrupted, or ended by its device, the model or farm breaking:
    their 0 s or few seconds put every such case in one shard (LPT gives weightless cases to
    the least-loaded shard, one after another). Those are weighed as the file lacked them."""
    if status in ("passed", "failed", "flaky"):
        return True
    if status == "skipped":
        return bool(device) and not (reason or "").startswith("not run")
    from farm.attempts import Outcome, error_outcome
    return status == "error" and error_outcome(error_kind or "InternalError") is Outcome.TIMEOUT


_IN_SHARD = re.compile(r"--shard: in shard (\d+)/(\d+)$")


def _json_shard(data: dict) -> str | None:
    """Which shard a results.json's run was: its ``shard``, else (a farm before it wrote one)
    read from its cases deselected as "--shard: in shard 2/4": the shard none was sent to."""
    if data.get("shard"):
        return str(data["shard"])
    others = [m.groups() for d in data.get("deselected") or ()
              if (m := _IN_SHARD.match(str(d.get("reason") or "")))]
    if not others:
        return None
    total = max(int(n) for _, n in others)
    left = set(range(1, total + 1)) - {int(i) for i, _ in others}
    return f"{left.pop()}/{total}" if len(left) == 1 else f"?/{total}"


def _json_timings(text: str, run: _Run) -> dict[str, tuple[datetime, float]]:
    import json
    data = json.loads(text)
    cases, when = data["cases"], _when(data.get("started"))
    run.shard = _json_shard(data)
    run.ran.update(str(case["case_id"]) for case in cases)
    out: dict[str, tuple[datetime, float]] = {}
    for case in cases:
        status = str(case.get("status") or "passed")
        if not timed(status, (case.get("error") or {}).get("kind"), case.get("device"),
                     case.get("reason")):
            continue
        attempts = [case, *(case.get("previous") or ())]
        if case.get("attempt_duration") is not None:    # (its duration is every attempt's)
            attempts = [case]
        out[str(case["case_id"])] = (when, sum(float(a.get("duration") or 0) for a in attempts))
    return out


def _junit_timings(text: str, run: _Run) -> dict[str, tuple[datetime, float]]:
    """Each <testcase>'s time, with the timestamp of the <testsuite> around it (a merged file
    holds several runs: a case in two keeps its newer time)."""
    import xml.etree.ElementTree as ET
    out: dict[str, tuple[datetime, float]] = {}
    root = ET.fromstring(text)
    stamps: dict[ET.Element, str] = {root: root.get("timestamp") or ""}
    for element in root.iter():         # (document order: a parent before its children)
        for child in element:
            stamps[child] = child.get("timestamp") or stamps[element]
        if element.tag == "property" and element.get("name") == "shard":
            run.shard = element.get("value") or run.shard
        if element.tag != "testcase" or element.get("classname") == "farm.load":
            continue                    # (farm.load: a file that did not load)
        said = re.search(r"^case_id: (.+)$", element.findtext("system-out") or "", re.M)
        run.ran.add(said.group(1).strip() if said else
                    f"{element.get('classname')}/{element.get('name')}")
        found = _junit_case(element)
        if found is not None:
            when = _when(stamps[element])
            if found[0] not in out or when >= out[found[0]][0]:
                out[found[0]] = (when, found[1])
    return out


def _junit_case(case) -> tuple[str, float] | None:
    """A <testcase>'s (case id, seconds); None for one that did not run to its end."""
    facts = case.findtext("system-out") or ""       # (`farm.report.junit._facts`)
    error, skipped = case.find("error"), case.find("skipped")
    device = re.search(r"^device: (.+)$", facts, re.M)
    if skipped is not None and not timed("skipped", None, device and device.group(1),
                                         skipped.get("message")):
        return None
    if error is not None and not timed("error", error.get("type")):
        return None
    said = re.search(r"^case_id: (.+)$", facts, re.M)
    cid = said.group(1).strip() if said else f"{case.get('classname')}/{case.get('name')}"
    return cid, float(case.get("time") or 0)


def _per_case(timings: Mapping[str, float], ids: set[str]) -> dict[str, float]:
    """``timings`` by case: a --matrix run's results time each case once per device group
    (``case@group``), and a shard runs all of its groups."""
    out: dict[str, float] = {}
    for cid, seconds in timings.items():
        case = cid if cid in ids else cid.rsplit("@", 1)[0]
        out[case] = out.get(case, 0.0) + seconds
    return out


def _timed_weights(cases: Sequence[Case], given: Mapping[str, float], index: int, total: int,
                   notes: list[str]) -> dict[str, float]:
    """Case id -> seconds: remembered in ``given`` (`read_timings`), else estimated from its
    steps at the known cases' seconds per `shard_weight` (the same estimate on every job);
    and the line saying how many cases the timings covered."""
    timings = _per_case(given, {c.id for c in cases})
    if isinstance(given, Timings) and given.shard_runs:
        _one_shards(given, cases)
    known = [c for c in cases if c.id in timings]
    steps = sum(shard_weight(c) for c in known)
    rate = sum(max(timings[c.id], 0.0) for c in known) / steps if steps else 1.0
    rest = " (the rest by their steps)" if len(known) < len(cases) else ""
    if not known and cases:     # another suite's file, or ids from another tool
        rest = (f" (its {len(timings)} case id(s) are none of this run's: another suite's "
                "file? planned on the steps)" if timings else
                " (no timings in what was given: planned on the steps)")
    files = given.files if isinstance(given, Timings) else 1
    if files > 1:
        rest += f", from {files} files (each case's newest time)"
    notes.append(f"--shard {index}/{total}: planned on the timings of {len(known)} of "
                 f"{len(cases)} case(s){rest}")
    return {c.id: max(timings[c.id], 0.0) if c.id in timings else shard_weight(c) * rate
            for c in cases}


def _one_shards(given: Timings, cases: Sequence[Case]) -> None:
    """Refuse timings that are some shards' runs only (each CI job's own earlier run, from a
    cache keyed per shard): every job plans on different times, so their plans disagree and
    cases run on two shards or on none, every job passing. All N shards' runs, or shards'
    runs that together took every case selected, can be the same on every job; a shard's run
    older than a full run given with it gives no time, and is no matter."""
    have = given.shards
    totals = {shard.split("/")[1] for shard in have}
    if any(all(f"{i}/{n}" in have for i in range(1, int(n) + 1)) for n in totals):
        return
    ids = {c.id for c in cases}
    if ids <= set(_per_case(dict.fromkeys(given.ran, 0.0), ids)):
        return
    path, shard = given.shard_runs[0]
    which = (f"shard {shard}'s run" if not shard.startswith("?") else
             f"the run of one shard of {shard.split('/')[1]}")
    raise ConfigError(f"--shard-timings {path} is {which}: every job must get the same "
                      "timings (all shards' files, or one full run)")


# ---- --last-failed -----------------------------------------------------------------------------
FAILING = ("failed", "error")


def update_last_failed(previous: Iterable[str], verdicts: Mapping[str, str]) -> list[str]:
    """pytest's cache: cases that ran drop out when they passed and join when they failed;
    cases that did not run keep their previous state."""
    out = set(previous)
    for cid, status in verdicts.items():
        if status in FAILING:
            out.add(cid)
        elif status in ("passed", "flaky"):
            out.discard(cid)
    return sorted(out)


def skipped_themselves(results: Iterable[Any]) -> list[str]:
    """--fail-on-skip: the skipped cases that made the run fail, for --last-failed (needs a
    model, a ``skip:``), not those a stop (--maxfail, Ctrl-C) left unrun: `unfinished_of`
    takes those."""
    return sorted(r.case_id for r in results
                  if r.status == "skipped" and not (r.reason or "").startswith("not run"))


@dataclass(frozen=True)
class Unfinished:
    """What the last run left undone when it was stopped before its end (Ctrl-C, a kill,
    --maxfail, the model budget): its cases that ended interrupted and those it never ran
    (by case id, or result id ``case@group`` in a --matrix run)."""

    run_id: str
    interrupted: frozenset[str] = frozenset()
    not_run: frozenset[str] = frozenset()
    # a killed run `farm report` has not rebuilt yet (read from its journal): its verdicts,
    # which lastfailed.json does not have (its farm never reached the run's end)
    failed: frozenset[str] = frozenset()
    passed: frozenset[str] = frozenset()


def unfinished_of(run_id: str, interrupted: bool,
                  cases: Iterable[tuple[str, str, str | None]]) -> Unfinished | None:
    """The last run's undone cases, from the (id, status, reason) of each of its cases; None
    when it ran to its end, so that --last-failed keeps its meaning then. Stopped before its
    end: interrupted, or a case ended interrupted or was not run because of a stop (not the
    files a shared-context batch skips after one of them failed: a complete run has those)."""
    stopped, undone = interrupted, {"interrupted": set(), "not run": set()}
    for cid, status, reason in cases:
        if status == "interrupted":
            stopped = True
            undone["interrupted"].add(cid)
        elif status == "skipped" and (reason or "").startswith("not run"):
            stopped = stopped or not any(why in (reason or "") for why in _BATCH_NOT_RUN)
            undone["not run"].add(cid)
    if not stopped:
        return None
    return Unfinished(run_id, frozenset(undone["interrupted"]), frozenset(undone["not run"]))


def pending_runs(runs: Sequence[tuple[frozenset[str], Unfinished | None]] | Unfinished | None,
                 ids: set[str]) -> list[Unfinished]:
    """--last-failed: of ``runs`` (newest first: each its case ids and what it left undone),
    the selected cases (``ids``) each stopped run left undone and no run since has run again:
    a case's newest run decides (a verdict there ends it), so a run of other cases, or of some
    of these, hides none of the rest, and a complete run of them since ends them all. Newest
    run first, each with only its cases still undone; [] when none is."""
    if runs is None or isinstance(runs, Unfinished):
        return [runs] if runs is not None else []
    seen: set[str] = set()
    out = []
    for cases, unfinished in runs:
        newest_here = {_case_of(c, ids) for c in cases} & ids - seen
        seen |= newest_here
        if unfinished is None or not newest_here:
            continue
        left = [frozenset(r for r in undone if _case_of(r, ids) in newest_here)
                for undone in (unfinished.interrupted, unfinished.not_run, unfinished.failed,
                               unfinished.passed)]
        if any(left):
            out.append(Unfinished(unfinished.run_id, *left))
    return out


def _case_of(result_id: str, ids: set[str]) -> str:
    """A --matrix run records its results by result id, ``case@group``: their case."""
    return result_id if result_id in ids else result_id.rsplit("@", 1)[0]


# why a batch's later files were not run in a run that went on (`farm.runner`)
_BATCH_NOT_RUN = ("closed the shared browser context", "the batch's setup file",
                  "(the batch has continueOnError: false)")


# ---- all together ------------------------------------------------------------------------------
@dataclass
class SelectOptions:
    keyword: str | None = None
    tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    last_failed: Sequence[str] | None = None      # ids from the previous runs; None = not asked
    last_skipped: Sequence[str] = ()    # of those, the ones skipped in a run --fail-on-skip failed
    # --last-failed: the last runs, newest first: each its case ids and what it left undone
    # when stopped early (`pending_runs`), or one run's undone cases
    unfinished: Sequence[tuple[frozenset[str], Unfinished | None]] | Unfinished | None = None
    platforms: set[str] | None = None              # platforms with a device; None = all
    devices: str = ""                              # for the reason text
    shard: tuple[int, int] | None = None
    shard_timings: Mapping[str, float] | None = None   # --shard-timings: id -> seconds
    collect_only: bool = False      # --collect-only: the notes say "would run", not "running"


def select_cases(cases: Sequence[Case], opts: SelectOptions) -> Selection:
    """Split ``cases`` as the options ask. Nothing here reads local state: shards are planned
    on `shard_weight` (or on the timings every job was given), never on this machine's
    remembered durations."""
    sel = Selection(selected=list(cases))
    if opts.keyword and opts.keyword.strip():   # blank (-k "$A $B", both unset): all, as pytest
        expr = KeywordExpr(opts.keyword)
        sel.drop(lambda c: None if expr.matches(case_haystack(c))
                 else f"-k {opts.keyword}")
    # a blank --tag / --exclude-tag (CI's --tag "$TAG" with TAG unset) asks for nothing, as a
    # blank -k does: it deselected every case (exit 5)
    tags = [t.strip() for t in opts.tags if t.strip()]
    exclude = [t.strip() for t in opts.exclude_tags if t.strip()]
    sel.notes.extend(tag_slips(cases, tags, "--tag") + tag_slips(cases, exclude,
                                                                  "--exclude-tag"))
    if tags:
        wanted = set(map(nfkc, tags))
        sel.drop(lambda c: None if wanted & set(map(nfkc, c.tags))
                 else f"--tag {' / '.join(tags)}: not tagged so")
    if exclude:
        unwanted = set(map(nfkc, exclude))
        sel.drop(lambda c: None if not unwanted & set(map(nfkc, c.tags))
                 else f"--exclude-tag {', '.join(sorted(unwanted & set(map(nfkc, c.tags))))}")
    if opts.platforms is not None:
        platforms = opts.platforms
        sel.drop(lambda c: None if c.platform in platforms
                 else f"no {c.platform} device in --devices {opts.devices}")
    _keep_setups(sel)
    if opts.shard is not None:
        _take_shard(sel, opts.shard, opts.shard_timings)
    if opts.last_failed is not None:
        _last_failed(sel, set(opts.last_failed),
                     pending_runs(opts.unfinished, {c.id for c in sel.selected}),
                     skipped=set(opts.last_skipped), preview=opts.collect_only)
    if not sel.selected and not sel.empty_shard:
        _say_why_none(sel)
        sel.notes.extend(_file_name_slip(cases, opts.keyword) or _near_word(cases, opts.keyword))
    return sel


def _take_shard(sel: Selection, shard: tuple[int, int],
                timings: Mapping[str, float] | None) -> None:
    """Keep shard I of N of the selection: planned on the cases' steps, or on ``timings``
    (every job's same). A shard left with no case because there are more shards than cases
    (a CI matrix wider than the selection) is no mistake: `Selection.empty_shard`."""
    index, total = shard
    sel.shard = f"{index}/{total}"
    each: Mapping[str, float] = {c.id: shard_weight(c) for c in sel.selected}
    if timings is not None:
        sel.notes.extend(timings.notes if isinstance(timings, Timings) else ())
        each = _timed_weights(sel.selected, timings, index, total, sel.notes)
    weights: dict[str, float] = {}
    for c in sel.selected:      # a unit's / an ordered batch's files: one shard together
        weights[_unit(c)] = weights.get(_unit(c), 0) + each[c.id]
    plan, before = shard_plan(weights, total), len(sel.selected)
    sel.drop(lambda c: None if plan[_unit(c)] == index
             else f"--shard: in shard {plan[_unit(c)]}/{total}")
    if before and not sel.selected:     # (shards past one per unit get none: `shard_plan`)
        sel.empty_shard = True
        parts = "" if len(weights) == before else (
            f" ({len(weights)} parts: a shared-context or ordered batch stays in one shard)")
        sel.notes.append(f"shard {index}/{total} has no case: {before} case(s) over {total} "
                         f"shards{parts}")


def _file_name_slip(cases: Sequence[Case], keyword: str | None) -> list[str]:
    """A note when -k left nothing because it named a file (``-k login_success.yaml``): a case
    id has no ``.yaml``, so the word matched no case, and only "16 deselected" was said; or
    because it wrote a file's ``_`` as ``-`` (``-k cart-remove`` for demo/cart_remove); or
    because quotes the shell kept are part of its words (``-k "'login'"``, a CI file's
    quoting quoted again: said as "-k 'login'", which looked like a plain word)."""
    fixed = re.sub(r"(?<=\w)\.ya?ml\b", "", keyword or "", flags=re.IGNORECASE)
    why = "a case's id is its file's path without .yaml"
    tail = " (or give `farm run` the file itself)"
    if fixed == (keyword or ""):
        fixed = re.sub(r"(?<=\w)-(?=\w)", "_", fixed)
        why, tail = "a word matches as written (- is not _)", ""
    if fixed == (keyword or ""):
        fixed = _unquoted(fixed)
        why = "a quote is part of a word (-k takes no quoted phrase)"
    if fixed == (keyword or ""):
        return []
    expr = KeywordExpr(fixed)
    found = [c.id for c in cases if expr.matches(case_haystack(c))]
    if not found:
        return []
    return [f"-k {keyword}: {why}: -k {shell_word(fixed)} selects {found[0]}"
            + (f" and {len(found) - 1} more" if len(found) > 1 else "") + tail]


def _near_word(cases: Sequence[Case], keyword: str | None) -> list[str]:
    """A note when -k is one word that matched nothing and is a slip of a word the cases'
    names or ids have (``-k covred`` for w/covered): said as flags and steps are."""
    word = (keyword or "").strip()
    if not re.fullmatch(r"[\w.-]+", word) or word.lower() in ("and", "or", "not"):
        return []
    if any(KeywordExpr(word).matches(case_haystack(c)) for c in cases):
        return []       # (it matched: a --tag or the devices left nothing)
    import difflib
    words = {w for c in cases for w in re.split(r"[^\w-]+|_", case_haystack(c).lower()) if w}
    words |= {part for c in cases for part in re.split(r"[/\s]+", case_haystack(c).lower())}
    near = difflib.get_close_matches(word.lower(), sorted(words), n=3, cutoff=0.75)
    near = near or near_cjk(word.lower(), _cjk_pieces(cases, len(word)))
    if not near:
        return []
    found = [c.id for c in cases if KeywordExpr(near[0]).matches(case_haystack(c))]
    return [f"-k {word}: no case's name or id has it; did you mean -k {shell_word(near[0])}"
            f" (selects {found[0]}" + (f" and {len(found) - 1} more" if len(found) > 1 else "")
            + ")?"]


# Chinese, Japanese and Korean characters: each one is about a word, and a phrase of them is one
# \w run (no spaces), so a slip in it is one character of two or three (回帰 for 回归)
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
                  "\U00020000-\U0003ffff]+")


def near_cjk(given: str, known: Iterable[str]) -> list[str]:
    """The words of ``known`` a ``given`` with Chinese, Japanese or Korean characters is a slip
    of, compared by characters (difflib's 0.75 is out of reach of a two-character word): one
    character apart (changed, missing or extra: 回帰 for 回归, 购物東 for 购物车), or containing
    it or contained in it, two characters at least (冒烟测试 for 冒烟); nearest first."""
    if not _CJK.search(given):
        return []
    scored = []
    for word in dict.fromkeys(known):
        if word == given:
            continue
        if _one_apart(given, word):
            score = 0 if len(word) == len(given) else 1
        elif min(len(word), len(given)) >= 2 and (word in given or given in word):
            score = 2
        else:
            continue
        scored.append((score, abs(len(word) - len(given)), word))
    return [word for *_, word in sorted(scored)]


def _one_apart(a: str, b: str) -> bool:
    """Whether one character changed, dropped or added turns ``a`` into ``b``."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _cjk_pieces(cases: Sequence[Case], size: int) -> list[str]:
    """The pieces of ``size`` characters, one fewer or one more, of the runs of Chinese,
    Japanese or Korean characters in the cases' names and ids (-k matches a piece of a
    word: 购物车 in 查看购物车), whole runs first."""
    runs = [run for c in cases for run in _CJK.findall(case_haystack(c).lower())]
    pieces = dict.fromkeys(runs)
    for run in runs:
        for n in (size, size - 1, size + 1):
            pieces.update(dict.fromkeys(run[i:i + n] for i in range(len(run) - n + 1) if n > 0))
    return list(pieces)


def shell_word(text: str) -> str:
    """``text`` as a shell takes it: quoted when it must be (`shlex.quote`), never a word of
    letters and digits of any script (购物车, not '购物车')."""
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else shlex.quote(text)


def _unquoted(text: str) -> str:
    """``text`` without the quotes at the edges of its words (``'login'``, ``"Log in"``);
    a quote inside a word (``can't``) stays."""
    return re.sub(r"(?<![^\s()])['\"]+|['\"]+(?![^\s()])", "", text)


def tag_slips(cases: Sequence[Case], given: Sequence[str], flag: str) -> list[str]:
    """A note for each tag given that no case has and that looks like a slip: several tags
    joined by a comma (``--exclude-tag slow,flaky`` left out nothing, without a word) or a
    space, an expression (pytest's ``-m "smoke and not slow"``: ``--tag "smoke and not
    slow"`` ran nothing, saying only "not tagged so"), or another casing of a tag the cases
    have (tags match exactly)."""
    known = {nfkc(t) for c in cases for t in c.tags}
    if not known and cases:     # (it said only "16 deselected by --tag smok")
        return [f"{flag} {tag}: no case has a tag (a case file's or farm.yaml's "
                "`tags: [smoke]` sets them)" for tag in dict.fromkeys(given)]
    notes = []
    for tag in dict.fromkeys(given):
        # (a Chinese list's comma, ， or 、, is a comma too: --tag 冒烟，回归测试)
        parts = [t.strip() for t in re.split(r"[,、]", nfkc(tag)) if t.strip()]
        words = [w for w in re.split(r"[\s()]+", tag) if w]
        cased = sorted(k for k in known if k.lower() == tag.lower())
        if nfkc(tag) in known:
            continue
        if not (len(parts) > 1 or len(words) > 1 or cased):
            notes.extend(_near_tag(cases, tag, known, flag))
            continue
        if len(parts) > 1:
            hint = (f"a comma is part of a tag: give {flag} once per tag ("
                    + " ".join(f"{flag} {t}" for t in parts) + ")")
        elif len(words) > 1:
            hint = _spaced_tag(words, flag)
        else:
            hint = f"tags match exactly: the cases have {', '.join(map(repr, cased))}"
        notes.append(f"{flag} {tag}: no case has the tag {tag!r}; {hint}")
    return notes


def _near_tag(cases: Sequence[Case], tag: str, known: set[str], flag: str) -> list[str]:
    """A note when a tag no case has is a slip of one the cases have (``--tag smok``), said
    as -k's slips are."""
    import difflib
    by_lower = {k.lower(): k for k in sorted(known, reverse=True)}
    near = difflib.get_close_matches(tag.lower(), sorted(by_lower), n=1, cutoff=0.75)
    near = near or near_cjk(tag.lower(), by_lower)
    if not near:
        return []
    best = by_lower[near[0]]
    found = [c.id for c in cases if best in map(nfkc, c.tags)]
    return [f"{flag} {tag}: no case has the tag {tag!r}; did you mean {flag} "
            f"{shell_word(best)} (on {found[0]}"
            + (f" and {len(found) - 1} more" if len(found) > 1 else "") + ")?"]


def _spaced_tag(words: list[str], flag: str) -> str:
    """The hint for a tag with spaces: several tags, or an expression (and / or / not), with
    the flags nearest to it (a word after ``not`` to the other flag)."""
    ops = ("and", "or", "not")
    if not any(w.lower() in ops for w in words):
        return (f"a space is part of a tag: give {flag} once per tag ("
                + " ".join(f"{flag} {t}" for t in dict.fromkeys(words)) + ")")
    other = "--exclude-tag" if flag == "--tag" else "--tag"
    flags = [(other if i and words[i - 1].lower() == "not" else flag, w)
             for i, w in enumerate(words) if w.lower() not in ops]
    nearest = " ".join(f"{f} {w}" for f, w in dict.fromkeys(flags))
    return (f"{flag} takes one tag, not an expression: {nearest} is the nearest (a case with "
            "any --tag given runs, one with any --exclude-tag given does not; -k EXPR takes "
            "and / or / not)")


def _say_why_none(sel: Selection) -> None:
    """Nothing is left: a note saying what took the cases out (platforms without a device
    have their own line), as pytest says "N deselected" instead of only "no tests ran"."""
    by: dict[str, int] = {}
    for d in sel.deselected:
        if not d.reason.startswith("no "):
            key = d.reason.split(": ", 1)[0]
            by[key] = by.get(key, 0) + 1
    if by:
        sel.notes.append("no case selected: " + ", ".join(
            f"{n} deselected by {why}" for why, n in by.items()))


def _last_failed(sel: Selection, recorded: set[str], unfinished: Sequence[Unfinished] = (),
                 skipped: set[str] = frozenset(), preview: bool = False) -> None:
    """pytest's --last-failed, applied last: of the cases every other option (the shard
    included) selected, the ones that failed last time; none of them → all of them. Taken after
    the shard so that CI jobs whose runners remember different failures still split one list.
    The cases stopped runs left undone (``unfinished``, `pending_runs`: interrupted, never
    run) too: `farm run --lf` finishes them. ``skipped``: the recorded cases that
    were skipped under --fail-on-skip, not failed, which the note says apart. ``preview``
    (--collect-only, which runs nothing): the notes say "would run"."""
    ids = {c.id for c in sel.selected}
    running = "would run" if preview else "running"

    def ours(recorded_ids: Iterable[str]) -> set[str]:
        return {_case_of(r, ids) for r in recorded_ids} & ids
    failed = ours(recorded)
    for run in unfinished:      # (a killed run's verdicts: each case in one run at most)
        failed = failed - ours(run.passed) | ours(run.failed)
    take, where = set(failed), []
    for run in unfinished:      # (newest first)
        stopped = ours(run.interrupted) - take
        unrun = ours(run.not_run) - take - stopped
        take |= stopped | unrun
        counts = [f"{n} {what}" for n, what in ((len(stopped), "interrupted"),
                                                (len(unrun), "not run")) if n]
        if counts:
            where.append(f"{', '.join(counts)} in run {run.run_id}")
    if where:
        sel.drop(lambda c: None if c.id in take else "--last-failed: did not fail last time")
        earlier = f"{len(failed)} failed earlier; " if failed else ""
        its = "its" if len(where) == 1 else "their"
        sel.notes.append(f"--last-failed: {running} {earlier}{'; '.join(where)} "
                         f"(stopped before {its} end)")
        _keep_setups(sel)
    elif failed:
        sel.drop(lambda c: None if c.id in failed else "--last-failed: did not fail last time")
        only_skipped = len(ours(skipped) & failed)
        sel.notes.append(f"--last-failed: {running} {len(failed)} case(s) that failed last time"
                         + (f" ({only_skipped} of them skipped under --fail-on-skip)"
                            if only_skipped else ""))
        _keep_setups(sel)
    elif recorded:
        sel.notes.append(f"--last-failed: none of the {len(recorded)} recorded failure(s) is "
                         f"among the selected cases, {running} every selected case")
    else:
        sel.notes.append(f"--last-failed: no failures recorded, {running} every case")


def _keep_setups(sel: Selection) -> None:
    """A shared-context batch's setup file runs whenever a file of its unit does (the others
    rely on what it leaves in the browser), whatever -k, tags or --last-failed said of it."""
    units = {c.shared.unit_id for c in sel.selected if c.shared}
    for d in list(sel.deselected):
        shared = d.case.shared
        if shared is not None and shared.setup and shared.unit_id in units \
                and not d.reason.startswith("no "):
            sel.deselected.remove(d)
            sel.selected.append(d.case)


def _unit(case: Case) -> str:
    """What a shard takes whole: a case, the shared-context unit it runs in, or the
    ``concurrent: 1`` batch whose files run one after another in its order."""
    if case.shared:
        return case.shared.unit_id
    return f"in order: {case.in_order.batch}" if case.in_order else case.id


@dataclass
class Choice:
    """What `farm run`'s selection options asked for (before reading state)."""

    keyword: str | None = None
    tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    last_failed: bool = False
    shard: str | None = None
    # earlier runs' results.json / run dirs / JUnit XML files / folders of them
    shard_timings: Path | Sequence[Path] | None = None
    maxfail: int | None = None         # stop starting cases after this many failed/errored
    collect_only: bool = False
    devices_given: bool = True         # --collect-only: deselect platforms only when asked
    # --collect-only --matrix: the device groups of each platform among the cluster's workers
    # now (`matrix_runs`); a str: why they could not be read; None: no --matrix
    matrix_groups: Mapping[str, Sequence[str]] | str | None = None


def matrix_runs(case: Case, groups: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """--matrix: the runs of ``case``, one per device group of its platform, as (id, name)
    the way the run names their results (``demo/login@pixel7``, ``Log in [pixel7]``); none
    when the cluster has no worker of its platform now (a run waits for its workers a while:
    `matrix_note`)."""
    found = sorted(groups.get(case.platform, ()))
    return [(f"{case.id}@{g}", f"{case.name} [{g}]") for g in found]


def matrix_note(cases: Sequence[Case], groups: Mapping[str, Sequence[str]] | str) -> str:
    """--collect-only --matrix: how many runs the cases make, on which device groups, and the
    platforms no worker serves now; or why the groups could not be read."""
    if isinstance(groups, str):
        return (f"--matrix: cannot read the cluster's device groups ({groups}): a run runs "
                "each case once per device group of its platform among the workers then")
    platforms = sorted({c.platform for c in cases})
    runs = sum(len(matrix_runs(c, groups)) for c in cases)
    seen = "; ".join(f"{p}: {', '.join(sorted(groups[p]))}" for p in platforms if groups.get(p))
    text = (f"--matrix: {runs} run(s) of {len(cases)} case(s), one per device group of its "
            f"platform among the cluster's workers now ({seen or 'none'})")
    for platform in (p for p in platforms if not groups.get(p)):
        n = sum(c.platform == platform for c in cases)
        text += (f"; no {platform} worker in the cluster now: its {n} case(s) run once per "
                 f"device group of the {platform} workers there within "
                 "FARM_CLUSTER_DEVICE_WAIT of the run's start")
    return text
