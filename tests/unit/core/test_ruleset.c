/* tests/unit/core/test_ruleset.c -- core/src/rules/ruleset.c: loading, every check the
 * loader makes (down to file and line), the digest, and the default rule set. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dc/embedded.h"
#include "dc/ruleset.h"

#include "mini_rules.h"

/* Load the three files and expect a diagnostic starting with `expected`
 * ("file:line: id: message" prefix) among those reported. */
static void expect_diag(const char *catalog, const char *sizing, const char *rules,
                        const char *expected)
{
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = load3(catalog, sizing, rules, &rs, &d);
    if (rc != DC_EVALIDATE)
        fail_msg("expected \"%s\", but the set loaded (%s)", expected, dc_status_name(rc));
    assert_null(rs);
    char line[768];
    bool found = false;
    for (size_t i = 0; i < d.count; i++) {
        dc_diag_format(&d.items[i], line, sizeof(line));
        if (strncmp(line, expected, strlen(expected)) == 0)
            found = true;
    }
    if (!found) {
        for (size_t i = 0; i < d.count; i++) {
            dc_diag_format(&d.items[i], line, sizeof(line));
            print_message("got: %s\n", line);
        }
        fail_msg("expected diagnostic \"%s\"", expected);
    }
    dc_diags_cleanup(&d);
}

static void expect_rules_diag(const char *rules, const char *expected)
{
    expect_diag(catalog_ok, sizing_ok, rules, expected);
}

/* `base` with the first `from` replaced by `to` (owned by the caller). */
static char *with(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    assert_non_null(at);
    size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    return out;
}

static void expect_catalog_edit(const char *from, const char *to, const char *expected)
{
    char *cat = with(catalog_ok, from, to);
    expect_diag(cat, sizing_ok, rules_ok, expected);
    free(cat);
}

static void expect_sizing_edit(const char *from, const char *to, const char *expected)
{
    char *sz = with(sizing_ok, from, to);
    expect_diag(catalog_ok, sz, rules_ok, expected);
    free(sz);
}

/* Purchasable shapes, the cluster, measured MFU factors: every check. */
static void test_shape_errors(void **state)
{
    (void)state;
    const char *shapes = "shapes: {node_sizes: [1, 2, 4, 8], source: https://example.com/shapes}";
    expect_catalog_edit(
        shapes, "shapes: {source: https://example.com/shapes}",
        "catalog.yaml:13: gpu-a: shapes needs one of node_sizes, slices or machines");
    expect_catalog_edit(
        shapes, "shapes: {node_sizes: [1], slices: {a-1: 1}, source: https://e.com/s}",
        "catalog.yaml:13: gpu-a: shapes needs one of node_sizes, slices or machines");
    expect_catalog_edit(shapes, "shapes: {node_sizes: [4, 2], source: https://example.com/s}",
                        "catalog.yaml:13: gpu-a: shapes must be listed in ascending chips");
    expect_catalog_edit(shapes, "shapes: {node_sizes: [1.5], source: https://example.com/s}",
                        "catalog.yaml:13: gpu-a: chip counts must be integers");
    expect_catalog_edit(shapes, "shapes: {node_sizes: [], source: https://example.com/s}",
                        "catalog.yaml:13: gpu-a: shapes must list 1 to 8 sizes");
    expect_catalog_edit(shapes,
                        "shapes: {node_sizes: [1,2,3,4,5,6,7,8,9], source: https://e.com/s}",
                        "catalog.yaml:13: gpu-a: shapes must list 1 to 8 sizes");
    expect_catalog_edit(shapes, "shapes: {node_sizes: [1], source: ftp://x}",
                        "catalog.yaml:13: gpu-a: \"source\" must be a public http(s) URL");
    expect_catalog_edit("tpu-b-4: 4", "Bad_Name: 4",
                        "catalog.yaml:25: tpu-b: shape name \"Bad_Name\" must be");
    expect_catalog_edit("tpu-b-16: 16", "tpu-b-16: 2",
                        "catalog.yaml:25: tpu-b: shapes must be listed in ascending chips");
    /* A TPU's fast domain is its largest slice; the cluster holds the largest shape. */
    expect_catalog_edit(
        "    precisions: [bf16, int8]\n",
        "    precisions: [bf16, int8]\n    interconnect: {name: ICI, domain: 8}\n",
        "catalog.yaml:25: tpu-b: the fast domain of named shapes is the largest one (64");
    expect_catalog_edit(
        "{network: InfiniBand, max_chips: 256,", "{network: InfiniBand, max_chips: 4,",
        "catalog.yaml:14: gpu-a: scale_out max_chips (4) is below the largest shape");
    expect_catalog_edit("{network: InfiniBand, max_chips: 256,",
                        "{network: InfiniBand, max_chips: 2.5,",
                        "catalog.yaml:14: gpu-a: max_chips must be an integer");
    expect_catalog_edit(
        "    scale_out: {network: DCN, max_chips: 256, source: https://example.com/dcn}\n", "",
        "catalog.yaml:17: tpu-b: missing required field \"scale_out\"");
    expect_catalog_edit("{network: InfiniBand,", "{net: InfiniBand,",
                        "catalog.yaml:14: gpu-a: unknown key \"net\" in scale_out");
    expect_catalog_edit("    providers: [aws, gcp]\n",
                        "    mfu_factor: {value: 3, source: https://example.com/m}\n"
                        "    providers: [aws, gcp]\n",
                        "catalog.yaml:15: gpu-a: \"value\" must be between 0.05 and 2");
    expect_catalog_edit("    providers: [aws, gcp]\n",
                        "    mfu_factor: {value: 0.5}\n    providers: [aws, gcp]\n",
                        "catalog.yaml:15: gpu-a: missing required field \"source\"");
    expect_catalog_edit("domain: 8}", "domain: 1.5}",
                        "catalog.yaml:12: gpu-a: interconnect domain must be an integer");
}

/* One offer, so that an edit's line is where the test says it is, whatever
 * offers tests/support/mini_rules.h adds. */
static const char one_offer[] = "prices:\n"
                                "  - accelerator: gpu-a\n"
                                "    provider: aws\n"
                                "    region: us-east-1\n"
                                "    instance_type: test machine\n"
                                "    accelerators: 1\n"
                                "    source: https://example.com/p\n"
                                "    confidence: high\n"
                                "    on_demand: {usd_per_hour: 4.9, as_of: \"2024-12\"}\n"
                                "    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}\n"
                                "hardware: []\n";

static void expect_prices_edit(const char *from, const char *to, const char *expected)
{
    char *pr = with(one_offer, from, to);
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = load4(catalog_ok, sizing_ok, rules_ok, pr, &rs, &d);
    if (rc != DC_EVALIDATE)
        fail_msg("expected \"%s\", but the set loaded (%s)", expected, dc_status_name(rc));
    char line[768];
    bool found = false;
    for (size_t i = 0; i < d.count; i++) {
        dc_diag_format(&d.items[i], line, sizeof(line));
        found = found || strncmp(line, expected, strlen(expected)) == 0;
        if (!found)
            print_message("got: %s\n", line);
    }
    if (!found)
        fail_msg("expected diagnostic \"%s\"", expected);
    dc_diags_cleanup(&d);
    free(pr);
}

/* prices.yaml: every field of an offer checked, with file:line and the
 * accelerator (the TPU, unpriced entries and limits follow). */
