/* core/src/base/file.c -- the bounded regular-file reader (dc/file.h). Owned by core/. */
#include "dc/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static enum dc_status fail(struct dc_file_failure *why, enum dc_file_fault fault, int e,
                           enum dc_status rc)
{
    if (why != NULL)
        *why = (struct dc_file_failure){fault, e};
    return rc;
}

/* Up to `want` bytes from fd into buf, until end of file; -1 with errno set on
 * a read error. */
static ssize_t read_upto(int fd, char *buf, size_t want)
{
    size_t have = 0;
    while (have < want) {
        ssize_t n = read(fd, buf + have, want - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        have += (size_t)n;
    }
    return (ssize_t)have;
}

enum dc_status dc_file_read_regular(const char *path, size_t max, char **out, size_t *len,
                                    struct dc_file_failure *why)
{
    struct stat st;
    if (why != NULL)
        *why = (struct dc_file_failure){DC_FILE_OK, 0};
    if (out != NULL)
        *out = NULL;
    if (len != NULL)
        *len = 0;
    if (path == NULL || out == NULL || len == NULL || max >= SIZE_MAX - 1 ||
        max > (size_t)SSIZE_MAX - 1)
        return DC_EINVAL;
    /* O_NONBLOCK: opening a FIFO without a writer would block here. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(why, DC_FILE_CANNOT_OPEN, errno, DC_EIO);
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(why, DC_FILE_CANNOT_OPEN, e, DC_EIO);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(why, DC_FILE_NOT_REGULAR, 0, DC_EIO);
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        close(fd);
        return fail(why, DC_FILE_TOO_LARGE, 0, DC_ELIMIT);
    }
    char *buf = malloc(max + 1);
    if (buf == NULL) {
        close(fd);
        return fail(why, DC_FILE_NO_MEMORY, 0, DC_ENOMEM);
    }
    /* One byte past `max` tells a file that grew after the fstat. */
    ssize_t n = read_upto(fd, buf, max + 1);
    int e = errno;
    close(fd);
    if (n < 0 || (size_t)n > max) {
        free(buf);
        return n < 0 ? fail(why, DC_FILE_READ_ERROR, e, DC_EIO)
                     : fail(why, DC_FILE_TOO_LARGE, 0, DC_ELIMIT);
    }
    buf[n] = '\0';
    *out = buf;
    *len = (size_t)n;
    return DC_OK;
}
