/* service/src/fleet_parse.c -- the fleet's side of the Prometheus HTTP API: the
 * queries it sends, the names of its sources and errors, and the answer of an
 * instant query
 * (https://prometheus.io/docs/prometheus/latest/querying/api/#instant-queries)
 * read as hostile input: strict JSON within a depth limit, the documented shape
 * or nothing, a bounded number of series, bounded label values, finite values.
 * Owner: the fleet availability work (issue 19). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "dc/utf8.h"

/* ---- names and queries --------------------------------------------------------- */

const char *svc_fleet_source_name(enum svc_fleet_source s)
{
    return s == SVC_FLEET_AGENT ? "agent" : s == SVC_FLEET_DCGM ? "dcgm-exporter" : "unknown";
}

const char *svc_fleet_error_name(enum svc_fleet_error e)
{
    static const char *const names[SVC_FLEET_ERROR_COUNT] = {
        [SVC_FLEET_OK] = "ok",
        [SVC_FLEET_E_CONNECT] = "connect",
        [SVC_FLEET_E_TIMEOUT] = "timeout",
        [SVC_FLEET_E_HTTP] = "http",
        [SVC_FLEET_E_TOO_LARGE] = "too_large",
        [SVC_FLEET_E_MALFORMED] = "malformed",
        [SVC_FLEET_E_QUERY] = "query",
        [SVC_FLEET_E_SERIES] = "series",
        [SVC_FLEET_E_TOKEN] = "token",
        [SVC_FLEET_E_NOMEM] = "nomem",
        [SVC_FLEET_E_OTHER] = "other",
    };
    return e < SVC_FLEET_ERROR_COUNT ? names[e] : "other";
}

const char *svc_fleet_promql(enum svc_fleet_source s, const char *cluster_label, char *buf,
                             size_t len)
{
    char by[96]; /* a label name of at most SVC_FLEET_LABEL_NAME_MAX (config.h) and ", " */
    const char *cl = cluster_label != NULL ? cluster_label : "";
    snprintf(by, sizeof(by), "%s%s", cl, cl[0] != '\0' ? ", " : "");
    if (s == SVC_FLEET_AGENT)
        /* A device reported twice (an agent and a serve --probe on one node) is
         * free only if both say so. */
        snprintf(buf, len,
                 "min by (%snode, device, model, vendor) (accel_advisor_probe_device_free)", by);
    else
        /* One series per GPU and field; a GPU split into MIG instances keeps its
         * busiest figures. */
        snprintf(buf, len,
                 "max by (__name__, %sHostname, UUID, gpu, pci_bus_id, modelName, pod) "
                 "({__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE\"})",
                 by);
    return buf;
}

/* The label names of enum svc_fleet_label; the cluster label is configured. */
static const char *const label_names[SVC_FL_COUNT] = {
    [SVC_FL_NAME] = "__name__",
    [SVC_FL_CLUSTER] = NULL,
    [SVC_FL_NODE] = "node",
    [SVC_FL_DEVICE] = "device",
    [SVC_FL_MODEL] = "model",
    [SVC_FL_VENDOR] = "vendor",
    [SVC_FL_HOSTNAME] = "Hostname",
    [SVC_FL_UUID] = "UUID",
    [SVC_FL_GPU] = "gpu",
    [SVC_FL_PCI_BUS_ID] = "pci_bus_id",
    [SVC_FL_MODEL_NAME] = "modelName",
    [SVC_FL_POD] = "pod",
};

static enum svc_fleet_error fail(enum svc_fleet_error e, char *why, size_t whylen, const char *fmt,
                                 ...) DC_PRINTF(4, 5);

static enum svc_fleet_error fail(enum svc_fleet_error e, char *why, size_t whylen, const char *fmt,
                                 ...)
{
    if (why != NULL && whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
        svc_fleet_utf8_cut(why);
    }
    return e;
}

