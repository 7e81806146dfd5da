#!/usr/bin/env bash
# The short load test of CI (about a minute): a few dozen random games of the three
# kinds through `kingstable serve` on loopback, with spectators and a few hundred
# lobby sockets, then a hostile client (slow connections, an AI flood, a rematch chain,
# analysis sockets that never read) beside an honest player's AI game. Fails on any lost
# or mismatched move, any error, and any fairness breach (the honest player's AI move
# delayed by more than one search, a loss on time, /health slower than 2 s; see
# crates/loadtest/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# CI passes the binaries its tests built (KINGSTABLE_CI_BINARIES); run alone, a release
# build.
if [ -n "${KINGSTABLE_CI_BINARIES:-}" ]; then
    lt=$KINGSTABLE_CI_BINARIES/kingstable-loadtest
    bin=$KINGSTABLE_CI_BINARIES/kingstable
else
    cargo build --release --locked -p kingstable -p loadtest
    lt=target/release/kingstable-loadtest
    bin=target/release/kingstable
fi
"$lt" --spawn "$bin" --pairs 12 --spectators 1 --lobby 300 --think 0-30 --duration 25s
"$lt" --spawn "$bin" --pairs 2 --hostile --slow-connections 100 --flood-ai-games 10 \
    --rematch-chain 10 --flood-analyses 2 --duration 25s --fail-on-breach
