/* tests/unit/api/test_text_table.c -- api/src/text_table.c: a grid's columns
 * as wide as their widest cell in characters (UTF-8), fitted to a width by
 * leaving columns out in order and cutting one with an ellipsis; lines wrapped
 * at spaces with a hanging indent, a word longer than a line kept whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/text_table.h"

/* What `print` writes (owned). */
static char *capture(void (*print)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    print(fp, arg);
    fclose(fp);
    return buf;
}

struct wrap_case {
    const char *text;
    size_t indent, cols;
};

static void print_wrap(FILE *fp, const void *arg)
{
    const struct wrap_case *c = arg;
    api_text_wrap_line(fp, c->text, c->indent, c->cols);
}

static void expect_wrap(const char *text, size_t indent, size_t cols, const char *want)
{
    const struct wrap_case c = {text, indent, cols};
    char *got = capture(print_wrap, &c);
    if (strcmp(got, want) != 0)
        fail_msg("wrap \"%s\" at %zu (indent %zu):\n%s\nwant:\n%s", text, cols, indent, got, want);
    free(got);
}

static void test_wrap(void **state)
{
    (void)state;
    /* Fits: as it is. No width: as it is. */
    expect_wrap("one two three", 2, 40, "one two three\n");
    expect_wrap("one two three four five six", 2, 0, "one two three four five six\n");
    /* Broken at the last space that fits, the rest indented. */
    expect_wrap("aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk", 4, 25,
                "aaa bbb ccc ddd eee fff\n    ggg hhh iii jjj kkk\n");
    /* Characters, not bytes: "\u2713" is one. */
    expect_wrap("a \u2713 b \u2713 c \u2713 d \u2713 e \u2713 f \u2713 g \u2713 h \u2713 i", 0, 20,
                "a \u2713 b \u2713 c \u2713 d \u2713 e \u2713\nf \u2713 g \u2713 h \u2713 i\n");
    /* A word longer than a line (a URL) is kept whole, on a line of its own. */
    expect_wrap("see https://example.com/a/very/long/path/that/does/not/fit here", 2, 30,
                "see\n  https://example.com/a/very/long/path/that/does/not/fit\n  here\n");
    /* The first line's own columns (before the indent) are no place to break. */
    expect_wrap("  +10  rule-id  the reason is a sentence of several words", 17, 40,
                "  +10  rule-id  the reason is a sentence\n                 of several words\n");
}

static void print_grid(FILE *fp, const void *arg)
{
    const size_t *cols = arg;
    struct api_grid g = {0};
    api_grid_col(&g, "NAME", false, 0);
    api_grid_col(&g, "LONG TEXT", false, 0);
    api_grid_col(&g, "N", true, 2);
    api_grid_col(&g, "EXTRA", false, 1);
    static const char *const rows[][4] = {{"a", "a cell of some length here", "1", "x"},
                                          {"b\u2714", "short", "22", "yy"}};
    for (size_t r = 0; r < 2; r++) {
        char(*row)[API_GRID_CELL] = api_grid_row(&g);
        assert_non_null(row);
        for (size_t c = 0; c < 4; c++)
            api_grid_cellf(row[c], "%s", rows[r][c]);
    }
    char gone[64];
    api_grid_fit(&g, *cols, 1, 8, gone, sizeof(gone));
    api_grid_print(&g, fp, "", NULL, true);
    fprintf(fp, "gone: %s\n", gone);
    api_grid_free(&g);
}

static void expect_grid(size_t cols, const char *want)
{
    char *got = capture(print_grid, &cols);
    if (strcmp(got, want) != 0)
        fail_msg("grid at %zu:\n%s\nwant:\n%s", cols, got, want);
    free(got);
}

static void test_grid(void **state)
{
    (void)state;
    /* Wide enough: every column, numbers right, the last left unpadded. */
    expect_grid(0, "NAME  LONG TEXT                    N  EXTRA\n"
                   "a     a cell of some length here   1  x\n"
                   "b\u2714    short                       22  yy\n"
                   "gone: \n");
    /* A little too wide: the text column is cut, its last character an
     * ellipsis, before any column goes. */
    expect_grid(40, "NAME  LONG TEXT                 N  EXTRA\n"
                    "a     a cell of some length \u2026   1  x\n"
                    "b\u2714    short                    22  yy\n"
                    "gone: \n");
    /* Too wide even with it cut to 8: EXTRA (drop order 1) goes, then the cut
     * makes up the rest. */
    expect_grid(24, "NAME  LONG TEXT        N\n"
                    "a     a cell of som\u2026   1\n"
                    "b\u2714    short           22\n"
                    "gone: EXTRA\n");
    /* Narrower still: N (drop order 2) goes too. */
    expect_grid(16, "NAME  LONG TEXT\n"
                    "a     a cell of\u2026\n"
                    "b\u2714    short\n"
                    "gone: EXTRA, N\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_grid),
    };
    return cmocka_run_group_tests_name("api.text_table", tests, NULL, NULL);
}
