/* service/src/cmd_version.c -- `accel-advisor version`. */
#include <stdio.h>

#include "commands.h"
#include "rulesrc.h"

#ifndef AA_VERSION
#define AA_VERSION "0.0.0"
#endif

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    printf("accel-advisor %s\n", AA_VERSION);
    if (svc_ruleset_load(NULL, &rs, &diags) == DC_OK)
        printf("embedded rules %s (%zu rules, %zu accelerators)\n", dc_ruleset_version(rs),
               dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs));
    else
        printf("embedded rules: failed to load (run `accel-advisor check`)\n");
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return 0;
}
