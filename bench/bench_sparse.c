/* bench/bench_sparse.c - the SPARSE section on cloth-like Hessians.
   Matrices: a g x g square grid cut into triangles; dv DOFs per vertex (3 or 5) plus one DOF per
   edge. Each triangle's stencil couples its 3 vertices, the 3 flap vertices across its edges and
   its 3 edges (the discrete-shell bending pattern) with a random rank-6 PSD element matrix; a
   diagonal term makes the sum SPD. Prints analyze / factor / solve times, nnz(L), fill.
   bench/peers/peers.cpp includes this file (BENCH_SPARSE_NO_MAIN) to compare with CHOLMOD and Eigen. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#ifndef BENCH_SPARSE_NO_IMPL
#define RCLOTH_IMPLEMENTATION
#endif
#include "../rcloth.h"

typedef struct bench_mat {
    int n, nnz, V, E, dv, *colptr, *rowind;
    double *val;
} bench_mat;

/* CPU time of this process: every solver here runs on one thread, and the machine is shared, so
   CPU time is the fairer clock (wall time also counts waiting for the other users' processes). */
static double bench_now(void)
{
    struct timespec ts;
#ifdef _OPENMP
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* threads: wall time */
#else
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
#endif
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long bench_state = 0x9E3779B97F4A7C15UL;
static double bench_rand(void)
{
    bench_state ^= bench_state << 13; bench_state ^= bench_state >> 7; bench_state ^= bench_state << 17;
    return (double)(bench_state >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct bench_he { long long key; int t, k; } bench_he;
static int bench_he_cmp(const void *a, const void *b)
{
    long long x = ((const bench_he *)a)->key, y = ((const bench_he *)b)->key;
    return (x > y) - (x < y);
}
static int bench_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void bench_mat_free(bench_mat *M)
{
    free(M->colptr); free(M->rowind); free(M->val);
}

static void bench_gen_cloth(int g, int dv, bench_mat *M)
{
    int nvx = g + 1, V = nvx * nvx, T = 2 * g * g, t, k, i, j, E = 0, N, n, nz;
    int *tri = (int *)malloc(sizeof(int) * 3 * (size_t)T), *tedge = (int *)malloc(sizeof(int) * 3 * (size_t)T);
    int *flap = (int *)malloc(sizeof(int) * 3 * (size_t)T);
    bench_he *he = (bench_he *)malloc(sizeof(bench_he) * 3 * (size_t)T);
    int *nptr, *nadj, *nfill, *dstart, *cp, *ri;
    double *val;
    for (j = 0; j < g; ++j)
        for (i = 0; i < g; ++i) {
            int a = j * nvx + i, b = a + 1, c = a + nvx, d = c + 1, q = 2 * (j * g + i);
            if ((i + j) % 2) {   /* alternate diagonals: a less regular mesh */
                tri[3 * q] = a; tri[3 * q + 1] = b; tri[3 * q + 2] = d;
                tri[3 * q + 3] = a; tri[3 * q + 4] = d; tri[3 * q + 5] = c;
            } else {
                tri[3 * q] = a; tri[3 * q + 1] = b; tri[3 * q + 2] = c;
                tri[3 * q + 3] = b; tri[3 * q + 4] = d; tri[3 * q + 5] = c;
            }
        }
    for (t = 0; t < T; ++t)
        for (k = 0; k < 3; ++k) {
            int a = tri[3 * t + (k + 1) % 3], b = tri[3 * t + (k + 2) % 3];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            he[3 * t + k].key = (long long)lo * V + hi;
            he[3 * t + k].t = t;
            he[3 * t + k].k = k;
            flap[3 * t + k] = -1;
        }
    qsort(he, 3 * (size_t)T, sizeof(bench_he), bench_he_cmp);
    for (i = 0; i < 3 * T; ++i) {
        if (i > 0 && he[i].key == he[i - 1].key) {
            int t0 = he[i - 1].t, k0 = he[i - 1].k, t1 = he[i].t, k1 = he[i].k;
            tedge[3 * t1 + k1] = E - 1;
            flap[3 * t0 + k0] = tri[3 * t1 + k1];
            flap[3 * t1 + k1] = tri[3 * t0 + k0];
        } else {
            tedge[3 * he[i].t + he[i].k] = E++;
        }
    }
    /* node graph (vertices 0..V-1, edges V..V+E-1), each stencil a clique */
    N = V + E;
    nptr = (int *)calloc((size_t)N + 1, sizeof(int));
    for (t = 0; t < T; ++t) {
        int nodes[9], m = 0, a;
        for (k = 0; k < 3; ++k) nodes[m++] = tri[3 * t + k];
        for (k = 0; k < 3; ++k) if (flap[3 * t + k] >= 0) nodes[m++] = flap[3 * t + k];
        for (k = 0; k < 3; ++k) nodes[m++] = V + tedge[3 * t + k];
        for (a = 0; a < m; ++a) nptr[nodes[a] + 1] += m;
    }
    for (i = 0; i < N; ++i) nptr[i + 1] += nptr[i];
    nadj = (int *)malloc(sizeof(int) * (size_t)nptr[N]);
    nfill = (int *)malloc(sizeof(int) * (size_t)N);
    for (i = 0; i < N; ++i) nfill[i] = nptr[i];
    for (t = 0; t < T; ++t) {
        int nodes[9], m = 0, a, b;
        for (k = 0; k < 3; ++k) nodes[m++] = tri[3 * t + k];
        for (k = 0; k < 3; ++k) if (flap[3 * t + k] >= 0) nodes[m++] = flap[3 * t + k];
        for (k = 0; k < 3; ++k) nodes[m++] = V + tedge[3 * t + k];
        for (a = 0; a < m; ++a)
            for (b = 0; b < m; ++b) nadj[nfill[nodes[a]]++] = nodes[b];
    }
    for (i = 0; i < N; ++i) {   /* sort + unique in place, remember the new length in nfill */
        int p, q = nptr[i];
        qsort(nadj + nptr[i], (size_t)(nptr[i + 1] - nptr[i]), sizeof(int), bench_int_cmp);
        for (p = nptr[i]; p < nptr[i + 1]; ++p)
            if (p == nptr[i] || nadj[p] != nadj[p - 1]) nadj[q++] = nadj[p];
        nfill[i] = q;
    }
    dstart = (int *)malloc(sizeof(int) * ((size_t)N + 1));
    for (i = 0; i <= N; ++i) dstart[i] = i <= V ? i * dv : V * dv + (i - V);
    n = dstart[N];
    cp = (int *)malloc(sizeof(int) * ((size_t)n + 1));
    cp[0] = 0;
    nz = 0;
    for (i = 0; i < N; ++i)   /* count */
        for (k = dstart[i]; k < dstart[i + 1]; ++k) {
            int p;
            for (p = nptr[i]; p < nfill[i]; ++p) {
                int b = nadj[p], r;
                for (r = dstart[b]; r < dstart[b + 1] && r <= k; ++r) ++nz;
            }
            cp[k + 1] = nz;
        }
    ri = (int *)malloc(sizeof(int) * (size_t)nz);
    val = (double *)calloc((size_t)nz, sizeof(double));
    nz = 0;
    for (i = 0; i < N; ++i)
        for (k = dstart[i]; k < dstart[i + 1]; ++k) {
            int p;
            for (p = nptr[i]; p < nfill[i]; ++p) {
                int b = nadj[p], r;
                for (r = dstart[b]; r < dstart[b + 1] && r <= k; ++r) ri[nz++] = r;
            }
        }
    for (t = 0; t < T; ++t) {   /* element values: G G^T, G random m x 6 */
        int dofs[33], m = 0, a, b, c;
        double G[33 * 6];
        for (k = 0; k < 3; ++k) for (c = 0; c < dv; ++c) dofs[m++] = tri[3 * t + k] * dv + c;
        for (k = 0; k < 3; ++k) if (flap[3 * t + k] >= 0) for (c = 0; c < dv; ++c) dofs[m++] = flap[3 * t + k] * dv + c;
        for (k = 0; k < 3; ++k) dofs[m++] = V * dv + tedge[3 * t + k];
        for (a = 0; a < 6 * m; ++a) G[a] = 2.0 * bench_rand() - 1.0;
        for (a = 0; a < m; ++a)
            for (b = 0; b < m; ++b) {
                int r = dofs[a], col = dofs[b], lo, hi, mid;
                double s = 0.0;
                if (r > col) continue;
                for (c = 0; c < 6; ++c) s += G[6 * a + c] * G[6 * b + c];
                lo = cp[col]; hi = cp[col + 1] - 1;
                while (lo < hi) { mid = (lo + hi) / 2; if (ri[mid] < r) lo = mid + 1; else hi = mid; }
                val[lo] += s;
            }
    }
    for (k = 0; k < n; ++k) val[cp[k + 1] - 1] += 0.1;   /* diagonal is the last entry of each column */
    M->n = n; M->nnz = nz; M->V = V; M->E = E; M->dv = dv;
    M->colptr = cp; M->rowind = ri; M->val = val;
    free(tri); free(tedge); free(flap); free(he); free(nptr); free(nadj); free(nfill); free(dstart);
}

/* our solver on M: times in seconds (factor: best of reps), nnz(L), relative residual */
typedef struct bench_ours { double t_an, t_fac, t_sol, relres; size_t nnzl; int nsuper; } bench_ours;

static bench_ours bench_run_ours(const bench_mat *M, int reps, int nthreads)
{
    bench_ours r;
    rc_ldlt *f = NULL;
    double *b = (double *)malloc(sizeof(double) * (size_t)M->n), *x = (double *)malloc(sizeof(double) * (size_t)M->n);
    double *y = (double *)malloc(sizeof(double) * (size_t)M->n), t0, rn = 0.0, bn = 0.0;
    int i, k;
    memset(&r, 0, sizeof r);
    t0 = bench_now();
    if (rc_ldlt_analyze(&f, M->n, M->colptr, M->rowind) != RC_OK) { printf("analyze failed\n"); exit(1); }
    r.t_an = bench_now() - t0;
    f->nthreads = nthreads;
    r.t_fac = 1e30;
    for (k = 0; k < reps && (k < 2 || r.t_fac * k < 3.0); ++k) {   /* best of reps, ~3 s cap */
        rc_status st;
        t0 = bench_now();
        st = rc_ldlt_factor(f, M->val);
        t0 = bench_now() - t0;
        if (st != RC_OK) { printf("factor: %s\n", rc_status_string(st)); exit(1); }
        if (t0 < r.t_fac) r.t_fac = t0;
    }
    for (i = 0; i < M->n; ++i) b[i] = 2.0 * bench_rand() - 1.0;
    r.t_sol = 1e30;
    for (k = 0; k < 10; ++k) {   /* best of 10: one solve is ~1 ms, below the machine's noise */
        memcpy(x, b, sizeof(double) * (size_t)M->n);
        t0 = bench_now();
        rc_ldlt_solve(f, x);
        t0 = bench_now() - t0;
        if (t0 < r.t_sol) r.t_sol = t0;
    }
    rc_sparse_symv(M->n, M->colptr, M->rowind, M->val, x, y);
    for (i = 0; i < M->n; ++i) { rn += (y[i] - b[i]) * (y[i] - b[i]); bn += b[i] * b[i]; }
    r.relres = sqrt(rn / bn);
    r.nnzl = rc_ldlt_nnz_l(f);
    r.nsuper = f->nsuper;
    rc_ldlt_destroy(f);
    free(b); free(x); free(y);
    return r;
}

/* grid sizes giving ~5k, 20k, 50k, 100k, 150k unknowns for dv = 3 (n ~ 6 g^2) and 5 (n ~ 8 g^2) */
static const int bench_g3[5] = { 29, 58, 91, 129, 158 };
static const int bench_g5[5] = { 25, 50, 79, 112, 137 };

#ifndef BENCH_SPARSE_NO_MAIN
int main(int argc, char **argv)
{
    int dv, s;
    (void)argv;
    printf("rcloth sparse LDL^T on cloth-like matrices (dv DOFs/vertex + 1 DOF/edge, stencil = 3 own + 3 flap vertices + 3 edges)\n");
    printf("%3s %8s %10s %12s %6s %10s %10s %9s %7s %9s\n", "dv", "n", "nnz(A)", "nnz(L)", "fill", "analyze", "factor",
           "solve", "super", "relres");
    for (dv = 3; dv <= 5; dv += 2)
        for (s = 0; s < 5; ++s) {
            bench_mat M;
            bench_ours r;
            if (argc > 1 && s > 2) break;   /* quick mode */
            bench_gen_cloth(dv == 3 ? bench_g3[s] : bench_g5[s], dv, &M);
            r = bench_run_ours(&M, 3, 1);
            printf("%3d %8d %10d %12lu %6.2f %8.1fms %8.1fms %7.2fms %7d %9.1e\n", dv, M.n, M.nnz, (unsigned long)r.nnzl,
                   (double)r.nnzl / (double)M.nnz, 1e3 * r.t_an, 1e3 * r.t_fac, 1e3 * r.t_sol, r.nsuper, r.relres);
#ifdef _OPENMP
            {   /* the same matrix on 2 threads (tree split + parallel dense products), side by side */
                bench_ours r2 = bench_run_ours(&M, 3, 2);
                printf("    2 threads: factor %8.1fms (%.2fx), solve %7.2fms (%.2fx), relres %9.1e\n", 1e3 * r2.t_fac,
                       r.t_fac / r2.t_fac, 1e3 * r2.t_sol, r.t_sol / r2.t_sol, r2.relres);
            }
#endif
            bench_mat_free(&M);
        }
#ifdef _OPENMP
    printf("fill = nnz(L) / nnz(upper A); wall times (OpenMP build); factor = best of 3, solve = best of 10; relres = |A x - b| / |b|\n");
#else
    printf("fill = nnz(L) / nnz(upper A); CPU times; factor = best of 3, solve = best of 10; relres = |A x - b| / |b|\n");
#endif
    return 0;
}
#endif