void svc_fleet_utf8_cut(char *s)
{
    uint32_t cp;
    for (size_t i = 0; s[i] != '\0';) {
        size_t n = dc_utf8_seq((const unsigned char *)s + i, SIZE_MAX, &cp);
        if (n == 0) {
            s[i] = '\0';
            return;
        }
        i += n;
    }
}

/* ---- a strict JSON reader over the answer, in place ------------------------------ */

/* The reader walks the answer once, without building a tree: strings the fleet
 * keeps are unescaped where they lie and ended with a NUL, so a kept label is a
 * view into the reader's copy of the answer. Memory is the copy and one record
 * per series kept, whatever the answer's shape. The grammar is RFC 8259's, as
 * strictly as api_json_parse: no trailing data, no raw control characters in
 * strings, valid UTF-8, paired surrogate escapes, no \u0000 (a label could not
 * carry it), nesting within SVC_FLEET_JSON_DEPTH. */
struct rd {
    char *s; /* the copy, NUL-terminated */
    size_t i, len;
    const char *bad; /* what is wrong (static text), NULL while all is well */
    size_t bad_at;
};

static bool rd_fail(struct rd *r, const char *what)
{
    if (r->bad == NULL) {
        r->bad = what;
        r->bad_at = r->i;
    }
    return false;
}

static void rd_ws(struct rd *r)
{
    while (r->i < r->len &&
           (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        r->i++;
}

/* Expect `c` after white space. */
static bool rd_eat(struct rd *r, char c)
{
    rd_ws(r);
    if (r->i < r->len && r->s[r->i] == c) {
        r->i++;
        return true;
    }
    return false;
}

/* One \u escape (at r->i, past the backslash and the u) into *cp, a surrogate
 * pair read whole. */
static bool rd_unicode(struct rd *r, uint32_t *cp)
{
    int hi = r->i + 4 <= r->len ? dc_hex4(r->s + r->i) : -1;
    if (hi < 0)
        return rd_fail(r, "a \\u escape without four hex digits");
    r->i += 4;
    if (hi == 0)
        return rd_fail(r, "a \\u0000 escape");
    if (hi >= 0xDC00 && hi <= 0xDFFF)
        return rd_fail(r, "a lone low surrogate escape");
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = (uint32_t)hi;
        return true;
    }
    int lo = r->i + 6 <= r->len && r->s[r->i] == '\\' && r->s[r->i + 1] == 'u'
                 ? dc_hex4(r->s + r->i + 2)
                 : -1;
    if (lo < 0xDC00 || lo > 0xDFFF)
        return rd_fail(r, "a high surrogate escape without its low half");
    r->i += 6;
    *cp = 0x10000u + (((uint32_t)hi - 0xD800u) << 10) + ((uint32_t)lo - 0xDC00u);
    return true;
}

/* A string at r->i (its opening quote next after white space): checked, and
 * unescaped in place; *out (may be NULL) points at it, NUL-terminated. */
static bool rd_string(struct rd *r, char **out)
{
    if (!rd_eat(r, '"'))
        return rd_fail(r, "a string was expected");
    char *w = r->s + r->i, *start = w;
    for (;;) {
        if (r->i >= r->len)
            return rd_fail(r, "an unterminated string");
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '"') {
            r->i++;
            *w = '\0';
            if (out != NULL)
                *out = start;
            return true;
        }
        if (c < 0x20)
            return rd_fail(r, "a control character in a string");
        if (c != '\\') {
            uint32_t cp;
            size_t n = dc_utf8_seq((const unsigned char *)r->s + r->i, SIZE_MAX, &cp);
            if (n == 0 || r->i + n > r->len)
                return rd_fail(r, "bytes that are not UTF-8");
            memmove(w, r->s + r->i, n);
            w += n;
            r->i += n;
            continue;
        }
        char e = r->i + 1 < r->len ? r->s[r->i + 1] : '\0';
        r->i += 2;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = e != '\0' ? strchr(from, e) : NULL;
        uint32_t cp;
        if (k != NULL)
            *w++ = to[k - from];
        else if (e != 'u')
            return rd_fail(r, "an unknown escape");
        else if (!rd_unicode(r, &cp))
            return false;
        else
            w += dc_utf8_put(w, cp); /* never longer than its escape */
    }
}

