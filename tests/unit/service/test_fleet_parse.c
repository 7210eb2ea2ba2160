/* tests/unit/service/test_fleet_parse.c -- service/src/fleet_parse.c: the answer
 * of a Prometheus instant query read as hostile input. Every refusal has its
 * kind and a message; what is kept has the documented labels and a finite value;
 * messages cut to a length stay valid UTF-8. Also the queries the fleet sends.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fleet.h"
#include "dc/utf8.h"

#define OK_HEAD "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
#define OK_TAIL "]}}"

static enum svc_fleet_error parse(const char *body, size_t max, struct svc_fleet_vector *v,
                                  char *why, size_t whylen)
{
    return svc_fleet_parse(body, strlen(body), "cluster", max, v, why, whylen);
}

/* Parse must refuse `body` with `want`, leave nothing behind, and say why. */
static void refused(const char *body, enum svc_fleet_error want, const char *in_why)
{
    struct svc_fleet_vector v;
    char why[256] = "";
    enum svc_fleet_error got = parse(body, 100, &v, why, sizeof(why));
    if (got != want)
        fail_msg("%s: %s, want %s (%s)", body, svc_fleet_error_name(got),
                 svc_fleet_error_name(want), why);
    assert_null(v.text);
    assert_null(v.series);
    assert_int_equal(v.n, 0);
    if (strstr(why, in_why) == NULL)
        fail_msg("%s: why \"%s\" lacks \"%s\"", body, why, in_why);
}

static void test_vector(void **state)
{
    (void)state;
    const char *body =
        OK_HEAD "{\"metric\":{\"cluster\":\"west\",\"node\":\"n1\",\"device\":\"0000:05:00.0\","
                "\"model\":\"h100\",\"vendor\":\"nvidia\",\"job\":\"agents\"},"
                "\"value\":[1732492800.123,\"1\"]},"
                "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"dgx-01\","
                "\"UUID\":\"GPU-1\",\"gpu\":\"0\",\"pci_bus_id\":\"00000000:18:00.0\","
                "\"modelName\":\"NVIDIA H100 80GB HBM3\",\"pod\":\"train-0\"},"
                "\"value\":[1732492800,\"97.5\"]},"
                "{\"metric\":{},\"value\":[0,\"-0\"]}" OK_TAIL;
    struct svc_fleet_vector v;
    char why[128];
    assert_int_equal(parse(body, 3, &v, why, sizeof(why)), SVC_FLEET_OK);
    assert_int_equal(v.n, 3);
    assert_int_equal(v.dropped, 0);
    const struct svc_fleet_series *a = &v.series[0], *d = &v.series[1], *e = &v.series[2];
    assert_string_equal(a->label[SVC_FL_CLUSTER], "west");
    assert_string_equal(a->label[SVC_FL_NODE], "n1");
    assert_string_equal(a->label[SVC_FL_DEVICE], "0000:05:00.0");
    assert_string_equal(a->label[SVC_FL_MODEL], "h100");
    assert_string_equal(a->label[SVC_FL_VENDOR], "nvidia");
    assert_null(a->label[SVC_FL_NAME]);
    assert_true(a->value == 1);
    assert_string_equal(d->label[SVC_FL_NAME], "DCGM_FI_DEV_GPU_UTIL");
    assert_string_equal(d->label[SVC_FL_HOSTNAME], "dgx-01");
    assert_string_equal(d->label[SVC_FL_UUID], "GPU-1");
    assert_string_equal(d->label[SVC_FL_GPU], "0");
    assert_string_equal(d->label[SVC_FL_PCI_BUS_ID], "00000000:18:00.0");
    assert_string_equal(d->label[SVC_FL_MODEL_NAME], "NVIDIA H100 80GB HBM3");
    assert_string_equal(d->label[SVC_FL_POD], "train-0");
    assert_null(d->label[SVC_FL_CLUSTER]);
    assert_true(d->value == 97.5);
    for (int k = 0; k < SVC_FL_COUNT; k++)
        assert_null(e->label[k]);
    svc_fleet_vector_free(&v);
    svc_fleet_vector_free(&v); /* twice is harmless */
    svc_fleet_vector_free(NULL);

    /* No cluster label configured: "cluster" is an ordinary label, not read. */
    assert_int_equal(svc_fleet_parse(body, strlen(body), "", 3, &v, why, sizeof(why)),
                     SVC_FLEET_OK);
    assert_null(v.series[0].label[SVC_FL_CLUSTER]);
    svc_fleet_vector_free(&v);
    /* Another cluster label. */
    assert_int_equal(svc_fleet_parse(body, strlen(body), "job", 3, &v, why, sizeof(why)),
                     SVC_FLEET_OK);
    assert_string_equal(v.series[0].label[SVC_FL_CLUSTER], "agents");
    svc_fleet_vector_free(&v);
    /* An empty vector. */
    assert_int_equal(parse(OK_HEAD OK_TAIL, 0, &v, why, sizeof(why)), SVC_FLEET_OK);
    assert_int_equal(v.n, 0);
    svc_fleet_vector_free(&v);
}

