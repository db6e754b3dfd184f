/* CONTACT section: barrier, distances and their derivatives, mollifier, analytic shapes, CCD,
   friction kernels, broad phase. */
#include "test.h"

/* ---- finite-difference helpers ----
   Centred differences with step 1e-6 on O(1) coordinates: truncation error ~h^2 |f'''| ~ 1e-12,
   round-off ~ 1e-16 |f| / h ~ 1e-10. A relative tolerance of 1e-6 of the largest entry is far
   above both and far below any error from a wrong term (which is O(1) relative). */
#define T_FD_H 1e-6
#define T_FD_TOL 1e-6

typedef double (*t_ct_fn)(const double *x, void *ctx, double *g, double *H);

static double t_ct_maxabs(const double *v, int n)
{
    double m = 0.0;
    int i;
    for (i = 0; i < n; ++i) if (fabs(v[i]) > m) m = fabs(v[i]);
    return m;
}

/* Checks grad against FD of the value and hess against FD of grad (if check_hess). Returns the worst
   relative errors through eg, eh. */
static void t_ct_fd(t_ct_fn f, void *ctx, const double *x0, int n, int check_hess, double *eg, double *eh)
{
    double x[12], g[12], H[144], gp[12], gm[12], fdg[12], fdH[144], sg, sh;
    int i, j;
    memcpy(x, x0, sizeof(double) * (size_t)n);
    f(x, ctx, g, H);
    for (i = 0; i < n; ++i) {
        double fp, fm;
        x[i] = x0[i] + T_FD_H; fp = f(x, ctx, gp, NULL);
        x[i] = x0[i] - T_FD_H; fm = f(x, ctx, gm, NULL);
        x[i] = x0[i];
        fdg[i] = (fp - fm) / (2.0 * T_FD_H);
        for (j = 0; j < n; ++j) fdH[j * n + i] = (gp[j] - gm[j]) / (2.0 * T_FD_H);
    }
    /* FD noise of a Hessian entry is ~ 1e-16 |g| / h = 1e-10 |g|: a Hessian that is exactly zero
       (plane, box face region) is compared at that noise level, not at 0 */
    sg = t_ct_maxabs(g, n); if (sg < 1e-8) sg = 1e-8;
    sh = t_ct_maxabs(H, n * n); if (sh < 1e-4 * sg) sh = 1e-4 * sg;
    *eg = 0.0; *eh = 0.0;
    for (i = 0; i < n; ++i) if (fabs(fdg[i] - g[i]) / sg > *eg) *eg = fabs(fdg[i] - g[i]) / sg;
    if (check_hess)
        for (i = 0; i < n * n; ++i) if (fabs(fdH[i] - H[i]) / sh > *eh) *eh = fabs(fdH[i] - H[i]) / sh;
}

/* typed distance wrappers: ctx points to the type */
/* the edge-edge mollifier's threshold of edges (x0, x1), (x2, x3) taken at their current lengths */
static double t_ct_mollifier_eps(const double *x)
{
    double a[3], b[3];
    rc__sub3(a, x + 3, x);
    rc__sub3(b, x + 9, x + 6);
    return rc__ct_ee_mollifier_eps(rc__dot3(a, a), rc__dot3(b, b));
}
static double t_ct_pt_fn(const double *x, void *ctx, double *g, double *H)
{
    return rc__ct_point_triangle_d2_typed(x, x + 3, x + 6, x + 9, *(int *)ctx, NULL, g, H);
}
static double t_ct_ee_fn(const double *x, void *ctx, double *g, double *H)
{
    return rc__ct_edge_edge_d2_typed(x, x + 3, x + 6, x + 9, *(int *)ctx, NULL, g, H);
}

static void t_ct_jitter(double *x, int n, double amp)
{
    int i;
    for (i = 0; i < n; ++i) x[i] += amp * (2.0 * t_rand() - 1.0);
}

/* brute-force squared distance between two convex sets sampled by barycentric grids */
static double t_ct_brute_pt(const double *x)
{
    double best = HUGE_VAL;
    int i, j, N = 300;
    for (i = 0; i <= N; ++i)
        for (j = 0; j <= N - i; ++j) {
            double a = (double)i / N, b = (double)j / N, q[3], r[3];
            int k;
            for (k = 0; k < 3; ++k) q[k] = (1 - a - b) * x[3 + k] + a * x[6 + k] + b * x[9 + k];
            rc__sub3(r, x, q);
            if (rc__dot3(r, r) < best) best = rc__dot3(r, r);
        }
    return best;
}
static double t_ct_brute_ee(const double *x)
{
    double best = HUGE_VAL;
    int i, j, N = 600;
    for (i = 0; i <= N; ++i)
        for (j = 0; j <= N; ++j) {
            double s = (double)i / N, t = (double)j / N, r[3];
            int k;
            for (k = 0; k < 3; ++k) r[k] = (1 - s) * x[k] + s * x[3 + k] - (1 - t) * x[6 + k] - t * x[9 + k];
            if (rc__dot3(r, r) < best) best = rc__dot3(r, r);
        }
    return best;
}

static void test_ct_point_triangle_types(void)
{
    /* triangle (0,0,0), (1,0,0), (0,1,0); one point per region of the plane (above it by 0.3) */
    static const double pts[7][3] = {{-0.5, -0.4, 0.3}, {1.6, -0.3, 0.3}, {-0.3, 1.5, -0.3},
                                     {0.5, -0.5, 0.3},  {0.8, 0.8, 0.3},  {-0.5, 0.45, -0.2},
                                     {0.25, 0.3, 0.5}};
    static const int want[7] = {RC__CT_P_T0, RC__CT_P_T1, RC__CT_P_T2, RC__CT_P_E0,
                                RC__CT_P_E1, RC__CT_P_E2, RC__CT_P_T};
    int c, trial;
    for (trial = 0; trial < 3; ++trial)
        for (c = 0; c < 7; ++c) {
            double x[12] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, eg, eh, d2, ref;
            int type;
            memcpy(x, pts[c], sizeof pts[c]);
            t_ct_jitter(x, 12, 0.05);
            d2 = rc__ct_point_triangle_d2(x, x + 3, x + 6, x + 9, &type, NULL, NULL);
            CHECKF(type == want[c], "case %d type %d", c, type);
            /* the sampled minimum is an upper bound; grid spacing 1/300 bounds the gap from above
               by ~ 2 d (1/300) + (1/300)^2 */
            ref = t_ct_brute_pt(x);
            CHECKF(d2 <= ref + 1e-14 && d2 > ref - 2.0 * sqrt(ref) * 0.01 - 1e-4, "pt d2 %g vs sampled %g", d2, ref);
            t_ct_fd(t_ct_pt_fn, &type, x, 12, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "pt type %d fd %g %g", type, eg, eh);
        }
}

static void test_ct_edge_edge_types(void)
{
    /* edge a = (0,0,0)-(1,0,0); edge b placed so that each of the 9 types is the closest pair */
    static const double eb[9][6] = {
        {-0.5, -0.2, 0.3, -0.8, -0.7, 0.7},   /* EA0_EB0 */
        {-0.8, -0.7, 0.7, -0.5, -0.2, 0.3},   /* EA0_EB1 */
        {1.5, -0.2, 0.3, 1.8, -0.7, 0.7},     /* EA1_EB0 */
        {1.8, -0.7, 0.7, 1.5, -0.2, 0.3},     /* EA1_EB1 */
        {0.5, 0.5, 0.3, 0.55, 1.5, 0.35},     /* EA_EB0 */
        {0.55, 1.5, 0.35, 0.5, 0.5, 0.3},     /* EA_EB1 */
        {-0.5, -0.5, 0.3, -0.45, 0.5, 0.35},  /* EA0_EB */
        {1.5, -0.5, 0.3, 1.45, 0.5, 0.35},    /* EA1_EB */
        {0.5, -0.5, 0.3, 0.4, 0.5, 0.35}};    /* EA_EB */
    int c, trial;
    for (trial = 0; trial < 3; ++trial)
        for (c = 0; c < 9; ++c) {
            double x[12] = {0, 0, 0, 1, 0, 0}, eg, eh, d2, ref;
            int type;
            memcpy(x + 6, eb[c], sizeof eb[c]);
            t_ct_jitter(x, 12, 0.05);
            d2 = rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, &type, NULL, NULL);
            CHECKF(type == c, "case %d type %d", c, type);
            ref = t_ct_brute_ee(x);
            CHECKF(d2 <= ref + 1e-14 && d2 > ref - 2.0 * sqrt(ref) * 0.005 - 1e-4, "ee d2 %g vs sampled %g", d2, ref);
            t_ct_fd(t_ct_ee_fn, &type, x, 12, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "ee type %d fd %g %g", type, eg, eh);
        }
}

static void test_ct_edge_edge_parallel(void)
{
    /* exactly parallel overlapping edges at distance 0.3: the line-line solve is singular; the
       distance must still be exact and the type an endpoint-vs-edge one */
    double x[12] = {0, 0, 0, 1, 0, 0, 0.5, 0, 0.3, 1.5, 0, 0.3}, g[12], H[144], eg, eh;
    int type, k;
    double d2 = rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, &type, g, H);
    CHECK_NEAR(d2, 0.09, 1e-15);
    CHECK(type != RC__CT_EA_EB);
    for (k = 0; k < 12; ++k) CHECK(rc__isfinite(g[k]));
    for (k = 0; k < 144; ++k) CHECK(rc__isfinite(H[k]));
    t_ct_fd(t_ct_ee_fn, &type, x, 12, 1, &eg, &eh);
    CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "parallel ee type %d fd %g %g", type, eg, eh);
    /* anti-parallel, disjoint along the axis */
    {
        double y[12] = {0, 0, 0, 1, 0, 0, 2.5, 0.4, 0, 1.5, 0.4, 0};
        d2 = rc__ct_edge_edge_d2(y, y + 3, y + 6, y + 9, &type, NULL, NULL);
        CHECK_NEAR(d2, 0.25 + 0.16, 1e-15);
        CHECK(type == RC__CT_EA1_EB1);
    }
    /* nearly parallel (sin^2 ~ 1e-24, below the threshold): still exact */
    {
        double y[12] = {0, 0, 0, 1, 0, 0, 0.5, 1e-12, 0.3, 1.5, 0, 0.3};
        d2 = rc__ct_edge_edge_d2(y, y + 3, y + 6, y + 9, &type, NULL, NULL);
        CHECK_NEAR(d2, 0.09, 1e-14);
    }
}

/* a degenerate (zero-area) triangle: no P_T type, still the exact distance */
static void test_ct_point_triangle_degenerate(void)
{
    double x[12] = {0.5, 0.3, 0.0, 0, 0, 0, 1, 0, 0, 2, 0, 0};
    int type;
    double d2 = rc__ct_point_triangle_d2(x, x + 3, x + 6, x + 9, &type, NULL, NULL);
    CHECK_NEAR(d2, 0.09, 1e-15);
    CHECK(type != RC__CT_P_T);
}

static double t_ct_moll_fn(const double *x, void *ctx, double *g, double *H)
{
    return rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, *(double *)ctx, g, H);
}

