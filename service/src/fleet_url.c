/* service/src/fleet_url.c -- the fleet's Prometheus URL read as libcurl reads
 * it (curl_url(), https://curl.se/libcurl/c/curl_url.html), checked before the
 * service starts: see svc_fleet_url_check in fleet.h. In aa_service, beside the
 * configuration that calls it.
 * Owner: the fleet availability work (issue 19). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "fleet.h"

/* A part of the URL in `u`: true when libcurl has it (an empty user counts). */
static bool url_has(CURLU *u, CURLUPart part)
{
    char *v = NULL;
    CURLUcode rc = curl_url_get(u, part, &v, 0);
    curl_free(v);
    return rc == CURLUE_OK;
}

bool svc_fleet_url_check(const char *url, char *why, size_t whylen)
{
    for (const char *p = url; *p != '\0'; p++) {
        if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
            snprintf(why, whylen, "the URL must not hold spaces or control characters");
            return false;
        }
    }
    /* libcurl forgives "https:///path" (host "path") and "http:/host": a URL
     * whose host is not where it reads as one is refused, not guessed. */
    const char *sep = strstr(url, "://");
    if (sep == NULL || sep[3] == '/' || sep[3] == '\0') {
        snprintf(why, whylen, "not an http:// or https:// URL with a host");
        return false;
    }
    CURLU *u = curl_url();
    if (u == NULL) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    char *scheme = NULL;
    bool ok = false;
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) ||
        !url_has(u, CURLUPART_HOST))
        snprintf(why, whylen, "not an http:// or https:// URL with a host, as libcurl reads it");
    else if (url_has(u, CURLUPART_USER) || url_has(u, CURLUPART_PASSWORD) ||
             url_has(u, CURLUPART_OPTIONS))
        snprintf(why, whylen,
                 "the URL holds credentials (user information before '@', as libcurl reads "
                 "it), which would be sent, logged and shown in GET /v1/fleet: give a token "
                 "with fleet_bearer_token_file instead");
    else if (url_has(u, CURLUPART_QUERY) || url_has(u, CURLUPART_FRAGMENT))
        snprintf(why, whylen, "the URL must not hold a query or a fragment");
    else
        ok = true;
    curl_free(scheme);
    curl_url_cleanup(u);
    return ok;
}
