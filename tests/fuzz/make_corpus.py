#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz harnesses (tests/fuzz/corpus/<harness>/). Deterministic;
the files are committed, rerun with `make fuzz-corpus` after changing an input layout. Files named
crash_* are former libFuzzer crashers (fixed), committed as found and not written by this script."""
import os, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus"

def put(harness, name, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# ---- fuzz_mesh: nv-3, nt-1, flags, int16 uv (mm), index+2 bytes -------------------------------
def mesh(nv, tris, uv, flags):
    b = bytes([nv - 3, len(tris) - 1, flags])
    for u, v in uv:
        b += struct.pack("<hh", u, v)
    for t in tris:
        b += bytes([i + 2 for i in t])
    return b

def grid(n, h=100):
    uv = [(i * h, j * h) for j in range(n) for i in range(n)]
    tris = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i + 1, (j + 1) * n + i
            tris += [(a, b, c), (a, c, d)]
    return uv, tris

uv, tris = grid(3)
put("fuzz_mesh", "grid3_step_sphere", mesh(9, tris, uv, 1 | 2 | 4 | 8))
put("fuzz_mesh", "grid3_plain", mesh(9, tris, uv, 0))
put("fuzz_mesh", "grid3_clockwise", mesh(9, [(a, c, b) for a, b, c in tris], uv, 8))
uv4, tris4 = grid(4, 50)
put("fuzz_mesh", "grid4_step", mesh(16, tris4, uv4, 2 | 8))
sq = [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]
put("fuzz_mesh", "square_nan", mesh(4, [(0, 1, 2), (0, 2, 3)], [(0, 0), (1000, 0), (0x7fff, 1000), (0, 1000)], 8))
put("fuzz_mesh", "square_inf", mesh(4, [(0, 1, 2), (0, 2, 3)], [(0, 0), (1000, 0), (1000, -0x8000), (0, 1000)], 8))
put("fuzz_mesh", "square_oob", mesh(4, [(0, 1, 2), (0, 2, 9)], sq, 8))
put("fuzz_mesh", "square_neg", mesh(4, [(0, 1, 2), (-1, 2, 3)], sq, 8))
put("fuzz_mesh", "square_repeat", mesh(4, [(0, 1, 1), (0, 2, 3)], sq, 8))
put("fuzz_mesh", "square_mixed", mesh(4, [(0, 1, 2), (0, 3, 2)], sq, 8))
put("fuzz_mesh", "degenerate", mesh(4, [(0, 1, 2), (0, 2, 3)], [(0, 0), (500, 0), (1000, 0), (0, 1000)], 8))
put("fuzz_mesh", "nonmanifold", mesh(5, [(0, 1, 2), (0, 1, 3), (0, 1, 4)], [(0, 0), (1000, 0), (500, 1000), (500, 2000), (500, 3000)], 8))
put("fuzz_mesh", "tiny", mesh(3, [(0, 1, 2)], [(0, 0), (1, 0), (0, 1)], 1 | 8))
put("fuzz_mesh", "empty", b"")

# ---- fuzz_obj: text files -------------------------------------------------------------------
objs = {
    "tri": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "quad_vt": "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n",
    "seam": "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
            "vt 2 0\nvt 2 1\nvt 1.01 0\nf 1/1 2/2 3/3 4/4\nf 2/7 5/5 6/6\nf 2/7 6/6 3/3\n",
    "normals": "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 1/1/1 2/1/1 3/1/1\n",
    "negative": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n",
    "comments": "# c\no obj\ng grp\ns off\nusemtl m\nmtllib x.mtl\nv 0 0 0 1\nv 1 0 0\nv 0 1 0\nl 1 2\nf 1 2 3\n",
    "crlf": "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n",
    "bad_index": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
    "zero_index": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n",
    "huge_index": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n",
    "nan": "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "inf": "v 1e999 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "two_corners": "v 0 0 0\nv 1 0 0\nf 1 2\n",
    "no_newline": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
    "long_line": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf " + " ".join(["1", "2", "3"] * 200) + "\n",
    "hex_numbers": "v 0x1p3 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "empty": "",
}
for k, v in objs.items():
    put("fuzz_obj", k, v.encode())
put("fuzz_obj", "nul_byte", b"v 0 0 0\nv 1\x00 0 0\nv 0 1 0\nf 1 2 3\n")

# ---- fuzz_sparse: n, flags, per column count + rows+1, values (signed /16, 0x7f NaN), shift --------
def sparse(n, flags, cols, vals, shift=0):
    b = bytes([n, flags])
    for rows in cols:
        b += bytes([len(rows)] + [r + 1 for r in rows])
    b += bytes([v & 0xff for v in vals]) + bytes([shift])
    return b

tri = [[j - 1] if j else [] for j in range(8)]          # off-diagonal above the diagonal
nnz = sum(len(c) + 1 for c in tri)
vals = []
for j, c in enumerate(tri):
    vals += [-16] * len(c) + [64]
put("fuzz_sparse", "tridiag_spd", sparse(8, 1, tri, vals))
put("fuzz_sparse", "tridiag_pcg_blocks", sparse(8, 1 | 4 | (1 << 4), tri, vals))
put("fuzz_sparse", "tridiag_shifted", sparse(8, 1 | 8, tri, [-v for v in vals], 200))
put("fuzz_sparse", "indefinite", sparse(8, 1, tri, [(-64 if k % 3 == 0 else v) for k, v in enumerate(vals)]))
put("fuzz_sparse", "nan_value", sparse(8, 1, tri, vals[:5] + [0x7f] + vals[6:]))
put("fuzz_sparse", "lower_entry", sparse(3, 1, [[1], [], []], [16, 64, 64, 64]))
put("fuzz_sparse", "row_oob", sparse(3, 1, [[], [7], []], [64, 16, 64, 64]))
put("fuzz_sparse", "row_neg", sparse(3, 1, [[], [-1], []], [64, 16, 64, 64]))
put("fuzz_sparse", "duplicate", sparse(3, 1, [[], [0, 0], []], [64, 16, 16, 64, 64]))
put("fuzz_sparse", "no_diag", sparse(4, 0, [[], [0], [1], [2]], [16, 16, 16]))
put("fuzz_sparse", "dense6", sparse(6, 1 | 2 | 4, [list(range(j)) for j in range(6)], [(7 * k) % 50 - 25 for k in range(21)]))
put("fuzz_sparse", "zero_n", bytes([0, 0]))
put("fuzz_sparse", "empty", b"")