static void test_ct_mollifier(void)
{
    double x[12] = {0, 0, 0, 1, 0, 0, 0, 0.01, 0.3, 1, 0.03, 0.32}, eps, eg, eh, m, g[12];
    int k;
    eps = t_ct_mollifier_eps(x);
    m = rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, eps, NULL, NULL);
    CHECKF(m > 0.0 && m < 1.0, "m = %g", m);
    t_ct_fd(t_ct_moll_fn, &eps, x, 12, 1, &eg, &eh);
    CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "mollifier fd %g %g", eg, eh);
    /* exactly parallel: m = 0; crossing edges: m = 1 with zero derivatives */
    x[10] = 0.01; x[11] = 0.3;
    CHECK_NEAR(rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, eps, NULL, NULL), 0.0, 1e-15);
    x[9] = 0; x[10] = 1;
    CHECK(rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, eps, g, NULL) == 1.0);
    for (k = 0; k < 12; ++k) CHECK(g[k] == 0.0);
    /* C^1 across c = eps_x: m and |grad m| continuous (m' = 0 at c = eps_x) */
    {
        double y[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.3, 1, 0, 0.3}, lo, hi, glo[12], ghi[12];
        double ep = t_ct_mollifier_eps(y);
        /* choose the tilt t with c = t^2 |ea|^2 = ep (1 -/+ 1e-7) */
        y[10] = sqrt(ep * (1.0 - 1e-7));
        lo = rc__ct_ee_mollifier(y, y + 3, y + 6, y + 9, ep, glo, NULL);
        y[10] = sqrt(ep * (1.0 + 1e-7));
        hi = rc__ct_ee_mollifier(y, y + 3, y + 6, y + 9, ep, ghi, NULL);
        CHECKF(fabs(lo - hi) < 1e-10, "m jump %g", lo - hi);
        /* m' = (2/eps_x)(1 - c/eps_x) is 2e-4 here (vs 2/eps_x = 2000 at c = 0), and 0 above */
        CHECKF(t_ct_maxabs(glo, 12) < 1e-3, "grad m below eps_x %g", t_ct_maxabs(glo, 12));
        CHECK(t_ct_maxabs(ghi, 12) == 0.0);
    }
}

static void test_ct_barrier_values(void)
{
    double xi = 1e-3, dhat = 2e-3, shat = (2 * xi + dhat) * dhat, b1, b2, h;
    int i;
    /* FD of b and b' w.r.t. d2 at several points inside the band; step relative to s */
    for (i = 1; i < 10; ++i) {
        double s = shat * i / 10.0, d2 = xi * xi + s, bp, bm, b1p, b1m, hb;
        (void)rc_barrier(d2, xi, dhat, &b1, &b2);
        hb = 1e-6 * s;
        bp = rc_barrier(d2 + hb, xi, dhat, &b1p, NULL);
        bm = rc_barrier(d2 - hb, xi, dhat, &b1m, NULL);
        CHECKF(t_relerr((bp - bm) / (2 * hb), b1) < 1e-6, "b' at %d: %g vs %g", i, (bp - bm) / (2 * hb), b1);
        CHECKF(t_relerr((b1p - b1m) / (2 * hb), b2) < 1e-6, "b'' at %d", i);
        CHECK(b1 < 0.0 && b2 > 0.0);
    }
    /* s = shat exactly at d = xi + dhat; 0 there and beyond, with zero derivatives */
    h = xi + dhat;
    CHECK(rc_barrier(h * h, xi, dhat, &b1, &b2) == 0.0 || fabs(rc_barrier(h * h, xi, dhat, NULL, NULL)) < 1e-30);
    CHECK(rc_barrier(xi * xi + shat, xi, dhat, &b1, &b2) == 0.0 && b1 == 0.0 && b2 == 0.0);
    CHECK(rc_barrier(1.0, xi, dhat, &b1, &b2) == 0.0 && b1 == 0.0 && b2 == 0.0);
    /* C^1 (in fact C^2) at shat: the one-sided values tend to 0 like (shat - s)^3 and ^2 */
    {
        double e = 1e-6 * shat;
        double bb = rc_barrier(xi * xi + shat - e, xi, dhat, &b1, &b2);
        CHECKF(fabs(bb) < 1e-12 * shat * shat, "b near shat %g", bb);
        CHECKF(fabs(b1) < 1e-10 * shat, "b' near shat %g", b1);
        CHECKF(fabs(b2) < 1e-5, "b'' near shat %g", b2);
    }
    /* -> +inf as s -> 0+: increasing as s decreases, infinite at and below 0 */
    {
        double prev = 0.0;
        for (i = 1; i <= 12; ++i) {
            double s = shat * pow(10.0, -i), v = rc_barrier(xi * xi + s, xi, dhat, NULL, NULL);
            CHECK(v > prev && rc__isfinite(v));
            prev = v;
        }
        CHECK(rc_barrier(xi * xi, xi, dhat, &b1, &b2) == HUGE_VAL && b1 == -HUGE_VAL && b2 == HUGE_VAL);
        CHECK(rc_barrier(0.0, xi, dhat, NULL, NULL) == HUGE_VAL);
    }
    /* invalid parameters give NaN */
    CHECK(rc_barrier(1e-6, xi, 0.0, NULL, NULL) != rc_barrier(1e-6, xi, 0.0, NULL, NULL));
    CHECK(rc_barrier(1e-6, -1.0, dhat, NULL, NULL) != rc_barrier(1e-6, -1.0, dhat, NULL, NULL));
    CHECK(rc_barrier(0.0 * HUGE_VAL, xi, dhat, &b1, NULL) != 0.0 * HUGE_VAL && b1 != b1);
}

static void test_ct_barrier_stiffness(void)
{
    double xi = 1e-3, dhat = 1e-3, k = 0, kmin = 0, kmax = 0, b1, b2, d = xi + 0.5 * dhat;
    CHECK_OK(rc_barrier_stiffness_init(xi, dhat, 1e4, 0.0, 1.0, &k, &kmin, &kmax));
    /* kappa_min makes the barrier's normal stiffness at d = xi + dhat/2 equal to k_ref */
    rc_barrier(d * d, xi, dhat, &b1, &b2);
    CHECK(t_relerr(kmin * (4 * d * d * b2 + 2 * b1), 1e4) < 1e-12);
    CHECK(k == kmin && t_relerr(kmax, 100 * kmin) < 1e-15);
    /* balance inside the bounds is taken as is, outside it is clamped */
    CHECK_OK(rc_barrier_stiffness_init(xi, dhat, 1e4, -3.0 * kmin, 1.0, &k, NULL, NULL));
    CHECK(t_relerr(k, 3.0 * kmin) < 1e-12);
    CHECK_OK(rc_barrier_stiffness_init(xi, dhat, 1e4, -1e3 * kmin, 1.0, &k, NULL, NULL));
    CHECK(t_relerr(k, kmax) < 1e-12);
    CHECK(rc_barrier_stiffness_init(xi, -1.0, 1e4, 0, 1, &k, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_barrier_stiffness_init(xi, dhat, 1e4, 0, 1, NULL, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    /* update: doubles only when deep in the band and approaching, capped */
    k = 1.0;
    CHECK_OK(rc_barrier_stiffness_update(xi + 5e-6, xi + 4e-6, xi, dhat, 1e-2, 3.0, &k));
    CHECK(k == 2.0);
    CHECK_OK(rc_barrier_stiffness_update(xi + 5e-6, xi + 4e-6, xi, dhat, 1e-2, 3.0, &k));
    CHECK(k == 3.0);
    k = 1.0;
    CHECK_OK(rc_barrier_stiffness_update(xi + 4e-6, xi + 5e-6, xi, dhat, 1e-2, 3.0, &k));   /* receding */
    CHECK(k == 1.0);
    CHECK_OK(rc_barrier_stiffness_update(xi + 5e-4, xi + 4e-4, xi, dhat, 1e-2, 3.0, &k));   /* not deep */
    CHECK(k == 1.0);
    CHECK(rc_barrier_stiffness_update(1, 1, xi, dhat, 0.0, 3.0, &k) == RC_ERR_INVALID_ARGUMENT);
}

/* kappa m b(d2) for an edge-edge pair of fixed type, with the mollifier */
typedef struct { int type; double eps, xi, dhat, kappa; int project; } t_ct_bctx;
static double t_ct_ee_barrier_fn(const double *x, void *ctx, double *g, double *H)
{
    t_ct_bctx *c = (t_ct_bctx *)ctx;
    double gd[12], Hd[144], gm[12], Hm[144], d2, m;
    d2 = rc__ct_edge_edge_d2_typed(x, x + 3, x + 6, x + 9, c->type, NULL, gd, Hd);
    m = rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, c->eps, gm, Hm);
    return rc__ct_barrier_local(12, d2, gd, Hd, c->xi, c->dhat, c->kappa, m, gm, Hm, c->project, g, H);
}
static double t_ct_pt_barrier_fn(const double *x, void *ctx, double *g, double *H)
{
    t_ct_bctx *c = (t_ct_bctx *)ctx;
    double gd[12], Hd[144], d2;
    d2 = rc__ct_point_triangle_d2_typed(x, x + 3, x + 6, x + 9, c->type, NULL, gd, Hd);
    return rc__ct_barrier_local(12, d2, gd, Hd, c->xi, c->dhat, c->kappa, 1.0, NULL, NULL, c->project, g, H);
}

static void t_ct_min_eig(int n, const double *H, double *lmin, double *lmax)
{
    double A[144], V[144], lam[12];
    int i;
    memcpy(A, H, sizeof(double) * (size_t)(n * n));
    rc__sym_eig(n, A, lam, V);
    *lmin = HUGE_VAL; *lmax = -HUGE_VAL;
    for (i = 0; i < n; ++i) { if (lam[i] < *lmin) *lmin = lam[i]; if (lam[i] > *lmax) *lmax = lam[i]; }
}

static void test_ct_barrier_local(void)
{
    /* coordinates in units of 0.1: a nearly parallel edge pair (mollifier active) inside the band */
    double x[12] = {0, 0, 0, 1, 0, 0, 0.2, -0.01, 0.02, 1.1, 0.01, 0.02}, eg, eh, H[144], lmin, lmax;
    t_ct_bctx c;
    int k;
    c.type = rc__ct_edge_edge_type(x, x + 3, x + 6, x + 9);
    c.eps = t_ct_mollifier_eps(x);
    c.xi = 0.005; c.dhat = 0.03; c.kappa = 10.0; c.project = -1;
    CHECK(c.type == RC__CT_EA_EB);
    CHECK(rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, c.eps, NULL, NULL) < 1.0);
    CHECK(t_ct_ee_barrier_fn(x, &c, NULL, NULL) > 0.0);
    t_ct_fd(t_ct_ee_barrier_fn, &c, x, 12, 1, &eg, &eh);
    CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "mollified ee barrier fd %g %g", eg, eh);
    c.project = RC__PROJECT_CLAMP;
    t_ct_ee_barrier_fn(x, &c, NULL, H);
    t_ct_min_eig(12, H, &lmin, &lmax);
    CHECKF(lmin > -1e-10 * lmax, "projected min eig %g (max %g)", lmin, lmax);
    /* point-triangle, n = 12, and the n = 9 / 6 sizes through the point-edge and point-point pairs */
    for (k = RC__CT_P_T0; k <= RC__CT_P_T; ++k) {
        double y[12] = {0.25, 0.3, 0.02, 0, 0, 0, 1, 0, 0, 0, 1, 0};
        static const double off[7][2] = {{-0.01, -0.01}, {1.01, -0.01}, {-0.01, 1.01}, {0.5, -0.01},
                                          {0.51, 0.51}, {-0.01, 0.5}, {0.25, 0.3}};
        y[0] = off[k][0]; y[1] = off[k][1];
        c.type = rc__ct_point_triangle_type(y, y + 3, y + 6, y + 9);
        CHECK(c.type == k);
        c.project = -1;
        t_ct_fd(t_ct_pt_barrier_fn, &c, y, 12, 1, &eg, &eh);
        CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "pt barrier type %d fd %g %g", k, eg, eh);
    }
    /* outside the band: zero energy and derivatives; at s <= 0: +inf */
    {
        double gd[12], Hd[144], g[12], d2;
        x[8] = 0.5; x[11] = 0.5;
        d2 = rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, NULL, gd, Hd);
        CHECK(rc__ct_barrier_local(12, d2, gd, Hd, c.xi, c.dhat, c.kappa, 1.0, NULL, NULL, 0, g, H) == 0.0);
        CHECK(t_ct_maxabs(g, 12) == 0.0 && t_ct_maxabs(H, 144) == 0.0);
        CHECK(rc__ct_barrier_local(12, 1e-6, gd, Hd, c.xi, c.dhat, c.kappa, 1.0, NULL, NULL, 0, g, H) == HUGE_VAL);
    }
    /* normal force = |dE/dd| */
    {
        double d = 0.012, e = 1e-7, fp = rc__ct_barrier_local(1, (d + e) * (d + e), x, x, c.xi, c.dhat, c.kappa, 1, NULL, NULL, -1, NULL, NULL);
        double fm = rc__ct_barrier_local(1, (d - e) * (d - e), x, x, c.xi, c.dhat, c.kappa, 1, NULL, NULL, -1, NULL, NULL);
        CHECK(t_relerr(rc__ct_normal_force(d * d, c.xi, c.dhat, c.kappa, 1.0), -(fp - fm) / (2 * e)) < 1e-6);
    }
}

