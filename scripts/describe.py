"""A program's description, its --describe (one JSON document; docs/developers.md gives its fields), read the one way.

As a module (the tests and scripts/report import it): load(PROGRAM) runs the program, read(PATH) reads a saved
description (describe-<stage>.json), text(DESCRIPTION, KEY) is a value as one line of words.
As a command, for the shell and the Makefile:
    python3 scripts/describe.py PROGRAM|FILE.json [KEY]
prints the whole document, or KEY's value as text(): a string as it is (null: nothing), a boolean true or false,
a list of sizes comma-separated as --n takes them, any other list space-separated, and a list of objects one a
line, its fields space-separated in the schema's order (a null or an empty list "-", a list comma-separated).
Exit 2 where the program cannot be run, the file read, or the key is not the description's.
"""
import functools
import json
import subprocess
import sys


# The fields of a description, in the order --describe prints them, each with its type: "string", "number",
# "boolean", "string|null", [TYPE] a list of them, {FIELD: TYPE} an object (docs/developers.md says what each is).
SCHEMA = {
    "stage": "string",
    "program": "string",
    "several_gpus": "boolean",
    "kernels": [{"name": "string", "dtype": "string", "role": "string", "accumulator": "string|null",
                 "unchecked_from": "number|null"}],
    "input_types": ["string"],
    "fills": ["string"],
    "check_fills": ["string"],
    "bench_fills": ["string"],
    "default_sizes": ["string"],
    "bench_sizes": ["string"],
    "check_sizes": ["string"],
    "edge_sizes": ["string"],
    "row_stage": "boolean",
    "baseline": "string|null",
    "warm_l2_kernels": ["string"],
    "flush_probes": [{"kernel": "string", "function": "string", "loads": "string"}],
    "accuracy_kernels": ["string"],
    "limit_kernels": ["string"],
    "tree_kernels": [{"kernel": "string", "n": "string|null"}],
    "charts": [{"name": "string", "owned": "boolean", "also_dtypes": ["string"]}],
    "csv": "string",
    "library_launches": {"first": "string", "last": "string"},
    "grade_sizes": ["string"],
    "grade_time": "string",
    "grade_promises": ["string"],
    "noisy_spread": "number",
}
ROLES = ("default", "wrong", "cpu", "library", "other")


def problems(value, schema=SCHEMA, where="description"):
    """Where VALUE is not of SCHEMA: its fields (all of them, in order) and their types; [] where it is."""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        if list(value) != list(schema):
            return [f"{where}: fields {list(value)}, not {list(schema)}"]
        return [p for k in schema for p in problems(value[k], schema[k], f"{where}.{k}")]
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, v in enumerate(value) for p in problems(v, schema[0], f"{where}[{i}]")]
    types = {"string": str, "number": (int, float), "boolean": bool, "null": type(None)}
    fits = any(isinstance(value, types[t]) and not (t == "number" and isinstance(value, bool)) for t in schema.split("|"))
    return [] if fits else [f"{where}: {json.dumps(value)} is not a {schema}"]


class DescribeError(Exception):
    """A description that cannot be had: the program did not run, the file is not one, no such key."""


@functools.lru_cache(None)
def load(program):
    """PROGRAM's description: what its --describe prints, parsed."""
    try:
        r = subprocess.run([program, "--describe"], capture_output=True, text=True)
    except OSError as e:
        raise DescribeError(f"{program} --describe could not be run: {e.strerror}") from None
    if r.returncode != 0:
        raise DescribeError(f"{program} --describe exited {r.returncode}: {r.stderr.strip()}")
    return parse(r.stdout, f"{program} --describe")


def read(path):
    """The description saved at PATH."""
    try:
        with open(path, encoding="utf-8") as f:
            return parse(f.read(), path)
    except OSError as e:
        raise DescribeError(f"{path}: {e.strerror}") from None


def parse(document, where):
    try:
        description = json.loads(document)
    except json.JSONDecodeError as e:
        raise DescribeError(f"{where}: not JSON ({e})") from None
    if not isinstance(description, dict):
        raise DescribeError(f"{where}: not a JSON object")
    return description


def word(value):
    """One field of an object's line."""
    if value is None or value == []:
        return "-"
    if isinstance(value, list):
        return ",".join(map(word, value))
    return text_of(value)


def text_of(value, key=""):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return " ".join(word(v) for v in value.values())
    if isinstance(value, list):
        if value and isinstance(value[0], dict):
            return "\n".join(text_of(v) for v in value)
        return ("," if key.endswith("_sizes") else " ").join(map(text_of, value))
    return str(value)


def text(description, key):
    """KEY's value as text (the module's docstring says how)."""
    if key not in description:
        raise DescribeError(f"the description of {description.get('stage', '?')} has no key '{key}'")
    return text_of(description[key], key)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: python3 scripts/describe.py PROGRAM|FILE.json [KEY]", file=sys.stderr)
        sys.exit(2)
    try:
        source = argv[1]
        description = read(source) if source.endswith(".json") else load(source)
        out = json.dumps(description, indent=2) if len(argv) == 2 else text(description, argv[2])
    except DescribeError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    if out:
        print(out)


if __name__ == "__main__":
    main(sys.argv)
