/* core/src/base/yaml.c -- libyaml event stream -> cJSON tree with line marks.
 *
 * The event API (not the document API) is used so that nesting depth and node
 * counts are enforced while parsing, before anything large is built, and so
 * that aliases can be refused at the first sight of one. */
#include "dc/yaml.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "dc/hash.h"

struct mark {
    const cJSON *node;
    unsigned line;
};

struct dc_yaml_doc {
    cJSON *root;
    struct mark *marks; /* sorted by node address after parsing */
    size_t n_marks;
};

/* The keys of one open mapping, for finding a duplicate in constant time: an
 * open-addressing table of the keys' strings (views of the tree's items'
 * names), at most half full. Comparing each new key with every earlier one
 * cost 1.75 / 8.9 / 10.9 s of CPU for 40k / 90k / 108k keys. */
struct keyset {
    const char **slot;
    size_t cap; /* a power of two, or 0 */
    size_t n;
};

/* One open container while parsing. A mapping alternates between expecting a
 * key (key == NULL) and a value for `key`. */
struct frame {
    cJSON *node;
    char *key;
    unsigned key_line;
    struct keyset keys; /* mappings only */
};

struct parser {
    const char *name;
    struct frame stack[DC_YAML_MAX_DEPTH];
    size_t depth;
    cJSON *root;
    struct mark *marks;
    size_t n_marks;
    size_t cap_marks;
    unsigned last_line; /* the text's last line, 1-based, as libyaml counts */
    struct dc_error *err;
};

/* Lines of a UTF-8 text as libyaml counts them: \n, \r\n, a lone \r and the
 * Unicode breaks NEL, LS and PS each end one; the last line need not end in a
 * break. Saturates at UINT_MAX (the byte limit keeps it far below). */
static unsigned count_lines(const char *text, size_t len)
{
    const unsigned char *u = (const unsigned char *)text;
    unsigned lines = 1;
    for (size_t i = 0; i < len && lines < UINT_MAX; i++) {
        if (u[i] == '\n' || (u[i] == '\r' && (i + 1 == len || u[i + 1] != '\n')))
            lines++;
        else if (u[i] == 0xc2 && i + 1 < len && u[i + 1] == 0x85)
            lines++;
        else if (u[i] == 0xe2 && i + 2 < len && u[i + 1] == 0x80 &&
                 (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
            lines++;
    }
    return lines;
}

/* A libyaml mark as a 1-based line of the text. libyaml ends a text that does
 * not end in a line break on a line of its own (yaml_parser_fetch_stream_end
 * forces one), so what it places there -- the empty node of "---", an error
 * at the end of the text -- is reported on the text's last line instead. */
static unsigned mark_line(const struct parser *p, const yaml_mark_t *m)
{
    unsigned line = m->line < UINT_MAX ? (unsigned)m->line + 1 : UINT_MAX;
    return line < p->last_line ? line : p->last_line;
}

static int mark_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct mark *)a)->node;
    uintptr_t y = (uintptr_t)((const struct mark *)b)->node;
    if (x < y)
        return -1;
    return x > y;
}

static enum dc_status fail(struct parser *p, unsigned line, enum dc_status code, const char *msg)
{
    char where[DC_ERROR_WHERE_MAX];
    snprintf(where, sizeof(where), "%s:%u", p->name, line);
    return dc_error_set(p->err, code, where, "%s", msg);
}

static enum dc_status add_mark(struct parser *p, const cJSON *node, unsigned line)
{
    if (p->n_marks == p->cap_marks) {
        size_t cap = p->cap_marks != 0 ? p->cap_marks * 2 : 64;
        struct mark *m = realloc(p->marks, cap * sizeof(*m));
        if (m == NULL)
            return dc_error_set(p->err, DC_ENOMEM, NULL, "out of memory");
        p->marks = m;
        p->cap_marks = cap;
    }
    p->marks[p->n_marks].node = node;
    p->marks[p->n_marks].line = line;
    p->n_marks++;
    return DC_OK;
}

static bool str_in(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++) {
        if (strcmp(s, list[i]) == 0)
            return true;
    }
    return false;
}

/* Strict number parsing for the YAML 1.2 core schema: the whole scalar must be
 * a number, so "1.2.3", "12abc" and version strings stay strings. */
