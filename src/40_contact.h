/* ==========================================================================
   SECTION: CONTACT  (IPC barrier, distances, analytic obstacles, CCD, friction)
   Owns: the log barrier on squared distances with a thickness offset and its
   adaptive stiffness; point/edge/triangle squared distances with their type
   classification, gradients and Hessians; the edge-edge mollifier; signed
   distances of analytic obstacles; additive CCD; the lagged friction kernels;
   a uniform-grid broad phase. Every kernel is small and allocation-free
   (except the broad phase, which uses the BASE allocators); the simulator
   assembles them. Calls only BASE.
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* IPC log barrier on a squared distance d2 with thickness offset xi and activation width dhat:
       s = d2 - xi^2,   shat = (2 xi + dhat) dhat   (so s = shat exactly at d = xi + dhat),
       b(s) = -(s - shat)^2 ln(s / shat)   for 0 < s < shat,
       b = 0 for s >= shat,   b = +inf for s <= 0.
   b is C^2 at s = shat (b = b' = b'' = 0 there). Derivatives are w.r.t. d2 (ds/dd2 = 1); either
   pointer may be NULL. For s <= 0 they are -inf and +inf. Returns NaN (and NaN derivatives) if
   d2 is NaN, xi < 0, dhat <= 0 or a parameter is not finite. Units: d2 in m^2, b in m^4. */
RCLOTHDEF double rc_barrier(double d2, double xi, double dhat, double *db_dd2, double *d2b_dd22);

/* Adaptive barrier stiffness kappa (IPC's rule, in our scale-explicit reading).
   Initial value: kappa_min is the kappa for which the barrier's normal stiffness
       S(d) = d^2/dd^2 [kappa b(d^2 - xi^2)] = kappa (4 d^2 b''(s) + 2 b'(s))
   at the reference distance d = xi + dhat/2 equals k_ref (N/m: the caller's stiffness scale,
   e.g. the average vertex mass / h^2 in dynamics, or an elastic stiffness in statics);
   kappa_max = 100 kappa_min. kappa is then the gradient balance -(gE . gB)/(gB . gB) (gE the
   gradient of the rest of the potential, gB of the unit-stiffness barrier sum), clamped into
   [kappa_min, kappa_max]; a zero or non-finite balance gives kappa_min.
   kappa_min/kappa_max may be NULL. RC_ERR_INVALID_ARGUMENT for xi < 0, dhat <= 0, k_ref <= 0,
   gB_dot_gB < 0, non-finite inputs or kappa == NULL. */
RCLOTHDEF rc_status rc_barrier_stiffness_init(double xi, double dhat, double k_ref, double gE_dot_gB,
                                              double gB_dot_gB, double *kappa, double *kappa_min,
                                              double *kappa_max);

/* Growth rule, called once per Newton iteration (or step) with the smallest contact distance of
   the previous and the current iterate: when the closest pair is deep in the barrier band, i.e.
   its gap min_dist - xi is below frac * dhat, and still approaching (min_dist < prev_min_dist),
   kappa doubles, capped at kappa_max (IPC uses an absolute 1e-9 * bbox gap; a fraction of dhat
   is scale-free; frac = 1e-2 is our recommended value). Otherwise kappa is unchanged.
   RC_ERR_INVALID_ARGUMENT for kappa == NULL, *kappa <= 0, frac outside (0, 1), kappa_max <= 0,
   xi < 0, dhat <= 0, or NaN distances. */
RCLOTHDEF rc_status rc_barrier_stiffness_update(double prev_min_dist, double min_dist, double xi,
                                                double dhat, double frac, double kappa_max,
                                                double *kappa);

#ifdef __cplusplus
}
#endif

/* ==== IMPLEMENTATION ==== */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- barrier */

RCLOTHDEF RC__UNUSED double rc_barrier(double d2, double xi, double dhat, double *db_dd2, double *d2b_dd22)
{
    double shat, s, r, l;
    if (!rc__isfinite(xi) || !rc__isfinite(dhat) || xi < 0.0 || dhat <= 0.0 || d2 != d2) {
        double nan = 0.0 * HUGE_VAL;
        if (db_dd2) *db_dd2 = nan;
        if (d2b_dd22) *d2b_dd22 = nan;
        return nan;
    }
    shat = (2.0 * xi + dhat) * dhat;
    s = d2 - xi * xi;
    if (s <= 0.0) {
        if (db_dd2) *db_dd2 = -HUGE_VAL;
        if (d2b_dd22) *d2b_dd22 = HUGE_VAL;
        return HUGE_VAL;
    }
    if (s >= shat) {
        if (db_dd2) *db_dd2 = 0.0;
        if (d2b_dd22) *d2b_dd22 = 0.0;
        return 0.0;
    }
    r = s - shat;
    l = log(s / shat);
    /* b = -r^2 l,  b' = -2 r l - r^2/s,  b'' = -2 l - 4 r/s + r^2/s^2 */
    if (db_dd2) *db_dd2 = -2.0 * r * l - r * r / s;
    if (d2b_dd22) *d2b_dd22 = -2.0 * l - 4.0 * r / s + (r * r) / (s * s);
    return -r * r * l;
}

RCLOTHDEF RC__UNUSED rc_status rc_barrier_stiffness_init(double xi, double dhat, double k_ref, double gE_dot_gB,
                                              double gB_dot_gB, double *kappa, double *kappa_min,
                                              double *kappa_max)
{
    double d, b1, b2, S, kmin, kmax, k;
    if (!kappa || !rc__isfinite(xi) || !rc__isfinite(dhat) || !rc__isfinite(k_ref) || xi < 0.0 ||
        dhat <= 0.0 || k_ref <= 0.0 || !rc__isfinite(gE_dot_gB) || !rc__isfinite(gB_dot_gB) ||
        gB_dot_gB < 0.0)
        return RC_ERR_INVALID_ARGUMENT;
    d = xi + 0.5 * dhat;
    (void)rc_barrier(d * d, xi, dhat, &b1, &b2);
    S = 4.0 * d * d * b2 + 2.0 * b1;   /* > 0 inside the band (b'' > 0, and b' < 0 is dominated) */
    if (!(S > 0.0) || !rc__isfinite(S)) return RC_ERR_INVALID_ARGUMENT;
    kmin = k_ref / S;
    kmax = 100.0 * kmin;
    k = (gB_dot_gB > 0.0) ? -gE_dot_gB / gB_dot_gB : 0.0;
    if (!rc__isfinite(k) || k < kmin) k = kmin;
    if (k > kmax) k = kmax;
    *kappa = k;
    if (kappa_min) *kappa_min = kmin;
    if (kappa_max) *kappa_max = kmax;
    return RC_OK;
}

