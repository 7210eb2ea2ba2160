/* service/src/fleet.h -- what is free across the fleet, read from Prometheus.
 *
 * Node agents (`accel-advisor agent`, or `serve --probe`) export one series per
 * device with its node, PCI address, vendor, catalog id and whether it is free
 * (probe/src/probe_metrics.c); NVIDIA's dcgm-exporter exports utilisation and
 * frame-buffer use per GPU with its model name and host. Prometheus scrapes both.
 * The service asks Prometheus's HTTP API for both with an instant query every
 * fleet_interval on a thread of its own (libcurl), maps what it finds to catalog
 * ids, and publishes an immutable snapshot; requests only read the latest one,
 * so Prometheus being down, slow or hostile never fails nor delays an answer: the
 * last good snapshot stays, with its age, stale past fleet_stale_after.
 * docs/operations.md, "Fleet", has the queries and the rules.
 *
 * The pieces:
 *   fleet_parse.c   the queries, and an answer -> series in one strict pass
 *                   without a tree (pure; fuzzed)
 *   fleet_model.c   series of both sources -> a snapshot; model-name mapping;
 *                   the snapshot as the core's availability (pure; fuzzed)
 *   fleet_json.c    a snapshot -> the body of GET /v1/fleet (pure)
 *   fleet_client.c  one query over HTTP(S) with libcurl, within the limits
 *   fleet_url.c     the Prometheus URL checked as libcurl reads it (config)
 *   fleet.c         the refresh thread, the latest snapshot, counters, metrics
 *   fleet_server.c  the server's use of it (start, requests, /metrics)
 * Owner: the fleet availability work (issue 19). */
#ifndef SVC_FLEET_H
#define SVC_FLEET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "dc/availability.h"
#include "dc/ruleset.h"

/* ------------------------------------------------------------------ limits */

/* Nesting of a Prometheus answer: {data:{result:[{metric:{}, value:[]}]}} is 5. */
#define SVC_FLEET_JSON_DEPTH 8
/* Bytes of a label value kept; a series with a longer one is dropped (counted). */
#define SVC_FLEET_LABEL_MAX 256
/* Bytes of Prometheus's own error text kept in a message. */
#define SVC_FLEET_ERROR_TEXT_MAX 200
/* Bytes of the bearer-token file (a Kubernetes service-account token is ~1 KB). */
#define SVC_FLEET_TOKEN_MAX 16384
/* Bytes of the CA file (Debian's whole ca-certificates bundle is about 220 KB). */
#define SVC_FLEET_CA_MAX_BYTES (4u << 20)
/* Distinct model names that map to no catalog id listed in a snapshot (the rest
 * are counted). */
#define SVC_FLEET_UNMAPPED_MAX 32

/* ----------------------------------------------------------------- sources */

/* The two queries: this project's agents, and dcgm-exporter. */
enum svc_fleet_source { SVC_FLEET_AGENT, SVC_FLEET_DCGM, SVC_FLEET_SOURCE_COUNT };

/* Why a query gave nothing: each is a metrics label (kind) and a log field. */
enum svc_fleet_error {
    SVC_FLEET_OK = 0,
    SVC_FLEET_E_CONNECT,   /* no connection (refused, unreachable, DNS, TLS) */
    SVC_FLEET_E_TIMEOUT,   /* past fleet_timeout */
    SVC_FLEET_E_HTTP,      /* a status other than 200 */
    SVC_FLEET_E_TOO_LARGE, /* past fleet_max_response_bytes */
    SVC_FLEET_E_MALFORMED, /* not a Prometheus instant-vector answer */
    SVC_FLEET_E_QUERY,     /* Prometheus answered status "error" */
    SVC_FLEET_E_SERIES,    /* more than fleet_max_series series */
    SVC_FLEET_E_TOKEN,     /* the bearer-token file cannot be read or is not a token */
    SVC_FLEET_E_NOMEM,
    SVC_FLEET_E_OTHER,
    SVC_FLEET_ERROR_COUNT
};

/* "agent", "dcgm-exporter"; "connect", "timeout", ... ("ok" for SVC_FLEET_OK). */
const char *svc_fleet_source_name(enum svc_fleet_source s);
const char *svc_fleet_error_name(enum svc_fleet_error e);

/* The PromQL of source `s`, grouping by `cluster_label` too when it is not ""
 * (it must be a label name; config.c checks it). Writes at most len bytes;
 * returns buf. */
