/* tests/unit/core/test_availability.c -- availability in the ranking
 * (core/src/engine.c attach_availability, the probe.available reason text):
 * the bonus goes to a configuration whose chips are free now, machine by
 * machine on one node's free devices (whole nodes for multi-machine shapes),
 * slices larger than a node on whole free hosts; a host probe is one node; a
 * fleet says how many nodes; a stale snapshot is warned about once; with
 * prefer_available a free configuration ranks before one that is not;
 * constraints.fleet_only keeps only what is free; a warming fleet frees nothing.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "candidates.h"
#include "default_rules.h"
#include "dc/engine.h"
#include "dc/explain.h"

static dc_ruleset *rs;

/* Training that the shipped catalog sizes as 1 x 8 H100, 2 x 8 H100 (capped at
 * 16 chips) and one v5p-32 slice (16 chips over four 4-chip hosts). */
static const char one_node[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                               "\"constraints\":{\"deployment\":\"on-prem\"},"
                               "\"prefer_available\":true}";
static const char two_nodes[] =
    "{\"task\":\"training\",\"model\":{\"parameters\":70e9},"
    "\"constraints\":{\"deployment\":\"on-prem\",\"max_accelerators\":16},"
    "\"prefer_available\":true}";
static const char slice[] =
    "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":"
    "2e10},\"constraints\":{\"accelerators\":[\"tpu-v5p\"],"
    "\"max_accelerators\":16},\"prefer_available\":true}";

struct outcome {
    struct dc_result *res;
    cJSON *json;
    const struct dc_candidate *c;
    const struct dc_reason *bonus; /* probe.available, or NULL */
    char text[512];
};

static void run(struct outcome *o, const char *workload, const char *id,
                const struct dc_availability *av, const struct dc_recommend_opts *base)
{
    memset(o, 0, sizeof(*o));
    struct dc_recommend_opts opts = *base;
    opts.availability = av;
    opts.n_availability = av != NULL ? 1 : 0;
    opts.probe_enabled = true;
    o->json = cJSON_Parse(workload);
    assert_non_null(o->json);
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(rs, o->json, &opts, &o->res, &err) != DC_OK)
        fail_msg("%s: %s", err.where, err.msg);
    o->c = test_candidate(o->res, id);
    assert_non_null(o->c);
    for (size_t i = 0; i < o->c->n_reasons; i++) {
        if (strcmp(o->c->reasons[i].rule_id, "probe.available") == 0)
            o->bonus = &o->c->reasons[i];
    }
    if (o->bonus != NULL)
        dc_reason_text(o->res, o->c, o->bonus, o->text, sizeof(o->text));
}

static void done(struct outcome *o)
{
    dc_result_free(o->res);
    cJSON_Delete(o->json);
}

static size_t count_warnings(const struct dc_result *res, const char *code)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n_warnings; i++)
        n += strcmp(res->warnings[i].code, code) == 0;
    return n;
}

static const struct dc_recommend_opts host = {.probe_source = "probe"};
static const struct dc_recommend_opts fleet = {
    .probe_source = "prometheus", .availability_fleet = true, .availability_age_seconds = 4};

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

/* The shapes the tests below rest on: if the sizing changes them, say so here
 * rather than in a puzzling availability failure. */
static void test_shapes(void **state)
{
    (void)state;
    struct outcome o;
    run(&o, one_node, "h100", NULL, &host);
    assert_int_equal(o.c->sizing.shape.units, 1);
    assert_int_equal(o.c->sizing.shape.per_unit, 8);
    done(&o);
    run(&o, two_nodes, "h100", NULL, &host);
    assert_int_equal(o.c->sizing.shape.units, 2);
    assert_int_equal(o.c->sizing.shape.per_unit, 8);
    done(&o);
    run(&o, slice, "tpu-v5p", NULL, &host);
    assert_non_null(o.c->sizing.shape.slice);
    assert_int_equal(o.c->sizing.chips, 16);
    done(&o);
}

