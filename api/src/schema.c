/* api/src/schema.c -- JSON Schema draft 2020-12 validator over cJSON: the
 * compiler (schema document -> immutable graph of nodes) and the validator.
 *
 * Compilation walks the schema once from the entry point. Every schema object
 * becomes one node whose keywords are decoded into typed fields (numbers,
 * compiled regexes, property tables, child nodes); a node is keyed by the
 * cJSON object it came from, so a schema reached twice (through $ref, or a
 * recursive "$ref": "#") is compiled once and the graph may be cyclic.
 * References are resolved after the walk from a registry of the document's
 * $id and $anchor names (schema_uri.c implements RFC 3986 resolution); a
 * reference outside the document is a compile error. A final pass rejects
 * reference cycles that never descend into the instance, so validation
 * cannot loop or blow up exponentially on the same instance location.
 *
 * Validation runs twice at most. A first pass answers only "valid?" and stops
 * at the first failure, building no pointers and allocating nothing, which is
 * the whole cost for the valid documents that make up most traffic. Only if
 * that fails does a second pass walk again collecting every violation, with
 * the instance's JSON Pointer, up to the caller's limit. Subschemas whose
 * failure is not itself a violation (anyOf/oneOf branches, not, if, contains)
 * are always evaluated in the first pass's mode.
 *
 * Memory: nodes and everything they point to live in one arena (core's,
 * core/src/arena.h) owned by the compiled schema, except regexes
 * (schema_regex.c allocates its own). The compiler's scratch (registry, base
 * URIs, locations) is a second arena freed when compilation ends. No static
 * mutable state anywhere. */
#include "api/schema.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"

/* ---- Limits ---------------------------------------------------------------- */

/* Schema objects nested inside one another (the compiler recurses per level). */
#define SCH_MAX_NESTING 512
/* Nesting compared by const/enum/uniqueItems; deeper values compare unequal.
 * cJSON refuses documents nested deeper than 1000. */
#define SCH_EQUAL_MAX_DEPTH 1024
/* Longest violation message, in bytes. */
#define SCH_MSG_MAX 512
/* Longest text of allowed values in an enum message before it is cut. */
#define SCH_ENUM_MSG_MAX 240
/* Longest value or name quoted in a message, in bytes. */
#define SCH_QUOTE_MAX 64
/* Declared properties tracked in a bitset while an object is validated; the
 * required check of properties past this looks the member up instead. */
#define SCH_SEEN_MAX 256
/* Arrays up to this length are checked pairwise for uniqueItems; longer ones
 * are hashed and sorted, so the check stays O(n log n). */
#define SCH_UNIQUE_PAIRWISE 16
/* Objects declaring more properties than this get a hash index. */
#define SCH_PROP_HASH_MIN 8
/* Hops followed through $ref when guessing which types a branch admits. */
#define SCH_ADMIT_HOPS 8
/* Initial capacity of the instance-pointer buffer of the collecting pass. */
#define SCH_PTR_INITIAL 256

/* ---- Compiled schema ------------------------------------------------------- */

/* JSON types, as bits; an integral number has both NUMBER and INTEGER. */
enum {
    T_NULL = 1u << 0,
    T_BOOLEAN = 1u << 1,
    T_OBJECT = 1u << 2,
    T_ARRAY = 1u << 3,
    T_NUMBER = 1u << 4,
    T_STRING = 1u << 5,
    T_INTEGER = 1u << 6,
    T_ALL = (1u << 7) - 1u
};

/* Keywords present on a node whose value alone does not show it. */
enum {
    HAS_TYPE = 1u << 0,
    HAS_MINIMUM = 1u << 1,
    HAS_MAXIMUM = 1u << 2,
    HAS_EXMIN = 1u << 3,
    HAS_EXMAX = 1u << 4,
    HAS_MULTIPLE = 1u << 5,
    HAS_MINLEN = 1u << 6,
    HAS_MAXLEN = 1u << 7,
    HAS_MINITEMS = 1u << 8,
    HAS_MAXITEMS = 1u << 9,
    HAS_MINCONTAINS = 1u << 10,
    HAS_MAXCONTAINS = 1u << 11,
    HAS_MINPROPS = 1u << 12,
    HAS_MAXPROPS = 1u << 13,
    HAS_UNIQUE = 1u << 14,
    HAS_ENUM = 1u << 15,
    HAS_CONST = 1u << 16,
    HAS_REF = 1u << 17
};

/* Which instance kinds a node has type-specific keywords for. */
enum { K_NUM = 1u << 0, K_STR = 1u << 1, K_ARR = 1u << 2, K_OBJ = 1u << 3 };

struct sch_node;

struct sch_prop { /* properties, dependentSchemas */
    const char *name;
    struct sch_node *schema;
};

struct sch_pattern { /* patternProperties */
    api__sch_regex *re;
    struct sch_node *schema;
};

struct sch_required {
    const char *name;
    size_t prop; /* index in props, or SIZE_MAX when not a declared property */
};

struct sch_dep_required {
    const char *name;
    const char **names;
    size_t nnames;
};

struct sch_node {
    size_t index;          /* position in api_schema.nodes */
    size_t resource;       /* schema resource ($id) it belongs to, for $dynamicRef; SIZE_MAX none */
    uint32_t has;          /* HAS_* */
    uint8_t kinds;         /* K_* */
    bool is_false;         /* the boolean schema false */
    bool empty;            /* accepts everything: true, {} or only annotations */
    uint8_t types;         /* T_* allowed, with HAS_TYPE */
    const char *src_where; /* compiler scratch: location, valid during compilation only */

    struct sch_node *ref;
    struct sch_node *dyn_ref; /* $dynamicRef: the static target */
    const char *dyn_name;     /* its anchor name, when resolved dynamically */

    double minimum, maximum, exmin, exmax, multiple_of;

    size_t min_length, max_length;
    api__sch_regex *pattern;
    const char *pattern_src;

    struct sch_node **prefix;
    size_t nprefix;
    struct sch_node *items;
    struct sch_node *contains;
    size_t min_contains, max_contains, min_items, max_items;

    struct sch_prop *props;
    size_t nprops;
    uint32_t *prop_index;  /* open addressing: props index + 1, 0 empty; NULL if small */
    size_t prop_index_cap; /* a power of two */
    struct sch_pattern *patterns;
    size_t npatterns;
    struct sch_node *additional;
    struct sch_node *property_names;
    struct sch_required *required;
    size_t nrequired;
    size_t min_props, max_props;
    struct sch_dep_required *dep_required;
    size_t ndep_required;
    struct sch_prop *dep_schemas;
    size_t ndep_schemas;

    const cJSON *enum_values; /* borrowed from the document */
    const char *enum_msg;
    const cJSON *const_value; /* borrowed from the document */
    const char *const_msg;

    struct sch_node **all_of, **any_of, **one_of;
    size_t nall_of, nany_of, none_of;
    struct sch_node *not_schema, *if_schema, *then_schema, *else_schema;

    struct sch_node *uneval_props; /* unevaluatedProperties */
    struct sch_node *uneval_items; /* unevaluatedItems */
};

/* A $dynamicAnchor: a candidate target of $dynamicRef in its resource. */
struct sch_dyn_anchor {
    size_t resource;
    const char *name;
    struct sch_node *node;
};

struct api_schema {
    struct dc__arena arena;
    struct sch_node **nodes; /* every node, for cycle checks and freeing regexes */
    size_t nnodes, capnodes;
    struct sch_node *entry;
    struct sch_dyn_anchor *dyn; /* in the arena */
    size_t ndyn;
};

/* ---- Compiler state -------------------------------------------------------- */

/* A name in the document: a schema resource ($id, or the document itself) or
 * an anchor ($anchor, $dynamicAnchor: "uri#name"). */
struct sch_registered {
    const char *uri;
    const cJSON *node;
    const char *parent_base; /* base URI in effect around `node`, before its own $id */
    const char *where;
    bool is_resource;     /* a resource (uri has no fragment), not an anchor */
    const char *dyn_name; /* $dynamicAnchor name, else NULL */
    const char *dyn_base; /* ... and the URI of its resource */
};

/* A $ref or $dynamicRef waiting for resolution, once every schema is known. */
struct sch_pending_ref {
    struct sch_node *node;
    const char *uri;   /* resolved against the node's base */
    const char *where; /* location of the keyword */
    bool dynamic;      /* $dynamicRef */
};

/* Map from cJSON object to its compiled node. */
struct sch_map_slot {
    const cJSON *key;
    struct sch_node *node;
};

struct sch_compiler {
    api_schema *s;
    const cJSON *root;
    struct dc_error *err;
    struct dc__arena tmp; /* scratch freed when compilation ends */
    char *path;           /* location of what is being compiled, a JSON Pointer */
    size_t path_len, path_cap;
    unsigned depth;
    struct sch_registered *reg;
    size_t nreg, capreg;
    struct sch_pending_ref *pending;
    size_t npending, cappending, nresolved;
    struct sch_map_slot *map;
    size_t nmap, capmap; /* capmap is a power of two */
};

typedef enum dc_status (*sch_keyword_fn)(struct sch_compiler *cc, struct sch_node *n,
                                         const cJSON *v, const char *base);

/* ---- Validation state ------------------------------------------------------ */

/* Evaluated members of an object, or items of an array, by position: the
 * annotations unevaluatedProperties/unevaluatedItems read. Only a node with
 * one of those keywords asks for them, so other schemas pay nothing. */
#define SCH_EVAL_INLINE_WORDS 4 /* 256 positions without allocating */

struct sch_eval {
    uint64_t *bits;
    size_t n;
    uint64_t inline_bits[SCH_EVAL_INLINE_WORDS];
};

/* The dynamic scope: schema resources entered on the way to the current node,
 * innermost first, as frames on the C stack. */
struct sch_scope {
    size_t resource;
    const struct sch_scope *up;
};

struct sch_ctx {
    const api_schema *s;
    const struct sch_scope *scope;
    bool collect;      /* record violations (second pass) or only answer (first pass) */
    bool halt;         /* stop now: error, or more violations than max_errors */
    enum dc_status rc; /* DC_ENOMEM or DC_ELIMIT once something failed */
    unsigned ref_depth;
    size_t max_errors;
    struct api_schema_result *res;
    size_t cap; /* of res->items */
    char *ptr;  /* instance pointer (collecting pass only) */
    size_t ptr_len, ptr_cap;
    const char *name_prefix; /* the field name propertyNames is checking, quoted */
    struct dc_error *err;
};

static bool validate_node(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                          struct sch_eval *ev);
static enum dc_status compile_schema(struct sch_compiler *cc, const cJSON *js,
                                     const char *parent_base, struct sch_node **out);
static bool fail(struct sch_ctx *c, const char *keyword, const char *fmt, ...) DC_PRINTF(3, 4);
static enum dc_status cerr(struct sch_compiler *cc, const char *fmt, ...) DC_PRINTF(2, 3);

/* ---- Small helpers --------------------------------------------------------- */

#define SCH_JTYPE(v) ((v)->type & 0xFF)

static unsigned instance_type(const cJSON *v)
{
    switch (SCH_JTYPE(v)) {
    case cJSON_NULL:
        return T_NULL;
    case cJSON_False:
    case cJSON_True:
        return T_BOOLEAN;
    case cJSON_Object:
        return T_OBJECT;
    case cJSON_Array:
        return T_ARRAY;
    case cJSON_String:
        return T_STRING;
    case cJSON_Number: {
        double d = v->valuedouble;
        return isfinite(d) && floor(d) == d ? (T_NUMBER | T_INTEGER) : T_NUMBER;
    }
    default:
        return 0;
    }
}

/* "a string", "an integer or null": a type set for messages. */
static void types_text(unsigned types, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *text;
    } names[] = {
        {T_OBJECT, "an object"}, {T_ARRAY, "an array"},     {T_STRING, "a string"},
        {T_NUMBER, "a number"},  {T_INTEGER, "an integer"}, {T_BOOLEAN, "a boolean"},
        {T_NULL, "null"},
    };
    const char *picked[sizeof(names) / sizeof(names[0])];
    size_t n = 0;
    if ((types & T_NUMBER) != 0)
        types &= ~(unsigned)T_INTEGER; /* "a number" already includes integers */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if ((types & names[i].bit) != 0)
            picked[n++] = names[i].text;
    }
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && pos < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + pos, len - pos, "%s%s", sep, picked[i]);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

