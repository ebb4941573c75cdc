"""Writes the .npy fixtures of tests/tests/npy.rs with numpy itself (numpy 2.x).

Every numeric array is np.arange(24).reshape(2, 3, 4) (minus 12 for signed types)
cast to its dtype, so the Rust test recomputes the expected values. Run from this
folder: python3 make_fixtures.py
"""
import numpy as np

base = np.arange(24).reshape(2, 3, 4)
for name, dt, signed in [
    ("i1", "|i1", True), ("u1", "|u1", False), ("i2", "<i2", True), ("u2", "<u2", False),
    ("i4", "<i4", True), ("u4", "<u4", False), ("i8", "<i8", True), ("u8", "<u8", False),
    ("f2", "<f2", True), ("f4", "<f4", True), ("f8", "<f8", True),
]:
    np.save(f"{name}.npy", (base - 12 if signed else base).astype(dt))
np.save("b1.npy", (base % 3 == 0))
np.save("c8.npy", (base - 12 + 1j * base).astype("<c8"))
np.save("c16.npy", (base - 12 + 1j * base).astype("<c16"))
# Byte order and memory order.
np.save("be_i4.npy", (base - 12).astype(">i4"))
np.save("be_f8.npy", (base - 12).astype(">f8"))
np.save("be_c16.npy", (base - 12 + 1j * base).astype(">c16"))
np.save("fortran_i4.npy", np.asfortranarray((base - 12).astype("<i4")))
assert np.load("fortran_i4.npy").flags.f_contiguous
# Strings.
np.save("unicode.npy", np.array([["a", "bé", ""], ["ünï", "x y", "日本"]]))
np.save("fortran_unicode.npy", np.asfortranarray(np.array([["a", "bé", ""], ["ünï", "x y", "日本"]])))
np.save("bytes.npy", np.array([b"ab", b"", b"xyz"]))
# Shapes.
np.save("scalar_f4.npy", np.float32(1.5))
np.save("empty_i8.npy", np.zeros((0, 3), dtype="<i8"))
# Unsupported or corrupt.
np.save("object.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
np.save("structured.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]))
np.save("datetime.npy", np.array(["2020-01-01"], dtype="datetime64[D]"))
whole = open("i4.npy", "rb").read()
open("truncated_data.npy", "wb").write(whole[:-5])
open("truncated_header.npy", "wb").write(whole[:40])
open("trailing_bytes.npy", "wb").write(whole + b"\0\0\0\0")
open("bad_magic.npy", "wb").write(b"\x93NUMPX" + whole[6:])
open("empty_file.npy", "wb").write(b"")
