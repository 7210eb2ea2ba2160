/* service/src/fleet_server.c -- the fleet inside `serve`: started with
 * --fleet-prometheus, read by requests (availability, GET /v1/fleet, the cache
 * key) and by /metrics, stopped with the server. Requests only take the latest
 * snapshot (fleet.c); nothing here waits on Prometheus.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "log.h"
#include "server_internal.h"

static dc_ruleset *acquire_rules(void *ctx)
{
    return svc__rules_acquire(ctx);
}

enum dc_status svc__fleet_start(svc_server *s, struct dc_error *err)
{
    const struct svc_config *c = &s->cfg;
    if (c->fleet_prometheus[0] == '\0')
        return DC_OK;
    struct svc_fleet_config fc = {
        .client = {c->fleet_prometheus, c->fleet_bearer_token_file, c->fleet_ca_file,
                   c->fleet_timeout_ms, c->fleet_max_response_bytes},
        .cluster_label = c->fleet_cluster_label,
        .interval_ms = c->fleet_interval_ms,
        .stale_after_ms = c->fleet_stale_after_ms,
        .max_series = c->fleet_max_series,
        .acquire_rules = acquire_rules,
        .ctx = s,
    };
    enum dc_status rc = svc_fleet_start(&fc, &s->fleet, err);
    if (rc != DC_OK)
        return rc;
    struct svc_log_line l;
    svc_log_begin(&l, "info", "fleet_started");
    svc_log_str(&l, "prometheus", c->fleet_prometheus);
    svc_log_uint(&l, "interval_ms", c->fleet_interval_ms);
    svc_log_uint(&l, "timeout_ms", c->fleet_timeout_ms);
    svc_log_uint(&l, "stale_after_ms", c->fleet_stale_after_ms);
    svc_log_bool(&l, "bearer_token", c->fleet_bearer_token_file[0] != '\0');
    svc_log_end_msg(&l, "reading the fleet from %s every %u ms", c->fleet_prometheus,
                    c->fleet_interval_ms);
    return DC_OK;
}

void svc__fleet_stop(svc_server *s)
{
    svc_fleet_stop(s->fleet);
    s->fleet = NULL;
}

/* Is `snap` past the staleness limit? */
static bool stale(const svc_server *s, const struct svc_fleet_snapshot *snap, double *age)
{
    *age = svc_fleet_snapshot_age_seconds(snap);
    return *age * 1e3 > s->cfg.fleet_stale_after_ms;
}

enum dc_status svc__fleet_availability(svc_server *s, const dc_ruleset *rs,
                                       struct dc_recommend_opts *opts,
                                       struct dc_availability **avail)
{
    const struct svc_fleet_snapshot *snap = svc_fleet_get(s->fleet);
    /* Before the first snapshot nothing is known free: every candidate says so. */
    opts->probe_enabled = true;
    opts->probe_source = "prometheus";
    opts->availability_fleet = true;
    opts->availability_age_seconds = NAN;
    enum dc_status rc = svc_fleet_availability(snap, rs, avail, &opts->n_availability);
    opts->availability = *avail;
    if (snap != NULL) {
        opts->availability_stale = stale(s, snap, &opts->availability_age_seconds);
        opts->availability_warming = snap->warming;
    }
    svc_fleet_snapshot_release(snap);
    return rc;
}

void svc__fleet_cache_version(svc_server *s, char *buf, size_t len)
{
    const struct svc_fleet_snapshot *snap = svc_fleet_get(s->fleet);
    double age = 0;
    bool old = snap != NULL && stale(s, snap, &age);
    snprintf(buf, len, "/f%llu%s", (unsigned long long)svc_fleet_generation(s->fleet),
             old ? "s" : "");
    svc_fleet_snapshot_release(snap);
}

enum dc_status svc__fleet_body(svc_server *s, const char *request_id, cJSON **out)
{
    *out = NULL;
    const struct svc_fleet_snapshot *snap = svc_fleet_get(s->fleet);
    if (snap == NULL)
        return DC_ENOTFOUND;
    struct svc_fleet_stats st;
    svc_fleet_stats(s->fleet, &st);
    struct svc_fleet_view v = {.url = s->cfg.fleet_prometheus,
                               .cluster_label = s->cfg.fleet_cluster_label,
                               .interval_seconds = s->cfg.fleet_interval_ms / 1e3,
                               .stale_after_seconds = s->cfg.fleet_stale_after_ms / 1e3,
                               .refreshes = st.refreshes,
                               .failures = st.failures,
                               .last_error = st.last_error,
                               .request_id = request_id};
    memcpy(v.last_errors, st.last_errors, sizeof(v.last_errors));
    *out = svc_fleet_to_json(snap, &v);
    svc_fleet_snapshot_release(snap);
    return *out != NULL ? DC_OK : DC_ENOMEM;
}

char *svc__fleet_metrics(svc_server *s)
{
    return s->fleet != NULL ? svc_fleet_metrics(s->fleet, s->cfg.fleet_stale_after_ms / 1e3) : NULL;
}
