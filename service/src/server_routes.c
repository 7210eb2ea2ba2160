/* service/src/server_routes.c -- the server's routes: dispatch to one handler
 * per route (POST /v1/recommendations and its batch, the GET routes, OPTIONS),
 * request bodies parsed and validated against the contract, the decision core
 * run, and every response queued with its headers and within the
 * queued-response budget. The libmicrohttpd callbacks that call
 * svc__dispatch are server.c's. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "api/convert.h"
#include "api/jsonw.h"
#include "api/problem.h"
#include "build_info.h"
#include "dc/embedded.h"
#include "dc/engine.h"
#include "dc/yaml.h"
#include "framing.h"
#include "etag.h"
#include "http.h"
#include "inventory.h"
#include "log.h"
#include "rulesrc.h"
#include "server_internal.h"
#include "server_request.h"
#include "workload_check.h"

/* ---- responses ------------------------------------------------------------------ */

enum body_owner { BODY_STATIC, BODY_MALLOC };

/* A body of ours stays in memory until its client has read it all: its bytes
 * are taken from the queued-response budget until the request completes. A
 * success that does not fit is replaced by a 503; problems, small and needed by
 * their clients, are counted but always sent. */
static bool response_fits(svc_server *s, struct req *r, int status, size_t len)
{
    if (status >= 400) {
        atomic_fetch_add_explicit(&s->metrics.response_bytes, (int64_t)len, memory_order_relaxed);
        r->resp_reserved += len;
        return true;
    }
    if (!budget_take(&s->metrics.response_bytes, len, s->cfg.max_queued_response_bytes)) {
        atomic_fetch_add_explicit(&s->metrics.response_budget_rejected, 1, memory_order_relaxed);
        return false;
    }
    r->resp_reserved += len;
    return true;
}

/* Queue a response. `body` is freed as `owner` says, even on failure. */
static enum MHD_Result respond(svc_server *s, struct MHD_Connection *c, struct req *r, int status,
                               const char *ctype, char *body, size_t len, enum body_owner owner,
                               const struct hdr *extra)
{
    struct MHD_Response *resp = NULL;
    if (owner == BODY_MALLOC && body != NULL && !response_fits(s, r, status, len)) {
        char detail[160];
        free(body);
        snprintf(detail, sizeof(detail),
                 "the server holds its limit of %u bytes of responses not yet read by their "
                 "clients; retry shortly",
                 s->cfg.max_queued_response_bytes);
        return svc__respond_problem(s, c, r, 503, API_PROBLEM_OVERLOADED, detail, retry_after);
    }
    if (body == NULL) {
        body = unconst("");
        len = 0;
        owner = BODY_STATIC;
    }
    switch (owner) {
    case BODY_STATIC:
        resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
        break;
    case BODY_MALLOC:
        resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
        if (resp == NULL)
            free(body);
        break;
    }
    if (resp == NULL)
        return MHD_NO;
    char traceparent[SVC_TRACEPARENT_LEN + 1];
    svc_traceparent_format(&r->trace, traceparent);
    bool ok = MHD_add_response_header(resp, "X-Request-Id", r->id) == MHD_YES &&
              MHD_add_response_header(resp, "traceparent", traceparent) == MHD_YES;
    if (ctype != NULL)
        ok = ok && MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype) == MHD_YES;
    if (r->cors) {
        bool any = strcmp(s->cfg.cors_origins, "*") == 0;
        ok = ok &&
             MHD_add_response_header(resp, "Access-Control-Allow-Origin", any ? "*" : r->origin) ==
                 MHD_YES &&
             MHD_add_response_header(resp, "Access-Control-Expose-Headers", EXPOSE_HEADERS) ==
                 MHD_YES;
        if (!any)
            ok = ok && MHD_add_response_header(resp, "Vary", "Origin") == MHD_YES;
    }
    /* A body with an ETag may be stored but is revalidated before every use;
     * anything else (recommendations, errors, health) is never stored. */
    if (r->etag[0] != '\0' && (status == 200 || status == 304))
        ok = ok && MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, r->etag) == MHD_YES &&
             MHD_add_response_header(resp, "Cache-Control", "no-cache") == MHD_YES;
    else
        ok = ok && MHD_add_response_header(resp, "Cache-Control", "no-store") == MHD_YES;
    if (atomic_load(&s->draining) || r->over_limit || r->close)
        ok = ok && MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
    for (const struct hdr *h = extra; ok && h != NULL && h->name != NULL; h++)
        ok = MHD_add_response_header(resp, h->name, h->value) == MHD_YES;
    enum MHD_Result res = ok ? MHD_queue_response(c, (unsigned)status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    if (res == MHD_YES) {
        r->status = status;
        r->bytes = status == 304 ? 0 : len; /* a 304 sends none of the body it stands for */
        svc__conn_received(r->conn);        /* the rest of an early-answered body is never read */
    }
    return res;
}

/* Queue `json` (takes ownership) rendered on one line. */
static enum MHD_Result respond_json(svc_server *s, struct MHD_Connection *c, struct req *r,
                                    int status, const char *ctype, cJSON *json,
                                    const struct hdr *extra)
{
    size_t len = 0;
    char *text = api_json_print(json, 0, &len);
    cJSON_Delete(json);
    if (text == NULL)
        return MHD_NO;
    return respond(s, c, r, status, ctype, text, len, BODY_MALLOC, extra);
}

static enum MHD_Result respond_problem_json(svc_server *s, struct MHD_Connection *c, struct req *r,
                                            cJSON *problem, const struct hdr *extra)
{
    if (problem == NULL)
        return MHD_NO;
    int status = cJSON_GetObjectItemCaseSensitive(problem, "status")->valueint;
    return respond_json(s, c, r, status, API_PROBLEM_CONTENT_TYPE, problem, extra);
}

