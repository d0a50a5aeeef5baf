#!/usr/bin/env bash
# Keeps the benchmark (bench/, package atoll-bench: Atoll against Rapier and Box3D) from
# rotting: type-checks and lints it (with and without its default `box3d` feature), runs every
# scene for one step in every engine, on one thread and on two, and smoke-runs the terrain figures
# (`terrain --quick`: one repeat, few rays; it fails when Atoll and parry3d disagree on a closest
# hit). Not part of ./scripts/test.sh, which never compiles Rapier or Box3D; `.ci/run` calls this
# after the tests. The smoke runs use the test profile so that they reuse the unit tests' build of
# Rapier and Box3D instead of compiling them once more (dependencies are built at opt-level 2
# either way; Box3D's C sources at -O0 outside the release profile, so its smoke-run times mean
# nothing); each takes a few seconds once built. Box3D adds about 20 s of cold compiling with one
# job (cc, boxddd-sys's C build, boxddd; BENCHMARKS.md, "Box3D, the third engine").
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== benchmark harness: type check without Box3D (${SECONDS} s in)"
# Without the feature the harness still builds and reports Box3D as not built. (With it, the
# lints below check it.)
cargo check -p atoll-bench --locked --no-default-features

echo "== benchmark harness: lints and unit tests (${SECONDS} s in)"
cargo clippy -p atoll-bench --all-targets --locked -- -D warnings
cargo test -p atoll-bench --locked

echo "== benchmark harness: one step of every scene in every engine (${SECONDS} s in)"
cargo run --profile test -p atoll-bench --locked -q -- --steps 1 --repeats 1

echo "== benchmark harness: the same on two threads (each engine also on one, for its speed-up) (${SECONDS} s in)"
cargo run --profile test -p atoll-bench --locked -q -- --steps 1 --repeats 1 --threads 2

echo "== benchmark harness: terrain figures, quick (one repeat, few rays) (${SECONDS} s in)"
cargo run --profile test -p atoll-bench --locked -q -- terrain --quick
echo "== benchmark harness done (${SECONDS} s in)"
