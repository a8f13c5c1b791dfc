#!/bin/bash
# zdem as a user gets it: a copy of the tree configured and built as the
# README's first line does (tests off, no -Werror), in Release and in Debug,
# with the test build's compiler; neither may print a warning. Then
# `cmake --install` into a scratch prefix and, outside the tree:
#  - the installed files: headers under include/zdem/, libzdem.a, libzdem.so
#    with a versioned SONAME, zdemConfig*.cmake, zdem.pc, bin/zdem, zdem.1;
#  - every dynamic symbol of libzdem.so and every global of libzdem.a
#    begins with zdem_, every macro of <zdem/zdem.h> with ZDEM_;
#  - `zdem --version` and zdem_version() give runtime/zdem_version.h's;
#  - two consumers, one with find_package(zdem), one with pkg-config, build
#    examples/ and run them on corpus demos (tests/examples_check.py checks
#    their output against the peers' references);
#  - C++: every installed header alone, and examples/ (C that is also C++)
#    through <zdem/zdem.h> linked with libzdem.a, compile warning-free as
#    C++11, 14, 17 and 20 with g++ and clang++, and print what the C builds
#    print.
set -euo pipefail
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
CORPUS=${ZDEM_CORPUS:-$SRC/../shared/corpus}
PY=${ZDEM_PYTHON:-python3}
CC=${ZDEM_C_COMPILER:-cc}
W=$(mktemp -d "${TMPDIR:-/tmp}/zdem-install.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# A copy of the tree without build directories or fetched packages.
mkdir -p "$W/src"
tar -C "$SRC" --exclude='./build*' --exclude=./.git --exclude='*/node_modules' \
    --exclude='./tests/fuzz/corpus-*' --exclude='__pycache__' -cf - . | tar -C "$W/src" -xf -

for type in Release Debug; do
    # Only the environment a user has: no sanitizer or test flags.
    if ! env -u CFLAGS CC="$CC" cmake -S "$W/src" -B "$W/build-$type" -DCMAKE_BUILD_TYPE=$type \
            -DCMAKE_INSTALL_PREFIX="$W/prefix" > "$W/configure-$type.log" 2>&1 ||
       ! cmake --build "$W/build-$type" -j2 > "$W/build-$type.log" 2>&1; then
        cat "$W/configure-$type.log" "$W/build-$type.log" | tail -30
        bad "$type build failed"
        continue
    fi
    if grep -q 'warning:' "$W/build-$type.log"; then
        grep -B2 -A3 'warning:' "$W/build-$type.log" | head -40
        bad "$type build with $CC printed warnings"
    else
        echo "ok: $type build with $CC, no warnings"
    fi
done
[ $fail = 0 ] || exit 1
cmake --install "$W/build-Release" > "$W/install.log"
P=$W/prefix
LIB=$(cd "$P" && ls -d lib*/libzdem.a | head -1)
LIBDIR=$P/$(dirname "$LIB")

for f in include/zdem/zdem.h include/zdem/zdem_version.h "$(dirname "$LIB")/libzdem.a" \
         "$(dirname "$LIB")/libzdem.so" "$(dirname "$LIB")/cmake/zdem/zdemConfig.cmake" \
         "$(dirname "$LIB")/cmake/zdem/zdemConfigVersion.cmake" \
         "$(dirname "$LIB")/pkgconfig/zdem.pc" bin/zdem share/man/man1/zdem.1; do
    [ -e "$P/$f" ] || bad "not installed: $f"
done
for f in source2_state_int.h zdem_hash.h zdem_sort.h quake3_msg.h; do
    [ ! -e "$P/include/zdem/$f" ] || bad "internal header installed: $f"
done

VERSION=$(sed -n 's/^#define ZDEM_VERSION_STRING "\(.*\)"/\1/p' "$SRC/runtime/zdem_version.h")
MAJOR=${VERSION%%.*}
soname=$(readelf -d "$LIBDIR/libzdem.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libzdem.so.$MAJOR" ] || bad "SONAME is '$soname', want libzdem.so.$MAJOR"
[ -e "$LIBDIR/libzdem.so.$VERSION" ] || bad "no libzdem.so.$VERSION"
[ "$("$P/bin/zdem" --version)" = "zdem $VERSION" ] || bad "zdem --version: $("$P/bin/zdem" --version)"
grep -q '^\.TH ZDEM 1' "$P/share/man/man1/zdem.1" || bad "zdem.1 is not a man page"

# One prefix for every exported name.
others=$(nm -D --defined-only "$LIBDIR/libzdem.so" | awk '{print $NF}' | grep -v '^zdem_' || true)
[ -z "$others" ] || bad "libzdem.so exports names without zdem_: $(echo $others | head -c 400)"
n=$(nm -D --defined-only "$LIBDIR/libzdem.so" | grep -c ' zdem_' || true)
[ "$n" -gt 100 ] || bad "libzdem.so exports only $n zdem_ names"
others=$(nm -g --defined-only "$LIBDIR/libzdem.a" | awk 'NF == 3 {print $3}' | grep -v '^zdem_' || true)
[ -z "$others" ] || bad "libzdem.a defines globals without zdem_: $(echo $others | head -c 400)"
printf '#include <zdem/zdem.h>\n' > "$W/macros.c"
printf '#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n' > "$W/sys.c"
"$CC" -std=c11 -E -dM "$W/sys.c" | awk '{sub(/\(.*/, "", $2); print $2}' | sort -u > "$W/sys.macros"
"$CC" -std=c11 -E -dM -I"$P/include" "$W/macros.c" | awk '{sub(/\(.*/, "", $2); print $2}' | sort -u |
    comm -23 - "$W/sys.macros" | grep -v '^ZDEM_' > "$W/other.macros" || true
[ ! -s "$W/other.macros" ] || bad "<zdem/zdem.h> defines macros without ZDEM_: $(head -c 300 "$W/other.macros")"
echo "ok: installed files, SONAME $soname, $n exported names, all zdem_"

# Consumer 1: CMake, find_package(zdem), the shared library.
mkdir -p "$W/consumer-cmake"
cat > "$W/consumer-cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(zdem $VERSION REQUIRED)
foreach(e source2_events quake3_events teeworlds_events)
  add_executable(\${e} $SRC/examples/\${e}.c)
  target_link_libraries(\${e} PRIVATE zdem::zdem)
endforeach()
add_executable(version_check version_check.c)
target_link_libraries(version_check PRIVATE zdem::zdem_static)
CMAKE
cat > "$W/consumer-cmake/version_check.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <zdem/zdem.h>
int main(void)
{
    printf("%s\n", zdem_version());
    return strcmp(zdem_version(), ZDEM_VERSION_STRING) != 0;
}
C
if CC="$CC" cmake -S "$W/consumer-cmake" -B "$W/consumer-cmake/build" -DCMAKE_PREFIX_PATH="$P" \
       -DCMAKE_BUILD_RPATH="$LIBDIR" > "$W/consumer-cmake.log" 2>&1 &&
   cmake --build "$W/consumer-cmake/build" >> "$W/consumer-cmake.log" 2>&1; then
    [ "$("$W/consumer-cmake/build/version_check")" = "$VERSION" ] || bad "zdem_version() in the static library"
    readelf -d "$W/consumer-cmake/build/quake3_events" | grep -q "NEEDED.*libzdem.so.$MAJOR" ||
        bad "find_package consumer does not use the shared library"
    "$PY" "$SRC/tests/examples_check.py" "$W/consumer-cmake/build" "$CORPUS" "$P/bin/zdem" ||
        bad "find_package consumer's output"
else
    tail -20 "$W/consumer-cmake.log"
    bad "find_package(zdem) consumer does not build"
fi

# Consumer 2: plain cc with pkg-config, static link.
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
mkdir -p "$W/consumer-pc"
for e in source2_events quake3_events teeworlds_events; do
    # shellcheck disable=SC2046
    "$CC" -std=c11 -Wall -Wextra -pedantic -Werror "$SRC/examples/$e.c" -o "$W/consumer-pc/$e" \
        $(pkg-config --cflags zdem) $(pkg-config --static --libs zdem | sed 's/-lzdem/-l:libzdem.a/') ||
        bad "pkg-config consumer: $e does not build"
done
if [ $fail = 0 ]; then
    "$PY" "$SRC/tests/examples_check.py" "$W/consumer-pc" "$CORPUS" "$P/bin/zdem" ||
        bad "pkg-config consumer's output"
fi

# C++ consumers. Every header alone (each wraps its declarations in
# extern "C"), then the examples as C++ through the umbrella, linked with the
# static library: a declaration outside extern "C" would not link. `= {0}`,
# the C idiom of the examples, is all -Wmissing-field-initializers objects to.
mkdir -p "$W/cxx"
for h in "$P"/include/zdem/*.h; do
    b=$(basename "$h")
    [ "$b" = zdem.h ] || grep -q 'extern "C"' "$h" || bad "$b has no extern \"C\" guard"
    printf '#include <zdem/%s>\n' "$b" > "$W/cxx/h_${b%.h}.cpp"
done
CXXFLAGS_W="-Wall -Wextra -pedantic -Werror"
cxx_ok=0
for cxx in g++ clang++; do
    if ! command -v $cxx >/dev/null 2>&1; then
        bad "$cxx not installed (sh tests/deps.sh)"
        continue
    fi
    for std in 11 14 17 20; do
        # shellcheck disable=SC2086
        (cd "$W/cxx" && $cxx -std=c++$std $CXXFLAGS_W -I"$P/include" -fsyntax-only h_*.cpp) \
            > "$W/cxx.log" 2>&1 || { head -20 "$W/cxx.log"; bad "$cxx -std=c++$std: a header alone does not compile"; }
        for e in source2_events quake3_events teeworlds_events; do
            # shellcheck disable=SC2086
            $cxx -std=c++$std $CXXFLAGS_W -Wno-missing-field-initializers -I"$P/include" \
                -x c++ "$SRC/examples/$e.c" -x none "$LIBDIR/libzdem.a" -lm -o "$W/cxx/$e-$cxx-$std" \
                > "$W/cxx.log" 2>&1 || { head -20 "$W/cxx.log"; bad "$cxx -std=c++$std: $e does not build"; }
        done
    done
    cxx_ok=$((cxx_ok + 1))
done
# The C++ builds print what the C build (checked above against the
# references) prints, on one demo of each format.
if [ $fail = 0 ]; then
    for ed in "source2_events source2/cs2_demofile-net-gotv-14011-cs-italy.dem" \
              "quake3_events $(cd "$CORPUS" && ls q3/*.dm_68 | head -1)" \
              "teeworlds_events $(cd "$CORPUS" && ls teeworlds/*.demo | head -1)"; do
        set -- $ed
        "$W/consumer-pc/$1" "$CORPUS/$2" > "$W/cxx/want.txt" 2>&1 || true
        [ -s "$W/cxx/want.txt" ] || bad "$1 $2 prints nothing"
        for b in "$W/cxx/$1"-*; do
            "$b" "$CORPUS/$2" > "$W/cxx/got.txt" 2>&1 || true
            cmp -s "$W/cxx/want.txt" "$W/cxx/got.txt" || bad "$(basename "$b") $2 differs from the C build"
        done
    done
    [ $fail = 0 ] && echo "ok: every header and the examples as C++11/14/17/20 with $cxx_ok C++ compilers"
fi
[ $fail = 0 ] && echo "PASS: install, find_package and pkg-config consumers, C++, one prefix"
exit $fail