static void test_price_errors(void **state)
{
    (void)state;
    expect_prices_edit("accelerator: gpu-a", "accelerator: gpu-z",
                       "prices.yaml:2: gpu-z: unknown accelerator \"gpu-z\" (not in the catalog)");
    expect_prices_edit("provider: aws", "provider: ibm",
                       "prices.yaml:2: gpu-a: unknown provider \"ibm\"");
    expect_prices_edit("provider: aws", "provider: azure",
                       "prices.yaml:2: gpu-a: the catalog does not list azure among the "
                       "providers of gpu-a");
    expect_prices_edit("confidence: high", "confidence: meh",
                       "prices.yaml:2: gpu-a: \"confidence\" must be high or low");
    expect_prices_edit("as_of: \"2024-12\"", "as_of: 2024",
                       "prices.yaml:9: gpu-a: \"as_of\" must be a date written YYYY-MM");
    expect_prices_edit("as_of: \"2024-12\"", "as_of: \"2024-13\"",
                       "prices.yaml:9: gpu-a: \"as_of\" must be a date written YYYY-MM");
    expect_prices_edit("as_of: \"2024-12-01\"", "as_of: \"2024-12-32\"",
                       "prices.yaml:10: gpu-a: \"as_of\" must be a date written YYYY-MM");
    /* A price is dated by its data, which cannot come from the future. */
    expect_prices_edit("as_of: \"2024-12\"", "as_of: \"2999-01\"",
                       "prices.yaml:9: gpu-a: \"as_of\" 2999-01 is in the future");
    expect_prices_edit("usd_per_hour: 4.9", "usd_per_hour: -1",
                       "prices.yaml:9: gpu-a: \"usd_per_hour\" must be between");
    /* Non-finite prices never reach the loader: the YAML reader refuses them. */
    expect_prices_edit("usd_per_hour: 4.9", "usd_per_hour: .nan",
                       "prices.yaml:9: non-finite numbers are not supported");
    expect_prices_edit("usd_per_hour: 4.9", "usd_per_hour: .inf",
                       "prices.yaml:9: non-finite numbers are not supported");
    /* An instance type is priced per instance, a TPU per chip. */
    expect_prices_edit("usd_per_hour: 4.9", "usd_per_chip_hour: 4.9",
                       "prices.yaml:9: gpu-a: unknown key \"usd_per_chip_hour\" in a price");
    expect_prices_edit("source: https://example.com/p", "source: see the web",
                       "prices.yaml:7: gpu-a: \"source\" must be a public http(s) URL");
    expect_prices_edit("    source: https://example.com/p\n", "",
                       "prices.yaml:2: gpu-a: missing required field \"source\"");
    expect_prices_edit("    instance_type: test machine\n", "",
                       "prices.yaml:2: gpu-a: missing required field \"instance_type\"");
    /* Sizes that are none of the catalog's machines (1, 2, 4, 8): an offer
     * rents only its own size, so a 16-GPU instance is not two machines of 8. */
    expect_prices_edit("accelerators: 1", "accelerators: 3",
                       "prices.yaml:6: gpu-a: no shape of gpu-a is a machine of 3");
    expect_prices_edit("accelerators: 1", "accelerators: 16",
                       "prices.yaml:6: gpu-a: no shape of gpu-a is a machine of 16");
    expect_prices_edit("accelerators: 1", "accelerators: 1.5",
                       "prices.yaml:6: gpu-a: \"accelerators\" must be an integer");
    expect_prices_edit("accelerators: 1", "accelerators: 0",
                       "prices.yaml:6: gpu-a: \"accelerators\" must be between 1 and");
    expect_prices_edit("    accelerators: 1\n", "",
                       "prices.yaml:2: gpu-a: an offer of gpu-a needs \"accelerators\" per "
                       "instance");
    expect_prices_edit("    on_demand: {usd_per_hour: 4.9, as_of: \"2024-12\"}\n"
                       "    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}\n",
                       "", "prices.yaml:2: gpu-a: an offer needs a price on at least one of");
    /* reserved: a booking of min_hours to max_hours, priced like the others. */
    expect_prices_edit("    spot:", "    reserved:",
                       "prices.yaml:10: gpu-a: missing required field \"min_hours\"");
    expect_prices_edit("    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}",
                       "    reserved: {usd_per_hour: 2.0, as_of: \"2024-12-01\", min_hours: 48, "
                       "max_hours: 24}",
                       "prices.yaml:10: gpu-a: a reservation's \"min_hours\" 48 is above its "
                       "\"max_hours\" 24");
    expect_prices_edit("    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}",
                       "    reserved: {usd_per_hour: 2.0, as_of: \"2024-12-01\", min_hours: 0, "
                       "max_hours: 24}",
                       "prices.yaml:10: gpu-a: \"min_hours\" must be between");
    expect_prices_edit("    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}",
                       "    reserved: {usd_per_hour: 2.0, as_of: \"2024-12-01\", min_hours: 1, "
                       "max_hours: 24, lead_time_days: -1}",
                       "prices.yaml:10: gpu-a: \"lead_time_days\" must be between");
    expect_prices_edit("    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}",
                       "    reserved: {usd_per_hour: 2.0, as_of: \"2024-12-01\", min_hours: 1, "
                       "max_hours: 24, lead_days: 3}",
                       "prices.yaml:10: gpu-a: unknown key \"lead_days\" in a reservation");
    expect_prices_edit("    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}",
                       "    reserved: {usd_per_hour: 2.0, as_of: \"2999-12-01\", min_hours: 1, "
                       "max_hours: 24}",
                       "prices.yaml:10: gpu-a: \"as_of\" 2999-12-01 is in the future");
    expect_prices_edit("hardware: []\n",
                       "  - accelerator: gpu-a\n    provider: aws\n    region: us-east-1\n"
                       "    instance_type: test machine\n    accelerators: 1\n"
                       "    source: https://example.com/q\n"
                       "    confidence: low\n    spot: {usd_per_hour: 1, as_of: \"2025-01\"}\n",
                       "prices.yaml:11: gpu-a: a second aws test machine offer in us-east-1");
    expect_prices_edit("hardware: []\n",
                       "  - accelerator: gpu-z\n    provider: aws\n    region: us-east-1\n"
                       "    instance_type: x\n    accelerators: 1\n"
                       "    source: https://example.com/q\n    confidence: low\n"
                       "    spot: {usd_per_hour: 1, as_of: \"2025-01\"}\n",
                       "prices.yaml:11: gpu-z: unknown accelerator \"gpu-z\"");
}

/* prices.yaml: a TPU priced per chip, and unpriced entries (why a part has no
 * price, part-wide or on one provider). */
