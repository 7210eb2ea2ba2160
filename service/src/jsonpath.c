/* service/src/jsonpath.c -- kubectl's -o jsonpath, a documented subset
 * (jsonpath.h). A template compiles to a list of nodes (text, a path, a range
 * with its body); a path is a list of steps (a field, an index, every item). */
#include "jsonpath.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/jsonw.h"
#include "suggest.h"

enum step_kind { STEP_FIELD, STEP_INDEX, STEP_ALL };

struct step {
    enum step_kind kind;
    char *name; /* STEP_FIELD */
    long index; /* STEP_INDEX; negative counts from the end */
};

enum node_kind { NODE_TEXT, NODE_PATH, NODE_RANGE };

struct node {
    enum node_kind kind;
    char *text; /* NODE_TEXT */
    /* NODE_PATH and NODE_RANGE: from the root ($) or from the current item. */
    bool from_root;
    struct step *steps;
    size_t n_steps;
    char *source;      /* the expression as written, for messages */
    struct node *body; /* NODE_RANGE */
    size_t n_body;
};

struct svc_jsonpath {
    struct node *nodes;
    size_t n;
};

static void free_nodes(struct node *nodes, size_t n);

/* What one node owns (not the node itself). */
static void free_node(struct node *nd)
{
    for (size_t k = 0; k < nd->n_steps; k++)
        free(nd->steps[k].name);
    free(nd->steps);
    free(nd->text);
    free(nd->source);
    free_nodes(nd->body, nd->n_body);
}

static void free_nodes(struct node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_node(&nodes[i]);
    free(nodes);
}

void svc_jsonpath_free(svc_jsonpath *p)
{
    if (p == NULL)
        return;
    free_nodes(p->nodes, p->n);
    free(p);
}

/* ---- compiling ----------------------------------------------------------------------- */

struct parser {
    const char *s; /* the whole template */
    size_t pos;
    struct dc_error *err;
};

static enum dc_status fail(struct parser *ps, size_t at, const char *what)
{
    return dc_error_set(ps->err, DC_EPARSE, NULL, "jsonpath: %s at character %zu of \"%s\"", what,
                        at + 1, ps->s);
}

static bool push_node(struct node **v, size_t *n, struct node nd)
{
    struct node *p = realloc(*v, (*n + 1) * sizeof(**v));
    if (p == NULL)
        return false;
    *v = p;
    p[(*n)++] = nd;
    return true;
}

static bool push_step(struct node *nd, struct step st)
{
    struct step *p = realloc(nd->steps, (nd->n_steps + 1) * sizeof(*p));
    if (p == NULL)
        return false;
    nd->steps = p;
    p[nd->n_steps++] = st;
    return true;
}

/* A quoted string of `e` (its quote at e[*i]) into a new string; *i past it. */
static char *quoted(const char *e, size_t *i)
{
    char q = e[*i];
    size_t cap = strlen(e) + 1, n = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    for (size_t k = *i + 1; e[k] != '\0'; k++) {
        if (e[k] == q) {
            out[n] = '\0';
            *i = k + 1;
            return out;
        }
        if (e[k] == '\\' && e[k + 1] != '\0') {
            k++;
            out[n++] = e[k] == 'n' ? '\n' : e[k] == 't' ? '\t' : e[k];
        } else {
            out[n++] = e[k];
        }
    }
    free(out);
    *i = strlen(e) + 1; /* no closing quote */
    return NULL;
}

/* One bracketed step "[...]" of `e` at e[*i] == '['. */
static enum dc_status bracket_step(struct parser *ps, size_t base, const char *e, size_t *i,
                                   struct node *nd)
{
    size_t k = *i + 1;
    struct step st = {STEP_ALL, NULL, 0};
    if (e[k] == '*') {
        k++;
    } else if (e[k] == '\'' || e[k] == '"') {
        st.kind = STEP_FIELD;
        st.name = quoted(e, &k);
        if (st.name == NULL)
            return k > strlen(e) ? fail(ps, base + *i, "an unclosed quote") : DC_ENOMEM;
    } else if (e[k] == '?') {
        return fail(ps, base + k, "filters [?(...)] are not in the supported subset");
    } else {
        char *end = NULL;
        st.kind = STEP_INDEX;
        st.index = strtol(e + k, &end, 10);
        if (end == e + k)
            return fail(ps, base + k, "an index, * or a quoted name expected in [ ]");
        k = (size_t)(end - e);
        if (e[k] == ':')
            return fail(ps, base + k, "slices [a:b] are not in the supported subset");
    }
    if (e[k] == ',')
        return fail(ps, base + k, "unions [a,b] are not in the supported subset");
    if (e[k] != ']') {
        free(st.name);
        return fail(ps, base + k, "] expected");
    }
    *i = k + 1;
    if (!push_step(nd, st)) {
        free(st.name);
        return DC_ENOMEM;
    }
    return DC_OK;
}

