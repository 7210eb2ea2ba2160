/* core/src/logic/logic_impl.h -- the pieces the three parts of the JSONLogic module
 * share: the value representation, the compiled program, the evaluation
 * context, and the helpers one part defines for another. Owned by the
 * JSONLogic module (core/src/logic/logic_*.c); nothing else includes it (tests and
 * the benchmark see core/src/logic/logic_internal.h, callers dc/logic.h).
 *
 * The module is three files with one job each:
 *  - logic_value.c: values and what JavaScript does with them (memory,
 *    UTF-16 measures, number parsing and formatting, strings, equality and
 *    order, results as cJSON);
 *  - logic_compile.c: a cJSON rule into an immutable program (dc_logic_compile);
 *  - logic_eval.c: the operators, and running a program (dc_logic_eval*).
 *
 * The semantics are those of json-logic-js, the reference implementation
 * behind jsonlogic.com (https://github.com/jwadhams/json-logic-js), operator
 * by operator; the comments say where a JavaScript coercion decides a result.
 * Deliberate differences:
 *  - "log" returns its argument and prints nothing: rules run inside a server,
 *    whose standard output is no place for request data.
 *  - Unknown operators, wrong arities of fixed-arity operators and operator
 *    objects with more than one key fail at compile time (json-logic-js throws
 *    at evaluation, or passes a many-keyed object through as data). Objects
 *    with no key, or several keys none of which is an operator, are data.
 *  - "*" with no argument is a compile error (json-logic-js throws a
 *    TypeError); with one argument it returns that argument unchanged, as
 *    json-logic-js's reduce() does.
 *  - "?:" takes exactly three arguments; "if" takes any number.
 *  - Strings are UTF-8. Lengths, indices and substr offsets count UTF-16 code
 *    units as JavaScript does; half of a split surrogate pair becomes U+FFFD,
 *    which is what any UTF-8 encoder makes of it.
 *  - Values are compared by identity where JavaScript compares objects. A
 *    literal array with no operator inside is built once, at compile time, so
 *    two evaluations of the same literal are one object (JavaScript builds a
 *    new array each time); with duplicate keys in an object, the first wins.
 *
 * Memory. The program lives in one arena owned by the dc_logic. Evaluation
 * works on `struct lv`, a tagged union that refers to the caller's cJSON data
 * and to the program's constants without copying, so var, comparisons, logic,
 * arithmetic, if and in over literal arrays or strings do not allocate. Only
 * operations that must build a string or an array (cat, merge, map, ...) get
 * memory, from a per-evaluation arena whose first bytes are on the stack and
 * which is released when the call returns. Every malloc of this module goes
 * through dc__alloc() (core/shared/arena.h), which counts calls when asked, so a
 * unit test proves that the common path never gets there.
 *
 * Work is bounded three ways: rule depth and node count at compile time, and
 * evaluation steps (one per operator application, plus one per element or per
 * 16 bytes that an operation copies or scans) at run time. */
#ifndef DC_LOGIC_IMPL_H
#define DC_LOGIC_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arena.h"
#include "digits.h"
#include "logic_internal.h"

/* ---- sizes ------------------------------------------------------------------ */

#define LG_INLINE_BYTES 512 /* first arena bytes of an evaluation, on its stack */
#define LG_NUMBUF       32  /* a formatted JavaScript number, NUL included */
#define LG_DEC_DIRECT   64  /* shorter decimal literals go straight to strtod */
/* Significant digits kept of a longer literal: a halfway point between two
 * doubles has at most 767, so rounding the truncated digits plus a sticky
 * non-zero digit gives the correctly rounded result. */
#define LG_DEC_DIGITS       780
#define LG_STR_CHARGE_SHIFT 4          /* one step per 16 bytes of string built or scanned */
#define LG_ANY              UINT32_MAX /* no upper bound on an operator's argument count */
#define LG_NOT_INDEX        (-1)       /* a path segment that is not an array index */

static const char lg_object_str[] = "[object Object]";
static const char lg_fffd[] = "\xEF\xBF\xBD"; /* U+FFFD, for half a surrogate pair */

/* ---- values ------------------------------------------------------------------ */

