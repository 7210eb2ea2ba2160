/* service/src/log.c -- JSON log lines on stderr. */
#include "log.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dc/decimal.h"
#include "dc/utf8.h"

/* Set once in main before any thread starts, read-only afterwards. */
static int log_fd = 2;
static enum svc_log_level log_level = SVC_LOG_INFO;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

/* Room always kept for closing a cut string and the line: "\"}\n". */
#define RESERVE 4

void svc_log_set_fd(int fd)
{
    log_fd = fd;
}

void svc_log_set_level(enum svc_log_level level)
{
    log_level = level;
}

bool svc_log_level_parse(const char *name, enum svc_log_level *out)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (enum svc_log_level)i;
            return true;
        }
    }
    return false;
}

bool svc_log_enabled(const char *level)
{
    enum svc_log_level l = SVC_LOG_ERROR; /* an unknown level is never muted */
    svc_log_level_parse(level, &l);
    return l >= log_level;
}

/* The text of the second a thread last formatted: every line of that second
 * reuses it rather than calling gmtime_r and strftime again. */
struct log_second {
    time_t sec;
    bool set;
    char text[24]; /* 2025-01-02T03:04:05 */
};
static _Thread_local struct log_second last_second;

void svc_log_time(char *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct log_second *c = &last_second;
    if (!c->set || c->sec != ts.tv_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        if (strftime(c->text, sizeof(c->text), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
            c->text[0] = '\0';
        c->sec = ts.tv_sec;
        c->set = true;
    }
    /* "%s.%03uZ" of the second and its milliseconds, cut to `len` as snprintf would. */
    char t[32];
    size_t n = strlen(c->text);
    unsigned ms = (unsigned)(ts.tv_nsec / 1000000L) % 1000u;
    memcpy(t, c->text, n);
    t[n++] = '.';
    t[n++] = (char)('0' + ms / 100);
    t[n++] = (char)('0' + ms / 10 % 10);
    t[n++] = (char)('0' + ms % 10);
    t[n++] = 'Z';
    if (len == 0)
        return;
    if (n > len - 1)
        n = len - 1;
    memcpy(buf, t, n);
    buf[n] = '\0';
}

static void raw(struct svc_log_line *l, const char *s, size_t n)
{
    if (l->full || l->len + n + RESERVE > sizeof(l->buf)) {
        l->full = true;
        return;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void raw_s(struct svc_log_line *l, const char *s)
{
    raw(l, s, strlen(s));
}

/* A JSON string, escaped; cut (still closed) when the line is full. Valid UTF-8
 * passes through; controls, quote and backslash are escaped; bytes that are not
 * UTF-8 (a library message quoting a client, say) become U+FFFD, so every line
 * stays valid JSON. */
static void json_str(struct svc_log_line *l, const char *s)
{
    l->buf[l->len++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char esc[8];
        size_t n = 1;
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
            /* A run of bytes written as they are: copied at once, as far as
             * the line has room (the byte-by-byte rule below, in one step). */
            size_t run = 1;
            while (p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' && p[run] != '\\')
                run++;
            size_t room = l->len + RESERVE < sizeof(l->buf) ? sizeof(l->buf) - RESERVE - l->len : 0;
            if (run > room) {
                memcpy(l->buf + l->len, p, room);
                l->len += room;
                l->full = true;
                break;
            }
            memcpy(l->buf + l->len, p, run);
            l->len += run;
            p += run - 1;
            continue;
        }
        if (*p >= 0x80) {
            uint32_t cp = 0;
            n = dc_utf8_seq(p, SIZE_MAX, &cp);
            if (n == 0) {
                memcpy(esc, "\\ufffd", 6);
                n = 6;
            } else {
                memcpy(esc, p, n);
                p += n - 1;
            }
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            n = 2;
        } else if (*p == '\n') {
            memcpy(esc, "\\n", 2);
            n = 2;
        } else {
            snprintf(esc, sizeof(esc), "\\u%04x", *p);
            n = 6;
        }
        if (l->len + n + RESERVE > sizeof(l->buf)) {
            l->full = true;
            break;
        }
        memcpy(l->buf + l->len, esc, n);
        l->len += n;
    }
    l->buf[l->len++] = '"';
}

/* Write `,"k":` and return true, or write nothing and return false when even
 * the key and a short value do not fit. */
static bool key(struct svc_log_line *l, const char *k)
{
    size_t n = strlen(k);
    if (l->full || l->len + n + 4 + 8 + RESERVE > sizeof(l->buf)) {
        l->full = true;
        return false;
    }
    raw(l, ",\"", 2);
    raw(l, k, n);
    raw(l, "\":", 2);
    return true;
}

/* A field whose value is a literal: written whole or not at all. */
static void literal_field(struct svc_log_line *l, const char *k, const char *v)
{
    size_t start = l->len;
    if (!key(l, k))
        return;
    raw_s(l, v);
    if (l->full)
        l->len = start;
}

void svc_log_begin(struct svc_log_line *l, const char *level, const char *event)
{
    char t[40];
    l->len = 0;
    l->has_msg = false;
    l->event = event;
    l->muted = !svc_log_enabled(level);
    /* A muted line takes no field: every writer stops at `full`. */
    l->full = l->muted;
    if (l->muted)
        return;
    svc_log_time(t, sizeof(t));
    raw_s(l, "{\"time\":\"");
    raw_s(l, t);
    raw_s(l, "\",\"level\":");
    json_str(l, level);
    if (key(l, "event"))
        json_str(l, event);
}

void svc_log_str(struct svc_log_line *l, const char *k, const char *val)
{
    if (strcmp(k, "msg") == 0)
        l->has_msg = true;
    if (val == NULL) {
        literal_field(l, k, "null");
        return;
    }
    /* A string value may be cut, but always closes, so the field stays valid. */
    if (key(l, k))
        json_str(l, val);
}

/* "%lld" of `v` into b (at least 22 bytes), NUL-terminated. */
static void int_text(long long v, char *b)
{
    if (v < 0)
        *b++ = '-';
    dc_uint_text(v < 0 ? 0ull - (uint64_t)v : (uint64_t)v, b);
}

void svc_log_int(struct svc_log_line *l, const char *k, long long val)
{
    char b[32];
    int_text(val, b);
    literal_field(l, k, b);
}

void svc_log_uint(struct svc_log_line *l, const char *k, unsigned long long val)
{
    char b[32];
    dc_uint_text(val, b);
    literal_field(l, k, b);
}

void svc_log_num(struct svc_log_line *l, const char *k, double val)
{
    char b[40];
    if (isfinite(val))
        snprintf(b, sizeof(b), "%.6g", val);
    else
        snprintf(b, sizeof(b), "null");
    literal_field(l, k, b);
}

void svc_log_bool(struct svc_log_line *l, const char *k, bool val)
{
    literal_field(l, k, val ? "true" : "false");
}

void svc_log_end(struct svc_log_line *l)
{
    if (l->muted)
        return;
    if (!l->has_msg)
        svc_log_str(l, "msg", l->event);
    /* RESERVE guarantees room for the closing bytes even when full. */
    l->buf[l->len++] = '}';
    l->buf[l->len++] = '\n';
    size_t off = 0;
    while (off < l->len) {
        ssize_t n = write(log_fd, l->buf + off, l->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
}

/* "msg" from a printf format, then close and write the line. */
static void end_vmsg(struct svc_log_line *l, const char *fmt, va_list ap) DC_PRINTF(2, 0);

static void end_vmsg(struct svc_log_line *l, const char *fmt, va_list ap)
{
    char msg[2048];
    if (l->muted)
        return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    svc_log_str(l, "msg", msg);
    svc_log_end(l);
}

void svc_log_end_msg(struct svc_log_line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    end_vmsg(l, fmt, ap);
    va_end(ap);
}

void svc_log_end_msg_words(struct svc_log_line *l, const char *a, const char *b, long long n)
{
    /* The message svc_log_end_msg(l, "%s %s %lld", a, b, n) writes, cut as
     * end_vmsg's buffer would cut it. */
    char msg[2048], num[32];
    if (l->muted)
        return;
    int_text(n, num);
    const char *parts[5] = {a, " ", b, " ", num};
    size_t len = 0;
    for (size_t i = 0; i < 5; i++) {
        size_t m = strlen(parts[i]);
        if (m > sizeof(msg) - 1 - len)
            m = sizeof(msg) - 1 - len;
        memcpy(msg + len, parts[i], m);
        len += m;
    }
    msg[len] = '\0';
    svc_log_str(l, "msg", msg);
    svc_log_end(l);
}

void svc_log_msg(const char *level, const char *event, const char *fmt, ...)
{
    struct svc_log_line l;
    va_list ap;
    svc_log_begin(&l, level, event);
    va_start(ap, fmt);
    end_vmsg(&l, fmt, ap);
    va_end(ap);
}
