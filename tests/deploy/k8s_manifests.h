/* tests/deploy/k8s_manifests.h -- what the Kubernetes manifest tests share:
 * problems collected as lines, a file or a command's help read whole, a
 * manifest read with the project's YAML loader,
 * dotted-path access into the parsed document, and the settings a command's
 * --help lists. Header-only (static inline), included by test_k8s_consistency.c
 * (the Deployment and its companions) and test_k8s_agent.c (the node agent's
 * DaemonSet). */
#ifndef AA_TEST_K8S_MANIFESTS_H
#define AA_TEST_K8S_MANIFESTS_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/yaml.h"

#define MAX_PROBLEMS 64

/* ---- problems ------------------------------------------------------------------- */

struct problems {
    size_t n;
    char msg[MAX_PROBLEMS][512];
};

static inline void problem(struct problems *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void problem(struct problems *p, const char *fmt, ...)
{
    if (p->n >= MAX_PROBLEMS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg[p->n++], sizeof(p->msg[0]), fmt, ap);
    va_end(ap);
}

static inline bool has_problem(const struct problems *p, const char *needle)
{
    for (size_t i = 0; i < p->n; i++) {
        if (strstr(p->msg[i], needle) != NULL)
            return true;
    }
    return false;
}

static inline void print_problems(const struct problems *p)
{
    for (size_t i = 0; i < p->n; i++)
        fprintf(stderr, "  problem: %s\n", p->msg[i]);
}

/* ---- inputs --------------------------------------------------------------------- */

/* All of `fp` (NUL-terminated, owned), *len its bytes (may be NULL); NULL when
 * out of memory. The stream is left open. */
static inline char *read_stream(FILE *fp, size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n < cap)
            continue;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (nb == NULL)
            free(buf);
        buf = nb;
    }
    if (buf != NULL) {
        buf[n] = '\0';
        if (len != NULL)
            *len = n;
    }
    return buf;
}

static inline char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    char *buf = read_stream(fp, len);
    fclose(fp);
    return buf;
}

/* What `BINARY COMMAND --help` prints (owned), or NULL when it fails. */
static inline char *command_help(const char *binary, const char *command)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "'%s' %s --help", binary, command);
    FILE *fp = popen(cmd, "r");
    if (fp == NULL)
        return NULL;
    char *buf = read_stream(fp, NULL);
    if (pclose(fp) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static inline cJSON *parse_yaml_file(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (text == NULL) {
        fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    cJSON *root = NULL;
    if (dc_yaml_parse(text, len, path, &doc, &err) != DC_OK)
        fprintf(stderr, "%s: %s\n", err.where[0] != '\0' ? err.where : path, err.msg);
    else
        root = dc_yaml_take_root(doc);
    dc_yaml_doc_free(doc);
    free(text);
    return root;
}

/* The node at a dotted path ("spec.template.spec"); NULL when absent. */
static inline cJSON *at(const cJSON *o, const char *path)
{
    char key[128];
    const cJSON *cur = o;
    while (cur != NULL && *path != '\0') {
        const char *dot = strchr(path, '.');
        size_t l = dot != NULL ? (size_t)(dot - path) : strlen(path);
        if (l >= sizeof(key))
            return NULL;
        memcpy(key, path, l);
        key[l] = '\0';
        cur = cJSON_GetObjectItemCaseSensitive(cur, key);
        path += l + (dot != NULL ? 1 : 0);
    }
    return (cJSON *)(uintptr_t)cur;
}

static inline const char *str_at(const cJSON *o, const char *path)
{
    const cJSON *n = at(o, path);
    return cJSON_IsString(n) ? n->valuestring : NULL;
}

static inline bool num_at(const cJSON *o, const char *path, double *out)
{
    const cJSON *n = at(o, path);
    if (!cJSON_IsNumber(n))
        return false;
    *out = n->valuedouble;
    return true;
}

static inline bool true_at(const cJSON *o, const char *path)
{
    return cJSON_IsTrue(at(o, path));
}

static inline bool false_at(const cJSON *o, const char *path)
{
    return cJSON_IsFalse(at(o, path));
}

/* ---- the commands' settings, from their --help ---------------------------------- */

enum flag_kind { FLAG_UNKNOWN, FLAG_VALUE, FLAG_BOOL };

/* How `--name` appears in the help: "  --name META" (takes a value) or
 * "  --name[=BOOL]" (a boolean). */
static inline enum flag_kind help_flag(const char *help, const char *name)
{
    char pat[160];
    snprintf(pat, sizeof(pat), "\n  --%s ", name);
    if (strstr(help, pat) != NULL)
        return FLAG_VALUE;
    snprintf(pat, sizeof(pat), "\n  --%s[=", name);
    if (strstr(help, pat) != NULL)
        return FLAG_BOOL;
    return FLAG_UNKNOWN;
}

static inline bool help_env(const char *help, const char *name)
{
    char pat[200];
    snprintf(pat, sizeof(pat), "env %s,", name);
    if (strstr(help, pat) != NULL)
        return true;
    snprintf(pat, sizeof(pat), "(env %s)", name);
    return strstr(help, pat) != NULL;
}

#endif
