#!/usr/bin/env bash
# axe-core for the accessibility browser tests (Tests/PassConsoleTests/Browser/AccessibilityBrowserTests.swift),
# without npm: the axe.min.js that PyPI's axe-selenium-python wheel bundles, pinned to one version and checked
# against its SHA-256, into .build/axe/axe.min.js (never committed). Does nothing when that file is already there.
# `make test` runs it before `swift test`; the test runs it too when the file is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
WHEEL=axe-selenium-python
WHEEL_VERSION=3.0.0 # bundles axe-core 4.10.2
MEMBER=axe_selenium_python/node_modules/axe-core/axe.min.js
SHA256=b511cd9dec01c76f4b2ad1723b66b6db37d4c2eb4ed199076e1829d9ee7b75e3
TARGET=.build/axe/axe.min.js

if [ -f "$TARGET" ] && echo "$SHA256  $TARGET" | sha256sum -c --status; then exit 0; fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "==> fetch-axe: needs python3 with pip to download $WHEEL from PyPI (Debian: apt-get install python3-pip)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The wheel is pure Python and the file wanted is JavaScript: any interpreter may download it (3.0.0 asks for 3.12).
if ! python3 -m pip download "$WHEEL==$WHEEL_VERSION" --no-deps --only-binary=:all: --python-version 3.12 \
  --disable-pip-version-check --quiet -d "$work" >"$work/pip.log" 2>&1; then
  cat "$work/pip.log" >&2
  echo "==> fetch-axe: could not download $WHEEL $WHEEL_VERSION from PyPI (is PyPI reachable?); the accessibility" \
    "browser tests need its axe.min.js at $TARGET" >&2
  exit 1
fi
python3 - "$work" "$MEMBER" <<'PY'
import glob, sys, zipfile
work, member = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(glob.glob(f"{work}/*.whl")[0]) as wheel, open(f"{work}/axe.min.js", "wb") as out:
    out.write(wheel.read(member))
PY
if ! echo "$SHA256  $work/axe.min.js" | sha256sum -c --status; then
  echo "==> fetch-axe: $MEMBER in $WHEEL $WHEEL_VERSION is not the axe-core 4.10.2 expected (SHA-256 differs)" >&2
  exit 1
fi
mkdir -p "$(dirname "$TARGET")"
mv "$work/axe.min.js" "$TARGET"
echo "==> fetch-axe: axe-core 4.10.2 (from $WHEEL $WHEEL_VERSION) at $TARGET"
