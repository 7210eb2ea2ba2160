/* service/src/cmd_probe.c -- `accel-advisor probe`: the accelerators attached
 * to this host, as GET /v1/inventory would report them (JSON or YAML), or a
 * table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "inventory.h"
#include "output.h"
#include "suggest.h"
#include "rulesrc.h"

const struct option cmd_probe_options[] = {{"rules", required_argument, NULL, 'r'},
                                           SVC_OUTPUT_OPTIONS,
                                           {"help", no_argument, NULL, 'h'},
                                           SVC_PROBE_OPTIONS,
                                           {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor probe [--rules DIR] [-o json|yaml|table|wide] [--pretty]\n"
                "                           [--sysfs-root DIR] [--dev-root DIR] [--proc-root DIR]\n"
                "                           [--nvml auto|off|PATH]\n\n"
                "Probes the accelerators attached to this host once: PCI devices from sysfs\n"
                "(NVIDIA, AMD, Google TPU), NVML when present, amdgpu counters, TPU device\n"
                "nodes and the processes holding them, and the host's CPU and memory. PCI ids\n"
                "map to the catalog of the rule set. A source that fails is reported in the\n"
                "snapshot, not as a failure.\n\n"
                "  --rules DIR          map PCI ids with the catalog in DIR (default: embedded)\n"
                "  -o, --output FORMAT  json (default: the GET /v1/inventory body), yaml, table,\n"
                "                       or wide (the table with PCI ids, catalog ids and\n"
                "                       indexes); --format is the same flag\n"
                "  --pretty             indent the JSON by two spaces\n" SVC_PROBE_OPTIONS_HELP
                "  -h, --help           this help\n\n"
                "exit status: 0 ok (also when a source failed), 2 usage, rule set or I/O error\n");
}

/* The probe's table (probe_snapshot_format_table); with --no-headers only
 * the devices' rows, those after its column names (none without a device). */
static bool print_table(const struct probe_snapshot *snap, const struct svc_output_opts *o)
{
    bool wide = o->format == SVC_OUTPUT_WIDE;
    if (!o->no_headers)
        return probe_snapshot_format_table(snap, stdout, wide) == DC_OK;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        return false;
    bool ok = probe_snapshot_format_table(snap, mem, wide) == DC_OK;
    ok = fclose(mem) == 0 && ok;
    const char *rows = buf != NULL ? strstr(buf, "\nADDRESS ") : NULL;
    rows = rows != NULL ? strchr(rows + 1, '\n') : NULL;
    if (ok && rows != NULL)
        fputs(rows + 1, stdout);
    free(buf);
    return ok;
}

int cmd_probe(int argc, char **argv)
{
    struct svc_probe_settings ps;
    svc_probe_settings_init(&ps);
    const char *rules = NULL;
    struct svc_output_opts output = {SVC_OUTPUT_JSON, false, false, NULL};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", cmd_probe_options, NULL)) != -1) {
        if (svc_probe_settings_option(&ps, c, optarg))
            continue;
        switch (c) {
        case 'r':
            rules = optarg;
            break;
        case 'o':
        case 'p':
        case 'H':
            if (!svc_output_option("probe", c, optarg, SVC_OUTPUT_ALL, &output))
                return 2;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            if (!svc_suggest_option("probe", argc, argv, cmd_probe_options))
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
    if (output.format == SVC_OUTPUT_TABLE || output.format == SVC_OUTPUT_WIDE) {
        if (!print_table(snap, &output)) {
            fprintf(stderr, "probe: cannot write the table\n");
            goto out;
        }
    } else {
        if (probe_snapshot_to_json(snap, &body, &err) != DC_OK) {
            fprintf(stderr, "probe: %s\n", err.msg);
            goto out;
        }
        enum dc_status orc = svc_output_document(stdout, "probe", body, &output);
        if (orc != DC_OK) {
            if (orc != DC_EINVAL) /* -o jsonpath's miss is said already */
                fprintf(stderr, "probe: cannot write the output\n");
            goto out;
        }
    }
    status = fflush(stdout) == 0 ? 0 : 2;
out:
    cJSON_Delete(body);
    probe_snapshot_release(snap);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return status;
}
