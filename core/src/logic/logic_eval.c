/* core/src/logic/logic_eval.c -- JSONLogic evaluation: data access (var, missing),
 * every operator, and the entry points that run a compiled program
 * (dc_logic_eval*). Owned by the JSONLogic module; the representation, the
 * memory rules and the work bounds are in core/src/logic/logic_impl.h. */
#include "logic_impl.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

static inline bool lg_key_eq(const char *key, const char *p, size_t len);
static inline bool lg_key_eqz(const char *key, const char *p);
static inline bool lg_is_length(const char *p, size_t len);
static bool lg_get(const struct lv *obj, const char *p, size_t len, int64_t idx, bool z,
                   struct lv *out);
static bool lg_walk(const struct lv *data, const char *p, size_t len, struct lv *out);
static enum dc_status lg_whole(struct lg_ctx *cx, const struct lv *data, struct lv *out);
static enum dc_status lg_lookup(struct lg_ctx *cx, const struct lv *data, const struct lv *path,
                                bool *found, struct lv *out);
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
static enum dc_status lg_run(const dc_logic *logic, const cJSON *data, struct lg_ctx *cx,
                             struct lv *out);

/* ---- data access ------------------------------------------------------------- */

/* A JavaScript array index is a canonical decimal below 2^32 - 1: "1" is an
 * index, "01" and "1.0" are property names no array has. */
