/* tests/unit/core/test_prices.c -- core/src/sizing/cost.c's offers by machine size:
 * which offer prices a shape (dc__offer_for_shape, through dc__cost), the
 * machine sizes that can be rented (dc__rentable_node_sizes), who rents a
 * shape (dc__providers_renting) and the reason when nobody does; why a part
 * has no price from the providers asked (dc_unpriced_reason) and how a
 * recommendation quotes it; and, over the shipped rules, that no configuration
 * is priced by an offer that does not rent exactly its machine size and that
 * every part is priced by each provider the catalog lists for it or says why
 * not.
 *
 * The offers below, on tests/support/mini_rules.h's gpu-a (machines of 1, 2,
 * 4, 8) and tpu-b (slices of 4, 16, 64):
 *   aws a8: 8 a machine, $32 an hour on demand ($4/chip), $16 spot ($2/chip);
 *   gcp g1: 1, $5 ($5/chip);  gcp g2: 2, $8 ($4/chip);
 *   gcp g4: 4, $18 ($4.50/chip), 1-year commitment $10 ($2.50/chip);
 *   gcp tpu-b: $3 per chip for every slice. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core_run.h"
#include "dc/embedded.h"
#include "dc/engine.h"
#include "mini_rules.h"
#include "reasons.h"
#include "sizing.h"

#define OFFER(prov, type, n, prices)                                                               \
    "  - accelerator: gpu-a\n    provider: " prov "\n    region: r\n    instance_type: " type      \
    "\n    accelerators: " n "\n    source: https://example.com/p\n    confidence: high\n" prices

static const char offers[] = "prices:\n" OFFER(
    "aws", "a8", "8",
    "    on_demand: {usd_per_hour: 32, as_of: \"2026-01\"}\n"
    "    spot: {usd_per_hour: 16, as_of: \"2026-01\"}\n")
    OFFER("gcp", "g1", "1", "    on_demand: {usd_per_hour: 5, as_of: \"2026-01\"}\n")
        OFFER("gcp", "g2", "2", "    on_demand: {usd_per_hour: 8, as_of: \"2026-01\"}\n") OFFER(
            "gcp", "g4", "4",
            "    on_demand: {usd_per_hour: 18, as_of: \"2026-01\"}\n"
            "    committed_1y: {usd_per_hour: 10, as_of: \"2026-01\"}\n") "  - accelerator: "
                                                                          "tpu-b\n    provider: "
                                                                          "gcp\n    region: r\n"
                                                                          "    instance_type: TPU "
                                                                          "b\n    source: "
                                                                          "https://example.com/t\n"
                                                                          "    confidence: high\n"
                                                                          "    on_demand: "
                                                                          "{usd_per_chip_hour: 3, "
                                                                          "as_of: \"2026-01\"}\n"
                                                                          "hardware: []\n";

static dc_ruleset *rs;
static const struct dc_accelerator *gpu, *tpu;

static int setup(void **state)
{
    (void)state;
    if (load4(catalog_ok, sizing_ok, rules_ok, offers, &rs, NULL) != DC_OK)
        return -1;
    gpu = dc_ruleset_find_accelerator(rs, "gpu-a");
    tpu = dc_ruleset_find_accelerator(rs, "tpu-b");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rs);
    return 0;
}

#define AWS (1u << DC_PROVIDER_AWS)
#define GCP (1u << DC_PROVIDER_GCP)

static const char *offer_for(const struct dc_accelerator *a, struct dc_shape s, enum dc_pricing b,
                             unsigned providers, unsigned *instances)
{
    const struct dc_offer *o = dc__offer_for_shape(a, &s, b, providers, instances);
    return o != NULL ? o->instance_type : NULL;
}

static void test_offer_for_shape(void **state)
{
    (void)state;
    unsigned n = 99;
    /* Only an instance of exactly the machine's size rents it: eight 1-GPU
     * instances are not an 8-GPU machine (no NVLink between them). */
    assert_string_equal(offer_for(gpu, (struct dc_shape){1, 8, NULL}, 0, 0, &n), "a8");
    assert_int_equal(n, 1);
    assert_string_equal(offer_for(gpu, (struct dc_shape){3, 8, NULL}, 0, 0, &n), "a8");
    assert_int_equal(n, 3);
    assert_string_equal(offer_for(gpu, (struct dc_shape){1, 4, NULL}, 0, 0, &n), "g4");
    assert_int_equal(n, 1);
    assert_string_equal(offer_for(gpu, (struct dc_shape){2, 2, NULL}, 0, 0, &n), "g2");
    assert_int_equal(n, 2);
    assert_string_equal(offer_for(gpu, (struct dc_shape){1, 1, NULL}, 0, 0, &n), "g1");
    assert_int_equal(n, 1);
    /* Only AWS allowed: nobody rents 4; only GCP: nobody rents 8. */
    assert_null(offer_for(gpu, (struct dc_shape){1, 4, NULL}, 0, AWS, &n));
    assert_int_equal(n, 0);
    assert_null(offer_for(gpu, (struct dc_shape){2, 8, NULL}, 0, GCP, &n));
    /* Other bases: spot only on a8, the commitment only on g4. */
    assert_null(offer_for(gpu, (struct dc_shape){1, 4, NULL}, DC_PRICING_SPOT, 0, &n));
    assert_string_equal(offer_for(gpu, (struct dc_shape){1, 8, NULL}, DC_PRICING_SPOT, 0, &n),
                        "a8");
    assert_string_equal(
        offer_for(gpu, (struct dc_shape){1, 4, NULL}, DC_PRICING_COMMITTED_1Y, 0, &n), "g4");
    assert_int_equal(n, 1);
    assert_null(offer_for(gpu, (struct dc_shape){1, 8, NULL}, DC_PRICING_COMMITTED_1Y, 0, &n));
    assert_null(offer_for(gpu, (struct dc_shape){1, 8, NULL}, DC_PRICING_COMMITTED_3Y, 0, &n));
    /* A TPU slice at the per-chip rate; its instances are the slices. */
    assert_string_equal(offer_for(tpu, (struct dc_shape){2, 16, "tpu-b-16"}, 0, 0, &n), "TPU b");
    assert_int_equal(n, 2);
    assert_null(offer_for(tpu, (struct dc_shape){1, 16, NULL}, 0, 0, &n));
    /* Error paths: no size, no part, no shape, no such basis; instances may be NULL. */
    assert_null(offer_for(gpu, (struct dc_shape){1, 0, NULL}, 0, 0, &n));
    struct dc_shape s = {1, 8, NULL};
    assert_null(dc__offer_for_shape(NULL, &s, 0, 0, &n));
    assert_int_equal(n, 0);
    assert_null(dc__offer_for_shape(gpu, NULL, 0, 0, &n));
    assert_null(dc__offer_for_shape(gpu, &s, DC_PRICING_COUNT, 0, &n));
    assert_non_null(dc__offer_for_shape(gpu, &s, 0, 0, NULL));
}

