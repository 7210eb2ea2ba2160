/* bench/soak/soak.c -- soak the real `accel-advisor serve` with a mix of every
 * kind of request, valid and hostile, and check that it holds.
 *
 * The driver starts the server on an ephemeral 127.0.0.1 port (through
 * tests/integration/harness.c, with the access log on and read line by line),
 * then client threads, each with a raw keep-alive socket, send N requests drawn
 * from a fixed, weighted table of request kinds (soak_kinds.c): single workloads
 * (a pool of 256 that the response cache serves and unique ones that it cannot),
 * batches, a GET of every endpoint, HEAD and OPTIONS, and every kind of bad input
 * (malformed JSON, invalid UTF-8, NUL bytes, duplicate keys, deep nesting, huge and
 * non-finite numbers, unknown fields, wrong values, wrong content type, oversized
 * bodies announced and chunked, batches over the limit, unknown paths, control
 * characters in the target, wrong methods, absurd headers). Each kind has its
 * exact expected status (and problem type); the request index decides the kind
 * and its variant, so a run is reproducible.
 *
 * Each pass (--cache both: one with the response cache on, one with
 * --cache-entries 0) pauses at marks: the warm-up mark (--warmup, 10% of the
 * requests) and --marks more spread evenly to the end. At a mark every client
 * closes its connection and the driver waits until the server's descriptor count
 * has settled, then reads VmRSS (/proc/PID/status) and the entries of
 * /proc/PID/fd, and the response cache's size from /metrics.
 *
 * A pass fails when any response has another status, a malformed or truncated
 * response, or a connection drops; when the server answers any 5xx, logs an
 * error or dies; when resident memory's level at the end is more than
 * --rss-tolerance-kib (1024) above or below its level at the warm-up (the
 * median of the last three marks against the first three, rss_levels); when
 * the open file descriptors are not the same at every mark; when the server's
 * own accel_advisor_http_requests_total per status, or its access-log line
 * count, differs from what the clients received; or when SIGTERM does not end it
 * with exit status 0.
 *
 * usage: soak ACCEL_ADVISOR_BINARY [--requests N] [--clients N] [--server-threads N]
 *             [--cache on|off|both] [--cache-max-bytes BYTES] [--warmup PERCENT]
 *             [--marks N] [--rss-tolerance-kib N|-1] [--sample-s S]
 * Exit status 0 when every pass held, 1 when one did not, 2 on usage errors. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "harness.h"
#include "soak.h"

#define GIVE_UP_FAILURES   1000
#define REQUEST_TIMEOUT_MS 60000
#define MAX_SAMPLES        100000

/* ---- settings ------------------------------------------------------------------- */

static uint64_t opt_requests = 1000000;
static unsigned opt_clients = 8;
static const char *opt_server_threads = "2";
static const char *opt_cache = "both";
static unsigned opt_warmup_pct = 10;
static long opt_rss_tol_kib = 1024;
static unsigned opt_sample_s = 5;
static unsigned opt_marks = 1;          /* marks after the warm-up one */
static const char *opt_cache_max_bytes; /* NULL: the server's default */

static unsigned cumulative[N_KINDS];

static size_t kind_of(uint64_t i)
{
    unsigned x = (unsigned)(mix(i) % 10000);
    for (size_t k = 0; k < N_KINDS; k++) {
        if (x < cumulative[k])
            return k;
    }
    return 0;
}

/* ---- one request ---------------------------------------------------------------------- */

static atomic_uint_fast64_t next_index;
static uint64_t mark_scrapes;
static uint64_t phase_end;
static atomic_uint_fast64_t total_failures;
static struct server srv;

