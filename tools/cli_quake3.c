/* Placeholder until the quake3 layer's CLI lands. */
#include "cli.h"

int zdem_cli_quake3(const zdem_cli_args *a, const zdem_cli_file *f)
{
    (void)f;
    return zdem_cli_unsupported(a, "quake3");
}
