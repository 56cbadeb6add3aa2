"""The pictures of one tree record, for scripts/tree.sh: the record build's CSV (build/<stage>/tree;
a "# " title line naming the GPU, then the columns step,thread,seq,op,bytes,addr,src, sorted by step,
thread and seq) drawn for a terminal, written as gnuplot data, or counted.
  ascii   the compact form for a terminal: the tree, the active lanes, the banks, the shuffles
  data    DIR/{nodes,edges,lanes,banks,conflicts,shuffles}.dat for plots/lab/tree.gp, and "key value" lines
  counts  "ld INSTRUCTIONS WAVEFRONTS" and "st INSTRUCTIONS WAVEFRONTS": the shared-memory instructions
          the record implies (one per warp, step and access of each lane in that step) and their
          wavefronts (for 4-byte words: the most distinct words any one bank is asked for); with adds
          also "add ADDITIONS UNUSED"
The tree is inferred from the accesses: a value a thread writes to a slot is the sum of the slots it
read since its last write (and of the value it holds, where that is still in the slot it last wrote,
or where it read nothing; but not once it has passed a __syncthreads, "bar": a value it holds after
a barrier without reading it is a new one); a shuffle down, up or by xor adds the lane's value and the
one it read, __shfl_sync copies it. Leaves are the values written or shuffled from registers only (the
loads from global memory, a zero).
The block's results are the values that no later addition takes, except those whose elements another
such value holds too, and more (lane 1's sum after a shuffle down, which lane 0's contains; an
all-reduce leaves a result in every lane); an addition is used where a result depends on it, and
unused otherwise: no result needs its sum.
usage: python3 scripts/report tree --mode ascii|data|counts [--dir DIR] [--width 64] [--adds] RECORD"""
import argparse
import os
import sys

from common import awk_str, fail, num

COLUMNS = ("step", "thread", "seq", "op", "bytes", "addr", "src")
DATA_FILES = ("nodes", "edges", "lanes", "banks", "conflicts", "shuffles")


def value(field):
    """A field as a number (awk's reading of it), an int where it is whole."""
    v = num(field)
    return int(v) if float(v).is_integer() else v


def rem(a, b):
    """awk's a % b: the remainder of a division truncated toward zero."""
    return a - b * int(a / b)


def plural(n, what):
    return f"{awk_str(n)} {what}{'' if n == 1 else 's'}"


class Node:
    """A value: at position x (a shared-memory word where of_slot, else a lane), step y, added by warp
    `warp` from kids (none: a leaf, at the step its value first appears)."""
    __slots__ = ("x", "of_slot", "y", "warp", "kids")

    def __init__(self, x, of_slot, y, warp, kids):
        self.x, self.of_slot, self.y, self.warp, self.kids = x, of_slot, y, warp, kids


class Access:
    """One warp's instruction: a load or store of a step, the k-th of each of its lanes in that step."""

    def __init__(self):
        self.words, self.per_bank, self.bank_of = set(), {}, {}

    def add(self, lane, word, nwords):
        for w in range(word, word + nwords):
            if w not in self.words:
                self.words.add(w)
                self.per_bank[rem(w, 32)] = self.per_bank.get(rem(w, 32), 0) + 1
        self.bank_of[lane] = rem(word, 32)

    def wavefronts(self):
        """The most distinct words any one bank is asked for."""
        return max([self.per_bank.get(b, 0) for b in range(32)])


