/* tests/unit/core/test_cases.c -- the decision table: every workload in
 * tests/fixtures/cases.json against the default rule set (rules/), each case
 * naming the fact (and its public source) that justifies its expected top
 * family or pick, exclusions, warnings and the sizing of named candidates. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/engine.h"
#include "read_file.h"

static dc_ruleset *rules;

/* "family:tpu" matches any accelerator of the family; otherwise an id. */
static bool matches(const struct dc_candidate *c, const char *want)
{
    if (strncmp(want, "family:", 7) == 0)
        return strcmp(dc_family_name(c->acc->family), want + 7) == 0;
    return strcmp(c->acc->id, want) == 0;
}

static bool is_excluded(const struct dc_result *r, const char *want)
{
    bool any = false;
    for (size_t i = 0; i < r->n_excluded; i++) {
        if (matches(&r->excluded[i], want))
            any = true;
    }
    /* For a family, every member must be excluded. */
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (matches(&r->recommendations[i], want))
            return false;
    }
    return any;
}

static const struct dc_candidate *candidate(const struct dc_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (strcmp(r->recommendations[i].acc->id, id) == 0)
            return &r->recommendations[i];
    }
    return NULL;
}

/* Candidate `id`, recommended or excluded; NULL when it is in neither. */
static const struct dc_candidate *any_candidate(const struct dc_result *r, const char *id)
{
    const struct dc_candidate *c = candidate(r, id);
    for (size_t i = 0; c == NULL && i < r->n_excluded; i++) {
        if (strcmp(r->excluded[i].acc->id, id) == 0)
            c = &r->excluded[i];
    }
    return c;
}

/* Whether rule `rule` is among c's reasons or is what excluded it. */
static bool has_reason(const struct dc_candidate *c, const char *rule)
{
    if (c->excluded_by != NULL && strcmp(c->excluded_by->rule_id, rule) == 0)
        return true;
    for (size_t i = 0; i < c->n_reasons; i++) {
        if (strcmp(c->reasons[i].rule_id, rule) == 0)
            return true;
    }
    return false;
}

/* 1-based place of `id` among the recommendations; 0 when it is not one. */
static size_t rank_of(const struct dc_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_recommendations; i++)
        if (strcmp(r->recommendations[i].acc->id, id) == 0)
            return i + 1;
    return 0;
}

static bool pick_on_frontier(const struct dc_result *r)
{
    for (size_t i = 0; i < r->n_frontier; i++)
        if (r->frontier[i].pick && r->n_recommendations > 0 &&
            r->frontier[i].acc == r->recommendations[0].acc)
            return true;
    return false;
}

/* A number of the sizing by its contract name. */
static double sizing_value(const struct dc_sizing *z, const char *key, bool *known)
{
    *known = true;
    if (strcmp(key, "chips") == 0)
        return z->chips;
    if (strcmp(key, "machines") == 0)
        return z->machines;
    if (strcmp(key, "chips_for_memory") == 0)
        return z->chips_for_memory;
    if (strcmp(key, "chips_per_replica") == 0)
        return z->chips_per_replica;
    if (strcmp(key, "replicas") == 0)
        return z->replicas;
    if (strcmp(key, "batch_per_replica") == 0)
        return z->batch_per_replica;
    if (strcmp(key, "hours") == 0)
        return z->hours;
    if (strcmp(key, "decode_ms") == 0)
        return z->decode_ms;
    if (strcmp(key, "throughput_rps") == 0)
        return z->throughput_rps;
    if (strcmp(key, "memory_need_gb") == 0)
        return z->memory_need_gb;
    if (strcmp(key, "peak_tflops") == 0)
        return z->peak_tflops;
    if (strcmp(key, "scale_efficiency") == 0)
        return z->scale_efficiency;
    if (strcmp(key, "prefill_ms") == 0)
        return z->prefill_ms;
    if (strcmp(key, "request_ms") == 0)
        return z->request_ms;
    if (strcmp(key, "cost_usd") == 0)
        return z->cost_usd;
    *known = false;
    return NAN;
}

/* The offer that prices `z`: its instance type ("offer") or provider
 * ("provider"); false when the field is another one. NULL offer: "" (none). */
static bool offer_field(const struct dc_sizing *z, const char *key, const char **out)
{
    if (strcmp(key, "offer") == 0)
        *out = z->offer != NULL ? z->offer->instance_type : "";
    else if (strcmp(key, "provider") == 0)
        *out = z->offer != NULL ? dc_provider_name(z->offer->provider) : "";
    else
        return false;
    return true;
}

