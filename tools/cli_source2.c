/* Placeholder until the source2 layer's CLI lands. */
#include "cli.h"

int zdem_cli_source2(const zdem_cli_args *a, const zdem_cli_file *f)
{
    (void)f;
    return zdem_cli_unsupported(a, "source2");
}