class Tree:
    """What a record implies, its events read in order: the nodes of the tree, the active lanes, the
    shared-memory accesses (keyed step, op, warp, k, in the order they first appear) and the shuffles."""

    def __init__(self):
        self.title, self.threads, self.last = "", 0, -1
        self.nodes, self.top, self.base = [], None, None  # top: the highest step of a node, once above 0
        self.slot, self.reads, self.held, self.held_slot, self.fresh = {}, {}, {}, {}, set()
        self.active, self.steps, self.warps = set(), set(), set()
        self.accesses, self.order = {}, {}
        self.pending, self.shuffle_arg, self.read_lane = [], {}, {}
        self._used = None

    def event(self, row):
        step, t, nbytes, addr, src = (value(row[c]) for c in ("step", "thread", "bytes", "addr", "src"))
        op = row["op"]
        if step != self.last:
            self.end_step()
            self.last = step
        warp, lane = int(t / 32), rem(t, 32)
        self.threads = max(self.threads, t + 1)
        if op == "bar":
            self.fresh.add(t)
            return
        self.active.add((step, warp, lane))
        self.steps.add(step)
        self.warps.add(warp)
        if op in ("ld", "st"):
            word = int(addr / 4)
            k = self.order[t, op] = self.order.get((t, op), 0) + 1
            if self.base is None or word < self.base:
                self.base = word
            self.accesses.setdefault((step, op, warp, k), Access()).add(lane, word, int(nbytes / 4) if nbytes > 4 else 1)
            if op == "ld":
                self.reads.setdefault(t, []).append(self.slot_node(word))
            else:
                v = self.combine(t, word, True, step)
                self.slot[word] = self.held[t] = v
                self.held_slot[t] = word
        else:
            self.pending.append((t, -1 if src < 0 else warp * 32 + src, op))
            self.shuffle_arg[step, warp] = f"{op} {awk_str(addr)}"
            self.read_lane[step, warp, lane] = "." if src < 0 else src

    def new_node(self, x, of_slot, y, warp, kids=()):
        self.nodes.append(Node(x, of_slot, y, warp, kids))
        if y > (self.top or 0):
            self.top = y
        return len(self.nodes) - 1

    def slot_node(self, word):
        if word not in self.slot:
            self.slot[word] = self.new_node(word, True, 0, -1)
        return self.slot[word]

    def px(self, i):
        """A node's position: a slot's index in the shared memory the kernel uses (from its lowest
        word), or a lane."""
        node = self.nodes[i]
        return node.x - (self.base or 0) if node.of_slot else node.x

    def combine(self, t, x, of_slot, step):
        """The value thread t holds now: what it read since its last write, and its own value where
        that counts."""
        kids = list(dict.fromkeys(self.reads.pop(t, [])))
        held = self.held.get(t)
        if held is not None and t not in self.fresh and held not in kids and \
                (not kids or self.slot.get(self.held_slot[t]) == held):
            kids.append(held)
        self.fresh.discard(t)
        if not kids:
            return self.new_node(x, of_slot, step, int(t / 32))
        if len(kids) == 1:
            return kids[0]
        return self.new_node(x, of_slot, step + 1, int(t / 32), tuple(kids))

    def end_step(self):
        """The shuffles of the step that ends: each lane's value first, then what it read of them."""
        for t, _, _ in self.pending:
            self.held[t] = self.combine(t, t, False, self.last)
            self.held_slot[t] = -1
        old = {t: self.held[t] for t, _, _ in self.pending}
        for t, s, op in self.pending:
            if s < 0 or s not in old:
                continue
            if op == "shfl_idx":
                self.held[t] = old[s]
            else:
                self.held[t] = self.new_node(t, False, self.last + 1, int(t / 32), (old[t], old[s]))
        self.pending = []
        self.order.clear()

    def used(self):
        """The nodes that are results or that a result depends on."""
        if self._used is None:
            taken = {k for node in self.nodes for k in node.kids}
            roots = [i for i in range(len(self.nodes)) if i not in taken]
            leaves = [self.below(r, lambda i: not self.nodes[i].kids) for r in roots]
            holders = {}
            for r, mine in enumerate(leaves):
                for leaf in mine:
                    holders.setdefault(leaf, []).append(r)
            self._used = set()
            for r, mine in enumerate(leaves):
                # A root is no result where a fuller one holds every element it holds (such a
                # one holds any one of them: the holders of one are the candidates).
                if not any(len(leaves[q]) > len(mine) and mine <= leaves[q] for q in holders[next(iter(mine))]):
                    self._used |= self.below(roots[r], lambda i: True)
        return self._used

    def below(self, root, keep):
        """The nodes of root's subtree (itself included) that keep(node) accepts."""
        seen, stack = set(), [root]
        while stack:
            i = stack.pop()
            if i not in seen:
                seen.add(i)
                stack.extend(self.nodes[i].kids)
        return {i for i in seen if keep(i)}

    def additions(self, y=-1, unused_only=False):
        """The additions at step y (-1: every step), or only the unused ones."""
        used = self.used() if unused_only else ()
        return sum(1 for i, node in enumerate(self.nodes)
                   if node.kids and (y < 0 or node.y == y) and i not in used)

    def steps_upto_last(self):
        return range(int(self.last) + 1) if self.last >= 0 else range(0)

    def totals(self):
        """{op: [instructions, wavefronts]} of the shared-memory loads and stores."""
        tot = {"ld": [0, 0], "st": [0, 0]}
        for (_, op, _, _), access in self.accesses.items():
            tot[op][0] += 1
            tot[op][1] += access.wavefronts()
        return tot

    def totals_text(self):
        tot = self.totals()
        return (f"shared loads: {plural(tot['ld'][0], 'instruction')}, {plural(tot['ld'][1], 'wavefront')}; "
                f"stores: {plural(tot['st'][0], 'instruction')}, {plural(tot['st'][1], 'wavefront')}")

    def mask(self, s, w):
        return "".join("#" if (s, w, lane) in self.active else "." for lane in range(32))


