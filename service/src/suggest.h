/* service/src/suggest.h -- "did you mean" for the CLI: the nearest of the
 * known words to a mistyped command, flag or value, by edit distance
 * (insertions, deletions, substitutions and swaps of two neighbouring letters,
 * one each: the optimal string alignment distance). Owned by the CLI work
 * (issue 34). */
#ifndef SVC_SUGGEST_H
#define SVC_SUGGEST_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/* The edit distance between `a` and `b`, counted in bytes; words longer than
 * SVC_SUGGEST_MAX_LEN count as SIZE_MAX. */
#define SVC_SUGGEST_MAX_LEN 64
size_t svc_edit_distance(const char *a, const char *b);

/* The one of `n` words in `names` nearest to `word`, or NULL when none is near
 * enough to be what was meant: at most 2 edits, and fewer than half of the
 * longer word's letters (so "x" suggests nothing). The first wins a tie. */
const char *svc_suggest(const char *word, const char *const *names, size_t n);

/* After getopt_long refused argv[optind - 1] of command `cmd` (it printed
 * why): "CMD: did you mean --NAME?" and where the help is on stderr when that
 * argument is a long flag that `options` (ended by a NULL name) does not have
 * and one of them is near it; returns whether it suggested one (the caller
 * then leaves out the whole help, which would bury the line). */
bool svc_suggest_option(const char *cmd, int argc, char **argv, const struct option *options);

#endif /* SVC_SUGGEST_H */