/* the low-rank projection equals the generic one: barrier Hessians (rank <= 5), random low-rank
   and random full-rank symmetric matrices. 1e-9 relative: the dropped part is below 1e-10 of the
   largest column, and Jacobi itself is accurate to ~1e-14. */
static void test_ct_lowrank_projection(void)
{
    double work[3 * 144 + 12];
    int trial;
    for (trial = 0; trial < 40; ++trial) {
        double A[144], B[144], C[144];
        int n = 12, i, j, kind = trial % 4;
        if (kind == 0) {   /* a point-triangle barrier Hessian, unprojected */
            double x[12] = {0.25, 0.3, 0.02, 0, 0, 0, 1, 0, 0, 0, 1, 0}, g[12], Hd[144], d2;
            x[0] = 1.2 * t_rand() - 0.1; x[1] = 1.2 * t_rand() - 0.1; x[2] = 0.006 + 0.02 * t_rand();
            d2 = rc__ct_point_triangle_d2(x, x + 3, x + 6, x + 9, NULL, g, Hd);
            rc__ct_barrier_local(12, d2, g, Hd, 0.005, 0.03, 1.0, 1.0, NULL, NULL, -1, NULL, A);
        } else if (kind == 1) {   /* a mollified edge-edge one (higher rank) */
            double x[12] = {0, 0, 0, 1, 0, 0, 0.2, -0.01, 0.02, 1.1, 0.01, 0.02}, g[12], Hd[144], gm[12], Hm[144], d2, m, e;
            e = t_ct_mollifier_eps(x);
            x[7] += 0.01 * (t_rand() - 0.5); x[8] += 0.01 * t_rand();
            d2 = rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, NULL, g, Hd);
            m = rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, e, gm, Hm);
            rc__ct_barrier_local(12, d2, g, Hd, 0.005, 0.03, 1.0, m, gm, Hm, -1, NULL, A);
        } else {   /* random symmetric of rank r (kind 2: 3, kind 3: 12) */
            double U[12 * 12], w[12];
            int r = kind == 2 ? 3 : 12, k;
            n = 9 + trial % 4;
            for (i = 0; i < n * r; ++i) U[i] = 2 * t_rand() - 1;
            for (k = 0; k < r; ++k) w[k] = 2 * t_rand() - 1;
            for (i = 0; i < n; ++i)
                for (j = 0; j < n; ++j) {
                    double s = 0;
                    for (k = 0; k < r; ++k) s += U[i * r + k] * w[k] * U[j * r + k];
                    A[i * n + j] = s;
                }
        }
        memcpy(B, A, sizeof(double) * (size_t)(n * n));
        memcpy(C, A, sizeof(double) * (size_t)(n * n));
        rc__psd_project_jacobi(n, B, RC__PROJECT_CLAMP, work);
        rc__ct_psd_project_lowrank(n, C, RC__PROJECT_CLAMP);
        {
            double dmax = 0, amax = t_ct_maxabs(B, n * n);
            for (i = 0; i < n * n; ++i) if (fabs(B[i] - C[i]) > dmax) dmax = fabs(B[i] - C[i]);
            CHECKF(dmax <= 1e-9 * amax, "trial %d kind %d: |lowrank - full| %g of %g", trial, kind, dmax, amax);
        }
        memcpy(B, A, sizeof(double) * (size_t)(n * n));
        memcpy(C, A, sizeof(double) * (size_t)(n * n));
        rc__psd_project_jacobi(n, B, RC__PROJECT_ABS, work);
        rc__ct_psd_project_lowrank(n, C, RC__PROJECT_ABS);
        {
            double dmax = 0, amax = t_ct_maxabs(B, n * n);
            for (i = 0; i < n * n; ++i) if (fabs(B[i] - C[i]) > dmax) dmax = fabs(B[i] - C[i]);
            CHECKF(dmax <= 1e-9 * amax, "abs trial %d kind %d: |lowrank - full| %g of %g", trial, kind, dmax, amax);
        }
    }
}

/* ---- analytic shapes ---- */
static void t_ct_rotation(double R[9], double ax, double ay, double az)
{
    double cx = cos(ax), sx = sin(ax), cy = cos(ay), sy = sin(ay), cz = cos(az), sz = sin(az);
    double Rx[9] = {1, 0, 0, 0, cx, -sx, 0, sx, cx}, Ry[9] = {cy, 0, sy, 0, 1, 0, -sy, 0, cy};
    double Rz[9] = {cz, -sz, 0, sz, cz, 0, 0, 0, 1}, T[9];
    int i, j, k;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) { T[i * 3 + j] = 0; for (k = 0; k < 3; ++k) T[i * 3 + j] += Ry[i * 3 + k] * Rx[k * 3 + j]; }
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) { R[i * 3 + j] = 0; for (k = 0; k < 3; ++k) R[i * 3 + j] += Rz[i * 3 + k] * T[k * 3 + j]; }
}

static void t_ct_make_shapes(rc__ct_shape s[4])
{
    int k;
    memset(s, 0, 4 * sizeof(rc__ct_shape));
    for (k = 0; k < 4; ++k) s[k].kind = k;
    s[0].p[0] = 0.1; s[0].p[1] = -0.2; s[0].p[2] = 0.05; s[0].n[0] = 0.3; s[0].n[1] = 0.2; s[0].n[2] = 2.0;
    s[1].p[0] = 0.2; s[1].p[1] = 0.1; s[1].p[2] = -0.1; s[1].r = 0.7;
    s[2].p[0] = -0.1; s[2].p[1] = 0.2; s[2].p[2] = 0.3;
    s[2].half[0] = 0.5; s[2].half[1] = 0.7; s[2].half[2] = 0.9;
    t_ct_rotation(s[2].R, 0.3, -0.5, 0.8);
    s[3].a[0] = -0.4; s[3].a[1] = 0.1; s[3].a[2] = 0.0; s[3].b[0] = 0.6; s[3].b[1] = 0.3; s[3].b[2] = 0.2; s[3].r = 0.25;
}

static double t_ct_sdf_fn(const double *x, void *ctx, double *g, double *H)
{
    double d;
    rc__ct_shape_sdf((const rc__ct_shape *)ctx, x, &d, g, H);
    return d;
}

/* world point of a box-local point */
static void t_ct_box_world(const rc__ct_shape *s, const double y[3], double x[3])
{
    int i;
    for (i = 0; i < 3; ++i) x[i] = s->p[i] + s->R[i * 3] * y[0] + s->R[i * 3 + 1] * y[1] + s->R[i * 3 + 2] * y[2];
}

static void test_ct_shapes_sdf(void)
{
    rc__ct_shape s[4];
    int k, trial;
    t_ct_make_shapes(s);
    /* generic random points: FD of d and of its gradient, unit gradient */
    for (k = 0; k < 4; ++k)
        for (trial = 0; trial < 20; ++trial) {
            double x[3], g[3], d, eg, eh;
            x[0] = 3 * t_rand() - 1.5; x[1] = 3 * t_rand() - 1.5; x[2] = 3 * t_rand() - 1.5;
            CHECK(rc__ct_shape_sdf(&s[k], x, &d, g, NULL) == 1);
            CHECK_NEAR(rc__norm3(g), 1.0, 1e-12);
            t_ct_fd(t_ct_sdf_fn, &s[k], x, 3, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "shape %d at (%g %g %g) d %g fd %g %g", k, x[0], x[1], x[2], d, eg, eh);
        }
    /* signs and exact values */
    {
        double x[3] = {0.2, 0.1, 0.5}, d;
        rc__ct_shape_sdf(&s[1], x, &d, NULL, NULL);
        CHECK_NEAR(d, 0.6 - 0.7, 1e-15);
        x[2] = 1.0;
        rc__ct_shape_sdf(&s[1], x, &d, NULL, NULL);
        CHECK_NEAR(d, 1.1 - 0.7, 1e-15);
        x[0] = 0.1; x[1] = -0.2; x[2] = -0.5;
        rc__ct_shape_sdf(&s[0], x, &d, NULL, NULL);
        CHECK(d < 0.0);
        x[0] = 0.1; x[1] = 0.2; x[2] = 0.1;   /* on the capsule axis */
        rc__ct_shape_sdf(&s[3], x, &d, NULL, NULL);
        CHECK(d < 0.0);
    }
    /* box: face, edge, corner regions outside, and inside, in the rotated frame */
    {
        static const double ys[5][3] = {{0.8, 0.1, -0.2}, {0.8, 0.9, 0.1}, {-0.8, 0.95, -1.2},
                                        {0.1, 0.2, -0.1}, {-0.45, 0.1, 0.3}};
        static const double dref[5] = {0.3, 0.36055512754639896, 0.4924428900898052, -0.4, -0.05};
        for (k = 0; k < 5; ++k) {
            double x[3], d, g[3], eg, eh;
            t_ct_box_world(&s[2], ys[k], x);
            rc__ct_shape_sdf(&s[2], x, &d, g, NULL);
            CHECKF(fabs(d - dref[k]) < 1e-12, "box case %d d %.17g", k, d);
            t_ct_fd(t_ct_sdf_fn, &s[2], x, 3, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "box case %d fd %g %g", k, eg, eh);
        }
    }
    {
        rc__ct_shape bad = s[0];
        double x[3] = {0, 0, 0}, d;
        bad.kind = 17;
        CHECK(rc__ct_shape_sdf(&bad, x, &d, NULL, NULL) == 0);
        bad = s[0]; bad.n[0] = bad.n[1] = bad.n[2] = 0.0;
        CHECK(rc__ct_shape_sdf(&bad, x, &d, NULL, NULL) == 0);
    }
}

