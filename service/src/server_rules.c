/* service/src/server_rules.c -- the serving rule set: a mutex-guarded pointer to
 * an immutable, reference-counted dc_ruleset, swapped atomically on reload.
 *
 * A request takes a reference under the mutex (a pointer copy and an atomic
 * increment, nothing more) and keeps it until it completes, so a reload never
 * waits for requests and requests never see a half-loaded set: in-flight
 * requests finish on the set they started with. A set that fails to load is
 * logged with every problem, counted, and the last good set keeps serving.
 *
 * A set is only swapped in when its files did not change while they were read
 * (the directory's fingerprint before and after the read): a writer caught
 * mid-file would otherwise have half its rules served. The load is retried after
 * the debounce (the watcher sees the directory change again; at start-up, up to
 * RULES_READ_ATTEMPTS times). Nor is one read while a process has one of its
 * files open for writing (svc_rules_being_written), whatever asked for the
 * reload: a SIGHUP while a writer paused mid-file served half of it; the
 * signal loop retries such a reload (svc_server_reload_deferred). Replacing
 * files by a rename, as editors, kubelet and `install` do, never shows a half
 * file (docs/operations.md). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dc/clock.h"
#include "log.h"
#include "rulesrc.h"
#include "server_internal.h"

/* Problems logged per failed load (all are counted). */
#define LOGGED_DIAGS 20
/* Start-up loads tried while the files keep changing under the read. */
#define RULES_READ_ATTEMPTS 10

dc_ruleset *svc__rules_acquire(svc_server *s)
{
    pthread_mutex_lock(&s->rs_mu);
    dc_ruleset *rs = dc_ruleset_retain(s->rs);
    pthread_mutex_unlock(&s->rs_mu);
    return rs;
}

void svc__rules_clear(svc_server *s)
{
    pthread_mutex_lock(&s->rs_mu);
    dc_ruleset *old = s->rs;
    s->rs = NULL;
    pthread_mutex_unlock(&s->rs_mu);
    dc_ruleset_release(old);
}

enum dc_status svc__rules_start_probe(svc_server *s, struct dc_error *err)
{
    dc_ruleset *rs = svc__rules_acquire(s);
    enum dc_status rc = svc__probe_start(s, rs, err);
    dc_ruleset_release(rs);
    return rc;
}

/* The files of `dir` changed while `fresh` was read from them: drop it.
 * Returns DC_EIO, said in `err` (may be NULL). */
static enum dc_status changed_while_read(svc_server *s, const char *trigger, const char *dir,
                                         dc_ruleset *fresh, struct dc_error *err)
{
    dc_ruleset_release(fresh);
    struct svc_log_line l;
    svc_log_begin(&l, "warn", "rules_reload");
    svc_log_str(&l, "result", "changed_while_read");
    svc_log_str(&l, "trigger", trigger);
    svc_log_str(&l, "origin", dir);
    svc_log_str(&l, "keeping", s->rs != NULL ? dc_ruleset_version(s->rs) : NULL);
    svc_log_end_msg(&l,
                    "the rules in %s changed while they were read (%s): not loaded; retried "
                    "after the debounce (replace rule files by renaming a complete file over them)",
                    dir, trigger);
    return dc_error_set(err, DC_EIO, NULL, "the rules in %s kept changing while they were read",
                        dir);
}

/* A rule file is open for writing: nothing is read now (a writer that pauses
 * mid-file had 16 of 44 models served on a SIGHUP). Logged once per wait
 * (`trigger` "signal_retry" is the signal loop trying again). Returns DC_EIO,
 * said in `err` (may be NULL). */
static enum dc_status being_written(svc_server *s, const char *trigger, const char *dir,
                                    const char *file, struct dc_error *err)
{
    if (strcmp(trigger, "signal_retry") != 0) {
        struct svc_log_line l;
        svc_log_begin(&l, "warn", "rules_reload");
        svc_log_str(&l, "result", "being_written");
        svc_log_str(&l, "trigger", trigger);
        svc_log_str(&l, "origin", dir);
        svc_log_str(&l, "file", file);
        svc_log_str(&l, "keeping", s->rs != NULL ? dc_ruleset_version(s->rs) : NULL);
        svc_log_end_msg(&l,
                        "%s/%s is being written (%s): the reload waits until its writer closes it",
                        dir, file, trigger);
    }
    return dc_error_set(err, DC_EIO, NULL, "%s/%s is being written", dir, file);
}

