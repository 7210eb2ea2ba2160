/* tests/unit/service/test_log.c -- service/src/log.c: every line is one valid
 * JSON object, escaped, cut safely when too long. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "log.h"

static FILE *capture;

static int setup(void **state)
{
    (void)state;
    capture = tmpfile();
    if (capture == NULL)
        return -1;
    svc_log_set_fd(fileno(capture));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    svc_log_set_fd(2);
    fclose(capture);
    return 0;
}

/* The lines written since the last call, each parsed. */
static cJSON *last_line(void)
{
    static long pos;
    char buf[8192];
    fflush(capture);
    fseek(capture, pos, SEEK_SET);
    cJSON *last = NULL;
    while (fgets(buf, sizeof(buf), capture) != NULL) {
        size_t n = strlen(buf);
        assert_true(n > 0 && buf[n - 1] == '\n');
        cJSON_Delete(last);
        last = cJSON_Parse(buf);
        if (!cJSON_IsObject(last))
            fail_msg("not a JSON object: %s", buf);
    }
    pos = ftell(capture);
    return last;
}

static void test_fields(void **state)
{
    (void)state;
    struct svc_log_line l;
    svc_log_begin(&l, "info", "request");
    svc_log_str(&l, "request_id", "abc");
    svc_log_str(&l, "weird", "quote\" back\\ nl\n tab\t ctl\x01 del\x7f caf\xc3\xa9");
    svc_log_str(&l, "none", NULL);
    svc_log_str(&l, "bad", "x\xff\xc3(y\xed\xa0\x80z");
    svc_log_int(&l, "status", -404);
    svc_log_uint(&l, "bytes", 18446744073709551615ull);
    svc_log_num(&l, "duration_ms", 0.125);
    svc_log_num(&l, "nan", NAN);
    svc_log_bool(&l, "ok", true);
    svc_log_end(&l);
    cJSON *j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "level")->valuestring, "info");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "event")->valuestring, "request");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "weird")->valuestring,
                        "quote\" back\\ nl\n tab\t ctl\x01 del\x7f caf\xc3\xa9");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "none")));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "bad")->valuestring,
                        "x\xef\xbf\xbd\xef\xbf\xbd(y\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valueint, -404);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "nan")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok")));
    const char *t = cJSON_GetObjectItemCaseSensitive(j, "time")->valuestring;
    assert_int_equal(strlen(t), 24); /* 2025-01-02T03:04:05.678Z */
    assert_int_equal(t[23], 'Z');
    cJSON_Delete(j);

    svc_log_msg("warn", "thing", "formatted %d %s", 7, "x");
    j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring, "formatted 7 x");
    cJSON_Delete(j);
}

/* Every line has a message: its own, or its event when it gave none. */
static void test_every_line_has_msg(void **state)
{
    (void)state;
    struct svc_log_line l;
    svc_log_begin(&l, "info", "listening");
    svc_log_uint(&l, "port", 8080);
    svc_log_end(&l);
    cJSON *j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring, "listening");
    cJSON_Delete(j);

    svc_log_begin(&l, "info", "request");
    svc_log_str(&l, "route", "/v1/rules");
    svc_log_end_msg(&l, "GET %s %d", "/v1/rules", 200);
    j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring,
                        "GET /v1/rules 200");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "route")->valuestring, "/v1/rules");
    cJSON_Delete(j);

    /* A "msg" field given as a field is the message; no second one is added. */
    svc_log_begin(&l, "error", "rules_problem");
    svc_log_str(&l, "msg", "rules.yaml:3: x: bad");
    svc_log_end(&l);
    j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring,
                        "rules.yaml:3: x: bad");
    char text[SVC_LOG_LINE_MAX + 1];
    memcpy(text, l.buf, l.len);
    text[l.len] = '\0';
    const char *first = strstr(text, "\"msg\"");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\"msg\""));
    cJSON_Delete(j);
}

/* Lines below the level are not written; the level names parse strictly. */
static void test_levels(void **state)
{
    (void)state;
    enum svc_log_level lv = SVC_LOG_INFO;
    assert_true(svc_log_level_parse("debug", &lv));
    assert_int_equal(lv, SVC_LOG_DEBUG);
    assert_true(svc_log_level_parse("error", &lv));
    assert_int_equal(lv, SVC_LOG_ERROR);
    assert_false(svc_log_level_parse("Info", &lv));
    assert_false(svc_log_level_parse("", &lv));
    assert_int_equal(lv, SVC_LOG_ERROR);

    (void)last_line();
    svc_log_set_level(SVC_LOG_WARN);
    assert_false(svc_log_enabled("info"));
    assert_true(svc_log_enabled("warn"));
    assert_true(svc_log_enabled("fatal")); /* unknown levels are never muted */
    struct svc_log_line l;
    svc_log_begin(&l, "info", "request");
    svc_log_str(&l, "route", "/v1/rules");
    svc_log_end_msg(&l, "muted %d", 1);
    svc_log_msg("debug", "thing", "muted too");
    assert_null(last_line());
    svc_log_msg("error", "thing", "shown");
    cJSON *j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "level")->valuestring, "error");
    cJSON_Delete(j);

    svc_log_set_level(SVC_LOG_DEBUG);
    svc_log_msg("debug", "thing", "now shown");
    j = last_line();
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring, "now shown");
    cJSON_Delete(j);
    svc_log_set_level(SVC_LOG_INFO);
    assert_false(svc_log_enabled("debug"));
}