RCLOTHDEF RC__UNUSED rc_status rc_barrier_stiffness_update(double prev_min_dist, double min_dist, double xi,
                                                double dhat, double frac, double kappa_max,
                                                double *kappa)
{
    if (!kappa || !(*kappa > 0.0) || !rc__isfinite(*kappa) || !(frac > 0.0 && frac < 1.0) ||
        !(kappa_max > 0.0) || !(xi >= 0.0) || !(dhat > 0.0) || !rc__isfinite(dhat) ||
        prev_min_dist != prev_min_dist || min_dist != min_dist)
        return RC_ERR_INVALID_ARGUMENT;
    if (min_dist - xi < frac * dhat && min_dist < prev_min_dist) {
        double k = 2.0 * *kappa;
        *kappa = k < kappa_max ? k : (kappa_max > *kappa ? kappa_max : *kappa);
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- distances
   DOF orders (stacked xyz per vertex, row-major Hessians):
     point-point     (p, q)                   6
     point-edge      (p, e0, e1)              9
     point-triangle  (p, t0, t1, t2)          12
     edge-edge       (ea0, ea1, eb0, eb1)     12
   Every type's squared distance is d2(x) = min_th |r(x, th)|^2 with r = sum_k c_k(th) x_k and the
   c_k affine in the 0, 1 or 2 parameters th (the closest point's position on an edge, a triangle's
   plane, or both edges' lines). Envelope theorem: grad d2 = df/dx at th*. Implicit function
   theorem on df/dth = 0: Hess d2 = f_xx - f_xth (f_thth)^-1 f_thx. One kernel serves all 19 types. */

enum { RC__CT_PP = 0 };
enum { RC__CT_PE_V0 = 0, RC__CT_PE_V1, RC__CT_PE_INT };
enum { RC__CT_P_T0 = 0, RC__CT_P_T1, RC__CT_P_T2, RC__CT_P_E0, RC__CT_P_E1, RC__CT_P_E2, RC__CT_P_T };
enum { RC__CT_EA0_EB0 = 0, RC__CT_EA0_EB1, RC__CT_EA1_EB0, RC__CT_EA1_EB1, RC__CT_EA_EB0,
       RC__CT_EA_EB1, RC__CT_EA0_EB, RC__CT_EA1_EB, RC__CT_EA_EB };
/* P_E0 is edge t0-t1, P_E1 is t1-t2, P_E2 is t2-t0. EA_EB0: vertex eb0 against edge a's interior;
   EA0_EB: vertex ea0 against edge b's interior. */

/* Two directions are treated as parallel when sin^2 of their angle is below this: then the
   line-line (and plane) parameter solve is ill-posed and the closest pair is found among
   endpoint-vs-segment candidates instead, which is exact for parallel segments. */
#define RC__CT_PARALLEL_SIN2 1e-20

typedef struct rc__ct_aff {
    int m, np;        /* vertices involved, free parameters */
    int slot[4];      /* stencil slot of each involved vertex */
    double c0[4];     /* c_k(th) = c0[k] + a[k][0] th0 + a[k][1] th1 */
    double a[4][2];
} rc__ct_aff;

static RC__UNUSED void rc__ct_aff_set(rc__ct_aff *A, int m, int np, int s0, int s1, int s2, int s3)
{
    int k;
    A->m = m; A->np = np;
    A->slot[0] = s0; A->slot[1] = s1; A->slot[2] = s2; A->slot[3] = s3;
    for (k = 0; k < 4; ++k) { A->c0[k] = 0.0; A->a[k][0] = A->a[k][1] = 0.0; }
}

/* Evaluates min_th |r|^2 for the affine family A over stencil vertices X (nst of them).
   th[] receives the parameters, w[nst] the closest-vector weights (r = sum w_i X_i); grad (3 nst)
   and hess (3nst)^2 are overwritten when non-NULL. *ok = 0 if the parameter system is singular
   (then d2 is the value at th = 0). */
static RC__UNUSED double rc__ct_aff_eval(const rc__ct_aff *A, const double *X[4], int nst, double th[2],
                                         double *w, double *grad, double *hess, int *ok)
{
    double e[2][3] = {{0, 0, 0}, {0, 0, 0}}, r[3] = {0, 0, 0}, c[4], G[2][2], Gi[2][2], d2;
    double B[12][2];
    int k, l, j, i, dd, n = 3 * nst;
    th[0] = th[1] = 0.0;
    if (ok) *ok = 1;
    for (k = 0; k < A->m; ++k) {
        const double *x = X[A->slot[k]];
        rc__axpy3(r, A->c0[k], x);
        for (j = 0; j < A->np; ++j) rc__axpy3(e[j], A->a[k][j], x);
    }
    /* normal equations of min |r0 + sum th_j e_j|^2: G th = -E^T r0, G = E^T E */
    for (j = 0; j < A->np; ++j)
        for (i = 0; i < A->np; ++i) G[j][i] = rc__dot3(e[j], e[i]);
    if (A->np == 1) {
        if (G[0][0] > 0.0) { th[0] = -rc__dot3(e[0], r) / G[0][0]; Gi[0][0] = 1.0 / G[0][0]; }
        else { if (ok) *ok = 0; Gi[0][0] = 0.0; }
    } else if (A->np == 2) {
        double det = G[0][0] * G[1][1] - G[0][1] * G[1][0];
        if (det > RC__CT_PARALLEL_SIN2 * G[0][0] * G[1][1] && det > 0.0) {
            double b0 = -rc__dot3(e[0], r), b1 = -rc__dot3(e[1], r);
            th[0] = (G[1][1] * b0 - G[0][1] * b1) / det;
            th[1] = (G[0][0] * b1 - G[1][0] * b0) / det;
            Gi[0][0] = G[1][1] / det; Gi[1][1] = G[0][0] / det;
            Gi[0][1] = Gi[1][0] = -G[0][1] / det;
        } else {
            if (ok) *ok = 0;
            Gi[0][0] = Gi[0][1] = Gi[1][0] = Gi[1][1] = 0.0;
        }
    }
    for (j = 0; j < A->np; ++j) rc__axpy3(r, th[j], e[j]);
    for (k = 0; k < A->m; ++k) c[k] = A->c0[k] + A->a[k][0] * th[0] + A->a[k][1] * th[1];
    d2 = rc__dot3(r, r);
    if (w) {
        for (i = 0; i < nst; ++i) w[i] = 0.0;
        for (k = 0; k < A->m; ++k) w[A->slot[k]] = c[k];
    }
    if (grad) {
        for (i = 0; i < n; ++i) grad[i] = 0.0;
        for (k = 0; k < A->m; ++k)
            for (dd = 0; dd < 3; ++dd) grad[3 * A->slot[k] + dd] = 2.0 * c[k] * r[dd];
    }
    if (hess) {
        for (i = 0; i < n * n; ++i) hess[i] = 0.0;
        for (k = 0; k < A->m; ++k)     /* f_xx = 2 c_k c_l I */
            for (l = 0; l < A->m; ++l)
                for (dd = 0; dd < 3; ++dd)
                    hess[(3 * A->slot[k] + dd) * n + 3 * A->slot[l] + dd] += 2.0 * c[k] * c[l];
        if (A->np > 0) {
            /* f_{x_k,d th_j} = 2 (a_kj r_d + c_k e_jd);  f_thth = 2 G, its inverse Gi/2 */
            for (i = 0; i < n; ++i) B[i][0] = B[i][1] = 0.0;
            for (k = 0; k < A->m; ++k)
                for (dd = 0; dd < 3; ++dd)
                    for (j = 0; j < A->np; ++j)
                        B[3 * A->slot[k] + dd][j] = 2.0 * (A->a[k][j] * r[dd] + c[k] * e[j][dd]);
            for (i = 0; i < n; ++i)
                for (l = 0; l < n; ++l) {
                    double s = 0.0;
                    for (j = 0; j < A->np; ++j)
                        for (k = 0; k < A->np; ++k) s += B[i][j] * 0.5 * Gi[j][k] * B[l][k];
                    hess[i * n + l] -= s;
                }
        }
    }
    return d2;
}

/* ---- the affine family of each type ---- */
static RC__UNUSED void rc__ct_aff_pp(rc__ct_aff *A, int sp, int sq)
{
    rc__ct_aff_set(A, 2, 0, sp, sq, 0, 0);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
}
/* r = p - e0 - th (e1 - e0) */
static RC__UNUSED void rc__ct_aff_pe(rc__ct_aff *A, int sp, int s0, int s1)
{
    rc__ct_aff_set(A, 3, 1, sp, s0, s1, 0);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
    A->a[1][0] = 1.0; A->a[2][0] = -1.0;
}
/* r = p - t0 - th0 (t1 - t0) - th1 (t2 - t0) */
static RC__UNUSED void rc__ct_aff_ptplane(rc__ct_aff *A)
{
    rc__ct_aff_set(A, 4, 2, 0, 1, 2, 3);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
    A->a[1][0] = 1.0; A->a[2][0] = -1.0;
    A->a[1][1] = 1.0; A->a[3][1] = -1.0;
}
/* r = ea0 + th0 (ea1 - ea0) - eb0 - th1 (eb1 - eb0) */
static RC__UNUSED void rc__ct_aff_eeline(rc__ct_aff *A)
{
    rc__ct_aff_set(A, 4, 2, 0, 1, 2, 3);
    A->c0[0] = 1.0; A->c0[2] = -1.0;
    A->a[0][0] = -1.0; A->a[1][0] = 1.0;
    A->a[2][1] = 1.0; A->a[3][1] = -1.0;
}
/* vertex eb_j (slot 2+j) against edge a's line: r = ea0 + th (ea1 - ea0) - eb_j */
static RC__UNUSED void rc__ct_aff_ea_ebj(rc__ct_aff *A, int j)
{
    rc__ct_aff_set(A, 3, 1, 0, 1, 2 + j, 0);
    A->c0[0] = 1.0; A->c0[2] = -1.0;
    A->a[0][0] = -1.0; A->a[1][0] = 1.0;
}

static RC__UNUSED void rc__ct_pt_aff(rc__ct_aff *A, int type)
{
    static const int ei[3] = {0, 1, 2}, ej[3] = {1, 2, 0};
    if (type <= RC__CT_P_T2) rc__ct_aff_pp(A, 0, 1 + type);
    else if (type <= RC__CT_P_E2) rc__ct_aff_pe(A, 0, 1 + ei[type - RC__CT_P_E0], 1 + ej[type - RC__CT_P_E0]);
    else rc__ct_aff_ptplane(A);
}
static RC__UNUSED void rc__ct_ee_aff(rc__ct_aff *A, int type)
{
    switch (type) {
    case RC__CT_EA0_EB0: rc__ct_aff_pp(A, 0, 2); break;
    case RC__CT_EA0_EB1: rc__ct_aff_pp(A, 0, 3); break;
    case RC__CT_EA1_EB0: rc__ct_aff_pp(A, 1, 2); break;
    case RC__CT_EA1_EB1: rc__ct_aff_pp(A, 1, 3); break;
    case RC__CT_EA_EB0: rc__ct_aff_ea_ebj(A, 0); break;
    case RC__CT_EA_EB1: rc__ct_aff_ea_ebj(A, 1); break;
    case RC__CT_EA0_EB: rc__ct_aff_pe(A, 0, 2, 3); break;
    case RC__CT_EA1_EB: rc__ct_aff_pe(A, 1, 2, 3); break;
    default: rc__ct_aff_eeline(A); break;
    }
}

/* Point vs segment (stencil slots sp, s0, s1): classification by the clamped projection parameter.
   Returns 0 (vertex s0), 1 (vertex s1) or 2 (interior) and the squared distance. */
static RC__UNUSED int rc__ct_pe_case(const double *X[4], int sp, int s0, int s1, double *d2)
{
    double e[3], v[3], ee, t;
    rc__sub3(e, X[s1], X[s0]);
    rc__sub3(v, X[sp], X[s0]);
    ee = rc__dot3(e, e);
    t = ee > 0.0 ? rc__dot3(v, e) / ee : 0.0;
    if (t <= 0.0) { *d2 = rc__dot3(v, v); return 0; }
    if (t >= 1.0) { rc__sub3(v, X[sp], X[s1]); *d2 = rc__dot3(v, v); return 1; }
    rc__axpy3(v, -t, e);
    *d2 = rc__dot3(v, v);
    return 2;
}

/* ---- classification ---- */
static RC__UNUSED int rc__ct_point_edge_type(const double p[3], const double e0[3], const double e1[3])
{
    const double *X[4];
    double d2;
    int c;
    X[0] = p; X[1] = e0; X[2] = e1; X[3] = p;
    c = rc__ct_pe_case(X, 0, 1, 2, &d2);
    return c == 0 ? RC__CT_PE_V0 : (c == 1 ? RC__CT_PE_V1 : RC__CT_PE_INT);
}

static RC__UNUSED int rc__ct_point_triangle_type(const double p[3], const double t0[3], const double t1[3],
                                                 const double t2[3])
{
    static const int ei[3] = {0, 1, 2}, ej[3] = {1, 2, 0};
    const double *X[4];
    double u[3], v[3], n[3], th[2], best = HUGE_VAL;
    rc__ct_aff A;
    int k, type = RC__CT_P_T0, ok;
    X[0] = p; X[1] = t0; X[2] = t1; X[3] = t2;
    rc__sub3(u, t1, t0);
    rc__sub3(v, t2, t0);
    rc__cross3(n, u, v);
    if (rc__dot3(n, n) > RC__CT_PARALLEL_SIN2 * rc__dot3(u, u) * rc__dot3(v, v)) {
        rc__ct_aff_ptplane(&A);
        (void)rc__ct_aff_eval(&A, X, 4, th, NULL, NULL, NULL, &ok);
        if (ok && th[0] >= 0.0 && th[1] >= 0.0 && th[0] + th[1] <= 1.0) return RC__CT_P_T;
    }
    /* otherwise the closest point lies on the boundary: the best of the three clamped edges */
    for (k = 0; k < 3; ++k) {
        double d2;
        int c = rc__ct_pe_case(X, 0, 1 + ei[k], 1 + ej[k], &d2);
        if (d2 < best) {
            best = d2;
            type = c == 2 ? RC__CT_P_E0 + k : (c == 0 ? RC__CT_P_T0 + ei[k] : RC__CT_P_T0 + ej[k]);
        }
    }
    return type;
}

static RC__UNUSED int rc__ct_edge_edge_type(const double ea0[3], const double ea1[3], const double eb0[3],
                                            const double eb1[3])
{
    /* candidates (vertex slot vs edge slots) and the types they map to: interior, clamped to
       the edge's first vertex, clamped to its second vertex */
    static const int cs[4][3] = {{0, 2, 3}, {1, 2, 3}, {2, 0, 1}, {3, 0, 1}};
    static const int ct[4][3] = {{RC__CT_EA0_EB, RC__CT_EA0_EB0, RC__CT_EA0_EB1},
                                 {RC__CT_EA1_EB, RC__CT_EA1_EB0, RC__CT_EA1_EB1},
                                 {RC__CT_EA_EB0, RC__CT_EA0_EB0, RC__CT_EA1_EB0},
                                 {RC__CT_EA_EB1, RC__CT_EA0_EB1, RC__CT_EA1_EB1}};
    const double *X[4];
    double th[2], best = HUGE_VAL;
    rc__ct_aff A;
    int k, type = RC__CT_EA0_EB0, ok;
    X[0] = ea0; X[1] = ea1; X[2] = eb0; X[3] = eb1;
    rc__ct_aff_eeline(&A);
    (void)rc__ct_aff_eval(&A, X, 4, th, NULL, NULL, NULL, &ok);
    if (ok && th[0] >= 0.0 && th[0] <= 1.0 && th[1] >= 0.0 && th[1] <= 1.0) return RC__CT_EA_EB;
    /* parallel, or a line-line closest point outside a segment: one closest point is an endpoint */
    for (k = 0; k < 4; ++k) {
        double d2;
        int c = rc__ct_pe_case(X, cs[k][0], cs[k][1], cs[k][2], &d2);
        if (d2 < best) { best = d2; type = ct[k][c == 2 ? 0 : 1 + c]; }
    }
    return type;
}

/* ---- typed and classified distances. grad/hess may be NULL. ---- */
static RC__UNUSED double rc__ct_point_point_d2(const double p[3], const double q[3], double grad[6], double hess[36])
{
    const double *X[4];
    double th[2];
    rc__ct_aff A;
    X[0] = p; X[1] = q; X[2] = X[3] = p;
    rc__ct_aff_pp(&A, 0, 1);
    return rc__ct_aff_eval(&A, X, 2, th, NULL, grad, hess, NULL);
}

static RC__UNUSED double rc__ct_point_edge_d2_typed(const double p[3], const double e0[3], const double e1[3],
                                                    int type, double w[3], double grad[9], double hess[81])
{
    const double *X[4];
    double th[2];
    rc__ct_aff A;
    X[0] = p; X[1] = e0; X[2] = e1; X[3] = p;
    if (type == RC__CT_PE_V0) rc__ct_aff_pp(&A, 0, 1);
    else if (type == RC__CT_PE_V1) rc__ct_aff_pp(&A, 0, 2);
    else rc__ct_aff_pe(&A, 0, 1, 2);
    return rc__ct_aff_eval(&A, X, 3, th, w, grad, hess, NULL);
}
static RC__UNUSED double rc__ct_point_edge_d2(const double p[3], const double e0[3], const double e1[3], int *type,
                                              double grad[9], double hess[81])
{
    int t = rc__ct_point_edge_type(p, e0, e1);
    if (type) *type = t;
    return rc__ct_point_edge_d2_typed(p, e0, e1, t, NULL, grad, hess);
}

/* w (optional, 4): closest-vector weights, r = w0 p + w1 t0 + w2 t1 + w3 t2 = p - closest point */
static RC__UNUSED double rc__ct_point_triangle_d2_typed(const double p[3], const double t0[3], const double t1[3],
                                                        const double t2[3], int type, double w[4],
                                                        double grad[12], double hess[144])
{
    const double *X[4];
    double th[2];
    rc__ct_aff A;
    X[0] = p; X[1] = t0; X[2] = t1; X[3] = t2;
    rc__ct_pt_aff(&A, type);
    return rc__ct_aff_eval(&A, X, 4, th, w, grad, hess, NULL);
}
static RC__UNUSED double rc__ct_point_triangle_d2(const double p[3], const double t0[3], const double t1[3],
                                                  const double t2[3], int *type, double grad[12], double hess[144])
{
    int t = rc__ct_point_triangle_type(p, t0, t1, t2);
    if (type) *type = t;
    return rc__ct_point_triangle_d2_typed(p, t0, t1, t2, t, NULL, grad, hess);
}

/* w (optional, 4): r = sum w_i x_i = (closest point on a) - (closest point on b) */
static RC__UNUSED double rc__ct_edge_edge_d2_typed(const double ea0[3], const double ea1[3], const double eb0[3],
                                                   const double eb1[3], int type, double w[4],
                                                   double grad[12], double hess[144])
{
    const double *X[4];
    double th[2], d2;
    rc__ct_aff A;
    X[0] = ea0; X[1] = ea1; X[2] = eb0; X[3] = eb1;
    rc__ct_ee_aff(&A, type);
    /* every family is written with r = (point on a) - (point on b) */
    d2 = rc__ct_aff_eval(&A, X, 4, th, w, grad, hess, NULL);
    return d2;
}
static RC__UNUSED double rc__ct_edge_edge_d2(const double ea0[3], const double ea1[3], const double eb0[3],
                                             const double eb1[3], int *type, double grad[12], double hess[144])
{
    int t = rc__ct_edge_edge_type(ea0, ea1, eb0, eb1);
    if (type) *type = t;
    return rc__ct_edge_edge_d2_typed(ea0, ea1, eb0, eb1, t, NULL, grad, hess);
}

/* ---- edge-edge mollifier (IPC): c = |ea x eb|^2 with ea = ea1 - ea0, eb = eb1 - eb0,
   m(c) = (2 - c/eps_x)(c/eps_x) for c < eps_x, 1 otherwise (C^1 at c = eps_x), with
   eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2. It multiplies the edge-edge barrier so that the energy
   and its gradient vanish smoothly as the edges become parallel (where the EA_EB distance type's
   Hessian is discontinuous). */
static RC__UNUSED double rc__ct_ee_mollifier_eps(const double ra0[3], const double ra1[3], const double rb0[3],
                                                 const double rb1[3])
{
    double u[3], v[3];
    rc__sub3(u, ra1, ra0);
    rc__sub3(v, rb1, rb0);
    return 1e-3 * rc__dot3(u, u) * rc__dot3(v, v);
}

/* Value m, gradient (12) and Hessian (144) w.r.t. (ea0, ea1, eb0, eb1); grad/hess may be NULL. */
static RC__UNUSED double rc__ct_ee_mollifier(const double ea0[3], const double ea1[3], const double eb0[3],
                                             const double eb1[3], double eps_x, double grad[12], double hess[144])
{
    double u[3], v[3], uu, vv, uv, c, m, m1, m2, gu[3], gv[3], Huu[9], Hvv[9], Huv[9];
    static const double sg[2] = {-1.0, 1.0};
    int i, j, a, b;
    rc__sub3(u, ea1, ea0);
    rc__sub3(v, eb1, eb0);
    uu = rc__dot3(u, u); vv = rc__dot3(v, v); uv = rc__dot3(u, v);
    c = uu * vv - uv * uv;   /* = |u x v|^2 */
    if (!(eps_x > 0.0) || c >= eps_x) {
        if (grad) for (i = 0; i < 12; ++i) grad[i] = 0.0;
        if (hess) for (i = 0; i < 144; ++i) hess[i] = 0.0;
        return 1.0;
    }
    m = (2.0 - c / eps_x) * (c / eps_x);
    m1 = 2.0 / eps_x - 2.0 * c / (eps_x * eps_x);
    m2 = -2.0 / (eps_x * eps_x);
    /* dc/du = 2 vv u - 2 uv v, dc/dv = 2 uu v - 2 uv u */
    for (i = 0; i < 3; ++i) { gu[i] = 2.0 * vv * u[i] - 2.0 * uv * v[i]; gv[i] = 2.0 * uu * v[i] - 2.0 * uv * u[i]; }
    if (grad)
        for (i = 0; i < 3; ++i) {
            grad[i] = -m1 * gu[i]; grad[3 + i] = m1 * gu[i];
            grad[6 + i] = -m1 * gv[i]; grad[9 + i] = m1 * gv[i];
        }
    if (hess) {
        /* d2c/du2 = 2 vv I - 2 v v^T, d2c/dv2 = 2 uu I - 2 u u^T, d2c/dudv = 4 u v^T - 2 v u^T - 2 uv I */
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) {
                double id = (i == j) ? 1.0 : 0.0;
                Huu[i * 3 + j] = m1 * (2.0 * vv * id - 2.0 * v[i] * v[j]) + m2 * gu[i] * gu[j];
                Hvv[i * 3 + j] = m1 * (2.0 * uu * id - 2.0 * u[i] * u[j]) + m2 * gv[i] * gv[j];
                Huv[i * 3 + j] = m1 * (4.0 * u[i] * v[j] - 2.0 * v[i] * u[j] - 2.0 * uv * id) + m2 * gu[i] * gv[j];
            }
        for (a = 0; a < 2; ++a)
            for (b = 0; b < 2; ++b)
                for (i = 0; i < 3; ++i)
                    for (j = 0; j < 3; ++j) {
                        double s = sg[a] * sg[b];
                        hess[(3 * a + i) * 12 + 3 * b + j] = s * Huu[i * 3 + j];
                        hess[(6 + 3 * a + i) * 12 + 6 + 3 * b + j] = s * Hvv[i * 3 + j];
                        hess[(3 * a + i) * 12 + 6 + 3 * b + j] = s * Huv[i * 3 + j];
                        hess[(6 + 3 * b + j) * 12 + 3 * a + i] = s * Huv[i * 3 + j];
                    }
    }
    return m;
}

/* PSD projection of a symmetric n x n (n <= 12) matrix of low rank. A barrier Hessian
   kappa (b'' g g^T + b' Hd) has rank <= 5 (Hd = 2 C^T C - B (2G)^-1 B^T: 3 + np columns), so the
   12 x 12 Jacobi sweep of the generic projection (~45 us) is mostly wasted. Here an orthonormal
   basis Q of range(H) is built by Gram-Schmidt with column pivoting on H's own columns
   (re-orthogonalised once; columns whose residual is below 1e-10 of the largest column norm are
   dropped: that is the relative size of what is discarded), the k x k matrix Q^T H Q is
   eigen-decomposed and H = Q V clamp(L) V^T Q^T. Equal to the full projection up to that
   tolerance; for a full-rank H it degrades gracefully to the same cost. mode: RC__PROJECT_CLAMP
   or RC__PROJECT_ABS. Returns 1 if H was changed. */
static RC__UNUSED int rc__ct_psd_project_lowrank(int n, double *H, int mode)
{
    double R[144], Q[144], T[144], S[144], V[144], lam[12], nrm[12], tol2 = 0.0;
    int used[12], k = 0, i, j, l, m, neg = 0;
    if (n < 1 || n > 12) return 0;
    memcpy(R, H, sizeof(double) * (size_t)(n * n));   /* residual columns R[:, j] */
    for (j = 0; j < n; ++j) {
        double s = 0.0;
        for (i = 0; i < n; ++i) s += R[i * n + j] * R[i * n + j];
        nrm[j] = s;
        used[j] = 0;
        if (s > tol2) tol2 = s;
    }
    tol2 *= 1e-20;
    while (k < n) {
        int jb = -1;
        double best = tol2, s;
        for (j = 0; j < n; ++j)
            if (!used[j] && nrm[j] > best) { best = nrm[j]; jb = j; }
        if (jb < 0) break;
        used[jb] = 1;
        for (i = 0; i < n; ++i) Q[i * n + k] = R[i * n + jb];
        for (l = 0; l < k; ++l) {   /* second orthogonalisation pass against the basis so far */
            double c = 0.0;
            for (i = 0; i < n; ++i) c += Q[i * n + l] * Q[i * n + k];
            for (i = 0; i < n; ++i) Q[i * n + k] -= c * Q[i * n + l];
        }
        s = 0.0;
        for (i = 0; i < n; ++i) s += Q[i * n + k] * Q[i * n + k];
        if (!(s > tol2)) continue;
        s = 1.0 / sqrt(s);
        for (i = 0; i < n; ++i) Q[i * n + k] *= s;
        for (j = 0; j < n; ++j) {   /* remove the new direction from every remaining column */
            double c = 0.0, r2 = 0.0;
            if (used[j]) continue;
            for (i = 0; i < n; ++i) c += Q[i * n + k] * R[i * n + j];
            for (i = 0; i < n; ++i) { R[i * n + j] -= c * Q[i * n + k]; r2 += R[i * n + j] * R[i * n + j]; }
            nrm[j] = r2;
        }
        ++k;
    }
    if (k == 0) return 0;
    for (i = 0; i < n; ++i)          /* T = H Q (n x k) */
        for (m = 0; m < k; ++m) {
            double s = 0.0;
            for (j = 0; j < n; ++j) s += H[i * n + j] * Q[j * n + m];
            T[i * k + m] = s;
        }
    for (l = 0; l < k; ++l)          /* S = Q^T T (k x k), symmetrised */
        for (m = 0; m < k; ++m) {
            double s = 0.0;
            for (i = 0; i < n; ++i) s += Q[i * n + l] * T[i * k + m];
            S[l * k + m] = s;
        }
    for (l = 0; l < k; ++l)
        for (m = l + 1; m < k; ++m) S[l * k + m] = S[m * k + l] = 0.5 * (S[l * k + m] + S[m * k + l]);
    rc__sym_eig(k, S, lam, V);
    for (m = 0; m < k; ++m)
        if (lam[m] < 0.0) { neg = 1; lam[m] = (mode == RC__PROJECT_ABS) ? -lam[m] : 0.0; }
    if (!neg) return 0;
    for (i = 0; i < n; ++i)          /* W = Q V, stored in T */
        for (m = 0; m < k; ++m) {
            double s = 0.0;
            for (l = 0; l < k; ++l) s += Q[i * n + l] * V[l * k + m];
            T[i * k + m] = s;
        }
    for (i = 0; i < n; ++i)
        for (j = i; j < n; ++j) {
            double s = 0.0;
            for (m = 0; m < k; ++m) s += T[i * k + m] * lam[m] * T[j * k + m];
            H[i * n + j] = H[j * n + i] = s;
        }
    return 1;
}

/* ---- barrier composed with a squared distance, for a stencil of n <= 12 DOFs:
       E = kappa m(x) b(d2(x)),
       grad = kappa (m b' g + b gm),
       H = kappa (m (b'' g g^T + b' Hd) + b' (g gm^T + gm g^T) + b Hm)
   where g, Hd are the gradient/Hessian of d2 and m, gm, Hm the mollifier's (gm == NULL: m = 1).
   project: -1 leaves H as is, else RC__PROJECT_CLAMP or RC__PROJECT_ABS. grad/hess may be NULL.
   Returns E (0 outside the band, +inf at s <= 0 with grad/hess left zero). */
static RC__UNUSED double rc__ct_barrier_local(int n, double d2, const double *g, const double *Hd, double xi,
                                              double dhat, double kappa, double m, const double *gm,
                                              const double *Hm, int project, double *grad, double *hess)
{
    double b, b1, b2;
    int i, j;
    if (grad) for (i = 0; i < n; ++i) grad[i] = 0.0;
    if (hess) for (i = 0; i < n * n; ++i) hess[i] = 0.0;
    if (n < 1 || n > 12) return 0.0 * HUGE_VAL;
    b = rc_barrier(d2, xi, dhat, &b1, &b2);
    if (!gm) m = 1.0;
    if (b == 0.0 || !rc__isfinite(b)) return b == 0.0 ? 0.0 : b;
    if (grad)
        for (i = 0; i < n; ++i) grad[i] = kappa * (m * b1 * g[i] + (gm ? b * gm[i] : 0.0));
    if (hess) {
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                double h = m * (b2 * g[i] * g[j] + b1 * Hd[i * n + j]);
                if (gm) h += b1 * (g[i] * gm[j] + gm[i] * g[j]) + b * Hm[i * n + j];
                hess[i * n + j] = kappa * h;
            }
        if (project >= 0) rc__ct_psd_project_lowrank(n, hess, project);
    }
    return kappa * m * b;
}

/* Whole-pair barrier energies (classify, distance, compose, project), the form the simulator
   assembles. DOF orders as above; project as in rc__ct_barrier_local; grad/hess may be NULL.
   *type (optional) receives the distance type, *d2_out (optional) the squared distance. */
static RC__UNUSED double rc__ct_pt_barrier(const double p[3], const double t0[3], const double t1[3], const double t2[3],
                                           double xi, double dhat, double kappa, int project, int *type,
                                           double *d2_out, double grad[12], double hess[144])
{
    double g[12], H[144], d2 = rc__ct_point_triangle_d2(p, t0, t1, t2, type, g, hess ? H : NULL);
    if (d2_out) *d2_out = d2;
    return rc__ct_barrier_local(12, d2, g, H, xi, dhat, kappa, 1.0, NULL, NULL, project, grad, hess);
}
/* Edge-edge with the mollifier; eps_x from rc__ct_ee_mollifier_eps on the rest positions. */
static RC__UNUSED double rc__ct_ee_barrier(const double ea0[3], const double ea1[3], const double eb0[3],
                                           const double eb1[3], double eps_x, double xi, double dhat, double kappa,
                                           int project, int *type, double *d2_out, double grad[12], double hess[144])
{
    double g[12], H[144], gm[12], Hm[144], m, d2 = rc__ct_edge_edge_d2(ea0, ea1, eb0, eb1, type, g, hess ? H : NULL);
    if (d2_out) *d2_out = d2;
    m = rc__ct_ee_mollifier(ea0, ea1, eb0, eb1, eps_x, gm, hess ? Hm : NULL);
    return rc__ct_barrier_local(12, d2, g, H, xi, dhat, kappa, m, gm, Hm, project, grad, hess);
}
/* Lagged normal force magnitude of a barrier pair for IPC friction: lambda = |dE/dd| =
   kappa m |b'(s)| 2 d (m = mollifier value, 1 for non-edge-edge pairs). */
static RC__UNUSED double rc__ct_normal_force(double d2, double xi, double dhat, double kappa, double m)
{
    double b1;
    if (!(d2 > 0.0)) return 0.0;
    (void)rc_barrier(d2, xi, dhat, &b1, NULL);
    if (!rc__isfinite(b1)) return HUGE_VAL;
    return kappa * m * (-b1) * 2.0 * sqrt(d2);
}

/* ---------------------------------------------------------------- analytic obstacles
   Signed distance d (outside positive), gradient (outward unit normal) and Hessian of d w.r.t.
   the query point x. Shapes:
     PLANE   p (a point on it), n (normal, need not be unit): d = n.(x - p)/|n|
     SPHERE  p (center), r:  d = |x - p| - r
     BOX     p (center), half[3] (half extents), R (row-major 3x3, columns = the box axes in world:
             x = p + R y): outside, d = |y - clamp(y, -half, half)| (Euclidean distance to the
             surface; its Hessian (P - g g^T)/d, P the projector on the clamped axes, is zero on
             face regions and jumps at edge/corner regions); inside, d = max_i (|y_i| - half_i) < 0
             (exact distance to the nearest face, Hessian 0)
     CAPSULE a, b (segment), r: d = |x - closest(x, [a,b])| - r
   Every d is a convex function of x (signed distance of a convex set), which CCD relies on. */
enum { RC__CT_SHAPE_PLANE = 0, RC__CT_SHAPE_SPHERE, RC__CT_SHAPE_BOX, RC__CT_SHAPE_CAPSULE };

typedef struct rc__ct_shape {
    int kind;
    double p[3], n[3], r, half[3], a[3], b[3], R[9];
} rc__ct_shape;

/* d = |v| - r with v = x - q(x), where q is the closest point of a set whose Hessian of |v| is
   (P - g g^T)/|v|, P the projector on the directions in which q does not move with x. */
static RC__UNUSED void rc__ct_sdf_radial(const double v[3], const double P[9], double r, double *d, double grad[3],
                                         double hess[9])
{
    double rho = rc__norm3(v), g[3];
    int i, j;
    if (rho > 0.0) rc__scale3(g, 1.0 / rho, v);
    else { g[0] = 0.0; g[1] = 0.0; g[2] = 1.0; }   /* at the center/axis: any direction */
    *d = rho - r;
    if (grad) { grad[0] = g[0]; grad[1] = g[1]; grad[2] = g[2]; }
    if (hess)
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) hess[i * 3 + j] = rho > 0.0 ? (P[i * 3 + j] - g[i] * g[j]) / rho : 0.0;
}

