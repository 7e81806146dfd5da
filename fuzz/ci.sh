#!/usr/bin/env bash
# CI's short fuzz runs: every target of fuzz/run.sh for a few seconds from its kept
# corpus (about a minute in all, after one build); new inputs go to a temporary
# directory, so the checkout is left as it was. Fails on the first crash.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_CI_SECONDS:-7}
# A few seconds a target check the build and the corpus, not depth: build at opt-level 1
# (the server's target compiles sqlx, axum and tokio with coverage instrumentation).
# fuzz/run.sh alone keeps the profile of fuzz/Cargo.toml for real fuzzing.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# server_messages is not among them: its build compiles the whole server (sqlx, axum,
# tokio) again with coverage instrumentation, longer than all the other targets' builds
# and runs together on CI's two cores. The server's unit tests read arbitrary text as its
# messages the same way (live::messages::tests::any_input); fuzz/run.sh server_messages
# is the long form. FUZZ_CI_TARGETS="…" chooses others.
targets=${FUZZ_CI_TARGETS:-$(./run.sh list | grep -vx server_messages)}
for target in $targets; do
    echo "== fuzz $target ${seconds}s"
    mkdir -p "$scratch/$target"
    if ! FUZZ_NEW_INPUTS="$scratch/$target" ./run.sh "$target" "$seconds" >"$scratch/$target.log" 2>&1; then
        tail -n 60 "$scratch/$target.log" >&2
        echo "fuzz target $target failed (the input is in fuzz/artifacts/$target)" >&2
        exit 1
    fi
    grep -E 'stat::number_of_executed_units|stat::new_units_added' "$scratch/$target.log" || true
done
