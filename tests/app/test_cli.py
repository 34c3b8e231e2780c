"""The command line as a user meets it, run as a subprocess: --version, every bad value of issue 17 rejected with
one line and exit status 2 before Chromium starts, one option table (flags, environment, config file), one
serve command, logs (levels, file, the token never in them, refused logins at warning), doctor, and the
package importing where fcntl does not exist.

"Before Chromium starts" is checked with a stand-in browser: CDP_ENGINE_CHROME (or --executable) points at
a script that only records that it ran, so any launch would leave its mark.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdp_engine.app import options
from cdp_engine.app.options import OptionError, resolve
from cdp_engine.cdp import launcher

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    keep = ("PYTHONPATH", "HOME", "PATH", "TMPDIR", "LANG")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env.update(extra)
    return env


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cdp_engine", *args], capture_output=True, text=True, timeout=timeout,
        env=env or _env(), cwd=ROOT, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


@pytest.fixture
def fake_chrome(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(browser, marker): an executable that writes `marker` if anything ever runs it."""
    marker = tmp_path / "chromium-ran"
    browser = tmp_path / "fake-chromium"
    browser.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 1\n")
    browser.chmod(0o755)
    yield browser, marker


def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.fixture
def in_use() -> Iterator[int]:
    yield from busy_port()


def test_version_exits_zero() -> None:
    from cdp_engine import __version__

    run = cli("--version")
    assert run.returncode == 0 and run.stdout.strip() == f"cdp-engine {__version__}", run
    assert cli("-V").stdout == run.stdout


def test_help_lists_every_command() -> None:
    run = cli("--help")
    assert run.returncode == 0 and run.stdout.startswith("usage: cdp-engine")
    for name in ("demo", "state", "serve", "mcp", "doctor"):
        assert re.search(rf"^  {name}\b", run.stdout, re.M), name
    assert cli().returncode == 2


BAD = [
    # (arguments, extra environment, the flag the message must name, a word it must hold)
    (["serve", "--port", "99999"], {}, "--port", "0-65535"),
    (["serve", "--port", "-1"], {}, "--port", "0-65535"),
    (["mcp", "--http", "--port", "70000"], {}, "--port", "0-65535"),
    (["serve", "--token", ""], {}, "--token", "empty"),
    (["mcp", "--http", "--token", ""], {}, "--token", "empty"),
    (["serve", "--host", "0.0.0.0"], {}, "--host", "--allow-remote"),
    (["mcp", "--http", "--host", "0.0.0.0"], {}, "--host", "--allow-remote"),
    (["serve", "--executable", "/nonexistent/chromium"], {}, "--executable", "/nonexistent/chromium"),
    (["state", "--executable", "/nonexistent/chromium", "http://127.0.0.1:9/"], {}, "--executable", "not an executable"),
    (["demo", "--executable", "/nonexistent/chromium"], {}, "--executable", "not an executable"),
    (["mcp", "--executable", "/nonexistent/chromium"], {}, "--executable", "not an executable"),
    (["serve"], {"CDP_ENGINE_CHROME": "/nonexistent/chromium"}, "--executable", "CDP_ENGINE_CHROME"),
    (["serve", "--no-such-option"], {}, "--no-such-option", "unrecognized"),
    (["frobnicate"], {}, "frobnicate", "unknown command"),
    (["mcp", "--caps", "tabs,telepathy"], {}, "--caps", "telepathy"),
    (["serve", "--caps", "tabs"], {}, "--caps", "unrecognized"),  # an option of another command
    (["serve"], {"CDP_ENGINE_PORT": "http"}, "--port", "CDP_ENGINE_PORT"),
    (["serve", "--allowed-origins", "https://example.com/path"], {}, "--allowed-origins", "not an origin"),
    (["mcp", "--blocked-origins", "*bad"], {}, "--blocked-origins", "not an origin"),
    (["serve", "--viewport", "wide"], {}, "--viewport", "WIDTHxHEIGHT"),
    (["serve", "--log-level", "loud"], {}, "--log-level", "debug"),
    (["mcp", "--isolation", "vm"], {}, "--isolation", "context"),
    (["mcp", "--max-instances", "0"], {}, "--max-instances", "positive"),
    (["state", "--cdp-url", "ftp://127.0.0.1/", "http://127.0.0.1:9/"], {}, "--cdp-url", "not a DevTools endpoint"),
    (["serve"], {"CDP_ENGINE_CDP_URL": "localhost:9222"}, "--cdp-url", "CDP_ENGINE_CDP_URL"),
    (["serve", "--cdp-url", "http://127.0.0.1:9222", "--user-data-dir", "/tmp/p"], {}, "--user-data-dir", "attached"),
    (["mcp", "--auto-connect", "--isolation", "process"], {}, "--isolation", "attached"),
    (["serve", "--cdp-header", "X-Key: k"], {}, "--cdp-header", "only applies with --cdp-url"),
    (["mcp", "--cdp-url", "http://127.0.0.1:9222", "--cdp-header", "no colon"], {}, "--cdp-header", "Name: value"),
    (["state", "--storage-state", "/nonexistent/state.json", "http://127.0.0.1:9/"], {}, "--storage-state", "cannot read"),
    (["serve", "--storage-state", "/etc/hostname"], {}, "--storage-state", "not valid JSON"),
    (["mcp"], {"BROWSER_MCP_MAX_INSTANCES": "many"}, "BROWSER_MCP_MAX_INSTANCES", "not a valid value"),
]


