/* api/src/openapi.c -- the contract (openapi.yaml) loaded and compiled: the
 * request schemas the server validates against and the query parameters of each
 * operation. Owned by api/; the strict JSON reader it hands bodies to is
 * api/src/json_read.c. */
#include "api/openapi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/yaml.h"

struct api_contract {
    char *yaml;
    size_t yaml_len;
    char *json;
    size_t json_len;
    cJSON *root;
    char *version;
    api_schema *workload;
    api_schema *batch;
    cJSON *envelope_root; /* a copy of root whose BatchRequest items are unconstrained */
    api_schema *envelope;
};

/* ---- contract ---------------------------------------------------------------- */

/* BatchRequest with its workloads' items unconstrained, compiled from a copy of
 * the contract: the envelope is validated on its own, so violations inside the
 * workloads can never hide one of the envelope behind the error cap. */
static enum dc_status compile_envelope(api_contract *c, struct dc_error *err)
{
    static const char *const path[] = {"components", "schemas", "BatchRequest", "properties",
                                       "workloads"};
    c->envelope_root = cJSON_Duplicate(c->root, true);
    if (c->envelope_root == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    cJSON *node = c->envelope_root;
    for (size_t i = 0; i < sizeof(path) / sizeof(path[0]); i++)
        node = cJSON_GetObjectItemCaseSensitive(node, path[i]);
    if (!cJSON_IsObject(node))
        return dc_error_set(err, DC_EPARSE, API_SCHEMA_BATCH "/properties/workloads",
                            "BatchRequest has no workloads property");
    cJSON_DeleteItemFromObjectCaseSensitive(node, "items");
    return api_schema_compile(c->envelope_root, API_SCHEMA_BATCH, &c->envelope, err);
}

enum dc_status api_contract_load(const char *yaml, size_t len, const char *name, api_contract **out,
                                 struct dc_error *err)
{
    dc_yaml_doc *doc = NULL;
    api_contract *c = NULL;
    enum dc_status rc = DC_OK;
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_contract_load: NULL argument");
    *out = NULL;
    if (yaml == NULL || name == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_contract_load: NULL argument");
    rc = dc_yaml_parse(yaml, len, name, &doc, err);
    if (rc != DC_OK)
        goto out;
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
        goto out;
    }
    c->root = dc_yaml_take_root(doc);
    const cJSON *openapi = cJSON_GetObjectItemCaseSensitive(c->root, "openapi");
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(c->root, "info");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(info, "version");
    if (!cJSON_IsObject(c->root) || !cJSON_IsString(openapi) ||
        strncmp(openapi->valuestring, "3.1.", 4) != 0 || !cJSON_IsString(version)) {
        rc = dc_error_set(err, DC_EPARSE, name,
                          "not an OpenAPI 3.1 document (openapi: 3.1.x and info.version needed)");
        goto out;
    }
    c->yaml = malloc(len + 1);
    c->version = strdup(version->valuestring);
    c->json = cJSON_PrintUnformatted(c->root);
    if (c->yaml == NULL || c->version == NULL || c->json == NULL) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
        goto out;
    }
    memcpy(c->yaml, yaml, len);
    c->yaml[len] = '\0';
    c->yaml_len = len;
    c->json_len = strlen(c->json);
    rc = api_schema_compile(c->root, API_SCHEMA_WORKLOAD, &c->workload, err);
    if (rc == DC_OK)
        rc = api_schema_compile(c->root, API_SCHEMA_BATCH, &c->batch, err);
    if (rc == DC_OK)
        rc = compile_envelope(c, err);
    if (rc != DC_OK)
        goto out;
    *out = c;
    c = NULL;
out:
    api_contract_free(c);
    dc_yaml_doc_free(doc);
    return rc;
}

enum dc_status api_contract_load_embedded(const struct aa_embedded_file *files, api_contract **out,
                                          struct dc_error *err)
{
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_contract_load_embedded: NULL argument");
    *out = NULL;
    for (const struct aa_embedded_file *f = files; f != NULL && f->name != NULL; f++) {
        if (strcmp(f->name, API_OPENAPI_EMBEDDED_NAME) == 0)
            return api_contract_load(f->data, f->len, f->name, out, err);
    }
    return dc_error_set(err, DC_ENOTFOUND, NULL, "the binary has no embedded %s",
                        API_OPENAPI_EMBEDDED_NAME);
}

