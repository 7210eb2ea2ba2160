/* service/src/metrics.h -- Prometheus metrics: lock-free counters on the request
 * path, text exposition (format 0.0.4) on GET /metrics.
 *
 * Every counter is an _Atomic integer updated with relaxed atomics: no lock is
 * taken on the hot path. Label sets are fixed and small (route template, method,
 * status code, family, reload result), so cardinality is bounded by construction.
 * Names follow https://prometheus.io/docs/practices/naming and pass
 * `promtool check metrics`. */
#ifndef SVC_METRICS_H
#define SVC_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dc/explain.h"
#include "dc/ruleset.h"
#include "http.h"
#include "probe/probe.h"

/* Status codes counted; any other is counted as 500 (the server sends no other). */
#define SVC_METRICS_CODES                                                                          \
    {                                                                                              \
        200, 204, 304, 400, 401, 404, 405, 413, 414, 415, 429, 431, 500, 501, 503                  \
    }
#define SVC_METRICS_CODE_COUNT 15

/* Upper bounds of the request-duration histogram, in seconds: from 10 us (a
 * cached recommendation or a 304 is answered in tens of microseconds) to 10 s. */
#define SVC_METRICS_BUCKETS                                                                        \
    {                                                                                              \
        0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,    \
            0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10                                                    \
    }
#define SVC_METRICS_BUCKET_COUNT 19

/* Upper bounds of the explanation-duration histogram, in seconds: from a
 * fraction of a millisecond to the 250 ms guard (DC_EXPLAIN_TIME_GUARD_NS). */
#define SVC_METRICS_EXPLAIN_BUCKETS                                                                \
    {                                                                                              \
        0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25                                  \
    }
#define SVC_METRICS_EXPLAIN_BUCKET_COUNT 9

/* Why a request was refused before its route ran, for
 * accel_advisor_refused_requests_total{reason}: its framing (400, 501, 413 for
 * a Content-Length past 64 bits), too many query arguments (414), header fields
 * the library's buffer cannot hold (431), a body past max_body_bytes (413). */
enum svc_refusal {
    SVC_REFUSED_FRAMING,
    SVC_REFUSED_QUERY_ARGUMENTS,
    SVC_REFUSED_HEADER_FIELDS,
    SVC_REFUSED_BODY_TOO_LARGE,
    SVC_REFUSED_COUNT
};

/* Families counted by accel_advisor_recommendations_total: gpu, tpu, cpu, asic, none. */
#define SVC_METRICS_FAMILY_NONE DC_FAMILY_COUNT

struct svc_metrics {
    _Atomic uint64_t requests[SVC_ROUTE_COUNT][SVC_METHOD_COUNT][SVC_METRICS_CODE_COUNT];
    /* Per-bucket (not cumulative) counts; the last slot is past the largest bound. */
    _Atomic uint64_t duration[SVC_ROUTE_COUNT][SVC_METRICS_BUCKET_COUNT + 1];
    _Atomic uint64_t duration_sum_ns[SVC_ROUTE_COUNT];
    _Atomic uint64_t recommendations[DC_FAMILY_COUNT + 1];
    _Atomic uint64_t reloads_success;
    _Atomic uint64_t reloads_failure;
    _Atomic int64_t inflight;
    _Atomic int64_t connections;
    _Atomic uint64_t connections_rejected;
    _Atomic int64_t rules_loaded_time; /* unix seconds of the last successful load */
    _Atomic uint64_t cache_hits;
    _Atomic uint64_t cache_misses;
    _Atomic uint64_t request_timeouts; /* connections cut at request_timeout_s */
    _Atomic uint64_t admin_evictions;  /* admin connections shut down to make room */
    _Atomic uint64_t refused[SVC_REFUSED_COUNT];
    /* The memory budgets (server.c): bytes held now, and requests refused. */
    _Atomic int64_t body_bytes;
    _Atomic int64_t response_bytes;
    _Atomic uint64_t body_budget_rejected;
    _Atomic uint64_t response_budget_rejected;
    /* Explanations computed (dc/explain.h): by kind asked (changes, robustness),
     * those a budget cut short (evaluations, time), and how long they took. */
    _Atomic uint64_t explanations[2];
    _Atomic uint64_t explanations_stopped[2];
    _Atomic uint64_t explain_duration[SVC_METRICS_EXPLAIN_BUCKET_COUNT + 1];
    _Atomic uint64_t explain_duration_sum_ns;
};

/* Zero every counter. */
void svc_metrics_init(struct svc_metrics *m);

/* One finished request. Thread-safe, lock-free. */
void svc_metrics_observe(struct svc_metrics *m, enum svc_route route, enum svc_method method,
                         int status, uint64_t duration_ns);
/* One request refused for `why` (its status is counted by svc_metrics_observe). */
void svc_metrics_refused(struct svc_metrics *m, enum svc_refusal why);
/* One recommendation whose top candidate is of `family` (SVC_METRICS_FAMILY_NONE
 * when nothing was recommended). */
void svc_metrics_recommendation(struct svc_metrics *m, unsigned family);
/* One explanation computed: `kinds` the enum dc_explain_kind bits asked,
 * `stop` the budget that cut it short (DC_EXPLAIN_COMPLETE: none), taking
 * `duration_ns`. */
void svc_metrics_explanation(struct svc_metrics *m, unsigned kinds, enum dc_explain_stop stop,
                             uint64_t duration_ns);
/* One rule-set load attempt (the initial load included) at unix time `when`. */
void svc_metrics_reload(struct svc_metrics *m, bool ok, int64_t when);

/* The probe's state for the exposition (server_probe.c fills it). */
struct svc_probe_status {
    struct probe_worker_stats stats; /* counters summed over every worker */
    uint64_t timeouts;               /* probes that ran past the timeout */
    bool stuck;                      /* the probe in progress is past it now */
    double interval_seconds;
    double timeout_seconds;
};

/* What the exposition needs besides the counters (all borrowed). */
struct svc_metrics_info {
    const char *version;          /* accel-advisor version */
    const char *mhd_version;      /* libmicrohttpd version */
    const char *contract_version; /* openapi.yaml info.version */
    const char *rules_version;    /* NULL when no rule set is loaded */
    const char *rules_origin;
    size_t rules_count;
    size_t accelerator_count;
    unsigned threads;
    unsigned max_connections;
    long admin_connections; /* open on the admin listener; -1 without one */
    unsigned max_buffered_body_bytes;
    unsigned max_queued_response_bytes;
    bool cache_enabled;
    size_t cache_entries;
    size_t cache_bytes;
    const struct svc_probe_status *probe;  /* NULL when the probe is off */
    const struct probe_snapshot *snapshot; /* latest; NULL before the first */
    const char *node;                      /* the node label of the probe's device series */
    const char *fleet_text; /* the fleet's families (fleet.h), appended; NULL without */
};

/* The process metrics of Linux's /proc/self. Fields are -1 when unknown. */
struct svc_process_stats {
    double cpu_seconds;
    double start_time_seconds;
    double virtual_bytes;
    double resident_bytes;
    double open_fds;
    double max_fds;
};
void svc_process_stats_read(struct svc_process_stats *out);

/* Render the exposition. Returns owned text (free()) of *len bytes, or NULL when
 * out of memory. Thread-safe. */
char *svc_metrics_render(const struct svc_metrics *m, const struct svc_metrics_info *info,
                         size_t *len);

/* The exposition of `accel-advisor agent`: build information, the probe's
 * families and series, and the process's; none of the server's. Same contract. */
char *svc_metrics_render_agent(const struct svc_metrics_info *info, size_t *len);

#endif /* SVC_METRICS_H */
