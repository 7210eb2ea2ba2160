/* core/src/logic.c -- JSONLogic: compile a cJSON rule once into an immutable
 * program, then evaluate it many times with JavaScript semantics (dc/logic.h).
 *
 * The semantics are those of json-logic-js, the reference implementation
 * behind jsonlogic.com, operator by operator; the comments below say where a
 * JavaScript coercion decides a result. Deliberate differences:
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
 * through lg_malloc(), which counts calls, so a unit test proves that the
 * common path never gets there.
 *
 * Work is bounded three ways: rule depth and node count at compile time, and
 * evaluation steps (one per operator application, plus one per element or per
 * 16 bytes that an operation copies or scans) at run time.
 *
 * Numbers are formatted and parsed with snprintf/strtod, which assumes the
 * "C" LC_NUMERIC locale (the service never changes it). */
#include "logic_internal.h"

#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes ------------------------------------------------------------------ */

#define LG_INLINE_BYTES   512               /* first arena bytes of an evaluation, on its stack */
#define LG_CHUNK_MIN      4096              /* smallest arena chunk */
#define LG_CHUNK_GROW_MAX ((size_t)1 << 20) /* chunks double up to this size */
#define LG_ALIGN          8                 /* arena alignment: doubles, pointers, size_t */
#define LG_NUMBUF         32                /* a formatted JavaScript number, NUL included */
#define LG_DEC_DIRECT     64                /* shorter decimal literals go straight to strtod */
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
            return lg_step_limit(cx);                                                              \
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

struct lg_opdef {
    const char *name;
    uint8_t op;
    uint32_t min_args;
    uint32_t max_args;
    bool scoped; /* argument 1 runs with each array element as its data */
};

/* Every operation documented on jsonlogic.com, plus "?:" which json-logic-js
 * and its official tests use. Arities: json-logic-js ignores extra arguments
 * and reads missing ones as undefined; here a fixed-arity operator must get
 * its arity, variadic ones take any number (or at least one for "*"). */
static const struct lg_opdef lg_ops[] = {
    {"var", OP_VAR, 0, 2, false},
    {"missing", OP_MISSING, 0, LG_ANY, false},
    {"missing_some", OP_MISSING_SOME, 2, 2, false},
    {"if", OP_IF, 0, LG_ANY, false},
    {"?:", OP_IF, 3, 3, false},
    {"==", OP_EQ, 2, 2, false},
    {"!=", OP_NE, 2, 2, false},
    {"===", OP_SEQ, 2, 2, false},
    {"!==", OP_SNE, 2, 2, false},
    {">", OP_GT, 2, 2, false},
    {">=", OP_GE, 2, 2, false},
    {"<", OP_LT, 2, 3, false},
    {"<=", OP_LE, 2, 3, false},
    {"!", OP_NOT, 1, 1, false},
    {"!!", OP_TRUTHY, 1, 1, false},
    {"and", OP_AND, 0, LG_ANY, false},
    {"or", OP_OR, 0, LG_ANY, false},
    {"+", OP_ADD, 0, LG_ANY, false},
    {"-", OP_SUB, 1, 2, false},
    {"*", OP_MUL, 1, LG_ANY, false},
    {"/", OP_DIV, 2, 2, false},
    {"%", OP_MOD, 2, 2, false},
    {"min", OP_MIN, 0, LG_ANY, false},
    {"max", OP_MAX, 0, LG_ANY, false},
    {"map", OP_MAP, 2, 2, true},
    {"filter", OP_FILTER, 2, 2, true},
    {"reduce", OP_REDUCE, 2, 3, true},
    {"all", OP_ALL, 2, 2, true},
    {"none", OP_NONE, 2, 2, true},
    {"some", OP_SOME, 2, 2, true},
    {"merge", OP_MERGE, 0, LG_ANY, false},
    {"in", OP_IN, 2, 2, false},
    {"cat", OP_CAT, 0, LG_ANY, false},
    {"substr", OP_SUBSTR, 2, 3, false},
    {"log", OP_LOG, 1, 1, false},
};

/* One segment of a precompiled var path. */
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
            size_t nseg; /* 0: the whole data */
        } var;
    } u;
};

struct lg_chunk {
    struct lg_chunk *next;
};

/* A bump allocator: chunks from lg_malloc, released all at once. */
struct lg_arena {
    struct lg_chunk *chunks;
    unsigned char *cur;
    unsigned char *end;
    size_t total;                 /* bytes in chunks */
    size_t limit;                 /* most bytes in chunks */
    struct dc_logic_stats *stats; /* counts lg_malloc calls; may be NULL */
};

struct dc_logic {
    struct lg_node root;
    struct lg_arena arena; /* owns every node, segment, constant and string */
    cJSON *objects;        /* owns copies of the constant objects of the rule */
    const char **paths;    /* distinct literal var paths, sorted */
    size_t npaths;
    uint64_t max_steps;
};

