/* api/src/schema_uri.c -- URI-reference resolution (RFC 3986, section 5.2) for
 * $id, $anchor and $ref, and percent-decoding of JSON Pointer fragments.
 *
 * Only the syntax matters here: nothing is ever fetched. Resolution lets a
 * schema document that names its parts with $id refer to them by URI; any
 * URI that does not name a part of the document is reported by the caller as
 * an unresolvable (remote) reference. */
#include "schema_internal.h"

#include <stdlib.h>
#include <string.h>

/* A URI reference split into its five components; `has_*` distinguishes an
 * empty component from an absent one, which RFC 3986 treats differently. */
struct uri_parts {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_len, auth_len, path_len, query_len, frag_len;
    bool has_scheme, has_auth, has_query, has_frag;
};

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void uri_split(const char *s, struct uri_parts *u)
{
    memset(u, 0, sizeof(*u));
    const char *p = s;
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
    if (is_alpha(*p)) {
        const char *q = p + 1;
        while (is_alpha(*q) || (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.')
            q++;
        if (*q == ':') {
            u->has_scheme = true;
            u->scheme = p;
            u->scheme_len = (size_t)(q - p);
            p = q + 1;
        }
    }
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        u->has_auth = true;
        u->auth = p;
        while (*p != '\0' && *p != '/' && *p != '?' && *p != '#')
            p++;
        u->auth_len = (size_t)(p - u->auth);
    }
    u->path = p;
    while (*p != '\0' && *p != '?' && *p != '#')
        p++;
    u->path_len = (size_t)(p - u->path);
    if (*p == '?') {
        u->has_query = true;
        u->query = ++p;
        while (*p != '\0' && *p != '#')
            p++;
        u->query_len = (size_t)(p - u->query);
    }
    if (*p == '#') {
        u->has_frag = true;
        u->frag = p + 1;
        u->frag_len = strlen(u->frag);
    }
}

/* RFC 3986 5.2.4, in place on the NUL-terminated `path`. */
static void remove_dot_segments(char *path)
{
    char *in = path;
    char *out = path;
    while (*in != '\0') {
        if (strncmp(in, "../", 3) == 0) {
            in += 3;
        } else if (strncmp(in, "./", 2) == 0) {
            in += 2;
        } else if (strncmp(in, "/./", 3) == 0) {
            in += 2;
        } else if (strcmp(in, "/.") == 0) {
            in[1] = '\0';
        } else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
            /* Replace the prefix with "/" and drop the last output segment. */
            if (in[3] == '\0') {
                in += 2;
                *in = '/';
            } else {
                in += 3;
            }
            while (out > path && *--out != '/')
                ;
        } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
            in += strlen(in);
        } else {
            /* Move the first segment, with its leading "/" if any. */
            if (*in == '/')
                *out++ = *in++;
            while (*in != '\0' && *in != '/')
                *out++ = *in++;
        }
    }
    *out = '\0';
}

static char *append(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}

enum dc_status api__sch_uri_resolve(const char *base, const char *ref, char **out)
{
    struct uri_parts b;
    struct uri_parts r;
    char *res = NULL;
    char *path = NULL;
    enum dc_status rc = DC_ENOMEM;

    *out = NULL;
    uri_split(base != NULL ? base : "", &b);
    uri_split(ref != NULL ? ref : "", &r);

    /* The target path is built first (it may merge base and reference). */
    size_t cap = b.path_len + r.path_len + 2;
    path = SCH_MALLOC(cap);
    if (path == NULL)
        goto out;
    const struct uri_parts *sa = &b; /* where the scheme comes from */
    const struct uri_parts *aa = &b; /* where the authority comes from */
    const struct uri_parts *qa = &r; /* where the query comes from */
    if (r.has_scheme) {
        sa = &r;
        aa = &r;
        memcpy(path, r.path, r.path_len);
        path[r.path_len] = '\0';
        remove_dot_segments(path);
    } else if (r.has_auth) {
        memcpy(path, r.path, r.path_len);
        path[r.path_len] = '\0';
        remove_dot_segments(path);
    } else if (r.path_len == 0) {
        memcpy(path, b.path, b.path_len);
        path[b.path_len] = '\0';
        if (!r.has_query)
            qa = &b;
    } else if (r.path[0] == '/') {
        memcpy(path, r.path, r.path_len);
        path[r.path_len] = '\0';
        remove_dot_segments(path);
    } else {
        /* Merge (5.2.3): the base path up to its last '/', then the reference. */
        size_t keep = 0;
        if (b.has_auth && b.path_len == 0) {
            path[0] = '/';
            keep = 1;
        } else {
            for (size_t i = b.path_len; i > 0; i--) {
                if (b.path[i - 1] == '/') {
                    keep = i;
                    break;
                }
            }
            memcpy(path, b.path, keep);
        }
        memcpy(path + keep, r.path, r.path_len);
        path[keep + r.path_len] = '\0';
        remove_dot_segments(path);
    }
    if (r.has_auth)
        aa = &r;

    size_t plen = strlen(path);
    size_t total =
        sa->scheme_len + 1 + aa->auth_len + 2 + plen + qa->query_len + 1 + r.frag_len + 1 + 1;
    res = SCH_MALLOC(total);
    if (res == NULL)
        goto out;
    char *w = res;
    if (sa->has_scheme) {
        w = append(w, sa->scheme, sa->scheme_len);
        *w++ = ':';
    }
    if (aa->has_auth) {
        *w++ = '/';
        *w++ = '/';
        w = append(w, aa->auth, aa->auth_len);
    }
    w = append(w, path, plen);
    if (qa->has_query) {
        *w++ = '?';
        w = append(w, qa->query, qa->query_len);
    }
    if (r.has_frag && r.frag_len > 0) {
        *w++ = '#';
        w = append(w, r.frag, r.frag_len);
    }
    *w = '\0';
    *out = res;
    res = NULL;
    rc = DC_OK;
out:
    free(path);
    free(res);
    return rc;
}

enum dc_status api__sch_percent_decode(const char *s, char **out)
{
    size_t len = strlen(s);
    char *res = SCH_MALLOC(len + 1);
    *out = NULL;
    if (res == NULL)
        return DC_ENOMEM;
    char *w = res;
    for (size_t i = 0; i < len; i++) {
        int hi = i + 2 < len ? dc_hex_digit((unsigned char)s[i + 1]) : -1;
        int lo = i + 2 < len ? dc_hex_digit((unsigned char)s[i + 2]) : -1;
        if (s[i] == '%' && hi >= 0 && lo >= 0) {
            *w++ = (char)(hi * 16 + lo);
            i += 2;
        } else {
            *w++ = s[i];
        }
    }
    *w = '\0';
    *out = res;
    return DC_OK;
}
