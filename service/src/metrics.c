/* service/src/metrics.c -- counters and the Prometheus text exposition. */
#include "metrics.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const int codes[SVC_METRICS_CODE_COUNT] = SVC_METRICS_CODES;
static const double buckets[SVC_METRICS_BUCKET_COUNT] = SVC_METRICS_BUCKETS;
static const double explain_buckets[SVC_METRICS_EXPLAIN_BUCKET_COUNT] = SVC_METRICS_EXPLAIN_BUCKETS;

void svc_metrics_init(struct svc_metrics *m)
{
    memset(m, 0, sizeof(*m));
}

static size_t code_index(int status)
{
    size_t fallback = 0;
    for (size_t i = 0; i < SVC_METRICS_CODE_COUNT; i++) {
        if (codes[i] == status)
            return i;
        if (codes[i] == 500)
            fallback = i;
    }
    return fallback;
}

/* The bucket of `bounds` (n upper bounds in seconds; n: past the largest)
 * where a duration falls. */
static size_t bucket_of(const double *bounds, size_t n, uint64_t duration_ns)
{
    double secs = (double)duration_ns / 1e9;
    size_t b = 0;
    while (b < n && secs > bounds[b])
        b++;
    return b;
}

void svc_metrics_observe(struct svc_metrics *m, enum svc_route route, enum svc_method method,
                         int status, uint64_t duration_ns)
{
    if (route >= SVC_ROUTE_COUNT || method >= SVC_METHOD_COUNT)
        return;
    atomic_fetch_add_explicit(&m->requests[route][method][code_index(status)], 1,
                              memory_order_relaxed);
    size_t b = bucket_of(buckets, SVC_METRICS_BUCKET_COUNT, duration_ns);
    atomic_fetch_add_explicit(&m->duration[route][b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->duration_sum_ns[route], duration_ns, memory_order_relaxed);
}

void svc_metrics_explanation(struct svc_metrics *m, unsigned kinds, enum dc_explain_stop stop,
                             uint64_t duration_ns)
{
    if (kinds & DC_EXPLAIN_CHANGES)
        atomic_fetch_add_explicit(&m->explanations[0], 1, memory_order_relaxed);
    if (kinds & DC_EXPLAIN_ROBUSTNESS)
        atomic_fetch_add_explicit(&m->explanations[1], 1, memory_order_relaxed);
    if (stop == DC_EXPLAIN_STOP_EVALUATIONS || stop == DC_EXPLAIN_STOP_TIME)
        atomic_fetch_add_explicit(&m->explanations_stopped[stop == DC_EXPLAIN_STOP_TIME], 1,
                                  memory_order_relaxed);
    size_t b = bucket_of(explain_buckets, SVC_METRICS_EXPLAIN_BUCKET_COUNT, duration_ns);
    atomic_fetch_add_explicit(&m->explain_duration[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->explain_duration_sum_ns, duration_ns, memory_order_relaxed);
}

void svc_metrics_recommendation(struct svc_metrics *m, unsigned family)
{
    if (family > DC_FAMILY_COUNT)
        family = SVC_METRICS_FAMILY_NONE;
    atomic_fetch_add_explicit(&m->recommendations[family], 1, memory_order_relaxed);
}

void svc_metrics_refused(struct svc_metrics *m, enum svc_refusal why)
{
    if (why < SVC_REFUSED_COUNT)
        atomic_fetch_add_explicit(&m->refused[why], 1, memory_order_relaxed);
}

void svc_metrics_reload(struct svc_metrics *m, bool ok, int64_t when)
{
    if (ok) {
        atomic_fetch_add_explicit(&m->reloads_success, 1, memory_order_relaxed);
        atomic_store_explicit(&m->rules_loaded_time, when, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&m->reloads_failure, 1, memory_order_relaxed);
    }
}

/* ---- /proc/self ---------------------------------------------------------------- */

void svc_process_stats_read(struct svc_process_stats *out)
{
    out->cpu_seconds = -1;
    out->start_time_seconds = -1;
    out->virtual_bytes = -1;
    out->resident_bytes = -1;
    out->open_fds = -1;
    out->max_fds = -1;
    long ticks = sysconf(_SC_CLK_TCK);
    long page = sysconf(_SC_PAGESIZE);
    char buf[1024];
    FILE *fp = fopen("/proc/self/stat", "r");
    if (fp != NULL) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
        fclose(fp);
        buf[n] = '\0';
        /* The command name (field 2) may hold spaces and parentheses: fields
         * are counted from the last ')'. Field 3 is the state. */
        char *p = strrchr(buf, ')');
        unsigned long long utime = 0, stime = 0, start = 0, vsize = 0;
        long long rss = 0;
        if (p != NULL &&
            sscanf(p + 2,
                   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
                   "%*d %llu %llu %lld",
                   &utime, &stime, &start, &vsize, &rss) == 5 &&
            ticks > 0) {
            out->cpu_seconds = (double)(utime + stime) / (double)ticks;
            out->virtual_bytes = (double)vsize;
            out->resident_bytes = (double)rss * (double)page;
            /* Start time is in ticks since boot; boot time is in /proc/stat. */
            FILE *st = fopen("/proc/stat", "r");
            if (st != NULL) {
                char line[256];
                while (fgets(line, sizeof(line), st) != NULL) {
                    unsigned long long btime = 0;
                    if (sscanf(line, "btime %llu", &btime) == 1) {
                        out->start_time_seconds = (double)btime + (double)start / (double)ticks;
                        break;
                    }
                }
                fclose(st);
            }
        }
    }
    DIR *d = opendir("/proc/self/fd");
    if (d != NULL) {
        long n = 0;
        const struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] != '.')
                n++;
        }
        closedir(d);
        out->open_fds = (double)(n > 0 ? n - 1 : 0); /* minus the directory's own fd */
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        out->max_fds = rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur;
}

