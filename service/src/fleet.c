/* service/src/fleet.c -- the fleet's refresh thread: every fleet_interval it
 * asks Prometheus for both sources (fleet_client.c), parses (fleet_parse.c) and
 * builds a snapshot (fleet_model.c) with the serving catalog, and publishes it
 * only when both answered; a failed refresh keeps the last good snapshot, which
 * ages and turns stale after fleet_stale_after (logged once). Requests take a
 * reference to the latest snapshot under a lock that covers a pointer copy, so
 * they never wait on Prometheus. Counters feed /metrics and GET /v1/fleet.
 * Owner: the fleet availability work (issue 19). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/clock.h"
#include "fleet.h"
#include "log.h"
#include "probe/probe.h"

static const double buckets[SVC_FLEET_BUCKET_COUNT] = SVC_FLEET_BUCKETS;

struct svc_fleet {
    struct svc_fleet_config cfg; /* strings point at the copies below */
    char *url, *token_file, *ca_file, *cluster_label;
    svc_fleet_client *client;
    pthread_t thread;
    bool started;
    atomic_bool stop;
    pthread_mutex_t mu; /* guards what follows */
    pthread_cond_t cv;  /* wakes the thread to stop */
    const struct svc_fleet_snapshot *snap;
    uint64_t generation;
    struct svc_fleet_stats stats;
    bool stale_logged;
    bool scraped; /* an answer has held a series (the refresh thread's own) */
};

/* ---- one refresh ---------------------------------------------------------------- */

