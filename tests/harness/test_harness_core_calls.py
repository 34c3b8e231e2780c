"""The core calls the harness runs on instead of raw CDP: uploads (set_input_files with
FilePolicy.unrestricted), per-context permissions (BrowserContext.grant_permissions) and init
scripts added from a synchronous attach callback (Tab.add_init_script_nowait)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import cdp_engine
from cdp_engine.core.policies import FilePolicy, PolicyError
from cdp_engine.harness import BrowserEnv, find_index

_counter = iter(range(1, 1_000_000))


def unique(prefix: str) -> str:
    return f"/hc-{prefix}-{os.getpid()}-{next(_counter)}"


UPLOAD = """<title>Upload</title>
<input type="file" id="f" multiple aria-label="Files">
<button aria-label="Go">Go</button>
<script>
window.read = async () => Promise.all([...document.getElementById('f').files].map(async f => f.name + ':' + await f.text()));
</script>"""


async def test_upload_file_sets_the_files_through_the_core(
    browser: cdp_engine.Browser, site: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "b.txt").write_text("beta")
    monkeypatch.chdir(tmp_path)  # a relative path is resolved here, as before (the browser is local)
    url = site.add(unique("upload"), UPLOAD)
    async with BrowserEnv(browser) as env:
        obs = await env.reset(url)
        files = find_index(obs["element_index"], "Files")
        button = find_index(obs["element_index"], "Go")
        assert files is not None and button is not None
        obs, info = await env.step(f"upload_file('{files}', [{str(tmp_path / 'a.txt')!r}, 'b.txt'])")
        assert info["error"] is None
        assert await env.evaluate("window.read()") == ["a.txt:alpha", "b.txt:beta"]

        _obs, info = await env.step(f"upload_file('{button}', ['a.txt'])")
        assert info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE"
        assert await env.evaluate("window.read()") == ["a.txt:alpha", "b.txt:beta"]  # unchanged


async def test_grant_permissions_for_every_origin_or_one(browser: cdp_engine.Browser, site: Any) -> None:
    page = unique("perm")
    site.add(page, "<p>perm</p>")
    query = "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)"
    async with await browser.new_context() as context:
        await context.grant_permissions(["geolocation"], origin=site.url)
        tab = await context.new_tab(site.url + page)
        assert await tab.evaluate(query) == "granted"
        await tab.goto(site.other_url + page)
        assert await tab.evaluate(query) == "prompt"  # another origin
        await context.grant_permissions(["geolocation"])
        assert await tab.evaluate(query) == "granted"


async def test_add_init_script_nowait_runs_in_later_documents(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("init"), "<p>init</p>")
    async with await browser.new_context() as context:
        tab = await context.new_tab()
        answers = await tab.add_init_script_nowait("window.__marked = 'yes'")
        assert answers and "identifier" in answers[0]
        assert "window.__marked = 'yes'" in tab.init_scripts  # out-of-process frames get it too
        await tab.goto(url)
        assert await tab.evaluate("window.__marked") == "yes"


def test_unrestricted_file_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    local = FilePolicy.unrestricted()
    assert local.upload_paths(["x.txt", "/no/such/file"]) == [str(tmp_path.resolve() / "x.txt"), "/no/such/file"]
    remote = FilePolicy.unrestricted(local=False)
    assert remote.upload_paths(["data/x.txt", "/srv/y.bin"]) == ["data/x.txt", "/srv/y.bin"]  # the browser's host
    for policy in (local, remote):
        with pytest.raises(PolicyError) as exc:
            policy.upload_path("")
        assert exc.value.rule == "files.invalid_path"
        with pytest.raises(PolicyError) as exc:
            policy.output_path("out.png")
        assert exc.value.rule == "files.no_output_dir"
    assert FilePolicy().upload_anywhere is None  # the default checks every upload
