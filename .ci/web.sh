#!/usr/bin/env bash
# The web app's checks: TypeScript's checkJs over web/ (no build step: the type-check is
# the only compile), the i18n check (every key in en/it/fr, none unused, every end
# reason in words), and the browser tests in headless Chromium (Debian's package) driven
# by playwright-core. Screenshots go to $KINGSTABLE_SCREENSHOTS (default
# target/web-screenshots). Run from anywhere: bash .ci/web.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==== %s ====\n' "$*"; }
fail() { printf '\nWEB CHECKS FAILED: %s\n' "$*" >&2; exit 1; }

step "install Chromium (Debian) and the npm packages (typescript, playwright-core)"
if ! command -v chromium >/dev/null; then
    apt-get update -q && apt-get install -y -q chromium || fail "cannot install chromium"
fi
# The rating list's browser test seeds its database with the sqlite3 shell.
command -v sqlite3 >/dev/null || { apt-get update -q && apt-get install -y -q sqlite3; } \
    || fail "cannot install sqlite3"
command -v npm >/dev/null || { apt-get update -q && apt-get install -y -q nodejs npm; } \
    || fail "cannot install node and npm"
npm ci --no-audit --no-fund --loglevel=error || fail "npm ci"

step "type-check web/ (tsc --noEmit, checkJs)"
npx tsc --noEmit -p tsconfig.json || fail "type errors in web/"

step "i18n check (en, it, fr)"
node web/tests/i18n_check.mjs || fail "i18n"

if [ -d crates/server ]; then
    # The browser tests run the app against a real kingstable serve: the binary CI's tests
    # built (KINGSTABLE_CI_BINARIES), or run alone, a release build.
    if [ -n "${KINGSTABLE_CI_BINARIES:-}" ]; then
        export KINGSTABLE_BIN="$KINGSTABLE_CI_BINARIES/kingstable"
    else
        step "build kingstable"
        cargo build --release --locked -p kingstable || fail "cargo build kingstable"
        export KINGSTABLE_BIN="$PWD/target/release/kingstable"
    fi
    # With this set, a missing server makes the server tests fail instead of skipping.
    export KINGSTABLE_REQUIRE_SERVER=1
fi

step "browser tests (headless Chromium)"
export KINGSTABLE_SCREENSHOTS="${KINGSTABLE_SCREENSHOTS:-$PWD/target/web-screenshots}"
node --test --test-concurrency=1 web/tests/ || fail "browser tests"
printf 'screenshots: %s\n' "$KINGSTABLE_SCREENSHOTS"
