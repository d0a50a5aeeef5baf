#!/usr/bin/env bash
# Hostile scene and recording files for longer than the test command reads them: the 45
# malicious files of physics/tests/hostile_files.rs and MUTATIONS random corruptions of each of
# its four base files, each refused (or read as valid) without a panic and within the heap cap.
# ./scripts/hostile-files.sh [MUTATIONS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
mutations="${1:-5000}"
seed="${2:-$RANDOM}"
echo "hostile files: $mutations mutations of each base file, seed $seed"
ATOLL_HOSTILE_MUTATIONS="$mutations" ATOLL_HOSTILE_SEED="$seed" \
    cargo test --release --locked -p atoll-physics --test hostile_files -- --nocapture