static void test_rentable_node_sizes(void **state)
{
    (void)state;
    unsigned sizes[8] = {0};
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, 0, sizes, 8), 4);
    assert_int_equal(sizes[0], 1);
    assert_int_equal(sizes[1], 2);
    assert_int_equal(sizes[2], 4);
    assert_int_equal(sizes[3], 8);
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, AWS, sizes, 8), 1);
    assert_int_equal(sizes[0], 8);
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, GCP, sizes, 8), 3);
    assert_int_equal(sizes[2], 4);
    assert_int_equal(dc__rentable_node_sizes(gpu, DC_PRICING_SPOT, 0, sizes, 8), 1);
    assert_int_equal(dc__rentable_node_sizes(gpu, DC_PRICING_COMMITTED_3Y, 0, sizes, 8), 0);
    /* Room for two: the two smallest. */
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, 0, sizes, 2), 2);
    assert_int_equal(sizes[0], 1);
    assert_int_equal(sizes[1], 2);
    /* TPUs are bought as the catalog's slices; error paths give none. */
    assert_int_equal(dc__rentable_node_sizes(tpu, 0, 0, sizes, 8), 0);
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, 0, sizes, 0), 0);
    assert_int_equal(dc__rentable_node_sizes(gpu, 0, 0, NULL, 8), 0);
    assert_int_equal(dc__rentable_node_sizes(NULL, 0, 0, sizes, 8), 0);
    assert_int_equal(dc__rentable_node_sizes(gpu, DC_PRICING_COUNT, 0, sizes, 8), 0);
}