static void test_price_tpu_and_unpriced(void **state)
{
    (void)state;
    /* A TPU is priced per chip, without an instance size. */
    expect_prices_edit("hardware: []\n",
                       "  - accelerator: tpu-b\n    provider: gcp\n    region: us-central1\n"
                       "    instance_type: TPU b\n    source: https://example.com/q\n"
                       "    confidence: low\n    spot: {usd_per_hour: 1, as_of: \"2025-01\"}\n",
                       "prices.yaml:17: tpu-b: unknown key \"usd_per_hour\" in a price");
    /* An instance of 8 chips divides the 16-chip slice but is no slice of its
     * own: it rents nothing. */
    expect_prices_edit("hardware: []\n",
                       "  - accelerator: tpu-b\n    provider: gcp\n    region: us-central1\n"
                       "    instance_type: TPU b host\n    accelerators: 8\n"
                       "    source: https://example.com/q\n    confidence: low\n"
                       "    spot: {usd_per_hour: 1, as_of: \"2025-01\"}\n",
                       "prices.yaml:15: tpu-b: no shape of tpu-b is a machine of 8");
    /* unpriced: why a part has no price, with the sources checked. */
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, reason: none found, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: listed as unpriced but has 1 offer");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, reason: none found, checked: []}\n"
                       "hardware: []\n",
                       "prices.yaml:12: tpu-b: \"checked\" must name the sources looked at");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, reason: none found, checked: "
                       "[not a url]}\nhardware: []\n",
                       "prices.yaml:12: tpu-b: \"checked\" lists public URLs");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, checked: [https://example.com/c]}\n"
                       "hardware: []\n",
                       "prices.yaml:12: tpu-b: missing required field \"reason\"");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, reason: a, checked: "
                       "[https://example.com/c]}\n  - {accelerator: tpu-b, reason: b, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:13: tpu-b: listed as unpriced twice");
    expect_prices_edit("hardware: []\n", "unpriced: [3]\nhardware: []\n",
                       "prices.yaml:11: each unpriced part must be a mapping");
    /* unpriced on one provider: one the catalog lists for the part, with no
     * offer there, once, and not beside a part-wide entry. */
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: ibm, reason: a, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: unknown provider \"ibm\"");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, provider: aws, reason: a, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: tpu-b: the catalog does not list aws among the providers "
                       "of tpu-b");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: aws, reason: a, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: listed as unpriced on aws but has 1 offer there");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: gcp, reason: a, checked: "
                       "[https://example.com/c]}\n  - {accelerator: gpu-a, provider: gcp, "
                       "reason: b, checked: [https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:13: gpu-a: listed as unpriced on gcp twice");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, reason: a, checked: "
                       "[https://example.com/c]}\n  - {accelerator: tpu-b, provider: gcp, "
                       "reason: b, checked: [https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:13: tpu-b: listed as unpriced everywhere and on gcp");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: tpu-b, provider: gcp, reason: b, checked: "
                       "[https://example.com/c]}\n  - {accelerator: tpu-b, reason: a, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:13: tpu-b: listed as unpriced everywhere and on gcp");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: 3, reason: a, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: \"provider\" must be a non-empty string");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: gcp, checked: "
                       "[https://example.com/c]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: missing required field \"reason\"");
    expect_prices_edit("hardware: []\n",
                       "unpriced:\n  - {accelerator: gpu-a, provider: gcp, reason: a, checked: "
                       "[]}\nhardware: []\n",
                       "prices.yaml:12: gpu-a: \"checked\" must name the sources looked at");
}

/* prices.yaml: the named limits of unpriced entries, hardware list prices, and
 * what the catalog may not hold. */
static void test_price_limits(void **state)
{
    (void)state;
    /* A reason is quoted whole in a recommendation: it has a named limit. */
    char reason[DC_RULESET_MAX_UNPRICED_REASON + 2], entry[sizeof(reason) + 200], want[96];
    memset(reason, 'x', sizeof(reason) - 1);
    reason[sizeof(reason) - 1] = '\0';
    snprintf(entry, sizeof(entry),
             "unpriced:\n  - accelerator: gpu-a\n    provider: gcp\n    reason: %s\n"
             "    checked: [https://example.com/c]\nhardware: []\n",
             reason);
    snprintf(want, sizeof(want),
             "prices.yaml:14: gpu-a: \"reason\" is %d characters, over the limit",
             DC_RULESET_MAX_UNPRICED_REASON + 1);
    expect_prices_edit("hardware: []\n", entry, want);
    /* So has the list: a part once, or each of its providers once. */
    static const char item[] =
        "{accelerator: tpu-b, reason: a, checked: [https://example.com/c]}, ";
    size_t cap = (DC_RULESET_MAX_UNPRICED + 1) * strlen(item) + 64;
    char *list = malloc(cap);
    assert_non_null(list);
    size_t k = (size_t)snprintf(list, cap, "unpriced: [");
    for (int i = 0; i <= DC_RULESET_MAX_UNPRICED; i++)
        k += (size_t)snprintf(list + k, cap - k, "%s", item);
    snprintf(list + k - 2, cap - k + 2, "]\nhardware: []\n");
    snprintf(want, sizeof(want), "prices.yaml:11: more than %d unpriced entries",
             DC_RULESET_MAX_UNPRICED);
    expect_prices_edit("hardware: []\n", list, want);
    free(list);
    expect_prices_edit("prices:\n", "offers:\n",
                       "prices.yaml:2: unknown key \"offers\" in prices.yaml");
    expect_prices_edit(
        "hardware: []\n",
        "hardware:\n  - {accelerator: gpu-a, usd_per_chip: 25000, as_of: \"2025-01\", "
        "source: https://example.com/h}\n  - {accelerator: gpu-a, usd_per_chip: 1, "
        "as_of: \"2025-01\", source: https://example.com/h}\n",
        "prices.yaml:13: gpu-a: a second hardware price");
    expect_prices_edit("hardware: []\n",
                       "hardware:\n  - {accelerator: tpu-z, usd_per_chip: 1, as_of: \"2025-01\", "
                       "source: https://example.com/h}\n",
                       "prices.yaml:12: tpu-z: unknown accelerator \"tpu-z\"");
    expect_prices_edit("hardware: []\n", "hardware: [7]\n",
                       "prices.yaml:11: each hardware price must be a mapping");
    /* null is no boolean, and a missing one is reported at its mapping. */
    expect_catalog_edit("    on_prem: true\n", "    on_prem: null\n",
                        "catalog.yaml:16: gpu-a: \"on_prem\" must be true or false");
    expect_catalog_edit("    on_prem: true\n", "    on_prem: 1\n",
                        "catalog.yaml:16: gpu-a: \"on_prem\" must be true or false");
    /* A price inside the catalog is an error that says where prices go. */
    expect_catalog_edit("    on_prem: true\n",
                        "    on_prem: true\n    price: {usd_per_chip_hour: 1}\n",
                        "catalog.yaml:17: gpu-a: prices live in prices.yaml");

    /* Without prices.yaml the set does not load. */
    struct dc_source_file files[3] = {
        {"rules.yaml", rules_ok, strlen(rules_ok)},
        {"catalog.yaml", catalog_ok, strlen(catalog_ok)},
        {"sizing.yaml", sizing_ok, strlen(sizing_ok)},
    };
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_equal(dc_ruleset_load_files(files, 3, &rs, &d), DC_EVALIDATE);
    assert_null(rs);
    assert_non_null(strstr(d.items[0].msg, "no prices.yaml"));
    dc_diags_cleanup(&d);

    /* A hardware list price loads onto its accelerator. */
    char *pr = with(prices_ok, "hardware: []\n",
                    "hardware:\n  - {accelerator: gpu-a, usd_per_chip: 25000, as_of: \"2025-01\", "
                    "source: https://example.com/h}\n");
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, pr, &rs, NULL), DC_OK);
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, "gpu-a");
    assert_true(a->list_price_usd == 25000);
    assert_string_equal(a->list_price_as_of, "2025-01");
    assert_ptr_equal(dc_cheapest_offer(a, DC_PRICING_SPOT, 0), &a->offers[0]);
    assert_null(dc_cheapest_offer(a, DC_PRICING_COMMITTED_3Y, 0));
    assert_null(dc_cheapest_offer(a, DC_PRICING_ON_DEMAND, 1u << DC_PROVIDER_GCP));
    dc_ruleset_release(rs);
    free(pr);
}

