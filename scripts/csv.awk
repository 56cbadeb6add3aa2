# Columns by name, for every awk program over a results CSV (or any CSV with a header line).
# Load it first:  awk -f scripts/csv.awk [-v ...] -f PROGRAM CSV...
# On the header line of each file it sets col[NAME] to the position of column NAME, so that a program
# reads $col["stage"], never $2, and the header line itself never reaches the program. A program names
# the columns it reads in `need` (space-separated, set in its BEGIN block or with -v need=...). A file
# without one of them, or a row whose number of fields differs from its header's, stops the run with
# exit 2 and a message on stderr (the END blocks of the program do not run then).
BEGIN { FS = "," }
function csv_fail(why) {
    printf "error: %s\n", why > "/dev/stderr"
    csv_failed = 1
    exit 2
}
function csv_header(   names, count, i) {
    split("", col)
    for (i = 1; i <= NF; i++) col[$i] = i
    csv_width = NF
    count = split(need, names, " ")
    for (i = 1; i <= count; i++)
        if (!(names[i] in col)) csv_fail(FILENAME " is not a results CSV of this layout: it has no column " names[i] " (its first line: " $0 ")")
}
FNR == 1 { csv_header(); next }
NF != csv_width { csv_fail(FILENAME " line " FNR ": " NF " fields, where its header has " csv_width) }
# This END block comes first (the file is loaded first): after a failure it ends the run here.
END { if (csv_failed) exit 2 }
