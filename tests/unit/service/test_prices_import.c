/* tests/unit/service/test_prices_import.c -- the parsing of `prices import`
 * (service/src/prices_import.c, prices_aws.c) and `prices merge`
 * (service/src/prices_merge.c) on inputs the CLI test cannot easily write:
 * quoted CSV fields, YAML escaping of every control character, AWS offer
 * files that are cut, unbalanced or nested past the limit, and a merge into
 * a prices.yaml carrying the lists and bases of other owners (`capacity:`,
 * `reserved:`), which must come out byte for byte. Built under ASan too
 * (build-asan), as this is parsing code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prices_import.h"
#include "prices_merge.h"

static struct svc_price_map map;

static int setup(void **state)
{
    (void)state;
    struct dc_error err;
    return svc_price_map_parse("map", "# comment\nskypilot,H100,h100\naws,p5,h100\n", &map, &err);
}

static FILE *capture(char **buf, size_t *n)
{
    *buf = NULL;
    FILE *fp = open_memstream(buf, n);
    assert_non_null(fp);
    return fp;
}

static void test_map_rows(void **state)
{
    (void)state;
    struct svc_price_map m;
    struct dc_error err;
    assert_int_equal(map.n, 2);
    assert_string_equal(svc_price_map_find(&map, SVC_PRICES_AWS, "p5"), "h100");
    assert_null(svc_price_map_find(&map, SVC_PRICES_AWS, "H100"));
    assert_int_equal(svc_price_map_parse("m", "skypilot,H100\r\n", &m, &err), DC_EPARSE);
    assert_non_null(strstr(err.msg, "m:1: expected format,name,accelerator"));
    assert_int_equal(svc_price_map_parse("m", "azure,X,h100\n", &m, &err), DC_EPARSE);
    assert_int_equal(svc_price_map_parse("m", "skypilot,A,b,c\n", &m, &err), DC_EPARSE);
}

static void test_text_ok(void **state)
{
    (void)state;
    assert_true(svc_import_text_ok("nebius eu-north1"));
    assert_true(svc_import_text_ok("r\xc3\xa9gion")); /* é */
    assert_false(svc_import_text_ok("a\x7f"));
    assert_false(svc_import_text_ok("a\tb"));
    assert_false(svc_import_text_ok("a\xc2\x85"));    /* U+0085, a C1 control */
    assert_false(svc_import_text_ok("a\xc3"));        /* cut */
    assert_false(svc_import_text_ok("\xed\xa0\x80")); /* a surrogate */
    assert_false(svc_import_text_ok("\xc0\xaf"));     /* overlong */
}

static void test_put_str_escapes(void **state)
{
    (void)state;
    size_t n;
    char *buf;
    FILE *fp = capture(&buf, &n);
    svc_yaml_put_str(fp, "a\"b\\c\nd\x7f"
                         "e\xc2\x85\xc3\xa9");
    fclose(fp);
    assert_string_equal(buf, "\"a\\\"b\\\\c\\x0ad\\x7fe\\x85\xc3\xa9\"");
    free(buf);
}

/* Import `csv` as SkyPilot's with the cloud nebius; the report in *rep. */
static void sky(const char *csv, struct svc_import *im, char **rep)
{
    struct svc_import_opts o = {"neocloud", "nebius",  "nebius ", NULL, "https://x.example/p",
                                NULL,       "2025-01", "low"};
    struct dc_error err;
    char *text = strdup(csv);
    size_t n;
    FILE *fp = capture(rep, &n);
    assert_true(svc_import_init(im));
    assert_int_equal(svc_import_skypilot("f.csv", text, &map, &o, im, fp, &err), DC_OK);
    fclose(fp);
    free(text);
}

#define SKY_HDR                                                                                    \
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,SpotPrice\n"

