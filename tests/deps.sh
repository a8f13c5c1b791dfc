#!/bin/sh
# Installs what the tests need, from Debian packages. Idempotent.
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    cmake make gcc g++ clang libclang-rt-dev pkg-config binutils python3 protobuf-compiler python3-protobuf \
    libsnappy-dev nanopb libnanopb-dev valgrind libcurl4-openssl-dev time \
    gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm >/dev/null
# Python package tests (python/): Debian's modules, seen by /usr/bin/python3;
# venv, pip, setuptools and wheel build and install the package offline in
# a scratch venv (tests/test_python.sh).
$SUDO apt-get install -y -qq --no-install-recommends \
    python3-cffi python3-pandas python3-numpy python3-dask python3-distributed \
    python3-pytest python3-venv python3-pip python3-setuptools python3-wheel >/dev/null
# demoparser2, the independent reference for Source 2 tick rows
# (tests/test_source2_ticks.sh), from the npm registry into tests/node_modules.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ ! -d "$(dirname "$0")/node_modules/@laihoe/demoparser2" ]; then
    npm install --prefix "$(dirname "$0")" --no-save --no-audit --no-fund \
        @laihoe/demoparser2@0.42.0 >/dev/null
fi