/* Sizing parameters: each a {value, source} pair within its bounds. */
static void test_param_errors(void **state)
{
    (void)state;
    expect_sizing_edit("goodput: {value: 0.8,", "goodput: {value: 2,",
                       "sizing.yaml:16: \"value\" must be between 0.05 and 1, got 2");
    expect_sizing_edit("goodput: {value: 0.8, source: https://arxiv.org/abs/2407.21783}",
                       "goodput: {value: 0.8, source: folklore}",
                       "sizing.yaml:16: \"source\" must be a public http(s) URL or \"convention\"");
    expect_sizing_edit("goodput: {value: 0.8, source: https://arxiv.org/abs/2407.21783}",
                       "goodput: 0.8", "sizing.yaml:16: \"goodput\" must be a mapping");
    expect_sizing_edit("    goodput: {value: 0.8, source: https://arxiv.org/abs/2407.21783}\n", "",
                       "sizing.yaml:4: missing required field \"goodput\"");
    expect_sizing_edit("micro_batch: {value: 1, source: convention}",
                       "micro_batch: {value: 1, source: convention, note: x}",
                       "sizing.yaml:10: unknown key \"note\" in micro_batch");
    expect_sizing_edit("architecture_mfu: {cnn:", "architecture_mfu: {cnx:",
                       "sizing.yaml:17: unknown key \"cnx\" in sizing.training.architecture_mfu");
    expect_sizing_edit("    fp8: {gpu: 1.25,", "    fp9: {gpu: 1.25,",
                       "sizing.yaml:37: unknown key \"fp9\" in sizing.precision_gain");
    expect_sizing_edit("    fp8: {gpu: 1.25,", "    fp8: {gpu: 0.5,",
                       "sizing.yaml:37: \"gpu\" must be between 1 and 16");
    expect_sizing_edit("    gpu: {training: 0.5,", "    gpu: {training: 0.5, speed: 2,",
                       "sizing.yaml:32: unknown key \"speed\" in an mfu family");
    expect_sizing_edit("    gpu: {training: 0.5,", "    npu: {training: 0.5,",
                       "sizing.yaml:32: unknown key \"npu\" in sizing.mfu");
    /* The near miss of a serving latency target (optional, as sizing_ok
     * leaves it out): a share of the fastest step, 0 to a half. */
    static const char fleet[] = "    serving_max_chips: {value: 4096, source: convention}\n";
    expect_sizing_edit(fleet,
                       "    serving_max_chips: {value: 4096, source: convention}\n"
                       "    near_miss_tolerance: {value: 0.7, source: convention}\n",
                       "sizing.yaml:31: \"value\" must be between 0 and 0.5, got 0.7");
    expect_sizing_edit(fleet,
                       "    serving_max_chips: {value: 4096, source: convention}\n"
                       "    near_miss_tolerance: {value: -0.05, source: convention}\n",
                       "sizing.yaml:31: \"value\" must be between 0 and 0.5, got -0.05");
    expect_sizing_edit(fleet,
                       "    serving_max_chips: {value: 4096, source: convention}\n"
                       "    near_miss_tolerance: 0.05\n",
                       "sizing.yaml:31: \"near_miss_tolerance\" must be a mapping");
    expect_sizing_edit(fleet,
                       "    serving_max_chips: {value: 4096, source: convention}\n"
                       "    near_miss_tolerance: {value: 0.05, source: folklore}\n",
                       "sizing.yaml:31: \"source\" must be a public http(s) URL or \"convention\"");
    expect_sizing_edit("int4: 0.5, source: https://blog.eleuther.ai/transformer-math/}",
                       "int4: 0.5, int2: 0.25, source: https://blog.eleuther.ai/transformer-math/}",
                       "sizing.yaml:22: unknown key \"int2\" in bytes_per_parameter");
}

/* The calibration's bands, the fitted factors and rules on the sized
 * configuration: each wrong shape refused at file:line. */
static void test_issue17_errors(void **state)
{
    (void)state;
    static const char on_prem[] = "  on_prem:\n";
    expect_sizing_edit(on_prem,
                       "  uncertainty:\n    trainig: {p10: 0.8, p90: 1.2, rows: 9}\n  on_prem:\n",
                       "sizing.yaml:39: sizing.uncertainty: unknown regime \"trainig\"");
    expect_sizing_edit(on_prem,
                       "  uncertainty:\n    training: {p10: 1.3, p90: 1.2, rows: 9}\n  on_prem:\n",
                       "sizing.yaml:39: sizing.uncertainty.training: p10 1.3 is above p90 1.2");
    expect_sizing_edit(on_prem,
                       "  uncertainty:\n    training: {p10: 0.8, p90: 1.2, rows: 1}\n  on_prem:\n",
                       "sizing.yaml:39: \"rows\" must be between 2 and 1e+06");
    expect_sizing_edit(
        on_prem,
        "  uncertainty:\n    training: {p10: 0.8, p90: 1.2, rows: 9, p50: 1}\n  on_prem:\n",
        "sizing.yaml:39: unknown key \"p50\" in an uncertainty band");
    expect_sizing_edit("    micro_batch:",
                       "    moe_expert_width: {value: 0, source: convention}\n    micro_batch:",
                       "sizing.yaml:10: \"value\" must be between 1 and 1e+06");
    expect_catalog_edit(
        "    source: https://example.com/gpu-a\n",
        "    source: https://example.com/gpu-a\n"
        "    mfu_factor: {value: 0.8, training: 0.7, source: https://example.com/f}\n",
        "catalog.yaml:7: gpu-a: mfu_factor: give \"value\" or \"training\" and "
        "\"inference\", not both");
    expect_catalog_edit("    source: https://example.com/gpu-a\n",
                        "    source: https://example.com/gpu-a\n"
                        "    mfu_factor: {training: 0.7, source: https://example.com/f}\n",
                        "catalog.yaml:7: gpu-a: missing required field \"inference\"");
    /* The serving stack's decode bandwidth share (issue 30) is a factor like the others. */
    expect_catalog_edit("    source: https://example.com/gpu-a\n",
                        "    source: https://example.com/gpu-a\n"
                        "    mfu_factor: {training: 0.7, inference: 0.6, hbm: 0, "
                        "source: https://example.com/f}\n",
                        "catalog.yaml:7: gpu-a: \"hbm\" must be between 0.05 and 2");
    /* A rule on the sized configuration cannot be a gate. */
    expect_rules_diag(
        "rules:\n  - id: sized-gate\n    description: D.\n"
        "    source: https://example.com/s\n"
        "    when: {\">\": [{\"var\": \"sized.chips\"}, 8]}\n"
        "    effect: {rank_below: {families: [tpu], below: gpu}}\n",
        "rules.yaml:2: sized-gate: a rule that reads sized.* facts cannot rank_below");
}

