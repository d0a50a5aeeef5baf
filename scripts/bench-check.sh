#!/usr/bin/env bash
# Keeps the Rapier benchmark (bench/, package atoll-bench) from rotting: type-checks it and runs
# every scene for one step in both engines. Not part of ./scripts/test.sh, which never compiles
# Rapier; `.ci/run` calls this after the tests. The smoke run uses the test profile so that it
# reuses the unit tests' build of Rapier instead of compiling it once more (dependencies are
# built at opt-level 2 either way); it takes under a second once built.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== benchmark harness: type check"
cargo check -p atoll-bench --locked

echo "== benchmark harness: lints and unit tests"
cargo clippy -p atoll-bench --all-targets --locked -- -D warnings
cargo test -p atoll-bench --locked

echo "== benchmark harness: one step of every scene in both engines"
cargo run --profile test -p atoll-bench --locked -q -- --steps 1 --repeats 1
