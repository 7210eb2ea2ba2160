/* probe/src/probe_worker.c -- the latest-snapshot holder and the background
 * thread that refreshes it. Readers take the holder's lock only to copy a
 * pointer and bump a refcount, so they never wait on a probe; the worker runs
 * probe_run() with no lock held. */
#include "probe_internal.h"

#include "dc/clock.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct probe_holder {
    atomic_size_t refs;
    pthread_mutex_t mu;
    pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled on publish */
    const struct probe_snapshot *snap;
    uint64_t generation;
};

struct probe_worker {
    pthread_mutex_t mu;
    pthread_cond_t cond; /* CLOCK_MONOTONIC; wakes the thread and the stopper */
    pthread_t thread;
    struct probe_config cfg; /* deep copy: the strings and ids below */
    struct probe_pci_id *ids;
    unsigned interval_ms;
    probe_holder *holder; /* one reference */
    bool stop;            /* asked to stop */
    bool refresh;         /* asked to probe now */
    bool exited;          /* the thread has left its loop */
    bool orphaned;        /* the stopper gave up waiting: the thread frees */
    struct probe_worker_stats stats;
    uint64_t busy_since; /* dc_mono_ns() when the running probe began */
};

static enum dc_status cond_init_monotonic(pthread_cond_t *c);
static void deadline_after(struct timespec *ts, unsigned ms);
static probe_holder *holder_retain(probe_holder *h);
static enum dc_status copy_config(struct probe_worker *w, const struct probe_config *cfg);
static void worker_free(struct probe_worker *w);
static void *worker_main(void *arg);

static enum dc_status cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return DC_ENOMEM;
    /* Monotonic, so that setting the wall clock neither stalls nor rushes
     * the refresh. */
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(c, &attr);
    pthread_condattr_destroy(&attr);
    return rc == 0 ? DC_OK : DC_ENOMEM;
}

static void deadline_after(struct timespec *ts, unsigned ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ms / 1000u);
    ts->tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static probe_holder *holder_retain(probe_holder *h)
{
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
    return h;
}

static enum dc_status copy_config(struct probe_worker *w, const struct probe_config *cfg)
{
    w->cfg.nvml_mode = cfg->nvml_mode;
    if ((cfg->sysfs_root != NULL && (w->cfg.sysfs_root = strdup(cfg->sysfs_root)) == NULL) ||
        (cfg->dev_root != NULL && (w->cfg.dev_root = strdup(cfg->dev_root)) == NULL) ||
        (cfg->proc_root != NULL && (w->cfg.proc_root = strdup(cfg->proc_root)) == NULL) ||
        (cfg->nvml_path != NULL && (w->cfg.nvml_path = strdup(cfg->nvml_path)) == NULL))
        return DC_ENOMEM;
    if (cfg->n_ids == 0)
        return DC_OK;
    w->ids = calloc(cfg->n_ids, sizeof(*w->ids));
    if (w->ids == NULL)
        return DC_ENOMEM;
    w->cfg.ids = w->ids;
    for (size_t i = 0; i < cfg->n_ids; i++) {
        const struct probe_pci_id *src = &cfg->ids[i];
        struct probe_pci_id *dst = &w->ids[i];
        *dst = *src;
        dst->catalog_id = NULL;
        dst->family = NULL;
        dst->name = NULL;
        w->cfg.n_ids = i + 1; /* so that worker_free frees what is copied */
        if ((src->catalog_id != NULL && (dst->catalog_id = strdup(src->catalog_id)) == NULL) ||
            (src->family != NULL && (dst->family = strdup(src->family)) == NULL) ||
            (src->name != NULL && (dst->name = strdup(src->name)) == NULL))
            return DC_ENOMEM;
    }
    return DC_OK;
}

/* The copied strings are ours: cast away the const the public struct puts on
 * them through uintptr_t, in this one place. */
static void free_const(const char *p)
{
    free((void *)(uintptr_t)p);
}

