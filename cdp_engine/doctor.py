"""`cdp-engine doctor`: what this installation is made of, how it is set up, and what is missing, with the fix.

Reports Python, the package and Chromium (found where, which version, does it start), the transport, the
sandbox, the navigation policy settings, the optional extras and the protocol data the package ships.
A problem (no Chromium, a Chromium that does not start, missing protocol data or a runtime dependency)
makes the exit status 1; a missing optional extra is only listed.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import inspect
import os
import platform
import shutil
import subprocess
import sys
import time
from importlib import resources
from typing import Any

from .app.options import Settings
from .cdp.launcher import CANDIDATES, INSTALL_HINT, find_chromium, install_paths
from .core.policies import INDEX_SCHEMES, SERVER_SCHEMES
from .errors import CDPEngineError
from .index.agent_tab import connect, launch
from .version import __version__

RUNTIME = ("websockets", "aiohttp", "orjson", "xxhash")
EXTRAS = {"mcp": ("mcp", "mcp"), "anthropic": ("anthropic", "anthropic"), "ray": ("ray", "ray"), "otel": ("opentelemetry.sdk", "opentelemetry-sdk")}


def report(settings: Settings, *, launch: bool = True) -> dict[str, Any]:
    """The doctor's findings as one JSON-able dict; `problems` lists what must be fixed, each with its fix."""
    problems: list[dict[str, str]] = []
    out: dict[str, Any] = {
        "cdp_engine": {"version": __version__, "path": os.path.dirname(os.path.abspath(__file__))},
        "python": {"version": platform.python_version(), "executable": sys.executable, "platform": sys.platform},
        "runtime_dependencies": _dependencies(problems),
        "chromium": _chromium(settings, problems, launch and settings.endpoint is None),
        "attach": _attach(settings, problems, launch),
        "transport": _transport(settings),
        "sandbox": _sandbox(),
        "policies": {
            "allowed_origins": list(settings.allowed_origins) or "any",
            "blocked_origins": list(settings.blocked_origins) or "none",
            "schemes": {
                "element index": sorted(INDEX_SCHEMES),
                "http service and mcp": sorted(SERVER_SCHEMES | set(settings.allow_scheme)),
                "browser toolset": ["http", "https"],
            },
            "docs": "docs/policies.md",
        },
        "extras": _extras(),
        "protocol_data": _protocol(problems),
        "settings": {
            "config": settings.config,
            "log_level": settings.log_level,
            "log_file": settings.log_file,
            "headless": settings.headless,
            "viewport": "x".join(map(str, settings.viewport)),
        },
    }
    out["problems"] = problems
    return out


def _dependencies(problems: list[dict[str, str]]) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in RUNTIME:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
            problems.append({"what": f"the runtime dependency {name} is not installed", "fix": f"pip install {name} (or reinstall cdp-engine)"})
    return found


def _chromium(settings: Settings, problems: list[dict[str, str]], start: bool) -> dict[str, Any]:
    info: dict[str, Any] = {"searched": {"PATH": list(CANDIDATES), "install paths": install_paths()}}
    try:
        path = find_chromium(settings.executable)
    except CDPEngineError as exc:
        info["executable"] = None
        what = str(exc).replace(INSTALL_HINT, "").strip()
        if "executable" in settings.sources:
            what = f"{settings.sources['executable']}: {what}"
        problems.append({"what": what, "fix": INSTALL_HINT})
        return info
    if "executable" in settings.sources:
        source = settings.sources["executable"]
    else:
        source = "PATH" if shutil.which(os.path.basename(path)) == path else "standard install path"
    info.update(executable=path, found_by=source, version=_version(path))
    if start:
        info["launch"] = _try_launch(settings)
        if not info["launch"]["ok"]:
            problems.append(
                {
                    "what": f"Chromium at {path} does not start: {info['launch']['error']}",
                    "fix": "run it by hand to see why (missing libraries: apt-get install -y chromium pulls them in); "
                    "as root it runs with --no-sandbox; set CDP_ENGINE_CHROME to another build",
                }
            )
    return info


def _attach(settings: Settings, problems: list[dict[str, str]], start: bool) -> dict[str, Any] | None:
    """With --cdp-url / --auto-connect: whether the browser there answers (nothing of it is changed)."""
    if settings.endpoint is None:
        return None
    info: dict[str, Any] = {"endpoint": settings.endpoint, "headers": sorted(n.split(":")[0] for n in settings.cdp_header)}
    if not start:
        return info

    async def attempt() -> str:
        kwargs = settings.browser_kwargs()
        async with connect(kwargs["cdp_url"], headers=kwargs["headers"], timeout=10.0) as browser:
            return str(browser.version.get("product", ""))

    try:
        info.update(ok=True, product=asyncio.run(attempt()))
    except CDPEngineError as exc:
        info.update(ok=False, error=" ".join(str(exc).split())[:500])
        problems.append(
            {
                "what": f"no browser to attach to at {settings.endpoint}: {info['error']}",
                "fix": "start Chrome with --remote-debugging-port=9222 and its own --user-data-dir (or switch remote "
                "debugging on at chrome://inspect/#remote-debugging), then pass --cdp-url http://127.0.0.1:9222",
            }
        )
    return info


