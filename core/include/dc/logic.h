/* core/include/dc/logic.h -- JSONLogic (jsonlogic.com): compile once, evaluate many.
 *
 * A rule is compiled from a cJSON tree into an immutable program. Unknown
 * operators, wrong arities of fixed-arity operators and over-deep rules are
 * compile errors. Evaluation follows JavaScript semantics (truthiness, loose
 * equality, number/string coercion) as jsonlogic.com's reference
 * implementation does, is reentrant (a compiled rule may be evaluated from many
 * threads at once), bounded in depth and steps, and does not allocate on the
 * common path (var, comparisons, logic, arithmetic, in over literals). */
#ifndef DC_LOGIC_H
#define DC_LOGIC_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

typedef struct dc_logic dc_logic; /* opaque, immutable once compiled */

/* Named limits on untrusted rule content and on evaluation work. */
#define DC_LOGIC_MAX_DEPTH_DEFAULT 64      /* nesting of operators in one rule */
#define DC_LOGIC_MAX_NODES_DEFAULT 4096    /* operator and literal nodes in one rule */
#define DC_LOGIC_MAX_STEPS_DEFAULT 1000000 /* operator applications per evaluation */

struct dc_logic_limits {
    unsigned max_depth; /* 0 means DC_LOGIC_MAX_DEPTH_DEFAULT */
    unsigned max_nodes; /* 0 means DC_LOGIC_MAX_NODES_DEFAULT */
    unsigned max_steps; /* 0 means DC_LOGIC_MAX_STEPS_DEFAULT */
};

/* Compile `rule` (borrowed; not referenced after the call). `limits` may be
 * NULL for the defaults. On DC_OK *out is owned by the caller (dc_logic_free).
 * Errors: DC_EINVAL (NULL argument), DC_EPARSE (unknown operator, bad arity,
 * an operator object with more than one key), DC_ELIMIT (depth or node count),
 * DC_ENOMEM. err->where holds the JSON Pointer of the offending node inside
 * the rule ("/and/1/var"). Thread-safe. */
DC_API DC_NODISCARD enum dc_status dc_logic_compile(const cJSON *rule,
                                                    const struct dc_logic_limits *limits,
                                                    dc_logic **out, struct dc_error *err);

/* Evaluate and return the full result as a new cJSON tree (owned by the caller,
 * cJSON_Delete). `data` (borrowed) may be NULL, meaning null. Errors: DC_EINVAL,
 * DC_ELIMIT (step limit), DC_ENOMEM. Thread-safe and reentrant. */
DC_API DC_NODISCARD enum dc_status dc_logic_eval(const dc_logic *logic, const cJSON *data,
                                                 cJSON **out, struct dc_error *err);

/* Evaluate and return only the JavaScript truthiness of the result. Does not
 * allocate unless the rule builds strings or arrays (cat, merge, map, ...).
 * Errors as dc_logic_eval. Thread-safe and reentrant. */
DC_API DC_NODISCARD enum dc_status dc_logic_eval_truthy(const dc_logic *logic, const cJSON *data,
                                                        bool *out, struct dc_error *err);

/* dc_logic_eval_truthy within at most `max_steps` steps: a caller's budget
 * shared by many rules (0, or more than the rule's own limit: the rule's own
 * limit). *steps (may be NULL) receives the steps spent, also when the limit
 * was hit (DC_ELIMIT), so a budget can be charged either way. */
DC_API DC_NODISCARD enum dc_status dc_logic_eval_truthy_within(const dc_logic *logic,
                                                               const cJSON *data,
                                                               uint64_t max_steps, uint64_t *steps,
                                                               bool *out, struct dc_error *err);

/* What one caller's evaluations of many programs over one document share:
 * the member each var path names, found once (a rule set's conditions read
 * some 25 paths a hundred times a request). Entries are numbered by
 * dc_logic_number_vars; `state` and `member` hold `n` of them, state 0
 * (not yet found) to start with. Valid while no member is added to,
 * removed from or moved in the document; the values of members (a number
 * set in place) are read when evaluated. */
struct dc_logic_var_cache {
    const cJSON *data;    /* the document the entries are of */
    size_t n;             /* entries */
    unsigned char *state; /* 0 not yet found, 1 found (member), 2 absent */
    const cJSON **member; /* found members */
};

/* Numbers the var paths the rule reads of its data (those of
 * dc_logic_foreach_var that are a var's own): number(path, ctx) gives each an
 * entry of a dc_logic_var_cache, or UINT32_MAX for none. Call before the
 * program is shared between threads (a rule set does so as it loads). */
DC_API void dc_logic_number_vars(dc_logic *logic, uint32_t (*number)(const char *path, void *ctx),
                                 void *ctx);

/* dc_logic_eval_truthy_within reading var paths through `cache` (may be
 * NULL) where it is of `data`: a path found once is not looked up again.
 * The result and the steps spent are those of dc_logic_eval_truthy_within. */
DC_API DC_NODISCARD enum dc_status dc_logic_eval_truthy_cached(const dc_logic *logic,
                                                               const cJSON *data,
                                                               struct dc_logic_var_cache *cache,
                                                               uint64_t max_steps, uint64_t *steps,
                                                               bool *out, struct dc_error *err);

/* Every `var` path the rule reads, for linting rules against the workload
 * schema: calls fn(path, ctx) once per distinct literal path ("model.parameters").
 * Dynamic paths (a var whose argument is itself an operation) are skipped. */
DC_API void dc_logic_foreach_var(const dc_logic *logic, void (*fn)(const char *path, void *ctx),
                                 void *ctx);

/* Release a compiled rule. NULL is a no-op. */
DC_API void dc_logic_free(dc_logic *logic);

#endif /* DC_LOGIC_H */
