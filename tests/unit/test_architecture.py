"""Checks that keep the architecture as designed: layers, no circles, size, paths, linter config, packaging.

No browser. The import graph comes from tools/import_graph.py (read with `ast`, every import
counted: module level, under TYPE_CHECKING, inside functions); `python3 tools/import_graph.py`
prints the same graph for humans. A module over MAX_MODULE_LINES says why at its top (a paragraph of its
docstring that starts "Size:"); a class over MAX_CLASS_LINES is listed in pyproject.toml under
[tool.cdp-engine.size-exceptions] with its reason. The linters themselves run as their own CI step.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MAX_MODULE_LINES = 700
MAX_CLASS_LINES = 300


def _load_import_graph() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "tools" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


ig = _load_import_graph()


def _pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


# ===== import layers ==============================================================================


def test_no_module_imports_a_higher_layer_or_a_sibling_surface() -> None:
    problems = ig.layer_violations(ig.graph())
    assert not problems, "imports against the layer order (lowest first: " + " < ".join(
        name for name, _ in ig.LAYERS
    ) + "):\n" + "\n".join(problems)


def test_no_import_circles() -> None:
    report = ig.cycle_report(ig.graph())
    assert not report, "import circles (type-only and function-level imports count too):\n" + "\n".join(report)


def test_every_module_is_in_a_layer() -> None:
    for module in ig.module_files():
        ig.rank(module)  # raises with the module's name when its folder is in no layer


def test_layer_graph_prints() -> None:
    text = ig.format_layers(ig.graph())
    assert text.startswith("layer graph")
    assert re.search(r"^\s+core\s+-> .*\bcdp \d+", text, re.M), text
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "import_graph.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no layer breaks, no circles" in run.stdout


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "cdp_engine" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_checker_sees_type_only_lazy_absolute_and_relative_imports(tmp_path: Path) -> None:
    """The checks are only as good as the graph: every spelling of an import must land on its module."""
    root = _package(
        tmp_path,
        {
            "__init__.py": "from .index.agent_tab import launch\n",
            "errors.py": "",
            "cdp/__init__.py": "",
            "cdp/connection.py": "from ..errors import X\n",
            "core/__init__.py": "",
            "core/browser.py": (
                "from typing import TYPE_CHECKING\n"
                "from . import input\n"
                "if TYPE_CHECKING:\n"
                "    from ..index.agent_tab import AgentTab\n"
            ),
            "core/input.py": "def f():\n    from .browser import Tab\n",
            "index/__init__.py": "",
            "index/agent_tab.py": "import cdp_engine.core.browser\nfrom cdp_engine.cdp import connection\n",
            "toolset/__init__.py": "",
            "toolset/executor.py": "from ..mcp_server.server import serve\n",
            "mcp_server/__init__.py": "",
            "mcp_server/server.py": "from ..core.browser import Tab\n",
        },
    )
    edges = ig.graph(root)
    pairs = {(e.source, e.target, e.kind) for e in edges}
    assert ("cdp_engine.core.browser", "cdp_engine.core.input", "runtime") in pairs  # from . import module
    assert ("cdp_engine.core.browser", "cdp_engine.index.agent_tab", "type") in pairs
    assert ("cdp_engine.core.input", "cdp_engine.core.browser", "lazy") in pairs
    assert ("cdp_engine.index.agent_tab", "cdp_engine.core.browser", "runtime") in pairs  # import a.b.c
    assert ("cdp_engine.index.agent_tab", "cdp_engine.cdp.connection", "runtime") in pairs  # from pkg import module
    assert ("cdp_engine.cdp.connection", "cdp_engine.errors", "runtime") in pairs

    problems = "\n".join(ig.layer_violations(edges))
    assert "core/browser.py:4: cdp_engine.core.browser -> cdp_engine.index.agent_tab [type]" in problems
    assert "(core imports index)" in problems
    assert "surface toolset imports sibling surface mcp_server" in problems
    assert not [p for p in ig.layer_violations(edges) if p.startswith(("cdp_engine/mcp_server/", "cdp_engine/index/"))]

    circles = ig.cycles(edges)
    # browser -> input -> browser (lazy), and browser -> index.agent_tab (type only) -> browser.
    assert circles == [["cdp_engine.core.browser", "cdp_engine.core.input", "cdp_engine.index.agent_tab"]]
    report = "\n".join(ig.cycle_report(edges))
    assert "core/input.py:2: cdp_engine.core.input -> cdp_engine.core.browser [lazy]" in report


# ===== size rule ==================================================================================


def _size_exceptions() -> dict[str, str]:
    table: dict[str, str] = _pyproject().get("tool", {}).get("cdp-engine", {}).get("size-exceptions", {})
    return table


def _sizes() -> dict[str, int]:
    """'path' -> lines of every module, 'path::Class' -> lines of every class (nested ones too)."""
    out: dict[str, int] = {}
    for path in sorted((ROOT / "cdp_engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        out[rel] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                out[f"{rel}::{node.name}"] = node.end_lineno - node.lineno + 1
    return out


def _limit(key: str) -> int:
    return MAX_CLASS_LINES if "::" in key else MAX_MODULE_LINES


def _size_reason(path: str) -> str:
    """The "Size:" paragraph of a module's docstring (empty when it has none)."""
    doc = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or ""
    return next((part.strip() for part in doc.split("\n\n") if part.strip().startswith("Size:")), "")


