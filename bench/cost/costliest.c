/* bench/cost/costliest.c -- the costliest request the contract admits, and
 * whether it stays within the documented per-request CPU budget
 * (docs/operations.md, "Per-request cost"; bench/README.md). It drives the
 * server with the integration tests' harness (tests/integration/harness.h).
 *
 * It starts the real server (one worker thread, the response cache off, so a
 * repeated body is computed again), reads the Workload schema from the contract
 * the server serves (GET /openapi.json) and collects every numeric field with
 * its bounds. From three representative workloads (one per task, both kinds of
 * explanation asked), it searches the fields' extremes by coordinate ascent:
 * field by field, each candidate value (the bounds, and the powers of ten
 * between them) is sent and the server's CPU time for it read from
 * /proc/PID/task/TID/schedstat (nanoseconds on CPU, every thread of the server);
 * a value is kept when it raises the cost by more than the noise. The costliest
 * workload found is then sent as the costliest request the contract admits: a
 * batch of BatchRequest.maxItems copies. Both costs are compared with the
 * budget; the exit status is 1 when either is over it.
 *
 * usage: bench_costliest ACCEL_ADVISOR [--budget-ms MS] [--rounds N] [--repeat N]
 *        [--batch-budget-ms MS] */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "harness.h"
#include "rawhttp.h"

/* The documented budgets (docs/operations.md, "Per-request cost"), in CPU
 * milliseconds on the reference machine: one workload, and one request of the
 * largest kind the default limits admit (a batch of 100 workloads). */
#define BUDGET_MS       10.0
#define BATCH_BUDGET_MS 1000.0
#define MAX_FIELDS      64
#define MAX_CANDIDATES  24
/* A value is kept only when it raises the cost by more than this share. */
#define NOISE 0.10

struct field {
    char path[128]; /* "inference/input_tokens" */
    bool integer;
    double lo, hi; /* inclusive bounds (an exclusive minimum becomes a value just above) */
};

struct bench {
    struct server srv;
    struct field fields[MAX_FIELDS];
    size_t n_fields;
    int repeat;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The server's CPU for one POST of `json` to `path`: the median of b->repeat
 * runs, in milliseconds; -1 unless every run was answered 200. */
static double cost_ms(struct bench *b, const char *path, const char *json)
{
    double ms[32];
    int n = b->repeat < 32 ? b->repeat : 32;
    for (int i = 0; i < n; i++) {
        struct resp r;
        double t0 = server_cpu_ms(&b->srv);
        int rc = http_post_json(&b->srv, path, json, &r);
        ms[i] = server_cpu_ms(&b->srv) - t0;
        long status = r.status;
        resp_free(&r);
        if (rc != 0 || status != 200)
            return -1;
    }
    qsort(ms, (size_t)n, sizeof(ms[0]), cmp_double);
    return ms[n / 2];
}

/* ---- the contract's numeric fields ---------------------------------------------- */

static const cJSON *resolve(const cJSON *root, const cJSON *s)
{
    for (int hops = 0; hops < 16 && s != NULL; hops++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
        if (!cJSON_IsString(ref) || strncmp(ref->valuestring, "#/components/schemas/", 21) != 0)
            return s;
        const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "components"), "schemas");
        s = cJSON_GetObjectItemCaseSensitive(schemas, ref->valuestring + 21);
    }
    return s;
}