/* The steps of path expression `e` (which starts at ps->s[base]) into `nd`. */
static enum dc_status parse_path(struct parser *ps, size_t base, const char *e, struct node *nd)
{
    size_t i = 0;
    if (e[0] == '$' || e[0] == '@') {
        nd->from_root = e[0] == '$';
        i = 1;
    }
    if (strcmp(e + i, ".") == 0 || e[i] == '\0')
        return DC_OK; /* the current item (or the root) itself */
    if (e[i] != '.' && e[i] != '[')
        return fail(ps, base + i, "a path starts with ., [, $ or @");
    while (e[i] != '\0') {
        if (e[i] == '[') {
            enum dc_status rc = bracket_step(ps, base, e, &i, nd);
            if (rc != DC_OK)
                return rc;
            continue;
        }
        if (e[i] != '.')
            return fail(ps, base + i, ". or [ expected");
        i++;
        if (e[i] == '.')
            return fail(ps, base + i, "recursive descent .. is not in the supported subset");
        if (e[i] == '*') {
            i++;
            if (!push_step(nd, (struct step){STEP_ALL, NULL, 0}))
                return DC_ENOMEM;
            continue;
        }
        size_t n = strcspn(e + i, ".[");
        if (n == 0)
            return fail(ps, base + i, "a field name expected after .");
        for (size_t k = 0; k < n; k++) {
            if (strchr("()?,:=<>!'\" ", e[i + k]) != NULL)
                return fail(ps, base + i + k,
                            "a character that is not in a field name (filters and functions "
                            "are not in the supported subset; quote odd names as ['name'])");
        }
        char *name = strndup(e + i, n);
        if (name == NULL || !push_step(nd, (struct step){STEP_FIELD, name, 0})) {
            free(name);
            return DC_ENOMEM;
        }
        i += n;
    }
    return DC_OK;
}

static enum dc_status parse_list(struct parser *ps, unsigned depth, struct node **out, size_t *n,
                                 bool *ended);

/* One {expression} whose text is `e`, at ps->s[base]; *ended when it is {end}. */
static enum dc_status parse_expr(struct parser *ps, size_t base, char *e, unsigned depth,
                                 struct node **v, size_t *n, bool *ended)
{
    while (*e == ' ')
        e++, base++;
    size_t len = strlen(e);
    while (len > 0 && e[len - 1] == ' ')
        e[--len] = '\0';
    struct node nd = {0};
    enum dc_status rc = DC_OK;
    if (strcmp(e, "end") == 0) {
        *ended = true;
        return DC_OK;
    }
    if (e[0] == '"' || e[0] == '\'') {
        size_t i = 0;
        nd.kind = NODE_TEXT;
        nd.text = quoted(e, &i);
        if (nd.text == NULL)
            return i > len ? fail(ps, base, "an unclosed quote") : DC_ENOMEM;
        if (e[i] != '\0') {
            free(nd.text);
            return fail(ps, base + i, "text after a quoted string");
        }
    } else if (strncmp(e, "range ", 6) == 0 || strcmp(e, "range") == 0) {
        if (depth >= SVC_JSONPATH_MAX_DEPTH)
            return fail(ps, base, "ranges nested too deep");
        nd.kind = NODE_RANGE;
        const char *p = e + 5;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            return fail(ps, base, "range needs a path");
        nd.source = strdup(p);
        rc = nd.source == NULL ? DC_ENOMEM : parse_path(ps, base + (size_t)(p - e), p, &nd);
        bool closed = false;
        if (rc == DC_OK)
            rc = parse_list(ps, depth + 1, &nd.body, &nd.n_body, &closed);
        if (rc == DC_OK && !closed)
            rc = fail(ps, base, "range without {end}");
    } else {
        nd.kind = NODE_PATH;
        nd.source = strdup(e);
        rc = nd.source == NULL ? DC_ENOMEM : parse_path(ps, base, e, &nd);
    }
    if (rc == DC_OK && !push_node(v, n, nd))
        rc = DC_ENOMEM;
    if (rc != DC_OK)
        free_node(&nd);
    return rc;
}