enum MHD_Result svc__respond_problem(svc_server *s, struct MHD_Connection *c, struct req *r,
                                     int status, const char *type, const char *detail,
                                     const struct hdr *extra)
{
    return respond_problem_json(s, c, r, api_problem_new(status, type, NULL, detail, r->id), extra);
}

/* 500: the body names only the request id; the internals go to the log. */
static enum MHD_Result respond_internal(svc_server *s, struct MHD_Connection *c, struct req *r,
                                        const char *what, const char *why)
{
    struct svc_log_line l;
    svc_log_begin(&l, "error", "internal_error");
    svc_log_str(&l, "request_id", r->id);
    svc_log_str(&l, "trace_id", r->trace.trace_id);
    svc_log_str(&l, "span_id", r->trace.span_id);
    svc_log_str(&l, "route", svc_route_label(r->route));
    svc_log_str(&l, "where", what);
    svc_log_str(&l, "error", why);
    svc_log_end_msg(&l, "internal error in %s: %s", what, why);
    return svc__respond_problem(s, c, r, 500, API_PROBLEM_INTERNAL,
                                "The server could not answer this request; quote the request id "
                                "when reporting it.",
                                NULL);
}

/* ---- request bodies ----------------------------------------------------------------- */

/* Parse the body into *doc (its tree in one arena, freed with the document);
 * on failure queue the 400 (or 500) and return NULL with *res set. */
static const cJSON *parse_body(svc_server *s, struct MHD_Connection *c, struct req *r,
                               api_json_doc **doc, enum MHD_Result *res)
{
    struct dc_error err;
    dc_error_clear(&err);
    enum api_json_error e = api_json_parse_doc(r->body != NULL ? r->body : "", r->body_len,
                                               s->cfg.max_json_depth, doc, &err);
    if (e == API_JSON_OK)
        return api_json_doc_root(*doc);
    if (e == API_JSON_NOMEM) {
        *res = respond_internal(s, c, r, "parse", err.msg);
        return NULL;
    }
    cJSON *p = api_problem_new(400, api_json_error_name(e), NULL, err.msg, r->id);
    if (p != NULL && api_problem_add_error(p, err.where, err.msg) != DC_OK) {
        cJSON_Delete(p);
        p = NULL;
    }
    *res = respond_problem_json(s, c, r, p, NULL);
    return NULL;
}

/* A 400 validation problem listing the violations of `vr`, each pointer written
 * after `prefix` (the validated value's place in the body). */