/* A host probe (no per-node counts): the chips must be free on it. */
static void test_host(void **state)
{
    (void)state;
    struct dc_availability av = {.accelerator_id = "h100", .attached = 8, .free = 8};
    struct outcome o;
    run(&o, one_node, "h100", &av, &host);
    assert_true(o.c->availability.configuration_free);
    assert_int_equal(o.c->availability.nodes, 1);
    assert_int_equal(o.c->availability.free_nodes, 1);
    assert_false(o.c->availability.fleet);
    assert_non_null(o.bonus);
    assert_int_equal(o.bonus->impact, 20);
    assert_string_equal(o.bonus->source, "probe");
    assert_string_equal(o.text, "8 of 8 attached h100 are free on this host now: room for 1 x 8 "
                                "H100.");
    int with = o.c->selection.soft_points; /* availability_points among them */
    done(&o);

    av.free = 7; /* one busy GPU: the 8-GPU configuration cannot start here */
    run(&o, one_node, "h100", &av, &host);
    assert_false(o.c->availability.configuration_free);
    assert_int_equal(o.c->availability.free, 7);
    assert_null(o.bonus);
    assert_true(o.c->selection.soft_points < with);
    done(&o);

    /* Not asked for: no bonus, the availability still shown. */
    struct dc_availability all = {.accelerator_id = "h100", .attached = 8, .free = 8};
    struct dc_recommend_opts off = host;
    off.prefer_available = false;
    run(&o,
        "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
        "\"constraints\":{\"deployment\":\"on-prem\"},\"prefer_available\":false}",
        "h100", &all, &off);
    assert_true(o.c->availability.configuration_free);
    assert_null(o.bonus);
    done(&o);
}

/* A fleet: eight free GPUs on one node start a one-machine configuration, the
 * same eight spread over two nodes do not; two machines need two whole nodes. */
static void test_fleet_whole_nodes(void **state)
{
    (void)state;
    struct dc_availability av = {.accelerator_id = "h100", .attached = 64, .free = 16};
    av.nodes_by_free[0] = 5;
    av.nodes_by_free[8] = 1;
    av.nodes_by_free[4] = 2; /* 5 + 1 + 2 = 8 nodes of 8 */
    struct outcome o;
    run(&o, one_node, "h100", &av, &fleet);
    assert_true(o.c->availability.configuration_free);
    assert_true(o.c->availability.fleet);
    assert_int_equal(o.c->availability.nodes, 8);
    assert_int_equal(o.c->availability.free_nodes, 3);
    assert_true(o.c->availability.age_seconds == 4);
    assert_non_null(o.bonus);
    assert_string_equal(o.bonus->source, "prometheus");
    assert_string_equal(o.text, "16 of 64 H100 free on 3 nodes now: room for 1 x 8 H100.");
    done(&o);

    run(&o, two_nodes, "h100", &av, &fleet);
    assert_false(o.c->availability.configuration_free); /* one whole node, two wanted */
    assert_null(o.bonus);
    done(&o);

    av.nodes_by_free[8] = 2;
    av.nodes_by_free[4] = 0;
    av.nodes_by_free[0] = 6;
    run(&o, two_nodes, "h100", &av, &fleet);
    assert_true(o.c->availability.configuration_free);
    assert_non_null(o.bonus);
    assert_string_equal(o.text, "16 of 64 H100 free on 2 nodes now: room for 2 x 8 H100.");
    done(&o);

    /* Sixteen free, but four on each of four nodes: no 8-GPU machine is free. */
    struct dc_availability spread = {.accelerator_id = "h100", .attached = 32, .free = 16};
    spread.nodes_by_free[4] = 4;
    run(&o, one_node, "h100", &spread, &fleet);
    assert_false(o.c->availability.configuration_free);
    assert_int_equal(o.c->availability.free_nodes, 4);
    assert_null(o.bonus);
    done(&o);

    /* A node with more free devices than the counts tell apart still holds 8. */
    struct dc_availability big = {.accelerator_id = "h100", .attached = 40, .free = 40};
    big.nodes_by_free[DC_AVAILABILITY_NODE_MAX] = 1;
    run(&o, two_nodes, "h100", &big, &fleet);
    assert_true(o.c->availability.configuration_free); /* 16 / 8: two machines on it */
    done(&o);
}

/* A slice larger than one host takes whole free hosts. */
static void test_slices(void **state)
{
    (void)state;
    /* Eight hosts of four chips, five of them wholly free. */
    struct dc_availability av = {
        .accelerator_id = "tpu-v5p", .attached = 32, .free = 20, .whole_node_free = 20};
    av.nodes_by_free[4] = 5;
    av.nodes_by_free[0] = 3;
    struct outcome o;
    run(&o, slice, "tpu-v5p", &av, &fleet);
    assert_true(o.c->availability.configuration_free);
    assert_non_null(o.bonus);
    assert_non_null(strstr(o.text, "20 of 32 TPU v5p free on 5 nodes now: room for v5p-32."));
    done(&o);

    /* As many free chips, but only three whole hosts: a 16-chip slice waits. */
    struct dc_availability split = {
        .accelerator_id = "tpu-v5p", .attached = 32, .free = 20, .whole_node_free = 12};
    split.nodes_by_free[4] = 3;
    split.nodes_by_free[2] = 4;
    split.nodes_by_free[0] = 1;
    run(&o, slice, "tpu-v5p", &split, &fleet);
    assert_false(o.c->availability.configuration_free);
    assert_int_equal(o.c->availability.free_nodes, 7);
    assert_null(o.bonus);
    done(&o);
}

