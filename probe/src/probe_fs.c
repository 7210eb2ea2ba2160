/* probe/src/probe_fs.c -- bounded file reading, strict number parsing and PCI
 * addresses. Everything the probe reads from sysfs, /dev and /proc goes
 * through here, so every read has a size limit and every number one parser. */
#include "probe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool parse_hex_field(const char *s, size_t len, size_t min_digits, size_t max_digits,
                            uint32_t *out);
static enum dc_status open_regular(const char *path, int *fd_out, int *errno_out);
static enum dc_status read_into(int fd, char *buf, size_t want, size_t *got, int *errno_out);

/* Between min and max hex digits, nothing else. */
static bool parse_hex_field(const char *s, size_t len, size_t min_digits, size_t max_digits,
                            uint32_t *out)
{
    if (len < min_digits || len > max_digits)
        return false;
    uint32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        int h = dc_hex_digit((unsigned char)s[i]);
        if (h < 0)
            return false;
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return true;
}

/* Open for reading without following the risk of blocking: O_NONBLOCK keeps a
 * FIFO from hanging the open, and anything but a regular file is refused
 * (sysfs attributes and /proc files are regular files). */
static enum dc_status open_regular(const char *path, int *fd_out, int *errno_out)
{
    *fd_out = -1;
    *errno_out = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *errno_out = errno;
        return errno == ENOENT || errno == ENOTDIR ? DC_ENOTFOUND : DC_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *errno_out = errno;
        close(fd);
        return DC_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        *errno_out = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        return DC_EIO;
    }
    *fd_out = fd;
    return DC_OK;
}

/* Read until `want` bytes or end of file. */
static enum dc_status read_into(int fd, char *buf, size_t want, size_t *got, int *errno_out)
{
    size_t have = 0;
    while (have < want) {
        ssize_t n = read(fd, buf + have, want - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *errno_out = errno;
            return DC_EIO;
        }
        if (n == 0)
            break;
        have += (size_t)n;
    }
    *got = have;
    return DC_OK;
}

/* ---- library-wide functions below ---- */

enum dc_status probe__read_file(const char *path, char *buf, size_t cap, size_t *len,
                                int *errno_out)
{
    int fd = -1;
    int dummy_errno = 0;
    if (errno_out == NULL)
        errno_out = &dummy_errno;
    *errno_out = 0;
    *len = 0;
    if (cap == 0)
        return DC_EINVAL;
    buf[0] = '\0';
    enum dc_status rc = open_regular(path, &fd, errno_out);
    if (rc != DC_OK)
        goto out;
    size_t got = 0;
    rc = read_into(fd, buf, cap - 1, &got, errno_out);
    if (rc != DC_OK)
        goto out;
    if (got == cap - 1) {
        /* Full: one more byte tells a file of exactly cap - 1 bytes from a
         * longer one. */
        char extra;
        size_t more = 0;
        rc = read_into(fd, &extra, 1, &more, errno_out);
        if (rc != DC_OK)
            goto out;
        if (more != 0) {
            rc = DC_ELIMIT;
            got = 0;
        }
    }
    buf[got] = '\0';
    *len = got;
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

enum dc_status probe__read_text(const char *path, size_t max, char **out, size_t *len,
                                bool *truncated, int *errno_out)
{
    enum { CHUNK = 64 * 1024 };
    int fd = -1;
    char *buf = NULL;
    size_t cap = 0;
    size_t have = 0;
    *out = NULL;
    *len = 0;
    *truncated = false;
    *errno_out = 0;
    enum dc_status rc = open_regular(path, &fd, errno_out);
    if (rc != DC_OK)
        goto out;
    for (;;) {
        if (have == max) {
            char extra;
            size_t more = 0;
            rc = read_into(fd, &extra, 1, &more, errno_out);
            if (rc != DC_OK)
                goto out;
            *truncated = more != 0;
            break;
        }
        if (cap - have < 2) {
            size_t want = cap + CHUNK;
            if (want > max + 1)
                want = max + 1;
            char *nb = realloc(buf, want);
            if (nb == NULL) {
                rc = DC_ENOMEM;
                goto out;
            }
            buf = nb;
            cap = want;
        }
        size_t room = cap - 1 - have;
        if (room > max - have)
            room = max - have;
        size_t got = 0;
        rc = read_into(fd, buf + have, room, &got, errno_out);
        if (rc != DC_OK)
            goto out;
        have += got;
        if (got < room)
            break;
    }
    if (buf == NULL) {
        buf = malloc(1);
        if (buf == NULL) {
            rc = DC_ENOMEM;
            goto out;
        }
    }
    buf[have] = '\0';
    *out = buf;
    *len = have;
    buf = NULL;
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    return rc;
}

enum dc_status probe__parse_hex_attr(const char *text, size_t len, unsigned digits, uint32_t *out,
                                     const char **why)
{
    *why = NULL;
    if (len == 0 || (len == 1 && text[0] == '\n')) {
        *why = "empty";
        return DC_EPARSE;
    }
    if (text[len - 1] != '\n') {
        *why = "no trailing newline (truncated)";
        return DC_EPARSE;
    }
    len--;
    if (memchr(text, '\0', len) != NULL) {
        *why = "contains a NUL byte";
        return DC_EPARSE;
    }
    if (len < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
        *why = "not a hex id (no 0x prefix)";
        return DC_EPARSE;
    }
    for (size_t i = 2; i < len; i++) {
        if (dc_hex_digit((unsigned char)text[i]) < 0) {
            *why = "not hexadecimal";
            return DC_EPARSE;
        }
    }
    if (len - 2 != digits) {
        *why = len - 2 < digits ? "too few hex digits (truncated)" : "too many hex digits";
        return DC_EPARSE;
    }
    uint32_t v = 0;
    if (!parse_hex_field(text + 2, len - 2, digits, digits, &v)) {
        *why = "not hexadecimal";
        return DC_EPARSE;
    }
    *out = v;
    return DC_OK;
}

enum dc_status probe__parse_u64_attr(const char *text, size_t len, uint64_t *out, const char **why)
{
    *why = NULL;
    if (len == 0 || (len == 1 && text[0] == '\n')) {
        *why = "empty";
        return DC_EPARSE;
    }
    if (text[len - 1] != '\n') {
        *why = "no trailing newline (truncated)";
        return DC_EPARSE;
    }
    len--;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') {
            *why = "not a decimal number";
            return DC_EPARSE;
        }
    }
    if (!probe__parse_uint(text, len, out)) {
        *why = "out of range";
        return DC_EPARSE;
    }
    return DC_OK;
}