def read_tree(path):
    """The Tree of the record at PATH; a line that is not a record line is an error (exit 2)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if lines[-1] == "":
        lines.pop()
    tree = Tree()
    for line in lines:
        fields = line.split(",") if line else []
        if line.startswith("#"):
            tree.title = line[2:]
        elif fields[:1] == ["step"]:
            continue
        elif len(fields) != len(COLUMNS):
            fail(f"not a tree record line: {line}")
        else:
            tree.event(dict(zip(COLUMNS, fields)))
    tree.end_step()
    return tree


def drawing(tree, width=64):
    """The terminal form: the tree's positions 0..width-1, the active lanes, the banks, the shuffles."""
    out = [tree.title, "", "The tree (one row per step that adds, the root on top; o a value from registers, + an addition a",
           "result needs, - one no result needs; positions 0-%d of %d):" % (width - 1, tree.threads)]
    used, at = tree.used(), {}
    for i, node in enumerate(tree.nodes):
        if 0 <= tree.px(i) < width:
            at[node.y, tree.px(i)] = "o" if not node.kids else "+" if i in used else "-"
    for y in range(tree.top or 0, -1, -1):
        cnt, unused = tree.additions(y), tree.additions(y, True)
        if y > 0 and cnt == 0:
            continue
        # With no node above step 0 the awk's y began unset, a subscript "" that none of at[0, x] is:
        # that row is drawn blank, as the awk drew it.
        row = "".join(at.get((y, x), " ") for x in range(width)) if tree.top is not None else " " * width
        what = "elements" if y == 0 else plural(cnt, "addition")
        out.append("%4d | %s | %s%s" % (y, row, what, f", {unused} unused" if unused else ""))
    nwarps = len(tree.warps)
    shown = min(nwarps, 4)
    out += ["", "Active lanes per step (# a lane that accessed shared memory or shuffled; warps 0-%d of %d):" % (shown - 1, nwarps)]
    for s in tree.steps_upto_last():
        if s not in tree.steps:
            continue
        busy = sum(1 for w in range(nwarps) if any((s, w, lane) in tree.active for lane in range(32)))
        masks = "".join(" " + tree.mask(s, w) for w in range(shown))
        out.append("%4d |%s | %d warp%s" % (s, masks, busy, "" if busy == 1 else "s"))
    out += ["", "Shared-memory wavefronts per access (each warp's instruction; 1 = no bank conflict, n = an n-way conflict):",
            "step op  k | wavefronts of warps 0-%d | banks of warp 0's lanes" % (nwarps - 1)]
    for (step, op, warp, k), access in tree.accesses.items():
        if warp != 0:
            continue
        waves = "".join(" " + (awk_str(tree.accesses[step, op, w, k].wavefronts()) if (step, op, w, k) in tree.accesses else "-")
                        for w in range(min(nwarps, 16)))
        banks = "".join(" " + ("%2d" % access.bank_of[lane] if lane in access.bank_of else " .") for lane in range(32))
        out.append("%4d %s %2d |%s |%s" % (step, op, k, waves, banks))
    conflicted = sum(1 for access in tree.accesses.values() if access.wavefronts() > 1)
    out.append("warp instructions with a bank conflict: %d of %d" % (conflicted, len(tree.accesses)))
    shuffled = [s for s in tree.steps_upto_last() if (s, 0) in tree.shuffle_arg]
    if shuffled:
        out += ["", "Shuffles of warp 0 (the lane each lane read; . its own value, nothing read):"]
    for s in shuffled:
        lanes = "".join(" " + ("%2s" % awk_str(tree.read_lane[s, 0, lane]) if (s, 0, lane) in tree.read_lane else " -")
                        for lane in range(32))
        out.append("%4d %-14s |%s" % (s, tree.shuffle_arg[s, 0], lanes))
    out += ["", "%s, %d of them unused (no result needs their sums)" % (plural(tree.additions(), "addition"), tree.additions(-1, True)),
            "%s (as make stage-NN profile counts them)" % tree.totals_text()]
    return "\n".join(out) + "\n"


