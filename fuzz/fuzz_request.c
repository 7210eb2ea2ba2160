/* fuzz/fuzz_request.c -- one POST /v1/recommendations body, end to end, without
 * HTTP: strict parse (api_json_parse), validation against the contract's
 * Workload schema, dc_recommend against the embedded default rule set, the
 * result as JSON, and that JSON against the contract's Recommendation schema.
 *
 * Invariants (each aborts when broken):
 *  - a parse failure leaves no tree and says why;
 *  - every schema violation has a pointer, a keyword and a message, and
 *    valid == (no violation);
 *  - dc_recommend, whatever JSON it is given (the core must not trust its
 *    caller), returns DC_OK or DC_EINVAL, and DC_EINVAL carries a JSON Pointer
 *    in err.where ("" or starting with '/') and a message; for a schema-valid
 *    body the pointer designates the field or the object it is missing from;
 *  - on DC_OK: rules_version is the rule set's 64-hex version; every catalog
 *    accelerator is either recommended or excluded; recommendations are sorted
 *    by score descending, every score within 0..100, each candidate's reasons
 *    by |impact| descending; every reason and exclusion has a non-empty rule id
 *    and a text; every family is ranked once;
 *  - for a schema-valid body, the result converts to JSON, and that JSON, as a
 *    client reads it (printed, parsed back strictly), validates against the
 *    contract's Recommendation schema;
 *  - a workload with "explain" is explained (dc_explain, a few runs of the
 *    core): DC_OK within the evaluation budget, every change of a known field
 *    naming its pick, every threshold with its other side; with the body
 *    rendered, still a Recommendation of the contract.
 * The recommend options (probe on/off, server-wide prefer_available, an
 * availability table, a request id) are derived from a hash of the input, so
 * those paths are covered and every input still takes one fixed path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "dc/engine.h"
#include "dc/explain.h"
#include "fuzz_common.h"

/* Runs of the core one fuzzed explanation may make: enough to reach every
 * phase of the search on most inputs, few enough to keep the fuzzer fast. */
#define FUZZ_EXPLAIN_EVALUATIONS 24

static void check_reason(const struct dc_result *res, const struct dc_candidate *c,
                         const struct dc_reason *r, const char *what);
static void check_result(const dc_ruleset *rs, const struct dc_result *res);
static void fill_opts(const dc_ruleset *rs, uint64_t h, struct dc_recommend_opts *opts,
                      struct dc_availability *av, size_t cap);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    (void)fuzz_embedded_ruleset();
    (void)fuzz_workload_schema();
    (void)fuzz_contract_schema("Recommendation");
    return 0;
}

static void check_reason(const struct dc_result *res, const struct dc_candidate *c,
                         const struct dc_reason *r, const char *what)
{
    char buf[DC_REASON_TEXT_MAX];
    FUZZ_CHECK(r->rule_id != NULL && r->rule_id[0] != '\0', "%s of %s: reason without a rule id",
               what, c->acc->id);
    const char *text = dc_reason_text(res, c, r, buf, sizeof(buf));
    FUZZ_CHECK(text != NULL && text[0] != '\0', "%s of %s: reason %s has no text", what, c->acc->id,
               r->rule_id);
}

