#!/usr/bin/env bash
# ctest install-find-package (label "install"): installs the standalone build into a
# temporary prefix, checks what was installed, builds this directory's user program against
# it with find_package(edge-llm) (CMake + Ninja, in a temporary build directory), runs it
# and checks its output against the hand calculation it prints. Removes its files at exit.
# Usage: install-test.sh BUILD_DIR TEST_INSTALL_DIR VERSION   (VERSION: MAJOR.MINOR.PATCH)
set -u
build=$1
src=$2
version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail=0
bad() {
  echo "FAIL: $*"
  fail=$((fail + 1))
}
IFS=. read -r major minor _ <<<"$version"
soversion=$major.$minor

# 1. Install.
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  tail -20 "$tmp/install.log"
  echo "FAIL: cmake --install $build --prefix $prefix"
  exit 1
fi
echo "installed into a temporary prefix: $(grep -c "Installing:" "$tmp/install.log") files"

# 2. What is installed: the versioned library with its SONAME, the headers as ns3/<name>.h,
#    the package files, and the seven user-facing programs only (no test or benchmark).
lib=$(sed -n 's|^-- Installing: \(.*/libns3-edge-llm\.so\.[0-9.]*\)$|\1|p' "$tmp/install.log" \
  | awk 'length > max { max = length; path = $0 } END { print path }')
[ "$(basename "$lib")" = "libns3-edge-llm.so.$version" ] \
  || bad "library file is '$(basename "$lib")', expected libns3-edge-llm.so.$version"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libns3-edge-llm.so.$soversion" ] \
  || bad "SONAME is '$soname', expected libns3-edge-llm.so.$soversion"
[ -L "$libdir/libns3-edge-llm.so" ] || bad "no development symlink $libdir/libns3-edge-llm.so"
for header in edge-llm-helper.h ctho-planner.h edge-llm-module.h; do
  [ -f "$prefix/include/ns3/$header" ] || bad "header include/ns3/$header not installed"
done
# Internal headers stay out (CMakeLists.txt's private_header_files), and every installed
# header's own includes of the module's headers are installed too.
for header in edge-llm-source-role.h edge-llm-target-role.h kv-pre-transfer-store.h; do
  [ ! -e "$prefix/include/ns3/$header" ] || bad "internal header include/ns3/$header installed"
done
for header in "$prefix"/include/ns3/*.h; do
  for included in $(sed -n 's/^#include "\(ns3\/\)\{0,1\}\([^"/]*\.h\)"$/\2/p' "$header"); do
    if [ -e "$src/../../model/$included" ] || [ -e "$src/../../helper/$included" ]; then
      [ -e "$prefix/include/ns3/$included" ] \
        || bad "$(basename "$header") includes $included, which is not installed"
    fi
  done
done
echo "installed headers: $(find "$prefix/include/ns3" -name '*.h' | wc -l)"
if find "$prefix/include" -type f ! -name '*.h' | grep -q .; then
  bad "non-header files under include/: $(find "$prefix/include" -type f ! -name '*.h')"
fi
for file in edge-llm-config.cmake edge-llm-config-version.cmake edge-llm-targets.cmake; do
  [ -f "$libdir/cmake/edge-llm/$file" ] || bad "package file $file not installed"
done
programs=$(cd "$prefix/bin" 2>/dev/null && ls | sort | tr '\n' ' ')
expected="ctho-figures edge-llm-backhaul-study edge-llm-campaign edge-llm-lte-handover edge-llm-plan edge-llm-pre-transfer edge-llm-serving-study impactho-figures "
[ "$programs" = "$expected" ] || bad "bin/ holds '$programs', expected '$expected'"

# loads PROGRAM: the file its libns3-edge-llm resolves to (ldd, no LD_LIBRARY_PATH), or "".
loads() {
  local path
  path=$(cd / && env -u LD_LIBRARY_PATH ldd "$1" \
    | sed -n 's|^[[:space:]]*libns3-edge-llm[^ ]* => \([^ ]*\) .*|\1|p')
  [ -z "$path" ] || realpath "$path"
}
installed_lib=$(realpath "$lib")
# An installed program runs from elsewhere without LD_LIBRARY_PATH (relative RUNPATH) and
# loads the installed library.
plan_lib=$(loads "$prefix/bin/edge-llm-plan")
[ "$plan_lib" = "$installed_lib" ] \
  || bad "bin/edge-llm-plan loads '$plan_lib', expected $installed_lib"
if ! (cd "$tmp" && env -u LD_LIBRARY_PATH "$prefix/bin/edge-llm-plan" --scheme=ctho \
  --ues="$src/../cli/four-ues.csv" --backhaulGbps=4.5 >"$tmp/plan.json" 2>"$tmp/plan.err"); then
  bad "installed bin/edge-llm-plan failed: $(head -c 300 "$tmp/plan.err")"
fi

# 3. A user's project: find_package(edge-llm MAJOR.MINOR REQUIRED), built with Ninja.
configure() { # build-dir requested-version
  env -u LD_LIBRARY_PATH cmake -S "$src" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DEDGE_LLM_REQUIRED_VERSION="$2"
}
if ! configure "$tmp/build" "$soversion" >"$tmp/configure.log" 2>&1; then
  tail -30 "$tmp/configure.log"
  echo "FAIL: configuring test/install with find_package(edge-llm $soversion)"
  exit 1
fi
found=$(sed -n 's/^edge-llm_DIR:PATH=//p' "$tmp/build/CMakeCache.txt")
[ "$found" = "$libdir/cmake/edge-llm" ] \
  || bad "find_package found '$found', expected $libdir/cmake/edge-llm"
if ! cmake --build "$tmp/build" >"$tmp/build.log" 2>&1; then
  tail -30 "$tmp/build.log"
  echo "FAIL: building the user program against the installed package"
  exit 1
fi
user_lib=$(loads "$tmp/build/edge-llm-user-program")
[ "$user_lib" = "$installed_lib" ] \
  || bad "the user program loads '$user_lib', expected $installed_lib"
rc=0
env -u LD_LIBRARY_PATH "$tmp/build/edge-llm-user-program" >"$tmp/user.out" 2>&1 || rc=$?
cat "$tmp/user.out"
[ "$rc" -eq 0 ] || bad "user program exited with $rc"
# The planner's L and worst delay as the program prints them, against ctHO by hand
# (user-program.cc's header: L* = 600 tokens, V(L*) = 0.15 s).
grep -qx "ctHO prefill length L = 600 tokens" "$tmp/user.out" \
  || bad "output lacks 'ctHO prefill length L = 600 tokens'"
grep -q "^worst delay: ctHO 0.15 s, tHO 0.29 s, cHO 0.27 s$" "$tmp/user.out" \
  || bad "output lacks 'worst delay: ctHO 0.15 s, tHO 0.29 s, cHO 0.27 s'"
grep -qx "PASS: 0 value(s) differ from the hand calculation" "$tmp/user.out" \
  || bad "the program's own checks did not pass"

# 4. The version file: a newer minor release than the installed one is refused.
newer=$major.$((minor + 1))
if configure "$tmp/build-newer" "$newer" >"$tmp/newer.log" 2>&1; then
  bad "find_package(edge-llm $newer) accepted the installed $version"
elif ! grep -q "compatible with requested version \"$newer\"" "$tmp/newer.log"; then
  tail -10 "$tmp/newer.log"
  bad "find_package(edge-llm $newer) failed, but not on the version"
fi

if [ "$fail" -eq 0 ]; then
  echo "install-find-package: all checks passed (installed $version, found by find_package)"
fi
[ "$fail" -eq 0 ]
