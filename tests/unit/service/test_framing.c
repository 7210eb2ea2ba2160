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
    svc_framing_begin(&f, version, NULL);
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

static void test_query_args_and_paths(void **state)
{
    (void)state;
    assert_int_equal(svc_target_query_args("/v1/rules", 32), 0);
    assert_int_equal(svc_target_query_args("/v1/rules?", 32), 0);
    assert_int_equal(svc_target_query_args("/a?x=1", 32), 1);
    assert_int_equal(svc_target_query_args("/a?x=1&y&&z=", 32), 4);
    assert_int_equal(svc_target_query_args("/a?x?y&z", 32), 2);     /* only the first ? starts it */
    assert_int_equal(svc_target_query_args("/a?&&&&&&&&&&", 3), 4); /* counts to max + 1 */
    assert_int_equal(svc_target_query_args(NULL, 32), 0);

    /* Origin-form: the path as decoded. */
    assert_string_equal(svc_target_path("/v1/rules?x=1", "/v1/rules"), "/v1/rules");
    assert_string_equal(svc_target_path("*", "*"), "*");
    /* Absolute-form (RFC 9112 section 3.2.2): the part after the authority. */
    assert_string_equal(svc_target_path("http://x/healthz", "http://x/healthz"), "/healthz");
    assert_string_equal(svc_target_path("HTTPS://api.example:8443/v1/rules?a=b",
                                        "HTTPS://api.example:8443/v1/rules"),
                        "/v1/rules");
    assert_string_equal(svc_target_path("http://[::1]:80/a%20b", "http://[::1]:80/a b"), "/a b");
    assert_string_equal(svc_target_path("http://x", "http://x"), "/");
    assert_string_equal(svc_target_path("http://x?q=1", "http://x"), "/");
    /* An authority that is not host[:port]: refused. */
    assert_null(svc_target_path("http://user@x/healthz", "http://user@x/healthz"));
    assert_null(svc_target_path("http://%78/healthz", "http://x/healthz"));
    assert_null(svc_target_path("http:///healthz", "http:///healthz"));
    /* Not a scheme this server is: routed as it is (404). */
    assert_string_equal(svc_target_path("ftp://x/healthz", "ftp://x/healthz"), "ftp://x/healthz");
}

/* ---- the raw header section ---- */

/* The header section of `req` (`len` bytes) as libmicrohttpd 0.9.75 leaves it in
 * its read buffer, and the fields it stores, built the way it builds them: the
 * spaces around the target and each line terminator (CR LF, or a bare LF) and
 * field colon become NUL bytes; a value starts after the colon's whitespace and
 * ends at the first NUL (its C string); a line with an empty name ends the
 * section. */
struct mhd_like {
    char buf[512];
    struct svc_framing_raw raw;
    const char *name[16], *value[16];
    size_t nlen[16], vlen[16], n;
};

/* The line at *at, its terminator overwritten; *at moves past it. */
static char *mhd_line(char **at, char *end)
{
    char *line = *at, *p = line;
    while (p < end && *p != '\n')
        p++;
    if (p > line && p[-1] == '\r')
        p[-1] = '\0';
    *p = '\0';
    *at = p + 1;
    return line;
}

static void mhd_like(struct mhd_like *m, const char *req, size_t len)
{
    memset(m, 0, sizeof(*m));
    memcpy(m->buf, req, len);
    char *at = m->buf, *end = m->buf + len;
    char *line = mhd_line(&at, end);
    char *sp1 = strchr(line, ' '), *sp2 = strrchr(line, ' ');
    *sp1 = *sp2 = '\0';
    char *target = sp1 + 1;
    while (*target == ' ')
        target++; /* the library skips spaces after the method */
    m->raw = (struct svc_framing_raw){m->buf, 0, target, strlen(target), sp2 + 1};
    while (at < end) {
        line = mhd_line(&at, end);
        char *colon = strchr(line, ':');
        if (line[0] == '\0' || colon == NULL)
            break;
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        m->name[m->n] = line;
        m->nlen[m->n] = strlen(line);
        m->value[m->n] = v;
        m->vlen[m->n++] = strlen(v);
        if (line[0] == '\0')
            break; /* ": v" ended the section */
    }
    m->raw.len = (size_t)(at - m->buf);
}