static void check_result(const dc_ruleset *rs, const struct dc_result *res)
{
    const char *version = dc_ruleset_version(rs);
    FUZZ_CHECK(strlen(res->rules_version) == 64 &&
                   strspn(res->rules_version, "0123456789abcdef") == 64,
               "rules_version \"%s\" is not 64 hex digits", res->rules_version);
    FUZZ_CHECK(strcmp(res->rules_version, version) == 0, "rules_version %s, rule set %s",
               res->rules_version, version);
    FUZZ_CHECK(res->n_recommendations + res->n_excluded == dc_ruleset_accelerator_count(rs),
               "%zu recommended + %zu excluded != %zu in the catalog", res->n_recommendations,
               res->n_excluded, dc_ruleset_accelerator_count(rs));
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        FUZZ_CHECK(c->acc != NULL && c->excluded_by == NULL, "recommendation %zu is excluded", i);
        FUZZ_CHECK(c->score >= 0 && c->score <= 100 && c->rule_score >= 0 && c->rule_score <= 100 &&
                       c->objective_score >= 0 && c->objective_score <= 100,
                   "%s: score %d, rule_score %d, objective_score %d out of 0..100", c->acc->id,
                   c->score, c->rule_score, c->objective_score);
        if (i > 0) {
            const struct dc_candidate *p = &res->recommendations[i - 1];
            FUZZ_CHECK(p->score >= c->score, "not sorted by score: %s %d before %s %d", p->acc->id,
                       p->score, c->acc->id, c->score);
        }
        for (size_t k = 0; k < c->n_reasons; k++) {
            check_reason(res, c, &c->reasons[k], "recommendation");
            if (k > 0)
                FUZZ_CHECK(abs(c->reasons[k - 1].impact) >= abs(c->reasons[k].impact),
                           "%s: reasons not sorted by |impact|: %s %d before %s %d", c->acc->id,
                           c->reasons[k - 1].rule_id, c->reasons[k - 1].impact,
                           c->reasons[k].rule_id, c->reasons[k].impact);
        }
    }
    for (size_t i = 0; i < res->n_excluded; i++) {
        const struct dc_candidate *c = &res->excluded[i];
        FUZZ_CHECK(c->acc != NULL && c->excluded_by != NULL, "exclusion %zu has no reason", i);
        check_reason(res, c, c->excluded_by, "exclusion");
    }
    unsigned seen = 0;
    for (size_t i = 0; i < DC_FAMILY_COUNT; i++) {
        const struct dc_family_rank *f = &res->families[i];
        FUZZ_CHECK((unsigned)f->family < DC_FAMILY_COUNT && (seen & (1u << f->family)) == 0,
                   "family rank %zu: family %d repeated or unknown", i, (int)f->family);
        seen |= 1u << f->family;
        FUZZ_CHECK(f->score >= 0 && f->score <= 100, "family %s: score %d",
                   dc_family_name(f->family), f->score);
        FUZZ_CHECK(f->excluded == (f->best == NULL), "family %s: excluded %d, best %s",
                   dc_family_name(f->family), (int)f->excluded,
                   f->best != NULL ? f->best : "(null)");
    }
    for (size_t i = 0; i < res->n_warnings; i++)
        FUZZ_CHECK(res->warnings[i].code != NULL && res->warnings[i].code[0] != '\0' &&
                       res->warnings[i].message != NULL && res->warnings[i].message[0] != '\0',
                   "warning %zu without code or message", i);
}

static void check_explanation(const struct dc_explanation *e)
{
    char buf[768];
    FUZZ_CHECK(e->changes_usage.evaluations + e->robustness.usage.evaluations <=
                   FUZZ_EXPLAIN_EVALUATIONS,
               "explanation ran %u + %u times", e->changes_usage.evaluations,
               e->robustness.usage.evaluations);
    FUZZ_CHECK(e->n_targets <= DC_EXPLAIN_MAX_TARGETS, "%zu targets", e->n_targets);
    for (size_t i = 0; i < e->n_targets; i++) {
        const struct dc_target *t = &e->targets[i];
        FUZZ_CHECK(t->n_changes <= DC_EXPLAIN_MAX_CHANGES, "%s: %zu changes", t->acc->id,
                   t->n_changes);
        for (size_t k = 0; k < t->n_changes; k++) {
            const struct dc_change *c = &t->changes[k];
            FUZZ_CHECK(c->field != NULL && c->field[0] == '/' && c->from != NULL && c->to != NULL,
                       "%s: change %zu without field or values", t->acc->id, k);
            FUZZ_CHECK(t->role == DC_ROLE_TOP ? c->top != NULL && c->top != t->acc
                                              : c->top == t->acc,
                       "%s: change of %s names pick %s", t->acc->id, c->field,
                       c->top != NULL ? c->top->id : "(none)");
            FUZZ_CHECK(c->threshold == DC_THRESHOLD_NONE ||
                           (cJSON_IsNumber(c->to) && isfinite(c->not_at)),
                       "%s: threshold of %s without its other side", t->acc->id, c->field);
            const char *text = dc_change_text(t, c, buf, sizeof(buf));
            FUZZ_CHECK(text[0] != '\0', "%s: change of %s without text", t->acc->id, c->field);
        }
    }
}

/* Options a caller may pass, chosen by hash bits: the server's default
 * (probe off), a probe with nothing attached, and a probe that reports
 * a few catalog accelerators (some free, some busy). */
