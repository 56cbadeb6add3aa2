# Rows of Nsight Compute's CSV (ncu --csv --print-units base), for the awk programs of the scripts that
# read it (scripts/flush_check.sh, scripts/limits.sh). Load it first:
#   awk -f scripts/ncu.awk -f PROGRAM NCU_OUTPUT
# Lines that are not a metric row (the program's own output, the header) never reach the program; for a
# metric row it sets ncu_id (the launch), ncu_kernel, ncu_metric and ncu_value (commas removed).
# ends_run(kernel): whether a launch of that kernel ends a run of the harness: a CUB run ends with its
# single-tile kernel, any other launch is a run by itself.
# ncu quotes every field (a value may hold commas): the fields are split on the quotes.
function ncu_split(s,   k) { k = 0; delete ncu_f; while (match(s, /"[^"]*"/)) { ncu_f[++k] = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) }; return k }
function ends_run(kernel) { return kernel !~ /DeviceReduce/ || kernel ~ /SingleTile/ }
/^"ID"/ { ncu_n = ncu_split($0); for (ncu_i = 1; ncu_i <= ncu_n; ncu_i++) ncu_col[ncu_f[ncu_i]] = ncu_i; next }
!("Metric Value" in ncu_col) || ncu_split($0) < ncu_col["Metric Value"] { next }
{
    ncu_id = ncu_f[ncu_col["ID"]]; ncu_kernel = ncu_f[ncu_col["Kernel Name"]]; ncu_metric = ncu_f[ncu_col["Metric Name"]]
    ncu_value = ncu_f[ncu_col["Metric Value"]]; gsub(/,/, "", ncu_value)
}