/* Returns 1, or 0 for an unknown kind or a degenerate shape (zero plane normal, non-finite data). */
static RC__UNUSED int rc__ct_shape_sdf(const rc__ct_shape *s, const double x[3], double *d, double grad[3],
                                       double hess[9])
{
    double v[3], P[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    int i, j;
    switch (s->kind) {
    case RC__CT_SHAPE_PLANE: {
        double nn = rc__norm3(s->n);
        if (!(nn > 0.0)) return 0;
        rc__sub3(v, x, s->p);
        *d = rc__dot3(s->n, v) / nn;
        if (grad) rc__scale3(grad, 1.0 / nn, s->n);
        if (hess) for (i = 0; i < 9; ++i) hess[i] = 0.0;
        return 1;
    }
    case RC__CT_SHAPE_SPHERE:
        rc__sub3(v, x, s->p);
        rc__ct_sdf_radial(v, P, s->r, d, grad, hess);
        return 1;
    case RC__CT_SHAPE_CAPSULE: {
        double ax[3], aa, t;
        rc__sub3(ax, s->b, s->a);
        rc__sub3(v, x, s->a);
        aa = rc__dot3(ax, ax);
        t = aa > 0.0 ? rc__dot3(v, ax) / aa : 0.0;
        if (t > 0.0 && t < 1.0) {
            rc__axpy3(v, -t, ax);   /* the closest point slides along the axis: P = I - ax ax^T/aa */
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 3; ++j) P[i * 3 + j] -= ax[i] * ax[j] / aa;
        } else if (t >= 1.0) {
            rc__sub3(v, x, s->b);
        }
        rc__ct_sdf_radial(v, P, s->r, d, grad, hess);
        return 1;
    }
    case RC__CT_SHAPE_BOX: {
        double y[3], q[3], gl[3], Hl[9], Pl[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        int outside = 0;
        rc__sub3(v, x, s->p);
        for (i = 0; i < 3; ++i) y[i] = s->R[0 * 3 + i] * v[0] + s->R[1 * 3 + i] * v[1] + s->R[2 * 3 + i] * v[2];
        for (i = 0; i < 3; ++i) {
            q[i] = y[i];
            if (y[i] > s->half[i]) { q[i] = s->half[i]; outside = 1; Pl[i * 4] = 1.0; }
            else if (y[i] < -s->half[i]) { q[i] = -s->half[i]; outside = 1; Pl[i * 4] = 1.0; }
        }
        if (outside) {
            double w[3];
            rc__sub3(w, y, q);
            rc__ct_sdf_radial(w, Pl, 0.0, d, gl, Hl);
        } else {
            int k = 0;
            double best = -HUGE_VAL;
            for (i = 0; i < 3; ++i) {
                double di = fabs(y[i]) - s->half[i];
                if (di > best) { best = di; k = i; }
            }
            *d = best;
            gl[0] = gl[1] = gl[2] = 0.0;
            gl[k] = y[k] >= 0.0 ? 1.0 : -1.0;
            for (i = 0; i < 9; ++i) Hl[i] = 0.0;
        }
        /* back to world: grad = R gl, hess = R Hl R^T */
        if (grad)
            for (i = 0; i < 3; ++i) grad[i] = s->R[i * 3 + 0] * gl[0] + s->R[i * 3 + 1] * gl[1] + s->R[i * 3 + 2] * gl[2];
        if (hess)
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 3; ++j) {
                    double acc = 0.0;
                    int k, l;
                    for (k = 0; k < 3; ++k)
                        for (l = 0; l < 3; ++l) acc += s->R[i * 3 + k] * Hl[k * 3 + l] * s->R[j * 3 + l];
                    hess[i * 3 + j] = acc;
                }
        return 1;
    }
    default:
        return 0;
    }
}

