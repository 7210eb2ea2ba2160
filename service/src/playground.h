/* service/src/playground.h -- the playground page (GET /) and its assets
 * (GET /ui/NAME): the files of web/ compiled into the binary, and the workloads
 * of examples/ gathered into one JSON document, each with its content type and
 * an ETag (part of the SHA-256 of its bytes). Pure data, no HTTP library:
 * server.c sends them with the headers below. Owned by the service; a
 * playground is immutable once made, so any number of threads may read it. */
#ifndef SVC_PLAYGROUND_H
#define SVC_PLAYGROUND_H

#include <stdbool.h>
#include <stddef.h>

#include "dc/embedded.h"
#include "etag.h"
#include "http.h" /* SVC_ASSET_PREFIX */

/* The page's Content-Security-Policy: its own script, style and images only,
 * requests to its own origin only, no inline code, no plugins, no framing,
 * and no form posting anywhere (the form is sent by the script). */
#define SVC_PLAYGROUND_CSP                                                                         \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "                    \
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

struct svc_asset {
    const char *path; /* the URL path it answers: "/", "/ui/playground.js" */
    const char *type; /* its Content-Type */
    const char *data; /* view: the embedded bytes, or the playground's own */
    size_t len;
    char etag[SVC_ETAG_SIZE]; /* of the bytes (etag.h) */
};

typedef struct svc_playground svc_playground; /* opaque, immutable */

/* The playground of the embedded file table `files` (borrowed; it must outlive
 * the playground): "web/index.html" at "/", every other "web/NAME" at
 * "/ui/NAME", and "/ui/examples.json" made of every "examples/NAME.json" that
 * parses as a JSON object ({"examples": [{"name": NAME, "workload": {...}}]},
 * in table order). A table without web/ files gives a playground that answers
 * nothing. Returns NULL when out of memory. */
svc_playground *svc_playground_new(const struct aa_embedded_file *files);
void svc_playground_free(svc_playground *p); /* NULL is a no-op */

/* The asset answering URL path `path` exactly, or NULL (returns view). */
const struct svc_asset *svc_playground_find(const svc_playground *p, const char *path);

#endif /* SVC_PLAYGROUND_H */