const char *api_contract_yaml(const api_contract *c, size_t *len)
{
    if (len != NULL)
        *len = c->yaml_len;
    return c->yaml;
}

const char *api_contract_json(const api_contract *c, size_t *len)
{
    if (len != NULL)
        *len = c->json_len;
    return c->json;
}

const cJSON *api_contract_root(const api_contract *c)
{
    return c->root;
}

const char *api_contract_version(const api_contract *c)
{
    return c->version;
}

const api_schema *api_contract_workload_schema(const api_contract *c)
{
    return c->workload;
}

const api_schema *api_contract_batch_schema(const api_contract *c)
{
    return c->batch;
}

const api_schema *api_contract_batch_envelope_schema(const api_contract *c)
{
    return c->envelope;
}

void api_contract_free(api_contract *c)
{
    if (c == NULL)
        return;
    api_schema_free(c->workload);
    api_schema_free(c->batch);
    api_schema_free(c->envelope);
    cJSON_Delete(c->envelope_root);
    cJSON_Delete(c->root);
    cJSON_free(c->json);
    free(c->yaml);
    free(c->version);
    free(c);
}

/* ---- query parameters ---------------------------------------------------------- */

void api_query_params_cleanup(struct api_query_params *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->count; i++) {
        free(p->items[i].name);
        api_schema_free(p->items[i].schema);
    }
    free(p->items);
    p->items = NULL;
    p->count = 0;
}

enum dc_status api_contract_query_params(const api_contract *c, const char *path,
                                         const char *method, struct api_query_params *out,
                                         struct dc_error *err)
{
    char ptr[512] = "#/paths";
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_contract_query_params: NULL argument");
    out->items = NULL;
    out->count = 0;
    if (c == NULL || path == NULL || method == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "api_contract_query_params: NULL argument");
    if (!api_json_pointer_append(ptr, sizeof(ptr), path) ||
        !api_json_pointer_append(ptr, sizeof(ptr), method))
        return dc_error_set(err, DC_EINVAL, NULL, "path too long");
    const cJSON *op = api_json_pointer_get(c->root, ptr);
    if (!cJSON_IsObject(op))
        return dc_error_set(err, DC_ENOTFOUND, ptr, "no operation %s %s in the contract", method,
                            path);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(op, "parameters");
    int n = cJSON_GetArraySize(params);
    if (n == 0)
        return DC_OK;
    out->items = calloc((size_t)n, sizeof(*out->items));
    if (out->items == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = DC_OK;
    for (int i = 0; i < n && rc == DC_OK; i++) {
        char at[600];
        snprintf(at, sizeof(at), "%s/parameters/%d", ptr, i);
        const cJSON *p = cJSON_GetArrayItem(params, i);
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(p, "$ref");
        if (cJSON_IsString(ref)) {
            if (ref->valuestring[0] != '#' || strlen(ref->valuestring) >= sizeof(at)) {
                rc = dc_error_set(err, DC_EPARSE, at, "only local parameter $refs are supported");
                break;
            }
            snprintf(at, sizeof(at), "%s", ref->valuestring);
            p = api_json_pointer_get(c->root, at);
        }
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(p, "in");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (!cJSON_IsString(in) || !cJSON_IsString(name)) {
            rc = dc_error_set(err, DC_EPARSE, at, "a parameter needs `in` and `name`");
            break;
        }
        if (strcmp(in->valuestring, "query") != 0)
            continue;
        struct api_query_param *q = &out->items[out->count];
        q->name = strdup(name->valuestring);
        q->required = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "required"));
        out->count++;
        if (q->name == NULL) {
            rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
            break;
        }
        char entry[620];
        snprintf(entry, sizeof(entry), "%s/schema", at);
        rc = api_schema_compile(c->root, entry, &q->schema, err);
    }
    if (rc != DC_OK)
        api_query_params_cleanup(out);
    return rc;
}
