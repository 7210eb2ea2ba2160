/* core/include/dc/file.h -- one bounded reader of a whole regular file, for
 * every file the product reads on its own (rule files; the service's keys,
 * configuration and contract): a FIFO without a writer, /dev/zero or a
 * directory is refused at once, without blocking or reading, and a file is
 * never read past its limit. Owned by core/ (core/src/base/file.c). */
#ifndef DC_FILE_H
#define DC_FILE_H

#include <stddef.h>

#include "dc/common.h"

/* Why dc_file_read_regular() failed, for the caller's own message. */
enum dc_file_fault {
    DC_FILE_OK = 0,
    DC_FILE_CANNOT_OPEN, /* open() or fstat() failed: errno_value says why */
    DC_FILE_NOT_REGULAR, /* a directory, FIFO, device or socket */
    DC_FILE_READ_ERROR,  /* read() failed: errno_value says why */
    DC_FILE_TOO_LARGE,   /* more than `max` bytes */
    DC_FILE_NO_MEMORY
};

struct dc_file_failure {
    enum dc_file_fault fault;
    int errno_value; /* 0 unless the fault says otherwise */
};

/* Read the regular file `path` of at most `max` bytes into a NUL-terminated
 * buffer (*out, owned by the caller, free(); *len its length). Opened
 * non-blocking and checked with fstat before anything is read; a file that
 * grows past `max` while read is refused too. Returns DC_OK; DC_EIO
 * (CANNOT_OPEN, NOT_REGULAR, READ_ERROR), DC_ELIMIT (TOO_LARGE) or DC_ENOMEM,
 * with *why (may be NULL) set; *out is NULL on failure. Thread-safe. */
DC_API DC_NODISCARD enum dc_status dc_file_read_regular(const char *path, size_t max, char **out,
                                                        size_t *len, struct dc_file_failure *why);

#endif /* DC_FILE_H */
