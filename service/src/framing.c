/* service/src/framing.c -- see framing.h. */
#include "framing.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dc/common.h"

/* How much of a client's name or value a detail quotes. */
#define ECHO_MAX 40

static void problem(struct svc_framing *f, int status, const char *fmt, ...) DC_PRINTF(3, 4);

static void problem(struct svc_framing *f, int status, const char *fmt, ...)
{
    if (f->status != 0)
        return;
    f->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
    va_end(ap);
}

/* `s` (n bytes) quoted into buf, printable ASCII only (others as '?'). */
static const char *echo(const char *s, size_t n, char buf[ECHO_MAX + 1])
{
    size_t k = 0;
    for (; k < n && k < ECHO_MAX; k++)
        buf[k] = s[k] > 0x20 && s[k] < 0x7f ? s[k] : s[k] == ' ' ? ' ' : '?';
    buf[k] = '\0';
    return buf;
}

/* RFC 9110 section 5.6.2: tchar. */
static bool tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool is_name(const char *name, size_t nlen, const char *want)
{
    return nlen == strlen(want) && strncasecmp(name, want, nlen) == 0;
}

/* ---- the raw header section -------------------------------------------------- */

/* `n` bytes at `p` lie inside the raw section. Compared as integers: a field
 * name the library moved (a folded line) points outside it. */
static bool raw_holds(const struct svc_framing *f, const char *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)f->raw_start, hi = (uintptr_t)f->raw_end;
    return a >= lo && a <= hi && n <= hi - a;
}

/* Where the line after the one ending at `at` starts: its terminator is one NUL
 * (a bare LF) or two (CR LF); a line itself never starts with a NUL unless its
 * field name is empty (the colon, overwritten), which the end check reports. */
static const char *raw_next_line(const struct svc_framing *f, const char *at)
{
    if (!raw_holds(f, at, 2) || at[0] != '\0')
        return NULL;
    return at[1] != '\0' ? at + 1 : at + 2;
}

/* What lies at `at` instead of the line expected there: the rest of a value (or
 * of the request line) after a NUL byte, which the library cut off there. */
static void raw_nul_problem(struct svc_framing *f)
{
    if (f->raw_last[0] != '\0')
        problem(f, 400, "the value of header field %s has a NUL byte", f->raw_last);
    else
        problem(f, 400, "the request line has a NUL byte");
}

/* The request line: METHOD SP target SP version, nothing else. */
static void raw_request_line(struct svc_framing *f, const struct svc_framing_raw *raw)
{
    size_t mlen = strnlen(raw->start, raw->len);
    const char *version = raw->version;
    if (mlen == raw->len || raw->target != raw->start + mlen + 1 ||
        !raw_holds(f, raw->target, raw->target_len + 1) ||
        version != raw->target + raw->target_len + 1 || !raw_holds(f, version, 1)) {
        problem(f, 400,
                "the request line is not METHOD SP target SP version (an extra space, or a NUL "
                "byte)");
        return;
    }
    f->raw_at = version + strnlen(version, (size_t)(f->raw_end - version));
}

void svc_framing_begin(struct svc_framing *f, const char *version,
                       const struct svc_framing_raw *raw)
{
    memset(f, 0, sizeof(*f));
    f->version_known = version != NULL;
    f->http10 = version != NULL && strcmp(version, "HTTP/1.0") == 0;
    if (raw == NULL || raw->start == NULL || raw->target == NULL || raw->version == NULL)
        return;
    f->raw_start = raw->start;
    f->raw_end = raw->start + raw->len;
    raw_request_line(f, raw);
}

/* The field's line is the one after the last: its name where that line starts,
 * the colon (a NUL now), optional whitespace, then its value. */
