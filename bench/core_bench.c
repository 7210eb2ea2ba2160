/* bench/core_bench.c -- decision-core throughput: dc_recommend for representative
 * workloads against the default rules, result building included; then with the
 * JSON body rendered as the server sends it (api_result_render). Prints the
 * median over repeated runs.
 *
 *   build/bench/bench_core [RULES_DIR]          (default: the source tree's rules/)
 *
 * Target (issue 2): at most 10 us per recommendation on one core. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "bench_common.h"
#include "dc/engine.h"

#define REPEATS    15
#define ITERATIONS 20000

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : AA_SOURCE_DIR "/rules";
    dc_ruleset *rs = bench_rules(dir);
    if (rs == NULL)
        return 1;
    size_t nw = BENCH_WORKLOADS;
    cJSON *w[BENCH_WORKLOADS];
    for (size_t i = 0; i < nw; i++)
        w[i] = cJSON_Parse(bench_workloads[i]);
    for (int phase = 0; phase < 2; phase++) {
        double med[REPEATS];
        for (int rep = 0; rep < REPEATS; rep++) {
            double t0 = bench_now_ns();
            for (int it = 0; it < ITERATIONS; it++) {
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
            med[rep] = (bench_now_ns() - t0) / ITERATIONS;
        }
        qsort(med, REPEATS, sizeof(double), bench_cmp_double);
        printf("%-44s median %8.2f us  (min %.2f, max %.2f; %d runs x %d)\n",
               phase == 0 ? "dc_recommend (result built)" : "dc_recommend + JSON body serialised",
               med[REPEATS / 2] / 1000, med[0] / 1000, med[REPEATS - 1] / 1000, REPEATS,
               ITERATIONS);
    }
    for (size_t i = 0; i < nw; i++)
        cJSON_Delete(w[i]);
    dc_ruleset_release(rs);
    return 0;
}
