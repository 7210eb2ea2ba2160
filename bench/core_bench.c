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
#include <time.h>

#include "api/convert.h"
#include "dc/engine.h"

#define REPEATS 15
#define ITERATIONS 20000

static const char *const workloads[] = {
    /* training: a JAX LLM pre-training run with a deadline */
    "{\"task\":\"training\",\"framework\":\"jax\",\"stage\":\"production\","
    "\"model\":{\"architecture\":\"transformer\",\"parameters\":13e9},"
    "\"training\":{\"tokens\":260e9,\"global_batch_size\":2048,\"deadline_hours\":720}}",
    /* inference: a 70B chat model with latency and throughput targets */
    "{\"task\":\"inference\",\"framework\":\"pytorch\",\"precision\":\"fp8\","
    "\"model\":{\"parameters\":70e9,\"layers\":80,\"hidden_size\":8192},"
    "\"inference\":{\"requests_per_second\":20,\"latency_ms_p99\":50,\"context_tokens\":4096},"
    "\"constraints\":{\"providers\":[\"aws\",\"gcp\"]},\"objective\":\"cost\"}",
    /* fine-tuning with custom CUDA ops */
    "{\"task\":\"fine-tuning\",\"framework\":\"pytorch\","
    "\"model\":{\"parameters\":7e9,\"custom_ops\":true,\"dynamic_shapes\":true},"
    "\"team\":{\"cuda_experience\":\"expert\",\"xla_experience\":\"none\"}}",
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : AA_SOURCE_DIR "/rules";
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    if (dc_ruleset_load_dir(dir, &rs, &d) != DC_OK) {
        fprintf(stderr, "cannot load rules from %s\n", dir);
        return 1;
    }
    dc_diags_cleanup(&d);
    size_t nw = sizeof(workloads) / sizeof(workloads[0]);
    cJSON *w[3];
    for (size_t i = 0; i < nw; i++)
        w[i] = cJSON_Parse(workloads[i]);
    printf("rules %s: %zu rules, %zu accelerators\n", dc_ruleset_version(rs),
           dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs));
    for (int phase = 0; phase < 2; phase++) {
        double med[REPEATS];
        for (int rep = 0; rep < REPEATS; rep++) {
            double t0 = now_ns();
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
            med[rep] = (now_ns() - t0) / ITERATIONS;
        }
        qsort(med, REPEATS, sizeof(double), cmp_double);
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
