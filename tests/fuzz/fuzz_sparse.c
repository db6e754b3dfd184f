/* tests/fuzz/fuzz_sparse.c - bytes -> CSC pattern + values -> analyze / factor / solve, symv, PCG.
   Layout: byte 0 = n (b % 24), then per column: a count c (b % 6) and c row bytes (row = b - 1 so
   -1 occurs; rows > column and duplicates occur: invalid patterns are part of the input space);
   with flag bit 0 the diagonal is appended. Then 1 byte per value (signed, /16; 0x7f = NaN), then
   a shift byte. Garbage in must give a status, never a crash or an out-of-bounds access. */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include "replay.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { NMAX = 24, ZMAX = NMAX * 7 };
    fz_in in;
    int n, j, nnz = 0, colptr[NMAX + 1], rowind[ZMAX], flags, bp[NMAX + 1], nb = 0;
    double val[ZMAX], b[NMAX], x[NMAX], y[NMAX], shift;
    rc_ldlt *f = NULL;
    rc_status st;
    in.p = data; in.n = size; in.i = 0;
    n = (int)(fz_byte(&in) % (NMAX + 1));
    flags = (int)fz_byte(&in);
    for (j = 0; j < n; ++j) {
        int c = (int)(fz_byte(&in) % 6u), k;
        colptr[j] = nnz;
        for (k = 0; k < c; ++k) rowind[nnz++] = (int)fz_byte(&in) - 1;
        if (flags & 1) rowind[nnz++] = j;
    }
    colptr[n] = nnz;
    for (j = 0; j < n; ++j) {
        int p;
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            unsigned v = fz_byte(&in);
            val[p] = v == 0x7fu ? 0.0 / 0.0 : (double)(signed char)v / 16.0;
            if ((flags & 2) && rowind[p] == j) val[p] += 8.0;   /* diagonal boost: SPD more often */
        }
    }
    shift = (double)fz_byte(&in) / 8.0;
    for (j = 0; j < n; ++j) { b[j] = 1.0 + (j % 3); x[j] = 0.0; }
    for (j = 0; j <= n; j += 1 + (flags >> 4)) bp[nb++] = j;
    if (nb == 0 || bp[nb - 1] != n) bp[nb++] = n;

    (void)rc_sparse_symv(n, colptr, rowind, val, b, y);
    (void)rc_pcg_solve(n, colptr, rowind, val, (flags & 4) ? bp : NULL, nb - 1, b, x, 1e-8, 50, NULL, NULL);
    st = rc_ldlt_analyze(&f, n, colptr, rowind);
    if ((st == RC_OK) != (f != NULL)) __builtin_trap();
    if (f) {
        int pos = 0, neg = 0;
        st = (flags & 8) ? rc_ldlt_factor_shifted(f, val, shift) : rc_ldlt_factor(f, val);
        rc_ldlt_inertia(f, &pos, &neg);
        if (pos < 0 || neg < 0 || pos + neg > n) __builtin_trap();
        (void)rc_ldlt_solve(f, b);
        (void)rc_ldlt_solve_refined(f, val, b, 2);
        (void)rc_ldlt_nnz_l(f);
        rc_ldlt_destroy(f);
    }
    return 0;
}
