/* bench/bench_common.h -- what the core benchmarks share: the three
 * representative workloads they time, a monotonic clock and the comparison
 * their medians sort with. */
#ifndef AA_BENCH_COMMON_H
#define AA_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dc/ruleset.h"

#define BENCH_WORKLOADS 3

static const char *const bench_workloads[BENCH_WORKLOADS] = {
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
static const char *const bench_workload_names[BENCH_WORKLOADS] = {
    "training (13B JAX, deadline)", "inference (70B fp8, latency, providers)",
    "fine-tuning (7B, custom CUDA ops)"};

/* The rule set in `dir` (owned), its version and size printed; NULL (with a
 * message) when it does not load. */
static inline dc_ruleset *bench_rules(const char *dir)
{
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(dir, &rs, &d);
    dc_diags_cleanup(&d);
    if (rc != DC_OK) {
        fprintf(stderr, "cannot load rules from %s\n", dir);
        return NULL;
    }
    printf("rules %s: %zu rules, %zu accelerators\n", dc_ruleset_version(rs),
           dc_ruleset_rule_count(rs), dc_ruleset_accelerator_count(rs));
    return rs;
}

/* Wall time by default; the thread's CPU time with AA_BENCH_CLOCK=cpu, for a
 * machine other work shares: the decision is single-threaded and does no I/O,
 * so on an idle machine the two agree, and under load only the CPU time
 * still measures the code (bench/README.md). */
static inline double bench_now_ns(void)
{
    static int cpu = -1;
    if (cpu < 0) {
        const char *c = getenv("AA_BENCH_CLOCK");
        cpu = c != NULL && strcmp(c, "cpu") == 0;
    }
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Most bytes of a decision-table file a bench reads. */
#define BENCH_MAX_CASES_LEN (4u << 20)

/* The decision table at `path` (tests/fixtures/cases.json): a JSON array
 * (owned, cJSON_Delete), or NULL with a message. */
static inline cJSON *bench_cases(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *buf = fp != NULL ? malloc(BENCH_MAX_CASES_LEN + 1) : NULL;
    size_t n = buf != NULL ? fread(buf, 1, BENCH_MAX_CASES_LEN, fp) : 0;
    if (fp != NULL)
        fclose(fp);
    cJSON *cases = NULL;
    if (buf != NULL) {
        buf[n] = '\0';
        cases = cJSON_Parse(buf);
    }
    free(buf);
    if (!cJSON_IsArray(cases)) {
        fprintf(stderr, "cannot read %s\n", path);
        cJSON_Delete(cases);
        return NULL;
    }
    return cases;
}

#endif