static void test_load_ok(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_equal(load3(catalog_ok, sizing_ok, rules_ok, &rs, &d), DC_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(dc_ruleset_rule_count(rs), 2);
    assert_int_equal(dc_ruleset_accelerator_count(rs), 2);
    assert_int_equal(strlen(dc_ruleset_version(rs)), 64);
    assert_string_equal(dc_ruleset_origin(rs), "embedded");
    const struct dc_rule_info *r = dc_ruleset_rule(rs, 0);
    assert_string_equal(r->id, "no-fp64-tpu");
    assert_string_equal(r->file, "rules.yaml");
    assert_int_equal(r->line, 2);
    assert_true(r->excludes);
    assert_string_equal(r->message, r->description); /* message defaults */
    assert_string_equal(dc_ruleset_rule(rs, 1)->message, "JAX runs natively on TPUs.");
    assert_null(dc_ruleset_rule(rs, 2));
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, "gpu-a");
    assert_non_null(a);
    assert_int_equal(a->family, DC_FAMILY_GPU);
    assert_int_equal(a->pci_vendor, 0x10de);
    assert_int_equal(a->n_pci_devices, 2);
    assert_int_equal(a->n_offers, 4); /* machines of 1, 2, 4 and 8 */
    assert_int_equal(a->offers[0].provider, DC_PROVIDER_AWS);
    assert_int_equal(a->offers[3].accelerators, 8);
    assert_true(a->offers[0].price[DC_PRICING_ON_DEMAND].usd_per_chip_hour == 4.9);
    assert_true(isnan(a->offers[0].price[DC_PRICING_COMMITTED_1Y].usd_per_chip_hour));
    assert_true(isnan(a->list_price_usd));
    assert_true(a->peak_tflops[DC_PREC_BF16] == 989);
    assert_true(isnan(a->peak_tflops[DC_PREC_INT4]));
    assert_true(a->providers & (1u << DC_PROVIDER_GCP));
    assert_int_equal(a->domain, 8);
    assert_ptr_equal(dc_ruleset_find_pci(rs, 0x10de, 0x2331), a);
    assert_null(dc_ruleset_find_pci(rs, 0x10de, 0x9999));
    assert_null(dc_ruleset_find_accelerator(rs, "nope"));
    assert_null(dc_ruleset_find_accelerator(rs, NULL));
    const struct dc_accelerator *b = dc_ruleset_find_accelerator(rs, "tpu-b");
    assert_int_equal(b->n_offers, 0);
    assert_null(dc_ruleset_accelerator(rs, 5));
    assert_true(dc_ruleset_sizing(rs)->mfu_training[DC_FAMILY_TPU] == 0.5);
    /* Reference counting: two releases free it (ASan would catch a leak or
     * a double free). */
    assert_ptr_equal(dc_ruleset_retain(rs), rs);
    dc_ruleset_release(rs);
    dc_ruleset_release(rs);
    dc_ruleset_release(NULL);
    assert_null(dc_ruleset_retain(NULL));
    dc_diags_cleanup(&d);
}

static void test_version_is_canonical(void **state)
{
    (void)state;
    dc_ruleset *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(load3(catalog_ok, sizing_ok, rules_ok, &a, NULL), DC_OK);
    /* Same content, other formatting and comments: same version. */
    char *reformatted = malloc(sizeof(rules_ok) + 64);
    snprintf(reformatted, sizeof(rules_ok) + 64, "# a comment\n%s\n\n", rules_ok);
    assert_int_equal(load3(catalog_ok, sizing_ok, reformatted, &b, NULL), DC_OK);
    assert_string_equal(dc_ruleset_version(a), dc_ruleset_version(b));
    /* Different content: different version. */
    char *changed = strdup(rules_ok);
    char *p = strstr(changed, "tpu: 15");
    p[6] = '6';
    assert_int_equal(load3(catalog_ok, sizing_ok, changed, &c, NULL), DC_OK);
    assert_string_not_equal(dc_ruleset_version(a), dc_ruleset_version(c));
    dc_ruleset_release(a);
    dc_ruleset_release(b);
    dc_ruleset_release(c);
    free(reformatted);
    free(changed);
}

static void test_rule_errors(void **state)
{
    (void)state;
    static const char head[] = "rules:\n  - id: r1\n    description: d\n"
                               "    source: https://example.com/x\n";
    char buf[2048];
#define RULE(tail) (snprintf(buf, sizeof(buf), "%s%s", head, tail), buf)
    expect_rules_diag(RULE("    when: {\"nope\": [1]}\n    effect: {families: {gpu: 1}}\n"),
                      "rules.yaml:5: r1: condition");
    expect_rules_diag(RULE("    effect: {families: {gpu: 1}}\n"),
                      "rules.yaml:2: r1: missing required field \"when\"");
    expect_rules_diag(RULE("    when: true\n"), "rules.yaml:2: r1: missing required field "
                                                "\"effect\"");
    expect_rules_diag(RULE("    when: true\n    effect: {families: {fpga: 1}}\n"),
                      "rules.yaml:6: r1: unknown family \"fpga\"");
    expect_rules_diag(RULE("    when: true\n    effect: {accelerators: {h999: 1}}\n"),
                      "rules.yaml:6: r1: unknown accelerator \"h999\"");
    expect_rules_diag(RULE("    when: true\n    effect: {families: {gpu: 101}}\n"),
                      "rules.yaml:6: r1: impact on \"gpu\" must be an integer");
    expect_rules_diag(RULE("    when: true\n    effect: {families: {gpu: 1.5}}\n"),
                      "rules.yaml:6: r1: impact on \"gpu\" must be an integer");
    expect_rules_diag(RULE("    when: true\n    effect: {}\n"),
                      "rules.yaml:6: r1: effect needs at least one of");
    expect_rules_diag(RULE("    when: true\n    effect: {exclude: {accelerators: [zz]}}\n"),
                      "rules.yaml:6: r1: unknown accelerator \"zz\" in exclude");
    expect_rules_diag(RULE("    when: true\n    effect: {exclude: {}}\n"),
                      "rules.yaml:6: r1: exclude needs families or accelerators");
    expect_rules_diag(RULE("    when: true\n    effect: {families: {gpu: 1}}\n    colour: red\n"),
                      "rules.yaml:7: r1: unknown key \"colour\" in rule");
    expect_rules_diag(RULE("    when: true\n    effect: {families: {gpu: 1}}\n"
                           "  - id: r1\n    description: d\n    source: https://example.com/y\n"
                           "    when: true\n    effect: {families: {gpu: 1}}\n"),
                      "rules.yaml:7: r1: duplicate rule id (first at rules.yaml:2)");
    expect_rules_diag("rules:\n  - id: Bad_Id\n    description: d\n    source: "
                      "https://example.com/x\n    when: true\n    effect: {families: {gpu: 1}}\n",
                      "rules.yaml:2: Bad_Id: id must be");
    expect_rules_diag("rules:\n  - id: r2\n    description: d\n    source: not-a-url\n"
                      "    when: true\n    effect: {families: {gpu: 1}}\n",
                      "rules.yaml:4: r2: \"source\" must be a public http(s) URL");
    expect_rules_diag("rules:\n  - id: r3\n    description: 7\n    source: https://example.com/"
                      "\n    when: true\n    effect: {families: {gpu: 1}}\n",
                      "rules.yaml:3: r3: \"description\" must be a non-empty string");
    expect_rules_diag("rules: {}\n", "rules.yaml:1: \"rules\" must be a list");
    expect_rules_diag("- 1\n", "rules.yaml:1: a rule file must be a mapping");
    expect_rules_diag("rules:\n  - 42\n", "rules.yaml:2: each rule must be a mapping");
    expect_rules_diag("rules: [\n", "rules.yaml:2: YAML syntax error");
#undef RULE
}

