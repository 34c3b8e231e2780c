#!/usr/bin/env bash
# Rebuilds the real-web suite's component pages (tests/realweb/pages) from the pinned npm packages in
# tests/realweb/build/package.json: npm install, then esbuild bundles each page of tests/realweb/build/src.
# The output is committed, so the tests themselves need neither npm nor the network.
set -euo pipefail
cd "$(dirname "$0")/../tests/realweb/build"
command -v npm >/dev/null || { echo "npm is missing (Debian: apt-get install -y nodejs npm)" >&2; exit 1; }
npm install --no-audit --no-fund --silent
node build.mjs