/* Nothing of the model seen, or nothing free: no bonus and no division by zero. */
static void test_none(void **state)
{
    (void)state;
    struct dc_availability av = {.accelerator_id = "h100", .attached = 8, .free = 0};
    av.nodes_by_free[0] = 1;
    struct outcome o;
    run(&o, one_node, "h100", &av, &fleet);
    assert_false(o.c->availability.configuration_free);
    assert_int_equal(o.c->availability.free_nodes, 0);
    done(&o);
    run(&o, one_node, "a100", &av, &fleet); /* no entry for a100 */
    assert_true(o.c->availability.known);
    assert_int_equal(o.c->availability.attached, 0);
    assert_int_equal(o.c->availability.nodes, 0);
    assert_false(o.c->availability.configuration_free);
    done(&o);
}

/* A stale snapshot: still used, said once in the warnings and in the reason. */
static void test_stale(void **state)
{
    (void)state;
    struct dc_availability av = {.accelerator_id = "h100", .attached = 8, .free = 8};
    av.nodes_by_free[8] = 1;
    struct dc_recommend_opts stale = fleet;
    stale.availability_stale = true;
    stale.availability_age_seconds = 95;
    struct outcome o;
    run(&o, one_node, "h100", &av, &stale);
    assert_true(o.c->availability.stale);
    assert_non_null(o.bonus);
    assert_string_equal(o.text, "8 of 8 H100 free on 1 node now: room for 1 x 8 H100. The "
                                "snapshot is 1.58 min old (stale).");
    assert_int_equal(count_warnings(o.res, "availability_stale"), 1);
    for (size_t i = 0; i < o.res->n_warnings; i++) {
        if (strcmp(o.res->warnings[i].code, "availability_stale") == 0)
            assert_non_null(strstr(o.res->warnings[i].message, "1.58 min old"));
    }
    done(&o);
    run(&o, one_node, "h100", &av, &fleet);
    assert_int_equal(count_warnings(o.res, "availability_stale"), 0);
    done(&o);
}

/* A cloud training job (the default deployment) with eight free H100 on one
 * node of the fleet. */
static const char cloud_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                "\"prefer_available\":true}";
static const char cloud_job_plain[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9}}";

static size_t rank_of(const struct dc_result *res, const char *id)
{
    for (size_t i = 0; i < res->n_recommendations; i++)
        if (strcmp(res->recommendations[i].acc->id, id) == 0)
            return i;
    return SIZE_MAX;
}

static void free_h100(struct dc_availability *av)
{
    *av = (struct dc_availability){.accelerator_id = "h100", .attached = 8, .free = 8};
    av->nodes_by_free[8] = 1;
}

/* prefer_available: a configuration free now ranks before the parts whose
 * configuration is not, within the same gate tier (docs/scoring.md, section 8,
 * "Availability"): without the preference the free H100 is not first. */
static void test_prefer_ranks_free(void **state)
{
    (void)state;
    struct dc_availability av;
    free_h100(&av);
    struct outcome o;
    run(&o, cloud_job_plain, "h100", &av, &fleet);
    size_t plain = rank_of(o.res, "h100");
    assert_true(plain > 0 && plain != SIZE_MAX);
    const struct dc_candidate *was = &o.res->recommendations[0];
    assert_false(was->availability.configuration_free);
    char first[64];
    snprintf(first, sizeof(first), "%s", was->acc->name);
    done(&o);
    run(&o, cloud_job, "h100", &av, &fleet);
    assert_int_equal(rank_of(o.res, "h100"), 0);
    assert_int_equal(o.res->status, DC_ANSWER_OK);
    /* The part it beat is still there, after it, and the why names it. */
    char why[DC_WHY_TEXT_MAX];
    assert_non_null(dc_why(o.res, why, sizeof(why)));
    assert_non_null(strstr(why, "is the cheapest free option that finishes within"));
    assert_non_null(strstr(why, first));
    assert_non_null(strstr(why, "not free now, and you asked to prefer what is free"));
    assert_null(strstr(why, "probe.available"));
    /* Scores still fall down the list. */
    for (size_t i = 1; i < o.res->n_recommendations; i++)
        assert_true(o.res->recommendations[i].score <= o.res->recommendations[i - 1].score);
    done(&o);
    /* Nothing free: the preference moves nothing. */
    av.free = 0;
    av.nodes_by_free[8] = 0;
    av.nodes_by_free[0] = 1;
    run(&o, cloud_job, "h100", &av, &fleet);
    assert_int_equal(rank_of(o.res, "h100"), plain);
    done(&o);
}