def _version(path: str) -> str | None:
    try:
        run = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    return (run.stdout or run.stderr).strip().splitlines()[0] if (run.stdout or run.stderr).strip() else None


def _try_launch(settings: Settings) -> dict[str, Any]:
    async def attempt() -> dict[str, Any]:
        t0 = time.perf_counter()
        async with launch(**{**settings.launch_kwargs(), "timeout": 30.0}) as browser:
            product = browser.version.get("product", "")
        return {"ok": True, "product": product, "ms": round((time.perf_counter() - t0) * 1000)}

    try:
        return asyncio.run(attempt())
    except (CDPEngineError, OSError, TimeoutError) as exc:
        return {"ok": False, "error": " ".join(str(exc).split())[:500]}


def _transport(settings: Settings) -> dict[str, Any]:
    default = inspect.signature(launch).parameters["transport"].default
    return {
        "in_use": settings.transport or default,
        "default": default,
        "pipe_available": sys.platform != "win32",  # --remote-debugging-pipe needs inheritable fds 3 and 4
    }


def _sandbox() -> dict[str, Any]:
    root = getattr(os, "geteuid", lambda: -1)() == 0
    out: dict[str, Any] = {
        "running_as_root": root,
        "chromium_sandbox": "off (--no-sandbox: Chromium cannot start its sandbox as root)" if root else "on",
    }
    if not root and sys.platform == "linux":
        try:
            with open("/proc/sys/kernel/unprivileged_userns_clone") as f:
                if f.read().strip() == "0":
                    out["note"] = "unprivileged user namespaces are off: Chromium's sandbox may not start"
        except OSError:
            pass
    return out


def _extras() -> dict[str, str]:
    found = {}
    for extra, (module, dist) in EXTRAS.items():
        if importlib.util.find_spec(module.split(".")[0]) is not None and _spec(module):
            try:
                found[extra] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                found[extra] = "installed"
        else:
            found[extra] = f"not installed (pip install 'cdp-engine[{extra}]')"
    return found


def _spec(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _protocol(problems: list[dict[str, str]]) -> dict[str, Any]:
    try:
        root = resources.files("cdp_engine.protocol")
        schemas = [p.name for p in (root / "schemas").iterdir() if p.name.endswith(".json")]
        tools = [p.name for p in (root / "schemas" / "tools").iterdir() if p.name.endswith(".json")]
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError, OSError) as exc:
        problems.append({"what": f"the protocol data is missing ({exc})", "fix": "reinstall cdp-engine: the wheel ships cdp_engine/protocol"})
        return {"ok": False}
    return {"ok": bool(schemas), "schemas": len(schemas), "tool_schemas": len(tools)}


def show(result: dict[str, Any]) -> str:
    """The report for people: one line per finding, then the problems with their fixes."""
    chromium = result["chromium"]
    lines = [
        f"cdp-engine {result['cdp_engine']['version']}  ({result['cdp_engine']['path']})",
        f"Python     {result['python']['version']} on {result['python']['platform']}  ({result['python']['executable']})",
        "runtime    " + ", ".join(f"{k} {v or 'MISSING'}" for k, v in result["runtime_dependencies"].items()),
    ]
    if chromium.get("executable"):
        lines.append(f"Chromium   {chromium.get('version') or '?'}  ({chromium['executable']}, found by {chromium['found_by']})")
        launched = chromium.get("launch")
        if launched:
            lines.append(
                f"           starts: {launched['product']} in {launched['ms']} ms" if launched["ok"] else f"           does NOT start: {launched['error']}"
            )
    else:
        lines.append("Chromium   NOT FOUND")
    attach = result.get("attach")
    if attach:
        state = "" if "ok" not in attach else f": {attach['product']}" if attach["ok"] else f": does NOT answer: {attach['error']}"
        lines.append(f"attach     {attach['endpoint']}{state}")
    transport = result["transport"]
    lines.append(f"transport  {transport['in_use']} (default {transport['default']}; pipe available: {'yes' if transport['pipe_available'] else 'no'})")
    lines.append(f"sandbox    {result['sandbox']['chromium_sandbox']}" + (f"; {result['sandbox']['note']}" if result["sandbox"].get("note") else ""))
    policies = result["policies"]
    lines.append(f"origins    allowed: {policies['allowed_origins']}; blocked: {policies['blocked_origins']}  (docs/policies.md)")
    lines.append("schemes    " + "; ".join(f"{k}: {', '.join(v)}" for k, v in policies["schemes"].items()))
    lines.append("extras     " + ", ".join(f"{k}: {v}" for k, v in result["extras"].items()))
    protocol = result["protocol_data"]
    lines.append(f"protocol   {protocol.get('schemas', 0)} schemas, {protocol.get('tool_schemas', 0)} tool schemas" if protocol["ok"] else "protocol   MISSING")
    settings = result["settings"]
    lines.append(f"settings   config {settings['config'] or 'none'}; log level {settings['log_level']}; log file {settings['log_file'] or 'stderr'}")
    if result["problems"]:
        lines.append("")
        lines.append("problems:")
        for problem in result["problems"]:
            lines.append(f"  - {problem['what']}")
            lines.append(f"    fix: {problem['fix']}")
    else:
        lines.append("")
        lines.append("no problems found")
    return "\n".join(lines)
