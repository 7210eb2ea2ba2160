/* api/src/schema_node.h -- the compiled form of a JSON Schema (api/schema.h's
 * api_schema): the graph of nodes that schema_compile.c builds, the keyword
 * table (schema_keywords.c) fills in and schema_validate.c walks; and the one
 * table's row type, which names for each keyword the function that compiles it
 * and the check that validates it. Nothing here is public API. Owned by api/.
 *
 * A node is immutable once compilation ends, so that many threads may validate
 * against one compiled schema at once. */
#ifndef API_SCHEMA_NODE_H
#define API_SCHEMA_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "schema_internal.h"

/* Longest value or name quoted in a message, in bytes. */
#define SCH_QUOTE_MAX 64

/* JSON types, as bits; an integral number has both NUMBER and INTEGER. */
enum {
    SCH_T_NULL = 1u << 0,
    SCH_T_BOOLEAN = 1u << 1,
    SCH_T_OBJECT = 1u << 2,
    SCH_T_ARRAY = 1u << 3,
    SCH_T_NUMBER = 1u << 4,
    SCH_T_STRING = 1u << 5,
    SCH_T_INTEGER = 1u << 6,
    SCH_T_ALL = (1u << 7) - 1u
};

/* Keywords present on a node whose value alone does not show it. */
enum {
    SCH_HAS_TYPE = 1u << 0,
    SCH_HAS_MINIMUM = 1u << 1,
    SCH_HAS_MAXIMUM = 1u << 2,
    SCH_HAS_EXMIN = 1u << 3,
    SCH_HAS_EXMAX = 1u << 4,
    SCH_HAS_MULTIPLE = 1u << 5,
    SCH_HAS_MINLEN = 1u << 6,
    SCH_HAS_MAXLEN = 1u << 7,
    SCH_HAS_MINITEMS = 1u << 8,
    SCH_HAS_MAXITEMS = 1u << 9,
    SCH_HAS_MINCONTAINS = 1u << 10,
    SCH_HAS_MAXCONTAINS = 1u << 11,
    SCH_HAS_MINPROPS = 1u << 12,
    SCH_HAS_MAXPROPS = 1u << 13,
    SCH_HAS_UNIQUE = 1u << 14,
    SCH_HAS_REF = 1u << 15
};

struct api__sch_node;

struct api__sch_prop { /* properties, dependentSchemas */
    const char *name;
    struct api__sch_node *schema;
};

struct api__sch_pattern { /* patternProperties */
    api__sch_regex *re;
    struct api__sch_node *schema;
};

struct api__sch_required {
    const char *name;
    size_t prop; /* index in props, or SIZE_MAX when not a declared property */
};

struct api__sch_dep_required {
    const char *name;
    const char **names;
    size_t nnames;
};

struct api__sch_node {
    size_t index;          /* position in api_schema.nodes */
    size_t resource;       /* schema resource ($id) it belongs to, for $dynamicRef; SIZE_MAX none */
    uint32_t has;          /* SCH_HAS_* */
    uint32_t checks;       /* the checks its keywords need: bit i is api__sch_checks[i] */
    bool is_false;         /* the boolean schema false */
    bool empty;            /* accepts everything: true, {} or only annotations */
    uint8_t types;         /* SCH_T_* allowed, with SCH_HAS_TYPE */
    const char *src_where; /* compiler scratch: location, valid during compilation only */

    struct api__sch_node *ref;
    struct api__sch_node *dyn_ref; /* $dynamicRef: the static target */
    const char *dyn_name;          /* its anchor name, when resolved dynamically */

    double minimum, maximum, exmin, exmax, multiple_of;

    size_t min_length, max_length;
    api__sch_regex *pattern;
    const char *pattern_src;

    struct api__sch_node **prefix;
    size_t nprefix;
    struct api__sch_node *items;
    struct api__sch_node *contains;
    size_t min_contains, max_contains, min_items, max_items;

    struct api__sch_prop *props;
    size_t nprops;
    uint32_t *prop_index;  /* open addressing: props index + 1, 0 empty; NULL if small */
    size_t prop_index_cap; /* a power of two */
    struct api__sch_pattern *patterns;
    size_t npatterns;
    struct api__sch_node *additional;
    struct api__sch_node *property_names;
    struct api__sch_required *required;
    size_t nrequired;
    size_t min_props, max_props;
    struct api__sch_dep_required *dep_required;
    size_t ndep_required;
    struct api__sch_prop *dep_schemas;
    size_t ndep_schemas;

    const cJSON *enum_values; /* borrowed from the document */
    const char *enum_msg;
    const cJSON *const_value; /* borrowed from the document */
    const char *const_msg;

