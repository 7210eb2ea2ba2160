/* service/src/server_internal.h -- state shared by server.c (HTTP),
 * server_rules.c (the current rule set, reloads) and server_watch.c (the rules
 * directory watcher). Not used outside server*.c. */
#ifndef SVC_SERVER_INTERNAL_H
#define SVC_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

#include "api/openapi.h"
#include "auth.h"
#include "config.h"
#include "dc/ruleset.h"
#include "fleet.h"
#include "metrics.h"
#include "playground.h"
#include "probe/probe.h"
#include "server.h"
#include "server_cache.h"
#include "trace.h"

struct req; /* one request's context (server.c) */

/* A listening socket and the daemon its connections are handed to (server_conn.c):
 * the API's, and the optional admin listener's. The server accepts connections
 * itself, so that one past the hard limit is answered at once instead of waiting
 * in the kernel's backlog. */
struct svc_listener {
    svc_server *s;
    bool admin;    /* serves /healthz, /readyz and /metrics only */
    atomic_int fd; /* -1 when not listening (closed at drain) */
    uint16_t port;
    struct MHD_Daemon *daemon;
    unsigned limit;             /* connections served; requests on those past it get 503 */
    unsigned hard_limit;        /* past it a new connection is answered 503 and closed at once */
    atomic_long open;           /* connections the daemon holds */
    atomic_long pending;        /* handed to the daemon, not yet started by its threads */
    atomic_bool handed;         /* a connection was handed over since the reaper last looked */
    atomic_long evicting;       /* shut down to make room (admin), not yet reported closed */
    unsigned request_timeout_s; /* a request's headers and body must be in within it */
};

/* One client connection: libmicrohttpd's socket context, in the server's
 * registry while the connection is open (server_conn.c). */
struct svc_conn {
    struct svc_conn *prev, *next; /* guarded by conns_mu */
    struct svc_listener *listener;
    int fd;
    bool over_limit;              /* accepted past listener->limit */
    _Atomic uint64_t deadline_ns; /* the request being received must be in by then; 0: none */
    atomic_bool cut;              /* closed by the reaper at its deadline */
    atomic_bool answered; /* answered on the socket by the server: its deadline is a linger */
    bool evicted;         /* shut down to make room for a new one (conns_mu) */
    /* The request whose request line came on this connection and which
     * libmicrohttpd has not reported completed (server.c); on the connection's
     * worker thread only. */
    struct req *req;
};

struct svc_server {
    struct svc_config cfg;
    unsigned threads;
    api_contract *contract;
    struct api_query_params accelerator_params; /* GET /v1/accelerators */
    struct api_query_params recommend_params;   /* POST /v1/recommendations(:batch) */
    svc_playground *playground;                 /* GET / and /ui/NAME */
    char contract_digest[65];                   /* SHA-256 of the contract's YAML, for ETags */
    /* The API keys (NULL: no authentication), swapped on SIGHUP: guarded by
     * auth_mu, and each check holds its own reference. */
    pthread_mutex_t auth_mu;
    svc_auth *auth;
    struct svc_metrics metrics;
    svc_cache *cache; /* NULL when cache_entries is 0 */
    char mhd_version[32];

    /* The serving rule set: the pointer is guarded by rs_mu; every request
     * takes its own reference (dc_ruleset_retain) for its whole life, so a
     * swap never frees a set in use. reload_mu serialises loads. */
    pthread_mutex_t rs_mu;
    dc_ruleset *rs;
    pthread_mutex_t reload_mu;

    struct MHD_Daemon *daemon;
    atomic_bool draining;
    atomic_bool drained;         /* the drain saw no request in flight: start no new one */
    atomic_bool reload_deferred; /* svc_server_reload_deferred */

