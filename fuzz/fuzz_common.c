/* fuzz/fuzz_common.c -- helpers shared by the harnesses (fuzz_common.h).
 *
 * The loaded contract, rule set and compiled schemas are process-wide and
 * never freed: a harness loads them once (in LLVMFuzzerInitialize) and every
 * input reuses them, which is what keeps the fuzzers fast. They stay reachable,
 * so LeakSanitizer does not count them. */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "dc/embedded.h"

#define FUZZ_MAX_SCHEMAS 8
#define FUZZ_PRINT_MAX   4000 /* bytes of a document shown when an invariant breaks */

static api_contract *g_contract;
static dc_ruleset *g_ruleset;
static struct {
    char name[64];
    api_schema *schema;
} g_schemas[FUZZ_MAX_SCHEMAS];
static size_t g_n_schemas;

static const api_contract *contract(void);

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "\n*** fuzz invariant broken at %s:%d: %s\n*** ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

char *fuzz_strndup(const uint8_t *data, size_t len)
{
    char *s = malloc(len + 1);
    FUZZ_CHECK(s != NULL, "out of memory copying %zu bytes", len);
    if (len > 0)
        memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

bool fuzz_is_pointer(const char *p)
{
    return p != NULL && (p[0] == '\0' || p[0] == '/');
}

/* One reference token of `ptr` starting at *pos, unescaped into tok (cap
 * bytes). False when malformed (a '~' not followed by 0 or 1) or too long. */
static bool next_token(const char *ptr, size_t *pos, char *tok, size_t cap)
{
    size_t n = 0;
    size_t i = *pos;
    while (ptr[i] != '\0' && ptr[i] != '/') {
        char c = ptr[i];
        if (c == '~') {
            if (ptr[i + 1] == '0')
                c = '~';
            else if (ptr[i + 1] == '1')
                c = '/';
            else
                return false;
            i++;
        }
        if (n + 1 >= cap)
            return false;
        tok[n++] = c;
        i++;
    }
    tok[n] = '\0';
    *pos = i;
    return true;
}

const cJSON *fuzz_pointer_resolve(const cJSON *root, const char *ptr)
{
    char tok[1024];
    const cJSON *node = root;
    size_t pos = 0;
    if (ptr == NULL || (ptr[0] != '\0' && ptr[0] != '/'))
        return NULL;
    while (ptr[pos] == '/' && node != NULL) {
        pos++;
        if (!next_token(ptr, &pos, tok, sizeof(tok)))
            return NULL;
        if (cJSON_IsObject(node)) {
            const cJSON *child = NULL;
            const cJSON *it = NULL;
            cJSON_ArrayForEach(it, node)
            {
                if (it->string != NULL && strcmp(it->string, tok) == 0) {
                    child = it;
                    break;
                }
            }
            node = child;
        } else if (cJSON_IsArray(node)) {
            size_t len = strlen(tok);
            if (len == 0 || len > 9 || (len > 1 && tok[0] == '0') ||
                strspn(tok, "0123456789") != len)
                return NULL;
            node = cJSON_GetArrayItem(node, atoi(tok));
        } else {
            node = NULL;
        }
    }
    return node;
}

bool fuzz_pointer_near(const cJSON *root, const char *ptr)
{
    if (fuzz_pointer_resolve(root, ptr) != NULL)
        return true;
    if (ptr == NULL || ptr[0] != '/')
        return false;
    const char *last = strrchr(ptr, '/');
    size_t plen = (size_t)(last - ptr);
    char *parent = malloc(plen + 1);
    FUZZ_CHECK(parent != NULL, "out of memory");
    memcpy(parent, ptr, plen);
    parent[plen] = '\0';
    bool ok = fuzz_pointer_resolve(root, parent) != NULL;
    free(parent);
    return ok;
}

const dc_ruleset *fuzz_embedded_ruleset(void)
{
    if (g_ruleset != NULL)
        return g_ruleset;
    struct dc_diags diags;
    dc_diags_init(&diags);
    enum dc_status rc = dc_ruleset_load_embedded(aa_embedded_files, &g_ruleset, &diags);
    if (rc != DC_OK) {
        char line[768];
        for (size_t i = 0; i < diags.count; i++) {
            dc_diag_format(&diags.items[i], line, sizeof(line));
            fprintf(stderr, "%s\n", line);
        }
    }
    dc_diags_cleanup(&diags);
    FUZZ_CHECK(rc == DC_OK, "the embedded rule set does not load: %s", dc_status_name(rc));
    return g_ruleset;
}

struct dc_source_file fuzz_embedded_rule_file(const char *name)
{
    for (const struct aa_embedded_file *f = aa_embedded_files; f->name != NULL; f++) {
        if (strncmp(f->name, "rules/", 6) == 0 && strcmp(f->name + 6, name) == 0)
            return (struct dc_source_file){f->name + 6, f->data, f->len};
    }
    fuzz_fail(__FILE__, __LINE__, "found", "no embedded rules/%s", name);
}

static const api_contract *contract(void)
{
    if (g_contract == NULL) {
        struct dc_error err;
        dc_error_clear(&err);
        enum dc_status rc = api_contract_load_embedded(aa_embedded_files, &g_contract, &err);
        FUZZ_CHECK(rc == DC_OK, "the embedded contract does not load: %s: %s %s",
                   dc_status_name(rc), err.where, err.msg);
    }
    return g_contract;
}

const api_schema *fuzz_contract_schema(const char *name)
{
    for (size_t i = 0; i < g_n_schemas; i++) {
        if (strcmp(g_schemas[i].name, name) == 0)
            return g_schemas[i].schema;
    }
    FUZZ_CHECK(g_n_schemas < FUZZ_MAX_SCHEMAS, "more than %d schemas asked for", FUZZ_MAX_SCHEMAS);
    char entry[128];
    snprintf(entry, sizeof(entry), "#/components/schemas/%s", name);
    struct dc_error err;
    dc_error_clear(&err);
    api_schema *s = NULL;
    enum dc_status rc = api_schema_compile(api_contract_root(contract()), entry, &s, &err);
    FUZZ_CHECK(rc == DC_OK, "schema %s does not compile: %s: %s %s", entry, dc_status_name(rc),
               err.where, err.msg);
    snprintf(g_schemas[g_n_schemas].name, sizeof(g_schemas[g_n_schemas].name), "%s", name);
    g_schemas[g_n_schemas].schema = s;
    g_n_schemas++;
    return s;
}

const api_schema *fuzz_workload_schema(void)
{
    const api_schema *s = api_contract_workload_schema(contract());
    FUZZ_CHECK(s != NULL, "the contract has no Workload schema");
    return s;
}

void fuzz_check_schema_result(const struct api_schema_result *res)
{
    FUZZ_CHECK(res->valid == (res->count == 0), "valid %d but %zu violations", (int)res->valid,
               res->count);
    FUZZ_CHECK(!res->truncated || res->count > 0, "truncated with no violation");
    FUZZ_CHECK(res->count == 0 || res->items != NULL, "%zu violations, no items", res->count);
    for (size_t i = 0; i < res->count; i++) {
        const struct api_schema_violation *v = &res->items[i];
        FUZZ_CHECK(fuzz_is_pointer(v->pointer), "violation %zu: pointer \"%s\"", i,
                   v->pointer != NULL ? v->pointer : "(null)");
        FUZZ_CHECK(v->keyword != NULL && v->keyword[0] != '\0',
                   "violation %zu at \"%s\": no keyword", i, v->pointer);
        FUZZ_CHECK(v->message != NULL && v->message[0] != '\0',
                   "violation %zu at \"%s\" (%s): no message", i, v->pointer, v->keyword);
    }
}

void fuzz_expect_conforms(const api_schema *schema, const char *what, const cJSON *json)
{
    char *text = cJSON_PrintUnformatted(json);
    FUZZ_CHECK(text != NULL, "%s: cJSON_PrintUnformatted failed", what);
    cJSON *back = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum api_json_error jrc = api_json_parse(text, strlen(text), API_JSON_DEPTH_MAX, &back, &err);
    FUZZ_CHECK(jrc == API_JSON_OK, "%s: the printed JSON does not parse back (%s: %s): %.*s", what,
               api_json_error_name(jrc), err.msg, FUZZ_PRINT_MAX, text);
    struct api_schema_result vr = {0};
    enum dc_status rc = api_schema_validate(schema, back, 0, &vr, &err);
    FUZZ_CHECK(rc == DC_OK, "%s: validation failed to run: %s: %s", what, dc_status_name(rc),
               err.msg);
    fuzz_check_schema_result(&vr);
    if (!vr.valid) {
        for (size_t i = 0; i < vr.count; i++)
            fprintf(stderr, "  %s: %s (%s)\n", vr.items[i].pointer, vr.items[i].message,
                    vr.items[i].keyword);
        FUZZ_CHECK(vr.valid, "%s does not conform to the contract (%zu violations above): %.*s",
                   what, vr.count, FUZZ_PRINT_MAX, text);
    }
    api_schema_result_cleanup(&vr);
    cJSON_Delete(back);
    cJSON_free(text);
}

uint64_t fuzz_hash(const uint8_t *data, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= 0x100000001b3u;
    }
    return h;
}

void fuzz_check_compile_failure(enum dc_status rc, bool got, const struct dc_error *err,
                                const cJSON *doc, const char *what)
{
    FUZZ_CHECK(!got, "compile failed (%s) but gave a compiled %s", dc_status_name(rc), what);
    FUZZ_CHECK(err->msg[0] != '\0', "compile failed (%s) without a message", dc_status_name(rc));
    FUZZ_CHECK(fuzz_is_pointer(err->where), "compile error where \"%s\" (%s)", err->where,
               err->msg);
    if (rc != DC_ENOMEM)
        FUZZ_CHECK(fuzz_pointer_near(doc, err->where),
                   "compile error at \"%s\", which is not in the %s: %s", err->where, what,
                   err->msg);
}
