#!/usr/bin/env bash
# Runs a command with CHROMIUM naming Debian's headless-capable Chromium (installed when missing; no
# browser is ever downloaded by npm: playwright-core drives this one). The browser suite starts and stops
# its own browser processes.
# Usage: bash scripts/with-chromium.sh npm run test:browser
set -euo pipefail
bin=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$bin" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "with-chromium: Chromium is not installed and this is not root: apt-get install chromium" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  bin=/usr/bin/chromium
fi
echo "with-chromium: $("$bin" --version 2>/dev/null | head -n 1)"
CHROMIUM="$bin" "$@"
