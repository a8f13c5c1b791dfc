"""Builds libzdem and the zdem CLI from the C sources of this checkout
(cmake, the repository's own CMakeLists.txt) and puts both inside the
package: zdem/libzdem.so (loaded with cffi in ABI mode, so no Python
headers are needed) and zdem/_bin/zdem (run by `python -m zdem`).

The version is the one in runtime/zdem_version.h. Environment:
CMAKE_BUILD_PARALLEL_LEVEL (jobs; default: the CPU count),
ZDEM_CMAKE_BUILD_DIR (the cmake build directory; default: under build/),
CC and CFLAGS as cmake reads them."""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # wheel missing: pip builds no wheel then either
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_version():
    path = os.path.join(ROOT, "runtime", "zdem_version.h")
    with open(path) as f:
        m = re.search(r'#define ZDEM_VERSION_STRING "([^"]+)"', f.read())
    if not m:
        raise RuntimeError("no ZDEM_VERSION_STRING in %s" % path)
    return m.group(1)


class build_with_library(build_py):
    """build_py, then libzdem.so and the CLI into the built package."""

    def run(self):
        super().run()
        if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
            raise RuntimeError("zdem's C sources are not at %s: build from a checkout of the "
                               "repository (pip install ./python)" % ROOT)
        if shutil.which("cmake") is None:
            raise RuntimeError("building zdem needs cmake and a C compiler "
                               "(Debian: apt-get install cmake gcc)")
        tmp = os.environ.get("ZDEM_CMAKE_BUILD_DIR") or \
            os.path.join(self.get_finalized_command("build").build_temp, "cmake")
        cfg = ["cmake", "-S", ROOT, "-B", tmp, "-DCMAKE_BUILD_TYPE=Release",
               "-DZDEM_TESTS=OFF", "-DZDEM_SHARED=ON", "-DZDEM_SANITIZE=OFF",
               "-DZDEM_WERROR=OFF", "-DZDEM_INSTALL_PYTHON=OFF",
               # the committed generated/ sources: no protoc needed
               "-DZDEM_REGENERATE=OFF"]
        self.spawn(cfg)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        self.spawn(["cmake", "--build", tmp, "--target", "zdem_shared", "zdem_cli", "-j", jobs])
        pkg = os.path.join(self.build_lib, "zdem")
        so = os.path.realpath(os.path.join(tmp, "libzdem.so"))
        self.copy_file(so, os.path.join(pkg, "libzdem.so"), preserve_mode=True)
        os.makedirs(os.path.join(pkg, "_bin"), exist_ok=True)
        self.copy_file(os.path.join(tmp, "zdem"), os.path.join(pkg, "_bin", "zdem"), preserve_mode=True)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: a platform wheel, not a pure one."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": build_with_library}
if bdist_wheel is not None:
    class bdist_wheel_any_python(bdist_wheel):
        """cffi's ABI mode works with any Python 3: py3-none-<platform>."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none") + tuple(super().get_tag()[2:])

    cmdclass["bdist_wheel"] = bdist_wheel_any_python

setup(version=read_version(), cmdclass=cmdclass, distclass=BinaryDistribution)
