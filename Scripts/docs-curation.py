#!/usr/bin/env python3
"""Fails when a module's landing page does not curate every public top-level symbol.

    Scripts/docs-curation.py .build/symbol-graphs/StoredKit Sources/StoredKit/StoredKit.docc/StoredKit.md

DocC lists an uncurated symbol in an automatic section without a word; the landing pages promise
to group every one under `## Topics`, so a new public type must be placed there by hand.
"""
import json
import pathlib
import re
import sys


def top_level_symbols(graph_dir: pathlib.Path, module: str) -> set[str]:
    graph = json.loads((graph_dir / f"{module}.symbols.json").read_text())
    return {
        symbol["pathComponents"][0]
        for symbol in graph["symbols"]
        if len(symbol["pathComponents"]) == 1
    }


def curated_symbols(landing_page: pathlib.Path) -> set[str]:
    text = landing_page.read_text()
    topics = text.split("## Topics", 1)[1] if "## Topics" in text else ""
    # ``Name``, ``Name/member`` and ``Name-swift.struct`` all curate Name.
    return {re.split(r"[/-]", link)[0] for link in re.findall(r"``([^`]+)``", topics)}


def main() -> int:
    graph_dir, landing_page = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    missing = sorted(top_level_symbols(graph_dir, graph_dir.name) - curated_symbols(landing_page))
    if missing:
        print(f"docs: {landing_page} does not curate these public symbols under '## Topics':", file=sys.stderr)
        for name in missing:
            print(f"  ``{name}``", file=sys.stderr)
        print("docs: add each to the topic group it belongs to.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