/* "sizing": {"h100": {"chips": [lo, hi], "shape": "1 x 8 H100", "basis": "target",
 * "offer": "p5.48xlarge", "provider": "aws", "priced": true, "meets_rate": true,
 * "withheld": false, ...}}: every named field must match. */
static bool sizing_matches(const struct dc_candidate *c, const cJSON *want, char *why, size_t len)
{
    const struct dc_sizing *z = &c->sizing;
    const cJSON *f = NULL;
    cJSON_ArrayForEach(f, want)
    {
        bool known = false;
        char shape[64];
        const char *got = NULL;
        if (cJSON_IsArray(f) && cJSON_GetArraySize(f) == 2) {
            double v = sizing_value(z, f->string, &known);
            double lo = cJSON_GetArrayItem(f, 0)->valuedouble;
            double hi = cJSON_GetArrayItem(f, 1)->valuedouble;
            if (!known || !(v >= lo && v <= hi)) {
                snprintf(why, len, "%s = %g, want %g..%g", f->string, v, lo, hi);
                return false;
            }
        } else if (strcmp(f->string, "shape") == 0) {
            dc_shape_format(c->acc, &z->shape, shape, sizeof(shape));
            if (strstr(shape, f->valuestring) == NULL) {
                snprintf(why, len, "shape %s, want %s", shape, f->valuestring);
                return false;
            }
        } else if (cJSON_IsString(f) && offer_field(z, f->string, &got)) {
            if (strcmp(got, f->valuestring) != 0) {
                snprintf(why, len, "%s %s, want %s", f->string, *got ? got : "(none)",
                         f->valuestring);
                return false;
            }
        } else if (strcmp(f->string, "priced") == 0 && cJSON_IsBool(f)) {
            if ((z->cost_basis != DC_COST_UNKNOWN) != cJSON_IsTrue(f)) {
                snprintf(why, len, "cost is %s",
                         z->cost_basis != DC_COST_UNKNOWN ? "known" : "unknown");
                return false;
            }
        } else if (strcmp(f->string, "basis") == 0) {
            if (strcmp(dc_chips_basis_name(z->basis), f->valuestring) != 0) {
                snprintf(why, len, "basis %s, want %s", dc_chips_basis_name(z->basis),
                         f->valuestring);
                return false;
            }
        } else if (cJSON_IsBool(f) && strcmp(f->string, "withheld") == 0) {
            /* "withheld": true when time and cost are not estimated. */
            if ((z->estimate_withheld != NULL) != cJSON_IsTrue(f)) {
                snprintf(why, len, "estimate_withheld is %s",
                         z->estimate_withheld != NULL ? z->estimate_withheld : "null");
                return false;
            }
        } else if (cJSON_IsBool(f)) {
            bool v = strcmp(f->string, "meets_rate") == 0       ? z->meets_rate
                     : strcmp(f->string, "meets_latency") == 0  ? z->meets_latency
                     : strcmp(f->string, "meets_deadline") == 0 ? z->meets_deadline
                                                                : z->within_budget;
            if (v != cJSON_IsTrue(f)) {
                snprintf(why, len, "%s is %s", f->string, v ? "true" : "false");
                return false;
            }
        } else {
            snprintf(why, len, "unknown sizing expectation %s", f->string);
            return false;
        }
    }
    return true;
}

/* A would_meet figure by its contract name. */
static double would_meet_value(const struct dc_would_meet *m, const char *key, bool *known)
{
    *known = true;
    if (strcmp(key, "chips") == 0)
        return m->chips;
    if (strcmp(key, "hours") == 0)
        return m->hours;
    if (strcmp(key, "budget_usd") == 0)
        return m->budget_usd;
    *known = false;
    return NAN;
}

/* "would_meet": {"accelerator": "mi300x" or null, "chips": [lo, hi] or null,
 * "hours": ..., "budget_usd": ..., "fields": ["model.flops_per_sample"]}:
 * every named field must match (null: none). */