static bool parse_number(const char *s, double *out)
{
    static const char *const inf_nan[] = {".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf",
                                          "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",
                                          ".NaN",  ".NAN",  NULL};
    if (str_in(s, inf_nan)) {
        *out = NAN;
        return true;
    }
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o')) {
        int base = p[1] == 'x' ? 16 : 8;
        const char *digits = p + 2;
        if (*digits == '\0' || s[0] == '-' || s[0] == '+')
            return false;
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(digits, &end, base);
        if (errno != 0 || *end != '\0')
            return false;
        *out = (double)v;
        return true;
    }
    /* Decimal: [-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
    bool digits = false;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits = true;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            p++;
            digits = true;
        }
    }
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p != '\0')
        return false;
    char *end = NULL;
    *out = strtod(s, &end);
    return end != NULL && *end == '\0';
}

static enum dc_status scalar_node(struct parser *p, const yaml_event_t *ev, cJSON **out)
{
    const char *v = (const char *)ev->data.scalar.value;
    unsigned line = mark_line(p, &ev->start_mark);
    const char *tag = (const char *)ev->data.scalar.tag;
    *out = NULL;
    if (tag != NULL && strcmp(tag, YAML_STR_TAG) != 0 && strcmp(tag, "!") != 0)
        return fail(p, line, DC_EPARSE, "YAML tags are not supported");
    if (strlen(v) != ev->data.scalar.length)
        return fail(p, line, DC_EPARSE, "NUL byte in a scalar");
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == NULL;
    cJSON *node = NULL;
    if (plain) {
        static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
        static const char *const trues[] = {"true", "True", "TRUE", NULL};
        static const char *const falses[] = {"false", "False", "FALSE", NULL};
        double num = 0;
        if (str_in(v, nulls)) {
            node = cJSON_CreateNull();
        } else if (str_in(v, trues)) {
            node = cJSON_CreateTrue();
        } else if (str_in(v, falses)) {
            node = cJSON_CreateFalse();
        } else if (parse_number(v, &num)) {
            if (!isfinite(num))
                return fail(p, line, DC_EPARSE, "non-finite numbers are not supported");
            node = cJSON_CreateNumber(num);
        } else {
            node = cJSON_CreateString(v);
        }
    } else {
        node = cJSON_CreateString(v);
    }
    if (node == NULL)
        return dc_error_set(p->err, DC_ENOMEM, NULL, "out of memory");
    *out = node;
    return DC_OK;
}

/* The slot of `k` in `ks` (cap > 0): where it is, or the empty one it would take. */
static const char **keyset_slot(const struct keyset *ks, const char *k)
{
    size_t i = (size_t)dc_fnv64_str(k) & (ks->cap - 1);
    while (ks->slot[i] != NULL && strcmp(ks->slot[i], k) != 0)
        i = (i + 1) & (ks->cap - 1);
    return &ks->slot[i];
}

static bool keyset_has(const struct keyset *ks, const char *k)
{
    return ks->cap > 0 && *keyset_slot(ks, k) != NULL;
}

/* Add `k` (borrowed for the set's life; not in it). False when out of memory. */
static bool keyset_add(struct keyset *ks, const char *k)
{
    if (2 * (ks->n + 1) > ks->cap) {
        struct keyset grown = {calloc(ks->cap > 0 ? 2 * ks->cap : 16, sizeof(char *)),
                               ks->cap > 0 ? 2 * ks->cap : 16, ks->n};
        if (grown.slot == NULL)
            return false;
        for (size_t i = 0; i < ks->cap; i++) {
            if (ks->slot[i] != NULL)
                *keyset_slot(&grown, ks->slot[i]) = ks->slot[i];
        }
        free(ks->slot);
        *ks = grown;
    }
    *keyset_slot(ks, k) = k;
    ks->n++;
    return true;
}

static void frame_clear(struct frame *f)
{
    free(f->key);
    f->key = NULL;
    free(f->keys.slot);
    f->keys = (struct keyset){NULL, 0, 0};
}

/* Attach a finished node to the open container (or make it the root). Takes
 * ownership of `node`, even on failure. */