static void fail_req(struct worker *w, size_t k, uint64_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail_req(struct worker *w, size_t k, uint64_t i, const char *fmt, ...)
{
    w->failures++;
    w->kind_failed[k]++;
    atomic_fetch_add(&total_failures, 1);
    if (w->n_failure < MAX_FAILURES_KEPT) {
        char msg[300];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(w->failure[w->n_failure++], sizeof(w->failure[0]), "request %" PRIu64 " (%s): %s",
                 i, kinds[k].name, msg);
    }
}

static void one(struct worker *w, uint64_t i)
{
    size_t k = kind_of(i);
    const struct kind *kd = &kinds[k];
    uint64_t v = mix(i ^ 0x5eed);
    rh_buf_reset(&w->req);
    rh_buf_reset(&w->body);
    w->head = false;
    w->batch_ok = w->batch_bad = 0;
    w->sent_id[0] = '\0';
    kd->build(w, i, v);
    /* A quarter of the requests name their own request id. */
    if (kd->app && (v >> 40) % 4 == 0 && w->req.len > 0) {
        char *eol = memchr(w->req.p, '\n', w->req.len);
        if (eol != NULL) {
            snprintf(w->sent_id, sizeof(w->sent_id), "soak-%" PRIu64, i);
            char hdr[80];
            int hl = snprintf(hdr, sizeof(hdr), "X-Request-Id: %s\r\n", w->sent_id);
            size_t at = (size_t)(eol - w->req.p) + 1;
            rh_buf_add(&w->req, hdr, (size_t)hl); /* grow, then move into place */
            memmove(w->req.p + at + (size_t)hl, w->req.p + at, w->req.len - (size_t)hl - at);
            memcpy(w->req.p + at, hdr, (size_t)hl);
        }
    }
    struct rh_resp r;
    w->sent++;
    w->kind_sent[k]++;
    int e = rh_exchange(&w->conn, w->req.p, w->req.len, w->head, REQUEST_TIMEOUT_MS, &r);
    if (e != RH_OK) {
        fail_req(w, k, i, "%s", rh_strerror(e));
        return;
    }
    if (r.status >= 0 && r.status < MAX_STATUS) {
        w->status[r.status]++;
        if (kd->app)
            w->app_status[r.status]++;
    }
    if (r.status != kd->status) {
        fail_req(w, k, i, "status %d, want %d: %.200s", r.status, kd->status,
                 r.body != NULL ? r.body : "");
        return;
    }
    if (!kd->app)
        return;
    if (r.request_id[0] == '\0') {
        fail_req(w, k, i, "no X-Request-Id");
        return;
    }
    if (w->sent_id[0] != '\0' && strcmp(w->sent_id, r.request_id) != 0) {
        fail_req(w, k, i, "X-Request-Id %s, sent %s", r.request_id, w->sent_id);
        return;
    }
    char why[300] = "";
    if (kd->type != NULL) {
        char want[128];
        if (strcmp(kd->type, "about:blank") == 0)
            snprintf(want, sizeof(want), "{\"type\":\"about:blank\",");
        else
            snprintf(want, sizeof(want), "{\"type\":\"" TAG "%s\",", kd->type);
        char st[32];
        snprintf(st, sizeof(st), "\"status\":%d,", kd->status);
        if (strcmp(r.ctype, "application/problem+json") != 0)
            fail_req(w, k, i, "Content-Type \"%s\" for a problem", r.ctype);
        else if (r.body_len < strlen(want) || memcmp(r.body, want, strlen(want)) != 0 ||
                 !has(&r, st) || !has(&r, r.request_id))
            fail_req(w, k, i, "problem body %.300s, want %s", r.body, want);
        if (kd->check != NULL && !kd->check(w, &r, why, sizeof(why)))
            fail_req(w, k, i, "%s", why);
        return;
    }
    if (kd->check != NULL && !kd->check(w, &r, why, sizeof(why)))
        fail_req(w, k, i, "%s", why[0] != '\0' ? why : "unexpected body");
}

/* ---- phases ------------------------------------------------------------------------------ */

static pthread_barrier_t start_barrier, done_barrier;
static atomic_bool finished;

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    for (;;) {
        pthread_barrier_wait(&start_barrier);
        if (atomic_load(&finished))
            break;
        for (;;) {
            uint64_t i = atomic_fetch_add(&next_index, 1);
            if (i >= phase_end)
                break;
            if (atomic_load(&total_failures) > GIVE_UP_FAILURES)
                break;
            one(w, i);
        }
        /* Close the connection: the marks are taken with none open. */
        rh_close(&w->conn);
        pthread_barrier_wait(&done_barrier);
    }
    return NULL;
}