static void test_skypilot_quotes_and_zones(void **state)
{
    (void)state;
    struct svc_import im;
    char *rep;
    sky(SKY_HDR "\"h,8\",H100,8,128,1600,23.6,eu-north1,12\r\n"
                "\"h,8\",H100,8,128,1600,23.6,eu-north1,10\r\n"
                "\"h\"\"q\",H100,8,128,1600,20,eu-north1,\r\n"
                "\"open,H100,8,128,1600,20,eu-north1,\r\n",
        &im, &rep);
    assert_int_equal(im.n, 2);
    assert_string_equal(im.offers[0].instance_type, "h,8");
    assert_string_equal(im.offers[0].region, "nebius eu-north1");
    assert_true(im.offers[0].price[DC_PRICING_SPOT] == 10); /* the cheapest zone */
    assert_string_equal(im.offers[1].instance_type, "h\"q");
    assert_int_equal(im.dropped, 1); /* the unterminated quote: one field */
    assert_non_null(strstr(rep, "f.csv:5: dropped: not 8 fields"));
    free(rep);
    svc_import_free(&im);
}

/* Import `json` as AWS's; its status, the report in *rep. */
static enum dc_status aws(const char *json, struct svc_import *im, char **rep)
{
    struct svc_import_opts o = {"aws", NULL, "", NULL, "https://x.example/p", NULL, NULL, "high"};
    struct dc_error err;
    size_t n;
    FILE *fp = capture(rep, &n);
    assert_true(svc_import_init(im));
    enum dc_status st = svc_import_aws("a.json", json, strlen(json), &map, &o, im, fp, &err);
    fclose(fp);
    return st;
}

#define AWS_PRODUCT(sku, type, gpu)                                                                \
    "\"" sku "\":{\"productFamily\":\"Compute Instance\",\"attributes\":{\"instanceType\":\"" type \
    "\",\"gpu\":\"" gpu "\",\"regionCode\":\"us-east-1\",\"operatingSystem\":\"Linux\","           \
    "\"tenancy\":\"Shared\",\"preInstalledSw\":\"NA\",\"capacitystatus\":\"Used\"}}"
#define AWS_TERM(sku, usd)                                                                         \
    "\"" sku "\":{\"t\":{\"priceDimensions\":{\"d\":{\"unit\":\"Hrs\",\"pricePerUnit\":{\"USD\":"  \
    "\"" usd "\"}}}}}"

static void test_aws_terms_first_and_shared_offer(void **state)
{
    (void)state;
    struct svc_import im;
    char *rep;
    /* terms before products, two SKUs of one instance type and region (the
     * later term wins), and a SKU without a product. */
    const char *doc =
        "{\"terms\":{\"OnDemand\":{" AWS_TERM("S2", "55") "," AWS_TERM("S1", "54") "," AWS_TERM(
            "S9", "1") "}},\"publicationDate\":\"2026-09-01T00:00:00Z\","
                       "\"products\":{" AWS_PRODUCT("S1", "p5.48xlarge", "8") "," AWS_PRODUCT(
                           "S2", "p5.48xlarge", "8") "}}";
    assert_int_equal(aws(doc, &im, &rep), DC_OK);
    assert_int_equal(im.n, 1);
    assert_true(im.offers[0].price[DC_PRICING_ON_DEMAND] == 54);
    assert_string_equal(im.offers[0].as_of, "2026-09-01");
    free(rep);
    svc_import_free(&im);
}

