#!/usr/bin/env python3
"""The test files of one layer share an executable (test/unit/meson.build), so
two of them must not define the same class or inline function outside an
anonymous namespace: the linker would keep one definition for both files
(an ODR violation: no error, wrong behaviour). Test files put their helpers
in `namespace { ... }`, or in a namespace named after the file.

Usage: shared_executable_check.py SOURCE_ROOT. Exit 1 on a name defined twice.
A heuristic scan (kcoro's style: namespace members at column 0, namespaces
closed by `} // namespace ...`), not a parser."""
import collections
import pathlib
import re
import sys

DEFINITION = re.compile(
    r'^(?:template\s*<.*>\s*)?(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)\s*(?:final\s*)?(?::[^;]*)?\{')
INLINE_FN = re.compile(r'^(?:template\s*<.*>\s*)?inline\s+[\w:<>,\s\*&]+?\s+(\w+)\s*\(')


def definitions(path):
    stack = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        opened = re.match(r'^namespace\s*([\w:]*)\s*\{', line)
        if opened:
            stack.append(opened.group(1) or None)
            continue
        if re.match(r'^\}\s*//\s*namespace', line) and stack:
            stack.pop()
            continue
        if None in stack:
            continue
        for pattern in (DEFINITION, INLINE_FN):
            m = pattern.match(line)
            if m:
                yield '::'.join(stack + [m.group(1)]), number


def main():
    root = pathlib.Path(sys.argv[1])
    groups = collections.defaultdict(list)
    for f in sorted((root / 'test/unit').glob('*/*.cpp')):
        groups['unit/' + f.parent.name].append(f)
    groups['integration'] = sorted((root / 'test/integration').glob('*.cpp'))
    bad = 0
    for group, files in groups.items():
        seen = collections.defaultdict(list)
        for f in files:
            for name, number in definitions(f):
                seen[name].append(f'{f.relative_to(root)}:{number}')
        for name, where in sorted(seen.items()):
            files_defining = {w.rsplit(':', 1)[0] for w in where}
            if len(files_defining) > 1:
                bad += 1
                print(f'{group}: {name} is defined outside an anonymous namespace in ' + ', '.join(where))
    checked = sum(len(f) for f in groups.values())
    print(f'{checked} test files checked, {bad} names defined in more than one file of an executable')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
