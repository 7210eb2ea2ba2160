/* tests/unit/core/test_file.c -- core/src/base/file.c: the bounded regular-file
 * reader: contents NUL-terminated, the limit to the byte, and every refusal
 * (missing, a directory, a FIFO without a writer, too large, bad arguments). */
#include <errno.h>
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

#include "dc/file.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/aa-test-file-XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text, size_t len, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

static void test_reads_whole_file(void **state)
{
    (void)state;
    char path[128];
    char *buf = NULL;
    size_t len = 0;
    struct dc_file_failure why;
    write_file("a.yaml", "rules: []\n", 10, path, sizeof(path));
    assert_int_equal(dc_file_read_regular(path, 10, &buf, &len, &why), DC_OK);
    assert_int_equal(why.fault, DC_FILE_OK);
    assert_int_equal(len, 10);
    assert_string_equal(buf, "rules: []\n");
    free(buf);
    write_file("empty", "", 0, path, sizeof(path));
    assert_int_equal(dc_file_read_regular(path, 10, &buf, &len, NULL), DC_OK);
    assert_int_equal(len, 0);
    assert_string_equal(buf, "");
    free(buf);
}

static void test_limit(void **state)
{
    (void)state;
    char path[128];
    char *buf = NULL;
    size_t len = 7;
    struct dc_file_failure why;
    write_file("big", "0123456789x", 11, path, sizeof(path));
    assert_int_equal(dc_file_read_regular(path, 10, &buf, &len, &why), DC_ELIMIT);
    assert_int_equal(why.fault, DC_FILE_TOO_LARGE);
    assert_null(buf);
    assert_int_equal(len, 0);
    assert_int_equal(dc_file_read_regular(path, 11, &buf, &len, &why), DC_OK);
    assert_int_equal(len, 11);
    free(buf);
}

static void test_refusals(void **state)
{
    (void)state;
    char path[128];
    char *buf = NULL;
    size_t len = 0;
    struct dc_file_failure why;
    snprintf(path, sizeof(path), "%s/missing", dir);
    assert_int_equal(dc_file_read_regular(path, 10, &buf, &len, &why), DC_EIO);
    assert_int_equal(why.fault, DC_FILE_CANNOT_OPEN);
    assert_int_equal(why.errno_value, ENOENT);
    assert_int_equal(dc_file_read_regular(dir, 10, &buf, &len, &why), DC_EIO);
    assert_int_equal(why.fault, DC_FILE_NOT_REGULAR);
    /* A FIFO with no writer: refused at once (the test would hang otherwise). */
    snprintf(path, sizeof(path), "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(dc_file_read_regular(path, 10, &buf, &len, &why), DC_EIO);
    assert_int_equal(why.fault, DC_FILE_NOT_REGULAR);
    assert_null(buf);
    assert_int_equal(dc_file_read_regular(NULL, 10, &buf, &len, &why), DC_EINVAL);
    assert_int_equal(dc_file_read_regular(path, 10, NULL, &len, &why), DC_EINVAL);
    assert_int_equal(dc_file_read_regular(path, SIZE_MAX, &buf, &len, &why), DC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_whole_file),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests_name("file", tests, setup, teardown);
}