static const struct dc_candidate *excluded(const struct dc_result *res, const char *id)
{
    for (size_t i = 0; i < res->n_excluded; i++)
        if (strcmp(res->excluded[i].acc->id, id) == 0)
            return &res->excluded[i];
    return NULL;
}

static const char fleet_only_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                     "\"constraints\":{\"fleet_only\":true}}";
static const char fleet_only_big[] =
    "{\"task\":\"training\",\"model\":{\"parameters\":70e9},"
    "\"constraints\":{\"fleet_only\":true,\"max_accelerators\":16}}";

/* constraints.fleet_only: only what the fleet has free; nothing free is a
 * no-fit answer that says so first. */
static void test_fleet_only(void **state)
{
    (void)state;
    struct dc_availability av;
    free_h100(&av);
    struct outcome o;
    char text[DC_REASON_TEXT_MAX];
    run(&o, fleet_only_job, "h100", &av, &fleet);
    assert_true(o.res->workload.fleet_only);
    assert_int_equal(o.res->status, DC_ANSWER_OK);
    assert_int_equal(o.res->n_recommendations, 1);
    assert_string_equal(o.res->recommendations[0].acc->id, "h100");
    assert_true(o.res->recommendations[0].availability.configuration_free);
    const struct dc_candidate *a100 = excluded(o.res, "a100");
    assert_non_null(a100);
    assert_string_equal(a100->excluded_by->rule_id, "constraints.fleet_only");
    assert_string_equal(dc_reason_text(o.res, a100, a100->excluded_by, text, sizeof(text)),
                        "The fleet has no A100 free now (0 seen) (constraints.fleet_only).");
    done(&o);

    /* 70B needs two whole 8-GPU machines; the fleet has one free: excluded,
     * and the answer says nothing the fleet has free holds the job. */
    run(&o, fleet_only_big, "h100", &av, &fleet);
    assert_int_equal(o.res->status, DC_ANSWER_NO_FIT);
    assert_int_equal(o.res->n_recommendations, 0);
    const struct dc_candidate *h = excluded(o.res, "h100");
    assert_non_null(h);
    assert_string_equal(h->excluded_by->rule_id, "constraints.fleet_only");
    dc_reason_text(o.res, h, h->excluded_by, text, sizeof(text));
    assert_non_null(strstr(text, "The fleet's 8 free H100 (of 8) cannot start"));
    char said[DC_ANSWER_TEXT_MAX];
    assert_non_null(dc_answer_text(o.res, said, sizeof(said)));
    assert_non_null(strstr(said, "Nothing the fleet has free now holds the job "
                                 "(constraints.fleet_only"));
    assert_null(dc_why(o.res, said, sizeof(said)));
    done(&o);

    /* No availability known at all (no fleet, no probe). */
    struct dc_recommend_opts none = {0};
    struct dc_error err;
    cJSON *j = cJSON_Parse(fleet_only_job);
    struct dc_result *res = NULL;
    dc_error_clear(&err);
    assert_int_equal(dc_recommend(rs, j, &none, &res, &err), DC_OK);
    assert_int_equal(res->status, DC_ANSWER_NO_FIT);
    assert_int_equal(res->n_recommendations, 0);
    assert_non_null(dc_answer_text(res, said, sizeof(said)));
    assert_non_null(strstr(said, "Nothing is known free to run on (constraints.fleet_only)"));
    dc_result_free(res);
    cJSON_Delete(j);
}

/* Before Prometheus has scraped anything the fleet is warming: nothing is
 * free, every answer says so once, and fleet_only says why it has no pick. */
static void test_warming(void **state)
{
    (void)state;
    struct dc_recommend_opts warm = fleet;
    warm.availability_warming = true;
    struct outcome o;
    run(&o, cloud_job, "h100", NULL, &warm);
    assert_true(o.c->availability.warming);
    assert_false(o.c->availability.configuration_free);
    assert_int_equal(count_warnings(o.res, "availability_warming"), 1);
    done(&o);
    run(&o, cloud_job, "h100", NULL, &fleet);
    assert_false(o.c->availability.warming);
    assert_int_equal(count_warnings(o.res, "availability_warming"), 0);
    done(&o);
    run(&o, fleet_only_job, "h100", NULL, &warm);
    assert_int_equal(o.res->status, DC_ANSWER_NO_FIT);
    char said[DC_ANSWER_TEXT_MAX];
    assert_non_null(dc_answer_text(o.res, said, sizeof(said)));
    assert_non_null(strstr(said, "the fleet has not seen a device yet"));
    done(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_fleet_whole_nodes),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_stale),
        cmocka_unit_test(test_prefer_ranks_free),
        cmocka_unit_test(test_fleet_only),
        cmocka_unit_test(test_warming),
    };
    return cmocka_run_group_tests(tests, setup, test_default_rules_teardown);
}