static void test_long_lines_stay_valid(void **state)
{
    (void)state;
    char *big = malloc(20000);
    memset(big, 'a', 19999);
    big[19999] = '\0';
    for (size_t fields = 1; fields < 6; fields++) {
        struct svc_log_line l;
        svc_log_begin(&l, "info", "long");
        for (size_t i = 0; i < fields; i++) {
            svc_log_str(&l, "s", big + i * 1000);
            svc_log_int(&l, "n", 1);
        }
        svc_log_end(&l);
        cJSON *j = last_line();
        assert_non_null(j);
        assert_true(l.len <= SVC_LOG_LINE_MAX);
        cJSON_Delete(j);
    }
    /* Escapes near the end of the buffer never split. */
    for (size_t pad = 4000; pad < 4096; pad++) {
        struct svc_log_line l;
        big[pad] = '\0';
        svc_log_begin(&l, "info", "edge");
        svc_log_str(&l, "p", big + 4000 - (pad - 4000) * 40);
        svc_log_str(&l, "e", "\"\"\"\"\x01\x01\x01");
        svc_log_end(&l);
        big[pad] = 'a';
        cJSON *j = last_line();
        assert_non_null(j);
        cJSON_Delete(j);
    }
    free(big);
}

/* The writers that do without printf write what printf would: integers as
 * "%lld" and "%llu", the access log's message as "%s %s %lld", a plain string
 * cut at the same byte. */
static void test_printf_free_writers(void **state)
{
    (void)state;
    const long long ints[] = {0, 1, -1, 9, 10, 404, -404, 1234567890123LL, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        struct svc_log_line l;
        char want[64];
        svc_log_begin(&l, "info", "n");
        size_t start = l.len;
        svc_log_int(&l, "n", ints[i]);
        snprintf(want, sizeof(want), ",\"n\":%lld", ints[i]);
        assert_int_equal(l.len - start, strlen(want));
        assert_memory_equal(l.buf + start, want, strlen(want));
        start = l.len;
        svc_log_uint(&l, "u", (unsigned long long)ints[i]);
        snprintf(want, sizeof(want), ",\"u\":%llu", (unsigned long long)ints[i]);
        assert_int_equal(l.len - start, strlen(want));
        assert_memory_equal(l.buf + start, want, strlen(want));
        svc_log_end(&l);
        cJSON_Delete(last_line());
    }
    const long long statuses[] = {0, 200, 404, -7, LLONG_MIN};
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        struct svc_log_line a, b;
        svc_log_begin(&a, "info", "request");
        svc_log_end_msg(&a, "%s %s %lld", "POST", "/v1/recommendations", statuses[i]);
        svc_log_begin(&b, "info", "request");
        svc_log_end_msg_words(&b, "POST", "/v1/recommendations", statuses[i]);
        /* Past the time, which may differ by a millisecond. */
        const char *ta = strstr(a.buf, "\"level\"");
        const char *tb = strstr(b.buf, "\"level\"");
        assert_int_equal(a.len - (size_t)(ta - a.buf), b.len - (size_t)(tb - b.buf));
        assert_memory_equal(ta, tb, a.len - (size_t)(ta - a.buf));
    }
    cJSON_Delete(last_line());
    char *big = malloc(SVC_LOG_LINE_MAX * 2);
    memset(big, 'a', SVC_LOG_LINE_MAX * 2 - 1);
    big[SVC_LOG_LINE_MAX * 2 - 1] = '\0';
    struct svc_log_line l;
    svc_log_begin(&l, "info", "long");
    svc_log_str(&l, "s", big);
    assert_true(l.full);
    /* Byte by byte it stopped with 4 bytes kept for the end, then closed. */
    assert_int_equal(l.len, SVC_LOG_LINE_MAX - 4 + 1);
    assert_int_equal(l.buf[l.len - 1], '"');
    free(big);
    char t[32];
    svc_log_time(t, sizeof(t));
    assert_int_equal(strlen(t), 24);
    svc_log_time(t, 11);
    assert_int_equal(strlen(t), 10); /* cut as snprintf cuts: 2025-01-02 */
    assert_int_equal(t[4], '-');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_every_line_has_msg),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_long_lines_stay_valid),
        cmocka_unit_test(test_printf_free_writers),
    };
    return cmocka_run_group_tests_name("service.log", tests, setup, teardown);
}
