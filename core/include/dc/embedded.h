/* core/include/dc/embedded.h -- files compiled into the binary (cmake/Embed.cmake). */
#ifndef DC_EMBEDDED_H
#define DC_EMBEDDED_H

#include <stddef.h>

/* One embedded file. Tables end with an entry whose name is NULL. `data` is
 * followed by a NUL byte that `len` does not count. */
struct aa_embedded_file {
    const char *name;
    const char *data;
    size_t len;
};

/* The binary's own table (the rule files and openapi.yaml), generated at build
 * time into the aa_embedded library. */
extern const struct aa_embedded_file aa_embedded_files[];

#endif
