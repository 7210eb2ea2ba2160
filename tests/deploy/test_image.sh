#!/usr/bin/env bash
# deploy.image: what a reader of the README builds is what the manifests run.
#  1. the image the README's and docs/deployment.md's build lines tag is the image
#     every manifest in docker/k8s/ pulls;
#  2. the image carries its commit: docker/Dockerfile's own configure command, run on
#     a copy of the build context as .dockerignore makes it, records AA_BUILD_COMMIT
#     when given, else the commit .git/HEAD names (loose or packed ref), in the
#     build's identity (what `accel-advisor version` prints), and refuses to build
#     with neither;
#  3. every documented `kubectl apply` of the rules ConfigMap is server-side: the
#     ConfigMap (one key per rule file, about 200 KB) does not fit client-side
#     apply's last-applied-configuration annotation for long (256 KiB in all).
# usage: test_image.sh SOURCE_DIR
set -u
src=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() {
    fail=$((fail + 1))
    echo "FAIL $*"
}

# ---- 1. one image name --------------------------------------------------------------
images=$(grep -h '^ *image:' "$src"/docker/k8s/*.yaml | sed 's/^ *image: *//' | sort -u)
if [ -z "$images" ]; then
    bad "no image: in docker/k8s/*.yaml"
elif [ "$(printf '%s\n' "$images" | wc -l)" -ne 1 ]; then
    bad "the manifests pull different images: $(echo $images)"
fi
for doc in README.md docs/deployment.md; do
    tags=$(grep -h 'build -f docker/Dockerfile' "$src/$doc" | grep -o -- '-t [^ ]*' | sed 's/^-t //')
    [ -n "$tags" ] || bad "$doc: no build line (build -f docker/Dockerfile -t IMAGE)"
    for t in $tags; do
        [ "$t" = "$images" ] || bad "$doc builds $t but docker/k8s/ pulls $images"
    done
    # Every image a command runs is that image (docker run ... IMAGE, --entrypoint).
    for r in $(grep -h 'docker run' "$src/$doc" | grep -o '[^ ]*accel-advisor:[^ ]*' | sort -u); do
        [ "$r" = "$images" ] || bad "$doc runs $r, not $images"
    done
    grep -q 'build-arg AA_BUILD_COMMIT' "$src/$doc" || bad "$doc: the build line does not pass AA_BUILD_COMMIT"
done

# ---- 2. the commit goes into the image -----------------------------------------------
df=$src/docker/Dockerfile
build_stage=$(awk '/^FROM .* AS build/ {on = 1; next} /^FROM / {on = 0} on' "$df")
printf '%s\n' "$build_stage" | grep -q '^ARG AA_BUILD_COMMIT$' || bad "Dockerfile: the build stage declares no ARG AA_BUILD_COMMIT"
# The build RUN, from `RUN commit=` up to (not including) the build of the binary:
# the commit's choice, the guard and the configure command, as one shell command.
configure=$(printf '%s\n' "$build_stage" |
    awk '/^RUN commit=/ {on = 1} on && /cmake --build/ {exit} on' | sed 's/\\$//; s/^RUN //' | tr '\n' ' ' |
    sed 's/ *&& *$//')
.dockerignore_has() { grep -qx -- "$1" "$src/.dockerignore" || bad ".dockerignore: no line '$1'"; }
for line in '.git' '!.git/HEAD' '!.git/refs' '!.git/packed-refs'; do .dockerignore_has "$line"; done
# A build context as .dockerignore makes it: the sources, no .git and no build trees.
ctx=$tmp/ctx
mkdir "$ctx"
(cd "$src" && tar --exclude=./.git --exclude='./build*' --exclude='*/node_modules' -cf - .) |
    tar -xf - -C "$ctx"
# configure_in CONTEXT ARG: runs the Dockerfile's configure with AA_BUILD_COMMIT=ARG and
# prints the commit it recorded in build_info.c (nothing when it refused).
configure_in() {
    local out=$tmp/image-build-$RANDOM
    local cmd=${configure//\/build/$out}
    (cd "$1" && AA_BUILD_COMMIT=$2 sh -c "$cmd") >"$tmp/conf.log" 2>&1 || return 1
    cmake --build "$out" --target aa_build_info >"$tmp/bi.log" 2>&1 || { tail -20 "$tmp/bi.log"; return 1; }
    sed -n 's/.*aa_build_commit\[\] = "\([^"]*\)".*/\1/p' "$out/build_info.c"
}
if [ -z "$configure" ]; then
    bad "Dockerfile: no RUN commit=... cmake -S ... in the build stage"
else
    # No .git and no argument: the build stops and says how to name the commit.
    if configure_in "$ctx" '' >/dev/null; then
        bad "Dockerfile: the build goes on with no commit"
    else
        grep -q 'AA_BUILD_COMMIT' "$tmp/conf.log" || bad "Dockerfile: the refusal does not name AA_BUILD_COMMIT"
    fi
    given=4d2f0c1e9b8a7d6c5b4a39281706f5e4d3c2b1a0
    got=$(configure_in "$ctx" "$given") || tail -20 "$tmp/conf.log"
    [ "$got" = "$given" ] || bad "the Dockerfile's configuration records '$got', not the AA_BUILD_COMMIT given"
    # A clone's .git as .dockerignore lets it in: HEAD and a loose ref, then a packed one.
    loose=0123456789abcdef0123456789abcdef01234567
    packed=89abcdef0123456789abcdef0123456789abcdef
    mkdir -p "$ctx/.git/refs/heads"
    echo 'ref: refs/heads/main' >"$ctx/.git/HEAD"
    echo "$loose" >"$ctx/.git/refs/heads/main"
    got=$(configure_in "$ctx" '') || tail -20 "$tmp/conf.log"
    [ "$got" = "$loose" ] || bad "a context with .git records '$got', not HEAD's loose ref $loose"
    rm "$ctx/.git/refs/heads/main"
    printf '# pack-refs with: peeled fully-peeled sorted\n%s refs/heads/main\n' "$packed" >"$ctx/.git/packed-refs"
    got=$(configure_in "$ctx" '') || tail -20 "$tmp/conf.log"
    [ "$got" = "$packed" ] || bad "a context with packed refs records '$got', not $packed"
    echo 'not-a-commit refs/heads/main' >"$ctx/.git/packed-refs"
    if configure_in "$ctx" '' >/dev/null; then bad "a HEAD naming no commit was built as a commit"; fi
    # The build stage also checks what the binary reports, and the image is labelled.
    printf '%s\n' "$build_stage" | grep -q 'accel-advisor version | grep -qF "commit $commit"' ||
        bad "Dockerfile: the build stage does not check that \`version\` reports the commit"
    grep -q '^LABEL org.opencontainers.image.revision="${AA_BUILD_COMMIT}"' "$df" ||
        bad "Dockerfile: no org.opencontainers.image.revision label"
fi

# ---- 3. server-side apply of the ConfigMap ---------------------------------------------
for doc in README.md docs/deployment.md docker/k8s/make-configmap.sh; do
    lines=$(grep -n 'kubectl apply -f' "$src/$doc" | grep -v 'server-side')
    [ -z "$lines" ] || bad "$doc: kubectl apply without --server-side: $lines"
done

if [ "$fail" -ne 0 ]; then
    echo "$fail failed"
    exit 1
fi
echo "ok: the docs build $images, which docker/k8s/ pulls; the Dockerfile records its commit; apply is server-side"
