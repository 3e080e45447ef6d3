#!/usr/bin/env bash
# Here, before a GPU window (no device time): refuses to start one that would be wasted, then
# prints the plan and the device-tool calls to send, the second written down before the first.
# Refuses (exit 1, each reason named, with a hint) when
#   - .deps/debs is missing or lacks a package of ci/bundle_packages.txt (a bundle made before
#     the list grew: configure would stop at the missing package's find_package there);
#   - the working tree the device tool sends (tracked and untracked-not-ignored files, shared/,
#     the carried .deps/debs) is over the tool's 64 MiB;
#   - the working tree has uncommitted changes (what travels would not be the commit named);
#   - the last dress rehearsal (ci/gpu_rehearsal.sh: GPU_REHEARSAL_LOGS/rehearsed.txt) is not
#     of HEAD, or did not pass.
#   bash ci/gpu_preflight.sh              the checks, the plan, the two calls
#   bash ci/gpu_preflight.sh --tree-files the files the device tool would send (the rehearsal copies these)
# Environment: GPU_REHEARSAL_LOGS (default results/gpu-rehearsal), GPU_WINDOW_S (the device time
# of the window, default 900), GPU_START_S (a machine's start, default 120: "a minute or more").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 4
carry=(.deps/debs)  # what the calls name in `carry`
max_tree=$((64 << 20))
tree_files() {
  { git ls-files -co --exclude-standard; [ ! -d shared ] || find shared -type f; find "${carry[@]}" -type f 2>/dev/null; } | sort -u
}
[ "${1:-}" != --tree-files ] || { tree_files; exit 0; }
problems=0
refuse() { echo "preflight: REFUSED: $1" >&2; echo "  hint: $2" >&2; problems=$((problems + 1)); }

# The bundle: every package the bundle script wants has its .deb.
wanted=$(grep -v '^#' ci/bundle_packages.txt | grep -v '^\s*$')
if ! compgen -G ".deps/debs/*.deb" >/dev/null; then
  refuse "no .deps/debs/*.deb: the GPU machine has no Debian packages and no network" "run ci/bundle_debs.sh here (apt works here)"
else
  missing=$(for p in $wanted; do compgen -G ".deps/debs/${p}_*.deb" >/dev/null || echo "$p"; done | paste -sd' ' -)
  [ -z "$missing" ] || refuse ".deps/debs lacks $(wc -w <<<"$missing") package(s) of ci/bundle_packages.txt: $missing" \
    "run ci/bundle_debs.sh again (the list grew since the bundle was made)"
fi
# The tree that travels.
bytes=$(tree_files | tr '\n' '\0' | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
files=$(tree_files | wc -l)
echo "preflight: the tree that travels: $files files, $((bytes >> 20)) MiB of the tool's 64 MiB ($(du -sb .deps/debs 2>/dev/null | awk '{print int($1 / 1048576)}') MiB of them .deps/debs)"
[ "${bytes:-0}" -le "$max_tree" ] || refuse "the tree that travels is $((bytes >> 20)) MiB, over the device tool's 64 MiB" \
  "ignore or remove large untracked files (bash ci/gpu_preflight.sh --tree-files | xargs du -b | sort -n | tail)"
# The commit: clean, and rehearsed.
head=$(git rev-parse HEAD)
dirty=$(git status --porcelain --untracked-files=normal | wc -l)
[ "$dirty" = 0 ] || refuse "$dirty uncommitted change(s): the tool sends the working tree, not HEAD" "commit (or stash) them first"
stamp=${GPU_REHEARSAL_LOGS:-$root/results/gpu-rehearsal}/rehearsed.txt
if [ ! -f "$stamp" ]; then
  refuse "no rehearsal record ($stamp)" "run the dress rehearsal first: ci/gpu_rehearsal.sh (root; GPU_REHEARSAL_REUSE=1 keeps its root)"
else
  r_commit=$(awk '$1 == "commit" {print $2}' "$stamp"); r_dirty=$(awk '$1 == "dirty" {print $2}' "$stamp")
  r_exit=$(awk '$1 == "exit" {print $2}' "$stamp")
  [ "$r_commit" = "$head" ] && [ "$r_dirty" = 0 ] ||
    refuse "the last rehearsal was of ${r_commit:0:12}$([ "${r_dirty:-0}" = 0 ] || echo " with $r_dirty uncommitted change(s)"), not HEAD ${head:0:12}" \
      "run ci/gpu_rehearsal.sh again on this commit (GPU_REHEARSAL_REUSE=1: minutes)"
  [ "$r_exit" = 0 ] || refuse "the last rehearsal did not pass (exit ${r_exit:-none})" "read ${stamp%/*}/verdict.md, fix, rehearse again"
fi
[ "$problems" = 0 ] || { echo "preflight: $problems reason(s) not to start the window" >&2; exit 1; }
python3 ci/gpu_window_plan.py --commit "$head" --window "${GPU_WINDOW_S:-900}" --start "${GPU_START_S:-120}"
