/* bench/soak/soak.h -- what the soak's driver (soak.c: phases, marks, the
 * verdict) and its table of request kinds (soak_kinds.c: how each kind is built
 * and what its answer must hold) share: a client's state and a kind. Owned by
 * the soak; nothing outside bench/soak includes it. */
#ifndef AA_BENCH_SOAK_H
#define AA_BENCH_SOAK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rawhttp.h"

#define TAG               "tag:accel-advisor,2025:"
#define MAX_STATUS        600
#define MAX_FAILURES_KEPT 20
/* Entries of soak_kinds (soak_kinds.c checks the count at compile time). */
#define N_KINDS 37

struct worker;
typedef void (*build_fn)(struct worker *w, uint64_t i, uint64_t v);
typedef bool (*check_fn)(struct worker *w, const struct rh_resp *r, char *why, size_t len);

struct kind {
    const char *name;
    unsigned weight;  /* per 10,000 requests */
    int status;       /* the expected status */
    const char *type; /* the expected problem type; NULL: not a problem */
    bool app;         /* answered by the service (not by libmicrohttpd itself) */
    build_fn build;
    check_fn check; /* extra checks of a success; may be NULL */
};

struct worker {
    unsigned id;
    pthread_t thread;
    struct rh_conn conn;
    struct rh_buf req;
    struct rh_buf body;
    bool head;        /* the request is a HEAD */
    int batch_ok;     /* workloads in the batch that must answer 200 */
    int batch_bad;    /* and 400 */
    char sent_id[48]; /* X-Request-Id sent, "" when none */
    /* results */
    uint64_t sent;
    uint64_t failures;
    uint64_t status[MAX_STATUS];
    uint64_t app_status[MAX_STATUS]; /* responses of the service itself */
    uint64_t *kind_sent;
    uint64_t *kind_failed;
    char failure[MAX_FAILURES_KEPT][400];
    unsigned n_failure;
};

/* The table of request kinds; weights add up to 10,000. */
extern const struct kind kinds[N_KINDS];

/* A 64-bit mixer (splitmix64's finaliser): the request index decides the kind
 * and its variant through it, so a run is reproducible. */
uint64_t mix(uint64_t x);

/* Whether a response's body contains `needle`. */
bool has(const struct rh_resp *r, const char *needle);

#endif
