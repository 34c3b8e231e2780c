"""The import graph of cdp_engine, read with `ast` (nothing is imported), and its layer rules.

Every import counts: module level, under `if TYPE_CHECKING:`, inside functions. A type-only or
lazy import still ties the lower module to the higher one, so the layer rule sees them all.

    python3 tools/import_graph.py            # folder -> folder edges with counts
    python3 tools/import_graph.py --check    # also list layer breaks and circles; exit 1 on any

tests/unit/test_architecture.py runs the same checks in the normal test suite.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "cdp_engine"

# Lowest first; a module may import its own layer or lower ones, never a higher one.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("leaf", ("errors", "version")),
    ("util", ("util",)),
    ("cdp", ("cdp",)),
    ("core", ("core",)),
    ("snapshot", ("snapshot",)),
    ("index", ("index",)),
    ("app", ("app",)),
    ("surfaces", ("toolset", "mcp_server", "harness", "service", "view")),
    ("facade", ("__init__", "__main__", "cli", "demo", "doctor")),
)
# Groups whose members share a layer but must not import one another (the surfaces are siblings).
SIBLINGS = frozenset({"toolset", "mcp_server", "harness", "service"})


@dataclass(frozen=True)
class Edge:
    """One import statement: `source` imports `target` at `path`:`line`."""

    source: str
    target: str
    path: str
    line: int
    kind: str = "runtime"  # "runtime" (module level), "type" (under TYPE_CHECKING) or "lazy" (in a function)

    def __str__(self) -> str:
        kind = "" if self.kind == "runtime" else f" [{self.kind}]"
        return f"{self.path}:{self.line}: {self.source} -> {self.target}{kind}"


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their own name, not `.__init__`)."""
    out: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute dotted name of a (possibly relative) `from` target."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.Module) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with its kind: runtime, type (under TYPE_CHECKING) or lazy (in a function)."""

    def walk(nodes: Iterable[ast.AST], kind: str) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield node, kind
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(ast.iter_child_nodes(node), "lazy" if kind == "runtime" else kind)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.body, "type" if kind == "runtime" else kind)
                yield from walk(node.orelse, kind)
            else:
                yield from walk(ast.iter_child_nodes(node), kind)

    return walk(tree.body, "runtime")


def imports_of(module: str, path: Path, modules: Iterable[str], root: Path = ROOT) -> list[Edge]:
    """Edges from one module to the package's own modules; `from pkg import sub` points at pkg.sub."""
    known = set(modules)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    rel = str(path.relative_to(root))
    edges: list[Edge] = []
    seen: set[tuple[str, int]] = set()
    for node, kind in _import_nodes(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for target in targets:
            # `import cdp_engine.core.browser` names the deepest known module of the dotted path.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module and (target, node.lineno) not in seen:
                seen.add((target, node.lineno))
                edges.append(Edge(module, target, rel, node.lineno, kind))
    return edges


def graph(root: Path = ROOT) -> list[Edge]:
    """All import edges inside the package."""
    files = module_files(root)
    return [edge for module, path in files.items() for edge in imports_of(module, path, files, root)]


def folder(module: str) -> str:
    """The layer unit of a module: its sub-package (`core`), or its own name at the package root."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def rank(module: str) -> int:
    unit = folder(module)
    for i, (_name, members) in enumerate(LAYERS):
        if unit in members:
            return i
    raise ValueError(f"{module} is in no layer: add its folder to LAYERS in tools/import_graph.py")


def layer_violations(edges: Iterable[Edge]) -> list[str]:
    """Imports of a higher layer, and imports between sibling surfaces."""
    out: list[str] = []
    for edge in edges:
        src, dst = folder(edge.source), folder(edge.target)
        if rank(edge.target) > rank(edge.source):
            out.append(f"{edge}  ({LAYERS[rank(edge.source)][0]} imports {LAYERS[rank(edge.target)][0]})")
        elif src != dst and src in SIBLINGS and dst in SIBLINGS:
            out.append(f"{edge}  (surface {src} imports sibling surface {dst})")
    return out


def cycles(edges: Iterable[Edge]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each as a sorted list."""
    adjacency: dict[str, set[str]] = {}
    for edge in edges:
        adjacency.setdefault(edge.source, set()).add(edge.target)
        adjacency.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(adjacency[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(adjacency):
        if node not in index:
            visit(node)
    return sorted(found)


def cycle_report(edges: list[Edge]) -> list[str]:
    """Each circle with the import lines that close it."""
    out: list[str] = []
    for component in cycles(edges):
        members = set(component)
        out.append("circle(s) among: " + ", ".join(component))
        out.extend(f"    {e}" for e in edges if e.source in members and e.target in members)
    return out


def folder_edges(edges: Iterable[Edge]) -> Counter[tuple[str, str]]:
    """Imports between folders, counted as distinct module -> module pairs; own-folder imports left out."""
    pairs = {(e.source, e.target) for e in edges if folder(e.source) != folder(e.target)}
    return Counter((folder(src), folder(dst)) for src, dst in pairs)


def format_layers(edges: Iterable[Edge]) -> str:
    """The folder -> folder graph, highest layer first, for humans."""
    counts = folder_edges(edges)
    order = [unit for _name, members in reversed(LAYERS) for unit in members]
    position = {unit: i for i, unit in enumerate(u for _n, members in LAYERS for u in members)}  # lowest first
    lines = ["layer graph (folder -> folder: number of module -> module imports)"]
    for src in order:
        outgoing = sorted(((dst, n) for (s, dst), n in counts.items() if s == src), key=lambda x: position[x[0]])
        if outgoing:
            lines.append(f"  {src:<10} -> " + ", ".join(f"{dst} {n}" for dst, n in outgoing))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    edges = graph()
    print(format_layers(edges))
    if "--check" not in argv:
        return 0
    problems = layer_violations(edges) + cycle_report(edges)
    print("\n".join(problems) if problems else "no layer breaks, no circles")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