/* Ask source `s` and parse its answer into *v; counts its duration. */
static enum svc_fleet_error ask(svc_fleet *f, enum svc_fleet_source s, struct svc_fleet_vector *v,
                                char *why, size_t whylen)
{
    char q[512];
    char *body = NULL;
    size_t len = 0;
    uint64_t t0 = dc_mono_ns();
    svc_fleet_promql(s, f->cluster_label, q, sizeof(q));
    enum svc_fleet_error rc =
        svc_fleet_client_query(f->client, q, &f->stop, &body, &len, why, whylen);
    if (rc == SVC_FLEET_OK)
        rc = svc_fleet_parse(body, len, f->cluster_label, f->cfg.max_series, v, why, whylen);
    free(body);
    double secs = (double)(dc_mono_ns() - t0) / 1e9;
    size_t b = 0;
    while (b < SVC_FLEET_BUCKET_COUNT && secs > buckets[b])
        b++;
    char msg[sizeof(f->stats.last_error)] = "";
    if (rc != SVC_FLEET_OK) {
        /* Cut to fit beside the source and kind (then at a character's start). */
        snprintf(msg, sizeof(msg), "%s: %s: %.440s", svc_fleet_source_name(s),
                 svc_fleet_error_name(rc), why);
        svc_fleet_utf8_cut(msg);
    }
    /* The error is counted and its message kept at once: whoever sees the
     * count (on /metrics) sees the message (on GET /v1/fleet). */
    pthread_mutex_lock(&f->mu);
    f->stats.duration[s][b]++;
    f->stats.duration_sum[s] += secs;
    f->stats.last_errors[s] = rc;
    if (rc != SVC_FLEET_OK) {
        f->stats.errors[s][rc]++;
        memcpy(f->stats.last_error, msg, sizeof(msg));
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void log_failure(svc_fleet *f, enum svc_fleet_source s, enum svc_fleet_error rc,
                        const char *why)
{
    const struct svc_fleet_snapshot *snap = svc_fleet_get(f);
    struct svc_log_line l;
    svc_log_begin(&l, "warn", "fleet_refresh_failed");
    svc_log_str(&l, "prometheus", f->url);
    svc_log_str(&l, "source", svc_fleet_source_name(s));
    svc_log_str(&l, "kind", svc_fleet_error_name(rc));
    svc_log_str(&l, "error", why);
    if (snap != NULL)
        svc_log_num(&l, "snapshot_age_seconds", svc_fleet_snapshot_age_seconds(snap));
    svc_log_end_msg(&l, "fleet: %s query failed (%s): %s; %s", svc_fleet_source_name(s),
                    svc_fleet_error_name(rc), why,
                    snap != NULL ? "keeping the last snapshot" : "no snapshot yet");
    svc_fleet_snapshot_release(snap);
}

/* A stale snapshot is said once, when it turns stale; a fresh one resets that. */
static void check_stale(svc_fleet *f)
{
    const struct svc_fleet_snapshot *snap = svc_fleet_get(f);
    double age = snap != NULL ? svc_fleet_snapshot_age_seconds(snap) : 0;
    bool stale = snap != NULL && age * 1e3 > f->cfg.stale_after_ms;
    pthread_mutex_lock(&f->mu);
    bool say = stale && !f->stale_logged;
    f->stale_logged = stale;
    pthread_mutex_unlock(&f->mu);
    svc_fleet_snapshot_release(snap);
    if (say)
        svc_log_msg("warn", "fleet_stale",
                    "fleet: the snapshot is %.0f s old (fleet_stale_after %u ms): answers use it, "
                    "marked stale",
                    age, f->cfg.stale_after_ms);
}

static void publish(svc_fleet *f, struct svc_fleet_snapshot *snap)
{
    pthread_mutex_lock(&f->mu);
    const struct svc_fleet_snapshot *old = f->snap;
    f->snap = snap;
    f->generation++;
    f->stats.refreshes++;
    f->stats.last_error[0] = '\0';
    bool first = old == NULL;
    pthread_mutex_unlock(&f->mu);
    svc_fleet_snapshot_release(old);
    struct svc_log_line l;
    svc_log_begin(&l, first ? "info" : "debug", "fleet_refreshed");
    svc_log_uint(&l, "accelerators", snap->n_models);
    svc_log_uint(&l, "agent_devices", snap->sources[SVC_FLEET_AGENT].devices);
    svc_log_uint(&l, "dcgm_devices", snap->sources[SVC_FLEET_DCGM].devices);
    svc_log_end_msg(&l, "fleet: %zu accelerator model%s from %s", snap->n_models,
                    snap->n_models == 1 ? "" : "s", f->url);
}

static void refresh(svc_fleet *f)
{
    struct svc_fleet_vector v[SVC_FLEET_SOURCE_COUNT];
    char why[512] = "";
    bool ok = true;
    memset(v, 0, sizeof(v));
    /* Both sources are asked even when the first fails, so each one's state and
     * counters say what it did. */
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT && !atomic_load(&f->stop); s++) {
        enum svc_fleet_error rc = ask(f, (enum svc_fleet_source)s, &v[s], why, sizeof(why));
        if (rc != SVC_FLEET_OK) {
            ok = false;
            log_failure(f, (enum svc_fleet_source)s, rc, why);
        }
    }
    struct svc_fleet_snapshot *snap = NULL;
    if (ok && !atomic_load(&f->stop)) {
        dc_ruleset *rs = f->cfg.acquire_rules(f->cfg.ctx);
        snap = rs != NULL ? svc_fleet_snapshot_build(rs, &v[SVC_FLEET_AGENT], &v[SVC_FLEET_DCGM])
                          : NULL;
        dc_ruleset_release(rs);
        if (snap != NULL) {
            f->scraped |= snap->sources[SVC_FLEET_AGENT].series > 0 ||
                          snap->sources[SVC_FLEET_DCGM].series > 0;
            snap->warming = !f->scraped;
            publish(f, snap);
        } else
            svc_log_msg("error", "fleet_refresh_failed", "fleet: %s",
                        rs == NULL ? "no rule set to map the names with" : "out of memory");
    }
    if (snap == NULL) {
        pthread_mutex_lock(&f->mu);
        f->stats.failures++;
        pthread_mutex_unlock(&f->mu);
    }
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT; s++)
        svc_fleet_vector_free(&v[s]);
    check_stale(f);
}

