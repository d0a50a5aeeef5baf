#!/usr/bin/env bash
# Steps one scene at sixteen starting positions of the main thread's stack and prints, at
# each, the state hash and each stage's tenth-percentile time: a stage whose time jumps between
# positions has a layout stall (docs/ARCHITECTURE.md, "Layout-critical types"), which otherwise
# shows only as runs of one binary minutes apart disagreeing. ASLR is turned off for the runs
# (`setarch -R`) and an environment variable of 0 to 240 bytes, in steps of 16 (the kernel
# starts the stack on a 16-byte boundary), moves the stack's start.
#
#   ./scripts/stack-offsets.sh [scene] [threads]      (default: pyramid3d on one thread)
set -euo pipefail
cd "$(dirname "$0")/.."
scene=${1:-pyramid3d}
threads=${2:-1}
if ! setarch "$(uname -m)" -R true 2>/dev/null; then
    echo "stack-offsets: cannot turn ASLR off here (setarch -R failed; a container's seccomp profile may forbid it)" >&2
    exit 1
fi
cargo build --release -p atoll-physics --example step_count --locked
binary=${CARGO_TARGET_DIR:-target}/release/examples/step_count
for offset in $(seq 0 16 240); do
    pad=$(printf '%*s' "$offset" '' | tr ' ' x)
    output=$(env -i PATH="$PATH" STACK_PAD="$pad" setarch "$(uname -m)" -R "$binary" "$scene" 60 30 \
        --threads "$threads" --stages)
    hash=$(sed -n 's/.*state hash \([0-9a-f]*\).*/\1/p' <<<"$output")
    printf 'offset %3d: hash %s; %s\n' "$offset" "$hash" "$(sed -n 's/^stage tenths ms: //p' <<<"$output")"
done
