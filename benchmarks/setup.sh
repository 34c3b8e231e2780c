#!/usr/bin/env bash
# Installs what the benchmark needs besides the engine itself:
#   - Debian's python3-doc (real pages nobody on the project wrote), with apt-get, as root;
#   - the other systems (Playwright, browser-use, BrowserGym) and matplotlib into their own venv,
#     benchmarks/.venv-others, so none of their dependencies enter the engine's environment.
# Never runs `playwright install`: every system drives the Debian Chromium at /usr/bin/chromium.
# A system that fails to install is recorded in .venv-others/install-status.txt; the others go on.
#
# Environment: BENCH_PYTHON (interpreter for the venv, default python3, needs >= 3.11),
#              BENCH_VENV (venv folder, default benchmarks/.venv-others),
#              BENCH_UNPINNED=1 (latest releases instead of the versions the suite was built against).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${BENCH_VENV:-$HERE/.venv-others}"
PY="${BENCH_PYTHON:-python3}"
status=0

say() { printf '\n== %s\n' "$*"; }

# --- Chromium -------------------------------------------------------------------------------------------------
say "Chromium"
if [ -x /usr/bin/chromium ]; then
    /usr/bin/chromium --version 2>/dev/null
else
    echo "/usr/bin/chromium is missing: as root, run: apt-get update && apt-get install -y chromium" >&2
    status=1
fi

# --- python3-doc ----------------------------------------------------------------------------------------------
say "python3-doc"
docs_found() { ls /usr/share/doc/python3/html/library/typing.html /usr/share/doc/python3.*/html/library/typing.html >/dev/null 2>&1; }
if docs_found; then
    echo "installed: $(dpkg-query -W -f='${Version}' python3-doc 2>/dev/null)"
elif [ "$(id -u)" -eq 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    if apt-get update -qq && apt-get install -y -qq python3-doc >/dev/null; then
        echo "installed: $(dpkg-query -W -f='${Version}' python3-doc 2>/dev/null)"
    else
        echo "apt-get install python3-doc failed; the doc pages will be reported as errors" >&2
        status=1
    fi
else
    echo "python3-doc is not installed and this is not root: run 'sudo apt-get install python3-doc'," >&2
    echo "or rerun this script as root. The doc pages will be reported as errors until then." >&2
    status=1
fi

# --- the other systems' venv ----------------------------------------------------------------------------------
say "venv for the other systems: $VENV"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "$PY is missing or older than 3.11 (browser-use needs 3.11): set BENCH_PYTHON" >&2
    exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" || { echo "could not create $VENV" >&2; exit 1; }
fi
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check -q)
"${PIP[@]}" --upgrade pip >/dev/null 2>&1 || true

if [ "${BENCH_UNPINNED:-0}" = 1 ]; then
    PLAYWRIGHT=playwright; BROWSER_USE=browser-use; BROWSERGYM=browsergym-core
else
    PLAYWRIGHT=playwright==1.65.2; BROWSER_USE=browser-use==0.13.14; BROWSERGYM=browsergym-core==0.14.3
fi

STATUS_FILE="$VENV/install-status.txt"
: > "$STATUS_FILE"
install_step() {  # name, then pip arguments; logs to $VENV/install-NAME.log
    local name="$1"; shift
    local log="$VENV/install-$name.log"
    if "${PIP[@]}" "$@" >"$log" 2>&1; then
        echo "$name ok" | tee -a "$STATUS_FILE"
    else
        local err
        err="$(grep -E 'ERROR|error' "$log" | tail -n 1)"
        echo "$name failed: ${err:-see $log}" | tee -a "$STATUS_FILE" >&2
        status=1
    fi
}

install_step browser-use "$BROWSER_USE"
# browsergym-core pins playwright==1.44, which predates the AI-mode snapshot; its extract functions only need
# CDP sessions and evaluate, so it goes in without its pin and the current Playwright goes in last.
install_step browsergym-deps "beautifulsoup4>=4.12" "gymnasium>=0.27" "lxml>=4.9,<6" "mcp[cli]>=1.6.0" \
    "numpy>=1.14" "pillow>=10.1" "pyparsing>=3"
install_step browsergym --no-deps "$BROWSERGYM"
install_step playwright "$PLAYWRIGHT" matplotlib orjson psutil

say "installed versions"
"$VENV/bin/python" - <<'EOF'
from importlib import metadata
for name in ("playwright", "browser-use", "browsergym-core", "cdp-use", "matplotlib"):
    try:
        print(f"{name:16} {metadata.version(name)}")
    except metadata.PackageNotFoundError:
        print(f"{name:16} not installed")
EOF
# Expected: browsergym-core's playwright==1.44 pin shows up here as a conflict.
"$VENV/bin/python" -m pip check --disable-pip-version-check 2>&1 | sed 's/^/pip check: /' || true

say "done"
echo "run: python benchmarks/run.py --quick   (or --full)"
exit $status