/* A number at r->i: RFC 8259's grammar, checked; *out its value when asked. */
static bool rd_number(struct rd *r, double *out)
{
    rd_ws(r);
    size_t b = r->i;
    const char *s = r->s;
    if (r->i < r->len && s[r->i] == '-')
        r->i++;
    if (r->i < r->len && s[r->i] == '0') {
        r->i++;
    } else if (r->i < r->len && s[r->i] >= '1' && s[r->i] <= '9') {
        while (r->i < r->len && s[r->i] >= '0' && s[r->i] <= '9')
            r->i++;
    } else {
        return rd_fail(r, "a value was expected");
    }
    if (r->i < r->len && s[r->i] == '.') {
        size_t d = ++r->i;
        while (r->i < r->len && s[r->i] >= '0' && s[r->i] <= '9')
            r->i++;
        if (r->i == d)
            return rd_fail(r, "a number without digits after its point");
    }
    if (r->i < r->len && (s[r->i] == 'e' || s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->len && (s[r->i] == '+' || s[r->i] == '-'))
            r->i++;
        size_t d = r->i;
        while (r->i < r->len && s[r->i] >= '0' && s[r->i] <= '9')
            r->i++;
        if (r->i == d)
            return rd_fail(r, "a number without digits in its exponent");
    }
    if (out != NULL) {
        char num[64];
        size_t n = r->i - b < sizeof(num) - 1 ? r->i - b : sizeof(num) - 1;
        memcpy(num, s + b, n);
        num[n] = '\0';
        *out = strtod(num, NULL);
    }
    return true;
}

static bool rd_value(struct rd *r, unsigned depth);

/* The members or elements of a container whose opening bracket was read. */
static bool rd_container(struct rd *r, bool object, unsigned depth)
{
    if (depth > SVC_FLEET_JSON_DEPTH)
        return rd_fail(r, "nesting deeper than the limit");
    if (rd_eat(r, object ? '}' : ']'))
        return true;
    do {
        if (object && (!rd_string(r, NULL) || !rd_eat(r, ':')))
            return rd_fail(r, "a member name and ':' were expected");
        if (!rd_value(r, depth))
            return false;
    } while (rd_eat(r, ','));
    return rd_eat(r, object ? '}' : ']') || rd_fail(r, "',' or a closing bracket was expected");
}

/* Any value, checked and passed over. */
static bool rd_value(struct rd *r, unsigned depth)
{
    rd_ws(r);
    static const char *const words[] = {"true", "false", "null"};
    if (r->i < r->len && (r->s[r->i] == '{' || r->s[r->i] == '[')) {
        bool object = r->s[r->i++] == '{';
        return rd_container(r, object, depth + 1);
    }
    if (r->i < r->len && r->s[r->i] == '"')
        return rd_string(r, NULL);
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if (r->len - r->i >= n && memcmp(r->s + r->i, words[k], n) == 0) {
            r->i += n;
            return true;
        }
    }
    return rd_number(r, NULL);
}

/* The members of an object whose '{' is next: `member` is called with each
 * name, reading its value (or leaving it to be passed over: it returns
 * false when it did not read it). */
static bool rd_object(struct rd *r, unsigned depth, void *ctx,
                      bool (*member)(struct rd *r, const char *name, unsigned depth, void *ctx,
                                     bool *read))
{
    if (!rd_eat(r, '{'))
        return rd_fail(r, "an object was expected");
    if (depth > SVC_FLEET_JSON_DEPTH)
        return rd_fail(r, "nesting deeper than the limit");
    if (rd_eat(r, '}'))
        return true;
    do {
        char *name = NULL;
        bool read = false;
        if (!rd_string(r, &name) || !rd_eat(r, ':'))
            return rd_fail(r, "a member name and ':' were expected");
        if (!member(r, name, depth, ctx, &read))
            return false;
        if (!read && !rd_value(r, depth))
            return false;
    } while (rd_eat(r, ','));
    return rd_eat(r, '}') || rd_fail(r, "',' or '}' was expected");
}

