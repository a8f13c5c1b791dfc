/* zdem's version: the one place it is written (CMake reads these lines for
 * the project version, the SONAME and zdem.pc). */
#ifndef ZDEM_VERSION_H
#define ZDEM_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_VERSION_MAJOR 0
#define ZDEM_VERSION_MINOR 2
#define ZDEM_VERSION_PATCH 0
#define ZDEM_VERSION_STRING "0.2.0"

/* The version of the library linked at run time (may differ from the
 * header's when a shared library is swapped). */
const char *zdem_version(void);

#ifdef __cplusplus
}
#endif

#endif