const char *svc_fleet_promql(enum svc_fleet_source s, const char *cluster_label, char *buf,
                             size_t len);

/* ------------------------------------------------------------------ parse */

/* The labels the fleet reads from a series. */
enum svc_fleet_label {
    SVC_FL_NAME,       /* __name__ (dcgm: which field) */
    SVC_FL_CLUSTER,    /* the configured cluster label */
    SVC_FL_NODE,       /* agent: node */
    SVC_FL_DEVICE,     /* agent: the PCI address */
    SVC_FL_MODEL,      /* agent: the catalog id ("unknown" when not in its catalog) */
    SVC_FL_VENDOR,     /* agent */
    SVC_FL_HOSTNAME,   /* dcgm: Hostname (the node) */
    SVC_FL_UUID,       /* dcgm */
    SVC_FL_GPU,        /* dcgm: the GPU index */
    SVC_FL_PCI_BUS_ID, /* dcgm */
    SVC_FL_MODEL_NAME, /* dcgm: modelName ("NVIDIA H100 80GB HBM3") */
    SVC_FL_POD,        /* dcgm: the pod the GPU is allocated to */
    SVC_FL_COUNT
};

struct svc_fleet_series {
    const char *label[SVC_FL_COUNT]; /* views into the answer; NULL when absent */
    double value;                    /* finite */
};

/* A parsed answer: its series, whose labels are views into `text`, the
 * parser's copy of the answer (owned). */
struct svc_fleet_vector {
    char *text;
    struct svc_fleet_series *series;
    size_t n;
    size_t dropped; /* series left out: a label past SVC_FLEET_LABEL_MAX, a value
                       that is not a finite number */
};

/* Parse `len` bytes at `body` (borrowed; need not be NUL-terminated) as the
 * answer of an instant query (GET /api/v1/query): {"status":"success","data":{
 * "resultType":"vector","result":[{"metric":{...},"value":[t,"v"]}...]}}, in
 * one pass over a copy, without a tree: memory is the copy and one record per
 * series kept (a native histogram, without a "value", is dropped). Strict JSON
 * (RFC 8259; valid UTF-8, paired surrogates, no \u0000, no trailing data) within
 * SVC_FLEET_JSON_DEPTH; a label given twice in one series is malformed.
 * `cluster_label` names the label read as SVC_FL_CLUSTER ("" for none).
 * On SVC_FLEET_OK *out is filled (release with svc_fleet_vector_free). Errors:
 * SVC_FLEET_E_MALFORMED (not JSON, another shape or result type),
 * SVC_FLEET_E_QUERY (status "error": Prometheus's errorType and error, cut to
 * SVC_FLEET_ERROR_TEXT_MAX, in why), SVC_FLEET_E_SERIES (more than max_series
 * elements: the walk stops there), SVC_FLEET_E_NOMEM; *out is then empty and
 * why (may be NULL) says what. Thread-safe. */
enum svc_fleet_error svc_fleet_parse(const char *body, size_t len, const char *cluster_label,
                                     size_t max_series, struct svc_fleet_vector *out, char *why,
                                     size_t whylen);
void svc_fleet_vector_free(struct svc_fleet_vector *v);

/* End `s` before its first byte that does not start a valid UTF-8 sequence: a
 * message cut to a length may have split a character, and messages go into JSON
 * and logs. */
void svc_fleet_utf8_cut(char *s);

/* --------------------------------------------------------------- snapshot */

struct svc_fleet_cluster {
    char *name; /* the cluster label's value; "" when the series had none */
    unsigned devices, free, nodes;
};

/* One catalog accelerator seen in the fleet. */
struct svc_fleet_model {
    char *id;   /* catalog id */
    char *name; /* its short name ("H100") */
    char *vendor;
    unsigned devices, free;
    unsigned nodes, free_nodes; /* nodes with one of its devices, with a free one */
    unsigned whole_free_nodes;  /* nodes on which every one of its devices is free */
    unsigned nodes_by_free[DC_AVAILABILITY_NODE_MAX + 1];
    unsigned whole_node_free;              /* devices on those whole free nodes */
    unsigned from[SVC_FLEET_SOURCE_COUNT]; /* devices by source */
    struct svc_fleet_cluster *clusters;    /* by name */
    size_t n_clusters;
};

