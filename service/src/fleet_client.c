/* service/src/fleet_client.c -- one instant query to Prometheus's HTTP API with
 * libcurl (https://curl.se/libcurl/c/), within the fleet's limits: the whole
 * transfer within fleet_timeout, the body within fleet_max_response_bytes
 * (counted after decompression, so a compressed bomb stops there too), http and
 * https only, no redirects, the bearer token read from its file at every query
 * (a rotated token is used) and never written anywhere else.
 * Owner: the fleet availability work (issue 19). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <curl/curl.h>

#include "fleet.h"
#include "rulesrc.h"

struct svc_fleet_client {
    CURL *curl;
    char *url;
    char *token_file;
    char *ca_file;
    unsigned timeout_ms;
    size_t max_bytes;
};

/* The body as it arrives, and why the transfer was cut short. */
struct sink {
    char *buf;
    size_t len, cap, max;
    bool too_large;
    const atomic_bool *stop;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct sink *k = userdata;
    size_t n = size * nmemb;
    if (n > k->max - k->len) {
        k->too_large = true;
        return 0; /* libcurl stops with CURLE_WRITE_ERROR */
    }
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap > 0 ? k->cap : 65536;
        while (cap < k->len + n + 1)
            cap *= 2;
        if (cap > k->max + 1)
            cap = k->max + 1;
        char *b = realloc(k->buf, cap);
        if (b == NULL)
            return 0;
        k->buf = b;
        k->cap = cap;
    }
    memcpy(k->buf + k->len, data, n);
    k->len += n;
    k->buf[k->len] = '\0';
    return n;
}

/* Called by libcurl about once a second and whenever data moves: a stopping
 * service abandons the query. */
static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    const struct sink *k = userdata;
    return k->stop != NULL && atomic_load(k->stop) ? 1 : 0;
}

/* The token of the bearer-token file into buf: its content without surrounding
 * white space, at most SVC_FLEET_TOKEN_MAX bytes of visible ASCII (what an HTTP
 * header may carry). A regular file only: a FIFO or a device (/dev/zero) is
 * refused before it is read, so a refresh never blocks on one. On failure why
 * says what, never the content. */
static bool read_token(const char *path, char *buf, size_t cap, char *why, size_t whylen)
{
    char *text = NULL;
    size_t len = 0;
    struct dc_error err;
    buf[0] = '\0';
    if (svc_read_regular_file(path, cap - 1, &text, &len, &err) != DC_OK) {
        snprintf(why, whylen, "fleet_bearer_token_file %.300s", err.msg);
        return false;
    }
    const char *s = text;
    size_t n = len;
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    while (s < text + n && isspace((unsigned char)*s))
        s++;
    size_t m = (size_t)(text + n - s);
    memcpy(buf, s, m);
    buf[m] = '\0';
    explicit_bzero(text, len);
    free(text);
    bool visible = m > 0 && strlen(buf) == m;
    for (const char *p = buf; *p != '\0' && visible; p++)
        visible = *p > 0x20 && *p < 0x7f;
    if (!visible) {
        snprintf(why, whylen, "fleet_bearer_token_file %.200s: %s", path,
                 "not a token (empty, or characters a header cannot carry)");
        explicit_bzero(buf, cap);
        return false;
    }
    return true;
}

/* The CA file is read by the TLS library at every query: one that is not a
 * regular file of at most SVC_FLEET_CA_MAX_BYTES (a FIFO would block the
 * refresh) is refused before the query. */
static bool ca_file_ok(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "fleet_ca_file %.200s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > SVC_FLEET_CA_MAX_BYTES) {
        if (S_ISREG(st.st_mode))
            snprintf(why, whylen, "fleet_ca_file %.200s: larger than the limit of %u bytes", path,
                     SVC_FLEET_CA_MAX_BYTES);
        else
            snprintf(why, whylen, "fleet_ca_file %.200s: not a regular file", path);
        return false;
    }
    return true;
}

static enum svc_fleet_error curl_error(CURLcode rc, const struct sink *k, char *why, size_t whylen)
{
    if (k->too_large) {
        snprintf(why, whylen, "the answer is larger than %zu bytes (fleet_max_response_bytes)",
                 k->max);
        return SVC_FLEET_E_TOO_LARGE;
    }
    snprintf(why, whylen, "%s", curl_easy_strerror(rc));
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return SVC_FLEET_E_TIMEOUT;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
        return SVC_FLEET_E_CONNECT;
    case CURLE_FILESIZE_EXCEEDED:
        snprintf(why, whylen, "the answer is larger than %zu bytes (fleet_max_response_bytes)",
                 k->max);
        return SVC_FLEET_E_TOO_LARGE;
    case CURLE_OUT_OF_MEMORY:
        return SVC_FLEET_E_NOMEM;
    default:
        return SVC_FLEET_E_OTHER;
    }
}

/* Set the options of one query; false when libcurl refuses one. */
static bool set_options(svc_fleet_client *c, const char *url, struct curl_slist *headers,
                        struct sink *k)
{
    CURL *h = c->curl;
    curl_easy_reset(h);
    return curl_easy_setopt(h, CURLOPT_URL, url) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->max_bytes) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_WRITEDATA, k) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_XFERINFODATA, k) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L) == CURLE_OK &&
           curl_easy_setopt(h, CURLOPT_USERAGENT, "accel-advisor-fleet") == CURLE_OK &&
           (c->ca_file == NULL || curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file) == CURLE_OK);
}