static bool would_meet_matches(const struct dc_result *r, const cJSON *want, char *why, size_t len)
{
    const struct dc_would_meet *m = &r->would_meet;
    const cJSON *f = NULL;
    cJSON_ArrayForEach(f, want)
    {
        bool known = false;
        if (strcmp(f->string, "accelerator") == 0) {
            const char *got = m->acc != NULL ? m->acc->id : NULL;
            bool ok = cJSON_IsNull(f) ? got == NULL
                      : got == NULL   ? false
                      : strncmp(f->valuestring, "family:", 7) == 0
                          ? strcmp(dc_family_name(m->acc->family), f->valuestring + 7) == 0
                          : strcmp(got, f->valuestring) == 0;
            if (!ok) {
                snprintf(why, len, "accelerator %s", got != NULL ? got : "null");
                return false;
            }
        } else if (strcmp(f->string, "fields") == 0) {
            bool ok = (size_t)cJSON_GetArraySize(f) == m->n_fields;
            for (size_t i = 0; ok && i < m->n_fields; i++)
                ok = strcmp(cJSON_GetArrayItem(f, (int)i)->valuestring, m->fields[i]) == 0;
            if (!ok) {
                snprintf(why, len, "fields %zu: %s", m->n_fields,
                         m->n_fields > 0 ? m->fields[0] : "none");
                return false;
            }
        } else {
            double v = would_meet_value(m, f->string, &known);
            bool ok = known && (cJSON_IsNull(f) ? isnan(v)
                                                : cJSON_IsArray(f) &&
                                                      v >= cJSON_GetArrayItem(f, 0)->valuedouble &&
                                                      v <= cJSON_GetArrayItem(f, 1)->valuedouble);
            if (!ok) {
                snprintf(why, len, "%s = %g", f->string, v);
                return false;
            }
        }
    }
    return true;
}

/* A case's "fleet": what the fleet has, as GET /v1/fleet's snapshot would give
 * the engine ([{"accelerator": id, "attached": n, "free": n, "nodes_by_free":
 * [nodes with 0 free, with 1, ...]}]); "fleet": "warming" for a fleet that
 * Prometheus has not scraped yet. No "fleet": no availability known. Returns
 * the options (availability in av, at most `cap`). */
static struct dc_recommend_opts fleet_opts(const cJSON *c, struct dc_availability *av, size_t cap)
{
    struct dc_recommend_opts o = {0};
    const cJSON *f = cJSON_GetObjectItem(c, "fleet");
    if (f == NULL)
        return o;
    o.probe_enabled = true;
    o.probe_source = "prometheus";
    o.availability_fleet = true;
    o.availability_age_seconds = 1;
    o.availability_warming = cJSON_IsString(f) && strcmp(f->valuestring, "warming") == 0;
    o.availability = av;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, f)
    {
        if (o.n_availability == cap)
            break;
        struct dc_availability *a = &av[o.n_availability++];
        memset(a, 0, sizeof(*a));
        a->accelerator_id = cJSON_GetObjectItem(e, "accelerator")->valuestring;
        a->attached = (unsigned)cJSON_GetObjectItem(e, "attached")->valuedouble;
        a->free = (unsigned)cJSON_GetObjectItem(e, "free")->valuedouble;
        a->memory_free_gb = NAN;
        size_t k = 0;
        const cJSON *n = NULL;
        cJSON_ArrayForEach(n, cJSON_GetObjectItem(e, "nodes_by_free"))
        {
            if (k <= DC_AVAILABILITY_NODE_MAX)
                a->nodes_by_free[k++] = (unsigned)n->valuedouble;
        }
    }
    return o;
}

/* One case being checked: its name and fact for the messages, and the
 * failures counted so far. */
struct case_check {
    const char *name;
    const cJSON *fact;
    int failures;
};

static void fail_case(struct case_check *k, const char *fmt, ...) CMOCKA_PRINTF_ATTRIBUTE(2, 3);

static void fail_case(struct case_check *k, const char *fmt, ...)
{
    print_error("case %s (%s): ", k->name, cJSON_IsString(k->fact) ? k->fact->valuestring : "?");
    va_list ap;
    va_start(ap, fmt);
    vprint_error(fmt, ap);
    va_end(ap);
    k->failures++;
}

/* "top_family", "top" and "status": what the answer picks, and whether it
 * has a pick at all. */