/* A model name no catalog id matches ("NVIDIA A100-SXM4-40GB", or an agent's
 * "unknown"), with how many devices carried it. */
struct svc_fleet_unmapped {
    char *name;
    enum svc_fleet_source source;
    unsigned devices;
};

/* What one source gave the snapshot. */
struct svc_fleet_source_count {
    size_t series;     /* in the answer */
    size_t dropped;    /* series the parser or the model left out */
    size_t devices;    /* devices it counted */
    size_t duplicates; /* dcgm-exporter: devices on nodes an agent reports (the agent
                          wins); agents: series repeating a cluster, node and device */
};

/* Immutable once published; shared by reference. */
struct svc_fleet_snapshot {
    atomic_uint refs;
    struct svc_fleet_model *models; /* by catalog id */
    size_t n_models;
    struct svc_fleet_unmapped *unmapped; /* by name */
    size_t n_unmapped;
    size_t unmapped_dropped; /* past SVC_FLEET_UNMAPPED_MAX */
    struct svc_fleet_source_count sources[SVC_FLEET_SOURCE_COUNT];
    /* No answer of either source has held a series since the service started:
     * Prometheus has not scraped a node agent or dcgm-exporter yet, so the
     * snapshot is empty for want of data, not because nothing is free (GET
     * /v1/fleet `warming`, accel_advisor_fleet_warming, answers' availability). */
    bool warming;
    char rules_version[65];        /* the catalog the names were mapped with */
    struct timespec taken_at;      /* CLOCK_REALTIME when the refresh started */
    struct timespec finished_mono; /* CLOCK_MONOTONIC when it finished */
};

/* Build a snapshot from the answers of both sources (borrowed; either may be
 * empty), mapping names with the catalog of `rs` (docs/operations.md, "Fleet":
 * agents' catalog ids as they are, dcgm-exporter's modelName by its tokens;
 * dcgm-exporter's devices on nodes an agent reports are left to the agent; a
 * dcgm-exporter GPU is free at most PROBE_FREE_UTILIZATION_MAX percent busy,
 * at most PROBE_FREE_MEMORY_USED_MAX percent of its memory used and allocated
 * to no pod). Returns the snapshot with one reference, or NULL when out of
 * memory. Thread-safe. */
struct svc_fleet_snapshot *svc_fleet_snapshot_build(const dc_ruleset *rs,
                                                    const struct svc_fleet_vector *agent,
                                                    const struct svc_fleet_vector *dcgm);
const struct svc_fleet_snapshot *svc_fleet_snapshot_retain(const struct svc_fleet_snapshot *s);
void svc_fleet_snapshot_release(const struct svc_fleet_snapshot *s);
double svc_fleet_snapshot_age_seconds(const struct svc_fleet_snapshot *s);

/* The catalog id of `rs` that dcgm-exporter's `model_name` names, or NULL: an
 * NVIDIA accelerator whose short name (or id) is one of the name's words (split
 * at spaces, '-' and '_'; case ignored), and whose memory is within a quarter of
 * a memory size the name states ("80GB"), if it states one. Returns a view into
 * rs. */
const char *svc_fleet_map_model_name(const dc_ruleset *rs, const char *model_name);

/* The snapshot as the core's availability, one entry per model that is a
 * catalog accelerator of `rs` (accelerator_id are views into rs; memory is not
 * known: NAN). *out is owned (free()); NULL with *n 0 for an empty snapshot.
 * Errors: DC_ENOMEM. */
enum dc_status svc_fleet_availability(const struct svc_fleet_snapshot *s, const dc_ruleset *rs,
                                      struct dc_availability **out, size_t *n);

/* ------------------------------------------------------------------- body */

/* What GET /v1/fleet says beside the snapshot. */
struct svc_fleet_view {
    const char *url; /* the Prometheus base URL (it carries no credentials) */
    const char *cluster_label;
    double interval_seconds, stale_after_seconds;
    uint64_t refreshes, failures;
    const char *last_error; /* of the latest failed refresh, "" when it succeeded */
    enum svc_fleet_error last_errors[SVC_FLEET_SOURCE_COUNT];
    const char *request_id;
};

/* The body of GET /v1/fleet (openapi.yaml: Fleet) for `s` (borrowed). Returns
 * owned (cJSON_Delete), or NULL when out of memory. */
cJSON *svc_fleet_to_json(const struct svc_fleet_snapshot *s, const struct svc_fleet_view *v);