/* gpu-a's training hours at exactly 16 chips, with gpu-a's NVLink domain set
 * to `domain` and the offers `prices`. */
static double hours_at_16(unsigned domain, const char *prices)
{
    static const char from[] = "bandwidth_gbps: 900, domain: 8}";
    char to[64];
    snprintf(to, sizeof(to), "bandwidth_gbps: 900, domain: %u}", domain);
    const char *at = strstr(catalog_ok, from);
    assert_non_null(at);
    char catalog[2 * sizeof(catalog_ok)];
    snprintf(catalog, sizeof(catalog), "%.*s%s%s", (int)(at - catalog_ok), catalog_ok, to,
             at + strlen(from));
    dc_ruleset *r = NULL;
    assert_int_equal(load4(catalog, sizing_ok, rules_ok, prices, &r, NULL), DC_OK);
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                           "\"training\":{\"tokens\":1e10}}");
    assert_non_null(w);
    struct dc_sizing z;
    assert_int_equal(dc_size_at(r, w, "gpu-a", 16, &z, NULL), DC_OK);
    cJSON_Delete(w);
    dc_ruleset_release(r);
    assert_true(isfinite(z.hours) && z.hours > 0);
    return z.hours;
}

/* Rented only as 4-GPU machines, a part whose NVLink joins the GPUs of one
 * machine (domain 8, its largest machine) has a fast domain of 4: 16 chips
 * run slower than on the catalog's 8-GPU machines. A domain wider than the
 * largest machine (16 here; a GB200 NVL72 rack's 72 in the shipped catalog)
 * spans machines and stays whole when they are rented. */
static void test_rented_machines_keep_a_rack_domain(void **state)
{
    (void)state;
    static const char four[] = "prices:\n" OFFER(
        "gcp", "g4", "4",
        "    on_demand: {usd_per_hour: 18, as_of: \"2026-01\"}\n") "hardware: []\n";
    static const char none[] = "prices: []\nhardware: []\n";
    assert_true(hours_at_16(8, four) > hours_at_16(8, none) * 1.01);
    double rack = hours_at_16(16, none);
    assert_true(fabs(hours_at_16(16, four) - rack) < 1e-9 * rack);
    /* The wider domain is faster than one machine's. */
    assert_true(rack < hours_at_16(8, four));
}

static void test_providers_renting(void **state)
{
    (void)state;
    unsigned p = 99;
    struct dc_shape eight = {1, 8, NULL}, four = {1, 4, NULL};
    assert_true(dc__providers_renting(gpu, &eight, 0, &p));
    assert_int_equal(p, AWS);
    assert_true(dc__providers_renting(gpu, &four, 0, &p));
    assert_int_equal(p, GCP);
    assert_false(dc__providers_renting(gpu, &four, DC_PRICING_SPOT, &p));
    assert_int_equal(p, 0);
    assert_true(dc__providers_renting(gpu, &eight, DC_PRICING_SPOT, NULL));
    struct dc_shape slice = {1, 4, "tpu-b-4"};
    assert_true(dc__providers_renting(tpu, &slice, 0, &p));
    assert_int_equal(p, GCP);
    assert_false(dc__providers_renting(NULL, &eight, 0, &p));
    assert_int_equal(p, 0);
    assert_false(dc__providers_renting(gpu, NULL, 0, &p));
    assert_false(dc__providers_renting(gpu, &eight, DC_PRICING_COUNT, &p));
}