/* What the instance is, for "must be X, not Y". */
static const char *instance_text(const cJSON *v)
{
    switch (SCH_JTYPE(v)) {
    case cJSON_NULL:
        return "null";
    case cJSON_False:
    case cJSON_True:
        return "a boolean";
    case cJSON_Object:
        return "an object";
    case cJSON_Array:
        return "an array";
    case cJSON_String:
        return "a string";
    case cJSON_Number:
        return (instance_type(v) & T_INTEGER) != 0 ? "an integer" : "a fractional number";
    default:
        return "an invalid value";
    }
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s != '\0') {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

static bool has_member(const cJSON *obj, const char *name)
{
    for (const cJSON *m = obj->child; m != NULL; m = m->next) {
        if (m->string != NULL && strcmp(m->string, name) == 0)
            return true;
    }
    return false;
}

/* ---- Compiler: locations and errors ---------------------------------------- */

static enum dc_status cerr(struct sch_compiler *cc, const char *fmt, ...)
{
    char msg[DC_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return dc_error_set(cc->err, DC_EPARSE, cc->path, "%s", msg);
}

static enum dc_status nomem(struct sch_compiler *cc)
{
    return dc_error_set(cc->err, DC_ENOMEM, cc->path, "out of memory compiling the schema");
}

/* Append "/token" (escaped) to the compiler's location; *saved restores it. */
static enum dc_status path_push(struct sch_compiler *cc, const char *token, size_t *saved)
{
    size_t extra = 1;
    for (const char *p = token; *p != '\0'; p++)
        extra += (*p == '~' || *p == '/') ? 2 : 1;
    *saved = cc->path_len;
    if (cc->path_len + extra + 1 > cc->path_cap) {
        size_t cap = cc->path_cap * 2;
        while (cap < cc->path_len + extra + 1)
            cap *= 2;
        char *p = SCH_REALLOC(cc->path, cap);
        if (p == NULL)
            return nomem(cc);
        cc->path = p;
        cc->path_cap = cap;
    }
    char *w = cc->path + cc->path_len;
    *w++ = '/';
    for (const char *p = token; *p != '\0'; p++) {
        if (*p == '~' || *p == '/') {
            *w++ = '~';
            *w++ = *p == '~' ? '0' : '1';
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    cc->path_len = (size_t)(w - cc->path);
    return DC_OK;
}

static enum dc_status path_push_index(struct sch_compiler *cc, size_t i, size_t *saved)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%zu", i);
    return path_push(cc, buf, saved);
}

static void path_pop(struct sch_compiler *cc, size_t saved)
{
    cc->path_len = saved;
    cc->path[saved] = '\0';
}

/* Replace the location with `where` (a complete pointer). */
static enum dc_status path_set(struct sch_compiler *cc, const char *where)
{
    size_t len = strlen(where);
    if (len + 1 > cc->path_cap) {
        size_t cap = cc->path_cap;
        while (cap < len + 1)
            cap *= 2;
        char *p = SCH_REALLOC(cc->path, cap);
        if (p == NULL)
            return nomem(cc);
        cc->path = p;
        cc->path_cap = cap;
    }
    memcpy(cc->path, where, len + 1);
    cc->path_len = len;
    return DC_OK;
}

/* ---- Compiler: node map ---------------------------------------------------- */

static size_t map_slot(const struct sch_compiler *cc, const cJSON *key)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 7) & (cc->capmap - 1);
    while (cc->map[i].key != NULL && cc->map[i].key != key)
        i = (i + 1) & (cc->capmap - 1);
    return i;
}

static struct sch_node *map_get(const struct sch_compiler *cc, const cJSON *key)
{
    if (cc->capmap == 0)
        return NULL;
    return cc->map[map_slot(cc, key)].node;
}

static enum dc_status map_put(struct sch_compiler *cc, const cJSON *key, struct sch_node *node)
{
    if ((cc->nmap + 1) * 2 > cc->capmap) {
        size_t cap = cc->capmap != 0 ? cc->capmap * 2 : 64;
        struct sch_map_slot *old = cc->map;
        size_t oldcap = cc->capmap;
        cc->map = SCH_CALLOC(cap, sizeof(*cc->map));
        if (cc->map == NULL) {
            cc->map = old;
            return nomem(cc);
        }
        cc->capmap = cap;
        for (size_t i = 0; i < oldcap; i++) {
            if (old[i].key != NULL)
                cc->map[map_slot(cc, old[i].key)] = old[i];
        }
        free(old);
    }
    size_t i = map_slot(cc, key);
    cc->map[i].key = key;
    cc->map[i].node = node;
    cc->nmap++;
    return DC_OK;
}

/* ---- Compiler: registry of $id and $anchor --------------------------------- */

/* Register `uri` for `node`. A name defined twice keeps its first definition,
 * except that every $dynamicAnchor (dyn_name) is kept for $dynamicRef. */
static enum dc_status reg_add(struct sch_compiler *cc, const char *uri, const cJSON *node,
                              const char *parent_base, const char *dyn_name, const char *dyn_base)
{
    for (size_t i = 0; i < cc->nreg && dyn_name == NULL; i++) {
        if (strcmp(cc->reg[i].uri, uri) == 0)
            return DC_OK;
    }
    if (cc->nreg == cc->capreg) {
        size_t cap = cc->capreg != 0 ? cc->capreg * 2 : 16;
        struct sch_registered *r = SCH_REALLOC(cc->reg, cap * sizeof(*r));
        if (r == NULL)
            return nomem(cc);
        cc->reg = r;
        cc->capreg = cap;
    }
    struct sch_registered *e = &cc->reg[cc->nreg];
    e->uri = dc__arena_strdup(&cc->tmp, uri);
    e->where = dc__arena_strdup(&cc->tmp, cc->path);
    e->node = node;
    e->parent_base = parent_base;
    e->is_resource = strchr(uri, '#') == NULL;
    e->dyn_name = dyn_name;
    e->dyn_base = dyn_base;
    if (e->uri == NULL || e->where == NULL)
        return nomem(cc);
    cc->nreg++;
    return DC_OK;
}

/* Registry index of the resource whose URI is `uri`, or SIZE_MAX. */
static size_t reg_resource(const struct sch_compiler *cc, const char *uri)
{
    for (size_t i = 0; i < cc->nreg; i++) {
        if (cc->reg[i].is_resource && strcmp(cc->reg[i].uri, uri) == 0)
            return i;
    }
    return SIZE_MAX;
}

static const struct sch_registered *reg_find(const struct sch_compiler *cc, const char *uri,
                                             size_t len)
{
    for (size_t i = 0; i < cc->nreg; i++) {
        if (cc->reg[i].dyn_name == NULL && strlen(cc->reg[i].uri) == len &&
            memcmp(cc->reg[i].uri, uri, len) == 0)
            return &cc->reg[i];
    }
    return NULL;
}

/* Resolve `ref` against `base` into the scratch arena. */
static enum dc_status resolve_uri(struct sch_compiler *cc, const char *base, const char *ref,
                                  const char **out)
{
    char *tmp = NULL;
    if (api__sch_uri_resolve(base, ref, &tmp) != DC_OK)
        return nomem(cc);
    *out = dc__arena_strdup(&cc->tmp, tmp);
    free(tmp);
    return *out != NULL ? DC_OK : nomem(cc);
}

/* The keywords whose values are schemas, by shape: where the registry scan
 * looks for $id and $anchor. (The compiler proper dispatches on its own table
 * below; this list also covers keywords it does not compile, such as
 * contentSchema, so that names inside them are still found.) */
static const char *const sch_single_kw[] = {
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "additionalItems",
};
static const char *const sch_map_kw[] = {
    "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
};
static const char *const sch_array_kw[] = {"prefixItems", "allOf", "anyOf", "oneOf", "items"};

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i], s) == 0)
            return true;
    }
    return false;
}

#define SCH_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Register the $id and $anchor names of the schema `js` and of every schema
 * inside it (only at schema positions: an "$id" inside an enum value or an
 * unknown keyword names nothing). */
static enum dc_status scan_schema(struct sch_compiler *cc, const cJSON *js, const char *parent_base,
                                  unsigned depth)
{
    enum dc_status rc = DC_OK;
    if (!cJSON_IsObject(js) || depth > SCH_MAX_NESTING)
        return DC_OK; /* the compiler reports over-deep nesting where it matters */
    const char *base = parent_base;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(js, "$id");
    if (cJSON_IsString(id)) {
        rc = resolve_uri(cc, parent_base, id->valuestring, &base);
        if (rc == DC_OK)
            rc = reg_add(cc, base, js, parent_base, NULL, NULL);
        if (rc != DC_OK)
            return rc;
    }
    static const char *const anchor_kw[] = {"$anchor", "$dynamicAnchor"};
    for (size_t k = 0; k < SCH_COUNT(anchor_kw); k++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(js, anchor_kw[k]);
        if (!cJSON_IsString(a))
            continue;
        size_t blen = strlen(base);
        char *uri = dc__arena_alloc(&cc->tmp, blen + strlen(a->valuestring) + 2);
        if (uri == NULL)
            return nomem(cc);
        memcpy(uri, base, blen);
        uri[blen] = '#';
        strcpy(uri + blen + 1, a->valuestring);
        /* A $dynamicAnchor is also a plain anchor for $ref. */
        rc = reg_add(cc, uri, js, parent_base, NULL, NULL);
        if (rc == DC_OK && k == 1)
            rc = reg_add(cc, uri, js, parent_base, a->valuestring, base);
        if (rc != DC_OK)
            return rc;
    }
    for (const cJSON *m = js->child; m != NULL && rc == DC_OK; m = m->next) {
        bool single = in_list(sch_single_kw, SCH_COUNT(sch_single_kw), m->string);
        bool map = in_list(sch_map_kw, SCH_COUNT(sch_map_kw), m->string);
        bool arr = in_list(sch_array_kw, SCH_COUNT(sch_array_kw), m->string);
        if (!single && !map && !arr)
            continue;
        size_t saved = 0;
        rc = path_push(cc, m->string, &saved);
        if (rc != DC_OK)
            return rc;
        if (single && !cJSON_IsArray(m)) {
            rc = scan_schema(cc, m, base, depth + 1);
        } else if ((map && cJSON_IsObject(m)) || (arr && cJSON_IsArray(m))) {
            size_t i = 0;
            for (const cJSON *x = m->child; x != NULL && rc == DC_OK; x = x->next, i++) {
                size_t saved2 = 0;
                rc = map ? path_push(cc, x->string, &saved2) : path_push_index(cc, i, &saved2);
                if (rc == DC_OK) {
                    rc = scan_schema(cc, x, base, depth + 1);
                    path_pop(cc, saved2);
                }
            }
        }
        path_pop(cc, saved);
    }
    return rc;
}

/* ---- Compiler: JSON Pointer walk ------------------------------------------- */

/* Follow the (percent-decoded) JSON Pointer `ptr` from `start`, whose base URI
 * is `start_base`. On DC_OK: the target, the base URI in effect around it
 * (with every $id crossed on the way applied, but not the target's own), and
 * its location (start_where + ptr). Errors: DC_EPARSE (no such location),
 * DC_ENOMEM. */
