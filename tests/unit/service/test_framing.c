/* tests/unit/service/test_framing.c -- service/src/framing.c: each framing rule of
 * RFC 9112 the server adds to libmicrohttpd's, on header fields as the library
 * stores them, and the request-target check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "framing.h"

/* Run the checks over `fields`: "Name\0value" pairs ending with NULL. */
static int check(const char *version, const char *const *fields, char *detail, size_t len)
{
    struct svc_framing f;
    svc_framing_begin(&f, version);
    for (const char *const *p = fields; *p != NULL; p++) {
        size_t nl = strlen(*p);
        const char *v = *p + nl + 1;
        svc_framing_field(&f, *p, nl, v, strlen(v));
    }
    int st = svc_framing_end(&f);
    snprintf(detail, len, "%s", f.detail);
    return st;
}

#define F(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect(const char *version, const char *const *fields, int status, const char *want)
{
    char detail[SVC_FRAMING_DETAIL_MAX];
    int st = check(version, fields, detail, sizeof(detail));
    if (st != status || (want != NULL && strstr(detail, want) == NULL))
        fail_msg("%s %s...: got %d \"%s\", want %d \"%s\"", version != NULL ? version : "?",
                 fields[0], st, detail, status, want != NULL ? want : "");
}

static void test_acceptable(void **state)
{
    (void)state;
    expect("HTTP/1.1", F("Host\0x"), 0, NULL);
    expect("HTTP/1.1",
           F("host\0"
             "127.0.0.1:8080",
             "Content-Length\0"
             "48"),
           0, NULL);
    expect("HTTP/1.1", F("Host\0[::1]:80", "transfer-encoding\0CHUNKED"), 0, NULL);
    expect("HTTP/1.1", F("Host\0", "X-Odd\0a\x01\x7f b"), 0, NULL); /* empty Host is valid */
    expect("HTTP/1.0",
           F("Content-Length\0"
             "0"),
           0, NULL); /* 1.0 needs no Host */
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\0"
                        "00"),
           0, NULL);
}

static void test_content_length(void **state)
{
    (void)state;
    static const char *const bad[] = {"48, 48", "-1", "+48", "0x30", "", " 48", "48 ", "4 8"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char field[64];
        snprintf(field, sizeof(field), "Content-Length%c%s", '\0', bad[i]);
        expect("HTTP/1.1", F("Host\0x", field), 400, "is not a number of bytes");
    }
    /* Past 64 bits: 413, as libmicrohttpd answers it. */
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\0"
                        "18446744073709551615"),
           0, NULL);
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\0"
                        "000018446744073709551615"),
           0, NULL);
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\0"
                        "18446744073709551616"),
           413, "is past 64 bits");
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\0"
                        "99999999999999999999999"),
           413, NULL);
    expect("HTTP/1.1",
           F("Host\0x",
             "Content-Length\0"
             "2",
             "Content-Length\0"
             "93"),
           400, "more than one Content-Length");
    expect("HTTP/1.1",
           F("Host\0x",
             "Content-Length\0"
             "5",
             "content-length\0"
             "5"),
           400, "more than one Content-Length");
}

static void test_transfer_encoding(void **state)
{
    (void)state;
    expect("HTTP/1.1",
           F("Host\0x",
             "Content-Length\0"
             "5",
             "Transfer-Encoding\0chunked"),
           400, "both Content-Length and Transfer-Encoding");
    expect("HTTP/1.1",
           F("Host\0x", "Transfer-Encoding\0chunked",
             "Content-Length\0"
             "5"),
           400, "both Content-Length and Transfer-Encoding");
    expect("HTTP/1.0", F("Transfer-Encoding\0chunked", "Connection\0keep-alive"), 400,
           "not allowed in an HTTP/1.0 request");
    /* Any coding but chunked is 501, however it is written. */
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0gzip, chunked"), 501,
           "only chunked is supported");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0gzip"), 501, NULL);
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0identity"), 501, NULL);
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0chunked, gzip"), 501, NULL);
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0gzip;q=1"), 501, NULL);
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0gzip", "Transfer-Encoding\0chunked"), 501,
           NULL);
    /* chunked written any other way is read differently by the library: 400. */
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0chunked, chunked"), 400,
           "is not exactly \"chunked\"");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0chunked "), 400, "not exactly");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0chunked;x=1"), 400, "not exactly");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0,chunked"), 400, "not exactly");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0"), 400, "not exactly");
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding\0chunked", "Transfer-Encoding\0chunked"),
           400, "more than one Transfer-Encoding");
}

