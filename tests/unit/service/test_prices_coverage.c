/* tests/unit/service/test_prices_coverage.c -- service/src/prices_coverage.c:
 * the table `accel-advisor prices` prints. Over tests/support/mini_rules.h's
 * catalog (gpu-a rented by AWS and GCP, tpu-b by GCP): a provider with offers
 * shows a cell per basis with the age of its oldest price; one without says
 * why, as prices.yaml states it for that provider, or that it states nothing;
 * a part with no offer anywhere takes one line with the part's own reason; the
 * reserved basis has its column, and a cell whose oldest price is past
 * sizing.yaml's price_stale_after_days (540 in the mini rules) is marked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "mini_rules.h"
#include "prices_coverage.h"

#define AWS_A8                                                                                     \
    "prices:\n  - accelerator: gpu-a\n    provider: aws\n    region: r\n"                          \
    "    instance_type: a8\n    accelerators: 8\n    source: https://example.com/p\n"              \
    "    confidence: high\n    on_demand: {usd_per_hour: 32, as_of: \"2026-01\"}\n"                \
    "    spot: {usd_per_hour: 16, as_of: \"2026-01-11\"}\n"

/* The table for `prices` (with the mini catalog) at 2026-01-31, 00:00 UTC. */
static char *table(const char *prices)
{
    dc_ruleset *rs = NULL;
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, prices, &rs, NULL), DC_OK);
    struct tm tm = {.tm_year = 126, .tm_mon = 0, .tm_mday = 31};
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    svc_prices_coverage(fp, rs, timegm(&tm));
    fclose(fp);
    dc_ruleset_release(rs);
    return buf;
}

/* `text` has a line starting with `line`. */
static void has_line(const char *text, const char *line)
{
    assert_non_null(text);
    for (const char *p = text; *p != '\0'; p++) {
        if (strncmp(p, line, strlen(line)) == 0)
            return;
        p = strchr(p, '\n');
        if (p == NULL)
            break;
    }
    fail_msg("no line \"%s\" in:\n%s", line, text);
}

static void test_stated_reasons(void **state)
{
    (void)state;
    char *t = table(AWS_A8 "unpriced:\n"
                           "  - {accelerator: gpu-a, provider: gcp, reason: GCP rents no A here., "
                           "checked: [https://example.com/c]}\n"
                           "  - {accelerator: tpu-b, reason: Nobody rents B., checked: "
                           "[https://example.com/c]}\n"
                           "hardware: []\n");
    has_line(t, "PART         PROVIDER  on_demand     spot          committed_1y  committed_3y  "
                "reserved");
    /* 30 days since 2026-01 (its first day), 20 since 2026-01-11. */
    has_line(t, "gpu-a        aws       1 (30d)       1 (20d)       -             -             -");
    has_line(t, "gpu-a        gcp       unpriced: GCP rents no A here.\n");
    has_line(t, "tpu-b        -         unpriced: Nobody rents B.\n");
    assert_null(strstr(t, "tpu-b        gcp"));
    has_line(t, "price_stale; \"unpriced\": no offer there, and why, as prices.yaml states it.");
    free(t);
}

/* Nothing stated: the table says so, per provider, instead of a row of "-". */
static void test_nothing_stated(void **state)
{
    (void)state;
    char *t = table(AWS_A8 "hardware: []\n");
    has_line(t, "gpu-a        aws       1 (30d)");
    has_line(t, "gpu-a        gcp       unpriced: no offer, and prices.yaml says nothing why\n");
    has_line(t, "tpu-b        gcp       unpriced: no offer, and prices.yaml says nothing why\n");
    free(t);
}

/* A reservation has its column; a price older than the stale limit is
 * marked, on every basis, and the footnote says the limit. */
static void test_reserved_and_stale(void **state)
{
    (void)state;
    char *t = table("prices:\n  - accelerator: gpu-a\n    provider: aws\n    region: r\n"
                    "    instance_type: a8\n    accelerators: 8\n"
                    "    source: https://example.com/p\n    confidence: high\n"
                    "    on_demand: {usd_per_hour: 32, as_of: \"2024-07-01\"}\n"
                    "    reserved: {usd_per_hour: 20, as_of: \"2026-01-21\", min_hours: 24,"
                    " max_hours: 4368}\n"
                    "  - accelerator: gpu-a\n    provider: aws\n    region: r\n"
                    "    instance_type: a8 block\n    accelerators: 8\n"
                    "    source: https://example.com/p\n    confidence: high\n"
                    "    reserved: {usd_per_hour: 18, as_of: \"2024-08\", min_hours: 24,"
                    " max_hours: 4368}\n"
                    "hardware: []\n");
    /* 2024-07-01 is 579 days before 2026-01-31, over the 540 of the mini rules;
     * the older of the two reservations (2024-08, 548 days) likewise. */
    has_line(t, "gpu-a        aws       1 (579d)*     -             -             -             "
                "2 (548d)*");
    has_line(t, "*: older than price_stale_after_days (540), and an answer resting on it warns");
    free(t);
    t = table(AWS_A8 "    reserved: {usd_per_hour: 20, as_of: \"2026-01-21\", min_hours: 24,"
                     " max_hours: 4368}\nhardware: []\n");
    has_line(t, "gpu-a        aws       1 (30d)       1 (20d)       -             -             "
                "1 (10d)");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stated_reasons),
        cmocka_unit_test(test_nothing_stated),
        cmocka_unit_test(test_reserved_and_stale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
