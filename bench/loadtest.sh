#!/usr/bin/env bash
# The load-test figures of bench/RESULTS.md (issue 19), for one kingstable binary:
#   bench/loadtest.sh PATH_TO_KINGSTABLE OUT_DIR [SECONDS]
# Runs kingstable-loadtest (built here in release) against a fresh server for each case,
# one after the other, and writes OUT_DIR/CASE.txt (the report) and OUT_DIR/CASE.json.
# Compare two binaries by running both on the same machine in one go.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/loadtest.sh PATH_TO_KINGSTABLE OUT_DIR [SECONDS]" >&2; exit 2; }
bin=$1 out=$2 secs=${3:-30}
mkdir -p "$out"
cargo build --release --locked -p loadtest >&2 || exit 1
lt=target/release/kingstable-loadtest
run() {
    local name=$1; shift
    echo "== $name: kingstable-loadtest --spawn $bin $*" | tee "$out/$name.txt"
    "$lt" --spawn "$bin" --json "$out/$name.json" "$@" 2>&1 | tee -a "$out/$name.txt"
}
# Fast play: 10 games, no think time; CPU per 1,000 moves, delivery.
run fast --pairs 10 --duration "${secs}s"
# The same beside 1,000 lobby sockets: CPU per move against `fast`.
run lobby1000 --pairs 10 --lobby 1000 --duration "${secs}s" --max-sockets 2000
# 2,000 idle spectators (100 on each of 20 idle games) beside 10 games: RSS per socket.
run idle2000 --pairs 10 --idle-spectators 2000 --idle-games 20 --duration "${secs}s"
# A hostile client beside 4 games and an honest player's AI game.
run hostile --pairs 4 --hostile --duration "$((secs * 2))s"
# 1,100 connections that never finish their headers, from one address (127.0.0.2), the
# server held to 1,024 open files (a common default): does /health still answer within
# 2 s? --direct: the server sees addresses (no --trust-proxy), so its per-address cap
# applies; behind a proxy nothing can be capped per client before the headers are read.
wrapper="$out/kingstable-1024.sh"
printf '#!/bin/sh\nulimit -n 1024\nexec "%s" "$@"\n' "$(realpath "$bin")" > "$wrapper"
chmod +x "$wrapper"
bin=$wrapper run health1100 --direct --pairs 2 --hostile --slow-connections 1100 \
    --slow-from 127.0.0.2 --flood-ai-games 0 \
    --rematch-chain 0 --flood-analyses 0 --duration "${secs}s"
# 500 games at 1-3 s a move: round trips under many slow games.
run think500 --pairs 500 --think 1000-3000 --duration "$((secs * 2))s"