@pytest.mark.parametrize(("args", "env", "flag", "word"), BAD, ids=[" ".join(b[0]) or "env" for b in BAD])
def test_a_bad_value_is_one_line_and_status_2_before_chromium_starts(
    args: list[str], env: dict[str, str], flag: str, word: str, fake_chrome: tuple[Path, Path]
) -> None:
    browser, marker = fake_chrome
    run = cli(*args, env=_env(**{"CDP_ENGINE_CHROME": str(browser), **env}))
    lines = run.stderr.splitlines()
    assert run.returncode == 2, run
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert flag in lines[0] and word in lines[0], lines[0]
    assert lines[0].startswith("cdp-engine")
    assert not marker.exists(), "Chromium was started before the value was checked"
    assert run.stdout == ""


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_port_in_use_is_one_line_and_status_2(command: list[str], in_use: int, fake_chrome: tuple[Path, Path]) -> None:
    browser, marker = fake_chrome
    run = cli(*command, "--port", str(in_use), env=_env(CDP_ENGINE_CHROME=str(browser)))
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run
    assert f"--port {in_use}" in run.stderr and "in use" in run.stderr
    assert not marker.exists()


def test_config_file_errors_name_the_file_and_the_key(tmp_path: Path, fake_chrome: tuple[Path, Path]) -> None:
    browser, marker = fake_chrome
    env = _env(CDP_ENGINE_CHROME=str(browser))
    cases = {
        "colour = 'red'\n": "unknown option 'colour'",
        "[serve]\nport = 123456\n": "port = 123456",
        "[serve]\nhttp = true\n": "http does not apply to `serve`",
        "[nonsense]\nport = 1\n": "unknown section [nonsense]",
        "port = \n": "not valid TOML",
        "token = ''\n": "must not be empty",
    }
    for text, word in cases.items():
        path = tmp_path / "bad.toml"
        path.write_text(text)
        run = cli("serve", "--config", str(path), env=env)
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, (text, run.stderr)
        assert word in run.stderr and str(path) in run.stderr, (text, run.stderr)
    run = cli("serve", "--config", str(tmp_path / "missing.toml"), env=env)
    assert run.returncode == 2 and "cannot read it" in run.stderr
    assert not marker.exists()


# ----- one option table ----------------------------------------------------------------------------


def test_flags_over_environment_over_file_over_defaults(tmp_path: Path) -> None:
    config = tmp_path / "cdp-engine.toml"
    config.write_text(
        "log-level = 'info'\nviewport = '800x600'\nallowed-origins = ['https://a.test', 'b.test']\ncaps = ['tabs']\n"
        "[serve]\nport = 9100\nstart-url = 'https://a.test/'\n[mcp]\nport = 9200\nhttp = true\n"
    )
    env = {"CDP_ENGINE_CONFIG": str(config), "CDP_ENGINE_PORT": "9300"}
    serve = resolve("serve", {}, env)
    assert serve.port == 9300 and serve.sources["port"] == "CDP_ENGINE_PORT='9300'"  # the environment wins over the file
    assert serve.viewport == (800, 600) and serve.log_level == "info" and serve.start_url == "https://a.test/"
    assert serve.allowed_origins == ("https://a.test", "b.test")
    assert serve.caps is None  # a top-level key of another command is left alone
    assert resolve("serve", {"port": "9400"}, env).port == 9400  # the flag wins
    mcp = resolve("mcp", {}, {"CDP_ENGINE_CONFIG": str(config)})
    assert mcp.port == 9200 and mcp.http and mcp.caps == ("tabs",)
    defaults = resolve("serve", {}, {})
    assert (defaults.port, defaults.host, defaults.headless, defaults.log_level) == (8765, "127.0.0.1", True, "warning")
    assert resolve("mcp", {}, {}).port == 8931
    assert resolve("mcp", {}, {"CDP_ENGINE_MCP_TOKEN": "t"}).token == "t"  # the older name still works for mcp
    assert resolve("serve", {"headless": "false"}, {}).headless is False
    with pytest.raises(OptionError) as bad:
        resolve("serve", {}, {"CDP_ENGINE_HEADLESS": "sometimes"})
    assert bad.value.flag == "--headless"
    launch = resolve("state", {"viewport": "640x480", "allowed_origins": ["a.test;b.test"]}, {}).launch_kwargs()
    assert launch["viewport"] == (640, 480) and launch["allowed_origins"] == ("a.test", "b.test")


