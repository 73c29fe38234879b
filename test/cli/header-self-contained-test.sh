#!/usr/bin/env bash
# Include-what-you-use discipline (issue 10, item 10): every public header of the module
# compiles alone, as the first and only include of a translation unit, with -Wall -Wextra
# -Werror. A header that leans on another header's includes (std::map without <map>,
# std::function without <functional>, ...) fails here with the compiler's message.
# Usage: header-self-contained-test.sh CXX INCLUDE_DIR HEADER...
set -u
cxx=$1
incdir=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
  local h=$1 name
  name=$(basename "$h")
  if printf '#include "ns3/%s"\n' "$name" |
    "$cxx" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -DEDGE_LLM_NS3_VERSION="${EDGE_LLM_NS3_VERSION:-3037}" \
      -I"$incdir" -isystem /usr/include/libxml2 -x c++ - 2>"$tmp/$name.err"; then
    echo "ok   $name" >"$tmp/$name.out"
  else
    { echo "FAIL $name"; sed 's/^/     /' "$tmp/$name.err" | head -20; } >"$tmp/$name.out"
  fi
}
export -f check
export cxx incdir tmp
printf '%s\n' "$@" | xargs -P "$(nproc)" -I{} bash -c 'check "$1"' _ {}
cat "$tmp"/*.out >"$tmp/out"
cat "$tmp/out"
passed=$(grep -c '^ok ' "$tmp/out")
failed=$(grep -c '^FAIL ' "$tmp/out")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$#" ]