/* the whole-pair wrappers: FD of their energies at random configurations in the band */
static double t_ct_ptw_fn(const double *x, void *ctx, double *g, double *H)
{
    (void)ctx;
    return rc__ct_pt_barrier(x, x + 3, x + 6, x + 9, 0.005, 0.03, 2.0, -1, NULL, NULL, g, H);
}
static double t_ct_eew_fn(const double *x, void *ctx, double *g, double *H)
{
    return rc__ct_ee_barrier(x, x + 3, x + 6, x + 9, *(double *)ctx, 0.005, 0.03, 2.0, -1, NULL, NULL, g, H);
}
/* point-edge (ctx NULL) and point-point (ctx non-NULL): slots p, e0, e1, unused */
static double t_ct_pew_fn(const double *x, void *ctx, double *g, double *H)
{
    return rc__ct_pe_barrier(x, x + 3, ctx ? NULL : x + 6, 0.005, 0.03, 2.0, -1, NULL, g, H);
}
static void test_ct_pair_wrappers(void)
{
    int trial, hits = 0, moll = 0, pe_hits[3] = { 0, 0, 0 };
    for (trial = 0; trial < 40; ++trial) {
        double x[12] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, eg, eh, E, eps;
        int k;
        for (k = 0; k < 12; ++k) x[k] += 0.02 * (t_rand() - 0.5);
        x[0] = 1.4 * t_rand() - 0.2; x[1] = 1.4 * t_rand() - 0.2; x[2] = 0.008 + 0.02 * t_rand();
        E = t_ct_ptw_fn(x, NULL, NULL, NULL);
        if (E > 0.0 && rc__isfinite(E)) {
            ++hits;
            t_ct_fd(t_ct_ptw_fn, NULL, x, 12, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "pt wrapper fd %g %g", eg, eh);
        }
        /* edges: a along x, b crossing above at a random angle (some nearly parallel: mollified) */
        {
            double y[12] = {0, 0, 0, 1, 0, 0}, ang = (trial % 2 ? 0.02 : 1.0) * (t_rand() - 0.5), cx = 0.3 + 0.4 * t_rand();
            y[6] = cx - 0.5 * cos(ang); y[7] = -0.5 * sin(ang); y[8] = 0.008 + 0.02 * t_rand();
            y[9] = cx + 0.5 * cos(ang); y[10] = 0.5 * sin(ang); y[11] = y[8] + 0.002;
            eps = 1e-3;
            E = t_ct_eew_fn(y, &eps, NULL, NULL);
            if (E > 0.0 && rc__isfinite(E)) {
                ++hits;
                if (rc__ct_ee_mollifier(y, y + 3, y + 6, y + 9, eps, NULL, NULL) < 1.0) ++moll;
                t_ct_fd(t_ct_eew_fn, &eps, y, 12, 1, &eg, &eh);
                CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "ee wrapper fd %g %g (angle %g)", eg, eh, ang);
            }
        }
    }
    CHECKF(hits >= 40 && moll >= 5, "only %d configurations in the band, %d mollified", hits, moll);
    /* point-edge (the point over the segment's inside or beyond either end) and point-point, the
       mesh obstacles' inclusion-exclusion terms; and their agreement with the point-triangle
       pair of a triangle whose nearest point to p is on that edge */
    for (trial = 0; trial < 60; ++trial) {
        double x[12] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}, eg, eh, E, d2;
        double tri[9] = {1, 0, 0, 0, 0, 0, 0.5, -1, 0}, Et;
        int k, c;
        const double *P[4];
        x[0] = trial % 3 == 0 ? -0.015 * t_rand() : trial % 3 == 1 ? 1.0 + 0.015 * t_rand() : t_rand();   /* beyond e0, beyond e1, over it */
        x[1] = 0.02 * (t_rand() - 0.5); x[2] = 0.006 + 0.014 * t_rand();
        E = t_ct_pew_fn(x, NULL, NULL, NULL);
        P[0] = x; P[1] = x + 3; P[2] = x + 6; P[3] = x + 6;
        c = rc__ct_pe_case(P, 0, 1, 2, &d2);
        if (E > 0.0 && rc__isfinite(E)) {
            pe_hits[c]++;
            t_ct_fd(t_ct_pew_fn, NULL, x, 12, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "pe wrapper fd %g %g (case %d)", eg, eh, c);
            if (x[1] > 0.0) {   /* the triangle below y = 0: its nearest point to p is on the edge */
                Et = rc__ct_pt_barrier(x, tri, tri + 3, tri + 6, 0.005, 0.03, 2.0, -1, NULL, NULL, NULL, NULL);
                CHECKF(fabs(Et - E) <= 1e-14 * E, "point-edge %.17g vs point-triangle %.17g", E, Et);
            }
        }
        {   /* e0 at 8 - 25 mm from p in a random direction */
            double dir[3], len = 0.0, dist = 0.008 + 0.017 * t_rand();
            for (k = 0; k < 3; ++k) { dir[k] = t_rand() - 0.5; len += dir[k] * dir[k]; }
            for (k = 0; k < 3; ++k) x[3 + k] = x[k] + dist * dir[k] / sqrt(len);
        }
        E = t_ct_pew_fn(x, &trial, NULL, NULL);
        if (E > 0.0 && rc__isfinite(E)) {
            t_ct_fd(t_ct_pew_fn, &trial, x, 12, 1, &eg, &eh);
            CHECKF(eg < T_FD_TOL && eh < T_FD_TOL, "pp wrapper fd %g %g", eg, eh);
        }
    }
    CHECKF(pe_hits[0] >= 3 && pe_hits[1] >= 3 && pe_hits[2] >= 10, "point-edge cases in the band: %d %d %d", pe_hits[0], pe_hits[1], pe_hits[2]);
}

/* ---- CCD ---- */
static double t_ct_dist(int ee, const double *x)
{
    return sqrt(ee ? rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, NULL, NULL, NULL)
                   : rc__ct_point_triangle_d2(x, x + 3, x + 6, x + 9, NULL, NULL, NULL));
}

/* Runs CCD on (x0, dx) and checks: t in (0, tmax] when separated by more than xi; distance at t is
   > xi; the trajectory sampled at 4000 points on [0, t] never gets within xi; t is not past the
   first sampled time the trajectory reaches xi. Returns t. */
static double t_ct_ccd_check(int ee, const double *x0, const double *dx, double xi, double tmax)
{
    double x[12], t, d0 = t_ct_dist(ee, x0), tfirst = HUGE_VAL;
    int i, k, N = 4000, bad = 0;
    t = ee ? rc__ct_ccd_edge_edge(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, xi, tmax)
           : rc__ct_ccd_point_triangle(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, xi, tmax);
    CHECKF(t >= 0.0 && t <= tmax, "t = %g", t);
    if (d0 > xi) CHECKF(t > 0.0, "t = 0 from a separated start (d0 = %g)", d0);
    for (k = 0; k < 12; ++k) x[k] = x0[k] + t * dx[k];
    CHECKF(t_ct_dist(ee, x) > xi, "distance at t %g is %g <= xi %g", t, t_ct_dist(ee, x), xi);
    for (i = 0; i <= N; ++i) {
        double s = t * i / N;
        for (k = 0; k < 12; ++k) x[k] = x0[k] + s * dx[k];
        if (!(t_ct_dist(ee, x) > xi)) bad++;
    }
    CHECKF(bad == 0, "%d samples on [0, t = %g] within xi", bad, t);
    for (i = 0; i <= N; ++i) {
        double s = tmax * i / N;
        for (k = 0; k < 12; ++k) x[k] = x0[k] + s * dx[k];
        if (t_ct_dist(ee, x) <= xi) { tfirst = s; break; }
    }
    CHECKF(t <= tfirst, "t %g past the first sampled contact %g", t, tfirst);
    return t;
}

/* The segment - moving triangle CCD (rc__ct_ccd_round_triangle: the capsules' axes and the box
   edges against cloth triangles) tries each of the triangle's three edges: a triangle (0,0,0),
   (1,0,0), (0,1,0) sliding by (-0.2, 0, 0) onto a still vertical segment at x = -0.1, y = 0.5,
   which only its edge along x = 0 can reach (at t = 0.5, within xi = 1e-3 at 0.495), with the
   vertices' order rotated so that edge takes each place in the loop. The first safe step keeps 10%
   of the gap: 0.9 (0.1 - xi) / 0.2 = 0.4455. A session-63 audit's mutant that tried two edges
   returned 1 (through the triangle) and passed every test: in grid meshes every interior edge is
   also a first or second edge of a neighbour. */