    /* Listeners, the acceptor and the connection registry (server_conn.c). */
    struct svc_listener api, admin; /* admin.fd is -1 without admin_listen */
    /* `accel-advisor agent`: both listeners serve GET /metrics (the agent's
     * exposition) and /healthz only, held as the admin listener is. */
    bool agent;
    pthread_t acceptor;
    bool acceptor_started;
    int accept_wake[2]; /* pipe: wakes the acceptor to close api or stop */
    atomic_bool accept_close_api, accept_stop;
    int spare_fd; /* released to accept (and refuse) at EMFILE */
    pthread_mutex_t conns_mu;
    pthread_cond_t conns_cv; /* wakes the reaper to stop */
    struct svc_conn *conns;
    pthread_t reaper;
    bool reaper_started, reaper_stop;

    /* The accelerator probe (server_probe.c); probe_holder is NULL when the
     * probe is off. probe_mu guards the worker pointer (replaced when a reload
     * changes the catalog) and the counters below. */
    probe_holder *probe_holder;
    pthread_mutex_t probe_mu;
    probe_worker *probe_worker;
    struct probe_worker_stats probe_base; /* totals of the workers replaced so far */
    uint64_t probe_timeouts;              /* probes seen running past probe_timeout */
    uint64_t probe_timeout_mark;

    /* The fleet read from Prometheus (fleet_server.c); NULL without
     * fleet_prometheus. */
    svc_fleet *fleet;

    /* The rules directory watcher (server_watch.c). */
    uint64_t rules_fingerprint; /* of the directory, taken before the start-up load */
    pthread_t watch_thread;
    bool watch_started;
    int watch_stop[2]; /* pipe: writing wakes the watcher to exit */
};

/* ---- server.c ---- */

/* A server with `cfg` (copied; an empty node_name becomes the host's name) and
 * nothing started: what svc_server_start builds on, and what the node agent
 * (agent.c) runs its probe in. NULL when out of memory; svc_server_free frees
 * it whatever was started since. */
svc_server *svc__server_new(const struct svc_config *cfg);
/* The node agent's listeners (s->agent set): cfg.listen, and cfg.admin_listen
 * when set (a port of its own for the kubelet's probes), each with the admin
 * listener's guarantees: ADMIN_MAX_CONNECTIONS with eviction of the connection
 * that has waited longest for its request, ADMIN_REQUEST_TIMEOUT_S for a
 * request and an idle connection, the request framing checks and the 414 of
 * the API. Then the acceptor and the reaper. Errors as svc_server_start's. */
enum dc_status svc__agent_listen(svc_server *s, struct dc_error *err);

/* ---- server_rules.c ---- */

/* A new reference to the serving rule set, or NULL when none is loaded. The
 * caller releases it with dc_ruleset_release. */
dc_ruleset *svc__rules_acquire(svc_server *s);

/* The first load at start-up. Errors: the load's (svc_ruleset_load), DC_EIO
 * (the files kept changing while read); the problems in err->msg. */
enum dc_status svc__rules_initial(svc_server *s, struct dc_error *err);

/* Release the serving set (at shutdown). */
void svc__rules_clear(svc_server *s);

/* Start probing (svc__probe_start) with the serving set's catalog, after the
 * first load. Errors: svc__probe_start's. */
enum dc_status svc__rules_start_probe(svc_server *s, struct dc_error *err);

/* ---- server_probe.c ---- */

/* Start probing when cfg.probe is on, with the catalog of `rs` (the first rule
 * set loaded: the caller passes it in, so this module never reaches back into
 * server_rules.c, which calls it). Errors: the probe's (probe/probe.h), with
 * the reason in err->msg. */
enum dc_status svc__probe_start(svc_server *s, const dc_ruleset *rs, struct dc_error *err);
/* A reload swapped in `rs` with a new version: probe with its catalog. */
void svc__probe_rules_changed(svc_server *s, const dc_ruleset *rs);
void svc__probe_stop(svc_server *s);
/* Ask for a probe now (SIGHUP). */
void svc__probe_refresh(svc_server *s);
/* The latest snapshot with a new reference (probe_snapshot_release), or NULL
 * when the probe is off or has not finished its first run. */
