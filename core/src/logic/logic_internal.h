/* core/src/logic/logic_internal.h -- what tests and the benchmark may see of the
 * JSONLogic evaluator beyond dc/logic.h. Not API: nothing outside core/src,
 * tests/ and bench/ includes this file. */
#ifndef DC_LOGIC_INTERNAL_H
#define DC_LOGIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/logic.h"

/* Highest max_depth a caller may ask for. Compilation and evaluation recurse
 * once per level of the rule, so this bounds their stack use whatever the
 * caller configures; a larger limit is DC_EINVAL. */
#define DC_LOGIC_MAX_DEPTH_CEILING 512u

/* Bytes one evaluation may build (strings and arrays of cat, merge, map, ...)
 * before it fails with DC_ELIMIT. The step limit already bounds this; the
 * cap keeps a raised step limit from turning into unbounded memory. */
#define DC_LOGIC_EVAL_MEMORY_MAX ((size_t)64 << 20)

/* What one compilation or evaluation cost, and a fault to inject. */
struct dc_logic_stats {
    size_t fail_at;     /* in: the fail_at-th allocation (1-based) fails; 0: none */
    size_t allocs;      /* out: calls into the module's one allocator */
    size_t alloc_bytes; /* out: bytes the successful calls asked for */
    uint64_t steps;     /* out: operator applications plus bulk work charged as steps */
};

/* dc_logic_compile() that counts its allocations in *stats (in/out, may be
 * NULL) and can be made to fail one of them. cJSON's own allocations (copies
 * of constant objects) are not counted. Same errors and thread-safety. */
DC_NODISCARD enum dc_status dc_logic_compile_stats(const cJSON *rule,
                                                   const struct dc_logic_limits *limits,
                                                   struct dc_logic_stats *stats, dc_logic **out,
                                                   struct dc_error *err);

/* dc_logic_eval_truthy() that also reports what the evaluation cost in
 * *stats (in/out, may be NULL; the outputs are written on DC_OK only). Same
 * errors and thread-safety. Used by the zero-allocation and out-of-memory
 * tests and by the benchmark. */
DC_NODISCARD enum dc_status dc_logic_eval_truthy_stats(const dc_logic *logic, const cJSON *data,
                                                       struct dc_logic_stats *stats, bool *out,
                                                       struct dc_error *err);

#endif /* DC_LOGIC_INTERNAL_H */
