#!/usr/bin/env bash
# Validates deploy/kubernetes/ offline, without a cluster: kustomize renders the manifests
# (kubectl kustomize, when kubectl is installed), then every object is checked strictly
# (unknown fields are errors) against the OpenAPI schemas of Kubernetes 1.28 (the oldest the
# StatefulSet's pod-index label works on) and of the newest release the checker knows.
# The checker is PyPI's kubernetes-validate, pinned, in a virtual environment under .build
# (a checking tool, not a FrameFlow dependency); the first run installs it (~10 s).
# FrameFlowFleetTests' KubernetesManifestTests check what the schemas cannot: the fleet file
# and the video list in the ConfigMap parse, and the shard counts agree.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build/venv-kubernetes-validate
version=1.37.0
if ! "$venv/bin/kubernetes-validate" --version 2>/dev/null | grep -q "$version"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "kubernetes-validate==$version"
fi
files=(deploy/kubernetes/*.yaml)
if command -v kubectl >/dev/null 2>&1; then
    rendered=.build/kubernetes-rendered.yaml
    kubectl kustomize deploy/kubernetes >"$rendered"
    files=("$rendered")
else
    echo "check-kubernetes: kubectl not installed: validating the files without rendering the kustomization"
    files=($(ls deploy/kubernetes/*.yaml | grep -v kustomization.yaml))
fi
for k in 1.28.0 "$version"; do
    "$venv/bin/kubernetes-validate" --strict --quiet -k "$k" "${files[@]}"
done
echo "check-kubernetes: $(grep -c '^kind:' "${files[@]}" | awk -F: '{s += $NF} END {print s}') objects valid against Kubernetes 1.28.0 and $version"
