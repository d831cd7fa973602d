#!/usr/bin/env bash
# Builds the documentation sites of StoredKit, StoredKitPostgres and TabKit into .build/docs.
#
# The symbol graphs come from the modules of the ordinary debug build (`swift build`, a no-op
# when `make test` has run), read by `swift symbolgraph-extract`, so nothing is compiled twice;
# the toolchain's `docc` turns each catalog plus its graphs into a static site. Any DocC warning
# (an unresolved link, a curated symbol that does not exist) fails the build.
#
# It also fails when a landing page's Topics leave out a public top-level symbol
# (Scripts/docs-curation.py), so a new type cannot land undocumented.
set -euo pipefail
cd "$(dirname "$0")/.."

swift=${SWIFT:-swift}
modules=(StoredKit StoredKitPostgres TabKit)
out=.build/docs
graphs=.build/symbol-graphs

for module in "${modules[@]}"; do
    # A no-op after `swift build` or `make test`; its output matters only when it fails.
    if ! output=$($swift build --target "$module" 2>&1); then
        echo "$output" >&2
        echo "docs: 'swift build --target $module' failed" >&2
        exit 1
    fi
done

bin=$($swift build --show-bin-path)
triple=$($swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
# The C modules StoredKit and StoredKitPostgres import, found as the build found them (pkg-config paths included).
clang_flags=()
for dir in Sources/CStoredSQLite Sources/CStoredPostgres; do clang_flags+=(-I "$dir"); done
for flag in $(pkg-config --cflags-only-I sqlite3 libpq 2>/dev/null); do clang_flags+=(-Xcc "$flag"); done

rm -rf "$out" "$graphs"
mkdir -p "$out"
for module in "${modules[@]}"; do
    mkdir -p "$graphs/$module"
    # StoredKitPostgres extends StoredKit's types (AnyBackend.postgres, Backend.postgres): extension
    # blocks put those members on its own pages, under the extended types.
    extension_blocks=()
    [ "$module" = StoredKitPostgres ] && extension_blocks=(-emit-extension-block-symbols)
    $swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$bin/Modules" "${clang_flags[@]}" \
        -minimum-access-level public -skip-inherited-docs "${extension_blocks[@]}" -output-dir "$graphs/$module"
    # docc prints warnings and still succeeds without --warnings-as-errors; with it, the first
    # warning fails the build and every one is printed.
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.storedkit.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" \
        --warnings-as-errors --output-path "$out/$module" >"$graphs/$module.log" 2>&1 ||
        { cat "$graphs/$module.log" >&2; echo "docs: DocC reported the problems above for $module" >&2; exit 1; }
    Scripts/docs-curation.py "$graphs/$module" "Sources/$module/$module.docc/$module.md"
done

cat >"$out/index.html" <<'HTML'
<!doctype html>
<meta charset="utf-8">
<title>StoredKit documentation</title>
<h1>StoredKit documentation</h1>
<ul>
  <li><a href="StoredKit/documentation/storedkit/">StoredKit</a>: the preferences store</li>
  <li><a href="StoredKitPostgres/documentation/storedkitpostgres/">StoredKitPostgres</a>: the PostgreSQL backend</li>
  <li><a href="TabKit/documentation/tabkit/">TabKit</a>: the headless tab model</li>
</ul>
HTML

echo "Documentation: $PWD/$out"
echo "  StoredKit: $PWD/$out/StoredKit/documentation/storedkit/index.html"
echo "  StoredKitPostgres: $PWD/$out/StoredKitPostgres/documentation/storedkitpostgres/index.html"
echo "  TabKit:    $PWD/$out/TabKit/documentation/tabkit/index.html"
echo "Browse it with 'make docs-preview' (a static site: open it through a web server, not file://)."
