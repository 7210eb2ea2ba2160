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

int svc_auth_from_digests(const char *const *hex, size_t n, svc_auth **out, char *why,
                          size_t whylen)
{
    *out = NULL;
    if (n == 0 || n > SVC_AUTH_MAX_KEYS) {
        snprintf(why, whylen, "between 1 and %d digests are needed", SVC_AUTH_MAX_KEYS);
        return -1;
    }
    svc_auth *a = auth_new(n);
    if (a == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!parse_digest(hex[i], strlen(hex[i]), a->digests[i])) {
            snprintf(why, whylen, "digest %zu is not 64 lowercase hex characters", i + 1);
            svc_auth_release(a);
            return -1;
        }
    }
    a->n = n;
    *out = a;
    return 0;
}

int svc_auth_load(const char *path, svc_auth **out, char *why, size_t whylen)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    svc_auth *a = auth_new(SVC_AUTH_MAX_KEYS);
    if (a == NULL) {
        fclose(fp);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char line[512];
    unsigned lineno = 0;
    size_t total = 0;
    int rc = 0;
    while (fgets(line, sizeof(line), fp) != NULL) {
        lineno++;
        size_t len = strlen(line);
        total += len;
        if (total > SVC_AUTH_MAX_FILE_BYTES) {
            snprintf(why, whylen, "%s: larger than %d bytes", path, SVC_AUTH_MAX_FILE_BYTES);
            rc = -1;
            break;
        }
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            snprintf(why, whylen, "%s:%u: line too long", path, lineno);
            rc = -1;
            break;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = '\0';
        if (*s == '\0' || *s == '#')
            continue;
        /* Accept `sha256sum` output too: "DIGEST  -" or "DIGEST  file". */
        char *sp = strpbrk(s, " \t");
        if (sp != NULL)
            *sp = '\0';
        if (a->n == SVC_AUTH_MAX_KEYS) {
            snprintf(why, whylen, "%s:%u: more than %d digests", path, lineno,
                     SVC_AUTH_MAX_KEYS);
            rc = -1;
            break;
        }
        if (!parse_digest(s, strlen(s), a->digests[a->n])) {
            snprintf(why, whylen,
                     "%s:%u: not a SHA-256 digest (64 lowercase hex characters expected)", path,
                     lineno);
            rc = -1;
            break;
        }
        a->n++;
    }
    if (rc == 0 && ferror(fp)) {
        snprintf(why, whylen, "%s: read error", path);
        rc = -1;
    }
    fclose(fp);
    if (rc == 0 && a->n == 0) {
        snprintf(why, whylen, "%s: no digest in the file (it would refuse every request)", path);
        rc = -1;
    }
    if (rc != 0) {
        svc_auth_release(a);
        return rc;
    }
    *out = a;
    return 0;
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
