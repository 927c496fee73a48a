"""The layout contract of ``docs/architecture.md``: the rooms of ``privaudit/`` depend on
each other in one direction, no module of ours imports itself back through others, and no
file in ``privaudit/`` outgrows :data:`MAX_LINES`.

Imports are read with :mod:`ast`, every one of them: module level, inside functions and
under ``if TYPE_CHECKING:``; a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: Folder of the repository → its import name (pyproject.toml, [tool.setuptools.package-dir]).
PACKAGES = {
    "spec": "privaudit.spec",
    "mechanisms": "privaudit.mechanisms",
    "estimators": "privaudit.estimators",
    "privaudit": "privaudit",
}
#: The packages that install inside ``privaudit`` but are not rooms of the auditor.
MAPPED = tuple(name.rpartition(".")[2] for name in PACKAGES.values() if name != "privaudit")

#: The rooms of ``privaudit/``, from the outside in: a room may import the rooms after it,
#: never one before it (``docs/architecture.md``, "The rooms of privaudit").
ROOM_ORDER = ("interfaces", "trust", "suites", "auditing", "statistics", "execution")
#: Leaf modules at the top of ``privaudit/`` that every room may use; they import no room.
LEAVES = ("_version", "_environment", "first_party")
#: The façade (``privaudit/__init__.py``, ``__main__.py``) imports rooms lazily; only the
#: outermost room may import it back.
FACADE = ("__init__", "__main__")
MAX_LINES = 700


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for folder, import_name in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([import_name, *parts])] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours that ``name`` (a module or a name inside one) lives in."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    """Every module of ours that ``module`` imports, wherever the import statement stands."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            stem = ".".join(p for p in (base, node.module or "") if p)
            names = [stem] + [f"{stem}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            resolved = _resolve(name)
            # a module reaching its own package's __init__ (``from . import x``) is not a circle
            if resolved and resolved != module and not module.startswith(resolved + "."):
                targets.add(resolved)
    return targets


GRAPH = {module: _imports(module) for module in MODULES}


def _room(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def test_every_module_of_privaudit_lives_in_a_room_or_is_a_leaf():
    top = {
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "privaudit").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert top == set(ROOM_ORDER) | set(LEAVES) | set(FACADE), (
        "unexpected at the top of privaudit/: "
        f"{sorted(top - set(ROOM_ORDER) - set(LEAVES) - set(FACADE))}"
        " — put it in the room of its job (docs/architecture.md)"
    )


def _in_a_room(module: str) -> bool:
    """Whether ``module`` is privaudit's façade or one of its rooms (not spec, mechanisms or
    estimators, which install inside ``privaudit`` but sit below every room)."""
    parts = module.split(".")
    return parts[0] == "privaudit" and (len(parts) == 1 or parts[1] not in MAPPED)


def test_the_rooms_of_privaudit_depend_one_way():
    rank = {room: i for i, room in enumerate(ROOM_ORDER)}
    wrong = []
    for module, targets in GRAPH.items():
        if not _in_a_room(module):
            continue
        source = _room(module)
        for target in targets:
            if not _in_a_room(target):
                continue
            dest = _room(target)
            if dest == source or dest in LEAVES:
                continue
            if source in LEAVES:
                wrong.append(f"leaf {module} imports {target}")
            elif dest in FACADE or dest == "__init__":
                if source not in FACADE + ("__init__", ROOM_ORDER[0]):
                    wrong.append(f"{module} imports the façade")
            elif source in FACADE or source == "__init__":
                continue
            elif rank[dest] < rank[source]:
                wrong.append(f"{module} ({source}) imports {target} ({dest})")
    assert not wrong, "imports against the direction of the rooms:\n" + "\n".join(sorted(wrong))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_circles_between_our_modules():
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "privaudit").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_file_in_privaudit_exceeds_the_line_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (limit {MAX_LINES})"
