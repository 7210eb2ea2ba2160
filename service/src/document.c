/* service/src/document.c -- CLI documents in JSON or YAML, checked against a schema. */
#include "document.h"

#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "dc/yaml.h"
#include "suggest.h"
#include "workload_check.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

enum svc_syntax svc_document_syntax(const char *path, const char *text, size_t len)
{
    if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
        return SVC_SYNTAX_YAML;
    if (ends_with(path, ".json"))
        return SVC_SYNTAX_JSON;
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", text[i]) != NULL)
        i++;
    return i < len && (text[i] == '{' || text[i] == '[') ? SVC_SYNTAX_JSON : SVC_SYNTAX_YAML;
}

/* The source line of the value at `pointer` in a YAML document, or of the
 * nearest enclosing value that exists (a missing member is reported at its
 * object). */
static unsigned yaml_line(const dc_yaml_doc *y, const cJSON *root, const char *pointer)
{
    char *ptr = strdup(pointer);
    unsigned line = 0;
    while (ptr != NULL && line == 0) {
        const cJSON *node = api_json_pointer_get(root, ptr);
        line = node != NULL ? dc_yaml_line(y, node) : 0;
        char *slash = strrchr(ptr, '/');
        if (slash == NULL)
            break;
        *slash = '\0';
    }
    free(ptr);
    return line > 0 ? line : 1;
}

/* Print one problem at `pointer`: with the YAML document's name and line when
 * `y` is not NULL. */
static void problem(FILE *fp, const char *prefix, const char *name, const dc_yaml_doc *y,
                    const cJSON *root, const char *pointer, const char *message)
{
    const char *p = pointer[0] != '\0' ? pointer : "/";
    if (y != NULL)
        fprintf(fp, "%s%s:%u: %s: %s\n", prefix, name, yaml_line(y, root, pointer), p, message);
    else
        fprintf(fp, "%s%s: %s\n", prefix, p, message);
}

/* A value the schema's enum refuses ("must be one of: a, b, c"), when it is a
 * string near one of them: " (did you mean \"b\"?)" into buf, else "". */
static void enum_hint(const struct api_schema_violation *v, const cJSON *doc, char *buf, size_t len)
{
    static const char lead[] = "must be one of: ";
    buf[0] = '\0';
    if (strcmp(v->keyword, "enum") != 0 || strncmp(v->message, lead, sizeof(lead) - 1) != 0)
        return;
    const cJSON *x = api_json_pointer_get(doc, v->pointer);
    char *list = cJSON_IsString(x) ? strdup(v->message + sizeof(lead) - 1) : NULL;
    const char *words[64];
    size_t n = 0;
    for (char *w = list, *next = NULL; w != NULL && n < 64; w = next) {
        next = strstr(w, ", ");
        if (next != NULL) {
            *next = '\0';
            next += 2;
        }
        words[n++] = w;
    }
    const char *near = n > 0 ? svc_suggest(x->valuestring, words, n) : NULL;
    if (near != NULL)
        snprintf(buf, len, " (did you mean \"%s\"?)", near);
    free(list);
}

/* The first array or object nested deeper than `max` levels, or NULL. */
static const cJSON *too_deep(const cJSON *node, unsigned level, unsigned max)
{
    if (!cJSON_IsArray(node) && !cJSON_IsObject(node))
        return NULL;
    if (level >= max)
        return node;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, node)
    {
        const cJSON *deep = too_deep(it, level + 1, max);
        if (deep != NULL)
            return deep;
    }
    return NULL;
}

/* Parse a YAML document: 0 with *root owned and *y kept for line lookups, or
 * the problem printed and 1 (2 when out of memory). */
static int parse_yaml(const char *name, const char *text, size_t len, unsigned depth, FILE *fp,
                      const char *prefix, dc_yaml_doc **y, cJSON **root)
{
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = dc_yaml_parse(text, len, name, y, &err);
    if (rc != DC_OK) {
        fprintf(fp, "%s%s: %s\n", prefix, err.where[0] != '\0' ? err.where : name, err.msg);
        return rc == DC_ENOMEM ? 2 : 1;
    }
    *root = dc_yaml_take_root(*y);
    const cJSON *deep = too_deep(*root, 0, depth);
    if (deep != NULL) {
        char msg[96];
        snprintf(msg, sizeof(msg), "too-deep: nesting deeper than the limit of %u levels", depth);
        fprintf(fp, "%s%s:%u: /: %s\n", prefix, name, dc_yaml_line(*y, deep), msg);
        return 1;
    }
    return 0;
}