static enum dc_status attach(struct parser *p, cJSON *node, unsigned line)
{
    enum dc_status rc = add_mark(p, node, line);
    if (rc != DC_OK) {
        cJSON_Delete(node);
        return rc;
    }
    if (p->depth == 0) {
        p->root = node;
        return DC_OK;
    }
    struct frame *f = &p->stack[p->depth - 1];
    if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, node);
        return DC_OK;
    }
    if (f->key == NULL) {
        /* Expecting a key: only scalars make keys. */
        if (!cJSON_IsString(node) && !cJSON_IsNumber(node) && !cJSON_IsBool(node)) {
            cJSON_Delete(node);
            return fail(p, line, DC_EPARSE, "mapping keys must be scalars");
        }
        char buf[64];
        const char *k = NULL;
        if (cJSON_IsString(node)) {
            k = node->valuestring;
        } else if (cJSON_IsNumber(node)) {
            snprintf(buf, sizeof(buf), "%.17g", node->valuedouble);
            k = buf;
        } else {
            k = cJSON_IsTrue(node) ? "true" : "false";
        }
        if (keyset_has(&f->keys, k)) {
            char msg[DC_ERROR_MSG_MAX];
            snprintf(msg, sizeof(msg), "duplicate key \"%.200s\"", k);
            cJSON_Delete(node);
            return fail(p, line, DC_EPARSE, msg);
        }
        f->key = strdup(k);
        f->key_line = line;
        p->n_marks--; /* keys are not nodes of the tree */
        cJSON_Delete(node);
        if (f->key == NULL)
            return dc_error_set(p->err, DC_ENOMEM, NULL, "out of memory");
        return DC_OK;
    }
    cJSON_AddItemToObject(f->node, f->key, node);
    free(f->key);
    f->key = NULL;
    /* The item's own copy of the key lives as long as the tree. */
    if (!keyset_add(&f->keys, node->string))
        return dc_error_set(p->err, DC_ENOMEM, NULL, "out of memory");
    return DC_OK;
}

static enum dc_status push(struct parser *p, cJSON *node, unsigned line)
{
    if (p->depth == DC_YAML_MAX_DEPTH) {
        cJSON_Delete(node);
        return fail(p, line, DC_ELIMIT, "nesting deeper than the limit of 64 levels");
    }
    /* Attach first so the tree owns the container; the frame only borrows it. */
    enum dc_status rc = attach(p, node, line);
    if (rc != DC_OK)
        return rc;
    p->stack[p->depth] = (struct frame){node, NULL, 0, {NULL, 0, 0}};
    p->depth++;
    return DC_OK;
}

static void parser_cleanup(struct parser *p)
{
    for (size_t i = 0; i < p->depth; i++)
        frame_clear(&p->stack[i]);
    p->depth = 0;
    cJSON_Delete(p->root);
    p->root = NULL;
    free(p->marks);
    p->marks = NULL;
}

static enum dc_status run(struct parser *p, yaml_parser_t *yp)
{
    size_t nodes = 0;
    int documents = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(yp, &ev)) {
            char msg[DC_ERROR_MSG_MAX];
            snprintf(msg, sizeof(msg), "YAML syntax error: %s%s%s",
                     yp->problem != NULL ? yp->problem : "unknown", yp->context != NULL ? " " : "",
                     yp->context != NULL ? yp->context : "");
            return fail(p, mark_line(p, &yp->problem_mark), DC_EPARSE, msg);
        }
        unsigned line = mark_line(p, &ev.start_mark);
        enum dc_status rc = DC_OK;
        cJSON *node = NULL;
        bool done = false;
        switch (ev.type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                rc = fail(p, line, DC_EPARSE, "only one YAML document per file is supported");
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_ALIAS_EVENT:
            rc = fail(p, line, DC_EPARSE, "YAML aliases are not supported");
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor
                                        : ev.type == YAML_SEQUENCE_START_EVENT
                                            ? ev.data.sequence_start.anchor
                                            : ev.data.mapping_start.anchor;
            if (anchor != NULL) {
                rc = fail(p, line, DC_EPARSE, "YAML anchors are not supported");
                break;
            }
            if (++nodes > DC_YAML_MAX_NODES) {
                rc = fail(p, line, DC_ELIMIT, "more nodes than the limit of 200000");
                break;
            }
            if (ev.type == YAML_SCALAR_EVENT) {
                rc = scalar_node(p, &ev, &node);
                if (rc == DC_OK)
                    rc = attach(p, node, line);
                break;
            }
            const yaml_char_t *tag = ev.type == YAML_SEQUENCE_START_EVENT
                                         ? ev.data.sequence_start.tag
                                         : ev.data.mapping_start.tag;
            if (tag != NULL && strcmp((const char *)tag, YAML_SEQ_TAG) != 0 &&
                strcmp((const char *)tag, YAML_MAP_TAG) != 0) {
                rc = fail(p, line, DC_EPARSE, "YAML tags are not supported");
                break;
            }
            if (p->depth > 0 && cJSON_IsObject(p->stack[p->depth - 1].node) &&
                p->stack[p->depth - 1].key == NULL) {
                rc = fail(p, line, DC_EPARSE, "mapping keys must be scalars");
                break;
            }
            node =
                ev.type == YAML_SEQUENCE_START_EVENT ? cJSON_CreateArray() : cJSON_CreateObject();
            if (node == NULL) {
                rc = dc_error_set(p->err, DC_ENOMEM, NULL, "out of memory");
                break;
            }
            rc = push(p, node, line);
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (p->depth > 0)
                frame_clear(&p->stack[--p->depth]);
            break;
        case YAML_NO_EVENT:
            break;
        }
        yaml_event_delete(&ev);
        if (rc != DC_OK)
            return rc;
        if (done)
            return DC_OK;
    }
}

