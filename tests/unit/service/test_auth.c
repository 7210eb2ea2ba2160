/* tests/unit/service/test_auth.c -- service/src/auth.c: the keys file, bearer
 * parsing and digest matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "auth.h"

static void digest(const char *key, char out[65])
{
    unsigned char md[32];
    unsigned int n = 0;
    assert_int_equal(EVP_Digest(key, strlen(key), md, &n, EVP_sha256(), NULL), 1);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static char *keys_file(const char *text)
{
    static char path[128];
    snprintf(path, sizeof(path), "/tmp/aa-keys-%d", (int)getpid());
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

static void test_load_and_check(void **state)
{
    (void)state;
    char d1[65], d2[65], text[512];
    struct dc_error err;
    digest("alpha-key", d1);
    digest("beta key with spaces?", d2);
    snprintf(text, sizeof(text), "# team A\n%s\n\n   # team B (sha256sum output)\n%s  -\n", d1, d2);
    char *path = keys_file(text);
    svc_auth *a = NULL;
    assert_int_equal(svc_auth_load(path, &a, &err), DC_OK);
    assert_int_equal(svc_auth_count(a), 2);
    assert_true(svc_auth_check(a, "Bearer alpha-key"));
    assert_true(svc_auth_check(a, "bearer alpha-key"));
    assert_true(svc_auth_check(a, "BEARER   alpha-key  "));
    assert_true(svc_auth_check(a, "Bearer beta key with spaces?"));
    assert_false(svc_auth_check(a, "Bearer alpha-kez"));
    assert_false(svc_auth_check(a, "Bearer "));
    assert_false(svc_auth_check(a, "Bearer"));
    assert_false(svc_auth_check(a, "Bearertoken"));
    assert_false(svc_auth_check(a, "Basic YWxwaGEta2V5"));
    assert_false(svc_auth_check(a, "alpha-key"));
    assert_false(svc_auth_check(a, ""));
    assert_false(svc_auth_check(a, NULL));
    assert_false(svc_auth_check(NULL, "Bearer alpha-key"));
    svc_auth_release(a);
    unlink(path);
    svc_auth_release(NULL);
}

static void expect_load_error(const char *text, const char *needle)
{
    struct dc_error err;
    char *path = keys_file(text);
    svc_auth *a = NULL;
    assert_int_equal(svc_auth_load(path, &a, &err), DC_EPARSE);
    assert_int_equal(err.code, DC_EPARSE);
    assert_null(a);
    if (strstr(err.msg, needle) == NULL)
        fail_msg("\"%s\" lacks \"%s\"", err.msg, needle);
    unlink(path);
}

static void test_load_errors(void **state)
{
    (void)state;
    char d[65], text[256];
    digest("x", d);
    snprintf(text, sizeof(text), "%s\nnot-a-digest\n", d);
    expect_load_error(text, ":2: not a SHA-256 digest");
    /* Uppercase hex is refused: the format is lowercase only. */
    char up[65];
    for (int i = 0; i < 64; i++)
        up[i] = (char)(d[i] >= 'a' ? d[i] - 32 : d[i]);
    up[64] = '\0';
    snprintf(text, sizeof(text), "%s\n", up);
    expect_load_error(text, ":1: not a SHA-256 digest");
    expect_load_error("# only comments\n\n", "no digest");
    struct dc_error err;
    svc_auth *a = NULL;
    assert_int_equal(svc_auth_load("/nonexistent/keys", &a, &err), DC_EIO);
    assert_string_equal(err.msg, "/nonexistent/keys: No such file or directory");
    /* A file with no digest is refused even without an error record. */
    char *path = keys_file("\n");
    assert_int_equal(svc_auth_load(path, &a, NULL), DC_EPARSE);
    assert_null(a);
    unlink(path);
}

static void test_from_digests(void **state)
{
    (void)state;
    char d[65];
    struct dc_error err;
    digest("k", d);
    const char *list[] = {d};
    svc_auth *a = NULL;
    assert_int_equal(svc_auth_from_digests(list, 1, &a, &err), DC_OK);
    assert_true(svc_auth_check(a, "Bearer k"));
    svc_auth_release(a);
    const char *bad[] = {"zz"};
    assert_int_equal(svc_auth_from_digests(bad, 1, &a, &err), DC_EINVAL);
    assert_string_equal(err.msg, "digest 1 is not 64 lowercase hex characters");
    assert_int_equal(svc_auth_from_digests(list, 0, &a, &err), DC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_and_check),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_from_digests),
    };
    return cmocka_run_group_tests_name("service.auth", tests, NULL, NULL);
}