/* State of one compilation or evaluation. */
struct lg_ctx {
    struct lg_arena arena;
    uint64_t steps;
    uint64_t max_steps;
    uint32_t serial; /* identities of empty arrays built by this evaluation */
    struct dc_error *err;
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

/* ---- compiler state ---------------------------------------------------------- */

struct lc_paths {
    const char **v;
    size_t n;
    size_t cap;
};

struct lc {
    struct lg_ctx *cx;
    cJSON *objects;
    unsigned max_depth;
    unsigned max_nodes;
    unsigned nodes;
    unsigned scoped; /* > 0 inside a map/filter/reduce/all/none/some body */
    struct lc_paths paths;
    char where[DC_ERROR_WHERE_MAX]; /* JSON Pointer of the node being compiled */
    size_t wlen;
};

/* ---- static prototypes ------------------------------------------------------- */

static void *lg_malloc(size_t size, struct dc_logic_stats *stats);
static void lg_free(void *p);
static void lg_arena_init(struct lg_arena *a, void *buf, size_t len, size_t limit,
                          struct dc_logic_stats *stats);
static void lg_arena_release(struct lg_arena *a);
static enum dc_status lg_arena_grow(struct lg_ctx *cx, size_t size);
static enum dc_status lg_alloc(struct lg_ctx *cx, size_t size, void **out);
static enum dc_status lg_oom(struct lg_ctx *cx);
static enum dc_status lg_step_limit(struct lg_ctx *cx);
static enum dc_status lg_charge(struct lg_ctx *cx, uint64_t units);

static struct lv lv_null(void);
static struct lv lv_bool(bool b);
static struct lv lv_num(double n);
static struct lv lv_str(const char *p, size_t len);
static struct lv lv_from_json(const cJSON *j);
static bool lv_truthy(const struct lv *v);
static bool lv_is_array(const struct lv *v);
static bool lv_is_object_type(const struct lv *v);
static size_t lv_arr_len(const struct lv *v);
static enum dc_status lg_fresh_array(struct lg_ctx *cx, size_t n, struct lv_arr **arr,
                                     struct lv *out);
static void lg_it_init(struct lg_it *it, const struct lv *arr);
static bool lg_it_next(struct lg_it *it, struct lv *out);

static size_t lg_u8_char(const char *p, size_t rem, unsigned *units);
static uint32_t lg_u8_decode(const char *p, size_t rem);
static size_t lg_u16_len(const char *p, size_t len);
static bool lg_u16_unit_at(const char *p, size_t len, size_t unit, struct lg_sv *out);
static void lg_u16_range(const char *p, size_t len, size_t u0, size_t u1, size_t *b0, size_t *b1,
                         bool *pre, bool *post);
static int lg_str_cmp(const char *a, size_t alen, const char *b, size_t blen);
static bool lg_contains(const char *h, size_t hl, const char *n, size_t nl);

static size_t lg_fmt_u64(uint64_t v, char *buf);
static size_t lg_fmt_num(double x, char *buf);
static size_t lg_ws_len(const char *s, size_t rem);
static void lg_trim(const char **p, size_t *len);
static size_t lg_scan_decimal(const char *p, size_t len);
static double lg_dec_long(const char *p, size_t len);
static double lg_dec_to_double(const char *p, size_t len);
static double lg_radix(const char *p, size_t len, unsigned base);
static double lg_str_to_number(const char *p, size_t len);
static double lg_str_parse_float(const char *p, size_t len);
static double lg_to_number(const struct lv *v);
static double lg_parse_float(const struct lv *v);
static double lg_to_integer(double x);

static enum dc_status lg_sb_put(struct lg_ctx *cx, struct lg_sb *sb, const char *s, size_t n);
static enum dc_status lg_sb_join(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *arr);
static enum dc_status lg_sb_elem(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *v);
static enum dc_status lg_to_sv(struct lg_ctx *cx, const struct lv *v, char *numbuf,
                               struct lg_sv *out);
static enum dc_status lg_copy_str(struct lg_ctx *cx, const char *p, size_t len, const char **out);

static bool lv_same_object(const struct lv *a, const struct lv *b);
static inline bool lg_str_eq(const struct lv *a, const struct lv *b);
static bool lg_strict_eq(const struct lv *a, const struct lv *b);
static enum dc_status lg_loose_eq(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                                  bool *out);
static enum lg_ord lg_num_ord(double a, double b);
static enum dc_status lg_compare(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                                 enum lg_ord *out);
static bool lg_ord_holds(uint8_t op, enum lg_ord ord);

static int64_t lg_seg_index(const char *p, size_t len);
static inline bool lg_key_eq(const char *key, const char *p, size_t len);
static inline bool lg_is_length(const char *p, size_t len);
static bool lg_get(const struct lv *obj, const char *p, size_t len, int64_t idx, bool z,
                   struct lv *out);
static inline bool lg_key_eqz(const char *key, const char *p);
static bool lg_walk(const struct lv *data, const char *p, size_t len, struct lv *out);
static enum dc_status lg_whole(struct lg_ctx *cx, const struct lv *data, struct lv *out);
static enum dc_status lg_lookup(struct lg_ctx *cx, const struct lv *data, const struct lv *path,
                                bool *found, struct lv *out);

static enum dc_status lg_op_andor(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out);
static enum dc_status lg_op_not(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                struct lv *out);
static enum dc_status lg_op_if(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                               struct lv *out);
static enum dc_status lg_op_log(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                struct lv *out);
static enum dc_status lg_op_const(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out);
static LG_ALWAYS_INLINE enum dc_status lg_arg(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out);
static enum dc_status lg_op_var(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                struct lv *out);
static enum dc_status lg_op_var_dyn(struct lg_ctx *cx, const struct lg_node *n,
                                    const struct lv *data, struct lv *out);
static enum dc_status lg_key_missing(struct lg_ctx *cx, const struct lv *data, const struct lv *key,
                                     bool *missing);
static enum dc_status lg_missing_keys(struct lg_ctx *cx, const struct lv *data,
                                      const struct lv *keys, size_t nkeys_hint, struct lv *out);
static enum dc_status lg_op_missing(struct lg_ctx *cx, const struct lg_node *n,
                                    const struct lv *data, struct lv *out);
static enum dc_status lg_op_missing_some(struct lg_ctx *cx, const struct lg_node *n,
                                         const struct lv *data, struct lv *out);
static enum dc_status lg_op_compare(struct lg_ctx *cx, const struct lg_node *n,
                                    const struct lv *data, struct lv *out);
static enum dc_status lg_op_arith(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out);
static enum dc_status lg_op_minmax(struct lg_ctx *cx, const struct lg_node *n,
                                   const struct lv *data, struct lv *out);
static enum dc_status lg_op_array(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out);
static enum dc_status lg_op_iterate(struct lg_ctx *cx, const struct lg_node *n,
                                    const struct lv *data, struct lv *out);
static enum dc_status lg_op_reduce(struct lg_ctx *cx, const struct lg_node *n,
                                   const struct lv *data, struct lv *out);
static enum dc_status lg_op_merge(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out);
static enum dc_status lg_op_in(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                               struct lv *out);
static enum dc_status lg_op_cat(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                struct lv *out);
static enum dc_status lg_op_substr(struct lg_ctx *cx, const struct lg_node *n,
                                   const struct lv *data, struct lv *out);
static enum dc_status lg_to_cjson(struct lg_ctx *cx, const struct lv *v, cJSON **out);
static enum dc_status lg_run(const dc_logic *logic, const cJSON *data, struct lg_ctx *cx,
                             struct lv *out);

static enum dc_status lc_fail(struct lc *c, enum dc_status code, const char *fmt, ...)
    DC_PRINTF(3, 4);
static size_t lc_push(struct lc *c, const char *tok);
static size_t lc_push_index(struct lc *c, size_t i);
static void lc_pop(struct lc *c, size_t old);
static const struct lg_opdef *lc_find_op(const char *name);
static lg_fn lc_handler(uint8_t op);
static enum dc_status lc_count(struct lc *c);
static enum dc_status lc_measure(struct lc *c, const cJSON *j, unsigned depth);
static enum dc_status lc_scalar(struct lc *c, const cJSON *j, struct lv *out);
static enum dc_status lc_node(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out);
static enum dc_status lc_array(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out);
static enum dc_status lc_object(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out);
static enum dc_status lc_operator(struct lc *c, const cJSON *j, unsigned depth,
                                  struct lg_node *out);
static enum dc_status lc_path_string(struct lc *c, const struct lv *v, const char **out);
static enum dc_status lc_add_path(struct lc *c, const char *path);
static enum dc_status lc_add_key_path(struct lc *c, const struct lv *key);
static enum dc_status lc_var(struct lc *c, struct lg_node *n);
static enum dc_status lc_missing_paths(struct lc *c, const struct lg_node *n);
static int lc_path_cmp(const void *a, const void *b);

/* ---- memory ------------------------------------------------------------------ */

/* The one place this module gets memory from. Counting here (when the caller
 * asked for statistics) is what lets a test prove that an evaluation did not
 * allocate, and failing here on request is how tests reach every
 * out-of-memory path. */
static void *lg_malloc(size_t size, struct dc_logic_stats *stats)
{
    if (stats != NULL) {
        stats->allocs++;
        if (stats->fail_at != 0 && stats->allocs == stats->fail_at)
            return NULL;
        stats->alloc_bytes += size;
    }
    return malloc(size);
}

static void lg_free(void *p)
{
    free(p);
}

/* `buf` (may be NULL) is a caller-owned first block, used before any chunk. */
static void lg_arena_init(struct lg_arena *a, void *buf, size_t len, size_t limit,
                          struct dc_logic_stats *stats)
{
    a->chunks = NULL;
    a->cur = buf;
    a->end = buf != NULL ? (unsigned char *)buf + len : NULL;
    a->total = 0;
    a->limit = limit;
    a->stats = stats;
}

static void lg_arena_release(struct lg_arena *a)
{
    struct lg_chunk *c = a->chunks;
    while (c != NULL) {
        struct lg_chunk *next = c->next;
        lg_free(c);
        c = next;
    }
    a->chunks = NULL;
    a->cur = NULL;
    a->end = NULL;
    a->total = 0;
}

static enum dc_status lg_arena_grow(struct lg_ctx *cx, size_t size)
{
    struct lg_arena *a = &cx->arena;
    size_t cap = LG_CHUNK_MIN;
    /* Chunks grow with the arena so that big evaluations take few mallocs. */
    if (a->total > cap)
        cap = a->total < LG_CHUNK_GROW_MAX ? a->total : LG_CHUNK_GROW_MAX;
    if (cap < size)
        cap = size;
    if (cap > a->limit - a->total) {
        if (size > a->limit - a->total)
            return dc_error_set(cx->err, DC_ELIMIT, NULL,
                                "evaluation built more than %zu bytes of strings and arrays",
                                a->limit);
        cap = size;
    }
    if (cap > SIZE_MAX - sizeof(struct lg_chunk))
        return lg_oom(cx);
    struct lg_chunk *c = lg_malloc(sizeof(*c) + cap, a->stats);
    if (c == NULL)
        return lg_oom(cx);
    c->next = a->chunks;
    a->chunks = c;
    a->cur = (unsigned char *)(c + 1);
    a->end = a->cur + cap;
    a->total += cap;
    return DC_OK;
}

static enum dc_status lg_alloc(struct lg_ctx *cx, size_t size, void **out)
{
    struct lg_arena *a = &cx->arena;
    if (size > SIZE_MAX - LG_ALIGN)
        return lg_oom(cx);
    size = (size + LG_ALIGN - 1) & ~(size_t)(LG_ALIGN - 1);
    if (size == 0)
        size = LG_ALIGN;
    if (a->cur == NULL || (size_t)(a->end - a->cur) < size) {
        enum dc_status rc = lg_arena_grow(cx, size);
        if (rc != DC_OK)
            return rc;
    }
    *out = a->cur;
    a->cur += size;
    return DC_OK;
}

static enum dc_status lg_oom(struct lg_ctx *cx)
{
    return dc_error_set(cx->err, DC_ENOMEM, NULL, "out of memory");
}

static enum dc_status lg_step_limit(struct lg_ctx *cx)
{
    return dc_error_set(cx->err, DC_ELIMIT, NULL,
                        "evaluation exceeded the step limit (%llu operator applications)",
                        (unsigned long long)cx->max_steps);
}

/* Bulk work (copying or scanning elements and bytes) counts as steps too, so
 * that the step limit bounds time and memory, not just operator calls. */
static enum dc_status lg_charge(struct lg_ctx *cx, uint64_t units)
{
    if (units > cx->max_steps - cx->steps)
        return lg_step_limit(cx);
    cx->steps += units;
    return DC_OK;
}

/* ---- values ------------------------------------------------------------------ */

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

static size_t lv_arr_len(const struct lv *v)
{
    if (v->kind == LV_ARR)
        return v->u.a != NULL ? v->u.a->n : 0;
    size_t n = 0;
    for (const cJSON *c = v->u.j->child; c != NULL; c = c->next)
        n++;
    return n;
}

/* A new array of n elements (to be filled by the caller through *arr), or a
 * new empty array, which costs nothing. */
static enum dc_status lg_fresh_array(struct lg_ctx *cx, size_t n, struct lv_arr **arr,
                                     struct lv *out)
{
    *arr = NULL;
    if (n == 0) {
        *out = (struct lv){.kind = LV_ARR, .id = ++cx->serial};
        return DC_OK;
    }
    if (n > (SIZE_MAX - sizeof(struct lv_arr)) / sizeof(struct lv))
        return lg_oom(cx);
    enum dc_status rc = lg_charge(cx, n);
    if (rc != DC_OK)
        return rc;
    void *mem = NULL;
    rc = lg_alloc(cx, sizeof(struct lv_arr) + n * sizeof(struct lv), &mem);
    if (rc != DC_OK)
        return rc;
    struct lv_arr *a = mem;
    a->n = n;
    *arr = a;
    *out = (struct lv){.kind = LV_ARR, .u.a = a};
    return DC_OK;
}

static void lg_it_init(struct lg_it *it, const struct lv *arr)
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

static bool lg_it_next(struct lg_it *it, struct lv *out)
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

/* ---- UTF-8 text, measured in UTF-16 code units as JavaScript does ------------ */

/* Length in bytes of the character at p (1 for a byte that does not start a
 * valid sequence) and its width in UTF-16 code units. */
static size_t lg_u8_char(const char *p, size_t rem, unsigned *units)
{
    unsigned char c = (unsigned char)p[0];
    size_t len = 1;
    *units = 1;
    if (c >= 0xC0 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF7)
        len = 4;
    if (len > rem)
        return 1;
    for (size_t i = 1; i < len; i++) {
        if (((unsigned char)p[i] & 0xC0) != 0x80)
            return 1;
    }
    if (len == 4)
        *units = 2;
    return len;
}

static uint32_t lg_u8_decode(const char *p, size_t rem)
{
    unsigned units;
    size_t len = lg_u8_char(p, rem, &units);
    const unsigned char *s = (const unsigned char *)p;
    switch (len) {
    case 2:
        return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3:
        return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    case 4:
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    default:
        return s[0];
    }
}

static size_t lg_u16_len(const char *p, size_t len)
{
    size_t n = 0;
    size_t i = 0;
    while (i < len) {
        unsigned units;
        i += lg_u8_char(p + i, len - i, &units);
        n += units;
    }
    return n;
}

/* The string s[unit] of JavaScript: one code unit, as a view of its
 * character, or U+FFFD when the unit is half of a surrogate pair. */
static bool lg_u16_unit_at(const char *p, size_t len, size_t unit, struct lg_sv *out)
{
    size_t i = 0;
    size_t u = 0;
    while (i < len) {
        unsigned units;
        size_t bl = lg_u8_char(p + i, len - i, &units);
        if (unit < u + units) {
            if (units == 2)
                *out = (struct lg_sv){lg_fffd, sizeof(lg_fffd) - 1};
            else
                *out = (struct lg_sv){p + i, bl};
            return true;
        }
        u += units;
        i += bl;
    }
    return false;
}

/* Byte range [*b0, *b1) of the UTF-16 units [u0, u1) of s, u0 < u1. *pre and
 * *post tell that the range starts or ends inside a surrogate pair: the lone
 * half is outside the byte range and stands for a U+FFFD. */
static void lg_u16_range(const char *p, size_t len, size_t u0, size_t u1, size_t *b0, size_t *b1,
                         bool *pre, bool *post)
{
    size_t i = 0;
    size_t u = 0;
    bool started = false;
    *pre = false;
    *post = false;
    *b0 = len;
    *b1 = len;
    while (i < len) {
        unsigned units;
        size_t bl = lg_u8_char(p + i, len - i, &units);
        if (!started) {
            if (u == u0) {
                *b0 = i;
                started = true;
            } else if (units == 2 && u + 1 == u0) {
                *b0 = i + bl;
                *pre = true;
                started = true;
            }
        }
        if (started) {
            if (u == u1) {
                *b1 = i;
                return;
            }
            if (units == 2 && u + 1 == u1) {
                *b1 = i;
                *post = true;
                return;
            }
        }
        u += units;
        i += bl;
    }
}

/* JavaScript's string order: by UTF-16 code units. That is UTF-8 byte order
 * except where a character above U+FFFF meets one in U+E000..U+FFFF. */
static int lg_str_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n)
        return alen < blen ? -1 : (alen > blen ? 1 : 0);
    /* Back up to the start of the character both strings differ in. */
    size_t j = i;
    while (j > 0 && ((unsigned char)a[j] & 0xC0) == 0x80)
        j--;
    uint32_t ca = lg_u8_decode(a + j, alen - j);
    uint32_t cb = lg_u8_decode(b + j, blen - j);
    uint32_t ua = ca < 0x10000 ? ca : 0xD800 + ((ca - 0x10000) >> 10);
    uint32_t ub = cb < 0x10000 ? cb : 0xD800 + ((cb - 0x10000) >> 10);
    if (ua == ub) {
        ua = ca < 0x10000 ? ca : 0xDC00 + ((ca - 0x10000) & 0x3FF);
        ub = cb < 0x10000 ? cb : 0xDC00 + ((cb - 0x10000) & 0x3FF);
    }
    if (ua == ub)
        return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
    return ua < ub ? -1 : 1;
}

static bool lg_contains(const char *h, size_t hl, const char *n, size_t nl)
{
    if (nl == 0)
        return true;
    if (nl > hl)
        return false;
    for (size_t i = 0; i + nl <= hl; i++) {
        if (h[i] == n[0] && memcmp(h + i, n, nl) == 0)
            return true;
    }
    return false;
}

/* ---- numbers ----------------------------------------------------------------- */

static size_t lg_fmt_u64(uint64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

/* Number::toString(x) of ECMAScript: the shortest digits that read back as
 * x, in plain notation from 1e-6 up to 1e21 and in exponent notation outside
 * ("1e+21", "1.5e-7"). Writes at most LG_NUMBUF bytes, NUL included. */
static size_t lg_fmt_num(double x, char *buf)
{
    size_t n = 0;
    if (isnan(x)) {
        memcpy(buf, "NaN", 4);
        return 3;
    }
    if (x == 0) { /* -0 too */
        memcpy(buf, "0", 2);
        return 1;
    }
    if (x < 0) {
        buf[n++] = '-';
        x = -x;
    }
    if (isinf(x)) {
        memcpy(buf + n, "Infinity", 9);
        return n + 8;
    }
    if (x < 9007199254740992.0 && x == floor(x))
        return n + lg_fmt_u64((uint64_t)x, buf + n);

    char tmp[40];
    for (int prec = 1;; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, x);
        if (prec == 17 || strtod(tmp, NULL) == x)
            break;
    }
    char dig[24];
    size_t k = 0;
    const char *q = tmp;
    for (; *q != '\0' && *q != 'e' && *q != 'E'; q++) {
        if (*q >= '0' && *q <= '9' && k < sizeof(dig))
            dig[k++] = *q;
    }
    long e = *q != '\0' ? strtol(q + 1, NULL, 10) : 0;
    while (k > 1 && dig[k - 1] == '0')
        k--;
    long point = e + 1; /* digits before the decimal point */
    long kk = (long)k;
    if (kk <= point && point <= 21) {
        memcpy(buf + n, dig, k);
        n += k;
        for (long z = 0; z < point - kk; z++)
            buf[n++] = '0';
    } else if (0 < point && point <= 21) {
        memcpy(buf + n, dig, (size_t)point);
        n += (size_t)point;
        buf[n++] = '.';
        memcpy(buf + n, dig + point, k - (size_t)point);
        n += k - (size_t)point;
    } else if (-6 < point && point <= 0) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (long z = 0; z < -point; z++)
            buf[n++] = '0';
        memcpy(buf + n, dig, k);
        n += k;
    } else {
        buf[n++] = dig[0];
        if (k > 1) {
            buf[n++] = '.';
            memcpy(buf + n, dig + 1, k - 1);
            n += k - 1;
        }
        long ex = point - 1;
        buf[n++] = 'e';
        buf[n++] = ex < 0 ? '-' : '+';
        n += lg_fmt_u64((uint64_t)(ex < 0 ? -ex : ex), buf + n);
    }
    buf[n] = '\0';
    return n;
}

