/* service/src/server_probe.c -- the accelerator probe inside the server.
 *
 * A probe_worker runs probe_run() on its own thread every probe_interval and
 * publishes each snapshot into a probe_holder; request threads only take a
 * reference to the latest snapshot, so no request ever waits on a probe. The
 * PCI id table comes from the serving catalog: when a reload changes the rule
 * set, the worker is replaced by one with the new table (the holder, and so the
 * last snapshot, stays). A probe running past probe_timeout is counted once as
 * an error of source "timeout" by the first reader that notices it. */
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "log.h"
#include "server_internal.h"

/* Start a worker for the catalog of `rs` into *out. Called with no lock held. */
static enum dc_status start_worker(svc_server *s, const dc_ruleset *rs, probe_worker **out,
                                   struct dc_error *err)
{
    struct probe_pci_id *ids = NULL;
    size_t n_ids = 0;
    struct probe_config pc;
    struct dc_error perr;
    dc_error_clear(&perr);
    enum dc_status rc = svc_inventory_ids(rs, &ids, &n_ids);
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "probe: the catalog's PCI id table: %s",
                            dc_strerror(rc));
    rc = svc_inventory_config(s->cfg.sysfs_root, s->cfg.dev_root, s->cfg.proc_root, s->cfg.nvml,
                              ids, n_ids, &pc, &perr);
    if (rc == DC_OK)
        rc = probe_worker_start(&pc, s->cfg.probe_interval_ms, s->probe_holder, out, &perr);
    free(ids); /* the worker keeps its own copy */
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "probe: %s", perr.msg);
    return DC_OK;
}

enum dc_status svc__probe_start(svc_server *s, const dc_ruleset *rs, struct dc_error *err)
{
    if (!s->cfg.probe)
        return DC_OK;
    struct dc_error perr;
    dc_error_clear(&perr);
    enum dc_status rc = probe_holder_new(&s->probe_holder, &perr);
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "probe: %s", perr.msg);
    probe_worker *w = NULL;
    rc = start_worker(s, rs, &w, err);
    if (rc != DC_OK)
        return rc;
    pthread_mutex_lock(&s->probe_mu);
    s->probe_worker = w;
    pthread_mutex_unlock(&s->probe_mu);
    struct svc_log_line l;
    svc_log_begin(&l, "info", "probe_started");
    svc_log_uint(&l, "interval_ms", s->cfg.probe_interval_ms);
    svc_log_uint(&l, "timeout_ms", s->cfg.probe_timeout_ms);
    svc_log_str(&l, "sysfs_root", s->cfg.sysfs_root);
    svc_log_str(&l, "dev_root", s->cfg.dev_root);
    svc_log_str(&l, "proc_root", s->cfg.proc_root);
    svc_log_str(&l, "nvml", s->cfg.nvml);
    svc_log_end_msg(&l, "probing every %u ms", s->cfg.probe_interval_ms);
    return DC_OK;
}

/* Fold the counters of a worker that is going away into the running totals.
 * Called with probe_mu held. */
static void fold_stats(svc_server *s, probe_worker *w)
{
    struct probe_worker_stats st;
    probe_worker_stats(w, &st);
    s->probe_base.runs += st.runs;
    s->probe_base.failures += st.failures;
    for (int i = 0; i < PROBE_SOURCE_COUNT; i++)
        s->probe_base.source_errors[i] += st.source_errors[i];
}

void svc__probe_rules_changed(svc_server *s, const dc_ruleset *rs)
{
    if (s->probe_holder == NULL)
        return;
    struct dc_error err;
    probe_worker *fresh = NULL;
    if (start_worker(s, rs, &fresh, &err) != DC_OK) {
        /* Keep probing with the old table: stale names beat no probe. */
        svc_log_msg("error", "probe_restart_failed", "%s", err.msg);
        return;
    }
    pthread_mutex_lock(&s->probe_mu);
    probe_worker *old = s->probe_worker;
    if (old != NULL)
        fold_stats(s, old);
    s->probe_worker = fresh;
    s->probe_timeout_mark = 0;
    pthread_mutex_unlock(&s->probe_mu);
    if (probe_worker_stop(old, s->cfg.probe_timeout_ms) != DC_OK)
        svc_log_msg("warn", "probe_detached",
                    "the previous probe is still running past %u ms; left to finish on its own",
                    s->cfg.probe_timeout_ms);
}

void svc__probe_stop(svc_server *s)
{
    pthread_mutex_lock(&s->probe_mu);
    probe_worker *w = s->probe_worker;
    s->probe_worker = NULL;
    pthread_mutex_unlock(&s->probe_mu);
    if (w != NULL && probe_worker_stop(w, s->cfg.probe_timeout_ms) != DC_OK)
        svc_log_msg("warn", "probe_detached",
                    "a probe is still running past %u ms at shutdown; not waiting for it",
                    s->cfg.probe_timeout_ms);
    probe_holder_release(s->probe_holder);
    s->probe_holder = NULL;
}

void svc__probe_refresh(svc_server *s)
{
    pthread_mutex_lock(&s->probe_mu);
    probe_worker_refresh(s->probe_worker);
    pthread_mutex_unlock(&s->probe_mu);
}

const struct probe_snapshot *svc__probe_get(svc_server *s)
{
    return s->probe_holder != NULL ? probe_holder_get(s->probe_holder) : NULL;
}

uint64_t svc__probe_generation(svc_server *s)
{
    return s->probe_holder != NULL ? probe_holder_generation(s->probe_holder) : 0;
}

bool svc__probe_status(svc_server *s, struct svc_probe_status *out)
{
    memset(out, 0, sizeof(*out));
    if (s->probe_holder == NULL)
        return false;
    out->interval_seconds = s->cfg.probe_interval_ms / 1e3;
    out->timeout_seconds = s->cfg.probe_timeout_ms / 1e3;
    pthread_mutex_lock(&s->probe_mu);
    if (s->probe_worker != NULL)
        probe_worker_stats(s->probe_worker, &out->stats);
    out->stats.runs += s->probe_base.runs;
    out->stats.failures += s->probe_base.failures;
    for (int i = 0; i < PROBE_SOURCE_COUNT; i++)
        out->stats.source_errors[i] += s->probe_base.source_errors[i];
    /* A probe past its time limit is counted once: the mark is the number of
     * probes finished before it, which changes when it (or another) ends. */
    uint64_t mark = out->stats.runs + out->stats.failures + 1;
    out->stuck = out->stats.busy && out->stats.busy_seconds * 1e3 > s->cfg.probe_timeout_ms;
    if (out->stuck && s->probe_timeout_mark != mark) {
        s->probe_timeout_mark = mark;
        s->probe_timeouts++;
        svc_log_msg("warn", "probe_timeout", "a probe has been running for %.1f s (limit %u ms)",
                    out->stats.busy_seconds, s->cfg.probe_timeout_ms);
    }
    out->timeouts = s->probe_timeouts;
    pthread_mutex_unlock(&s->probe_mu);
    return true;
}
