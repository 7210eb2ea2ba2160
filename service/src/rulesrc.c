/* service/src/rulesrc.c -- the embedded default rule set and bounded input and
 * file reading. */
#include "rulesrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dc/embedded.h"

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

int svc_read_input(const char *path, size_t max, char **out, size_t *len, char *why, size_t whylen)
{
    *out = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (fp == NULL) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(max + 2);
    if (buf == NULL) {
        if (!is_stdin)
            fclose(fp);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    size_t n = fread(buf, 1, max + 1, fp);
    bool err = ferror(fp) != 0;
    if (!is_stdin)
        fclose(fp);
    if (err || n > max) {
        free(buf);
        snprintf(why, whylen, err ? "%s: read error" : "%s: input is over the limit of %zu bytes",
                 path, max);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int svc_read_regular_file(const char *path, size_t max, char **out, size_t *len, char *why,
                          size_t whylen)
{
    *out = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO without a writer would block here. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(why, whylen, "%s: larger than %zu bytes", path, max);
        close(fd);
        return -1;
    }
    char *buf = malloc(max + 2);
    size_t n = 0;
    ssize_t got = 1;
    /* The file may grow after the fstat: read at most one byte past `max`. */
    while (buf != NULL && n <= max && got != 0) {
        got = read(fd, buf + n, max + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        n += (size_t)got;
    }
    int err = got < 0 ? errno : 0;
    close(fd);
    if (buf == NULL || err != 0 || n > max) {
        if (buf == NULL)
            snprintf(why, whylen, "out of memory");
        else if (err != 0)
            snprintf(why, whylen, "%s: %s", path, strerror(err));
        else
            snprintf(why, whylen, "%s: larger than %zu bytes", path, max);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}
