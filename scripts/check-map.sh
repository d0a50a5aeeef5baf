#!/usr/bin/env bash
# Checks that docs/ARCHITECTURE.md (the map of the code) names only things that exist, so the
# map fails the test command as soon as a file or a name it gives is moved or renamed. Fast: it
# reads files and runs no cargo. Called early by ./scripts/test.sh.
#
# What it checks, for every `backticked` token of the map outside code fences (``` blocks):
#
#   Paths: a token without spaces that contains "/" or ends in .rs, .md, .sh, .toml, .png,
#     .ron or .wgsl. It must exist from the repository root, or from physics/src/ or app/src/
#     (the convention the map states at its top: `world/step.rs` is
#     physics/src/world/step.rs, `editor/state.rs` is app/src/editor/state.rs). A trailing "/"
#     names a directory, which must then be one. A token containing "::" is not a path.
#
#   Rust names: a token that is, as a whole,
#     - a CamelCase name (an upper-case letter, then letters and digits, at least one of them
#       lower-case): a type, trait or variant, such as `World` or `BatchPair`;
#     - an upper-case name of two or more characters (letters, digits, underscores): a
#       constant or static, such as `MIN_BATCHES_FOR_TEAM` or `F8`;
#     - a path of names joined by "::", such as `World::step` or `Stage::Broadphase`: every
#       name in it is checked;
#     - a name followed by "()" or "!", such as `update_contacts()` or `generational_id!`.
#     Each name must occur as a whole word in some .rs file under physics/, app/ or bench/.
#     Any other token (`f32x4`, `step_count rain 60 20`, a lower-case name without "()") is
#     text, and not checked.
#
# Also checked: every relative Markdown link target, `](path)`, in README.md,
# docs/ARCHITECTURE.md, BENCHMARKS.md and docs/engine-notes.md exists (anchors after "#" and
# links with a scheme, such as https:, are not checked).
#
# Prints each problem with its file and line number, and exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

map=docs/ARCHITECTURE.md
if [ ! -f "$map" ]; then
    echo "check-map: $map is missing"
    exit 1
fi

# Every word of the Rust sources, once.
words=$(mktemp)
tokens=$(mktemp)
trap 'rm -f "$words" "$tokens"' EXIT
grep -rhoE --include='*.rs' --exclude-dir=target '[A-Za-z_][A-Za-z0-9_]*' physics app bench \
    | sort -u >"$words"

# "line<TAB>token" for every backticked token outside code fences.
awk '
    /^[[:space:]]*```/ { fence = !fence; next }
    fence { next }
    {
        line = $0
        while (match(line, /`[^`]+`/)) {
            printf "%d\t%s\n", NR, substr(line, RSTART + 1, RLENGTH - 2)
            line = substr(line, RSTART + RLENGTH)
        }
    }
' "$map" >"$tokens"

problems=0
report() {
    echo "check-map: $1"
    problems=$((problems + 1))
}

path_exists() {
    local t=$1 base
    for base in "" physics/src/ app/src/; do
        if [[ $t == */ ]]; then
            [ -d "$base$t" ] && return 0
        else
            [ -e "$base$t" ] && return 0
        fi
    done
    return 1
}

# One pass: each token is classed as a path (printed for the check below), a Rust name or
# names (each looked up in the source words; a missing one is printed), or text.
while IFS=$'\t' read -r kind line token; do
    case $kind in
        path) path_exists "$token" || report "$map:$line: no such path: $token" ;;
        name) report "$map:$line: no Rust name in physics/, app/ or bench/: $token" ;;
    esac
done < <(awk -F'\t' '
    FNR == NR { known[$0] = 1; next }
    {
        line = $1; t = $2
        if (t !~ / / && t !~ /::/ && (t ~ /\// || t ~ /\.(rs|md|sh|toml|png|ron|wgsl)$/)) {
            printf "path\t%s\t%s\n", line, t
            next
        }
        n = 0
        if (t ~ /^[A-Z][A-Za-z0-9]*$/ && t ~ /[a-z]/) { names[++n] = t }
        else if (t ~ /^[A-Z][A-Z0-9_]+$/) { names[++n] = t }
        else if (t ~ /^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+(\(\))?$/) {
            sub(/\(\)$/, "", t)
            n = split(t, names, "::")
        }
        else if (t ~ /^[A-Za-z_][A-Za-z0-9_]*(\(\)|!)$/) { sub(/(\(\)|!)$/, "", t); names[++n] = t }
        for (i = 1; i <= n; i++) {
            if (!(names[i] in known)) { printf "name\t%s\t%s (in `%s`)\n", line, names[i], $2 }
        }
    }
' "$words" "$tokens")

# Relative links of the Markdown documents.
for doc in README.md docs/ARCHITECTURE.md BENCHMARKS.md docs/engine-notes.md; do
    [ -f "$doc" ] || continue
    dir=$(dirname "$doc")
    while IFS=: read -r line target; do
        target=${target#*](}
        target=${target%)}
        target=${target%%#*}
        [ -n "$target" ] || continue
        [[ $target =~ ^[a-z]+: ]] && continue
        [ -e "$dir/$target" ] || report "$doc:$line: link to a missing file: $target"
    done < <(grep -noE '\]\([^)[:space:]]+\)' "$doc" || true)
done

if [ "$problems" -gt 0 ]; then
    echo "check-map: $problems problem(s): the docs name a path or a Rust name that does not exist"
    exit 1
fi
echo "check-map: every path and name in $map exists ($(wc -l <"$tokens") tokens)"
