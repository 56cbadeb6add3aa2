"""Whether a copy of the repository holds an answer: every function body of solutions/*.cu (whitespace
ignored), searched for in every text file of the copy. Prints "ok" or a line per body found; exit 1 if one is.
usage: python3 tests/no_answers.py SOLUTIONS_DIR COPY_DIR"""
import os
import re
import sys


def bodies(source):
    """The bodies of the top-level functions of a C/CUDA source ({...} after a ')'), whitespace removed."""
    found, depth, start = [], 0, None
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0 and text[:i].rstrip().endswith(")"):
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and start is not None:
                found.append(re.sub(r"\s+", "", text[start:i + 1]))
                start = None
    return found


def main(solutions, copy):
    wanted = {}
    for name in sorted(os.listdir(solutions)):
        for body in bodies(open(os.path.join(solutions, name), encoding="utf-8").read()):
            if len(body) > 40:  # a one-statement body could be anyone's
                wanted[body] = name
    hits = []
    for folder, _, files in os.walk(copy):
        for f in files:
            path = os.path.join(folder, f)
            try:
                text = re.sub(r"\s+", "", open(path, encoding="utf-8").read())
            except (UnicodeDecodeError, OSError):
                continue
            hits += [f"{path}: a function body of {name}" for body, name in wanted.items() if body in text]
    if not wanted:
        print(f"no function bodies found in {solutions}")
        return 1
    print("\n".join(hits) if hits else f"ok: none of the {len(wanted)} function bodies of {solutions} is in {copy}")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]) if len(sys.argv) == 3 else print(__doc__) or 2)