static enum dc_status walk_pointer(struct sch_compiler *cc, const cJSON *start,
                                   const char *start_base, const char *start_where, const char *ptr,
                                   const char *shown, const cJSON **out, const char **out_base,
                                   const char **out_where)
{
    const cJSON *cur = start;
    const char *base = start_base;
    char *token = NULL;
    enum dc_status rc = DC_OK;
    size_t wlen = strlen(start_where);
    char *where = dc__arena_alloc(&cc->tmp, wlen + strlen(ptr) + 1);
    if (where == NULL)
        return nomem(cc);
    memcpy(where, start_where, wlen);
    strcpy(where + wlen, ptr);

    token = SCH_MALLOC(strlen(ptr) + 1);
    if (token == NULL)
        return nomem(cc);
    const char *p = ptr;
    while (*p == '/') {
        p++;
        size_t n = 0;
        while (*p != '\0' && *p != '/') {
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
                token[n++] = p[1] == '0' ? '~' : '/';
                p += 2;
            } else if (*p == '~') {
                rc = cerr(cc, "$ref \"%s\": invalid JSON Pointer escape '~' (use ~0 or ~1)", shown);
                goto out;
            } else {
                token[n++] = *p++;
            }
        }
        token[n] = '\0';
        if (cur != start && cJSON_IsObject(cur)) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(cur, "$id");
            if (cJSON_IsString(id)) {
                rc = resolve_uri(cc, base, id->valuestring, &base);
                if (rc != DC_OK)
                    goto out;
            }
        }
        const cJSON *next = NULL;
        if (cJSON_IsObject(cur)) {
            next = cJSON_GetObjectItemCaseSensitive(cur, token);
        } else if (cJSON_IsArray(cur)) {
            bool digits = n > 0 && (n == 1 || token[0] != '0');
            for (size_t i = 0; i < n && digits; i++)
                digits = token[i] >= '0' && token[i] <= '9';
            if (digits && n < 10)
                next = cJSON_GetArrayItem(cur, atoi(token));
        }
        if (next == NULL) {
            rc = cerr(cc, "$ref \"%s\" points to nothing: there is no \"%s\" at that place", shown,
                      token);
            goto out;
        }
        cur = next;
    }
    if (*p != '\0') {
        rc = cerr(cc, "$ref \"%s\": a JSON Pointer must start with '/'", shown);
        goto out;
    }
    *out = cur;
    *out_base = base;
    *out_where = where;
out:
    free(token);
    return rc;
}

/* Find the schema a resolved reference URI names. */
static enum dc_status resolve_ref(struct sch_compiler *cc, const char *uri, const char *shown,
                                  const cJSON **out, const char **out_base, const char **out_where)
{
    const char *hash = strchr(uri, '#');
    size_t rlen = hash != NULL ? (size_t)(hash - uri) : strlen(uri);
    const char *frag = hash != NULL ? hash + 1 : "";
    const struct sch_registered *res = reg_find(cc, uri, rlen);
    if (res == NULL)
        return cerr(cc,
                    "$ref \"%s\" is not in this document: remote references (and $id "
                    "URIs not defined here) are not supported",
                    shown);
    if (*frag == '\0') {
        *out = res->node;
        *out_base = res->parent_base;
        *out_where = res->where;
        return DC_OK;
    }
    if (*frag != '/') {
        const struct sch_registered *a = reg_find(cc, uri, strlen(uri));
        if (a == NULL)
            return cerr(cc, "$ref \"%s\": no $anchor \"%s\" in this document", shown, frag);
        *out = a->node;
        *out_base = a->parent_base;
        *out_where = a->where;
        return DC_OK;
    }
    char *decoded = NULL;
    if (api__sch_percent_decode(frag, &decoded) != DC_OK)
        return nomem(cc);
    /* Inside the resource its own URI is the base. */
    enum dc_status rc =
        walk_pointer(cc, res->node, res->uri, res->where, decoded, shown, out, out_base, out_where);
    free(decoded);
    return rc;
}

/* ---- Compiler: keyword value helpers --------------------------------------- */

static enum dc_status want_number(struct sch_compiler *cc, const cJSON *v, const char *kw,
                                  double *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return cerr(cc, "\"%s\" must be a number", kw);
    *out = v->valuedouble;
    return DC_OK;
}

/* A non-negative integer (1.0 counts), saturated at SIZE_MAX. */
static enum dc_status want_count(struct sch_compiler *cc, const cJSON *v, const char *kw,
                                 size_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        floor(v->valuedouble) != v->valuedouble)
        return cerr(cc, "\"%s\" must be a non-negative integer", kw);
    *out = v->valuedouble >= (double)SIZE_MAX ? SIZE_MAX : (size_t)v->valuedouble;
    return DC_OK;
}

static enum dc_status child(struct sch_compiler *cc, const cJSON *v, const char *base,
                            struct sch_node **out)
{
    return compile_schema(cc, v, base, out);
}

static enum dc_status child_at_key(struct sch_compiler *cc, const cJSON *v, const char *key,
                                   const char *base, struct sch_node **out)
{
    size_t saved = 0;
    enum dc_status rc = path_push(cc, key, &saved);
    if (rc != DC_OK)
        return rc;
    rc = compile_schema(cc, v, base, out);
    path_pop(cc, saved);
    return rc;
}

/* A non-empty array of schemas (allOf, anyOf, oneOf, prefixItems). */
static enum dc_status schema_array(struct sch_compiler *cc, const cJSON *v, const char *kw,
                                   const char *base, struct sch_node ***out, size_t *n)
{
    size_t count = (size_t)cJSON_GetArraySize(v);
    if (!cJSON_IsArray(v) || count == 0)
        return cerr(cc, "\"%s\" must be a non-empty array of schemas", kw);
    struct sch_node **arr = dc__arena_alloc(&cc->s->arena, count * sizeof(*arr));
    if (arr == NULL)
        return nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        size_t saved = 0;
        enum dc_status rc = path_push_index(cc, i, &saved);
        if (rc == DC_OK)
            rc = compile_schema(cc, x, base, &arr[i]);
        if (rc != DC_OK)
            return rc;
        path_pop(cc, saved);
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* An object whose values are schemas (properties, dependentSchemas). */
static enum dc_status schema_map(struct sch_compiler *cc, const cJSON *v, const char *kw,
                                 const char *base, struct sch_prop **out, size_t *n)
{
    if (!cJSON_IsObject(v))
        return cerr(cc, "\"%s\" must be an object whose values are schemas", kw);
    size_t count = (size_t)cJSON_GetArraySize(v);
    struct sch_prop *arr = dc__arena_alloc(&cc->s->arena, (count != 0 ? count : 1) * sizeof(*arr));
    if (arr == NULL)
        return nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        arr[i].name = dc__arena_strdup(&cc->s->arena, x->string);
        if (arr[i].name == NULL)
            return nomem(cc);
        enum dc_status rc = child_at_key(cc, x, x->string, base, &arr[i].schema);
        if (rc != DC_OK)
            return rc;
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* An array of strings (required, dependentRequired values). */
static enum dc_status string_array(struct sch_compiler *cc, const cJSON *v, const char *kw,
                                   const char ***out, size_t *n)
{
    if (!cJSON_IsArray(v))
        return cerr(cc, "\"%s\" must be an array of strings", kw);
    size_t count = (size_t)cJSON_GetArraySize(v);
    const char **arr = dc__arena_alloc(&cc->s->arena, (count != 0 ? count : 1) * sizeof(*arr));
    if (arr == NULL)
        return nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        if (!cJSON_IsString(x))
            return cerr(cc, "\"%s\" must be an array of strings (item %zu is not)", kw, i);
        arr[i] = dc__arena_strdup(&cc->s->arena, x->valuestring);
        if (arr[i] == NULL)
            return nomem(cc);
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* ---- Compiler: keywords ---------------------------------------------------- */

static enum dc_status kw_type(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                              const char *base)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {
        {"null", T_NULL},     {"boolean", T_BOOLEAN}, {"object", T_OBJECT},   {"array", T_ARRAY},
        {"number", T_NUMBER}, {"string", T_STRING},   {"integer", T_INTEGER},
    };
    (void)base;
    if (!cJSON_IsString(v) && !cJSON_IsArray(v))
        return cerr(cc, "\"type\" must be a type name or an array of type names");
    unsigned types = 0;
    const cJSON *t = cJSON_IsString(v) ? v : v->child;
    for (; t != NULL; t = cJSON_IsString(v) ? NULL : t->next) {
        unsigned bit = 0;
        for (size_t i = 0; i < SCH_COUNT(names) && cJSON_IsString(t); i++) {
            if (strcmp(names[i].name, t->valuestring) == 0)
                bit = names[i].bits;
        }
        if (bit == 0) {
            char q[SCH_QUOTE_MAX + 16];
            api__sch_json_print(t, q, sizeof(q));
            return cerr(cc,
                        "\"type\": unknown type %s (expected null, boolean, object, array, "
                        "number, string or integer)",
                        q);
        }
        types |= bit;
    }
    n->has |= HAS_TYPE;
    n->types = (uint8_t)types;
    return DC_OK;
}

static enum dc_status kw_enum(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                              const char *base)
{
    (void)base;
    if (!cJSON_IsArray(v))
        return cerr(cc, "\"enum\" must be an array");
    /* "must be one of: a, b, c": strings bare, as users type them; other
     * values as JSON. */
    char msg[SCH_ENUM_MSG_MAX + 64];
    size_t pos = (size_t)snprintf(msg, sizeof(msg), "%s",
                                  v->child == NULL ? "must be one of: (no value is allowed)"
                                                   : "must be one of: ");
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        char item[SCH_ENUM_MSG_MAX];
        if (cJSON_IsString(x) && x->valuestring[0] != '\0' && strchr(x->valuestring, ',') == NULL &&
            strlen(x->valuestring) < sizeof(item))
            snprintf(item, sizeof(item), "%s", x->valuestring);
        else
            api__sch_json_print(x, item, sizeof(item));
        const char *sep = x == v->child ? "" : ", ";
        if (pos + strlen(sep) + strlen(item) > SCH_ENUM_MSG_MAX) {
            snprintf(msg + pos, sizeof(msg) - pos, "%s...", sep);
            break;
        }
        pos += (size_t)snprintf(msg + pos, sizeof(msg) - pos, "%s%s", sep, item);
    }
    n->enum_msg = dc__arena_strdup(&cc->s->arena, msg);
    if (n->enum_msg == NULL)
        return nomem(cc);
    n->enum_values = v;
    n->has |= HAS_ENUM;
    return DC_OK;
}

static enum dc_status kw_const(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                               const char *base)
{
    (void)base;
    char text[SCH_ENUM_MSG_MAX];
    char msg[SCH_ENUM_MSG_MAX + 16];
    api__sch_json_print(v, text, sizeof(text));
    snprintf(msg, sizeof(msg), "must be %s", text);
    n->const_msg = dc__arena_strdup(&cc->s->arena, msg);
    if (n->const_msg == NULL)
        return nomem(cc);
    n->const_value = v;
    n->has |= HAS_CONST;
    return DC_OK;
}

#define SCH_NUMBER_KW(fn, kwname, field, bit)                                                      \
    static enum dc_status fn(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,          \
                             const char *base)                                                     \
    {                                                                                              \
        (void)base;                                                                                \
        n->has |= (bit);                                                                           \
        return want_number(cc, v, kwname, &n->field);                                              \
    }
SCH_NUMBER_KW(kw_minimum, "minimum", minimum, HAS_MINIMUM)
SCH_NUMBER_KW(kw_maximum, "maximum", maximum, HAS_MAXIMUM)
SCH_NUMBER_KW(kw_exmin, "exclusiveMinimum", exmin, HAS_EXMIN)
SCH_NUMBER_KW(kw_exmax, "exclusiveMaximum", exmax, HAS_EXMAX)

#define SCH_COUNT_KW(fn, kwname, field, bit)                                                       \
    static enum dc_status fn(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,          \
                             const char *base)                                                     \
    {                                                                                              \
        (void)base;                                                                                \
        n->has |= (bit);                                                                           \
        return want_count(cc, v, kwname, &n->field);                                               \
    }
SCH_COUNT_KW(kw_min_length, "minLength", min_length, HAS_MINLEN)
SCH_COUNT_KW(kw_max_length, "maxLength", max_length, HAS_MAXLEN)
SCH_COUNT_KW(kw_min_items, "minItems", min_items, HAS_MINITEMS)
SCH_COUNT_KW(kw_max_items, "maxItems", max_items, HAS_MAXITEMS)
SCH_COUNT_KW(kw_min_contains, "minContains", min_contains, HAS_MINCONTAINS)
SCH_COUNT_KW(kw_max_contains, "maxContains", max_contains, HAS_MAXCONTAINS)
SCH_COUNT_KW(kw_min_props, "minProperties", min_props, HAS_MINPROPS)
SCH_COUNT_KW(kw_max_props, "maxProperties", max_props, HAS_MAXPROPS)

static enum dc_status kw_multiple_of(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                     const char *base)
{
    (void)base;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble <= 0)
        return cerr(cc, "\"multipleOf\" must be a number greater than 0");
    n->multiple_of = v->valuedouble;
    n->has |= HAS_MULTIPLE;
    return DC_OK;
}

