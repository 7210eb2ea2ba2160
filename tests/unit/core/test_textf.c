/* tests/unit/core/test_textf.c -- dc__textf against vsnprintf: the same text
 * and the same returned length for every format the reason texts use (only
 * "%s"), for "%%", for more arguments than a plan holds, for NULL arguments
 * and for every buffer length from 0 past the whole text, the format used
 * again with other arguments (its plan is made once per thread and kept). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "textf.h"

static int reference(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int reference(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return r;
}

/* Both formatters with every length from 0 to the whole text and 8 more:
 * the bytes up to the NUL, the NUL, nothing written past it, and the length. */
#define SAME(fmt, ...)                                                                             \
    do {                                                                                           \
        for (size_t len = 0; len < 160; len++) {                                                   \
            char a[160], b[160];                                                                   \
            memset(a, 'x', sizeof(a));                                                             \
            memset(b, 'x', sizeof(b));                                                             \
            int ra = dc__textf(len > 0 ? a : NULL, len, fmt, __VA_ARGS__);                         \
            int rb = reference(len > 0 ? b : NULL, len, fmt, __VA_ARGS__);                         \
            assert_int_equal(ra, rb);                                                              \
            assert_memory_equal(a, b, sizeof(a));                                                  \
            if ((size_t)rb + 8 < len)                                                              \
                break;                                                                             \
        }                                                                                          \
    } while (0)

static void plain_formats(void **state)
{
    (void)state;
    const char *volatile none = NULL; /* glibc prints "(null)" (hidden from -Wformat) */
    for (int round = 0; round < 3; round++) {
        SAME("About %s on %s, %s: %s at %s TFLOPS peak.", "3.18 days", "256 chips",
             round == 0 ? "the fewest that hold it" : "x", "1.2 ZFLOP", "918");
        SAME("%s", round == 1 ? "" : "a longer piece of text than sixteen bytes");
        SAME("%s%s", "ab", "cdefghijklmnopqrstu");
        SAME("no conversion at all, %s", "then one");
        SAME("%s is not in constraints.accelerators.", none);
    }
}

static void other_conversions(void **state)
{
    (void)state;
    for (int round = 0; round < 2; round++) {
        SAME("%s%% of %s", "55", "the rate");
        SAME("%s, and 100%% %s", "all", "done");
    }
}

static void many_arguments(void **state)
{
    (void)state;
    /* 17 "%s": more than a plan holds (the slow path), then 15 and 16. */
    SAME("%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s.", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
         "k", "l", "m", "n", "o", "p", "q");
    SAME("%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s!", "1", "22", "333", "4444", "55555", "6",
         "77", "888", "9999", "10", "11", "12", "13", "14", "15");
    SAME("%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s-%s!", "1", "22", "333", "4444", "55555", "6",
         "77", "888", "9999", "10", "11", "12", "13", "14", "15", "16");
}

/* Several formats in turn, each used again after the others with other
 * arguments: a kept plan serves only its own format. */
static void many_formats(void **state)
{
    (void)state;
    static const char *const args[] = {"one", "two words", "", "a somewhat longer argument"};
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < 4; i++) {
            SAME("f1 %s", args[i]);
            SAME("f2 %s %s", args[i], args[3 - i]);
            SAME("f3 [%s]", args[i]);
            SAME("f4 %s;", args[i]);
            SAME("f5 %s %s %s", args[i], args[i], args[i]);
            SAME("f6 (%s)", args[i]);
            SAME("f7 %s.", args[i]);
            SAME("f8 <%s>", args[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_formats),
        cmocka_unit_test(other_conversions),
        cmocka_unit_test(many_arguments),
        cmocka_unit_test(many_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