static void worker_free(struct probe_worker *w)
{
    if (w == NULL)
        return;
    free_const(w->cfg.sysfs_root);
    free_const(w->cfg.dev_root);
    free_const(w->cfg.proc_root);
    free_const(w->cfg.nvml_path);
    for (size_t i = 0; w->ids != NULL && i < w->cfg.n_ids; i++) {
        free_const(w->ids[i].catalog_id);
        free_const(w->ids[i].family);
        free_const(w->ids[i].name);
    }
    free(w->ids);
    probe_holder_release(w->holder);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void *worker_main(void *arg)
{
    struct probe_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        w->stats.busy = true;
        w->busy_since = dc_mono_ns();
        pthread_mutex_unlock(&w->mu);

        const struct probe_snapshot *snap = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        enum dc_status rc = probe_run(&w->cfg, &snap, &err);

        pthread_mutex_lock(&w->mu);
        w->stats.busy = false;
        w->stats.last_status = rc;
        if (rc == DC_OK) {
            w->stats.runs++;
            w->stats.last_duration_seconds = (double)snap->duration_ns / 1e9;
            for (int i = 0; i < PROBE_SOURCE_COUNT; i++) {
                if (snap->sources[i].state == PROBE_SOURCE_ERROR)
                    w->stats.source_errors[i]++;
            }
        } else {
            w->stats.failures++;
            snprintf(w->stats.last_error, sizeof(w->stats.last_error), "%s", err.msg);
        }
        /* Publishing under our lock: once stop is set nothing more is
         * published, even by a thread the stopper gave up on. The holder's
         * own lock is only ever taken inside ours, never the reverse. */
        if (rc == DC_OK && !w->stop)
            probe_holder_publish(w->holder, snap);
        else
            probe_snapshot_release(snap);

        struct timespec deadline;
        deadline_after(&deadline, w->interval_ms);
        while (!w->stop && !w->refresh) {
            if (pthread_cond_timedwait(&w->cond, &w->mu, &deadline) == ETIMEDOUT)
                break;
        }
        w->refresh = false;
    }
    w->exited = true;
    pthread_cond_broadcast(&w->cond);
    bool orphan = w->orphaned;
    pthread_mutex_unlock(&w->mu);
    if (orphan)
        worker_free(w);
    return NULL;
}

/* ---- library-wide functions below ---- */

enum dc_status probe_holder_new(probe_holder **out, struct dc_error *err)
{
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_holder_new: out is NULL");
    *out = NULL;
    probe_holder *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_holder_new: out of memory");
    atomic_init(&h->refs, 1);
    if (pthread_mutex_init(&h->mu, NULL) != 0) {
        free(h);
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_holder_new: mutex");
    }
    if (cond_init_monotonic(&h->cond) != DC_OK) {
        pthread_mutex_destroy(&h->mu);
        free(h);
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_holder_new: condition variable");
    }
    *out = h;
    return DC_OK;
}

void probe_holder_release(probe_holder *h)
{
    if (h == NULL)
        return;
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
        return;
    probe_snapshot_release(h->snap);
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

void probe_holder_publish(probe_holder *h, const struct probe_snapshot *s)
{
    if (h == NULL) {
        probe_snapshot_release(s);
        return;
    }
    pthread_mutex_lock(&h->mu);
    const struct probe_snapshot *old = h->snap;
    h->snap = s;
    h->generation++;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->mu);
    /* Outside the lock: freeing a large snapshot must not hold up readers. */
    probe_snapshot_release(old);
}

const struct probe_snapshot *probe_holder_get(probe_holder *h)
{
    if (h == NULL)
        return NULL;
    pthread_mutex_lock(&h->mu);
    const struct probe_snapshot *s = probe_snapshot_retain(h->snap);
    pthread_mutex_unlock(&h->mu);
    return s;
}

uint64_t probe_holder_generation(probe_holder *h)
{
    if (h == NULL)
        return 0;
    pthread_mutex_lock(&h->mu);
    uint64_t g = h->generation;
    pthread_mutex_unlock(&h->mu);
    return g;
}