static void test_unrented_text(void **state)
{
    (void)state;
    struct dc_workload w;
    memset(&w, 0, sizeof(w));
    w.providers = AWS;
    char buf[256];
    struct dc_shape four = {1, 4, NULL};
    assert_true(dc__unrented_size_text(&w, gpu, &four, buf, sizeof(buf)));
    assert_non_null(strstr(buf, "No allowed offer rents machines of 4"));
    assert_non_null(strstr(buf, "instances of 8 are offered"));
    w.providers = 0;
    struct dc_shape slice = {1, 64, "tpu-b-64"};
    assert_true(dc__unrented_size_text(&w, tpu, &slice, buf, sizeof(buf)));
    assert_non_null(strstr(buf, "as tpu-b-64"));
    /* No offer on the basis at all: the caller words it. */
    w.pricing = DC_PRICING_COMMITTED_3Y;
    strcpy(buf, "untouched");
    assert_false(dc__unrented_size_text(&w, gpu, &four, buf, sizeof(buf)));
    assert_string_equal(buf, "untouched");
}

/* Through a recommendation: the price names the instances it takes, and a
 * size no allowed offer rents has no cost and says so. */
static void test_cost_by_machine_size(void **state)
{
    (void)state;
    struct run r = core_run(rs, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                                "\"constraints\":{\"accelerators\":[\"gpu-a\"]}}");
    const struct dc_candidate *c = &r.res->recommendations[0];
    const struct dc_sizing *z = &c->sizing;
    assert_int_equal(z->cost_basis, DC_COST_CLOUD);
    assert_int_equal(z->shape.per_unit, 1);
    assert_string_equal(z->offer->instance_type, "g1");
    assert_int_equal(z->instances, z->shape.units);
    assert_true(fabs(z->cost_per_hour_usd - z->instances * 5.0) < 1e-9);
    core_done(&r);
    /* AWS rents only 8-GPU machines: the model is served from one of them,
     * priced by a8, as one replica over all eight (the same machine, shorter
     * requests). */
    r = core_run(rs, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                     "\"constraints\":{\"accelerators\":[\"gpu-a\"],\"providers\":[\"aws\"]}}");
    const struct dc_candidate *u = &r.res->recommendations[0];
    assert_int_equal(u->sizing.shape.per_unit, 8);
    assert_int_equal(u->sizing.chips_per_replica, 8);
    assert_string_equal(u->sizing.offer->instance_type, "a8");
    assert_true(fabs(u->sizing.cost_per_hour_usd - u->sizing.instances * 32.0) < 1e-9);
    core_done(&r);
    /* Spot on GCP only: nobody rents it, so no cost, and the reason says why. */
    r = core_run(rs, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                     "\"constraints\":{\"accelerators\":[\"gpu-a\"],\"providers\":[\"gcp\"],"
                     "\"pricing\":\"spot\"}}");
    u = &r.res->recommendations[0];
    assert_int_equal(u->sizing.cost_basis, DC_COST_UNKNOWN);
    assert_null(u->sizing.offer);
    assert_int_equal(u->sizing.instances, 0);
    assert_true(isnan(u->sizing.cost_usd));
    char buf[512];
    bool said = false;
    for (size_t i = 0; i < u->n_reasons; i++)
        if (strcmp(u->reasons[i].rule_id, "sizing.cost") == 0)
            said = strstr(dc_reason_text(r.res, u, &u->reasons[i], buf, sizeof(buf)),
                          "No public spot price") != NULL;
    assert_true(said);
    core_done(&r);
}

/* Over the shipped rules: every cloud price comes from an offer that rents
 * the candidate's machine size, with consistent instances and rates. */