/* ---- exposition ---------------------------------------------------------------- */

struct out {
    char *buf;
    size_t len;
    size_t cap;
    bool oom;
};

static void put(struct out *o, const char *fmt, ...) DC_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
    if (o->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->oom = true;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = o->cap * 2 + (size_t)n;
        char *b = realloc(o->buf, cap);
        if (b == NULL) {
            o->oom = true;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
}

static void family(struct out *o, const char *name, const char *type, const char *help)
{
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t load(const _Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* The series of one histogram: cumulative buckets of the `n` upper `bounds`
 * (per-bucket counts in `counts`, n + 1 of them), +Inf, sum and count, with
 * `labels` ("route=\"/x\"", or "" for none). An empty one is left out unless
 * `always`. */
static void histogram(struct out *o, const char *name, const char *labels, const double *bounds,
                      size_t n, const _Atomic uint64_t *counts, uint64_t sum_ns, bool always)
{
    uint64_t c[32];
    uint64_t total = 0;
    for (size_t b = 0; b <= n && b < 32; b++) {
        c[b] = load(&counts[b]);
        total += c[b];
    }
    if (total == 0 && !always)
        return;
    const char *sep = labels[0] != '\0' ? "," : "";
    uint64_t cum = 0;
    for (size_t b = 0; b < n; b++) {
        cum += c[b];
        put(o, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, bounds[b],
            (unsigned long long)cum);
    }
    /* _count is the +Inf bucket, both read once, so the series agree. */
    put(o, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)total);
    const char *open = labels[0] != '\0' ? "{" : "", *close = labels[0] != '\0' ? "}" : "";
    put(o, "%s_sum%s%s%s %.9f\n", name, open, labels, close, (double)sum_ns / 1e9);
    put(o, "%s_count%s%s%s %llu\n", name, open, labels, close, (unsigned long long)total);
}

/* Explanations (dc/explain.h): computed by kind, cut short by budget, time. */
static void explanation_metrics(struct out *o, const struct svc_metrics *m)
{
    static const char *const series[2][2] = {
        {"explanations_total{kind=\"changes\"}", "explanations_total{kind=\"robustness\"}"},
        {"explanations_stopped_total{budget=\"evaluations\"}",
         "explanations_stopped_total{budget=\"time\"}"}};
    const _Atomic uint64_t *counts[2] = {m->explanations, m->explanations_stopped};
    family(o, "accel_advisor_explanations_total", "counter",
           "Explanations computed (\"explain\" in a workload; a cached answer is not computed "
           "again), by kind asked.");
    for (size_t f = 0; f < 2; f++) {
        if (f == 1)
            family(o, "accel_advisor_explanations_stopped_total", "counter",
                   "Explanations cut short, by the budget spent: the evaluations (64), or the 250 "
                   "ms guard.");
        for (size_t i = 0; i < 2; i++)
            put(o, "accel_advisor_%s %llu\n", series[f][i],
                (unsigned long long)load(&counts[f][i]));
    }
    family(o, "accel_advisor_explanation_duration_seconds", "histogram",
           "Time one explanation took (both kinds of one workload together).");
    histogram(o, "accel_advisor_explanation_duration_seconds", "", explain_buckets,
              SVC_METRICS_EXPLAIN_BUCKET_COUNT, m->explain_duration,
              load(&m->explain_duration_sum_ns), true);
}

/* The per-device series (probe/src/probe_metrics.c), written through a memory
 * stream into the exposition. */
static void probe_device_series(struct out *o, const struct probe_snapshot *snap, const char *node)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (fp == NULL) {
        o->oom = true;
        return;
    }
    enum dc_status rc = probe_snapshot_format_metrics(snap, node, fp);
    if (fclose(fp) != 0 || rc != DC_OK)
        o->oom = true;
    else
        put(o, "%s", text);
    free(text);
}

/* The two memory budgets: bytes held now, the configured limit, refusals. */
static void budget_metrics(struct out *o, const struct svc_metrics *m,
                           const struct svc_metrics_info *info)
{
    static const char *const help[2] = {
        "Request bodies held in memory now, all requests together.",
        "Response bodies queued for clients that have not read them yet."};
    const char *const name[2] = {"buffered_body", "queued_response"};
    const int64_t now[2] = {atomic_load_explicit(&m->body_bytes, memory_order_relaxed),
                            atomic_load_explicit(&m->response_bytes, memory_order_relaxed)};
    const unsigned limit[2] = {info->max_buffered_body_bytes, info->max_queued_response_bytes};
    const uint64_t refused[2] = {load(&m->body_budget_rejected),
                                 load(&m->response_budget_rejected)};
    for (size_t i = 0; i < 2; i++) {
        char n[96];
        snprintf(n, sizeof(n), "accel_advisor_%s_bytes", name[i]);
        family(o, n, "gauge", help[i]);
        put(o, "%s %lld\n", n, (long long)now[i]);
        snprintf(n, sizeof(n), "accel_advisor_%s_limit_bytes", name[i]);
        family(o, n, "gauge",
               "The configured budget (max_buffered_body_bytes, "
               "max_queued_response_bytes).");
        put(o, "%s %u\n", n, limit[i]);
        snprintf(n, sizeof(n), "accel_advisor_%s_rejections_total", name[i]);
        family(o, n, "counter", "Requests answered 503 because the budget was spent.");
        put(o, "%s %llu\n", n, (unsigned long long)refused[i]);
    }
}

static void probe_metrics(struct out *o, const struct svc_probe_status *ps,
                          const struct probe_snapshot *snap, const char *node)
{
    const struct probe_worker_stats *st = &ps->stats;
    family(o, "accel_advisor_probe_runs_total", "counter", "Probes that produced a snapshot.");
    put(o, "accel_advisor_probe_runs_total %llu\n", (unsigned long long)st->runs);
    family(o, "accel_advisor_probe_errors_total", "counter",
           "Probe errors by source: a source in state error in a published snapshot (pci, nvml, "
           "amd, tpu, host), a probe past the timeout (timeout), a probe that failed to run "
           "(probe).");
    for (int i = 0; i < PROBE_SOURCE_COUNT; i++)
        put(o, "accel_advisor_probe_errors_total{source=\"%s\"} %llu\n",
            probe_source_name((enum probe_source)i), (unsigned long long)st->source_errors[i]);
    put(o, "accel_advisor_probe_errors_total{source=\"timeout\"} %llu\n",
        (unsigned long long)ps->timeouts);
    put(o, "accel_advisor_probe_errors_total{source=\"probe\"} %llu\n",
        (unsigned long long)st->failures);
    family(o, "accel_advisor_probe_in_progress_seconds", "gauge",
           "How long the probe in progress has been running (0 when none is).");
    put(o, "accel_advisor_probe_in_progress_seconds %.6f\n", st->busy ? st->busy_seconds : 0.0);
    if (snap == NULL)
        return;
    family(o, "accel_advisor_probe_duration_seconds", "gauge", "Duration of the latest probe.");
    put(o, "accel_advisor_probe_duration_seconds %.9f\n", (double)snap->duration_ns / 1e9);
    family(o, "accel_advisor_probe_last_success_timestamp_seconds", "gauge",
           "Unix time at which the latest snapshot was finished.");
    put(o, "accel_advisor_probe_last_success_timestamp_seconds %.3f\n",
        (double)snap->taken_at.tv_sec + (double)snap->taken_at.tv_nsec / 1e9 +
            (double)snap->duration_ns / 1e9);
    family(o, "accel_advisor_probe_snapshot_age_seconds", "gauge",
           "Seconds since the latest snapshot was finished.");
    put(o, "accel_advisor_probe_snapshot_age_seconds %.3f\n", probe_snapshot_age_seconds(snap));
    probe_device_series(o, snap, node);
}

static void process_metrics(struct out *o)
{
    struct svc_process_stats ps;
    svc_process_stats_read(&ps);
    /* The standard process collector's families; one the platform does not
     * give (a negative value) is left out. */
    const struct {
        const char *name, *type, *help;
        double value;
        int decimals;
    } rows[] = {
        {"process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
         ps.cpu_seconds, 2},
        {"process_open_fds", "gauge", "Number of open file descriptors.", ps.open_fds, 0},
        {"process_max_fds", "gauge", "Maximum number of open file descriptors.", ps.max_fds, 0},
        {"process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", ps.virtual_bytes,
         0},
        {"process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
         ps.resident_bytes, 0},
        {"process_start_time_seconds", "gauge",
         "Start time of the process since unix epoch in seconds.", ps.start_time_seconds, 2},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].value < 0)
            continue;
        family(o, rows[i].name, rows[i].type, rows[i].help);
        put(o, "%s %.*f\n", rows[i].name, rows[i].decimals, rows[i].value);
    }
}

