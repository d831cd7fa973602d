#!/usr/bin/env bash
# Builds and runs StoredKit's libFuzzer targets.
#
#   Fuzz/fuzz.sh build                 compile StoredKit and Tests/StoredKitTestSupport once (coverage +
#                                      AddressSanitizer, -enable-testing) and link each target against them
#   Fuzz/fuzz.sh run TARGET SECONDS    fuzz one target from its committed seeds (Fuzz/corpus/TARGET)
#                                      into Fuzz/out/corpus/TARGET; crashes go to Fuzz/out/crashes/TARGET
#   Fuzz/fuzz.sh all SECONDS           build, then run every target; exits non-zero on any crash
#
# Each run ends with a line "fuzz TARGET: N executions in S s, corpus C inputs, K crashes".
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
OUT=Fuzz/out
FLAGS=(-sanitize=fuzzer,address -O -g -swift-version 6 -parse-as-library -package-name StoredKit -I Sources/CStoredSQLite)
# StoredKitPostgres and libpq: only the CLI's target needs them (the CLI opens servers too).
POSTGRES_FLAGS=(-I Sources/CStoredPostgres $(pkg-config --cflags-only-I libpq 2>/dev/null | sed 's/-I/-Xcc -I/g'))
TARGETS=(plist-reader stored-value-json stored-value-decoder stored-value-encoder cli-value-parser)
CLI_SOURCES=${CLI_SOURCES:-Sources/stored}

source_of() {
    case "$1" in
        plist-reader) echo Fuzz/Targets/PlistReaderFuzz.swift ;;
        stored-value-json) echo Fuzz/Targets/StoredValueJSONFuzz.swift ;;
        stored-value-decoder) echo Fuzz/Targets/StoredValueDecoderFuzz.swift ;;
        stored-value-encoder) echo Fuzz/Targets/StoredValueEncoderFuzz.swift ;;
        cli-value-parser)
            # The CLI's parser lives in the `stored` executable target; compile it into the fuzzer.
            if [ -f "$CLI_SOURCES/ValueParser.swift" ]; then
                # Every file of the CLI but main.swift: ValueParser's error type needs its neighbours.
                echo "Fuzz/Targets/CLIValueParserFuzz.swift $(find "$CLI_SOURCES" -name '*.swift' ! -name main.swift | sort | tr '\n' ' ')"
            else
                echo "Fuzz/Targets/StoredValueJSONFuzz.swift"  # no CLI yet: its value syntax is this JSON
            fi
            ;;
        *) echo "unknown fuzz target '$1' (targets: ${TARGETS[*]})" >&2; exit 64 ;;
    esac
}

# gold warns about every AddressSanitizer helper symbol; nothing to act on.
quiet_linker() {
    grep -v "Cannot export local symbol" || true
}

build() {
    mkdir -p "$OUT"
    local sources
    sources=$(find Sources/StoredKit -name '*.swift' | sort)
    # shellcheck disable=SC2086
    "$SWIFTC" "${FLAGS[@]}" -module-name StoredKit -enable-testing -emit-library -static -emit-module \
        -emit-module-path "$OUT/StoredKit.swiftmodule" $sources -o "$OUT/libStoredKit.a" 2>&1 | quiet_linker
    # shellcheck disable=SC2046
    "$SWIFTC" "${FLAGS[@]}" "${POSTGRES_FLAGS[@]}" -module-name StoredKitPostgres -I "$OUT" -enable-testing -emit-library \
        -static -emit-module -emit-module-path "$OUT/StoredKitPostgres.swiftmodule" \
        $(find Sources/StoredKitPostgres -name '*.swift' | sort) -o "$OUT/libStoredKitPostgres.a" 2>&1 | quiet_linker
    # The tests' shared fixtures and generators (the encoder target fuzzes with the tests' generator).
    # shellcheck disable=SC2046
    "$SWIFTC" "${FLAGS[@]}" -module-name StoredKitTestSupport -I "$OUT" -emit-library -static -emit-module \
        -emit-module-path "$OUT/StoredKitTestSupport.swiftmodule" $(find Tests/StoredKitTestSupport -name '*.swift' | sort) \
        -o "$OUT/libStoredKitTestSupport.a" 2>&1 | quiet_linker
    for target in "${TARGETS[@]}"; do
        local extra=()
        [ "$target" = cli-value-parser ] && extra=("${POSTGRES_FLAGS[@]}" "$OUT/libStoredKitPostgres.a" -lpq)
        # Every target gets the shared driver in Fuzz/Support (reading the input, the round-trip check).
        # shellcheck disable=SC2046
        "$SWIFTC" "${FLAGS[@]}" -module-name FuzzTarget -I "$OUT" $(source_of "$target") $(find Fuzz/Support -name '*.swift' | sort) \
            "${extra[@]}" "$OUT/libStoredKitTestSupport.a" "$OUT/libStoredKit.a" -lsqlite3 -o "$OUT/fuzz-$target" 2>&1 | quiet_linker
    done
}

run() {
    local target=$1 seconds=$2
    local corpus="$OUT/corpus/$target" crashes="$OUT/crashes/$target" log="$OUT/$target.log"
    mkdir -p "$corpus" "$crashes"
    local status=0
    # -rss_limit_mb: the decoders must not balloon memory on small inputs either.
    # The Swift backtracer would fight libFuzzer's own crash handler; libFuzzer reports enough.
    SWIFT_BACKTRACE=enable=no "$OUT/fuzz-$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$crashes/" "$corpus" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    local runs corpus_size crash_count
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    corpus_size=$(find "$corpus" -type f | wc -l)
    crash_count=$(find "$crashes" -type f | wc -l)
    echo "fuzz $target: ${runs:-0} executions in $seconds s, corpus $corpus_size inputs, $crash_count crashes (log $log)"
    [ "$status" -eq 0 ] && [ "$crash_count" -eq 0 ]
}

case "${1:-}" in
    build) build ;;
    run) run "$2" "$3" ;;
    all)
        build
        failed=0
        for target in "${TARGETS[@]}"; do run "$target" "${2:-60}" || failed=1; done
        exit $failed
        ;;
    *) sed -n '2,12p' "$0"; exit 64 ;;
esac
