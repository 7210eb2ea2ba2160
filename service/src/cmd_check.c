/* service/src/cmd_check.c -- `accel-advisor check [RULES_DIR]`: lint a rule set,
 * for people or, with -o json|yaml, as one document a CI job can read. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dc/engine.h"
#include "dc/models.h"
#include "output.h"
#include "rulesrc.h"

const struct option cmd_check_options[] = {
    SVC_OUTPUT_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor check [-o json|yaml|table] [--pretty] [RULES_DIR]\n\n"
                "Loads and checks a rule set (catalog.yaml, sizing.yaml, prices.yaml, rule\n"
                "files). Without RULES_DIR, checks the embedded default. A rule that can\n"
                "spend over a quarter of a request's rule-evaluation budget is a warning.\n\n"
                "  -o, --output FORMAT  table (default): every problem on stderr as\n"
                "                       file:line: id: message; json or yaml: one document\n"
                "                       on stdout with \"valid\" and every problem in\n"
                "                       \"diagnostics\" as {file, line, id, message}\n"
                "  --pretty             indent the JSON by two spaces\n"
                "  -h, --help           this help\n\n"
                "exit status: 0 valid, 1 problems found, 2 usage or I/O error\n");
}

/* Rules that can spend more than DC_RULE_STEPS_WARN of a request's evaluation
 * budget, as diagnostics in `out` (an initialised, empty set: room for one per
 * rule is allocated; dc_diags_cleanup frees it); false when out of memory. */
static bool costly_rules(const dc_ruleset *rs, struct dc_diags *out)
{
    size_t n = dc_ruleset_rule_count(rs);
    uint64_t *steps = calloc(n + 1, sizeof(*steps));
    out->items = calloc(n + 1, sizeof(*out->items));
    out->cap = n;
    struct dc_error err;
    if (steps == NULL || out->items == NULL || dc_ruleset_rule_steps(rs, steps, &err) != DC_OK) {
        free(steps);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const struct dc_rule_info *r = dc_ruleset_rule(rs, i);
        if (steps[i] <= DC_RULE_STEPS_WARN)
            continue;
        struct dc_diag *g = &out->items[out->count++];
        snprintf(g->file, sizeof(g->file), "%s", r->file);
        g->line = r->line;
        snprintf(g->id, sizeof(g->id), "%s", r->id);
        snprintf(g->msg, sizeof(g->msg),
                 "can spend %llu of the %llu evaluation steps a request has for all its rules "
                 "(%.0f%%); rules after it may be skipped",
                 (unsigned long long)steps[i], (unsigned long long)DC_RECOMMEND_MAX_RULE_STEPS,
                 100.0 * (double)steps[i] / DC_RECOMMEND_MAX_RULE_STEPS);
    }
    free(steps);
    return true;
}

static bool add_diags(cJSON *o, const char *key, const struct dc_diags *d)
{
    cJSON *list = cJSON_AddArrayToObject(o, key);
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < d->count; i++) {
        const struct dc_diag *g = &d->items[i];
        cJSON *e = cJSON_CreateObject();
        ok = e != NULL && cJSON_AddItemToArray(list, e) &&
             cJSON_AddStringToObject(e, "file", g->file) != NULL &&
             cJSON_AddNumberToObject(e, "line", g->line) != NULL &&
             cJSON_AddStringToObject(e, "id", g->id) != NULL &&
             cJSON_AddStringToObject(e, "message", g->msg) != NULL;
    }
    return ok;
}

/* {"rules_dir", "valid", "version", "rules", "accelerators", "models", "diagnostics":
 * [{"file", "line", "id", "message"}], "warnings": [the same], "truncated"}. */
static cJSON *check_document(const char *dir, const dc_ruleset *rs, const struct dc_diags *d,
                             const struct dc_diags *warnings)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL &&
              (dir != NULL ? cJSON_AddStringToObject(o, "rules_dir", dir)
                           : cJSON_AddNullToObject(o, "rules_dir")) != NULL &&
              cJSON_AddBoolToObject(o, "valid", rs != NULL) != NULL;
    if (ok && rs != NULL)
        ok = cJSON_AddStringToObject(o, "version", dc_ruleset_version(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "rules", (double)dc_ruleset_rule_count(rs)) != NULL &&
             cJSON_AddNumberToObject(o, "accelerators", (double)dc_ruleset_accelerator_count(rs)) !=
                 NULL &&
             cJSON_AddNumberToObject(o, "models", (double)dc_ruleset_model_count(rs)) != NULL;
    ok = ok && add_diags(o, "diagnostics", d) && add_diags(o, "warnings", warnings);
    ok = ok && cJSON_AddBoolToObject(o, "truncated", d->truncated) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The table form: "DIR: ok: ..." on stdout, or the problems on stderr; the
 * warnings on stderr either way. */
static void print_text(const char *dir, const dc_ruleset *rs, const struct dc_diags *diags,
                       const struct dc_diags *warnings)
{
    char line[768];
    for (size_t i = 0; i < warnings->count; i++) {
        dc_diag_format(&warnings->items[i], line, sizeof(line));
        fprintf(stderr, "warning: %s\n", line);
    }
    const char *name = dir != NULL ? dir : "embedded";
    if (rs == NULL) {
        svc_print_diags(stderr, diags);
        fprintf(stderr, "%s: %zu problem%s; the rule set was not loaded\n", name, diags->count,
                diags->count == 1 ? "" : "s");
        return;
    }
    printf("%s: ok: %zu rules, %zu accelerators, %zu models, version %s\n", name,
           dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs), dc_ruleset_model_count(rs),
           dc_ruleset_version(rs));
}

int cmd_check(int argc, char **argv)
{
    struct svc_output_opts out = {SVC_OUTPUT_TABLE, false, false, NULL};
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
    struct dc_diags warnings;
    dc_diags_init(&warnings);
    if (rs != NULL && !costly_rules(rs, &warnings)) {
        fprintf(stderr, "check: out of memory measuring the rules\n");
        status = 2;
    }
    if (out.format == SVC_OUTPUT_TABLE) {
        print_text(dir, rs, &diags, &warnings);
    } else {
        cJSON *doc = check_document(dir, rs, &diags, &warnings);
        enum dc_status orc =
            doc != NULL ? svc_output_document(stdout, "check", doc, &out) : DC_ENOMEM;
        /* DC_EINVAL: -o jsonpath selected what is not there, and said so. */
        if (orc != DC_OK && orc != DC_EINVAL)
            fprintf(stderr, "check: cannot write the %s\n", doc == NULL ? "document" : "output");
        status = orc != DC_OK ? 2 : status;
        cJSON_Delete(doc);
    }
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    dc_diags_cleanup(&warnings);
    return fflush(stdout) == 0 ? status : 2;
}
