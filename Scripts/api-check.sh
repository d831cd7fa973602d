#!/usr/bin/env bash
# The API-stability check: compares the public API of every library module with the last release
# (RELEASE names its version and commit) using `swift package diagnose-api-breaking-changes`, and fails
# on a breaking change that CHANGELOG.md's [Unreleased] section does not announce.
#
# A break is announced when the section names the symbol the way the API digester does, for example
# "`AnyBackend.postgres(url:namespace:)`" for "func AnyBackend.postgres(url:namespace:) has been removed",
# or "`StoreEvent.forcedWriteRefused`" for a new enum case (a new case breaks an exhaustive `switch`).
#
#   Scripts/api-check.sh                 the check (builds the release's API baseline once, in .build/api-baseline)
#   Scripts/api-check.sh --match LOG     only the matching: LOG holds the digester's output (the check's own test)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

field() { awk -v name="$1" '$1 == name { print $2 }' RELEASE; }

# The [Unreleased] section of the changelog (CHANGELOG, default CHANGELOG.md): from its heading to the next release heading.
unreleased() { awk '/^## \[Unreleased\]/ { on = 1; next } /^## \[/ { on = 0 } on' "${CHANGELOG:-CHANGELOG.md}"; }

# Prints each break in LOG that the [Unreleased] section does not name; exits 1 if there is one.
match_breaks() {
    local log=$1 section missing=0 line symbol
    section=$(unreleased)
    while IFS= read -r line; do
        # "💔 API breakage: func Type.member(label:) has been removed" -> "Type.member(label:)"
        symbol=$(printf '%s\n' "$line" | sed -E 's/.*API breakage: [^ ]+ ([^ ]+) .*/\1/')
        # In backticks, alone or followed by its arguments: `StoreEvent.forced` or `StoreEvent.forced(key:)`.
        if ! grep -qF -e "\`$symbol\`" -e "\`$symbol(" <<<"$section"; then
            echo "api-check: not announced in CHANGELOG.md [Unreleased]: ${line#*API breakage: }" >&2
            missing=1
        fi
    done < <(grep -a 'API breakage:' "$log" || true)
    return $missing
}

if [ "${1:-}" = --match ]; then
    match_breaks "$2"
    exit
fi

version=$(field version)
commit=$(field commit)
[ -n "$version" ] && [ -n "$commit" ] || { echo "api-check: RELEASE names no version or commit" >&2; exit 2; }
grep -q "^## \[$version\]" CHANGELOG.md \
    || { echo "api-check: CHANGELOG.md has no heading for the release in RELEASE ([$version])" >&2; exit 2; }
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    # A shallow clone lacks the release: fetch the history once.
    git fetch -q --unshallow 2>/dev/null || git fetch -q origin "$commit" 2>/dev/null || true
    git cat-file -e "$commit^{commit}" 2>/dev/null \
        || { echo "api-check: the release commit $commit is not in this clone (fetch its history)" >&2; exit 2; }
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$SWIFT" package diagnose-api-breaking-changes "$commit" --baseline-dir ".build/api-baseline/$commit" >"$log" 2>&1 \
    || status=$?
grep -a -E 'breaking change|API breakage' "$log" || true
if [ "$status" -ne 0 ] && ! grep -qa 'API breakage:' "$log"; then
    echo "api-check: diagnose-api-breaking-changes failed without reporting a break; its output:" >&2
    cat "$log" >&2
    exit "$status"
fi
if match_breaks "$log"; then
    echo "api-check: every break since $version ($commit) is announced in CHANGELOG.md"
else
    echo "api-check: announce each break above in CHANGELOG.md's [Unreleased] section (name the symbol), or keep the old API" >&2
    exit 1
fi