/* Bytes of the JavaScript white space or line terminator at s, 0 if none. */
static size_t lg_ws_len(const char *s, size_t rem)
{
    const unsigned char *p = (const unsigned char *)s;
    if (rem == 0)
        return 0;
    if (p[0] == ' ' || (p[0] >= 0x09 && p[0] <= 0x0D))
        return 1;
    if (rem >= 2 && p[0] == 0xC2 && p[1] == 0xA0) /* U+00A0 */
        return 2;
    if (rem < 3)
        return 0;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) /* U+1680 */
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x80 && /* U+2000..200A, 2028, 2029, 202F */
        ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) /* U+205F */
        return 3;
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) /* U+3000 */
        return 3;
    if (p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) /* U+FEFF */
        return 3;
    return 0;
}

static void lg_trim(const char **p, size_t *len)
{
    const char *s = *p;
    size_t n = *len;
    for (;;) {
        size_t w = lg_ws_len(s, n);
        if (w == 0)
            break;
        s += w;
        n -= w;
    }
    size_t i = 0;
    size_t last = 0;
    while (i < n) {
        size_t w = lg_ws_len(s + i, n - i);
        if (w != 0) {
            i += w;
        } else {
            unsigned units;
            i += lg_u8_char(s + i, n - i, &units);
            last = i;
        }
    }
    *p = s;
    *len = last;
}

static inline bool lg_isdigit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the longest unsigned decimal literal at p (digits, an optional
 * fraction, an optional exponent; at least one digit), 0 if there is none. */
static size_t lg_scan_decimal(const char *p, size_t len)
{
    size_t i = 0;
    size_t digits = 0;
    while (i < len && lg_isdigit(p[i])) {
        i++;
        digits++;
    }
    if (i < len && p[i] == '.') {
        size_t j = i + 1;
        size_t frac = 0;
        while (j < len && lg_isdigit(p[j])) {
            j++;
            frac++;
        }
        if (digits + frac > 0) {
            i = j;
            digits += frac;
        }
    }
    if (digits == 0)
        return 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (p[j] == '+' || p[j] == '-'))
            j++;
        size_t k = j;
        while (k < len && lg_isdigit(p[k]))
            k++;
        if (k > j)
            i = k;
    }
    return i;
}

/* A long decimal literal: keep LG_DEC_DIGITS significant digits and a sticky
 * digit for the rest, then let strtod round. */
static double lg_dec_long(const char *p, size_t len)
{
    char buf[LG_DEC_DIGITS + 48];
    size_t o = 0;
    size_t i = 0;
    long long exp10 = 0;
    bool seen = false;
    bool sticky = false;
    for (; i < len && lg_isdigit(p[i]); i++) {
        if (!seen && p[i] == '0')
            continue;
        seen = true;
        if (o < LG_DEC_DIGITS) {
            buf[o++] = p[i];
        } else {
            exp10++;
            sticky = sticky || p[i] != '0';
        }
    }
    if (i < len && p[i] == '.') {
        for (i++; i < len && lg_isdigit(p[i]); i++) {
            if (!seen && p[i] == '0') {
                exp10--;
                continue;
            }
            seen = true;
            if (o < LG_DEC_DIGITS) {
                buf[o++] = p[i];
                exp10--;
            } else {
                sticky = sticky || p[i] != '0';
            }
        }
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        bool neg = false;
        long long e = 0;
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            neg = p[i++] == '-';
        /* Past a billion the result is 0 or infinity whatever the digits. */
        for (; i < len && lg_isdigit(p[i]); i++) {
            if (e < 1000000000LL)
                e = e * 10 + (p[i] - '0');
        }
        exp10 += neg ? -e : e;
    }
    if (o == 0)
        return 0;
    if (sticky) {
        buf[o++] = '1';
        exp10--;
    }
    snprintf(buf + o, sizeof(buf) - o, "e%lld", exp10);
    return strtod(buf, NULL);
}

/* A validated unsigned decimal literal to the nearest double. */
static double lg_dec_to_double(const char *p, size_t len)
{
    if (len < LG_DEC_DIRECT) {
        char buf[LG_DEC_DIRECT];
        memcpy(buf, p, len);
        buf[len] = '\0';
        return strtod(buf, NULL);
    }
    return lg_dec_long(p, len);
}

static double lg_radix(const char *p, size_t len, unsigned base)
{
    double v = 0;
    if (len == 0)
        return NAN;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return NAN;
        if (d >= base)
            return NAN;
        v = v * base + d;
    }
    return v;
}

/* ECMAScript StringToNumber: Number("  12 ") is 12, Number("") is 0,
 * Number("0x1A") is 26, Number("1e3") is 1000, Number("12px") is NaN. */
static double lg_str_to_number(const char *p, size_t len)
{
    lg_trim(&p, &len);
    if (len == 0)
        return 0;
    if (len > 2 && p[0] == '0') {
        char r = p[1];
        if (r == 'x' || r == 'X')
            return lg_radix(p + 2, len - 2, 16);
        if (r == 'o' || r == 'O')
            return lg_radix(p + 2, len - 2, 8);
        if (r == 'b' || r == 'B')
            return lg_radix(p + 2, len - 2, 2);
    }
    bool neg = false;
    size_t i = 0;
    if (p[0] == '+' || p[0] == '-') {
        neg = p[0] == '-';
        i = 1;
    }
    if (len - i == 8 && memcmp(p + i, "Infinity", 8) == 0)
        return neg ? -INFINITY : INFINITY;
    size_t n = lg_scan_decimal(p + i, len - i);
    if (n == 0 || i + n != len)
        return NAN;
    double x = lg_dec_to_double(p + i, n);
    return neg ? -x : x;
}

/* parseFloat() of a string: the longest decimal prefix after white space. */
static double lg_str_parse_float(const char *p, size_t len)
{
    for (;;) {
        size_t w = lg_ws_len(p, len);
        if (w == 0)
            break;
        p += w;
        len -= w;
    }
    bool neg = false;
    size_t i = 0;
    if (len > 0 && (p[0] == '+' || p[0] == '-')) {
        neg = p[0] == '-';
        i = 1;
    }
    if (len - i >= 8 && memcmp(p + i, "Infinity", 8) == 0)
        return neg ? -INFINITY : INFINITY;
    size_t n = lg_scan_decimal(p + i, len - i);
    if (n == 0)
        return NAN;
    double x = lg_dec_to_double(p + i, n);
    return neg ? -x : x;
}

/* ECMAScript ToNumber. For an array it is ToNumber(String(array)): [] is 0,
 * [x] is x read back from its string, and two or more elements are NaN since
 * the join has a comma; so it never needs the joined string. */
static double lg_to_number(const struct lv *v)
{
    switch (v->kind) {
    case LV_NULL:
        return 0;
    case LV_BOOL:
        return v->u.b ? 1 : 0;
    case LV_NUM:
        return v->u.n;
    case LV_STR:
        return lg_str_to_number(v->u.s.p, v->u.s.len);
    case LV_JSON:
    case LV_ARR: {
        if (!lv_is_array(v))
            return NAN;
        struct lg_it it;
        struct lv e;
        lg_it_init(&it, v);
        if (!lg_it_next(&it, &e))
            return 0;
        struct lv second;
        if (lg_it_next(&it, &second))
            return NAN;
        switch (e.kind) {
        case LV_NULL:
            return 0; /* [null] joins to "" */
        case LV_NUM:
            return e.u.n == 0 ? 0 : e.u.n; /* String(-0) is "0" */
        case LV_BOOL:
            return NAN;
        default:
            return lg_to_number(&e);
        }
    }
    default:
        return NAN;
    }
}

/* parseFloat(v), which "+" and "*" apply: parseFloat(String(v)). So true and
 * null are NaN, -0 becomes 0, and an array reads its first element. */
static double lg_parse_float(const struct lv *v)
{
    switch (v->kind) {
    case LV_NUM:
        return v->u.n == 0 ? 0 : v->u.n;
    case LV_STR:
        return lg_str_parse_float(v->u.s.p, v->u.s.len);
    case LV_JSON:
    case LV_ARR: {
        if (!lv_is_array(v))
            return NAN;
        struct lg_it it;
        struct lv e;
        lg_it_init(&it, v);
        if (!lg_it_next(&it, &e))
            return NAN;
        return lg_parse_float(&e);
    }
    default:
        return NAN;
    }
}

/* ECMAScript ToIntegerOrInfinity of a number. */
static double lg_to_integer(double x)
{
    if (isnan(x))
        return 0;
    return trunc(x);
}

/* ---- strings ----------------------------------------------------------------- */

static enum dc_status lg_sb_put(struct lg_ctx *cx, struct lg_sb *sb, const char *s, size_t n)
{
    if (sb->p == NULL || n > sb->cap - sb->len) {
        if (n > SIZE_MAX / 4 - sb->len)
            return lg_oom(cx);
        size_t cap = sb->cap * 2;
        if (cap < sb->len + n)
            cap = sb->len + n;
        if (cap < 32)
            cap = 32;
        enum dc_status rc = lg_charge(cx, (cap >> LG_STR_CHARGE_SHIFT) + 1);
        if (rc != DC_OK)
            return rc;
        void *mem = NULL;
        rc = lg_alloc(cx, cap + 1, &mem);
        if (rc != DC_OK)
            return rc;
        if (sb->len > 0)
            memcpy(mem, sb->p, sb->len);
        sb->p = mem;
        sb->cap = cap;
    }
    if (n > 0)
        memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
    return DC_OK;
}

