/* service/src/playground.c -- the playground page and its assets, from the
 * embedded file table (playground.h). */
#include "playground.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#define WEB_PREFIX      "web/"
#define EXAMPLES_PREFIX "examples/"
#define EXAMPLES_PATH   SVC_ASSET_PREFIX "examples.json"
#define INDEX_NAME      "index.html"
#define PATH_MAX_LEN    128

struct entry {
    struct svc_asset asset;
    char path[PATH_MAX_LEN];
};

struct svc_playground {
    struct entry *entries;
    size_t count;
    char *examples; /* the examples document (cJSON's allocator) */
};

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Content types by extension; text is UTF-8 throughout the tree. */
static const char *content_type(const char *name)
{
    static const struct {
        const char *ext;
        const char *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},   {".svg", "image/svg+xml"},
        {".json", "application/json"},
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (has_suffix(name, types[i].ext))
            return types[i].type;
    }
    return "application/octet-stream";
}

/* A strong ETag of the bytes: the tag of their SHA-256. */
static bool make_etag(const char *data, size_t len, char out[SVC_ETAG_SIZE])
{
    char digest[65];
    const char *part = digest;
    return svc_etag_digest(data, len, digest) == DC_OK && svc_etag_make(&part, 1, out) == DC_OK;
}

static bool add(svc_playground *p, const char *path, const char *type, const char *data, size_t len)
{
    struct entry *e = &p->entries[p->count];
    if (strlen(path) >= sizeof(e->path))
        return true; /* a name no URL of ours could ask for: left out */
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->asset = (struct svc_asset){e->path, type, data, len, {0}};
    if (!make_etag(data, len, e->asset.etag))
        return false;
    p->count++;
    return true;
}

/* {"examples": [{"name": NAME, "workload": {...}}, ...]}: every examples/NAME.json
 * of the table that is a JSON object, in table order. */
static char *examples_document(const struct aa_embedded_file *files)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(doc, "examples");
    bool ok = list != NULL;
    for (const struct aa_embedded_file *f = files; ok && f->name != NULL; f++) {
        if (!has_prefix(f->name, EXAMPLES_PREFIX) || !has_suffix(f->name, ".json"))
            continue;
        cJSON *w = cJSON_ParseWithLength(f->data, f->len);
        if (!cJSON_IsObject(w)) {
            cJSON_Delete(w);
            continue;
        }
        char name[PATH_MAX_LEN];
        const char *base = f->name + strlen(EXAMPLES_PREFIX);
        snprintf(name, sizeof(name), "%.*s", (int)(strlen(base) - strlen(".json")), base);
        cJSON *item = cJSON_CreateObject();
        if (item == NULL || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            cJSON_Delete(w);
            ok = false;
            break;
        }
        ok = cJSON_AddStringToObject(item, "name", name) != NULL;
        if (!ok || !cJSON_AddItemToObject(item, "workload", w)) {
            cJSON_Delete(w); /* not attached */
            ok = false;
        }
    }
    char *text = ok ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    return text;
}

svc_playground *svc_playground_new(const struct aa_embedded_file *files)
{
    svc_playground *p = calloc(1, sizeof(*p));
    size_t n = 1; /* the examples document */
    for (const struct aa_embedded_file *f = files; f != NULL && f->name != NULL; f++)
        n += has_prefix(f->name, WEB_PREFIX);
    if (p == NULL || (p->entries = calloc(n, sizeof(*p->entries))) == NULL) {
        free(p);
        return NULL;
    }
    if (n == 1)
        return p; /* no page built in: nothing to serve, examples included */
    bool ok = (p->examples = examples_document(files)) != NULL &&
              add(p, EXAMPLES_PATH, "application/json", p->examples, strlen(p->examples));
    for (const struct aa_embedded_file *f = files; ok && f->name != NULL; f++) {
        if (!has_prefix(f->name, WEB_PREFIX))
            continue;
        const char *name = f->name + strlen(WEB_PREFIX);
        char path[PATH_MAX_LEN + 8];
        if (strcmp(name, INDEX_NAME) == 0)
            snprintf(path, sizeof(path), "/");
        else
            snprintf(path, sizeof(path), "%s%s", SVC_ASSET_PREFIX, name);
        ok = add(p, path, content_type(name), f->data, f->len);
    }
    if (!ok) {
        svc_playground_free(p);
        return NULL;
    }
    return p;
}

void svc_playground_free(svc_playground *p)
{
    if (p == NULL)
        return;
    cJSON_free(p->examples);
    free(p->entries);
    free(p);
}

const struct svc_asset *svc_playground_find(const svc_playground *p, const char *path)
{
    if (p == NULL || path == NULL)
        return NULL;
    for (size_t i = 0; i < p->count; i++) {
        if (strcmp(p->entries[i].path, path) == 0)
            return &p->entries[i].asset;
    }
    return NULL;
}