/* ---- library-wide functions below ---- */

svc_fleet_client *svc_fleet_client_new(const struct svc_fleet_client_config *cfg)
{
    svc_fleet_client *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->curl = curl_easy_init();
    c->url = strdup(cfg->url);
    c->token_file =
        cfg->token_file != NULL && cfg->token_file[0] != '\0' ? strdup(cfg->token_file) : NULL;
    c->ca_file = cfg->ca_file != NULL && cfg->ca_file[0] != '\0' ? strdup(cfg->ca_file) : NULL;
    c->timeout_ms = cfg->timeout_ms;
    c->max_bytes = cfg->max_bytes;
    if (c->curl == NULL || c->url == NULL ||
        (cfg->token_file != NULL && cfg->token_file[0] != '\0' && c->token_file == NULL) ||
        (cfg->ca_file != NULL && cfg->ca_file[0] != '\0' && c->ca_file == NULL)) {
        svc_fleet_client_free(c);
        return NULL;
    }
    return c;
}

void svc_fleet_client_free(svc_fleet_client *c)
{
    if (c == NULL)
        return;
    if (c->curl != NULL)
        curl_easy_cleanup(c->curl);
    free(c->url);
    free(c->token_file);
    free(c->ca_file);
    free(c);
}

enum svc_fleet_error svc_fleet_client_query(svc_fleet_client *c, const char *promql,
                                            const atomic_bool *stop, char **body, size_t *len,
                                            char *why, size_t whylen)
{
    *body = NULL;
    *len = 0;
    if (whylen > 0)
        why[0] = '\0';
    char token[SVC_FLEET_TOKEN_MAX + 1];
    char auth[SVC_FLEET_TOKEN_MAX + 32];
    struct curl_slist *headers = NULL, *h = NULL;
    struct sink k = {.max = c->max_bytes, .stop = stop};
    enum svc_fleet_error rc = SVC_FLEET_OK;
    char *q = curl_easy_escape(c->curl, promql, 0);
    size_t ulen = strlen(c->url) + (q != NULL ? strlen(q) : 0) + 32;
    char *url = q != NULL ? malloc(ulen) : NULL;
    if (url == NULL) {
        snprintf(why, whylen, "out of memory");
        rc = SVC_FLEET_E_NOMEM;
        goto out;
    }
    size_t base = strlen(c->url);
    while (base > 0 && c->url[base - 1] == '/')
        base--;
    snprintf(url, ulen, "%.*s/api/v1/query?query=%s", (int)base, c->url, q);
    h = curl_slist_append(NULL, "Accept: application/json");
    if (h != NULL && c->token_file != NULL) {
        if (!read_token(c->token_file, token, sizeof(token), why, whylen)) {
            rc = SVC_FLEET_E_TOKEN;
            goto out;
        }
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        headers = curl_slist_append(h, auth);
        h = headers != NULL ? NULL : h;
    } else {
        headers = h;
        h = NULL;
    }
    if (c->ca_file != NULL && !ca_file_ok(c->ca_file, why, whylen)) {
        rc = SVC_FLEET_E_CONNECT;
        goto out;
    }
    if (headers == NULL || !set_options(c, url, headers, &k)) {
        snprintf(why, whylen, "libcurl refused the query's options");
        rc = SVC_FLEET_E_OTHER;
        goto out;
    }
    CURLcode cr = curl_easy_perform(c->curl);
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (cr != CURLE_OK) {
        rc = curl_error(cr, &k, why, whylen);
    } else if (status != 200) {
        /* Prometheus explains a refused query in a JSON body: keep its words
         * (any other body, a proxy's page, says nothing worth keeping). */
        char detail[SVC_FLEET_ERROR_TEXT_MAX + 64] = "";
        struct svc_fleet_vector v = {0};
        if (k.buf == NULL ||
            svc_fleet_parse(k.buf, k.len, "", 1, &v, detail, sizeof(detail)) != SVC_FLEET_E_QUERY)
            detail[0] = '\0';
        svc_fleet_vector_free(&v);
        snprintf(why, whylen, "HTTP status %ld%s%s", status, detail[0] != '\0' ? ": " : "", detail);
        rc = SVC_FLEET_E_HTTP;
    } else {
        *body = k.buf != NULL ? k.buf : strdup("");
        *len = k.len;
        k.buf = NULL;
        rc = *body != NULL ? SVC_FLEET_OK : SVC_FLEET_E_NOMEM;
    }
out:
    /* The handle keeps the header list only for the transfer just made. */
    if (c->curl != NULL)
        curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
    for (struct curl_slist *l = headers; l != NULL; l = l->next)
        explicit_bzero(l->data, strlen(l->data)); /* the token's copy */
    curl_slist_free_all(headers);
    curl_slist_free_all(h);
    explicit_bzero(token, sizeof(token));
    explicit_bzero(auth, sizeof(auth));
    curl_free(q);
    free(url);
    free(k.buf);
    svc_fleet_utf8_cut(why);
    return rc;
}