static void test_aws_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{\"publicationDate\":\"2026-09-01\",\"products\":{},\"terms\":{}",   /* cut */
        "{\"publicationDate\":\"2026-09-01\",\"products\":{},\"terms\":{}}x", /* trailing */
        "{\"publicationDate\":\"2026-09-01\",\"products\":{\"a\":\"unterminated}}",
        "{\"publicationDate\":\"2026-09-01\",\"products\":{\"a\":]},\"terms\":{}}",
        "{\"publicationDate\":\"2026-09-01\",\"products\":{\"a\" 1},\"terms\":{}}",
        "{\"publicationDate\":\"26-09-01\",\"products\":{},\"terms\":{}}",
        "{\"publicationDate\":\"2026-09-01\",\"products\":[],\"terms\":{}}",
        "{\"publicationDate\":2026,\"products\":{},\"terms\":{}}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct svc_import im;
        char *rep;
        assert_int_equal(aws(bad[i], &im, &rep), DC_EPARSE);
        free(rep);
        svc_import_free(&im);
    }
    /* Nesting past the scanner's limit is refused, not recursed into. */
    char deep[4096] = "{\"publicationDate\":\"2026-09-01\",\"terms\":{},\"products\":{\"a\":";
    for (int i = 0; i < 1000; i++)
        strcat(deep, "[");
    strcat(deep, "}}");
    struct svc_import im;
    char *rep;
    assert_int_equal(aws(deep, &im, &rep), DC_EPARSE);
    free(rep);
    svc_import_free(&im);
}

/* A prices.yaml with what other owners put there: a comment, a `reserved`
 * basis and a `capacity:` list (HELPERS.md's agreement), a per-chip TPU
 * offer, a price written "23.60". */
static const char target[] =
    "# head comment\n"
    "prices:\n"
    "  # H100 at Lambda\n"
    "  - accelerator: h100\n"
    "    provider: neocloud\n"
    "    region: lambda us-east-1\n"
    "    instance_type: gpu_1x_h100_sxm5\n"
    "    accelerators: 1\n"
    "    source: https://lambda.ai/pricing\n"
    "    via: https://example.com/old\n"
    "    confidence: low\n"
    "    on_demand: {usd_per_hour: 3.29, as_of: \"2025-01\"}  # the list price\n"
    "    reserved: {usd_per_hour: 2.99, as_of: \"2025-01\", min_hours: 24, max_hours: 4368}\n"
    "  - accelerator: h100\n"
    "    provider: neocloud\n"
    "    region: lambda us-east-1\n"
    "    instance_type: gpu_8x_h100_sxm5\n"
    "    accelerators: 8\n"
    "    source: https://lambda.ai/pricing\n"
    "    confidence: low\n"
    "    on_demand: {usd_per_hour: 23.60, as_of: \"2025-01\"}\n"
    "  - accelerator: tpu-v5p\n"
    "    provider: gcp\n"
    "    region: us-east5\n"
    "    instance_type: v5p\n"
    "    source: https://cloud.google.com/tpu/pricing\n"
    "    confidence: high\n"
    "    on_demand: {usd_per_chip_hour: 4.2, as_of: \"2026-07-30\"}\n"
    "capacity:\n"
    "  - provider: neocloud\n"
    "    basis: reserved\n"
    "    max_instances: 64\n"
    "    source: https://lambda.ai/pricing\n"
    "    as_of: \"2026-11-29\"\n"
    "    assumption: true\n"
    "    note: \"hand-entered\"\n";

static const char import_doc[] = "prices:\n"
                                 "  - accelerator: h100\n"
                                 "    provider: \"neocloud\"\n"
                                 "    region: \"lambda us-east-1\"\n"
                                 "    instance_type: \"gpu_1x_h100_sxm5\"\n"
                                 "    accelerators: 1\n"
                                 "    source: \"https://lambda.ai/pricing\"\n"
                                 "    via: \"https://example.com/new\"\n"
                                 "    confidence: \"low\"\n"
                                 "    on_demand: {usd_per_hour: 4.29, as_of: \"2026-10\"}\n"
                                 "    spot: {usd_per_hour: 2.5, as_of: \"2026-10\"}\n"
                                 "  - accelerator: h100\n"
                                 "    provider: \"neocloud\"\n"
                                 "    region: \"lambda us-east-1\"\n"
                                 "    instance_type: \"gpu_2x_h100_sxm5\"\n"
                                 "    accelerators: 2\n"
                                 "    source: \"https://lambda.ai/pricing\"\n"
                                 "    confidence: \"low\"\n"
                                 "    on_demand: {usd_per_hour: 8.38, as_of: \"2026-10\"}\n";