/* ---- the answer's shape ---------------------------------------------------------- */

/* What the walk found. */
struct answer {
    const char *cluster_label;
    size_t max_series;
    struct svc_fleet_vector *out;
    size_t cap;
    char *status, *error_type, *error;
    char *result_type;
    bool has_data, result_array; /* data an object; data.result an array */
    bool twice;                  /* a member the fleet reads given twice */
    unsigned seen;               /* SEEN_* of the root's and data's members met, of any type */
    bool shape_bad;              /* an element is not {metric, value} (kept reading) */
    bool too_many;               /* past max_series: the walk stopped */
    size_t elements;             /* of data.result */
    struct svc_fleet_series cur;
    bool has_metric, has_value, has_histogram, keep;
};

static bool metric_member(struct rd *r, const char *name, unsigned depth, void *ctx, bool *read)
{
    struct answer *a = ctx;
    (void)depth;
    char *v = NULL;
    *read = true;
    rd_ws(r);
    if (r->i >= r->len || r->s[r->i] != '"') {
        a->shape_bad = true; /* label values are strings */
        *read = false;
        return true;
    }
    if (!rd_string(r, &v))
        return false;
    for (int k = 0; k < SVC_FL_COUNT; k++) {
        const char *want = k == SVC_FL_CLUSTER ? a->cluster_label : label_names[k];
        if (want == NULL || want[0] == '\0' || strcmp(want, name) != 0)
            continue;
        if (a->cur.label[k] != NULL)
            a->shape_bad = true; /* a label twice in one series */
        if (strlen(v) > SVC_FLEET_LABEL_MAX)
            a->keep = false;
        a->cur.label[k] = v;
    }
    return true;
}

/* "value" (its '[' next): [time, "sample"]; a finite sample is kept. */
static bool read_sample(struct rd *r, struct answer *a, unsigned depth)
{
    char *text = NULL;
    size_t items = 0;
    bool shape = true;
    (void)rd_eat(r, '[');
    if (!rd_eat(r, ']')) {
        do {
            rd_ws(r);
            char c = r->i < r->len ? r->s[r->i] : '\0';
            bool ok = true;
            if (items == 0 && (c == '-' || isdigit((unsigned char)c)))
                ok = rd_number(r, NULL);
            else if (items == 1 && c == '"')
                ok = rd_string(r, &text);
            else {
                shape = false;
                ok = rd_value(r, depth + 1);
            }
            if (!ok)
                return false;
            items++;
        } while (rd_eat(r, ','));
        if (!rd_eat(r, ']'))
            return rd_fail(r, "',' or ']' was expected");
    }
    if (!shape || items != 2) {
        a->shape_bad = true;
        return true;
    }
    char *end = NULL;
    a->cur.value = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(a->cur.value))
        a->keep = false;
    return true;
}

static bool series_member(struct rd *r, const char *name, unsigned depth, void *ctx, bool *read)
{
    struct answer *a = ctx;
    rd_ws(r);
    char c = r->i < r->len ? r->s[r->i] : '\0';
    if (strcmp(name, "metric") == 0 || strcmp(name, "value") == 0) {
        bool metric = name[0] == 'm';
        *read = c == (metric ? '{' : '[');
        if (!*read || (metric ? a->has_metric : a->has_value)) { /* or given twice */
            a->shape_bad = true;
            *read = false;
            return true;
        }
        a->has_value = a->has_value || !metric;
        a->has_metric = a->has_metric || metric;
        return metric ? rd_object(r, depth + 1, a, metric_member) : read_sample(r, a, depth);
    }
    if (strcmp(name, "histogram") == 0)
        a->has_histogram = true;
    return true;
}

