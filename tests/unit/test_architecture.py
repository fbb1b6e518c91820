"""Rules of farm's shape, checked by reading the source (nothing under test is imported).

- ``farm`` never imports ``worker``: the library must not depend on the worker process.
- No import cycles among farm's and worker's modules.
- No function or method over 60 lines in farm/ and worker/.
- tests/unit starts no subprocess, Chromium or Redis: those belong in tests/integration.

How the import graph is built (the choices a reviewer should check):

- Every ``import``/``from … import`` statement is an edge, wherever it sits: at module level, in
  a function (a function-level import hides a cycle from the interpreter, not from the design),
  in a ``try``. Imports under ``if TYPE_CHECKING:`` are not edges: they never run.
- ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b`` (where
  the name is defined). Relative imports are resolved against the importing module's package.
- Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``; those implicit parent
  imports are not edges, and neither is a package's ``__init__`` importing its own submodules.
  A package and its submodules load as one unit whatever the ``__init__`` imports, and an
  ``__init__`` that re-exports from its submodules (farm's lazy public API) is a facade over
  them, not something they depend on. Counting those edges would flag every submodule that
  reads a constant from its package (``from farm import __version__``) as a cycle. Cycles
  between a package's submodules, and between packages, are all counted.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("farm", "worker")
MAX_FUNCTION_LINES = 60


@dataclass(frozen=True)
class Import:
    """One imported module (absolute), as written at ``file:line``."""
    file: str                  # relative to the tree's root
    line: int
    module: str
    names: tuple[str, ...]     # for ``from module import names``; () for ``import module``
    typing_only: bool          # under ``if TYPE_CHECKING:``

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every module of farm and worker."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str, path: Path, root: Path = ROOT) -> list[Import]:
    """Every import statement in the module ``name`` at ``path``, relative ones made absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    file = str(path.relative_to(root))
    found: list[Import] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(file, node.lineno, alias.name, (), typing_only)
                         for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:     # from . import x / from ..a import x
                anchor = package.rsplit(".", node.level - 1)[0]
                base = f"{anchor}.{base}" if base else anchor
            found.append(Import(file, node.lineno, base,
                                tuple(alias.name for alias in node.names), typing_only))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def import_graph(modules: dict[str, Path], root: Path = ROOT) -> dict[str, dict[str, Import]]:
    """module → {imported module: the first import making that edge} (see the docstring)."""
    graph: dict[str, dict[str, Import]] = {name: {} for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for imp in imports_of(name, path, root):
            if imp.typing_only:
                continue
            for target in _targets(imp, modules):
                own_submodule = is_package and target.startswith(name + ".")
                if target != name and not own_submodule:
                    graph[name].setdefault(target, imp)
    return graph


def _targets(imp: Import, modules: dict[str, Path]) -> Iterator[str]:
    if not imp.names:
        if imp.module in modules:
            yield imp.module
        return
    for name in imp.names:
        submodule = f"{imp.module}.{name}"
        if submodule in modules:
            yield submodule
        elif imp.module in modules:
            yield imp.module


def cycles(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """One shortest cycle through the first module of each strongly connected component."""
    return [_shortest_cycle(graph, min(component), component)
            for component in _components(graph)]


def _components(graph: dict[str, dict[str, Import]]) -> list[set[str]]:
    """Tarjan's strongly connected components with more than one member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def _shortest_cycle(graph: dict[str, dict[str, Import]], start: str,
                    component: set[str]) -> list[str]:
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for succ in sorted(graph[node]):
            if succ == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if succ in component and succ not in came_from:
                came_from[succ] = node
                queue.append(succ)
    raise AssertionError(f"{start} is in a cycle but none was found")


def describe_cycles(graph: dict[str, dict[str, Import]]) -> list[str]:
    """Each tangle's modules, then one cycle among them with the line making each edge."""
    found = []
    for component in _components(graph):
        cycle = _shortest_cycle(graph, min(component), component)
        steps = [cycle[0]] + [f"--({graph[here][there].where()})--> {there}"
                              for here, there in zip(cycle, cycle[1:])]
        found.append(f"{', '.join(sorted(component))}\n    e.g. {' '.join(steps)}")
    return found


def long_functions(modules: dict[str, Path], root: Path = ROOT,
                   limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``file:line qualified.name (N lines)`` for every function or method over ``limit``."""
    found = []

    def visit(node: ast.AST, path: Path, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = f"{scope}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    if length > limit:
                        found.append(f"{path.relative_to(root)}:{child.lineno} "
                                     f"{qualname} ({length} lines)")
                visit(child, path, qualname + ".")
            else:
                visit(child, path, scope)

    for path in modules.values():
        visit(ast.parse(path.read_text(), str(path)), path, "")
    return found


# -- the rules -------------------------------------------------------------------------------

def worker_imports(modules: dict[str, Path], root: Path = ROOT) -> list[str]:
    """Every import of ``worker`` (or a module under it) made by a module of ``farm``,
    ``TYPE_CHECKING`` ones included: ``grep "import worker\\|from worker" farm/`` stays empty."""
    return [f"{imp.where()} imports {imp.module}"
            for name, path in modules.items() if name.split(".")[0] == "farm"
            for imp in imports_of(name, path, root)
            if imp.module.split(".")[0] == "worker"]


def test_farm_never_imports_worker() -> None:
    offenders = worker_imports(module_files())
    assert not offenders, "farm must not depend on the worker process:\n" + "\n".join(offenders)


def test_no_import_cycles() -> None:
    found = describe_cycles(import_graph(module_files()))
    assert not found, "modules in an import cycle:\n" + "\n".join(found)


def test_no_function_over_60_lines() -> None:
    offenders = long_functions(module_files())
    assert not offenders, (f"functions over {MAX_FUNCTION_LINES} lines:\n"
                           + "\n".join(offenders))


# A test file importing one of these starts a process, a browser or a Redis client.
_PROCESS_MODULES = {"subprocess", "multiprocessing", "playwright", "redis"}


def test_unit_tests_start_no_processes_browsers_or_redis() -> None:
    """A tripwire on what unit test files import, not a sandbox: farm code they call could
    still spawn something. A test that needs a process belongs in tests/integration."""
    offenders = []
    for path in sorted((ROOT / "tests" / "unit").rglob("*.py")):
        for imp in imports_of("tests.unit." + path.stem, path):
            if imp.module.split(".")[0] in _PROCESS_MODULES:
                offenders.append(f"{imp.where()} imports {imp.module}")
    assert not offenders, ("unit tests must not start processes, Chromium or Redis "
                           "(move them to tests/integration):\n" + "\n".join(offenders))


# -- the checks see what they claim to (made-up trees, so these pass whatever farm's state) --

def _tree(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in {"farm/__init__.py": "", "worker/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return module_files(root)


def _cycles_in(root: Path, files: dict[str, str]) -> list[list[str]]:
    return cycles(import_graph(_tree(root, files), root))


def test_test_module_basenames_are_unique() -> None:
    # tests/ has no __init__.py: pytest imports test modules by basename, and two files of one
    # name in tests/unit and tests/integration stop the collection of the whole suite.
    seen: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"test modules sharing a basename: {clashes}"


def test_worker_imports_are_found_in_functions_and_type_checking_blocks(tmp_path: Path) -> None:
    modules = _tree(tmp_path, {
        "farm/x.py": "from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    import worker.tasks\n"
                     "def f():\n    from worker.app import make_app\n",
        "farm/ok.py": "import workers_guide\nfrom farm import worker\n",
        "worker/main.py": "import worker.app\n",
    })
    assert worker_imports(modules, tmp_path) == ["farm/x.py:3 imports worker.tasks",
                                                 "farm/x.py:5 imports worker.app"]


def test_a_cycle_through_a_function_level_relative_import_is_found(tmp_path: Path) -> None:
    found = _cycles_in(tmp_path, {
        "farm/llm/__init__.py": "",
        "farm/llm/plan.py": "def parse():\n    from farm.llm import parse_xml\n",
        "farm/llm/parse_xml.py": "from .plan import Plan\n",
    })
    assert found == [["farm.llm.parse_xml", "farm.llm.plan", "farm.llm.parse_xml"]]


def test_a_cycle_across_packages_is_found(tmp_path: Path) -> None:
    found = _cycles_in(tmp_path, {
        "farm/a.py": "import farm.b\n",
        "farm/b.py": "import worker.tasks\n",
        "worker/tasks.py": "from farm.a import thing\n",
    })
    assert found == [["farm.a", "farm.b", "worker.tasks", "farm.a"]]


def test_type_checking_imports_and_package_facades_make_no_cycle(tmp_path: Path) -> None:
    found = _cycles_in(tmp_path, {
        "farm/__init__.py": "__version__ = '1'\n"
                            "def __getattr__(name):\n    from farm.session import run\n",
        "farm/session.py": "from farm import __version__\nfrom farm.agent import api\n",
        "farm/agent/__init__.py": "from farm.agent.api import Agent\n",
        "farm/agent/api.py": "from typing import TYPE_CHECKING\n"
                             "if TYPE_CHECKING:\n    from farm.session import run\n",
    })
    assert found == []


def test_functions_over_the_limit_are_listed_with_their_class(tmp_path: Path) -> None:
    body = "        x = 1\n"
    modules = _tree(tmp_path, {"worker/w.py": "class W:\n    def long(self):\n"
                                              + body * 60 + "    def fits(self):\n" + body * 59})
    assert long_functions(modules, tmp_path) == ["worker/w.py:2 W.long (61 lines)"]