/* Parse a JSON document strictly: 0 with *root owned, or the problem printed
 * and 1 (2 when out of memory). */
static int parse_json(const char *text, size_t len, unsigned depth, FILE *fp, const char *prefix,
                      cJSON **root)
{
    struct dc_error err;
    dc_error_clear(&err);
    enum api_json_error je = api_json_parse(text, len, depth, root, &err);
    if (je == API_JSON_NOMEM) {
        fprintf(fp, "%sout of memory\n", prefix);
        return 2;
    }
    if (je != API_JSON_OK) {
        fprintf(fp, "%s%s: %s: %s\n", prefix, err.where[0] != '\0' ? err.where : "/",
                api_json_error_name(je), err.msg);
        return 1;
    }
    return 0;
}

int svc_check_document(const api_schema *schema, const dc_ruleset *rs, const char *name,
                       enum svc_syntax syntax, const char *text, size_t len, unsigned depth,
                       FILE *fp, const char *prefix, cJSON **out)
{
    struct svc_document_edit none = {NULL, NULL};
    return svc_check_edited_document(schema, rs, name, syntax, text, len, depth, fp, prefix, &none,
                                     out);
}

int svc_check_edited_document(const api_schema *schema, const dc_ruleset *rs, const char *name,
                              enum svc_syntax syntax, const char *text, size_t len, unsigned depth,
                              FILE *fp, const char *prefix, const struct svc_document_edit *edit,
                              cJSON **out)
{
    struct dc_error err;
    struct api_schema_result vr = {0};
    dc_yaml_doc *y = NULL;
    cJSON *doc = NULL;
    dc_error_clear(&err);
    if (depth == 0)
        depth = API_JSON_DEPTH_DEFAULT;
    int status = syntax == SVC_SYNTAX_YAML
                     ? parse_yaml(name, text, len, depth, fp, prefix, &y, &doc)
                     : parse_json(text, len, depth, fp, prefix, &doc);
    if (status != 0)
        goto out;
    status = 2;
    if (edit->apply != NULL && !edit->apply(doc, edit->ctx)) {
        fprintf(fp, "%sout of memory\n", prefix);
        goto out;
    }
    /* A workload gets the server's whole check; any other document its schema. */
    enum svc_workload_verdict v =
        rs != NULL ? svc_workload_check(schema, rs, doc, API_VALIDATION_MAX_ERRORS, &vr, &err)
        : api_schema_validate(schema, doc, API_VALIDATION_MAX_ERRORS, &vr, &err) != DC_OK
            ? SVC_WORKLOAD_ERROR
            : SVC_WORKLOAD_VALID;
    if (v == SVC_WORKLOAD_ERROR) {
        fprintf(fp, "%scannot validate: %s\n", prefix, err.msg);
        goto out;
    }
    if (v == SVC_WORKLOAD_INVALID) {
        problem(fp, prefix, name, y, doc, err.where, err.msg);
        status = 1;
        goto out;
    }
    for (size_t i = 0; i < vr.count; i++) {
        char hint[128];
        enum_hint(&vr.items[i], doc, hint, sizeof(hint));
        size_t n = strlen(vr.items[i].message) + strlen(hint) + 1;
        char *msg = hint[0] != '\0' ? malloc(n) : NULL;
        if (msg != NULL)
            snprintf(msg, n, "%s%s", vr.items[i].message, hint);
        problem(fp, prefix, name, y, doc, vr.items[i].pointer,
                msg != NULL ? msg : vr.items[i].message);
        free(msg);
    }
    if (vr.truncated) {
        char more[96];
        snprintf(more, sizeof(more), "more than %d violations; the first %zu are listed",
                 API_VALIDATION_MAX_ERRORS, vr.count);
        problem(fp, prefix, name, y, doc, "", more);
    }
    status = vr.valid ? 0 : 1;
    if (status == 0 && out != NULL) {
        *out = doc;
        doc = NULL;
    }
out:
    api_schema_result_cleanup(&vr);
    cJSON_Delete(doc);
    dc_yaml_doc_free(y);
    return status;
}