def test_modules_and_classes_stay_small_unless_they_say_why() -> None:
    exceptions = _size_exceptions()
    too_big = [
        f"{key}: {lines} lines (limit {_limit(key)})"
        for key, lines in _sizes().items()
        if lines > _limit(key) and not (_size_reason(key) if "::" not in key else key in exceptions)
    ]
    assert not too_big, (
        "over the size rule; split it, or say why: a module in a docstring paragraph starting 'Size:', a class "
        "with its reason in [tool.cdp-engine.size-exceptions] in pyproject.toml:\n" + "\n".join(too_big)
    )


def test_size_exceptions_name_real_classes_and_give_reasons() -> None:
    sizes = _sizes()
    exceptions = _size_exceptions()
    assert exceptions, "the exception table is missing from pyproject.toml"
    unknown = [key for key in exceptions if key not in sizes or "::" not in key]
    assert not unknown, f"size exceptions for classes that do not exist (modules say why at their top): {unknown}"
    no_reason = [key for key, reason in exceptions.items() if not (isinstance(reason, str) and reason.strip())]
    assert not no_reason, f"size exceptions without a reason: {no_reason}"
    stale = [key for key in exceptions if sizes[key] <= _limit(key)]
    if stale:  # not a failure: whoever shrank the file may not own pyproject.toml; the list just shrinks
        warnings.warn(f"size exceptions no longer needed, delete them: {stale}", stacklevel=1)


# ===== no paths outside the repository ============================================================

# `../shared/...`, `shared/reference/...`, the build machine's /work/..., absolute home folders.
OUTSIDE_PATH = re.compile(
    r"(?:\.\./)+shared\b"
    r"|\bshared/(?:reference|seeds)\b"
    r"|(?<![\w.:/-])/work/"
    r"|(?<![\w.:/-])/(?:home|Users)/[\w.-]+"
    r"|(?<![\w.:/-])/root/"
)


def _shipped_and_doc_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in (ROOT / "cdp_engine", ROOT / "protocol"):  # protocol/ ships as cdp_engine.protocol
        files += [p for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    return [p for p in files if p.exists()]


def test_docs_and_package_refer_to_no_paths_outside_the_repository() -> None:
    hits: list[str] = []
    for path in _shipped_and_doc_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in OUTSIDE_PATH.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:100]!r}")
    assert not hits, "paths users don't have (say what the file says, or put it in docs/):\n" + "\n".join(hits)


def test_outside_path_pattern() -> None:
    for bad in ("see ../shared/reference/x.md", "`shared/reference/cdp-floor.md`", "/work/shared/x", "/home/me/x",
                "(/root/.cache)", "/Users/me/x"):
        assert OUTSIDE_PATH.search(bad), bad
    for fine in ("docs/cdp-floor.md", "https://example.com/work/x", "http://h/home/x", "shared state", "root/"):
        assert not OUTSIDE_PATH.search(fine), fine


# ===== linters: ruff and mypy run as their own CI step (.ci/run), not inside pytest; here only their config =====


def test_ruff_selects_private_member_access() -> None:
    lint = _pyproject()["tool"]["ruff"]["lint"]
    assert "SLF001" in lint["select"]
    ignored = {path for path, codes in lint.get("per-file-ignores", {}).items() if "SLF001" in codes}
    assert ignored <= {"tests/**"}, f"SLF001 may only be ignored for tests: {ignored}"


# ===== mypy =====================================================================================


def test_mypy_config_is_strict_for_the_bottom_layers() -> None:
    mypy = _pyproject()["tool"]["mypy"]
    assert mypy.get("check_untyped_defs") is True
    strict = next(o for o in mypy["overrides"] if "cdp_engine.cdp.*" in o["module"])
    assert "cdp_engine.core.*" in strict["module"]
    for flag in ("disallow_untyped_defs", "disallow_any_generics", "warn_return_any", "disallow_untyped_calls"):
        assert strict.get(flag) is True, flag


def test_ruff_and_mypy_are_in_the_test_extra() -> None:
    extra = _pyproject()["project"]["optional-dependencies"]["test"]
    names = {re.split(r"[<>=!~\[ ]", requirement, maxsplit=1)[0] for requirement in extra}
    assert {"ruff", "mypy"} <= names


# ===== packaging ==================================================================================


