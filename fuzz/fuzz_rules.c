/* fuzz/fuzz_rules.c -- the rule set and catalog loader (dc/ruleset.h) and the
 * YAML reader under it (dc/yaml.h).
 *
 * Input: one selector byte, then the content of one rule file. The selector
 * (modulo 4) says which of catalog.yaml, sizing.yaml, rules.yaml and
 * prices.yaml the content replaces; the other three are the real embedded ones.
 *
 * Invariants (each aborts when broken):
 *  - dc_yaml_parse returns DC_OK, DC_EPARSE, DC_ELIMIT or DC_ENOMEM; on DC_OK
 *    every node's line lies within the text; a failure has a message and a
 *    location "name:line" with the line within the text;
 *  - dc_ruleset_load_files either returns DC_OK with a rule set whose version
 *    is 64 lower-case hex digits and no diagnostic, or a non-OK status, no
 *    rule set and at least one diagnostic, each with a file name, a message
 *    and an id that fits its field;
 *  - a rule set that loads is one the service can serve: every rule and
 *    accelerator has an id and is found by it; recommending for a typical
 *    workload (one of three, by the input's hash) returns DC_OK or DC_EINVAL
 *    with a pointer, and the result (as clients read it: printed, parsed back
 *    strictly) conforms to the contract's Recommendation schema; the catalog
 *    or the rule list (by hash) conforms to AcceleratorList or RuleList. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "dc/engine.h"
#include "dc/yaml.h"
#include "fuzz_common.h"

#define N_FILES 4
static const char *const file_names[N_FILES] = {"catalog.yaml", "sizing.yaml", "rules.yaml",
                                                "prices.yaml"};

/* Workloads a rule set that loads must answer (examples/ and the contract's
 * own example, in short). */
static const char *const workloads[] = {
    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}",
    "{\"name\":\"llm-pretraining\",\"task\":\"training\",\"framework\":\"jax\","
    "\"model\":{\"parameters\":70e9},\"precision\":\"bf16\",\"training\":{\"tokens\":1.4e12,"
    "\"deadline_hours\":720},\"constraints\":{\"providers\":[\"gcp\",\"aws\"],"
    "\"budget_usd\":5e6},\"objective\":\"time\"}",
    "{\"task\":\"fine-tuning\",\"framework\":\"pytorch\",\"model\":{\"parameters\":1.3e9,"
    "\"custom_ops\":true,\"dynamic_shapes\":true},\"precision\":\"fp16\",\"constraints\":"
    "{\"deployment\":\"on-prem\",\"max_accelerators\":8},\"team\":{\"cuda_experience\":"
    "\"expert\"},\"objective\":\"cost\"}",
};
#define N_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))
static cJSON *g_workloads[N_WORKLOADS];
static bool g_verbose; /* FUZZ_VERBOSE=1: print each load's outcome (for triage) */

static void check_lines(const dc_yaml_doc *doc, const cJSON *node, unsigned max_line);
static void check_yaml(const char *name, const char *text, size_t len);
static void check_loaded(const dc_ruleset *rs, uint64_t h);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *v = getenv("FUZZ_VERBOSE");
    g_verbose = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    for (size_t i = 0; i < N_WORKLOADS; i++) {
        g_workloads[i] = cJSON_Parse(workloads[i]);
        FUZZ_CHECK(g_workloads[i] != NULL, "workload %zu does not parse", i);
    }
    for (size_t i = 0; i < N_FILES; i++)
        (void)fuzz_embedded_rule_file(file_names[i]);
    (void)fuzz_workload_schema();
    (void)fuzz_contract_schema("Recommendation");
    (void)fuzz_contract_schema("AcceleratorList");
    (void)fuzz_contract_schema("RuleList");
    return 0;
}

static void check_lines(const dc_yaml_doc *doc, const cJSON *node, unsigned max_line)
{
    unsigned line = dc_yaml_line(doc, node);
    FUZZ_CHECK(line <= max_line, "node on line %u of a text of %u lines", line, max_line);
    for (const cJSON *c = node->child; c != NULL; c = c->next)
        check_lines(doc, c, max_line);
}

