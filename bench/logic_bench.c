/* bench/logic_bench.c -- JSONLogic evaluator micro-benchmark.
 *
 * Compiles a representative rule set (the headline condition of the design
 * brief, then conditions of the shape rules/rules.yaml uses), evaluates each
 * with dc_logic_eval_truthy() against one workload many times, and prints the
 * median nanoseconds per evaluation over several repetitions: per condition,
 * and for the whole set (what one recommendation pays for its rules).
 *
 * usage: bench_logic [ITERATIONS]   (default 200000 per condition and repetition)
 * Build by hand: see bench/README.md, or
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Icore/include bench/logic_bench.c \
 *      core/src/logic/logic_*.c core/src/base/common.c -lcjson -lm -o bench_logic */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "dc/logic.h"

#define BENCH_REPS          11      /* repetitions; the median is reported */
#define BENCH_ITERS_DEFAULT 200000L /* evaluations per condition and repetition */
#define BENCH_SET_DIVISOR   20      /* the whole-set runs do ITERS / this passes */

static const char *const conditions[] = {
    /* The headline condition of the brief. */
    "{\"and\":[{\">\":[{\"var\":\"model.parameters\"},1e9]},"
    "{\"in\":[{\"var\":\"framework\"},[\"jax\",\"tensorflow\"]]},"
    "{\"!\":{\"var\":\"model.custom_ops\"}}]}",
    /* Shapes from rules/rules.yaml. */
    "{\"==\":[{\"var\":\"framework\"},\"jax\"]}",
    "{\"==\":[{\"var\":\"framework\"},\"tensorflow\"]}",
    "{\"in\":[{\"var\":\"framework\"},[\"onnx\",\"other\"]]}",
    "{\"and\":[{\"==\":[{\"var\":\"team.cuda_experience\"},\"none\"]},"
    "{\"in\":[{\"var\":\"framework\"},[\"jax\",\"tensorflow\"]]}]}",
    "{\"and\":[{\"var\":\"model.custom_ops\"},{\"!=\":[{\"var\":\"task\"},\"inference\"]}]}",
    "{\"and\":[{\"var\":\"model.custom_ops\"},"
    "{\"in\":[{\"var\":\"framework\"},[\"pytorch\",\"pytorch-xla\",\"jax\"]]}]}",
    "{\"and\":[{\"var\":\"model.dynamic_shapes\"},{\"==\":[{\"var\":\"task\"},\"inference\"]}]}",
    "{\"and\":[{\"var\":\"model.dynamic_shapes\"},"
    "{\"in\":[{\"var\":\"framework\"},[\"pytorch\",\"pytorch-xla\"]]},"
    "{\"!=\":[{\"var\":\"model.architecture\"},\"mlp\"]}]}",
    "{\"var\":\"model.dynamic_shapes\"}",
    "{\"in\":[{\"var\":\"model.compute_pattern\"},[\"branching\",\"elementwise\"]]}",
    "{\"and\":[{\"==\":[{\"var\":\"model.compute_pattern\"},\"matmul\"]},"
    "{\"in\":[{\"var\":\"model.architecture\"},[\"transformer\",\"cnn\",\"moe\",\"diffusion\","
    "\"mlp\"]]},{\"!\":[{\"var\":\"model.custom_ops\"}]}]}",
    "{\"==\":[{\"var\":\"model.architecture\"},\"gnn\"]}",
    "{\"in\":[{\"var\":\"model.architecture\"},[\"transformer\",\"diffusion\",\"cnn\"]]}",
    "{\"or\":[{\"==\":[{\"var\":\"model.architecture\"},\"moe\"]},"
    "{\"and\":[{\"==\":[{\"var\":\"model.architecture\"},\"transformer\"]},"
    "{\">=\":[{\"var\":\"model.parameters\"},30000000000]}]}]}",
    "{\"==\":[{\"var\":\"precision\"},\"fp64\"]}",
    "{\"==\":[{\"var\":\"precision\"},\"bf16\"]}",
    "{\"==\":[{\"var\":\"precision\"},\"fp8\"]}",
    "{\"var\":\"model.sparse_embeddings\"}",
    "{\"and\":[{\"!=\":[{\"var\":\"task\"},\"inference\"]},"
    "{\"<\":[{\"var\":\"model.parameters\"},1000000000]},"
    "{\"<\":[{\"var\":\"derived.h100_days\"},0.05]}]}",
    "{\"and\":[{\"!=\":[{\"var\":\"task\"},\"inference\"]},"
    "{\"<\":[{\"var\":\"training.global_batch_size\"},64]}]}",
    "{\"and\":[{\"!=\":[{\"var\":\"task\"},\"inference\"]},"
    "{\">=\":[{\"var\":\"model.parameters\"},1000000000]},"
    "{\">=\":[{\"var\":\"training.global_batch_size\"},1024]}]}",
    "{\"and\":[{\"!=\":[{\"var\":\"task\"},\"inference\"]},"
    "{\"!=\":[{\"%\":[{\"var\":\"training.global_batch_size\"},8]},0]}]}",
    "{\"and\":[{\"==\":[{\"var\":\"task\"},\"training\"]},"
    "{\">=\":[{\"var\":\"derived.h100_days\"},500]}]}",
    "{\"and\":[{\"==\":[{\"var\":\"stage\"},\"production\"]},"
    "{\"==\":[{\"var\":\"task\"},\"training\"]},{\">=\":[{\"var\":\"derived.h100_days\"},100]},"
    "{\"<\":[{\"var\":\"derived.h100_days\"},500]}]}",
    "{\"==\":[{\"var\":\"stage\"},\"prototype\"]}",
    "{\">=\":[{\"var\":\"model.parameters\"},30000000000]}",
    "{\"and\":[{\"==\":[{\"var\":\"task\"},\"inference\"]},"
    "{\"in\":[{\"var\":\"model.architecture\"},[\"transformer\",\"moe\"]]},"
    "{\">=\":[{\"var\":\"derived.weights_gb\"},20]}]}",
    "{\"and\":[{\"==\":[{\"var\":\"task\"},\"inference\"]},"
    "{\"<=\":[{\"var\":\"derived.memory_gb\"},20]}]}",
    "{\"==\":[{\"var\":\"task\"},\"inference\"]}",
    "{\"==\":[{\"var\":\"constraints.deployment\"},\"on-prem\"]}",
    "{\"and\":[{\"!!\":[{\"var\":\"constraints.providers\"}]},"
    "{\"!\":[{\"in\":[\"gcp\",{\"var\":\"constraints.providers\"}]}]}]}",
    "{\"in\":[{\"var\":\"constraints.deployment\"},[\"on-prem\",\"hybrid\"]]}",
    "{\"and\":[{\"!=\":[{\"var\":\"training.deadline_hours\"},null]},"
    "{\"<=\":[{\"var\":\"training.deadline_hours\"},168]},"
    "{\"!=\":[{\"var\":\"task\"},\"inference\"]}]}",
    "{\"==\":[{\"var\":\"team.xla_experience\"},\"expert\"]}",
    "{\"and\":[{\"!=\":[{\"var\":\"constraints.budget_usd\"},null]},"
    "{\"<=\":[{\"var\":\"constraints.budget_usd\"},10000]}]}",
    "{\"<=\":[1e6,{\"var\":\"training.tokens\"},1e13]}",
    "{\"if\":[{\"missing\":[\"model.parameters\",\"training.tokens\"]},false,"
    "{\">\":[{\"*\":[6,{\"var\":\"model.parameters\"},{\"var\":\"training.tokens\"}]},1e22]}]}",
    "{\"some\":[{\"var\":\"constraints.providers\"},{\"==\":[{\"var\":\"\"},\"aws\"]}]}",
    "{\"or\":[{\"==\":[{\"var\":\"precision\"},\"fp16\"]},"
    "{\"==\":[{\"var\":\"precision\"},\"bf16\"]}]}",
};

