/* service/src/cmd_probe.c -- `accel-advisor probe`: the accelerators attached
 * to this host, as GET /v1/inventory would report them, or a table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "inventory.h"
#include "rulesrc.h"

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor probe [--rules DIR] [--format json|table] [--pretty]\n"
                "                           [--sysfs-root DIR] [--dev-root DIR] [--proc-root DIR]\n"
                "                           [--nvml auto|off|PATH]\n\n"
                "Probes the accelerators attached to this host once: PCI devices from sysfs\n"
                "(NVIDIA, AMD, Google TPU), NVML when present, amdgpu counters, TPU device\n"
                "nodes and the processes holding them, and the host's CPU and memory. PCI ids\n"
                "map to the catalog of the rule set. A source that fails is reported in the\n"
                "snapshot, not as a failure.\n\n"
                "  --rules DIR       map PCI ids with the catalog in DIR (default: embedded)\n"
                "  --format FORMAT   json (default: the GET /v1/inventory body) or table\n"
                "  --pretty          indent the JSON\n" SVC_PROBE_OPTIONS_HELP
                "  -h, --help        this help\n\n"
                "exit status: 0 ok (also when a source failed), 2 usage, rule set or I/O error\n");
}

int cmd_probe(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, NULL, 'r'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"pretty", no_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         SVC_PROBE_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    struct svc_probe_settings ps;
    svc_probe_settings_init(&ps);
    const char *rules = NULL;
    bool table = false, pretty = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (svc_probe_settings_option(&ps, c, optarg))
            continue;
        switch (c) {
        case 'r':
            rules = optarg;
            break;
        case 'f':
            if (!cmd_parse_format("probe", optarg, &table))
                return 2;
            break;
        case 'p':
            pretty = true;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            help(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        help(stderr);
        return 2;
    }
    int status = 2;
    dc_ruleset *rs = NULL;
    const struct probe_snapshot *snap = NULL;
    cJSON *body = NULL;
    struct dc_diags diags;
    struct dc_error err;
    dc_diags_init(&diags);
    dc_error_clear(&err);
    if (svc_ruleset_load(rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "probe: the rule set %s does not load:\n",
                rules != NULL ? rules : "(embedded)");
        svc_print_diags(stderr, &diags);
        goto out;
    }
    if (svc_inventory_probe_once(rs, &ps, &snap, &err) != DC_OK) {
        fprintf(stderr, "probe: %s\n", err.msg);
        goto out;
    }
    if (table) {
        if (probe_snapshot_format_table(snap, stdout) != DC_OK) {
            fprintf(stderr, "probe: cannot write the table\n");
            goto out;
        }
    } else {
        if (probe_snapshot_to_json(snap, &body, &err) != DC_OK) {
            fprintf(stderr, "probe: %s\n", err.msg);
            goto out;
        }
        char *s = pretty ? cJSON_Print(body) : cJSON_PrintUnformatted(body);
        if (s == NULL) {
            fprintf(stderr, "probe: out of memory\n");
            goto out;
        }
        printf("%s\n", s);
        cJSON_free(s);
    }
    status = fflush(stdout) == 0 ? 0 : 2;
out:
    cJSON_Delete(body);
    probe_snapshot_release(snap);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return status;
}
