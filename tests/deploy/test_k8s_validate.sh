#!/bin/sh
# deploy.k8s_validate: docker/k8s/*.yaml against the Kubernetes API schemas with
# ../shared/tools/k8s-validate (npm kubernetes-models; installs itself into a cache
# the first time, which needs the npm registry). The validator is first shown a
# manifest it must reject, so a validator that accepts anything fails the test.
# usage: test_k8s_validate.sh K8S_VALIDATE SOURCE_DIR
set -u
tool=$1
src=$2
if [ ! -x "$tool" ]; then
    echo "FAIL: $tool not found (set AA_K8S_VALIDATE)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bad.yaml" <<'BAD'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  replicas: two
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: bad}
    spec:
      containers:
        - name: bad
          image: bad
          ports:
            - containerPort: http
BAD
if "$tool" "$tmp/bad.yaml" >"$tmp/bad.out" 2>&1 ||
    ! grep -q "replicas must be integer" "$tmp/bad.out"; then
    echo "FAIL: the validator did not reject an invalid Deployment for its schema:"
    cat "$tmp/bad.out"
    exit 1
fi
n=$(ls "$src"/docker/k8s/*.yaml | wc -l)
"$tool" "$src"/docker/k8s/*.yaml >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ $rc -ne 0 ]; then
    echo "FAIL: k8s-validate exit $rc"
    exit 1
fi
# One document per file, every one valid.
if ! grep -qx "$n/$n documents valid" "$tmp/out"; then
    echo "FAIL: expected \"$n/$n documents valid\""
    exit 1
fi
