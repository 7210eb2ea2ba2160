#!/bin/sh
# deploy.configmap_sync: the checked-in rules ConfigMap is exactly what
# docker/k8s/make-configmap.sh generates from rules/, so the two never drift.
# usage: test_configmap_sync.sh SOURCE_DIR
set -u
src=$1
gen=$(mktemp)
trap 'rm -f "$gen"' EXIT
if ! "$src/docker/k8s/make-configmap.sh" "$src/rules" >"$gen"; then
    echo "FAIL: docker/k8s/make-configmap.sh failed"
    exit 1
fi
if ! diff -u "$src/docker/k8s/configmap.yaml" "$gen" | head -40; then :; fi
if ! cmp -s "$src/docker/k8s/configmap.yaml" "$gen"; then
    echo "FAIL: docker/k8s/configmap.yaml is not what make-configmap.sh generates from rules/;"
    echo "      regenerate it: docker/k8s/make-configmap.sh > docker/k8s/configmap.yaml"
    exit 1
fi
# Every rule file is a key of the ConfigMap.
for f in "$src"/rules/*.yaml; do
    k=$(basename "$f")
    if ! grep -q "^  $k: |" "$gen"; then
        echo "FAIL: no key $k in the generated ConfigMap"
        exit 1
    fi
done
echo "ok: docker/k8s/configmap.yaml matches rules/ ($(ls "$src"/rules/*.yaml | wc -l) files)"
