# Quake III layer test wiring. Test programs tests/test_quake3_*.c are
# built and linked with zdem_quake3 by tests/CMakeLists.txt; shell tests
# tests/test_quake3_*.sh get ZDEM_BIN and ZDEM_CORPUS. Nothing extra yet
# beyond making the CLI a dependency of the shell tests' runs.
