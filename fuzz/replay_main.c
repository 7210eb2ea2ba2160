/* fuzz/replay_main.c -- a main() for the libFuzzer harnesses without libFuzzer:
 * calls LLVMFuzzerInitialize (when the harness defines one) and then
 * LLVMFuzzerTestOneInput once per file of the directories (or files) named on
 * the command line, in name order, so the checked-in corpus and every
 * regression input run in the normal test suite under any compiler, and under
 * the sanitizers in the ASan build.
 *
 *   fuzz_replay_<harness> DIR|FILE...
 *
 * Files whose name starts with '.' are skipped (a .gitkeep keeps an empty
 * regressions directory in git). A missing directory, an unreadable file or
 * no input at all is an error (exit 2), so a broken test setup cannot pass.
 * A broken invariant aborts inside the harness, which fails the test. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

/* Libfuzzer finds LLVMFuzzerInitialize the same way: a weak reference that
 * stays NULL when the harness does not define it. */
#pragma weak LLVMFuzzerInitialize

#define REPLAY_MAX_INPUT (16u << 20)

static int run_file(const char *path);
static int run_dir(const char *dir, size_t *count);
static int name_cmp(const void *a, const void *b);

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_INPUT);
    if (buf == NULL) {
        fclose(fp);
        fprintf(stderr, "replay: out of memory\n");
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX_INPUT, fp);
    bool bad = ferror(fp) != 0 || (n == REPLAY_MAX_INPUT && fgetc(fp) != EOF);
    fclose(fp);
    if (bad) {
        free(buf);
        fprintf(stderr, "replay: %s: read error or over %u bytes\n", path, REPLAY_MAX_INPUT);
        return -1;
    }
    /* Give the harness a buffer of exactly n bytes, as libFuzzer does, so that
     * AddressSanitizer catches a read past the end of the input. */
    uint8_t *exact = malloc(n > 0 ? n : 1);
    if (exact == NULL) {
        free(buf);
        fprintf(stderr, "replay: out of memory\n");
        return -1;
    }
    if (n > 0)
        memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        struct dirent *de = readdir(d);
        if (de == NULL)
            break;
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap == 0 ? 64 : cap * 2;
            char **nn = realloc(names, cap * sizeof(*nn));
            if (nn == NULL) {
                rc = -1;
                goto out;
            }
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n] == NULL) {
            rc = -1;
            goto out;
        }
        n++;
    }
    if (n > 1)
        qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        if (path == NULL) {
            rc = -1;
            break;
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            free(path);
            continue;
        }
        rc = run_file(path);
        free(path);
        if (rc == 0)
            (*count)++;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        int rc = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i]);
        if (rc != 0)
            return 2;
        if (!S_ISDIR(st.st_mode))
            count++;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no input in the given directories\n");
        return 2;
    }
    printf("replay: %zu inputs, every invariant held\n", count);
    return 0;
}