static double num(const cJSON *s, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void add_field(struct bench *b, const char *path, const cJSON *s, const char *type)
{
    if (b->n_fields == MAX_FIELDS)
        return;
    struct field *f = &b->fields[b->n_fields++];
    snprintf(f->path, sizeof(f->path), "%s", path);
    f->integer = strcmp(type, "integer") == 0;
    double xmin = num(s, "exclusiveMinimum", NAN);
    f->lo = num(s, "minimum", isnan(xmin) ? 0 : xmin);
    if (!isnan(xmin))
        f->lo = f->integer ? floor(xmin) + 1 : xmin + fmax(fabs(xmin) * 1e-9, 1e-9);
    double xmax = num(s, "exclusiveMaximum", NAN);
    f->hi = num(s, "maximum", isnan(xmax) ? 1e18 : xmax);
    if (!isnan(xmax))
        f->hi = f->integer ? ceil(xmax) - 1 : xmax * (1 - 1e-9);
}

/* Every number or integer leaf under `s` (depth-first, through $ref and the
 * branches of anyOf/oneOf/allOf). */
static void collect(struct bench *b, const cJSON *root, const cJSON *s, const char *path, int depth)
{
    s = resolve(root, s);
    if (s == NULL || depth > 8)
        return;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (cJSON_IsString(type) &&
        (strcmp(type->valuestring, "number") == 0 || strcmp(type->valuestring, "integer") == 0))
        add_field(b, path, s, type->valuestring);
    static const char *const combinators[] = {"anyOf", "oneOf", "allOf"};
    for (size_t k = 0; k < 3; k++) {
        const cJSON *branch = NULL;
        cJSON_ArrayForEach(branch, cJSON_GetObjectItemCaseSensitive(s, combinators[k]))
            collect(b, root, branch, path, depth + 1);
    }
    const cJSON *prop = NULL;
    cJSON_ArrayForEach(prop, cJSON_GetObjectItemCaseSensitive(s, "properties"))
    {
        char sub[128];
        snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] != '\0' ? "/" : "", prop->string);
        collect(b, root, prop, sub, depth + 1);
    }
}

/* The contract's BatchRequest maxItems and the Workload fields. */
static int read_contract(struct bench *b, int *max_batch)
{
    struct resp r;
    if (http_get(&b->srv, "/openapi.json", &r) != 0 || r.status != 200) {
        resp_free(&r);
        return -1;
    }
    cJSON *root = resp_json(&r);
    resp_free(&r);
    const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "components"), "schemas");
    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(schemas, "Workload");
    collect(b, root, workload, "", 0);
    const cJSON *batch = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schemas, "BatchRequest"),
                                         "properties"),
        "workloads");
    *max_batch = (int)num(batch, "maxItems", 100);
    cJSON_Delete(root);
    return b->n_fields > 0 ? 0 : -1;
}

/* ---- the search ------------------------------------------------------------------- */

static void set_path(cJSON *w, const char *path, double v)
{
    char part[128];
    const char *p = path;
    cJSON *o = w;
    for (;;) {
        size_t n = strcspn(p, "/");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        if (p[n] == '\0') {
            cJSON_DeleteItemFromObjectCaseSensitive(o, part);
            cJSON_AddNumberToObject(o, part, v);
            return;
        }
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, part);
        if (!cJSON_IsObject(next)) {
            cJSON_DeleteItemFromObjectCaseSensitive(o, part);
            next = cJSON_AddObjectToObject(o, part);
        }
        o = next;
        p += n + 1;
    }
}

/* The bounds and the powers of ten between them. */
static size_t candidates(const struct field *f, double *out)
{
    size_t n = 0;
    out[n++] = f->lo;
    out[n++] = f->hi;
    double start = f->lo > 1 ? pow(10, ceil(log10(f->lo))) : 1;
    for (double v = start; v < f->hi && n < MAX_CANDIDATES; v *= 10) {
        if (v > f->lo)
            out[n++] = v;
    }
    return n;
}

static const char *const tasks[] = {"inference", "training", "fine-tuning"};

/* Hill-climb from the task's base workload; the costliest body found (owned)
 * and its cost in *best_ms. */
