# The pictures of one tree record (a CSV of the tree program, build/<stage>/tree: step,thread,seq,op,
# bytes,addr,src, sorted by step, thread and seq), for scripts/tree.sh.
# usage: awk -v mode=ascii|data|counts [-v dir=DIR] [-v width=64] [-v adds=1] -f scripts/tree.awk RECORD.csv
#   ascii   the compact form for a terminal: the tree, the active lanes, the banks, the shuffles
#   data    DIR/{nodes,edges,lanes,banks,conflicts,shuffles}.dat for plots/lab/tree.gp, and "key value" lines
#   counts  "ld INSTRUCTIONS WAVEFRONTS" and "st INSTRUCTIONS WAVEFRONTS": the shared-memory instructions
#           the record implies (one per warp, step and access of each lane in that step) and their
#           wavefronts (for 4-byte words: the most distinct words any one bank is asked for); with adds=1
#           also "add ADDITIONS UNUSED"
# The tree is inferred from the accesses: a value a thread writes to a slot is the sum of the slots it
# read since its last write (and of the value it holds, where that is still in the slot it last wrote,
# or where it read nothing; but not once it has passed a __syncthreads, "bar": a value it holds after
# a barrier without reading it is a new one); a shuffle down, up or by xor
# adds the lane's value and the one it read, __shfl_sync copies it. Leaves are the values written or
# shuffled from registers only (the loads from global memory, a zero).
# The block's results are the values that no later addition takes, except those whose elements another
# such value holds too, and more (lane 1's sum after a shuffle down, which lane 0's contains; an
# all-reduce leaves a result in every lane); an addition is used where a result depends on it, and
# unused otherwise: no result needs its sum.
BEGIN { FS = ","; nodes = 0; last = -1; if (width == "") width = 64 }
/^#/ { title = substr($0, 3); next }
$1 == "step" { next }
NF != 7 { printf "error: not a tree record line: %s\n", $0 > "/dev/stderr"; bad = 1; exit 2 }
{
    step = $1 + 0; t = $2 + 0; op = $4; bytes = $5 + 0; addr = $6 + 0; src = $7 + 0
    if (step != last) { end_step(); last = step }
    warp = int(t / 32); lane = t % 32
    if (t + 1 > threads) threads = t + 1
    if (op == "bar") { fresh[t] = 1; next }
    active[step, warp, lane] = 1; seen_step[step] = 1; seen_warp[warp] = 1
    if (op == "ld" || op == "st") {
        word = int(addr / 4); k = ++ord[t, op]
        if (base == "" || word < base) base = word
        key = step SUBSEP op SUBSEP warp SUBSEP k
        if (!(key in lanes_in)) { groups[++ngroups] = key }
        lanes_in[key]++
        nw = bytes > 4 ? int(bytes / 4) : 1
        for (j = 0; j < nw; j++) {
            if (!((key, word + j) in words)) { words[key, word + j] = 1; per_bank[key, (word + j) % 32]++ }
        }
        bank_of[key, lane] = word % 32
        if (op == "ld") { P[t] = P[t] " " slot_node(word) }
        else { v = combine(t, word, 1, step); slot[word] = v; R[t] = v; Rslot[t] = word }
    } else {
        shfl_t[++nshfl] = t; shfl_src[nshfl] = src < 0 ? -1 : warp * 32 + src; shfl_op[nshfl] = op
        shuffle_arg[step, warp] = op " " addr; shuffled[step, warp] = 1
        read_lane[step, warp, lane] = src < 0 ? "." : src
    }
}
END {
    if (bad) exit 2
    end_step()
    if (mode == "counts") { totals(); if (adds) { mark_used(); printf "add %d %d\n", additions(-1, 0), additions(-1, 1) }; exit }
    mark_used()
    if (mode == "data") { write_data(); exit }
    ascii()
}

