/* core/include/dc/common.h -- status codes, error detail and export macros
 * shared by every module of the decision core (and reused by api/ and probe/).
 *
 * Conventions (every header of core/, api/ and probe/ follows them):
 *  - every fallible function returns enum dc_status, DC_OK (0) on success;
 *  - results go in out-params, last, set to NULL/zero on entry;
 *  - error detail travels in an optional caller-allocated struct dc_error. */
#ifndef DC_COMMON_H
#define DC_COMMON_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define DC_API               __attribute__((visibility("default")))
#define DC_NODISCARD         __attribute__((warn_unused_result))
#define DC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define DC_API
#define DC_NODISCARD
#define DC_PRINTF(fmt, args)
#endif

/* One table generates the enum, dc_status_name() and dc_strerror(). */
#define DC_STATUS_MAP(XX)                                                                          \
    XX(OK, 0, "success")                                                                           \
    XX(ENOMEM, -1, "out of memory")                                                                \
    XX(EINVAL, -2, "invalid argument")                                                             \
    XX(EPARSE, -3, "parse error")                                                                  \
    XX(ETYPE, -4, "type error")                                                                    \
    XX(ELIMIT, -5, "limit exceeded")                                                               \
    XX(ENOTFOUND, -6, "not found")                                                                 \
    XX(EIO, -7, "input/output error")                                                              \
    XX(EVALIDATE, -8, "validation failed")

enum dc_status {
#define DC_XX(name, val, text) DC_##name = (val),
    DC_STATUS_MAP(DC_XX)
#undef DC_XX
};

/* Longest error message kept, in bytes including the NUL. Longer messages are
 * truncated, never overflowed. */
#define DC_ERROR_MSG_MAX 512
/* Longest location kept: a JSON Pointer or "file:line". */
#define DC_ERROR_WHERE_MAX 256

/* Error detail of one failed call. Caller-allocated; every field is written
 * by the failing call only. `where` is a JSON Pointer ("/model/parameters"),
 * "file:line" or empty when the error has no location. */
struct dc_error {
    enum dc_status code;
    char where[DC_ERROR_WHERE_MAX];
    char msg[DC_ERROR_MSG_MAX];
};

/* Name of a status ("DC_ELIMIT"); never NULL. Thread-safe. */
DC_API const char *dc_status_name(enum dc_status s);
/* Human description of a status ("limit exceeded"); never NULL. Thread-safe. */
DC_API const char *dc_strerror(enum dc_status s);

/* Record an error in `err` (which may be NULL) and return `code`, so callers
 * write `return dc_error_set(err, DC_EINVAL, "/a", "bad %s", x);`.
 * `where` may be NULL. */
DC_API enum dc_status dc_error_set(struct dc_error *err, enum dc_status code, const char *where,
                                   const char *fmt, ...) DC_PRINTF(4, 5);

/* Clear an error record (NULL is a no-op). */
DC_API void dc_error_clear(struct dc_error *err);

/* The value of hexadecimal digit `c` (0-9, a-f, A-F), or -1. */
static inline int dc_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The four hexadecimal digits at p (a JSON \u escape's) as a number, 0 to
 * 0xFFFF, or -1 when one of them is not a hex digit. */
static inline int dc_hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = dc_hex_digit((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

#endif /* DC_COMMON_H */
