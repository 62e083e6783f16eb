#!/bin/sh
# The core and typed layers are pure: no sockets, no timers, no io_context.
# Fail if any of their files includes Asio or Beast.
root="$1"
if grep -rnE '#include *[<"]boost/(asio|beast)' "$root/include/kcoro/core" "$root/src/kcoro/core" \
     "$root/include/kcoro/typed" "$root/src/kcoro/typed"; then
  echo "core and typed files must not include Asio or Beast" >&2
  exit 1
fi
echo "core and typed are pure"
