/* api/src/schema_validate.c -- the JSON Schema draft 2020-12 validator: an
 * instance (cJSON) against a compiled schema (schema_node.h), and the results
 * of api/schema.h.
 *
 * A node is validated by the checks its keywords need (the keyword table of
 * schema_keywords.c names each keyword's check; schema_compile.c records them
 * on the node), applied in the order of api__sch_checks, which is the order
 * violations are reported in.
 *
 * Validation runs twice at most. A first pass answers only "valid?" and stops
 * at the first failure, building no pointers and allocating nothing, which is
 * the whole cost for the valid documents that make up most traffic. Only if
 * that fails does a second pass walk again collecting every violation, with
 * the instance's JSON Pointer, up to the caller's limit. Subschemas whose
 * failure is not itself a violation (anyOf/oneOf branches, not, if, contains)
 * are always evaluated in the first pass's mode. A compiled schema is never
 * written to, so many threads may validate against it at once. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_node.h"

/* Nesting compared by const/enum/uniqueItems; deeper values compare unequal.
 * cJSON refuses documents nested deeper than 1000. */
#define SCH_EQUAL_MAX_DEPTH 1024
/* Longest violation message, in bytes. */
#define SCH_MSG_MAX 512
/* Declared properties tracked in a bitset while an object is validated; the
 * required check of properties past this looks the member up instead. */
#define SCH_SEEN_MAX 256
/* Arrays up to this length are checked pairwise for uniqueItems; longer ones
 * are hashed and sorted, so the check stays O(n log n). */
#define SCH_UNIQUE_PAIRWISE 16
/* Hops followed through $ref when guessing which types a branch admits. */
#define SCH_ADMIT_HOPS 8
/* Initial capacity of the instance-pointer buffer of the collecting pass. */
#define SCH_PTR_INITIAL 256

/* ---- Validation state ------------------------------------------------------ */

/* Evaluated members of an object, or items of an array, by position: the
 * annotations unevaluatedProperties/unevaluatedItems read. Only a node with
 * one of those keywords asks for them, so other schemas pay nothing. */
#define SCH_EVAL_INLINE_WORDS 4 /* 256 positions without allocating */

