/* probe/src/probe_host.c -- the host itself: CPU model and logical cores from
 * <proc_root>/cpuinfo, memory from <proc_root>/meminfo. */
#include "probe_internal.h"

#include <stdlib.h>
#include <string.h>

/* Longest CPU model name kept. */
#define HOST_MODEL_MAX 256

struct line {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
};

static bool split_line(const char *p, size_t len, struct line *out);
static bool next_line(const char **cur, const char *end, const char **line, size_t *len);
static bool read_proc_text(struct probe_ctx *ctx, const char *name, char **text, size_t *len,
                           bool *truncated, int *errno_out, char *path, size_t path_cap);
static void parse_cpuinfo(struct probe_ctx *ctx, const char *path, const char *text, size_t len,
                          bool truncated);
static void parse_meminfo(struct probe_ctx *ctx, const char *path, const char *text, size_t len,
                          bool truncated);

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* "key<blanks>:<blanks>value<blanks>" into trimmed key and value. */
static bool split_line(const char *p, size_t len, struct line *out)
{
    const char *colon = memchr(p, ':', len);
    if (colon == NULL)
        return false;
    size_t klen = (size_t)(colon - p);
    while (klen > 0 && is_blank(p[klen - 1]))
        klen--;
    const char *v = colon + 1;
    size_t vlen = len - (size_t)(v - p);
    while (vlen > 0 && is_blank(*v)) {
        v++;
        vlen--;
    }
    while (vlen > 0 && is_blank(v[vlen - 1]))
        vlen--;
    out->key = p;
    out->key_len = klen;
    out->value = v;
    out->value_len = vlen;
    return true;
}

/* The next complete line (its newline excluded). A last line without a
 * newline is returned too; callers that read a truncated file drop it. */
static bool next_line(const char **cur, const char *end, const char **line, size_t *len)
{
    if (*cur >= end)
        return false;
    const char *nl = memchr(*cur, '\n', (size_t)(end - *cur));
    *line = *cur;
    if (nl == NULL) {
        *len = (size_t)(end - *cur);
        *cur = end;
    } else {
        *len = (size_t)(nl - *cur);
        *cur = nl + 1;
    }
    return true;
}

static bool key_is(const struct line *l, const char *key)
{
    size_t n = strlen(key);
    return l->key_len == n && memcmp(l->key, key, n) == 0;
}

static bool read_proc_text(struct probe_ctx *ctx, const char *name, char **text, size_t *len,
                           bool *truncated, int *errno_out, char *path, size_t path_cap)
{
    *text = NULL;
    if (!probe__path_join(path, path_cap, ctx->proc_root, name)) {
        probe__warn(ctx, "%s/%s: path too long", ctx->proc_root, name);
        return false;
    }
    enum dc_status rc =
        probe__read_text(path, PROBE_TEXT_FILE_MAX, text, len, truncated, errno_out);
    if (rc == DC_ENOMEM) {
        ctx->oom = true;
        return false;
    }
    if (rc != DC_OK) {
        char eb[PROBE_ERRBUF];
        probe__warn(ctx, "%s: unreadable: %s", path,
                    rc == DC_ENOTFOUND ? "missing" : probe__strerror(*errno_out, eb, sizeof(eb)));
        return false;
    }
    if (*truncated)
        probe__warn(ctx, "%s: longer than %u bytes: the rest is ignored", path,
                    (unsigned)PROBE_TEXT_FILE_MAX);
    return true;
}

static void parse_cpuinfo(struct probe_ctx *ctx, const char *path, const char *text, size_t len,
                          bool truncated)
{
    const char *cur = text;
    const char *end = text + len;
    const char *line;
    size_t llen;
    unsigned processors = 0;
    bool have_model = false;
    while (next_line(&cur, end, &line, &llen)) {
        if (cur == end && (len == 0 || text[len - 1] != '\n') && truncated)
            break; /* the cut-off last line */
        struct line l;
        if (!split_line(line, llen, &l))
            continue;
        if (key_is(&l, "processor")) {
            if (processors < UINT32_MAX)
                processors++;
        } else if (!have_model && key_is(&l, "model name") && l.value_len > 0) {
            size_t n = l.value_len < HOST_MODEL_MAX ? l.value_len : HOST_MODEL_MAX;
            char *m = malloc(n + 1);
            if (m == NULL) {
                ctx->oom = true;
                return;
            }
            memcpy(m, l.value, n);
            m[n] = '\0';
            /* A NUL inside the file would end the name early; that is fine. */
            ctx->snap->host.cpu_model = m;
            have_model = true;
        }
    }
    if (!have_model)
        probe__warn(ctx, "%s: no \"model name\": CPU model unknown", path);
    if (truncated)
        processors = 0; /* the count would be short */
    else if (processors == 0)
        probe__warn(ctx, "%s: no \"processor\" entries: logical cores unknown", path);
    ctx->snap->host.logical_cores = processors;
}

static void parse_meminfo(struct probe_ctx *ctx, const char *path, const char *text, size_t len,
                          bool truncated)
{
    const char *cur = text;
    const char *end = text + len;
    const char *line;
    size_t llen;
    (void)truncated;
    while (next_line(&cur, end, &line, &llen)) {
        struct line l;
        if (!split_line(line, llen, &l) || !key_is(&l, "MemTotal"))
            continue;
        if (cur == end && text[len - 1] != '\n') {
            probe__warn(ctx, "%s: MemTotal: no trailing newline (truncated)", path);
            return;
        }
        /* "<digits> kB", kB being KiB as the kernel prints it. */
        size_t digits = 0;
        while (digits < l.value_len && l.value[digits] >= '0' && l.value[digits] <= '9')
            digits++;
        uint64_t kib = 0;
        if (digits == 0 || l.value_len != digits + 3 || memcmp(l.value + digits, " kB", 3) != 0 ||
            !probe__parse_uint(l.value, digits, &kib)) {
            probe__warn(ctx, "%s: MemTotal: not \"<number> kB\"", path);
            return;
        }
        if (kib > UINT64_MAX / 1024) {
            probe__warn(ctx, "%s: MemTotal: out of range", path);
            return;
        }
        ctx->snap->host.memory_total_bytes = kib * 1024;
        return;
    }
    probe__warn(ctx, "%s: no MemTotal: host memory unknown", path);
}

/* ---- library-wide functions below ---- */

void probe__host_collect(struct probe_ctx *ctx)
{
    char path[PROBE_PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    bool truncated = false;
    int e_cpu = 0, e_mem = 0;
    bool cpu = false, mem = false;

    if (read_proc_text(ctx, "cpuinfo", &text, &len, &truncated, &e_cpu, path, sizeof(path))) {
        parse_cpuinfo(ctx, path, text, len, truncated);
        cpu = true;
    }
    free(text);
    text = NULL;
    if (read_proc_text(ctx, "meminfo", &text, &len, &truncated, &e_mem, path, sizeof(path))) {
        parse_meminfo(ctx, path, text, len, truncated);
        mem = true;
    }
    free(text);
    if (!cpu && !mem)
        probe__source_set(ctx, PROBE_SOURCE_HOST, PROBE_SOURCE_ERROR, e_mem != 0 ? e_mem : e_cpu,
                          "%s: neither cpuinfo nor meminfo could be read", ctx->proc_root);
    else
        probe__source_set(ctx, PROBE_SOURCE_HOST, PROBE_SOURCE_OK, 0, NULL);
}