/* ----------------------------------------------------------------- client */

struct svc_fleet_client_config {
    const char *url; /* base URL: the query goes to URL/api/v1/query */
    const char *token_file;
    const char *ca_file;
    unsigned timeout_ms;
    size_t max_bytes;
};

typedef struct svc_fleet_client svc_fleet_client;

/* Whether `url` is a base URL the fleet may use: read by libcurl's own URL
 * parser (curl_url(), the one CURLOPT_URL uses), it must be http or https with a
 * host, and hold no user information (user, password or an empty one before
 * '@': it would be sent as Basic auth, logged and shown in GET /v1/fleet), no
 * query and no fragment; no space or control character anywhere. So
 * "http://h:p\\@other", which libcurl reads as user "h", password "p\\" and host
 * "other", is refused. False with the reason in `why` (never the URL, which
 * may hold a password). */
bool svc_fleet_url_check(const char *url, char *why, size_t whylen);

/* A client for `cfg` (its strings copied). NULL when out of memory or libcurl
 * cannot start. */
svc_fleet_client *svc_fleet_client_new(const struct svc_fleet_client_config *cfg);
void svc_fleet_client_free(svc_fleet_client *c);

/* Run `promql` as an instant query. On SVC_FLEET_OK *body (owned, free()) holds
 * *len bytes and a NUL. Otherwise *body is NULL and why says what happened
 * (never the token). `stop` (may be NULL) aborts the transfer when set. Not
 * thread-safe for one client. */
enum svc_fleet_error svc_fleet_client_query(svc_fleet_client *c, const char *promql,
                                            const atomic_bool *stop, char **body, size_t *len,
                                            char *why, size_t whylen);

/* ----------------------------------------------------------------- worker */

struct svc_fleet_config {
    struct svc_fleet_client_config client;
    const char *cluster_label;
    unsigned interval_ms;
    unsigned stale_after_ms;
    size_t max_series;
    /* The serving rule set with a new reference (dc_ruleset_release), or NULL. */
    dc_ruleset *(*acquire_rules)(void *ctx);
    void *ctx;
};

typedef struct svc_fleet svc_fleet;

/* Upper bounds of the query-duration histogram, in seconds (up to the longest
 * fleet_timeout one would set). */
#define SVC_FLEET_BUCKETS                                                                          \
    {                                                                                              \
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30                                \
    }
#define SVC_FLEET_BUCKET_COUNT 12

/* Counters for /metrics and GET /v1/fleet (summed since start). */
struct svc_fleet_stats {
    uint64_t refreshes, failures;
    uint64_t errors[SVC_FLEET_SOURCE_COUNT][SVC_FLEET_ERROR_COUNT];
    enum svc_fleet_error last_errors[SVC_FLEET_SOURCE_COUNT];
    char last_error[512]; /* of the latest failed refresh; "" when it succeeded */
    /* Query durations: per-bucket counts of SVC_FLEET_BUCKETS, the last past it. */
    uint64_t duration[SVC_FLEET_SOURCE_COUNT][SVC_FLEET_BUCKET_COUNT + 1];
    double duration_sum[SVC_FLEET_SOURCE_COUNT];
};

/* Start refreshing every interval (the first at once) on a thread of its own.
 * `cfg` is copied. On DC_OK *out is owned by the caller (svc_fleet_stop).
 * Errors: DC_ENOMEM (or libcurl did not start), DC_EIO (the thread did not
 * start). */
DC_NODISCARD enum dc_status svc_fleet_start(const struct svc_fleet_config *cfg, svc_fleet **out,
                                            struct dc_error *err);
/* Stop the thread (a query in flight is abandoned within a second) and free.
 * NULL is a no-op. */
void svc_fleet_stop(svc_fleet *f);
/* The latest snapshot with a reference (svc_fleet_snapshot_release), or NULL
 * before the first good refresh. Never waits on a query. */
const struct svc_fleet_snapshot *svc_fleet_get(svc_fleet *f);
/* Snapshots published so far. */
uint64_t svc_fleet_generation(svc_fleet *f);
void svc_fleet_stats(svc_fleet *f, struct svc_fleet_stats *out);
/* The fleet's families in the Prometheus text format (owned, free()), or NULL
 * when out of memory. */
char *svc_fleet_metrics(svc_fleet *f, double stale_after_seconds);

#endif /* SVC_FLEET_H */
