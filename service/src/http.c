/* service/src/http.c -- routes, methods, request ids, content types, CORS origins. */
#include "http.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/rand.h>

#define GET_HEAD (SVC_METHOD_BIT(SVC_METHOD_GET) | SVC_METHOD_BIT(SVC_METHOD_HEAD))
#define POST     SVC_METHOD_BIT(SVC_METHOD_POST)

static const struct {
    const char *path;
    unsigned methods;
    bool protect;
    bool needs_rules;
} routes[SVC_ROUTE_COUNT] = {
    [SVC_ROUTE_RECOMMEND] = {"/v1/recommendations", POST, true, true},
    [SVC_ROUTE_BATCH] = {"/v1/recommendations:batch", POST, true, true},
    [SVC_ROUTE_ACCELERATORS] = {"/v1/accelerators", GET_HEAD, true, true},
    [SVC_ROUTE_RULES] = {"/v1/rules", GET_HEAD, true, true},
    [SVC_ROUTE_INVENTORY] = {"/v1/inventory", GET_HEAD, true, false},
    [SVC_ROUTE_MODELS] = {"/v1/models", GET_HEAD, true, true},
    [SVC_ROUTE_FLEET] = {"/v1/fleet", GET_HEAD, true, false},
    [SVC_ROUTE_HEALTHZ] = {"/healthz", GET_HEAD, false, false},
    [SVC_ROUTE_READYZ] = {"/readyz", GET_HEAD, false, false},
    [SVC_ROUTE_METRICS] = {"/metrics", GET_HEAD, false, false},
    [SVC_ROUTE_OPENAPI_YAML] = {"/openapi.yaml", GET_HEAD, false, false},
    [SVC_ROUTE_OPENAPI_JSON] = {"/openapi.json", GET_HEAD, false, false},
    [SVC_ROUTE_PLAYGROUND] = {"/", GET_HEAD, false, false},
    /* "*", not "{asset}": a brace inside a label value ends the labels for the
     * line-based readers of the exposition (the soak's among them). */
    [SVC_ROUTE_ASSET] = {SVC_ASSET_PREFIX "*", GET_HEAD, false, false},
    [SVC_ROUTE_UNMATCHED] = {"unmatched", 0, false, false},
};

enum svc_route svc_route_match(const char *path)
{
    static const char assets[] = SVC_ASSET_PREFIX;
    if (path == NULL)
        return SVC_ROUTE_UNMATCHED;
    if (strncmp(path, assets, sizeof(assets) - 1) == 0 && path[sizeof(assets) - 1] != '\0')
        return SVC_ROUTE_ASSET;
    for (int r = 0; r < SVC_ROUTE_UNMATCHED; r++) {
        if (strcmp(path, routes[r].path) == 0)
            return (enum svc_route)r;
    }
    return SVC_ROUTE_UNMATCHED;
}

const char *svc_route_label(enum svc_route r)
{
    return r < SVC_ROUTE_COUNT ? routes[r].path : "unmatched";
}

unsigned svc_route_methods(enum svc_route r)
{
    if (r >= SVC_ROUTE_UNMATCHED)
        return 0;
    return routes[r].methods | SVC_METHOD_BIT(SVC_METHOD_OPTIONS);
}

bool svc_route_protected(enum svc_route r)
{
    return r < SVC_ROUTE_COUNT && routes[r].protect;
}

bool svc_route_needs_rules(enum svc_route r)
{
    return r < SVC_ROUTE_COUNT && routes[r].needs_rules;
}

static const char *const method_names[SVC_METHOD_COUNT] = {"GET", "HEAD", "POST", "OPTIONS",
                                                           "other"};

void svc_route_allow(enum svc_route r, char *buf, size_t len)
{
    unsigned m = svc_route_methods(r);
    size_t n = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < SVC_METHOD_OTHER; i++) {
        if ((m & SVC_METHOD_BIT(i)) == 0)
            continue;
        int w = snprintf(buf + n, len - n, "%s%s", n > 0 ? ", " : "", method_names[i]);
        if (w < 0 || (size_t)w >= len - n)
            break;
        n += (size_t)w;
    }
}

