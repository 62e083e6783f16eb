#!/usr/bin/env python3
# A source file a document shows whole must appear in it verbatim
# (docs/getting-started.md shows src/examples/expose/main.cpp).
import sys

doc, src = sys.argv[1], sys.argv[2]
if open(src).read() not in open(doc).read():
    print(f"{doc} does not show {src} as it is: copy the file into the document again")
    sys.exit(1)
