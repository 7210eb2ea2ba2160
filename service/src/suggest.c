/* service/src/suggest.c -- "did you mean" for the CLI (suggest.h). */
#include "suggest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t svc_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SVC_SUGGEST_MAX_LEN || lb > SVC_SUGGEST_MAX_LEN)
        return SIZE_MAX;
    /* The dynamic programme, three rows at a time: the one two back is what
     * a swap of two neighbours ("tabel") is counted from. */
    size_t rows[3][SVC_SUGGEST_MAX_LEN + 1];
    size_t *back = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            best = prev[j] + 1 < best ? prev[j] + 1 : best;
            best = cur[j - 1] + 1 < best ? cur[j - 1] + 1 : best;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                back[j - 2] + 1 < best)
                best = back[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = back;
        back = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *svc_suggest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = svc_edit_distance(word, names[i]);
        size_t longer = strlen(word) > strlen(names[i]) ? strlen(word) : strlen(names[i]);
        if (d <= 2 && 2 * d < longer && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

bool svc_suggest_option(const char *cmd, int argc, char **argv, const struct option *options)
{
    if (optind < 1 || optind > argc || options == NULL)
        return false;
    const char *arg = argv[optind - 1];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return false;
    char flag[SVC_SUGGEST_MAX_LEN + 1];
    size_t len = strcspn(arg + 2, "=");
    if (len > SVC_SUGGEST_MAX_LEN)
        return false;
    memcpy(flag, arg + 2, len);
    flag[len] = '\0';
    const char *names[128];
    size_t n = 0;
    for (const struct option *o = options; o->name != NULL && n < 128; o++) {
        if (strcmp(o->name, flag) == 0)
            return false; /* a known flag, refused for its argument */
        names[n++] = o->name;
    }
    const char *near = svc_suggest(flag, names, n);
    if (near == NULL)
        return false;
    fprintf(stderr, "%s: did you mean --%s?\nRun `accel-advisor %s --help` for its options.\n", cmd,
            near, cmd);
    return true;
}
