#!/usr/bin/env python3
# The sources a document shows must appear in it as they are
# (docs/getting-started.md shows src/examples/expose/ and parts of its test).
#
#   doc_in_sync.py DOC FILE... [--excerpts FILE...]
#
# Each FILE before --excerpts must appear in DOC whole. After --excerpts:
# every fenced code block of DOC right after a line `<!-- excerpt of PATH -->`
# (PATH as given here) must appear verbatim in that file, and each such file
# must have at least one excerpt.
import re
import sys

args = sys.argv[1:]
doc = open(args[0]).read()
whole, excerpts = [], []
target = whole
for a in args[1:]:
    if a == '--excerpts':
        target = excerpts
    else:
        target.append(a)

failed = False
for src in whole:
    if open(src).read() not in doc:
        print(f"{args[0]} does not show {src} as it is: copy the file into the document again")
        failed = True

blocks = re.findall(r'<!-- excerpt of (\S+) -->\n```[a-z]*\n(.*?)```\n', doc, re.S)
for src in excerpts:
    mine = [text for path, text in blocks if src.endswith('/' + path) or src == path]
    if not mine:
        print(f"{args[0]} has no excerpt of {src}")
        failed = True
    text = open(src).read()
    for i, block in enumerate(mine, 1):
        if block not in text:
            print(f"{args[0]}: excerpt {i} of {src} is not in the file as it is: copy it again")
            failed = True
sys.exit(1 if failed else 0)