enum svc_method svc_method_parse(const char *method)
{
    for (int i = 0; method != NULL && i < SVC_METHOD_OTHER; i++) {
        if (strcmp(method, method_names[i]) == 0)
            return (enum svc_method)i;
    }
    return SVC_METHOD_OTHER;
}

const char *svc_method_label(enum svc_method m)
{
    return m < SVC_METHOD_COUNT ? method_names[m] : "other";
}

bool svc_request_id_valid(const char *id)
{
    size_t n = 0;
    if (id == NULL)
        return false;
    for (const char *p = id; *p != '\0'; p++, n++) {
        char c = *p;
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == ':' || c == '-';
        if (!ok || n >= SVC_REQUEST_ID_MAX)
            return false;
    }
    return n > 0;
}

enum dc_status svc_random_hex(char *out, size_t nbytes)
{
    static const char hex[] = "0123456789abcdef";
    enum { POOL = 1024 };
    /* Random bytes are drawn from OpenSSL in blocks of 1 KiB per thread: one
     * RAND_bytes call (and its locking and fork check) per 64 request ids. */
    static _Thread_local unsigned char pool[POOL];
    static _Thread_local size_t used = POOL;
    if (nbytes > SVC_RANDOM_HEX_MAX_BYTES)
        nbytes = SVC_RANDOM_HEX_MAX_BYTES;
    if (used + nbytes > POOL) {
        if (RAND_bytes(pool, (int)sizeof(pool)) == 1)
            used = 0;
    }
    if (used + nbytes <= POOL) {
        const unsigned char *raw = pool + used;
        for (size_t i = 0; i < nbytes; i++) {
            out[2 * i] = hex[raw[i] >> 4];
            out[2 * i + 1] = hex[raw[i] & 15];
        }
        /* Never hand the same bytes out twice. */
        memset(pool + used, 0, nbytes);
        used += nbytes;
        out[2 * nbytes] = '\0';
        return DC_OK;
    }
    /* Unique even without randomness: time plus a process-wide counter, the
     * counter's digits last so that a short id still differs from the one
     * before. */
    static _Atomic unsigned long long counter;
    struct timespec ts;
    char both[33];
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(both, sizeof(both), "%016llx%016llx",
             (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec,
             atomic_fetch_add(&counter, 1) + 1);
    memcpy(out, both + 32 - 2 * nbytes, 2 * nbytes + 1);
    return DC_EIO;
}

enum dc_status svc_request_id_generate(char out[SVC_REQUEST_ID_GENERATED_LEN + 1])
{
    return svc_random_hex(out, SVC_REQUEST_ID_GENERATED_LEN / 2);
}

static const char *skip_ows(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

enum svc_content_type svc_content_type_classify(const char *value)
{
    static const char json[] = "application/json";
    if (value == NULL)
        return SVC_CTYPE_MISSING;
    const char *p = skip_ows(value);
    if (strncasecmp(p, json, sizeof(json) - 1) != 0)
        return SVC_CTYPE_OTHER;
    p = skip_ows(p + sizeof(json) - 1);
    while (*p == ';') {
        p = skip_ows(p + 1);
        const char *name = p;
        while (*p != '\0' && *p != '=' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        size_t name_len = (size_t)(p - name);
        if (*p != '=')
            return SVC_CTYPE_OTHER;
        p++;
        bool quoted = *p == '"';
        if (quoted)
            p++;
        const char *val = p;
        while (*p != '\0' && (quoted ? *p != '"' : (*p != ';' && *p != ' ' && *p != '\t')))
            p++;
        size_t val_len = (size_t)(p - val);
        if (quoted) {
            if (*p != '"')
                return SVC_CTYPE_OTHER;
            p++;
        }
        if (name_len == 7 && strncasecmp(name, "charset", 7) == 0 &&
            !((val_len == 5 && strncasecmp(val, "utf-8", 5) == 0) ||
              (val_len == 4 && strncasecmp(val, "utf8", 4) == 0)))
            return SVC_CTYPE_OTHER;
        p = skip_ows(p);
    }
    return *p == '\0' ? SVC_CTYPE_JSON : SVC_CTYPE_OTHER;
}

/* The next comma-separated entry of a list at *p, without surrounding OWS: its
 * start, its length in *n; *p moves past the entry and its comma. NULL at the end. */
static const char *list_entry(const char **p, size_t *n)
{
    if (**p == '\0')
        return NULL;
    const char *start = skip_ows(*p);
    const char *end = start;
    while (*end != '\0' && *end != ',')
        end++;
    *p = *end == ',' ? end + 1 : end;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *n = (size_t)(end - start);
    return start;
}

bool svc_cors_origin_allowed(const char *allowed, const char *origin)
{
    if (allowed == NULL || allowed[0] == '\0' || origin == NULL || origin[0] == '\0')
        return false;
    size_t olen = strlen(origin), n = 0;
    const char *p = allowed;
    for (const char *e = list_entry(&p, &n); e != NULL; e = list_entry(&p, &n)) {
        if ((n == 1 && e[0] == '*') || (n == olen && strncmp(e, origin, n) == 0))
            return true;
    }
    return false;
}

/* Why `o` (n bytes, trimmed) is not an origin, or NULL when it is one. */
static const char *origin_problem(const char *o, size_t n)
{
    size_t i = 0;
    if (n == 4 && strncmp(o, "null", 4) == 0)
        return "\"null\" would let every sandboxed document and file: page read responses";
    if (n == 1 && o[0] == '*')
        return "\"*\" (any origin) must be the whole list";
    while (i < n && ((o[i] >= 'a' && o[i] <= 'z') ||
                     (i > 0 && ((o[i] >= '0' && o[i] <= '9') || strchr("+-.", o[i]) != NULL))))
        i++;
    if (i == 0 || n - i < 3 || strncmp(o + i, "://", 3) != 0)
        return "it is not scheme://host[:port] (a lowercase scheme, then ://)";
    i += 3;
    size_t host = i;
    if (i < n && o[i] == '[') {
        while (i < n && o[i] != ']' && (isxdigit((unsigned char)o[i]) || strchr("[:.", o[i])))
            i++;
        if (i == n || o[i] != ']' || i == host + 1)
            return "its IPv6 host is not [hex:digits]";
        i++;
    } else {
        while (i < n && ((o[i] >= 'a' && o[i] <= 'z') || (o[i] >= '0' && o[i] <= '9') ||
                         o[i] == '-' || o[i] == '.'))
            i++;
        if (i < n && o[i] == '*')
            return "wildcards are not supported: list each origin";
        if (i < n && o[i] >= 'A' && o[i] <= 'Z')
            return "browsers send origins in lowercase";
        if (i == host)
            return "it has no host";
    }
    if (i < n && o[i] == ':') {
        size_t digits = ++i;
        unsigned long port = 0;
        while (i < n && o[i] >= '0' && o[i] <= '9' && port <= 65535)
            port = port * 10 + (unsigned long)(o[i++] - '0');
        if (i == digits || port == 0 || port > 65535 || (i < n && o[i] >= '0' && o[i] <= '9'))
            return "its port is not 1 to 65535";
    }
    if (i < n)
        return o[i] == '/' ? "it has a path (an origin is scheme://host[:port] only)"
                           : "it has characters after scheme://host[:port]";
    return NULL;
}

enum dc_status svc_cors_origins_check(const char *list, struct dc_error *err)
{
    const char *p = list;
    size_t n = 0;
    const char *e = list_entry(&p, &n);
    if (e == NULL || (n == 0 && *p == '\0') || (n == 1 && e[0] == '*' && *p == '\0'))
        return DC_OK; /* off, or any origin */
    for (; e != NULL; e = list_entry(&p, &n)) {
        const char *bad = n == 0 ? "an empty entry" : origin_problem(e, n);
        if (bad != NULL)
            return dc_error_set(err, DC_EINVAL, NULL, "\"%.*s\" is not an allowed origin: %s",
                                (int)(n < 200 ? n : 200), e, bad);
    }
    return DC_OK;
}