/* Series kept out without refusing the answer: counted as dropped. */
static void test_dropped(void **state)
{
    (void)state;
    char label[SVC_FLEET_LABEL_MAX + 2];
    memset(label, 'n', sizeof(label) - 1);
    label[sizeof(label) - 1] = '\0';
    char body[2048];
    snprintf(body, sizeof(body),
             OK_HEAD "{\"metric\":{\"node\":\"%s\"},\"value\":[1,\"1\"]},"
                     "{\"metric\":{\"node\":\"%.*s\"},\"value\":[1,\"1\"]},"
                     "{\"metric\":{},\"value\":[1,\"NaN\"]},"
                     "{\"metric\":{},\"value\":[1,\"+Inf\"]},"
                     "{\"metric\":{},\"value\":[1,\"-Inf\"]},"
                     "{\"metric\":{},\"value\":[1,\"1e999\"]},"
                     "{\"metric\":{},\"value\":[1,\"\"]},"
                     "{\"metric\":{},\"value\":[1,\"12abc\"]},"
                     "{\"metric\":{},\"value\":[1,\"0x10\"]}" OK_TAIL,
             label, SVC_FLEET_LABEL_MAX, label);
    struct svc_fleet_vector v;
    char why[128];
    assert_int_equal(parse(body, 100, &v, why, sizeof(why)), SVC_FLEET_OK);
    /* The label of exactly SVC_FLEET_LABEL_MAX bytes is kept; 0x10 is a C hex
     * float strtod reads: a finite number, kept. */
    assert_int_equal(v.n, 2);
    assert_int_equal(v.dropped, 7);
    assert_int_equal(strlen(v.series[0].label[SVC_FL_NODE]), SVC_FLEET_LABEL_MAX);
    svc_fleet_vector_free(&v);
}

