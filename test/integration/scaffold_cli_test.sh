#!/bin/sh
# kcoro-scaffold's command line: a project written where asked (dotfiles,
# executable scripts), an existing non-empty directory refused without
# --force, bad names and flags refused with exit 2 before anything is
# written. (scripts/out-of-tree builds and tests a generated project.)
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "scaffold_cli_test: $*" >&2; exit 1; }

"$bin" init --name widget-operator --group example.com --kind Widget --output "$dir/p" >"$dir/out"
grep -q "wrote 23 files" "$dir/out" || fail "unexpected output: $(cat "$dir/out")"
for f in .gitignore meson.build CMakeLists.txt src/api/widget_types.hpp deploy/crd/example.com_widgets.yaml \
         deploy/samples/widget.yaml test/reconciler_test.cpp; do
    [ -f "$dir/p/$f" ] || fail "missing $f"
done
[ -x "$dir/p/scripts/build-image" ] || fail "scripts/build-image is not executable"
if grep -rl '@@[a-zA-Z_]*@@' "$dir/p" >/dev/null; then fail "unrendered placeholders in $(grep -rl '@@[a-zA-Z_]*@@' "$dir/p")"; fi

# Not over an existing project without --force (exit 1), then with it.
rc=0; "$bin" init --name widget-operator --group example.com --kind Widget --output "$dir/p" 2>"$dir/err" || rc=$?
[ "$rc" = 1 ] || fail "second init: exit $rc, want 1"
grep -q "exists and is not empty (--force writes into it)" "$dir/err" || fail "second init: $(cat "$dir/err")"
"$bin" init --name widget-operator --group example.com --kind Widget --output "$dir/p" --force >/dev/null

# Bad input: exit 2, the rule named, nothing written.
rc=0; "$bin" init --name Bad_Name --group example.com --kind Widget --output "$dir/q" 2>"$dir/err" || rc=$?
[ "$rc" = 2 ] || fail "bad name: exit $rc, want 2"
grep -q -- '--name "Bad_Name": a DNS-1123 label' "$dir/err" || fail "bad name: $(cat "$dir/err")"
[ ! -e "$dir/q" ] || fail "bad name: something was written"
rc=0; "$bin" init --name w --group example.com --kind Widget --bogus 2>"$dir/err" || rc=$?
[ "$rc" = 2 ] || fail "unknown flag: exit $rc, want 2"
rc=0; "$bin" init --name w --group example.com --kind 2>"$dir/err" || rc=$?
[ "$rc" = 2 ] || fail "missing value: exit $rc, want 2"
grep -q "missing value for --kind" "$dir/err" || fail "missing value: $(cat "$dir/err")"
"$bin" --help | grep -q "usage: kcoro-scaffold init" || fail "--help"
echo "scaffold_cli_test: ok"
