/* tests/unit/service/test_suggest.c -- service/src/suggest.c: edit distance
 * and the "did you mean" the CLI prints for commands, flags and values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(svc_edit_distance("", ""), 0);
    assert_int_equal(svc_edit_distance("abc", ""), 3);
    assert_int_equal(svc_edit_distance("recommend", "recommend"), 0);
    assert_int_equal(svc_edit_distance("recomend", "recommend"), 1);   /* a deletion */
    assert_int_equal(svc_edit_distance("reccommend", "recommend"), 1); /* an insertion */
    assert_int_equal(svc_edit_distance("tabel", "table"), 1);          /* a swap */
    assert_int_equal(svc_edit_distance("shwo", "show"), 1);
    assert_int_equal(svc_edit_distance("ca", "abc"), 3); /* no letter swapped twice */
    assert_int_equal(svc_edit_distance("kitten", "sitting"), 3);
    char longer[SVC_SUGGEST_MAX_LEN + 2];
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    assert_int_equal(svc_edit_distance(longer, "a"), SIZE_MAX);
}

static void test_suggest(void **state)
{
    (void)state;
    static const char *const cmds[] = {"recommend", "check",    "logic", "version",   "serve",
                                       "agent",     "validate", "probe", "calibrate", "prices"};
    const size_t n = sizeof(cmds) / sizeof(cmds[0]);
    assert_string_equal(svc_suggest("recomend", cmds, n), "recommend");
    assert_string_equal(svc_suggest("valdate", cmds, n), "validate");
    assert_string_equal(svc_suggest("price", cmds, n), "prices");
    assert_string_equal(svc_suggest("serv", cmds, n), "serve");
    /* Too far, or too short to tell: nothing. */
    assert_null(svc_suggest("frobnicate", cmds, n));
    assert_null(svc_suggest("x", cmds, n));
    assert_null(svc_suggest("", cmds, n));
    static const char *const fmts[] = {"json", "yaml", "table", "wide"};
    assert_string_equal(svc_suggest("tabel", fmts, 4), "table");
    assert_string_equal(svc_suggest("jsn", fmts, 4), "json");
    assert_null(svc_suggest("csv", fmts, 4));
}

/* A flag getopt_long refused: a suggestion for a long flag near a known one,
 * none for a known flag (refused for its argument) or a short one. */
static void test_option(void **state)
{
    (void)state;
    static const struct option opts[] = {{"pretty", no_argument, NULL, 'p'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {NULL, 0, NULL, 0}};
    char a0[] = "cmd", a1[] = "--pretyy", a2[] = "--output", a3[] = "-z", a4[] = "--zzzzzz",
         a5[] = "--quite=1";
    char *argv[] = {a0, a1, a2, a3, a4, a5, NULL};
    optind = 2; /* getopt_long has just refused argv[1] */
    assert_true(svc_suggest_option("cmd", 6, argv, opts));
    optind = 3;
    assert_false(svc_suggest_option("cmd", 6, argv, opts));
    optind = 4;
    assert_false(svc_suggest_option("cmd", 6, argv, opts));
    optind = 5;
    assert_false(svc_suggest_option("cmd", 6, argv, opts));
    optind = 6;
    assert_true(svc_suggest_option("cmd", 6, argv, opts));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_option),
    };
    return cmocka_run_group_tests_name("service.suggest", tests, NULL, NULL);
}