static enum dc_status kw_unique(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                const char *base)
{
    (void)base;
    if (!cJSON_IsBool(v))
        return cerr(cc, "\"uniqueItems\" must be true or false");
    if (cJSON_IsTrue(v))
        n->has |= HAS_UNIQUE;
    return DC_OK;
}

static enum dc_status kw_pattern(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                 const char *base)
{
    char msg[128];
    (void)base;
    if (!cJSON_IsString(v))
        return cerr(cc, "\"pattern\" must be a string");
    enum dc_status rc = api__sch_regex_compile(v->valuestring, &n->pattern, msg, sizeof(msg));
    if (rc == DC_ENOMEM)
        return nomem(cc);
    if (rc != DC_OK)
        return cerr(cc, "\"pattern\" is not a supported regular expression: %s", msg);
    n->pattern_src = dc__arena_strdup(&cc->s->arena, v->valuestring);
    return n->pattern_src != NULL ? DC_OK : nomem(cc);
}

static enum dc_status add_pending(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                  const char *base, bool dynamic)
{
    if (!cJSON_IsString(v))
        return cerr(cc, "\"%s\" must be a string", dynamic ? "$dynamicRef" : "$ref");
    if (cc->npending == cc->cappending) {
        size_t cap = cc->cappending != 0 ? cc->cappending * 2 : 16;
        struct sch_pending_ref *p = SCH_REALLOC(cc->pending, cap * sizeof(*p));
        if (p == NULL)
            return nomem(cc);
        cc->pending = p;
        cc->cappending = cap;
    }
    struct sch_pending_ref *p = &cc->pending[cc->npending];
    enum dc_status rc = resolve_uri(cc, base, v->valuestring, &p->uri);
    if (rc != DC_OK)
        return rc;
    p->where = dc__arena_strdup(&cc->tmp, cc->path);
    if (p->where == NULL)
        return nomem(cc);
    p->node = n;
    p->dynamic = dynamic;
    cc->npending++;
    n->has |= HAS_REF;
    return DC_OK;
}

static enum dc_status kw_ref(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                             const char *base)
{
    return add_pending(cc, n, v, base, false);
}

static enum dc_status kw_dynamic_ref(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                     const char *base)
{
    return add_pending(cc, n, v, base, true);
}

static enum dc_status kw_unsupported(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                     const char *base)
{
    (void)n;
    (void)v;
    (void)base;
    /* Ignoring these would silently accept what the schema author meant to
     * reject, so they fail loudly instead. */
    const char *kw = strrchr(cc->path, '/');
    return cerr(cc, "keyword \"%s\" is not supported by this validator", kw != NULL ? kw + 1 : "");
}

static enum dc_status kw_properties(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                    const char *base)
{
    enum dc_status rc = schema_map(cc, v, "properties", base, &n->props, &n->nprops);
    if (rc != DC_OK || n->nprops <= SCH_PROP_HASH_MIN)
        return rc;
    size_t cap = 16;
    while (cap < n->nprops * 2)
        cap *= 2;
    n->prop_index = dc__arena_alloc(&cc->s->arena, cap * sizeof(*n->prop_index));
    if (n->prop_index == NULL)
        return nomem(cc);
    n->prop_index_cap = cap;
    for (size_t i = 0; i < n->nprops; i++) {
        size_t slot = name_hash(n->props[i].name) & (cap - 1);
        while (n->prop_index[slot] != 0)
            slot = (slot + 1) & (cap - 1);
        n->prop_index[slot] = (uint32_t)(i + 1);
    }
    return DC_OK;
}

static enum dc_status kw_pattern_props(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                       const char *base)
{
    if (!cJSON_IsObject(v))
        return cerr(cc, "\"patternProperties\" must be an object whose values are schemas");
    size_t count = (size_t)cJSON_GetArraySize(v);
    n->patterns = dc__arena_alloc(&cc->s->arena, (count != 0 ? count : 1) * sizeof(*n->patterns));
    if (n->patterns == NULL)
        return nomem(cc);
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        char msg[128];
        struct sch_pattern *p = &n->patterns[n->npatterns];
        enum dc_status rc = api__sch_regex_compile(x->string, &p->re, msg, sizeof(msg));
        if (rc == DC_ENOMEM)
            return nomem(cc);
        if (rc != DC_OK)
            return cerr(cc,
                        "\"patternProperties\": \"%s\" is not a supported regular "
                        "expression: %s",
                        x->string, msg);
        /* Counted now so api_schema_free releases the regex even if the
         * subschema fails to compile. */
        n->npatterns++;
        rc = child_at_key(cc, x, x->string, base, &p->schema);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

static enum dc_status kw_additional(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                    const char *base)
{
    return child(cc, v, base, &n->additional);
}

static enum dc_status kw_property_names(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                        const char *base)
{
    return child(cc, v, base, &n->property_names);
}

static enum dc_status kw_required(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                  const char *base)
{
    const char **names = NULL;
    size_t count = 0;
    (void)base;
    enum dc_status rc = string_array(cc, v, "required", &names, &count);
    if (rc != DC_OK)
        return rc;
    n->required = dc__arena_alloc(&cc->s->arena, (count != 0 ? count : 1) * sizeof(*n->required));
    if (n->required == NULL)
        return nomem(cc);
    for (size_t i = 0; i < count; i++) {
        n->required[i].name = names[i];
        n->required[i].prop = SIZE_MAX; /* linked to properties once the node is complete */
    }
    n->nrequired = count;
    return DC_OK;
}

static enum dc_status kw_dep_required(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                      const char *base)
{
    (void)base;
    if (!cJSON_IsObject(v))
        return cerr(cc, "\"dependentRequired\" must be an object whose values are arrays of "
                        "strings");
    size_t count = (size_t)cJSON_GetArraySize(v);
    n->dep_required =
        dc__arena_alloc(&cc->s->arena, (count != 0 ? count : 1) * sizeof(*n->dep_required));
    if (n->dep_required == NULL)
        return nomem(cc);
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        struct sch_dep_required *d = &n->dep_required[n->ndep_required];
        size_t saved = 0;
        enum dc_status rc = path_push(cc, x->string, &saved);
        if (rc == DC_OK)
            rc = string_array(cc, x, "dependentRequired", &d->names, &d->nnames);
        if (rc != DC_OK)
            return rc;
        path_pop(cc, saved);
        d->name = dc__arena_strdup(&cc->s->arena, x->string);
        if (d->name == NULL)
            return nomem(cc);
        n->ndep_required++;
    }
    return DC_OK;
}

static enum dc_status kw_dep_schemas(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                     const char *base)
{
    return schema_map(cc, v, "dependentSchemas", base, &n->dep_schemas, &n->ndep_schemas);
}

static enum dc_status kw_items(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                               const char *base)
{
    if (cJSON_IsArray(v))
        return cerr(cc, "\"items\" must be a schema (draft 2020-12 uses \"prefixItems\" for "
                        "tuples)");
    return child(cc, v, base, &n->items);
}

static enum dc_status kw_prefix_items(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                      const char *base)
{
    return schema_array(cc, v, "prefixItems", base, &n->prefix, &n->nprefix);
}

static enum dc_status kw_contains(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                  const char *base)
{
    return child(cc, v, base, &n->contains);
}

static enum dc_status kw_all_of(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                const char *base)
{
    return schema_array(cc, v, "allOf", base, &n->all_of, &n->nall_of);
}

static enum dc_status kw_any_of(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                const char *base)
{
    return schema_array(cc, v, "anyOf", base, &n->any_of, &n->nany_of);
}

static enum dc_status kw_one_of(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                const char *base)
{
    return schema_array(cc, v, "oneOf", base, &n->one_of, &n->none_of);
}

static enum dc_status kw_not(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                             const char *base)
{
    return child(cc, v, base, &n->not_schema);
}

static enum dc_status kw_if(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                            const char *base)
{
    return child(cc, v, base, &n->if_schema);
}

static enum dc_status kw_then(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                              const char *base)
{
    return child(cc, v, base, &n->then_schema);
}

static enum dc_status kw_else(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                              const char *base)
{
    return child(cc, v, base, &n->else_schema);
}

static enum dc_status kw_uneval_props(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                      const char *base)
{
    return child(cc, v, base, &n->uneval_props);
}

static enum dc_status kw_uneval_items(struct sch_compiler *cc, struct sch_node *n, const cJSON *v,
                                      const char *base)
{
    return child(cc, v, base, &n->uneval_items);
}

/* Every keyword the validator acts on. Anything else is an annotation or an
 * unknown keyword and is ignored, as the specification asks ("format",
 * "title", "default", "description", "examples", OpenAPI's "discriminator",
 * "xml", "example", ...). */
static const struct {
    const char *name;
    sch_keyword_fn fn;
} sch_keywords[] = {
    {"$ref", kw_ref},
    {"$dynamicRef", kw_dynamic_ref},
    {"$recursiveRef", kw_unsupported},
    {"type", kw_type},
    {"enum", kw_enum},
    {"const", kw_const},
    {"minimum", kw_minimum},
    {"maximum", kw_maximum},
    {"exclusiveMinimum", kw_exmin},
    {"exclusiveMaximum", kw_exmax},
    {"multipleOf", kw_multiple_of},
    {"minLength", kw_min_length},
    {"maxLength", kw_max_length},
    {"pattern", kw_pattern},
    {"items", kw_items},
    {"prefixItems", kw_prefix_items},
    {"contains", kw_contains},
    {"minContains", kw_min_contains},
    {"maxContains", kw_max_contains},
    {"minItems", kw_min_items},
    {"maxItems", kw_max_items},
    {"uniqueItems", kw_unique},
    {"unevaluatedItems", kw_uneval_items},
    {"properties", kw_properties},
    {"patternProperties", kw_pattern_props},
    {"additionalProperties", kw_additional},
    {"propertyNames", kw_property_names},
    {"required", kw_required},
    {"minProperties", kw_min_props},
    {"maxProperties", kw_max_props},
    {"dependentRequired", kw_dep_required},
    {"dependentSchemas", kw_dep_schemas},
    {"unevaluatedProperties", kw_uneval_props},
    {"allOf", kw_all_of},
    {"anyOf", kw_any_of},
    {"oneOf", kw_one_of},
    {"not", kw_not},
    {"if", kw_if},
    {"then", kw_then},
    {"else", kw_else},
};

/* Derived fields, once all keywords of `n` are in. */
static void finish_node(struct sch_node *n)
{
    for (size_t i = 0; i < n->nrequired; i++) {
        for (size_t k = 0; k < n->nprops; k++) {
            if (strcmp(n->required[i].name, n->props[k].name) == 0) {
                n->required[i].prop = k;
                break;
            }
        }
    }
    if ((n->has & (HAS_MINIMUM | HAS_MAXIMUM | HAS_EXMIN | HAS_EXMAX | HAS_MULTIPLE)) != 0)
        n->kinds |= K_NUM;
    if ((n->has & (HAS_MINLEN | HAS_MAXLEN)) != 0 || n->pattern != NULL)
        n->kinds |= K_STR;
    if ((n->has & (HAS_MINITEMS | HAS_MAXITEMS | HAS_UNIQUE)) != 0 || n->nprefix != 0 ||
        n->items != NULL || n->contains != NULL || n->uneval_items != NULL)
        n->kinds |= K_ARR;
    if ((n->has & (HAS_MINPROPS | HAS_MAXPROPS)) != 0 || n->nprops != 0 || n->npatterns != 0 ||
        n->additional != NULL || n->property_names != NULL || n->nrequired != 0 ||
        n->ndep_required != 0 || n->ndep_schemas != 0 || n->uneval_props != NULL)
        n->kinds |= K_OBJ;
    n->empty = !n->is_false && n->kinds == 0 &&
               (n->has & (HAS_TYPE | HAS_ENUM | HAS_CONST | HAS_REF)) == 0 && n->nall_of == 0 &&
               n->nany_of == 0 && n->none_of == 0 && n->not_schema == NULL && n->if_schema == NULL;
}