enum lv_kind { LV_NULL, LV_BOOL, LV_NUM, LV_STR, LV_JSON, LV_ARR, LV_OBJ };

struct lv_arr;
struct lv_frame;

/* A JavaScript value during evaluation. Strings are views: into the caller's
 * data, the program, the evaluation arena or a static literal, always inside a
 * NUL-terminated buffer, so p[len] may be read. LV_JSON refers to an array or
 * object of the caller's data or of the program's constants (scalars are
 * unpacked). LV_ARR is an array built by the program or the evaluation; an
 * empty one built by the evaluation has u.a == NULL and a serial number in
 * `id` for its identity. LV_OBJ is a reduce frame {current, accumulator}. */
struct lv {
    uint8_t kind;
    uint32_t id;
    union {
        bool b;
        double n;
        struct {
            const char *p;
            size_t len;
        } s;
        const cJSON *j;
        const struct lv_arr *a;
        struct lv_frame *o;
    } u;
};

struct lv_arr {
    size_t n;
    struct lv v[];
};

/* The data of a reduce step. It lives on the C stack of the reduce loop;
 * `copy` is its arena copy, made the first time {"var": ""} hands the whole
 * frame out, so that the value outlives the step and keeps one identity. */
struct lv_frame {
    struct lv current;
    struct lv accumulator;
    struct lv_frame *copy;
};

struct lg_sv {
    const char *p;
    size_t len;
};

/* cJSON's cJSON_IsObject() and friends are out-of-line library calls; the
 * evaluator tests types on every property read, so it reads the tag itself. */
#define LG_JTYPE(j) ((j)->type & 0xFF)

/* The evaluator recurses once per rule level. Keeping the dispatcher small
 * (operations out of line) keeps each level's stack frame and register saves
 * small; the argument fetch, on the other hand, must not cost a call. */
#if defined(__GNUC__) || defined(__clang__)
#define LG_ALWAYS_INLINE inline __attribute__((always_inline))
#define LG_NOINLINE      __attribute__((noinline))
#else
#define LG_ALWAYS_INLINE inline
#define LG_NOINLINE
#endif

/* Every operator application is one evaluation step. */
#define LG_STEP(cx)                                                                                \
    do {                                                                                           \
        if ((cx)->steps == (cx)->max_steps)                                                        \
            return lg__step_limit(cx);                                                             \
        (cx)->steps++;                                                                             \
    } while (0)

/* ---- program ----------------------------------------------------------------- */

enum lg_op {
    OP_CONST,
    OP_ARRAY,
    OP_VAR,
    OP_VAR_DYN,
    OP_MISSING,
    OP_MISSING_SOME,
    OP_IF,
    OP_EQ,
    OP_NE,
    OP_SEQ,
    OP_SNE,
    OP_GT,
    OP_GE,
    OP_LT,
    OP_LE,
    OP_NOT,
    OP_TRUTHY,
    OP_AND,
    OP_OR,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_MIN,
    OP_MAX,
    OP_MAP,
    OP_FILTER,
    OP_REDUCE,
    OP_ALL,
    OP_NONE,
    OP_SOME,
    OP_MERGE,
    OP_IN,
    OP_CAT,
    OP_SUBSTR,
    OP_LOG
};
struct lg_seg {
    const char *p; /* NUL-terminated at len */
    size_t len;
    int64_t idx; /* the segment as an array index, or LG_NOT_INDEX */
};

struct lg_node;
struct lg_ctx;

/* Evaluates one node: every operation has one, stored in its node, so that
 * fetching an argument is one indirect call with no dispatch switch. */
typedef enum dc_status (*lg_fn)(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                struct lv *out);

/* A compiled node. The arguments of an operation are contiguous in `kids`. A
 * static var keeps its split path in u.var and only its default in kids. */
struct lg_node {
    uint8_t op;
    uint32_t argc;
    lg_fn fn;
    const struct lg_node *kids;
    union {
        struct lv k; /* OP_CONST */
        struct {
            const struct lg_seg *seg;
            size_t nseg;   /* 0: the whole data */
            uint32_t slot; /* its entry in a dc_logic_var_cache, or LG_NO_SLOT */
        } var;
    } u;
};