/* Squared distance for the barrier: returns sign(d) d^2 (negative inside, so the barrier is +inf
   there), with grad = 2 d gd and hess = 2 (gd gd^T + d Hd). *d_out (optional) gets d. */
static RC__UNUSED double rc__ct_shape_d2(const rc__ct_shape *s, const double x[3], double *d_out, double grad[3],
                                         double hess[9])
{
    double d, g[3], H[9];
    int i, j;
    if (!rc__ct_shape_sdf(s, x, &d, g, H)) { if (d_out) *d_out = 0.0 * HUGE_VAL; return 0.0 * HUGE_VAL; }
    if (d_out) *d_out = d;
    if (grad) for (i = 0; i < 3; ++i) grad[i] = 2.0 * d * g[i];
    if (hess)
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) hess[i * 3 + j] = 2.0 * (g[i] * g[j] + d * H[i * 3 + j]);
    return d >= 0.0 ? d * d : -d * d;
}

/* Vertex against an analytic shape (3 DOFs); inside the shape the energy is +inf. */
static RC__UNUSED double rc__ct_shape_barrier(const rc__ct_shape *s, const double x[3], double xi, double dhat,
                                              double kappa, int project, double *d_out, double grad[3],
                                              double hess[9])
{
    double g[3], H[9], d2 = rc__ct_shape_d2(s, x, d_out, g, H);
    return rc__ct_barrier_local(3, d2, g, H, xi, dhat, kappa, 1.0, NULL, NULL, project, grad, hess);
}

