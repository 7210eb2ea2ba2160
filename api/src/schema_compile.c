/* api/src/schema_compile.c -- the JSON Schema draft 2020-12 compiler: a schema
 * document (cJSON) into the immutable graph of nodes (schema_node.h) that
 * schema_validate.c walks.
 *
 * Compilation walks the schema once from the entry point. Every schema object
 * becomes one node whose keywords are decoded into typed fields (numbers,
 * compiled regexes, property tables, child nodes) by the functions of the
 * keyword table the compiler is handed (schema_keywords.c), which call back
 * here for memory, errors and subschemas; this file knows the keywords only
 * through that table, beside the ones that give the document its structure
 * ($id, $anchor, $dynamicAnchor). A node is keyed by the cJSON object it came
 * from, so a schema reached twice (through $ref, or a recursive "$ref": "#") is
 * compiled once and the graph may be cyclic. References are resolved after the
 * walk from a registry of the document's $id and $anchor names (schema_uri.c
 * implements RFC 3986 resolution); a reference outside the document is a
 * compile error. A final pass rejects reference cycles that never descend into
 * the instance, so validation cannot loop or blow up exponentially on the same
 * instance location.
 *
 * Memory: nodes and everything they point to live in one arena (core's,
 * core/shared/arena.h) owned by the compiled schema, except regexes
 * (schema_regex.c allocates its own). The compiler's scratch (registry, base
 * URIs, locations) is a second arena freed when compilation ends. No static
 * mutable state anywhere. */
#include "schema_compile.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema objects nested inside one another (the compiler recurses per level). */
#define SCH_MAX_NESTING 512

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
    struct api__sch_node *node;
    const char *uri;   /* resolved against the node's base */
    const char *where; /* location of the keyword */
    bool dynamic;      /* $dynamicRef */
};

/* Map from cJSON object to its compiled node. */
struct sch_map_slot {
    const cJSON *key;
    struct api__sch_node *node;
};

struct api__sch_compiler {
    api_schema *s;
    const cJSON *root;
    struct dc_error *err;
    const struct api__sch_keyword *keywords; /* the table (borrowed) */
    size_t nkeywords;
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

/* ---- Compiler: memory ------------------------------------------------------- */

void *api__sch_alloc(struct api__sch_compiler *cc, size_t n)
{
    return dc__arena_alloc(&cc->s->arena, n);
}

char *api__sch_strdup(struct api__sch_compiler *cc, const char *s)
{
    return dc__arena_strdup(&cc->s->arena, s);
}

/* ---- Compiler: locations and errors ---------------------------------------- */

enum dc_status api__sch_cerr(struct api__sch_compiler *cc, const char *fmt, ...)
{
    char msg[DC_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return dc_error_set(cc->err, DC_EPARSE, cc->path, "%s", msg);
}

enum dc_status api__sch_nomem(struct api__sch_compiler *cc)
{
    return dc_error_set(cc->err, DC_ENOMEM, cc->path, "out of memory compiling the schema");
}

enum dc_status api__sch_path_push(struct api__sch_compiler *cc, const char *token, size_t *saved)
{
    *saved = cc->path_len;
    if (!api__sch_pointer_push(&cc->path, &cc->path_len, &cc->path_cap, token))
        return api__sch_nomem(cc);
    return DC_OK;
}

enum dc_status api__sch_path_push_index(struct api__sch_compiler *cc, size_t i, size_t *saved)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%zu", i);
    return api__sch_path_push(cc, buf, saved);
}

void api__sch_path_pop(struct api__sch_compiler *cc, size_t saved)
{
    cc->path_len = saved;
    cc->path[saved] = '\0';
}

/* Replace the location with `where` (a complete pointer). */
static enum dc_status path_set(struct api__sch_compiler *cc, const char *where)
{
    size_t len = strlen(where);
    if (len + 1 > cc->path_cap) {
        size_t cap = cc->path_cap;
        while (cap < len + 1)
            cap *= 2;
        char *p = SCH_REALLOC(cc->path, cap);
        if (p == NULL)
            return api__sch_nomem(cc);
        cc->path = p;
        cc->path_cap = cap;
    }
    memcpy(cc->path, where, len + 1);
    cc->path_len = len;
    return DC_OK;
}

/* ---- Compiler: node map ---------------------------------------------------- */

static size_t map_slot(const struct api__sch_compiler *cc, const cJSON *key)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 7) & (cc->capmap - 1);
    while (cc->map[i].key != NULL && cc->map[i].key != key)
        i = (i + 1) & (cc->capmap - 1);
    return i;
}

