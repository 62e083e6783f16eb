#!/bin/sh
# The core, typed and pure runtime layers are pure: no sockets, no timers, no
# io_context, no clock reads (time is passed in). Fail if any of their files
# includes Asio, Beast, OpenSSL or kcoro's io layer, or reads a clock.
# The pure runtime's files are the ones src/kcoro/runtime/meson.build lists
# in kcoro_runtime_pure_sources (each source with its header).
root="$1"
pure_runtime=$(sed -n '/^kcoro_runtime_pure_sources += files(/,/^)/p' "$root/src/kcoro/runtime/meson.build" |
  sed -n "s/^ *'\(.*\)\.cpp',*$/\1/p")
if [ -z "$pure_runtime" ]; then
  echo "no kcoro_runtime_pure_sources found in src/kcoro/runtime/meson.build" >&2
  exit 1
fi
files=$(find "$root/include/kcoro/core" "$root/src/kcoro/core" "$root/include/kcoro/typed" "$root/src/kcoro/typed" \
  -name '*.hpp' -o -name '*.cpp' -o -name '*.ipp')
for f in $pure_runtime; do
  for p in "$root/src/kcoro/runtime/$f.cpp" "$root/include/kcoro/runtime/$f.hpp"; do
    if [ ! -f "$p" ]; then
      echo "$p: listed as pure but missing" >&2
      exit 1
    fi
    files="$files $p"
  done
done
status=0
# shellcheck disable=SC2086
if grep -nE '#include *[<"](boost/(asio|beast)|openssl/|kcoro/(io|client|server)/)' $files; then
  echo "pure files must not include Asio, Beast, OpenSSL or the io/client/server layers" >&2
  status=1
fi
# Clock reads outside comments.
# shellcheck disable=SC2086
if grep -nE '^[^/]*(_clock::now *\(|io::clock|time\( *(NULL|nullptr|0) *\))' $files; then
  echo "pure files must not read a clock: take the time as a parameter" >&2
  status=1
fi
[ $status -eq 0 ] && echo "core, typed and the pure runtime ($(echo $pure_runtime | wc -w) files) are pure"
exit $status
