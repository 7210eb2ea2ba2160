/* core/src/workload_internal.h -- what the engine computes before rules run. */
#ifndef DC_WORKLOAD_INTERNAL_H
#define DC_WORKLOAD_INTERNAL_H

#include "dc/engine.h"

/* Workload-level quantities rule conditions can read under `derived`. */
struct dc__derived {
    double training_flops; /* 6 N D; 0 for inference */
    double h100_days;      /* NAN when the catalog has no h100 */
    double memory_gb;      /* whole job */
    double weights_gb;     /* at the workload precision */
    double kv_cache_gb;    /* inference only */
    double kv_bytes_per_token;
    bool kv_estimated;     /* layers/hidden_size were not given */
    double precision_bits;
};

/* Build the condition document (defaults applied + `derived`). Strings are
 * references into `w` and static tables, so `w` must outlive *out. */
enum dc_status dc__facts_build(const struct dc_workload *w, const struct dc__derived *d,
                               cJSON **out);

const char *dc__task_name(enum dc_task t);
const char *dc__deployment_name(enum dc_deployment d);
const char *dc__objective_name(enum dc_objective o);

#endif