static void test_shipped_prices_rent_their_shape(void **state)
{
    (void)state;
    static const char *const workloads[] = {
        "{\"task\":\"training\",\"model\":{\"parameters\":7e9}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"objective\":\"cost\"}",
        "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e10},"
        "\"constraints\":{\"pricing\":\"spot\"}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":8e9},"
        "\"inference\":{\"requests_per_second\":20}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},"
        "\"constraints\":{\"pricing\":\"committed_1y\"}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":1.3e10},"
        "\"constraints\":{\"providers\":[\"azure\"]}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
        "\"constraints\":{\"providers\":[\"neocloud\"]}}",
    };
    dc_ruleset *shipped = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &shipped, NULL), DC_OK);
    size_t priced = 0;
    for (size_t k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++) {
        struct run r = core_run(shipped, workloads[k]);
        for (size_t i = 0; i < r.res->n_recommendations; i++) {
            const struct dc_sizing *z = &r.res->recommendations[i].sizing;
            if (z->cost_basis != DC_COST_CLOUD)
                continue;
            const struct dc_offer *o = z->offer;
            if (o->accelerators == 0)
                assert_non_null(z->shape.slice);
            else
                assert_int_equal(z->shape.per_unit, o->accelerators);
            unsigned per = o->accelerators > 0 ? o->accelerators : z->shape.per_unit;
            assert_int_equal((unsigned long)z->instances * per, dc__shape_chips(&z->shape));
            enum dc_pricing b = r.res->workload.pricing;
            assert_true(fabs(z->usd_per_chip_hour - o->price[b].usd_per_chip_hour) < 1e-9);
            assert_true(fabs(z->cost_per_hour_usd -
                             z->instances * per * o->price[b].usd_per_chip_hour) < 1e-6);
            priced++;
        }
        core_done(&r);
    }
    assert_true(priced > 20);
    dc_ruleset_release(shipped);
}

/* Over the shipped rules: every part is priced by every provider the catalog
 * lists for it, or prices.yaml says why not, for the part (no offer anywhere)
 * or for that provider; a part the catalog gives no provider says why too. */
static void test_shipped_every_provider_priced_or_says_why(void **state)
{
    (void)state;
    dc_ruleset *shipped = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &shipped, NULL), DC_OK);
    size_t pairs = 0, stated = 0;
    for (size_t i = 0; i < dc_ruleset_accelerator_count(shipped); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(shipped, i);
        if (a->n_offers == 0 && a->unpriced_reason == NULL)
            fail_msg("%s has no offer and prices.yaml does not say why", a->id);
        for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++) {
            if (!(a->providers & (1u << p)))
                continue;
            pairs++;
            if (dc_offers_from(a, (enum dc_provider)p) > 0)
                continue;
            const char *why = dc_unpriced_reason(a, 1u << p);
            if (why == NULL)
                fail_msg("%s has no offer on %s and prices.yaml does not say why", a->id,
                         dc_provider_name((enum dc_provider)p));
            stated++;
        }
    }
    /* The catalog lists dozens of pairs, and some are stated unpriced. */
    assert_true(pairs > 40);
    assert_true(stated > 0);
    dc_ruleset_release(shipped);
}

/* `why` says when it was checked: "(checked YYYY-MM-DD" somewhere in it. */
static bool dated(const char *why)
{
    for (const char *p = why; p != NULL && (p = strstr(p, "(checked ")) != NULL; p++) {
        const char *d = p + strlen("(checked ");
        int y, m, day, n = 0;
        if (sscanf(d, "%4d-%2d-%2d%n", &y, &m, &day, &n) == 3 && n == 10 && y >= 2024 && m >= 1 &&
            m <= 12 && day >= 1 && day <= 31)
            return true;
    }
    return false;
}

/* Over the shipped rules (issue 31): every part is priced by some provider on
 * demand or reserved, or prices.yaml says why not with the date it checked;
 * every offer names the copy it was read from (`via`) and dates every price;
 * every reason, for a part or one provider of it, is dated. */
