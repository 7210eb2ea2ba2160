#!/usr/bin/env bash
# deploy.image: what a reader of the README builds is what the manifests run.
#  1. the image the README's and docs/deployment.md's build lines tag is the image
#     every manifest in docker/k8s/ pulls;
#  2. the image carries its commit: docker/Dockerfile's build stage refuses to build
#     without AA_BUILD_COMMIT, and its own configure command, run on a copy of the
#     build context (no .git, as .dockerignore makes it), records that commit in the
#     build's identity (what `accel-advisor version` prints);
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
# The configure command: from `RUN cmake -S` to the first `&&` line.
configure=$(printf '%s\n' "$build_stage" |
    awk '/^RUN cmake -S/ {on = 1} on && /^ *&&/ {exit} on' | sed 's/\\$//; s/^RUN //' | tr '\n' ' ')
guard=$(printf '%s\n' "$build_stage" |
    awk '/^RUN test -n "\$\{AA_BUILD_COMMIT\}"/ {on = 1} on {print} on && !/\\$/ {exit}' |
    sed 's/\\$//; s/^RUN //' | tr '\n' ' ')
if [ -z "$configure" ] || [ -z "$guard" ]; then
    bad "Dockerfile: no RUN cmake -S ... or no RUN test -n \"\${AA_BUILD_COMMIT}\" guard in the build stage"
else
    if (AA_BUILD_COMMIT='' sh -c "$guard") 2>"$tmp/guard.err"; then
        bad "Dockerfile: the build goes on without AA_BUILD_COMMIT"
    else
        grep -q 'AA_BUILD_COMMIT' "$tmp/guard.err" || bad "Dockerfile: the guard's message does not name AA_BUILD_COMMIT"
    fi
    (AA_BUILD_COMMIT=0123abc sh -c "$guard") || bad "Dockerfile: the guard refuses a given AA_BUILD_COMMIT"
    # The build context: the sources without .git and build trees (.dockerignore).
    ctx=$tmp/ctx
    mkdir "$ctx"
    (cd "$src" && tar --exclude=./.git --exclude='./build*' --exclude='*/node_modules' -cf - .) |
        tar -xf - -C "$ctx"
    commit=4d2f0c1e9b8a7d6c5b4a39281706f5e4d3c2b1a0
    confcmd=${configure//\/build/$tmp/image-build}
    if ! (cd "$ctx" && AA_BUILD_COMMIT=$commit sh -c "$confcmd") >"$tmp/conf.log" 2>&1; then
        tail -20 "$tmp/conf.log"
        bad "the Dockerfile's configure command failed on a copy of the build context"
    elif ! cmake --build "$tmp/image-build" --target aa_build_info >"$tmp/bi.log" 2>&1; then
        tail -20 "$tmp/bi.log"
        bad "building aa_build_info with the Dockerfile's configuration failed"
    elif ! grep -q "aa_build_commit\[\] = \"$commit\"" "$tmp/image-build/build_info.c"; then
        grep aa_build_commit "$tmp/image-build/build_info.c"
        bad "the Dockerfile's configuration does not record AA_BUILD_COMMIT as the build's commit"
    fi
    # The build stage also checks what the binary reports, and the image is labelled.
    printf '%s\n' "$build_stage" | grep -q 'accel-advisor version | grep -qF "commit ${AA_BUILD_COMMIT}"' ||
        bad "Dockerfile: the build stage does not check that \`version\` reports AA_BUILD_COMMIT"
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
