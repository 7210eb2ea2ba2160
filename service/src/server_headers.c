/* service/src/server_headers.c -- request headers that may come on several
 * lines, read with libmicrohttpd: traceparent (more than one is invalid, W3C
 * Trace Context) and If-None-Match (several lines form one list, RFC 9110). The
 * rules themselves are in trace.c and etag.c. */
#include <strings.h>

#include "etag.h"
#include "log.h"
#include "server_internal.h"
#include "trace.h"

struct header_scan {
    const char *name;  /* header to look for, any case */
    const char *first; /* its first value */
    unsigned count;    /* lines seen */
    const char *etag;  /* If-None-Match: the tag to match, else NULL */
    bool matched;
};

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    struct header_scan *sc = cls;
    (void)kind;
    if (key == NULL || strcasecmp(key, sc->name) != 0)
        return MHD_YES;
    if (sc->count++ == 0)
        sc->first = value != NULL ? value : "";
    if (sc->etag != NULL && svc_etag_none_match(value, sc->etag))
        sc->matched = true;
    return MHD_YES;
}

void svc__trace_from_request(struct MHD_Connection *c, const char *request_id,
                             struct svc_trace *out)
{
    struct header_scan sc = {.name = "traceparent"};
    struct dc_error why;
    MHD_get_connection_values(c, MHD_HEADER_KIND, scan_header, &sc);
    svc_trace_start(sc.first, sc.count, out, &why);
    if (why.code == DC_OK || !svc_log_enabled("debug"))
        return;
    /* A caller whose traces break here can see why with --log-level debug. */
    struct svc_log_line l;
    svc_log_begin(&l, "debug", "traceparent_ignored");
    svc_log_str(&l, "request_id", request_id);
    svc_log_str(&l, "traceparent", sc.first);
    svc_log_str(&l, "trace_id", out->trace_id);
    svc_log_end_msg(&l, "traceparent ignored (%s): a new trace starts", why.msg);
}

bool svc__if_none_match(struct MHD_Connection *c, const char *etag)
{
    struct header_scan sc = {.name = MHD_HTTP_HEADER_IF_NONE_MATCH, .etag = etag};
    MHD_get_connection_values(c, MHD_HEADER_KIND, scan_header, &sc);
    return sc.matched;
}
