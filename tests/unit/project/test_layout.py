"""The layout contract of ``docs/architecture.md``: the imports between rooms are exactly the
drawn ones (every import drawn, every drawn import real), the auditing wing reaches
``mechanisms`` through its protocol only (the exceptions listed with their reasons), no
module of ours imports itself back through others, and no file in ``privaudit/``
outgrows :data:`MAX_LINES`.

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

#: Leaf modules at the top of ``privaudit/`` that every room may use; they import no room.
LEAVES = ("_version", "_environment", "first_party", "_lazy")
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


def test_every_module_of_privaudit_lives_in_a_room_or_is_a_leaf():
    top = {
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "privaudit").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    rooms = {b for _, b in _drawn()} | {a for a, _ in _drawn()}
    rooms = {r.partition("/")[0] for r in rooms} - set(MAPPED)
    assert top == rooms | set(LEAVES) | set(FACADE), (
        "unexpected at the top of privaudit/: "
        f"{sorted(top - rooms - set(LEAVES) - set(FACADE))}"
        " — put it in the room of its job (docs/architecture.md)"
    )


def test_leaves_import_no_room_and_only_the_outermost_room_imports_the_facade():
    wrong = []
    for module, targets in GRAPH.items():
        parts = module.split(".")
        is_leaf = len(parts) == 2 and parts[1] in LEAVES
        for target in targets:
            if is_leaf and _node(target) is not None and not target.startswith("privaudit.spec"):
                wrong.append(f"leaf {module} imports {target}")
            if target in ("privaudit", "privaudit.__main__") and not (
                len(parts) < 2 or parts[1] in FACADE or parts[1] == "interfaces"
            ):
                wrong.append(f"{module} imports the façade")
    assert not wrong, "\n".join(wrong)


ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: The modules at the top of ``auditing/``, by floor: the audit itself (the top floor, above
#: every sub-room) and the base it stands on (below every sub-room).
AUDIT_FLOOR = (
    "auditor",
    "audit_steps",
    "audit_outcome",
    "confirmation",
    "time_budget",
    "plan",
    "sequential",
    "replay_audit",
)
BASE_FLOOR = ("config", "limits", "pairs", "sampler_outputs")


def _block(name: str) -> list[str]:
    """The lines of the ``<!-- name:begin -->`` … ``<!-- name:end -->`` block of the
    architecture document, without blanks, comments and code fences."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    body = text.split(f"<!-- {name}:begin -->")[1].split(f"<!-- {name}:end -->")[0]
    return [
        line.strip()
        for line in body.splitlines()
        if line.strip() and not line.strip().startswith(("```", "#"))
    ]


def _node(module: str) -> str | None:
    """The room of ``module`` as the drawing names it (``None``: the façade or a leaf)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in FACADE or parts[1] in LEAVES:
        return None
    if parts[1] in MAPPED:
        return parts[1]
    if parts[1] != "auditing":
        return parts[1]
    if len(parts) == 2:
        return None  # the wing's own __init__: a docstring
    if parts[2] in AUDIT_FLOOR:
        return "auditing/audit"
    if parts[2] in BASE_FLOOR:
        return "auditing/base"
    return f"auditing/{parts[2]}"


def _edges() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for module, targets in GRAPH.items():
        source = _node(module)
        for target in targets:
            dest = _node(target)
            if source and dest and source != dest:
                found.setdefault((source, dest), []).append(f"{module} -> {target}")
    return found


def _drawn() -> dict[tuple[str, str], str]:
    """``(room, room)`` → the reason given for it (empty for the plain edges)."""
    drawn = {}
    for line in _block("layout"):
        edge, _, reason = line.partition(":")
        source, _, targets = edge.partition("->")
        for target in targets.split(","):
            drawn[(source.strip(), target.strip())] = reason.strip()
    return drawn


def test_every_top_module_of_the_auditing_wing_is_on_a_floor():
    top = {p.stem for p in (ROOT / "privaudit" / "auditing").glob("*.py")} - {"__init__"}
    assert top == set(AUDIT_FLOOR) | set(BASE_FLOOR), (
        f"put {sorted(top - set(AUDIT_FLOOR) - set(BASE_FLOOR))} on a floor "
        "(AUDIT_FLOOR or BASE_FLOOR) or into a room of auditing/"
    )


def test_the_imports_between_rooms_are_the_drawn_ones():
    """Both directions: an import the drawing lacks is a shortcut; a drawn import the code
    lacks is a stale drawing."""
    found, drawn = _edges(), _drawn()
    undrawn = sorted(f"{a} -> {b} ({found[a, b][0]})" for a, b in set(found) - set(drawn))
    stale = sorted(f"{a} -> {b}" for a, b in set(drawn) - set(found))
    assert not undrawn, "imports not in docs/architecture.md's drawing:\n" + "\n".join(undrawn)
    assert not stale, "drawn in docs/architecture.md, not in the code:\n" + "\n".join(stale)


def test_the_drawing_has_no_circle():
    graph: dict[str, set[str]] = {}
    for a, b in _drawn():
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    assert _cycles(graph) == []


def test_the_auditing_wing_sees_mechanisms_through_their_protocol_only():
    """The auditor imports ``privaudit.mechanisms`` (the protocol and the façade) and
    ``privaudit.spec``; any deeper import of mechanisms or estimators is listed, with its
    reason, in the document's exceptions, and every listed exception is real."""
    listed = {}
    for line in _block("exceptions"):
        edge, _, reason = line.partition(":")
        source, _, target = edge.partition("->")
        assert reason.strip(), f"exception without a reason: {line}"
        listed[(source.strip(), target.strip())] = reason.strip()
    deep = {
        (module, target)
        for module, targets in GRAPH.items()
        if module.startswith("privaudit.auditing")
        for target in targets
        if target.startswith(("privaudit.mechanisms.", "privaudit.estimators"))
    }
    assert not deep - set(listed), f"unlisted deep imports: {sorted(deep - set(listed))}"
    assert not set(listed) - deep, f"listed, not in the code: {sorted(set(listed) - deep)}"


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
    "path",
    sorted(p for folder in PACKAGES for p in (ROOT / folder).rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_file_in_the_packages_exceeds_the_line_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (limit {MAX_LINES})"
