# shellcheck shell=bash
# The Colab notebook (notebooks/colab.ipynb): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp
# and $gpu exist. The host half reads it (scripts/notebook.sh extract); the GPU half runs its shell
# cells in this checkout, in order, as "Run all" would (scripts/notebook.sh run).
nb=notebooks/colab.ipynb
nbdir=$tmp/notebook

# notebook_goals DIR: the make goals that the shell cells extracted into DIR (DIR/NN.sh) name, one a
# line: the words after a command "make", up to the first that is not a goal (a redirection, |, &&, ...),
# less its options (-s) and variables (ARGS="...").
notebook_goals() {
    cat "$1"/*.sh 2>/dev/null | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' | sed -E "s/\"[^\"]*\"/Q/g; s/'[^']*'/Q/g" | awk '
        { n = split($0, w, /[ \t]+/); after = 1
          for (i = 1; i <= n; i++) {
              if (w[i] == "make" && after) { on = 1; continue }
              if (on && w[i] ~ /^-|=/) continue
              if (on && w[i] ~ /^[a-z0-9][a-z0-9_-]*$/) { print w[i]; continue }
              on = 0
              after = w[i] == "" || w[i] ~ /^(;|&&|\|\||\||\(|\{|then|do|else|!)$/
          } }' | sort -u
}
# unknown_goals DIR HELP: the goals of DIR that the make help text in the file HELP does not list.
unknown_goals() {
    local stages g
    stages=" $(grep -m1 -E '^ *make stage-NN  ' "$2" | grep -oE '\([0-9 ]+\)' | tr -d '()') "
    for g in $(notebook_goals "$1"); do
        case $g in
            stage-*) [[ $stages == *" ${g#stage-} "* ]] || echo "$g" ;;
            help) ;; # make help itself
            *) grep -qE "make (stage-NN )?$g( |$)" "$2" || echo "$g" ;;
        esac
    done | tr '\n' ' '
}

if scripts/notebook.sh extract "$nbdir" "$nb" 2>"$tmp/nb.err"; then
    ok "$nb is an nbformat 4 notebook whose cells scripts/notebook.sh extracts"
else
    bad "$nb does not extract: $(head -n 2 "$tmp/nb.err" | tr '\n' ' ')"
fi
# The schema of nbformat 4, where a Python with the nbformat package is found (Debian: python3-nbformat).
schema_py=$(for py in python3 /usr/bin/python3; do "$py" -c 'import nbformat' 2>/dev/null && { echo "$py"; break; }; done)
if [ -z "$schema_py" ]; then
    skipped "$nb against nbformat's schema ($(missing nbformat))"
elif "$schema_py" -c 'import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))' "$nb" 2>"$tmp/nb.schema"; then
    ok "$nb is valid against nbformat's schema"
else
    bad "$nb against nbformat's schema: $(tail -n 3 "$tmp/nb.schema" | tr '\n' ' ')"
fi
if [ -s "$nbdir/cells.tsv" ]; then
    with_outputs=$(awk -F'\t' '$3 > 0 { printf "%s ", $1 }' "$nbdir/cells.tsv")
    if [ -z "$with_outputs" ]; then ok "$nb is committed without outputs"; else bad "$nb: cells with outputs committed: $with_outputs"; fi
    runs=$(awk -F'\t' '$2 == "bash" || $2 == "shell"' "$nbdir/cells.tsv" | wc -l)
    network=$(awk -F'\t' '$2 == "network"' "$nbdir/cells.tsv" | wc -l)
    if scripts/notebook.sh list "$nb" >"$tmp/nb.list" 2>&1 && [ "$(grep -c ': runs (' "$tmp/nb.list")" = "$runs" ] && [ "$runs" -gt 0 ]; then
        ok "scripts/notebook.sh list: $runs cells run on a GPU machine, $network need the network and are skipped:"
        grep '^cell ' "$tmp/nb.list" | cut -c1-100 | sed 's/^/     | /'
    else
        bad "scripts/notebook.sh list (exit $?, $runs cells to run):"; tail -n 5 "$tmp/nb.list" | sed 's/^/     | /'
    fi
    # What needs the network is marked so, and the clone is among it.
    unmarked=$(grep -lE '(^|[;&|] *)(git clone|apt-get|apt |pip3? install|curl|wget) ' "$nbdir"/*.sh 2>/dev/null | xargs -rn1 basename | tr '\n' ' ')
    if [ -z "$unmarked" ] && grep -q 'git clone' "$nb" && [ "$network" -ge 1 ]; then
        ok "the clone and the installs are in '# network:' cells, which the tests do not run"
    else
        bad "$nb: cells that use the network without '# network:' (${unmarked:-none}), or no network cell holds the clone"
    fi
    # IPython expands \$name and {expr} in a ! line; bash, which runs it here, would not.
    marker='rc=$?; [ $rc -eq 0 ] || exit $rc' expanded=
    for f in "$nbdir"/*.sh; do
        grep -qxF "$marker" "$f" || continue # a cell of ! lines
        grep -vxF "$marker" "$f" | grep -q '[$\{]' && expanded="$expanded $(basename "$f")"
    done
    if [ -z "$expanded" ]; then ok "no ! line that runs here uses \$ or { } (IPython would expand them)"
    else bad "$nb: ! lines with \$ or { } that IPython expands and bash would not: $expanded"; fi
    if command -v python3 >/dev/null && python3 -c 'import sys
for f in sys.argv[1:]: compile(open(f, encoding="utf-8").read(), f, "exec")' "$nbdir"/*.py 2>"$tmp/nb.py"; then
        ok "the notebook's Python cells compile"
    else
        bad "the notebook's Python cells: $(tail -n 2 "$tmp/nb.py" | tr '\n' ' ')"
    fi
    make --no-print-directory -s help >"$tmp/nb.help" 2>&1
    goals=$(notebook_goals "$nbdir" | tr '\n' ' ')
    unknown=$(unknown_goals "$nbdir" "$tmp/nb.help")
    if [ -n "$goals" ] && [ -z "$unknown" ]; then ok "every make goal the notebook's cells name is in make help: $goals"
    else bad "$nb names make goals that make help does not list: ${unknown:-(it names none)}"; fi
    mkdir -p "$tmp/nb.wrong"
    printf 'make -s stage-05 runn ARGS="--n 16M" 2>&1 | tee log\nx && make stage-99 \\\n  check\n' >"$tmp/nb.wrong/01.sh"
    if [ "$(unknown_goals "$tmp/nb.wrong" "$tmp/nb.help")" = "runn stage-99 " ]; then ok "the make goal check finds goals that make help does not list"
    else bad "the make goal check on 'make stage-05 runn' and 'make stage-99 check' finds: $(unknown_goals "$tmp/nb.wrong" "$tmp/nb.help")"; fi
    committed=$(grep -v '^plots/results/' "$nbdir/pngs.txt")
    missing=$(for png in $committed; do [ -f "$png" ] || echo "$png"; done | tr '\n' ' ')
    if [ -n "$committed" ] && [ -z "$missing" ]; then ok "the committed charts the notebook shows are there ($(echo $committed))"
    else bad "$nb shows committed charts that are missing: ${missing:-(it shows none)}"; fi
    # English with the Chinese beside it: each markdown cell's headings in two halves of the same
    # levels, the second half in Chinese.
    halves=
    for md in "$nbdir"/*.md; do
        levels=$(grep -oE '^#+ ' "$md" | tr -d ' ' | tr '\n' ' ')
        count=$(grep -cE '^#+ ' "$md")
        second=$(grep -E '^#+ ' "$md" | tail -n $((count / 2)))
        if [ $((count % 2)) = 1 ] || [ "$count" = 0 ] || [ "$(grep -E '^#+ ' "$md" | head -n $((count / 2)) | grep -oE '^#+' | tr '\n' ' ')" != "$(echo "$second" | grep -oE '^#+' | tr '\n' ' ')" ] ||
            [ "$(echo "$second" | LC_ALL=C grep -c $'[\xe4-\xe9]')" != $((count / 2)) ]; then
            halves="$halves $(basename "$md") ($levels)"
        fi
    done
    if [ -z "$halves" ]; then ok "every markdown cell of the notebook is in English, then in Chinese under the same headings"
    else bad "$nb: markdown cells without their Chinese half:$halves"; fi
fi
# The READMEs link the notebook, and the repository's public path is the same in both and in REPO_URL.
for readme in README.md README.zh-CN.md; do
    if grep -q "](notebooks/colab.ipynb)" "$readme"; then ok "$readme links $nb"; else bad "$readme does not link $nb"; fi
done
paths=$( { grep -ohE 'colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/notebooks/colab\.ipynb' README.md README.zh-CN.md |
           sed -E 's|.*/github/([^/]+/[^/]+)/.*|\1|'
           cat "$nbdir"/*.py 2>/dev/null | grep -oE 'REPO_URL = "https://github\.com/[^/"]+/[^/"]+"' | sed -E 's|.*github\.com/([^"]+)"|\1|'; } | sort | uniq -c)
if [ "$(echo "$paths" | grep -c .)" = 1 ] && [ "$(echo "$paths" | awk '{ print $1 }')" = 3 ]; then
    ok "the Open in Colab links of both READMEs and the notebook's REPO_URL name one repository ($(echo $paths | awk '{ print $2 }'))"
else
    bad "the Open in Colab links and REPO_URL do not name one repository: $(echo $paths)"
fi

if [ "$gpu" != 1 ]; then
    skipped "the notebook's shell cells run in order on the GPU (no GPU: nvidia-smi -L finds none)"
elif ! command -v gnuplot >/dev/null; then
    skipped "the notebook's shell cells run in order on the GPU ($(missing gnuplot); the notebook's own install cell needs the network)"
else
    scripts/notebook.sh run "$nb" >"$tmp/nb.run" 2>&1
    rc=$?
    while read -r _ _ cell _; do ok "notebook cell ${cell%:} runs on this GPU"; done < <(grep -E '^== cell [0-9]+: ok' "$tmp/nb.run")
    if [ $rc -eq 0 ]; then ok "scripts/notebook.sh run: $(tail -n 1 "$tmp/nb.run")"
    else bad "scripts/notebook.sh run exits $rc:"; tail -n 15 "$tmp/nb.run" | sed 's/^/     | /'; fi
fi