/* Load, and on success swap in. Called with reload_mu held. *changed (may be
 * NULL) says the files changed during the read, and nothing was swapped.
 * Errors: the load's (svc_ruleset_load), DC_EIO (the files changed), said in
 * `err` (may be NULL). */
static enum dc_status load_and_swap(svc_server *s, const char *trigger, struct dc_error *err,
                                    bool *changed_during_read)
{
    struct dc_diags diags;
    dc_diags_init(&diags);
    dc_ruleset *fresh = NULL;
    uint64_t t0 = dc_mono_ns();
    const char *dir = s->cfg.rules[0] != '\0' ? s->cfg.rules : NULL;
    bool by_signal = strncmp(trigger, "signal", 6) == 0;
    atomic_store(&s->reload_deferred, false);
    if (changed_during_read != NULL)
        *changed_during_read = false;
    char file[256];
    if (dir != NULL && svc_rules_being_written(dir, file, sizeof(file))) {
        if (changed_during_read != NULL)
            *changed_during_read = true;
        atomic_store(&s->reload_deferred, by_signal);
        return being_written(s, trigger, dir, file, err);
    }
    uint64_t before = dir != NULL ? svc_rules_fingerprint(dir) : 0;
    enum dc_status rc = svc_ruleset_load(dir, &fresh, &diags);
    double ms = (double)(dc_mono_ns() - t0) / 1e6;
    if (rc == DC_OK && dir != NULL && svc_rules_fingerprint(dir) != before) {
        dc_diags_cleanup(&diags);
        if (changed_during_read != NULL)
            *changed_during_read = true;
        atomic_store(&s->reload_deferred, by_signal);
        return changed_while_read(s, trigger, dir, fresh, err);
    }
    struct svc_log_line l;
    if (rc != DC_OK) {
        char first[768] = "";
        if (diags.count > 0)
            dc_diag_format(&diags.items[0], first, sizeof(first));
        else
            snprintf(first, sizeof(first), "%s", dc_strerror(rc));
        svc_metrics_reload(&s->metrics, false, (int64_t)time(NULL));
        svc_log_begin(&l, "error", "rules_reload");
        svc_log_str(&l, "result", "failure");
        svc_log_str(&l, "trigger", trigger);
        svc_log_str(&l, "origin", dir != NULL ? dir : "embedded");
        svc_log_uint(&l, "problems", diags.count);
        svc_log_str(&l, "error", first);
        svc_log_str(&l, "keeping", s->rs != NULL ? dc_ruleset_version(s->rs) : NULL);
        svc_log_num(&l, "duration_ms", ms);
        svc_log_end_msg(&l, "the rule set does not load (%s): %s", trigger, first);
        for (size_t i = 0; i < diags.count && i < LOGGED_DIAGS; i++) {
            char line[768];
            dc_diag_format(&diags.items[i], line, sizeof(line));
            svc_log_begin(&l, "error", "rules_problem");
            svc_log_str(&l, "msg", line);
            svc_log_end(&l);
        }
        dc_error_set(err, rc, NULL, "the rule set %s does not load: %s (%zu problem%s)",
                     dir != NULL ? dir : "(embedded)", first, diags.count,
                     diags.count == 1 ? "" : "s");
        dc_diags_cleanup(&diags);
        return rc;
    }
    dc_diags_cleanup(&diags);
    pthread_mutex_lock(&s->rs_mu);
    dc_ruleset *old = s->rs;
    s->rs = fresh;
    pthread_mutex_unlock(&s->rs_mu);
    svc_metrics_reload(&s->metrics, true, (int64_t)time(NULL));
    bool changed = old == NULL || strcmp(dc_ruleset_version(old), dc_ruleset_version(fresh)) != 0;
    svc_log_begin(&l, "info", "rules_reload");
    svc_log_str(&l, "result", "success");
    svc_log_str(&l, "trigger", trigger);
    svc_log_str(&l, "origin", dc_ruleset_origin(fresh));
    svc_log_str(&l, "version", dc_ruleset_version(fresh));
    svc_log_str(&l, "previous_version", old != NULL ? dc_ruleset_version(old) : NULL);
    svc_log_bool(&l, "changed", changed);
    svc_log_uint(&l, "rules", dc_ruleset_rule_count(fresh));
    svc_log_uint(&l, "accelerators", dc_ruleset_accelerator_count(fresh));
    svc_log_num(&l, "duration_ms", ms);
    svc_log_end_msg(&l, "rule set %.12s loaded (%s)%s", dc_ruleset_version(fresh), trigger,
                    changed ? "" : ", unchanged");
    /* Bodies of the old set can never be served again. */
    if (changed) {
        svc_cache_clear(s->cache);
        /* The catalog may map PCI ids differently now. */
        svc__probe_rules_changed(s, fresh);
    }
    /* Requests still holding `old` keep it alive until they complete. */
    dc_ruleset_release(old);
    return DC_OK;
}