int64_t lg__seg_index(const char *p, size_t len)
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
        if (idx >= 0 && lg__u16_unit_at(obj->u.s.p, obj->u.s.len, (size_t)idx, &ch)) {
            *out = lv_str(ch.p, ch.len);
            return true;
        }
        if (lg_is_length(p, len)) {
            *out = lv_num((double)lg__u16_len(obj->u.s.p, obj->u.s.len));
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
        if (cur.kind == LV_NULL || !lg_get(&cur, p + s, e - s, lg__seg_index(p + s, e - s),
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
        enum dc_status rc = lg__alloc(cx, sizeof(struct lv_frame), &mem);
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
    enum dc_status rc = lg__to_sv(cx, path, numbuf, &s);
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
        /* The caller's cache of the paths of this data: a path found (or
         * found absent) by a walk over objects alone is not walked again. */
        struct dc_logic_var_cache *vc = cx->vc;
        uint32_t slot = n->u.var.slot;
        bool cached = vc != NULL && slot < vc->n && vc->data == j;
        if (cached && vc->state[slot] == 1) {
            *out = lv_from_json(vc->member[slot]);
            return DC_OK;
        }
        if (cached && vc->state[slot] == 2)
            goto not_found;
        while (LG_JTYPE(j) == cJSON_Object) {
            const char *p = seg->p;
            const cJSON *c = j->child;
            while (c != NULL && (c->string == NULL || !lg_key_eqz(c->string, p)))
                c = c->next;
            if (c == NULL) {
                if (cached)
                    vc->state[slot] = 2;
                goto not_found;
            }
            j = c;
            if (++seg == end) {
                if (cached) {
                    vc->member[slot] = j;
                    vc->state[slot] = 1;
                }
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
        enum dc_status rc = lg__fresh_array(cx, room, res, out);
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
    return res == NULL ? lg__fresh_array(cx, 0, &res, out) : DC_OK;
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
        return lg__fresh_array(cx, 0, &res, out);
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
            opt_len = (double)lg__u16_len(opts.u.s.p, opts.u.s.len);
        rc = lg_key_missing(cx, data, &opts, &missing);
        if (rc == DC_OK) {
            rc = lg__fresh_array(cx, missing ? 1 : 0, &res, &are_missing);
            if (rc == DC_OK && missing)
                res->v[0] = opts;
        }
    }
    if (rc != DC_OK)
        return rc;
    struct lv have = lv_num(opt_len - (double)lv_arr_len(&are_missing));
    rc = lg__compare(cx, &have, &need, &ord);
    if (rc != DC_OK)
        return rc;
    if (ord == ORD_GT || ord == ORD_EQ)
        return lg__fresh_array(cx, 0, &res, out);
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
        r = lg__strict_eq(&a, &b) == (n->op == OP_SEQ);
        break;
    case OP_EQ:
    case OP_NE:
        /* Same-typed numbers and strings are most comparisons in rules. */
        if (a.kind == LV_NUM && b.kind == LV_NUM)
            r = a.u.n == b.u.n;
        else if (a.kind == LV_STR && b.kind == LV_STR)
            r = lg_str_eq(&a, &b);
        else
            rc = lg__loose_eq(cx, &a, &b, &r);
        if (n->op == OP_NE)
            r = !r;
        break;
    default:
        if (a.kind == LV_NUM && b.kind == LV_NUM)
            ord = lg_num_ord(a.u.n, b.u.n);
        else
            rc = lg__compare(cx, &a, &b, &ord);
        r = rc == DC_OK && lg_ord_holds(n->op, ord);
        if (r && n->argc == 3) {
            struct lv c;
            rc = lg_arg(cx, &n->kids[2], data, &c);
            if (rc == DC_OK)
                rc = lg__compare(cx, &b, &c, &ord);
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
            r += lg__parse_float(&a);
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
            double x = lg__parse_float(&a);
            r = i == 0 ? x : (r == 0 ? 0 : r) * x;
        }
        break;
    default:
        rc = lg_arg(cx, &n->kids[0], data, &a);
        if (rc != DC_OK)
            return rc;
        if (n->op == OP_SUB && n->argc == 1) {
            r = -lg__to_number(&a);
            break;
        }
        rc = lg_arg(cx, &n->kids[1], data, &b);
        if (rc != DC_OK)
            return rc;
        double x = lg__to_number(&a);
        double y = lg__to_number(&b);
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
        double x = lg__to_number(&a);
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
    enum dc_status rc = lg__fresh_array(cx, n->argc, &arr, &res);
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
            return lg__fresh_array(cx, 0, &arr, out);
        *out = lv_bool(n->op == OP_NONE);
        return DC_OK;
    }
    if (n->op == OP_MAP || n->op == OP_FILTER) {
        rc = lg__fresh_array(cx, len, &arr, out);
        if (rc != DC_OK)
            return rc;
        arr->n = 0;
    }
    lg_it_init(&it, &src);
    while (lg_it_next(&it, &e)) {
        rc = lg__charge(cx, 1);
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
        return lg__fresh_array(cx, 0, &arr, out);
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
            rc = lg__charge(cx, 1);
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
        return lg__fresh_array(cx, 0, &arr, out);
    void *mem = NULL;
    rc = lg__alloc(cx, (size_t)n->argc * sizeof(struct lv), &mem);
    if (rc != DC_OK)
        return rc;
    args = mem;
    for (uint32_t i = 0; i < n->argc; i++) {
        rc = lg_arg(cx, &n->kids[i], data, &args[i]);
        if (rc != DC_OK)
            return rc;
        total += lv_is_array(&args[i]) ? lv_arr_len(&args[i]) : 1;
    }
    rc = lg__fresh_array(cx, total, &arr, out);
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
        rc = lg__charge(cx, len);
        if (rc == DC_OK && a.kind == LV_STR) {
            /* The common case: a string against a literal list of strings. */
            for (size_t i = 0; i < len && !found; i++) {
                const struct lv *e = &b.u.a->v[i];
                found = e->kind == LV_STR && lg_str_eq(&a, e);
            }
        } else {
            for (size_t i = 0; rc == DC_OK && i < len && !found; i++)
                found = lg__strict_eq(&a, &b.u.a->v[i]);
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
                found = lg__strict_eq(&a, &e);
            }
        }
        rc = lg__charge(cx, scanned);
    } else if (b.kind == LV_STR && b.u.s.len > 0) {
        char numbuf[LG_NUMBUF];
        struct lg_sv s;
        rc = lg__to_sv(cx, &a, numbuf, &s);
        if (rc == DC_OK)
            rc = lg__charge(cx, b.u.s.len >> LG_STR_CHARGE_SHIFT);
        if (rc == DC_OK)
            found = lg__contains(b.u.s.p, b.u.s.len, s.p, s.len);
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
        rc = lg__sb_elem(cx, &sb, &a);
    } else {
        rc = DC_OK;
        for (uint32_t i = 0; rc == DC_OK && i < n->argc; i++) {
            rc = lg_arg(cx, &n->kids[i], data, &a);
            if (rc == DC_OK)
                rc = lg__sb_elem(cx, &sb, &a);
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
        rc = lg__to_sv(cx, &src, numbuf, &s);
    if (rc != DC_OK)
        return rc;

    double size = (double)lg__u16_len(s.p, s.len);
    double st = lg__to_integer(lg__to_number(&start));
    st = st < 0 ? fmax(size + st, 0) : fmin(st, size);
    double count = size - st;
    if (n->argc > 2) {
        enum lg_ord ord = ORD_NONE;
        struct lv zero = lv_num(0);
        rc = lg__compare(cx, &len_arg, &zero, &ord);
        if (rc != DC_OK)
            return rc;
        if (ord == ORD_LT) {
            /* temp.substr(0, temp.length + end): a non-number `end` makes that
             * a string concatenation, which reads as NaN, so the result is "". */
            count = len_arg.kind == LV_NUM ? lg__to_integer(count + len_arg.u.n) : 0;
        } else {
            count = lg__to_integer(lg__to_number(&len_arg));
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
    lg__u16_range(s.p, s.len, (size_t)st, (size_t)(st + count), &b0, &b1, &pre, &post);
    if (!pre && !post && s.p != numbuf) {
        *out = lv_str(s.p + b0, b1 - b0);
        return DC_OK;
    }
    /* A copy: the source was a number formatted on this stack, or half of a
     * surrogate pair must become U+FFFD. */
    size_t fl = sizeof(lg_fffd) - 1;
    size_t len = (pre ? fl : 0) + (b1 - b0) + (post ? fl : 0);
    void *mem = NULL;
    rc = lg__alloc(cx, len + 1, &mem);
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

/* ---- compiler ---------------------------------------------------------------- */

lg_fn lg__handler(uint8_t op)
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

/* ---- library-wide functions below -------------------------------------------- */

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
    alignas(DC__ARENA_ALIGN) unsigned char first[LG_INLINE_BYTES];
    struct lg_ctx cx;
    struct lv res;
    cJSON *json = NULL;
    enum dc_status rc;

    if (out != NULL)
        *out = NULL;
    if (logic == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_logic_eval: %s is NULL",
                            logic == NULL ? "logic" : "out");
    dc__arena_init(&cx.arena, first, sizeof(first), DC_LOGIC_EVAL_MEMORY_MAX, NULL);
    cx.steps = 0;
    cx.max_steps = logic->max_steps;
    cx.serial = 0;
    cx.err = err;
    cx.vc = NULL;
    rc = lg_run(logic, data, &cx, &res);
    if (rc == DC_OK)
        rc = lg__to_cjson(&cx, &res, &json);
    dc__arena_release(&cx.arena);
    if (rc == DC_OK)
        *out = json;
    return rc;
}

/* Truthiness within `max_steps` steps (0: the rule's own limit; a larger value
 * never raises it), the steps spent in *steps also when the limit was hit. */
static enum dc_status truthy(const dc_logic *logic, const cJSON *data,
                             struct dc_logic_var_cache *vc, uint64_t max_steps,
                             struct dc_logic_stats *stats, uint64_t *steps, bool *out,
                             struct dc_error *err)
{
    alignas(DC__ARENA_ALIGN) unsigned char first[LG_INLINE_BYTES];
    struct dc__alloc_counter st = {stats != NULL ? stats->fail_at : 0, 0, 0};
    struct lg_ctx cx;
    struct lv res;
    enum dc_status rc;

    if (out != NULL)
        *out = false;
    if (logic == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_logic_eval_truthy: %s is NULL",
                            logic == NULL ? "logic" : "out");
    dc__arena_init(&cx.arena, first, sizeof(first), DC_LOGIC_EVAL_MEMORY_MAX,
                   stats != NULL ? &st : NULL);
    cx.steps = 0;
    cx.max_steps = max_steps != 0 && max_steps < logic->max_steps ? max_steps : logic->max_steps;
    cx.serial = 0;
    cx.err = err;
    cx.vc = vc;
    rc = lg_run(logic, data, &cx, &res);
    bool truthy = rc == DC_OK && lv_truthy(&res);
    dc__arena_release(&cx.arena);
    if (steps != NULL)
        *steps = cx.steps;
    if (rc == DC_OK) {
        *out = truthy;
        if (stats != NULL) {
            stats->allocs = st.allocs;
            stats->alloc_bytes = st.alloc_bytes;
            stats->steps = cx.steps;
        }
    }
    return rc;
}

enum dc_status dc_logic_eval_truthy_stats(const dc_logic *logic, const cJSON *data,
                                          struct dc_logic_stats *stats, bool *out,
                                          struct dc_error *err)
{
    return truthy(logic, data, NULL, 0, stats, NULL, out, err);
}

enum dc_status dc_logic_eval_truthy(const dc_logic *logic, const cJSON *data, bool *out,
                                    struct dc_error *err)
{
    return truthy(logic, data, NULL, 0, NULL, NULL, out, err);
}

enum dc_status dc_logic_eval_truthy_within(const dc_logic *logic, const cJSON *data,
                                           uint64_t max_steps, uint64_t *steps, bool *out,
                                           struct dc_error *err)
{
    if (steps != NULL)
        *steps = 0;
    return truthy(logic, data, NULL, max_steps, NULL, steps, out, err);
}

enum dc_status dc_logic_eval_truthy_cached(const dc_logic *logic, const cJSON *data,
                                           struct dc_logic_var_cache *cache, uint64_t max_steps,
                                           uint64_t *steps, bool *out, struct dc_error *err)
{
    if (steps != NULL)
        *steps = 0;
    return truthy(logic, data, cache, max_steps, NULL, steps, out, err);
}
