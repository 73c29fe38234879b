#!/usr/bin/env bash
# Golden outputs: the programs' stdout and every .csv and .plt file they write stay
# byte-identical, for the option sets of test/data/golden/sets.txt, to the manifests
# recorded there (issue 21: a refactor changes no number unless CHANGES.md names it).
# Normalized before hashing: the output folder's path becomes OUT; wall-clock lines
# ("wall time ...") and the backhaul study's cpu_s column are left out (they vary run to
# run). PNGs are left out (gnuplot's rendering is not ours); their .plt scripts are checked.
#
#   golden-outputs-test.sh BIN_DIR RAN [--record]
#
#   BIN_DIR   where the programs are: BIN_DIR/<program>, or ns-3's in-tree names
#             BIN_DIR/ns3.*-<program>[-*] (searched recursively)
#   RAN       lte (standalone build, Debian's ns-3.37) or nr (in-tree ns-3.46 + nr): the
#             sets of that ran; manifests are specific to the ns-3 release they were
#             recorded on
#   --record  write the manifests instead of checking them (after a change CHANGES.md
#             names, or when adding a set)
# Exit status 0 only if every set of RAN ran and matched; prints one line per set.
set -u
usage() {
  echo "golden-outputs-test: error: $1" >&2
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage "expected BIN_DIR RAN [--record], got $# arguments"
bin=$1
ran=$2
record=0
if [ $# -eq 3 ]; then
  [ "$3" = --record ] || usage "unknown option '$3' (the only option is --record)"
  record=1
fi
case "$ran" in lte | nr) ;; *) usage "RAN must be lte or nr (got '$ran')" ;; esac
[ -d "$bin" ] || usage "BIN_DIR '$bin' is not a folder"
src=$(cd "$(dirname "$0")/../.." && pwd)
golden=$src/test/data/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

program_path() { # name: the program's file, or nothing
  if [ -x "$bin/$1" ]; then
    echo "$bin/$1"
    return
  fi
  find "$bin" -type f -perm -u+x \( -name "ns3*-$1" -o -name "ns3*-$1-*" \) 2>/dev/null |
    LC_ALL=C sort | head -1
}

normalize() { # program file out: the normalized text of file on stdout
  local program=$1 file=$2 out=$3
  if [ "$program" = edge-llm-backhaul-study ] && [ "${file##*/}" = stdout ]; then
    # The table's last column is cpu_s.
    sed -e "s#$out#OUT#g" -e "s#$src#SRC#g" -e '/^wall time/d' -e 's/ cpu_s$//' \
      -e '/^ *[0-9.]\+ \+[a-z]\+ \+[0-9]/s/ \+[0-9.]\+$//' "$file"
  else
    sed -e "s#$out#OUT#g" -e "s#$src#SRC#g" -e '/^wall time/d' "$file"
  fi
}

sets=0
failed=0
while IFS='|' read -r name set_ran program args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [ "$set_ran" = "$ran" ] || continue
  sets=$((sets + 1))
  path=$(program_path "$program")
  if [ -z "$path" ]; then
    echo "FAIL $name: program $program not found in $bin"
    failed=$((failed + 1))
    continue
  fi
  out=$tmp/$name
  mkdir -p "$out"
  # shellcheck disable=SC2086 # the arguments are split on purpose
  args=${args//SRC/$src}
  set -- ${args//OUT/$out}
  start=$(date +%s)
  if ! "$path" "$@" </dev/null >"$out/stdout" 2>"$out/stderr"; then
    echo "FAIL $name: $program exited non-zero: $(tail -c 400 "$out/stderr")"
    failed=$((failed + 1))
    continue
  fi
  manifest=$tmp/$name.sha256
  (
    cd "$out" || exit 1
    for f in stdout $(find . -type f \( -name '*.csv' -o -name '*.plt' \) | sed 's#^\./##' | LC_ALL=C sort); do
      printf '%s  %s\n' "$(normalize "$program" "$f" "$out" | sha256sum | cut -d' ' -f1)" "$f"
    done
  ) >"$manifest"
  seconds=$(($(date +%s) - start))
  if [ $record -eq 1 ]; then
    cp "$manifest" "$golden/$name.sha256"
    echo "recorded $name ($(wc -l <"$manifest") files, ${seconds} s)"
  elif [ ! -f "$golden/$name.sha256" ]; then
    echo "FAIL $name: no manifest $golden/$name.sha256 (record it with --record)"
    failed=$((failed + 1))
  elif ! diff -u "$golden/$name.sha256" "$manifest" >"$tmp/diff"; then
    echo "FAIL $name: outputs differ from the golden manifest (- golden, + now):"
    grep '^[-+][^-+]' "$tmp/diff" | sed 's/^/    /'
    echo "    stdout now:"
    normalize "$program" "$out/stdout" "$out" | head -40 | sed 's/^/    /'
    failed=$((failed + 1))
  else
    echo "ok $name ($(wc -l <"$manifest") files, ${seconds} s)"
  fi
done <"$golden/sets.txt"
[ $sets -gt 0 ] || usage "no $ran set in $golden/sets.txt"
echo "$((sets - failed)) passed, $failed failed"
[ $failed -eq 0 ]