static void check_pick(struct case_check *k, const cJSON *expect, const struct dc_result *r)
{
    const cJSON *top = cJSON_GetObjectItem(expect, "top_family");
    if (cJSON_IsString(top)) {
        if (r->n_recommendations == 0)
            fail_case(k, "expected top family %s, got no recommendation\n", top->valuestring);
        else if (strcmp(dc_family_name(r->recommendations[0].acc->family), top->valuestring) != 0)
            fail_case(k, "expected top family %s, got %s (%s, score %d)\n", top->valuestring,
                      dc_family_name(r->recommendations[0].acc->family),
                      r->recommendations[0].acc->id, r->recommendations[0].score);
    }
    const cJSON *pick = cJSON_GetObjectItem(expect, "top");
    if (cJSON_IsString(pick) && (r->n_recommendations == 0 ||
                                 strcmp(r->recommendations[0].acc->id, pick->valuestring) != 0))
        fail_case(k, "expected top pick %s, got %s\n", pick->valuestring,
                  r->n_recommendations > 0 ? r->recommendations[0].acc->id : "nothing");
    /* "status": the result's status; unless "ok", no candidate looks like a
     * pick (none scores 100). */
    const cJSON *status = cJSON_GetObjectItem(expect, "status");
    if (cJSON_IsString(status)) {
        if (strcmp(dc_answer_status_name(r->status), status->valuestring) != 0)
            fail_case(k, "expected status %s, got %s\n", status->valuestring,
                      dc_answer_status_name(r->status));
        for (size_t i = 0; r->status != DC_ANSWER_OK && i < r->n_recommendations; i++)
            if (r->recommendations[i].score >= 100)
                fail_case(k, "%s scores %d with status %s\n", r->recommendations[i].acc->id,
                          r->recommendations[i].score, dc_answer_status_name(r->status));
    }
}

/* "excluded", "not_excluded", "warnings" and "absent_warnings". */
static void check_exclusions(struct case_check *k, const cJSON *expect, const struct dc_result *r)
{
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "excluded"))
    {
        if (!is_excluded(r, it->valuestring))
            fail_case(k, "expected %s to be excluded\n", it->valuestring);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "not_excluded"))
    {
        for (size_t i = 0; i < r->n_excluded; i++) {
            if (matches(&r->excluded[i], it->valuestring))
                fail_case(k, "expected %s not to be excluded (by %s)\n", r->excluded[i].acc->id,
                          r->excluded[i].excluded_by->rule_id);
        }
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "warnings"))
    {
        bool found = false;
        for (size_t i = 0; i < r->n_warnings; i++)
            found = found || strcmp(r->warnings[i].code, it->valuestring) == 0;
        if (!found)
            fail_case(k, "expected warning %s\n", it->valuestring);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "absent_warnings"))
    {
        for (size_t i = 0; i < r->n_warnings; i++) {
            if (strcmp(r->warnings[i].code, it->valuestring) == 0)
                fail_case(k, "unexpected warning %s: %s\n", it->valuestring,
                          r->warnings[i].message);
        }
    }
}

/* "reasons", "capped", "uncapped", "counted" and "before": why each part
 * ranks where it does. */
static void check_ranking(struct case_check *k, const cJSON *expect, const struct dc_result *r)
{
    const cJSON *it = NULL;
    /* "reasons": {"acc": "rule-id"}: the rule is among acc's reasons (or excluded it). */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "reasons"))
    {
        const struct dc_candidate *cand = any_candidate(r, it->string);
        if (cand == NULL || !has_reason(cand, it->valuestring))
            fail_case(k, "expected reason %s on %s\n", it->valuestring, it->string);
    }
    /* "capped": {"acc": "rule-id"}: a ranking gate holds acc below another. */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "capped"))
    {
        const struct dc_candidate *cand = candidate(r, it->string);
        if (cand == NULL || cand->capped_by == NULL ||
            strcmp(cand->capped_by->rule_id, it->valuestring) != 0)
            fail_case(k, "expected %s capped by %s, got %s\n", it->string, it->valuestring,
                      cand == NULL || cand->capped_by == NULL ? "none" : cand->capped_by->rule_id);
    }
    /* "uncapped": ["acc"]: no ranking gate holds acc (a gate's exception). */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "uncapped"))
    {
        const struct dc_candidate *cand = candidate(r, it->valuestring);
        if (cand == NULL || cand->capped_by != NULL)
            fail_case(k, "expected %s recommended and not capped (%s)\n", it->valuestring,
                      cand == NULL ? "not recommended" : cand->capped_by->rule_id);
    }
    /* "counted": {"acc": "rule-id"}: the rule's bonus on acc shares its fact with a
     * larger one, so it counts 0 and names that rule. */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "counted"))
    {
        const struct dc_candidate *cand = candidate(r, it->string);
        const struct dc_reason *why = NULL;
        for (size_t i = 0; cand != NULL && i < cand->n_reasons; i++) {
            if (strcmp(cand->reasons[i].rule_id, it->valuestring) == 0)
                why = &cand->reasons[i];
        }
        if (why == NULL || why->counted_with == NULL || why->impact != 0)
            fail_case(k, "expected %s's bonus on %s counted once with another rule\n",
                      it->valuestring, it->string);
    }
    /* "before": {"a": "b"}: a is recommended and ranks above b (or b is not). */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "before"))
    {
        size_t ra = rank_of(r, it->string), rb = rank_of(r, it->valuestring);
        if (ra == 0 || (rb != 0 && rb < ra))
            fail_case(k, "expected %s above %s (ranks %zu and %zu)\n", it->string, it->valuestring,
                      ra, rb);
    }
}

