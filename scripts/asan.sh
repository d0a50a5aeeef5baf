#!/usr/bin/env bash
# AddressSanitizer over the engine's tests that exercise its `unsafe` code: the solver's four-
# and eight-lane passes (AVX intrinsics, unchecked indexing), the arrays the team's members write
# at disjoint elements (SharedSlice), the prefetch hints and the team's door (the library's unit
# tests; with --all also every built-in and benchmark scene on 1 to 4 threads and on four and
# eight lanes, the wide joint and contact paths against the general ones, and chaos).
# The test command runs the unit tests (17 s under ASan after a 3 to 4-minute build: the solver's
# lanes against the scalar rows, the team, pipeline and door on real threads, worlds stepped);
# --all adds the determinism tests, the fast paths and chaos (13 minutes more). Nightly only
# (-Zsanitizer); the machines carry no rust-src, so std stays uninstrumented and the ABI check
# is waived (-Cunsafe-allow-abi-mismatch=sanitizer). Without a nightly toolchain it says so and
# passes.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "asan: SKIPPED: no nightly toolchain here (rustup toolchain install nightly); AddressSanitizer needs -Zsanitizer"
    exit 0
fi
host="$(rustc -vV | sed -n 's/^host: //p')"
# Only the target is instrumented (with --target, build scripts and proc macros are not).
export RUSTFLAGS="-Zsanitizer=address -Cunsafe-allow-abi-mismatch=sanitizer"
export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1"
echo "asan: $(cargo +nightly --version), target $host"
start=$SECONDS
tests=(--lib)
if [ "${1:-}" = "--all" ]; then
    tests+=(--test determinism --test fast_paths --test chaos)
fi
cargo +nightly test --locked -q -p atoll-physics --target "$host" --target-dir target/asan "${tests[@]}" 2>&1 |
    grep -v '^\s*$'
echo "asan: clean ($((SECONDS - start)) s)"
