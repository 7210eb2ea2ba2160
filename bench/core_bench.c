/* bench/core_bench.c -- decision-core throughput: dc_recommend for representative
 * workloads against the default rules, result building (configurations, the
 * ranking and the frontier) included; then with the JSON body rendered as the
 * server sends it (api_result_render); then the body alone, full and summary
 * view (issue 33); then for every workload of the decision table. Prints
 * medians over repeated runs.
 *
 *   build/bench/bench_core [RULES_DIR [CASES_JSON]]   (default: the source tree's)
 *
 * Target (issue 15): at most 50 us median per recommendation on the decision
 * table, on one core. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "bench_common.h"
#include "dc/engine.h"

#define REPEATS      15
#define ITERATIONS   20000 /* per run; AA_BENCH_ITERATIONS=N for fewer on a busy machine */
#define CASE_REPEATS 15
#define CASE_ITERS   200
#define MAX_CASES    512
#define BUDGET_NS    50e3

/* The median time of one recommendation of `w`. */
static double case_ns(const dc_ruleset *rs, const cJSON *w)
{
    double t[CASE_REPEATS];
    for (int rep = 0; rep < CASE_REPEATS; rep++) {
        double t0 = bench_now_ns();
        for (int it = 0; it < CASE_ITERS; it++) {
            struct dc_result *res = NULL;
            if (dc_recommend(rs, w, NULL, &res, NULL) != DC_OK)
                return NAN;
            dc_result_free(res);
        }
        t[rep] = (bench_now_ns() - t0) / CASE_ITERS;
    }
    qsort(t, CASE_REPEATS, sizeof(double), bench_cmp_double);
    return t[CASE_REPEATS / 2];
}

/* Every workload of the decision table: the distribution of per-case medians. */
static int table(const dc_ruleset *rs, const char *path)
{
    cJSON *cases = bench_cases(path);
    if (cases == NULL)
        return 1;
    static double t[MAX_CASES];
    int n = 0, over = 0;
    const cJSON *c = NULL;
    /* AA_BENCH_CASES_OUT=FILE: each workload's median, "name<TAB>ns" a line,
     * to compare two builds workload by workload (bench/README.md). */
    const char *out_path = getenv("AA_BENCH_CASES_OUT");
    FILE *out = out_path != NULL ? fopen(out_path, "w") : NULL;
    if (out_path != NULL && out == NULL)
        return 1;
    cJSON_ArrayForEach(c, cases)
    {
        if (n == MAX_CASES)
            break;
        t[n] = case_ns(rs, cJSON_GetObjectItem(c, "workload"));
        if (isnan(t[n]))
            return 1;
        if (out != NULL)
            fprintf(out, "%s\t%.0f\n", cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")), t[n]);
        over += t[n] > BUDGET_NS;
        n++;
    }
    cJSON_Delete(cases);
    if (out != NULL && fclose(out) != 0)
        return 1;
    if (n == 0)
        return 1;
    qsort(t, (size_t)n, sizeof(double), bench_cmp_double);
    printf("decision table, %d workloads (median of %d runs x %d each): median %.2f us, "
           "p90 %.2f us, max %.2f us; %d over 50 us\n",
           n, CASE_REPEATS, CASE_ITERS, t[n / 2] / 1000, t[n * 9 / 10] / 1000, t[n - 1] / 1000,
           over);
    return 0;
}

/* Iterations of each run of the three workloads: ITERATIONS, or
 * AA_BENCH_ITERATIONS (1 to 1,000,000). */
static int iterations(void)
{
    const char *v = getenv("AA_BENCH_ITERATIONS");
    long n = v != NULL ? strtol(v, NULL, 10) : 0;
    return n >= 1 && n <= 1000000 ? (int)n : ITERATIONS;
}

/* The body alone, written from results already decided (issue 33: at most
 * 40 us for the full one), then the summary view of the same results. */
static int bodies(const dc_ruleset *rs, cJSON *const *w)
{
    struct dc_result *res[BENCH_WORKLOADS];
    size_t bytes[2] = {0, 0};
    for (size_t i = 0; i < BENCH_WORKLOADS; i++) {
        if (dc_recommend(rs, w[i], NULL, &res[i], NULL) != DC_OK)
            return 1;
    }
    static const struct api_view summary = {true, 0, API_FRONTIER_DEFAULT};
    const int iters = iterations();
    for (int view = 0; view < 2; view++) {
        double med[REPEATS];
        for (int rep = 0; rep < REPEATS; rep++) {
            double t0 = bench_now_ns();
            for (int it = 0; it < iters; it++) {
                size_t len = 0;
                char *body = api_result_render_view(res[(size_t)it % BENCH_WORKLOADS], NULL,
                                                    view == 1 ? &summary : NULL, &len);
                if (body == NULL)
                    return 1;
                bytes[view] += len;
                free(body);
            }
            med[rep] = (bench_now_ns() - t0) / iters;
        }
        qsort(med, REPEATS, sizeof(double), bench_cmp_double);
        printf("%-44s median %8.2f us  (min %.2f, max %.2f; %d runs x %d; %zu bytes)\n",
               view == 0 ? "JSON body alone (full view)" : "JSON body alone (summary view)",
               med[REPEATS / 2] / 1000, med[0] / 1000, med[REPEATS - 1] / 1000, REPEATS, iters,
               bytes[view] / ((size_t)REPEATS * (size_t)iters));
    }
    for (size_t i = 0; i < BENCH_WORKLOADS; i++)
        dc_result_free(res[i]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : AA_SOURCE_DIR "/rules";
    const char *case_file = argc > 2 ? argv[2] : AA_SOURCE_DIR "/tests/fixtures/cases.json";
    dc_ruleset *rs = bench_rules(dir);
    if (rs == NULL)
        return 1;
    size_t nw = BENCH_WORKLOADS;
    cJSON *w[BENCH_WORKLOADS];
    for (size_t i = 0; i < nw; i++)
        w[i] = cJSON_Parse(bench_workloads[i]);
    const int iters = iterations();
    /* AA_BENCH_TABLE_ONLY: the decision table alone. */
    for (int phase = getenv("AA_BENCH_TABLE_ONLY") != NULL ? 2 : 0; phase < 2; phase++) {
        double med[REPEATS];
        for (int rep = 0; rep < REPEATS; rep++) {
            double t0 = bench_now_ns();
            for (int it = 0; it < iters; it++) {
                struct dc_result *res = NULL;
                if (dc_recommend(rs, w[(size_t)it % nw], NULL, &res, NULL) != DC_OK)
                    return 1;
                if (phase == 1) {
                    /* The body as the server sends it. */
                    char *body = api_result_render(res, NULL);
                    if (body == NULL)
                        return 1;
                    free(body);
                }
                dc_result_free(res);
            }
            med[rep] = (bench_now_ns() - t0) / iters;
        }
        qsort(med, REPEATS, sizeof(double), bench_cmp_double);
        printf("%-44s median %8.2f us  (min %.2f, max %.2f; %d runs x %d)\n",
               phase == 0 ? "dc_recommend (result built)" : "dc_recommend + JSON body serialised",
               med[REPEATS / 2] / 1000, med[0] / 1000, med[REPEATS - 1] / 1000, REPEATS, iters);
    }
    if (getenv("AA_BENCH_TABLE_ONLY") == NULL && bodies(rs, w) != 0)
        return 1;
    for (size_t i = 0; i < nw; i++)
        cJSON_Delete(w[i]);
    int rc = table(rs, case_file);
    dc_ruleset_release(rs);
    return rc;
}
