/* service/src/rulesrc.c -- where the rule set comes from (the embedded default
 * or a directory, and the directory's fingerprint that tells a change), and
 * bounded input and file reading. */
#define _GNU_SOURCE /* F_SETLEASE (fcntl(2)) */
#include "rulesrc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dc/embedded.h"
#include "dc/file.h"
#include "dc/hash.h"

enum dc_status svc_ruleset_load(const char *dir, dc_ruleset **out, struct dc_diags *diags)
{
    if (dir != NULL)
        return dc_ruleset_load_dir(dir, out, diags);
    return dc_ruleset_load_embedded(aa_embedded_files, out, diags);
}

void svc_print_diags(FILE *fp, const struct dc_diags *diags)
{
    char line[768];
    for (size_t i = 0; diags != NULL && i < diags->count; i++) {
        dc_diag_format(&diags->items[i], line, sizeof(line));
        fprintf(fp, "%s\n", line);
    }
    if (diags != NULL && diags->truncated)
        fprintf(fp, "(more problems not shown: limit of %d reached)\n", DC_RULESET_MAX_DIAGS);
}

uint64_t svc_rules_fingerprint(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    uint64_t sum = 1;
    const struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        uint64_t h = dc_fnv64(DC_FNV64_OFFSET, e->d_name, strlen(e->d_name));
        h = dc_fnv64(h, &st.st_size, sizeof(st.st_size));
        h = dc_fnv64(h, &st.st_mtim, sizeof(st.st_mtim));
        h = dc_fnv64(h, &st.st_ino, sizeof(st.st_ino));
        h = dc_fnv64(h, &st.st_dev, sizeof(st.st_dev));
        sum += h;
    }
    closedir(d);
    return sum;
}

bool svc_rules_being_written(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    bool written = false;
    const struct dirent *e;
    char path[PATH_MAX];
    while (!written && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        /* O_NONBLOCK: no wait on a file whose write lease another holds. */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0)
            (void)fcntl(fd, F_SETLEASE, F_UNLCK);
        else if (errno == EAGAIN)
            written = true;
        close(fd);
        if (written)
            snprintf(name, len, "%s", e->d_name);
    }
    closedir(d);
    return written;
}

enum dc_status svc_read_input(const char *path, size_t max, char **out, size_t *len,
                              struct dc_error *err)
{
    *out = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (fp == NULL)
        return dc_error_set(err, DC_EIO, NULL, "%s: %s", path, strerror(errno));
    char *buf = malloc(max + 2);
    if (buf == NULL) {
        if (!is_stdin)
            fclose(fp);
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    }
    size_t n = fread(buf, 1, max + 1, fp);
    bool failed = ferror(fp) != 0;
    if (!is_stdin)
        fclose(fp);
    if (failed || n > max) {
        free(buf);
        return failed ? dc_error_set(err, DC_EIO, NULL, "%s: read error", path)
                      : dc_error_set(err, DC_ELIMIT, NULL,
                                     "%s: input is over the limit of %zu bytes", path, max);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return DC_OK;
}

enum dc_status svc_read_regular_file(const char *path, size_t max, char **out, size_t *len,
                                     struct dc_error *err)
{
    struct dc_file_failure f;
    enum dc_status rc = dc_file_read_regular(path, max, out, len, &f);
    if (rc == DC_OK)
        return DC_OK;
    switch (f.fault) {
    case DC_FILE_CANNOT_OPEN:
    case DC_FILE_READ_ERROR:
        return dc_error_set(err, rc, NULL, "%s: %s", path, strerror(f.errno_value));
    case DC_FILE_NOT_REGULAR:
        return dc_error_set(err, rc, NULL, "%s: not a regular file", path);
    case DC_FILE_TOO_LARGE:
        return dc_error_set(err, rc, NULL, "%s: larger than %zu bytes", path, max);
    case DC_FILE_NO_MEMORY:
        return dc_error_set(err, rc, NULL, "out of memory");
    case DC_FILE_OK:
    default:
        return dc_error_set(err, rc, NULL, "%s: cannot be read", path);
    }
}