/* Array.prototype.join(","): elements null become "", arrays join again. */
static enum dc_status lg_sb_join(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *arr)
{
    struct lg_it it;
    struct lv e;
    bool first = true;
    lg_it_init(&it, arr);
    while (lg_it_next(&it, &e)) {
        enum dc_status rc;
        if (!first) {
            rc = lg_sb_put(cx, sb, ",", 1);
            if (rc != DC_OK)
                return rc;
        }
        first = false;
        rc = lg_sb_elem(cx, sb, &e);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

/* One element of a join (of cat's arguments, or inside an array). */
static enum dc_status lg_sb_elem(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *v)
{
    char numbuf[LG_NUMBUF];
    if (v->kind == LV_NULL)
        return DC_OK;
    if (lv_is_array(v))
        return lg_sb_join(cx, sb, v);
    struct lg_sv s;
    enum dc_status rc = lg_to_sv(cx, v, numbuf, &s);
    if (rc != DC_OK)
        return rc;
    return lg_sb_put(cx, sb, s.p, s.len);
}

/* String(v). A number is written into numbuf (LG_NUMBUF bytes), so that view
 * lasts only as long as numbuf; every other view lasts the evaluation. */
static enum dc_status lg_to_sv(struct lg_ctx *cx, const struct lv *v, char *numbuf,
                               struct lg_sv *out)
{
    switch (v->kind) {
    case LV_NULL:
        *out = (struct lg_sv){"null", 4};
        return DC_OK;
    case LV_BOOL:
        *out = v->u.b ? (struct lg_sv){"true", 4} : (struct lg_sv){"false", 5};
        return DC_OK;
    case LV_NUM:
        out->len = lg_fmt_num(v->u.n, numbuf);
        out->p = numbuf;
        return DC_OK;
    case LV_STR:
        *out = (struct lg_sv){v->u.s.p, v->u.s.len};
        return DC_OK;
    default:
        break;
    }
    if (!lv_is_array(v)) {
        *out = (struct lg_sv){lg_object_str, sizeof(lg_object_str) - 1};
        return DC_OK;
    }
    struct lg_sb sb = {NULL, 0, 0};
    enum dc_status rc = lg_sb_join(cx, &sb, v);
    if (rc != DC_OK)
        return rc;
    *out = sb.p != NULL ? (struct lg_sv){sb.p, sb.len} : (struct lg_sv){"", 0};
    return DC_OK;
}

/* A NUL-terminated copy of [p, p+len) in the arena. */
static enum dc_status lg_copy_str(struct lg_ctx *cx, const char *p, size_t len, const char **out)
{
    /* No object is larger than PTRDIFF_MAX; saying so also keeps GCC 12 -O3 from
     * a false -Wstringop-overflow on the memcpy below (Release builds failed). */
    if (len >= PTRDIFF_MAX)
        return lg_oom(cx);
    void *mem = NULL;
    enum dc_status rc = lg_alloc(cx, len + 1, &mem);
    if (rc != DC_OK)
        return rc;
    char *s = mem;
    if (len > 0)
        memcpy(s, p, len);
    s[len] = '\0';
    *out = s;
    return DC_OK;
}

/* ---- equality and order ------------------------------------------------------ */

static bool lv_same_object(const struct lv *a, const struct lv *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case LV_JSON:
        return a->u.j == b->u.j;
    case LV_ARR:
        return a->u.a == b->u.a && (a->u.a != NULL || a->id == b->id);
    case LV_OBJ:
        return a->u.o == b->u.o;
    default:
        return false;
    }
}

static inline bool lg_str_eq(const struct lv *a, const struct lv *b)
{
    size_t len = a->u.s.len;
    return len == b->u.s.len &&
           (len == 0 || (a->u.s.p[0] == b->u.s.p[0] && memcmp(a->u.s.p, b->u.s.p, len) == 0));
}

/* === : same type and value; NaN is not itself; objects by identity. */
static bool lg_strict_eq(const struct lv *a, const struct lv *b)
{
    if (lv_is_object_type(a) || lv_is_object_type(b))
        return lv_same_object(a, b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case LV_NULL:
        return true;
    case LV_BOOL:
        return a->u.b == b->u.b;
    case LV_NUM:
        return a->u.n == b->u.n;
    default:
        return lg_str_eq(a, b);
    }
}

/* == : ECMAScript IsLooselyEqual. null equals only null; a boolean compares
 * as 0 or 1; a string meeting a number becomes a number; an object meeting a
 * primitive becomes its string ([1,2] == "1,2", [] == 0, [] == false). */
static enum dc_status lg_loose_eq(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                                  bool *out)
{
    bool ao = lv_is_object_type(a);
    bool bo = lv_is_object_type(b);
    if (ao && bo) {
        *out = lv_same_object(a, b);
        return DC_OK;
    }
    if (!ao && !bo && a->kind == b->kind) {
        *out = lg_strict_eq(a, b);
        return DC_OK;
    }
    if (a->kind == LV_NULL || b->kind == LV_NULL) {
        *out = false;
        return DC_OK;
    }
    struct lv x = *a;
    struct lv y = *b;
    if (x.kind == LV_BOOL)
        x = lv_num(x.u.b ? 1 : 0);
    if (y.kind == LV_BOOL)
        y = lv_num(y.u.b ? 1 : 0);
    /* Now each side is a number, a string or an object, not both objects. */
    if (x.kind == LV_STR && y.kind == LV_STR) {
        *out = lg_strict_eq(&x, &y);
        return DC_OK;
    }
    if (x.kind == LV_NUM || y.kind == LV_NUM) {
        /* number == string | object | number: both as numbers (ToNumber of an
         * object is ToNumber of its string, which lg_to_number computes). */
        *out = lg_to_number(&x) == lg_to_number(&y);
        return DC_OK;
    }
    /* A string and an object: compare with the object's string. */
    char numbuf[LG_NUMBUF];
    struct lg_sv sx;
    struct lg_sv sy;
    enum dc_status rc = lg_to_sv(cx, &x, numbuf, &sx);
    if (rc == DC_OK)
        rc = lg_to_sv(cx, &y, numbuf, &sy);
    if (rc != DC_OK)
        return rc;
    *out = sx.len == sy.len && memcmp(sx.p, sy.p, sx.len) == 0;
    return DC_OK;
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

/* ECMAScript IsLessThan: both sides to primitives (an array becomes its
 * string, an object "[object Object]"); two strings compare as strings,
 * anything else as numbers, where NaN is unordered. */
static enum dc_status lg_compare(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                                 enum lg_ord *out)
{
    if (a->kind == LV_NUM && b->kind == LV_NUM) {
        *out = lg_num_ord(a->u.n, b->u.n);
        return DC_OK;
    }
    bool as = a->kind == LV_STR || lv_is_object_type(a);
    bool bs = b->kind == LV_STR || lv_is_object_type(b);
    if (!as || !bs) {
        *out = lg_num_ord(lg_to_number(a), lg_to_number(b));
        return DC_OK;
    }
    char numbuf[LG_NUMBUF]; /* unused: neither side is a number here */
    struct lg_sv sa;
    struct lg_sv sb;
    enum dc_status rc = lg_to_sv(cx, a, numbuf, &sa);
    if (rc == DC_OK)
        rc = lg_to_sv(cx, b, numbuf, &sb);
    if (rc != DC_OK)
        return rc;
    int c = lg_str_cmp(sa.p, sa.len, sb.p, sb.len);
    *out = c < 0 ? ORD_LT : (c > 0 ? ORD_GT : ORD_EQ);
    return DC_OK;
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

/* ---- data access ------------------------------------------------------------- */

/* A JavaScript array index is a canonical decimal below 2^32 - 1: "1" is an
 * index, "01" and "1.0" are property names no array has. */
static int64_t lg_seg_index(const char *p, size_t len)
{
    if (len == 0 || len > 10 || (p[0] == '0' && len > 1))
        return LG_NOT_INDEX;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!lg_isdigit(p[i]))
            return LG_NOT_INDEX;
        v = v * 10 + (p[i] - '0');
    }
    return v < 4294967295LL ? v : LG_NOT_INDEX;
}

/* key (NUL-terminated) equals [p, p+len)? p[len] need not be NUL, and p
 * holds no NUL before len, so a shorter key stops strncmp at its own NUL. */
static inline bool lg_key_eq(const char *key, const char *p, size_t len)
{
    if (len == 0)
        return key[0] == '\0';
    return key[0] == p[0] && strncmp(key, p, len) == 0 && key[len] == '\0';
}

/* The same test when p is NUL-terminated at len (precompiled segments): the
 * first byte rejects most keys, libc's strcmp settles the rest. */
static inline bool lg_key_eqz(const char *key, const char *p)
{
    return key[0] == p[0] && strcmp(key, p) == 0;
}

/* obj[segment] for own properties, plus "length" of arrays and strings and
 * s[i] of strings, as JavaScript reads them. False when undefined. z: the
 * segment is NUL-terminated at len. */
static inline bool lg_is_length(const char *p, size_t len)
{
    return len == 6 && memcmp(p, "length", 6) == 0;
}

static bool lg_get(const struct lv *obj, const char *p, size_t len, int64_t idx, bool z,
                   struct lv *out)
{
    switch (obj->kind) {
    case LV_JSON: {
        const cJSON *j = obj->u.j;
        if (LG_JTYPE(j) == cJSON_Object) {
            for (const cJSON *c = j->child; c != NULL; c = c->next) {
                if (c->string != NULL &&
                    (z ? lg_key_eqz(c->string, p) : lg_key_eq(c->string, p, len))) {
                    *out = lv_from_json(c);
                    return true;
                }
            }
            return false;
        }
        if (idx >= 0) {
            int64_t i = 0;
            for (const cJSON *c = j->child; c != NULL; c = c->next, i++) {
                if (i == idx) {
                    *out = lv_from_json(c);
                    return true;
                }
            }
            return false;
        }
        if (lg_is_length(p, len)) {
            *out = lv_num((double)lv_arr_len(obj));
            return true;
        }
        return false;
    }
    case LV_ARR: {
        size_t n = lv_arr_len(obj);
        if (idx >= 0 && (uint64_t)idx < n) {
            *out = obj->u.a->v[idx];
            return true;
        }
        if (lg_is_length(p, len)) {
            *out = lv_num((double)n);
            return true;
        }
        return false;
    }
    case LV_STR: {
        struct lg_sv ch;
        if (idx >= 0 && lg_u16_unit_at(obj->u.s.p, obj->u.s.len, (size_t)idx, &ch)) {
            *out = lv_str(ch.p, ch.len);
            return true;
        }
        if (lg_is_length(p, len)) {
            *out = lv_num((double)lg_u16_len(obj->u.s.p, obj->u.s.len));
            return true;
        }
        return false;
    }
    case LV_OBJ:
        if (len == 7 && memcmp(p, "current", 7) == 0) {
            *out = obj->u.o->current;
            return true;
        }
        if (len == 11 && memcmp(p, "accumulator", 11) == 0) {
            *out = obj->u.o->accumulator;
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* Walk a dotted path ("a.b.0") from data, as var does: null or undefined on
 * the way means not found. */
static bool lg_walk(const struct lv *data, const char *p, size_t len, struct lv *out)
{
    struct lv cur = *data;
    size_t s = 0;
    for (;;) {
        size_t e = s;
        while (e < len && p[e] != '.')
            e++;
        struct lv next;
        if (cur.kind == LV_NULL || !lg_get(&cur, p + s, e - s, lg_seg_index(p + s, e - s),
                                           e == len && p[e] == '\0', &next))
            return false;
        cur = next;
        if (e == len)
            break;
        s = e + 1;
    }
    *out = cur;
    return true;
}

/* The whole data, for {"var": ""}. A reduce frame is copied out once, so the
 * value outlives its step and two reads of it are the same object. */
static enum dc_status lg_whole(struct lg_ctx *cx, const struct lv *data, struct lv *out)
{
    if (data->kind != LV_OBJ) {
        *out = *data;
        return DC_OK;
    }
    struct lv_frame *f = data->u.o;
    if (f->copy == NULL) {
        void *mem = NULL;
        enum dc_status rc = lg_alloc(cx, sizeof(struct lv_frame), &mem);
        if (rc != DC_OK)
            return rc;
        struct lv_frame *copy = mem;
        copy->current = f->current;
        copy->accumulator = f->accumulator;
        copy->copy = copy;
        f->copy = copy;
    }
    *out = (struct lv){.kind = LV_OBJ, .u.o = f->copy};
    return DC_OK;
}

/* var with a path computed at run time (or a key of missing): undefined, null
 * and "" mean the whole data, anything else is read as String(path). */
static enum dc_status lg_lookup(struct lg_ctx *cx, const struct lv *data, const struct lv *path,
                                bool *found, struct lv *out)
{
    if (path->kind == LV_NULL || (path->kind == LV_STR && path->u.s.len == 0)) {
        *found = true;
        return lg_whole(cx, data, out);
    }
    char numbuf[LG_NUMBUF];
    struct lg_sv s;
    enum dc_status rc = lg_to_sv(cx, path, numbuf, &s);
    if (rc != DC_OK)
        return rc;
    *found = lg_walk(data, s.p, s.len, out);
    return DC_OK;
}

/* ---- evaluation -------------------------------------------------------------- */

/* Evaluate one argument. Constants, the most common argument, cost no call. */
static LG_ALWAYS_INLINE enum dc_status lg_arg(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out)
{
    if (n->op == OP_CONST) {
        *out = n->u.k;
        return DC_OK;
    }
    return n->fn(cx, n, data, out);
}

/* A var with a literal path. While the walk stays on JSON objects it follows
 * cJSON nodes directly (the common case: workload fields); anything else
 * (arrays, strings, reduce frames) goes through lg_get. */
static LG_NOINLINE enum dc_status lg_op_var(struct lg_ctx *cx, const struct lg_node *n,
                                            const struct lv *data, struct lv *out)
{
    const struct lg_seg *seg = n->u.var.seg;
    const struct lg_seg *end;
    struct lv cur;

    LG_STEP(cx);
    /* The whole data: seg is NULL then, and NULL + 0 is undefined in C. */
    if (n->u.var.nseg == 0)
        return lg_whole(cx, data, out);
    end = seg + n->u.var.nseg;
    if (data->kind == LV_JSON) {
        const cJSON *j = data->u.j;
        while (LG_JTYPE(j) == cJSON_Object) {
            const char *p = seg->p;
            const cJSON *c = j->child;
            while (c != NULL && (c->string == NULL || !lg_key_eqz(c->string, p)))
                c = c->next;
            if (c == NULL)
                goto not_found;
            j = c;
            if (++seg == end) {
                *out = lv_from_json(j);
                return DC_OK;
            }
        }
        cur = lv_from_json(j);
    } else {
        cur = *data;
    }
    for (; seg < end; seg++) {
        struct lv next;
        if (cur.kind == LV_NULL || !lg_get(&cur, seg->p, seg->len, seg->idx, true, &next))
            goto not_found;
        cur = next;
    }
    *out = cur;
    return DC_OK;
not_found:
    /* The default is evaluated only when needed; json-logic-js evaluates it
     * always, which no rule can observe. */
    if (n->argc > 0)
        return lg_arg(cx, &n->kids[0], data, out);
    *out = lv_null();
    return DC_OK;
}

static LG_NOINLINE enum dc_status lg_op_var_dyn(struct lg_ctx *cx, const struct lg_node *n,
                                                const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv path;
    bool found = false;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &path);
    if (rc == DC_OK)
        rc = lg_lookup(cx, data, &path, &found, out);
    if (rc != DC_OK || found)
        return rc;
    if (n->argc > 1)
        return lg_arg(cx, &n->kids[1], data, out);
    *out = lv_null();
    return DC_OK;
}

/* missing's test of one key: json-logic-js evaluates {"var": key}, so an
 * array key is [path, default]; the key is missing if that gives null or "". */
static enum dc_status lg_key_missing(struct lg_ctx *cx, const struct lv *data, const struct lv *key,
                                     bool *missing)
{
    struct lv path = *key;
    struct lv dflt = lv_null();
    struct lv value;
    bool found = false;
    if (lv_is_array(key)) {
        struct lg_it it;
        lg_it_init(&it, key);
        if (!lg_it_next(&it, &path))
            path = lv_null();
        else if (!lg_it_next(&it, &dflt))
            dflt = lv_null();
    }
    enum dc_status rc = lg_lookup(cx, data, &path, &found, &value);
    if (rc != DC_OK)
        return rc;
    if (!found)
        value = dflt;
    *missing = value.kind == LV_NULL || (value.kind == LV_STR && value.u.s.len == 0);
    return DC_OK;
}

/* One missing key into the result of missing: the array is allocated at the
 * first missing key, with room for `room` keys, so nothing is allocated while
 * none is missing. */
static enum dc_status lg_push_missing(struct lg_ctx *cx, struct lv_arr **res, size_t room,
                                      const struct lv *key, struct lv *out)
{
    if (*res == NULL) {
        enum dc_status rc = lg_fresh_array(cx, room, res, out);
        if (rc != DC_OK)
            return rc;
        (*res)->n = 0;
    }
    (*res)->v[(*res)->n++] = *key;
    return DC_OK;
}

/* The result of missing once every key is seen: [] when none was missing. */
static enum dc_status lg_end_missing(struct lg_ctx *cx, struct lv_arr *res, struct lv *out)
{
    return res == NULL ? lg_fresh_array(cx, 0, &res, out) : DC_OK;
}

/* The keys of `keys` (an array) that are missing from data, as a new array.
 * Nothing is allocated while no key is missing. */
static enum dc_status lg_missing_keys(struct lg_ctx *cx, const struct lv *data,
                                      const struct lv *keys, size_t nkeys_hint, struct lv *out)
{
    struct lg_it it;
    struct lv key;
    struct lv_arr *res = NULL;
    size_t seen = 0;
    enum dc_status rc = DC_OK;
    lg_it_init(&it, keys);
    while (lg_it_next(&it, &key)) {
        bool missing = false;
        seen++;
        rc = lg_key_missing(cx, data, &key, &missing);
        if (rc != DC_OK)
            return rc;
        if (!missing)
            continue;
        /* Room for this key and every key after it. */
        size_t room = (nkeys_hint != 0 ? nkeys_hint : lv_arr_len(keys)) - seen + 1;
        rc = lg_push_missing(cx, &res, room, &key, out);
        if (rc != DC_OK)
            return rc;
    }
    return lg_end_missing(cx, res, out);
}

/* missing: keys are the first argument if it is an array, else all arguments. */
static LG_NOINLINE enum dc_status lg_op_missing(struct lg_ctx *cx, const struct lg_node *n,
                                                const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv first;
    struct lv_arr *res = NULL;
    enum dc_status rc;
    if (n->argc == 0)
        return lg_fresh_array(cx, 0, &res, out);
    rc = lg_arg(cx, &n->kids[0], data, &first);
    if (rc != DC_OK)
        return rc;
    if (lv_is_array(&first))
        return lg_missing_keys(cx, data, &first, 0, out);
    for (uint32_t i = 0; i < n->argc; i++) {
        struct lv key = first;
        bool missing = false;
        if (i > 0) {
            rc = lg_arg(cx, &n->kids[i], data, &key);
            if (rc != DC_OK)
                return rc;
        }
        rc = lg_key_missing(cx, data, &key, &missing);
        if (rc != DC_OK)
            return rc;
        if (!missing)
            continue;
        rc = lg_push_missing(cx, &res, n->argc - i, &key, out);
        if (rc != DC_OK)
            return rc;
    }
    return lg_end_missing(cx, res, out);
}

/* missing_some(need, options): [] when at least `need` of the options are
 * present, else the missing ones. As in json-logic-js, the options go through
 * missing's own argument rule and "options.length" is JavaScript's. */
static LG_NOINLINE enum dc_status lg_op_missing_some(struct lg_ctx *cx, const struct lg_node *n,
                                                     const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv need;
    struct lv opts;
    struct lv are_missing;
    struct lv_arr *res = NULL;
    enum lg_ord ord = ORD_NONE;
    double opt_len = NAN;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &need);
    if (rc == DC_OK)
        rc = lg_arg(cx, &n->kids[1], data, &opts);
    if (rc != DC_OK)
        return rc;
    if (lv_is_array(&opts)) {
        struct lg_it it;
        struct lv first;
        lg_it_init(&it, &opts);
        opt_len = (double)lv_arr_len(&opts);
        if (lg_it_next(&it, &first) && lv_is_array(&first))
            rc = lg_missing_keys(cx, data, &first, 0, &are_missing);
        else
            rc = lg_missing_keys(cx, data, &opts, 0, &are_missing);
    } else {
        bool missing = false;
        if (opts.kind == LV_STR)
            opt_len = (double)lg_u16_len(opts.u.s.p, opts.u.s.len);
        rc = lg_key_missing(cx, data, &opts, &missing);
        if (rc == DC_OK) {
            rc = lg_fresh_array(cx, missing ? 1 : 0, &res, &are_missing);
            if (rc == DC_OK && missing)
                res->v[0] = opts;
        }
    }
    if (rc != DC_OK)
        return rc;
    struct lv have = lv_num(opt_len - (double)lv_arr_len(&are_missing));
    rc = lg_compare(cx, &have, &need, &ord);
    if (rc != DC_OK)
        return rc;
    if (ord == ORD_GT || ord == ORD_EQ)
        return lg_fresh_array(cx, 0, &res, out);
    *out = are_missing;
    return DC_OK;
}

/* == != === !== < <= > >=, and the "between" forms of < and <=. */
static LG_NOINLINE enum dc_status lg_op_compare(struct lg_ctx *cx, const struct lg_node *n,
                                                const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv a;
    struct lv b;
    bool r = false;
    enum lg_ord ord = ORD_NONE;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &a);
    if (rc == DC_OK)
        rc = lg_arg(cx, &n->kids[1], data, &b);
    if (rc != DC_OK)
        return rc;
    switch (n->op) {
    case OP_SEQ:
    case OP_SNE:
        r = lg_strict_eq(&a, &b) == (n->op == OP_SEQ);
        break;
    case OP_EQ:
    case OP_NE:
        /* Same-typed numbers and strings are most comparisons in rules. */
        if (a.kind == LV_NUM && b.kind == LV_NUM)
            r = a.u.n == b.u.n;
        else if (a.kind == LV_STR && b.kind == LV_STR)
            r = lg_str_eq(&a, &b);
        else
            rc = lg_loose_eq(cx, &a, &b, &r);
        if (n->op == OP_NE)
            r = !r;
        break;
    default:
        if (a.kind == LV_NUM && b.kind == LV_NUM)
            ord = lg_num_ord(a.u.n, b.u.n);
        else
            rc = lg_compare(cx, &a, &b, &ord);
        r = rc == DC_OK && lg_ord_holds(n->op, ord);
        if (r && n->argc == 3) {
            struct lv c;
            rc = lg_arg(cx, &n->kids[2], data, &c);
            if (rc == DC_OK)
                rc = lg_compare(cx, &b, &c, &ord);
            r = rc == DC_OK && lg_ord_holds(n->op, ord);
        }
        break;
    }
    if (rc != DC_OK)
        return rc;
    *out = lv_bool(r);
    return DC_OK;
}

/* + - * / %. "+" and "*" read their arguments with parseFloat, as
 * json-logic-js does ({"+": "3px"} is 3); "-", "/" and "%" use ToNumber. */
static LG_NOINLINE enum dc_status lg_op_arith(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv a;
    struct lv b;
    double r = 0;
    enum dc_status rc;
    switch (n->op) {
    case OP_ADD:
        for (uint32_t i = 0; i < n->argc; i++) {
            rc = lg_arg(cx, &n->kids[i], data, &a);
            if (rc != DC_OK)
                return rc;
            r += lg_parse_float(&a);
        }
        break;
    case OP_MUL:
        /* json-logic-js reduces without a seed: one argument comes back as is. */
        if (n->argc == 1)
            return lg_arg(cx, &n->kids[0], data, out);
        for (uint32_t i = 0; i < n->argc; i++) {
            rc = lg_arg(cx, &n->kids[i], data, &a);
            if (rc != DC_OK)
                return rc;
            double x = lg_parse_float(&a);
            r = i == 0 ? x : (r == 0 ? 0 : r) * x;
        }
        break;
    default:
        rc = lg_arg(cx, &n->kids[0], data, &a);
        if (rc != DC_OK)
            return rc;
        if (n->op == OP_SUB && n->argc == 1) {
            r = -lg_to_number(&a);
            break;
        }
        rc = lg_arg(cx, &n->kids[1], data, &b);
        if (rc != DC_OK)
            return rc;
        double x = lg_to_number(&a);
        double y = lg_to_number(&b);
        if (n->op == OP_SUB)
            r = x - y;
        else if (n->op == OP_DIV)
            r = x / y;
        else
            r = fmod(x, y); /* JavaScript's %: the sign of the dividend */
        break;
    }
    *out = lv_num(r);
    return DC_OK;
}

/* Math.min / Math.max: NaN if any argument is, +0 above -0, and +-Infinity
 * with no argument. */
static LG_NOINLINE enum dc_status lg_op_minmax(struct lg_ctx *cx, const struct lg_node *n,
                                               const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    bool is_max = n->op == OP_MAX;
    double r = is_max ? -INFINITY : INFINITY;
    bool nan = false;
    for (uint32_t i = 0; i < n->argc; i++) {
        struct lv a;
        enum dc_status rc = lg_arg(cx, &n->kids[i], data, &a);
        if (rc != DC_OK)
            return rc;
        double x = lg_to_number(&a);
        if (isnan(x))
            nan = true;
        else if (is_max ? (x > r || (x == 0 && r == 0 && !signbit(x)))
                        : (x < r || (x == 0 && r == 0 && signbit(x))))
            r = x;
    }
    *out = lv_num(nan ? NAN : r);
    return DC_OK;
}

/* An array literal with operators inside: evaluated element by element. */
static LG_NOINLINE enum dc_status lg_op_array(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv_arr *arr = NULL;
    struct lv res;
    enum dc_status rc = lg_fresh_array(cx, n->argc, &arr, &res);
    if (rc != DC_OK)
        return rc;
    for (uint32_t i = 0; i < n->argc; i++) {
        rc = lg_arg(cx, &n->kids[i], data, &arr->v[i]);
        if (rc != DC_OK)
            return rc;
    }
    *out = res;
    return DC_OK;
}

/* map, filter, all, none, some: the body runs with each element as data. A
 * non-array is [] for map and filter; all over nothing is false. */
static LG_NOINLINE enum dc_status lg_op_iterate(struct lg_ctx *cx, const struct lg_node *n,
                                                const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv src;
    struct lv e;
    struct lv r;
    struct lg_it it;
    struct lv_arr *arr = NULL;
    size_t len = 0;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &src);
    if (rc != DC_OK)
        return rc;
    if (lv_is_array(&src))
        len = lv_arr_len(&src);
    if (len == 0) {
        if (n->op == OP_MAP || n->op == OP_FILTER)
            return lg_fresh_array(cx, 0, &arr, out);
        *out = lv_bool(n->op == OP_NONE);
        return DC_OK;
    }
    if (n->op == OP_MAP || n->op == OP_FILTER) {
        rc = lg_fresh_array(cx, len, &arr, out);
        if (rc != DC_OK)
            return rc;
        arr->n = 0;
    }
    lg_it_init(&it, &src);
    while (lg_it_next(&it, &e)) {
        rc = lg_charge(cx, 1);
        if (rc == DC_OK)
            rc = lg_arg(cx, &n->kids[1], &e, &r);
        if (rc != DC_OK)
            return rc;
        bool t = n->op == OP_MAP || lv_truthy(&r);
        switch (n->op) {
        case OP_MAP:
            arr->v[arr->n++] = r;
            break;
        case OP_FILTER:
            if (t)
                arr->v[arr->n++] = e;
            break;
        case OP_ALL:
            if (!t) {
                *out = lv_bool(false);
                return DC_OK;
            }
            break;
        default: /* none, some: the first truthy element decides */
            if (t) {
                *out = lv_bool(n->op == OP_SOME);
                return DC_OK;
            }
            break;
        }
    }
    if (n->op == OP_FILTER && arr->n == 0)
        return lg_fresh_array(cx, 0, &arr, out);
    if (n->op == OP_ALL || n->op == OP_NONE || n->op == OP_SOME)
        *out = lv_bool(n->op != OP_SOME);
    return DC_OK;
}

