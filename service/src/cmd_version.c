/* service/src/cmd_version.c -- `accel-advisor version`: this build (version,
 * git commit, build date), the contract and the embedded rule set, for people
 * or as a document. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <microhttpd.h>

#include "api/openapi.h"
#include "build_info.h"
#include "commands.h"
#include "dc/embedded.h"
#include "output.h"
#include "rulesrc.h"

#ifndef AA_VERSION
#define AA_VERSION "0.0.0"
#endif

const struct option cmd_version_options[] = {
    SVC_OUTPUT_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor version [-o json|yaml|table] [--pretty]\n\n"
                "Prints the version, the git commit and date of this build, the contract\n"
                "version and the embedded rule set's version and size.\n\n"
                "  -o, --output FORMAT  table (default), json or yaml (--format is the same)\n"
                "  --pretty             indent the JSON by two spaces\n"
                "  -h, --help           this help\n\n"
                "exit status: 0 ok, 2 usage or I/O error\n");
}

/* {"version", "commit", "modified", "build_date", "contract_version",
 * "rules_version", "rules", "accelerators", "libmicrohttpd"}; the rule set's
 * members are null when the embedded set does not load. */
static cJSON *version_document(const dc_ruleset *rs, const char *contract_version)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL && cJSON_AddStringToObject(o, "version", AA_VERSION) != NULL &&
              cJSON_AddStringToObject(o, "commit", aa_build_commit) != NULL &&
              cJSON_AddBoolToObject(o, "modified", aa_build_modified != 0) != NULL &&
              cJSON_AddStringToObject(o, "build_date", aa_build_date) != NULL;
    if (ok && contract_version != NULL)
        ok = cJSON_AddStringToObject(o, "contract_version", contract_version) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(o, "contract_version") != NULL;
    if (ok && rs != NULL)
        ok = cJSON_AddStringToObject(o, "rules_version", dc_ruleset_version(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "rules", (double)dc_ruleset_rule_count(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "accelerators", (double)dc_ruleset_accelerator_count(rs)) !=
                 NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(o, "rules_version") != NULL &&
             cJSON_AddNullToObject(o, "rules") != NULL &&
             cJSON_AddNullToObject(o, "accelerators") != NULL;
    ok = ok && cJSON_AddStringToObject(o, "libmicrohttpd", MHD_get_version()) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static void print_text(const dc_ruleset *rs, const char *contract_version)
{
    printf("accel-advisor %s\n", AA_VERSION);
    printf("commit %s%s, built %s\n", aa_build_commit, aa_build_modified ? " (modified)" : "",
           aa_build_date);
    if (contract_version != NULL)
        printf("contract %s\n", contract_version);
    if (rs != NULL)
        printf("embedded rules %s (%zu rules, %zu accelerators)\n", dc_ruleset_version(rs),
               dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs));
    else
        printf("embedded rules: failed to load (run `accel-advisor check`)\n");
}

int cmd_version(int argc, char **argv)
{
    struct svc_output_opts out = {SVC_OUTPUT_TABLE, false, false, NULL};
    int usage = svc_output_command_line("version", argc, argv, cmd_version_options,
                                        SVC_OUTPUT_TABLES, 0, help, &out);
    if (usage >= 0)
        return usage;
    dc_ruleset *rs = NULL;
    api_contract *contract = NULL;
    struct dc_diags diags;
    struct dc_error err;
    dc_diags_init(&diags);
    dc_error_clear(&err);
    if (svc_ruleset_load(NULL, &rs, &diags) != DC_OK)
        rs = NULL;
    if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK)
        contract = NULL;
    const char *cv = contract != NULL ? api_contract_version(contract) : NULL;
    int status = 0;
    if (out.format == SVC_OUTPUT_TABLE) {
        print_text(rs, cv);
    } else {
        cJSON *doc = version_document(rs, cv);
        enum dc_status orc =
            doc != NULL ? svc_output_document(stdout, "version", doc, &out) : DC_ENOMEM;
        /* DC_EINVAL: -o jsonpath selected what is not there, and said so. */
        if (orc != DC_OK && orc != DC_EINVAL)
            fprintf(stderr, "version: cannot write the %s\n", doc == NULL ? "document" : "output");
        status = orc != DC_OK ? 2 : status;
        cJSON_Delete(doc);
    }
    dc_ruleset_release(rs);
    api_contract_free(contract);
    dc_diags_cleanup(&diags);
    return fflush(stdout) == 0 ? status : 2;
}
