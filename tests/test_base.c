/* BASE section: status strings, dense eigen-solver, PSD projection. */
#include "test.h"

static void test_status_strings(void)
{
    int s;
    for (s = 0; s < RC_STATUS_COUNT; ++s) {
        const char *str = rc_status_string((rc_status)s);
        CHECK(str != NULL && strlen(str) > 0);
    }
    CHECK(strcmp(rc_status_string(RC_OK), "ok") == 0);
    CHECK(strcmp(rc_status_string((rc_status)999), "unknown status") == 0);
    CHECK(strcmp(rc_status_string((rc_status)-1), "unknown status") == 0);
}

static void test_sym_eig_reconstructs(void)
{
    enum { N = 12 };
    double A[N * N], B[N * N], V[N * N], lam[N];
    int i, j, k, trial;
    for (trial = 0; trial < 5; ++trial) {
        double maxerr = 0.0, orth = 0.0;
        for (i = 0; i < N; ++i)
            for (j = i; j < N; ++j) A[i * N + j] = A[j * N + i] = 2.0 * t_rand() - 1.0;
        memcpy(B, A, sizeof A);
        rc__sym_eig(N, B, lam, V);
        for (i = 0; i < N; ++i)
            for (j = 0; j < N; ++j) {
                double s = 0.0, o = 0.0;
                for (k = 0; k < N; ++k) { s += V[i * N + k] * lam[k] * V[j * N + k]; o += V[k * N + i] * V[k * N + j]; }
                if (fabs(s - A[i * N + j]) > maxerr) maxerr = fabs(s - A[i * N + j]);
                if (fabs(o - (i == j)) > orth) orth = fabs(o - (i == j));
            }
        CHECKF(maxerr < 1e-12, "reconstruction error %g", maxerr);
        CHECKF(orth < 1e-12, "orthogonality error %g", orth);
    }
}

static void test_psd_projection(void)
{
    enum { N = 9 };
    double H[N * N], work[3 * N * N + N], V[N * N], lam[N], C[N * N];
    int i, j;
    for (i = 0; i < N; ++i)
        for (j = i; j < N; ++j) H[i * N + j] = H[j * N + i] = 2.0 * t_rand() - 1.0;
    CHECK(rc__psd_project_jacobi(N, H, RC__PROJECT_CLAMP, work) == 1);
    memcpy(C, H, sizeof H);
    rc__sym_eig(N, C, lam, V);
    for (i = 0; i < N; ++i) CHECKF(lam[i] > -1e-12, "eigenvalue %g after projection", lam[i]);
    /* projecting again changes nothing (up to round-off) */
    memcpy(C, H, sizeof H);
    rc__psd_project_jacobi(N, C, RC__PROJECT_CLAMP, work);
    for (i = 0; i < N * N; ++i) CHECK(fabs(C[i] - H[i]) < 1e-12);
    /* a diagonally dominant matrix is returned untouched */
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j) H[i * N + j] = (i == j) ? 10.0 : 0.5;
    CHECK(rc__psd_project_jacobi(N, H, RC__PROJECT_CLAMP, work) == 0);
}

static void test_finite_helpers(void)
{
    double v[3] = { 1.0, 2.0, 3.0 };
    CHECK(rc__all_finite(v, 3));
    v[1] = NAN;
    CHECK(!rc__all_finite(v, 3));
    v[1] = INFINITY;
    CHECK(!rc__all_finite(v, 3));
    CHECK(!rc__isfinite(-INFINITY));
    {   /* every length 0..9 (the unrolled body and its tail), a bad value at every position */
        double w[9], bad[3];
        int n, at, k, ok = 1;
        bad[0] = NAN; bad[1] = INFINITY; bad[2] = -INFINITY;
        for (n = 0; n <= 9; ++n) {
            for (k = 0; k < n; ++k) w[k] = k % 2 ? -1e308 : -0.0;
            if (!rc__all_finite(w, (size_t)n)) ok = 0;
            for (at = 0; at < n; ++at)
                for (k = 0; k < 3; ++k) {
                    double keep = w[at];
                    w[at] = bad[k];
                    if (rc__all_finite(w, (size_t)n)) ok = 0;
                    w[at] = keep;
                }
        }
        CHECK(ok);
    }
}

static void suite_base(void)
{
    RUN(test_status_strings);
    RUN(test_sym_eig_reconstructs);
    RUN(test_psd_projection);
    RUN(test_finite_helpers);
}