/* ---- the server's log ------------------------------------------------------------------ */

struct logstats {
    atomic_uint_fast64_t requests; /* access-log lines */
    atomic_uint_fast64_t status0;  /* of them without a status */
    atomic_uint_fast64_t s5xx;
    atomic_uint_fast64_t outcomes; /* with an "outcome" (not completed normally) */
    atomic_uint_fast64_t errors;   /* lines at level error */
};

static struct logstats logst;

static bool keep_line(void *cls, const char *line, size_t len)
{
    struct logstats *ls = cls;
    (void)len;
    if (strstr(line, "\"event\":\"request\"") != NULL) {
        atomic_fetch_add(&ls->requests, 1);
        const char *st = strstr(line, "\"status\":");
        long status = st != NULL ? strtol(st + 9, NULL, 10) : 0;
        if (status <= 0)
            atomic_fetch_add(&ls->status0, 1);
        else if (status >= 500)
            atomic_fetch_add(&ls->s5xx, 1);
        if (strstr(line, "\"outcome\":") != NULL)
            atomic_fetch_add(&ls->outcomes, 1);
        return false; /* counted, not kept */
    }
    if (strstr(line, "\"level\":\"error\"") != NULL)
        atomic_fetch_add(&ls->errors, 1);
    return true;
}

/* ---- samples ----------------------------------------------------------------------------- */

struct sample {
    double t;
    uint64_t done;
    long rss_kib;
    long fds;
};

static struct sample samples[MAX_SAMPLES];
static size_t n_samples;
static pthread_mutex_t sample_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool sampler_stop;
static double pass_t0;