struct api__sch_eval {
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

struct api__sch_ctx {
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

static bool validate_node(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev);
static bool fail(struct api__sch_ctx *c, const char *keyword, const char *fmt, ...) DC_PRINTF(3, 4);

/* ---- Small helpers --------------------------------------------------------- */

#define SCH_JTYPE(v) ((v)->type & 0xFF)

static unsigned instance_type(const cJSON *v)
{
    switch (SCH_JTYPE(v)) {
    case cJSON_NULL:
        return SCH_T_NULL;
    case cJSON_False:
    case cJSON_True:
        return SCH_T_BOOLEAN;
    case cJSON_Object:
        return SCH_T_OBJECT;
    case cJSON_Array:
        return SCH_T_ARRAY;
    case cJSON_String:
        return SCH_T_STRING;
    case cJSON_Number: {
        double d = v->valuedouble;
        return isfinite(d) && floor(d) == d ? (SCH_T_NUMBER | SCH_T_INTEGER) : SCH_T_NUMBER;
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
        {SCH_T_OBJECT, "an object"}, {SCH_T_ARRAY, "an array"},     {SCH_T_STRING, "a string"},
        {SCH_T_NUMBER, "a number"},  {SCH_T_INTEGER, "an integer"}, {SCH_T_BOOLEAN, "a boolean"},
        {SCH_T_NULL, "null"},
    };
    const char *picked[sizeof(names) / sizeof(names[0])];
    size_t n = 0;
    if ((types & SCH_T_NUMBER) != 0)
        types &= ~(unsigned)SCH_T_INTEGER; /* "a number" already includes integers */
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
        return (instance_type(v) & SCH_T_INTEGER) != 0 ? "an integer" : "a fractional number";
    default:
        return "an invalid value";
    }
}

static bool has_member(const cJSON *obj, const char *name)
{
    /* As find_prop: the first byte settles most members without a call
     * (dependentSchemas and dependentRequired ask this of every object). */
    for (const cJSON *m = obj->child; m != NULL; m = m->next) {
        if (m->string != NULL && m->string[0] == name[0] && strcmp(m->string, name) == 0)
            return true;
    }
    return false;
}

/* ---- Validation: violations and the instance pointer ----------------------- */

static void set_halt(struct api__sch_ctx *c, enum dc_status rc)
{
    if (c->rc == DC_OK)
        c->rc = rc;
    c->halt = true;
}

/* Append "/token" (escaped) to the instance pointer, collecting pass only.
 * Returns the length to restore. */
static size_t ptr_push(struct api__sch_ctx *c, const char *token)
{
    size_t saved = c->ptr_len;
    if (!c->collect || c->halt)
        return saved;
    if (!api__sch_pointer_push(&c->ptr, &c->ptr_len, &c->ptr_cap, token))
        set_halt(c, DC_ENOMEM);
    return saved;
}

static size_t ptr_push_index(struct api__sch_ctx *c, size_t i)
{
    char buf[24];
    if (!c->collect)
        return c->ptr_len;
    snprintf(buf, sizeof(buf), "%zu", i);
    return ptr_push(c, buf);
}

static void ptr_pop(struct api__sch_ctx *c, size_t saved)
{
    if (!c->collect || c->ptr == NULL)
        return;
    c->ptr_len = saved;
    c->ptr[saved] = '\0';
}

static bool keep_going(const struct api__sch_ctx *c)
{
    return c->collect && !c->halt;
}

/* Record one violation at the current pointer. Returns whether validation
 * should go on looking for more (false in the first pass, after an error, or
 * when max_errors is reached and this one did not fit). */
static bool fail(struct api__sch_ctx *c, const char *keyword, const char *fmt, ...)
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

/* ---- Validation: numbers and strings ---------------------------------------- */

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

bool api__sch_check_number(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
    (void)ev;
    if (SCH_JTYPE(v) != cJSON_Number)
        return true;
    double d = v->valuedouble;
    bool ok = true;
    char num[32];
    if ((n->has & SCH_HAS_MINIMUM) != 0 && d < n->minimum) {
        api__sch_format_number(n->minimum, num, sizeof(num));
        ok = false;
        if (!fail(c, "minimum", "must be >= %s", num))
            return false;
    }
    if ((n->has & SCH_HAS_MAXIMUM) != 0 && d > n->maximum) {
        api__sch_format_number(n->maximum, num, sizeof(num));
        ok = false;
        if (!fail(c, "maximum", "must be <= %s", num))
            return false;
    }
    if ((n->has & SCH_HAS_EXMIN) != 0 && d <= n->exmin) {
        api__sch_format_number(n->exmin, num, sizeof(num));
        ok = false;
        if (!fail(c, "exclusiveMinimum", "must be > %s", num))
            return false;
    }
    if ((n->has & SCH_HAS_EXMAX) != 0 && d >= n->exmax) {
        api__sch_format_number(n->exmax, num, sizeof(num));
        ok = false;
        if (!fail(c, "exclusiveMaximum", "must be < %s", num))
            return false;
    }
    if ((n->has & SCH_HAS_MULTIPLE) != 0 && !is_multiple(d, n->multiple_of)) {
        api__sch_format_number(n->multiple_of, num, sizeof(num));
        ok = false;
        if (!fail(c, "multipleOf", "must be a multiple of %s", num))
            return false;
    }
    return ok;
}

bool api__sch_check_string(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
    (void)ev;
    if (SCH_JTYPE(v) != cJSON_String)
        return true;
    bool ok = true;
    const char *s = v->valuestring != NULL ? v->valuestring : "";
    if ((n->has & (SCH_HAS_MINLEN | SCH_HAS_MAXLEN)) != 0) {
        size_t len = dc_utf8_count(s);
        if ((n->has & SCH_HAS_MINLEN) != 0 && len < n->min_length) {
            ok = false;
            if (!fail(c, "minLength", "must be at least %zu character%s long", n->min_length,
                      n->min_length == 1 ? "" : "s"))
                return false;
        }
        if ((n->has & SCH_HAS_MAXLEN) != 0 && len > n->max_length) {
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
static bool find_duplicate(struct api__sch_ctx *c, const cJSON *arr, size_t count, bool *found,
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
static bool eval_init(struct api__sch_ctx *c, struct api__sch_eval *e, size_t n)
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

static void eval_release(struct api__sch_eval *e)
{
    if (e->bits != e->inline_bits)
        free(e->bits);
    e->bits = NULL;
}

static void eval_mark(struct api__sch_eval *e, size_t i)
{
    if (e != NULL && i < e->n)
        e->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool eval_has(const struct api__sch_eval *e, size_t i)
{
    return ((e->bits[i / 64] >> (i % 64)) & 1u) != 0;
}

static void eval_mark_all(struct api__sch_eval *e)
{
    if (e == NULL)
        return;
    for (size_t i = 0; i < e->n; i++)
        eval_mark(e, i);
}

static void eval_merge(struct api__sch_eval *dst, const struct api__sch_eval *src)
{
    for (size_t w = 0; dst != NULL && w < (dst->n + 63) / 64; w++)
        dst->bits[w] |= src->bits[w];
}

/* Evaluate `n` against `v` only for the answer, never recording violations.
 * With `ev`, the positions the subschema evaluated are added to it when, and
 * only when, it matches: annotations of failing subschemas are dropped. */
static bool matches(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                    struct api__sch_eval *ev)
{
    bool saved = c->collect;
    bool ok = false;
    c->collect = false;
    if (ev == NULL) {
        ok = validate_node(c, n, v, NULL);
    } else {
        struct api__sch_eval mine;
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
static bool check_array_size(struct api__sch_ctx *c, const struct api__sch_node *n, size_t count)
{
    bool ok = true;
    if ((n->has & SCH_HAS_MINITEMS) != 0 && count < n->min_items) {
        ok = false;
        if (!fail(c, "minItems", "must have at least %zu item%s", n->min_items,
                  n->min_items == 1 ? "" : "s"))
            return false;
    }
    if ((n->has & SCH_HAS_MAXITEMS) != 0 && count > n->max_items) {
        ok = false;
        (void)fail(c, "maxItems", "must have at most %zu item%s", n->max_items,
                   n->max_items == 1 ? "" : "s");
    }
    return ok;
}

bool api__sch_check_array(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev)
{
    if (SCH_JTYPE(v) != cJSON_Array)
        return true;
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
        const struct api__sch_node *sub = count < n->nprefix ? n->prefix[count] : n->items;
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
        bool has_min = (n->has & SCH_HAS_MINCONTAINS) != 0;
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
        if ((n->has & SCH_HAS_MAXCONTAINS) != 0 && contained > n->max_contains) {
            ok = false;
            if (!fail(c, "maxContains", "must contain at most %zu matching item%s (found %zu)",
                      n->max_contains, n->max_contains == 1 ? "" : "s", contained))
                return false;
        }
    }
    if ((n->has & SCH_HAS_UNIQUE) != 0 && count > 1) {
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

static size_t find_prop(const struct api__sch_node *n, const char *name)
{
    if (n->prop_index == NULL) {
        /* The first byte settles most misses without a call: an if-schema's
         * one or two properties are looked up for every member. */
        for (size_t i = 0; i < n->nprops; i++) {
            if (n->props[i].name[0] == name[0] && strcmp(n->props[i].name, name) == 0)
                return i;
        }
        return SIZE_MAX;
    }
    size_t mask = n->prop_index_cap - 1;
    for (size_t slot = api__sch_name_hash(name) & mask;; slot = (slot + 1) & mask) {
        uint32_t e = n->prop_index[slot];
        if (e == 0)
            return SIZE_MAX;
        if (strcmp(n->props[e - 1].name, name) == 0)
            return e - 1;
    }
}

/* propertyNames: the name is validated as a string instance. */
static bool check_name(struct api__sch_ctx *c, const struct api__sch_node *names, const char *name)
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

bool api__sch_check_object(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
    if (SCH_JTYPE(v) != cJSON_Object)
        return true;
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
                /* The first pass (anyOf's branches, say) only needs the answer. */
                if (!keep_going(c))
                    return false;
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
            if (!keep_going(c))
                return false;
            api__sch_quote(n->required[i].name, SCH_QUOTE_MAX, quoted, sizeof(quoted));
            if (!fail(c, "required", "required field %s is missing", quoted))
                return false;
        }
    }
    if ((n->has & SCH_HAS_MINPROPS) != 0 && count < n->min_props) {
        ok = false;
        if (!fail(c, "minProperties", "must have at least %zu field%s", n->min_props,
                  n->min_props == 1 ? "" : "s"))
            return false;
    }
    if ((n->has & SCH_HAS_MAXPROPS) != 0 && count > n->max_props) {
        ok = false;
        if (!fail(c, "maxProperties", "must have at most %zu field%s", n->max_props,
                  n->max_props == 1 ? "" : "s"))
            return false;
    }
    for (size_t i = 0; i < n->ndep_required; i++) {
        const struct api__sch_dep_required *d = &n->dep_required[i];
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
 * location has run and `own` (validate_node's own record, for a node with the
 * keyword for the instance's type) holds what it evaluated. Like
 * additionalProperties: false, a false schema reports each leftover at its
 * own pointer. */
bool api__sch_check_unevaluated(struct api__sch_ctx *c, const struct api__sch_node *n,
                                const cJSON *v, struct api__sch_eval *own)
{
    bool ok = true;
    bool obj = SCH_JTYPE(v) == cJSON_Object;
    if (!obj && SCH_JTYPE(v) != cJSON_Array)
        return true;
    const struct api__sch_node *sub = obj ? n->uneval_props : n->uneval_items;
    size_t i = 0;
    if (sub == NULL || sub->empty)
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
 * $ref target's); SCH_T_ALL when it does not say. Only used to pick messages. */
static unsigned branch_admits(const struct api__sch_node *n)
{
    for (int hop = 0; hop < SCH_ADMIT_HOPS && n != NULL; hop++) {
        if (n->is_false)
            return 0;
        if ((n->has & SCH_HAS_TYPE) != 0)
            return n->types;
        if ((n->has & SCH_HAS_REF) == 0)
            break;
        n = n->ref;
    }
    return SCH_T_ALL;
}

/* Explain a failed anyOf/oneOf that matched nothing. If exactly one branch
 * accepts the value's type, its own violations are the useful explanation
 * (the usual "string or object" union); if none does, say which types would
 * do; otherwise fall back to a summary. */
static bool explain_no_match(struct api__sch_ctx *c, const char *kw,
                             struct api__sch_node *const *branches, size_t nb, const cJSON *v)
{
    unsigned t = instance_type(v);
    unsigned all = 0;
    size_t candidates = 0;
    size_t which = 0;
    bool all_typed = true;
    for (size_t i = 0; i < nb; i++) {
        unsigned a = branch_admits(branches[i]);
        if (a == SCH_T_ALL)
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

/* allOf, then/else and dependentSchemas share the caller's annotations: if one
 * of them fails, so does this node, and its annotations no longer matter.
 * anyOf, oneOf and if keep their own until they are known to hold. */
bool api__sch_check_all_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
    bool ok = true;
    for (size_t i = 0; i < n->nall_of; i++) {
        if (!validate_node(c, n->all_of[i], v, ev)) {
            ok = false;
            if (!keep_going(c))
                return false;
        }
    }
    return ok;
}

bool api__sch_check_any_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
    bool any = false;
    /* With annotations wanted, every matching branch contributes, so no short
     * cut after the first match. */
    for (size_t i = 0; i < n->nany_of && (!any || ev != NULL); i++) {
        if (matches(c, n->any_of[i], v, ev))
            any = true;
        if (c->halt)
            return false;
    }
    if (!any && c->collect)
        (void)explain_no_match(c, "anyOf", n->any_of, n->nany_of, v);
    return any;
}

bool api__sch_check_one_of(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                           struct api__sch_eval *ev)
{
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
    if (hits == 1)
        return true;
    if (!c->collect)
        return false;
    if (hits == 0)
        (void)explain_no_match(c, "oneOf", n->one_of, n->none_of, v);
    else
        (void)fail(c, "oneOf",
                   "must match exactly one of the %zu allowed schemas, but matches more "
                   "(schemas %zu and %zu)",
                   n->none_of, first, second);
    return false;
}

bool api__sch_check_not(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                        struct api__sch_eval *ev)
{
    (void)ev;
    bool m = matches(c, n->not_schema, v, NULL);
    if (c->halt)
        return false;
    if (!m)
        return true;
    (void)fail(c, "not", "must not match the schema in \"not\"");
    return false;
}

bool api__sch_check_if(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                       struct api__sch_eval *ev)
{
    if (n->if_schema == NULL)
        return true; /* then and else alone do nothing */
    bool cond = matches(c, n->if_schema, v, ev);
    if (c->halt)
        return false;
    const struct api__sch_node *branch = cond ? n->then_schema : n->else_schema;
    return branch == NULL || validate_node(c, branch, v, ev);
}

/* ---- Validation: references and values --------------------------------------- */

static bool follow_ref(struct api__sch_ctx *c, const struct api__sch_node *target, const cJSON *v,
                       struct api__sch_eval *ev)
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

bool api__sch_check_ref(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                        struct api__sch_eval *ev)
{
    return follow_ref(c, n->ref, v, ev);
}

/* The target of $dynamicRef at run time: the outermost resource in the dynamic
 * scope with a matching $dynamicAnchor, else the static target. */
static const struct api__sch_node *dynamic_target(const struct api__sch_ctx *c,
                                                  const struct api__sch_node *n)
{
    const struct api__sch_node *target = n->dyn_ref;
    if (n->dyn_name == NULL)
        return target;
    for (const struct sch_scope *sc = c->scope; sc != NULL; sc = sc->up) {
        for (size_t i = 0; i < c->s->ndyn; i++) {
            const struct api__sch_dyn_anchor *d = &c->s->dyn[i];
            if (d->resource == sc->resource && strcmp(d->name, n->dyn_name) == 0) {
                target = d->node;
                break;
            }
        }
    }
    return target;
}

bool api__sch_check_dynamic_ref(struct api__sch_ctx *c, const struct api__sch_node *n,
                                const cJSON *v, struct api__sch_eval *ev)
{
    return follow_ref(c, dynamic_target(c, n), v, ev);
}

bool api__sch_check_type(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                         struct api__sch_eval *ev)
{
    (void)ev;
    if ((n->types & instance_type(v)) != 0)
        return true;
    char want[96];
    types_text(n->types, want, sizeof(want));
    (void)fail(c, "type", "must be %s, not %s", want, instance_text(v));
    return false;
}

bool api__sch_check_enum(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                         struct api__sch_eval *ev)
{
    (void)ev;
    for (const cJSON *x = n->enum_values->child; x != NULL; x = x->next) {
        if (api__sch_json_equal(v, x, SCH_EQUAL_MAX_DEPTH))
            return true;
    }
    (void)fail(c, "enum", "%s", n->enum_msg);
    return false;
}

bool api__sch_check_const(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev)
{
    (void)ev;
    if (api__sch_json_equal(v, n->const_value, SCH_EQUAL_MAX_DEPTH))
        return true;
    (void)fail(c, "const", "%s", n->const_msg);
    return false;
}

/* ---- Validation: one node -------------------------------------------------- */

const api__sch_check_fn api__sch_checks[] = {
    api__sch_check_ref,    api__sch_check_dynamic_ref, api__sch_check_type,
    api__sch_check_enum,   api__sch_check_const,       api__sch_check_number,
    api__sch_check_string, api__sch_check_array,       api__sch_check_object,
    api__sch_check_all_of, api__sch_check_any_of,      api__sch_check_one_of,
    api__sch_check_not,    api__sch_check_if,          api__sch_check_unevaluated,
};

uint32_t api__sch_check_bit(api__sch_check_fn check)
{
    for (size_t i = 0; check != NULL && i < SCH_COUNT(api__sch_checks); i++) {
        if (api__sch_checks[i] == check)
            return (uint32_t)1 << i;
    }
    return 0;
}

/* The index of the lowest bit set in `m` (not 0): the next check of a node,
 * found without a test per check it does not need. */
static inline unsigned lowest_bit(uint32_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned i = 0;
    for (; (m & 1u) == 0; m >>= 1)
        i++;
    return i;
#endif
}

/* Validate `v` against `n`: each check its keywords need, in api__sch_checks'
 * order. `ev`, when not NULL, receives the members/items of `v` that `n`
 * evaluated (for an enclosing unevaluated* keyword). */
static bool validate_node(struct api__sch_ctx *c, const struct api__sch_node *n, const cJSON *v,
                          struct api__sch_eval *ev)
{
    if (n->empty)
        return true;
    if (n->is_false) {
        (void)fail(c, "false", "is not allowed");
        return false;
    }
    bool ok = true;
    /* A node with unevaluated* needs its own record of what was evaluated
     * here, separate from what its parent collects for itself. */
    struct api__sch_eval own;
    struct api__sch_eval *e = ev;
    bool has_own = (SCH_JTYPE(v) == cJSON_Object && n->uneval_props != NULL) ||
                   (SCH_JTYPE(v) == cJSON_Array && n->uneval_items != NULL);
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
    for (uint32_t m = n->checks; m != 0; m &= m - 1) {
        if (!api__sch_checks[lowest_bit(m)](c, n, v, e)) {
            ok = false;
            if (!keep_going(c))
                goto out;
        }
    }
    /* unevaluated*, the last check, has now evaluated everything left. */
    if (has_own)
        eval_mark_all(ev);
out:
    c->scope = outer;
    if (has_own)
        eval_release(&own);
    return ok && !c->halt;
}

/* ---- Public API ------------------------------------------------------------ */

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
    struct api__sch_ctx c;
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