/* ---------------------------------------------------------------- CCD
   Additive CCD (Li et al. 2021, "Codimensional IPC", conservative advancement). Trajectories are
   linear, x(t) = x0 + t dx, t in [0, tmax]. With the common mean displacement removed (it does
   not change distances), l = max_{k in A} |dx_k| + max_{k in B} |dx_k| bounds how fast the
   distance between primitives A and B can shrink, so advancing by tau <= gap / l cannot skip a
   contact. Safety margins (ours):
     - the target is gap(t) >= RC__CT_CCD_KEEP * gap(0), gap = d - xi: we keep 10% of the initial
       gap, so the next Newton iterate is never placed on the contact surface itself;
     - the first advancement is (1 - KEEP) gap0 / l (guaranteed to respect the target), later ones
       RC__CT_CCD_RESCALE (0.9) * gap / l, so every intermediate configuration keeps >= 10% of its
       own gap; an advancement that would end below the target is not taken.
   Hence: the returned t is never past the first time the distance reaches xi (and the distance
   stays > xi on [0, t]); t > 0 whenever gap(0) > 0; t = tmax when nothing gets within the target.
   Each advancement is at least 0.09 gap0 / l, so at most ~ l tmax / (0.09 gap0) iterations are
   needed (e.g. 1100 for a pair sliding 1e-2 per iterate at a 1e-5 gap); the count is capped
   (RC__CT_CCD_MAXIT = 1e5, ~10 ms); at the cap the safe t reached so far is returned.
   Non-finite input returns 0. */
