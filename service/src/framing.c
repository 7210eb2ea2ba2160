/* service/src/framing.c -- see framing.h. */
#include "framing.h"

#include <stdarg.h>
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

void svc_framing_begin(struct svc_framing *f, const char *version)
{
    memset(f, 0, sizeof(*f));
    f->version_known = version != NULL;
    f->http10 = version != NULL && strcmp(version, "HTTP/1.0") == 0;
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