static void fill_opts(const dc_ruleset *rs, uint64_t h, struct dc_recommend_opts *opts,
                      struct dc_availability *av, size_t cap)
{
    memset(opts, 0, sizeof(*opts));
    opts->prefer_available = (h & 1u) != 0;
    opts->probe_enabled = (h & 2u) != 0;
    /* Every caller passes a request id (the server its request's, the CLI one
     * per run) and the contract says it is never empty: a generated one or a
     * caller's X-Request-Id. */
    opts->request_id = (h & 4u) != 0 ? "3f9c1a52e4b07d86a1c2e3f405162738" : "trace-42.a:b_c";
    if (opts->probe_enabled && (h & 8u) != 0) {
        size_t n = dc_ruleset_accelerator_count(rs);
        size_t k = 0;
        for (size_t i = 0; i < n && k < cap; i++) {
            if (((h >> (8 + i % 48)) & 1u) == 0)
                continue;
            const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
            unsigned attached = (unsigned)((h >> (24 + (i % 16))) & 7u);
            av[k].accelerator_id = a->id;
            av[k].attached = attached;
            av[k].free = attached / 2;
            av[k].memory_free_gb = (h & 16u) != 0 ? NAN : a->memory_gb * (double)av[k].free;
            k++;
        }
        opts->availability = av;
        opts->n_availability = k;
        opts->probe_source = (h & 32u) != 0 ? "probe" : NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const dc_ruleset *rs = fuzz_embedded_ruleset();
    char *body = fuzz_strndup(data, size);
    cJSON *root = NULL;
    cJSON *json = NULL;
    struct dc_result *res = NULL;
    struct dc_explanation *expl = NULL;
    struct api_schema_result vr = {0};
    struct dc_error err;
    dc_error_clear(&err);

    enum api_json_error jrc = api_json_parse(body, size, 0, &root, &err);
    if (jrc != API_JSON_OK) {
        FUZZ_CHECK(root == NULL, "parse failed (%s) but left a tree", api_json_error_name(jrc));
        FUZZ_CHECK(jrc > API_JSON_OK && jrc <= API_JSON_NOMEM, "unknown parse status %d", (int)jrc);
        FUZZ_CHECK(err.msg[0] != '\0', "parse failed (%s) without a message",
                   api_json_error_name(jrc));
        FUZZ_CHECK(fuzz_is_pointer(err.where), "parse error where \"%s\"", err.where);
        goto out;
    }
    FUZZ_CHECK(root != NULL, "parse succeeded without a tree");

    enum dc_status rc =
        api_schema_validate(fuzz_workload_schema(), root, API_VALIDATION_MAX_ERRORS, &vr, &err);
    FUZZ_CHECK(rc == DC_OK, "Workload validation did not run: %s: %s", dc_status_name(rc), err.msg);
    fuzz_check_schema_result(&vr);
    bool valid = vr.valid;

    struct dc_availability av[32];
    struct dc_recommend_opts opts;
    fill_opts(rs, fuzz_hash(data, size), &opts, av, sizeof(av) / sizeof(av[0]));
    dc_error_clear(&err);
    rc = dc_recommend(rs, root, &opts, &res, &err);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EINVAL, "dc_recommend: %s (%s: %s) on a %s workload",
               dc_status_name(rc), err.where, err.msg, valid ? "schema-valid" : "invalid");
    if (rc == DC_EINVAL) {
        FUZZ_CHECK(res == NULL, "DC_EINVAL with a result");
        FUZZ_CHECK(fuzz_is_pointer(err.where), "DC_EINVAL where \"%s\" is no JSON Pointer (%s)",
                   err.where, err.msg);
        FUZZ_CHECK(err.msg[0] != '\0', "DC_EINVAL at \"%s\" without a message", err.where);
        if (valid)
            FUZZ_CHECK(fuzz_pointer_near(root, err.where),
                       "DC_EINVAL on a schema-valid body at \"%s\", which is not in it: %s",
                       err.where, err.msg);
        goto out;
    }
    FUZZ_CHECK(res != NULL, "DC_OK without a result");
    check_result(rs, res);
    rc = api_result_to_json(res, &json);
    FUZZ_CHECK(rc == DC_OK && json != NULL, "api_result_to_json: %s", dc_status_name(rc));
    if (valid)
        fuzz_expect_conforms(fuzz_contract_schema("Recommendation"), "the Recommendation", json);
    if (res->workload.explain != 0) {
        struct dc_explain_opts eo = {res->workload.explain, FUZZ_EXPLAIN_EVALUATIONS, 0};
        rc = dc_explain(rs, root, &opts, res, &eo, &expl, &err);
        FUZZ_CHECK(rc == DC_OK && expl != NULL, "dc_explain: %s: %s", dc_status_name(rc), err.msg);
        check_explanation(expl);
        size_t len = 0;
        char *text = api_result_render_explained(res, expl, &len);
        FUZZ_CHECK(text != NULL, "the explained body does not render");
        cJSON_Delete(json);
        json = cJSON_ParseWithLength(text, len);
        free(text);
        FUZZ_CHECK(json != NULL, "the explained body does not parse back");
        if (valid)
            fuzz_expect_conforms(fuzz_contract_schema("Recommendation"),
                                 "the explained Recommendation", json);
    }
out:
    dc_explanation_free(expl);
    cJSON_Delete(json);
    dc_result_free(res);
    api_schema_result_cleanup(&vr);
    cJSON_Delete(root);
    free(body);
    return 0;
}