static cJSON *validation_problem(const struct req *r, const struct api_schema_result *vr,
                                 const char *prefix, const char *what)
{
    char detail[160];
    size_t n = 0;
    cJSON *p = api_problem_new(400, API_PROBLEM_VALIDATION, NULL, NULL, r->id);
    if (p == NULL || api_problem_add_violations(p, vr, "", prefix, &n) != DC_OK) {
        cJSON_Delete(p);
        return NULL;
    }
    snprintf(detail, sizeof(detail), "%zu violation%s of the %s schema", n, n == 1 ? "" : "s",
             what);
    if (cJSON_AddStringToObject(p, "detail", detail) == NULL) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

/* A 400 for a workload the core refused (it re-checks what the schema checked). */
static cJSON *core_problem(const struct req *r, const struct dc_error *err, const char *prefix)
{
    char ptr[DC_ERROR_WHERE_MAX + 64];
    snprintf(ptr, sizeof(ptr), "%s%s", prefix, err->where);
    cJSON *p = api_problem_new(400, API_PROBLEM_VALIDATION, NULL, err->msg, r->id);
    if (p != NULL && api_problem_add_error(p, ptr, err->msg) != DC_OK) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

/* The family of the top recommendation, for the metric. */
static unsigned top_family(const struct dc_result *res)
{
    if (res->n_recommendations == 0)
        return SVC_METRICS_FAMILY_NONE;
    return (unsigned)res->recommendations[0].acc->family;
}

/* The explanations the workload asks for (dc/explain.h), within the server's
 * wall-clock budget; *e stays NULL when none is asked. Counted in the metrics. */
static enum dc_status explain_one(svc_server *s, const struct req *r, const cJSON *workload,
                                  const struct dc_recommend_opts *opts, const struct dc_result *res,
                                  struct dc_explanation **e, char *why, size_t whylen)
{
    struct dc_error err;
    dc_error_clear(&err);
    *e = NULL;
    if (res->workload.explain == 0)
        return DC_OK;
    struct dc_explain_opts eo = {res->workload.explain, 0, DC_EXPLAIN_TIME_GUARD_NS};
    enum dc_status rc = dc_explain(r->rs, workload, opts, res, &eo, e, &err);
    if (rc != DC_OK) {
        snprintf(why, whylen, "dc_explain: %s: %s", dc_status_name(rc), err.msg);
        return rc;
    }
    enum dc_explain_stop stop = (*e)->changes_usage.stop != DC_EXPLAIN_COMPLETE
                                    ? (*e)->changes_usage.stop
                                    : (*e)->robustness.usage.stop;
    svc_metrics_explanation(&s->metrics, (*e)->kinds, stop, (*e)->elapsed_ns);
    return DC_OK;
}

/* Whether a body may be cached: one whose explanation the clock cut short
 * depends on the machine's load, not only on the request. */
static bool deterministic(const struct dc_explanation *e)
{
    return e == NULL || (e->changes_usage.stop != DC_EXPLAIN_STOP_TIME &&
                         e->robustness.usage.stop != DC_EXPLAIN_STOP_TIME);
}

/* A probe snapshot is stale when no probe has published for a whole interval
 * plus the timeout; *age is its age (NAN without a snapshot). */
static bool probe_stale(const svc_server *s, const struct probe_snapshot *snap, double *age)
{
    *age = snap != NULL ? probe_snapshot_age_seconds(snap) : NAN;
    return snap != NULL && *age * 1e3 > s->cfg.probe_interval_ms + s->cfg.probe_timeout_ms;
}

static bool read_view(svc_server *s, struct MHD_Connection *c, struct req *r, enum MHD_Result *res);

/* Recommend for one validated workload. On DC_OK *out is the Recommendation
 * body (owned text of *out_len bytes) and *cacheable says whether it may be
 * cached; on DC_EINVAL *problem is a 400 problem; otherwise an internal error. */
static enum dc_status recommend_one(svc_server *s, struct req *r, const cJSON *workload,
                                    const char *prefix, char **out, size_t *out_len,
                                    cJSON **problem, unsigned *family, bool *cacheable, char *why,
                                    size_t whylen)
{
    struct dc_error err;
    struct dc_result *res = NULL;
    dc_error_clear(&err);
    *out = NULL;
    *problem = NULL;
    struct dc_recommend_opts opts = {
        .prefer_available = s->cfg.prefer_available,
        .request_id = r->id,
    };
    struct dc_availability *avail = NULL;
    if (s->fleet != NULL) {
        /* The fleet's, when configured: this host is (at most) one of its nodes. */
        enum dc_status arc = svc__fleet_availability(s, r->rs, &opts, &avail);
        if (arc != DC_OK) {
            free(avail);
            snprintf(why, whylen, "availability: %s", dc_status_name(arc));
            return arc;
        }
    } else if (s->probe_holder != NULL) {
        /* With a probe every candidate carries its availability: none is
         * attached until the first snapshot is in. */
        const struct probe_snapshot *snap = svc__probe_get(s);
        enum dc_status arc = svc_inventory_availability(r->rs, snap, &avail, &opts.n_availability);
        opts.availability_stale = probe_stale(s, snap, &opts.availability_age_seconds);
        probe_snapshot_release(snap);
        if (arc != DC_OK) {
            snprintf(why, whylen, "availability: %s", dc_status_name(arc));
            return arc;
        }
        opts.availability = avail;
        opts.probe_enabled = true;
        opts.probe_source = "probe";
    }
    enum dc_status rc = dc_recommend(r->rs, workload, &opts, &res, &err);
    if (rc == DC_EINVAL) {
        free(avail);
        *problem = core_problem(r, &err, prefix);
        return *problem != NULL ? DC_EINVAL : DC_ENOMEM;
    }
    if (rc != DC_OK) {
        free(avail);
        snprintf(why, whylen, "dc_recommend: %s: %s", dc_status_name(rc), err.msg);
        return rc;
    }
    *family = top_family(res);
    svc_metrics_recommendation(&s->metrics, *family);
    /* The re-runs see the same availability as the result they explain. */
    struct dc_explanation *e = NULL;
    rc = explain_one(s, r, workload, &opts, res, &e, why, whylen);
    free(avail);
    if (rc == DC_OK) {
        *cacheable = deterministic(e);
        *out = api_result_render_view(res, e, &r->view, out_len);
    }
    dc_explanation_free(e);
    dc_result_free(res);
    if (rc != DC_OK)
        return rc;
    if (*out == NULL) {
        snprintf(why, whylen, "api_result_render: out of memory");
        return DC_ENOMEM;
    }
    return DC_OK;
}

/* Answer 200 with a Recommendation body (takes `text`) and keep it in the
 * cache when `cacheable`. */
static enum MHD_Result respond_recommendation(svc_server *s, struct MHD_Connection *c,
                                              struct req *r, char *text, size_t len,
                                              unsigned family, bool cacheable)
{
    /* convert.c writes request_id first: {"request_id":"ID", ... */
    static const char lead[] = "{\"request_id\":\"";
    size_t idl = strlen(r->id);
    size_t off = sizeof(lead) - 1;
    if (s->cache != NULL && cacheable && len > off + idl && memcmp(text, lead, off) == 0 &&
        memcmp(text + off, r->id, idl) == 0 && text[off + idl] == '"')
        svc_cache_put(s->cache,
                      r->cache_version[0] != '\0' ? r->cache_version : dc_ruleset_version(r->rs),
                      r->body != NULL ? r->body : "", r->body_len, text, len, off, idl, family);
    return respond(s, c, r, 200, JSON_TYPE, text, len, BODY_MALLOC, NULL);
}

/* What the query asked of the answer, for the cache key: "" for the default
 * full view (so those keys are what they were), else "#" and the view, the
 * candidates and the frontier: "#s,c5,f1" (at most 24 bytes). */
static void view_tag(const struct api_view *v, char *out, size_t len)
{
    if (!v->summary && v->candidates == 0 && v->frontier == API_FRONTIER_DEFAULT) {
        out[0] = '\0';
        return;
    }
    snprintf(out, len, "#%c,c%zu,f%d", v->summary ? 's' : 'f', v->candidates, (int)v->frontier);
}

/* The cache key's version: the rule set's, and with a probe the snapshot
 * generation too, since every body then carries live availability; then the
 * view asked for, since each view is a body of its own. */
static const char *cache_version(svc_server *s, struct req *r)
{
    char tag[32];
    view_tag(&r->view, tag, sizeof(tag));
    if (s->probe_holder == NULL && s->fleet == NULL) {
        snprintf(r->cache_version, sizeof(r->cache_version), "%s%s", dc_ruleset_version(r->rs),
                 tag);
        return r->cache_version;
    }
    char fleet[48] = "";
    if (s->fleet != NULL)
        svc__fleet_cache_version(s, fleet, sizeof(fleet));
    /* A snapshot turning stale changes the bodies (availability.stale, a warning). */
    const struct probe_snapshot *snap = svc__probe_get(s);
    double age;
    bool stale = probe_stale(s, snap, &age);
    probe_snapshot_release(snap);
    snprintf(r->cache_version, sizeof(r->cache_version), "%s/%llu%s%s%s", dc_ruleset_version(r->rs),
             (unsigned long long)svc__probe_generation(s), stale ? "s" : "", fleet, tag);
    return r->cache_version;
}

static enum MHD_Result handle_recommend(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    enum MHD_Result res = MHD_NO;
    struct api_schema_result vr = {0};
    struct dc_error err;
    char why[DC_ERROR_MSG_MAX + 64];
    dc_error_clear(&err);
    if (!read_view(s, c, r, &res))
        return res;
    if (s->cache != NULL) {
        size_t len = 0;
        unsigned family = 0;
        char *hit = svc_cache_get(s->cache, cache_version(s, r), r->body != NULL ? r->body : "",
                                  r->body_len, r->id, &len, &family);
        if (hit != NULL) {
            atomic_fetch_add_explicit(&s->metrics.cache_hits, 1, memory_order_relaxed);
            svc_metrics_recommendation(&s->metrics, family);
            return respond(s, c, r, 200, JSON_TYPE, hit, len, BODY_MALLOC, NULL);
        }
        atomic_fetch_add_explicit(&s->metrics.cache_misses, 1, memory_order_relaxed);
    }
    api_json_doc *doc = NULL;
    const cJSON *root = parse_body(s, c, r, &doc, &res);
    if (root == NULL)
        return res;
    /* The check `accel-advisor validate` runs too (workload_check.h): its
     * schema here, its reading of the workload as dc_recommend's first step,
     * refused there with the same 400 (recommend_one). */
    enum svc_workload_verdict v = svc_workload_check_schema(
        api_contract_workload_schema(s->contract), root, API_VALIDATION_MAX_ERRORS, &vr, &err);
    if (v == SVC_WORKLOAD_ERROR) {
        res = respond_internal(s, c, r, "validate", err.msg);
    } else if (v == SVC_WORKLOAD_SCHEMA) {
        res = respond_problem_json(s, c, r, validation_problem(r, &vr, "", "Workload"), NULL);
    } else {
        cJSON *problem = NULL;
        char *body = NULL;
        size_t len = 0;
        unsigned family = 0;
        bool cacheable = true;
        enum dc_status rc = recommend_one(s, r, root, "", &body, &len, &problem, &family,
                                          &cacheable, why, sizeof(why));
        if (rc == DC_OK)
            res = respond_recommendation(s, c, r, body, len, family, cacheable);
        else if (rc == DC_EINVAL)
            res = respond_problem_json(s, c, r, problem, NULL);
        else
            res = respond_internal(s, c, r, "recommend", why);
    }
    api_schema_result_cleanup(&vr);
    api_json_doc_free(doc);
    return res;
}

/* One workload of a batch, validated on its own against Workload (the
 * contract's BatchItem accepts any value) and evaluated. Appends its result
 * object to `out`; returns DC_OK, or an internal error with `why` filled. */
static enum dc_status batch_item(svc_server *s, struct req *r, const cJSON *w, int index,
                                 struct api_jw *out, char *why, size_t whylen)
{
    char prefix[48];
    struct api_schema_result vr = {0};
    struct dc_error err;
    char *body = NULL;
    size_t len = 0;
    cJSON *problem = NULL;
    dc_error_clear(&err);
    snprintf(prefix, sizeof(prefix), "/workloads/%d", index);
    enum dc_status rc = DC_OK;
    /* As handle_recommend: the schema here, the core's reading in recommend_one. */
    enum svc_workload_verdict v = svc_workload_check_schema(
        api_contract_workload_schema(s->contract), w, API_VALIDATION_MAX_ERRORS, &vr, &err);
    if (v == SVC_WORKLOAD_ERROR) {
        snprintf(why, whylen, "validate: %s", err.msg);
        rc = err.code != DC_OK ? err.code : DC_ENOMEM;
    } else if (v == SVC_WORKLOAD_SCHEMA) {
        problem = validation_problem(r, &vr, prefix, "Workload");
        rc = problem != NULL ? DC_EINVAL : DC_ENOMEM;
    } else {
        unsigned family = 0;
        bool cacheable = true;
        rc =
            recommend_one(s, r, w, prefix, &body, &len, &problem, &family, &cacheable, why, whylen);
    }
    api_schema_result_cleanup(&vr);
    if (rc != DC_OK && rc != DC_EINVAL)
        return rc;
    api_jw_object(out);
    api_jw_key(out, "status");
    api_jw_number(out, rc == DC_OK ? 200 : 400);
    if (rc == DC_OK) {
        api_jw_key(out, "result");
        api_jw_raw(out, body, len);
        free(body);
    } else {
        api_jw_key(out, "problem");
        api_jw_value(out, problem);
        cJSON_Delete(problem);
    }
    api_jw_object_end(out);
    return DC_OK;
}

static enum MHD_Result handle_batch(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    enum MHD_Result res = MHD_NO;
    struct api_schema_result vr = {0};
    struct dc_error err;
    char why[DC_ERROR_MSG_MAX + 64];
    struct api_jw out = {NULL, 0, 0, true, false}; /* started once the batch is valid */
    dc_error_clear(&err);
    if (!read_view(s, c, r, &res))
        return res;
    api_json_doc *doc = NULL;
    const cJSON *root = parse_body(s, c, r, &doc, &res);
    if (root == NULL)
        return res;
    const cJSON *workloads = cJSON_GetObjectItemCaseSensitive(root, "workloads");
    int n = cJSON_IsArray(workloads) ? cJSON_GetArraySize(workloads) : 0;
    if (n > 0 && (unsigned)n > s->cfg.max_batch) {
        char detail[128];
        snprintf(detail, sizeof(detail), "%d workloads; the limit is %u per batch", n,
                 s->cfg.max_batch);
        res = svc__respond_problem(s, c, r, 413, API_PROBLEM_BATCH_TOO_LARGE, detail, NULL);
        goto out;
    }
    /* The envelope first, on its own: a violation outside any one workload fails
     * the whole request, however many the workloads have. */
    enum dc_status rc = api_schema_validate(api_contract_batch_envelope_schema(s->contract), root,
                                            API_VALIDATION_MAX_ERRORS, &vr, &err);
    if (rc != DC_OK) {
        res = respond_internal(s, c, r, "validate", err.msg);
        goto out;
    }
    /* The contract's maxItems is the default limit; the one in force was checked
     * above. Any other violation of the envelope fails the whole request. */
    api_schema_result_remove(&vr, "/workloads", "maxItems");
    if (!vr.valid) {
        res = respond_problem_json(s, c, r, validation_problem(r, &vr, "", "BatchRequest"), NULL);
        goto out;
    }
    /* Each result is rendered text; the envelope is written around them. */
    api_jw_init(&out, 4096 + (size_t)(n < 16 ? n : 16) * 20000);
    api_jw_object(&out);
    api_jw_key(&out, "request_id");
    api_jw_string(&out, r->id);
    api_jw_key(&out, "results");
    api_jw_array(&out);
    int i = 0;
    const cJSON *w = NULL;
    cJSON_ArrayForEach(w, workloads)
    {
        if (batch_item(s, r, w, i++, &out, why, sizeof(why)) != DC_OK) {
            res = respond_internal(s, c, r, "batch", why);
            goto out;
        }
        /* An answer past the whole response budget can never be sent, however
         * idle the server: refused now, not computed to the end and answered
         * with a 503 that a client retries (38 s of CPU for a batch of 10,000). */
        if (out.len > s->cfg.max_queued_response_bytes) {
            char detail[256];
            snprintf(detail, sizeof(detail),
                     "the answer passed the server's limit of %u bytes of responses "
                     "(max_queued_response_bytes) after %d of %d workloads, so it can never be "
                     "sent: send fewer workloads per batch, or fewer explanations",
                     s->cfg.max_queued_response_bytes, i, n);
            res = svc__respond_problem(s, c, r, 413, API_PROBLEM_BATCH_TOO_LARGE, detail, NULL);
            goto out;
        }
    }
    api_jw_array_end(&out);
    api_jw_object_end(&out);
    size_t len = 0;
    char *text = api_jw_finish(&out, &len);
    res = text != NULL ? respond(s, c, r, 200, JSON_TYPE, text, len, BODY_MALLOC, NULL)
                       : respond_internal(s, c, r, "batch", "out of memory");
out:
    api_jw_discard(&out);
    api_schema_result_cleanup(&vr);
    api_json_doc_free(doc);
    return res;
}

/* ---- GET routes ---------------------------------------------------------------------- */

/* Routes whose body is a function of the build, the contract and, when given,
 * the rule set version and the catalog filter: r->etag is made from those (left
 * empty when no tag can be made). Returns the status to answer with: 304 when
 * an If-None-Match of the request matches, else 200. A 304 is still queued with
 * the body it stands for: libmicrohttpd sends no body with a 304 but gives its
 * Content-Length, which must then be the 200's (RFC 9110, section 8.6). */
static int conditional_status(svc_server *s, struct MHD_Connection *c, struct req *r,
                              const char *rules_version, const struct api_catalog_filter *f)
{
    const char *parts[] = {svc_route_label(r->route),
                           AA_VERSION,
                           aa_build_commit,
                           aa_build_date,
                           s->contract_digest,
                           rules_version,
                           f != NULL ? f->family : NULL,
                           f != NULL ? f->vendor : NULL,
                           f != NULL ? f->provider : NULL};
    if (svc_etag_make(parts, sizeof(parts) / sizeof(parts[0]), r->etag) != DC_OK ||
        !svc__if_none_match(c, r->etag))
        return 200;
    return 304;
}

struct query_check {
    const struct api_query_params *ps; /* the operation's parameters (openapi.yaml) */
    bool typed; /* a value that reads as a JSON number or boolean is checked as one */
    cJSON *problem;
    const char *values[8]; /* by index into ps */
    bool seen[8];
    bool oom;
};

/* A parameter name safe to echo in a problem (printable ASCII), else a placeholder. */
static const char *safe_name(const char *k)
{
    size_t n = 0;
    for (const char *p = k; *p != '\0'; p++, n++) {
        if (*p < 0x21 || *p > 0x7e || n > 64)
            return "(unprintable)";
    }
    return k;
}

static void query_error(struct query_check *q, const char *name, const char *message)
{
    char msg[256];
    if (q->problem == NULL) {
        q->problem = api_problem_new(400, API_PROBLEM_VALIDATION, NULL,
                                     "the query parameters are not valid", NULL);
        if (q->problem == NULL) {
            q->oom = true;
            return;
        }
    }
    snprintf(msg, sizeof(msg), "%s", message);
    cJSON *errors = cJSON_GetObjectItemCaseSensitive(q->problem, "errors");
    if (errors == NULL)
        errors = cJSON_AddArrayToObject(q->problem, "errors");
    cJSON *e = cJSON_CreateObject();
    if (errors == NULL || e == NULL || cJSON_AddStringToObject(e, "parameter", name) == NULL ||
        cJSON_AddStringToObject(e, "message", msg) == NULL || !cJSON_AddItemToArray(errors, e)) {
        cJSON_Delete(e);
        q->oom = true;
    }
}

static enum MHD_Result check_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    struct query_check *q = cls;
    (void)kind;
    const struct api_query_params *ps = q->ps;
    for (size_t i = 0; i < ps->count && i < 8; i++) {
        if (strcmp(ps->items[i].name, key) != 0)
            continue;
        if (q->seen[i]) {
            query_error(q, ps->items[i].name, "given more than once");
            return MHD_YES;
        }
        q->seen[i] = true;
        q->values[i] = value != NULL ? value : "";
        return MHD_YES;
    }
    query_error(q, safe_name(key), "unknown query parameter");
    return MHD_YES;
}

/* A query value as the JSON its parameter's schema checks: with `typed`,
 * "true" and "false" as booleans and a run of digits as a number (so
 * `candidates=0` meets the schema's minimum and `candidates=x` or `-1` its
 * type);
 * otherwise, and for anything else, the string. */
static cJSON *query_value(const char *v, bool typed)
{
    if (typed && strcmp(v, "true") == 0)
        return cJSON_CreateTrue();
    if (typed && strcmp(v, "false") == 0)
        return cJSON_CreateFalse();
    size_t digits = strspn(v, "0123456789");
    if (typed && digits > 0 && digits < 16 && v[digits] == '\0')
        return cJSON_CreateNumber(strtod(v, NULL));
    return cJSON_CreateString(v);
}

/* Reads the query into q (its ps and typed set) and checks each value against
 * its parameter's schema in openapi.yaml: q->problem names every parameter
 * that is unknown, repeated, missing or invalid. */
static void check_query(struct MHD_Connection *c, struct query_check *q)
{
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_query_arg, q);
    const struct api_query_params *ps = q->ps;
    for (size_t i = 0; i < ps->count && i < 8 && !q->oom; i++) {
        if (!q->seen[i]) {
            if (ps->items[i].required)
                query_error(q, ps->items[i].name, "required");
            continue;
        }
        cJSON *v = query_value(q->values[i], q->typed);
        struct api_schema_result vr = {0};
        struct dc_error err;
        dc_error_clear(&err);
        if (v == NULL || api_schema_validate(ps->items[i].schema, v, 4, &vr, &err) != DC_OK) {
            q->oom = true;
        } else if (!vr.valid) {
            char msg[256];
            snprintf(msg, sizeof(msg), "%s", vr.count > 0 ? vr.items[0].message : "invalid value");
            query_error(q, ps->items[i].name, msg);
        }
        api_schema_result_cleanup(&vr);
        cJSON_Delete(v);
    }
}