enum dc_status svc__rules_initial(svc_server *s, struct dc_error *err)
{
    enum dc_status rc = DC_EIO;
    bool changed = true;
    for (int i = 0; rc != DC_OK && changed && i < RULES_READ_ATTEMPTS; i++) {
        if (i > 0) {
            struct timespec ts = {s->cfg.rules_debounce_ms / 1000,
                                  (long)(s->cfg.rules_debounce_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (s->cfg.rules[0] != '\0')
            s->rules_fingerprint = svc_rules_fingerprint(s->cfg.rules);
        pthread_mutex_lock(&s->reload_mu);
        rc = load_and_swap(s, "start", err, &changed);
        pthread_mutex_unlock(&s->reload_mu);
    }
    return rc;
}

/* SIGHUP: read the API keys file again. A file that does not load is logged
 * and the current keys stay (an empty or broken file must not lock every
 * client out, nor let every client in). */
static void reload_api_keys(svc_server *s)
{
    if (s->cfg.api_keys_file[0] == '\0')
        return;
    struct dc_error err;
    svc_auth *fresh = NULL;
    struct svc_log_line l;
    if (svc_auth_load(s->cfg.api_keys_file, &fresh, &err) != DC_OK) {
        svc_log_begin(&l, "error", "api_keys_reload");
        svc_log_str(&l, "result", "failure");
        svc_log_str(&l, "error", err.msg);
        svc_log_end_msg(&l, "the API keys file does not load; keeping the current keys");
        return;
    }
    pthread_mutex_lock(&s->auth_mu);
    svc_auth *old = s->auth;
    s->auth = fresh;
    pthread_mutex_unlock(&s->auth_mu);
    svc_auth_release(old); /* requests checking with it hold their own reference */
    svc_log_begin(&l, "info", "api_keys_reload");
    svc_log_str(&l, "result", "success");
    svc_log_uint(&l, "keys", svc_auth_count(fresh));
    svc_log_end_msg(&l, "API keys reloaded: %zu key%s", svc_auth_count(fresh),
                    svc_auth_count(fresh) == 1 ? "" : "s");
}

bool svc_server_reload_deferred(svc_server *s)
{
    return atomic_load(&s->reload_deferred);
}

enum dc_status svc_server_reload(svc_server *s, const char *trigger, struct dc_error *err)
{
    if (strcmp(trigger, "signal") == 0) {
        svc__probe_refresh(s); /* SIGHUP also asks for a fresh probe */
        reload_api_keys(s);
    }
    pthread_mutex_lock(&s->reload_mu);
    enum dc_status rc = load_and_swap(s, trigger, err, NULL);
    pthread_mutex_unlock(&s->reload_mu);
    return rc;
}
