/* service/src/etag.c -- ETags from SHA-256 (OpenSSL EVP) and If-None-Match matching. */
#include "etag.h"

#include <string.h>

#include <openssl/evp.h>

static void hex(const unsigned char *raw, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 15];
    }
    out[2 * n] = '\0';
}

enum dc_status svc_etag_make(const char *const *parts, size_t n, char out[SVC_ETAG_SIZE])
{
    /* Each part is framed, so ("ab", "c") and ("a", "bc") differ and NULL
     * differs from "": a present part is 0x01, its bytes and a NUL; an absent
     * one is a single 0x00. */
    static const unsigned char absent = 0, present = 1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < n; i++) {
        if (parts[i] == NULL)
            ok = EVP_DigestUpdate(ctx, &absent, 1) == 1;
        else
            ok = EVP_DigestUpdate(ctx, &present, 1) == 1 &&
                 EVP_DigestUpdate(ctx, parts[i], strlen(parts[i]) + 1) == 1;
    }
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen >= 16;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        out[0] = '\0';
        return DC_ENOMEM;
    }
    out[0] = '"';
    hex(md, 16, out + 1);
    out[33] = '"';
    out[34] = '\0';
    return DC_OK;
}

enum dc_status svc_etag_digest(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32) {
        out[0] = '\0';
        return DC_ENOMEM;
    }
    hex(md, 32, out);
    return DC_OK;
}

static const char *skip_ows(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* etagc (RFC 9110): %x21 / %x23-7E / obs-text. */
static bool etagc(unsigned char c)
{
    return c == 0x21 || (c >= 0x23 && c != 0x7f);
}

/* Read one entity-tag at *p: its opaque-tag (quotes included) in [*tag, *tag +
 * *len). Returns false when *p is not an entity-tag. */
static bool entity_tag(const char **p, const char **tag, size_t *len)
{
    const char *s = *p;
    if (s[0] == 'W' && s[1] == '/')
        s += 2;
    if (*s != '"')
        return false;
    const char *start = s++;
    while (etagc((unsigned char)*s))
        s++;
    if (*s != '"')
        return false;
    s++;
    *tag = start;
    *len = (size_t)(s - start);
    *p = s;
    return true;
}

bool svc_etag_none_match(const char *field, const char *etag)
{
    if (field == NULL || etag == NULL || etag[0] == '\0' ||
        strnlen(field, SVC_ETAG_FIELD_MAX + 1) > SVC_ETAG_FIELD_MAX)
        return false;
    const char *p = skip_ows(field);
    if (*p == '*')
        return *skip_ows(p + 1) == '\0';
    /* The weak comparison: opaque-tags equal, W/ ignored on both sides. */
    const char *want = etag[0] == 'W' ? etag + 2 : etag;
    size_t want_len = strlen(want);
    bool matched = false;
    bool any = false;
    for (;;) {
        p = skip_ows(p);
        if (*p == ',') {
            p++; /* an empty list element */
            continue;
        }
        if (*p == '\0')
            break;
        const char *tag = NULL;
        size_t len = 0;
        if (!entity_tag(&p, &tag, &len))
            return false;
        any = true;
        matched = matched || (len == want_len && memcmp(tag, want, len) == 0);
        p = skip_ows(p);
        if (*p != ',' && *p != '\0')
            return false;
    }
    return any && matched;
}