#define N_CONDITIONS (sizeof(conditions) / sizeof(conditions[0]))

/* The facts the engine evaluates rules against, for a 7B training run. */
static const char workload[] =
    "{\"task\":\"training\",\"framework\":\"jax\",\"stage\":\"production\","
    "\"model\":{\"architecture\":\"transformer\",\"parameters\":7e9,\"custom_ops\":false,"
    "\"dynamic_shapes\":false,\"sparse_embeddings\":false,\"compute_pattern\":\"matmul\"},"
    "\"precision\":\"bf16\",\"training\":{\"tokens\":2e12,\"global_batch_size\":1024,"
    "\"deadline_hours\":336},\"inference\":{\"requests_per_second\":0,\"batch_size\":1},"
    "\"constraints\":{\"deployment\":\"cloud\",\"providers\":[\"gcp\",\"aws\"],"
    "\"budget_usd\":50000,\"max_accelerators\":256},"
    "\"team\":{\"cuda_experience\":\"low\",\"xla_experience\":\"high\"},"
    "\"objective\":\"balanced\",\"prefer_available\":false,"
    "\"derived\":{\"h100_days\":220.5,\"weights_gb\":14,\"memory_gb\":112}}";

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 != 0 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : BENCH_ITERS_DEFAULT;
    dc_logic *logic[N_CONDITIONS] = {NULL};
    cJSON *data = cJSON_Parse(workload);
    double samples[BENCH_REPS];
    double per_cond[N_CONDITIONS];
    volatile unsigned sink = 0;
    int status = 1;

    if (iters < BENCH_SET_DIVISOR || data == NULL) {
        fprintf(stderr, "usage: bench_logic [ITERATIONS >= %d]\n", BENCH_SET_DIVISOR);
        goto out;
    }
    for (size_t i = 0; i < N_CONDITIONS; i++) {
        cJSON *rule = cJSON_Parse(conditions[i]);
        struct dc_error err;
        enum dc_status rc = dc_logic_compile(rule, NULL, &logic[i], &err);
        cJSON_Delete(rule);
        if (rc != DC_OK) {
            fprintf(stderr, "condition %zu: %s %s\n", i, err.where, err.msg);
            goto out;
        }
    }

    /* Warm up caches and branch predictors. */
    for (long k = 0; k < iters / 10; k++) {
        for (size_t i = 0; i < N_CONDITIONS; i++) {
            bool hit = false;
            if (dc_logic_eval_truthy(logic[i], data, &hit, NULL) != DC_OK)
                goto out;
            sink += hit;
        }
    }

    printf("JSONLogic evaluation, median of %d repetitions x %ld evaluations\n", BENCH_REPS, iters);
    for (size_t i = 0; i < N_CONDITIONS; i++) {
        for (int r = 0; r < BENCH_REPS; r++) {
            double t0 = now_ns();
            for (long k = 0; k < iters; k++) {
                bool hit = false;
                enum dc_status rc = dc_logic_eval_truthy(logic[i], data, &hit, NULL);
                sink += (unsigned)hit + (rc != DC_OK ? 1u : 0u);
            }
            samples[r] = (now_ns() - t0) / (double)iters;
        }
        per_cond[i] = median(samples, BENCH_REPS);
        printf("  condition %2zu: %6.1f ns\n", i, per_cond[i]);
    }

    long passes = iters / BENCH_SET_DIVISOR;
    for (int r = 0; r < BENCH_REPS; r++) {
        double t0 = now_ns();
        for (long k = 0; k < passes; k++) {
            for (size_t i = 0; i < N_CONDITIONS; i++) {
                bool hit = false;
                enum dc_status rc = dc_logic_eval_truthy(logic[i], data, &hit, NULL);
                sink += (unsigned)hit + (rc != DC_OK ? 1u : 0u);
            }
        }
        samples[r] = (now_ns() - t0) / (double)passes;
    }
    double set_ns = median(samples, BENCH_REPS);
    double headline = per_cond[0];
    printf("headline condition (and/>/in/!): %.1f ns per evaluation\n", headline);
    printf("median over conditions: %.1f ns per evaluation\n", median(per_cond, N_CONDITIONS));
    printf("whole set of %zu conditions: %.1f ns per set, %.1f ns per condition\n", N_CONDITIONS,
           set_ns, set_ns / (double)N_CONDITIONS);
    status = sink == 0xFFFFFFFFu ? 1 : 0; /* reads the sink so no loop is optimised away */
out:
    for (size_t i = 0; i < N_CONDITIONS; i++)
        dc_logic_free(logic[i]);
    cJSON_Delete(data);
    return status;
}
