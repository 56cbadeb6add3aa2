#!/usr/bin/env bash
# The Colab notebook's shell cells, run as a learner's "Run all" would run them, on a machine with a GPU.
# usage: scripts/notebook.sh list [NOTEBOOK]          the code cells: what runs, what does not, and why
#        scripts/notebook.sh extract DIR [NOTEBOOK]   DIR/cells.tsv, DIR/NN.sh, DIR/NN.py, DIR/pngs.txt
#        scripts/notebook.sh run [NOTEBOOK]           run the shell cells in the repository, in order
# NOTEBOOK: default notebooks/colab.ipynb. The notebook's conventions:
#   - a code cell whose first line is %%bash is one bash script (as Colab runs it);
#   - in any other code cell the lines that start with ! are shell commands, run one at a time; the rest
#     is Python and IPython's % magics (%cd), which this script does not run (DIR/NN.py: that Python);
#   - a cell whose first line (after %%bash) starts with "# network:" needs the internet (the clone and
#     the installs): it is listed and never run here, where the checkout is the one the cells test;
#   - a quoted path ending in .png in a Python cell is a chart the notebook shows: it must exist after
#     the run (DIR/pngs.txt).
# DIR/cells.tsv: a line per cell: its number (from 1), its kind (markdown, bash, shell, python or
# network), how many outputs it holds, and its first line; DIR/NN.md: the text of markdown cell NN.
# Exit codes: 0 ok; 1 a cell failed or a chart is missing (run); 2 not an nbformat 4 notebook, or usage.
set -u
cd "$(dirname "$0")/.." || exit 2
usage="usage: scripts/notebook.sh list|extract DIR|run [NOTEBOOK]"

# extract DIR NOTEBOOK
extract() {
    command -v python3 >/dev/null || { echo "error: python3 not found: it reads the notebook's JSON" >&2; exit 4; }
    python3 - "$1" "$2" <<'EOF'
import json, os, re, sys
out, path = sys.argv[1], sys.argv[2]
def fail(why):
    print("error: %s: %s" % (path, why), file=sys.stderr)
    sys.exit(2)
try:
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
except (OSError, ValueError) as e:
    fail("not a JSON notebook (%s)" % e)
if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
    fail("not an nbformat 4 notebook (its nbformat is not 4, or it has no list of cells)")
os.makedirs(out, exist_ok=True)
rows, pngs = [], []
for i, cell in enumerate(nb["cells"], 1):
    kind = cell.get("cell_type") if isinstance(cell, dict) else None
    if kind not in ("markdown", "code", "raw") or "source" not in cell or "metadata" not in cell:
        fail("cell %d is not a markdown, code or raw cell with a source and metadata" % i)
    src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    lines = src.split("\n")
    outputs = len(cell.get("outputs") or []) + (cell.get("execution_count") is not None)
    if kind != "code":
        if kind == "markdown":
            with open(os.path.join(out, "%02d.md" % i), "w", encoding="utf-8") as f:
                f.write(src + "\n")
        rows.append((i, kind, outputs, lines[0]))
        continue
    bash = lines[0].strip() == "%%bash"
    body = lines[1:] if bash else lines
    first = next((l for l in body if l.strip()), "")
    if first.startswith("# network:"):
        kind = "network"
    elif bash:
        kind = "bash"
        script = "\n".join(body) + "\n"
    else:
        shell = [l.strip()[1:] for l in body if l.strip().startswith("!")]
        kind = "shell" if shell else "python"
        script = "".join("%s\nrc=$?; [ $rc -eq 0 ] || exit $rc\n" % l for l in shell)
    if kind in ("bash", "shell"):
        with open(os.path.join(out, "%02d.sh" % i), "w", encoding="utf-8") as f:
            f.write(script)
    if not bash:
        python = [l for l in body if not l.strip().startswith(("!", "%"))]
        with open(os.path.join(out, "%02d.py" % i), "w", encoding="utf-8") as f:
            f.write("\n".join(python) + "\n")
        pngs += re.findall(r"""["']([^"'\s]+\.png)["']""", "\n".join(python))
    rows.append((i, kind, outputs, first if not bash else "%%bash: " + first))
with open(os.path.join(out, "cells.tsv"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write("%d\t%s\t%d\t%s\n" % r)
with open(os.path.join(out, "pngs.txt"), "w", encoding="utf-8") as f:
    f.write("".join(p + "\n" for p in pngs))
EOF
}

cmd=${1:-}
case $cmd in
    list | run) nb=${2:-notebooks/colab.ipynb} ;;
    extract) dir=${2:?$usage}; nb=${3:-notebooks/colab.ipynb} ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
if [ "$cmd" = extract ]; then extract "$dir" "$nb"; exit $?; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
extract "$tmp" "$nb" || exit $?

if [ "$cmd" = list ]; then
    while IFS=$'\t' read -r i kind _ first; do
        case $kind in
            markdown | raw) continue ;;
            network) echo "cell $i: not run (needs the network): $first" ;;
            python) echo "cell $i: Python, not run: $first" ;;
            *) echo "cell $i: runs ($kind): $first"; grep -v '^rc=\$?; \[ \$rc -eq 0 \]' "$tmp/$(printf %02d "$i").sh" | sed '/^ *$/d; s/^/    /' ;;
        esac
    done <"$tmp/cells.tsv"
    exit 0
fi

# run: each cell as Colab would, in the repository root; the first that fails stops the run.
ran=0
while IFS=$'\t' read -r i kind _ first; do
    case $kind in
        bash | shell) ;;
        network) echo "== cell $i: skipped, it needs the network: $first"; continue ;;
        *) continue ;;
    esac
    echo "== cell $i: $first"
    start=$SECONDS
    bash "$tmp/$(printf %02d "$i").sh" </dev/null
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: cell $i exited $rc ($first)"; exit 1; }
    echo "== cell $i: ok ($((SECONDS - start)) s)"
    ran=$((ran + 1))
done <"$tmp/cells.tsv"
missing=$(while read -r png; do [ "$(head -c 4 "$png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || echo "$png"; done <"$tmp/pngs.txt")
[ -z "$missing" ] || { echo "FAIL: the notebook shows charts that are not there: $(echo $missing)"; exit 1; }
echo "PASS: $ran cells of $nb ran; the $(grep -c . "$tmp/pngs.txt") charts it shows are there"