static enum dc_status new_node(struct sch_compiler *cc, const cJSON *js, struct sch_node **out)
{
    api_schema *s = cc->s;
    struct sch_node *n = dc__arena_alloc(&s->arena, sizeof(*n));
    if (n == NULL)
        return nomem(cc);
    if (s->nnodes == s->capnodes) {
        size_t cap = s->capnodes != 0 ? s->capnodes * 2 : 32;
        struct sch_node **nodes = SCH_REALLOC(s->nodes, cap * sizeof(*nodes));
        if (nodes == NULL)
            return nomem(cc);
        s->nodes = nodes;
        s->capnodes = cap;
    }
    n->resource = SIZE_MAX;
    n->src_where = dc__arena_strdup(&cc->tmp, cc->path);
    if (n->src_where == NULL)
        return nomem(cc);
    enum dc_status rc = map_put(cc, js, n);
    if (rc != DC_OK)
        return rc;
    n->index = s->nnodes;
    s->nodes[s->nnodes++] = n;
    *out = n;
    return DC_OK;
}

/* Compile the schema `js`, located at cc->path, around which the base URI is
 * `parent_base`. Returns the existing node if `js` was compiled before. */
static enum dc_status compile_schema(struct sch_compiler *cc, const cJSON *js,
                                     const char *parent_base, struct sch_node **out)
{
    struct sch_node *n = map_get(cc, js);
    enum dc_status rc = DC_OK;
    if (n != NULL) {
        *out = n;
        return DC_OK;
    }
    if (!cJSON_IsObject(js) && !cJSON_IsBool(js))
        return cerr(cc, "a schema must be an object or a boolean");
    if (cc->depth >= SCH_MAX_NESTING)
        return cerr(cc, "schema nested deeper than %d levels", SCH_MAX_NESTING);
    rc = new_node(cc, js, &n);
    if (rc != DC_OK)
        return rc;
    if (cJSON_IsBool(js)) {
        n->is_false = cJSON_IsFalse(js);
        finish_node(n);
        *out = n;
        return DC_OK;
    }
    const char *base = parent_base;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(js, "$id");
    if (id != NULL) {
        if (!cJSON_IsString(id))
            return cerr(cc, "\"$id\" must be a string");
        rc = resolve_uri(cc, parent_base, id->valuestring, &base);
        if (rc != DC_OK)
            return rc;
    }
    n->resource = reg_resource(cc, base);
    cc->depth++;
    for (const cJSON *m = js->child; m != NULL && rc == DC_OK; m = m->next) {
        for (size_t k = 0; k < SCH_COUNT(sch_keywords); k++) {
            if (strcmp(sch_keywords[k].name, m->string) != 0)
                continue;
            size_t saved = 0;
            rc = path_push(cc, m->string, &saved);
            if (rc == DC_OK)
                rc = sch_keywords[k].fn(cc, n, m, base);
            if (rc == DC_OK)
                path_pop(cc, saved);
            break;
        }
    }
    cc->depth--;
    if (rc != DC_OK)
        return rc;
    finish_node(n);
    *out = n;
    return DC_OK;
}

/* Resolve every reference recorded so far; compiling a target may record more. */
static enum dc_status resolve_pending(struct sch_compiler *cc)
{
    for (; cc->nresolved < cc->npending; cc->nresolved++) {
        struct sch_pending_ref p = cc->pending[cc->nresolved];
        const cJSON *target = NULL;
        const char *base = NULL;
        const char *where = NULL;
        struct sch_node *node = NULL;
        enum dc_status rc = path_set(cc, p.where);
        if (rc == DC_OK)
            rc = resolve_ref(cc, p.uri, p.uri, &target, &base, &where);
        if (rc == DC_OK)
            rc = path_set(cc, where);
        if (rc == DC_OK)
            rc = compile_schema(cc, target, base, &node);
        if (rc != DC_OK)
            return rc;
        p.node->empty = false;
        if (!p.dynamic) {
            p.node->ref = node;
            continue;
        }
        p.node->dyn_ref = node;
        /* $dynamicRef is dynamic only if its plain-name fragment lands on a
         * $dynamicAnchor of that name; otherwise it is an ordinary $ref. */
        const char *frag = strchr(p.uri, '#');
        const cJSON *anchor = cJSON_GetObjectItemCaseSensitive(target, "$dynamicAnchor");
        if (frag != NULL && frag[1] != '/' && cJSON_IsString(anchor) &&
            strcmp(anchor->valuestring, frag + 1) == 0) {
            p.node->dyn_name = dc__arena_strdup(&cc->s->arena, frag + 1);
            if (p.node->dyn_name == NULL)
                return nomem(cc);
        }
    }
    return DC_OK;
}

/* Compile every $dynamicAnchor of the document, the targets $dynamicRef may
 * switch to at run time, into the schema's table. */
static enum dc_status compile_dynamic_anchors(struct sch_compiler *cc)
{
    size_t count = 0;
    for (size_t i = 0; i < cc->nreg; i++)
        count += cc->reg[i].dyn_name != NULL;
    if (count == 0)
        return DC_OK;
    api_schema *s = cc->s;
    s->dyn = dc__arena_alloc(&s->arena, count * sizeof(*s->dyn));
    if (s->dyn == NULL)
        return nomem(cc);
    for (size_t i = 0; i < cc->nreg; i++) {
        const struct sch_registered *r = &cc->reg[i];
        if (r->dyn_name == NULL)
            continue;
        struct sch_dyn_anchor *d = &s->dyn[s->ndyn];
        enum dc_status rc = path_set(cc, r->where);
        if (rc == DC_OK)
            rc = compile_schema(cc, r->node, r->parent_base, &d->node);
        if (rc != DC_OK)
            return rc;
        d->resource = reg_resource(cc, r->dyn_base);
        d->name = dc__arena_strdup(&s->arena, r->dyn_name);
        if (d->name == NULL)
            return nomem(cc);
        s->ndyn++;
    }
    return resolve_pending(cc);
}

/* Number of schemas applied to the same instance location as `n`: the edges
 * along which a reference cycle makes no progress. */
#define SCH_SINGLE_EDGES 6

static size_t same_place_count(const struct sch_node *n)
{
    return SCH_SINGLE_EDGES + n->nall_of + n->nany_of + n->none_of + n->ndep_schemas;
}

/* The i-th of them (i < same_place_count(n)); NULL for an absent keyword. */
static const struct sch_node *same_place_edge(const struct sch_node *n, size_t i)
{
    if (i < SCH_SINGLE_EDGES) {
        const struct sch_node *single[SCH_SINGLE_EDGES] = {
            n->ref, n->dyn_ref, n->not_schema, n->if_schema, n->then_schema, n->else_schema};
        return single[i];
    }
    i -= SCH_SINGLE_EDGES;
    if (i < n->nall_of)
        return n->all_of[i];
    i -= n->nall_of;
    if (i < n->nany_of)
        return n->any_of[i];
    i -= n->nany_of;
    if (i < n->none_of)
        return n->one_of[i];
    i -= n->none_of;
    return i < n->ndep_schemas ? n->dep_schemas[i].schema : NULL;
}

/* Reject cycles of schemas applied to the same instance location (a $ref that
 * reaches itself through $ref/allOf/anyOf/oneOf/not/if/then/else/
 * dependentSchemas only): validating them would never terminate. Iterative
 * depth-first search, so long $ref chains cannot exhaust the stack. */
static enum dc_status check_cycles(struct sch_compiler *cc)
{
    api_schema *s = cc->s;
    enum dc_status rc = DC_OK;
    size_t n = s->nnodes != 0 ? s->nnodes : 1;
    unsigned char *color = SCH_CALLOC(n, 1); /* 0 unvisited, 1 on the path, 2 done */
    struct frame {
        const struct sch_node *node;
        size_t edge;
    } *stack = SCH_MALLOC(n * sizeof(*stack));
    if (color == NULL || stack == NULL) {
        rc = nomem(cc);
        goto out;
    }
    for (size_t start = 0; start < s->nnodes; start++) {
        if (color[start] != 0)
            continue;
        size_t sp = 0;
        stack[sp].node = s->nodes[start];
        stack[sp++].edge = 0;
        color[start] = 1;
        while (sp > 0) {
            struct frame *f = &stack[sp - 1];
            const struct sch_node *next = NULL;
            size_t total = same_place_count(f->node);
            while (next == NULL && f->edge < total)
                next = same_place_edge(f->node, f->edge++);
            if (next == NULL) {
                color[f->node->index] = 2;
                sp--;
                continue;
            }
            if (color[next->index] == 1) {
                rc = path_set(cc, next->src_where);
                if (rc == DC_OK)
                    rc =
                        cerr(cc, "$ref cycle: this schema applies itself to the same value "
                                 "again without descending into it, so validation would never end");
                goto out;
            }
            if (color[next->index] == 0) {
                color[next->index] = 1;
                stack[sp].node = next;
                stack[sp++].edge = 0;
            }
        }
    }
out:
    free(color);
    free(stack);
    return rc;
}

/* ---- Validation: violations and the instance pointer ----------------------- */

static void set_halt(struct sch_ctx *c, enum dc_status rc)
{
    if (c->rc == DC_OK)
        c->rc = rc;
    c->halt = true;
}

/* Append "/token" (escaped) to the instance pointer, collecting pass only.
 * Returns the length to restore. */
