/* service/src/cmd_recommend.c -- `accel-advisor recommend FILE|-`: the body
 * POST /v1/recommendations would return, or a table for people. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "commands.h"
#include "dc/engine.h"
#include "inventory.h"
#include "rulesrc.h"

static void help(FILE *fp)
{
    fprintf(fp,
            "usage: accel-advisor recommend [--rules DIR] [--format json|table] [--pretty]\n"
            "                               [--probe [--prefer-available] [PROBE FLAGS]] FILE|-\n\n"
            "Reads one workload (JSON, at most 1 MiB), checks it against the Workload\n"
            "schema of the built-in contract exactly as the server does, and prints the\n"
            "recommendation.\n\n"
            "  --rules DIR      use the rule set in DIR instead of the embedded default\n"
            "  --format FORMAT  json (default: the POST /v1/recommendations body) or table\n"
            "  --pretty         indent the JSON\n"
            "  --probe          probe this host first: every candidate gets its availability\n"
            "  --prefer-available  with --probe, attached free accelerators get a bonus\n"
            SVC_PROBE_OPTIONS_HELP
            "  -h, --help       this help\n\n"
            "exit status: 0 ok, 1 invalid workload, 2 usage, I/O or rule set error\n");
}

/* Check `text` against the contract's Workload schema, strictly, as
 * POST /v1/recommendations does; every problem goes to stderr as
 * "recommend: NAME: POINTER: what". Returns 0 with *out owned by the caller, 1
 * when invalid, 2 on an internal failure. */
static int check_workload(const char *name, const char *text, size_t len, cJSON **out)
{
    struct dc_error err;
    dc_error_clear(&err);
    api_contract *contract = NULL;
    if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK) {
        fprintf(stderr, "recommend: the built-in contract does not load: %s\n", err.msg);
        return 2;
    }
    char prefix[600];
    snprintf(prefix, sizeof(prefix), "recommend: %s: ", name);
    int status = svc_check_document(api_contract_workload_schema(contract), text, len, 0, stderr,
                                    prefix, out);
    api_contract_free(contract);
    return status;
}

int cmd_recommend(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rules", required_argument, NULL, 'r'}, {"format", required_argument, NULL, 'f'},
        {"pretty", no_argument, NULL, 'p'},      {"prefer-available", no_argument, NULL, 'a'},
        {"probe", no_argument, NULL, 'b'},       {"help", no_argument, NULL, 'h'},
        SVC_PROBE_OPTIONS,                       {NULL, 0, NULL, 0}};
    struct svc_probe_settings ps;
    svc_probe_settings_init(&ps);
    bool probe = false;
    const char *rules = NULL;
    bool table = false, pretty = false, prefer = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (svc_probe_settings_option(&ps, c, optarg))
            continue;
        switch (c) {
        case 'b':
            probe = true;
            break;
        case 'r':
            rules = optarg;
            break;
        case 'f':
            if (!cmd_parse_format("recommend", optarg, &table))
                return 2;
            break;
        case 'p':
            pretty = true;
            break;
        case 'a':
            prefer = true;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            help(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        help(stderr);
        return 2;
    }
    if (prefer && !probe) {
        fprintf(stderr, "recommend: --prefer-available needs --probe\n");
        return 2;
    }
    int status = 2;
    char *text = NULL;
    size_t len = 0;
    cJSON *workload = NULL, *body = NULL;
    dc_ruleset *rs = NULL;
    struct dc_result *res = NULL;
    const struct probe_snapshot *snap = NULL;
    struct dc_availability *avail = NULL;
    size_t n_avail = 0;
    struct dc_diags diags;
    dc_diags_init(&diags);
    char why[512];
    if (svc_read_input(argv[optind], SVC_MAX_INPUT_BYTES, &text, &len, why, sizeof(why)) != 0) {
        fprintf(stderr, "recommend: %s\n", why);
        goto out;
    }
    if (svc_ruleset_load(rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "recommend: the rule set %s does not load:\n",
                rules != NULL ? rules : "(embedded)");
        svc_print_diags(stderr, &diags);
        goto out;
    }
    status = check_workload(argv[optind], text, len, &workload);
    if (status != 0)
        goto out;
    status = 2;
    struct dc_error err;
    dc_error_clear(&err);
    if (probe) {
        if (svc_inventory_probe_once(rs, &ps, &snap, &err) != DC_OK) {
            fprintf(stderr, "recommend: probe: %s\n", err.msg);
            goto out;
        }
        if (svc_inventory_availability(rs, snap, &avail, &n_avail) != DC_OK) {
            fprintf(stderr, "recommend: out of memory\n");
            goto out;
        }
    }
    struct dc_recommend_opts ropts = {.prefer_available = prefer,
                                      .probe_enabled = probe,
                                      .availability = avail,
                                      .n_availability = n_avail};
    enum dc_status rc = dc_recommend(rs, workload, &ropts, &res, &err);
    if (rc == DC_EINVAL) {
        fprintf(stderr, "recommend: %s: %s: %s\n", argv[optind],
                err.where[0] != '\0' ? err.where : "/", err.msg);
        status = 1;
        goto out;
    }
    if (rc != DC_OK) {
        fprintf(stderr, "recommend: %s\n", err.msg);
        goto out;
    }
    if (table) {
        api_result_print_table(res, stdout);
    } else {
        /* The very bytes the server sends; --pretty indents a parsed copy. */
        size_t out_len = 0;
        char *out = api_result_render(res, &out_len);
        if (out != NULL && pretty) {
            body = cJSON_ParseWithLength(out, out_len);
            free(out);
            out = body != NULL ? cJSON_Print(body) : NULL;
        }
        if (out == NULL) {
            fprintf(stderr, "recommend: out of memory\n");
            goto out;
        }
        printf("%s\n", out);
        free(out);
    }
    status = fflush(stdout) == 0 ? 0 : 2;
out:
    dc_result_free(res);
    free(avail);
    probe_snapshot_release(snap);
    cJSON_Delete(body);
    cJSON_Delete(workload);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    free(text);
    return status;
}