/* reduce(array, body, initial): the body's data is {current, accumulator}. */
static LG_NOINLINE enum dc_status lg_op_reduce(struct lg_ctx *cx, const struct lg_node *n,
                                               const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv src;
    struct lv acc = lv_null();
    struct lv e;
    struct lg_it it;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &src);
    if (rc == DC_OK && n->argc > 2)
        rc = lg_arg(cx, &n->kids[2], data, &acc);
    if (rc != DC_OK)
        return rc;
    if (lv_is_array(&src)) {
        struct lv_frame frame;
        struct lv fv = {.kind = LV_OBJ, .u.o = &frame};
        lg_it_init(&it, &src);
        while (lg_it_next(&it, &e)) {
            frame.current = e;
            frame.accumulator = acc;
            frame.copy = NULL;
            rc = lg_charge(cx, 1);
            if (rc == DC_OK)
                rc = lg_arg(cx, &n->kids[1], &fv, &acc);
            if (rc != DC_OK)
                return rc;
        }
    }
    *out = acc;
    return DC_OK;
}

/* merge: arrays are flattened one level, anything else is appended. */
static LG_NOINLINE enum dc_status lg_op_merge(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv *args = NULL;
    struct lv_arr *arr = NULL;
    size_t total = 0;
    enum dc_status rc;
    if (n->argc == 0)
        return lg_fresh_array(cx, 0, &arr, out);
    void *mem = NULL;
    rc = lg_alloc(cx, (size_t)n->argc * sizeof(struct lv), &mem);
    if (rc != DC_OK)
        return rc;
    args = mem;
    for (uint32_t i = 0; i < n->argc; i++) {
        rc = lg_arg(cx, &n->kids[i], data, &args[i]);
        if (rc != DC_OK)
            return rc;
        total += lv_is_array(&args[i]) ? lv_arr_len(&args[i]) : 1;
    }
    rc = lg_fresh_array(cx, total, &arr, out);
    if (rc != DC_OK || arr == NULL)
        return rc;
    size_t k = 0;
    for (uint32_t i = 0; i < n->argc; i++) {
        if (lv_is_array(&args[i])) {
            struct lg_it it;
            lg_it_init(&it, &args[i]);
            while (lg_it_next(&it, &arr->v[k]))
                k++;
        } else {
            arr->v[k++] = args[i];
        }
    }
    return DC_OK;
}