static struct api__sch_node *map_get(const struct api__sch_compiler *cc, const cJSON *key)
{
    if (cc->capmap == 0)
        return NULL;
    return cc->map[map_slot(cc, key)].node;
}

static enum dc_status map_put(struct api__sch_compiler *cc, const cJSON *key,
                              struct api__sch_node *node)
{
    if ((cc->nmap + 1) * 2 > cc->capmap) {
        size_t cap = cc->capmap != 0 ? cc->capmap * 2 : 64;
        struct sch_map_slot *old = cc->map;
        size_t oldcap = cc->capmap;
        cc->map = SCH_CALLOC(cap, sizeof(*cc->map));
        if (cc->map == NULL) {
            cc->map = old;
            return api__sch_nomem(cc);
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
static enum dc_status reg_add(struct api__sch_compiler *cc, const char *uri, const cJSON *node,
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
            return api__sch_nomem(cc);
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
        return api__sch_nomem(cc);
    cc->nreg++;
    return DC_OK;
}

/* Registry index of the resource whose URI is `uri`, or SIZE_MAX. */
static size_t reg_resource(const struct api__sch_compiler *cc, const char *uri)
{
    for (size_t i = 0; i < cc->nreg; i++) {
        if (cc->reg[i].is_resource && strcmp(cc->reg[i].uri, uri) == 0)
            return i;
    }
    return SIZE_MAX;
}

static const struct sch_registered *reg_find(const struct api__sch_compiler *cc, const char *uri,
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
static enum dc_status resolve_uri(struct api__sch_compiler *cc, const char *base, const char *ref,
                                  const char **out)
{
    char *tmp = NULL;
    if (api__sch_uri_resolve(base, ref, &tmp) != DC_OK)
        return api__sch_nomem(cc);
    *out = dc__arena_strdup(&cc->tmp, tmp);
    free(tmp);
    return *out != NULL ? DC_OK : api__sch_nomem(cc);
}

/* The row of the keyword table that names `name`, or NULL. */
static const struct api__sch_keyword *keyword_find(const struct api__sch_compiler *cc,
                                                   const char *name)
{
    for (size_t k = 0; k < cc->nkeywords; k++) {
        if (strcmp(cc->keywords[k].name, name) == 0)
            return &cc->keywords[k];
    }
    return NULL;
}

/* Register the $id and $anchor names of the schema `js` and of every schema
 * inside it (only at schema positions, which the keyword table's `subschemas`
 * names, also for keywords it does not compile such as contentSchema: an "$id"
 * inside an enum value or an unknown keyword names nothing). */
static enum dc_status scan_schema(struct api__sch_compiler *cc, const cJSON *js,
                                  const char *parent_base, unsigned depth)
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
            return api__sch_nomem(cc);
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
        const struct api__sch_keyword *kw = keyword_find(cc, m->string);
        unsigned sub = kw != NULL ? kw->subschemas : 0;
        bool single = (sub & SCH_SUB_SCHEMA) != 0;
        bool map = (sub & SCH_SUB_MAP) != 0;
        bool arr = (sub & SCH_SUB_ARRAY) != 0;
        if (!single && !map && !arr)
            continue;
        size_t saved = 0;
        rc = api__sch_path_push(cc, m->string, &saved);
        if (rc != DC_OK)
            return rc;
        if (single && !cJSON_IsArray(m)) {
            rc = scan_schema(cc, m, base, depth + 1);
        } else if ((map && cJSON_IsObject(m)) || (arr && cJSON_IsArray(m))) {
            size_t i = 0;
            for (const cJSON *x = m->child; x != NULL && rc == DC_OK; x = x->next, i++) {
                size_t saved2 = 0;
                rc = map ? api__sch_path_push(cc, x->string, &saved2)
                         : api__sch_path_push_index(cc, i, &saved2);
                if (rc == DC_OK) {
                    rc = scan_schema(cc, x, base, depth + 1);
                    api__sch_path_pop(cc, saved2);
                }
            }
        }
        api__sch_path_pop(cc, saved);
    }
    return rc;
}

/* ---- Compiler: JSON Pointer walk ------------------------------------------- */

/* Follow the (percent-decoded) JSON Pointer `ptr` from `start`, whose base URI
 * is `start_base`. On DC_OK: the target, the base URI in effect around it
 * (with every $id crossed on the way applied, but not the target's own), and
 * its location (start_where + ptr). Errors: DC_EPARSE (no such location),
 * DC_ENOMEM. */
static enum dc_status walk_pointer(struct api__sch_compiler *cc, const cJSON *start,
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
        return api__sch_nomem(cc);
    memcpy(where, start_where, wlen);
    strcpy(where + wlen, ptr);

    token = SCH_MALLOC(strlen(ptr) + 1);
    if (token == NULL)
        return api__sch_nomem(cc);
    const char *p = ptr;
    while (*p == '/') {
        p++;
        size_t n = 0;
        while (*p != '\0' && *p != '/') {
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
                token[n++] = p[1] == '0' ? '~' : '/';
                p += 2;
            } else if (*p == '~') {
                rc = api__sch_cerr(
                    cc, "$ref \"%s\": invalid JSON Pointer escape '~' (use ~0 or ~1)", shown);
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
            rc =
                api__sch_cerr(cc, "$ref \"%s\" points to nothing: there is no \"%s\" at that place",
                              shown, token);
            goto out;
        }
        cur = next;
    }
    if (*p != '\0') {
        rc = api__sch_cerr(cc, "$ref \"%s\": a JSON Pointer must start with '/'", shown);
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
static enum dc_status resolve_ref(struct api__sch_compiler *cc, const char *uri, const char *shown,
                                  const cJSON **out, const char **out_base, const char **out_where)
{
    const char *hash = strchr(uri, '#');
    size_t rlen = hash != NULL ? (size_t)(hash - uri) : strlen(uri);
    const char *frag = hash != NULL ? hash + 1 : "";
    const struct sch_registered *res = reg_find(cc, uri, rlen);
    if (res == NULL)
        return api__sch_cerr(cc,
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
            return api__sch_cerr(cc, "$ref \"%s\": no $anchor \"%s\" in this document", shown,
                                 frag);
        *out = a->node;
        *out_base = a->parent_base;
        *out_where = a->where;
        return DC_OK;
    }
    char *decoded = NULL;
    if (api__sch_percent_decode(frag, &decoded) != DC_OK)
        return api__sch_nomem(cc);
    /* Inside the resource its own URI is the base. */
    enum dc_status rc =
        walk_pointer(cc, res->node, res->uri, res->where, decoded, shown, out, out_base, out_where);
    free(decoded);
    return rc;
}

/* ---- Compiler: references --------------------------------------------------- */

enum dc_status api__sch_add_ref(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base, bool dynamic)
{
    if (!cJSON_IsString(v))
        return api__sch_cerr(cc, "\"%s\" must be a string", dynamic ? "$dynamicRef" : "$ref");
    if (cc->npending == cc->cappending) {
        size_t cap = cc->cappending != 0 ? cc->cappending * 2 : 16;
        struct sch_pending_ref *p = SCH_REALLOC(cc->pending, cap * sizeof(*p));
        if (p == NULL)
            return api__sch_nomem(cc);
        cc->pending = p;
        cc->cappending = cap;
    }
    struct sch_pending_ref *p = &cc->pending[cc->npending];
    enum dc_status rc = resolve_uri(cc, base, v->valuestring, &p->uri);
    if (rc != DC_OK)
        return rc;
    p->where = dc__arena_strdup(&cc->tmp, cc->path);
    if (p->where == NULL)
        return api__sch_nomem(cc);
    p->node = n;
    p->dynamic = dynamic;
    cc->npending++;
    n->has |= SCH_HAS_REF;
    return DC_OK;
}

/* ---- Compiler: nodes -------------------------------------------------------- */

/* Derived fields, once all keywords of `n` are in. */
static void finish_node(struct api__sch_node *n)
{
    for (size_t i = 0; i < n->nrequired; i++) {
        for (size_t k = 0; k < n->nprops; k++) {
            if (strcmp(n->required[i].name, n->props[k].name) == 0) {
                n->required[i].prop = k;
                break;
            }
        }
    }
    /* With no check to run, the node accepts everything: true, {} or only
     * annotations. Validation then skips it outright. */
    n->empty = !n->is_false && n->checks == 0;
}

static enum dc_status new_node(struct api__sch_compiler *cc, const cJSON *js,
                               struct api__sch_node **out)
{
    api_schema *s = cc->s;
    struct api__sch_node *n = dc__arena_alloc(&s->arena, sizeof(*n));
    if (n == NULL)
        return api__sch_nomem(cc);
    if (s->nnodes == s->capnodes) {
        size_t cap = s->capnodes != 0 ? s->capnodes * 2 : 32;
        struct api__sch_node **nodes = SCH_REALLOC(s->nodes, cap * sizeof(*nodes));
        if (nodes == NULL)
            return api__sch_nomem(cc);
        s->nodes = nodes;
        s->capnodes = cap;
    }
    n->resource = SIZE_MAX;
    n->src_where = dc__arena_strdup(&cc->tmp, cc->path);
    if (n->src_where == NULL)
        return api__sch_nomem(cc);
    enum dc_status rc = map_put(cc, js, n);
    if (rc != DC_OK)
        return rc;
    n->index = s->nnodes;
    s->nodes[s->nnodes++] = n;
    *out = n;
    return DC_OK;
}

enum dc_status api__sch_compile_schema(struct api__sch_compiler *cc, const cJSON *js,
                                       const char *parent_base, struct api__sch_node **out)
{
    struct api__sch_node *n = map_get(cc, js);
    enum dc_status rc = DC_OK;
    if (n != NULL) {
        *out = n;
        return DC_OK;
    }
    if (!cJSON_IsObject(js) && !cJSON_IsBool(js))
        return api__sch_cerr(cc, "a schema must be an object or a boolean");
    if (cc->depth >= SCH_MAX_NESTING)
        return api__sch_cerr(cc, "schema nested deeper than %d levels", SCH_MAX_NESTING);
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
            return api__sch_cerr(cc, "\"$id\" must be a string");
        rc = resolve_uri(cc, parent_base, id->valuestring, &base);
        if (rc != DC_OK)
            return rc;
    }
    n->resource = reg_resource(cc, base);
    cc->depth++;
    /* Each keyword the table names is compiled by its row and adds its check;
     * anything else is an annotation or an unknown keyword, ignored as the
     * specification asks. */
    for (const cJSON *m = js->child; m != NULL && rc == DC_OK; m = m->next) {
        const struct api__sch_keyword *kw = keyword_find(cc, m->string);
        if (kw == NULL || kw->compile == NULL)
            continue;
        size_t saved = 0;
        rc = api__sch_path_push(cc, m->string, &saved);
        if (rc == DC_OK)
            rc = kw->compile(cc, n, m, base);
        if (rc == DC_OK) {
            api__sch_path_pop(cc, saved);
            n->checks |= api__sch_check_bit(kw->check);
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
static enum dc_status resolve_pending(struct api__sch_compiler *cc)
{
    for (; cc->nresolved < cc->npending; cc->nresolved++) {
        struct sch_pending_ref p = cc->pending[cc->nresolved];
        const cJSON *target = NULL;
        const char *base = NULL;
        const char *where = NULL;
        struct api__sch_node *node = NULL;
        enum dc_status rc = path_set(cc, p.where);
        if (rc == DC_OK)
            rc = resolve_ref(cc, p.uri, p.uri, &target, &base, &where);
        if (rc == DC_OK)
            rc = path_set(cc, where);
        if (rc == DC_OK)
            rc = api__sch_compile_schema(cc, target, base, &node);
        if (rc != DC_OK)
            return rc;
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
                return api__sch_nomem(cc);
        }
    }
    return DC_OK;
}

/* Compile every $dynamicAnchor of the document, the targets $dynamicRef may
 * switch to at run time, into the schema's table. */
static enum dc_status compile_dynamic_anchors(struct api__sch_compiler *cc)
{
    size_t count = 0;
    for (size_t i = 0; i < cc->nreg; i++)
        count += cc->reg[i].dyn_name != NULL;
    if (count == 0)
        return DC_OK;
    api_schema *s = cc->s;
    s->dyn = dc__arena_alloc(&s->arena, count * sizeof(*s->dyn));
    if (s->dyn == NULL)
        return api__sch_nomem(cc);
    for (size_t i = 0; i < cc->nreg; i++) {
        const struct sch_registered *r = &cc->reg[i];
        if (r->dyn_name == NULL)
            continue;
        struct api__sch_dyn_anchor *d = &s->dyn[s->ndyn];
        enum dc_status rc = path_set(cc, r->where);
        if (rc == DC_OK)
            rc = api__sch_compile_schema(cc, r->node, r->parent_base, &d->node);
        if (rc != DC_OK)
            return rc;
        d->resource = reg_resource(cc, r->dyn_base);
        d->name = dc__arena_strdup(&s->arena, r->dyn_name);
        if (d->name == NULL)
            return api__sch_nomem(cc);
        s->ndyn++;
    }
    return resolve_pending(cc);
}

/* Number of schemas applied to the same instance location as `n`: the edges
 * along which a reference cycle makes no progress. */
#define SCH_SINGLE_EDGES 6

static size_t same_place_count(const struct api__sch_node *n)
{
    return SCH_SINGLE_EDGES + n->nall_of + n->nany_of + n->none_of + n->ndep_schemas;
}

/* The i-th of them (i < same_place_count(n)); NULL for an absent keyword. */
static const struct api__sch_node *same_place_edge(const struct api__sch_node *n, size_t i)
{
    if (i < SCH_SINGLE_EDGES) {
        const struct api__sch_node *single[SCH_SINGLE_EDGES] = {
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
static enum dc_status check_cycles(struct api__sch_compiler *cc)
{
    api_schema *s = cc->s;
    enum dc_status rc = DC_OK;
    size_t n = s->nnodes != 0 ? s->nnodes : 1;
    unsigned char *color = SCH_CALLOC(n, 1); /* 0 unvisited, 1 on the path, 2 done */
    struct frame {
        const struct api__sch_node *node;
        size_t edge;
    } *stack = SCH_MALLOC(n * sizeof(*stack));
    if (color == NULL || stack == NULL) {
        rc = api__sch_nomem(cc);
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
            const struct api__sch_node *next = NULL;
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
                    rc = api__sch_cerr(
                        cc, "$ref cycle: this schema applies itself to the same value "
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

/* ---- The compiled schema --------------------------------------------------- */

void api_schema_free(api_schema *schema)
{
    if (schema == NULL)
        return;
    for (size_t i = 0; i < schema->nnodes; i++) {
        struct api__sch_node *n = schema->nodes[i];
        api__sch_regex_free(n->pattern);
        for (size_t k = 0; k < n->npatterns; k++)
            api__sch_regex_free(n->patterns[k].re);
    }
    free(schema->nodes);
    dc__arena_release(&schema->arena);
    free(schema);
}

/* ---- The driver ------------------------------------------------------------- */

/* Parse `entry` ("", "#", "#/a/b" or "/a/b") into a percent-decoded pointer. */
static enum dc_status entry_pointer(const char *entry, char **out)
{
    const char *p = entry[0] == '#' ? entry + 1 : entry;
    if (*p != '\0' && *p != '/')
        return DC_EINVAL;
    return api__sch_percent_decode(p, out);
}

/* Names first: the document root is a schema resource, and so is each OpenAPI
 * component schema; their $id/$anchor names must be known before any $ref is
 * resolved. *root_base is the root's base URI. */
static enum dc_status register_names(struct api__sch_compiler *cc, const char **root_base)
{
    enum dc_status rc = DC_OK;
    const cJSON *root = cc->root;
    *root_base = "";
    if (cJSON_IsObject(root)) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "$id");
        if (cJSON_IsString(id)) {
            rc = resolve_uri(cc, "", id->valuestring, root_base);
            if (rc != DC_OK)
                return rc;
        }
    }
    rc = reg_add(cc, *root_base, root, "", NULL, NULL);
    if (rc == DC_OK)
        rc = scan_schema(cc, root, "", 0);
    const cJSON *components = cJSON_GetObjectItemCaseSensitive(root, "components");
    const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(components, "schemas");
    if (rc == DC_OK && cJSON_IsObject(schemas)) {
        size_t s1 = 0;
        size_t s2 = 0;
        rc = api__sch_path_push(cc, "components", &s1);
        if (rc == DC_OK)
            rc = api__sch_path_push(cc, "schemas", &s2);
        for (const cJSON *x = schemas->child; x != NULL && rc == DC_OK; x = x->next) {
            size_t s3 = 0;
            rc = api__sch_path_push(cc, x->string, &s3);
            if (rc == DC_OK) {
                rc = scan_schema(cc, x, *root_base, 0);
                api__sch_path_pop(cc, s3);
            }
        }
        if (rc == DC_OK)
            api__sch_path_pop(cc, s1);
    }
    return rc;
}

/* The entry point (`ptr`, decoded from `entry`), then everything it
 * references, then the check for cycles. */
static enum dc_status compile_entry(struct api__sch_compiler *cc, const char *entry,
                                    const char *ptr, const char *root_base)
{
    enum dc_status rc = DC_OK;
    const cJSON *target = cc->root;
    const char *base = "";
    const char *where = "";
    if (ptr[0] != '\0') {
        rc = walk_pointer(cc, cc->root, root_base, "", ptr, entry, &target, &base, &where);
        if (rc == DC_EPARSE)
            return dc_error_set(cc->err, DC_EINVAL, NULL,
                                "entry \"%s\" does not exist in the document", entry);
        if (rc != DC_OK)
            return rc;
    }
    rc = path_set(cc, where);
    if (rc == DC_OK)
        rc = scan_schema(cc, target, base, 0);
    if (rc == DC_OK)
        rc = path_set(cc, where);
    if (rc == DC_OK)
        rc = api__sch_compile_schema(cc, target, base, &cc->s->entry);
    if (rc == DC_OK)
        rc = resolve_pending(cc);
    if (rc == DC_OK)
        rc = compile_dynamic_anchors(cc);
    if (rc == DC_OK)
        rc = check_cycles(cc);
    return rc;
}

enum dc_status api__sch_compile(const cJSON *root, const char *entry,
                                const struct api__sch_keyword *keywords, size_t n, api_schema **out,
                                struct dc_error *err)
{
    struct api__sch_compiler cc;
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
    cc.keywords = keywords;
    cc.nkeywords = n;
    dc__arena_init(&cc.tmp, NULL, 0, SIZE_MAX, SCH_ALLOC_COUNTER);
    cc.s = SCH_CALLOC(1, sizeof(*cc.s));
    cc.path_cap = 128;
    cc.path = SCH_MALLOC(cc.path_cap);
    if (cc.s == NULL || cc.path == NULL) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory compiling the schema");
        goto out;
    }
    dc__arena_init(&cc.s->arena, NULL, 0, SIZE_MAX, SCH_ALLOC_COUNTER);
    cc.path[0] = '\0';

    const char *root_base = "";
    rc = register_names(&cc, &root_base);
    if (rc == DC_OK)
        rc = compile_entry(&cc, entry, ptr, root_base);
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