/* One element of data.result. */
static bool read_element(struct rd *r, struct answer *a, unsigned depth)
{
    memset(&a->cur, 0, sizeof(a->cur));
    a->has_metric = a->has_value = a->has_histogram = false;
    a->keep = true;
    rd_ws(r);
    if (r->i >= r->len || r->s[r->i] != '{') {
        a->shape_bad = true;
        return rd_value(r, depth);
    }
    if (!rd_object(r, depth + 1, a, series_member))
        return false;
    if (!a->has_metric || (!a->has_value && !a->has_histogram))
        a->shape_bad = true;
    if (a->shape_bad || a->too_many)
        return true;
    struct svc_fleet_vector *v = a->out;
    if (!a->keep || !a->has_value) { /* a native histogram is no sample */
        v->dropped++;
        return true;
    }
    if (v->n == a->cap) {
        size_t cap = a->cap > 0 ? a->cap * 2 : 64;
        cap = cap < a->max_series ? cap : a->max_series;
        struct svc_fleet_series *s = realloc(v->series, cap * sizeof(*s));
        if (s == NULL)
            return rd_fail(r, "out of memory");
        v->series = s;
        a->cap = cap;
    }
    v->series[v->n++] = a->cur;
    return true;
}

static bool read_result(struct rd *r, struct answer *a, unsigned depth)
{
    if (!rd_eat(r, '['))
        return rd_fail(r, "'[' was expected");
    if (depth > SVC_FLEET_JSON_DEPTH)
        return rd_fail(r, "nesting deeper than the limit");
    if (rd_eat(r, ']'))
        return true;
    do {
        if (++a->elements > a->max_series) {
            a->too_many = true;
            return false; /* a storm is not read to its end */
        }
        if (!read_element(r, a, depth))
            return false;
    } while (rd_eat(r, ','));
    return rd_eat(r, ']') || rd_fail(r, "',' or ']' was expected");
}

/* The members of the root and of data the fleet reads. A member given twice
 * is refused whatever the type of either copy: JSON readers disagree on which
 * copy wins (cJSON takes the first, this walk would take the one it can use). */
enum {
    SEEN_STATUS = 1,
    SEEN_ERROR_TYPE = 2,
    SEEN_ERROR = 4,
    SEEN_DATA = 8,
    SEEN_RESULT_TYPE = 16,
    SEEN_RESULT = 32
};

struct member {
    const char *name;
    unsigned bit;
};
static const struct member root_members[] = {{"status", SEEN_STATUS},
                                             {"errorType", SEEN_ERROR_TYPE},
                                             {"error", SEEN_ERROR},
                                             {"data", SEEN_DATA}};
static const struct member data_members[] = {{"resultType", SEEN_RESULT_TYPE},
                                             {"result", SEEN_RESULT}};

/* Notes member `name` of one level (its table of n members) as met; returns its
 * SEEN_* bit (0: not one the fleet reads there). */
static unsigned note_member(struct answer *a, const struct member *level, size_t n,
                            const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, level[i].name) == 0) {
            a->twice = a->twice || (a->seen & level[i].bit) != 0;
            a->seen |= level[i].bit;
            return level[i].bit;
        }
    return 0;
}

static bool data_member(struct rd *r, const char *name, unsigned depth, void *ctx, bool *read)
{
    struct answer *a = ctx;
    rd_ws(r);
    char c = r->i < r->len ? r->s[r->i] : '\0';
    unsigned bit =
        note_member(a, data_members, sizeof(data_members) / sizeof(data_members[0]), name);
    if (bit == SEEN_RESULT_TYPE && c == '"') {
        *read = true;
        return rd_string(r, &a->result_type);
    }
    if (bit == SEEN_RESULT) {
        a->result_array = c == '[';
        *read = c == '[';
        return c != '[' || read_result(r, a, depth + 1);
    }
    return true;
}

