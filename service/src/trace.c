/* service/src/trace.c -- W3C traceparent: parse, start a span, format. */
#include "trace.h"

#include <stdio.h>
#include <string.h>

#include "http.h"

/* True when the n characters at p are lowercase hex digits. */
static bool lower_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    }
    return true;
}

static bool all_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '0')
            return false;
    }
    return true;
}

static unsigned hex_byte(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 2; i++)
        v = v * 16 + (unsigned)(p[i] <= '9' ? p[i] - '0' : p[i] - 'a' + 10);
    return v;
}

static void copy_field(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, n);
    dst[n] = '\0';
}

enum dc_status svc_traceparent_parse(const char *value, struct svc_trace *out, struct dc_error *err)
{
    /* Offsets in "vv-<32>-<16>-ff". */
    enum { TRACE_AT = 3, PARENT_AT = 36, FLAGS_AT = 53 };
    while (*value == ' ' || *value == '\t')
        value++;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
        n--;
    if (n < SVC_TRACEPARENT_LEN)
        return dc_error_set(err, DC_EPARSE, NULL, "shorter than 55 characters");
    if (!lower_hex(value, 2) || value[2] != '-')
        return dc_error_set(err, DC_EPARSE, NULL, "the version is not two lowercase hex digits");
    if (memcmp(value, "ff", 2) == 0)
        return dc_error_set(err, DC_EPARSE, NULL, "version ff is invalid");
    /* Version 00 has exactly four fields; a later version may append fields,
     * each after a dash. */
    bool v00 = memcmp(value, "00", 2) == 0;
    if ((v00 && n != SVC_TRACEPARENT_LEN) ||
        (!v00 && n > SVC_TRACEPARENT_LEN && value[SVC_TRACEPARENT_LEN] != '-'))
        return dc_error_set(err, DC_EPARSE, NULL, "%s",
                            v00 ? "version 00 has exactly 55 characters"
                                : "a field after the flags must follow a dash");
    if (!lower_hex(value + TRACE_AT, SVC_TRACE_ID_HEX) || value[PARENT_AT - 1] != '-' ||
        !lower_hex(value + PARENT_AT, SVC_SPAN_ID_HEX) || value[FLAGS_AT - 1] != '-' ||
        !lower_hex(value + FLAGS_AT, 2))
        return dc_error_set(err, DC_EPARSE, NULL,
                            "not version-traceid-parentid-flags in lowercase hex");
    if (all_zero(value + TRACE_AT, SVC_TRACE_ID_HEX))
        return dc_error_set(err, DC_EPARSE, NULL, "the trace-id is all zeros");
    if (all_zero(value + PARENT_AT, SVC_SPAN_ID_HEX))
        return dc_error_set(err, DC_EPARSE, NULL, "the parent-id is all zeros");
    copy_field(out->trace_id, value + TRACE_AT, SVC_TRACE_ID_HEX);
    copy_field(out->parent_id, value + PARENT_AT, SVC_SPAN_ID_HEX);
    /* Only the sampled flag is defined for version 00; other bits go out as 0. */
    out->flags = hex_byte(value + FLAGS_AT) & SVC_TRACE_FLAG_SAMPLED;
    return DC_OK;
}

/* A random id of `hex` digits that is not all zeros (the specification's
 * invalid value). */
static void random_id(char *out, size_t hex)
{
    do {
        svc_random_hex(out, hex / 2);
    } while (all_zero(out, hex));
}

void svc_trace_start(const char *value, unsigned count, struct svc_trace *out, struct dc_error *why)
{
    bool continued = false;
    dc_error_clear(why);
    if (count > 1)
        dc_error_set(why, DC_EPARSE, NULL, "more than one traceparent header");
    else if (count == 1 && value != NULL)
        continued = svc_traceparent_parse(value, out, why) == DC_OK;
    if (!continued) {
        random_id(out->trace_id, SVC_TRACE_ID_HEX);
        out->parent_id[0] = '\0';
        out->flags = 0;
    }
    random_id(out->span_id, SVC_SPAN_ID_HEX);
}

void svc_traceparent_format(const struct svc_trace *t, char out[SVC_TRACEPARENT_LEN + 1])
{
    snprintf(out, SVC_TRACEPARENT_LEN + 1, "00-%s-%s-%02x", t->trace_id, t->span_id,
             t->flags & 0xffu);
}
