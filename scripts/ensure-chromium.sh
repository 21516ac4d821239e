#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the vitest `chromium` project.
# Playwright's own browser download needs hosts this environment cannot reach, so the
# distribution package is the one that works; vitest.config.ts points Playwright at it.
# Idempotent and silent when Chromium is already there.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
[[ -x "$CHROMIUM" ]] && exit 0
# A Chromium elsewhere, named the same way vitest.config.ts reads it, also satisfies us.
[[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available." >&2
  echo "Install Chromium yourself, or set CHROMIUM_PATH to a Chromium binary." >&2
  exit 1
fi

source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
if ! root_prefix; then
  echo "ensure-chromium: $CHROMIUM is missing and installing it needs root." >&2
  echo "Run: sudo apt-get install -y chromium   (or set CHROMIUM_PATH to a Chromium binary)" >&2
  exit 1
fi

echo "ensure-chromium: installing Debian's chromium package (about 25 s)..." >&2
apt_install "${SUDO[@]}" -- chromium >/dev/null

if [[ ! -x "$CHROMIUM" ]]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing." >&2
  exit 1
fi