/* The middle one of three. */
static long median3(long a, long b, long c)
{
    long lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

/* Resident memory's level at the start and at the end of a pass, the two the
 * memory check compares. With six marks or more: the median of the first three
 * (the warm-up mark and the two after it) and of the last three. The heap
 * wanders from mark to mark with no trend (bench/soak/README.md: a band of up
 * to 2 MiB with the 8 MiB response cache, the whole band inside one run), so
 * the warm-up mark against the end alone reads that band as a move about as
 * often as not; a leak grows with every request and moves both medians apart
 * all the same. With fewer marks (soak.short): the warm-up mark and the end.
 * Returns whether the medians were taken. */
static bool rss_levels(const long *rss, unsigned n, long *start, long *end)
{
    if (n < 6) {
        *start = rss[0];
        *end = rss[n - 1];
        return false;
    }
    *start = median3(rss[0], rss[1], rss[2]);
    *end = median3(rss[n - 3], rss[n - 2], rss[n - 1]);
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool server_alive(void)
{
    return server_running(&srv);
}

static void *sampler_main(void *arg)
{
    (void)arg;
    double last = now_s();
    while (!atomic_load(&sampler_stop)) {
        h_sleep_ms(100);
        if (now_s() - last < (double)opt_sample_s)
            continue;
        last = now_s();
        struct sample s = {last - pass_t0, atomic_load(&next_index), server_rss_kib(&srv),
                           server_fd_count(&srv)};
        if (s.done > opt_requests)
            s.done = opt_requests;
        pthread_mutex_lock(&sample_mu);
        if (n_samples < MAX_SAMPLES)
            samples[n_samples++] = s;
        pthread_mutex_unlock(&sample_mu);
        printf("  %7.1f s  %9" PRIu64 " requests  RSS %6ld KiB  fds %4ld%s\n", s.t, s.done,
               s.rss_kib, s.fds, server_alive() ? "" : "  SERVER GONE");
        fflush(stdout);
    }
    return NULL;
}

/* Wait until the server's fd count has not changed for 300 ms (at most 10 s). */
static void settle(long *rss, long *fds)
{
    long last = -2;
    double since = now_s(), end = now_s() + 10;
    while (now_s() < end) {
        long f = server_fd_count(&srv);
        if (f != last) {
            last = f;
            since = now_s();
        } else if (now_s() - since >= 0.3) {
            break;
        }
        h_sleep_ms(20);
    }
    *fds = server_fd_count(&srv);
    *rss = server_rss_kib(&srv);
}

/* ---- metrics ---------------------------------------------------------------------------- */

/* GET /metrics on a connection of its own; the body (owned) or NULL. */
static char *scrape(void)
{
    struct rh_conn c;
    struct rh_resp r;
    struct rh_buf b = {0};
    rh_init(&c, srv.port);
    rh_buf_request(&b, "GET", "/metrics", NULL, NULL, NULL, 0);
    int e = rh_exchange(&c, b.p, b.len, false, REQUEST_TIMEOUT_MS, &r);
    rh_buf_free(&b);
    char *body = e == RH_OK && r.status == 200 ? strndup(r.body, r.body_len) : NULL;
    rh_free(&c);
    return body;
}

/* A gauge's value in a /metrics body; -1 when absent. */
static long gauge(const char *body, const char *name)
{
    char needle[128];
    snprintf(needle, sizeof(needle), "\n%s ", name);
    const char *p = body != NULL ? strstr(body, needle) : NULL;
    return p != NULL ? strtol(p + strlen(needle), NULL, 10) : -1;
}

/* Sum accel_advisor_http_requests_total by code into by_code. */
static bool scrape_requests_total(uint64_t *by_code, uint64_t *total)
{
    char *body = scrape();
    bool ok = body != NULL;
    *total = 0;
    memset(by_code, 0, sizeof(uint64_t) * MAX_STATUS);
    static const char metric[] = "accel_advisor_http_requests_total{";
    for (const char *p = body; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        if (strncmp(p, metric, sizeof(metric) - 1) == 0) {
            const char *code = strstr(p, "code=\"");
            const char *val = strchr(p, '}');
            if (code != NULL && val != NULL && (eol == NULL || code < eol)) {
                long cd = strtol(code + 6, NULL, 10);
                uint64_t n = strtoull(val + 1, NULL, 10);
                if (cd >= 0 && cd < MAX_STATUS)
                    by_code[cd] += n;
                *total += n;
            }
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    free(body);
    return ok;
}

/* ---- one pass --------------------------------------------------------------------------- */

/* What one pass did and measured, for its report and verdict. */
struct pass {
    struct worker *ws;
    pthread_t sampler;
    /* The marks: the warm-up one, then opt_marks more up to the end. */
    unsigned n_marks;
    uint64_t *bounds;              /* the requests sent by each mark */
    long *rss_m, *fds_m, *cache_m; /* at each mark; cache -1 when off */
    long rss0, fds0;               /* before the first request */
    long level_start, level_end;   /* rss_levels() */
    bool levels;
    double t_run, wall;
    /* Totals of the clients, and what the server says. */
    uint64_t sent, failures, app_total, s5xx;
    uint64_t status[MAX_STATUS], app_status[MAX_STATUS];
    uint64_t *ksent, *kfail;
    uint64_t m_by_code[MAX_STATUS], m_total;
    bool scraped, alive;
    int exit_status;
};

/* The clients and the sampler, started, waiting at the start barrier. */
static void start_clients(struct pass *p)
{
    p->ws = calloc(opt_clients, sizeof(*p->ws));
    for (unsigned t = 0; t < opt_clients; t++) {
        p->ws[t].id = t;
        rh_init(&p->ws[t].conn, srv.port);
        p->ws[t].kind_sent = calloc(N_KINDS, sizeof(uint64_t));
        p->ws[t].kind_failed = calloc(N_KINDS, sizeof(uint64_t));
    }
    pthread_barrier_init(&start_barrier, NULL, opt_clients + 1);
    pthread_barrier_init(&done_barrier, NULL, opt_clients + 1);
    atomic_store(&finished, false);
    atomic_store(&total_failures, 0);
    mark_scrapes = 0;
    for (unsigned t = 0; t < opt_clients; t++)
        pthread_create(&p->ws[t].thread, NULL, worker_main, &p->ws[t]);
    n_samples = 0;
    atomic_store(&sampler_stop, false);
    atomic_store(&next_index, 0);
    pass_t0 = now_s();
    pthread_create(&p->sampler, NULL, sampler_main, NULL);
}

/* The requests, phase by phase, each mark taken with every client connection
 * closed and the server settled. */
static void run_marks(struct pass *p)
{
    p->n_marks = opt_marks + 1;
    p->bounds = calloc(p->n_marks, sizeof(uint64_t));
    p->rss_m = calloc(p->n_marks, sizeof(long));
    p->fds_m = calloc(p->n_marks, sizeof(long));
    p->cache_m = calloc(p->n_marks, sizeof(long));
    settle(&p->rss0, &p->fds0);
    uint64_t mark = opt_requests * opt_warmup_pct / 100;
    for (unsigned k = 0; k < p->n_marks; k++)
        p->bounds[k] = mark + (opt_requests - mark) * k / opt_marks;
    for (unsigned ph = 0; ph < p->n_marks; ph++) {
        atomic_store(&next_index, ph == 0 ? 0 : p->bounds[ph - 1]);
        phase_end = p->bounds[ph];
        double t0 = now_s();
        pthread_barrier_wait(&start_barrier);
        pthread_barrier_wait(&done_barrier);
        p->t_run += now_s() - t0;
        settle(&p->rss_m[ph], &p->fds_m[ph]);
        /* Then (after RSS and descriptors are read) the response cache's size,
         * which accounts for part of any move of RSS. */
        char *m = scrape();
        p->cache_m[ph] = gauge(m, "accel_advisor_recommendation_cache_bytes");
        mark_scrapes += m != NULL;
        free(m);
        char cache_text[48] = "off";
        if (p->cache_m[ph] >= 0)
            snprintf(cache_text, sizeof(cache_text), "%ld KiB", p->cache_m[ph] / 1024);
        printf("  mark %-8s %9" PRIu64 " requests: RSS %6ld KiB, %3ld fds (no client "
               "connection open), response cache %s\n",
               ph == 0                ? "warm-up"
               : ph + 1 == p->n_marks ? "end"
                                      : "",
               p->bounds[ph], p->rss_m[ph], p->fds_m[ph], cache_text);
        fflush(stdout);
    }
    p->levels = rss_levels(p->rss_m, p->n_marks, &p->level_start, &p->level_end);
}

/* The clients and the sampler, ended. */
static void stop_clients(struct pass *p)
{
    atomic_store(&finished, true);
    pthread_barrier_wait(&start_barrier);
    for (unsigned t = 0; t < opt_clients; t++)
        pthread_join(p->ws[t].thread, NULL);
    atomic_store(&sampler_stop, true);
    pthread_join(p->sampler, NULL);
}

/* The clients' counts added up. */
static void sum_totals(struct pass *p)
{
    p->ksent = calloc(N_KINDS, sizeof(uint64_t));
    p->kfail = calloc(N_KINDS, sizeof(uint64_t));
    for (unsigned t = 0; t < opt_clients; t++) {
        const struct worker *w = &p->ws[t];
        p->sent += w->sent;
        p->failures += w->failures;
        for (int s = 0; s < MAX_STATUS; s++) {
            p->status[s] += w->status[s];
            p->app_status[s] += w->app_status[s];
        }
        for (size_t k = 0; k < N_KINDS; k++) {
            p->ksent[k] += w->kind_sent[k];
            p->kfail[k] += w->kind_failed[k];
        }
    }
    p->app_status[200] += mark_scrapes; /* the scrapes at the marks */
    for (int s = 0; s < MAX_STATUS; s++) {
        p->app_total += p->app_status[s];
        if (s >= 500)
            p->s5xx += p->status[s];
    }
}

/* Whether the descriptors were the same at every mark. */
static bool fds_flat(const struct pass *p)
{
    for (unsigned k = 0; k < p->n_marks; k++) {
        if (p->fds_m[k] != p->fds_m[0] || p->fds_m[k] < 0)
            return false;
    }
    return true;
}

/* The marks' and the samples' memory and descriptors. */
static void print_memory(const struct pass *p)
{
    unsigned last = p->n_marks - 1;
    printf("  RSS          %ld KiB at start, %ld KiB at %u%% (warm-up), %ld KiB at the end: "
           "%+ld KiB (tolerance %ld)\n",
           p->rss0, p->rss_m[0], opt_warmup_pct, p->rss_m[last], p->rss_m[last] - p->rss_m[0],
           opt_rss_tol_kib);
    if (p->levels)
        printf("  RSS level    %ld KiB over the first three marks, %ld KiB over the last three "
               "(medians): %+ld KiB (tolerance %ld)\n",
               p->level_start, p->level_end, p->level_end - p->level_start, opt_rss_tol_kib);
    if (p->cache_m[0] >= 0 && p->cache_m[last] >= 0)
        printf("  cache        %ld KiB at %u%%, %ld KiB at the end: %+ld KiB\n",
               p->cache_m[0] / 1024, opt_warmup_pct, p->cache_m[last] / 1024,
               (p->cache_m[last] - p->cache_m[0]) / 1024);
    long lo = p->rss_m[0], hi = p->rss_m[0];
    for (unsigned k = 0; k < p->n_marks; k++) {
        lo = p->rss_m[k] < lo ? p->rss_m[k] : lo;
        hi = p->rss_m[k] > hi ? p->rss_m[k] : hi;
    }
    if (p->n_marks > 2)
        printf("  marks        %u after the warm-up: RSS %ld..%ld KiB\n", opt_marks, lo, hi);
    bool flat = fds_flat(p);
    printf("  fds          %ld at start, %ld at %u%%, %ld at the end%s\n", p->fds0, p->fds_m[0],
           opt_warmup_pct, p->fds_m[last],
           flat ? (p->n_marks > 2 ? " (the same at every mark)" : "")
                : " (NOT the same at every mark)");
    long rmin = -1, rmax = -1, fmin = -1, fmax = -1;
    for (size_t s = 0; s < n_samples; s++) {
        if (rmin < 0 || samples[s].rss_kib < rmin)
            rmin = samples[s].rss_kib;
        if (samples[s].rss_kib > rmax)
            rmax = samples[s].rss_kib;
        if (fmin < 0 || samples[s].fds < fmin)
            fmin = samples[s].fds;
        if (samples[s].fds > fmax)
            fmax = samples[s].fds;
    }
    if (n_samples > 0)
        printf("  under load   %zu samples every %u s: RSS %ld..%ld KiB, fds %ld..%ld\n", n_samples,
               opt_sample_s, rmin, rmax, fmin, fmax);
}

/* What the pass sent and got, its memory, the server's log and metrics. */
static void print_report(const struct pass *p)
{
    printf("  requests     %" PRIu64 " in %.1f s: %.0f requests/s (%u client connections)\n",
           p->sent, p->t_run, (double)p->sent / p->t_run, opt_clients);
    printf("  statuses    ");
    for (int s = 0; s < MAX_STATUS; s++) {
        if (p->status[s] > 0)
            printf(" %d: %" PRIu64, s, p->status[s]);
    }
    printf("\n  kinds (sent, failed):\n");
    for (size_t k = 0; k < N_KINDS; k++)
        printf("    %-38s %3d %9" PRIu64 " %4" PRIu64 "\n", kinds[k].name, kinds[k].status,
               p->ksent[k], p->kfail[k]);
    print_memory(p);
    printf("  access log   %" PRIu64 " request lines, the final scrape included (%" PRIu64
           " without a status, %" PRIu64 " 5xx, %" PRIu64 " with an outcome), %" PRIu64
           " error lines\n",
           (uint64_t)atomic_load(&logst.requests), (uint64_t)atomic_load(&logst.status0),
           (uint64_t)atomic_load(&logst.s5xx), (uint64_t)atomic_load(&logst.outcomes),
           (uint64_t)atomic_load(&logst.errors));
    printf("  metrics      accel_advisor_http_requests_total %" PRIu64
           ", service responses received %" PRIu64 " (%" PRIu64 " of them scrapes at the marks)\n",
           p->m_total, p->app_total, mark_scrapes);
    printf("  shutdown     SIGTERM: exit status %d\n", p->exit_status);
}

/* The pass's verdict: each failure said in a FAIL line. */
static bool verdict(const struct pass *p)
{
    bool ok = true;
    if (p->failures > 0) {
        ok = false;
        printf("FAIL: %" PRIu64 " requests failed; the first ones:\n", p->failures);
        for (unsigned t = 0; t < opt_clients; t++) {
            for (unsigned f = 0; f < p->ws[t].n_failure; f++)
                printf("  %s\n", p->ws[t].failure[f]);
        }
    }
    if (p->sent != opt_requests) {
        ok = false;
        printf("FAIL: %" PRIu64 " requests sent, want %" PRIu64 "\n", p->sent, opt_requests);
    }
    if (p->s5xx > 0 || atomic_load(&logst.s5xx) > 0) {
        ok = false;
        printf("FAIL: 5xx responses\n");
    }
    if (atomic_load(&logst.errors) > 0) {
        ok = false;
        printf("FAIL: the server logged errors\n");
    }
    if (!p->alive || p->exit_status != 0) {
        ok = false;
        printf("FAIL: the server %s (exit status %d)\n", p->alive ? "did not stop cleanly" : "died",
               p->exit_status);
    }
    long moved = p->level_end - p->level_start;
    if (opt_rss_tol_kib >= 0 && (moved > opt_rss_tol_kib || -moved > opt_rss_tol_kib)) {
        ok = false;
        printf("FAIL: resident memory moved %+ld KiB after the warm-up%s (tolerance %ld KiB)\n",
               moved, p->levels ? " (median of the last three marks against the first three)" : "",
               opt_rss_tol_kib);
    }
    if (!fds_flat(p)) {
        ok = false;
        printf("FAIL: open file descriptors %ld at the warm-up mark, %ld at the end (and not "
               "the same at every mark)\n",
               p->fds_m[0], p->fds_m[p->n_marks - 1]);
    }
    if (!p->scraped) {
        ok = false;
        printf("FAIL: GET /metrics at the end failed\n");
    } else {
        for (int s = 0; s < MAX_STATUS; s++) {
            if (p->m_by_code[s] != p->app_status[s]) {
                ok = false;
                printf("FAIL: the server counted %" PRIu64 " responses %d, the clients got %" PRIu64
                       "\n",
                       p->m_by_code[s], s, p->app_status[s]);
            }
        }
    }
    /* The server has exited: its log is complete, the final scrape included. */
    if (atomic_load(&logst.requests) != p->app_total + 1 || atomic_load(&logst.status0) != 0) {
        ok = false;
        printf("FAIL: %" PRIu64 " access-log lines (%" PRIu64 " without a status) for %" PRIu64
               " service responses and the final scrape\n",
               (uint64_t)atomic_load(&logst.requests), (uint64_t)atomic_load(&logst.status0),
               p->app_total);
    }
    return ok;
}

static void free_pass(struct pass *p)
{
    for (unsigned t = 0; t < opt_clients; t++) {
        rh_free(&p->ws[t].conn);
        rh_buf_free(&p->ws[t].req);
        rh_buf_free(&p->ws[t].body);
        free(p->ws[t].kind_sent);
        free(p->ws[t].kind_failed);
    }
    free(p->ws);
    free(p->ksent);
    free(p->kfail);
    free(p->bounds);
    free(p->rss_m);
    free(p->fds_m);
    free(p->cache_m);
    free(p);
    pthread_barrier_destroy(&start_barrier);
    pthread_barrier_destroy(&done_barrier);
}

static bool run_pass(const char *label, const char *cache_entries)
{
    const char *args[] = {"--threads",
                          opt_server_threads,
                          "--cache-entries",
                          cache_entries,
                          "--rules-watch=false",
                          NULL,
                          NULL,
                          NULL};
    if (opt_cache_max_bytes != NULL) {
        args[5] = "--cache-max-bytes";
        args[6] = opt_cache_max_bytes;
    }
    memset(&logst, 0, sizeof(logst));
    if (server_start_filtered(&srv, args, keep_line, &logst) != 0) {
        fprintf(stderr, "soak: the server did not start\n");
        return false;
    }
    printf("\nsoak: pass \"%s\" (--cache-entries %s%s%s): %" PRIu64
           " requests, %u client connections, server --threads %s, pid %d, port %d\n",
           label, cache_entries, opt_cache_max_bytes != NULL ? " --cache-max-bytes " : "",
           opt_cache_max_bytes != NULL ? opt_cache_max_bytes : "", opt_requests, opt_clients,
           opt_server_threads, (int)srv.pid, srv.port);
    fflush(stdout);

    struct pass *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        fprintf(stderr, "soak: out of memory\n");
        server_stop(&srv, SIGTERM);
        return false;
    }
    start_clients(p);
    double t_start = now_s();
    run_marks(p);
    stop_clients(p);
    p->wall = now_s() - t_start;
    sum_totals(p);
    p->scraped = scrape_requests_total(p->m_by_code, &p->m_total);
    p->alive = server_alive();
    if (p->failures > 0 || p->s5xx > 0 || atomic_load(&logst.errors) > 0 || !p->alive)
        server_log_dump(&srv); /* its lines other than the access log */
    p->exit_status = server_stop(&srv, SIGTERM);
    print_report(p);
    bool ok = verdict(p);
    printf("  result       %s (%.1f s)\n", ok ? "PASS" : "FAIL", p->wall);
    fflush(stdout);
    free_pass(p);
    return ok;
}

static int usage(void)
{
    fprintf(stderr, "usage: soak ACCEL_ADVISOR_BINARY [--requests N] [--clients N] "
                    "[--server-threads N] [--cache on|off|both] [--cache-max-bytes BYTES] "
                    "[--warmup PERCENT] [--marks N] [--rss-tolerance-kib N|-1] [--sample-s S]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    h_binary = argv[1];
    h_source_dir = ".";
    for (int i = 2; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return usage();
        if (strcmp(a, "--requests") == 0)
            opt_requests = strtoull(v, NULL, 10);
        else if (strcmp(a, "--clients") == 0)
            opt_clients = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--server-threads") == 0)
            opt_server_threads = v;
        else if (strcmp(a, "--cache") == 0)
            opt_cache = v;
        else if (strcmp(a, "--warmup") == 0)
            opt_warmup_pct = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--rss-tolerance-kib") == 0)
            opt_rss_tol_kib = strtol(v, NULL, 10);
        else if (strcmp(a, "--sample-s") == 0)
            opt_sample_s = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--marks") == 0)
            opt_marks = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--cache-max-bytes") == 0)
            opt_cache_max_bytes = v;
        else
            return usage();
    }
    if (opt_requests < 100 || opt_clients == 0 || opt_clients > 1000 || opt_warmup_pct == 0 ||
        opt_warmup_pct >= 100 || opt_sample_s == 0 || opt_marks == 0 || opt_marks > 100 ||
        (strcmp(opt_cache, "on") != 0 && strcmp(opt_cache, "off") != 0 &&
         strcmp(opt_cache, "both") != 0))
        return usage();
    signal(SIGPIPE, SIG_IGN);
    unsigned sum = 0;
    for (size_t k = 0; k < N_KINDS; k++) {
        sum += kinds[k].weight;
        cumulative[k] = sum;
    }
    if (sum != 10000) {
        fprintf(stderr, "soak: the weights add up to %u, not 10000\n", sum);
        return 2;
    }
    bool ok = true;
    if (strcmp(opt_cache, "off") != 0)
        ok = run_pass("cache on", "1024") && ok;
    if (strcmp(opt_cache, "on") != 0)
        ok = run_pass("cache off", "0") && ok;
    printf("\nsoak: %s\n", ok ? "every pass held" : "FAILED");
    return ok ? 0 : 1;
}
