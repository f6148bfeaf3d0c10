"""Generates the array-file fixtures read by crates/xla-core/tests/npy.rs and
tests/safetensors.rs, with real NumPy, ml_dtypes and safetensors.

Run from anywhere (writes next to this script):

    python3 crates/xla-core/tests/data/gen_npy.py

Every 2x3 fixture holds, in logical row-major order, the values of
`values()` below; the Rust tests rebuild the same values and compare. Because
the tests also check that encoding each literal reproduces NumPy's bytes
exactly, NumPy reads whatever we write.
"""

import pathlib

import ml_dtypes
import numpy as np
import safetensors

HERE = pathlib.Path(__file__).resolve().parent
NPY = HERE / "npy"
SAFETENSORS = HERE / "safetensors"

FLOATS = [0.0, -1.5, 0.25, np.inf, np.nan, 100.5]
COMPLEX = [0, 1.5 - 2j, 0.25j, np.inf, complex(np.nan, 0), 100.5 + 1j]
BOOLS = [True, False, False, True, True, False]

# File-name code -> dtype (little-endian or byte-order-free).
DTYPES = {
    "b1": np.bool_,
    "i1": np.int8,
    "i2": np.int16,
    "i4": np.int32,
    "i8": np.int64,
    "u1": np.uint8,
    "u2": np.uint16,
    "u4": np.uint32,
    "u8": np.uint64,
    "f2": np.float16,
    "f4": np.float32,
    "f8": np.float64,
    "c8": np.complex64,
    "c16": np.complex128,
    "bf16": ml_dtypes.bfloat16,
}


def values(code):
    dtype = np.dtype(DTYPES[code])
    if code == "b1":
        return BOOLS
    if code == "bf16" or dtype.kind == "f":
        return FLOATS
    if dtype.kind == "c":
        return COMPLEX
    info = np.iinfo(dtype)
    if dtype.kind == "i":
        return [0, 1, -2, 3, info.min, info.max]
    return [0, 1, 2, 3, info.max - 1, info.max]


def fixture(code):
    return np.array(values(code), dtype=DTYPES[code]).reshape(2, 3)


def save(name, array, version=None):
    with open(NPY / name, "wb") as f:
        np.lib.format.write_array(f, array, version=version)


def npy_fixtures():
    NPY.mkdir(exist_ok=True)
    for code in DTYPES:
        a = fixture(code)
        save(f"{code}_c.npy", a)
        save(f"{code}_f.npy", np.asfortranarray(a))
        if a.dtype.itemsize > 1 and code != "bf16":
            be = a.astype(a.dtype.newbyteorder(">"))
            save(f"{code}_be_c.npy", be)
            save(f"{code}_be_f.npy", np.asfortranarray(be))
    # Format versions 2.0 and 3.0.
    save("f4_c_v2.npy", fixture("f4"), version=(2, 0))
    save("f4_c_v3.npy", fixture("f4"), version=(3, 0))
    be = fixture("i8").astype(">i8")
    save("i8_be_c_v2.npy", be, version=(2, 0))
    be = fixture("c16").astype(">c16")
    save("c16_be_f_v3.npy", np.asfortranarray(be), version=(3, 0))
    # bf16 stored as 16-bit unsigned integers, in either byte order.
    bits = fixture("bf16").view(np.uint16)
    save("bf16_u2_c.npy", bits)
    save("bf16_u2_be_c.npy", bits.astype(">u2"))
    # Rank 0, size 0, rank 3.
    save("f8_scalar.npy", np.array(-2.5))
    save("b1_scalar.npy", np.array(True))
    save("f4_empty.npy", np.zeros((2, 0), np.float32))
    save("c8_be_empty.npy", np.zeros((0,), ">c8"))
    save("i2_rank3_f.npy", np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4)))


def spec(array, dtype):
    return safetensors.TensorSpec(
        dtype=dtype, shape=list(array.shape), data_ptr=array.ctypes.data, data_len=array.nbytes
    )


def save_safetensors(name, tensors):
    # Keep the arrays alive while the serializer reads their memory.
    arrays = {n: np.require(a, requirements="C") for n, (a, _) in tensors.items()}
    specs = {n: spec(arrays[n], dtype) for n, (_, dtype) in tensors.items()}
    (SAFETENSORS / name).write_bytes(safetensors.serialize(specs, None))


def safetensors_fixtures():
    SAFETENSORS.mkdir(exist_ok=True)
    names = {
        "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
        "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
        "f2": "float16", "f4": "float32", "f8": "float64", "bf16": "bfloat16",
    }
    tensors = {code: (fixture(code), dtype) for code, dtype in names.items()}
    tensors["scalar"] = (np.array(7.5, np.float32), "float32")
    tensors["empty"] = (np.zeros((0, 4), np.int32), "int32")
    save_safetensors("all.safetensors", tensors)
    f8 = np.array([1.0, 2.0], ml_dtypes.float8_e4m3fn)
    save_safetensors("f8.safetensors", {"w": (np.zeros(2, np.float32), "float32"), "q": (f8, "float8_e4m3fn")})
    save_safetensors("c64.safetensors", {"z": (np.array([1 + 2j], np.complex64), "complex64")})


if __name__ == "__main__":
    npy_fixtures()
    safetensors_fixtures()