def test_py_typed_is_shipped() -> None:
    assert (ROOT / "cdp_engine" / "py.typed").is_file()
    setuptools = _pyproject()["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["cdp_engine"]
    assert setuptools.get("include-package-data", True) is not False


def test_no_two_modules_share_a_name() -> None:
    # A newcomer who reads `navigation.py` should find one module by that name, not one per layer.
    names: dict[str, list[str]] = {}
    for path in sorted((ROOT / "cdp_engine").rglob("*.py")):
        if path.name != "__init__.py" and "__pycache__" not in path.parts:
            names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {n: p for n, p in names.items() if len(p) > 1}


# ===== one action pipeline =========================================================================

SURFACE_PACKAGES = ("index", "toolset", "mcp_server", "harness")
# core/input.py's dispatch: a surface that called one itself would assemble an action of its own (no settle, or
# keys not held, or no delivery check); it names an action and the pipeline (core/pipeline.py) sends it.
DISPATCH = {
    "aim", "click_at", "click_delivered", "click_element", "down", "drag", "hold", "insert_text", "key_down",
    "key_up", "move", "point_of", "press", "type_text", "up", "wheel",
}  # fmt: skip


def _surface_trees() -> list[tuple[str, ast.AST]]:
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8")))
        for package in SURFACE_PACKAGES
        for path in sorted((ROOT / "cdp_engine" / package).rglob("*.py"))
    ]


def test_surfaces_act_through_the_one_pipeline() -> None:
    # Every surface and the harness send input only as a core.pipeline action: no call of core/input.py's
    # dispatch and no settle() of their own (the pipeline's Settling names the profile), so an action cannot
    # skip the aim, the keys, the delivery check or the settle on one surface only.
    around = []
    acting: set[str] = set()
    for where, tree in _surface_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "input" and node.func.attr in DISPATCH:
                    around.append(f"{where}:{node.lineno}: input.{node.func.attr}()")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("act", "perform"):
                acting.add(where.split("/")[1])
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(("core.input", "core.settle")):
                named = {a.name for a in node.names} & (DISPATCH | {"settle"})
                around += [f"{where}:{node.lineno}: imports {name}" for name in sorted(named)]
    assert not around, around
    # The index (which the harness acts through, ElementIndex.apply), the toolset and MCP call the pipeline.
    assert acting >= {"index", "toolset", "mcp_server"}, acting


# ===== one definition of rendered and visible =====================================================

# What each page-side definition is written with (core/page_rules.py): a second copy would be a second answer.
PAGE_RULE_MARKERS = {
    "checkVisibility(": "rendered / visible (RENDERED_JS, VISIBLE_JS)",
    "getClientRects().length": "rendered (RENDERED_JS)",
    "content-?visibility": "an animation that shows or moves something (SHOWS_OR_MOVES_JS)",
}


def test_rendered_visible_and_showing_animations_are_defined_once() -> None:
    home = ROOT / "cdp_engine" / "core" / "page_rules.py"
    text = home.read_text(encoding="utf-8")
    assert all(marker in text for marker in PAGE_RULE_MARKERS)
    elsewhere = [
        f"{path.relative_to(ROOT)}: {what}"
        for path in sorted((ROOT / "cdp_engine").rglob("*.py"))
        if path != home
        for marker, what in PAGE_RULE_MARKERS.items()
        if marker in path.read_text(encoding="utf-8")
    ]
    assert not elsewhere, f"a second page-side definition; splice core/page_rules.py's instead: {elsewhere}"


# ===== one definition of interactive and covered ==================================================


def test_interactive_roles_are_defined_once() -> None:
    # What makes an element interactive (the strict and extended sets, the accessibility views' roles) is written
    # in snapshot/roles.py only: a second literal set of control roles elsewhere is a second answer (extended.py
    # once kept its own copy of the strict roles and tags).
    home = ROOT / "cdp_engine" / "snapshot" / "roles.py"
    elsewhere = []
    for path in sorted((ROOT / "cdp_engine").rglob("*.py")):
        if path == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                names = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if {"button", "link"} <= names and len(names) > 2:
                    elsewhere.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not elsewhere, f"a second set of interactive roles; use snapshot/roles.py's: {elsewhere}"


def test_the_hit_test_is_written_once() -> None:
    # Whether something covers the point an action aims at is asked in the page by core/aim_page.py alone (the
    # capture decides the same from the snapshot's paint order, snapshot/occlusion.py).
    home = ROOT / "cdp_engine" / "core" / "aim_page.py"
    assert "elementsFromPoint(" in home.read_text(encoding="utf-8")
    elsewhere = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "cdp_engine").rglob("*.py"))
        if path != home
        and any(m in path.read_text(encoding="utf-8") for m in ("elementsFromPoint(", "elementFromPoint(", "getNodeForLocation"))
    ]
    assert not elsewhere, f"a second hit test; use core/aim_page.py's: {elsewhere}"