#define RC__CT_CCD_KEEP 0.1
#define RC__CT_CCD_RESCALE 0.9
#define RC__CT_CCD_MAXIT 100000

static RC__UNUSED double rc__ct_ccd_dist(int ee, const double *X[4])
{
    double d2 = ee ? rc__ct_edge_edge_d2(X[0], X[1], X[2], X[3], NULL, NULL, NULL)
                   : rc__ct_point_triangle_d2(X[0], X[1], X[2], X[3], NULL, NULL, NULL);
    return sqrt(d2);
}

static RC__UNUSED double rc__ct_accd(int ee, const double *x0[4], const double *dx[4], double xi, double tmax)
{
    double v[4][3], mean[3] = {0, 0, 0}, xt[4][3], la = 0.0, lb = 0.0, l, gap0, gap, target, t = 0.0;
    const double *X[4];
    int k, it, na = ee ? 2 : 1;
    if (!(tmax > 0.0)) return 0.0;
    for (k = 0; k < 4; ++k)   /* non-finite input: no step is provably safe */
        if (!rc__all_finite(x0[k], 3) || !rc__all_finite(dx[k], 3)) return 0.0;
    for (k = 0; k < 4; ++k) rc__axpy3(mean, 0.25, dx[k]);
    for (k = 0; k < 4; ++k) {
        double s;
        rc__sub3(v[k], dx[k], mean);
        s = rc__norm3(v[k]);
        if (k < na) { if (s > la) la = s; }
        else if (s > lb) lb = s;
        X[k] = xt[k];
    }
    l = la + lb;
    gap0 = rc__ct_ccd_dist(ee, x0) - xi;
    if (!(gap0 > 0.0)) return 0.0;
    if (!(l > 0.0)) return tmax;
    target = RC__CT_CCD_KEEP * gap0;
    gap = gap0;
    for (it = 0; it < RC__CT_CCD_MAXIT; ++it) {
        double tau = (it == 0 ? (1.0 - RC__CT_CCD_KEEP) * gap0 : RC__CT_CCD_RESCALE * gap) / l;
        double tn = t + tau, gn;
        if (tn > tmax) tn = tmax;
        for (k = 0; k < 4; ++k) {
            xt[k][0] = x0[k][0] + tn * v[k][0];
            xt[k][1] = x0[k][1] + tn * v[k][1];
            xt[k][2] = x0[k][2] + tn * v[k][2];
        }
        gn = rc__ct_ccd_dist(ee, X) - xi;
        if (it > 0 && !(gn >= target)) return t;
        t = tn;
        gap = gn;
        if (t >= tmax) return tmax;
    }
    return t;
}

/* Point p (moving by dp) against triangle (t0, t1, t2) moving by (dt0, dt1, dt2). */
static RC__UNUSED double rc__ct_ccd_point_triangle(const double p0[3], const double t00[3], const double t10[3],
                                                   const double t20[3], const double dp[3], const double dt0[3],
                                                   const double dt1[3], const double dt2[3], double xi, double tmax)
{
    const double *x0[4], *dx[4];
    x0[0] = p0; x0[1] = t00; x0[2] = t10; x0[3] = t20;
    dx[0] = dp; dx[1] = dt0; dx[2] = dt1; dx[3] = dt2;
    return rc__ct_accd(0, x0, dx, xi, tmax);
}

/* Edge (ea0, ea1) moving by (dea0, dea1) against edge (eb0, eb1) moving by (deb0, deb1). */
static RC__UNUSED double rc__ct_ccd_edge_edge(const double ea0[3], const double ea1[3], const double eb0[3],
                                              const double eb1[3], const double dea0[3], const double dea1[3],
                                              const double deb0[3], const double deb1[3], double xi, double tmax)
{
    const double *x0[4], *dx[4];
    x0[0] = ea0; x0[1] = ea1; x0[2] = eb0; x0[3] = eb1;
    dx[0] = dea0; dx[1] = dea1; dx[2] = deb0; dx[3] = deb1;
    return rc__ct_accd(1, x0, dx, xi, tmax);
}

/* Moving point x0 + t dx against a static analytic shape inflated by xi. f(t) = d(x(t)) is convex
   (d is the signed distance of a convex set, x(t) affine), so Newton on f(t) = target started at
   t = 0 approaches the first root monotonically from below (a convex function lies above its
   tangents): every iterate is safe, and the limit is the exact first crossing. Same margin as
   ACCD: target = xi + KEEP (d0 - xi). f is C^1 outside the shape (distance to a convex set), which
   is where the target lies. Returns tmax when f stops decreasing above the target (no contact),
   0 when the start is not separated by more than xi and the point moves inward (f'(0) < 0),
   tmax when it moves outward. Stops when within 1e-3 of the target band or after 100 Newton
   steps (linear convergence only for exactly grazing motion); the iterate is safe either way. */
static RC__UNUSED double rc__ct_ccd_point_shape(const rc__ct_shape *s, const double x0[3], const double dx[3],
                                                double xi, double tmax)
{
    double d, g[3], x[3], t = 0.0, gap0, target, f, fp;
    int it;
    if (!(tmax > 0.0) || !rc__all_finite(x0, 3) || !rc__all_finite(dx, 3)) return 0.0;
    if (!rc__ct_shape_sdf(s, x0, &d, g, NULL) || !rc__isfinite(d)) return 0.0;
    fp = rc__dot3(g, dx);
    gap0 = d - xi;
    if (!(gap0 > 0.0)) return fp < 0.0 ? 0.0 : tmax;
    target = xi + RC__CT_CCD_KEEP * gap0;
    f = d - target;
    for (it = 0; it < 100; ++it) {
        double tn;
        if (!(fp < 0.0)) return tmax;           /* convex and non-decreasing: never reaches the target */
        tn = t - f / fp;
        if (!(tn < tmax)) return tmax;
        t = tn;
        x[0] = x0[0] + t * dx[0]; x[1] = x0[1] + t * dx[1]; x[2] = x0[2] + t * dx[2];
        rc__ct_shape_sdf(s, x, &d, g, NULL);
        fp = rc__dot3(g, dx);
        f = d - target;
        if (f <= 1e-3 * gap0) break;
    }
    return t;
}

/* ---------------------------------------------------------------- friction
   IPC lagged friction with the C^1 smoothed Coulomb mollifier, eps = eps_v * h (m):
     f0(y) = -y^3/(3 eps^2) + y^2/eps + eps/3   (y < eps),   y   (y >= eps)
     f1(y) = f0'(y) = 2y/eps - y^2/eps^2        (y < eps),   1   (y >= eps)
   with y = |T^T dx| the tangential relative displacement of the step. The friction potential of a
   stencil is D = mu lambda f0(|u|), u = P^T sum_k w_k dx_k (2-vector), where lambda is the
   lagged normal force, w the lagged closest-point weights (relative displacement = sum w_k dx_k)
   and P (3x2, row-major) an orthonormal basis of the lagged tangent plane. */
static RC__UNUSED double rc__ct_f0(double y, double eps)
{
    if (y >= eps) return y;
    return -y * y * y / (3.0 * eps * eps) + y * y / eps + eps / 3.0;
}
static RC__UNUSED double rc__ct_f1(double y, double eps)
{
    if (y >= eps) return 1.0;
    return 2.0 * y / eps - y * y / (eps * eps);
}
/* f1(y)/y, finite at y = 0 (2/eps) */
static RC__UNUSED double rc__ct_f1_over_y(double y, double eps)
{
    if (y >= eps) return 1.0 / y;
    return 2.0 / eps - y / (eps * eps);
}
/* f1'(y) = f0''(y) >= 0 */
static RC__UNUSED double rc__ct_f1_dy(double y, double eps)
{
    if (y >= eps) return 0.0;
    return 2.0 / eps - 2.0 * y / (eps * eps);
}