static void *fleet_main(void *arg)
{
    svc_fleet *f = arg;
    while (!atomic_load(&f->stop)) {
        refresh(f);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += f->cfg.interval_ms / 1000;
        until.tv_nsec += (long)(f->cfg.interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&f->mu);
        while (!atomic_load(&f->stop) && pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0)
            continue;
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

/* ---- metrics -------------------------------------------------------------------- */

static void histogram(FILE *fp, const struct svc_fleet_stats *st)
{
    fprintf(fp, "# HELP accel_advisor_fleet_query_duration_seconds Time one fleet query to "
                "Prometheus took, answer parsed, by source.\n"
                "# TYPE accel_advisor_fleet_query_duration_seconds histogram\n");
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT; s++) {
        const char *src = svc_fleet_source_name((enum svc_fleet_source)s);
        uint64_t cum = 0;
        for (int b = 0; b <= SVC_FLEET_BUCKET_COUNT; b++) {
            cum += st->duration[s][b];
            char le[32];
            if (b < SVC_FLEET_BUCKET_COUNT)
                snprintf(le, sizeof(le), "%g", buckets[b]);
            else
                snprintf(le, sizeof(le), "+Inf");
            fprintf(fp,
                    "accel_advisor_fleet_query_duration_seconds_bucket{source=\"%s\",le=\"%s\"} "
                    "%llu\n",
                    src, le, (unsigned long long)cum);
        }
        fprintf(fp,
                "accel_advisor_fleet_query_duration_seconds_sum{source=\"%s\"} %.9f\n"
                "accel_advisor_fleet_query_duration_seconds_count{source=\"%s\"} %llu\n",
                src, st->duration_sum[s], src, (unsigned long long)cum);
    }
}

/* The devices of the snapshot by catalog model: seen and free. */
static void snapshot_metrics(FILE *fp, const struct svc_fleet_snapshot *snap, double stale_after)
{
    double age = svc_fleet_snapshot_age_seconds(snap);
    double done = (double)snap->taken_at.tv_sec + (double)snap->taken_at.tv_nsec / 1e9;
    fprintf(fp,
            "# HELP accel_advisor_fleet_snapshot_age_seconds Seconds since the fleet snapshot in "
            "use was taken.\n# TYPE accel_advisor_fleet_snapshot_age_seconds gauge\n"
            "accel_advisor_fleet_snapshot_age_seconds %.3f\n"
            "# HELP accel_advisor_fleet_last_success_timestamp_seconds Unix time at which the "
            "fleet snapshot in use was taken.\n"
            "# TYPE accel_advisor_fleet_last_success_timestamp_seconds gauge\n"
            "accel_advisor_fleet_last_success_timestamp_seconds %.3f\n"
            "# HELP accel_advisor_fleet_stale 1 when the fleet snapshot is older than "
            "fleet_stale_after.\n# TYPE accel_advisor_fleet_stale gauge\n"
            "accel_advisor_fleet_stale %d\n"
            "# HELP accel_advisor_fleet_warming 1 until an answer of Prometheus has held a "
            "series (it has not scraped the fleet yet): nothing is known free.\n"
            "# TYPE accel_advisor_fleet_warming gauge\n"
            "accel_advisor_fleet_warming %d\n"
            "# HELP accel_advisor_fleet_series Series in the last good answer of each fleet "
            "query.\n# TYPE accel_advisor_fleet_series gauge\n",
            age, done, age > stale_after ? 1 : 0, snap->warming ? 1 : 0);
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT; s++)
        fprintf(fp, "accel_advisor_fleet_series{source=\"%s\"} %zu\n",
                svc_fleet_source_name((enum svc_fleet_source)s), snap->sources[s].series);
    fprintf(fp, "# HELP accel_advisor_fleet_devices Devices of the fleet snapshot by catalog "
                "model: seen, and free.\n# TYPE accel_advisor_fleet_devices gauge\n");
    for (size_t i = 0; i < snap->n_models; i++) {
        char m[128];
        probe_metrics_label(m, sizeof(m), snap->models[i].id);
        fprintf(fp,
                "accel_advisor_fleet_devices{model=\"%s\",state=\"seen\"} %u\n"
                "accel_advisor_fleet_devices{model=\"%s\",state=\"free\"} %u\n",
                m, snap->models[i].devices, m, snap->models[i].free);
    }
}