static void test_catalog_and_sizing_errors(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    char *cat = strdup(catalog_ok);
    /* Break several things at once: every problem must be reported. */
    char *p = strstr(cat, "family: gpu");
    memcpy(p, "family: npu", 11);
    p = strstr(cat, "memory_gb: 80");
    memcpy(p, "memory_gb: -1", 13);
    assert_int_equal(load3(cat, sizing_ok, "rules: []\n", &rs, &d), DC_EVALIDATE);
    char line[768];
    const char *want[] = {"catalog.yaml:5: gpu-a: family must be gpu, tpu, cpu or asic",
                          "catalog.yaml:8: gpu-a: \"memory_gb\" must be between"};
    for (size_t k = 0; k < 2; k++) {
        bool found = false;
        for (size_t i = 0; i < d.count; i++) {
            dc_diag_format(&d.items[i], line, sizeof(line));
            found = found || strncmp(line, want[k], strlen(want[k])) == 0;
        }
        if (!found)
            fail_msg("missing diagnostic: %s", want[k]);
    }
    dc_diags_cleanup(&d);
    free(cat);

    /* Duplicate ids and PCI ids claimed twice. */
    dc_diags_init(&d);
    /* The catalog followed by a second copy of gpu-a's entry. */
    const char *a_start = strstr(catalog_ok, "  - id: gpu-a");
    const char *a_end = strstr(catalog_ok, "  - id: tpu-b");
    char dup[sizeof(catalog_ok) * 2 + 16];
    snprintf(dup, sizeof(dup), "%s%.*s", catalog_ok, (int)(a_end - a_start), a_start);
    assert_int_equal(load3(dup, sizing_ok, "rules: []\n", &rs, &d), DC_EVALIDATE);
    bool dup_id = false, dup_pci = false;
    for (size_t i = 0; i < d.count; i++) {
        dc_diag_format(&d.items[i], line, sizeof(line));
        dup_id = dup_id || strstr(line, "duplicate accelerator id") != NULL;
        dup_pci = dup_pci || strstr(line, "is also claimed by") != NULL;
    }
    assert_true(dup_id);
    assert_true(dup_pci);
    dc_diags_cleanup(&d);

    /* Sizing: a number out of its range; a missing section is reported. */
    dc_diags_init(&d);
    char *sz = strdup(sizing_ok);
    p = strstr(sz, "soft_band: 0.1");
    memcpy(p, "soft_band: 1.5", 14);
    assert_int_equal(load3(catalog_ok, sz, rules_ok, &rs, &d), DC_EVALIDATE);
    dc_diag_format(&d.items[0], line, sizeof(line));
    assert_non_null(strstr(line, "\"soft_band\" must be between 0 and 1, got 1.5"));
    dc_diags_cleanup(&d);
    free(sz);

    dc_diags_init(&d);
    assert_int_equal(load3(catalog_ok, "sizing: {}\n", rules_ok, &rs, &d), DC_EVALIDATE);
    assert_true(d.count >= 2);
    dc_diags_cleanup(&d);

    /* No catalog at all. */
    dc_diags_init(&d);
    struct dc_source_file only[1] = {{"rules.yaml", rules_ok, strlen(rules_ok)}};
    assert_int_equal(dc_ruleset_load_files(only, 1, &rs, &d), DC_EVALIDATE);
    dc_diag_format(&d.items[0], line, sizeof(line));
    assert_non_null(strstr(line, "no catalog.yaml"));
    dc_diags_cleanup(&d);
}

#define CAP_OK                                                                                     \
    "capacity:\n  - provider: aws\n    basis: on_demand\n    accelerator: gpu-a\n"                 \
    "    max_instances: 4\n    source: https://example.com/quota\n    as_of: \"2024-12\"\n"        \
    "    assumption: true\n    note: a stated assumption\nhardware: []\n"

/* An edit of one_offer with CAP_OK's capacity entry after it (lines 11-19). */
static void expect_capacity_edit(const char *from, const char *to, const char *expected)
{
    char *cap = with(CAP_OK, from, to);
    expect_prices_edit("hardware: []\n", cap, expected);
    free(cap);
}

/* Issue 27's catalog fields: each chip's network between domains and the
 * unit a part is bought in on premises, each with its page. */
static void test_buying_catalog_errors(void **state)
{
    (void)state;
    expect_catalog_edit("source: https://example.com/shapes}",
                        "source: https://example.com/shapes, on_prem_unit: 8.5, on_prem_source: "
                        "https://example.com/hgx}",
                        "catalog.yaml:13: gpu-a: on_prem_unit must be an integer");
    expect_catalog_edit("source: https://example.com/shapes}",
                        "source: https://example.com/shapes, on_prem_unit: 8}",
                        "catalog.yaml:13: gpu-a: missing required field \"on_prem_source\"");
    expect_catalog_edit("source: https://example.com/scale}",
                        "source: https://example.com/scale, gbit_per_chip: 400}",
                        "catalog.yaml:14: gpu-a: missing required field \"gbit_per_chip_source\"");
    expect_catalog_edit("source: https://example.com/scale}",
                        "source: https://example.com/scale, gbit_per_chip: 0, "
                        "gbit_per_chip_source: https://example.com/nic}",
                        "catalog.yaml:14: gpu-a: \"gbit_per_chip\" must be between");
}

/* prices.yaml `capacity:`: every field checked, with file:line. */
static void test_capacity_errors(void **state)
{
    (void)state;
    expect_capacity_edit("provider: aws", "provider: ibm",
                         "prices.yaml:12: unknown provider \"ibm\"");
    expect_capacity_edit("basis: on_demand", "basis: cheap",
                         "prices.yaml:13: unknown basis \"cheap\"");
    expect_capacity_edit("    basis: on_demand\n", "",
                         "prices.yaml:12: missing required field \"basis\"");
    expect_capacity_edit("accelerator: gpu-a", "accelerator: gpu-z",
                         "prices.yaml:14: gpu-z: unknown accelerator \"gpu-z\" (not in the "
                         "catalog)");
    expect_capacity_edit("accelerator: gpu-a\n", "accelerator: tpu-b\n",
                         "prices.yaml:14: tpu-b: the catalog does not list aws among the providers "
                         "of tpu-b");
    expect_capacity_edit("max_instances: 4", "max_instances: 0",
                         "prices.yaml:15: gpu-a: \"max_instances\" must be between 1 and");
    expect_capacity_edit("max_instances: 4", "max_instances: 2.5",
                         "prices.yaml:15: gpu-a: \"max_instances\" must be an integer");
    expect_capacity_edit("max_instances: 4", "max_instances: four",
                         "prices.yaml:15: gpu-a: \"max_instances\" must be a number");
    expect_capacity_edit("source: https://example.com/quota", "source: the console",
                         "prices.yaml:16: gpu-a: \"source\" must be a public http(s) URL");
    expect_capacity_edit("    source: https://example.com/quota\n", "",
                         "prices.yaml:12: gpu-a: missing required field \"source\"");
    expect_capacity_edit("as_of: \"2024-12\"", "as_of: \"2999-12\"",
                         "prices.yaml:17: gpu-a: \"as_of\" 2999-12 is in the future");
    expect_capacity_edit("assumption: true", "assumption: maybe",
                         "prices.yaml:18: gpu-a: \"assumption\" must be");
    expect_capacity_edit(
        "note:", "notes:", "prices.yaml:19: gpu-a: unknown key \"notes\" in a capacity limit");
    expect_capacity_edit("capacity:\n", "capacity:\n  - 7\n",
                         "prices.yaml:12: each capacity limit must be a mapping");
    expect_capacity_edit("hardware: []\n",
                         "  - {provider: aws, basis: on_demand, accelerator: gpu-a, "
                         "max_instances: 8, source: https://example.com/q, as_of: \"2024-12\"}\n"
                         "hardware: []\n",
                         "prices.yaml:20: gpu-a: a second aws on_demand limit for gpu-a");
    expect_prices_edit("hardware: []\n", "capacity: {}\nhardware: []\n",
                       "prices.yaml:11: \"capacity\" must be");
}

