#!/usr/bin/env bash
# Installs the external programs Kingstable is measured against. They are run only as
# separate processes (opponents, references) — never linked into or vendored in this
# repository (the hnefatafl-copenhagen crate is AGPL).
#
#   bench/install-peers.sh     # installs into $CARGO_INSTALL_ROOT/bin if set, else
#                              # $CARGO_HOME/bin (~/.cargo/bin), as cargo install does
#
# Provides: hnefatafl-text-protocol (the hnefatafl.org AI, text protocol on stdin/stdout).
# Prints the program's path last; says so when that directory is not on PATH.
set -euo pipefail
version=6.4.1
program=hnefatafl-text-protocol
bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"

# Where the program is: the install directory first (it may not be on PATH), then PATH.
installed() {
    if [ -x "$bin/$program" ]; then
        echo "$bin/$program"
    else
        command -v "$program" 2>/dev/null
    fi
}

if path=$(installed); then
    echo "$program already installed: $path"
else
    echo "installing hnefatafl-copenhagen $version ($program) into $bin…"
    cargo install hnefatafl-copenhagen --version "$version" --no-default-features --locked \
        || cargo install hnefatafl-copenhagen --version "$version" --no-default-features
    if ! path=$(installed); then
        echo "install-peers: cargo install succeeded but $program is neither in $bin nor on PATH" >&2
        exit 1
    fi
fi
case ":$PATH:" in
    *":$(dirname "$path"):"*) ;;
    *) echo "note: $(dirname "$path") is not on PATH; add it to run $program by name:" >&2
       echo "    export PATH=\"$(dirname "$path"):\$PATH\"" >&2 ;;
esac
echo "$path"
