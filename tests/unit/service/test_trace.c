/* tests/unit/service/test_trace.c -- service/src/trace.c: traceparent values
 * checked as the W3C Trace Context specification says, the server's own span,
 * and the header it sends back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace.h"

#define TID "4bf92f3577b34da6a3ce929d0e0e4736"
#define PID "00f067aa0ba902b7"

static void expect_valid(const char *value, const char *trace_id, const char *parent_id,
                         unsigned flags)
{
    struct svc_trace t;
    struct dc_error err;
    dc_error_clear(&err);
    if (svc_traceparent_parse(value, &t, &err) != DC_OK)
        fail_msg("\"%s\" refused: %s", value, err.msg);
    assert_int_equal(err.code, DC_OK); /* untouched */
    assert_string_equal(t.trace_id, trace_id);
    assert_string_equal(t.parent_id, parent_id);
    assert_int_equal(t.flags, flags);
}

static void expect_invalid(const char *value, const char *reason)
{
    struct svc_trace t;
    struct dc_error err;
    if (svc_traceparent_parse(value, &t, &err) != DC_EPARSE)
        fail_msg("\"%s\" accepted", value);
    assert_int_equal(err.code, DC_EPARSE);
    if (strstr(err.msg, reason) == NULL)
        fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", value, err.msg, reason);
}

static void test_valid(void **state)
{
    (void)state;
    expect_valid("00-" TID "-" PID "-01", TID, PID, 1);
    expect_valid("00-" TID "-" PID "-00", TID, PID, 0);
    /* Flags other than sampled are not defined in version 00: sent on as 0. */
    expect_valid("00-" TID "-" PID "-ff", TID, PID, 1);
    expect_valid("00-" TID "-" PID "-02", TID, PID, 0);
    /* Optional whitespace around the value (RFC 9110 OWS). */
    expect_valid(" \t00-" TID "-" PID "-01 \t", TID, PID, 1);
    /* A later version is read as version 00; it may carry more fields. */
    expect_valid("cc-" TID "-" PID "-01", TID, PID, 1);
    expect_valid("cc-" TID "-" PID "-01-what-the-future-holds", TID, PID, 1);
}

static void test_invalid(void **state)
{
    (void)state;
    expect_invalid("", "shorter");
    expect_invalid("00-" TID "-" PID "-0", "shorter");
    expect_invalid("00-" TID "-" PID "-01-extra", "exactly 55");
    expect_invalid("00-" TID "-" PID "-01x", "exactly 55");
    expect_invalid("cc-" TID "-" PID "-01x", "follow a dash");
    expect_invalid("ff-" TID "-" PID "-01", "version ff");
    expect_invalid("0g-" TID "-" PID "-01", "version");
    expect_invalid("0A-" TID "-" PID "-01", "version");
    expect_invalid("00_" TID "-" PID "-01", "version");
    expect_invalid("00-4BF92F3577B34DA6A3CE929D0E0E4736-" PID "-01", "lowercase hex");
    expect_invalid("00-" TID "-00F067AA0BA902B7-01", "lowercase hex");
    expect_invalid("00-" TID "-" PID "-0F", "lowercase hex");
    expect_invalid("00-" TID "_" PID "-01", "lowercase hex");
    expect_invalid("00-" TID "-" PID "_01", "lowercase hex");
    expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e473g-" PID "-01", "lowercase hex");
    expect_invalid("00-00000000000000000000000000000000-" PID "-01", "trace-id is all zeros");
    expect_invalid("00-" TID "-0000000000000000-01", "parent-id is all zeros");
    /* A comma-joined list of two is not one value. */
    expect_invalid("00-" TID "-" PID "-01,00-" TID "-" PID "-01", "exactly 55");
}

static bool hex_nonzero(const char *s, size_t n)
{
    bool nonzero = false;
    if (strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
        nonzero = nonzero || s[i] != '0';
    }
    return nonzero;
}

static void test_start_and_format(void **state)
{
    (void)state;
    struct svc_trace t, u;
    struct dc_error why;
    char tp[SVC_TRACEPARENT_LEN + 1];

    /* A valid header: the caller's trace, a new span of the server's. */
    svc_trace_start("00-" TID "-" PID "-01", 1, &t, &why);
    assert_int_equal(why.code, DC_OK);
    assert_string_equal(t.trace_id, TID);
    assert_string_equal(t.parent_id, PID);
    assert_true(hex_nonzero(t.span_id, SVC_SPAN_ID_HEX));
    assert_string_not_equal(t.span_id, PID);
    svc_traceparent_format(&t, tp);
    assert_int_equal(strlen(tp), SVC_TRACEPARENT_LEN);
    assert_memory_equal(tp, "00-" TID "-", 36);
    assert_memory_equal(tp + 36, t.span_id, SVC_SPAN_ID_HEX);
    assert_string_equal(tp + 52, "-01");
    /* The server's own value parses as a valid traceparent. */
    assert_int_equal(svc_traceparent_parse(tp, &u, &why), DC_OK);

    /* Each request gets its own span. */
    svc_trace_start("00-" TID "-" PID "-01", 1, &u, NULL);
    assert_string_not_equal(t.span_id, u.span_id);

    /* None: a new trace, not sampled, no reason. */
    dc_error_set(&why, DC_EINVAL, NULL, "unset");
    svc_trace_start(NULL, 0, &t, &why);
    assert_int_equal(why.code, DC_OK);
    assert_true(hex_nonzero(t.trace_id, SVC_TRACE_ID_HEX));
    assert_true(hex_nonzero(t.span_id, SVC_SPAN_ID_HEX));
    assert_string_equal(t.parent_id, "");
    assert_int_equal(t.flags, 0);
    svc_trace_start(NULL, 0, &u, NULL);
    assert_string_not_equal(t.trace_id, u.trace_id);
    svc_traceparent_format(&t, tp);
    assert_string_equal(tp + 52, "-00");

    /* Invalid, or more than one header line: a new trace and the reason. */
    svc_trace_start("00-" TID "-0000000000000000-01", 1, &t, &why);
    assert_string_equal(why.msg, "the parent-id is all zeros");
    assert_string_not_equal(t.trace_id, TID);
    assert_string_equal(t.parent_id, "");
    svc_trace_start("00-" TID "-" PID "-01", 2, &t, &why);
    assert_string_equal(why.msg, "more than one traceparent header");
    assert_string_not_equal(t.trace_id, TID);
    assert_int_equal(t.flags, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_start_and_format),
    };
    return cmocka_run_group_tests_name("service.trace", tests, NULL, NULL);
}