static void test_shipped_coverage_dated(void **state)
{
    (void)state;
    assert_false(dated("no date (checked soon)"));
    assert_false(dated("(checked 2026-13-01)"));
    assert_true(dated("x (checked 2026-11-29)."));
    dc_ruleset *shipped = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &shipped, NULL), DC_OK);
    size_t priced = 0, reserved = 0;
    for (size_t i = 0; i < dc_ruleset_accelerator_count(shipped); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(shipped, i);
        bool buyable = false;
        for (size_t k = 0; k < a->n_offers; k++) {
            const struct dc_offer *o = &a->offers[k];
            if (o->via == NULL || o->via[0] == '\0')
                fail_msg("%s %s %s: no via", a->id, dc_provider_name(o->provider),
                         o->instance_type);
            for (unsigned b = 0; b < DC_PRICING_COUNT; b++)
                if (isfinite(o->price[b].usd_per_chip_hour) && o->price[b].as_of == NULL)
                    fail_msg("%s %s: a %s price without as_of", a->id, o->instance_type,
                             dc_pricing_name((enum dc_pricing)b));
            bool res = isfinite(o->reserved.price.usd_per_chip_hour);
            if (res && o->reserved.price.as_of == NULL)
                fail_msg("%s %s: a reservation without as_of", a->id, o->instance_type);
            reserved += res;
            if (res || isfinite(o->price[DC_PRICING_ON_DEMAND].usd_per_chip_hour))
                buyable = true;
        }
        priced += buyable;
        if (!buyable && !dated(a->unpriced_reason))
            fail_msg("%s: no on-demand or reserved price and no dated reason", a->id);
        if (a->unpriced_reason != NULL && !dated(a->unpriced_reason))
            fail_msg("%s: its reason gives no date checked", a->id);
        for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++)
            if (a->unpriced_provider_reason[p] != NULL && !dated(a->unpriced_provider_reason[p]))
                fail_msg("%s on %s: the reason gives no date checked", a->id,
                         dc_provider_name((enum dc_provider)p));
    }
    /* Most parts are priced, and AWS's Capacity Blocks are reserved offers. */
    assert_true(priced >= 15);
    assert_true(reserved >= 7);
    dc_ruleset_release(shipped);
}

/* Over the shipped rules (issue 31, item 3): every provider and basis the
 * file prices has a `capacity:` entry that covers each part it prices there
 * (dc_capacity_limit: the part's own entry or the provider's), so no priced
 * answer reads as having no known limit; each entry names its page and date,
 * and one that is not a published limit says it is an assumption and why. */
static void test_shipped_capacity_covers_every_priced_basis(void **state)
{
    (void)state;
    dc_ruleset *shipped = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &shipped, NULL), DC_OK);
    size_t checked = 0;
    for (size_t i = 0; i < dc_ruleset_accelerator_count(shipped); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(shipped, i);
        for (size_t k = 0; k < a->n_offers; k++) {
            const struct dc_offer *o = &a->offers[k];
            for (unsigned b = 0; b < DC_BASIS_COUNT; b++) {
                double v = b == DC_BASIS_RESERVED ? o->reserved.price.usd_per_chip_hour
                                                  : o->price[b].usd_per_chip_hour;
                if (!isfinite(v))
                    continue;
                checked++;
                if (dc_capacity_limit(shipped, o->provider, (enum dc_basis)b, a) == NULL)
                    fail_msg("%s %s %s: priced %s, and capacity: has no limit for it", a->id,
                             dc_provider_name(o->provider), o->instance_type,
                             dc_basis_name((enum dc_basis)b));
            }
        }
    }
    assert_true(checked > 100);
    for (size_t i = 0; i < dc_ruleset_capacity_count(shipped); i++) {
        const struct dc_capacity *c = dc_ruleset_capacity(shipped, i);
        assert_non_null(c->source);
        assert_true(strncmp(c->source, "https://", 8) == 0);
        assert_non_null(c->as_of);
        if (c->assumption && (c->note == NULL || strstr(c->note, "assumed") == NULL))
            fail_msg("capacity %s %s: an assumption whose note does not say so",
                     dc_provider_name(c->provider), dc_basis_name(c->basis));
    }
    dc_ruleset_release(shipped);
}

/* Prices for gpu-a on AWS only, and why not on GCP; tpu-b unpriced
 * everywhere. */
static const char stated_prices[] = "prices:\n" OFFER(
    "aws", "a8", "8",
    "    on_demand: {usd_per_hour: 32, as_of: \"2026-01\"}\n") "unpriced:\n"
                                                               "  - {accelerator: gpu-a, provider: "
                                                               "gcp, reason: GCP rents no A here., "
                                                               "checked: "
                                                               "[https://example.com/c]}\n"
                                                               "  - {accelerator: tpu-b, reason: "
                                                               "Nobody rents B., checked: "
                                                               "[https://example.com/c]}\n"
                                                               "hardware: []\n";

