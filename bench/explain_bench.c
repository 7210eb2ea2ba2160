/* bench/explain_bench.c -- what an explained request costs: dc_explain (both
 * kinds, no wall-clock cap, so the whole search is timed) after dc_recommend,
 * for the three workloads core_bench.c times (bench_common.h) and for every
 * workload of the decision table (tests/fixtures/cases.json). Prints medians
 * over repeated runs and the evaluations each explanation used.
 *
 *   build/bench/bench_explain [RULES_DIR [CASES_JSON]]
 *
 * Target (issue 10): at most 64 evaluations and 2 ms per explained request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "dc/engine.h"
#include "dc/explain.h"

#define REPEATS      15
#define ITERATIONS   100
#define CASE_REPEATS 21
#define BUDGET_NS    2e6
#define MAX_CASES    512

/* One explained request as the server makes it: recommend, then explain.
 * Returns the explanation's evaluations, -1 on failure. */
static int explained(const dc_ruleset *rs, const cJSON *w, enum dc_explain_stop *stop)
{
    struct dc_result *res = NULL;
    struct dc_explanation *e = NULL;
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, 0, 0};
    if (dc_recommend(rs, w, NULL, &res, NULL) != DC_OK ||
        dc_explain(rs, w, NULL, res, &o, &e, NULL) != DC_OK) {
        dc_result_free(res);
        return -1;
    }
    int n = (int)(e->changes_usage.evaluations + e->robustness.usage.evaluations);
    *stop = e->changes_usage.stop;
    dc_explanation_free(e);
    dc_result_free(res);
    return n;
}

/* Median time of one explained request of `w` over `repeats` runs of `iters`. */
static double median_ns(const dc_ruleset *rs, const cJSON *w, int repeats, int iters, int *evals,
                        enum dc_explain_stop *stop)
{
    double t[64];
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = bench_now_ns();
        for (int it = 0; it < iters; it++)
            *evals = explained(rs, w, stop);
        t[rep] = (bench_now_ns() - t0) / iters;
    }
    qsort(t, (size_t)repeats, sizeof(double), bench_cmp_double);
    return t[repeats / 2];
}

/* Every workload of the decision table: the distribution of the per-case medians. */
static int table(const dc_ruleset *rs, const char *path)
{
    cJSON *cases = bench_cases(path);
    if (cases == NULL)
        return 1;
    static double t[MAX_CASES], ev[MAX_CASES];
    int n = 0, over = 0, cut = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        if (n == MAX_CASES)
            break;
        int evals = 0;
        enum dc_explain_stop stop = DC_EXPLAIN_COMPLETE;
        t[n] = median_ns(rs, cJSON_GetObjectItem(c, "workload"), CASE_REPEATS, 1, &evals, &stop);
        ev[n] = evals;
        over += t[n] > BUDGET_NS;
        cut += stop == DC_EXPLAIN_STOP_EVALUATIONS;
        n++;
    }
    cJSON_Delete(cases);
    if (n == 0)
        return 1;
    qsort(t, (size_t)n, sizeof(double), bench_cmp_double);
    qsort(ev, (size_t)n, sizeof(double), bench_cmp_double);
    printf("decision table, %d workloads (median of %d runs each):\n", n, CASE_REPEATS);
    printf("  time per explained request: median %.0f us, p90 %.0f us, max %.0f us; "
           "%d over 2 ms\n",
           t[n / 2] / 1000, t[n * 9 / 10] / 1000, t[n - 1] / 1000, over);
    printf("  evaluations: median %.0f, p90 %.0f, max %.0f (limit %d); %d cut by the limit\n",
           ev[n / 2], ev[n * 9 / 10], ev[n - 1], DC_EXPLAIN_MAX_EVALUATIONS, cut);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : AA_SOURCE_DIR "/rules";
    const char *cases = argc > 2 ? argv[2] : AA_SOURCE_DIR "/tests/fixtures/cases.json";
    dc_ruleset *rs = bench_rules(dir);
    if (rs == NULL)
        return 1;
    int rc = 0;
    for (size_t i = 0; i < BENCH_WORKLOADS && rc == 0; i++) {
        cJSON *w = cJSON_Parse(bench_workloads[i]);
        int evals = 0;
        enum dc_explain_stop stop = DC_EXPLAIN_COMPLETE;
        double med = median_ns(rs, w, REPEATS, ITERATIONS, &evals, &stop);
        rc = evals < 0;
        printf("%-42s median %7.1f us, %2d evaluations%s  (%d runs x %d)\n",
               bench_workload_names[i], med / 1000, evals,
               stop == DC_EXPLAIN_COMPLETE ? "" : " (cut)", REPEATS, ITERATIONS);
        cJSON_Delete(w);
    }
    if (rc == 0)
        rc = table(rs, cases);
    dc_ruleset_release(rs);
    return rc;
}