static size_t ptr_push(struct sch_ctx *c, const char *token)
{
    size_t saved = c->ptr_len;
    if (!c->collect || c->halt)
        return saved;
    size_t extra = 1;
    for (const char *p = token; *p != '\0'; p++)
        extra += (*p == '~' || *p == '/') ? 2 : 1;
    if (c->ptr_len + extra + 1 > c->ptr_cap) {
        size_t cap = c->ptr_cap * 2;
        while (cap < c->ptr_len + extra + 1)
            cap *= 2;
        char *p = SCH_REALLOC(c->ptr, cap);
        if (p == NULL) {
            set_halt(c, DC_ENOMEM);
            return saved;
        }
        c->ptr = p;
        c->ptr_cap = cap;
    }
    char *w = c->ptr + c->ptr_len;
    *w++ = '/';
    for (const char *p = token; *p != '\0'; p++) {
        if (*p == '~' || *p == '/') {
            *w++ = '~';
            *w++ = *p == '~' ? '0' : '1';
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    c->ptr_len = (size_t)(w - c->ptr);
    return saved;
}

static size_t ptr_push_index(struct sch_ctx *c, size_t i)
{
    char buf[24];
    if (!c->collect)
        return c->ptr_len;
    snprintf(buf, sizeof(buf), "%zu", i);
    return ptr_push(c, buf);
}

static void ptr_pop(struct sch_ctx *c, size_t saved)
{
    if (!c->collect || c->ptr == NULL)
        return;
    c->ptr_len = saved;
    c->ptr[saved] = '\0';
}

static bool keep_going(const struct sch_ctx *c)
{
    return c->collect && !c->halt;
}

/* Record one violation at the current pointer. Returns whether validation
 * should go on looking for more (false in the first pass, after an error, or
 * when max_errors is reached and this one did not fit). */
static bool fail(struct sch_ctx *c, const char *keyword, const char *fmt, ...)
{
    if (!c->collect || c->halt)
        return false;
    struct api_schema_result *res = c->res;
    if (res->count == c->max_errors) {
        res->truncated = true;
        c->halt = true;
        return false;
    }
    char msg[SCH_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    const char *text = msg;
    char named[SCH_MSG_MAX + SCH_QUOTE_MAX + 32];
    if (c->name_prefix != NULL) {
        /* Inside propertyNames the instance is a field name, not a value. */
        snprintf(named, sizeof(named), "field name %s %s", c->name_prefix, msg);
        text = named;
        keyword = "propertyNames";
    }
    if (res->count == c->cap) {
        size_t cap = c->cap != 0 ? c->cap * 2 : 8;
        if (cap > c->max_errors)
            cap = c->max_errors;
        struct api_schema_violation *items = SCH_REALLOC(res->items, cap * sizeof(*items));
        if (items == NULL) {
            set_halt(c, DC_ENOMEM);
            return false;
        }
        res->items = items;
        c->cap = cap;
    }
    /* One block per violation: pointer, keyword and message back to back;
     * api_schema_result_cleanup frees it through `pointer`. */
    size_t plen = c->ptr_len;
    size_t klen = strlen(keyword);
    size_t mlen = strlen(text);
    char *block = SCH_MALLOC(plen + klen + mlen + 3);
    if (block == NULL) {
        set_halt(c, DC_ENOMEM);
        return false;
    }
    struct api_schema_violation *v = &res->items[res->count++];
    v->pointer = block;
    memcpy(block, c->ptr, plen + 1);
    v->keyword = block + plen + 1;
    memcpy(v->keyword, keyword, klen + 1);
    v->message = v->keyword + klen + 1;
    memcpy(v->message, text, mlen + 1);
    return true;
}

/* ---- Validation: keywords by instance type --------------------------------- */

/* multipleOf for binary doubles that stand for decimals: 0.0075 / 0.0001 is
 * 75.00000000000001, not 75. The quotient is accepted when within a few ulps
 * of an integer; quotients beyond 2^53 are integers at double precision; an
 * overflowing quotient falls back to the exact remainder (1e308 is a multiple
 * of 0.5, not of 0.123456789). */
static bool is_multiple(double x, double m)
{
    double q = x / m;
    if (!isfinite(q))
        return fmod(x, m) == 0.0;
    if (fabs(q) >= 9007199254740992.0)
        return true;
    double r = nearbyint(q);
    return fabs(q - r) <= 4.0 * DBL_EPSILON * fmax(fabs(q), 1.0);
}

static bool check_number(struct sch_ctx *c, const struct sch_node *n, const cJSON *v)
{
    double d = v->valuedouble;
    bool ok = true;
    char num[32];
    if ((n->has & HAS_MINIMUM) != 0 && d < n->minimum) {
        api__sch_format_number(n->minimum, num, sizeof(num));
        ok = false;
        if (!fail(c, "minimum", "must be >= %s", num))
            return false;
    }
    if ((n->has & HAS_MAXIMUM) != 0 && d > n->maximum) {
        api__sch_format_number(n->maximum, num, sizeof(num));
        ok = false;
        if (!fail(c, "maximum", "must be <= %s", num))
            return false;
    }
    if ((n->has & HAS_EXMIN) != 0 && d <= n->exmin) {
        api__sch_format_number(n->exmin, num, sizeof(num));
        ok = false;
        if (!fail(c, "exclusiveMinimum", "must be > %s", num))
            return false;
    }
    if ((n->has & HAS_EXMAX) != 0 && d >= n->exmax) {
        api__sch_format_number(n->exmax, num, sizeof(num));
        ok = false;
        if (!fail(c, "exclusiveMaximum", "must be < %s", num))
            return false;
    }
    if ((n->has & HAS_MULTIPLE) != 0 && !is_multiple(d, n->multiple_of)) {
        api__sch_format_number(n->multiple_of, num, sizeof(num));
        ok = false;
        if (!fail(c, "multipleOf", "must be a multiple of %s", num))
            return false;
    }
    return ok;
}

static bool check_string(struct sch_ctx *c, const struct sch_node *n, const cJSON *v)
{
    bool ok = true;
    const char *s = v->valuestring != NULL ? v->valuestring : "";
    if ((n->has & (HAS_MINLEN | HAS_MAXLEN)) != 0) {
        size_t len = api__sch_utf8_length(s);
        if ((n->has & HAS_MINLEN) != 0 && len < n->min_length) {
            ok = false;
            if (!fail(c, "minLength", "must be at least %zu character%s long", n->min_length,
                      n->min_length == 1 ? "" : "s"))
                return false;
        }
        if ((n->has & HAS_MAXLEN) != 0 && len > n->max_length) {
            ok = false;
            if (!fail(c, "maxLength", "must be at most %zu character%s long", n->max_length,
                      n->max_length == 1 ? "" : "s"))
                return false;
        }
    }
    if (n->pattern != NULL) {
        bool match = false;
        if (api__sch_regex_search(n->pattern, s, strlen(s), &match) != DC_OK) {
            set_halt(c, DC_ENOMEM);
            return false;
        }
        if (!match) {
            char q[SCH_QUOTE_MAX + 16];
            api__sch_quote(n->pattern_src, SCH_QUOTE_MAX, q, sizeof(q));
            ok = false;
            if (!fail(c, "pattern", "must match the pattern %s", q))
                return false;
        }
    }
    return ok;
}

struct sch_hashed {
    uint64_t hash;
    size_t index;
    const cJSON *item;
};

static int hashed_cmp(const void *a, const void *b)
{
    const struct sch_hashed *x = a;
    const struct sch_hashed *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

/* Record the pair (a, b) of equal items when it comes before the one found. */
static void earlier_pair(size_t a, size_t b, bool *found, size_t *out_i, size_t *out_j)
{
    if (!*found || a < *out_i || (a == *out_i && b < *out_j)) {
        *found = true;
        *out_i = a;
        *out_j = b;
    }
}

/* The first pair of equal items in a run of `n` items of one hash, in index
 * order. Each item is compared with the distinct values met so far in the run,
 * kept at its front, not with every earlier item: a run of copies of one value
 * (262,000 equal strings in a 1 MiB body took 160 s pairwise) costs one
 * comparison an item. */
static void run_duplicate(struct sch_hashed *run, size_t n, bool *found, size_t *out_i,
                          size_t *out_j)
{
    size_t distinct = 0; /* run[0 .. distinct) */
    for (size_t k = 0; k < n; k++) {
        size_t r = 0;
        while (r < distinct && !api__sch_json_equal(run[r].item, run[k].item, SCH_EQUAL_MAX_DEPTH))
            r++;
        if (r < distinct)
            earlier_pair(run[r].index, run[k].index, found, out_i, out_j);
        else
            run[distinct++] = run[k];
    }
}

/* First pair of equal items (i < j), if any. Returns false only on ENOMEM. */
static bool find_duplicate(struct sch_ctx *c, const cJSON *arr, size_t count, bool *found,
                           size_t *out_i, size_t *out_j)
{
    *found = false;
    if (count <= SCH_UNIQUE_PAIRWISE) {
        size_t i = 0;
        for (const cJSON *a = arr->child; a != NULL; a = a->next, i++) {
            size_t j = i + 1;
            for (const cJSON *b = a->next; b != NULL; b = b->next, j++) {
                if (api__sch_json_equal(a, b, SCH_EQUAL_MAX_DEPTH)) {
                    *found = true;
                    *out_i = i;
                    *out_j = j;
                    return true;
                }
            }
        }
        return true;
    }
    struct sch_hashed *h = SCH_MALLOC(count * sizeof(*h));
    if (h == NULL) {
        set_halt(c, DC_ENOMEM);
        return false;
    }
    size_t i = 0;
    for (const cJSON *a = arr->child; a != NULL; a = a->next, i++) {
        h[i].hash = api__sch_json_hash(a, SCH_EQUAL_MAX_DEPTH);
        h[i].index = i;
        h[i].item = a;
    }
    qsort(h, count, sizeof(*h), hashed_cmp);
    for (size_t k = 0, end = 0; k < count; k = end) {
        for (end = k + 1; end < count && h[end].hash == h[k].hash;)
            end++;
        run_duplicate(h + k, end - k, found, out_i, out_j);
    }
    free(h);
    return true;
}

/* ---- Validation: annotations for unevaluated* ------------------------------ */

/* Size `e` for `n` positions, all unevaluated. False (and halt) on ENOMEM. */
static bool eval_init(struct sch_ctx *c, struct sch_eval *e, size_t n)
{
    size_t words = (n + 63) / 64;
    e->n = n;
    e->bits = e->inline_bits;
    if (words > SCH_EVAL_INLINE_WORDS) {
        e->bits = SCH_CALLOC(words, sizeof(uint64_t));
        if (e->bits == NULL) {
            set_halt(c, DC_ENOMEM);
            return false;
        }
    } else {
        memset(e->inline_bits, 0, sizeof(e->inline_bits));
    }
    return true;
}

static void eval_release(struct sch_eval *e)
{
    if (e->bits != e->inline_bits)
        free(e->bits);
    e->bits = NULL;
}

static void eval_mark(struct sch_eval *e, size_t i)
{
    if (e != NULL && i < e->n)
        e->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool eval_has(const struct sch_eval *e, size_t i)
{
    return ((e->bits[i / 64] >> (i % 64)) & 1u) != 0;
}

static void eval_mark_all(struct sch_eval *e)
{
    if (e == NULL)
        return;
    for (size_t i = 0; i < e->n; i++)
        eval_mark(e, i);
}

static void eval_merge(struct sch_eval *dst, const struct sch_eval *src)
{
    for (size_t w = 0; dst != NULL && w < (dst->n + 63) / 64; w++)
        dst->bits[w] |= src->bits[w];
}

/* Evaluate `n` against `v` only for the answer, never recording violations.
 * With `ev`, the positions the subschema evaluated are added to it when, and
 * only when, it matches: annotations of failing subschemas are dropped. */
static bool matches(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                    struct sch_eval *ev)
{
    bool saved = c->collect;
    bool ok = false;
    c->collect = false;
    if (ev == NULL) {
        ok = validate_node(c, n, v, NULL);
    } else {
        struct sch_eval mine;
        if (eval_init(c, &mine, ev->n)) {
            ok = validate_node(c, n, v, &mine);
            if (ok)
                eval_merge(ev, &mine);
            eval_release(&mine);
        }
    }
    c->collect = saved;
    return ok;
}

/* minItems and maxItems. They come before any per-item work: an array of the
 * wrong size fails on them alone, so a body of a million items costs one count,
 * not a validation of each item and a search for duplicates. */
static bool check_array_size(struct sch_ctx *c, const struct sch_node *n, size_t count)
{
    bool ok = true;
    if ((n->has & HAS_MINITEMS) != 0 && count < n->min_items) {
        ok = false;
        if (!fail(c, "minItems", "must have at least %zu item%s", n->min_items,
                  n->min_items == 1 ? "" : "s"))
            return false;
    }
    if ((n->has & HAS_MAXITEMS) != 0 && count > n->max_items) {
        ok = false;
        (void)fail(c, "maxItems", "must have at most %zu item%s", n->max_items,
                   n->max_items == 1 ? "" : "s");
    }
    return ok;
}

static bool check_array(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                        struct sch_eval *ev)
{
    bool ok = true;
    size_t count = 0;
    size_t contained = 0;
    bool items_false_reported = false;
    for (const cJSON *item = v->child; item != NULL; item = item->next)
        count++;
    if (!check_array_size(c, n, count))
        return false;
    count = 0;
    for (const cJSON *item = v->child; item != NULL; item = item->next, count++) {
        const struct sch_node *sub = count < n->nprefix ? n->prefix[count] : n->items;
        if (sub != NULL)
            eval_mark(ev, count);
        if (sub != NULL && sub->is_false && count >= n->nprefix) {
            /* items: false is one fact about the array, not one per extra item. */
            ok = false;
            if (!items_false_reported) {
                items_false_reported = true;
                if (!(n->nprefix == 0 ? fail(c, "items", "must be an empty array")
                                      : fail(c, "items", "must have at most %zu item%s", n->nprefix,
                                             n->nprefix == 1 ? "" : "s")))
                    return false;
            }
        } else if (sub != NULL && !sub->empty) {
            size_t saved = ptr_push_index(c, count);
            if (!validate_node(c, sub, item, NULL)) {
                ok = false;
                if (!keep_going(c))
                    return false;
            }
            ptr_pop(c, saved);
        }
        if (n->contains != NULL) {
            if (matches(c, n->contains, item, NULL)) {
                contained++;
                eval_mark(ev, count);
            }
            if (c->halt)
                return false;
        }
    }
    if (n->contains != NULL) {
        bool has_min = (n->has & HAS_MINCONTAINS) != 0;
        size_t min = has_min ? n->min_contains : 1;
        if (contained < min) {
            ok = false;
            bool go = has_min ? fail(c, "minContains",
                                     "must contain at least %zu matching item%s (found %zu)", min,
                                     min == 1 ? "" : "s", contained)
                              : fail(c, "contains", "must contain at least one matching item");
            if (!go)
                return false;
        }
        if ((n->has & HAS_MAXCONTAINS) != 0 && contained > n->max_contains) {
            ok = false;
            if (!fail(c, "maxContains", "must contain at most %zu matching item%s (found %zu)",
                      n->max_contains, n->max_contains == 1 ? "" : "s", contained))
                return false;
        }
    }
    if ((n->has & HAS_UNIQUE) != 0 && count > 1) {
        bool dup = false;
        size_t i = 0;
        size_t j = 0;
        if (!find_duplicate(c, v, count, &dup, &i, &j))
            return false;
        if (dup) {
            ok = false;
            if (!fail(c, "uniqueItems", "must not contain duplicates (items %zu and %zu are equal)",
                      i, j))
                return false;
        }
    }
    return ok;
}

static size_t find_prop(const struct sch_node *n, const char *name)
{
    if (n->prop_index == NULL) {
        for (size_t i = 0; i < n->nprops; i++) {
            if (strcmp(n->props[i].name, name) == 0)
                return i;
        }
        return SIZE_MAX;
    }
    size_t mask = n->prop_index_cap - 1;
    for (size_t slot = name_hash(name) & mask;; slot = (slot + 1) & mask) {
        uint32_t e = n->prop_index[slot];
        if (e == 0)
            return SIZE_MAX;
        if (strcmp(n->props[e - 1].name, name) == 0)
            return e - 1;
    }
}

/* propertyNames: the name is validated as a string instance. */
static bool check_name(struct sch_ctx *c, const struct sch_node *names, const char *name)
{
    cJSON tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.type = cJSON_String;
    /* cJSON's field is not const, but nothing on this path writes through it. */
    memcpy(&tmp.valuestring, &name, sizeof(name));
    if (matches(c, names, &tmp, NULL))
        return true;
    if (!c->collect || c->halt)
        return false;
    char quoted[SCH_QUOTE_MAX + 16];
    api__sch_quote(name, SCH_QUOTE_MAX, quoted, sizeof(quoted));
    const char *saved = c->name_prefix;
    c->name_prefix = quoted;
    (void)validate_node(c, names, &tmp, NULL);
    c->name_prefix = saved;
    return false;
}

static bool check_object(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                         struct sch_eval *ev)
{
    bool ok = true;
    size_t count = 0;
    uint64_t seen[SCH_SEEN_MAX / 64] = {0};
    bool per_member =
        n->nprops != 0 || n->npatterns != 0 || n->additional != NULL || n->property_names != NULL;
    char quoted[SCH_QUOTE_MAX + 16];

    for (const cJSON *m = v->child; m != NULL; m = m->next, count++) {
        if (!per_member)
            continue;
        bool matched = false;
        size_t saved = ptr_push(c, m->string);
        if (c->halt)
            return false;
        size_t k = n->nprops != 0 ? find_prop(n, m->string) : SIZE_MAX;
        if (k != SIZE_MAX) {
            matched = true;
            if (k < SCH_SEEN_MAX)
                seen[k / 64] |= (uint64_t)1 << (k % 64);
            if (!validate_node(c, n->props[k].schema, m, NULL)) {
                ok = false;
                if (!keep_going(c))
                    return false;
            }
        }
        for (size_t p = 0; p < n->npatterns; p++) {
            bool hit = false;
            if (api__sch_regex_search(n->patterns[p].re, m->string, strlen(m->string), &hit) !=
                DC_OK) {
                set_halt(c, DC_ENOMEM);
                return false;
            }
            if (!hit)
                continue;
            matched = true;
            if (!validate_node(c, n->patterns[p].schema, m, NULL)) {
                ok = false;
                if (!keep_going(c))
                    return false;
            }
        }
        if (!matched && n->additional != NULL) {
            matched = true;
            if (n->additional->is_false) {
                ok = false;
                api__sch_quote(m->string, SCH_QUOTE_MAX, quoted, sizeof(quoted));
                if (!fail(c, "additionalProperties", "unknown field %s", quoted))
                    return false;
            } else if (!validate_node(c, n->additional, m, NULL)) {
                ok = false;
                if (!keep_going(c))
                    return false;
            }
        }
        if (matched)
            eval_mark(ev, count);
        if (n->property_names != NULL && !check_name(c, n->property_names, m->string)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
        ptr_pop(c, saved);
    }
    for (size_t i = 0; i < n->nrequired; i++) {
        size_t k = n->required[i].prop;
        bool present = k < SCH_SEEN_MAX ? ((seen[k / 64] >> (k % 64)) & 1u) != 0
                                        : has_member(v, n->required[i].name);
        if (!present) {
            ok = false;
            api__sch_quote(n->required[i].name, SCH_QUOTE_MAX, quoted, sizeof(quoted));
            if (!fail(c, "required", "required field %s is missing", quoted))
                return false;
        }
    }
    if ((n->has & HAS_MINPROPS) != 0 && count < n->min_props) {
        ok = false;
        if (!fail(c, "minProperties", "must have at least %zu field%s", n->min_props,
                  n->min_props == 1 ? "" : "s"))
            return false;
    }
    if ((n->has & HAS_MAXPROPS) != 0 && count > n->max_props) {
        ok = false;
        if (!fail(c, "maxProperties", "must have at most %zu field%s", n->max_props,
                  n->max_props == 1 ? "" : "s"))
            return false;
    }
    for (size_t i = 0; i < n->ndep_required; i++) {
        const struct sch_dep_required *d = &n->dep_required[i];
        if (!has_member(v, d->name))
            continue;
        for (size_t k = 0; k < d->nnames; k++) {
            if (has_member(v, d->names[k]))
                continue;
            char trigger[SCH_QUOTE_MAX + 16];
            ok = false;
            api__sch_quote(d->names[k], SCH_QUOTE_MAX, quoted, sizeof(quoted));
            api__sch_quote(d->name, SCH_QUOTE_MAX, trigger, sizeof(trigger));
            if (!fail(c, "dependentRequired", "field %s is required when %s is present", quoted,
                      trigger))
                return false;
        }
    }
    for (size_t i = 0; i < n->ndep_schemas; i++) {
        if (!has_member(v, n->dep_schemas[i].name))
            continue;
        if (!validate_node(c, n->dep_schemas[i].schema, v, ev)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
    }
    return ok;
}

/* unevaluatedProperties / unevaluatedItems, once everything else at this
 * location has run and `own` holds what it evaluated. Like
 * additionalProperties: false, a false schema reports each leftover at its
 * own pointer. */
static bool check_unevaluated(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                              const struct sch_eval *own)
{
    bool ok = true;
    bool obj = SCH_JTYPE(v) == cJSON_Object;
    const struct sch_node *sub = obj ? n->uneval_props : n->uneval_items;
    size_t i = 0;
    if (sub->empty)
        return true;
    for (const cJSON *m = v->child; m != NULL; m = m->next, i++) {
        if (eval_has(own, i))
            continue;
        size_t saved = obj ? ptr_push(c, m->string) : ptr_push_index(c, i);
        if (c->halt)
            return false;
        if (sub->is_false) {
            char quoted[SCH_QUOTE_MAX + 16];
            ok = false;
            api__sch_quote(obj ? m->string : "", SCH_QUOTE_MAX, quoted, sizeof(quoted));
            bool go = obj ? fail(c, "unevaluatedProperties", "unknown field %s", quoted)
                          : fail(c, "unevaluatedItems", "unexpected item: no schema allows it");
            if (!go)
                return false;
        } else if (!validate_node(c, sub, m, NULL)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
        ptr_pop(c, saved);
    }
    return ok;
}

/* ---- Validation: applicators ----------------------------------------------- */

/* The types a branch can accept at all, judged from its "type" keyword (or its
 * $ref target's); T_ALL when it does not say. Only used to pick messages. */
static unsigned branch_admits(const struct sch_node *n)
{
    for (int hop = 0; hop < SCH_ADMIT_HOPS && n != NULL; hop++) {
        if (n->is_false)
            return 0;
        if ((n->has & HAS_TYPE) != 0)
            return n->types;
        if ((n->has & HAS_REF) == 0)
            break;
        n = n->ref;
    }
    return T_ALL;
}

/* Explain a failed anyOf/oneOf that matched nothing. If exactly one branch
 * accepts the value's type, its own violations are the useful explanation
 * (the usual "string or object" union); if none does, say which types would
 * do; otherwise fall back to a summary. */
static bool explain_no_match(struct sch_ctx *c, const char *kw, struct sch_node *const *branches,
                             size_t nb, const cJSON *v)
{
    unsigned t = instance_type(v);
    unsigned all = 0;
    size_t candidates = 0;
    size_t which = 0;
    bool all_typed = true;
    for (size_t i = 0; i < nb; i++) {
        unsigned a = branch_admits(branches[i]);
        if (a == T_ALL)
            all_typed = false;
        all |= a;
        if ((a & t) != 0) {
            candidates++;
            which = i;
        }
    }
    if (candidates == 1) {
        (void)validate_node(c, branches[which], v, NULL);
        return keep_going(c);
    }
    if (candidates == 0 && all_typed && all != 0) {
        char want[96];
        types_text(all, want, sizeof(want));
        return fail(c, kw, "must be %s, not %s", want, instance_text(v));
    }
    return fail(c, kw, "must match %s of the %zu allowed schemas, but matches none",
                strcmp(kw, "oneOf") == 0 ? "exactly one" : "at least one", nb);
}

static bool check_applicators(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                              struct sch_eval *ev)
{
    bool ok = true;
    /* allOf, then/else and dependentSchemas share the caller's annotations:
     * if one of them fails, so does this node, and its annotations no longer
     * matter. anyOf, oneOf and if keep their own until they are known to hold. */
    for (size_t i = 0; i < n->nall_of; i++) {
        if (!validate_node(c, n->all_of[i], v, ev)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
    }
    if (n->nany_of != 0) {
        bool any = false;
        /* With annotations wanted, every matching branch contributes, so no
         * short cut after the first match. */
        for (size_t i = 0; i < n->nany_of && (!any || ev != NULL); i++) {
            if (matches(c, n->any_of[i], v, ev))
                any = true;
            if (c->halt)
                return false;
        }
        if (!any) {
            ok = false;
            if (!c->collect || !explain_no_match(c, "anyOf", n->any_of, n->nany_of, v))
                return false;
        }
    }
    if (n->none_of != 0) {
        size_t hits = 0;
        size_t first = 0;
        size_t second = 0;
        for (size_t i = 0; i < n->none_of && hits < 2; i++) {
            if (matches(c, n->one_of[i], v, ev)) {
                if (hits == 0)
                    first = i;
                else
                    second = i;
                hits++;
            }
            if (c->halt)
                return false;
        }
        if (hits != 1) {
            ok = false;
            if (!c->collect)
                return false;
            bool go = hits == 0 ? explain_no_match(c, "oneOf", n->one_of, n->none_of, v)
                                : fail(c, "oneOf",
                                       "must match exactly one of the %zu allowed "
                                       "schemas, but matches more (schemas %zu and %zu)",
                                       n->none_of, first, second);
            if (!go)
                return false;
        }
    }
    if (n->not_schema != NULL) {
        bool m = matches(c, n->not_schema, v, NULL);
        if (c->halt)
            return false;
        if (m) {
            ok = false;
            if (!fail(c, "not", "must not match the schema in \"not\""))
                return false;
        }
    }
    if (n->if_schema != NULL) {
        bool cond = matches(c, n->if_schema, v, ev);
        if (c->halt)
            return false;
        const struct sch_node *branch = cond ? n->then_schema : n->else_schema;
        if (branch != NULL && !validate_node(c, branch, v, ev)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
    }
    return ok;
}

/* ---- Validation: one node -------------------------------------------------- */

static bool follow_ref(struct sch_ctx *c, const struct sch_node *target, const cJSON *v,
                       struct sch_eval *ev)
{
    if (c->ref_depth >= API_SCHEMA_MAX_REF_DEPTH) {
        dc_error_set(c->err, DC_ELIMIT, c->collect && c->ptr != NULL ? c->ptr : "",
                     "schema recursion deeper than %d $ref levels", API_SCHEMA_MAX_REF_DEPTH);
        set_halt(c, DC_ELIMIT);
        return false;
    }
    c->ref_depth++;
    bool ok = validate_node(c, target, v, ev);
    c->ref_depth--;
    return ok;
}

/* The target of $dynamicRef at run time: the outermost resource in the dynamic
 * scope with a matching $dynamicAnchor, else the static target. */
static const struct sch_node *dynamic_target(const struct sch_ctx *c, const struct sch_node *n)
{
    const struct sch_node *target = n->dyn_ref;
    if (n->dyn_name == NULL)
        return target;
    for (const struct sch_scope *sc = c->scope; sc != NULL; sc = sc->up) {
        for (size_t i = 0; i < c->s->ndyn; i++) {
            const struct sch_dyn_anchor *d = &c->s->dyn[i];
            if (d->resource == sc->resource && strcmp(d->name, n->dyn_name) == 0) {
                target = d->node;
                break;
            }
        }
    }
    return target;
}

/* Validate `v` against `n`. `ev`, when not NULL, receives the members/items
 * of `v` that `n` evaluated (for an enclosing unevaluated* keyword). */
static bool validate_node(struct sch_ctx *c, const struct sch_node *n, const cJSON *v,
                          struct sch_eval *ev)
{
    if (n->empty)
        return true;
    if (n->is_false) {
        (void)fail(c, "false", "is not allowed");
        return false;
    }
    bool ok = true;
    unsigned t = instance_type(v);
    /* A node with unevaluated* needs its own record of what was evaluated
     * here, separate from what its parent collects for itself. */
    struct sch_eval own;
    struct sch_eval *e = ev;
    bool has_own =
        (t == T_OBJECT && n->uneval_props != NULL) || (t == T_ARRAY && n->uneval_items != NULL);
    if (has_own) {
        if (!eval_init(c, &own, (size_t)cJSON_GetArraySize(v)))
            return false;
        e = &own;
    }
    /* Entering another schema resource extends the dynamic scope. */
    struct sch_scope frame;
    const struct sch_scope *outer = c->scope;
    if (n->resource != SIZE_MAX && (outer == NULL || outer->resource != n->resource)) {
        frame.resource = n->resource;
        frame.up = outer;
        c->scope = &frame;
    }
    if (n->ref != NULL && !follow_ref(c, n->ref, v, e)) {
        ok = false;
        if (!keep_going(c))
            goto out;
    }
    if (n->dyn_ref != NULL && !follow_ref(c, dynamic_target(c, n), v, e)) {
        ok = false;
        if (!keep_going(c))
            goto out;
    }
    if ((n->has & HAS_TYPE) != 0 && (n->types & t) == 0) {
        char want[96];
        types_text(n->types, want, sizeof(want));
        ok = false;
        if (!fail(c, "type", "must be %s, not %s", want, instance_text(v)))
            goto out;
    }
    if ((n->has & HAS_ENUM) != 0) {
        bool found = false;
        for (const cJSON *x = n->enum_values->child; x != NULL && !found; x = x->next)
            found = api__sch_json_equal(v, x, SCH_EQUAL_MAX_DEPTH);
        if (!found) {
            ok = false;
            if (!fail(c, "enum", "%s", n->enum_msg))
                goto out;
        }
    }
    if ((n->has & HAS_CONST) != 0 && !api__sch_json_equal(v, n->const_value, SCH_EQUAL_MAX_DEPTH)) {
        ok = false;
        if (!fail(c, "const", "%s", n->const_msg))
            goto out;
    }
    bool sub = true;
    if ((t & T_NUMBER) != 0 && (n->kinds & K_NUM) != 0)
        sub = check_number(c, n, v);
    else if (t == T_STRING && (n->kinds & K_STR) != 0)
        sub = check_string(c, n, v);
    else if (t == T_ARRAY && (n->kinds & K_ARR) != 0)
        sub = check_array(c, n, v, e);
    else if (t == T_OBJECT && (n->kinds & K_OBJ) != 0)
        sub = check_object(c, n, v, e);
    if (!sub) {
        ok = false;
        if (!keep_going(c))
            goto out;
    }
    if (!check_applicators(c, n, v, e)) {
        ok = false;
        if (!keep_going(c))
            goto out;
    }
    if (has_own) {
        if (!check_unevaluated(c, n, v, &own)) {
            ok = false;
            if (!keep_going(c))
                goto out;
        }
        /* unevaluated* has now evaluated everything that was left. */
        eval_mark_all(ev);
    }
out:
    c->scope = outer;
    if (has_own)
        eval_release(&own);
    return ok && !c->halt;
}

/* ---- Public API ------------------------------------------------------------ */

void api_schema_free(api_schema *schema)
{
    if (schema == NULL)
        return;
    for (size_t i = 0; i < schema->nnodes; i++) {
        struct sch_node *n = schema->nodes[i];
        api__sch_regex_free(n->pattern);
        for (size_t k = 0; k < n->npatterns; k++)
            api__sch_regex_free(n->patterns[k].re);
    }
    free(schema->nodes);
    dc__arena_release(&schema->arena);
    free(schema);
}

/* Parse `entry` ("", "#", "#/a/b" or "/a/b") into a percent-decoded pointer. */
static enum dc_status entry_pointer(const char *entry, char **out)
{
    const char *p = entry[0] == '#' ? entry + 1 : entry;
    if (*p != '\0' && *p != '/')
        return DC_EINVAL;
    return api__sch_percent_decode(p, out);
}

enum dc_status api_schema_compile(const cJSON *root, const char *entry, api_schema **out,
                                  struct dc_error *err)
{
    struct sch_compiler cc;
    enum dc_status rc = DC_OK;
    char *ptr = NULL;
    memset(&cc, 0, sizeof(cc));

    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_schema_compile: out is NULL");
    *out = NULL;
    if (root == NULL || entry == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_schema_compile: %s is NULL",
                            root == NULL ? "root" : "entry");
    rc = entry_pointer(entry, &ptr);
    if (rc == DC_EINVAL)
        return dc_error_set(err, DC_EINVAL, NULL,
                            "entry \"%s\" is not a JSON Pointer fragment (\"#/...\")", entry);
    if (rc != DC_OK)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory compiling the schema");

    cc.root = root;
    cc.err = err;
    dc__arena_init(&cc.tmp, NULL, 0, SIZE_MAX, SCH_COUNTER);
    cc.s = SCH_CALLOC(1, sizeof(*cc.s));
    cc.path_cap = 128;
    cc.path = SCH_MALLOC(cc.path_cap);
    if (cc.s == NULL || cc.path == NULL) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory compiling the schema");
        goto out;
    }
    dc__arena_init(&cc.s->arena, NULL, 0, SIZE_MAX, SCH_COUNTER);
    cc.path[0] = '\0';

    /* Names first: the document root is a schema resource, and so is each
     * OpenAPI component schema; their $id/$anchor names must be known before
     * any $ref is resolved. */
    const char *root_base = "";
    if (cJSON_IsObject(root)) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "$id");
        if (cJSON_IsString(id)) {
            rc = resolve_uri(&cc, "", id->valuestring, &root_base);
            if (rc != DC_OK)
                goto out;
        }
    }
    rc = reg_add(&cc, root_base, root, "", NULL, NULL);
    if (rc == DC_OK)
        rc = scan_schema(&cc, root, "", 0);
    const cJSON *components = cJSON_GetObjectItemCaseSensitive(root, "components");
    const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(components, "schemas");
    if (rc == DC_OK && cJSON_IsObject(schemas)) {
        size_t s1 = 0;
        size_t s2 = 0;
        rc = path_push(&cc, "components", &s1);
        if (rc == DC_OK)
            rc = path_push(&cc, "schemas", &s2);
        for (const cJSON *x = schemas->child; x != NULL && rc == DC_OK; x = x->next) {
            size_t s3 = 0;
            rc = path_push(&cc, x->string, &s3);
            if (rc == DC_OK) {
                rc = scan_schema(&cc, x, root_base, 0);
                path_pop(&cc, s3);
            }
        }
        if (rc == DC_OK)
            path_pop(&cc, s1);
    }
    if (rc != DC_OK)
        goto out;

    /* The entry point, then everything it references. */
    const cJSON *target = root;
    const char *base = "";
    const char *where = "";
    if (ptr[0] != '\0') {
        rc = walk_pointer(&cc, root, root_base, "", ptr, entry, &target, &base, &where);
        if (rc == DC_EPARSE) {
            rc = dc_error_set(err, DC_EINVAL, NULL, "entry \"%s\" does not exist in the document",
                              entry);
            goto out;
        }
        if (rc != DC_OK)
            goto out;
    }
    if (rc == DC_OK)
        rc = path_set(&cc, where);
    if (rc == DC_OK)
        rc = scan_schema(&cc, target, base, 0);
    if (rc == DC_OK)
        rc = path_set(&cc, where);
    if (rc == DC_OK)
        rc = compile_schema(&cc, target, base, &cc.s->entry);
    if (rc == DC_OK)
        rc = resolve_pending(&cc);
    if (rc == DC_OK)
        rc = compile_dynamic_anchors(&cc);
    if (rc == DC_OK)
        rc = check_cycles(&cc);
    if (rc != DC_OK)
        goto out;
    for (size_t i = 0; i < cc.s->nnodes; i++)
        cc.s->nodes[i]->src_where = NULL; /* pointed into the scratch arena */
    *out = cc.s;
    cc.s = NULL;
out:
    api_schema_free(cc.s);
    dc__arena_release(&cc.tmp);
    free(cc.path);
    free(cc.reg);
    free(cc.pending);
    free(cc.map);
    free(ptr);
    return rc;
}

void api_schema_result_cleanup(struct api_schema_result *res)
{
    if (res == NULL)
        return;
    for (size_t i = 0; i < res->count; i++)
        free(res->items[i].pointer); /* the violation's single block */
    free(res->items);
    memset(res, 0, sizeof(*res));
}

size_t api_schema_result_remove(struct api_schema_result *res, const char *pointer,
                                const char *keyword)
{
    size_t kept = 0;
    if (res == NULL || pointer == NULL || keyword == NULL)
        return 0;
    for (size_t i = 0; i < res->count; i++) {
        struct api_schema_violation *v = &res->items[i];
        if (strcmp(v->pointer, pointer) == 0 && strcmp(v->keyword, keyword) == 0)
            free(v->pointer); /* the violation's single block */
        else
            res->items[kept++] = *v;
    }
    size_t removed = res->count - kept;
    res->count = kept;
    if (kept == 0 && !res->truncated)
        res->valid = true;
    return removed;
}

enum dc_status api_schema_validate(const api_schema *schema, const cJSON *instance,
                                   size_t max_errors, struct api_schema_result *out,
                                   struct dc_error *err)
{
    struct api_schema_result res;
    struct sch_ctx c;
    memset(&res, 0, sizeof(res));
    memset(&c, 0, sizeof(c));

    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_schema_validate: out is NULL");
    memset(out, 0, sizeof(*out));
    if (schema == NULL || instance == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_schema_validate: %s is NULL",
                            schema == NULL ? "schema" : "instance");

    /* First pass: the answer only. */
    c.s = schema;
    c.err = err;
    c.res = &res;
    c.max_errors = max_errors != 0 ? max_errors : API_SCHEMA_MAX_ERRORS_DEFAULT;
    bool valid = validate_node(&c, schema->entry, instance, NULL);
    if (c.rc == DC_ENOMEM)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory validating");
    if (c.rc == DC_OK && valid) {
        out->valid = true;
        return DC_OK;
    }
    enum dc_status first_rc = c.rc;

    /* Second pass: every violation, with its location. */
    memset(&c, 0, sizeof(c));
    c.s = schema;
    c.err = err;
    c.res = &res;
    c.collect = true;
    c.max_errors = max_errors != 0 ? max_errors : API_SCHEMA_MAX_ERRORS_DEFAULT;
    c.ptr_cap = SCH_PTR_INITIAL;
    c.ptr = SCH_MALLOC(c.ptr_cap);
    if (c.ptr == NULL) {
        c.rc = DC_ENOMEM;
    } else {
        c.ptr[0] = '\0';
        valid = validate_node(&c, schema->entry, instance, NULL);
    }
    free(c.ptr);
    enum dc_status rc = c.rc != DC_OK ? c.rc : first_rc;
    if (rc != DC_OK) {
        api_schema_result_cleanup(&res);
        if (rc == DC_ENOMEM)
            return dc_error_set(err, DC_ENOMEM, NULL, "out of memory validating");
        /* DC_ELIMIT: follow_ref has filled in err. */
        return rc;
    }
    res.valid = valid && res.count == 0;
    *out = res;
    return DC_OK;
}
