# shellcheck shell=bash
# What the scripts that drive the programs share; each sources it after cd-ing to the repository root.
#   programs          every stage's program, one a line, in stage order (make programs; the Makefile's
#                     recipes pass them in REDUCE_PROGRAMS rather than calling make again)
#   describe P KEY    one key of program P's --describe (no GPU needed)
#   gpu_folder CSV    the folder name of a results CSV's GPU, as plots/results/ and plots/reference/
#                     use it: "NVIDIA H200" -> "nvidia-h200"
# shellcheck disable=SC2086 # one program a word
programs() { printf '%s\n' ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; }
describe() { "$1" --describe | sed -n "s/^$2: *//p"; }
gpu_folder() { awk -F, 'NR == 2 { print $1 }' "$1" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//'; }
