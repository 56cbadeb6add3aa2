"""The exact sum of an array from Python, with the standard library alone (ctypes): the exact-sum library's
build/lib/libexactsum.so (make lib), whose C API is lib/exact_sum.h.

    import sys; sys.path.insert(0, "lib")   # from the repository's root
    from exact_sum import exact_sum
    exact_sum(a)                 # the exact sum of every element of a, rounded once to fp64: a float
    exact_sum(a, in_type=True)   # (that float, the exact sum rounded once to a's own type, as a float)

a is a host array with __array_interface__ (NumPy: copied to the GPU by the library's exact_sum_host) or a GPU
array with __cuda_array_interface__ (CuPy, PyTorch, Numba: summed where it is, on the stream it names), of
float64, float32 or float16, C-contiguous, of any shape. Other types raise TypeError; other layouts, a mask
or a misaligned pointer raise ValueError; no room on the GPU for a host array's copy raises MemoryError; a CUDA
error raises RuntimeError. docs/exact-sum.md is its reference."""
import ctypes
import math
import os

LIBRARY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "lib", "libexactsum.so")

# The interfaces' type strings the library takes, as the names of exact_sum.h's ExactSumType, and their element
# bytes. The numbers behind the names are the library's own (exact_sum_code), never restated here.
TYPES = {"<f8": ("EXACT_SUM_F64", 8), "<f4": ("EXACT_SUM_F32", 4), "<f2": ("EXACT_SUM_F16", 2)}
# The exception of each return code but EXACT_SUM_OK (any other: ValueError).
ERRORS = {"EXACT_SUM_CUDA_ERROR": RuntimeError, "EXACT_SUM_NO_MEMORY": MemoryError}

_loaded = {}


def library(path=LIBRARY):
    """The shared library at path, loaded once; OSError naming `make lib` where it is missing."""
    if path not in _loaded:
        if not os.path.exists(path):
            raise OSError(f"{path} is missing: build the exact-sum library first with `make lib`")
        lib = ctypes.CDLL(path)
        result = ctypes.POINTER(ctypes.c_double)
        lib.exact_sum.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, result, result, ctypes.c_void_p]
        lib.exact_sum_host.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, result, result]
        lib.exact_sum_status.restype = ctypes.c_char_p
        lib.exact_sum_status.argtypes = [ctypes.c_int]
        lib.exact_sum_code.argtypes = [ctypes.c_char_p]
        _loaded[path] = lib
    return _loaded[path]


def code(name, path=LIBRARY):
    """The number the library at path gives a name of exact_sum.h ("EXACT_SUM_F32", "EXACT_SUM_OK"); ValueError
    for a name it does not define."""
    number = library(path).exact_sum_code(name.encode())
    if number < 0:
        raise ValueError(f"{name} is not a name the exact-sum library defines (exact_sum.h)")
    return number


def parse_interface(face, on_gpu):
    """An array interface (a dict: __array_interface__ or __cuda_array_interface__) as (pointer, count, the name
    of its ExactSumType, stream): C-contiguous only; the stream (GPU only) as the handle exact_sum takes (None and 1:
    the legacy default stream, 0; 2: the per-thread default stream; any other: that stream)."""
    typestr = face.get("typestr")
    if typestr not in TYPES:
        raise TypeError(f"exact_sum takes float64, float32 and float16 (type strings {', '.join(TYPES)}), "
                        f"not {typestr!r}")
    exact_type, size = TYPES[typestr]
    shape = tuple(face.get("shape", ()))
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError(f"a shape of counts, not {shape!r}")
    count = math.prod(shape)
    strides = face.get("strides")
    if strides is not None and count > 0:
        contiguous, step = [], size
        for d in reversed(shape):
            contiguous.insert(0, step)
            step *= d
        if any(s != c for s, c, d in zip(strides, contiguous, shape) if d > 1):
            raise ValueError(f"a C-contiguous array only: strides {tuple(strides)} for shape {shape}")
    if face.get("mask") is not None:
        raise ValueError("an array with a mask: exact_sum sums every element")
    data = face.get("data")
    if not isinstance(data, tuple) or len(data) != 2 or not isinstance(data[0], int):
        raise ValueError(f"the interface's data is a (pointer, read-only) pair, not {data!r}")
    stream = 0
    if on_gpu:
        stream = face.get("stream")
        if stream == 0:
            raise ValueError("stream 0 is not a stream the interface allows (1 is the legacy default stream)")
        stream = 0 if stream in (None, 1) else stream
    return data[0], count, exact_type, stream


def exact_sum(a, in_type=False):
    """The exact sum of a's elements rounded once to fp64 (a float); with in_type, the pair (that float, the exact
    sum rounded once to a's type, a float holding that type's value exactly). No elements sum to +0."""
    if hasattr(a, "__cuda_array_interface__"):
        pointer, count, exact_type, stream = parse_interface(a.__cuda_array_interface__, True)
    elif hasattr(a, "__array_interface__"):
        pointer, count, exact_type, stream = parse_interface(a.__array_interface__, False)
    else:
        raise TypeError(f"exact_sum takes an array with __array_interface__ (NumPy) or __cuda_array_interface__ "
                        f"(CuPy, PyTorch, Numba), not {type(a).__name__}")
    lib, number = library(), code(exact_type)
    sum64, rounded = ctypes.c_double(), ctypes.c_double()
    if hasattr(a, "__cuda_array_interface__"):
        status = lib.exact_sum(pointer, count, number, ctypes.byref(sum64), ctypes.byref(rounded), stream)
    else:
        status = lib.exact_sum_host(pointer, count, number, ctypes.byref(sum64), ctypes.byref(rounded))
    if status != code("EXACT_SUM_OK"):
        error = next((e for name, e in ERRORS.items() if code(name) == status), ValueError)
        raise error(f"exact_sum: {lib.exact_sum_status(status).decode()}")
    return (sum64.value, rounded.value) if in_type else sum64.value