enum dc_status dc_yaml_parse(const char *data, size_t len, const char *name, dc_yaml_doc **out,
                             struct dc_error *err)
{
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_yaml_parse: out is NULL");
    *out = NULL;
    if (data == NULL && len != 0)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_yaml_parse: data is NULL");
    if (name == NULL)
        name = "<input>";
    if (len > DC_YAML_MAX_BYTES) {
        char where[DC_ERROR_WHERE_MAX];
        snprintf(where, sizeof(where), "%s:1", name);
        return dc_error_set(err, DC_ELIMIT, where, "file of %zu bytes is over the limit of %u", len,
                            DC_YAML_MAX_BYTES);
    }
    struct parser p;
    memset(&p, 0, sizeof(p));
    p.name = name;
    p.err = err;
    p.last_line = count_lines(data, len);
    yaml_parser_t yp;
    if (!yaml_parser_initialize(&yp))
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    yaml_parser_set_input_string(&yp, (const unsigned char *)(data != NULL ? data : ""), len);
    yaml_parser_set_encoding(&yp, YAML_UTF8_ENCODING);
    enum dc_status rc = run(&p, &yp);
    yaml_parser_delete(&yp);
    dc_yaml_doc *doc = NULL;
    if (rc == DC_OK) {
        doc = calloc(1, sizeof(*doc));
        if (doc == NULL)
            rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    }
    if (rc == DC_OK && p.root == NULL) {
        p.root = cJSON_CreateNull();
        if (p.root == NULL)
            rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    }
    if (rc != DC_OK) {
        free(doc);
        parser_cleanup(&p);
        return rc;
    }
    if (p.n_marks > 1)
        qsort(p.marks, p.n_marks, sizeof(*p.marks), mark_cmp);
    doc->root = p.root;
    doc->marks = p.marks;
    doc->n_marks = p.n_marks;
    *out = doc;
    return DC_OK;
}

const cJSON *dc_yaml_root(const dc_yaml_doc *doc)
{
    return doc != NULL ? doc->root : NULL;
}

cJSON *dc_yaml_take_root(dc_yaml_doc *doc)
{
    if (doc == NULL)
        return NULL;
    cJSON *root = doc->root;
    doc->root = NULL;
    return root;
}

unsigned dc_yaml_line(const dc_yaml_doc *doc, const cJSON *node)
{
    if (doc == NULL || node == NULL || doc->n_marks == 0)
        return 0;
    struct mark key = {node, 0};
    const struct mark *m = bsearch(&key, doc->marks, doc->n_marks, sizeof(key), mark_cmp);
    return m != NULL ? m->line : 0;
}

void dc_yaml_doc_free(dc_yaml_doc *doc)
{
    if (doc == NULL)
        return;
    cJSON_Delete(doc->root);
    free(doc->marks);
    free(doc);
}