char *svc_fleet_metrics(svc_fleet *f, double stale_after_seconds)
{
    struct svc_fleet_stats st;
    svc_fleet_stats(f, &st);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (fp == NULL)
        return NULL;
    histogram(fp, &st);
    fprintf(fp, "# HELP accel_advisor_fleet_query_errors_total Fleet queries that gave nothing, "
                "by source and kind (docs/operations.md, \"Fleet\").\n"
                "# TYPE accel_advisor_fleet_query_errors_total counter\n");
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT; s++) {
        for (int e = SVC_FLEET_OK + 1; e < SVC_FLEET_ERROR_COUNT; e++)
            fprintf(fp, "accel_advisor_fleet_query_errors_total{source=\"%s\",kind=\"%s\"} %llu\n",
                    svc_fleet_source_name((enum svc_fleet_source)s),
                    svc_fleet_error_name((enum svc_fleet_error)e),
                    (unsigned long long)st.errors[s][e]);
    }
    fprintf(fp,
            "# HELP accel_advisor_fleet_refreshes_total Fleet refreshes: success published a "
            "snapshot, failure kept the last one.\n"
            "# TYPE accel_advisor_fleet_refreshes_total counter\n"
            "accel_advisor_fleet_refreshes_total{result=\"success\"} %llu\n"
            "accel_advisor_fleet_refreshes_total{result=\"failure\"} %llu\n",
            (unsigned long long)st.refreshes, (unsigned long long)st.failures);
    const struct svc_fleet_snapshot *snap = svc_fleet_get(f);
    if (snap != NULL)
        snapshot_metrics(fp, snap, stale_after_seconds);
    svc_fleet_snapshot_release(snap);
    if (fclose(fp) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- library-wide functions below ---- */

enum dc_status svc_fleet_start(const struct svc_fleet_config *cfg, svc_fleet **out,
                               struct dc_error *err)
{
    *out = NULL;
    svc_fleet *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "fleet: out of memory");
    f->cfg = *cfg;
    f->url = strdup(cfg->client.url);
    f->token_file = strdup(cfg->client.token_file != NULL ? cfg->client.token_file : "");
    f->ca_file = strdup(cfg->client.ca_file != NULL ? cfg->client.ca_file : "");
    f->cluster_label = strdup(cfg->cluster_label != NULL ? cfg->cluster_label : "");
    atomic_init(&f->stop, false);
    pthread_mutex_init(&f->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (f->url != NULL && f->token_file != NULL && f->ca_file != NULL && f->cluster_label != NULL) {
        f->cfg.client = (struct svc_fleet_client_config){
            f->url, f->token_file, f->ca_file, cfg->client.timeout_ms, cfg->client.max_bytes};
        f->cfg.cluster_label = f->cluster_label;
        f->client = svc_fleet_client_new(&f->cfg.client);
    }
    if (f->client == NULL) {
        svc_fleet_stop(f);
        return dc_error_set(err, DC_ENOMEM, NULL, "fleet: out of memory, or libcurl did not start");
    }
    if (pthread_create(&f->thread, NULL, fleet_main, f) != 0) {
        svc_fleet_stop(f);
        return dc_error_set(err, DC_EIO, NULL, "fleet: the refresh thread did not start");
    }
    f->started = true;
    *out = f;
    return DC_OK;
}

void svc_fleet_stop(svc_fleet *f)
{
    if (f == NULL)
        return;
    if (f->started) {
        pthread_mutex_lock(&f->mu);
        atomic_store(&f->stop, true);
        pthread_cond_signal(&f->cv);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thread, NULL);
    }
    svc_fleet_client_free(f->client);
    svc_fleet_snapshot_release(f->snap);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f->url);
    free(f->token_file);
    free(f->ca_file);
    free(f->cluster_label);
    free(f);
}

const struct svc_fleet_snapshot *svc_fleet_get(svc_fleet *f)
{
    if (f == NULL)
        return NULL;
    pthread_mutex_lock(&f->mu);
    const struct svc_fleet_snapshot *s = svc_fleet_snapshot_retain(f->snap);
    pthread_mutex_unlock(&f->mu);
    return s;
}

uint64_t svc_fleet_generation(svc_fleet *f)
{
    pthread_mutex_lock(&f->mu);
    uint64_t g = f->generation;
    pthread_mutex_unlock(&f->mu);
    return g;
}

void svc_fleet_stats(svc_fleet *f, struct svc_fleet_stats *out)
{
    pthread_mutex_lock(&f->mu);
    *out = f->stats;
    pthread_mutex_unlock(&f->mu);
}
