#!/bin/sh
# The core layer is pure: no sockets, no timers, no io_context. Fail if any
# core file includes Asio or Beast.
root="$1"
if grep -rnE '#include *[<"]boost/(asio|beast)' "$root/include/kcoro/core" "$root/src/kcoro/core"; then
  echo "core files must not include Asio or Beast" >&2
  exit 1
fi
echo "core is pure"