#define LG_NO_SLOT UINT32_MAX

struct dc_logic {
    struct lg_node root;
    struct lg_node **vars;  /* the var nodes that read the data's own paths */
    const char **var_paths; /* each one's path */
    size_t nvars;
    struct dc__arena arena; /* owns every node, segment, constant and string */
    cJSON *objects;         /* owns copies of the constant objects of the rule */
    const char **paths;     /* distinct literal var paths, sorted */
    size_t npaths;
    uint64_t max_steps;
};

/* State of one compilation or evaluation. */
struct lg_ctx {
    struct dc__arena arena;
    uint64_t steps;
    uint64_t max_steps;
    uint32_t serial; /* identities of empty arrays built by this evaluation */
    struct dc_error *err;
    struct dc_logic_var_cache *vc; /* NULL, or the caller's, of the data being read */
};

/* A growable string in the arena; p[len] is always NUL once p is set. */
struct lg_sb {
    char *p;
    size_t len;
    size_t cap;
};

/* Iterates a JSON or built array without caring which. */
struct lg_it {
    const cJSON *c;
    const struct lv *v;
    size_t i;
    size_t n;
    bool json;
};

enum lg_ord { ORD_LT, ORD_EQ, ORD_GT, ORD_NONE };

/* ---- small value helpers, inlined where the evaluator's hot path calls them -- */

static inline struct lv lv_null(void)
{
    return (struct lv){.kind = LV_NULL};
}

static inline struct lv lv_bool(bool b)
{
    return (struct lv){.kind = LV_BOOL, .u.b = b};
}

static inline struct lv lv_num(double n)
{
    return (struct lv){.kind = LV_NUM, .u.n = n};
}

static inline struct lv lv_str(const char *p, size_t len)
{
    return (struct lv){.kind = LV_STR, .u.s = {p, len}};
}

static inline struct lv lv_from_json(const cJSON *j)
{
    switch (j->type & 0xFF) {
    case cJSON_False:
        return lv_bool(false);
    case cJSON_True:
        return lv_bool(true);
    case cJSON_Number:
        return lv_num(j->valuedouble);
    case cJSON_String:
        if (j->valuestring == NULL)
            return lv_str("", 0);
        return lv_str(j->valuestring, strlen(j->valuestring));
    case cJSON_Array:
    case cJSON_Object:
        return (struct lv){.kind = LV_JSON, .u.j = j};
    default:
        /* cJSON_NULL, and the raw or invalid nodes only a program can build. */
        return lv_null();
    }
}

/* JsonLogic truthiness: JavaScript's, except that an empty array is falsy. */
static inline bool lv_truthy(const struct lv *v)
{
    switch (v->kind) {
    case LV_BOOL:
        return v->u.b;
    case LV_NUM:
        return v->u.n != 0 && !isnan(v->u.n);
    case LV_STR:
        return v->u.s.len != 0;
    case LV_JSON:
        return LG_JTYPE(v->u.j) == cJSON_Object || v->u.j->child != NULL;
    case LV_ARR:
        return v->u.a != NULL && v->u.a->n != 0;
    case LV_OBJ:
        return true;
    default:
        return false;
    }
}

static inline bool lv_is_array(const struct lv *v)
{
    return v->kind == LV_ARR || (v->kind == LV_JSON && LG_JTYPE(v->u.j) == cJSON_Array);
}

/* JavaScript's typeof is "object" (arrays included), null aside. */
static inline bool lv_is_object_type(const struct lv *v)
{
    return v->kind == LV_JSON || v->kind == LV_ARR || v->kind == LV_OBJ;
}

static inline size_t lv_arr_len(const struct lv *v)
{
    if (v->kind == LV_ARR)
        return v->u.a != NULL ? v->u.a->n : 0;
    size_t n = 0;
    for (const cJSON *c = v->u.j->child; c != NULL; c = c->next)
        n++;
    return n;
}