def test_python_m_service_is_the_serve_command() -> None:
    serve = cli("serve", "--help")
    service = subprocess.run(
        [sys.executable, "-m", "cdp_engine.service", "--help"], capture_output=True, text=True, env=_env(), cwd=ROOT,
        timeout=60, check=False,
    )  # fmt: skip
    assert serve.returncode == service.returncode == 0
    assert serve.stdout.replace("cdp-engine serve", "PROG").split() == service.stdout.replace(
        "python -m cdp_engine.service", "PROG"
    ).split()
    for flag in ("--port", "--token", "--host", "--allow-remote", "--start-url", "--allow-scheme", "--allowed-origins",
                 "--blocked-origins", "--executable", "--headless", "--viewport", "--log-level", "--log-file", "--config"):  # fmt: skip
        assert flag in serve.stdout, flag
    bad = subprocess.run(
        [sys.executable, "-m", "cdp_engine.service", "--port", "99999"], capture_output=True, text=True, env=_env(),
        cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("python -m cdp_engine.service: error: --port")


def test_every_option_is_in_the_configuration_table() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `--")]
    documented = {re.match(r"\| `(--[a-z-]+)", row).group(1): row for row in rows}  # type: ignore[union-attr]
    for option in options.option_table():
        row = documented.pop(option["flag"], None)
        assert row is not None, f"{option['flag']} is missing from docs/configuration.md"
        assert f"`{option['env']}`" in row, (option["flag"], option["env"])
        for command in option["commands"]:
            assert command in row, (option["flag"], command)
    assert not documented, f"documented but not in the table: {sorted(documented)}"


# ----- logs --------------------------------------------------------------------------------------------


def _wait_for_line(proc: subprocess.Popen[str], pattern: str, timeout: float = 60) -> str:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if re.search(pattern, line):
            return line
    raise AssertionError(f"no line matching {pattern!r} (exit {proc.poll()})")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_service_logs_refused_logins_and_never_the_token(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    token = "svc-secret-" + os.urandom(6).hex()
    log_file = tmp_path / "logs" / "service.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cdp_engine", "serve", "--port", "0", "--token", token, "--log-level", "debug",
         "--log-file", str(log_file), "--blocked-origins", "blocked.invalid"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=_env(), cwd=ROOT,
    )  # fmt: skip
    try:
        url = re.search(r"(http://\S+)", _wait_for_line(proc, r"service on http://")).group(1)  # type: ignore[union-attr]
        for headers in ({}, {"Authorization": "Bearer not-" + token}, {"Authorization": token}):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(urllib.request.Request(url + "/state", headers=headers), timeout=30)
            assert refused.value.code == 401
        good = urllib.request.Request(url + "/state?screenshot=0", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(good, timeout=60) as response:
            assert json.loads(response.read())["url"] == "about:blank"
        navigate = urllib.request.Request(
            url + "/action?screenshot=0", data=b'{"action": "navigate", "url": "https://blocked.invalid/"}',
            headers={"Authorization": f"Bearer {token}"},
        )
        with pytest.raises(urllib.error.HTTPError) as blocked:  # --blocked-origins reached the service's policy
            urllib.request.urlopen(navigate, timeout=60)
        assert blocked.value.code == 400 and "blocked origin" in json.loads(blocked.value.read())["error"]["message"]
    finally:
        _stop(proc)
    text = log_file.read_text()
    assert token not in text
    refusals = [line for line in text.splitlines() if "WARNING cdp_engine.service: refused GET /state" in line]
    assert len(refusals) == 3, text[-2000:]
    assert any("wrong bearer token" in line for line in refusals) and any("no bearer token" in line for line in refusals)
    assert "DEBUG cdp_engine.cdp.traffic: send " in text and "DEBUG cdp_engine.cdp.traffic: recv " in text


def test_mcp_http_logs_refused_logins_at_warning(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import urllib.error
    import urllib.request

    token = "mcp-secret-" + os.urandom(6).hex()
    log_file = tmp_path / "mcp.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cdp_engine", "mcp", "--http", "--port", "0", "--token", token, "--log-level", "info",
         "--log-file", str(log_file)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=_env(), cwd=ROOT,
    )  # fmt: skip
    try:
        url = re.search(r"listening on (http://\S+)", _wait_for_line(proc, r"listening on")).group(1)  # type: ignore[union-attr]
        request = urllib.request.Request(url, data=b"{}", headers={"Authorization": "Bearer nope", "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 401
    finally:
        _stop(proc)
    text = log_file.read_text()
    assert token not in text and "nope" not in text
    assert re.search(r"WARNING cdp_engine\.mcp: refused POST /mcp from 127\.0\.0\.1: a wrong bearer token", text), text


def test_a_token_in_a_log_record_is_redacted(tmp_path: Path) -> None:
    script = (
        "import logging; from cdp_engine.app.process import configure_logging\n"
        f"configure_logging('info', {str(tmp_path / 'x.log')!r}, secrets=['s3cret'])\n"
        "logging.getLogger('cdp_engine.service').warning('header was %s', 'Bearer s3cret')\n"
    )
    subprocess.run([sys.executable, "-c", script], env=_env(), check=True, timeout=60)
    assert (tmp_path / "x.log").read_text().rstrip().endswith("header was Bearer [redacted]")


# ----- doctor, platforms ----------------------------------------------------------------------------


def test_doctor_reports_and_names_what_is_missing(tmp_path: Path) -> None:
    run = cli("doctor", "--json", timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["chromium"]["launch"]["ok"] and report["chromium"]["version"]
    assert report["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    assert report["protocol_data"]["ok"] and report["problems"] == []
    assert report["transport"]["in_use"] in ("websocket", "pipe") and "chromium_sandbox" in report["sandbox"]
    human = cli("doctor", "--no-launch")
    assert human.returncode == 0 and "no problems found" in human.stdout and "Chromium" in human.stdout
    missing = cli("doctor", "--no-launch", "--json", env=_env(CDP_ENGINE_CHROME=str(tmp_path / "none")))
    assert missing.returncode == 1
    problems = json.loads(missing.stdout)["problems"]
    assert "CDP_ENGINE_CHROME" in problems[0]["what"] and "apt-get install" in problems[0]["fix"]


def test_the_package_imports_without_fcntl() -> None:
    """Windows has no fcntl: the package must import (and find a browser) without it."""
    script = (
        "import sys; sys.modules['fcntl'] = None\n"  # any `import fcntl` now raises ImportError
        "import cdp_engine, cdp_engine.cdp.launcher, cdp_engine.mcp_server.tools, cdp_engine.service\n"
        "import cdp_engine.harness, cdp_engine.toolset, cdp_engine.cli\n"
        "print(cdp_engine.find_chromium())\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_env(), timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()).is_file()


def test_chrome_discovery_on_macos_and_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mac = launcher.install_paths("darwin")
    assert "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" in mac
    assert "/Applications/Chromium.app/Contents/MacOS/Chromium" in mac
    windows = launcher.install_paths("win32", {"PROGRAMFILES": r"C:\Program Files", "LOCALAPPDATA": r"C:\Users\u\AppData\Local"})
    assert os.path.join(r"C:\Program Files", r"Google\Chrome\Application\chrome.exe") in windows
    assert os.path.join(r"C:\Users\u\AppData\Local", r"Google\Chrome\Application\chrome.exe") in windows
    assert launcher.install_paths("linux") == []
    # Nothing on PATH: the install paths are searched.
    fake = tmp_path / "Google Chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CDP_ENGINE_CHROME", raising=False)
    monkeypatch.setattr(launcher, "install_paths", lambda: [str(tmp_path / "absent"), str(fake)])
    assert launcher.find_chromium() == str(fake)
    monkeypatch.setenv("CDP_ENGINE_CHROME", str(tmp_path / "absent"))
    with pytest.raises(launcher.BrowserNotFoundError, match="CDP_ENGINE_CHROME"):
        launcher.find_chromium()  # named and missing: an error, not the next browser found
