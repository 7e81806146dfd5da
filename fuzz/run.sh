#!/usr/bin/env bash
# Runs one fuzz target for SECONDS (libFuzzer, on stable Rust): builds it with the
# sanitizer-coverage flags cargo-fuzz would pass, then fuzzes from fuzz/corpus/TARGET
# (new inputs are added there), writing any crash to fuzz/artifacts/TARGET/.
#
#   fuzz/run.sh TARGET SECONDS [libFuzzer options…]   e.g. fuzz/run.sh records 600
#   fuzz/run.sh all SECONDS                            each target in turn, SECONDS each
#   fuzz/run.sh list                                   the targets
#
# FUZZ_NEW_INPUTS=DIR keeps new inputs out of the corpus (they go to DIR).
# Exits non-zero when a target finds a crash (a panic, a failed invariant, an overflow:
# debug assertions and overflow checks are on). Reproduce one with
#   fuzz/run.sh TARGET 0 fuzz/artifacts/TARGET/crash-…
set -euo pipefail
cd "$(dirname "$0")"

TARGETS=(tafl_text camelot_text records ugi_lines otep_lines tafl_rules camelot_rules server_messages)

usage() { echo "usage: fuzz/run.sh TARGET|all|list SECONDS [libFuzzer options]" >&2; exit 2; }
[ $# -ge 1 ] || usage
if [ "$1" = list ]; then printf '%s\n' "${TARGETS[@]}"; exit 0; fi
[ $# -ge 2 ] || usage
target=$1 seconds=$2
shift 2
[[ "$seconds" =~ ^[0-9]+$ ]] || usage

if [ "$target" = all ]; then
    for t in "${TARGETS[@]}"; do "$0" "$t" "$seconds" "$@"; done
    exit 0
fi
printf '%s\n' "${TARGETS[@]}" | grep -qx "$target" || { echo "no target $target (fuzz/run.sh list)" >&2; exit 2; }

# What `cargo fuzz build` passes, on stable: libfuzzer-sys needs only these.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
features=()
[ "$target" = server_messages ] && features=(--features server)
# An explicit --target keeps these flags off build scripts and proc macros (as cargo-fuzz does).
triple=$(rustc -vV | sed -n 's/^host: //p')
# Not --locked: fuzz/Cargo.lock follows the crates' dependencies as they change (the
# workspace's own Cargo.lock pins them there).
cargo build --release --target "$triple" --bin "$target" "${features[@]}" >&2
bin="target/$triple/release/$target"

corpus="corpus/$target"
artifacts="artifacts/$target"
mkdir -p "$corpus" "$artifacts"
dict=()
[ -f "dict/$target.dict" ] && dict=("-dict=dict/$target.dict")
if [ $# -gt 0 ] && [ -f "${!#}" ]; then
    # A file to reproduce: run it once.
    exec "$bin" "$@"
fi
# FUZZ_NEW_INPUTS=DIR: new inputs go there, and the kept corpus is only read (CI).
dirs=("$corpus")
[ -n "${FUZZ_NEW_INPUTS:-}" ] && dirs=("$FUZZ_NEW_INPUTS" "$corpus")
exec "$bin" "${dirs[@]}" "${dict[@]}" -max_total_time="$seconds" \
    -max_len=4096 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@"