enum dc_status probe_holder_wait(probe_holder *h, uint64_t after, unsigned timeout_ms,
                                 uint64_t *out_generation)
{
    if (h == NULL)
        return DC_EINVAL;
    struct timespec deadline;
    deadline_after(&deadline, timeout_ms);
    enum dc_status rc = DC_OK;
    pthread_mutex_lock(&h->mu);
    while (h->generation <= after) {
        if (pthread_cond_timedwait(&h->cond, &h->mu, &deadline) == ETIMEDOUT &&
            h->generation <= after) {
            rc = DC_ELIMIT;
            break;
        }
    }
    if (out_generation != NULL)
        *out_generation = h->generation;
    pthread_mutex_unlock(&h->mu);
    return rc;
}

enum dc_status probe_worker_start(const struct probe_config *cfg, unsigned interval_ms,
                                  probe_holder *holder, probe_worker **out, struct dc_error *err)
{
    struct probe_worker *w = NULL;
    enum dc_status rc = DC_OK;
    bool mu_ok = false, cond_ok = false;

    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_worker_start: out is NULL");
    *out = NULL;
    if (cfg == NULL || holder == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_worker_start: %s is NULL",
                            cfg == NULL ? "config" : "holder");
    if (interval_ms < PROBE_WORKER_INTERVAL_MIN_MS)
        return dc_error_set(err, DC_EINVAL, NULL,
                            "probe interval %u ms is shorter than the minimum of %u ms",
                            interval_ms, PROBE_WORKER_INTERVAL_MIN_MS);
    /* A config probe_run() would refuse is refused here, not on the thread. */
    rc = probe__config_check(cfg, err);
    if (rc != DC_OK)
        return rc;

    w = calloc(1, sizeof(*w));
    if (w == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_worker_start: out of memory");
    if (pthread_mutex_init(&w->mu, NULL) != 0) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "probe_worker_start: mutex");
        goto fail;
    }
    mu_ok = true;
    if (cond_init_monotonic(&w->cond) != DC_OK) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "probe_worker_start: condition variable");
        goto fail;
    }
    cond_ok = true;
    w->interval_ms = interval_ms;
    w->stats.last_status = DC_OK;
    if (copy_config(w, cfg) != DC_OK) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "probe_worker_start: out of memory");
        goto fail;
    }
    w->holder = holder_retain(holder);

    /* The thread blocks every signal: the process's handlers (SIGTERM,
     * SIGHUP) then always run on a thread of the server's own. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = pthread_create(&w->thread, NULL, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        char eb[PROBE_ERRBUF];
        rc = dc_error_set(err, DC_EIO, NULL, "probe_worker_start: pthread_create: %s",
                          probe__strerror(prc, eb, sizeof(eb)));
        goto fail;
    }
    *out = w;
    return DC_OK;
fail:
    if (cond_ok && mu_ok) {
        worker_free(w);
        return rc;
    }
    if (mu_ok)
        pthread_mutex_destroy(&w->mu);
    free(w);
    return rc;
}

void probe_worker_refresh(probe_worker *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->mu);
    w->refresh = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mu);
}

void probe_worker_stats(probe_worker *w, struct probe_worker_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof(*out));
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->mu);
    *out = w->stats;
    if (w->stats.busy)
        out->busy_seconds = (double)(dc_mono_ns() - w->busy_since) / 1e9;
    pthread_mutex_unlock(&w->mu);
}

enum dc_status probe_worker_stop(probe_worker *w, unsigned timeout_ms)
{
    if (w == NULL)
        return DC_OK;
    struct timespec deadline;
    deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cond);
    while (!w->exited) {
        if (timeout_ms == 0) {
            pthread_cond_wait(&w->cond, &w->mu);
        } else if (pthread_cond_timedwait(&w->cond, &w->mu, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    if (!w->exited) {
        /* Stuck in a probe (a driver call that does not return). Leave the
         * thread to free the worker when it gets out; copy its id first, as
         * w may be gone as soon as the lock is released. */
        pthread_t t = w->thread;
        w->orphaned = true;
        pthread_mutex_unlock(&w->mu);
        pthread_detach(t);
        return DC_ELIMIT;
    }
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    worker_free(w);
    return DC_OK;
}
