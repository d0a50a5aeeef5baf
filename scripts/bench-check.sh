#!/usr/bin/env bash
# Keeps the Rapier benchmark (bench/, package atoll-bench) from rotting: type-checks it, runs
# every scene for one step in both engines and smoke-runs the terrain figures (`terrain --quick`:
# one repeat, few rays; it fails when Atoll and parry3d disagree on a closest hit). Not part of
# ./scripts/test.sh, which never compiles Rapier; `.ci/run` calls this after the tests. The smoke
# runs use the test profile so that they reuse the unit tests' build of Rapier instead of
# compiling it once more (dependencies are built at opt-level 2 either way); each takes about a
# second once built.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== benchmark harness: type check"
cargo check -p atoll-bench --locked

echo "== benchmark harness: lints and unit tests"
cargo clippy -p atoll-bench --all-targets --locked -- -D warnings
cargo test -p atoll-bench --locked

echo "== benchmark harness: one step of every scene in both engines"
cargo run --profile test -p atoll-bench --locked -q -- --steps 1 --repeats 1

echo "== benchmark harness: terrain figures, quick (one repeat, few rays)"
cargo run --profile test -p atoll-bench --locked -q -- terrain --quick