/* in: membership (===) for an array, substring for a non-empty string, false
 * for anything else (json-logic-js: !b or no indexOf). */
static LG_NOINLINE enum dc_status lg_op_in(struct lg_ctx *cx, const struct lg_node *n,
                                           const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lv a;
    struct lv b;
    bool found = false;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &a);
    if (rc == DC_OK)
        rc = lg_arg(cx, &n->kids[1], data, &b);
    if (rc != DC_OK)
        return rc;
    if (b.kind == LV_ARR) {
        size_t len = lv_arr_len(&b);
        rc = lg_charge(cx, len);
        if (rc == DC_OK && a.kind == LV_STR) {
            /* The common case: a string against a literal list of strings. */
            for (size_t i = 0; i < len && !found; i++) {
                const struct lv *e = &b.u.a->v[i];
                found = e->kind == LV_STR && lg_str_eq(&a, e);
            }
        } else {
            for (size_t i = 0; rc == DC_OK && i < len && !found; i++)
                found = lg_strict_eq(&a, &b.u.a->v[i]);
        }
    } else if (b.kind == LV_JSON && LG_JTYPE(b.u.j) == cJSON_Array) {
        size_t scanned = 0;
        for (const cJSON *c = b.u.j->child; c != NULL && !found; c = c->next, scanned++) {
            if (a.kind == LV_STR) {
                /* Skip strlen: the element's string ends where the needle does. */
                found = LG_JTYPE(c) == cJSON_String && c->valuestring != NULL &&
                        lg_key_eq(c->valuestring, a.u.s.p, a.u.s.len);
            } else {
                struct lv e = lv_from_json(c);
                found = lg_strict_eq(&a, &e);
            }
        }
        rc = lg_charge(cx, scanned);
    } else if (b.kind == LV_STR && b.u.s.len > 0) {
        char numbuf[LG_NUMBUF];
        struct lg_sv s;
        rc = lg_to_sv(cx, &a, numbuf, &s);
        if (rc == DC_OK)
            rc = lg_charge(cx, b.u.s.len >> LG_STR_CHARGE_SHIFT);
        if (rc == DC_OK)
            found = lg_contains(b.u.s.p, b.u.s.len, s.p, s.len);
    }
    if (rc != DC_OK)
        return rc;
    *out = lv_bool(found);
    return DC_OK;
}

/* cat: Array.prototype.join(""), so null is "" and arrays join with ",". */
static LG_NOINLINE enum dc_status lg_op_cat(struct lg_ctx *cx, const struct lg_node *n,
                                            const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    struct lg_sb sb = {NULL, 0, 0};
    struct lv a;
    enum dc_status rc;
    if (n->argc == 1) {
        rc = lg_arg(cx, &n->kids[0], data, &a);
        if (rc != DC_OK)
            return rc;
        if (a.kind == LV_STR) {
            *out = a;
            return DC_OK;
        }
        rc = lg_sb_elem(cx, &sb, &a);
    } else {
        rc = DC_OK;
        for (uint32_t i = 0; rc == DC_OK && i < n->argc; i++) {
            rc = lg_arg(cx, &n->kids[i], data, &a);
            if (rc == DC_OK)
                rc = lg_sb_elem(cx, &sb, &a);
        }
    }
    if (rc != DC_OK)
        return rc;
    *out = sb.p != NULL ? lv_str(sb.p, sb.len) : lv_str("", 0);
    return DC_OK;
}

/* substr(source, start, length): String.prototype.substr in UTF-16 units; a
 * negative start counts from the end, a negative length stops that many
 * units before the end (json-logic-js's extension). */
static LG_NOINLINE enum dc_status lg_op_substr(struct lg_ctx *cx, const struct lg_node *n,
                                               const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    char numbuf[LG_NUMBUF];
    struct lv src;
    struct lv start;
    struct lv len_arg;
    struct lg_sv s;
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &src);
    if (rc == DC_OK)
        rc = lg_arg(cx, &n->kids[1], data, &start);
    if (rc == DC_OK && n->argc > 2)
        rc = lg_arg(cx, &n->kids[2], data, &len_arg);
    if (rc == DC_OK)
        rc = lg_to_sv(cx, &src, numbuf, &s);
    if (rc != DC_OK)
        return rc;

    double size = (double)lg_u16_len(s.p, s.len);
    double st = lg_to_integer(lg_to_number(&start));
    st = st < 0 ? fmax(size + st, 0) : fmin(st, size);
    double count = size - st;
    if (n->argc > 2) {
        enum lg_ord ord = ORD_NONE;
        struct lv zero = lv_num(0);
        rc = lg_compare(cx, &len_arg, &zero, &ord);
        if (rc != DC_OK)
            return rc;
        if (ord == ORD_LT) {
            /* temp.substr(0, temp.length + end): a non-number `end` makes that
             * a string concatenation, which reads as NaN, so the result is "". */
            count = len_arg.kind == LV_NUM ? lg_to_integer(count + len_arg.u.n) : 0;
        } else {
            count = lg_to_integer(lg_to_number(&len_arg));
        }
        count = fmin(fmax(count, 0), size - st);
    }
    if (count <= 0) {
        *out = lv_str("", 0);
        return DC_OK;
    }
    size_t b0;
    size_t b1;
    bool pre;
    bool post;
    lg_u16_range(s.p, s.len, (size_t)st, (size_t)(st + count), &b0, &b1, &pre, &post);
    if (!pre && !post && s.p != numbuf) {
        *out = lv_str(s.p + b0, b1 - b0);
        return DC_OK;
    }
    /* A copy: the source was a number formatted on this stack, or half of a
     * surrogate pair must become U+FFFD. */
    size_t fl = sizeof(lg_fffd) - 1;
    size_t len = (pre ? fl : 0) + (b1 - b0) + (post ? fl : 0);
    void *mem = NULL;
    rc = lg_alloc(cx, len + 1, &mem);
    if (rc != DC_OK)
        return rc;
    char *d = mem;
    size_t k = 0;
    if (pre) {
        memcpy(d, lg_fffd, fl);
        k += fl;
    }
    memcpy(d + k, s.p + b0, b1 - b0);
    k += b1 - b0;
    if (post) {
        memcpy(d + k, lg_fffd, fl);
        k += fl;
    }
    d[k] = '\0';
    *out = lv_str(d, k);
    return DC_OK;
}

/* and / or: the deciding operand, not a boolean: the first falsy (and) or
 * truthy (or) operand, else the last; null when there is none. */
static LG_NOINLINE enum dc_status lg_op_andor(struct lg_ctx *cx, const struct lg_node *n,
                                              const struct lv *data, struct lv *out)
{
    bool stop_on = n->op == OP_OR;
    LG_STEP(cx);
    *out = lv_null();
    for (uint32_t i = 0; i < n->argc; i++) {
        enum dc_status rc = lg_arg(cx, &n->kids[i], data, out);
        if (rc != DC_OK)
            return rc;
        if (lv_truthy(out) == stop_on)
            break;
    }
    return DC_OK;
}

/* ! and !! */
static LG_NOINLINE enum dc_status lg_op_not(struct lg_ctx *cx, const struct lg_node *n,
                                            const struct lv *data, struct lv *out)
{
    struct lv a;
    LG_STEP(cx);
    enum dc_status rc = lg_arg(cx, &n->kids[0], data, &a);
    if (rc != DC_OK)
        return rc;
    *out = lv_bool(lv_truthy(&a) == (n->op == OP_TRUTHY));
    return DC_OK;
}

/* if / ?: : pairs of condition and value, then an optional else; null if none. */
static LG_NOINLINE enum dc_status lg_op_if(struct lg_ctx *cx, const struct lg_node *n,
                                           const struct lv *data, struct lv *out)
{
    struct lv a;
    uint32_t i = 0;
    LG_STEP(cx);
    for (; i + 1 < n->argc; i += 2) {
        enum dc_status rc = lg_arg(cx, &n->kids[i], data, &a);
        if (rc != DC_OK)
            return rc;
        if (lv_truthy(&a))
            return lg_arg(cx, &n->kids[i + 1], data, out);
    }
    if (i < n->argc)
        return lg_arg(cx, &n->kids[i], data, out);
    *out = lv_null();
    return DC_OK;
}

/* log: json-logic-js also writes the value to the console; a server must not. */
static LG_NOINLINE enum dc_status lg_op_log(struct lg_ctx *cx, const struct lg_node *n,
                                            const struct lv *data, struct lv *out)
{
    LG_STEP(cx);
    return lg_arg(cx, &n->kids[0], data, out);
}

/* Constants are answered by lg_arg; this handler exists so no node lacks one. */
static enum dc_status lg_op_const(struct lg_ctx *cx, const struct lg_node *n, const struct lv *data,
                                  struct lv *out)
{
    (void)cx;
    (void)data;
    *out = n->u.k;
    return DC_OK;
}

/* ---- results ----------------------------------------------------------------- */