/* The text of `c`'s cost reason (sizing.cost). */
static const char *cost_text(const struct run *r, const struct dc_candidate *c, char *buf,
                             size_t len)
{
    for (size_t i = 0; i < c->n_reasons; i++)
        if (strcmp(c->reasons[i].rule_id, "sizing.cost") == 0)
            return dc_reason_text(r->res, c, &c->reasons[i], buf, len);
    fail_msg("%s has no sizing.cost reason", c->acc->id);
    return NULL;
}

/* Why a part has no price from the providers asked: the part's reason, or the
 * one provider's; a recommendation limited to that provider quotes it whole,
 * and one that could be priced elsewhere does not. */
static void test_unpriced_reasons(void **state)
{
    (void)state;
    dc_ruleset *st = NULL;
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, stated_prices, &st, NULL), DC_OK);
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(st, "gpu-a");
    const struct dc_accelerator *b = dc_ruleset_find_accelerator(st, "tpu-b");
    assert_string_equal(dc_unpriced_reason(a, GCP), "GCP rents no A here.");
    assert_null(dc_unpriced_reason(a, AWS));
    assert_null(dc_unpriced_reason(a, AWS | GCP));
    assert_null(dc_unpriced_reason(a, 0));
    /* Azure is no provider of gpu-a: GCP is the one left. */
    assert_string_equal(dc_unpriced_reason(a, GCP | (1u << DC_PROVIDER_AZURE)),
                        "GCP rents no A here.");
    assert_string_equal(dc_unpriced_reason(b, 0), "Nobody rents B.");
    assert_string_equal(dc_unpriced_reason(b, AWS), "Nobody rents B.");
    assert_null(dc_unpriced_reason(NULL, 0));
    assert_int_equal(dc_offers_from(a, DC_PROVIDER_AWS), 1);
    assert_int_equal(dc_offers_from(a, DC_PROVIDER_GCP), 0);
    assert_int_equal(dc_offers_from(NULL, DC_PROVIDER_GCP), 0);

    char buf[DC_REASON_TEXT_MAX];
    struct run r = core_run(st, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                                "\"constraints\":{\"accelerators\":[\"gpu-a\"],"
                                "\"providers\":[\"gcp\"]}}");
    const struct dc_candidate *c = &r.res->recommendations[0];
    assert_int_equal(c->sizing.cost_basis, DC_COST_UNKNOWN);
    const char *text = cost_text(&r, c, buf, sizeof(buf));
    assert_non_null(strstr(text, "No public on-demand price for Test GPU A from gcp"));
    assert_non_null(strstr(text, "Why none is public: GCP rents no A here."));
    core_done(&r);
    /* Unpriced on a basis while both providers are asked: nothing stated. */
    r = core_run(st, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                     "\"constraints\":{\"accelerators\":[\"gpu-a\"],"
                     "\"pricing\":\"spot\"}}");
    text = cost_text(&r, &r.res->recommendations[0], buf, sizeof(buf));
    assert_non_null(strstr(text, "No public spot price for Test GPU A from any provider"));
    assert_null(strstr(text, "Why none is public"));
    core_done(&r);
    r = core_run(st, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                     "\"constraints\":{\"accelerators\":[\"tpu-b\"]}}");
    text = cost_text(&r, &r.res->recommendations[0], buf, sizeof(buf));
    assert_non_null(strstr(text, "Why none is public: Nobody rents B."));
    core_done(&r);
    dc_ruleset_release(st);
}

/* A reason of the longest length allowed is quoted whole, after the longest
 * words a cost reason has (a breakeven, every provider named). */