static void check_yaml(const char *name, const char *text, size_t len)
{
    /* Lines of the text, counted as libyaml counts them: \n, \r\n, a lone \r
     * and the Unicode breaks NEL, LS and PS each end one; one more for the
     * last line. (dc_yaml_parse reads UTF-8 only: a UTF-16 text is a syntax
     * error on its first line.) Counted here apart from yaml.c, as an oracle. */
    const unsigned char *u = (const unsigned char *)text;
    unsigned lines = 1;
    for (size_t i = 0; i < len; i++) {
        if (u[i] == '\n' || (u[i] == '\r' && (i + 1 == len || u[i + 1] != '\n')))
            lines++;
        else if (u[i] == 0xc2 && i + 1 < len && u[i + 1] == 0x85)
            lines++;
        else if (u[i] == 0xe2 && i + 2 < len && u[i + 1] == 0x80 &&
                 (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
            lines++;
    }
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = dc_yaml_parse(text, len, name, &doc, &err);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EPARSE || rc == DC_ELIMIT || rc == DC_ENOMEM,
               "dc_yaml_parse: undocumented status %s (%s)", dc_status_name(rc), err.msg);
    if (rc != DC_OK) {
        FUZZ_CHECK(doc == NULL, "dc_yaml_parse failed but gave a document");
        FUZZ_CHECK(err.msg[0] != '\0', "dc_yaml_parse %s without a message", dc_status_name(rc));
        if (rc == DC_ENOMEM)
            return;
        size_t nl = strlen(name);
        FUZZ_CHECK(strncmp(err.where, name, nl) == 0 && err.where[nl] == ':' &&
                       err.where[nl + 1] != '\0' &&
                       strspn(err.where + nl + 1, "0123456789") == strlen(err.where + nl + 1),
                   "dc_yaml_parse error location \"%s\" is not \"%s:LINE\"", err.where, name);
        /* Every line is one of the text's, an error at the end of a text that
         * does not end in a line break included (libyaml puts it one line
         * further; dc_yaml_parse reports the text's last line). */
        unsigned long at = strtoul(err.where + nl + 1, NULL, 10);
        FUZZ_CHECK(at >= 1 && at <= (unsigned long)lines,
                   "error on line %lu of a text of %u lines (%s)", at, lines, err.msg);
        return;
    }
    FUZZ_CHECK(doc != NULL && dc_yaml_root(doc) != NULL, "DC_OK without a document or root");
    check_lines(doc, dc_yaml_root(doc), lines);
    cJSON *root = dc_yaml_take_root(doc);
    FUZZ_CHECK(root != NULL, "dc_yaml_take_root gave NULL");
    dc_yaml_doc_free(doc);
    cJSON_Delete(root);
}

/* What the service does with a rule set, checked against the contract. One of
 * the catalog and the rule list, and one of the workloads, chosen by the
 * input's hash: each costs a conversion, a print, a strict parse and a
 * validation, and doing all five per input would halve the fuzzer's speed. */
static void check_loaded(const dc_ruleset *rs, uint64_t h)
{
    size_t n_rules = dc_ruleset_rule_count(rs);
    for (size_t i = 0; i < n_rules; i++) {
        const struct dc_rule_info *r = dc_ruleset_rule(rs, i);
        FUZZ_CHECK(r != NULL && r->id != NULL && r->id[0] != '\0', "rule %zu has no id", i);
    }
    size_t n_acc = dc_ruleset_accelerator_count(rs);
    for (size_t i = 0; i < n_acc; i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        FUZZ_CHECK(a != NULL && a->id != NULL && a->id[0] != '\0', "accelerator %zu has no id", i);
        FUZZ_CHECK(dc_ruleset_find_accelerator(rs, a->id) == a, "accelerator %s not found by id",
                   a->id);
    }
    cJSON *json = NULL;
    enum dc_status rc;
    if ((h & 1u) == 0) {
        rc = api_catalog_to_json(rs, NULL, &json);
        FUZZ_CHECK(rc == DC_OK, "api_catalog_to_json: %s", dc_status_name(rc));
        fuzz_expect_conforms(fuzz_contract_schema("AcceleratorList"), "the catalog", json);
    } else {
        rc = api_rules_to_json(rs, &json);
        FUZZ_CHECK(rc == DC_OK, "api_rules_to_json: %s", dc_status_name(rc));
        fuzz_expect_conforms(fuzz_contract_schema("RuleList"), "the rule list", json);
    }
    cJSON_Delete(json);

    size_t i = (size_t)((h >> 1) % N_WORKLOADS);
    struct dc_result *res = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    struct dc_recommend_opts opts = {.request_id = "fuzz"};
    rc = dc_recommend(rs, g_workloads[i], &opts, &res, &err);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EINVAL, "workload %zu: dc_recommend: %s (%s: %s)", i,
               dc_status_name(rc), err.where, err.msg);
    if (rc == DC_EINVAL) {
        FUZZ_CHECK(fuzz_is_pointer(err.where) && err.msg[0] != '\0',
                   "workload %zu: DC_EINVAL at \"%s\": %s", i, err.where, err.msg);
        return;
    }
    for (size_t k = 1; k < res->n_recommendations; k++)
        FUZZ_CHECK(res->recommendations[k - 1].score >= res->recommendations[k].score,
                   "workload %zu: recommendations not sorted by score", i);
    json = NULL;
    rc = api_result_to_json(res, &json);
    FUZZ_CHECK(rc == DC_OK, "workload %zu: api_result_to_json: %s", i, dc_status_name(rc));
    fuzz_expect_conforms(fuzz_contract_schema("Recommendation"), "the Recommendation", json);
    cJSON_Delete(json);
    dc_result_free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t which = data[0] % N_FILES;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    check_yaml(file_names[which], text, len);

    struct dc_source_file files[N_FILES];
    for (size_t i = 0; i < N_FILES; i++)
        files[i] = fuzz_embedded_rule_file(file_names[i]);
    files[which].data = text;
    files[which].len = len;

    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    enum dc_status rc = dc_ruleset_load_files(files, N_FILES, &rs, &diags);
    if (g_verbose) {
        char line[768];
        fprintf(stderr, "fuzz_rules: %s fuzzed: %s, %zu diagnostics\n", file_names[which],
                dc_status_name(rc), diags.count);
        for (size_t i = 0; i < diags.count && i < 5; i++) {
            dc_diag_format(&diags.items[i], line, sizeof(line));
            fprintf(stderr, "  %s\n", line);
        }
    }
    if (rc == DC_OK) {
        FUZZ_CHECK(rs != NULL, "DC_OK without a rule set");
        FUZZ_CHECK(diags.count == 0, "DC_OK with %zu diagnostics", diags.count);
        const char *v = dc_ruleset_version(rs);
        FUZZ_CHECK(v != NULL && strlen(v) == 64 && strspn(v, "0123456789abcdef") == 64,
                   "version \"%s\" is not 64 hex digits", v != NULL ? v : "(null)");
        check_loaded(rs, fuzz_hash(data, size));
    } else {
        FUZZ_CHECK(rs == NULL, "%s with a rule set", dc_status_name(rc));
        FUZZ_CHECK(rc == DC_EVALIDATE || rc == DC_ELIMIT || rc == DC_EINVAL || rc == DC_ENOMEM,
                   "undocumented status %s", dc_status_name(rc));
        FUZZ_CHECK(diags.count > 0 || rc == DC_ENOMEM, "%s without a diagnostic",
                   dc_status_name(rc));
        for (size_t i = 0; i < diags.count; i++) {
            const struct dc_diag *d = &diags.items[i];
            FUZZ_CHECK(d->file[0] != '\0', "diagnostic %zu has no file: %s", i, d->msg);
            FUZZ_CHECK(d->msg[0] != '\0', "diagnostic %zu (%s:%u) has no message", i, d->file,
                       d->line);
            FUZZ_CHECK(memchr(d->id, '\0', sizeof(d->id)) != NULL, "diagnostic %zu: id overrun", i);
        }
    }
    dc_diags_cleanup(&diags);
    dc_ruleset_release(rs);
    return 0;
}
