#!/usr/bin/env bash
# The package under Node against the native CLI: for corpus models (OBJ with .mtl and
# textures, FBX skinned and animated, FBX with an embedded texture) in both layouts, the files
# `convert` gives must equal `kiln convert`'s byte for byte (the manifest aside, which records
# files on disk: web/test/compare.mjs). Every process runs under a time limit, and Node's heap
# under a size limit
# (an address-space limit would refuse the memory V8 reserves for WebAssembly).
set -euo pipefail
cd "$(dirname "$0")/../.."
kiln=${KILN:-target/debug/kiln}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models=(
    OBJ/spider.obj
    OBJ/WusonOBJ.obj
    FBX/spider.fbx
    FBX/animation_with_skeleton.fbx
    FBX/huesitos.fbx
    FBX/box_orphant_embedded_texture.fbx
)
for rel in "${models[@]}"; do
    model=/usr/share/assimp/models/$rel
    for layout in kiln classic; do
        name=$(echo "$rel-$layout" | tr '/' '_')
        timeout 300 node --max-old-space-size=2048 web/test/node.mjs "$model" "$tmp/node-$name" "$layout" \
            > "$tmp/$name.log"
        timeout 300 "$kiln" convert "$model" -o "$tmp/cli-$name" --layout "$layout" > /dev/null 2>&1
        timeout 60 node web/test/compare.mjs "$tmp/node-$name" "$tmp/cli-$name" "$rel ($layout)"
    done
done