static char *merge(const char *t, const char *imp, struct svc_merge_counts *c, char **rep)
{
    const char *names[] = {"new.yaml"}, *docs[] = {imp};
    size_t lens[] = {strlen(imp)};
    char *out = NULL;
    size_t len = 0;
    struct dc_error err;
    size_t n;
    FILE *fp = capture(rep, &n);
    assert_int_equal(svc_prices_merge("prices.yaml", t, strlen(t), names, docs, lens, 1, &out, &len,
                                      fp, c, &err),
                     DC_OK);
    fclose(fp);
    assert_int_equal(strlen(out), len);
    return out;
}

static void test_merge_keeps_hand_entered(void **state)
{
    (void)state;
    struct svc_merge_counts c;
    char *rep;
    char *out = merge(target, import_doc, &c, &rep);
    assert_int_equal(c.changed, 1);
    assert_int_equal(c.added, 1);
    assert_int_equal(c.offers, 1);
    assert_int_equal(c.absent, 1);
    /* The price line keeps its comment; the reserved basis, the capacity list
     * and the via (a reserved price is not from the import) stay. */
    assert_non_null(
        strstr(out, "    on_demand: {usd_per_hour: 4.29, as_of: \"2026-10\"}  # the list price\n"
                    "    reserved: {usd_per_hour: 2.99, as_of: \"2025-01\", min_hours: 24, "
                    "max_hours: 4368}\n"
                    "    spot: {usd_per_hour: 2.5, as_of: \"2026-10\"}\n"));
    assert_non_null(strstr(out, "    via: https://example.com/old\n"));
    assert_non_null(strstr(rep, ": kept https://example.com/old; some of its prices are not"));
    assert_non_null(strstr(out, strstr(target, "capacity:\n")));
    assert_non_null(strstr(out, "    on_demand: {usd_per_chip_hour: 4.2, as_of: \"2026-07-30\"}\n"
                                "  - accelerator: \"h100\"\n"));
    assert_non_null(strstr(out, "# head comment\nprices:\n  # H100 at Lambda\n"));
    assert_non_null(strstr(rep, "absent h100 neocloud \"lambda us-east-1\" \"gpu_8x_h100_sxm5\""));
    /* Idempotent. */
    char *rep2;
    char *again = merge(out, import_doc, &c, &rep2);
    assert_string_equal(again, out);
    assert_int_equal(c.changed + c.added + c.offers, 0);
    /* The file through itself: no change, per-chip prices included. */
    char *rep3;
    char *self = merge(target, target, &c, &rep3);
    assert_string_equal(self, target);
    assert_int_equal(c.changed + c.added + c.offers + c.absent + c.skipped, 0);
    free(out);
    free(again);
    free(self);
    free(rep);
    free(rep2);
    free(rep3);
}

static void test_merge_refuses(void **state)
{
    (void)state;
    const char *names[] = {"x.yaml"};
    static const char *const bad[] = {"prices: 3\n", "a: [\n", "prices:\n  - provider: aws\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *docs[] = {bad[i]};
        size_t lens[] = {strlen(bad[i])};
        char *out = NULL;
        size_t len = 0;
        struct svc_merge_counts c;
        struct dc_error err;
        assert_int_equal(svc_prices_merge("prices.yaml", target, strlen(target), names, docs, lens,
                                          1, &out, &len, stderr, &c, &err),
                         DC_EPARSE);
        assert_null(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_rows),
        cmocka_unit_test(test_text_ok),
        cmocka_unit_test(test_put_str_escapes),
        cmocka_unit_test(test_skypilot_quotes_and_zones),
        cmocka_unit_test(test_aws_terms_first_and_shared_offer),
        cmocka_unit_test(test_aws_malformed),
        cmocka_unit_test(test_merge_keeps_hand_entered),
        cmocka_unit_test(test_merge_refuses),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