static enum dc_status lg_to_cjson(struct lg_ctx *cx, const struct lv *v, cJSON **out)
{
    cJSON *j = NULL;
    cJSON *item = NULL;
    enum dc_status rc = DC_OK;
    switch (v->kind) {
    case LV_NULL:
        j = cJSON_CreateNull();
        break;
    case LV_BOOL:
        j = cJSON_CreateBool(v->u.b);
        break;
    case LV_NUM:
        j = cJSON_CreateNumber(v->u.n); /* NaN and infinities print as null */
        break;
    case LV_STR: {
        const char *s = v->u.s.p;
        if (s[v->u.s.len] != '\0') {
            rc = lg_copy_str(cx, s, v->u.s.len, &s);
            if (rc != DC_OK)
                goto out;
        }
        j = cJSON_CreateString(s);
        break;
    }
    case LV_JSON:
        j = cJSON_Duplicate(v->u.j, 1);
        break;
    case LV_ARR: {
        struct lg_it it;
        struct lv e;
        j = cJSON_CreateArray();
        if (j == NULL)
            break;
        lg_it_init(&it, v);
        while (lg_it_next(&it, &e)) {
            rc = lg_to_cjson(cx, &e, &item);
            if (rc != DC_OK)
                goto out;
            if (!cJSON_AddItemToArray(j, item))
                goto oom;
            item = NULL;
        }
        break;
    }
    default: { /* LV_OBJ */
        j = cJSON_CreateObject();
        if (j == NULL)
            break;
        /* Adding to an object copies the key, which can fail too. */
        rc = lg_to_cjson(cx, &v->u.o->current, &item);
        if (rc != DC_OK)
            goto out;
        if (!cJSON_AddItemToObject(j, "current", item))
            goto oom;
        item = NULL;
        rc = lg_to_cjson(cx, &v->u.o->accumulator, &item);
        if (rc != DC_OK)
            goto out;
        if (!cJSON_AddItemToObject(j, "accumulator", item))
            goto oom;
        item = NULL;
        break;
    }
    }
    if (j == NULL)
        goto oom;
    *out = j;
    j = NULL;
    goto out;
oom:
    rc = lg_oom(cx);
out:
    cJSON_Delete(item);
    cJSON_Delete(j);
    return rc;
}

/* ---- compiler ---------------------------------------------------------------- */

static enum dc_status lc_fail(struct lc *c, enum dc_status code, const char *fmt, ...)
{
    char msg[DC_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return dc_error_set(c->cx->err, code, c->where, "%s", msg);
}

/* Append "/token" (RFC 6901 escaped) to the JSON Pointer of the current node;
 * returns the length to restore. A pointer too long for the buffer is cut. */
static size_t lc_push(struct lc *c, const char *tok)
{
    size_t old = c->wlen;
    size_t w = c->wlen;
    size_t max = sizeof(c->where) - 1;
    if (w < max)
        c->where[w++] = '/';
    for (const char *p = tok; *p != '\0' && w < max; p++) {
        if (*p == '~' || *p == '/') {
            if (w + 2 > max)
                break;
            c->where[w++] = '~';
            c->where[w++] = *p == '~' ? '0' : '1';
        } else {
            c->where[w++] = *p;
        }
    }
    c->where[w] = '\0';
    c->wlen = w;
    return old;
}

static size_t lc_push_index(struct lc *c, size_t i)
{
    char buf[24];
    lg_fmt_u64(i, buf);
    return lc_push(c, buf);
}

static void lc_pop(struct lc *c, size_t old)
{
    c->wlen = old;
    c->where[old] = '\0';
}

static const struct lg_opdef *lc_find_op(const char *name)
{
    for (size_t i = 0; i < sizeof(lg_ops) / sizeof(lg_ops[0]); i++) {
        if (strcmp(lg_ops[i].name, name) == 0)
            return &lg_ops[i];
    }
    return NULL;
}

static lg_fn lc_handler(uint8_t op)
{
    switch ((enum lg_op)op) {
    case OP_CONST:
        return lg_op_const;
    case OP_ARRAY:
        return lg_op_array;
    case OP_VAR:
        return lg_op_var;
    case OP_VAR_DYN:
        return lg_op_var_dyn;
    case OP_MISSING:
        return lg_op_missing;
    case OP_MISSING_SOME:
        return lg_op_missing_some;
    case OP_IF:
        return lg_op_if;
    case OP_EQ:
    case OP_NE:
    case OP_SEQ:
    case OP_SNE:
    case OP_GT:
    case OP_GE:
    case OP_LT:
    case OP_LE:
        return lg_op_compare;
    case OP_NOT:
    case OP_TRUTHY:
        return lg_op_not;
    case OP_AND:
    case OP_OR:
        return lg_op_andor;
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD:
        return lg_op_arith;
    case OP_MIN:
    case OP_MAX:
        return lg_op_minmax;
    case OP_MAP:
    case OP_FILTER:
    case OP_ALL:
    case OP_NONE:
    case OP_SOME:
        return lg_op_iterate;
    case OP_REDUCE:
        return lg_op_reduce;
    case OP_MERGE:
        return lg_op_merge;
    case OP_IN:
        return lg_op_in;
    case OP_CAT:
        return lg_op_cat;
    case OP_SUBSTR:
        return lg_op_substr;
    case OP_LOG:
        return lg_op_log;
    }
    return lg_op_const;
}

static enum dc_status lc_count(struct lc *c)
{
    if (c->nodes >= c->max_nodes)
        return lc_fail(c, DC_ELIMIT, "rule has more than %u nodes", c->max_nodes);
    c->nodes++;
    return DC_OK;
}

/* Depth and node count inside a constant object, which is copied, not compiled. */
static enum dc_status lc_measure(struct lc *c, const cJSON *j, unsigned depth)
{
    if (depth + 1 > c->max_depth)
        return lc_fail(c, DC_ELIMIT, "rule is nested deeper than %u levels", c->max_depth);
    for (const cJSON *e = j->child; e != NULL; e = e->next) {
        enum dc_status rc = lc_count(c);
        if (rc == DC_OK && (cJSON_IsArray(e) || cJSON_IsObject(e)))
            rc = lc_measure(c, e, depth + 1);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

static enum dc_status lc_scalar(struct lc *c, const cJSON *j, struct lv *out)
{
    if (cJSON_IsFalse(j) || cJSON_IsTrue(j)) {
        *out = lv_bool(cJSON_IsTrue(j));
    } else if (cJSON_IsNull(j)) {
        *out = lv_null();
    } else if (cJSON_IsNumber(j)) {
        *out = lv_num(j->valuedouble);
    } else if (cJSON_IsString(j)) {
        const char *s = j->valuestring != NULL ? j->valuestring : "";
        size_t len = strlen(s);
        enum dc_status rc = lg_copy_str(c->cx, s, len, &s);
        if (rc != DC_OK)
            return rc;
        *out = lv_str(s, len);
    } else {
        return lc_fail(c, DC_EPARSE, "unsupported JSON node (raw or invalid cJSON item)");
    }
    return DC_OK;
}

static enum dc_status lc_node(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out)
{
    enum dc_status rc = lc_count(c);
    if (rc != DC_OK)
        return rc;
    out->op = OP_CONST;
    out->argc = 0;
    out->kids = NULL;
    out->u.k = lv_null();
    if (cJSON_IsArray(j))
        rc = lc_array(c, j, depth, out);
    else if (cJSON_IsObject(j))
        rc = lc_object(c, j, depth, out);
    else
        rc = lc_scalar(c, j, &out->u.k);
    out->fn = lc_handler(out->op);
    return rc;
}

/* Arrays are evaluated element-wise; one without operators is a constant. */
static enum dc_status lc_array(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out)
{
    struct lg_node *kids = NULL;
    size_t n = 0;
    bool all_const = true;
    void *mem = NULL;
    enum dc_status rc;
    if (depth + 1 > c->max_depth)
        return lc_fail(c, DC_ELIMIT, "rule is nested deeper than %u levels", c->max_depth);
    for (const cJSON *e = j->child; e != NULL; e = e->next)
        n++;
    /* Fail before allocating room for a huge array the limit rejects anyway. */
    if (n > c->max_nodes - c->nodes)
        return lc_fail(c, DC_ELIMIT, "rule has more than %u nodes", c->max_nodes);
    rc = lg_alloc(c->cx, n * sizeof(*kids) + sizeof(struct lv_arr) + n * sizeof(struct lv), &mem);
    if (rc != DC_OK)
        return rc;
    kids = mem;
    size_t i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
        size_t old = lc_push_index(c, i);
        rc = lc_node(c, e, depth + 1, &kids[i]);
        lc_pop(c, old);
        if (rc != DC_OK)
            return rc;
        all_const = all_const && kids[i].op == OP_CONST;
    }
    if (!all_const) {
        out->op = OP_ARRAY;
        out->argc = (uint32_t)n;
        out->kids = kids;
        return DC_OK;
    }
    /* Constant: its lv_arr sits after the nodes in the same block. */
    struct lv_arr *arr = (struct lv_arr *)(void *)(kids + n);
    arr->n = n;
    for (i = 0; i < n; i++)
        arr->v[i] = kids[i].u.k;
    out->u.k = (struct lv){.kind = LV_ARR, .u.a = arr};
    return DC_OK;
}

static enum dc_status lc_object(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out)
{
    size_t keys = 0;
    const char *op_key = NULL;
    for (const cJSON *e = j->child; e != NULL; e = e->next) {
        keys++;
        if (op_key == NULL && e->string != NULL && lc_find_op(e->string) != NULL)
            op_key = e->string;
    }
    if (keys == 1)
        return lc_operator(c, j, depth, out);
    if (op_key != NULL)
        return lc_fail(c, DC_EPARSE,
                       "object with operator \"%s\" has %zu keys; an operation has exactly one",
                       op_key, keys);
    /* No key, or several keys none of which is an operator: data, as in
     * json-logic-js. Copied, since the rule is not referenced after compile. */
    enum dc_status rc = lc_measure(c, j, depth);
    if (rc != DC_OK)
        return rc;
    cJSON *dup = cJSON_Duplicate(j, 1);
    if (dup == NULL)
        return lg_oom(c->cx);
    if (!cJSON_AddItemToArray(c->objects, dup)) {
        cJSON_Delete(dup);
        return lg_oom(c->cx);
    }
    out->u.k = (struct lv){.kind = LV_JSON, .u.j = dup};
    return DC_OK;
}

static enum dc_status lc_operator(struct lc *c, const cJSON *j, unsigned depth, struct lg_node *out)
{
    const cJSON *values = j->child;
    const char *name = values->string != NULL ? values->string : "";
    const struct lg_opdef *def = lc_find_op(name);
    const cJSON *arg;
    struct lg_node *kids = NULL;
    size_t argc = 0;
    bool list = cJSON_IsArray(values);
    enum dc_status rc;

