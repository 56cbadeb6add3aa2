"""Each reference's commit, and the stages changed since (docs/report.md#where-each-reference-was-measured)."""
import functools
import glob
import os
import subprocess

from common import fail

WATCHED = ("stages/*/*.cu", "stages/*/*.cuh", "stages/*/*.mk", "common/*")
CHANGED = "Changed since, in their kernels or harness (stages/<stage>/*.cu, *.cuh, *.mk; common/* for all):"

def first_line(path, start=""):
    """The first line of the file PATH that starts with START; None where there is none or no file."""
    try:
        return next((line for line in open(path, encoding="utf-8").read().split("\n") if line.startswith(start)), None)
    except OSError:
        return None

def primary():
    if (name := first_line("plots/reference/primary")) is None:
        fail("no plots/reference/primary: run make bench and make reference")
    return name.strip() or fail("plots/reference/primary is empty")

def measured_at(folder):
    """The commit FOLDER's run was made on (its measured_at file), or None where none is recorded."""
    return ((first_line(os.path.join(folder, "measured_at")) or "").split() or [None])[0]

def git(*args):
    try:
        p = subprocess.run(["git", *args], capture_output=True, text=True)
    except OSError:
        return None
    return p.stdout if p.returncode == 0 else None

@functools.lru_cache(None)
def changed_since(commit):
    """(the stages whose watched files differ from COMMIT's in the work tree, None), or (None, why git cannot tell)."""
    top = git("rev-parse", "--show-toplevel")
    if top is None or os.path.realpath(top.strip()) != os.path.realpath("."):
        return None, "this is not a git checkout of the repository"
    if git("cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None, f"commit {commit} is not in this checkout"
    changed = git("diff", "--name-only", "--no-renames", commit, "--", *WATCHED)
    new = git("ls-files", "--others", "--exclude-standard", "--", *WATCHED)
    if changed is None or new is None:
        return None, "git diff failed"
    stages, found = {os.path.basename(d) for d in glob.glob("stages/*") if os.path.isdir(d)}, set()
    for parts in (p.split("/") for p in (changed + new).split("\n") if p):
        found |= stages if parts[0] == "common" else {parts[1]} if len(parts) == 3 and parts[0] == "stages" \
            and parts[2].endswith((".cu", ".cuh", ".mk")) else set()
    return sorted(found), None

def changed_line(folder, commit):
    """FOLDER's page's line of the stages changed since COMMIT: git's, else its page's."""
    stages, why = changed_since(commit)
    if stages is None:
        return first_line(os.path.join(folder, "README.md"), CHANGED) or f"{CHANGED} git cannot tell ({why})."
    return f"{CHANGED} {', '.join(stages) or 'none'}."

def excused(folder):
    """The stages whose claims and targets FOLDER's run is not held to (none for the primary)."""
    if os.path.basename(os.path.normpath(folder)) == primary() or (commit := measured_at(folder)) is None:
        return set()
    line = changed_line(folder, commit)[len(CHANGED):].split(".")[0].strip()
    return set() if not line or line.startswith("git cannot tell") or line == "none" else set(line.split(", "))