# A node at position x (a shared-memory slot where is_slot, else a lane), step y, added by warp w; a
# leaf (no kids) at the step its value first appears.
function new_node(x, is_slot, y, w, c1, c2) {
    nodes++; nx[nodes] = x; ny[nodes] = y; nwp[nodes] = w; kids[nodes] = c1 (c2 == "" ? "" : " " c2); of_slot[nodes] = is_slot
    if (y > maxy) maxy = y
    return nodes
}
function slot_node(word) { if (!(word in slot)) slot[word] = new_node(word, 1, 0, -1, "", ""); return slot[word] }
# A node's position: a slot's index in the shared memory the kernel uses (from its lowest address), or a lane.
function px(i) { return of_slot[i] ? nx[i] - base : nx[i] }
# The value thread t holds now: what it read since its last write, and its own value where that counts.
function combine(t, x, is_slot, step,    n, i, list, u, seen, out, c) {
    n = split(P[t], list, " "); P[t] = ""; c = 0; out = ""
    for (i = 1; i <= n; i++) if (!(list[i] in seen)) { seen[list[i]] = 1; u[++c] = list[i] }
    if ((t in R) && R[t] != "" && !fresh[t] && (c == 0 || (Rslot[t] in slot) && slot[Rslot[t]] == R[t]) && !(R[t] in seen)) u[++c] = R[t]
    fresh[t] = 0
    if (c == 0) return new_node(x, is_slot, step, int(t / 32), "", "")
    if (c == 1) return u[1]
    out = new_node(x, is_slot, step + 1, int(t / 32), u[1], u[2])
    for (i = 3; i <= c; i++) kids[out] = kids[out] " " u[i]
    return out
}
function end_step(    i, t, s, old, v) {
    # (v first: awk may create R[t] before it calls combine, which looks at R[t].)
    for (i = 1; i <= nshfl; i++) { t = shfl_t[i]; v = combine(t, t, 0, last); R[t] = v; Rslot[t] = -1 }
    for (i = 1; i <= nshfl; i++) old[shfl_t[i]] = R[shfl_t[i]]
    for (i = 1; i <= nshfl; i++) {
        t = shfl_t[i]; s = shfl_src[i]
        if (s < 0 || !(s in old)) continue
        if (shfl_op[i] == "shfl_idx") R[t] = old[s]
        else R[t] = new_node(t, 0, last + 1, int(t / 32), old[t], old[s])
    }
    nshfl = 0
    split("", ord)
}
# used[i]: node i is a result or a result depends on it.
function mark_used(    i, n, c, j, r, q, nroots, root, leaves, seen, stack, sp, v, mine, result) {
    for (i = 1; i <= nodes; i++) { n = split(kids[i], c, " "); for (j = 1; j <= n; j++) taken[c[j]] = 1 }
    for (i = 1; i <= nodes; i++) if (!(i in taken)) root[++nroots] = i
    for (r = 1; r <= nroots; r++) {
        split("", seen); sp = 0; stack[++sp] = root[r]
        while (sp) {
            v = stack[sp--]
            if (v in seen) continue
            seen[v] = 1
            if (kids[v] == "") { holds[r, v] = 1; size[r]++; leaves[r] = leaves[r] " " v; holders[v] = holders[v] " " r }
            else { n = split(kids[v], c, " "); for (j = 1; j <= n; j++) stack[++sp] = c[j] }
        }
    }
    for (r = 1; r <= nroots; r++) {
        result = 1
        split(leaves[r], mine, " ")
        n = split(holders[mine[1]], c, " ")
        for (j = 1; j <= n && result; j++) {
            q = c[j]
            if (size[q] <= size[r]) continue
            result = 0
            for (i in mine) if (!((q, mine[i]) in holds)) { result = 1; break }
        }
        if (!result) continue
        sp = 0; stack[++sp] = root[r]
        while (sp) {
            v = stack[sp--]
            if (v in used) continue
            used[v] = 1
            n = split(kids[v], c, " "); for (j = 1; j <= n; j++) stack[++sp] = c[j]
        }
    }
}
function wavefronts(key,    b, m) { m = 0; for (b = 0; b < 32; b++) if (per_bank[key, b] > m) m = per_bank[key, b]; return m }
function totals(    g, key, p) {
    inst["ld"] = inst["st"] = wf["ld"] = wf["st"] = 0
    for (g = 1; g <= ngroups; g++) { key = groups[g]; split(key, p, SUBSEP); inst[p[2]]++; wf[p[2]] += wavefronts(key) }
    printf "ld %d %d\nst %d %d\n", inst["ld"], wf["ld"], inst["st"], wf["st"]
}
function warps_count(    w, c) { c = 0; for (w in seen_warp) c++; return c }
# The access rows of the bank picture: one a load or store of a step (k: the thread's k-th of them in
# that step), the warps of that access side by side.
function write_data(    i, n, c, j, w, s, l, g, key, p, row, rows, nrows, conflicts, nsh) {
    for (i = 1; i <= nodes; i++) {
        printf "%d %d %d %d %d\n", px(i), ny[i], nwp[i], kids[i] == "", i in used > dir "/nodes.dat"
        n = split(kids[i], c, " ")
        for (j = 1; j <= n; j++) printf "%d %d %d %d %d %d\n", px(c[j]), ny[c[j]], px(i) - px(c[j]), ny[i] - ny[c[j]], nwp[i], i in used > dir "/edges.dat"
    }
    printf "" > dir "/lanes.dat"; printf "" > dir "/banks.dat"; printf "" > dir "/conflicts.dat"; printf "" > dir "/shuffles.dat"
    for (s = 0; s <= last; s++) for (w = 0; w < warps_count(); w++) for (l = 0; l < 32; l++)
        if ((s, w, l) in active) printf "%d %d %d\n", w * 32 + l, s, w > dir "/lanes.dat"
    for (g = 1; g <= ngroups; g++) {
        key = groups[g]; split(key, p, SUBSEP)
        if (!((p[1], p[2], p[4]) in rows)) rows[p[1], p[2], p[4]] = ++nrows
        row = rows[p[1], p[2], p[4]]
        for (l = 0; l < 32; l++) if ((key, l) in bank_of) printf "%d %d %d\n", p[3] * 32 + l, row, bank_of[key, l] > dir "/banks.dat"
        if (wavefronts(key) > 1) { printf "%d %d %d\n", p[3] * 32 + 16, row, wavefronts(key) > dir "/conflicts.dat"; conflicts++ }
    }
    for (s = 0; s <= last; s++) for (l = 0; l < 32; l++)
        if (((s, 0, l) in read_lane) && read_lane[s, 0, l] != ".") printf "%d %d %d\n", read_lane[s, 0, l], s, l > dir "/shuffles.dat"
    for (s = 0; s <= last; s++) if ((s, 0) in shuffled) nsh++
    printf "title %s\nthreads %d\nsteps %d\nnodes %d\naccesses %d\nconflicts %d\nshuffles %d\n", title, threads, last + 1, nodes, nrows + 0, conflicts + 0, nsh + 0
    printf "additions %d\nunused %d\ncounts %s\n", additions(-1, 0), additions(-1, 1), totals_text()
}
# Additions at step y (-1: every step), or only the unused ones.
function additions(y, unused_only,    i, cnt) {
    for (i = 1; i <= nodes; i++) if (kids[i] != "" && (y < 0 || ny[i] == y) && !(unused_only && i in used)) cnt++
    return cnt + 0
}
function mask(s, w,    l, m) { m = ""; for (l = 0; l < 32; l++) m = m (((s, w, l) in active) ? "#" : "."); return m }
function ascii(    y, x, i, row, cnt, unused, s, w, nwarps, shown, g, key, p, l, line, any, tot, conflicted) {
    print title
    printf "\nThe tree (one row per step that adds, the root on top; o a value from registers, + an addition a\n"
    printf "result needs, - one no result needs; positions 0-%d of %d):\n", width - 1, threads
    for (i = 1; i <= nodes; i++) if (px(i) >= 0 && px(i) < width) at[ny[i], px(i)] = kids[i] == "" ? "o" : i in used ? "+" : "-"
    for (y = maxy; y >= 0; y--) {
        row = ""; cnt = additions(y, 0); unused = additions(y, 1)
        if (y > 0 && cnt == 0) continue
        for (x = 0; x < width; x++) row = row (((y, x) in at) ? at[y, x] : " ")
        printf "%4d | %s | %s%s\n", y, row, y == 0 ? "elements" : cnt (cnt == 1 ? " addition" : " additions"), unused ? ", " unused " unused" : ""
    }
    nwarps = warps_count(); shown = nwarps > 4 ? 4 : nwarps
    printf "\nActive lanes per step (# a lane that accessed shared memory or shuffled; warps 0-%d of %d):\n", shown - 1, nwarps
    for (s = 0; s <= last; s++) {
        if (!(s in seen_step)) continue
        line = sprintf("%4d |", s); any = 0
        for (w = 0; w < nwarps; w++) { c = 0; for (l = 0; l < 32; l++) c += ((s, w, l) in active); if (c) any++ }
        for (w = 0; w < shown; w++) line = line " " mask(s, w)
        printf "%s | %d warp%s\n", line, any, any == 1 ? "" : "s"
    }
    print "\nShared-memory wavefronts per access (each warp's instruction; 1 = no bank conflict, n = an n-way conflict):"
    printf "step op  k | wavefronts of warps 0-%d | banks of warp 0's lanes\n", nwarps - 1
    for (g = 1; g <= ngroups; g++) {
        key = groups[g]; split(key, p, SUBSEP)
        if (p[3] != 0) continue
        line = sprintf("%4d %s %2d |", p[1], p[2], p[4])
        tot = ""
        for (w = 0; w < nwarps && w < 16; w++) tot = tot " " (((p[1], p[2], w, p[4]) in lanes_in) ? wavefronts(p[1] SUBSEP p[2] SUBSEP w SUBSEP p[4]) : "-")
        row = ""
        for (l = 0; l < 32; l++) row = row " " (((key, l) in bank_of) ? sprintf("%2d", bank_of[key, l]) : " .")
        printf "%s%s |%s\n", line, tot, row
    }
    for (g = 1; g <= ngroups; g++) { key = groups[g]; if (wavefronts(key) > 1) conflicted++ }
    printf "warp instructions with a bank conflict: %d of %d\n", conflicted, ngroups
    any = 0
    for (s = 0; s <= last; s++) if ((s, 0) in shuffled) {
        if (!any++) print "\nShuffles of warp 0 (the lane each lane read; . its own value, nothing read):"
        row = ""
        for (l = 0; l < 32; l++) row = row " " (((s, 0, l) in read_lane) ? sprintf("%2s", read_lane[s, 0, l]) : " -")
        printf "%4d %-14s |%s\n", s, shuffle_arg[s, 0], row
    }
    printf "\n%s, %d of them unused (no result needs their sums)\n", plural(additions(-1, 0), "addition"), additions(-1, 1)
    printf "%s (as make stage-NN profile counts them)\n", totals_text()
}
function totals_text(    g, key, p, i2, w2) {
    for (g = 1; g <= ngroups; g++) { key = groups[g]; split(key, p, SUBSEP); i2[p[2]]++; w2[p[2]] += wavefronts(key) }
    return sprintf("shared loads: %s, %s; stores: %s, %s", plural(i2["ld"], "instruction"), plural(w2["ld"], "wavefront"),
                   plural(i2["st"], "instruction"), plural(w2["st"], "wavefront"))
}
function plural(n, what) { return (n + 0) " " what (n == 1 ? "" : "s") }
