#!/bin/sh
# Installs what the tests need, from Debian packages. Idempotent.
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    cmake make gcc clang libclang-rt-dev pkg-config binutils python3 protobuf-compiler python3-protobuf \
    libsnappy-dev nanopb libnanopb-dev valgrind \
    gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm >/dev/null
