#!/usr/bin/env bash
# Makes sure Debian's chromium is present for the dashboard's end-to-end tests (Playwright cannot download its own
# browser here): installs it with apt-get when missing and this user can, otherwise says how and fails.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the dashboard's browser tests…" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The dashboard's browser tests need Debian's chromium at /usr/bin/chromium: sudo apt-get install -y chromium" >&2
exit 1