/* POST /v1/recommendations and :batch: `view`, `candidates` and `frontier`
 * into r->view. False when it has answered (a 400 problem naming each bad
 * parameter, or a 500), with *res the answer's result. */
static bool read_view(svc_server *s, struct MHD_Connection *c, struct req *r, enum MHD_Result *res)
{
    struct query_check q = {.ps = &s->recommend_params, .typed = true};
    check_query(c, &q);
    if (q.oom) {
        cJSON_Delete(q.problem);
        *res = respond_internal(s, c, r, "recommend", "out of memory");
        return false;
    }
    if (q.problem != NULL) {
        cJSON_AddStringToObject(q.problem, "request_id", r->id);
        *res = respond_problem_json(s, c, r, q.problem, NULL);
        return false;
    }
    r->view = (struct api_view){false, 0, API_FRONTIER_DEFAULT};
    for (size_t i = 0; i < q.ps->count && i < 8; i++) {
        const char *name = q.ps->items[i].name, *v = q.values[i];
        if (!q.seen[i])
            continue;
        if (strcmp(name, "view") == 0)
            r->view.summary = strcmp(v, "summary") == 0;
        else if (strcmp(name, "candidates") == 0)
            r->view.candidates = (size_t)strtod(v, NULL);
        else if (strcmp(name, "frontier") == 0)
            r->view.frontier = strcmp(v, "true") == 0 ? API_FRONTIER_ON : API_FRONTIER_OFF;
    }
    return true;
}