static void build_info(struct out *o, const struct svc_metrics_info *info)
{
    char v1[256], v2[256], v3[512];
    family(o, "accel_advisor_build_info", "gauge",
           "Build information: version, contract version and libmicrohttpd version; always 1.");
    probe_metrics_label(v1, sizeof(v1), info->version);
    probe_metrics_label(v2, sizeof(v2), info->contract_version);
    probe_metrics_label(v3, sizeof(v3), info->mhd_version);
    put(o, "accel_advisor_build_info{version=\"%s\",contract=\"%s\",libmicrohttpd=\"%s\"} 1\n", v1,
        v2, v3);
}

/* The end of an exposition: the probe's series, the fleet's, the process's. */
static char *finish(struct out *o, const struct svc_metrics_info *info, size_t *len)
{
    if (info->probe != NULL)
        probe_metrics(o, info->probe, info->snapshot, info->node);
    if (info->fleet_text != NULL)
        put(o, "%s", info->fleet_text);
    process_metrics(o);
    if (o->oom) {
        free(o->buf);
        return NULL;
    }
    if (len != NULL)
        *len = o->len;
    return o->buf;
}

char *svc_metrics_render_agent(const struct svc_metrics_info *info, size_t *len)
{
    struct out o = {malloc(16384), 0, 16384, false};
    if (o.buf == NULL)
        return NULL;
    o.buf[0] = '\0';
    build_info(&o, info);
    return finish(&o, info, len);
}

