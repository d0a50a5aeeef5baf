#!/usr/bin/env bash
# The thread team's protocols under loom: physics/src/parallel/loom_models.rs, built from the
# same code as the engine with loom's atomics (`--cfg loom`, parallel/sync.rs). Each model runs
# under every interleaving its threads allow, up to LOOM_MAX_PREEMPTIONS preemptions (3 by
# default), and prints how many it explored.
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="--cfg loom" cargo test --locked --release -p atoll-physics --target-dir target/loom \
    --lib loom_ -- --nocapture --test-threads 1