static bool root_member(struct rd *r, const char *name, unsigned depth, void *ctx, bool *read)
{
    struct answer *a = ctx;
    rd_ws(r);
    char c = r->i < r->len ? r->s[r->i] : '\0';
    unsigned bit =
        note_member(a, root_members, sizeof(root_members) / sizeof(root_members[0]), name);
    char **text = bit == SEEN_STATUS       ? &a->status
                  : bit == SEEN_ERROR_TYPE ? &a->error_type
                  : bit == SEEN_ERROR      ? &a->error
                                           : NULL;
    if (text != NULL && c == '"') {
        *read = true;
        return rd_string(r, text);
    }
    if (bit == SEEN_DATA && c == '{') {
        a->has_data = *read = true;
        return rd_object(r, depth + 1, a, data_member);
    }
    return true;
}

/* ---- library-wide functions below ---- */

void svc_fleet_vector_free(struct svc_fleet_vector *v)
{
    if (v == NULL)
        return;
    free(v->text);
    free(v->series);
    memset(v, 0, sizeof(*v));
}

/* The verdict on a walk that read the whole answer. */
static enum svc_fleet_error verdict(const struct answer *a, char *why, size_t whylen)
{
    const char *status = a->status;
    if (a->twice)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen,
                    "not a Prometheus answer: a member given twice");
    if (status == NULL)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen, "not a Prometheus answer: no status");
    if (strcmp(status, "error") == 0)
        return fail(SVC_FLEET_E_QUERY, why, whylen, "Prometheus: %.40s: %.*s",
                    a->error_type != NULL ? a->error_type : "error", SVC_FLEET_ERROR_TEXT_MAX,
                    a->error != NULL ? a->error : "(no message)");
    if (strcmp(status, "success") != 0 || !a->has_data || !a->result_array)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen, "not a Prometheus answer: no data.result");
    if (a->result_type == NULL || strcmp(a->result_type, "vector") != 0)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen, "result type %.32s, not vector",
                    a->result_type != NULL ? a->result_type : "(none)");
    if (a->shape_bad)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen,
                    "not a Prometheus answer: a result is not {metric, value}");
    return SVC_FLEET_OK;
}

enum svc_fleet_error svc_fleet_parse(const char *body, size_t len, const char *cluster_label,
                                     size_t max_series, struct svc_fleet_vector *out, char *why,
                                     size_t whylen)
{
    memset(out, 0, sizeof(*out));
    struct answer a = {.cluster_label = cluster_label, .max_series = max_series, .out = out};
    struct rd r = {.s = malloc(len + 1), .len = len};
    if (r.s == NULL)
        return fail(SVC_FLEET_E_NOMEM, why, whylen, "out of memory");
    memcpy(r.s, body, len);
    r.s[len] = '\0';
    out->text = r.s;
    bool ok = rd_object(&r, 1, &a, root_member);
    if (ok) {
        rd_ws(&r);
        ok = r.i == r.len || rd_fail(&r, "data after the answer");
    }
    enum svc_fleet_error rc = SVC_FLEET_OK;
    if (a.too_many)
        rc = fail(SVC_FLEET_E_SERIES, why, whylen,
                  "more than %zu series: past the limit (fleet_max_series)", max_series);
    else if (!ok && r.bad != NULL && strcmp(r.bad, "out of memory") == 0)
        rc = fail(SVC_FLEET_E_NOMEM, why, whylen, "out of memory");
    else if (!ok)
        rc = fail(SVC_FLEET_E_MALFORMED, why, whylen, "not JSON: %s at byte %zu",
                  r.bad != NULL ? r.bad : "?", r.bad_at);
    else
        rc = verdict(&a, why, whylen);
    if (rc != SVC_FLEET_OK)
        svc_fleet_vector_free(out);
    return rc;
}