static void test_hostile_shapes(void **state)
{
    (void)state;
    refused("", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("{\"status\":\"success\",\"data\":{", SVC_FLEET_E_MALFORMED, "not JSON");
    refused(OK_HEAD OK_TAIL " trailing", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("<html>502 Bad Gateway</html>", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("[]", SVC_FLEET_E_MALFORMED, "not JSON: an object was expected at byte 0");
    refused("\"success\"", SVC_FLEET_E_MALFORMED, "not JSON: an object was expected");
    refused("{}", SVC_FLEET_E_MALFORMED, "no status");
    refused("{\"status\":1}", SVC_FLEET_E_MALFORMED, "no status");
    refused("{\"status\":\"partial\",\"data\":{}}", SVC_FLEET_E_MALFORMED, "no data.result");
    refused("{\"status\":\"success\"}", SVC_FLEET_E_MALFORMED, "no data.result");
    refused("{\"status\":\"success\",\"data\":[]}", SVC_FLEET_E_MALFORMED, "no data.result");
    refused("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":{}}}",
            SVC_FLEET_E_MALFORMED, "no data.result");
    refused("{\"status\":\"success\",\"data\":{\"result\":[]}}", SVC_FLEET_E_MALFORMED,
            "result type (none), not vector");
    refused("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
            SVC_FLEET_E_MALFORMED, "result type matrix, not vector");
    refused("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}",
            SVC_FLEET_E_MALFORMED, "result type scalar");
    /* Elements that are not {metric, value}. */
    refused(OK_HEAD "1" OK_TAIL, SVC_FLEET_E_MALFORMED, "a result is not {metric, value}");
    refused(OK_HEAD "{\"value\":[1,\"1\"]}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {metric");
    refused(OK_HEAD "{\"metric\":[],\"value\":[1,\"1\"]}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {");
    refused(OK_HEAD "{\"metric\":{}}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {");
    refused(OK_HEAD "{\"metric\":{},\"value\":[1]}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {");
    refused(OK_HEAD "{\"metric\":{},\"value\":[1,\"1\",2]}" OK_TAIL, SVC_FLEET_E_MALFORMED,
            "not {");
    refused(OK_HEAD "{\"metric\":{},\"value\":[\"1\",\"1\"]}" OK_TAIL, SVC_FLEET_E_MALFORMED,
            "not {");
    refused(OK_HEAD "{\"metric\":{},\"value\":[1,1]}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {");
    refused(OK_HEAD "{\"metric\":{},\"value\":{\"t\":1}}" OK_TAIL, SVC_FLEET_E_MALFORMED, "not {");
    refused(OK_HEAD "{\"metric\":{\"node\":1},\"value\":[1,\"1\"]}" OK_TAIL, SVC_FLEET_E_MALFORMED,
            "not {");
    refused(OK_HEAD "{\"metric\":{\"node\":null},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not {");
    /* A member the fleet reads given twice: which one would count? */
    refused("{\"status\":\"success\",\"status\":\"error\"}", SVC_FLEET_E_MALFORMED,
            "a member given twice");
    refused("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[],"
            "\"result\":[]}}",
            SVC_FLEET_E_MALFORMED, "a member given twice");
    /* ...whatever the type of the first copy: a reader that takes the first
     * (cJSON) would see a string where this walk would read the object. */
    refused("{\"status\":\"success\",\"data\":\"success\",\"data\":{\"resultType\":\"vector\","
            "\"result\":[]}}",
            SVC_FLEET_E_MALFORMED, "a member given twice");
    refused("{\"status\":1,\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
            "\"result\":[]}}",
            SVC_FLEET_E_MALFORMED, "a member given twice");
    refused("{\"status\":\"success\",\"data\":{\"resultType\":null,\"resultType\":\"vector\","
            "\"result\":[]}}",
            SVC_FLEET_E_MALFORMED, "a member given twice");
    refused(OK_HEAD "{\"metric\":{},\"value\":[1,\"1\"],\"value\":[1,\"0\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not {metric");
    refused(OK_HEAD "{\"metric\":{},\"metric\":{},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not {metric");
    /* A label twice in one series. */
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\",\"node\":\"b\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not {metric");
    /* What strict JSON refuses: bad UTF-8, a NUL escape, depth, and more. */
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\\ud800\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "without its low half");
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\\udc00\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "a lone low surrogate");
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\\x\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "an unknown escape");
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\\u12\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "four hex digits");
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\tb\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "a control character");
    refused(OK_HEAD "{\"metric\":{\"node\":\"abc", SVC_FLEET_E_MALFORMED, "unterminated");
    static const char *const bad_numbers[] = {"01", "1.", "1.e5", "1e",  "-",
                                              "+1", ".5", "0x10", "NaN", "1e+"};
    for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++) {
        char body[256];
        snprintf(body, sizeof(body), OK_HEAD "{\"metric\":{},\"value\":[%s,\"1\"]}" OK_TAIL,
                 bad_numbers[i]);
        refused(body, SVC_FLEET_E_MALFORMED, "not JSON");
    }
    refused("{\"status\":\"success\",\"data\":{\"x\":tru}}", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("{\"status\":\"success\" \"data\":{}}", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("{\"status\":\"success\",}", SVC_FLEET_E_MALFORMED, "not JSON");
    refused("{\"status\"}", SVC_FLEET_E_MALFORMED, "not JSON");
    refused(OK_HEAD "{\"metric\":{\"node\":\"\xff\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not JSON");
    refused(OK_HEAD "{\"metric\":{\"node\":\"a\\u0000b\"},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not JSON");
    refused(OK_HEAD "{\"metric\":{\"a\":{\"b\":{\"c\":{\"d\":{}}}}},\"value\":[1,\"1\"]}" OK_TAIL,
            SVC_FLEET_E_MALFORMED, "not JSON");
    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 1000; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    refused(deep, SVC_FLEET_E_MALFORMED, "not JSON");
}

static void test_query_error(void **state)
{
    (void)state;
    refused("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse error\"}",
            SVC_FLEET_E_QUERY, "Prometheus: bad_data: 1:5: parse error");
    refused("{\"status\":\"error\"}", SVC_FLEET_E_QUERY, "Prometheus: error: (no message)");
    refused("{\"status\":\"error\",\"errorType\":7,\"error\":[]}", SVC_FLEET_E_QUERY,
            "(no message)");
    /* A long error of multi-byte characters is cut within SVC_FLEET_ERROR_TEXT_MAX
     * bytes and a small buffer, never inside a character. */
    char body[4096];
    size_t n = (size_t)snprintf(body, sizeof(body), "{\"status\":\"error\",\"error\":\"");
    for (int i = 0; i < 400; i++)
        n += (size_t)snprintf(body + n, sizeof(body) - n, "\xc3\xa9"); /* é */
    snprintf(body + n, sizeof(body) - n, "\"}");
    for (size_t cap = 20; cap <= 400; cap += 37) {
        char why[400];
        struct svc_fleet_vector v;
        assert_int_equal(svc_fleet_parse(body, strlen(body), "", 10, &v, why, cap),
                         SVC_FLEET_E_QUERY);
        assert_true(strlen(why) < cap);
        assert_true(strlen(why) <= 40 + SVC_FLEET_ERROR_TEXT_MAX);
        uint32_t cp;
        for (size_t i = 0; why[i] != '\0';) {
            size_t k = dc_utf8_seq((const unsigned char *)why + i, SIZE_MAX, &cp);
            assert_true(k > 0);
            i += k;
        }
    }
    /* A NULL or empty buffer for the reason is allowed. */
    struct svc_fleet_vector v;
    assert_int_equal(svc_fleet_parse("{}", 2, "", 10, &v, NULL, 0), SVC_FLEET_E_MALFORMED);
}

static void test_series_limit(void **state)
{
    (void)state;
    char body[4096];
    size_t n = (size_t)snprintf(body, sizeof(body), OK_HEAD);
    for (int i = 0; i < 11; i++)
        n += (size_t)snprintf(body + n, sizeof(body) - n,
                              "%s{\"metric\":{\"node\":\"n%d\"},\"value\":[1,\"0\"]}",
                              i > 0 ? "," : "", i);
    snprintf(body + n, sizeof(body) - n, OK_TAIL);
    struct svc_fleet_vector v;
    char why[128];
    assert_int_equal(svc_fleet_parse(body, strlen(body), "", 11, &v, why, sizeof(why)),
                     SVC_FLEET_OK);
    assert_int_equal(v.n, 11);
    svc_fleet_vector_free(&v);
    assert_int_equal(svc_fleet_parse(body, strlen(body), "", 10, &v, why, sizeof(why)),
                     SVC_FLEET_E_SERIES);
    assert_string_equal(why, "more than 10 series: past the limit (fleet_max_series)");
    /* A storm is refused at its limit, before its end is read (malformed or not). */
    body[strlen(body) - 3] = '\0';
    assert_int_equal(svc_fleet_parse(body, strlen(body), "", 10, &v, why, sizeof(why)),
                     SVC_FLEET_E_SERIES);
    assert_null(v.text);
}

/* Escapes are unescaped in the labels kept; members come in any order; what the
 * fleet does not read (warnings, stats, unknown members) is checked and passed
 * over; a native histogram is dropped. */
static void test_lenient_where_it_may(void **state)
{
    (void)state;
    const char *body =
        " {\"data\" : {\"result\":[{\"value\":[1.5e9,\"0.25\"],\"extra\":[true,false,null,{}],"
        "\"metric\":{\"node\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\n\","
        "\"device\":\"caf\xc3\xa9\"}},"
        "{\"metric\":{\"node\":\"h\"},\"histogram\":[1,{\"count\":\"3\",\"sum\":\"1\"}]}],"
        "\"resultType\":\"vector\"}, \"status\":\"success\",\"warnings\":[\"slow\"],"
        "\"stats\":{\"timings\":{\"a\":-0.5E+2}}}\r\n";
    struct svc_fleet_vector v;
    char why[128];
    assert_int_equal(parse(body, 10, &v, why, sizeof(why)), SVC_FLEET_OK);
    assert_int_equal(v.n, 1);
    assert_int_equal(v.dropped, 1); /* the histogram */
    assert_string_equal(v.series[0].label[SVC_FL_NODE],
                        "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" \\ / \n");
    assert_string_equal(v.series[0].label[SVC_FL_DEVICE], "caf\xc3\xa9");
    assert_true(v.series[0].value == 0.25);
    svc_fleet_vector_free(&v);
    /* A member counts as given twice at its own level only: a root "result"
     * or "resultType" beside data's is another member, and read past. */
    assert_int_equal(parse("{\"status\":\"success\",\"result\":1,\"resultType\":2,"
                           "\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
                           10, &v, why, sizeof(why)),
                     SVC_FLEET_OK);
    assert_int_equal(v.n, 0);
    svc_fleet_vector_free(&v);
    /* The body needs no NUL of its own: only `len` bytes are read. */
    char exact[sizeof(OK_HEAD OK_TAIL) - 1];
    memcpy(exact, OK_HEAD OK_TAIL, sizeof(exact));
    assert_int_equal(svc_fleet_parse(exact, sizeof(exact), "", 1, &v, why, sizeof(why)),
                     SVC_FLEET_OK);
    svc_fleet_vector_free(&v);
}

static void test_utf8_cut(void **state)
{
    (void)state;
    char a[] = "caf\xc3\xa9";
    svc_fleet_utf8_cut(a);
    assert_string_equal(a, "caf\xc3\xa9");
    char b[] = "caf\xc3"; /* cut inside é */
    svc_fleet_utf8_cut(b);
    assert_string_equal(b, "caf");
    char c[] = "ok\xff then";
    svc_fleet_utf8_cut(c);
    assert_string_equal(c, "ok");
    char d[] = "";
    svc_fleet_utf8_cut(d);
    assert_string_equal(d, "");
}

static void test_names_and_queries(void **state)
{
    (void)state;
    char q[512];
    assert_string_equal(svc_fleet_promql(SVC_FLEET_AGENT, "cluster", q, sizeof(q)),
                        "min by (cluster, node, device, model, vendor) "
                        "(accel_advisor_probe_device_free)");
    assert_string_equal(svc_fleet_promql(SVC_FLEET_AGENT, "", q, sizeof(q)),
                        "min by (node, device, model, vendor) (accel_advisor_probe_device_free)");
    assert_string_equal(svc_fleet_promql(SVC_FLEET_DCGM, NULL, q, sizeof(q)),
                        "max by (__name__, Hostname, UUID, gpu, pci_bus_id, modelName, pod) "
                        "({__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|"
                        "DCGM_FI_DEV_FB_FREE\"})");
    assert_string_equal(svc_fleet_source_name(SVC_FLEET_AGENT), "agent");
    assert_string_equal(svc_fleet_source_name(SVC_FLEET_DCGM), "dcgm-exporter");
    assert_string_equal(svc_fleet_source_name(SVC_FLEET_SOURCE_COUNT), "unknown");
    for (int e = 0; e < SVC_FLEET_ERROR_COUNT; e++)
        assert_true(strlen(svc_fleet_error_name((enum svc_fleet_error)e)) > 0);
    assert_string_equal(svc_fleet_error_name(SVC_FLEET_E_TOO_LARGE), "too_large");
    assert_string_equal(svc_fleet_error_name(SVC_FLEET_ERROR_COUNT), "other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_dropped),
        cmocka_unit_test(test_hostile_shapes),
        cmocka_unit_test(test_query_error),
        cmocka_unit_test(test_series_limit),
        cmocka_unit_test(test_utf8_cut),
        cmocka_unit_test(test_lenient_where_it_may),
        cmocka_unit_test(test_names_and_queries),
    };
    return cmocka_run_group_tests_name("service.fleet_parse", tests, NULL, NULL);
}