static enum MHD_Result handle_accelerators(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    struct query_check q = {.ps = &s->accelerator_params};
    check_query(c, &q);
    const struct api_query_params *ps = q.ps;
    if (q.oom) {
        cJSON_Delete(q.problem);
        return respond_internal(s, c, r, "accelerators", "out of memory");
    }
    if (q.problem != NULL) {
        cJSON_AddStringToObject(q.problem, "request_id", r->id);
        return respond_problem_json(s, c, r, q.problem, NULL);
    }
    struct api_catalog_filter f = {NULL, NULL, NULL};
    for (size_t i = 0; i < ps->count && i < 8; i++) {
        if (!q.seen[i])
            continue;
        if (strcmp(ps->items[i].name, "family") == 0)
            f.family = q.values[i];
        else if (strcmp(ps->items[i].name, "vendor") == 0)
            f.vendor = q.values[i];
        else if (strcmp(ps->items[i].name, "provider") == 0)
            f.provider = q.values[i];
    }
    int status = conditional_status(s, c, r, dc_ruleset_version(r->rs), &f);
    size_t len = 0;
    char *text = api_catalog_render(r->rs, &f, &len);
    if (text == NULL)
        return respond_internal(s, c, r, "accelerators", "out of memory");
    /* A 304 carries no Content-Type: it describes no body of its own. */
    return respond(s, c, r, status, status == 200 ? JSON_TYPE : NULL, text, len, BODY_MALLOC, NULL);
}