const struct probe_snapshot *svc__probe_get(svc_server *s);
/* Snapshots published so far (0 when the probe is off). */
uint64_t svc__probe_generation(svc_server *s);
/* The probe's counters; false when the probe is off. Counts a probe running
 * past probe_timeout (once per probe). */
bool svc__probe_status(svc_server *s, struct svc_probe_status *out);

/* ---- fleet_server.c ---- */

/* Start reading the fleet when cfg.fleet_prometheus is set (after the first
 * rule set loaded). Errors: svc_fleet_start's. */
enum dc_status svc__fleet_start(svc_server *s, struct dc_error *err);
void svc__fleet_stop(svc_server *s);
/* The fleet's availability for a request with rule set `rs`: fills opts (the
 * availability, its source, age and staleness); *avail is owned by the caller
 * (free()) and must outlive the recommendation. Errors: DC_ENOMEM. */
enum dc_status svc__fleet_availability(svc_server *s, const dc_ruleset *rs,
                                       struct dc_recommend_opts *opts,
                                       struct dc_availability **avail);
/* What the recommendation cache key adds for the fleet: its snapshot
 * generation and whether it is stale. */
void svc__fleet_cache_version(svc_server *s, char *buf, size_t len);
/* The body of GET /v1/fleet into *out (owned). Errors: DC_ENOTFOUND (no
 * snapshot yet: then 503), DC_ENOMEM. */
enum dc_status svc__fleet_body(svc_server *s, const char *request_id, cJSON **out);
/* The fleet's /metrics families (owned), or NULL without a fleet. */
char *svc__fleet_metrics(svc_server *s);

/* ---- server_conn.c ---- */

/* Bind and listen on `addr` ("HOST:PORT", "[V6]:PORT") for `l`. Errors:
 * DC_EIO (the address does not resolve, or no socket binds), with the reason. */
enum dc_status svc__listen(struct svc_listener *l, const char *addr, struct dc_error *err);
/* The registry's part of libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback
 * (server.c's on_connection, which first finishes a request the connection
 * still holds); `cls` is the listener. */
void svc__conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe);
/* The connection's context, or NULL (out of memory at its start). */
struct svc_conn *svc__conn_of(struct MHD_Connection *c);
/* The request on `conn` is in (or answered early): its deadline no longer runs. */
void svc__conn_received(struct svc_conn *conn);
/* A response went out: the next request's deadline (its listener's
 * request_timeout_s) runs from now. */
void svc__conn_next(struct svc_conn *conn);
/* The server answered `conn` on its socket while libmicrohttpd cannot finish
 * the request: the reaper closes it `linger_ms` from now, time for the answer
 * to be read (not counted as a request timeout). */
void svc__conn_linger(struct svc_conn *conn, unsigned linger_ms);
/* Start the acceptor and the reaper over the listeners (their daemons started).
 * Errors: DC_EIO, with the reason. */
enum dc_status svc__conns_start(svc_server *s, struct dc_error *err);
/* Stop accepting on the API listener (drain); the admin listener stays. */
void svc__conns_close_api(svc_server *s);
/* Stop both threads and close the listeners (before the daemons stop). */
void svc__conns_stop(svc_server *s);
/* ---- server_headers.c ---- */

/* The request's trace from its traceparent header lines (a new trace when
 * there is none or it is invalid; the reason is logged at debug level). */
void svc__trace_from_request(struct MHD_Connection *c, const char *request_id,
                             struct svc_trace *out);
/* True when an If-None-Match line of the request matches `etag`. */
bool svc__if_none_match(struct MHD_Connection *c, const char *etag);

/* ---- server_watch.c ---- */

/* Start watching cfg.rules (when set and rules_watch is on). Errors: DC_EIO
 * (the thread cannot start), with the reason. */
enum dc_status svc__watch_start(svc_server *s, struct dc_error *err);
void svc__watch_stop(svc_server *s);

#endif /* SVC_SERVER_INTERNAL_H */
