#!/usr/bin/env python3
"""Writes the foreign-file corpus: property lists as other programs write them (Python's plistlib,
hand-written XML that Foundation and plistlib agree on), each named after what it tests.
ForeignFileTests.swift says what StoredKit must make of each; this script also prints what
plistlib makes of them, so the expectations can be checked against an independent reader.

    python3 Tests/StoredKitTests/ForeignFiles/make-corpus.py
"""
import os
import plistlib
import sys

sys.setrecursionlimit(20000)  # plistlib reads and writes nested values recursively

HERE = os.path.dirname(os.path.abspath(__file__))
DOCTYPE = (b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
           b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')


def xml(body, encoding=b"UTF-8"):
    return b'<?xml version="1.0" encoding="' + encoding + b'"?>\n' + DOCTYPE + b'<plist version="1.0">\n' + body + b"\n</plist>\n"


def nested(depth):
    """A store whose key "deep" holds 1 inside `depth` arrays, beside an ordinary key."""
    value = 1
    for _ in range(depth):
        value = [value]
    return {"deep": value, "other": "kept"}


FILES = {
    # The declared encoding is honoured.
    "latin1-declared.plist": xml(b"<dict><key>name</key><string>\xc3\xa4</string></dict>", b"ISO-8859-1"),
    "latin1-label.plist": xml(b"<dict><key>name</key><string>K\xfcche</string></dict>", b"latin-1"),
    "ascii-declared.plist": xml(b"<dict><key>name</key><string>plain</string></dict>", b"US-ASCII"),
    "ascii-high-byte.plist": xml(b"<dict><key>name</key><string>\xc3\xa4</string></dict>", b"US-ASCII"),
    "unknown-encoding.plist": xml(b"<dict><key>name</key><string>a</string></dict>", b"foobar"),
    "windows-1252.plist": xml(b"<dict><key>name</key><string>\x80</string></dict>", b"windows-1252"),
    # Processing instructions may stand between elements and inside text; other declarations may not.
    "pi-in-dict.plist": xml(b"<dict><?editor fold?><key>a</key><integer>1</integer></dict>"),
    "pi-in-array.plist": xml(b"<array><?editor fold?><integer>1</integer></array>"),
    "pi-in-string.plist": xml(b"<string>a<?editor mark?>b</string>"),
    "bogus-doctype.plist": b'<?xml version="1.0"?>\n<!foobar plist>\n<plist version="1.0"><dict/></plist>\n',
    "xml-declaration-late.plist": b'<plist version="1.0"><dict><?xml version="1.0"?></dict></plist>\n',
    # Reals are decimal: no hex floats.
    "real-hex.plist": xml(b"<real>0x10</real>"),
    # Valid files holding what StoredKit cannot store.
    "uid.bplist": plistlib.dumps({"object": plistlib.UID(7)}, fmt=plistlib.FMT_BINARY),
    "integer-beyond-64-bits.plist": xml(b"<dict><key>big</key><integer>1180591620717411303424</integer></dict>"),
    # Nested as deep as StoredKit reads (StoredValue.maximumDepth, 512) and less: read exactly.
    "deep-200.plist": plistlib.dumps(nested(200)),
    "deep-200.bplist": plistlib.dumps(nested(200), fmt=plistlib.FMT_BINARY),
    "deep-512.plist": xml(b"<dict><key>deep</key>" + b"<array>" * 512 + b"<integer>1</integer>" + b"</array>" * 512
                          + b"<key>other</key><string>kept</string></dict>"),
    "deep-512.bplist": plistlib.dumps(nested(512), fmt=plistlib.FMT_BINARY),
    # Nested deeper than StoredKit's limit: valid, but unsupported (never called corrupt).
    # (XML without plistlib's indentation, which grows with the square of the depth.)
    "deep-600.plist": xml(b"<dict><key>deep</key>" + b"<array>" * 600 + b"<integer>1</integer>" + b"</array>" * 600
                          + b"<key>other</key><string>kept</string></dict>"),
    "deep-600.bplist": plistlib.dumps(nested(600), fmt=plistlib.FMT_BINARY),
    # Keys equal only up to Unicode normalisation: two keys to plistlib, one to Swift.
    "equivalent-keys.plist": plistlib.dumps({"caf\u00e9": "composed", "cafe\u0301": "decomposed", "other": 1}),
    "equivalent-keys.bplist": plistlib.dumps(
        {"caf\u00e9": "composed", "cafe\u0301": "decomposed", "other": 1}, fmt=plistlib.FMT_BINARY),
    # Zero bytes: what a crash or `touch` leaves.
    "empty.plist": b"",
}

for name, content in FILES.items():
    with open(os.path.join(HERE, name), "wb") as file:
        file.write(content)
    try:
        outcome = repr(plistlib.loads(content))
    except Exception as error:  # what an independent reader says
        outcome = f"rejected: {type(error).__name__}: {error}"
    print(f"{name:32} plistlib: {outcome}")
