/* service/src/auth.h -- optional API keys, stored only as SHA-256 digests.
 *
 * The keys file holds one lowercase hex SHA-256 digest (64 characters) per line;
 * blank lines and lines starting with '#' are ignored. Make one with
 *     printf %s "$KEY" | sha256sum | cut -d' ' -f1 >> keys
 * A request is authenticated by `Authorization: Bearer KEY`: the key is hashed
 * (OpenSSL EVP) and the digest compared with every stored digest with
 * CRYPTO_memcmp, all of them every time, so timing reveals neither which digest
 * matched nor how much of it. */
#ifndef SVC_AUTH_H
#define SVC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "dc/common.h"

#define SVC_AUTH_MAX_KEYS       1024   /* digests in one keys file */
#define SVC_AUTH_MAX_FILE_BYTES 262144 /* size of the keys file */
#define SVC_AUTH_MAX_TOKEN      4096   /* longest bearer token hashed */
#define SVC_AUTH_MAX_LINE       512    /* longest line of the keys file, its newline included */

typedef struct svc_auth svc_auth; /* opaque, immutable once loaded, refcounted */

/* Load the keys file at `path` (borrowed). On DC_OK *out holds one reference
 * for the caller (svc_auth_release). Errors: svc_read_regular_file's, DC_EPARSE
 * ("path:line: what is wrong" in err->msg), DC_ELIMIT (too many digests),
 * DC_ENOMEM. A file with no digest is an error (DC_EPARSE): it would lock every
 * client out. */
DC_NODISCARD enum dc_status svc_auth_load(const char *path, svc_auth **out, struct dc_error *err);

/* Build from digests already parsed (tests): `hex` holds n digests. Errors:
 * DC_EINVAL (no digest, too many, or one malformed), DC_ENOMEM. */
DC_NODISCARD enum dc_status svc_auth_from_digests(const char *const *hex, size_t n, svc_auth **out,
                                                  struct dc_error *err);

/* True when `authorization` (the header value, may be NULL) is "Bearer KEY"
 * (scheme case-insensitive) and KEY's digest is in the set. Thread-safe. */
bool svc_auth_check(const svc_auth *a, const char *authorization);

size_t svc_auth_count(const svc_auth *a);

/* Take another reference (returns a); drop one, freeing at the last. NULL is a
 * no-op for both. Thread-safe: a reload can swap key sets while requests still
 * check with the old one. */
svc_auth *svc_auth_retain(svc_auth *a);
void svc_auth_release(svc_auth *a);

#endif /* SVC_AUTH_H */