/* Text and expressions until the end of the template or an {end} (*ended). */
static enum dc_status parse_list(struct parser *ps, unsigned depth, struct node **out, size_t *n,
                                 bool *ended)
{
    const char *s = ps->s;
    *ended = false;
    while (s[ps->pos] != '\0' && !*ended) {
        size_t start = ps->pos;
        if (s[start] != '{') {
            size_t k = strcspn(s + start, "{}");
            if (s[start + k] == '}')
                return fail(ps, start + k, "} without {");
            struct node nd = {.kind = NODE_TEXT, .text = strndup(s + start, k)};
            if (nd.text == NULL || !push_node(out, n, nd)) {
                free(nd.text);
                return DC_ENOMEM;
            }
            ps->pos += k;
            continue;
        }
        /* An expression: up to the matching }, past quoted strings. */
        size_t k = start + 1;
        char q = 0;
        for (; s[k] != '\0' && (q != 0 || s[k] != '}'); k++) {
            if (q != 0 && s[k] == '\\' && s[k + 1] != '\0')
                k++;
            else if (q != 0 && s[k] == q)
                q = 0;
            else if (q == 0 && (s[k] == '"' || s[k] == '\''))
                q = s[k];
            else if (q == 0 && s[k] == '{')
                return fail(ps, k, "{ inside an expression");
        }
        if (s[k] != '}')
            return fail(ps, start, q != 0 ? "an unclosed quote" : "{ without }");
        char *e = strndup(s + start + 1, k - start - 1);
        if (e == NULL)
            return DC_ENOMEM;
        ps->pos = k + 1;
        enum dc_status rc = parse_expr(ps, start + 1, e, depth, out, n, ended);
        free(e);
        if (rc != DC_OK)
            return rc;
    }
    if (*ended && depth == 0)
        return fail(ps, ps->pos - 1, "{end} without {range}");
    return DC_OK;
}

enum dc_status svc_jsonpath_compile(const char *tmpl, svc_jsonpath **out, struct dc_error *err)
{
    *out = NULL;
    if (strlen(tmpl) > SVC_JSONPATH_MAX_LEN)
        return dc_error_set(err, DC_EPARSE, NULL, "jsonpath: a template of more than %d characters",
                            SVC_JSONPATH_MAX_LEN);
    struct svc_jsonpath *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    struct parser ps = {tmpl, 0, err};
    bool ended = false;
    enum dc_status rc = parse_list(&ps, 0, &p->nodes, &p->n, &ended);
    if (rc == DC_OK && p->n == 0)
        rc = fail(&ps, 0, "an empty template");
    if (rc != DC_OK) {
        if (rc == DC_ENOMEM)
            dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
        svc_jsonpath_free(p);
        return rc;
    }
    *out = p;
    return DC_OK;
}

/* ---- printing ------------------------------------------------------------------------ */

/* The nodes a path selects, grown as steps widen it. */
struct sel {
    const cJSON **v;
    size_t n, cap;
};

static bool sel_push(struct sel *s, const cJSON *j)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        const cJSON **p = realloc(s->v, cap * sizeof(*p));
        if (p == NULL)
            return false;
        s->v = p;
        s->cap = cap;
    }
    s->v[s->n++] = j;
    return true;
}

/* A missing field of object `o`: the message names the nearest field there is. */
static enum dc_status missing(const struct node *nd, const cJSON *o, const char *name,
                              struct dc_error *err)
{
    const char *names[256];
    size_t n = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, o)
    {
        if (n < 256 && it->string != NULL)
            names[n++] = it->string;
    }
    const char *near = svc_suggest(name, names, n);
    return dc_error_set(err, DC_EINVAL, NULL, "jsonpath {%s}: no field \"%s\"%s%s%s", nd->source,
                        name, near != NULL ? " (did you mean \"" : "", near != NULL ? near : "",
                        near != NULL ? "\"?)" : "");
}