static void test_longest_reason_quoted_whole(void **state)
{
    (void)state;
    char reason[DC_RULESET_MAX_UNPRICED_REASON + 1], prices[sizeof(reason) + 800];
    for (size_t i = 0; i + 1 < sizeof(reason); i++)
        reason[i] = "abcdefghij"[i % 10];
    reason[sizeof(reason) - 1] = '\0';
    const char *tail = strstr(stated_prices, "unpriced:\n");
    snprintf(prices, sizeof(prices),
             "%.*sunpriced:\n  - {accelerator: tpu-b, reason: %s, checked: "
             "[https://example.com/c]}\nhardware: []\n",
             (int)(tail - stated_prices), stated_prices, reason);
    dc_ruleset *st = NULL;
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, prices, &st, NULL), DC_OK);
    struct run r = core_run(st, "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},"
                                "\"constraints\":{\"providers\":[\"aws\",\"gcp\","
                                "\"azure\",\"oci\",\"neocloud\"]}}");
    char buf[DC_REASON_TEXT_MAX];
    size_t seen = 0;
    for (size_t i = 0; i < r.res->n_recommendations; i++) {
        const struct dc_candidate *c = &r.res->recommendations[i];
        if (c->acc != dc_ruleset_find_accelerator(st, "tpu-b"))
            continue;
        const char *text = cost_text(&r, c, buf, sizeof(buf));
        assert_true(strlen(text) + 1 < sizeof(buf));
        assert_non_null(strstr(text, "from aws or gcp or azure or oci or neocloud"));
        assert_non_null(strstr(text, "it ranks after every priced part that fits"));
        assert_non_null(strstr(text, reason));
        seen++;
    }
    assert_int_equal(seen, 1);
    core_done(&r);
    dc_ruleset_release(st);
}

/* A price's age from its as_of date: the catalog's two shapes read
 * directly, every other text as sscanf("%4d-%2d-%2d") reads it. */
static void test_price_age_days(void **state)
{
    (void)state;
    const time_t now = 1767225600; /* 2026-01-01T00:00:00Z */
    assert_true(fabs(dc__price_age_days("2026-01-01", now)) < 1e-9);
    assert_true(fabs(dc__price_age_days("2026-01", now)) < 1e-9);
    assert_true(fabs(dc__price_age_days("2025-12-31", now) - 1) < 1e-9);
    assert_true(fabs(dc__price_age_days("2025-12", now) - 31) < 1e-9);
    assert_true(fabs(dc__price_age_days("2024-02-29", now) - 672) < 1e-9);
    /* "%2d" stops after two digits; a text after them is not read. */
    assert_true(fabs(dc__price_age_days("2025-12-31T10:00", now) - 1) < 1e-9);
    assert_true(fabs(dc__price_age_days("2025-121", now) - 31) < 1e-9);
    /* Other shapes as sscanf reads them. */
    assert_true(fabs(dc__price_age_days("2025-12-3", now) - 29) < 1e-9);
    assert_true(fabs(dc__price_age_days(" 2025-12", now) - 31) < 1e-9);
    assert_true(fabs(dc__price_age_days("2025-12-", now) - 31) < 1e-9);
    assert_true(isnan(dc__price_age_days("2025-13", now)));
    assert_true(isnan(dc__price_age_days("2025-00-10", now)));
    assert_true(isnan(dc__price_age_days("2025-12-32", now)));
    assert_true(isnan(dc__price_age_days("20251-12", now)));
    assert_true(isnan(dc__price_age_days("2025", now)));
    assert_true(isnan(dc__price_age_days("", now)));
    assert_true(isnan(dc__price_age_days(NULL, now)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offer_for_shape),
        cmocka_unit_test(test_rentable_node_sizes),
        cmocka_unit_test(test_rented_machines_keep_a_rack_domain),
        cmocka_unit_test(test_providers_renting),
        cmocka_unit_test(test_unrented_text),
        cmocka_unit_test(test_cost_by_machine_size),
        cmocka_unit_test(test_shipped_prices_rent_their_shape),
        cmocka_unit_test(test_shipped_every_provider_priced_or_says_why),
        cmocka_unit_test(test_shipped_coverage_dated),
        cmocka_unit_test(test_shipped_capacity_covers_every_priced_basis),
        cmocka_unit_test(test_unpriced_reasons),
        cmocka_unit_test(test_longest_reason_quoted_whole),
        cmocka_unit_test(test_price_age_days),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
