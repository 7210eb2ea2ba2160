/* service/src/auth.c -- API keys by SHA-256 digest, compared in constant time. */
#include "auth.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "rulesrc.h"

#define DIGEST_LEN 32

struct svc_auth {
    atomic_uint refs; /* the server and each request checking with it */
    size_t n;
    unsigned char (*digests)[DIGEST_LEN];
};

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* 64 lowercase hex characters to 32 bytes; false when malformed. */
static bool parse_digest(const char *s, size_t len, unsigned char out[DIGEST_LEN])
{
    if (len != 2 * DIGEST_LEN)
        return false;
    for (size_t i = 0; i < DIGEST_LEN; i++) {
        int hi = hexval(s[2 * i]);
        int lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    return true;
}

static svc_auth *auth_new(size_t cap)
{
    svc_auth *a = calloc(1, sizeof(*a));
    if (a != NULL)
        atomic_init(&a->refs, 1);
    if (a == NULL)
        return NULL;
    a->digests = calloc(cap > 0 ? cap : 1, DIGEST_LEN);
    if (a->digests == NULL) {
        free(a);
        return NULL;
    }
    return a;
}

enum dc_status svc_auth_from_digests(const char *const *hex, size_t n, svc_auth **out,
                                     struct dc_error *err)
{
    *out = NULL;
    if (n == 0 || n > SVC_AUTH_MAX_KEYS)
        return dc_error_set(err, DC_EINVAL, NULL, "between 1 and %d digests are needed",
                            SVC_AUTH_MAX_KEYS);
    svc_auth *a = auth_new(n);
    if (a == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!parse_digest(hex[i], strlen(hex[i]), a->digests[i])) {
            svc_auth_release(a);
            return dc_error_set(err, DC_EINVAL, NULL,
                                "digest %zu is not 64 lowercase hex characters", i + 1);
        }
    }
    a->n = n;
    *out = a;
    return DC_OK;
}

/* One line of a keys file (NUL-terminated, its newline removed): a digest
 * appended to `a`, or nothing for a blank line or a comment. Errors:
 * DC_ELIMIT, DC_EPARSE. */
static enum dc_status key_line(svc_auth *a, char *line, const char *path, unsigned lineno,
                               struct dc_error *err)
{
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *e = '\0';
    if (*s == '\0' || *s == '#')
        return DC_OK;
    /* Accept `sha256sum` output too: "DIGEST  -" or "DIGEST  file". */
    char *sp = strpbrk(s, " \t");
    if (sp != NULL)
        *sp = '\0';
    if (a->n == SVC_AUTH_MAX_KEYS)
        return dc_error_set(err, DC_ELIMIT, NULL, "%s:%u: more than %d digests", path, lineno,
                            SVC_AUTH_MAX_KEYS);
    if (!parse_digest(s, strlen(s), a->digests[a->n]))
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s:%u: not a SHA-256 digest (64 lowercase hex characters expected)",
                            path, lineno);
    a->n++;
    return DC_OK;
}

enum dc_status svc_auth_load(const char *path, svc_auth **out, struct dc_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    /* A regular file under the limit only: a FIFO or /dev/zero named here must
     * not block the signal thread that reloads it on SIGHUP. */
    enum dc_status rc = svc_read_regular_file(path, SVC_AUTH_MAX_FILE_BYTES, &text, &len, err);
    if (rc != DC_OK)
        return rc;
    svc_auth *a = auth_new(SVC_AUTH_MAX_KEYS);
    if (a == NULL)
        rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    else if (memchr(text, '\0', len) != NULL)
        rc = dc_error_set(err, DC_EPARSE, NULL, "%s: has a NUL byte (not a text file)", path);
    unsigned lineno = 0;
    for (char *line = text; rc == DC_OK && line < text + len; lineno++) {
        char *nl = strchr(line, '\n');
        char *next = nl != NULL ? nl + 1 : text + len;
        if (nl != NULL)
            *nl = '\0';
        if ((size_t)(next - line) > SVC_AUTH_MAX_LINE) {
            rc = dc_error_set(err, DC_ELIMIT, NULL, "%s:%u: line too long", path, lineno + 1);
            break;
        }
        rc = key_line(a, line, path, lineno + 1, err);
        line = next;
    }
    free(text);
    if (rc == DC_OK && a->n == 0)
        rc = dc_error_set(err, DC_EPARSE, NULL,
                          "%s: no digest in the file (it would refuse every request)", path);
    if (rc != DC_OK) {
        svc_auth_release(a);
        return rc;
    }
    *out = a;
    return DC_OK;
}

bool svc_auth_check(const svc_auth *a, const char *authorization)
{
    if (a == NULL || authorization == NULL)
        return false;
    const char *p = authorization;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
        return false;
    p += 6;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strlen(p);
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 0 || len > SVC_AUTH_MAX_TOKEN)
        return false;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_Digest(p, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != DIGEST_LEN)
        return false;
    /* Every digest is compared, whatever matched before, and the results OR-ed:
     * the time taken depends only on how many digests there are. */
    int match = 0;
    for (size_t i = 0; i < a->n; i++)
        match |= CRYPTO_memcmp(md, a->digests[i], DIGEST_LEN) == 0;
    return match != 0;
}

size_t svc_auth_count(const svc_auth *a)
{
    return a != NULL ? a->n : 0;
}

svc_auth *svc_auth_retain(svc_auth *a)
{
    if (a != NULL)
        atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
    return a;
}

void svc_auth_release(svc_auth *a)
{
    if (a == NULL || atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(a->digests);
    free(a);
}
