/* core/src/logic/logic_compile.c -- JSONLogic compilation: a cJSON rule into an
 * immutable program of nodes (dc_logic_compile), with the operator table,
 * arity checks, depth and node limits, constants built once, precompiled var
 * paths and the list of paths a rule reads (dc_logic_foreach_var). Owned by
 * the JSONLogic module; the program's shape is in core/src/logic/logic_impl.h. */
#include "logic_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
/* ---- compiler state ---------------------------------------------------------- */

struct lc_paths {
    const char **v;
    size_t n;
    size_t cap;
};

/* The var nodes that read the rule's data (outside map/filter/... bodies),
 * for dc_logic_number_vars. */
struct lc_vars {
    struct lg_node **v;
    const char **path;
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
    struct lc_vars vars;
    char where[DC_ERROR_WHERE_MAX]; /* JSON Pointer of the node being compiled */
    size_t wlen;
};

static enum dc_status lc_fail(struct lc *c, enum dc_status code, const char *fmt, ...)
    DC_PRINTF(3, 4);
static size_t lc_push(struct lc *c, const char *tok);
static size_t lc_push_index(struct lc *c, size_t i);
static void lc_pop(struct lc *c, size_t old);
static const struct lg_opdef *lc_find_op(const char *name);
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
    char buf[21];
    dc_uint_text(i, buf);
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
        enum dc_status rc = lg__copy_str(c->cx, s, len, &s);
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
    out->fn = lg__handler(out->op);
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
    rc = lg__alloc(c->cx, n * sizeof(*kids) + sizeof(struct lv_arr) + n * sizeof(struct lv), &mem);
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
        return lg__oom(c->cx);
    if (!cJSON_AddItemToArray(c->objects, dup)) {
        cJSON_Delete(dup);
        return lg__oom(c->cx);
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
        rc = lg__alloc(c->cx, argc * sizeof(*kids), &mem);
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
    enum dc_status rc = lg__to_sv(c->cx, v, numbuf, &s);
    if (rc != DC_OK)
        return rc;
    if (s.p == numbuf || s.p[s.len] != '\0')
        return lg__copy_str(c->cx, s.p, s.len, out);
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
        enum dc_status rc = lg__alloc(c->cx, cap * sizeof(*ps->v), &mem);
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

/* Remember var node `n`, which reads `path` of the rule's data. */
static enum dc_status lc_add_var(struct lc *c, struct lg_node *n, const char *path)
{
    struct lc_vars *vs = &c->vars;
    if (c->scoped > 0)
        return DC_OK;
    if (vs->n == vs->cap) {
        size_t cap = vs->cap == 0 ? 8 : vs->cap * 2;
        void *mv = NULL, *mp = NULL;
        enum dc_status rc = lg__alloc(c->cx, cap * sizeof(*vs->v), &mv);
        if (rc == DC_OK)
            rc = lg__alloc(c->cx, cap * sizeof(*vs->path), &mp);
        if (rc != DC_OK)
            return rc;
        if (vs->n > 0) {
            memcpy(mv, (const void *)vs->v, vs->n * sizeof(*vs->v));
            memcpy(mp, (const void *)vs->path, vs->n * sizeof(*vs->path));
        }
        vs->v = mv;
        vs->path = mp;
        vs->cap = cap;
    }
    vs->v[vs->n] = n;
    vs->path[vs->n++] = path;
    return DC_OK;
}

/* var with a constant path is split once here; "" and null mean the whole
 * data. A computed path stays an argument (OP_VAR_DYN). */
static enum dc_status lc_var(struct lc *c, struct lg_node *n)
{
    const char *path = NULL;
    enum dc_status rc;
    n->u.var.seg = NULL;
    n->u.var.nseg = 0;
    n->u.var.slot = LG_NO_SLOT;
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
    rc = lg__alloc(c->cx, nseg * sizeof(struct lg_seg), &mem);
    if (rc != DC_OK)
        return rc;
    struct lg_seg *seg = mem;
    size_t s = 0;
    for (size_t k = 0; k < nseg; k++) {
        size_t e = s;
        while (e < len && path[e] != '.')
            e++;
        /* Each segment gets a NUL-terminated copy, so lookups can use strcmp. */
        rc = lg__copy_str(c->cx, path + s, e - s, &seg[k].p);
        if (rc != DC_OK)
            return rc;
        seg[k].len = e - s;
        seg[k].idx = lg__seg_index(path + s, e - s);
        s = e + 1;
    }
    n->u.var.seg = seg;
    n->u.var.nseg = nseg;
    rc = lc_add_var(c, n, path);
    return rc == DC_OK ? lc_add_path(c, path) : rc;
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
    /* The caller's counts go on from where they stand, as fail_at counts them. */
    struct dc__alloc_counter count = {0, 0, 0};
    struct dc__alloc_counter *counter = NULL;
    if (stats != NULL) {
        count = (struct dc__alloc_counter){stats->fail_at, stats->allocs, stats->alloc_bytes};
        counter = &count;
    }
    dc__arena_init(&cx.arena, NULL, 0, SIZE_MAX, counter);
    cx.steps = 0;
    cx.max_steps = UINT64_MAX;
    cx.serial = 0;
    cx.err = err;
    cx.vc = NULL;
    c.cx = &cx;

    c.objects = cJSON_CreateArray();
    prog = dc__alloc(counter, sizeof(*prog));
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
    prog->vars = c.vars.v;
    prog->var_paths = c.vars.path;
    prog->nvars = c.vars.n;
    prog->max_steps =
        limits != NULL && limits->max_steps != 0 ? limits->max_steps : DC_LOGIC_MAX_STEPS_DEFAULT;
    prog->arena = cx.arena;
    prog->arena.counter = NULL; /* the caller's, and a program allocates no more */
    dc__arena_init(&cx.arena, NULL, 0, SIZE_MAX, NULL);
    prog->objects = c.objects;
    c.objects = NULL;
    *out = prog;
    prog = NULL;
out:
    dc__arena_release(&cx.arena);
    cJSON_Delete(c.objects);
    free(prog);
    if (stats != NULL) {
        stats->allocs = count.allocs;
        stats->alloc_bytes = count.alloc_bytes;
    }
    return rc;
}

void dc_logic_number_vars(dc_logic *logic, uint32_t (*number)(const char *path, void *ctx),
                          void *ctx)
{
    if (logic == NULL || number == NULL)
        return;
    for (size_t i = 0; i < logic->nvars; i++)
        logic->vars[i]->u.var.slot = number(logic->var_paths[i], ctx);
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
    dc__arena_release(&logic->arena);
    cJSON_Delete(logic->objects);
    free(logic);
}
