"""Where each reference was measured, and what changed since. plots/reference/primary names the primary
reference (the GPU the front page, docs/results.md and the stages' READMEs show); plots/reference/<gpu>/measured_at
holds the commit its run was made on (make reference writes HEAD there). Git says which stages' kernel or harness
files (stages/<stage>/*.cu and *.mk; common/* for every stage) differ from that commit in the working tree. A
reference other than the primary is not held to the claims and targets that read a stage changed since its run;
the primary is held to all of them. Where git cannot tell (no checkout, or the commit is not in it) nothing is
excused."""
import functools
import glob
import os
import subprocess

from common import fail

PRIMARY = "plots/reference/primary"
WATCHED = ("stages/*/*.cu", "stages/*/*.mk", "common/*")


def primary():
    """The primary reference's GPU folder name."""
    try:
        return open(PRIMARY, encoding="utf-8").read().strip() or fail(f"{PRIMARY} is empty")
    except OSError:
        fail(f"no {PRIMARY}: run make bench and make reference")


def measured_at(folder):
    """The commit FOLDER's run was made on (its measured_at file), or None where none is recorded."""
    try:
        return open(os.path.join(folder, "measured_at"), encoding="utf-8").read().split()[0]
    except (OSError, IndexError):
        return None


def git(*args):
    """git's output, or None where it fails or is missing."""
    try:
        p = subprocess.run(["git", *args], capture_output=True, text=True)
    except OSError:
        return None
    return p.stdout if p.returncode == 0 else None


def stage_of(path, stages):
    """The stages a changed file changes: its own (stages/<stage>/NAME.cu or .mk), or every stage (common/*)."""
    parts = path.split("/")
    if parts[0] == "common":
        return stages
    if parts[0] == "stages" and len(parts) == 3 and parts[2].endswith((".cu", ".mk")):
        return {parts[1]}
    return set()


@functools.lru_cache(None)
def changed_since(commit):
    """(the stages whose watched files differ between COMMIT and the working tree, None), or (None, why git
    cannot tell)."""
    top = git("rev-parse", "--show-toplevel")
    if top is None or os.path.realpath(top.strip()) != os.path.realpath("."):
        return None, "this is not a git checkout of the repository"
    if git("cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None, f"commit {commit} is not in this checkout"
    changed = git("diff", "--name-only", "--no-renames", commit, "--", *WATCHED)
    new = git("ls-files", "--others", "--exclude-standard", "--", *WATCHED)
    if changed is None or new is None:
        return None, "git diff failed"
    stages = {os.path.basename(d) for d in glob.glob("stages/*") if os.path.isdir(d)}
    return sorted(set().union(*(stage_of(p, stages) for p in (changed + new).split("\n") if p))), None


CHANGED = "Changed since, in their kernels or harness (stages/<stage>/*.cu, *.mk; common/* for all):"


def recorded(folder):
    """The line of FOLDER's page (README.md, as make docs last wrote it) that lists the stages changed since its
    run; "" where it has none."""
    try:
        lines = open(os.path.join(folder, "README.md"), encoding="utf-8").read().split("\n")
    except OSError:
        return ""
    return next((line for line in lines if line.startswith(CHANGED)), "")


def changed(folder):
    """The stages changed since FOLDER's run: git's; where git cannot tell, those its page last recorded (a copy
    of the repository without its history); None where neither says."""
    commit = measured_at(folder)
    if commit is None:
        return None
    stages, _ = changed_since(commit)
    if stages is not None:
        return stages
    line = recorded(folder)[len(CHANGED):].split(".")[0].strip()
    return None if not line or line.startswith("git cannot tell") else [] if line == "none" else line.split(", ")


def excused(folder):
    """The stages whose claims and targets FOLDER's run is not held to: none for the primary or where nothing
    says what changed; else the stages changed since its run."""
    if os.path.basename(os.path.normpath(folder)) == primary():
        return set()
    return set(changed(folder) or ())