static inline void lg_it_init(struct lg_it *it, const struct lv *arr)
{
    it->i = 0;
    if (arr->kind == LV_JSON) {
        it->json = true;
        it->c = arr->u.j->child;
        it->v = NULL;
        it->n = 0;
    } else {
        it->json = false;
        it->c = NULL;
        it->v = arr->u.a != NULL ? arr->u.a->v : NULL;
        it->n = arr->u.a != NULL ? arr->u.a->n : 0;
    }
}

static inline bool lg_it_next(struct lg_it *it, struct lv *out)
{
    if (it->json) {
        if (it->c == NULL)
            return false;
        *out = lv_from_json(it->c);
        it->c = it->c->next;
        return true;
    }
    if (it->i >= it->n)
        return false;
    *out = it->v[it->i++];
    return true;
}

static inline bool lg_isdigit(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool lg_str_eq(const struct lv *a, const struct lv *b)
{
    size_t len = a->u.s.len;
    return len == b->u.s.len &&
           (len == 0 || (a->u.s.p[0] == b->u.s.p[0] && memcmp(a->u.s.p, b->u.s.p, len) == 0));
}

static inline enum lg_ord lg_num_ord(double a, double b)
{
    if (a < b)
        return ORD_LT;
    if (a > b)
        return ORD_GT;
    if (a == b)
        return ORD_EQ;
    return ORD_NONE;
}

static inline bool lg_ord_holds(uint8_t op, enum lg_ord ord)
{
    switch (op) {
    case OP_LT:
        return ord == ORD_LT;
    case OP_LE:
        return ord == ORD_LT || ord == ORD_EQ;
    case OP_GT:
        return ord == ORD_GT;
    default: /* OP_GE */
        return ord == ORD_GT || ord == ORD_EQ;
    }
}

/* ---- defined in logic_value.c ------------------------------------------------ */

enum dc_status lg__alloc(struct lg_ctx *cx, size_t size, void **out);
enum dc_status lg__oom(struct lg_ctx *cx);
/* The step limit reached: the error every bounded operation returns. */
static inline enum dc_status lg__step_limit(struct lg_ctx *cx)
{
    return dc_error_set(cx->err, DC_ELIMIT, NULL,
                        "evaluation exceeded the step limit (%llu operator applications)",
                        (unsigned long long)cx->max_steps);
}

/* Bulk work (copying or scanning elements and bytes) counts as steps too, so
 * that the step limit bounds time and memory, not just operator calls. */
static inline enum dc_status lg__charge(struct lg_ctx *cx, uint64_t units)
{
    if (units > cx->max_steps - cx->steps)
        return lg__step_limit(cx);
    cx->steps += units;
    return DC_OK;
}

enum dc_status lg__fresh_array(struct lg_ctx *cx, size_t n, struct lv_arr **arr, struct lv *out);
size_t lg__u16_len(const char *p, size_t len);
bool lg__u16_unit_at(const char *p, size_t len, size_t unit, struct lg_sv *out);
void lg__u16_range(const char *p, size_t len, size_t u0, size_t u1, size_t *b0, size_t *b1,
                   bool *pre, bool *post);
bool lg__contains(const char *h, size_t hl, const char *n, size_t nl);
double lg__to_number(const struct lv *v);
double lg__parse_float(const struct lv *v);
double lg__to_integer(double x);
enum dc_status lg__sb_elem(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *v);
enum dc_status lg__to_sv(struct lg_ctx *cx, const struct lv *v, char *numbuf, struct lg_sv *out);
enum dc_status lg__copy_str(struct lg_ctx *cx, const char *p, size_t len, const char **out);
bool lg__strict_eq(const struct lv *a, const struct lv *b);
enum dc_status lg__loose_eq(struct lg_ctx *cx, const struct lv *a, const struct lv *b, bool *out);
enum dc_status lg__compare(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                           enum lg_ord *out);
enum dc_status lg__to_cjson(struct lg_ctx *cx, const struct lv *v, cJSON **out);

/* ---- defined in logic_eval.c ------------------------------------------------- */

/* The evaluator of one operation, stored in its node by the compiler. */
lg_fn lg__handler(uint8_t op);
/* A var path segment as an array index, or LG_NOT_INDEX. */
int64_t lg__seg_index(const char *p, size_t len);

#endif /* DC_LOGIC_IMPL_H */