static void raw_field(struct svc_framing *f, const char *name, size_t nlen, const char *value,
                      size_t vlen)
{
    char q[ECHO_MAX + 1];
    const char *expect = raw_next_line(f, f->raw_at);
    if (expect == NULL) {
        problem(f, 400, "the header section is malformed");
        return;
    }
    if (name != expect) {
        /* The library joins a folded line to the field's *name*, in a block of
         * its own outside the section (the name's first part, where the line
         * starts, is zeroed); a field found further on is the line after a
         * value the library cut at a NUL byte. */
        if (!raw_holds(f, name, nlen))
            problem(f, 400, "the header field name \"%s\" is completed by a folded line",
                    echo(name, nlen, q));
        else
            raw_nul_problem(f);
        return;
    }
    if (!raw_holds(f, name, nlen + 1) || name[nlen] != '\0' || value < name + nlen + 1 ||
        !raw_holds(f, value, vlen)) {
        problem(f, 400, "the header field %s is malformed", echo(name, nlen, q));
        return;
    }
    for (const char *p = name + nlen + 1; p < value; p++) {
        if (*p != ' ' && *p != '\t') {
            problem(f, 400, "the header field %s is malformed", echo(name, nlen, q));
            return;
        }
    }
    f->raw_at = value + vlen;
    snprintf(f->raw_last, sizeof(f->raw_last), "%s", echo(name, nlen, q));
}

/* After the last field: its terminator and the empty line's, nothing else. */
static void raw_end(struct svc_framing *f)
{
    const char *at = f->raw_at;
    size_t left = (size_t)(f->raw_end - at);
    bool blank = left >= 2 && left <= 4;
    for (size_t i = 0; blank && i < left; i++)
        blank = at[i] == '\0';
    if (blank)
        return;
    if (left >= 2 && at[0] == '\0' && at[1] != '\0')
        raw_nul_problem(f);
    else
        problem(f, 400,
                "a header field line has an empty name (\": value\"), which the server's HTTP "
                "library takes for the end of the header section");
}

/* Transfer-Encoding: a list of codings, of which this server decodes only
 * chunked, and only written exactly so: the library compares the whole value
 * with "chunked", and reads any other value as a body of unknown length. */
static void transfer_codings(struct svc_framing *f, const char *v, size_t n)
{
    char q[ECHO_MAX + 1];
    const char *end = v + n, *stop = v;
    for (const char *p = v; stop != end; p = stop + 1) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        stop = comma != NULL ? comma : end;
        const char *a = p, *b = stop;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        const char *semi = a; /* parameters follow a coding's name */
        while (semi < b && *semi != ';')
            semi++;
        b = semi;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > a && !is_name(a, (size_t)(b - a), "chunked"))
            problem(f, 501, "Transfer-Encoding \"%s\": only chunked is supported", echo(v, n, q));
    }
    if (!is_name(v, n, "chunked"))
        problem(f, 400, "Transfer-Encoding \"%s\" is not exactly \"chunked\"", echo(v, n, q));
}

/* RFC 9110 section 7.2: Host = uri-host [ ":" port ]; the characters of a
 * reg-name, an IP literal and a port, nothing else (no space, '/', '@'). */
static bool host_value(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              (c != '\0' && strchr("-._~%!$&'()*+,;=:[]", c) != NULL)))
            return false;
    }
    return true;
}

void svc_framing_field(struct svc_framing *f, const char *name, size_t nlen, const char *value,
                       size_t vlen)
{
    char q[ECHO_MAX + 1];
    if (f->status != 0)
        return;
    size_t bad = 0;
    while (bad < nlen && tchar(name[bad]))
        bad++;
    if (nlen == 0 || bad < nlen) {
        bool ws = bad < nlen && (name[bad] == ' ' || name[bad] == '\t');
        problem(f, 400, "the header field name \"%s\" %s", echo(name, nlen, q),
                ws ? "has whitespace before its colon" : "is not a token");
        return;
    }
    /* libmicrohttpd joins an obs-fold continuation line to the field *name*:
     * "Content-Length: 30\r\n x" becomes a field "Content-Lengthx" that nothing
     * reads as framing, while a proxy may read "30 x" or refuse it. A fold whose
     * continuation is not a token already failed above; a name that extends a
     * framing field's is refused here. */
    if ((nlen > 14 && strncasecmp(name, "Content-Length", 14) == 0) ||
        (nlen > 17 && strncasecmp(name, "Transfer-Encoding", 17) == 0)) {
        problem(f, 400, "the header field name \"%s\" extends a framing field's (a folded line?)",
                echo(name, nlen, q));
        return;
    }
    if (memchr(value, '\r', vlen) != NULL) {
        problem(f, 400, "the value of header field %s has a bare CR", echo(name, nlen, q));
        return;
    }
    /* A library that stores the whole line keeps the NUL inside the value: its
     * length then differs from the C string's, which is all that code reads. */
    if (memchr(value, '\0', vlen) != NULL) {
        problem(f, 400, "the value of header field %s has a NUL byte", echo(name, nlen, q));
        return;
    }
    if (f->raw_end != NULL) {
        raw_field(f, name, nlen, value, vlen);
        if (f->status != 0)
            return;
    }
    if (is_name(name, nlen, "Content-Length")) {
        f->content_length++;
        size_t digits = 0;
        while (digits < vlen && value[digits] >= '0' && value[digits] <= '9')
            digits++;
        size_t lead = 0; /* leading zeros do not count towards 64 bits */
        while (lead + 1 < vlen && value[lead] == '0')
            lead++;
        if (vlen == 0 || digits < vlen)
            problem(f, 400, "Content-Length \"%s\" is not a number of bytes (digits only)",
                    echo(value, vlen, q));
        else if (vlen - lead > 20 ||
                 (vlen - lead == 20 && strncmp(value + lead, "18446744073709551615", 20) > 0))
            problem(f, 413, "Content-Length \"%s\" is past 64 bits", echo(value, vlen, q));
    } else if (is_name(name, nlen, "Transfer-Encoding")) {
        f->transfer_encoding++;
        transfer_codings(f, value, vlen);
    } else if (is_name(name, nlen, "Host")) {
        f->host++;
        if (!host_value(value, vlen))
            problem(f, 400, "Host \"%s\" is not host[:port]", echo(value, vlen, q));
    }
}

