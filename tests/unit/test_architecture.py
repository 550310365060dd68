"""The import graph of the apps: a tree, read from the source (no import is run).

Every module of the project's packages is a node; an import of another of them, at
the top, inside a function or only for the type checker (`if TYPE_CHECKING:`), is an
edge: a type named across a circle ties the two designs together as much as a call.
No circle may join two modules; the services import nothing inside a function (what
a use case needs is named at the top of its module, where a reader finds it); and
the selectors, the reads, import no service: a read never writes.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("accounts", "audit", "config", "deals", "live", "lobby", "responsible", "support", "tournaments", "wallet")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import, and whether it is inside a function."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append((child, in_function))
            walk(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    walk(tree, False)
    return found


def imported(node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> set[str]:
    """The project's modules an import names (a package's submodule, if it names one)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    assert node.level == 0, "the project imports by absolute names"
    base = node.module or ""
    named = {f"{base}.{alias.name}" for alias in node.names} & known.keys()
    return named or ({base} & known.keys())


def graph() -> tuple[dict[str, set[str]], list[str]]:
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    local = []
    for name, path in known.items():
        for node, in_function in imports(ast.parse(path.read_text(), str(path))):
            edges[name] |= imported(node, known) - {name}
            if in_function and name.startswith("tournaments.services"):
                local.append(f"{name}:{node.lineno}")
    return edges, local


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
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

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_reads_every_app_and_sees_their_imports():
    edges, _local = graph()
    assert {"tournaments.services.tables", "lobby.views", "live.consumers", "config.urls"} <= edges.keys()
    assert "tournaments.services.floor" in edges["tournaments.services.tables"]
    assert "tournaments.selectors.schedules" in edges["tournaments.selectors.payouts"]


def test_the_checker_finds_a_circle_and_sees_every_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\ndef f():\n    import y\nimport z\n"
    )
    assert [(node.names[0].name, local) for node, local in imports(tree)] == [
        ("TYPE_CHECKING", False),
        ("x", False),
        ("y", True),
        ("z", False),
    ]


def test_no_two_modules_import_each_other_even_through_others():
    edges, _local = graph()
    assert circles(edges) == []


def test_the_services_import_nothing_inside_a_function():
    _edges, local = graph()
    assert local == []


def test_the_selectors_import_no_service():
    edges, _local = graph()
    reads = {name: imported for name, imported in edges.items() if name.startswith("tournaments.selectors")}
    assert len(reads) > 5
    assert {name: sorted(n for n in imported if ".services" in n) for name, imported in reads.items()} == {
        name: [] for name in reads
    }
