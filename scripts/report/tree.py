"""One tree record read, drawn or counted for scripts/tree.sh (docs/report.md#tree-records)."""
import csv
import glob
import math
from collections import Counter, namedtuple

from common import fail, read_text, write_files
from provenance import first_line

# A value at x (a shared-memory word where of_slot, else a lane) and step y, added by warp from kids (none: a leaf).
Node = namedtuple("Node", "x of_slot y warp kids", defaults=((),))

def plural(n, what):
    return f"{n} {what}{'' if n == 1 else 's'}"

class Tree:
    """What the record at PATH implies: the tree's nodes, the active lanes, the shared-memory accesses
    ({(step, op, warp, k): (words, {lane: bank})}, k: the warp's k-th in the step) and the shuffles."""
    def __init__(self, path):
        self.threads, self.last, self.base, self.nodes, self.pending = 0, -1, math.inf, [], []
        self.slot, self.reads, self.held, self.held_slot, self.fresh = {}, {}, {}, {}, set()
        self.active, self.accesses, self.order, self.shuffle_arg, self.read_lane = set(), {}, {}, {}, {}
        self.loads, self.looped, self.loaded = {}, set(), Counter()  # a thread's pending loads, their sums, counts
        lines = read_text(path).splitlines()
        self.title = next((line[2:] for line in lines if line.startswith("#")), "")
        for r in csv.DictReader(line for line in lines if line and not line.startswith("#")):
            try:
                self.event(*(int(r[c]) for c in ("step", "thread")), r["op"], *(int(r[c]) for c in ("bytes", "addr", "src")))
            except (KeyError, TypeError, ValueError):
                fail(f"not a tree record line: {','.join(str(v) for v in r.values())}")
        self.finish()

    def event(self, step, t, op, nbytes, addr, src):
        if step != self.last:
            self.end_step()
            self.last = step
        (warp, lane), self.threads = divmod(t, 32), max(self.threads, t + 1)
        if op == "gld":  # an input element, added in registers before the tree
            self.loads.setdefault(t, []).append(self.new_node(t, False, step, warp))
            self.loaded[t] += 1
            return
        looped = t in self.loads
        if looped:  # the thread's first event after its loads: it holds their sum
            kids = tuple(self.loads.pop(t))
            self.held[t], self.held_slot[t] = kids[0] if len(kids) == 1 else self.new_node(t, False, step, warp, kids), -1
            self.looped.add(self.held[t])
        if op == "bar":
            if not looped:
                self.fresh.add(t)
            return
        self.active.add((step, warp, lane))
        if op not in ("ld", "st"):  # a shuffle, added up when the step ends
            self.pending.append((t, -1 if src < 0 else warp * 32 + src, op))
            self.shuffle_arg[step, warp] = f"{op} {addr}"
            self.read_lane[step, warp, lane] = "." if src < 0 else src
            return
        word, k = int(addr / 4), self.order.get((t, op), 0) + 1
        self.order[t, op], self.base = k, min(self.base, word)
        words, banks = self.accesses.setdefault((step, op, warp, k), (set(), {}))
        words.update(range(word, word + max(int(nbytes / 4), 1)))
        banks[lane] = word % 32
        if op == "st":
            self.slot[word] = self.held[t] = self.combine(t, word, True, step)
            self.held_slot[t] = word
            return
        if word not in self.slot:
            self.slot[word] = self.new_node(word, True, 0, -1)
        self.reads.setdefault(t, []).append(self.slot[word])

    def new_node(self, *fields):
        self.nodes.append(Node(*fields))
        return len(self.nodes) - 1

    def combine(self, t, x, of_slot, step):
        """The value thread t holds now: what it read since its last write, and its own where that counts."""
        kids, held = list(dict.fromkeys(self.reads.pop(t, []))), self.held.get(t)
        if held is not None and t not in self.fresh and held not in kids and \
                (not kids or self.slot.get(self.held_slot[t]) == held):
            kids.append(held)
        self.fresh.discard(t)
        return kids[0] if len(kids) == 1 else \
            self.new_node(x, of_slot, step + 1 if kids else step, t // 32, tuple(kids))

    def end_step(self):
        """The shuffles of the step that ends: each lane's value first, then what it read of them."""
        for t, _, _ in self.pending:
            self.held[t], self.held_slot[t] = self.combine(t, t, False, self.last), -1
        old = {t: self.held[t] for t, _, _ in self.pending}
        for t, s, op in self.pending:
            if s in old:
                self.held[t] = old[s] if op == "shfl_idx" else \
                    self.new_node(t, False, self.last + 1, t // 32, (old[t], old[s]))
        self.pending, self.order = [], {}

    def finish(self):
        """After the last event: the nodes' positions, each access's wavefronts, and the used nodes."""
        self.end_step()
        self.px = [node.x - self.base if node.of_slot else node.x for node in self.nodes]
        self.top = max((node.y for node in self.nodes), default=0)
        self.waves = {key: max(Counter(w % 32 for w in words).values()) for key, (words, _) in self.accesses.items()}
        self.steps, self.nwarps = range(int(self.last) + 1), len({w for _, w, _ in self.active})
        self.shuffled = [s for s in self.steps if (s, 0) in self.shuffle_arg]  # the steps warp 0 shuffles
        below, leaves, holders = [], [], {}  # of each node: its subtree, and the leaves in it
        for i, node in enumerate(self.nodes):
            below.append({i}.union(*(below[k] for k in node.kids)))
            leaves.append({i} if not node.kids else set().union(*(leaves[k] for k in node.kids)))
        roots = set(range(len(self.nodes))) - {k for node in self.nodes for k in node.kids}
        for r in roots:
            for leaf in leaves[r]:
                holders.setdefault(leaf, []).append(r)
        # A root is no result where a fuller one holds its elements (one that holds any one of them).
        self.used = set().union(*(below[r] for r in roots if not any(
            leaves[r] < leaves[q] for q in holders[min(leaves[r])])))

    def additions(self, y=-1, unused_only=False):
        """The additions at step y (-1: every step), or only the unused ones."""
        return sum(1 for i, node in enumerate(self.nodes) if node.kids and i not in self.looped and
                   (y < 0 or node.y == y) and not (unused_only and i in self.used))

    def loop(self):
        """(threads, fewest, most) of the global loads a thread added before the tree; None without any."""
        return (len(self.loaded), min(self.loaded.values()), max(self.loaded.values())) if self.loaded else None

    def totals(self):
        """The shared-memory loads' and stores' instructions (ld, st) and wavefronts (ldw, stw)."""
        return {op + w: sum(waves if w else 1 for key, waves in self.waves.items() if key[1] == op)
                for op in ("ld", "st") for w in ("", "w")}

    def totals_text(self):
        t = self.totals()
        return (f"shared loads: {plural(t['ld'], 'instruction')}, {plural(t['ldw'], 'wavefront')}; "
                f"stores: {plural(t['st'], 'instruction')}, {plural(t['stw'], 'wavefront')}")

def drawing(tree, width=64):
    """The terminal form: the tree's positions 0..WIDTH-1, the active lanes, the banks, the shuffles."""
    out = [tree.title, "", "The tree (one row per step that adds, the root on top; o a value from registers, "
           "+ an addition a", "result needs, - one no result needs; positions 0-%d of %d):" % (width - 1, tree.threads)]
    at = {(node.y, tree.px[i]): "o" if not node.kids else "+" if i in tree.used else "-"
          for i, node in enumerate(tree.nodes)}
    loop_rows = {tree.nodes[i].y for i in tree.looped}
    for y in (y for y in range(tree.top, -1, -1) if not y or tree.additions(y) or y in loop_rows):
        count, unused = tree.additions(y), tree.additions(y, True)
        row = "".join(at.get((y, x), " ") for x in range(width))
        what = plural(count, "addition") if count else "each thread's loads, added in registers"
        out.append("%4d | %s | %s%s" % (y, row, what if y else "elements", f", {unused} unused" if unused else ""))
    nwarps, busy_steps = tree.nwarps, {s for s, _, _ in tree.active}
    out += ["", "Active lanes per step (# a lane that accessed shared memory or shuffled; warps 0-%d of %d):"
            % (min(nwarps, 4) - 1, nwarps)]
    for s in (s for s in tree.steps if s in busy_steps):
        masks = ["".join("#" if (s, w, lane) in tree.active else "." for lane in range(32)) for w in range(nwarps)]
        out.append("%4d | %s | %s" % (s, " ".join(masks[:4]), plural(sum("#" in m for m in masks), "warp")))
    out += ["", "Shared-memory wavefronts per access (each warp's instruction; 1 = no bank conflict, n = an "
            "n-way conflict):", "step op  k | wavefronts of warps 0-%d | banks of warp 0's lanes" % (nwarps - 1)]
    for (step, op, warp, k), (_, banks) in tree.accesses.items():
        if warp == 0:
            waves = "".join(" %s" % tree.waves.get((step, op, w, k), "-") for w in range(min(nwarps, 16)))
            out.append("%4d %s %2d |%s |%s" % (step, op, k, waves, "".join(
                " " + ("%2d" % banks[lane] if lane in banks else " .") for lane in range(32))))
    out.append("warp instructions with a bank conflict: %d of %d" % (
        sum(w > 1 for w in tree.waves.values()), len(tree.accesses)))
    if tree.shuffled:
        out += ["", "Shuffles of warp 0 (the lane each lane read; . its own value, nothing read):"]
    out += ["%4d %-14s |%s" % (s, tree.shuffle_arg[s, 0], "".join(" %2s" % tree.read_lane.get((s, 0, lane), "-")
                                                               for lane in range(32))) for s in tree.shuffled]
    if loop := tree.loop():
        out += ["", "Global loads before the tree: %s, %s a thread, added in registers" % (
            plural(sum(tree.loaded.values()), "element"), loop[1] if loop[1] == loop[2] else f"{loop[1]} to {loop[2]}")]
    out += ["", "%s, %d of them unused (no result needs their sums)" % (
        plural(tree.additions(), "addition"), tree.additions(-1, True)),
        "%s (as make stage-NN profile counts them)" % tree.totals_text()]
    return "\n".join(out) + "\n"

def write_data(tree, folder):
    """The .dat files plots/lab/tree.gp reads, in FOLDER (nodes, edges: if any); the "key value" lines for tree.sh."""
    nodes, used, px = tree.nodes, tree.used, tree.px
    lines = {"nodes": ["%d %d %d %d %d" % (px[i], node.y, node.warp, not node.kids, i in used)
                       for i, node in enumerate(nodes)],
             "edges": ["%d %d %d %d %d %d" % (px[c], nodes[c].y, px[i] - px[c], node.y - nodes[c].y, node.warp,
                                              i in used) for i, node in enumerate(nodes) for c in node.kids],
             "lanes": ["%d %d %d" % (w * 32 + lane, s, w) for s in tree.steps for w in range(tree.nwarps)
                       for lane in range(32) if (s, w, lane) in tree.active], "banks": [], "conflicts": [],
             "shuffles": ["%d %d %d" % (tree.read_lane[s, 0, lane], s, lane) for s in tree.steps
                          for lane in range(32) if tree.read_lane.get((s, 0, lane), ".") != "."]}
    rows = {}  # (step, op, k): the row of the banks' chart
    for (step, op, warp, k), (_, banks) in tree.accesses.items():
        row, waves = rows.setdefault((step, op, k), len(rows) + 1), tree.waves[step, op, warp, k]
        lines["banks"] += ["%d %d %d" % (warp * 32 + lane, row, bank) for lane, bank in sorted(banks.items())]
        lines["conflicts"] += ["%d %d %d" % (warp * 32 + 16, row, waves)] if waves > 1 else []
    write_files({name + ".dat": "".join(line + "\n" for line in body) for name, body in lines.items()
                 if body or name not in ("nodes", "edges")}, folder)
    keys = {"title": tree.title, "threads": tree.threads, "steps": tree.last + 1, "accesses": len(rows),
            "conflicts": len(lines["conflicts"]), "shuffles": len(tree.shuffled),
            "additions": tree.additions(), "unused": tree.additions(-1, True), "counts": tree.totals_text()}
    return "".join(f"{key} {v}\n" for key, v in keys.items())

def committed_record(stage, kernel):
    """The committed record of STAGE's tree kernel KERNEL, the primary GPU's first; or None."""
    primary = (first_line("plots/reference/primary") or "").strip()
    found = glob.glob(f"plots/reference/*/tree/{stage}/{kernel}.csv")
    return min(found, key=lambda path: (path.split("/")[2] != primary, path), default=None)

def tree(mode, folder, record):
    parsed = Tree(record)
    if mode == "counts":
        return "ld %(ld)d %(ldw)d\nst %(st)d %(stw)d\n" % parsed.totals()
    return write_data(parsed, folder) if mode == "data" else drawing(parsed)