/* GET /v1/rules and GET /v1/models: a document of the rule set, tagged by its
 * version (api/src/convert.c, api/src/models_render.c render them). */
static enum MHD_Result handle_ruleset_document(svc_server *s, struct MHD_Connection *c,
                                               struct req *r,
                                               char *(*render)(const dc_ruleset *, size_t *),
                                               const char *what)
{
    int status = conditional_status(s, c, r, dc_ruleset_version(r->rs), NULL);
    size_t len = 0;
    char *text = render(r->rs, &len);
    if (text == NULL)
        return respond_internal(s, c, r, what, "out of memory");
    return respond(s, c, r, status, status == 200 ? JSON_TYPE : NULL, text, len, BODY_MALLOC, NULL);
}

static enum MHD_Result handle_healthz(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || cJSON_AddStringToObject(o, "status", "ok") == NULL ||
        cJSON_AddStringToObject(o, "request_id", r->id) == NULL) {
        cJSON_Delete(o);
        return MHD_NO;
    }
    return respond_json(s, c, r, 200, JSON_TYPE, o, NULL);
}

static enum MHD_Result handle_readyz(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    dc_ruleset *rs = svc__rules_acquire(s);
    enum MHD_Result res;
    if (rs == NULL || atomic_load(&s->draining)) {
        res = svc__respond_problem(
            s, c, r, 503, API_PROBLEM_NOT_READY,
            rs == NULL ? "no rule set is loaded" : "the server is shutting down", retry_after);
    } else {
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || cJSON_AddStringToObject(o, "status", "ready") == NULL ||
            cJSON_AddStringToObject(o, "rules_version", dc_ruleset_version(rs)) == NULL ||
            cJSON_AddStringToObject(o, "request_id", r->id) == NULL) {
            cJSON_Delete(o);
            res = MHD_NO;
        } else {
            res = respond_json(s, c, r, 200, JSON_TYPE, o, NULL);
        }
    }
    dc_ruleset_release(rs);
    return res;
}