static void test_ct_ccd_round_triangle_edges(void)
{
    const double P[3][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }, d[3] = { -0.2, 0, 0 };
    const double a[3] = { -0.1, 0.5, -0.5 }, b[3] = { -0.1, 0.5, 0.5 };
    int r;
    for (r = 0; r < 3; ++r) {
        const double *T0 = P[r], *T1 = P[(r + 1) % 3], *T2 = P[(r + 2) % 3];
        double t = rc__ct_ccd_round_triangle(a, b, NULL, NULL, T0, T1, T2, d, d, d, 1e-3, 1.0);
        CHECKF(t > 0.0 && t <= 0.4455 + 1e-9, "rotation %d: the first safe step %.6g (0.4455 expected, contact at 0.495)", r, t);
    }
}
static void test_ct_ccd_point_triangle(void)
{
    double xi = 0.01, t;
    /* head-on: gap 0.99 closing at speed 2; contact at 0.495; the 10% target gives 0.4455 */
    {
        double x0[12] = {0.2, 0.2, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0, 0, -2};
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECKF(t > 0.44 && t <= 0.4455 + 1e-12, "head-on t %g", t);
    }
    /* very fast point crossing a thin triangle: gap 9e-4, speed 100 */
    {
        double x0[12] = {0.2, 0.2, 1e-3, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0, 0, -100};
        t = t_ct_ccd_check(0, x0, dx, 1e-4, 1.0);
        CHECKF(t > 0.5 * 9e-6 && t < 9e-6, "fast t %g", t);
    }
    /* zero motion and pure common translation: no collision */
    {
        double x0[12] = {0.2, 0.2, 0.5, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0};
        CHECK(t_ct_ccd_check(0, x0, dx, xi, 1.0) == 1.0);
        int k;
        for (k = 0; k < 4; ++k) { dx[3 * k] = 5; dx[3 * k + 1] = -3; dx[3 * k + 2] = 7; }
        CHECK(t_ct_ccd_check(0, x0, dx, xi, 1.0) == 1.0);
        CHECK(t_ct_ccd_check(0, x0, dx, xi, 0.3) == 0.3);
    }
    /* near miss: sliding over the interior at gap xi (distance 2 xi): never closer, full step */
    {
        double x0[12] = {0.1, 0.2, 0.02, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0.3, 0, 0};
        CHECK(t_ct_ccd_check(0, x0, dx, xi, 1.0) == 1.0);
    }
    /* grazing: passing just outside edge t0-t1 at distance xi + 1e-4 (the 10% target stops it
       where the gap first falls below 0.1 gap0, before the edge) */
    {
        double x0[12] = {-0.5, -0.0101, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {2, 0, 0};
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECK(t < 0.25);
        /* starting alongside the edge at that gap, it slides the whole way */
        x0[0] = 0.1; dx[0] = 0.5;
        CHECK(t_ct_ccd_check(0, x0, dx, xi, 1.0) == 1.0);
    }
    /* coplanar point moving toward a triangle edge within the plane */
    {
        double x0[12] = {0.5, -0.5, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0, 1, 0};
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECK(t < 0.49 && t > 0.4);
    }
    /* start within xi, or non-finite motion: 0 */
    {
        double x0[12] = {0.2, 0.2, 0.005, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12] = {0, 0, -1};
        CHECK(rc__ct_ccd_point_triangle(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, xi, 1.0) == 0.0);
        x0[2] = 0.5; dx[4] = 0.0 * HUGE_VAL;
        CHECK(rc__ct_ccd_point_triangle(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, xi, 1.0) == 0.0);
        CHECK(rc__ct_ccd_edge_edge(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, xi, 1.0) == 0.0);
        {
            rc__ct_shape pl;
            memset(&pl, 0, sizeof pl);
            pl.kind = RC__CT_SHAPE_PLANE; pl.n[2] = 1.0; pl.p[2] = -1.0;
            CHECK(rc__ct_ccd_point_shape(&pl, x0, dx + 3, xi, 1.0) == 0.0);
        }
    }
    /* random configurations and motions, both primitives moving */
    {
        int trial;
        for (trial = 0; trial < 60; ++trial) {
            double x0[12], dx[12];
            int k;
            for (k = 0; k < 12; ++k) { x0[k] = t_rand() - 0.5; dx[k] = 2.0 * (t_rand() - 0.5); }
            if (t_ct_dist(0, x0) <= xi) continue;
            t_ct_ccd_check(0, x0, dx, xi, 1.0);
        }
    }
}

/* Session 32: contact under pressure. A triangle pressed onto a sphere's barrier sits 1e-8 m
   outside the inflated sphere (a sheet pinned all round and stretched over a ball: gaps of 1e-8
   to 1e-10 m), and the line search moves it along the surface. The Lipschitz bound alone (the
   previous ACCD) steps 0.9 gap / speed: the 1 mm slide below took its 1e5-step cap and ended at
   t = 0.80, and 6,600 steps for the rolling. The sag bound (the squared distance lies at most
   l^2 h^2 / 4 below its chord) certifies the whole slide and the rolling, and stops the approach
   at its target, each as safe as t_ct_ccd_check samples it. */
static void test_ct_ccd_sliding_under_pressure(void)
{
    const double xi = 0.051, gap = 1e-8, z = xi + gap;
    double t;
    int k;
    {   /* sliding 1 mm in its own tangent plane (the foot of the centre stays inside) */
        double x0[12] = { 0, 0, 0, -0.02, -0.02, z, 0.03, -0.02, z, 0.0, 0.03, z }, dx[12] = { 0 };
        for (k = 1; k < 4; ++k) { dx[3 * k] = 1e-3; dx[3 * k + 1] = 5e-4; }
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECKF(t == 1.0, "sliding at a 1e-8 gap: t %g (want the full step)", t);
        /* the same slide while closing the gap at 1e-7 per unit t: the target (10% of the gap
           kept) is crossed at t = 0.09 exactly (the distance is the plane's) */
        for (k = 1; k < 4; ++k) dx[3 * k + 2] = -1e-7;
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECKF(t > 0.085 && t <= 0.09 + 1e-9, "sliding and closing: t %g (target crossed at 0.09)", t);
    }
    {   /* rolling by 1 mrad about the sphere's centre (linear paths: the chords dip by
           z phi^2 / 8 = 6.4e-9, inside the 9e-9 the target allows) */
        double x0[12] = { 0, 0, 0, -0.02, -0.02, z, 0.03, -0.02, z, 0.0, 0.03, z }, dx[12] = { 0 }, ph = 1e-3;
        for (k = 1; k < 4; ++k) {
            double y = x0[3 * k + 1], w = x0[3 * k + 2];
            dx[3 * k + 1] = (cos(ph) - 1.0) * y - sin(ph) * w;
            dx[3 * k + 2] = sin(ph) * y + (cos(ph) - 1.0) * w;
        }
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECKF(t == 1.0, "rolling at a 1e-8 gap: t %g (want the full step)", t);
        /* 10 mrad dips 6.4e-7, through the gap: stopped short, as sampled */
        ph = 1e-2;
        for (k = 1; k < 4; ++k) {
            double y = x0[3 * k + 1], w = x0[3 * k + 2];
            dx[3 * k + 1] = (cos(ph) - 1.0) * y - sin(ph) * w;
            dx[3 * k + 2] = sin(ph) * y + (cos(ph) - 1.0) * w;
        }
        t = t_ct_ccd_check(0, x0, dx, xi, 1.0);
        CHECKF(t < 1.0, "rolling 10 mrad: t %g", t);
    }
}

static void test_ct_ccd_edge_edge(void)
{
    double xi = 0.01, t;
    /* crossing edges: a above b at height 0.5 moving down at speed 1; contact at 0.49 */
    {
        double x0[12] = {-0.5, 0, 0.5, 0.5, 0, 0.5, 0, -0.5, 0, 0, 0.5, 0}, dx[12] = {0, 0, -1, 0, 0, -1};
        t = t_ct_ccd_check(1, x0, dx, xi, 1.0);
        CHECKF(t > 0.44 && t <= 0.441 + 1e-12, "crossing t %g", t);
    }
    /* parallel edges approaching */
    {
        double x0[12] = {0, 0, 0.5, 1, 0, 0.5, 0, 0, 0, 1, 0, 0}, dx[12] = {0, 0, -1, 0, 0, -1};
        t = t_ct_ccd_check(1, x0, dx, xi, 1.0);
        CHECKF(t > 0.44 && t <= 0.441 + 1e-12, "parallel t %g", t);
    }
    /* parallel edges sliding along each other at gap 2 xi: full step */
    {
        double x0[12] = {0, 0, 0.03, 1, 0, 0.03, 0, 0, 0, 1, 0, 0}, dx[12] = {3, 0, 0, 3, 0, 0};
        CHECK(t_ct_ccd_check(1, x0, dx, xi, 1.0) == 1.0);
    }
    /* an edge sweeping fast through another, both rotating */
    {
        double x0[12] = {-0.5, 0, 0.05, 0.5, 0, 0.06, 0, -0.5, 0, 0, 0.5, 0},
               dx[12] = {0, 1, -20, 0, -1, -20, 0.3, 0, 1, -0.3, 0, 1};
        t = t_ct_ccd_check(1, x0, dx, 1e-3, 1.0);
        CHECK(t < 0.06 / 21);
    }
    {
        int trial;
        for (trial = 0; trial < 60; ++trial) {
            double x0[12], dx[12];
            int k;
            for (k = 0; k < 12; ++k) { x0[k] = t_rand() - 0.5; dx[k] = 2.0 * (t_rand() - 0.5); }
            if (t_ct_dist(1, x0) <= xi) continue;
            t_ct_ccd_check(1, x0, dx, xi, 1.0);
        }
    }
}

/* point-shape CCD checks, same properties as above */
static double t_ct_ccd_shape_check(const rc__ct_shape *s, const double *x0, const double *dx, double xi, double tmax)
{
    double x[3], d, d0, t, tfirst = HUGE_VAL;
    int i, N = 4000, bad = 0;
    rc__ct_shape_sdf(s, x0, &d0, NULL, NULL);
    t = rc__ct_ccd_point_shape(s, x0, dx, xi, tmax);
    CHECKF(t >= 0.0 && t <= tmax, "t %g", t);
    if (d0 > xi) CHECKF(t > 0.0, "t = 0 from a separated start (d0 %g)", d0);
    for (i = 0; i <= N; ++i) {
        double u = t * i / N;
        x[0] = x0[0] + u * dx[0]; x[1] = x0[1] + u * dx[1]; x[2] = x0[2] + u * dx[2];
        rc__ct_shape_sdf(s, x, &d, NULL, NULL);
        if (d0 > xi && !(d > xi)) bad++;
    }
    CHECKF(bad == 0, "shape %d: %d samples on [0, %g] within xi", s->kind, bad, t);
    for (i = 0; i <= N; ++i) {
        double u = tmax * i / N;
        x[0] = x0[0] + u * dx[0]; x[1] = x0[1] + u * dx[1]; x[2] = x0[2] + u * dx[2];
        rc__ct_shape_sdf(s, x, &d, NULL, NULL);
        if (d <= xi) { tfirst = u; break; }
    }
    if (d0 > xi) CHECKF(t <= tfirst, "t %g past the first sampled contact %g", t, tfirst);
    return t;
}

static void test_ct_ccd_point_shape(void)
{
    rc__ct_shape s[4];
    double t;
    int k, trial;
    t_ct_make_shapes(s);
    /* sphere head-on: exact first time with the 10% target is 0.4275 */
    {
        rc__ct_shape sp;
        double x0[3] = {0, 0, 3}, dx[3] = {0, 0, -4};
        memset(&sp, 0, sizeof sp);
        sp.kind = RC__CT_SHAPE_SPHERE; sp.r = 1.0;
        t = t_ct_ccd_shape_check(&sp, x0, dx, 0.1, 1.0);
        /* Newton stops within 1e-3 gap0 of the target distance: t within 1e-3*1.9/4 below */
        CHECKF(t <= 0.4275 + 1e-12 && t > 0.4275 - 5e-4, "sphere t %.15g", t);
    }
    /* vertex exactly on a plane, xi = 0: moving in gives 0, moving out the full step */
    {
        rc__ct_shape pl;
        double x0[3] = {0.3, 0.4, 0}, in[3] = {0.1, 0, -1}, out[3] = {0.1, 0, 1}, along[3] = {1, 0, 0};
        memset(&pl, 0, sizeof pl);
        pl.kind = RC__CT_SHAPE_PLANE; pl.n[2] = 1.0;
        CHECK(rc__ct_ccd_point_shape(&pl, x0, in, 0.0, 1.0) == 0.0);
        CHECK(rc__ct_ccd_point_shape(&pl, x0, out, 0.0, 1.0) == 1.0);
        CHECK(rc__ct_ccd_point_shape(&pl, x0, along, 0.0, 1.0) == 1.0);
        /* very fast motion through the plane from just above */
        x0[2] = 1e-4; in[2] = -1e3;
        t = t_ct_ccd_shape_check(&pl, x0, in, 1e-5, 1.0);
        CHECK(t > 0.0 && t < 9e-8);
        /* zero motion */
        {
            double z[3] = {0, 0, 0};
            CHECK(rc__ct_ccd_point_shape(&pl, x0, z, 1e-5, 1.0) == 1.0);
        }
    }
    /* box: grazing past an edge and a corner, in the rotated frame */
    {
        double y0[3] = {-2.0, 0.7 + 0.011, 0.9 + 0.011}, y1[3] = {2.0, 0.7 + 0.011, 0.9 + 0.011}, x0[3], x1[3], dx[3];
        t_ct_box_world(&s[2], y0, x0);
        t_ct_box_world(&s[2], y1, x1);
        rc__sub3(dx, x1, x0);
        /* passes the edge at 0.011 sqrt 2 = 0.01556: just outside xi = 0.015, just inside 0.016 */
        t = t_ct_ccd_shape_check(&s[2], x0, dx, 0.015, 1.0);
        CHECK(t < 0.5);
        t = t_ct_ccd_shape_check(&s[2], x0, dx, 0.016, 1.0);
        CHECK(t < 0.5);
        /* starting alongside the edge at that distance and sliding: full step */
        y0[0] = -0.3; y1[0] = 0.3;
        t_ct_box_world(&s[2], y0, x0);
        t_ct_box_world(&s[2], y1, x1);
        rc__sub3(dx, x1, x0);
        CHECK(t_ct_ccd_shape_check(&s[2], x0, dx, 0.015, 1.0) == 1.0);
    }
    /* random trials on every shape, from outside */
    for (k = 0; k < 4; ++k)
        for (trial = 0; trial < 40; ++trial) {
            double x0[3], dx[3], d;
            x0[0] = 4 * t_rand() - 2; x0[1] = 4 * t_rand() - 2; x0[2] = 4 * t_rand() - 2;
            dx[0] = 6 * t_rand() - 3; dx[1] = 6 * t_rand() - 3; dx[2] = 6 * t_rand() - 3;
            rc__ct_shape_sdf(&s[k], x0, &d, NULL, NULL);
            if (d <= 0.02) continue;
            t_ct_ccd_shape_check(&s[k], x0, dx, 0.02, 1.0);
        }
}

/* ---- friction ---- */
/* f1 = f0', written out here as the oracle of the library's f1/y and f1' */
static double t_ct_f1(double y, double eps) { return y >= eps ? 1.0 : 2.0 * y / eps - y * y / (eps * eps); }

static void test_ct_friction_f0(void)
{
    double eps = 1e-3, h = 1e-9;
    int i;
    /* continuity of f0 and f1 at y = eps, and f0' = f1 */
    CHECK(fabs(rc__ct_f0(eps * (1 - 1e-12), eps) - rc__ct_f0(eps, eps)) < 1e-14);
    CHECK(fabs(t_ct_f1(eps * (1 - 1e-12), eps) - 1.0) < 1e-10);
    CHECK(fabs(rc__ct_f1_dy(eps * (1 - 1e-9), eps)) < 1e-5 / eps);   /* f1' -> 0 at eps: C^1 f1 */
    CHECK(rc__ct_f0(0.0, eps) == 0.0);   /* no potential where nothing slips (rc__ct_f0) */
    CHECK(t_ct_f1(0.0, eps) == 0.0);
    CHECK_NEAR(rc__ct_f1_over_y(0.0, eps), 2.0 / eps, 1e-9);
    for (i = 1; i < 20; ++i) {
        double y = eps * i / 10.0;   /* both sides of eps */
        if (i == 10) continue;
        CHECKF(t_relerr((rc__ct_f0(y + h, eps) - rc__ct_f0(y - h, eps)) / (2 * h), t_ct_f1(y, eps)) < 1e-6, "f1 at %g", y);
        CHECKF(fabs((t_ct_f1(y + h, eps) - t_ct_f1(y - h, eps)) / (2 * h) - rc__ct_f1_dy(y, eps)) < 1e-5 / eps, "f1' at %g", y);
        CHECK(t_relerr(rc__ct_f1_over_y(y, eps) * y, t_ct_f1(y, eps)) < 1e-14);
        CHECK(rc__ct_f0(y, eps) > 0 && rc__ct_f1_dy(y, eps) >= 0);
    }
}

typedef struct { int nv; double w[4], P[6], ml, eps; } t_ct_fctx;
static double t_ct_fric_fn(const double *x, void *ctx, double *g, double *H)
{
    t_ct_fctx *c = (t_ct_fctx *)ctx;
    return rc__ct_friction(c->nv, c->w, c->P, x, c->ml, c->eps, g, H);
}

static void t_ct_check_basis(const double P[6], const double n[3])
{
    double c[2][3], nn = rc__norm3(n);
    int i;
    for (i = 0; i < 3; ++i) { c[0][i] = P[2 * i]; c[1][i] = P[2 * i + 1]; }
    CHECK_NEAR(rc__dot3(c[0], c[0]), 1.0, 1e-14);
    CHECK_NEAR(rc__dot3(c[1], c[1]), 1.0, 1e-14);
    CHECK_NEAR(rc__dot3(c[0], c[1]), 0.0, 1e-14);
    CHECK_NEAR(rc__dot3(c[0], n) / nn, 0.0, 1e-14);
    CHECK_NEAR(rc__dot3(c[1], n) / nn, 0.0, 1e-14);
}

static void test_ct_friction_potential(void)
{
    double x[12] = {0.25, 0.3, 0.1, 0, 0, 0, 1, 0, 0, 0, 1, 0}, n[3] = {0, 0, 1};
    t_ct_fctx c;
    int type, trial;
    type = rc__ct_pt_tangent(x, x + 3, x + 6, x + 9, c.w, c.P);
    CHECK(type == RC__CT_P_T);
    t_ct_check_basis(c.P, n);
    CHECK_NEAR(c.w[0], 1.0, 1e-15);
    CHECK_NEAR(c.w[1] + c.w[2] + c.w[3], -1.0, 1e-15);
    c.nv = 4; c.ml = 2.5; c.eps = 1e-3;
    /* displacement scales below and above eps */
    for (trial = 0; trial < 6; ++trial) {
        /* |sum w dx| <= 2 sqrt 3 scale: 2e-4 stays below eps, 1e-2 above */
        double dx[12], eg, eh, H[144], lmin, lmax, scale = (trial % 2) ? 1e-2 : 2e-4;
        int k;
        for (k = 0; k < 12; ++k) dx[k] = scale * (2 * t_rand() - 1);
        t_ct_fd(t_ct_fric_fn, &c, dx, 12, 1, &eg, &eh);
        CHECKF(eg < 1e-5 && eh < 1e-4, "friction fd %g %g (scale %g)", eg, eh, scale);
        rc__ct_friction(4, c.w, c.P, dx, c.ml, c.eps, NULL, H);
        t_ct_min_eig(12, H, &lmin, &lmax);
        CHECKF(lmin > -1e-10 * lmax, "friction H min eig %g", lmin);
    }
    /* normal motion does not slip: D = 0 (f0(0) = 0, rc__ct_f0) and zero gradient */
    {
        double dx[12] = {0, 0, 0.5, 0, 0, -0.1, 0, 0, -0.1, 0, 0, -0.1}, g[12];
        CHECK(rc__ct_friction(4, c.w, c.P, dx, c.ml, c.eps, g, NULL) == 0.0);
        CHECK(t_ct_maxabs(g, 12) < 1e-14);
    }
    {
        double y[12] = {0, 0, 0, 1, 0, 0, 0.5, -0.5, 0.3, 0.4, 0.5, 0.35}, w[4], P[6], r[3];
        int k;
        CHECK(rc__ct_ee_tangent(y, y + 3, y + 6, y + 9, w, P) == RC__CT_EA_EB);
        for (k = 0; k < 3; ++k) r[k] = w[0] * y[k] + w[1] * y[3 + k] + w[2] * y[6 + k] + w[3] * y[9 + k];
        t_ct_check_basis(P, r);
        CHECK_NEAR(rc__dot3(r, r), rc__ct_edge_edge_d2(y, y + 3, y + 6, y + 9, NULL, NULL, NULL), 1e-14);
        CHECK_NEAR(w[0] + w[1], 1.0, 1e-15);
        CHECK_NEAR(w[2] + w[3], -1.0, 1e-15);
    }
    {
        rc__ct_shape s[4];
        double p[3] = {0.9, 0.8, 0.7}, w[1], P[6], d, g[3], dx[3], eg, eh;
        t_ct_fctx cs;
        int k;
        t_ct_make_shapes(s);
        for (k = 0; k < 4; ++k) {
            /* the simulator's vertex-obstacle friction: the tangent plane of the SDF gradient */
            CHECK(rc__ct_shape_sdf(&s[k], p, &d, g, NULL) == 1);
            rc__ct_basis_from_normal(g, P);
            w[0] = 1.0;
            t_ct_check_basis(P, g);
        }
        cs.nv = 1; cs.w[0] = w[0]; memcpy(cs.P, P, sizeof P); cs.ml = 1.0; cs.eps = 1e-3;
        dx[0] = 4e-4; dx[1] = -2e-4; dx[2] = 1e-4;
        t_ct_fd(t_ct_fric_fn, &cs, dx, 3, 1, &eg, &eh);
        CHECKF(eg < 1e-5 && eh < 1e-4, "shape friction fd %g %g", eg, eh);
    }
}


/* ---- broad phase ---- */
static int t_ct_overlap(const double *alo, const double *ahi, const double *blo, const double *bhi, double r)
{
    int d;
    for (d = 0; d < 3; ++d)
        if (alo[d] - r > bhi[d] + r || blo[d] - r > ahi[d] + r) return 0;
    return 1;
}

/* The lagged normal force of friction: kappa m |b'(d^2)| 2d above the floor gap dhat/1000, and
   constant (the value at the floor) below it, however close the pair (rc__ct_normal_force says
   why: a pressed pair's force fed its own friction, 4x per step, on the 1k didactic drape). */
static void test_ct_normal_force_floor(void)
{
    const double xi = 1e-3, dhat = 2e-3, kappa = 7.0, m = 0.5, dmin = xi + 1e-3 * dhat;
    double d, b1, want, at_floor;
    /* above the floor: the IPC formula */
    d = xi + 0.3 * dhat;
    rc_barrier(d * d, xi, dhat, &b1, NULL);
    want = kappa * m * (-b1) * 2.0 * d;
    CHECK_NEAR(rc__ct_normal_force(d * d, xi, dhat, kappa, m), want, 1e-12 * want);
    /* at and below the floor: bounded by the floor's value, also at a round-off gap */
    rc_barrier(dmin * dmin, xi, dhat, &b1, NULL);
    at_floor = kappa * m * (-b1) * 2.0 * dmin;
    CHECK(rc__isfinite(at_floor) && at_floor > want);
    CHECK_NEAR(rc__ct_normal_force(dmin * dmin, xi, dhat, kappa, m), at_floor, 1e-12 * at_floor);
    d = xi + 1e-9 * dhat;
    CHECK_NEAR(rc__ct_normal_force(d * d, xi, dhat, kappa, m), at_floor, 1e-12 * at_floor);
    d = xi * (1.0 + 1e-15);
    CHECK_NEAR(rc__ct_normal_force(d * d, xi, dhat, kappa, m), at_floor, 1e-12 * at_floor);
    /* outside the barrier band there is no force */
    d = xi + 1.5 * dhat;
    CHECK(rc__ct_normal_force(d * d, xi, dhat, kappa, m) == 0.0);
}

static void test_ct_broad_phase(void)
{
    enum { NA = 300, NB = 200 };
    static double alo[3 * NA], ahi[3 * NA], blo[3 * NB], bhi[3 * NB];
    int trial;
    for (trial = 0; trial < 4; ++trial) {
        int i, j, d, *pairs = NULL, np = 0, nref = 0, match = 1, k = 0;
        double r = 0.01, cell = trial == 2 ? 0.05 : 0.0;
        for (i = 0; i < NA; ++i)
            for (d = 0; d < 3; ++d) {
                double c = t_rand(), e = 0.03 * t_rand();
                if (trial == 3 && i == 7) e = 2.0;   /* one huge swept box */
                alo[3 * i + d] = c - e; ahi[3 * i + d] = c + e;
            }
        for (i = 0; i < NB; ++i)
            for (d = 0; d < 3; ++d) {
                /* trial 1: B half off A's box, so the grid takes only the boxes near the overlap */
                double c = t_rand() + (trial == 1 && d == 0 ? 0.6 : 0.0), e = 0.05 * t_rand();
                blo[3 * i + d] = c - e; bhi[3 * i + d] = c + e;
            }
        /* A vs B: the exact set of overlapping pairs, in (i, j) order */
        CHECK_OK(rc__ct_bp_pairs(NULL, NA, alo, ahi, NB, blo, bhi, r, cell, &pairs, &np));
        for (i = 0; i < NA; ++i)
            for (j = 0; j < NB; ++j)
                if (t_ct_overlap(alo + 3 * i, ahi + 3 * i, blo + 3 * j, bhi + 3 * j, r)) {
                    if (k >= np || pairs[2 * k] != i || pairs[2 * k + 1] != j) match = 0;
                    ++k; ++nref;
                }
        CHECKF(match && np == nref, "A-B trial %d: %d pairs vs %d brute force", trial, np, nref);
        CHECK(nref > 0);
        rc__free(NULL, pairs);
        /* self query on A: pairs i < j */
        CHECK_OK(rc__ct_bp_pairs(NULL, NA, alo, ahi, 0, NULL, NULL, r, cell, &pairs, &np));
        k = 0; nref = 0; match = 1;
        for (i = 0; i < NA; ++i)
            for (j = i + 1; j < NA; ++j)
                if (t_ct_overlap(alo + 3 * i, ahi + 3 * i, alo + 3 * j, ahi + 3 * j, r)) {
                    if (k >= np || pairs[2 * k] != i || pairs[2 * k + 1] != j) match = 0;
                    ++k; ++nref;
                }
        CHECKF(match && np == nref, "self trial %d: %d pairs vs %d brute force", trial, np, nref);
        rc__free(NULL, pairs);
    }
    /* sets whose bounding boxes are apart: no box enters the grid, no pairs; one box of B reaching
       into A's bounding box brings exactly its overlaps back */
    {
        double lo[6] = {0, 0, 0, 1, 0, 0}, hi[6] = {0.5, 0.5, 0.5, 1.5, 0.5, 0.5};
        double blo[6] = {3, 0, 0, 1.49, 0.1, 0.1}, bhi[6] = {4, 1, 1, 2.5, 0.2, 0.2};
        int *pairs = NULL, np = -1;
        CHECK_OK(rc__ct_bp_pairs(NULL, 2, lo, hi, 1, blo, bhi, 0.1, 0.0, &pairs, &np));
        CHECK(np == 0 && pairs == NULL);
        CHECK_OK(rc__ct_bp_pairs(NULL, 2, lo, hi, 2, blo, bhi, 0.0, 0.0, &pairs, &np));
        CHECK(np == 1 && pairs && pairs[0] == 1 && pairs[1] == 1);
        rc__free(NULL, pairs);
        /* finite boxes whose span overflows: an error, not an endless cell search */
        lo[0] = hi[0] = -1e308; lo[3] = hi[3] = 1e308;
        CHECK(rc__ct_bp_pairs(NULL, 2, lo, hi, 0, NULL, NULL, 0.0, 0.0, &pairs, &np) == RC_ERR_NON_FINITE);
        CHECK(np == 0 && pairs == NULL);
    }
    /* argument checks */
    {
        double lo[3] = {-1, 0, -2}, hi[3] = {1, 2, 3};
        int *pairs = NULL, np = 0;
        CHECK(rc__ct_bp_pairs(NULL, 1, lo, hi, 0, NULL, NULL, -1.0, 0.0, &pairs, &np) == RC_ERR_INVALID_ARGUMENT);
        CHECK(rc__ct_bp_pairs(NULL, 1, lo, hi, 0, NULL, NULL, 0.0, 0.0, NULL, &np) == RC_ERR_INVALID_ARGUMENT);
        lo[1] = 0.0 * HUGE_VAL;
        CHECK(rc__ct_bp_pairs(NULL, 1, lo, hi, 0, NULL, NULL, 0.0, 0.0, &pairs, &np) == RC_ERR_NON_FINITE);
        CHECK_OK(rc__ct_bp_pairs(NULL, 0, NULL, NULL, 0, NULL, NULL, 0.0, 0.0, &pairs, &np));
        CHECK(np == 0 && pairs == NULL);
    }
}

/* (mutation audit, mutant C06: ACCD without removing the common
   mean displacement). Distances do not change under a common translation, so a pair translating
   together must get the full step at once, however fast and however close. Without the mean
   removal the bound l = |dx_a| + |dx_b| stays ~ 2|v|, every advancement is 0.9 gap/l, and at
   gap 1e-5 and |v| = 1e3 the 1e5-iteration cap is hit long before tmax: the step is silently
   truncated (the existing test translates at |v| = 9 from gap 0.49, which needs only ~20 iterations). */
static void test_ct_ccd_fast_common_translation(void)
{
    double x0[12] = {0.2, 0.2, 1e-5 + 1e-6, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dx[12], t;
    int k;
    for (k = 0; k < 4; ++k) { dx[3 * k] = 1e3; dx[3 * k + 1] = -4e2; dx[3 * k + 2] = 7e2; }
    t = rc__ct_ccd_point_triangle(x0, x0 + 3, x0 + 6, x0 + 9, dx, dx + 3, dx + 6, dx + 9, 1e-6, 1.0);
    CHECKF(t == 1.0, "point-triangle common translation: t %.6g (want 1)", t);
    {
        double y0[12] = {0, 0, 0, 1, 0, 0, 0.5, -0.5, 2e-5, 0.5, 0.5, 2e-5};
        t = rc__ct_ccd_edge_edge(y0, y0 + 3, y0 + 6, y0 + 9, dx, dx + 3, dx + 6, dx + 9, 1e-5, 1.0);
        CHECKF(t == 1.0, "edge-edge common translation: t %.6g (want 1)", t);
    }
}

/* (mutation audit, mutant C07: `na = ee ? 2 : 1` -> `na = 1`:
   edge-edge ACCD bounds edge a's speed by ea0 alone and puts ea1 in edge b's set, so
   l = |v_ea0| + max(|v_ea1|, |v_eb|) instead of max(|v_ea0|, |v_ea1|) + max(|v_eb0|, |v_eb1|)).
   The random trials never separate the two: with the common mean removed the sets' maxima rarely
   differ. Here the mean equals ea0's motion (v_ea0 = 0 after removal), ea1 dives at 4/3 and edge b
   rises at 2/3 relative to it, so the true bound is 2 and the mutant's 4/3: its first advancement
   0.9 gap0 / l overshoots the exact contact time 0.2586 (t = 0.3375) and the edges pass through
   each other. t_ct_ccd_check (test_contact.c) samples the trajectory on [0, t]. */
static void test_ct_ccd_edge_edge_rotating(void)
{
    double x0[12] = {0, 0, 0.5, 1, 0, 0.5, 0.95, -0.5, 0, 0.95, 0.5, 0};
    double dx[12] = {0, 0, 1.0 / 3.0, 0, 0, -1, 0, 0, 1, 0, 0, 1}, t;
    t = t_ct_ccd_check(1, x0, dx, 0.0, 1.0);
    CHECKF(t > 0.0 && t < 0.2586, "t %.6g (exact contact at 0.2586)", t);
    t = t_ct_ccd_check(1, x0, dx, 0.01, 1.0);
    CHECKF(t > 0.0 && t < 0.2586, "xi 0.01: t %.6g", t);
}

/* (mutation audit, mutant C13: point-shape CCD Newton stopping
   at 1e-1 instead of 1e-3 gap0 above the target). The contract: Newton stops
   within 1e-3 gap0 of the target distance xi + 0.1 gap0. The existing sphere case is head-on
   (f linear in t: Newton is exact in one step, any stopping tolerance passes); an oblique approach
   makes f curved, and a loose stop silently returns a shorter step (safe, but a truncated line
   search). Check the distance at the returned t lies in [target, target + 1e-3 gap0]. */
static void test_ct_ccd_point_shape_tight(void)
{
    rc__ct_shape sp;
    double x0[3] = {-3, 0.5, 0.2}, dx[3] = {6, 0.1, -0.3}, xi = 0.1, d0, d, t, x[3], gap0, target;
    int k;
    memset(&sp, 0, sizeof sp);
    sp.kind = RC__CT_SHAPE_SPHERE; sp.r = 1.0;
    rc__ct_shape_sdf(&sp, x0, &d0, NULL, NULL);
    gap0 = d0 - xi; target = xi + 0.1 * gap0;
    t = rc__ct_ccd_point_shape(&sp, x0, dx, xi, 1.0);
    for (k = 0; k < 3; ++k) x[k] = x0[k] + t * dx[k];
    rc__ct_shape_sdf(&sp, x, &d, NULL, NULL);
    CHECKF(t > 0.0 && t < 1.0, "t %g", t);
    CHECKF(d >= target - 1e-12 && d <= target + 1e-3 * gap0, "d(t) - target = %.3g gap0 (want in [0, 1e-3])", (d - target) / gap0);
}

/* (mutation audit, mutant C03: RC__CT_PARALLEL_SIN2 1e-20 -> 1e-6).
   Crossing edges at a small angle (sin^2 = 1e-8, far above the 1e-20 threshold): the line-line
   solve is well posed, the closest points are interior (type EA_EB) and d2 is the exact height^2.
   Routing such pairs through the endpoint candidates (a too-large threshold) overestimates d2 by
   (L sin/2)^2 = 2.5e-9 here, 0.25% of d2 = 1e-6: a contact-scale gap reported too large, so
   the barrier and CCD see the pair farther than it is. */
static void test_ct_edge_edge_nearly_parallel_crossing(void)
{
    double th = 1e-4, h = 1e-3, c = cos(th), s = sin(th), g[12], H[144];
    double x[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    int type, k;
    double d2;
    x[6] = 0.5 - 0.5 * c; x[7] = -0.5 * s; x[8] = h;
    x[9] = 0.5 + 0.5 * c; x[10] = 0.5 * s; x[11] = h;
    d2 = rc__ct_edge_edge_d2(x, x + 3, x + 6, x + 9, &type, g, H);
    CHECKF(type == RC__CT_EA_EB, "type %d (want EA_EB = %d)", type, RC__CT_EA_EB);
    CHECKF(fabs(d2 - h * h) <= 1e-12 * h * h, "d2 %.17g vs exact %.17g (rel %.3g)", d2, h * h, fabs(d2 - h * h) / (h * h));
    for (k = 0; k < 12; ++k) CHECK(rc__isfinite(g[k]));
    /* and the CCD of the pair dropping onto each other stops short of xi, as the exact distance says */
    {
        double dx[12] = {0, 0, 0, 0, 0, 0, 0, 0, -2e-3, 0, 0, -2e-3}, t, xt[12];
        t = rc__ct_ccd_edge_edge(x, x + 3, x + 6, x + 9, dx, dx + 3, dx + 6, dx + 9, 0.0, 1.0);
        for (k = 0; k < 12; ++k) xt[k] = x[k] + t * dx[k];
        CHECKF(t > 0.0 && t <= 0.45 + 1e-9, "ccd t %.17g (exact contact at 0.5, 10%% target 0.45)", t);
        (void)xt;
    }
}

/* (mutation audit, mutant C01: `min_dist < prev_min_dist` -> `<=`).
   rc_barrier_stiffness_update doubles kappa only while the closest pair is deep in the band AND
   still approaching (its doc). A pair resting at an unchanged gap must not stiffen the
   barrier step after step (a resting contact would otherwise drive kappa to kappa_max). */
static void test_ct_barrier_stiffness_resting(void)
{
    double xi = 1e-3, dhat = 1e-3, k = 1.0;
    int i;
    for (i = 0; i < 3; ++i) {   /* gap 4e-6 < 1e-2 dhat, same distance as before: not approaching */
        CHECK_OK(rc_barrier_stiffness_update(xi + 4e-6, xi + 4e-6, xi, dhat, 1e-2, 100.0, &k));
    }
    CHECKF(k == 1.0, "kappa %g after 3 updates at an unchanged gap (want 1)", k);
}

/* (mutation audit, mutant C04: eps_x = 1e-3 -> 1e-2 |ea|^2 |eb|^2).
   The edge-edge mollifier must act only on nearly parallel edges: c = |ea x eb|^2 below
   eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2, i.e. sin^2 of the angle below 1e-3 at rest
   lengths. The existing tests take eps_x from the function itself, so any constant passes; a 10x
   larger one silently weakens the barrier of every edge pair within 5.7 degrees of parallel
   (m b instead of b). Unit edges at sin^2 = 2e-3 (2.6 deg): m = 1; at sin^2 = 5e-4: 0 < m < 1,
   and the value is the documented (2 - c/eps_x) c/eps_x. */
static void test_ct_mollifier_threshold_value(void)
{
    double x[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.3, 1, 0, 0.3}, eps, m, s2, c;
    eps = t_ct_mollifier_eps(x);   /* rest = this pose: |ea| = |eb| = 1 */
    CHECKF(fabs(eps - 1e-3) <= 1e-18, "eps_x %g for unit edges (want 1e-3)", eps);
    s2 = 2e-3;
    x[9] = sqrt(1 - s2); x[10] = sqrt(s2);
    m = rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, eps, NULL, NULL);
    CHECKF(m == 1.0, "m %g at sin^2 = 2e-3 (want 1: not nearly parallel)", m);
    s2 = 5e-4;
    x[9] = sqrt(1 - s2); x[10] = sqrt(s2);
    m = rc__ct_ee_mollifier(x, x + 3, x + 6, x + 9, eps, NULL, NULL);
    c = s2 / 1e-3;
    CHECKF(fabs(m - (2 - c) * c) < 1e-9, "m %g at sin^2 = 5e-4 (want %g)", m, (2 - c) * c);
}

/* (mutation audit, mutant C15: the P_T region accepts
   th0 + th1 <= 1 + 1e-3). A point 2.8e-4 beyond the hypotenuse (in-plane), 1e-3 above the plane,
   is closest to edge t1-t2 (type P_E1) at d2 = h^2 + 8e-8; a tolerant interior test returns the
   plane distance h^2, 8% too small, and makes d2 jump where the tolerance ends. The existing
   type tests place every point >= ~0.05 (jitter) from a region boundary. */
static void test_ct_point_triangle_region_boundary(void)
{
    double e = 2e-4, h = 1e-3, x[12] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}, d2, want;
    int type;
    x[0] = 0.5 + e; x[1] = 0.5 + e; x[2] = h;
    d2 = rc__ct_point_triangle_d2(x, x + 3, x + 6, x + 9, &type, NULL, NULL);
    want = h * h + 2 * e * e;
    CHECKF(type == RC__CT_P_E1, "type %d (want P_E1 = %d)", type, RC__CT_P_E1);
    CHECKF(fabs(d2 - want) <= 1e-12 * want, "d2 %.17g want %.17g", d2, want);
}

/* The box-overlap guard of the box cores (rc__ct_triangle_box_overlap, separating axes): a triangle
   skewered through the box with every vertex outside overlaps; one beside a box edge, separated
   only by an edge-cross axis, does not; one lying on the top face touches; and for random
   triangles, whenever a sample point of the triangle is inside the box the test says overlap. */
static void test_ct_triangle_box_overlap(void)
{
    const double h[3] = { 1.0, 1.0, 1.0 };
    const double sk[9] = { -2, 0, 0.5, 2, 0.1, 0.5, 0, 3, 0.5 }, above[9] = { -2, 0, 1.2, 2, 0.1, 1.2, 0, 3, 1.2 };
    const double corner[9] = { 1.5, 0.8, 0, 0.8, 1.5, 0, 1.5, 1.5, 0 }, onface[9] = { -0.5, 0, 1, 0.5, 0, 1, 0, 0.5, 1 };
    int k, bad = 0, overlaps = 0;
    CHECK(rc__ct_triangle_box_overlap(sk, sk + 3, sk + 6, h) == 1);
    CHECK(rc__ct_triangle_box_overlap(above, above + 3, above + 6, h) == 0);
    CHECK(rc__ct_triangle_box_overlap(corner, corner + 3, corner + 6, h) == 0);
    CHECK(rc__ct_triangle_box_overlap(onface, onface + 3, onface + 6, h) == 1);
    for (k = 0; k < 2000; ++k) {
        double v[9], hb[3];
        int i, a, b, inside = 0, sat;
        for (i = 0; i < 9; ++i) v[i] = 4.0 * t_rand() - 2.0;
        for (i = 0; i < 3; ++i) hb[i] = 0.2 + t_rand();
        for (a = 0; a <= 20 && !inside; ++a)
            for (b = 0; a + b <= 20 && !inside; ++b) {
                double p[3];
                for (i = 0; i < 3; ++i) p[i] = v[i] + a / 20.0 * (v[3 + i] - v[i]) + b / 20.0 * (v[6 + i] - v[i]);
                inside = fabs(p[0]) < hb[0] && fabs(p[1]) < hb[1] && fabs(p[2]) < hb[2];
            }
        sat = rc__ct_triangle_box_overlap(v, v + 3, v + 6, hb);
        overlaps += sat;
        if (inside && !sat) ++bad;
    }
    printf("    2000 random triangles: %d overlap, %d with a sample point inside the box missed\n", overlaps, bad);
    CHECK(bad == 0 && overlaps > 100 && overlaps < 1900);
}

/* The segment-triangle distance of the round cores (rc__ct_segment_triangle_d2): for random
   segments and triangles, half of them crossing the triangle's plane outside it (the case whose
   stale tau the review found), d2 is no larger than the least squared distance sampled along the
   segment and no smaller than it minus the sampling's slack, and tau is the closest point: the
   point a + tau (b - a) is at distance d from the triangle. A segment through the triangle gives
   0 with tau at the crossing. */
static void test_ct_segment_triangle_distance(void)
{
    int k, over = 0, under = 0, badtau = 0, crossing = 0, pierce = 0;
    for (k = 0; k < 4000; ++k) {
        double a[3], b[3], t[9], tau, d2, p[3], dp2, best = HUGE_VAL, len2 = 0.0;
        int i, j;
        for (i = 0; i < 9; ++i) t[i] = 2.0 * t_rand() - 1.0;
        for (i = 0; i < 3; ++i) { a[i] = 3.0 * t_rand() - 1.5; b[i] = 3.0 * t_rand() - 1.5; }
        if (k % 2) {   /* push the ends to opposite sides of the triangle's plane */
            double e1[3], e2[3], n[3], sa, sb;
            rc__sub3(e1, t + 3, t); rc__sub3(e2, t + 6, t); rc__cross3(n, e1, e2);
            { double ln = rc__norm3(n); for (i = 0; i < 3; ++i) n[i] /= ln; }
            sa = rc__dot3(n, a) - rc__dot3(n, t); sb = rc__dot3(n, b) - rc__dot3(n, t);
            if (sa * sb > 0.0) for (i = 0; i < 3; ++i) b[i] -= 2.0 * sb * n[i];
            ++crossing;
        }
        for (i = 0; i < 3; ++i) len2 += (b[i] - a[i]) * (b[i] - a[i]);
        d2 = rc__ct_segment_triangle_d2(a, b, t, t + 3, t + 6, &tau);
        if (d2 == 0.0) ++pierce;
        for (j = 0; j <= 400; ++j) {
            for (i = 0; i < 3; ++i) p[i] = a[i] + j / 400.0 * (b[i] - a[i]);
            best = fmin(best, rc__ct_point_triangle_d2(p, t, t + 3, t + 6, NULL, NULL, NULL));
        }
        /* sampled points are at most |b - a| / 800 from the closest point */
        if (d2 > best * (1.0 + 1e-12) + 1e-300) ++over;
        if (sqrt(d2) < sqrt(best) - sqrt(len2) / 800.0 - 1e-12) ++under;
        for (i = 0; i < 3; ++i) p[i] = a[i] + tau * (b[i] - a[i]);
        dp2 = rc__ct_point_triangle_d2(p, t, t + 3, t + 6, NULL, NULL, NULL);
        if (!(tau >= 0.0 && tau <= 1.0) || fabs(sqrt(dp2) - sqrt(d2)) > 1e-9 * (1.0 + sqrt(len2))) ++badtau;
    }
    printf("    4000 segments (%d crossing the plane, %d through the triangle): d2 above the samples %d, below %d, tau not the closest point %d\n",
           crossing, pierce, over, under, badtau);
    CHECK(over == 0 && under == 0 && badtau == 0 && pierce > 100 && pierce < crossing);
}

static void suite_contact(void)
{
    RUN(test_ct_normal_force_floor);
    RUN(test_ct_point_triangle_types);
    RUN(test_ct_edge_edge_types);
    RUN(test_ct_edge_edge_parallel);
    RUN(test_ct_point_triangle_degenerate);
    RUN(test_ct_mollifier);
    RUN(test_ct_barrier_values);
    RUN(test_ct_barrier_stiffness);
    RUN(test_ct_barrier_local);
    RUN(test_ct_lowrank_projection);
    RUN(test_ct_shapes_sdf);
    RUN(test_ct_pair_wrappers);
    RUN(test_ct_ccd_point_triangle);
    RUN(test_ct_ccd_round_triangle_edges);
    RUN(test_ct_ccd_edge_edge);
    RUN(test_ct_ccd_sliding_under_pressure);
    RUN(test_ct_ccd_point_shape);
    RUN(test_ct_friction_f0);
    RUN(test_ct_friction_potential);
    RUN(test_ct_broad_phase);
    RUN(test_ct_ccd_fast_common_translation);
    RUN(test_ct_ccd_edge_edge_rotating);
    RUN(test_ct_ccd_point_shape_tight);
    RUN(test_ct_edge_edge_nearly_parallel_crossing);
    RUN(test_ct_barrier_stiffness_resting);
    RUN(test_ct_mollifier_threshold_value);
    RUN(test_ct_point_triangle_region_boundary);
    RUN(test_ct_triangle_box_overlap);
    RUN(test_ct_segment_triangle_distance);
}
