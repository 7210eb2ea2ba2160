/* service/src/cmd_check.c -- `accel-advisor check [RULES_DIR]`: lint a rule set,
 * for people or, with -o json|yaml, as one document a CI job can read. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "rulesrc.h"

const struct option cmd_check_options[] = {
    SVC_OUTPUT_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor check [-o json|yaml|table] [--pretty] [RULES_DIR]\n\n"
                "Loads and checks a rule set (catalog.yaml, sizing.yaml, rule files). Without\n"
                "RULES_DIR, checks the embedded default.\n\n"
                "  -o, --output FORMAT  table (default): every problem on stderr as\n"
                "                       file:line: id: message; json or yaml: one document\n"
                "                       on stdout with \"valid\" and every problem in\n"
                "                       \"diagnostics\" as {file, line, id, message}\n"
                "  --pretty             indent the JSON by two spaces\n"
                "  -h, --help           this help\n\n"
                "exit status: 0 valid, 1 problems found, 2 usage or I/O error\n");
}

/* {"rules_dir", "valid", "version", "rules", "accelerators", "diagnostics":
 * [{"file", "line", "id", "message"}], "truncated"}. */
static cJSON *check_document(const char *dir, const dc_ruleset *rs, const struct dc_diags *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *list = NULL;
    bool ok = o != NULL &&
              (dir != NULL ? cJSON_AddStringToObject(o, "rules_dir", dir)
                           : cJSON_AddNullToObject(o, "rules_dir")) != NULL &&
              cJSON_AddBoolToObject(o, "valid", rs != NULL) != NULL;
    if (ok && rs != NULL)
        ok = cJSON_AddStringToObject(o, "version", dc_ruleset_version(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "rules", (double)dc_ruleset_rule_count(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "accelerators", (double)dc_ruleset_accelerator_count(rs)) !=
                 NULL;
    ok = ok && (list = cJSON_AddArrayToObject(o, "diagnostics")) != NULL;
    for (size_t i = 0; ok && i < d->count; i++) {
        const struct dc_diag *g = &d->items[i];
        cJSON *e = cJSON_CreateObject();
        ok = e != NULL && cJSON_AddItemToArray(list, e) &&
             cJSON_AddStringToObject(e, "file", g->file) != NULL &&
             cJSON_AddNumberToObject(e, "line", g->line) != NULL &&
             cJSON_AddStringToObject(e, "id", g->id) != NULL &&
             cJSON_AddStringToObject(e, "message", g->msg) != NULL;
    }
    ok = ok && cJSON_AddBoolToObject(o, "truncated", d->truncated) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The table form: "DIR: ok: ..." on stdout, or the problems on stderr. */
static void print_text(const char *dir, const dc_ruleset *rs, const struct dc_diags *diags)
{
    const char *name = dir != NULL ? dir : "embedded";
    if (rs == NULL) {
        svc_print_diags(stderr, diags);
        fprintf(stderr, "%s: %zu problem%s; the rule set was not loaded\n", name, diags->count,
                diags->count == 1 ? "" : "s");
        return;
    }
    printf("%s: ok: %zu rules, %zu accelerators, version %s\n", name, dc_ruleset_rule_count(rs),
           dc_ruleset_accelerator_count(rs), dc_ruleset_version(rs));
}

int cmd_check(int argc, char **argv)
{
    struct svc_output_opts out = {SVC_OUTPUT_TABLE, false};
    int usage = svc_output_command_line("check", argc, argv, cmd_check_options, SVC_OUTPUT_TABLES,
                                        1, help, &out);
    if (usage >= 0)
        return usage;
    const char *dir = optind < argc ? argv[optind] : NULL;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    if (svc_ruleset_load(dir, &rs, &diags) != DC_OK)
        rs = NULL;
    int status = rs != NULL ? 0 : 1;
    if (out.format == SVC_OUTPUT_TABLE) {
        print_text(dir, rs, &diags);
    } else {
        cJSON *doc = check_document(dir, rs, &diags);
        if (doc == NULL || !svc_output_document(stdout, doc, out.format, out.pretty)) {
            fprintf(stderr, "check: cannot write the %s\n", doc == NULL ? "document" : "output");
            status = 2;
        }
        cJSON_Delete(doc);
    }
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return fflush(stdout) == 0 ? status : 2;
}
