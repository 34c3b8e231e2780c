#!/usr/bin/env bash
# Installs Debian's Chromium when no Chromium is on this machine (needs root for apt-get).
set -euo pipefail
for name in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$name" >/dev/null 2>&1 || [ -n "${CDP_ENGINE_CHROME:-}" ]; then
    exit 0
  fi
done
if [ "$(id -u)" != "0" ]; then
  echo "Chromium is missing. As root run: apt-get update && apt-get install -y chromium" >&2
  echo "(or set CDP_ENGINE_CHROME to a Chromium/Chrome binary)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium fonts-liberation >/dev/null
command -v chromium
