/* tests/fault/rawhttp.c -- see rawhttp.h. */
#include "rawhttp.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#define MAX_HEADER_BYTES   (256u * 1024u)
#define MAX_RESPONSE_BYTES (64u * 1024u * 1024u)

const char *rh_strerror(int e)
{
    switch (e) {
    case RH_OK:
        return "ok";
    case RH_ECONNECT:
        return "connect failed";
    case RH_ECLOSED:
        return "connection closed before a response";
    case RH_ETRUNC:
        return "connection closed in the middle of a response";
    case RH_ETIMEOUT:
        return "timed out";
    case RH_EPARSE:
        return "malformed response";
    case RH_ENOMEM:
        return "out of memory";
    default:
        return "?";
    }
}

void rh_init(struct rh_conn *c, int port)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->port = port;
}

int rh_connect(struct rh_conn *c)
{
    return rh_connect_rcvbuf(c, 0);
}

int rh_connect_rcvbuf(struct rh_conn *c, int rcvbuf)
{
    rh_close(c);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return RH_ECONNECT;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)c->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return RH_ECONNECT;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    return RH_OK;
}

void rh_close(struct rh_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

void rh_free(struct rh_conn *c)
{
    rh_close(c);
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

bool rh_send(struct rh_conn *c, const void *data, size_t len)
{
    const char *p = data;
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(c->fd, p + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        off += (size_t)n;
    }
    return true;
}

/* Copy the value of header line [p, eol) into buf (trimmed). */
static void copy_value(const char *p, const char *eol, char *buf, size_t cap)
{
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    while (eol > p && (eol[-1] == ' ' || eol[-1] == '\t'))
        eol--;
    size_t n = (size_t)(eol - p);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* Parse the status line and headers in buf[0, hlen). */
static int parse_head(const char *buf, size_t hlen, struct rh_resp *r, long *clen)
{
    if (hlen < 12 || memcmp(buf, "HTTP/1.1 ", 9) != 0)
        return RH_EPARSE;
    if (buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' || buf[11] < '0' ||
        buf[11] > '9')
        return RH_EPARSE;
    r->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    *clen = -1;
    const char *end = buf + hlen;
    const char *p = memchr(buf, '\n', hlen);
    while (p != NULL && ++p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            break;
        const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        const char *colon = memchr(p, ':', (size_t)(le - p));
        if (colon != NULL) {
            size_t nl = (size_t)(colon - p);
            char val[256];
            copy_value(colon + 1, le, val, sizeof(val));
            if (nl == 14 && strncasecmp(p, "Content-Length", nl) == 0) {
                char *e = NULL;
                errno = 0;
                long v = strtol(val, &e, 10);
                if (errno != 0 || e == val || *e != '\0' || v < 0 || *clen >= 0)
                    return RH_EPARSE;
                *clen = v;
            } else if (nl == 10 && strncasecmp(p, "Connection", nl) == 0) {
                for (const char *v = val; *v != '\0' && !r->close; v++)
                    r->close = strncasecmp(v, "close", 5) == 0;
            } else if (nl == 12 && strncasecmp(p, "Content-Type", nl) == 0) {
                copy_value(colon + 1, le, r->ctype, sizeof(r->ctype));
            } else if (nl == 12 && strncasecmp(p, "X-Request-Id", nl) == 0) {
                copy_value(colon + 1, le, r->request_id, sizeof(r->request_id));
            } else if (nl == 5 && strncasecmp(p, "Allow", nl) == 0) {
                copy_value(colon + 1, le, r->allow, sizeof(r->allow));
            } else if (nl == 17 && strncasecmp(p, "Transfer-Encoding", nl) == 0) {
                return RH_EPARSE; /* the server never chunks; we do not decode it */
            }
        }
        p = eol;
    }
    return RH_OK;
}

int rh_read(struct rh_conn *c, bool head, int timeout_ms, struct rh_resp *r)
{
    memset(r, 0, sizeof(*r));
    c->len = 0;
    long end = h_now_ms() + timeout_ms;
    size_t hdr_end = 0, searched = 0;
    long clen = -1;
    for (;;) {
        if (hdr_end == 0 && c->len >= 4) {
            size_t from = searched > 3 ? searched - 3 : 0;
            for (size_t i = from; i + 4 <= c->len; i++) {
                if (memcmp(c->buf + i, "\r\n\r\n", 4) == 0) {
                    hdr_end = i + 4;
                    break;
                }
            }
            searched = c->len;
            if (hdr_end > 0) {
                int e = parse_head(c->buf, hdr_end, r, &clen);
                if (e != RH_OK)
                    return e;
                if (head || r->status < 200 || r->status == 204 || r->status == 304)
                    clen = 0;
                if (clen < 0 && !r->close)
                    return RH_EPARSE; /* no framing */
            } else if (c->len > MAX_HEADER_BYTES) {
                return RH_EPARSE;
            }
        }
        if (hdr_end > 0 && clen >= 0) {
            size_t want = hdr_end + (size_t)clen;
            if (c->len > want)
                return RH_EPARSE; /* bytes we did not ask for */
            if (c->len == want) {
                r->body = c->buf + hdr_end;
                r->body_len = (size_t)clen;
                return RH_OK;
            }
        }
        long left = end - h_now_ms();
        if (left <= 0)
            return RH_ETIMEOUT;
        struct pollfd pf = {c->fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return RH_ETIMEOUT;
        if (c->len + 65536 + 1 > c->cap) {
            size_t cap = c->cap > 0 ? c->cap * 2 : 131072;
            if (cap > MAX_RESPONSE_BYTES)
                return RH_ENOMEM;
            char *p = realloc(c->buf, cap);
            if (p == NULL)
                return RH_ENOMEM;
            c->buf = p;
            c->cap = cap;
        }
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (c->len == 0)
                return RH_ECLOSED;
            if (hdr_end > 0 && clen < 0) { /* a body delimited by the close */
                r->body = c->buf + hdr_end;
                r->body_len = c->len - hdr_end;
                c->buf[c->len] = '\0';
                return RH_OK;
            }
            return RH_ETRUNC;
        }
        c->len += (size_t)n;
        c->buf[c->len] = '\0';
    }
}

int rh_exchange(struct rh_conn *c, const void *req, size_t len, bool head, int timeout_ms,
                struct rh_resp *r)
{
    memset(r, 0, sizeof(*r));
    if (c->fd < 0 && rh_connect(c) != RH_OK)
        return RH_ECONNECT;
    (void)rh_send(c, req, len); /* on failure the server may still have answered */
    int e = rh_read(c, head, timeout_ms, r);
    if (e != RH_OK || r->close)
        rh_close(c);
    return e;
}

size_t rh_read_to_close(struct rh_conn *c, char *buf, size_t cap, int timeout_ms, bool *closed)
{
    long t0 = h_now_ms();
    size_t got = 0;
    *closed = false;
    while (!*closed && got + 1 < cap && h_now_ms() - t0 < timeout_ms) {
        struct pollfd pf = {c->fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0)
            continue;
        ssize_t n = recv(c->fd, buf + got, cap - got - 1, 0);
        if (n <= 0)
            *closed = true;
        else
            got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

size_t rh_status_lines(const char *buf)
{
    size_t n = 0;
    for (const char *p = buf; (p = strstr(p, "HTTP/1.1 ")) != NULL; p++)
        n += p[9] >= '1' && p[9] <= '5' && isdigit((unsigned char)p[10]) &&
             isdigit((unsigned char)p[11]) && p[12] == ' ';
    return n;
}

/* ---- request buffers ---------------------------------------------------------------- */

void rh_buf_reset(struct rh_buf *b)
{
    b->len = 0;
    if (b->p != NULL)
        b->p[0] = '\0';
}

static bool reserve(struct rh_buf *b, size_t add)
{
    if (b->len + add + 1 <= b->cap)
        return true;
    size_t cap = b->cap > 0 ? b->cap : 4096;
    while (cap < b->len + add + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

bool rh_buf_add(struct rh_buf *b, const void *data, size_t len)
{
    if (!reserve(b, len))
        return false;
    memcpy(b->p + b->len, data, len);
    b->len += len;
    b->p[b->len] = '\0';
    return true;
}

bool rh_buf_str(struct rh_buf *b, const char *s)
{
    return rh_buf_add(b, s, strlen(s));
}

bool rh_buf_printf(struct rh_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

void rh_buf_free(struct rh_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

bool rh_buf_batch(struct rh_buf *b, const char *workload, int n)
{
    bool ok = rh_buf_str(b, "{\"workloads\":[");
    for (int i = 0; ok && i < n; i++)
        ok = rh_buf_printf(b, "%s%s", i > 0 ? "," : "", workload);
    return ok && rh_buf_str(b, "]}");
}

bool rh_buf_request(struct rh_buf *b, const char *method, const char *path, const char *ctype,
                    const char *extra, const void *body, size_t len)
{
    bool ok = rh_buf_printf(b, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path);
    if (ctype != NULL)
        ok = ok && rh_buf_printf(b, "Content-Type: %s\r\n", ctype);
    if (extra != NULL)
        ok = ok && rh_buf_str(b, extra);
    if (body != NULL)
        ok = ok && rh_buf_printf(b, "Content-Length: %zu\r\n", len);
    ok = ok && rh_buf_str(b, "\r\n");
    if (body != NULL)
        ok = ok && rh_buf_add(b, body, len);
    return ok;
}