/* "would_meet", "frontier_pick", "breakeven" and "sizing": what the answer
 * buys and says would meet the targets. */
static void check_purchase(struct case_check *k, const cJSON *expect, const struct dc_result *r)
{
    const cJSON *it = NULL;
    const cJSON *wm = cJSON_GetObjectItem(expect, "would_meet");
    char wm_why[256] = "";
    if (wm != NULL && !would_meet_matches(r, wm, wm_why, sizeof(wm_why)))
        fail_case(k, "would_meet: %s\n", wm_why);
    /* "frontier_pick": true: the top pick's configuration is on the frontier. */
    const cJSON *fp = cJSON_GetObjectItem(expect, "frontier_pick");
    if (cJSON_IsTrue(fp) && !pick_on_frontier(r))
        fail_case(k, "expected the top pick on the frontier (%zu points)\n", r->n_frontier);
    /* "breakeven": {"acc": true}: an unpriced part says what price would do. */
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "breakeven"))
    {
        const struct dc_candidate *cand = candidate(r, it->string);
        if (cand == NULL || !(cand->selection.breakeven_usd_per_chip_hour > 0))
            fail_case(k, "expected a breakeven price on %s\n", it->string);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "sizing"))
    {
        const struct dc_candidate *cand = candidate(r, it->string);
        char why[512] = "";
        if (cand == NULL)
            fail_case(k, "expected %s among the candidates\n", it->string);
        else if (!sizing_matches(cand, it, why, sizeof(why)))
            fail_case(k, "%s: %s\n", it->string, why);
    }
}

static int check_case(const cJSON *c)
{
    struct case_check k = {cJSON_GetObjectItem(c, "name")->valuestring,
                           cJSON_GetObjectItem(c, "fact"), 0};
    const cJSON *expect = cJSON_GetObjectItem(c, "expect");
    struct dc_result *r = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    struct dc_availability av[8];
    struct dc_recommend_opts opts = fleet_opts(c, av, 8);
    if (dc_recommend(rules, cJSON_GetObjectItem(c, "workload"), &opts, &r, &err) != DC_OK) {
        print_error("case %s: recommend failed: %s %s\n", k.name, err.where, err.msg);
        return 1;
    }
    check_pick(&k, expect, r);
    check_exclusions(&k, expect, r);
    check_ranking(&k, expect, r);
    check_purchase(&k, expect, r);
    dc_result_free(r);
    return k.failures;
}

static void test_decision_table(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_true(cJSON_IsArray(cases));
    int n = cJSON_GetArraySize(cases);
    assert_true(n >= 80);
    int failed = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "name")));
        assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "fact")));
        const cJSON *src = cJSON_GetObjectItem(c, "source");
        if (!cJSON_IsString(src) || strncmp(src->valuestring, "https://", 8) != 0)
            fail_msg("case %s names no public source", cJSON_GetObjectItem(c, "name")->valuestring);
        if (check_case(c) != 0)
            failed++;
    }
    print_message("decision table: %d passed, %d failed\n", n - failed, failed);
    cJSON_Delete(cases);
    free(text);
    assert_int_equal(failed, 0);
}

static int setup(void **state)
{
    (void)state;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(AA_SOURCE_DIR "/rules", &rules, &d);
    dc_diags_cleanup(&d);
    return rc == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_decision_table)};
    return cmocka_run_group_tests_name("cases", tests, setup, teardown);
}