/* One step applied to one node, its results added to `out`. */
static enum dc_status step_one(const struct node *nd, const struct step *st, const cJSON *j,
                               struct sel *out, struct dc_error *err)
{
    if (st->kind == STEP_FIELD) {
        if (!cJSON_IsObject(j))
            return dc_error_set(err, DC_EINVAL, NULL,
                                "jsonpath {%s}: \"%s\" of a value that is "
                                "not an object",
                                nd->source, st->name);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, st->name);
        if (v == NULL)
            return missing(nd, j, st->name, err);
        return sel_push(out, v) ? DC_OK : DC_ENOMEM;
    }
    if (st->kind == STEP_ALL) {
        if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
            return dc_error_set(err, DC_EINVAL, NULL,
                                "jsonpath {%s}: [*] of a value that is neither an array nor an "
                                "object",
                                nd->source);
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, j)
        {
            if (!sel_push(out, it))
                return DC_ENOMEM;
        }
        return DC_OK;
    }
    if (!cJSON_IsArray(j))
        return dc_error_set(err, DC_EINVAL, NULL,
                            "jsonpath {%s}: [%ld] of a value that is not "
                            "an array",
                            nd->source, st->index);
    long size = (long)cJSON_GetArraySize(j);
    long at = st->index < 0 ? size + st->index : st->index;
    if (at < 0 || at >= size)
        return dc_error_set(err, DC_EINVAL, NULL,
                            "jsonpath {%s}: index %ld is out of range (the array has %ld item%s)",
                            nd->source, st->index, size, size == 1 ? "" : "s");
    return sel_push(out, cJSON_GetArrayItem(j, (int)at)) ? DC_OK : DC_ENOMEM;
}

/* Every node path `nd` selects from `root` or the current item `cur`. */
static enum dc_status select_path(const struct node *nd, const cJSON *root, const cJSON *cur,
                                  struct sel *out, struct dc_error *err)
{
    struct sel a = {0}, b = {0};
    if (!sel_push(&a, nd->from_root ? root : cur))
        return DC_ENOMEM;
    enum dc_status rc = DC_OK;
    for (size_t k = 0; k < nd->n_steps && rc == DC_OK; k++) {
        b.n = 0;
        for (size_t i = 0; i < a.n && rc == DC_OK; i++)
            rc = step_one(nd, &nd->steps[k], a.v[i], &b, err);
        struct sel t = a;
        a = b;
        b = t;
    }
    free(b.v);
    if (rc != DC_OK) {
        free(a.v);
        return rc == DC_ENOMEM ? dc_error_set(err, DC_ENOMEM, NULL, "out of memory") : rc;
    }
    *out = a;
    return DC_OK;
}

/* One selected value: strings as they are, anything else as one line of JSON. */
static bool print_value(FILE *fp, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        fputs(v->valuestring, fp);
        return true;
    }
    size_t n = 0;
    char *t = api_json_print(v, 256, &n);
    if (t == NULL)
        return false;
    fwrite(t, 1, n, fp);
    free(t);
    return true;
}

static enum dc_status print_list(const struct node *nodes, size_t n, const cJSON *root,
                                 const cJSON *cur, FILE *fp, struct dc_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const struct node *nd = &nodes[i];
        if (nd->kind == NODE_TEXT) {
            fputs(nd->text, fp);
            continue;
        }
        struct sel s = {0};
        enum dc_status rc = select_path(nd, root, cur, &s, err);
        if (rc != DC_OK)
            return rc;
        /* {range .list}: a path that ends on one array walks its items. */
        if (nd->kind == NODE_RANGE && s.n == 1 && cJSON_IsArray(s.v[0]) &&
            (nd->n_steps == 0 || nd->steps[nd->n_steps - 1].kind != STEP_ALL)) {
            const cJSON *arr = s.v[0], *it = NULL;
            s.n = 0;
            cJSON_ArrayForEach(it, arr)
            {
                if (!sel_push(&s, it)) {
                    free(s.v);
                    return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
                }
            }
        }
        for (size_t k = 0; k < s.n && rc == DC_OK; k++) {
            if (nd->kind == NODE_RANGE) {
                rc = print_list(nd->body, nd->n_body, root, s.v[k], fp, err);
            } else {
                if (k > 0)
                    fputc(' ', fp);
                if (!print_value(fp, s.v[k]))
                    rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
            }
        }
        free(s.v);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

enum dc_status svc_jsonpath_print(const svc_jsonpath *p, const cJSON *doc, FILE *fp,
                                  struct dc_error *err)
{
    /* Written whole or not at all, ending in one newline (kubectl writes none;
     * a shell's $(...) drops it, a terminal's prompt then starts a line). */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = print_list(p->nodes, p->n, doc, doc, mem, err);
    if (fclose(mem) != 0 && rc == DC_OK)
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    if (rc == DC_OK) {
        fwrite(buf, 1, len, fp);
        if (len == 0 || buf[len - 1] != '\n')
            fputc('\n', fp);
        if (ferror(fp) != 0)
            rc = dc_error_set(err, DC_EIO, NULL, "cannot write the output");
    }
    free(buf);
    return rc;
}
