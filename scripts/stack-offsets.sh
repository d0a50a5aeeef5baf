#!/usr/bin/env bash
# Steps one scene at sixteen starting offsets of the main thread's stack and prints each
# stage's tenth-percentile time at each: a stage whose time jumps between offsets has a
# layout stall (docs/ARCHITECTURE.md, "Layout-critical types"), which otherwise shows only as
# runs of one binary minutes apart disagreeing. ASLR is turned off for the run (`setarch -R`)
# and an environment variable of 0 to 120 bytes moves the stack's start.
#
#   ./scripts/stack-offsets.sh [scene] [threads]      (default: pyramid3d on one thread)
set -euo pipefail
cd "$(dirname "$0")/.."
scene=${1:-pyramid3d}
threads=${2:-1}
cargo build --release -p atoll-physics --example step_count --locked
binary=target/release/examples/step_count
for offset in $(seq 0 8 120); do
    pad=$(printf '%*s' "$offset" '' | tr ' ' x)
    printf 'offset %3d: ' "$offset"
    env -i PATH="$PATH" STACK_PAD="$pad" setarch "$(uname -m)" -R "$binary" "$scene" 60 30 \
        --threads "$threads" --stages | sed -n 's/^stage tenths ms: //p'
done
