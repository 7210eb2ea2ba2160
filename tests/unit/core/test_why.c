/* tests/unit/core/test_why.c -- core/src/reasons/why.c: the result's one sentence of
 * why the pick is the pick, against the shipped rules: the part and its chips,
 * the objective's reason, the target it meets, its cost or time, what decided
 * it over a part better on the objective alone; never a rule id; none without
 * a pick. (The fleet's clause is in test_availability.c.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "default_rules.h"
#include "dc/engine.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

struct said {
    struct dc_result *res;
    cJSON *json;
    char why[DC_WHY_TEXT_MAX];
    const char *text; /* why, or NULL */
};

static void run(struct said *o, const char *workload)
{
    memset(o, 0, sizeof(*o));
    o->json = cJSON_Parse(workload);
    assert_non_null(o->json);
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(rs, o->json, NULL, &o->res, &err) != DC_OK)
        fail_msg("%s: %s", err.where, err.msg);
    o->text = dc_why(o->res, o->why, sizeof(o->why));
}

static void done(struct said *o)
{
    dc_result_free(o->res);
    cJSON_Delete(o->json);
}

/* No rule id of the result (a reason's, a gate's) appears in the sentence. */
static void no_rule_ids(const struct said *o)
{
    for (size_t i = 0; i < o->res->n_recommendations; i++) {
        const struct dc_candidate *c = &o->res->recommendations[i];
        for (size_t k = 0; k < c->n_reasons; k++)
            if (strstr(o->text, c->reasons[k].rule_id) != NULL)
                fail_msg("rule id %s in: %s", c->reasons[k].rule_id, o->text);
    }
}

static void test_cost(void **state)
{
    (void)state;
    struct said o;
    /* examples/llm-serving.json at a quarter of its rate (at 10 requests/s one
     * 8-GPU H200 machine is cheaper than the TPUs too, at 20 three 8-GPU H100
     * machines): a PyTorch team, taken to have no XLA experience. */
    run(&o, "{\"task\":\"inference\",\"framework\":\"pytorch\",\"stage\":\"production\","
            "\"model\":{\"architecture\":\"transformer\",\"parameters\":7e10,\"layers\":80,"
            "\"hidden_size\":8192,\"attention_heads\":64,\"kv_heads\":8},\"precision\":\"fp8\","
            "\"inference\":{\"requests_per_second\":5,\"latency_ms_p99\":50,\"input_tokens\":"
            "3584,\"output_tokens\":512},\"constraints\":{\"deployment\":\"cloud\",\"providers\":"
            "[\"aws\",\"gcp\"]},\"objective\":\"cost\"}");
    assert_int_equal(o.res->status, DC_ANSWER_OK);
    assert_non_null(o.text);
    const struct dc_candidate *top = &o.res->recommendations[0];
    assert_true(strncmp(o.text, top->acc->name, strlen(top->acc->name)) == 0);
    assert_non_null(strstr(o.text, "option that serves 5 requests/s within 50 ms p99, at about $"));
    assert_non_null(strstr(o.text, "/month"));
    /* A TPU is cheaper but the team gate holds it: the pick is the cheapest
     * suitable one, and the sentence says which part and why, in words. */
    assert_non_null(strstr(o.text, "is the cheapest suitable option"));
    assert_non_null(strstr(o.text, "suits this framework, team or stage less"));
    assert_true(o.text[strlen(o.text) - 1] == '.');
    assert_null(strchr(o.text, '\n'));
    no_rule_ids(&o);
    done(&o);
}

static void test_time(void **state)
{
    (void)state;
    struct said o;
    run(&o, "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1.3e10},"
            "\"training\":{\"tokens\":2.6e11,\"deadline_hours\":720},\"objective\":\"time\"}");
    assert_int_equal(o.res->status, DC_ANSWER_OK);
    assert_non_null(o.text);
    assert_non_null(strstr(o.text, "is the fastest "));
    assert_non_null(
        strstr(o.text, "option that finishes within the deadline of 30 days, at about "));
    no_rule_ids(&o);
    done(&o);
}

/* Without a pick the status message says why: no sentence here. */
static void test_no_pick(void **state)
{
    (void)state;
    struct said o;
    run(&o, "{\"task\":\"training\",\"model\":{\"parameters\":1e12},\"training\":{\"tokens\":2e13,"
            "\"deadline_hours\":720},\"constraints\":{\"max_accelerators\":1024}}");
    assert_int_equal(o.res->status, DC_ANSWER_NO_FIT);
    assert_null(o.text);
    done(&o);
    char small[8];
    run(&o, "{\"task\":\"training\",\"model\":{\"parameters\":7e9}}");
    assert_null(dc_why(NULL, o.why, sizeof(o.why)));
    assert_null(dc_why(o.res, o.why, 0));
    /* A short buffer is cut, never overrun. */
    assert_non_null(dc_why(o.res, small, sizeof(small)));
    assert_int_equal(strlen(small), sizeof(small) - 1);
    done(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_no_pick),
    };
    return cmocka_run_group_tests(tests, setup, test_default_rules_teardown);
}
