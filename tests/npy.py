"""Writes the .npy (or raw) files the tests of --input read, with the standard library alone.
usage: python3 tests/npy.py FILE DESCR SHAPE [--drop K] [--raw]
  DESCR: a NumPy type string such as '<f4', '<f8', '<f2', '|i1', '<i4' (or '>f4' to be refused)
  SHAPE: comma-separated dimensions, e.g. 1000003 or 7,1001
  values: element i is (i mod 97) / 8 - 3 (exact in every float type read; integers: i mod 97 - 48)
  --drop K: leave the last K bytes out (a truncated file); --raw: the data alone, no header
tests/inputs.py imports it: encode() gives a file's bytes, write() writes one."""
import argparse
import struct

FORMATS = {"f4": "f", "f2": "e", "f8": "d", "i1": "b", "i4": "i"}


def encode(descr, shape, raw=False):
    """The bytes of a .npy of type DESCR and SHAPE ("1000003", "7,1001"), or of its data alone (RAW)."""
    dims = [int(d) for d in str(shape).split(",")]
    count = 1
    for d in dims:
        count *= d
    kind = descr[1:]
    order = ">" if descr[0] == ">" else "<"
    values = [(i % 97) - 48 if kind[0] == "i" else (i % 97) / 8 - 3 for i in range(count)]
    data = struct.pack(f"{order}{count}{FORMATS[kind]}", *values)
    return data if raw else header(descr, dims) + data


def header(descr, dims):
    """The bytes of a .npy header (format 1.0) of type DESCR and shape DIMS (a list of ints)."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{d}, " for d in dims).rstrip(" ") if len(dims) > 1 else f"{dims[0]},")
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def write(path, data, drop=0):
    """DATA (bytes) into PATH, less its last DROP bytes. Returns PATH."""
    with open(path, "wb") as f:
        f.write(data[:len(data) - drop])
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("descr")
    parser.add_argument("shape")
    parser.add_argument("--drop", type=int, default=0)
    parser.add_argument("--raw", action="store_true")
    a = parser.parse_args()
    write(a.file, encode(a.descr, a.shape, a.raw), a.drop)


if __name__ == "__main__":
    main()
