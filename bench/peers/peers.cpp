// bench/peers/peers.cpp - rcloth's sparse LDL^T side by side with CHOLMOD and Eigen on the cloth-like
// matrices of bench/bench_sparse.c. Peers are linked in this benchmark only. Single thread
// (run with OPENBLAS_NUM_THREADS=1). Factor times are CPU times, the best of up to 3 numeric
// factorizations on one symbolic analysis (fewer when one takes seconds), for every solver.
// Eigen's simplicial LDL^T needs 10-60 s per factorization above 60k unknowns: it runs there only
// with `build/bench_peers full` (the default run stays near 2 minutes of CPU).
#define BENCH_SPARSE_NO_MAIN
#include "../bench_sparse.c"
#include <cholmod.h>
#include <amd.h>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <vector>

struct peer_times { double t_an, t_fac, relres; double lnz; };

static double relres_of(const bench_mat *M, const double *x, const double *b)
{
    std::vector<double> y((size_t)M->n);
    rc_sparse_symv(M->n, M->colptr, M->rowind, M->val, x, y.data());
    double rn = 0.0, bn = 0.0;
    for (int i = 0; i < M->n; ++i) { rn += (y[i] - b[i]) * (y[i] - b[i]); bn += b[i] * b[i]; }
    return std::sqrt(rn / bn);
}

static peer_times run_cholmod(const bench_mat *M, int amd_only, int reps)
{
    peer_times r = { 0, 1e30, 0, 0 };
    cholmod_common c;
    cholmod_start(&c);
    if (amd_only) { c.nmethods = 1; c.method[0].ordering = CHOLMOD_AMD; c.postorder = 1; }
    cholmod_sparse A;
    memset(&A, 0, sizeof A);
    A.nrow = A.ncol = (size_t)M->n;
    A.nzmax = (size_t)M->nnz;
    A.p = M->colptr; A.i = M->rowind; A.x = M->val;
    A.stype = 1; A.itype = CHOLMOD_INT; A.xtype = CHOLMOD_REAL; A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1; A.packed = 1;
    double t0 = bench_now();
    cholmod_factor *L = cholmod_analyze(&A, &c);
    r.t_an = bench_now() - t0;
    for (int k = 0; k < reps && (k < 2 || r.t_fac * k < 3.0); ++k) {
        t0 = bench_now();
        cholmod_factorize(&A, L, &c);
        t0 = bench_now() - t0;
        if (t0 < r.t_fac) r.t_fac = t0;
    }
    r.lnz = c.lnz;
    cholmod_dense *B = cholmod_zeros(A.nrow, 1, CHOLMOD_REAL, &c);
    for (int i = 0; i < M->n; ++i) ((double *)B->x)[i] = 2.0 * bench_rand() - 1.0;
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, &c);
    r.relres = relres_of(M, (double *)X->x, (double *)B->x);
    if (c.status != CHOLMOD_OK || !L->is_super) printf("  (cholmod status %d, supernodal %d)\n", c.status, L->is_super);
    cholmod_free_dense(&X, &c);
    cholmod_free_dense(&B, &c);
    cholmod_free_factor(&L, &c);
    cholmod_finish(&c);
    return r;
}

static peer_times run_eigen(const bench_mat *M, int reps)
{
    peer_times r = { 0, 1e30, 0, 0 };
    Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>> A(M->n, M->n, M->nnz, M->colptr, M->rowind, M->val);
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper> ldlt;
    Eigen::SparseMatrix<double> As = A;
    double t0 = bench_now();
    ldlt.analyzePattern(As);
    r.t_an = bench_now() - t0;
    for (int k = 0; k < reps && (k < 2 || r.t_fac * k < 3.0); ++k) {
        t0 = bench_now();
        ldlt.factorize(As);
        t0 = bench_now() - t0;
        if (t0 < r.t_fac) r.t_fac = t0;
    }
    Eigen::VectorXd b(M->n);
    for (int i = 0; i < M->n; ++i) b[i] = 2.0 * bench_rand() - 1.0;
    Eigen::VectorXd x = ldlt.solve(b);
    r.relres = relres_of(M, x.data(), b.data());
    return r;
}

static double amd_lnz(const bench_mat *M)
{
    std::vector<int> P((size_t)M->n);
    double Control[AMD_CONTROL], Info[AMD_INFO];
    amd_defaults(Control);
    amd_order(M->n, M->colptr, M->rowind, P.data(), Control, Info);
    return Info[AMD_LNZ];
}

int main(int argc, char **argv)
{
    int nsizes = (argc > 1 && !strcmp(argv[1], "quick")) ? 3 : 5;
    int full = argc > 1 && !strcmp(argv[1], "full");
    printf("factor-time ratios (< 1: rcloth faster) and fill vs SuiteSparse AMD; single thread, best of 3\n");
    printf("%3s %7s | %9s %9s %9s %9s | %8s %8s %8s | %11s %11s %6s | %9s %9s\n", "dv", "n", "ours", "Eigen", "CHM-dflt",
           "CHM-AMD", "/Eigen", "/CHMdef", "/CHMamd", "nnzL ours", "nnzL AMD", "ratio", "an.ours", "an.CHM");
    for (int dv = 3; dv <= 5; dv += 2)
        for (int s = 0; s < nsizes; ++s) {
            bench_mat M;
            bench_gen_cloth(dv == 3 ? bench_g3[s] : bench_g5[s], dv, &M);
            bench_ours o = bench_run_ours(&M, 3, 1);
            peer_times e = { 0, 0, 0, 0 };
            if (full || M.n < 60000) e = run_eigen(&M, 3);
            peer_times cd = run_cholmod(&M, 0, 3);
            peer_times ca = run_cholmod(&M, 1, 3);
            double lnz = amd_lnz(&M);
            if (e.t_fac > 0.0) printf("%3d %7d | %7.1fms %7.1fms ", dv, M.n, 1e3 * o.t_fac, 1e3 * e.t_fac);
            else printf("%3d %7d | %7.1fms %9s ", dv, M.n, 1e3 * o.t_fac, "(skip)");
            printf("%7.1fms %7.1fms | %8.2f %8.2f %8.2f | %11lu %11.0f %6.3f | %7.0fms %7.0fms\n",
                   1e3 * cd.t_fac, 1e3 * ca.t_fac, e.t_fac > 0.0 ? o.t_fac / e.t_fac : 0.0, o.t_fac / cd.t_fac,
                   o.t_fac / ca.t_fac, (unsigned long)o.nnzl, lnz, (double)o.nnzl / lnz, 1e3 * o.t_an, 1e3 * cd.t_an);
            if (o.relres > 1e-10 || e.relres > 1e-10 || cd.relres > 1e-10 || ca.relres > 1e-10)
                printf("    residuals: ours %.1e eigen %.1e cholmod %.1e / %.1e\n", o.relres, e.relres, cd.relres, ca.relres);
            fflush(stdout);
            bench_mat_free(&M);
        }
    return 0;
}
