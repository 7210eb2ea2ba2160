/* service/src/cmd_check.c -- `accel-advisor check [RULES_DIR]`: lint a rule set. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "rulesrc.h"

int cmd_check(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))) {
        FILE *fp = argc == 2 ? stdout : stderr;
        fprintf(fp, "usage: accel-advisor check [RULES_DIR]\n\n"
                    "Loads and checks a rule set (catalog.yaml, sizing.yaml, rule files) and "
                    "prints every problem as file:line: id: message. Without RULES_DIR, checks "
                    "the embedded default.\n\nexit status: 0 valid, 1 problems found, 2 usage\n");
        return argc == 2 ? 0 : 2;
    }
    const char *dir = argc == 2 ? argv[1] : NULL;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    enum dc_status rc = svc_ruleset_load(dir, &rs, &diags);
    int status = 0;
    if (rc != DC_OK) {
        svc_print_diags(stderr, &diags);
        fprintf(stderr, "%s: %zu problem%s; the rule set was not loaded\n",
                dir != NULL ? dir : "embedded", diags.count, diags.count == 1 ? "" : "s");
        status = 1;
    } else {
        printf("%s: ok: %zu rules, %zu accelerators, version %s\n", dir != NULL ? dir : "embedded",
               dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs),
               dc_ruleset_version(rs));
    }
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return status;
}
