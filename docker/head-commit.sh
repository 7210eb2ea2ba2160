#!/bin/sh
# Prints the commit a source tree's .git/HEAD names, read from the files alone: the
# image's build stage has no git, and .dockerignore lets only .git/HEAD, .git/refs
# and .git/packed-refs into the build context. Exits 1 (printing nothing) when
# there is no such commit, so the build stage can refuse to ship commit "unknown".
# usage: head-commit.sh [GIT_DIR]   (default .git)
set -eu
g=${1:-.git}
[ -f "$g/HEAD" ] || exit 1
head=$(head -n 1 "$g/HEAD")
case $head in
"ref: "*)
    ref=${head#ref: }
    if [ -f "$g/$ref" ]; then
        commit=$(head -n 1 "$g/$ref")
    elif [ -f "$g/packed-refs" ]; then
        commit=$(awk -v r="$ref" '$2 == r { print $1; exit }' "$g/packed-refs")
    else
        exit 1
    fi
    ;;
*) commit=$head ;;
esac
# A commit is 40 (SHA-1) or 64 (SHA-256) hex digits; anything else is not one.
printf '%s\n' "$commit" | grep -Eqx '[0-9a-f]{40}|[0-9a-f]{64}' || exit 1
printf '%s\n' "$commit"
