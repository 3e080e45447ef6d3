#!/usr/bin/env bash
# Copies the files of LIST (paths relative to SRC, one a line: ci/gpu_preflight.sh --tree-files) from SRC into DEST for
# the GPU dress rehearsal's reused build, which ninja judges by mtime: mtimes are kept (an unchanged file is not
# rebuilt) and every file whose content differs from the last copy (sums in DEST.sha256) is touched, since a tree from
# another checkout can hold a changed file older than its object.
#   bash ci/gpu_tree_copy.sh LIST SRC DEST
set -euo pipefail
[ $# = 3 ] && [ -f "$1" ] && [ -d "$2" ] || { echo "usage: bash ci/gpu_tree_copy.sh LIST SRC DEST" >&2; exit 4; }
list=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") dest=$3 sums=$3.sha256
mkdir -p "$dest"
(cd "$2" && tar -cf - -T "$list") | tar -xf - -C "$dest"
(cd "$dest" && tr '\n' '\0' <"$list" | xargs -0 -r sha256sum) | sort >"$sums.new"
touch "$sums"
# The lines of the new sums not in the old (changed or new files); a sum line is 64 hex, 2 spaces, the path.
(cd "$dest" && comm -13 <(sort "$sums") "$sums.new" | cut -c67- | tr '\n' '\0' | xargs -0 -r touch)
mv "$sums.new" "$sums"
