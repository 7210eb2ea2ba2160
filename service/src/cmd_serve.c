/* service/src/cmd_serve.c -- `accel-advisor serve`: configuration, signals, the
 * server's lifecycle.
 *
 * SIGTERM, SIGINT and SIGHUP are blocked before any thread starts (threads
 * inherit the mask) and taken synchronously here with sigwait, so no code runs in
 * a signal handler: SIGHUP reloads the rule set; SIGTERM and SIGINT stop
 * accepting, let in-flight requests finish and exit 0. SIGUSR1 and SIGUSR2 are
 * logged and ignored (their default action would kill the server); SIGPIPE is
 * ignored (a client that goes away must not kill the server). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "commands.h"
#include "config.h"
#include "log.h"
#include "server.h"

#ifdef __GLIBC__
/* glibc's malloc tuning for the server (cmd_serve below says why). */
#define SERVE_MMAP_THRESHOLD (128 * 1024) /* blocks this large are mmapped */
#endif

void svc_signals_block(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* What a writer opening a rule file during the reload's lease check would
     * send (svc_rules_being_written); its default action terminates. */
    signal(SIGIO, SIG_IGN);
}

int svc_signals_wait(const sigset_t *set, int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    for (;;) {
        int sig = timeout_ms < 0 ? 0 : sigtimedwait(set, NULL, &ts);
        if (timeout_ms >= 0 && sig < 0 && errno == EAGAIN)
            return 0;
        if (timeout_ms < 0 && sigwait(set, &sig) != 0)
            continue;
        if (sig <= 0)
            continue;
        if (sig != SIGUSR1 && sig != SIGUSR2)
            return sig;
        /* nginx and Envoy reopen their log files on SIGUSR1, and a log rotator
         * may send it; their default action is to terminate, which killed the
         * server. Its logs are stderr: nothing to reopen. */
        svc_log_msg("info", "signal", "%s: ignored (the logs go to stderr: nothing to reopen)",
                    sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2");
    }
}

int svc_reload_retry_ms(svc_server *s, const struct svc_config *cfg)
{
    if (!svc_server_reload_deferred(s))
        return -1;
    return cfg->rules_debounce_ms > 100 ? (int)cfg->rules_debounce_ms : 100;
}

int cmd_serve(int argc, char **argv)
{
    struct svc_config cfg;
    struct dc_error err;
    if (svc_config_load(argc, argv, NULL, &cfg, &err) != DC_OK) {
        fprintf(stderr, "serve: %s\n", err.msg);
        fprintf(stderr, "Run `accel-advisor serve --help` for the settings.\n");
        return 2;
    }
    if (cfg.help) {
        svc_config_help(stdout);
        return 0;
    }

    enum svc_log_level level = SVC_LOG_INFO;
    if (svc_log_level_parse(cfg.log_level, &level)) /* checked by svc_config_load */
        svc_log_set_level(level);

    sigset_t set;
    svc_signals_block(&set);
#ifdef __GLIBC__
    /* Pin glibc's mmap threshold (and so its trim threshold) at the default
     * 128 KiB. Left dynamic, one large request body freed raises both to its size
     * (up to max_body_bytes), after which large buffers are carved from the heap
     * arenas and freed memory stays resident: under hostile traffic resident
     * memory crept up by MiBs (bench/soak: +2.5 MiB over 900,000 requests with
     * the cache on); pinned, it stays flat. Buffers of 128 KiB or more are then
     * mmapped and returned on free. */
    mallopt(M_MMAP_THRESHOLD, SERVE_MMAP_THRESHOLD);
    /* Pinning the mmap threshold also pins the trim threshold at glibc's default
     * 128 KiB, which one request's working memory tops just over, so a request
     * may give its arena's top back (one madvise) and fault it in again. Raising
     * the trim threshold to 512 KiB saved that but let each arena keep a varying
     * half MiB: soak.long's resident memory then moved +1.5 MiB after its
     * warm-up, past the 1 MiB it allows (bench/README.md, "The server's own cost
     * per request"). Flat memory wins over the fault. */
#endif

    svc_config_log(&cfg);
    svc_server *srv = NULL;
    if (svc_server_start(&cfg, &srv, &err) != DC_OK) {
        svc_log_msg("error", "start_failed", "%s", err.msg);
        return 1;
    }
    int sig;
    while ((sig = svc_signals_wait(&set, svc_reload_retry_ms(srv, &cfg))) == SIGHUP || sig == 0) {
        if (sig == 0) {
            (void)svc_server_reload(srv, "signal_retry", NULL);
            continue;
        }
        svc_log_msg("info", "signal", "SIGHUP: reloading the rule set");
        (void)svc_server_reload(srv, "signal", NULL); /* a failure is logged */
    }
    svc_log_msg("info", "signal", "%s: draining", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    long left = svc_server_drain(srv);
    svc_server_free(srv);
    svc_log_msg("info", "stopped", "stopped (%ld request%s cut off by the grace period)", left,
                left == 1 ? "" : "s");
    return 0;
}