/* dc_capacity_limit: the part's own entry before the provider's entry for
 * every part, on the basis asked; none where the file states none. */
static void test_capacity_limit(void **state)
{
    (void)state;
    char *cap = with(CAP_OK, "hardware: []\n",
                     "  - {provider: aws, basis: on_demand, max_instances: 64, "
                     "source: https://example.com/all, as_of: \"2024-12\"}\n"
                     "  - {provider: aws, basis: reserved, max_instances: 512, "
                     "source: https://example.com/blocks, as_of: \"2024-12-01\"}\n"
                     "hardware: []\n");
    char *pr =
        with(one_offer, "    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}\nhardware: []\n",
             "    spot: {usd_per_hour: 2.0, as_of: \"2024-12-01\"}\n"
             "    reserved: {usd_per_hour: 3.5, as_of: \"2024-12-01\", min_hours: 24, "
             "max_hours: 4368, lead_time_days: 2}\n");
    char *all = malloc(strlen(pr) + strlen(cap) + 1);
    assert_non_null(all);
    strcpy(all, pr);
    strcat(all, cap);
    dc_ruleset *rs = NULL;
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, all, &rs, NULL), DC_OK);
    const struct dc_accelerator *gpu = dc_ruleset_find_accelerator(rs, "gpu-a");
    const struct dc_accelerator *tpu = dc_ruleset_find_accelerator(rs, "tpu-b");
    assert_int_equal(dc_ruleset_capacity_count(rs), 3);
    const struct dc_capacity *c = dc_capacity_limit(rs, DC_PROVIDER_AWS, DC_BASIS_ON_DEMAND, gpu);
    assert_non_null(c);
    assert_int_equal(c->max_instances, 4);
    assert_true(c->assumption);
    assert_string_equal(c->note, "a stated assumption");
    assert_ptr_equal(c->accelerator, gpu);
    /* Another part of the provider: the entry for every part. */
    c = dc_capacity_limit(rs, DC_PROVIDER_AWS, DC_BASIS_ON_DEMAND, tpu);
    assert_non_null(c);
    assert_int_equal(c->max_instances, 64);
    assert_null(c->accelerator);
    assert_false(c->assumption);
    c = dc_capacity_limit(rs, DC_PROVIDER_AWS, DC_BASIS_RESERVED, gpu);
    assert_non_null(c);
    assert_int_equal(c->max_instances, 512);
    assert_string_equal(c->source, "https://example.com/blocks");
    /* No entry: no known limit. */
    assert_null(dc_capacity_limit(rs, DC_PROVIDER_AWS, DC_BASIS_SPOT, gpu));
    assert_null(dc_capacity_limit(rs, DC_PROVIDER_GCP, DC_BASIS_ON_DEMAND, gpu));
    assert_null(dc_capacity_limit(NULL, DC_PROVIDER_AWS, DC_BASIS_ON_DEMAND, gpu));
    assert_null(dc_ruleset_capacity(rs, 3));
    /* The offer's reservation, per instance and per chip. */
    assert_int_equal(gpu->n_offers, 1);
    const struct dc_reservation *r = &gpu->offers[0].reserved;
    assert_true(fabs(r->price.usd_per_hour - 3.5) < 1e-9);
    assert_true(fabs(r->price.usd_per_chip_hour - 3.5) < 1e-9);
    assert_true(fabs(r->min_hours - 24) < 1e-9 && fabs(r->max_hours - 4368) < 1e-9);
    assert_true(fabs(r->lead_time_days - 2) < 1e-9);
    assert_string_equal(r->price.as_of, "2024-12-01");
    assert_true(isnan(gpu->offers[0].price[DC_PRICING_COMMITTED_1Y].usd_per_chip_hour));
    /* Names of the bases: the price bases and reservations. */
    enum dc_basis b;
    assert_true(dc_basis_parse("reserved", &b) && b == DC_BASIS_RESERVED);
    assert_true(dc_basis_parse("spot", &b) && (int)b == (int)DC_PRICING_SPOT);
    assert_false(dc_basis_parse("Reserved", &b));
    assert_false(dc_basis_parse(NULL, &b));
    assert_string_equal(dc_basis_name(DC_BASIS_COMMITTED_3Y), "committed_3y");
    assert_string_equal(dc_basis_name(DC_BASIS_COUNT), "unknown");
    dc_ruleset_release(rs);
    free(all);
    free(pr);
    free(cap);
}

static void test_bad_arguments_and_limits(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_files(NULL, 1, &rs, NULL), DC_EINVAL);
    assert_int_equal(dc_ruleset_load_files(NULL, 0, NULL, NULL), DC_EINVAL);
    assert_int_equal(dc_ruleset_load_dir(NULL, &rs, NULL), DC_EINVAL);
    struct dc_source_file many[DC_RULESET_MAX_FILES + 1];
    for (size_t i = 0; i < DC_RULESET_MAX_FILES + 1; i++)
        many[i] = (struct dc_source_file){"x.yaml", "", 0};
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_equal(dc_ruleset_load_files(many, DC_RULESET_MAX_FILES + 1, &rs, &d), DC_ELIMIT);
    assert_int_equal(d.count, 1);
    dc_diags_cleanup(&d);
    /* The diagnostics list is bounded. */
    dc_diags_init(&d);
    size_t cap = 400 * 120 + 64;
    char *rules = malloc(cap);
    size_t off = (size_t)snprintf(rules, cap, "rules:\n");
    for (int i = 0; i < 400; i++)
        off += (size_t)snprintf(rules + off, cap - off, "  - {id: r%d}\n", i);
    assert_int_equal(load3(catalog_ok, sizing_ok, rules, &rs, &d), DC_EVALIDATE);
    assert_int_equal(d.count, DC_RULESET_MAX_DIAGS);
    assert_true(d.truncated);
    dc_diags_cleanup(&d);
    free(rules);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_load_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/aa-rules-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "catalog.yaml", catalog_ok);
    write_file(dir, "sizing.yaml", sizing_ok);
    write_file(dir, "rules.yaml", rules_ok);
    write_file(dir, "prices.yaml", prices_ok);
    write_file(dir, ".hidden.yaml", "garbage: [");   /* ignored: dotfile */
    write_file(dir, "notes.txt", "not yaml at all"); /* ignored: not .yaml */
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_equal(dc_ruleset_load_dir(dir, &rs, &d), DC_OK);
    assert_string_equal(dc_ruleset_origin(rs), dir);
    dc_ruleset *mem = NULL;
    assert_int_equal(load3(catalog_ok, sizing_ok, rules_ok, &mem, NULL), DC_OK);
    assert_string_equal(dc_ruleset_version(rs), dc_ruleset_version(mem));
    dc_ruleset_release(mem);
    dc_ruleset_release(rs);
    /* A second rules file with a broken rule names its own file. */
    write_file(dir, "zz-extra.yaml", "rules:\n  - id: x\n");
    assert_int_equal(dc_ruleset_load_dir(dir, &rs, &d), DC_EVALIDATE);
    char line[768];
    dc_diag_format(&d.items[0], line, sizeof(line));
    assert_string_equal(line, "zz-extra.yaml:2: x: missing required field \"description\"");
    dc_diags_cleanup(&d);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    dc_diags_init(&d);
    assert_int_equal(dc_ruleset_load_dir("/nonexistent/rules", &rs, &d), DC_EIO);
    assert_int_equal(d.count, 1);
    dc_diags_cleanup(&d);
}

