#!/usr/bin/env bash
# The folder name of a results CSV's GPU, as plots/results/ and plots/reference/ use it:
# "NVIDIA H200" -> "nvidia-h200".   usage: scripts/gpu_folder.sh CSV
set -eu
awk -F, 'NR == 2 { print $1 }' "${1:?usage: scripts/gpu_folder.sh CSV}" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//'