static int check_raw(struct mhd_like *m, char *detail, size_t len)
{
    struct svc_framing f;
    svc_framing_begin(&f, m->raw.version, &m->raw);
    for (size_t i = 0; i < m->n; i++) {
        if (m->nlen[i] > 0)
            svc_framing_field(&f, m->name[i], m->nlen[i], m->value[i], m->vlen[i]);
    }
    int st = svc_framing_end(&f);
    snprintf(detail, len, "%s", f.detail);
    return st;
}

#define RAW(s) s, sizeof(s) - 1

static void expect_raw(const char *req, size_t len, int status, const char *want)
{
    struct mhd_like m;
    char detail[SVC_FRAMING_DETAIL_MAX];
    mhd_like(&m, req, len);
    int st = check_raw(&m, detail, sizeof(detail));
    if (st != status || (want != NULL && strstr(detail, want) == NULL))
        fail_msg("%.40s: got %d \"%s\", want %d \"%s\"", req, st, detail, status,
                 want != NULL ? want : "");
}

static void test_raw_section(void **state)
{
    (void)state;
    expect_raw(RAW("GET /x HTTP/1.1\r\nHost: x\r\nX-A:\r\nX-B: \t b \r\n\r\n"), 0, NULL);
    expect_raw(RAW("GET /x HTTP/1.1\nHost: x\nX-A: b\n\n"), 0, NULL);
    expect_raw(RAW("GET /x HTTP/1.1\r\nHost: x\nX-A: b\r\n\n"), 0, NULL);
    expect_raw(RAW("GET /x HTTP/1.0\r\n\r\n"), 0, NULL);
    expect_raw(RAW("GET /x?a=1&b=2 HTTP/1.1\r\nHost: x\r\n\r\n"), 0, NULL);
    /* A line with an empty name ends the section for the library. */
    expect_raw(RAW("GET /x HTTP/1.1\r\nHost: x\r\n: v\r\n"), 400, "empty name");
    expect_raw(RAW("GET /x HTTP/1.1\nHost: x\n: v\n"), 400, "empty name");
    expect_raw(RAW("GET /x HTTP/1.1\r\n: v\r\n"), 400, "empty name");
    /* A NUL byte cuts a value (or the target) short. */
    expect_raw(RAW("GET /x HTTP/1.1\r\nContent-Length: 4\0junk\r\nHost: x\r\n\r\n"), 400,
               "value of header field Content-Length has a NUL byte");
    expect_raw(RAW("GET /x HTTP/1.1\r\nHost: x\0junk\r\n\r\n"), 400,
               "value of header field Host has a NUL byte");
    expect_raw(RAW("GET /x\0y HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "request line");
    expect_raw(RAW("GET /x HTTP/1.1\0y\r\nHost: x\r\n\r\n"), 400, "request line has a NUL");
    /* Extra spaces the library skips. */
    expect_raw(RAW("GET  /x HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "request line");
    /* A field the library stored away from its line: a folded name. */
    struct mhd_like m;
    char detail[SVC_FRAMING_DETAIL_MAX];
    static const char folded[] = "GET /x HTTP/1.1\r\nHost: x\r\nContent-: 2\r\n Length\r\n\r\n";
    mhd_like(&m, RAW(folded));
    static const char moved[] = "Content-Length";
    m.name[1] = moved;
    m.nlen[1] = strlen(moved);
    assert_int_equal(check_raw(&m, detail, sizeof(detail)), 400);
    assert_non_null(strstr(detail, "completed by a folded line"));
    /* A value holding a NUL, as a library that stores whole lines gives it. */
    expect(NULL, F("X-A\0"), 0, NULL);
    struct svc_framing f;
    svc_framing_begin(&f, NULL, NULL);
    svc_framing_field(&f, "Authorization", 13, "Bearer k\0junk", 13);
    assert_int_equal(svc_framing_end(&f), 400);
    assert_non_null(strstr(f.detail, "Authorization has a NUL byte"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acceptable),           cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_transfer_encoding),    cmocka_unit_test(test_names_values_host),
        cmocka_unit_test(test_unknown_version),      cmocka_unit_test(test_targets),
        cmocka_unit_test(test_query_args_and_paths), cmocka_unit_test(test_raw_section),
    };
    return cmocka_run_group_tests_name("service.framing", tests, NULL, NULL);
}