int svc_framing_end(struct svc_framing *f)
{
    if (f->raw_end != NULL && f->status == 0)
        raw_end(f);
    if (f->transfer_encoding > 0 && f->http10 && f->version_known)
        problem(f, 400, "Transfer-Encoding is not allowed in an HTTP/1.0 request");
    if (f->transfer_encoding > 0 && f->content_length > 0)
        problem(f, 400, "the request has both Content-Length and Transfer-Encoding");
    if (f->transfer_encoding > 1)
        problem(f, 400, "the request has more than one Transfer-Encoding field");
    if (f->content_length > 1)
        problem(f, 400, "the request has more than one Content-Length field");
    if (f->host > 1)
        problem(f, 400, "the request has more than one Host field");
    if (f->host == 0 && !f->http10 && f->version_known)
        problem(f, 400, "an HTTP/1.1 request needs a Host field");
    return f->status;
}

const char *svc_target_problem(const char *target)
{
    if (target == NULL || target[0] == '\0')
        return "the request line has no target";
    for (const unsigned char *p = (const unsigned char *)target; *p != '\0'; p++) {
        if (*p <= 0x20 || *p == 0x7f)
            return "the request target has a space or a control character";
        if (*p == '%' && dc_hex_digit(p[1]) >= 0 && dc_hex_digit(p[2]) >= 0) {
            int c = dc_hex_digit(p[1]) * 16 + dc_hex_digit(p[2]);
            if (c < 0x20 || c == 0x7f)
                return "the request target has a percent-encoded control character";
        }
    }
    return NULL;
}

size_t svc_target_query_args(const char *target, size_t max)
{
    const char *q = target != NULL ? strchr(target, '?') : NULL;
    if (q == NULL || q[1] == '\0')
        return 0;
    size_t n = 1;
    for (const char *p = q + 1; *p != '\0' && n <= max; p++)
        n += *p == '&';
    return n;
}

/* An absolute-form target's scheme: "http://" or "https://", any case. */
static size_t scheme_len(const char *raw)
{
    if (strncasecmp(raw, "http://", 7) == 0)
        return 7;
    if (strncasecmp(raw, "https://", 8) == 0)
        return 8;
    return 0;
}

const char *svc_target_path(const char *raw, const char *path)
{
    size_t skip = raw != NULL && path != NULL ? scheme_len(raw) : 0;
    if (skip == 0)
        return path;
    size_t auth = strcspn(raw + skip, "/?");
    if (auth == 0 || memchr(raw + skip, '%', auth) != NULL ||
        memchr(raw + skip, '@', auth) != NULL || !host_value(raw + skip, auth))
        return NULL;
    /* No percent-encoding in the scheme and authority: the decoded path has the
     * same bytes before its own path. */
    if (strlen(path) < skip + auth || strncasecmp(path, raw, skip + auth) != 0)
        return NULL;
    return path[skip + auth] == '/' ? path + skip + auth : "/";
}