/* GET /v1/inventory: the latest snapshot, never a fresh probe. */
static enum MHD_Result handle_inventory(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    struct svc_probe_status ps;
    if (!svc__probe_status(s, &ps))
        return svc__respond_problem(s, c, r, 404, API_PROBLEM_PROBE_DISABLED,
                                    "this server runs without an accelerator probe (start it with "
                                    "--probe)",
                                    NULL);
    const struct probe_snapshot *snap = svc__probe_get(s);
    if (snap == NULL)
        return svc__respond_problem(s, c, r, 503, API_PROBLEM_NOT_READY,
                                    "the first probe has not finished", retry_after);
    struct dc_error err;
    dc_error_clear(&err);
    cJSON *o = NULL;
    enum dc_status rc = probe_snapshot_to_json(snap, &o, &err);
    double age = probe_snapshot_age_seconds(snap);
    probe_snapshot_release(snap);
    if (rc != DC_OK)
        return respond_internal(s, c, r, "inventory", err.msg);
    cJSON *p = cJSON_CreateObject();
    bool ok = p != NULL && cJSON_AddItemToObject(o, "probe", p);
    if (!ok)
        cJSON_Delete(p);
    /* Stale: no snapshot has been published for a whole interval plus the timeout. */
    ok =
        ok && cJSON_AddNumberToObject(p, "interval_seconds", ps.interval_seconds) != NULL &&
        cJSON_AddNumberToObject(p, "timeout_seconds", ps.timeout_seconds) != NULL &&
        cJSON_AddNumberToObject(p, "runs", (double)ps.stats.runs) != NULL &&
        cJSON_AddNumberToObject(p, "in_progress_seconds",
                                ps.stats.busy ? ps.stats.busy_seconds : 0.0) != NULL &&
        cJSON_AddBoolToObject(p, "stuck", ps.stuck) != NULL &&
        cJSON_AddBoolToObject(p, "stale", age > ps.interval_seconds + ps.timeout_seconds) != NULL &&
        cJSON_AddStringToObject(o, "request_id", r->id) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return respond_internal(s, c, r, "inventory", "out of memory");
    }
    return respond_json(s, c, r, 200, JSON_TYPE, o, NULL);
}

/* GET /v1/fleet: the latest fleet snapshot, never a fresh query. */
static enum MHD_Result handle_fleet(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    if (s->fleet == NULL)
        return svc__respond_problem(
            s, c, r, 404, API_PROBLEM_FLEET_DISABLED,
            "this server reads no fleet (start it with --fleet-prometheus URL)", NULL);
    cJSON *o = NULL;
    enum dc_status rc = svc__fleet_body(s, r->id, &o);
    if (rc == DC_ENOTFOUND)
        return svc__respond_problem(s, c, r, 503, API_PROBLEM_NOT_READY,
                                    "Prometheus has not answered both fleet queries yet",
                                    retry_after);
    if (rc != DC_OK)
        return respond_internal(s, c, r, "fleet", "out of memory");
    return respond_json(s, c, r, 200, JSON_TYPE, o, NULL);
}

/* The node agent's exposition: build information, the probe's and the
 * process's families (metrics.h). */
static enum MHD_Result handle_agent_metrics(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    struct svc_probe_status ps;
    struct svc_metrics_info info = {.version = AA_VERSION,
                                    .mhd_version = s->mhd_version,
                                    .contract_version = "",
                                    .node = s->cfg.node_name};
    if (svc__probe_status(s, &ps)) {
        info.probe = &ps;
        info.snapshot = svc__probe_get(s);
    }
    size_t len = 0;
    char *text = svc_metrics_render_agent(&info, &len);
    probe_snapshot_release(info.snapshot);
    if (text == NULL)
        return respond_internal(s, c, r, "metrics", "out of memory");
    return respond(s, c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, BODY_MALLOC,
                   NULL);
}