static char *climb(struct bench *b, const char *task, int rounds, double *best_ms)
{
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "task", task);
    cJSON_AddObjectToObject(w, "model");
    set_path(w, "model/parameters", 7e9);
    cJSON *explain = cJSON_AddArrayToObject(w, "explain");
    cJSON_AddItemToArray(explain, cJSON_CreateString("changes"));
    cJSON_AddItemToArray(explain, cJSON_CreateString("robustness"));
    char *best = cJSON_PrintUnformatted(w);
    *best_ms = cost_ms(b, "/v1/recommendations", best);
    for (int r = 0; r < rounds; r++) {
        bool improved = false;
        for (size_t i = 0; i < b->n_fields; i++) {
            double c[MAX_CANDIDATES];
            size_t nc = candidates(&b->fields[i], c);
            for (size_t k = 0; k < nc; k++) {
                cJSON *t = cJSON_Parse(best);
                set_path(t, b->fields[i].path, c[k]);
                char *body = cJSON_PrintUnformatted(t);
                cJSON_Delete(t);
                double ms = cost_ms(b, "/v1/recommendations", body);
                if (ms > *best_ms * (1 + NOISE)) {
                    free(best);
                    best = body;
                    *best_ms = ms;
                    improved = true;
                } else {
                    free(body);
                }
            }
        }
        fprintf(stderr, "  %s, round %d: %.3f ms\n", task, r + 1, *best_ms);
        if (!improved)
            break;
    }
    cJSON_Delete(w);
    return best;
}

/* ---- main -------------------------------------------------------------------------- */

struct options {
    double budget_ms, batch_budget_ms;
    int rounds, repeat;
};

static int parse_options(int argc, char **argv, struct options *o)
{
    *o = (struct options){BUDGET_MS, BATCH_BUDGET_MS, 3, 5};
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--budget-ms") == 0)
            o->budget_ms = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--batch-budget-ms") == 0)
            o->batch_budget_ms = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--rounds") == 0)
            o->rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--repeat") == 0)
            o->repeat = atoi(argv[i + 1]);
        else
            return -1;
    }
    return argc >= 2 && (argc % 2) == 0 && o->repeat > 0 && o->rounds > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct options o;
    if (argc < 2 || parse_options(argc, argv, &o) != 0) {
        fprintf(stderr,
                "usage: %s ACCEL_ADVISOR [--budget-ms MS] [--batch-budget-ms MS] [--rounds N] "
                "[--repeat N]\n",
                argv[0]);
        return 2;
    }
    /* harness_init wants BINARY SOURCE_DIR; the source tree is not needed. */
    char here[] = ".";
    char *hargv[] = {argv[0], argv[1], here, NULL};
    if (harness_init(3, hargv) != 0)
        return 2;
    /* One worker thread; the cache off, so a repeated body is computed again. */
    static const char *const args[] = {
        "--threads",           "1", "--cache-entries", "0", "--access-log=false",
        "--rules-watch=false", NULL};
    struct bench b = {.repeat = o.repeat};
    int max_batch = 100;
    if (server_start(&b.srv, args) != 0 || read_contract(&b, &max_batch) != 0) {
        fprintf(stderr, "cannot start %s or read its contract\n", argv[1]);
        return 2;
    }
    printf("%zu numeric fields of Workload; budget %.0f ms a workload, %.0f ms a batch of %d\n",
           b.n_fields, o.budget_ms, o.batch_budget_ms, max_batch);
    char *worst = NULL;
    double worst_ms = -1;
    for (size_t t = 0; t < sizeof(tasks) / sizeof(tasks[0]); t++) {
        double ms = 0;
        char *body = climb(&b, tasks[t], o.rounds, &ms);
        printf("%-12s %8.3f ms  %s\n", tasks[t], ms, body);
        if (ms > worst_ms) {
            free(worst);
            worst = body;
            worst_ms = ms;
        } else {
            free(body);
        }
    }
    struct rh_buf batch = {0};
    double batch_ms = rh_buf_batch(&batch, worst, max_batch)
                          ? cost_ms(&b, "/v1/recommendations:batch", batch.p)
                          : -1;
    printf("costliest workload: %.3f ms (budget %.0f)\n", worst_ms, o.budget_ms);
    printf("costliest request, a batch of %d of it: %.3f ms (budget %.0f)\n", max_batch, batch_ms,
           o.batch_budget_ms);
    bool ok =
        worst_ms >= 0 && worst_ms <= o.budget_ms && batch_ms >= 0 && batch_ms <= o.batch_budget_ms;
    printf("%s\n", ok ? "within the budget" : "OVER THE BUDGET (or a request failed)");
    rh_buf_free(&batch);
    free(worst);
    int st = server_stop(&b.srv, SIGTERM);
    return ok && st == 0 ? 0 : 1;
}
