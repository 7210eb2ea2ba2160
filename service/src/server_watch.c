/* service/src/server_watch.c -- reload the rule set when its directory changes.
 *
 * inotify watches the directory itself, which covers both ways rules change in
 * practice: files edited or replaced in place, and a Kubernetes ConfigMap
 * volume, where the visible files are symlinks through `..data` and an update
 * renames a fresh `..data` link over the old one (IN_MOVED_TO in the directory).
 * Events are debounced: the reload runs once the directory has been quiet for
 * rules_debounce_ms. If inotify is unavailable, or the watch is lost (the
 * directory was removed or replaced), the directory is polled every
 * rules_poll_interval_ms by a fingerprint of its files (name, size, mtime,
 * inode, following symlinks) until a watch can be set again.
 *
 * A file written in place is only read once its writer has closed it: a file
 * modified (IN_MODIFY) and not yet closed (IN_CLOSE_WRITE) holds part of what
 * is being written, however long the writer pauses, so the reload waits for the
 * close (a writer slower than the debounce had half its rules served). The
 * documented way to update is still a rename of a complete file over the old
 * one (docs/operations.md); server_rules.c also refuses a set whose files
 * changed while they were read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "dc/clock.h"
#include "log.h"
#include "rulesrc.h"
#include "server_internal.h"

#define WATCH_MASK                                                                                 \
    (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |            \
     IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Files written in place and not yet closed that the watcher keeps track of;
 * past it, any further one is counted (and the reload waits for a close). */
#define WATCH_MAX_WRITERS 32
/* How often a reload waiting for a writer looks again without an event. */
#define WATCH_RECHECK_MS 100

/* The files of the directory modified and not yet closed by their writers. */
struct writers {
    char name[WATCH_MAX_WRITERS][NAME_MAX + 1];
    size_t n;
    size_t untracked; /* modified past WATCH_MAX_WRITERS, not yet closed */
    bool logged;      /* the wait was logged */
};

static void writer_event(struct writers *w, const struct inotify_event *ev)
{
    if (ev->len == 0 || ev->name[0] == '\0')
        return;
    size_t i = 0;
    while (i < w->n && strcmp(w->name[i], ev->name) != 0)
        i++;
    if ((ev->mask & IN_MODIFY) != 0) {
        if (i < w->n)
            return;
        if (w->n < WATCH_MAX_WRITERS)
            snprintf(w->name[w->n++], sizeof(w->name[0]), "%s", ev->name);
        else
            w->untracked++;
        return;
    }
    if ((ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)) == 0)
        return;
    if (i < w->n)
        memmove(w->name[i], w->name[i + 1], (w->n - i - 1) * sizeof(w->name[0]));
    if (i < w->n)
        w->n--;
    else if (w->untracked > 0 && (ev->mask & IN_CLOSE_WRITE) != 0)
        w->untracked--;
    if (w->n == 0 && w->untracked == 0)
        w->logged = false;
}

/* True (and logged once) while a file is being written in place. */
static bool writer_at_work(struct writers *w, const char *dir)
{
    if (w->n == 0 && w->untracked == 0)
        return false;
    if (!w->logged)
        svc_log_msg("info", "rules_watch",
                    "%s/%s is being written: the reload waits until its writer closes it", dir,
                    w->n > 0 ? w->name[0] : "(a file)");
    w->logged = true;
    return true;
}

/* The clock in the milliseconds the watcher counts in. */
static int64_t now_ms(void)
{
    return (int64_t)(dc_mono_ns() / 1000000u);
}

