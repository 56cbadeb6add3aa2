#!/usr/bin/env bash
# The Colab notebook's cells (docs/README.md): listed, run, or extracted (DIR/cells.tsv, NN.md, NN.sh, NN.py, pngs.txt).
# usage: scripts/notebook.sh list|extract DIR|run [NOTEBOOK]
# NOTEBOOK: default notebooks/colab.ipynb. Exit codes: 0 ok, 1 a failed cell or a missing chart, 2 not a notebook or usage.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
cmd=${1:-} ran=0
extract() { # DIR NOTEBOOK
    need python3 "error: python3 not found: it reads the notebook's JSON"
    python3 - "$1" "$2" <<'EOF'
import json, os, re, sys
out, path = sys.argv[1], sys.argv[2]
def fail(why):
    print("error: %s: %s" % (path, why), file=sys.stderr)
    sys.exit(2)
def write(name, text):
    open(os.path.join(out, name), "w", encoding="utf-8").write(text)
try:
    nb = json.load(open(path, encoding="utf-8"))
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
            write("%02d.md" % i, src + "\n")
        rows.append((i, kind, outputs, lines[0]))
        continue
    bash = lines[0].strip() == "%%bash"
    body = lines[1:] if bash else lines
    first = next((l for l in body if l.strip()), "")
    shell = [l.strip()[1:] for l in body if l.strip().startswith("!")]
    kind = "network" if first.startswith("# network:") else "bash" if bash else "shell" if shell else "python"
    if kind in ("bash", "shell"):
        write("%02d.sh" % i, "\n".join(body) + "\n" if bash else
              "".join("%s\nrc=$?; [ $rc -eq 0 ] || exit $rc\n" % l for l in shell))
    if not bash:
        python = "\n".join(l for l in body if not l.strip().startswith(("!", "%")))
        write("%02d.py" % i, python + "\n")
        pngs += re.findall(r"""["']([^"'\s]+\.png)["']""", python)
    rows.append((i, kind, outputs, first if not bash else "%%bash: " + first))
write("cells.tsv", "".join("%d\t%s\t%d\t%s\n" % r for r in rows))
write("pngs.txt", "".join(p + "\n" for p in pngs))
EOF
}
case $cmd in
list | run) nb=${2:-notebooks/colab.ipynb} ;;
extract) extract "${2:?usage: scripts/notebook.sh list|extract DIR|run [NOTEBOOK]}" "${3:-notebooks/colab.ipynb}"; exit ;;
*) usage ;;
esac
extract "$tmp" "$nb" || exit $?
while IFS=$'\t' read -r i kind _ first; do
    case $cmd:$kind in
    *:markdown | *:raw | run:python) ;;
    list:network) echo "cell $i: not run (needs the network): $first" ;;
    list:python) echo "cell $i: Python, not run: $first" ;;
    list:*)
        echo "cell $i: runs ($kind): $first"
        # shellcheck disable=SC2016 # the line the ! lines are followed by, as written
        grep -v '^rc=\$?; \[ \$rc -eq 0 \]' "$tmp/$(printf %02d "$i").sh" | sed '/^ *$/d; s/^/    /' ;;
    run:network) echo "== cell $i: skipped, it needs the network: $first" ;;
    *) # run: each cell as Colab would, in the repository root; the first that fails stops the run.
        echo "== cell $i: $first"
        start=$SECONDS
        bash "$tmp/$(printf %02d "$i").sh" </dev/null || { echo "FAIL: cell $i exited $? ($first)"; exit 1; }
        echo "== cell $i: ok ($((SECONDS - start)) s)"
        ran=$((ran + 1)) ;;
    esac
done <"$tmp/cells.tsv"
[ "$cmd" = run ] || exit 0
missing=$(while read -r png; do [ "$(head -c 4 "$png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || echo "$png"; done <"$tmp/pngs.txt")
[ -z "$missing" ] || { echo "FAIL: the notebook shows charts that are not there: ${missing//$'\n'/ }"; exit 1; }
echo "PASS: $ran cells of $nb ran; the $(grep -c . "$tmp/pngs.txt") charts it shows are there"