static void test_names_values_host(void **state)
{
    (void)state;
    expect("HTTP/1.1", F("Host\0x", "Transfer-Encoding \0chunked"), 400,
           "\"Transfer-Encoding \" has whitespace before its colon");
    expect("HTTP/1.1",
           F("Host\0x", "Content-Length\t\0"
                        "5"),
           400, "whitespace before its colon");
    expect("HTTP/1.1", F("Host\0x", "X(y)\0z"), 400, "is not a token");
    expect("HTTP/1.1", F("Host\0x", "\0z"), 400, "is not a token");
    expect("HTTP/1.1", F("Host\0x", "X-A\0b\rc"), 400, "has a bare CR");
    /* obs-fold, as libmicrohttpd stores it: the continuation joined to the name. */
    expect("HTTP/1.1",
           F("Host\0x", "Content-Lengthx\0"
                        "30"),
           400, "extends a framing field's");
    expect("HTTP/1.1", F("Host\0x", "transfer-encodingchunked\0y"), 400, "extends");
    expect("HTTP/1.1", F("Host\0x", "XTransfer-Encoding: chunked\0a"), 400, "is not a token");
    expect("HTTP/1.1", F("Host\0x", "Content-Location\0/a"), 0, NULL);
    expect("HTTP/1.1",
           F("Content-Length\0"
             "0"),
           400, "needs a Host field");
    expect("HTTP/1.1", F("Host\0a", "Host\0b"), 400, "more than one Host");
    expect("HTTP/1.0", F("Host\0a", "Host\0a"), 400, "more than one Host");
    expect("HTTP/1.1", F("Host\0a b"), 400, "is not host[:port]");
    expect("HTTP/1.1", F("Host\0a/b"), 400, "is not host[:port]");
    expect("HTTP/1.1", F("Host\0user@a"), 400, "is not host[:port]");
    /* The first problem is the one reported, quoting printable bytes only. */
    char detail[SVC_FRAMING_DETAIL_MAX];
    assert_int_equal(
        check("HTTP/1.1", F("X\x01y\0z", "Host\0a", "Host\0b"), detail, sizeof(detail)), 400);
    assert_string_equal(detail, "the header field name \"X?y\" is not a token");
}

/* Without the version (libmicrohttpd refusing the headers before the access
 * handler runs), the rules that depend on it are left out. */
static void test_unknown_version(void **state)
{
    (void)state;
    expect(NULL,
           F("Content-Length\0"
             "1"),
           0, NULL);
    expect(NULL, F("Transfer-Encoding\0chunked"), 0, NULL);
    expect(NULL, F("Content-Length\0-1"), 400, "is not a number of bytes");
}

static void test_targets(void **state)
{
    (void)state;
    static const char *const good[] = {
        "/v1/rules", "/v1/accelerators?family=gpu&vendor=nvidia", "/a%20b", "/%2F", "/%zz", "*",
        "/%7e"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (svc_target_problem(good[i]) != NULL)
            fail_msg("%s refused: %s", good[i], svc_target_problem(good[i]));
    }
    static const char *const encoded[] = {"/v1/rules%00", "/v1/rules%00.json",
                                          "/a%0d%0aX: y", "/a%1F",
                                          "/a%7F",        "/v1/accelerators?family=gpu%00"};
    for (size_t i = 0; i < sizeof(encoded) / sizeof(encoded[0]); i++) {
        const char *p = svc_target_problem(encoded[i]);
        if (p == NULL || strstr(p, "percent-encoded control") == NULL)
            fail_msg("%s: %s", encoded[i], p != NULL ? p : "accepted");
    }
    static const char *const raw[] = {"/a b", "/a\tb", "/a\x01", "/a\x7f"};
    for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
        assert_non_null(strstr(svc_target_problem(raw[i]), "a space or a control character"));
    assert_non_null(svc_target_problem(NULL));
    assert_non_null(svc_target_problem(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acceptable),        cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_transfer_encoding), cmocka_unit_test(test_names_values_host),
        cmocka_unit_test(test_unknown_version),   cmocka_unit_test(test_targets),
    };
    return cmocka_run_group_tests_name("service.framing", tests, NULL, NULL);
}
