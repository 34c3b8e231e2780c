"""The docs stay a front door and a site (issue 33): the README short, every public name on the API page, every
page in the site's navigation. The site itself is built strictly in CI (`mkdocs build --strict`, .ci/run)."""

from __future__ import annotations

import re
from pathlib import Path

import cdp_engine

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 180, f"README.md has {len(lines)} lines: move detail to docs/"
    assert lines[3].startswith("bash tools/install-chromium.sh") and "cdp_engine demo" in lines[3]
    assert lines[4].endswith("python3 -m pytest -q")


def test_every_public_name_has_an_api_entry() -> None:
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^::: cdp_engine\.(\w+)$", api, re.MULTILINE))
    missing = [n for n in cdp_engine.__all__ if n != "__version__" and n not in documented]
    assert not missing, f"docs/api.md has no entry for {missing}"


def test_every_docs_page_is_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    missing = [p for p in pages if f": {p}" not in nav]
    assert not missing, f"mkdocs.yml's nav leaves out {missing}"


# (job, the module the folder table names for it, a name that module defines for that job)
READING = [
    ("where a click is aimed", "core/actionability.py", "_aim"),
    ("where a state is built", "snapshot/capturer.py", "class StateCapturer"),
    ("where a policy is enforced", "core/policies.py", "class Policies"),
]


def test_a_newcomer_finds_the_main_jobs_from_the_folder_table() -> None:
    """The reading test: docs/architecture.md's folder table (the folder list) names, for each main job, the module
    that does it, and that module does it."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("| folder | its one job |") :]
    rows = table[: table.index("\n\n")].splitlines()
    for job, module, name in READING:
        folder, file = module.split("/")
        row = next((r for r in rows if r.startswith(f"| `{folder}/` |")), "")
        assert job in row, f"the folder table's {folder}/ row does not say {job!r}"
        assert f"`{file}`" in row[: row.index(job)], f"the {folder}/ row names {job!r} without `{file}`"
        assert name in (ROOT / "cdp_engine" / module).read_text(encoding="utf-8"), (module, name)


# Support modules of the benchmarks (pages, statistics and report, the suites' shared data), not suites themselves.
BENCHMARK_HELPERS = {"pages.py", "report.py"}


def test_every_benchmark_script_is_a_listed_suite_or_a_helper() -> None:
    """benchmarks/run.py --list is the one entry point: a new script is a suite there or a named helper here."""
    import ast

    tree = ast.parse((ROOT / "benchmarks" / "run.py").read_text(encoding="utf-8"))
    table = next(n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "SUITES")
    assert isinstance(table.value, ast.Dict)
    paths = {ast.literal_eval(v)[0] for v in table.value.values if v is not None}
    suites = {p for p in paths if "/" not in p}
    scripts = {p.name for p in (ROOT / "benchmarks").glob("*.py")}
    assert scripts - suites - BENCHMARK_HELPERS == set(), "add it to SUITES in benchmarks/run.py"
    assert suites <= scripts, f"SUITES names scripts that do not exist: {suites - scripts}"
    elsewhere = {p for p in paths - suites if not (ROOT / "benchmarks" / p).is_file()}
    assert not elsewhere, f"SUITES names scripts that do not exist: {elsewhere}"  # the stress runs (tests/stress)