/* Orthonormal basis P (3x2 row-major, columns t1, t2) of the plane orthogonal to n (any length > 0;
   a zero n gives the xy plane). */
static RC__UNUSED void rc__ct_basis_from_normal(const double n_in[3], double P[6])
{
    double n[3], a[3] = {0, 0, 0}, t1[3], t2[3], nn = rc__norm3(n_in), s;
    int k = 0;
    if (nn > 0.0) rc__scale3(n, 1.0 / nn, n_in);
    else { n[0] = 0.0; n[1] = 0.0; n[2] = 1.0; }
    /* the axis least aligned with n gives a well-conditioned first tangent */
    if (fabs(n[1]) < fabs(n[k])) k = 1;
    if (fabs(n[2]) < fabs(n[k])) k = 2;
    a[k] = 1.0;
    rc__cross3(t1, n, a);
    s = rc__norm3(t1);
    rc__scale3(t1, 1.0 / s, t1);
    rc__cross3(t2, n, t1);
    P[0] = t1[0]; P[1] = t2[0];
    P[2] = t1[1]; P[3] = t2[1];
    P[4] = t1[2]; P[5] = t2[2];
}

/* Tangent data from the lagged configuration: weights w (relative displacement = sum w_k dx_k,
   the closest-vector weights of the distance type) and P orthogonal to the closest vector.
   The in-plane rotation of P is arbitrary; |P^T v| does not depend on it (isotropic friction).
   When the closest vector vanishes (touching), the fall-back normal is the triangle normal or
   ea x eb, else the xy plane. Each returns the distance type. */
static RC__UNUSED int rc__ct_pp_tangent(const double p[3], const double q[3], double w[2], double P[6])
{
    double r[3];
    rc__sub3(r, p, q);
    w[0] = 1.0; w[1] = -1.0;
    rc__ct_basis_from_normal(r, P);
    return RC__CT_PP;
}
static RC__UNUSED int rc__ct_pe_tangent(const double p[3], const double e0[3], const double e1[3], double w[3],
                                        double P[6])
{
    int type = rc__ct_point_edge_type(p, e0, e1);
    double r[3];
    (void)rc__ct_point_edge_d2_typed(p, e0, e1, type, w, NULL, NULL);
    r[0] = w[0] * p[0] + w[1] * e0[0] + w[2] * e1[0];
    r[1] = w[0] * p[1] + w[1] * e0[1] + w[2] * e1[1];
    r[2] = w[0] * p[2] + w[1] * e0[2] + w[2] * e1[2];
    rc__ct_basis_from_normal(r, P);
    return type;
}
static RC__UNUSED void rc__ct_combine4(double r[3], const double w[4], const double *a, const double *b,
                                       const double *c, const double *d)
{
    int i;
    for (i = 0; i < 3; ++i) r[i] = w[0] * a[i] + w[1] * b[i] + w[2] * c[i] + w[3] * d[i];
}
static RC__UNUSED int rc__ct_pt_tangent(const double p[3], const double t0[3], const double t1[3], const double t2[3],
                                        double w[4], double P[6])
{
    int type = rc__ct_point_triangle_type(p, t0, t1, t2);
    double r[3], u[3], v[3];
    (void)rc__ct_point_triangle_d2_typed(p, t0, t1, t2, type, w, NULL, NULL);
    rc__ct_combine4(r, w, p, t0, t1, t2);
    if (!(rc__dot3(r, r) > 0.0)) { rc__sub3(u, t1, t0); rc__sub3(v, t2, t0); rc__cross3(r, u, v); }
    rc__ct_basis_from_normal(r, P);
    return type;
}
static RC__UNUSED int rc__ct_ee_tangent(const double ea0[3], const double ea1[3], const double eb0[3],
                                        const double eb1[3], double w[4], double P[6])
{
    int type = rc__ct_edge_edge_type(ea0, ea1, eb0, eb1);
    double r[3], u[3], v[3];
    (void)rc__ct_edge_edge_d2_typed(ea0, ea1, eb0, eb1, type, w, NULL, NULL);
    rc__ct_combine4(r, w, ea0, ea1, eb0, eb1);
    if (!(rc__dot3(r, r) > 0.0)) { rc__sub3(u, ea1, ea0); rc__sub3(v, eb1, eb0); rc__cross3(r, u, v); }
    rc__ct_basis_from_normal(r, P);
    return type;
}
/* Point vs analytic shape: tangent plane orthogonal to the SDF gradient; w = {1} (the caller passes
   the point's displacement relative to the shape's surface motion). Returns 0 for a bad shape. */
static RC__UNUSED int rc__ct_shape_tangent(const rc__ct_shape *s, const double x[3], double w[1], double P[6])
{
    double d, g[3];
    if (!rc__ct_shape_sdf(s, x, &d, g, NULL)) return 0;
    w[0] = 1.0;
    rc__ct_basis_from_normal(g, P);
    return 1;
}

/* Lagged friction potential of a stencil of nv (1..4) vertices: D = mu_lambda f0(|u|),
   u = P^T sum_k w_k dx_k, dx (3 nv) the step displacements (x - x^t at the material points).
   grad (3 nv) = mu_lambda w_k P (f1(y)/y) u;  Hessian blocks (k,l) = mu_lambda w_k w_l P M P^T with
   M = (f1/y)(I - uh uh^T) + f1'(y) uh uh^T: its eigenvalues f1/y >= 0 and f1' >= 0 make it PSD
   as is, and it is the exact Hessian of D wherever y != eps (no projection needed).
   grad/hess may be NULL. */
static RC__UNUSED double rc__ct_friction(int nv, const double *w, const double P[6], const double *dx,
                                         double mu_lambda, double eps, double *grad, double *hess)
{
    double rel[3] = {0, 0, 0}, u[2], y, M[4], PM[6], Q[9], f1y, f1p;
    int k, l, i, j, n = 3 * nv;
    for (k = 0; k < nv; ++k) rc__axpy3(rel, w[k], dx + 3 * k);
    u[0] = P[0] * rel[0] + P[2] * rel[1] + P[4] * rel[2];
    u[1] = P[1] * rel[0] + P[3] * rel[1] + P[5] * rel[2];
    y = sqrt(u[0] * u[0] + u[1] * u[1]);
    f1y = rc__ct_f1_over_y(y, eps);
    if (grad) {
        double gt[3];
        for (i = 0; i < 3; ++i) gt[i] = mu_lambda * f1y * (P[2 * i] * u[0] + P[2 * i + 1] * u[1]);
        for (k = 0; k < nv; ++k)
            for (i = 0; i < 3; ++i) grad[3 * k + i] = w[k] * gt[i];
    }
    if (hess) {
        f1p = rc__ct_f1_dy(y, eps);
        if (y > 0.0) {
            double uh0 = u[0] / y, uh1 = u[1] / y;
            M[0] = f1y * (1.0 - uh0 * uh0) + f1p * uh0 * uh0;
            M[3] = f1y * (1.0 - uh1 * uh1) + f1p * uh1 * uh1;
            M[1] = M[2] = (f1p - f1y) * uh0 * uh1;
        } else {
            M[0] = M[3] = f1y;
            M[1] = M[2] = 0.0;
        }
        for (i = 0; i < 3; ++i) {
            PM[2 * i] = P[2 * i] * M[0] + P[2 * i + 1] * M[2];
            PM[2 * i + 1] = P[2 * i] * M[1] + P[2 * i + 1] * M[3];
        }
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) Q[i * 3 + j] = mu_lambda * (PM[2 * i] * P[2 * j] + PM[2 * i + 1] * P[2 * j + 1]);
        for (k = 0; k < nv; ++k)
            for (l = 0; l < nv; ++l)
                for (i = 0; i < 3; ++i)
                    for (j = 0; j < 3; ++j) hess[(3 * k + i) * n + 3 * l + j] = w[k] * w[l] * Q[i * 3 + j];
    }
    return mu_lambda * rc__ct_f0(y, eps);
}

/* ---------------------------------------------------------------- broad phase
   Uniform grid over axis-aligned boxes. The simulator builds one box per primitive (a point, an
   edge or a triangle swept over the step: rc__ct_aabb over its vertices at the start and the end
   of the step) and asks for the candidate pairs whose boxes, each grown by `inflate` on every
   side (d-hat + xi for the barrier, 0 for CCD after sweeping), overlap.
   Method: every box is entered in each grid cell it touches; entries are sorted by (cell, set,
   index); a pair is reported from a cell only if that cell is the lowest corner cell of the
   overlap of the two boxes' cell ranges, so no pair is reported twice and no dedup pass is
   needed. The cell size defaults to the mean box extent and is doubled while the entry count
   exceeds 32 per box (a few huge swept boxes cannot blow up the memory). Output: pairs (i, j)
   sorted by i then j; i indexes set A and j set B, or, for a self query (B == NULL), i < j both
   in A. Deterministic: depends only on the inputs. */