def data_files(tree):
    """({name: text} of the .dat files plots/lab/tree.gp reads, the "key value" lines for tree.sh).
    nodes and edges are absent where they have no line (the awk never opened them)."""
    used, lines = tree.used(), {name: [] for name in DATA_FILES}
    for i, node in enumerate(tree.nodes):
        lines["nodes"].append("%d %d %d %d %d" % (tree.px(i), node.y, node.warp, not node.kids, i in used))
        for c in node.kids:
            lines["edges"].append("%d %d %d %d %d %d" % (tree.px(c), tree.nodes[c].y, tree.px(i) - tree.px(c),
                                                           node.y - tree.nodes[c].y, node.warp, i in used))
    nwarps = len(tree.warps)
    for s in tree.steps_upto_last():
        for w in range(nwarps):
            lines["lanes"] += ["%d %d %d" % (w * 32 + lane, s, w) for lane in range(32) if (s, w, lane) in tree.active]
    rows = {}
    for (step, op, warp, k), access in tree.accesses.items():
        row = rows.setdefault((step, op, k), len(rows) + 1)
        lines["banks"] += ["%d %d %d" % (warp * 32 + lane, row, access.bank_of[lane]) for lane in range(32) if lane in access.bank_of]
        if access.wavefronts() > 1:
            lines["conflicts"].append("%d %d %d" % (warp * 32 + 16, row, access.wavefronts()))
    for s in tree.steps_upto_last():
        lines["shuffles"] += ["%d %d %d" % (tree.read_lane[s, 0, lane], s, lane) for lane in range(32)
                              if tree.read_lane.get((s, 0, lane), ".") != "."]
    files = {name: "".join(line + "\n" for line in body) for name, body in lines.items()
             if body or name not in ("nodes", "edges")}
    keys = {"title": tree.title, "threads": "%d" % tree.threads, "steps": "%d" % (tree.last + 1),
            "nodes": len(tree.nodes), "accesses": len(rows), "conflicts": len(lines["conflicts"]),
            "shuffles": sum(1 for s in tree.steps_upto_last() if (s, 0) in tree.shuffle_arg),
            "additions": tree.additions(), "unused": tree.additions(-1, True), "counts": tree.totals_text()}
    return files, "".join(f"{key} {v}\n" for key, v in keys.items())


def write_data(tree, folder):
    """The .dat files into FOLDER; the "key value" lines."""
    files, keys = data_files(tree)
    for name, text in files.items():
        path = os.path.join(folder, name + ".dat")
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            fail(f"{path}: {e.strerror}")
    return keys


def counts(tree, adds=False):
    """The "ld" and "st" lines (and with adds the "add" line) of a record's counts."""
    tot = tree.totals()
    text = "ld %d %d\nst %d %d\n" % (*tot["ld"], *tot["st"])
    return text + ("add %d %d\n" % (tree.additions(), tree.additions(-1, True)) if adds else "")


def tree_text(path, mode="ascii", folder=None, width=64, adds=False):
    """What `tree --mode MODE` prints for the record at PATH (data mode writes its files into FOLDER)."""
    tree = read_tree(path)
    if mode == "counts":
        return counts(tree, adds)
    if mode == "data":
        return write_data(tree, folder)
    return drawing(tree, width)


def cli(argv):
    p = argparse.ArgumentParser(prog=argv[0], description="A tree record drawn, as gnuplot data, or counted.")
    p.add_argument("--mode", choices=("ascii", "data", "counts"), default="ascii",
                   help="ascii: the terminal form; data: DIR's .dat files and key lines; counts: instructions and wavefronts")
    p.add_argument("--dir", help="the folder of the .dat files (data mode)")
    p.add_argument("--width", type=int, default=64, help="the positions of the tree drawn (ascii mode)")
    p.add_argument("--adds", action="store_true", help="counts mode: the additions line too")
    p.add_argument("record", help="a tree record (build/<stage>/tree's CSV)")
    a = p.parse_args(argv[1:])
    if a.mode == "data" and a.dir is None:
        p.error("data mode needs --dir")
    sys.stdout.write(tree_text(a.record, a.mode, a.dir, a.width, a.adds))
    return 0
