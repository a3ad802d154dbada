#!/bin/sh
# anchor_build.sh: .carry/anchor/ for bench/gpu_full.sh's anchor phases: the
# daemon, runner (probes/) and kernels of the commit issue 19's anchor
# screens ran (e690b81, 2026-12-01: 432.6 s cold, 168.1 s warm on one H200),
# built from a worktree of that commit, so that the anchor runs beside
# today's build on one machine in one session.
#
#   sh bench/anchor_build.sh [COMMIT]
set -eu
C=${1:-e690b81}
T=${TMPDIR:-/tmp}/opscreen-anchor-$C
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -d "$T" ] || git worktree add -f "$T" "$C"
make -C "$T" -j"$(nproc)" all NVCC="$NVCC"
rm -rf .carry/anchor
mkdir -p .carry/anchor/build
cp "$T/build/opscreend" .carry/anchor/
cp "$T/build/libopscreen_kernels.so" "$T/build/libopscreen_kernels_host.so" .carry/anchor/build/
cp -r "$T/probes" .carry/anchor/probes
find .carry/anchor -name __pycache__ -prune -exec rm -rf {} +
echo "$C" > .carry/anchor/COMMIT
du -sh .carry/anchor
