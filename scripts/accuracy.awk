# The accuracy lab's tables (scripts/accuracy.sh) in markdown, from its CSV, its columns read by name:
#   awk -f scripts/csv.awk [-v lang=zh] -f scripts/accuracy.awk accuracy.csv
# First each kernel's relative error on the random and the wide data at every fourth power of two of N,
# then on the cond data against the condition number; each cell "error (bound)", the bound being the
# one its check used, relative to the reference; a result outside it is marked FAIL (xfail: expected).
BEGIN { need = "stage kernel n rel_err pass fill rel_bound cond" }
function say(en, zh) { return lang == "zh" ? zh : en }
function cell(key) {
    if (!(key in err)) return " - |"
    return sprintf(" %s (%s)%s |", err[key] ~ /^[0-9]/ ? sprintf("%.1e", err[key]) : err[key], bound[key] == "" ? "-" : sprintf("%.1e", bound[key]),
                   verdict[key] == "1" ? "" : verdict[key] == "xfail" ? " xfail" : " FAIL")
}
function add(list, v, seen_list) { if (!((list, v) in seen_list)) { seen_list[list, v] = 1; return 1 } return 0 }
$col["stage"] == "00_device" || $col["kernel"] == "cub" { next }
{
    label = "`" substr($col["stage"], 1, index($col["stage"], "_") - 1) " " $col["kernel"] "`"
    if (!(label in seen)) { seen[label] = 1; order[++count] = label }
    f = $col["fill"]; x = f == "cond" ? $col["cond"] : $col["n"]
    key = label SUBSEP f SUBSEP x
    err[key] = $col["rel_err"]; bound[key] = $col["rel_bound"]; verdict[key] = $col["pass"]
    if (f == "cond") { if (!(x in cseen)) { cseen[x] = 1; conds[++nc] = x }; condn = $col["n"] }
    else if (!(x in nseen)) { e = log(x) / log(2); if (e - int(e / 4) * 4 < 0.5) { nseen[x] = 1; ns[++nn] = x } }
}
END {
    for (i = 2; i <= nn; i++) for (j = i; j > 1 && ns[j - 1] + 0 > ns[j] + 0; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
    for (i = 2; i <= nc; i++) for (j = i; j > 1 && conds[j - 1] + 0 > conds[j] + 0; j--) { t = conds[j]; conds[j] = conds[j - 1]; conds[j - 1] = t }
    print say("Relative error (bound) against N:", "相对误差（界）随 N 的变化：")
    print ""
    line = say("| kernel | data |", "| kernel | 数据 |"); sep = "|---|---|"
    for (j = 1; j <= nn; j++) { line = line sprintf(" 2^%d |", log(ns[j]) / log(2) + 0.5); sep = sep "---:|" }
    print line; print sep
    split("random wide", fills, " ")
    for (f = 1; f <= 2; f++)
        for (i = 1; i <= count; i++) {
            line = "| " order[i] " | " fills[f] " |"
            for (j = 1; j <= nn; j++) line = line cell(order[i] SUBSEP fills[f] SUBSEP ns[j])
            print line
        }
    if (!nc) exit
    print ""
    printf say("Relative error (bound) against the condition number sum|x| / |sum x|, N = %d:", "相对误差（界）随条件数 sum|x| / |sum x| 的变化，N = %d：") "\n\n", condn
    line = "| kernel |"; sep = "|---|"
    for (j = 1; j <= nc; j++) { line = line sprintf(" %s |", conds[j]); sep = sep "---:|" }
    print line; print sep
    for (i = 1; i <= count; i++) {
        line = "| " order[i] " |"
        for (j = 1; j <= nc; j++) line = line cell(order[i] SUBSEP "cond" SUBSEP conds[j])
        print line
    }
}
