"""The docs stay a front door and a site (issue 33): the README short, every public name on the API page, every
page in the site's navigation. The site itself is built strictly in CI (`mkdocs build --strict`, .ci/run)."""

from __future__ import annotations

import re
from pathlib import Path

import cdp_engine

ROOT = Path(__file__).resolve().parent.parent


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