char *svc_metrics_render(const struct svc_metrics *m, const struct svc_metrics_info *info,
                         size_t *len)
{
    struct out o = {malloc(16384), 0, 16384, false};
    char v1[256], v3[512];
    if (o.buf == NULL)
        return NULL;
    o.buf[0] = '\0';
    build_info(&o, info);

    family(&o, "accel_advisor_rules_info", "gauge",
           "The rule set serving requests: its version (SHA-256) and origin; always 1.");
    if (info->rules_version != NULL) {
        probe_metrics_label(v1, sizeof(v1), info->rules_version);
        probe_metrics_label(v3, sizeof(v3), info->rules_origin);
        put(&o, "accel_advisor_rules_info{version=\"%s\",origin=\"%s\"} 1\n", v1, v3);
    }
    family(&o, "accel_advisor_rules", "gauge", "Rules in the serving rule set.");
    put(&o, "accel_advisor_rules %zu\n", info->rules_count);
    family(&o, "accel_advisor_catalog_accelerators", "gauge",
           "Accelerators in the serving catalog.");
    put(&o, "accel_advisor_catalog_accelerators %zu\n", info->accelerator_count);
    family(&o, "accel_advisor_rules_last_success_timestamp_seconds", "gauge",
           "Unix time of the last successful rule-set load.");
    put(&o, "accel_advisor_rules_last_success_timestamp_seconds %lld\n",
        (long long)atomic_load_explicit(&m->rules_loaded_time, memory_order_relaxed));
    family(&o, "accel_advisor_rule_reloads_total", "counter",
           "Rule-set loads (start-up, SIGHUP, directory changes) by result.");
    put(&o, "accel_advisor_rule_reloads_total{result=\"success\"} %llu\n",
        (unsigned long long)load(&m->reloads_success));
    put(&o, "accel_advisor_rule_reloads_total{result=\"failure\"} %llu\n",
        (unsigned long long)load(&m->reloads_failure));

    family(&o, "accel_advisor_recommendations_total", "counter",
           "Recommendations made, by the family of the top candidate (none: nothing fits).");
    for (unsigned f = 0; f <= DC_FAMILY_COUNT; f++) {
        const char *name = f < DC_FAMILY_COUNT ? dc_family_name((enum dc_family)f) : "none";
        put(&o, "accel_advisor_recommendations_total{family=\"%s\"} %llu\n", name,
            (unsigned long long)load(&m->recommendations[f]));
    }

    if (info->cache_enabled) {
        family(&o, "accel_advisor_recommendation_cache_requests_total", "counter",
               "POST /v1/recommendations bodies looked up in the cache, by result.");
        put(&o, "accel_advisor_recommendation_cache_requests_total{result=\"hit\"} %llu\n",
            (unsigned long long)load(&m->cache_hits));
        put(&o, "accel_advisor_recommendation_cache_requests_total{result=\"miss\"} %llu\n",
            (unsigned long long)load(&m->cache_misses));
        family(&o, "accel_advisor_recommendation_cache_entries", "gauge",
               "Recommendation bodies held in the cache.");
        put(&o, "accel_advisor_recommendation_cache_entries %zu\n", info->cache_entries);
        family(&o, "accel_advisor_recommendation_cache_bytes", "gauge",
               "Bytes held by the recommendation cache.");
        put(&o, "accel_advisor_recommendation_cache_bytes %zu\n", info->cache_bytes);
    }

    family(&o, "accel_advisor_http_requests_total", "counter",
           "HTTP requests answered, by route template, method and status code.");
    for (int r = 0; r < SVC_ROUTE_COUNT; r++) {
        for (int me = 0; me < SVC_METHOD_COUNT; me++) {
            for (int c = 0; c < SVC_METRICS_CODE_COUNT; c++) {
                uint64_t n = load(&m->requests[r][me][c]);
                if (n == 0)
                    continue;
                put(&o,
                    "accel_advisor_http_requests_total{route=\"%s\",method=\"%s\",code=\"%d\"} "
                    "%llu\n",
                    svc_route_label((enum svc_route)r), svc_method_label((enum svc_method)me),
                    codes[c], (unsigned long long)n);
            }
        }
    }

    family(&o, "accel_advisor_http_request_duration_seconds", "histogram",
           "Time from the request's headers to its response queued, by route template.");
    for (int r = 0; r < SVC_ROUTE_COUNT; r++) {
        char label[96];
        snprintf(label, sizeof(label), "route=\"%s\"", svc_route_label((enum svc_route)r));
        histogram(&o, "accel_advisor_http_request_duration_seconds", label, buckets,
                  SVC_METRICS_BUCKET_COUNT, m->duration[r], load(&m->duration_sum_ns[r]), false);
    }
    explanation_metrics(&o, m);

    family(&o, "accel_advisor_inflight_requests", "gauge", "Requests being processed now.");
    put(&o, "accel_advisor_inflight_requests %lld\n",
        (long long)atomic_load_explicit(&m->inflight, memory_order_relaxed));
    family(&o, "accel_advisor_open_connections", "gauge", "Client connections open now.");
    put(&o, "accel_advisor_open_connections %lld\n",
        (long long)atomic_load_explicit(&m->connections, memory_order_relaxed));
    family(&o, "accel_advisor_max_connections", "gauge",
           "Configured connection limit; connections past it are answered 503.");
    put(&o, "accel_advisor_max_connections %u\n", info->max_connections);
    family(&o, "accel_advisor_rejected_connections_total", "counter",
           "Connections answered 503 because the connection limit was reached.");
    put(&o, "accel_advisor_rejected_connections_total %llu\n",
        (unsigned long long)load(&m->connections_rejected));
    if (info->admin_connections >= 0) {
        family(&o, "accel_advisor_admin_open_connections", "gauge",
               "Connections the admin listener holds now, from accept to close (not in "
               "accel_advisor_open_connections).");
        put(&o, "accel_advisor_admin_open_connections %ld\n", info->admin_connections);
    }
    family(&o, "accel_advisor_admin_evictions_total", "counter",
           "Admin-listener connections waiting for a request, shut down at its connection limit "
           "to make room for a new one.");
    put(&o, "accel_advisor_admin_evictions_total %llu\n",
        (unsigned long long)load(&m->admin_evictions));
    static const char *const refusals[SVC_REFUSED_COUNT] = {"framing", "query_arguments",
                                                            "header_fields", "body_too_large"};
    family(&o, "accel_advisor_refused_requests_total", "counter",
           "Requests refused before their route ran, by reason (docs/operations.md, Limits).");
    for (int i = 0; i < SVC_REFUSED_COUNT; i++)
        put(&o, "accel_advisor_refused_requests_total{reason=\"%s\"} %llu\n", refusals[i],
            (unsigned long long)load(&m->refused[i]));
    family(&o, "accel_advisor_request_timeouts_total", "counter",
           "Connections closed because a request was not received within request_timeout_s.");
    put(&o, "accel_advisor_request_timeouts_total %llu\n",
        (unsigned long long)load(&m->request_timeouts));
    budget_metrics(&o, m, info);
    family(&o, "accel_advisor_worker_threads", "gauge", "HTTP worker threads.");
    put(&o, "accel_advisor_worker_threads %u\n", info->threads);

    return finish(&o, info, len);
}