/* Box of nv points x (3 each), also swept by dx (NULL: static). */
static RC__UNUSED void rc__ct_aabb(int nv, const double **x, const double **dx, double lo[3],
                                   double hi[3])
{
    int k, i;
    for (i = 0; i < 3; ++i) { lo[i] = HUGE_VAL; hi[i] = -HUGE_VAL; }
    for (k = 0; k < nv; ++k)
        for (i = 0; i < 3; ++i) {
            double a = x[k][i], b = dx ? a + dx[k][i] : a;
            if (a < lo[i]) lo[i] = a;
            if (a > hi[i]) hi[i] = a;
            if (b < lo[i]) lo[i] = b;
            if (b > hi[i]) hi[i] = b;
        }
}

typedef struct rc__ct_bp_entry {
    unsigned long long key;
    int set, id;
    int c0[3];   /* the box's lowest cell */
} rc__ct_bp_entry;

static RC__UNUSED int rc__ct_bp_cmp(const void *pa, const void *pb)
{
    const rc__ct_bp_entry *a = (const rc__ct_bp_entry *)pa, *b = (const rc__ct_bp_entry *)pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->set != b->set) return a->set - b->set;
    return (a->id > b->id) - (a->id < b->id);
}
static RC__UNUSED int rc__ct_pair_cmp(const void *pa, const void *pb)
{
    const int *a = (const int *)pa, *b = (const int *)pb;
    if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* alo/ahi: na boxes (3 doubles each) of set A; blo/bhi: nb boxes of set B, or NULL for pairs
   within A. cell <= 0 chooses it. *pairs (2 ints per pair, allocated with rc__alloc(user, ...),
   free with rc__free(user, *pairs)); *npairs. Errors: RC_ERR_INVALID_ARGUMENT (NULL outputs,
   negative counts, NULL boxes with a positive count, inflate < 0), RC_ERR_NON_FINITE (a box
   coordinate or inflate not finite), RC_ERR_OUT_OF_MEMORY (nothing leaked; *pairs = NULL). */
static RC__UNUSED rc_status rc__ct_bp_pairs(void *user, int na, const double *alo, const double *ahi, int nb,
                                            const double *blo, const double *bhi, double inflate, double cell,
                                            int **pairs, int *npairs)
{
    double glo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, ghi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    rc__ct_bp_entry *ent = NULL;
    int *out = NULL;
    size_t nent = 0, cap = 0, nout = 0, i0;
    int self = (blo == NULL), nbox, s, b, i, dims[3];
    if (!pairs || !npairs) return RC_ERR_INVALID_ARGUMENT;
    *pairs = NULL; *npairs = 0;
    if (na < 0 || (!self && nb < 0) || (na > 0 && (!alo || !ahi)) || (!self && nb > 0 && !bhi) || !(inflate >= 0.0))
        return inflate != inflate ? RC_ERR_NON_FINITE : RC_ERR_INVALID_ARGUMENT;
    if (!rc__isfinite(inflate) || !rc__isfinite(cell)) return RC_ERR_NON_FINITE;
    if (self) nb = 0;
    nbox = na + nb;
    if (nbox == 0 || (!self && (na == 0 || nb == 0))) return RC_OK;
    for (s = 0; s < 2; ++s) {
        const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
        int n = s ? nb : na;
        if (!rc__all_finite(lo, (size_t)n * 3) || !rc__all_finite(hi, (size_t)n * 3)) return RC_ERR_NON_FINITE;
        for (b = 0; b < n; ++b)
            for (i = 0; i < 3; ++i) {
                double l = lo[3 * b + i] - inflate, h = hi[3 * b + i] + inflate;
                if (h < l) return RC_ERR_INVALID_ARGUMENT;
                if (l < glo[i]) glo[i] = l;
                if (h > ghi[i]) ghi[i] = h;
            }
    }
    if (!(cell > 0.0)) {
        double sum = 0.0;
        for (s = 0; s < 2; ++s) {
            const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
            int n = s ? nb : na;
            for (b = 0; b < n; ++b) {
                double m = 0.0;
                for (i = 0; i < 3; ++i) if (hi[3 * b + i] - lo[3 * b + i] + 2 * inflate > m) m = hi[3 * b + i] - lo[3 * b + i] + 2 * inflate;
                sum += m;
            }
        }
        cell = sum / nbox;
    }
    {   /* the grid must have at most ~2^20 cells per axis so keys fit in 64 bits; else grow cell */
        double span = 0.0;
        for (i = 0; i < 3; ++i) if (ghi[i] - glo[i] > span) span = ghi[i] - glo[i];
        if (!(cell > 0.0)) cell = span > 0.0 ? span : 1.0;
        while (span / cell > 1048576.0) cell *= 2.0;
    }
    for (;;) {   /* count entries at this cell size; double the cell while there are too many */
        double total = 0.0;
        for (s = 0; s < 2; ++s) {
            const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
            int n = s ? nb : na;
            for (b = 0; b < n; ++b) {
                double c = 1.0;
                for (i = 0; i < 3; ++i)
                    c *= floor((hi[3 * b + i] + inflate - glo[i]) / cell) - floor((lo[3 * b + i] - inflate - glo[i]) / cell) + 1.0;
                total += c;
            }
        }
        if (total <= 32.0 * nbox) { cap = (size_t)total; break; }
        cell *= 2.0;
    }
    for (i = 0; i < 3; ++i) dims[i] = (int)floor((ghi[i] - glo[i]) / cell) + 1;
    ent = (rc__ct_bp_entry *)rc__alloc(user, cap, sizeof(rc__ct_bp_entry));
    if (!ent) return RC_ERR_OUT_OF_MEMORY;
    for (s = 0; s < 2; ++s) {
        const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
        int n = s ? nb : na;
        for (b = 0; b < n; ++b) {
            int c0[3], c1[3], x, y, z;
            for (i = 0; i < 3; ++i) {
                c0[i] = (int)floor((lo[3 * b + i] - inflate - glo[i]) / cell);
                c1[i] = (int)floor((hi[3 * b + i] + inflate - glo[i]) / cell);
                if (c0[i] < 0) c0[i] = 0;
                if (c1[i] > dims[i] - 1) c1[i] = dims[i] - 1;
            }
            for (z = c0[2]; z <= c1[2]; ++z)
                for (y = c0[1]; y <= c1[1]; ++y)
                    for (x = c0[0]; x <= c1[0]; ++x) {
                        rc__ct_bp_entry *e;
                        if (nent >= cap) continue;   /* cannot happen: cap counted the same cells */
                        e = &ent[nent++];
                        e->key = (unsigned long long)x + (unsigned long long)dims[0] *
                                 ((unsigned long long)y + (unsigned long long)dims[1] * (unsigned long long)z);
                        e->set = s; e->id = b;
                        e->c0[0] = c0[0]; e->c0[1] = c0[1]; e->c0[2] = c0[2];
                    }
        }
    }
    qsort(ent, nent, sizeof(rc__ct_bp_entry), rc__ct_bp_cmp);
    cap = 0;
    for (i0 = 0; i0 < nent;) {
        size_t i1 = i0, p, q;
        unsigned long long key = ent[i0].key;
        int cx, cy, cz;
        while (i1 < nent && ent[i1].key == key) ++i1;
        cx = (int)(key % (unsigned long long)dims[0]);
        cy = (int)((key / (unsigned long long)dims[0]) % (unsigned long long)dims[1]);
        cz = (int)(key / ((unsigned long long)dims[0] * (unsigned long long)dims[1]));
        for (p = i0; p < i1; ++p) {
            if (ent[p].set != 0) break;
            for (q = p + 1; q < i1; ++q) {
                const rc__ct_bp_entry *ea = &ent[p], *eb = &ent[q];
                const double *l2, *h2;
                int ok = 1, d;
                if (!self && eb->set != 1) continue;
                /* report from the lowest shared cell only */
                if ((ea->c0[0] > eb->c0[0] ? ea->c0[0] : eb->c0[0]) != cx ||
                    (ea->c0[1] > eb->c0[1] ? ea->c0[1] : eb->c0[1]) != cy ||
                    (ea->c0[2] > eb->c0[2] ? ea->c0[2] : eb->c0[2]) != cz)
                    continue;
                l2 = self ? alo : blo; h2 = self ? ahi : bhi;
                for (d = 0; d < 3 && ok; ++d)
                    if (alo[3 * ea->id + d] - inflate > h2[3 * eb->id + d] + inflate ||
                        l2[3 * eb->id + d] - inflate > ahi[3 * ea->id + d] + inflate)
                        ok = 0;
                if (!ok) continue;
                if (nout >= cap) {
                    size_t nc = cap ? 2 * cap : 64;
                    int *no = (int *)rc__realloc(user, out, nc, 2 * sizeof(int));
                    if (!no) { rc__free(user, out); rc__free(user, ent); return RC_ERR_OUT_OF_MEMORY; }
                    out = no; cap = nc;
                }
                if (self && ea->id > eb->id) { out[2 * nout] = eb->id; out[2 * nout + 1] = ea->id; }
                else { out[2 * nout] = ea->id; out[2 * nout + 1] = eb->id; }
                ++nout;
            }
        }
        i0 = i1;
    }
    rc__free(user, ent);
    if (nout > 1) qsort(out, nout, 2 * sizeof(int), rc__ct_pair_cmp);
    *pairs = out;
    *npairs = (int)nout;
    return RC_OK;
}

#ifdef __cplusplus
}
#endif
