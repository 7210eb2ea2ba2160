/* core/src/base/textf.c -- snprintf for "%s"-only formats (textf.h).
 *
 * Each piece, a run of the format or an argument, is measured and copied: a
 * body's texts join some 1,600 pieces of a few bytes to a few dozen, so
 * those up to 16 bytes are copied inline as two overlapping words, where a
 * call to memcpy cost more than the copy. A format is split into its runs
 * once per thread (a plan, kept in a small table keyed by the format's
 * address: every format is a literal, -Wformat=2 sees to that), so a text is
 * its runs' copies and its arguments' lengths, not a search for each '%'.
 * It is a file of its own so that the byte-identity test
 * (tests/unit/api/extra.cmake) can link snprintf in its place. */
#include "textf.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Copies the n bytes of s to o. */
static inline void copy_bytes(char *o, const char *s, size_t n)
{
    if (n > 16) {
        memcpy(o, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(o, &a, 8);
        memcpy(o + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(o, &a, 4);
        memcpy(o + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            o[i] = s[i];
    }
}

/* Appends the n bytes of s at buf[*k], as far as len - 1 bytes of buf
 * reach, and adds n to *k, the length the whole text has so far. */
static inline void append(char *buf, size_t len, size_t *k, const char *s, size_t n)
{
    if (*k + 1 < len) {
        size_t room = len - 1 - *k;
        copy_bytes(buf + *k, s, n < room ? n : room);
    }
    *k += n;
}

/* ---- plans: a format's runs, found once ------------------------------- */

#define PLAN_SLOTS  128 /* a power of two, twice the formats a body uses */
#define PLAN_PROBES 4   /* slots a format may take */
#define PLAN_ARGS   15  /* the most "%s" a plan holds; more take the slow path */

/* The format `fmt` as runs of bytes copied as they stand, one before each
 * of its n_args "%s" and one after the last: run i is fmt[off[i]] on for
 * len[i] bytes. n_args > PLAN_ARGS marks a format with something other than
 * "%s" (a "%%"), too many of them, or too long to plan. */
struct plan {
    const char *fmt;
    uint16_t n_args;
    uint16_t off[PLAN_ARGS + 1], len[PLAN_ARGS + 1];
    size_t total; /* the runs' bytes together */
};

#define NO_PLAN (PLAN_ARGS + 1)

static _Thread_local struct plan plans[PLAN_SLOTS];

/* Splits fmt into *p, or marks it as one to format the slow way. */
__attribute__((noinline, cold)) static void plan_make(struct plan *p, const char *fmt)
{
    p->fmt = fmt;
    p->n_args = NO_PLAN;
    p->total = 0;
    const char *run = fmt;
    uint16_t n = 0;
    for (;;) {
        const char *pct = strchr(run, '%');
        size_t k = pct != NULL ? (size_t)(pct - run) : strlen(run);
        if ((size_t)(run - fmt) + k > UINT16_MAX)
            return;
        p->off[n] = (uint16_t)(run - fmt);
        p->len[n] = (uint16_t)k;
        p->total += k;
        if (pct == NULL)
            break;
        if (pct[1] != 's' || n == PLAN_ARGS)
            return;
        n++;
        run = pct + 2;
    }
    p->n_args = n;
}

/* The plan of fmt, made on its first use by this thread: looked for in
 * the PLAN_PROBES slots from the one its address hashes to, made in the
 * first empty one, or in the first one when all are taken. */
static inline const struct plan *plan_of(const char *fmt)
{
    uint64_t h = ((uint64_t)(uintptr_t)fmt * 0x9E3779B97F4A7C15ull) >> 57;
    for (unsigned i = 0; i < PLAN_PROBES; i++) {
        struct plan *p = &plans[(h + i) & (PLAN_SLOTS - 1)];
        if (p->fmt == fmt)
            return p;
        if (p->fmt == NULL) {
            plan_make(p, fmt);
            return p;
        }
    }
    struct plan *p = &plans[h];
    plan_make(p, fmt);
    return p;
}

/* An argument of "%s": NULL prints what glibc prints for it, so no text
 * differs. */
static inline void append_arg(char *buf, size_t len, size_t *k, const char *s)
{
    if (s == NULL)
        s = "(null)";
    append(buf, len, k, s, strlen(s));
}

/* dc__textf for a format with something other than "%s" in it. */
__attribute__((noinline, cold)) static void textf_slow(char *buf, size_t len, size_t *k,
                                                       const char *fmt, va_list ap)
{
    const char *p = fmt;
    for (;;) {
        const char *pct = strchr(p, '%');
        append(buf, len, k, p, pct != NULL ? (size_t)(pct - p) : strlen(p));
        if (pct == NULL)
            break;
        if (pct[1] == 's') {
            append_arg(buf, len, k, va_arg(ap, const char *));
            p = pct + 2;
        } else {
            /* "%%" is one '%'; any other '%' is copied as it stands. */
            append(buf, len, k, "%", 1);
            p = pct + (pct[1] == '%' ? 2 : 1);
        }
    }
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = dc__vtextf(buf, len, fmt, ap);
    va_end(ap);
    return k;
}

int dc__vtextf(char *buf, size_t len, const char *fmt, va_list ap)
{
    size_t k = 0;
    const struct plan *p = plan_of(fmt);
    if (p->n_args == NO_PLAN) {
        textf_slow(buf, len, &k, fmt, ap);
    } else {
        /* The arguments measured first: when the whole text fits, as nearly
         * every one does, its pieces are copied without a check each. */
        const char *arg[PLAN_ARGS];
        size_t n[PLAN_ARGS], total = p->total;
        for (unsigned i = 0; i < p->n_args; i++) {
            const char *s = va_arg(ap, const char *);
            arg[i] = s != NULL ? s : "(null)"; /* what glibc prints for it */
            n[i] = strlen(arg[i]);
            total += n[i];
        }
        if (total < len) {
            char *o = buf;
            for (unsigned i = 0; i < p->n_args; i++) {
                copy_bytes(o, fmt + p->off[i], p->len[i]);
                o += p->len[i];
                copy_bytes(o, arg[i], n[i]);
                o += n[i];
            }
            copy_bytes(o, fmt + p->off[p->n_args], p->len[p->n_args]);
            k = total;
        } else {
            for (unsigned i = 0; i < p->n_args; i++) {
                append(buf, len, &k, fmt + p->off[i], p->len[i]);
                append(buf, len, &k, arg[i], n[i]);
            }
            append(buf, len, &k, fmt + p->off[p->n_args], p->len[p->n_args]);
        }
    }
    if (len > 0)
        buf[k < len ? k : len - 1] = '\0';
    return (int)k;
}
