/* tests/support/read_file.h -- a whole file into memory, for the test programs
 * that read their fixtures or a public suite. */
#ifndef AA_TEST_READ_FILE_H
#define AA_TEST_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The file at `path` as a NUL-terminated buffer (owned, free()), or NULL when it
 * cannot be read whole or is larger than `max` bytes. */
static inline char *test_read_file(const char *path, size_t max)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (fp == NULL)
        return NULL;
    if (fseek(fp, 0, SEEK_END) != 0)
        goto out;
    size = ftell(fp);
    if (size < 0 || (unsigned long)size > max || fseek(fp, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)size + 1);
    if (buf == NULL)
        goto out;
    if (fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        free(buf);
        buf = NULL;
        goto out;
    }
    buf[size] = '\0';
out:
    fclose(fp);
    return buf;
}

#endif /* AA_TEST_READ_FILE_H */
