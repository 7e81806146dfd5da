#!/usr/bin/env bash
# Installs the external programs Kingstable is measured against. They are run only as
# separate processes (opponents, references) — never linked into or vendored in this
# repository (the hnefatafl-copenhagen crate is AGPL).
#
#   bench/install-peers.sh            # installs into ~/.cargo/bin (or $CARGO_INSTALL_ROOT)
#
# Provides: hnefatafl-text-protocol (the hnefatafl.org AI, text protocol on stdin/stdout).
set -euo pipefail
version=6.4.1
if command -v hnefatafl-text-protocol >/dev/null 2>&1; then
    echo "hnefatafl-text-protocol already installed: $(command -v hnefatafl-text-protocol)"
    exit 0
fi
echo "installing hnefatafl-copenhagen $version (hnefatafl-text-protocol)…"
cargo install hnefatafl-copenhagen --version "$version" --no-default-features --locked \
    || cargo install hnefatafl-copenhagen --version "$version" --no-default-features
command -v hnefatafl-text-protocol