    struct api__sch_node **all_of, **any_of, **one_of;
    size_t nall_of, nany_of, none_of;
    struct api__sch_node *not_schema, *if_schema, *then_schema, *else_schema;

    struct api__sch_node *uneval_props; /* unevaluatedProperties */
    struct api__sch_node *uneval_items; /* unevaluatedItems */
};

/* A $dynamicAnchor: a candidate target of $dynamicRef in its resource. */
struct api__sch_dyn_anchor {
    size_t resource;
    const char *name;
    struct api__sch_node *node;
};

struct api_schema {
    struct dc__arena arena;
    struct api__sch_node **nodes; /* every node, for cycle checks and freeing regexes */
    size_t nnodes, capnodes;
    struct api__sch_node *entry;
    struct api__sch_dyn_anchor *dyn; /* in the arena */
    size_t ndyn;
};

/* The hash of a property name in a node's prop_index: the compiler fills the
 * index with it and the validator looks names up with it (FNV-1a). */
static inline uint32_t api__sch_name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s != '\0') {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

/* ---- The keyword table ------------------------------------------------------ */

struct api__sch_compiler; /* schema_compile.c */
struct api__sch_ctx;      /* schema_validate.c: one validation */
struct api__sch_eval;     /* schema_validate.c: what a node evaluated, for unevaluated* */

/* Decode the value `v` (borrowed; v->string is the keyword) of one keyword of
 * node `n`, whose base URI is `base`, into the node's fields. Errors:
 * DC_EPARSE, DC_ENOMEM, detailed through the compiler (schema_compile.h). */
typedef enum dc_status (*api__sch_compile_fn)(struct api__sch_compiler *cc, struct api__sch_node *n,
                                              const cJSON *v, const char *base);

/* One check of node `n` against the instance `v`: true when it holds. A
 * violation is recorded in the collecting pass; false with the validation
 * halted ends it (schema_validate.c). `ev`, when not NULL, receives the
 * members or items of `v` that the check evaluated. */
typedef bool (*api__sch_check_fn)(struct api__sch_ctx *c, const struct api__sch_node *n,
                                  const cJSON *v, struct api__sch_eval *ev);

/* Where a keyword's value holds schemas (bits), for the scan of $id and
 * $anchor names, which must also look inside keywords that are not compiled. */
enum {
    SCH_SUB_SCHEMA = 1u << 0, /* the value is a schema */
    SCH_SUB_MAP = 1u << 1,    /* an object whose values are schemas */
    SCH_SUB_ARRAY = 1u << 2   /* an array of schemas */
};

/* One row of the keyword table. */
struct api__sch_keyword {
    const char *name;
    unsigned subschemas;         /* SCH_SUB_*; 0: none */
    api__sch_compile_fn compile; /* NULL: only scanned for names, never compiled */
    api__sch_check_fn check;     /* what enforces it when validating; NULL: nothing */
};

/* ---- The checks (schema_validate.c) ----------------------------------------- */

/* Every check, in the order validate_node applies them, which is the order a
 * node's violations are reported in. */
extern const api__sch_check_fn api__sch_checks[];

/* The bit of `check` in a node's `checks`: 1 << its index in api__sch_checks;
 * 0 for NULL. */
uint32_t api__sch_check_bit(api__sch_check_fn check);

bool api__sch_check_ref(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                        struct api__sch_eval *ev);
bool api__sch_check_dynamic_ref(struct api__sch_ctx *c, const struct api__sch_node *n,
                                const cJSON *v, struct api__sch_eval *ev);
bool api__sch_check_type(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                         struct api__sch_eval *ev);
bool api__sch_check_enum(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                         struct api__sch_eval *ev);
bool api__sch_check_const(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev);
/* minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf. */
bool api__sch_check_number(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
/* minLength, maxLength, pattern. */
bool api__sch_check_string(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
/* minItems, maxItems, prefixItems, items, contains, minContains, maxContains,
 * uniqueItems: one walk over the items. */
bool api__sch_check_array(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev);
/* properties, patternProperties, additionalProperties, propertyNames,
 * required, minProperties, maxProperties, dependentRequired, dependentSchemas:
 * one walk over the members. */
bool api__sch_check_object(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
bool api__sch_check_all_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
bool api__sch_check_any_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
bool api__sch_check_one_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev);
bool api__sch_check_not(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                        struct api__sch_eval *ev);
/* if, then, else. */
bool api__sch_check_if(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                       struct api__sch_eval *ev);
/* unevaluatedProperties, unevaluatedItems: last, once everything else at the
 * instance's location has said what it evaluated. */
bool api__sch_check_unevaluated(struct api__sch_ctx *c, const struct api__sch_node *n,
                                const cJSON *v, struct api__sch_eval *ev);

#endif /* API_SCHEMA_NODE_H */