static enum MHD_Result handle_metrics(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    if (s->agent)
        return handle_agent_metrics(s, c, r);
    dc_ruleset *rs = svc__rules_acquire(s);
    struct svc_metrics_info info = {
        .version = AA_VERSION,
        .mhd_version = s->mhd_version,
        .contract_version = api_contract_version(s->contract),
        .rules_version = rs != NULL ? dc_ruleset_version(rs) : NULL,
        .rules_origin = rs != NULL ? dc_ruleset_origin(rs) : NULL,
        .rules_count = rs != NULL ? dc_ruleset_rule_count(rs) : 0,
        .accelerator_count = rs != NULL ? dc_ruleset_accelerator_count(rs) : 0,
        .threads = s->threads,
        .max_connections = s->cfg.max_connections,
        /* Accepted and not yet closed: those handed to the library and not yet
         * started count against the limit too. */
        .admin_connections = atomic_load(&s->admin.fd) >= 0 || s->admin.daemon != NULL
                                 ? atomic_load(&s->admin.open) + atomic_load(&s->admin.pending)
                                 : -1,
        .max_buffered_body_bytes = s->cfg.max_buffered_body_bytes,
        .max_queued_response_bytes = s->cfg.max_queued_response_bytes,
        .cache_enabled = s->cache != NULL,
        .node = s->cfg.node_name,
    };
    svc_cache_stats(s->cache, &info.cache_entries, &info.cache_bytes);
    struct svc_probe_status ps;
    if (svc__probe_status(s, &ps)) {
        info.probe = &ps;
        info.snapshot = svc__probe_get(s);
    }
    char *fleet = svc__fleet_metrics(s);
    info.fleet_text = fleet;
    size_t len = 0;
    char *text = svc_metrics_render(&s->metrics, &info, &len);
    free(fleet);
    probe_snapshot_release(info.snapshot);
    dc_ruleset_release(rs);
    if (text == NULL)
        return respond_internal(s, c, r, "metrics", "out of memory");
    return respond(s, c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, BODY_MALLOC,
                   NULL);
}

/* GET / and its assets: embedded bytes under the page's security headers,
 * revalidated by ETag (304), never stored by shared caches as stale. */
static enum MHD_Result handle_asset(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    const struct svc_asset *a = r->asset;
    const struct hdr h[] = {{"Content-Security-Policy", SVC_PLAYGROUND_CSP},
                            {"X-Content-Type-Options", "nosniff"},
                            {"Referrer-Policy", "no-referrer"},
                            {"X-Frame-Options", "DENY"},
                            {NULL, NULL}};
    /* The tag and Cache-Control go out with the other conditional GET routes'
     * (respond); a 304 is queued with the body it stands for (see
     * conditional_status). */
    memcpy(r->etag, a->etag, sizeof(r->etag));
    int status = svc__if_none_match(c, r->etag) ? 304 : 200;
    return respond(s, c, r, status, status == 200 ? a->type : NULL, unconst(a->data), a->len,
                   BODY_STATIC, h);
}

enum MHD_Result svc__handle_options(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    char allow[64], age[24];
    svc_route_allow(r->route, allow, sizeof(allow));
    snprintf(age, sizeof(age), "%u", s->cfg.cors_max_age_s);
    const char *preflight =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Access-Control-Request-Method");
    if (r->cors && preflight != NULL) {
        const struct hdr h[] = {{MHD_HTTP_HEADER_ALLOW, allow},
                                {"Access-Control-Allow-Methods", allow},
                                {"Access-Control-Allow-Headers", ALLOW_HEADERS},
                                {"Access-Control-Max-Age", age},
                                {NULL, NULL}};
        return respond(s, c, r, 204, NULL, NULL, 0, BODY_STATIC, h);
    }
    const struct hdr h[] = {{MHD_HTTP_HEADER_ALLOW, allow}, {NULL, NULL}};
    return respond(s, c, r, 204, NULL, NULL, 0, BODY_STATIC, h);
}

enum MHD_Result svc__dispatch(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    size_t len = 0;
    const char *text = NULL;
    int status = 200;
    switch (r->route) {
    case SVC_ROUTE_RECOMMEND:
        return handle_recommend(s, c, r);
    case SVC_ROUTE_BATCH:
        return handle_batch(s, c, r);
    case SVC_ROUTE_ACCELERATORS:
        return handle_accelerators(s, c, r);
    case SVC_ROUTE_RULES:
        return handle_ruleset_document(s, c, r, api_rules_render, "rules");
    case SVC_ROUTE_MODELS:
        return handle_ruleset_document(s, c, r, api_models_render, "models");
    case SVC_ROUTE_INVENTORY:
        return handle_inventory(s, c, r);
    case SVC_ROUTE_FLEET:
        return handle_fleet(s, c, r);
    case SVC_ROUTE_HEALTHZ:
        return handle_healthz(s, c, r);
    case SVC_ROUTE_READYZ:
        return handle_readyz(s, c, r);
    case SVC_ROUTE_METRICS:
        return handle_metrics(s, c, r);
    case SVC_ROUTE_OPENAPI_YAML:
        status = conditional_status(s, c, r, NULL, NULL);
        text = api_contract_yaml(s->contract, &len);
        return respond(s, c, r, status, status == 200 ? "application/yaml; charset=utf-8" : NULL,
                       unconst(text), len, BODY_STATIC, NULL);
    case SVC_ROUTE_OPENAPI_JSON:
        status = conditional_status(s, c, r, NULL, NULL);
        text = api_contract_json(s->contract, &len);
        return respond(s, c, r, status, status == 200 ? JSON_TYPE : NULL, unconst(text), len,
                       BODY_STATIC, NULL);
    case SVC_ROUTE_PLAYGROUND:
    case SVC_ROUTE_ASSET:
        return handle_asset(s, c, r);
    case SVC_ROUTE_UNMATCHED:
    case SVC_ROUTE_COUNT:
        break;
    }
    return svc__respond_problem(s, c, r, 404, NULL, "no such resource", NULL);
}