bool probe__parse_uint(const char *s, size_t len, uint64_t *out)
{
    if (len == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

const char *probe__strerror(int e, char *buf, size_t cap)
{
    /* The XSI strerror_r (this build defines _POSIX_C_SOURCE, not
     * _GNU_SOURCE): strerror() itself may share a buffer between threads. */
    if (strerror_r(e, buf, cap) != 0)
        snprintf(buf, cap, "error %d", e);
    return buf;
}

bool probe__path_join(char *buf, size_t cap, const char *root, const char *rel)
{
    int n = snprintf(buf, cap, "%s/%s", root, rel);
    return n >= 0 && (size_t)n < cap;
}

bool probe__pci_addr_parse(const char *s, struct probe_pci_addr *out)
{
    /* domain ':' bus ':' dev '.' fn */
    const char *c1 = strchr(s, ':');
    if (c1 == NULL)
        return false;
    const char *c2 = strchr(c1 + 1, ':');
    if (c2 == NULL)
        return false;
    const char *dot = strchr(c2 + 1, '.');
    if (dot == NULL)
        return false;
    uint32_t domain, bus, dev, fn;
    if (!parse_hex_field(s, (size_t)(c1 - s), 4, 8, &domain) ||
        !parse_hex_field(c1 + 1, (size_t)(c2 - c1 - 1), 2, 2, &bus) ||
        !parse_hex_field(c2 + 1, (size_t)(dot - c2 - 1), 2, 2, &dev) ||
        !parse_hex_field(dot + 1, strlen(dot + 1), 1, 1, &fn))
        return false;
    if (dev > 0x1f || fn > 7)
        return false;
    out->domain = domain;
    out->bus = (uint8_t)bus;
    out->dev = (uint8_t)dev;
    out->fn = (uint8_t)fn;
    return true;
}

void probe__pci_addr_format(const struct probe_pci_addr *a, char *buf)
{
    snprintf(buf, PROBE_PCI_ADDRESS_SIZE, "%04x:%02x:%02x.%x", (unsigned)a->domain,
             (unsigned)a->bus, (unsigned)a->dev, (unsigned)a->fn);
}

int probe__pci_addr_cmp(const struct probe_pci_addr *a, const struct probe_pci_addr *b)
{
    if (a->domain != b->domain)
        return a->domain < b->domain ? -1 : 1;
    if (a->bus != b->bus)
        return a->bus < b->bus ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->fn != b->fn)
        return a->fn < b->fn ? -1 : 1;
    return 0;
}
