#include "zdem_version.h"

const char *zdem_version(void) { return ZDEM_VERSION_STRING; }
