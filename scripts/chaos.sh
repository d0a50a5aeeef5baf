#!/usr/bin/env bash
# The thread team under chaos for longer than the test command runs it: every built-in and
# benchmark scene on 2, 3 and 4 threads, each member pausing at random at every
# synchronisation point, against one thread's hashes and events step by step
# (physics/tests/chaos.rs). Steps per scene and the seed: ./scripts/chaos.sh [STEPS] [SEED].
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-300}"
seed="${2:-$RANDOM}"
echo "chaos: $steps steps a scene, seed $seed"
ATOLL_CHAOS_STEPS="$steps" ATOLL_CHAOS_SEED="$seed" \
    cargo test --release --locked -p atoll-physics --test chaos -- --nocapture