static void *watch_main(void *arg)
{
    svc_server *s = arg;
    const char *dir = s->cfg.rules;
    int64_t debounce = s->cfg.rules_debounce_ms;
    int64_t poll_every = s->cfg.rules_poll_interval_ms;
    int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    int wd = -1;
    if (ifd >= 0)
        wd = inotify_add_watch(ifd, dir, WATCH_MASK);
    if (wd < 0)
        svc_log_msg("warn", "rules_watch", "inotify unavailable for %s (%s): polling every %lld ms",
                    dir, strerror(errno), (long long)poll_every);
    else
        svc_log_msg("info", "rules_watch", "watching %s (inotify, debounce %lld ms)", dir,
                    (long long)debounce);
    /* A change between the start-up load and the watch would go unseen: compare
     * with the fingerprint taken before that load. */
    uint64_t fp = svc_rules_fingerprint(dir);
    bool pending = fp != s->rules_fingerprint;
    struct writers writers = {.n = 0};
    int64_t due = now_ms() + debounce, next_poll = now_ms() + poll_every;
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        int64_t now = now_ms();
        int64_t timeout = -1;
        if (pending)
            timeout = due > now ? due - now : 0;
        if (wd < 0) {
            int64_t t = next_poll > now ? next_poll - now : 0;
            timeout = timeout < 0 || t < timeout ? t : timeout;
        }
        struct pollfd pf[2] = {{s->watch_stop[0], POLLIN, 0}, {ifd, POLLIN, 0}};
        int n = poll(pf, ifd >= 0 ? 2 : 1, timeout > INT_MAX ? INT_MAX : (int)timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && (pf[0].revents & (POLLIN | POLLHUP)) != 0)
            break;
        if (n > 0 && ifd >= 0 && (pf[1].revents & POLLIN) != 0) {
            for (;;) {
                ssize_t len = read(ifd, buf, sizeof(buf));
                if (len <= 0)
                    break;
                for (char *p = buf; p < buf + len;) {
                    const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
                    if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
                        if (wd >= 0) {
                            svc_log_msg("warn", "rules_watch",
                                        "lost the watch on %s: polling until it is back", dir);
                            inotify_rm_watch(ifd, wd);
                        }
                        wd = -1;
                        next_poll = now_ms() + poll_every;
                        writers = (struct writers){.n = 0};
                    }
                    writer_event(&writers, ev);
                    p += sizeof(*ev) + ev->len;
                }
                pending = true;
                due = now_ms() + debounce;
            }
        }
        now = now_ms();
        if (wd < 0 && now >= next_poll) {
            next_poll = now + poll_every;
            if (ifd >= 0) {
                wd = inotify_add_watch(ifd, dir, WATCH_MASK);
                if (wd >= 0) {
                    svc_log_msg("info", "rules_watch", "watching %s again (inotify)", dir);
                    pending = true; /* it may have changed while unwatched */
                    due = now + debounce;
                }
            }
            uint64_t f = svc_rules_fingerprint(dir);
            if (f != fp && !pending) {
                pending = true;
                due = now + debounce;
            }
        }
        /* Looked at again at the writer's next event (its close), or soon. */
        if (pending && now >= due && writer_at_work(&writers, dir))
            due = now + (debounce > WATCH_RECHECK_MS ? debounce : WATCH_RECHECK_MS);
        if (pending && now >= due) {
            pending = false;
            fp = svc_rules_fingerprint(dir);
            (void)svc_server_reload(s, "watch", NULL); /* a failure is logged */
            /* Changed during the load (a writer still at work, the load then
             * refused): once more after the debounce. */
            if (svc_rules_fingerprint(dir) != fp) {
                pending = true;
                due = now_ms() + debounce;
            }
        }
    }
    if (ifd >= 0)
        close(ifd);
    return NULL;
}

/* Why the watcher did not start, from errno as it stands. */
static enum dc_status watch_failed(struct dc_error *err)
{
    return dc_error_set(err, DC_EIO, NULL, "the rules watcher did not start: %s", strerror(errno));
}

enum dc_status svc__watch_start(svc_server *s, struct dc_error *err)
{
    s->watch_stop[0] = s->watch_stop[1] = -1;
    if (s->cfg.rules[0] == '\0' || !s->cfg.rules_watch)
        return DC_OK;
    if (pipe(s->watch_stop) != 0)
        return watch_failed(err);
    fcntl(s->watch_stop[0], F_SETFD, FD_CLOEXEC);
    fcntl(s->watch_stop[1], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&s->watch_thread, NULL, watch_main, s) != 0) {
        close(s->watch_stop[0]);
        close(s->watch_stop[1]);
        s->watch_stop[0] = s->watch_stop[1] = -1;
        return watch_failed(err);
    }
    s->watch_started = true;
    return DC_OK;
}

void svc__watch_stop(svc_server *s)
{
    if (!s->watch_started)
        return;
    ssize_t w;
    do {
        w = write(s->watch_stop[1], "x", 1);
    } while (w < 0 && errno == EINTR);
    pthread_join(s->watch_thread, NULL);
    close(s->watch_stop[0]);
    close(s->watch_stop[1]);
    s->watch_started = false;
}
