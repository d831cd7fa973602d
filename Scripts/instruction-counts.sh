#!/usr/bin/env bash
# Instructions per operation of the encoder, the decoder and a Codable `set`, beside JSONEncoder's
# and JSONDecoder's, counted by valgrind's callgrind: exact on every run, where wall times on a
# shared VM move by a third.
# (stored-bench prints instruction counts from perf_event_open, which VMs often lack.)
#
#   Scripts/instruction-counts.sh [OPERATION ...]     (default: all of them)
#
# It builds the release library, compiles Benchmarks/InstructionCounts against its objects, runs
# each operation 100 and 300 times under callgrind and prints (Ir(300) - Ir(100)) / 200: the
# cost of one operation without the process's start (for a `set`, without the one flush at the
# end either). Compare two checkouts by running it in each.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "instruction-counts: valgrind is needed (apt-get install -y valgrind)" >&2; exit 69; }
swift build -c release --product stored-bench >/dev/null
release=$(swift build -c release --show-bin-path)
driver=$release/instruction-counts

# The objects of StoredKit and StoredKitTestSupport whose sources still exist (a renamed file
# leaves its old object behind in .build).
objects=()
for target in StoredKit:Sources/StoredKit StoredKitTestSupport:Tests/StoredKitTestSupport; do
    for object in "$release/${target%%:*}.build"/*.swift.o; do
        source=$(basename "$object" .o)
        [ -n "$(find "${target#*:}" -name "$source" -print -quit)" ] && objects+=("$object")
    done
done
swiftc -O -o "$driver" Benchmarks/InstructionCounts/main.swift Benchmarks/StoredBenchmarks/SettingsFixture.swift \
    -I "$release/Modules" -I Sources/CStoredSQLite -I Sources/CStoredPostgres \
    $(pkg-config --cflags-only-I libpq | sed 's/-I/-Xcc -I/g') "${objects[@]}" -lsqlite3 -lpq

# Deterministic hashing: with the per-process seed, a dictionary's order (and so which keys an
# encoding compares first) changes from run to run, and with it the count by a few hundred.
instructions() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$driver" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

operations=("$@")
[ ${#operations[@]} -gt 0 ] || operations=(encode.20-tab json.20-tab encode.settings json.settings decode.20-tab json-decode.20-tab set.20-tab.plist set.20-tab.sqlite)
for operation in "${operations[@]}"; do
    few=$(instructions "$operation" 100)
    many=$(instructions "$operation" 300)
    printf '%-20s %10d instructions/op\n' "$operation" $(((many - few) / 200))
done