/* Load `dir` and expect DC_EIO or DC_EVALIDATE with exactly one diagnostic
 * equal to `expected`. */
static void expect_dir_refused(const char *dir, enum dc_status want, const char *expected)
{
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_equal(dc_ruleset_load_dir(dir, &rs, &d), want);
    assert_null(rs);
    char line[768];
    assert_int_equal(d.count, 1);
    dc_diag_format(&d.items[0], line, sizeof(line));
    assert_string_equal(line, expected);
    dc_diags_cleanup(&d);
}

/* A *.yaml entry that is not a readable regular file refuses the whole set (it
 * used to be skipped, so a dangling rules.yaml loaded a set with no rules), and
 * so does a set without a single rule. */
static void test_load_dir_entries(void **state)
{
    (void)state;
    char dir[] = "/tmp/aa-rules-XXXXXX";
    char path[600], want[768];
    assert_non_null(mkdtemp(dir));
    write_file(dir, "catalog.yaml", catalog_ok);
    write_file(dir, "sizing.yaml", sizing_ok);
    write_file(dir, "prices.yaml", prices_ok);
    snprintf(path, sizeof(path), "%s/rules.yaml", dir);
    assert_int_equal(symlink("/nonexistent/rules.yaml", path), 0);
    expect_dir_refused(dir, DC_EIO,
                       "rules.yaml:0: is a dangling symbolic link (its target does not exist)");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("rules.yaml", path), 0); /* a link to itself */
    expect_dir_refused(dir, DC_EIO, "rules.yaml:0: is a loop of symbolic links");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0); /* never opened: a read would block */
    expect_dir_refused(dir, DC_EIO, "rules.yaml:0: is a FIFO, not a regular file");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    expect_dir_refused(dir, DC_EIO, "rules.yaml:0: is a directory, not a regular file");
    assert_int_equal(rmdir(path), 0);
    /* No rules at all: without a rules file, and with an empty one. */
    snprintf(want, sizeof(want), "%s:0: the rule set has no rules (no rule in any *.yaml file)",
             dir);
    expect_dir_refused(dir, DC_EVALIDATE, want);
    write_file(dir, "rules.yaml", "rules: []\n");
    expect_dir_refused(dir, DC_EVALIDATE, want);
    /* A symbolic link to a regular file (a ConfigMap volume's layout) loads. */
    write_file(dir, "real.txt", rules_ok);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("real.txt", path), 0);
    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_dir(dir, &rs, NULL), DC_OK);
    assert_int_equal(dc_ruleset_rule_count(rs), 2);
    dc_ruleset_release(rs);
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

static void test_default_rules(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(AA_SOURCE_DIR "/rules", &rs, &d);
    char line[768];
    for (size_t i = 0; i < d.count; i++) {
        dc_diag_format(&d.items[i], line, sizeof(line));
        print_message("%s\n", line);
    }
    assert_int_equal(rc, DC_OK);
    /* The issue's floor: at least 30 rules, each citing a public URL and a fact. */
    assert_true(dc_ruleset_rule_count(rs) >= 30);
    for (size_t i = 0; i < dc_ruleset_rule_count(rs); i++) {
        const struct dc_rule_info *r = dc_ruleset_rule(rs, i);
        assert_non_null(r->fact);
        assert_null(strstr(r->source, "domain-facts"));
    }
    static const char *const required[] = {"h100",    "h200",    "b200",    "a100",
                                           "l4",      "t4",      "mi300x",  "tpu-v4",
                                           "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu7x"};
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (dc_ruleset_find_accelerator(rs, required[i]) == NULL)
            fail_msg("catalog lacks %s", required[i]);
    }
    bool cpu = false, asic = false;
    for (size_t i = 0; i < dc_ruleset_accelerator_count(rs); i++) {
        cpu = cpu || dc_ruleset_accelerator(rs, i)->family == DC_FAMILY_CPU;
        asic = asic || dc_ruleset_accelerator(rs, i)->family == DC_FAMILY_ASIC;
    }
    assert_true(cpu);
    assert_true(asic);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&d);
}

/* An embedded table: only "rules/" entries count, base names in diagnostics. */
static void test_load_embedded(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    const struct aa_embedded_file table[] = {
        {"openapi.yaml", "not a rule file", 15},
        {"rules/catalog.yaml", catalog_ok, sizeof(catalog_ok) - 1},
        {"rules/sizing.yaml", sizing_ok, sizeof(sizing_ok) - 1},
        {"rules/rules.yaml", rules_ok, sizeof(rules_ok) - 1},
        {"rules/prices.yaml", prices_ok, sizeof(prices_ok) - 1},
        {NULL, NULL, 0},
    };
    assert_int_equal(dc_ruleset_load_embedded(table, &rs, NULL), DC_OK);
    assert_int_equal(dc_ruleset_accelerator_count(rs), 2);
    dc_ruleset_release(rs);
    rs = NULL;
    /* Without a catalog: the problem names the set, not the prefix. */
    struct dc_diags d;
    dc_diags_init(&d);
    assert_int_not_equal(dc_ruleset_load_embedded(table + 2, &rs, &d), DC_OK);
    assert_null(rs);
    assert_true(d.count > 0);
    assert_null(strstr(d.items[0].file, "rules/"));
    dc_diags_cleanup(&d);
    /* More rule files than a set may have. */
    struct aa_embedded_file many[DC_RULESET_MAX_FILES + 2];
    for (size_t i = 0; i < DC_RULESET_MAX_FILES + 1; i++)
        many[i] = (struct aa_embedded_file){"rules/x.yaml", "rules: []\n", 10};
    many[DC_RULESET_MAX_FILES + 1] = (struct aa_embedded_file){NULL, NULL, 0};
    assert_int_equal(dc_ruleset_load_embedded(many, &rs, NULL), DC_ELIMIT);
    assert_int_equal(dc_ruleset_load_embedded(NULL, &rs, NULL), DC_EINVAL);
    assert_int_equal(dc_ruleset_load_embedded(table, NULL, NULL), DC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_ok),
        cmocka_unit_test(test_version_is_canonical),
        cmocka_unit_test(test_rule_errors),
        cmocka_unit_test(test_catalog_and_sizing_errors),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_param_errors),
        cmocka_unit_test(test_issue17_errors),
        cmocka_unit_test(test_price_errors),
        cmocka_unit_test(test_price_tpu_and_unpriced),
        cmocka_unit_test(test_price_limits),
        cmocka_unit_test(test_capacity_errors),
        cmocka_unit_test(test_buying_catalog_errors),
        cmocka_unit_test(test_capacity_limit),
        cmocka_unit_test(test_bad_arguments_and_limits),
        cmocka_unit_test(test_load_dir),
        cmocka_unit_test(test_load_dir_entries),
        cmocka_unit_test(test_default_rules),
        cmocka_unit_test(test_load_embedded),
    };
    return cmocka_run_group_tests_name("ruleset", tests, NULL, NULL);
}