    if (def == NULL)
        return lc_fail(c, DC_EPARSE, "unknown operator \"%s\"", name);
    if (depth + 1 > c->max_depth)
        return lc_fail(c, DC_ELIMIT, "rule is nested deeper than %u levels", c->max_depth);
    /* {"op": x} is short for {"op": [x]}. */
    if (list) {
        for (arg = values->child; arg != NULL; arg = arg->next)
            argc++;
    } else {
        argc = 1;
    }
    if (argc < def->min_args || argc > def->max_args) {
        if (def->max_args == LG_ANY)
            return lc_fail(c, DC_EPARSE, "operator \"%s\" takes at least %u argument%s, got %zu",
                           name, def->min_args, def->min_args == 1 ? "" : "s", argc);
        if (def->min_args == def->max_args)
            return lc_fail(c, DC_EPARSE, "operator \"%s\" takes %u argument%s, got %zu", name,
                           def->min_args, def->min_args == 1 ? "" : "s", argc);
        return lc_fail(c, DC_EPARSE, "operator \"%s\" takes %u to %u arguments, got %zu", name,
                       def->min_args, def->max_args, argc);
    }
    if (argc > c->max_nodes - c->nodes)
        return lc_fail(c, DC_ELIMIT, "rule has more than %u nodes", c->max_nodes);
    if (argc > 0) {
        void *mem = NULL;
        rc = lg_alloc(c->cx, argc * sizeof(*kids), &mem);
        if (rc != DC_OK)
            return rc;
        kids = mem;
    }
    size_t at_op = lc_push(c, name);
    arg = list ? values->child : values;
    for (size_t i = 0; i < argc; i++, arg = arg->next) {
        size_t old = list ? lc_push_index(c, i) : c->wlen;
        bool scoped = def->scoped && i == 1;
        if (scoped)
            c->scoped++;
        rc = lc_node(c, arg, depth + 1, &kids[i]);
        if (scoped)
            c->scoped--;
        lc_pop(c, old);
        if (rc != DC_OK)
            return rc;
    }
    lc_pop(c, at_op);
    out->op = def->op;
    out->argc = (uint32_t)argc;
    out->kids = kids;
    if (def->op == OP_VAR)
        return lc_var(c, out);
    if (def->op == OP_MISSING || def->op == OP_MISSING_SOME)
        return lc_missing_paths(c, out);
    return DC_OK;
}

/* String(v) of a constant, as a NUL-terminated string that lives as long as
 * the program. */
static enum dc_status lc_path_string(struct lc *c, const struct lv *v, const char **out)
{
    char numbuf[LG_NUMBUF];
    struct lg_sv s;
    enum dc_status rc = lg_to_sv(c->cx, v, numbuf, &s);
    if (rc != DC_OK)
        return rc;
    if (s.p == numbuf || s.p[s.len] != '\0')
        return lg_copy_str(c->cx, s.p, s.len, out);
    *out = s.p;
    return DC_OK;
}

/* Remember a literal path for dc_logic_foreach_var, unless it is read inside
 * a map/filter/reduce/all/none/some body, where data is an element. */
static enum dc_status lc_add_path(struct lc *c, const char *path)
{
    struct lc_paths *ps = &c->paths;
    if (c->scoped > 0 || path[0] == '\0')
        return DC_OK;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap == 0 ? 16 : ps->cap * 2;
        void *mem = NULL;
        enum dc_status rc = lg_alloc(c->cx, cap * sizeof(*ps->v), &mem);
        if (rc != DC_OK)
            return rc;
        if (ps->n > 0)
            memcpy(mem, (const void *)ps->v, ps->n * sizeof(*ps->v));
        ps->v = mem;
        ps->cap = cap;
    }
    ps->v[ps->n++] = path;
    return DC_OK;
}

static enum dc_status lc_add_key_path(struct lc *c, const struct lv *key)
{
    const char *s = NULL;
    if (key->kind != LV_STR && key->kind != LV_NUM)
        return DC_OK;
    enum dc_status rc = lc_path_string(c, key, &s);
    if (rc != DC_OK)
        return rc;
    return lc_add_path(c, s);
}

/* var with a constant path is split once here; "" and null mean the whole
 * data. A computed path stays an argument (OP_VAR_DYN). */
static enum dc_status lc_var(struct lc *c, struct lg_node *n)
{
    const char *path = NULL;
    enum dc_status rc;
    n->u.var.seg = NULL;
    n->u.var.nseg = 0;
    if (n->argc == 0)
        return DC_OK;
    if (n->kids[0].op != OP_CONST) {
        n->op = OP_VAR_DYN;
        return DC_OK;
    }
    struct lv p = n->kids[0].u.k;
    n->kids++;
    n->argc--;
    if (n->argc == 0)
        n->kids = NULL;
    if (p.kind == LV_NULL || (p.kind == LV_STR && p.u.s.len == 0))
        return DC_OK;
    rc = lc_path_string(c, &p, &path);
    if (rc != DC_OK)
        return rc;
    size_t len = strlen(path);
    size_t nseg = 1;
    for (size_t i = 0; i < len; i++) {
        if (path[i] == '.')
            nseg++;
    }
    void *mem = NULL;
    rc = lg_alloc(c->cx, nseg * sizeof(struct lg_seg), &mem);
    if (rc != DC_OK)
        return rc;
    struct lg_seg *seg = mem;
    size_t s = 0;
    for (size_t k = 0; k < nseg; k++) {
        size_t e = s;
        while (e < len && path[e] != '.')
            e++;
        /* Each segment gets a NUL-terminated copy, so lookups can use strcmp. */
        rc = lg_copy_str(c->cx, path + s, e - s, &seg[k].p);
        if (rc != DC_OK)
            return rc;
        seg[k].len = e - s;
        seg[k].idx = lg_seg_index(path + s, e - s);
        s = e + 1;
    }
    n->u.var.seg = seg;
    n->u.var.nseg = nseg;
    return lc_add_path(c, path);
}

/* Literal keys of missing and missing_some are paths the rule reads too. */
static enum dc_status lc_missing_paths(struct lc *c, const struct lg_node *n)
{
    const struct lg_node *keys = n->kids;
    size_t nkeys = n->argc;
    enum dc_status rc = DC_OK;
    if (n->op == OP_MISSING_SOME) {
        keys = &n->kids[1];
        nkeys = 1;
    }
    if (nkeys == 0 || keys[0].op != OP_CONST)
        return DC_OK;
    if (keys[0].u.k.kind == LV_ARR) {
        const struct lv_arr *a = keys[0].u.k.u.a;
        for (size_t i = 0; rc == DC_OK && i < a->n; i++)
            rc = lc_add_key_path(c, &a->v[i]);
        return rc;
    }
    for (size_t i = 0; rc == DC_OK && i < nkeys; i++) {
        if (keys[i].op == OP_CONST)
            rc = lc_add_key_path(c, &keys[i].u.k);
    }
    return rc;
}

static int lc_path_cmp(const void *a, const void *b)
{
    const char *const *x = a;
    const char *const *y = b;
    return strcmp(*x, *y);
}

/* ---- library-wide functions below -------------------------------------------- */

enum dc_status dc_logic_compile(const cJSON *rule, const struct dc_logic_limits *limits,
                                dc_logic **out, struct dc_error *err)
{
    return dc_logic_compile_stats(rule, limits, NULL, out, err);
}

enum dc_status dc_logic_compile_stats(const cJSON *rule, const struct dc_logic_limits *limits,
                                      struct dc_logic_stats *stats, dc_logic **out,
                                      struct dc_error *err)
{
    struct lg_ctx cx;
    struct lc c;
    dc_logic *prog = NULL;
    enum dc_status rc;

    if (out != NULL)
        *out = NULL;
    if (rule == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_logic_compile: %s is NULL",
                            rule == NULL ? "rule" : "out");
    memset(&c, 0, sizeof(c));
    c.max_depth =
        limits != NULL && limits->max_depth != 0 ? limits->max_depth : DC_LOGIC_MAX_DEPTH_DEFAULT;
    c.max_nodes =
        limits != NULL && limits->max_nodes != 0 ? limits->max_nodes : DC_LOGIC_MAX_NODES_DEFAULT;
    if (c.max_depth > DC_LOGIC_MAX_DEPTH_CEILING)
        return dc_error_set(err, DC_EINVAL, NULL, "max_depth %u is above the ceiling of %u",
                            c.max_depth, DC_LOGIC_MAX_DEPTH_CEILING);
    lg_arena_init(&cx.arena, NULL, 0, SIZE_MAX, stats);
    cx.steps = 0;
    cx.max_steps = UINT64_MAX;
    cx.serial = 0;
    cx.err = err;
    c.cx = &cx;

    c.objects = cJSON_CreateArray();
    prog = lg_malloc(sizeof(*prog), stats);
    if (c.objects == NULL || prog == NULL) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
        goto out;
    }
    rc = lc_node(&c, rule, 0, &prog->root);
    if (rc != DC_OK)
        goto out;

    /* Distinct literal paths, sorted so that duplicates are neighbours. */
    size_t np = 0;
    if (c.paths.n > 0) {
        qsort((void *)c.paths.v, c.paths.n, sizeof(*c.paths.v), lc_path_cmp);
        for (size_t i = 0; i < c.paths.n; i++) {
            if (np == 0 || strcmp(c.paths.v[np - 1], c.paths.v[i]) != 0)
                c.paths.v[np++] = c.paths.v[i];
        }
    }
    prog->paths = c.paths.v;
    prog->npaths = np;
    prog->max_steps =
        limits != NULL && limits->max_steps != 0 ? limits->max_steps : DC_LOGIC_MAX_STEPS_DEFAULT;
    prog->arena = cx.arena;
    prog->arena.stats = NULL; /* the caller's, and a program allocates no more */
    lg_arena_init(&cx.arena, NULL, 0, SIZE_MAX, NULL);
    prog->objects = c.objects;
    c.objects = NULL;
    *out = prog;
    prog = NULL;
out:
    lg_arena_release(&cx.arena);
    cJSON_Delete(c.objects);
    lg_free(prog);
    return rc;
}

/* Shared by the entry points: evaluate into *out, which may refer to the
 * arena of cx (the caller releases it). */
static enum dc_status lg_run(const dc_logic *logic, const cJSON *data, struct lg_ctx *cx,
                             struct lv *out)
{
    struct lv root = data != NULL ? lv_from_json(data) : lv_null();
    return lg_arg(cx, &logic->root, &root, out);
}

enum dc_status dc_logic_eval(const dc_logic *logic, const cJSON *data, cJSON **out,
                             struct dc_error *err)
{
    alignas(LG_ALIGN) unsigned char first[LG_INLINE_BYTES];
    struct lg_ctx cx;
    struct lv res;
    cJSON *json = NULL;
    enum dc_status rc;

    if (out != NULL)
        *out = NULL;
    if (logic == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_logic_eval: %s is NULL",
                            logic == NULL ? "logic" : "out");
    lg_arena_init(&cx.arena, first, sizeof(first), DC_LOGIC_EVAL_MEMORY_MAX, NULL);
    cx.steps = 0;
    cx.max_steps = logic->max_steps;
    cx.serial = 0;
    cx.err = err;
    rc = lg_run(logic, data, &cx, &res);
    if (rc == DC_OK)
        rc = lg_to_cjson(&cx, &res, &json);
    lg_arena_release(&cx.arena);
    if (rc == DC_OK)
        *out = json;
    return rc;
}

/* Truthiness within `max_steps` steps (0: the rule's own limit; a larger value
 * never raises it), the steps spent in *steps also when the limit was hit. */
static enum dc_status truthy(const dc_logic *logic, const cJSON *data, uint64_t max_steps,
                             struct dc_logic_stats *stats, uint64_t *steps, bool *out,
                             struct dc_error *err)
{
    alignas(LG_ALIGN) unsigned char first[LG_INLINE_BYTES];
    struct dc_logic_stats st = {stats != NULL ? stats->fail_at : 0, 0, 0, 0};
    struct lg_ctx cx;
    struct lv res;
    enum dc_status rc;

    if (out != NULL)
        *out = false;
    if (logic == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_logic_eval_truthy: %s is NULL",
                            logic == NULL ? "logic" : "out");
    lg_arena_init(&cx.arena, first, sizeof(first), DC_LOGIC_EVAL_MEMORY_MAX,
                  stats != NULL ? &st : NULL);
    cx.steps = 0;
    cx.max_steps = max_steps != 0 && max_steps < logic->max_steps ? max_steps : logic->max_steps;
    cx.serial = 0;
    cx.err = err;
    rc = lg_run(logic, data, &cx, &res);
    bool truthy = rc == DC_OK && lv_truthy(&res);
    lg_arena_release(&cx.arena);
    if (steps != NULL)
        *steps = cx.steps;
    if (rc == DC_OK) {
        *out = truthy;
        if (stats != NULL) {
            st.steps = cx.steps;
            *stats = st;
        }
    }
    return rc;
}

enum dc_status dc_logic_eval_truthy_stats(const dc_logic *logic, const cJSON *data,
                                          struct dc_logic_stats *stats, bool *out,
                                          struct dc_error *err)
{
    return truthy(logic, data, 0, stats, NULL, out, err);
}

enum dc_status dc_logic_eval_truthy(const dc_logic *logic, const cJSON *data, bool *out,
                                    struct dc_error *err)
{
    return truthy(logic, data, 0, NULL, NULL, out, err);
}

enum dc_status dc_logic_eval_truthy_within(const dc_logic *logic, const cJSON *data,
                                           uint64_t max_steps, uint64_t *steps, bool *out,
                                           struct dc_error *err)
{
    if (steps != NULL)
        *steps = 0;
    return truthy(logic, data, max_steps, NULL, steps, out, err);
}

/* The paths were collected at compile time, sorted and made distinct. They
 * include the literal keys of missing and missing_some (json-logic-js reads
 * them with var too) and leave out var inside map/filter/reduce/all/none/some
 * bodies, whose data is an array element rather than the rule's data. */
void dc_logic_foreach_var(const dc_logic *logic, void (*fn)(const char *path, void *ctx), void *ctx)
{
    if (logic == NULL || fn == NULL)
        return;
    for (size_t i = 0; i < logic->npaths; i++)
        fn(logic->paths[i], ctx);
}

void dc_logic_free(dc_logic *logic)
{
    if (logic == NULL)
        return;
    lg_arena_release(&logic->arena);
    cJSON_Delete(logic->objects);
    lg_free(logic);
}
