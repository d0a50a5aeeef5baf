#!/usr/bin/env bash
# Runs every test of the workspace. Installs what a fresh machine lacks first, so the same
# command works on a developer's machine and in CI (`.ci/run` calls exactly this script).
set -euo pipefail
cd "$(dirname "$0")/.."

# The toolchain components the checks below use.
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    rustup component add rustfmt clippy
fi

# Software Vulkan (Mesa's lavapipe) for the rendering tests, which fail without a GPU adapter.
if ! compgen -G "/usr/share/vulkan/icd.d/lvp_icd*.json" >/dev/null; then
    echo "== installing mesa-vulkan-drivers (software Vulkan for the rendering tests) (${SECONDS} s in)"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q mesa-vulkan-drivers
fi

# The map of the code names only paths and Rust names that exist (no cargo: a second or so).
echo "== docs map (${SECONDS} s in)"
./scripts/check-map.sh

echo "== format (${SECONDS} s in)"
cargo fmt --all -- --check

# The Rapier benchmark (atoll-bench) is left out here so this script never compiles Rapier;
# ./scripts/bench-check.sh checks it, and .ci/run calls both.
echo "== lints (${SECONDS} s in)"
cargo clippy --workspace --exclude atoll-bench --all-targets --locked -- -D warnings

echo "== tests (${SECONDS} s in)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --exclude atoll-bench --locked 2>&1 | tee "$log"
# One closing line over every test binary, so a reader (or CI) sees the total at the end.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f; if (p == 0) exit 1 }' "$log"
echo "== tests done (${SECONDS} s in)"

# The thread team's protocols under loom (its own build of the engine, --cfg loom) and
# AddressSanitizer over the unsafe code's tests (nightly; skipped, saying so, without it), side
# by side: each is mostly a build of the engine of its own, and much of a build runs on one
# core (the engine is one codegen unit in loom's release build), so together they keep both
# cores busy. Each one's output is shown when both are done; either failing fails the script.
echo "== loom models and address sanitizer, side by side (${SECONDS} s in)"
loom_log=$(mktemp)
asan_log=$(mktemp)
trap 'rm -f "$log" "$loom_log" "$asan_log"' EXIT
./scripts/loom.sh >"$loom_log" 2>&1 &
loom_pid=$!
./scripts/asan.sh >"$asan_log" 2>&1 &
asan_pid=$!
loom_status=0
wait "$loom_pid" || loom_status=$?
asan_status=0
wait "$asan_pid" || asan_status=$?
echo "== loom models"
grep -E 'loom: |^test result:|panicked|FAILED|^error' "$loom_log" || true
if [ "$loom_status" -ne 0 ]; then
    tail -40 "$loom_log"
fi
echo "== address sanitizer"
cat "$asan_log"
if [ "$loom_status" -ne 0 ] || [ "$asan_status" -ne 0 ]; then
    echo "loom exit $loom_status, address sanitizer exit $asan_status"
    exit 1
fi
echo "== all done (${SECONDS} s in)"
