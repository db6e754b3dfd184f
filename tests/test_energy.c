#include "test.h"

/* ---------------------------------------------------------------------------------------------
   ENERGY tests. Finite-difference thresholds: centred differences with step hs on O(1) data have
   truncation error ~hs^2 |f'''| ~ 1e-10 (hs = 1e-5) and round-off ~1e-16 |f| / hs ~ 1e-11, both
   relative; the bar is 1e-6 relative (max-norm error / max-norm of the derivative) in
   well-conditioned cases. Near-degenerate or folded cases have third derivatives larger by the
   inverse sliver/fold scale, so their bar is stated where used.
   --------------------------------------------------------------------------------------------- */

/* ---- small meshes built here: a grid of (nx+1) x (ny+1) vertices on [x0,x0+Lx] x [y0,y0+Ly];
   diag 0: all cells split the same way, 1: alternating (checkerboard), 2: random per cell;
   jitter moves interior vertices by up to jitter * cell size (uniform). CCW triangles. */
typedef struct t_mesh {
    int nv, nt;
    int *tris;
    double *u;
} t_mesh;

static t_mesh t_grid(int nx, int ny, double x0, double y0, double Lx, double Ly, int diag, double jitter)
{
    t_mesh M;
    int i, j, t = 0;
    double hx = Lx / nx, hy = Ly / ny;
    M.nv = (nx + 1) * (ny + 1);
    M.nt = 2 * nx * ny;
    M.tris = (int *)malloc(sizeof(int) * 3 * (size_t)M.nt);
    M.u = (double *)malloc(sizeof(double) * 2 * (size_t)M.nv);
    for (j = 0; j <= ny; ++j)
        for (i = 0; i <= nx; ++i) {
            double dx = 0, dy = 0;
            if (i > 0 && i < nx && j > 0 && j < ny && jitter > 0) {
                dx = jitter * hx * (2 * t_rand() - 1);
                dy = jitter * hy * (2 * t_rand() - 1);
            }
            M.u[2 * (j * (nx + 1) + i)] = x0 + i * hx + dx;
            M.u[2 * (j * (nx + 1) + i) + 1] = y0 + j * hy + dy;
        }
    for (j = 0; j < ny; ++j)
        for (i = 0; i < nx; ++i) {
            int a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1, flip;
            flip = diag == 0 ? 0 : diag == 1 ? (i + j) & 1 : t_rand() < 0.5;
            if (!flip) {
                M.tris[3 * t] = a; M.tris[3 * t + 1] = b; M.tris[3 * t + 2] = d; ++t;
                M.tris[3 * t] = a; M.tris[3 * t + 1] = d; M.tris[3 * t + 2] = c; ++t;
            } else {
                M.tris[3 * t] = a; M.tris[3 * t + 1] = b; M.tris[3 * t + 2] = c; ++t;
                M.tris[3 * t] = b; M.tris[3 * t + 1] = d; M.tris[3 * t + 2] = c; ++t;
            }
        }
    return M;
}
static void t_mesh_free(t_mesh *M)
{
    free(M->tris);
    free(M->u);
}
static rc_trimesh t_tm(const t_mesh *M)
{
    rc_trimesh m;
    m.num_verts = M->nv;
    m.num_tris = M->nt;
    m.tris = M->tris;
    return m;
}

/* ---- generic finite-difference checker on f(q) -> (E, g, H) */
typedef double (*t_fn)(void *ctx, const double *q, double *g, double *H);

static double t_maxabs(const double *v, int n)
{
    double m = 0;
    int i;
    for (i = 0; i < n; ++i)
        if (fabs(v[i]) > m) m = fabs(v[i]);
    return m;
}
/* returns max relative errors of gradient (vs FD of E) and Hessian (vs FD of g) */
static void t_fd_check(t_fn f, void *ctx, const double *q0, int n, double hs, double *eg, double *eh)
{
    double q[64], g[64], H[64 * 64], gp[64], gm[64], gfd[64], Hfd[64 * 64], Hd[64 * 64];
    int i, j;
    memcpy(q, q0, sizeof(double) * (size_t)n);
    f(ctx, q, g, H);
    for (i = 0; i < n; ++i) {
        double ep, em, save = q[i];
        q[i] = save + hs;
        ep = f(ctx, q, gp, Hd);
        q[i] = save - hs;
        em = f(ctx, q, gm, Hd);
        q[i] = save;
        gfd[i] = (ep - em) / (2 * hs);
        for (j = 0; j < n; ++j) Hfd[j * n + i] = (gp[j] - gm[j]) / (2 * hs);
    }
    {
        double mg = t_maxabs(g, n), mh = t_maxabs(H, n * n), dg = 0, dh = 0;
        for (i = 0; i < n; ++i)
            if (fabs(gfd[i] - g[i]) > dg) dg = fabs(gfd[i] - g[i]);
        for (i = 0; i < n * n; ++i)
            if (fabs(Hfd[i] - H[i]) > dh) dh = fabs(Hfd[i] - H[i]);
        *eg = dg / (mg > 1e-300 ? mg : 1e-300);
        *eh = dh / (mh > 1e-300 ? mh : 1e-300);
    }
}

/* ---- kernel wrappers */
typedef struct t_sctx {
    rc__sh_coef c;
    int flags;
    int mask;
    int vid[3];
    double xf[9];   /* bending: flap positions when not part of q */
    double th_ref[3];   /* bending: tracked hinge angles (t_bend_ref_fn) */
} t_sctx;

static double t_stretch_fn(void *ctx, const double *q, double *g, double *H)
{
    t_sctx *s = (t_sctx *)ctx;
    return rc__sh_stretch_tri(q, q + 9, &s->c, RC__SH_GRAD | RC__SH_HESS | s->flags, g, H);
}
/* q = [x(9) flap(9) phi(3) u(6)] */
static double t_bend_fn(void *ctx, const double *q, double *g, double *H)
{
    t_sctx *s = (t_sctx *)ctx;
    return rc__sh_bend_tri(q, q + 9, s->mask, q + 18, s->vid, q + 21, &s->c, RC__SH_GRAD | RC__SH_HESS | s->flags, g, H);
}

static double t_bend_ref_fn(void *ctx, const double *q, double *g, double *H)
{
    t_sctx *s = (t_sctx *)ctx;
    return rc__sh_bend_tri_ref(q, q + 9, s->mask, q + 18, s->vid, q + 21, &s->c, RC__SH_GRAD | RC__SH_HESS | s->flags,
                               s->th_ref, g, H);
}

static rc_material t_mat(void)
{
    rc_material m;
    memset(&m, 0, sizeof m);   /* model = RC_MATERIAL_ISOTROPIC */
    m.density = 300;
    m.thickness = 0.1;   /* thick, so bending and stretch have similar magnitudes in O(1) tests */
    m.young = 1000;
    m.poisson = 0.3;
    return m;
}

/* random reference triangle (CCW, reasonably shaped) and a random world placement */
static void t_rand_tri(double u[6], double x[9])
{
    int k;
    u[0] = 0.1 * t_rand(); u[1] = 0.1 * t_rand();
    u[2] = 1.0 + 0.3 * t_rand(); u[3] = 0.2 * t_rand() - 0.1;
    u[4] = 0.3 + 0.4 * t_rand(); u[5] = 0.8 + 0.4 * t_rand();
    for (k = 0; k < 3; ++k) {
        x[3 * k] = u[2 * k] * (0.9 + 0.2 * t_rand()) + 0.1 * t_rand();
        x[3 * k + 1] = u[2 * k + 1] * (0.9 + 0.2 * t_rand()) + 0.1 * t_rand();
        x[3 * k + 2] = 0.3 * t_rand();
    }
}

/* flap vertex across edge i of x: reflect the opposite vertex over the edge line, then rotate it
   about the edge by dihedral angle ang (rad), plus a small random offset */
static void t_flap(const double *x, int i, double ang, double *p)
{
    const double *q = x + 3 * i, *A = x + 3 * ((i + 1) % 3), *B = x + 3 * ((i + 2) % 3);
    double e[3], a[3], n[3], t[3], ee, s, h, mid[3];
    int k;
    rc__sub3(e, B, A);
    rc__sub3(a, q, A);
    ee = rc__dot3(e, e);
    s = rc__dot3(e, a) / ee;
    for (k = 0; k < 3; ++k) {
        mid[k] = A[k] + s * e[k];
        t[k] = q[k] - mid[k];    /* in-plane, towards q */
    }
    h = rc__norm3(t);
    rc__scale3(t, 1.0 / h, t);
    rc__cross3(n, e, a);
    rc__scale3(n, 1.0 / rc__norm3(n), n);
    /* flat flap at -t (0.8 h away, shifted along the edge by one random fraction); rotated by ang
       about e: -t cos + n sin */
    s = 0.3 + 0.4 * t_rand();
    for (k = 0; k < 3; ++k) p[k] = A[k] + s * e[k] + 0.8 * h * (-t[k] * cos(ang) + n[k] * sin(ang));
}

static void test_energy_fd_stretch(void)
{
    int trial;
    double worst_g = 0, worst_h = 0;
    t_sctx s;
    rc_material m = t_mat();
    s.c = rc__sh_make_coef(&m, 1.0);
    s.flags = 0;
    for (trial = 0; trial < 20; ++trial) {
        double q[15], eg, eh;
        t_rand_tri(q + 9, q);
        t_fd_check(t_stretch_fn, &s, q, 15, 1e-5, &eg, &eh);
        if (eg > worst_g) worst_g = eg;
        if (eh > worst_h) worst_h = eh;
    }
    CHECKF(worst_g < 1e-6 && worst_h < 1e-6, "stretch fd: grad %.3g hess %.3g", worst_g, worst_h);
    /* near-degenerate reference (sliver of aspect ~1e-2) and world triangles: derivatives scale as
       1/aspect^k, the FD truncation error relative to them grows like (hs/aspect)^2 -> 1e-4 bar
       with hs = 1e-6 */
    {
        double q[15] = {0, 0, 0, 1, 0, 0.01, 0.5, 0.02, 0.0,   0, 0, 1, 0, 0.5, 0.01}, eg, eh;
        t_fd_check(t_stretch_fn, &s, q, 15, 1e-6, &eg, &eh);
        CHECKF(eg < 1e-4 && eh < 1e-4, "sliver stretch fd: grad %.3g hess %.3g", eg, eh);
    }
}

static void t_rand_bend(double *q, int *mask, double fold, double phiscale)
{
    int i;
    t_rand_tri(q + 21, q);
    *mask = 0;
    for (i = 0; i < 3; ++i) {
        if (t_rand() < 0.8) {
            double ang = fold != 0 ? fold : (t_rand() - 0.5) * 2.0;   /* dihedral up to +-1 rad */
            t_flap(q, i, ang, q + 9 + 3 * i);
            *mask |= 1 << i;
        } else {
            q[9 + 3 * i] = q[10 + 3 * i] = q[11 + 3 * i] = 0.0;
        }
        q[18 + i] = phiscale * (t_rand() - 0.5) * 2.0;
    }
}

static void test_energy_fd_bend(void)
{
    int trial;
    double worst_g = 0, worst_h = 0;
    t_sctx s;
    rc_material m = t_mat();
    s.c = rc__sh_make_coef(&m, 1.0);
    s.flags = 0;
    for (trial = 0; trial < 30; ++trial) {
        double q[27], eg, eh;
        s.vid[0] = (int)(10 * t_rand());
        s.vid[1] = 10 + (int)(10 * t_rand());
        s.vid[2] = trial & 1 ? 20 + (int)(10 * t_rand()) : (int)(5 * t_rand()) + 5;   /* mixed edge signs */
        if (s.vid[2] == s.vid[0]) s.vid[2] += 30;
        t_rand_bend(q, &s.mask, 0.0, 0.5);
        t_fd_check(t_bend_fn, &s, q, 27, 1e-5, &eg, &eh);
        if (eg > worst_g) worst_g = eg;
        if (eh > worst_h) worst_h = eh;
    }
    CHECKF(worst_g < 1e-6 && worst_h < 1e-6, "bend fd (random angles): grad %.3g hess %.3g", worst_g, worst_h);
    /* folds approaching 180 degrees (dihedral 170 and 178 deg, random angles): atan2 stays smooth,
       but II varies on the scale of the remaining gap, so 1e-5 relative is the bar at hs = 1e-6 */
    {
        double folds[2] = {170.0, 178.0};
        int f;
        for (f = 0; f < 2; ++f) {
            double q[27], eg, eh;
            s.vid[0] = 3; s.vid[1] = 1; s.vid[2] = 2;
            t_rand_bend(q, &s.mask, folds[f] * 3.14159265358979 / 180.0, 0.3);
            t_fd_check(t_bend_fn, &s, q, 27, 1e-6, &eg, &eh);
            CHECKF(eg < 1e-5 && eh < 1e-5, "fold %.0f deg bend fd: grad %.3g hess %.3g", folds[f], eg, eh);
        }
    }
    /* near-degenerate: reference sliver (aspect 0.02) and a thin world triangle */
    {
        double q[27], eg, eh;
        int k;
        double x[9] = {0, 0, 0, 1, 0, 0.05, 0.5, 0.02, 0.01}, u[6] = {0, 0, 1, 0, 0.5, 0.02};
        memcpy(q, x, sizeof(x));
        memcpy(q + 21, u, sizeof(u));
        s.mask = 7;
        for (k = 0; k < 3; ++k) {
            t_flap(q, k, 0.3 * (k + 1), q + 9 + 3 * k);
            q[18 + k] = 0.2 * (k - 1);
        }
        t_fd_check(t_bend_fn, &s, q, 27, 1e-7, &eg, &eh);
        CHECKF(eg < 1e-4 && eh < 1e-4, "sliver bend fd: grad %.3g hess %.3g", eg, eh);
    }
    /* the fixed-mesh flag gives the leading 21x21 block of the full Hessian */
    {
        double q[27], g[27], H[27 * 27], g2[21], H2[21 * 21];
        int i, j, bad = 0;
        s.vid[0] = 0; s.vid[1] = 1; s.vid[2] = 2;
        t_rand_bend(q, &s.mask, 0.0, 0.5);
        rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS, g, H);
        rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS | RC__SH_NO_U, g2, H2);
        {   /* value-only and gradient-only modes give the same numbers as the full mode */
            double g3[27], e1, e2, e3;
            e1 = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, 0, NULL, NULL);
            e2 = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD, g3, NULL);
            e3 = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS, g, H);
            CHECK(e1 == e3 && e2 == e3);
            for (i = 0; i < 27; ++i)
                if (g3[i] != g[i]) bad++;
            e1 = rc__sh_stretch_tri(q, q + 21, &s.c, 0, NULL, NULL);
            e2 = rc__sh_stretch_tri(q, q + 21, &s.c, RC__SH_GRAD, g3, NULL);
            e3 = rc__sh_stretch_tri(q, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS, g, H);
            CHECK(e1 == e3 && e2 == e3);
            for (i = 0; i < 15; ++i)
                if (g3[i] != g[i]) bad++;
            rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS, g, H);
        }
        for (i = 0; i < 21; ++i) {
            if (g[i] != g2[i]) bad++;
            for (j = 0; j < 21; ++j)
                if (fabs(H[i * 27 + j] - H2[i * 21 + j]) > 1e-14 * t_maxabs(H, 27 * 27)) bad++;
        }
        CHECK(bad == 0);
    }
}

/* the vector form of DESIGN §2 at |theta| < pi: II_i = v_i . m_i(phi), m = cos phi m̄ + sin phi (ê x m̄) */
/* A hinge folded through 180 degrees (the flap rotated about edge 0 from 2.9 to 3.4 rad, onto the
   triangle and past it). The plain hinge angle atan2 jumps by 2 pi there and the bending energy
   with it (II = 2 h sin(theta/2 + s phi) changes sign); with the hinge angle tracked by the
   simulator (th_ref, taken at the sweep's start) the energy is continuous and its gradient and
   Hessian match finite differences past the fold. Before the fold the two agree. */
static void test_energy_bend_hinge_unwrap(void)
{
    t_sctx s;
    rc_material m = t_mat();
    double q[27], x0[9], e[3], a[3], n[3], t[3], mid[3], h, th0, jr = 0, jp = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
    double Eprev_r = 0, Eprev_p = 0, agree = 0, eg, eh, E_pi = 0.0, E_end = 0.0;
    int k, c, N = 1000, falls = 0;
    s.c = rc__sh_make_coef(&m, 1.0);
    s.flags = 0;
    s.vid[0] = 3; s.vid[1] = 1; s.vid[2] = 2;
    t_rand_bend(q, &s.mask, 0.0, 0.3);
    s.mask = 1;   /* only edge 0 (x1 -> x2, opposite x0) has a flap */
    memcpy(x0, q, sizeof x0);
    rc__sub3(e, x0 + 6, x0 + 3);
    rc__sub3(a, x0, x0 + 3);
    for (c = 0; c < 3; ++c) mid[c] = x0[3 + c] + rc__dot3(e, a) / rc__dot3(e, e) * e[c];
    rc__sub3(t, x0, mid);
    h = rc__norm3(t);
    rc__scale3(t, 1.0 / h, t);
    rc__cross3(n, e, a);
    rc__scale3(n, 1.0 / rc__norm3(n), n);
    for (k = 0; k <= N; ++k) {
        double ang = 2.9 + 1.3 * k / N, Er, Ep;
        for (c = 0; c < 3; ++c) q[9 + c] = x0[3 + c] + 0.45 * e[c] + 0.8 * h * (-t[c] * cos(ang) + n[c] * sin(ang));
        if (k == 0) {
            double hq;
            rc__sh_edge_geom(x0, x0 + 3, x0 + 6, q + 9, &hq, &th0);
            s.th_ref[0] = th0; s.th_ref[1] = s.th_ref[2] = 0.0;
        }
        Er = rc__sh_bend_tri_ref(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, 0, s.th_ref, NULL, NULL);
        Ep = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, 0, NULL, NULL);
        if (ang < 3.1 && fabs(Er - Ep) > agree) agree = fabs(Er - Ep);
        if (k > 0 && ang > 3.6 && Er < Eprev_r) ++falls;   /* well past the fold */
        if (k > 0 && ang - 1.3 / N < RC__PI && ang >= RC__PI) E_pi = Er;
        E_end = Er;
        if (k > 0) {
            if (fabs(Er - Eprev_r) > jr) jr = fabs(Er - Eprev_r);
            if (fabs(Ep - Eprev_p) > jp) jp = fabs(Ep - Eprev_p);
        }
        if (Er < lo) lo = Er;
        if (Er > hi) hi = Er;
        Eprev_r = Er; Eprev_p = Ep;
    }
    printf("    hinge swept 2.9 -> 4.2 rad: tracked energy range %.4g, largest step change %.3g (plain atan2: %.3g); before the fold they differ by %.2g;"
           " energy at pi %.4g, at 4.2 rad %.4g\n", hi - lo, jr, jp, agree, E_pi, E_end);
    /* past the flat fold the energy keeps growing (the tangent continuation of the fold profile):
       the faces cannot lower their bending energy by folding through each other. II grows only
       linearly there, so the margin is modest (measured 0.19 -> 0.22 J); tracked sin would fall. */
    CHECKF(falls == 0 && E_end > 1.1 * E_pi, "folding through: energy fell at %d samples past 3.6 rad (E(pi) %.3g, E(4.2) %.3g)",
           falls, E_pi, E_end);
    CHECKF(jr < 0.02 * (hi - lo), "tracked hinge: energy jumps by %.3g (range %.3g)", jr, hi - lo);
    CHECKF(jp > 10.0 * jr, "the plain angle should jump at the fold (largest step %.3g vs %.3g)", jp, jr);
    CHECKF(agree <= 1e-12 * (fabs(hi) + fabs(lo)), "tracked and plain differ before the fold by %.3g", agree);
    /* derivatives past the fold (3.2 rad), tracked */
    for (c = 0; c < 3; ++c) q[9 + c] = x0[3 + c] + 0.45 * e[c] + 0.8 * h * (-t[c] * cos(3.2) + n[c] * sin(3.2));
    t_fd_check(t_bend_ref_fn, &s, q, 27, 1e-6, &eg, &eh);
    CHECKF(eg < 1e-5 && eh < 1e-5, "bend fd past the fold, tracked hinge: grad %.3g hess %.3g", eg, eh);
    /* and well past it, where psi = theta/2 + s phi > pi/2 (the continuation S = 1 + d^2/2) */
    for (c = 0; c < 3; ++c) q[9 + c] = x0[3 + c] + 0.45 * e[c] + 0.8 * h * (-t[c] * cos(3.9) + n[c] * sin(3.9));
    t_fd_check(t_bend_ref_fn, &s, q, 27, 1e-6, &eg, &eh);
    CHECKF(eg < 1e-5 && eh < 1e-5, "bend fd past the fold (3.9 rad), tracked hinge: grad %.3g hess %.3g", eg, eh);
}

/* At a flat fold the director angle keeps its grip. With II = 2 h sin(psi) the term saturates at
   psi = pi/2 (theta = pi, phi = 0): dII/dphi = 0 and d2II/dphi2 = -2h, so the exact Hessian's phi
   diagonal goes negative and the projected one singular, and Newton's phi steps stop meaning
   anything (measured: spikes steps stalling with phi 50-100x its tolerance, the energy flat along
   the step). The fold profile continues sin along its tangent past psi0, so near the fold the phi
   diagonal of the EXACT Hessian is positive: here for folds of 150-179 degrees, every flapped edge. */
static void test_energy_bend_flat_fold_director(void)
{
    t_sctx s;
    rc_material m = t_mat();
    double q[27], g[27], H[27 * 27], worst = HUGE_VAL, S, S1, S2, Sp, Sm, S1p, S1m, d1 = 0.0, d2 = 0.0;
    int trial, i;
    s.c = rc__sh_make_coef(&m, 1.0);
    s.flags = 0;
    s.vid[0] = 3; s.vid[1] = 1; s.vid[2] = 2;
    for (trial = 0; trial < 30; ++trial) {
        double fold = (150.0 + trial) * RC__PI / 180.0;
        t_rand_bend(q, &s.mask, fold, 0.0);
        t_bend_fn(&s, q, g, H);
        for (i = 0; i < 3; ++i)
            if (s.mask >> i & 1) {
                double hpp = H[(18 + i) * 27 + 18 + i] / t_maxabs(H, 27 * 27);
                if (hpp < worst) worst = hpp;
            }
    }
    printf("    flat folds 150-179 deg, phi = 0: smallest phi diagonal of the exact Hessian %.3g (relative to max |H|)\n", worst);
    CHECKF(worst > 1e-3, "director curvature at a flat fold: %.3g", worst);
    /* the profile itself: C1 at psi0 and its derivatives match differences on both sides */
    for (i = -20; i <= 20; ++i) {
        double psi = 1.2 + 0.01 * i + 0.003, hs = 1e-6;
        rc__sh_fold_profile(psi, &S, &S1, &S2);
        rc__sh_fold_profile(psi + hs, &Sp, &S1p, &S2);
        rc__sh_fold_profile(psi - hs, &Sm, &S1m, &S2);
        rc__sh_fold_profile(psi, &S, &S1, &S2);
        if (fabs((Sp - Sm) / (2 * hs) - S1) > d1) d1 = fabs((Sp - Sm) / (2 * hs) - S1);
        if (fabs((S1p - S1m) / (2 * hs) - S2) > d2) d2 = fabs((S1p - S1m) / (2 * hs) - S2);
    }
    rc__sh_fold_profile(RC__FOLD_PSI0 * (1 - 1e-12), &Sm, &S1m, &S2);
    rc__sh_fold_profile(RC__FOLD_PSI0 * (1 + 1e-12), &Sp, &S1p, &S2);
    CHECKF(d1 < 1e-8 && d2 < 1e-8, "fold profile derivatives vs differences: %.3g %.3g", d1, d2);
    CHECKF(fabs(Sp - Sm) < 1e-10 && fabs(S1p - S1m) < 1e-10, "fold profile not C1 at psi0: jumps %.3g %.3g", Sp - Sm, S1p - S1m);
}

static void test_energy_bend_vector_form(void)
{
    int trial, bad = 0, checked = 0;
    for (trial = 0; trial < 20; ++trial) {
        double q[27], u[6];
        int mask, i, vid[3] = {5, 2, 9};
        t_rand_bend(q, &mask, 0.0, 1.0);
        (void)u;
        for (i = 0; i < 3; ++i) {
            const double *qi = q + 3 * i, *A = q + 3 * ((i + 1) % 3), *B = q + 3 * ((i + 2) % 3);
            double nT[3], nF[3], e1[3], e2[3], mb[3], eh[3], m[3], v[3], ex[3], II, s;
            rc__sh_edged ad;
            int k;
            rc__sub3(e1, A, qi);
            rc__sub3(e2, B, qi);
            rc__cross3(nT, e1, e2);
            rc__scale3(nT, 1 / rc__norm3(nT), nT);
            if (mask >> i & 1) {
                const double *p = q + 9 + 3 * i;
                rc__sub3(e1, B, p);
                rc__sub3(e2, A, p);
                rc__cross3(nF, e1, e2);
                rc__scale3(nF, 1 / rc__norm3(nF), nF);
            } else {
                memcpy(nF, nT, sizeof nF);
            }
            rc__add3(mb, nT, nF);
            rc__scale3(mb, 1 / rc__norm3(mb), mb);
            /* ê: lower -> higher global vertex */
            if (vid[(i + 1) % 3] < vid[(i + 2) % 3]) rc__sub3(eh, B, A);
            else rc__sub3(eh, A, B);
            rc__scale3(eh, 1 / rc__norm3(eh), eh);
            rc__cross3(ex, eh, mb);
            for (k = 0; k < 3; ++k) {
                m[k] = cos(q[18 + i]) * mb[k] + sin(q[18 + i]) * ex[k];
                v[k] = A[k] + B[k] - 2 * qi[k];
            }
            II = rc__dot3(v, m);
            s = rc__sh_edge_sign(vid, i);
            rc__sh_edge_eval(qi, A, B, (mask >> i & 1) ? q + 9 + 3 * i : NULL, q[18 + i], s, 0.0, 1, &ad);
            /* the vector form is the sin profile: past psi0 the fold profile continues along its
               tangent (rc__sh_fold_profile), where |S| > sin psi0 */
            if (fabs(ad.sn) > sin(RC__FOLD_PSI0)) continue;
            ++checked;
            if (fabs(ad.II - II) > 1e-12) bad++;
        }
    }
    CHECKF(checked >= 50, "only %d of 60 edges inside the sin part of the fold profile", checked);
    CHECK(bad == 0);
}

static double t_mips_fn(void *ctx, const double *q, double *g, double *H)
{
    const double *Dminv = (const double *)ctx;
    return rc__mips_tri(q, Dminv, 1.0, 2.05, RC__SH_GRAD | RC__SH_HESS, g, H);
}

static void test_energy_fd_mips(void)
{
    int trial, active = 0;
    double worst_g = 0, worst_h = 0;
    for (trial = 0; trial < 30; ++trial) {
        double u0[6], x[9], u[6], Dminv[4], eg, eh;
        int k;
        t_rand_tri(u0, x);
        for (k = 0; k < 6; ++k) u[k] = u0[k] + 0.35 * (t_rand() - 0.5);
        CHECK(rc__mips_dminv(u0, Dminv));
        if (rc__mips_tri(u, Dminv, 1.0, 2.05, 0, NULL, NULL) <= 0 || rc__mips_tri(u, Dminv, 1.0, 2.05, 0, NULL, NULL) >= HUGE_VAL)
            continue;
        active++;
        t_fd_check(t_mips_fn, Dminv, u, 6, 1e-6, &eg, &eh);
        if (eg > worst_g) worst_g = eg;
        if (eh > worst_h) worst_h = eh;
    }
    CHECK(active >= 5);
    CHECKF(worst_g < 1e-6 && worst_h < 1e-6, "mips fd: grad %.3g hess %.3g (%d active)", worst_g, worst_h, active);
    /* C^2 at the threshold: value, gradient and Hessian vanish continuously as Psi -> eps */
    {
        double u0[6] = {0, 0, 1, 0, 0, 1}, u[6], Dminv[4], g[6], H[36];
        double sx = 2.0;   /* J = diag(sx, 1): Psi = sx + 1/sx = 2.5 at sx = 2 */
        rc__mips_dminv(u0, Dminv);
        memcpy(u, u0, sizeof u);
        u[2] = sx * (1 + 1e-8);   /* Psi - eps = 1.5e-8: C ~ z^3, |g| ~ 3 z^2, |H| ~ 6 z */
        CHECK(rc__mips_tri(u, Dminv, 1.0, 2.5, RC__SH_GRAD | RC__SH_HESS, g, H) < 1e-22);
        CHECKF(t_maxabs(g, 6) < 1e-14 && t_maxabs(H, 36) < 1e-6, "%.3g %.3g", t_maxabs(g, 6), t_maxabs(H, 36));
        u[2] = sx * (1 - 1e-8);
        CHECK(rc__mips_tri(u, Dminv, 1.0, 2.5, RC__SH_GRAD | RC__SH_HESS, g, H) == 0 && t_maxabs(H, 36) == 0);
    }
}

typedef struct t_ictx {
    double F[6], t0[3], G[18], b[9], rt, h, grav[3];
    int flags, per_vertex;
} t_ictx;
/* q = [x(9) u(6)], x~(u) = F u + t0 (affine previous field), or per_vertex: x~_i(u_i) = b_i + G_i u_i,
   each vertex its own gradient G_i (a curved field, as rc__sim_update_xtil gives each vertex the
   gradient of the triangle its material point lies in), so a kernel that mixed up the vertices' G
   fails (a session-62 mutation, vertex 0's G used for all three, passed the affine case) */
static double t_inertia_fn(void *ctx, const double *q, double *g, double *H)
{
    t_ictx *c = (t_ictx *)ctx;
    double xt[9];
    int i, k;
    for (i = 0; i < 3; ++i)
        for (k = 0; k < 3; ++k) {
            const double *Gi = c->per_vertex ? c->G + 6 * i : c->F;
            xt[3 * i + k] = Gi[2 * k] * q[9 + 2 * i] + Gi[2 * k + 1] * q[10 + 2 * i] + (c->per_vertex ? c->b[3 * i + k] : c->t0[k]);
        }
    return rc__inertia_tri(q, q + 9, xt, c->G, c->rt, c->h, c->grav, NULL, RC__SH_GRAD | RC__SH_HESS | c->flags, g, H);
}
static void t_inertia_ctx(t_ictx *c)
{
    int i, k;
    for (k = 0; k < 6; ++k) c->F[k] = t_rand() - 0.5 + (k == 0 || k == 3 ? 1.0 : 0.0);
    for (k = 0; k < 3; ++k) c->t0[k] = t_rand();
    for (i = 0; i < 3; ++i)
        for (k = 0; k < 6; ++k) c->G[6 * i + k] = c->F[k];
    for (k = 0; k < 9; ++k) c->b[k] = t_rand();
    c->rt = 0.3;
    c->h = 0.1;
    c->grav[0] = 0; c->grav[1] = 0; c->grav[2] = -9.81;
    c->flags = 0;
    c->per_vertex = 0;
}

static void test_energy_fd_inertia(void)
{
    int trial;
    double worst_g = 0, worst_h = 0;
    for (trial = 0; trial < 40; ++trial) {
        t_ictx c;
        double q[15], eg, eh;
        int i, k;
        t_inertia_ctx(&c);
        if (trial >= 20) {   /* per-vertex gradients: each G_i the affine F plus its own random part */
            c.per_vertex = 1;
            for (i = 0; i < 3; ++i)
                for (k = 0; k < 6; ++k) c.G[6 * i + k] = c.F[k] + 0.5 * (t_rand() - 0.5);
        }
        t_rand_tri(q + 9, q);
        t_fd_check(t_inertia_fn, &c, q, 15, 1e-5, &eg, &eh);
        if (eg > worst_g) worst_g = eg;
        if (eh > worst_h) worst_h = eh;
    }
    CHECKF(worst_g < 1e-6 && worst_h < 1e-6, "inertia fd: grad %.3g hess %.3g", worst_g, worst_h);
}

/* free flight / rigid motion: x_i = x~(u_i) exactly, no gravity: zero energy and zero gradient for
   any u (the mesh may slide through the material at no inertial cost); with gravity, the value is
   exactly -m g.x with m = rho tau A / 3 per vertex */
static void test_energy_inertia_exact(void)
{
    t_ictx c;
    double q[15], g[15], H[225], e;
    int i, k;
    t_inertia_ctx(&c);
    c.grav[2] = 0;
    t_rand_tri(q + 9, q);
    for (i = 0; i < 3; ++i)
        for (k = 0; k < 3; ++k) q[3 * i + k] = c.F[2 * k] * q[9 + 2 * i] + c.F[2 * k + 1] * q[10 + 2 * i] + c.t0[k];
    e = t_inertia_fn(&c, q, g, H);
    CHECK(fabs(e) < 1e-14);
    CHECKF(t_maxabs(g, 15) < 1e-12, "free flight gradient %.3g", t_maxabs(g, 15));
    {
        double A = 0.5 * ((q[11] - q[9]) * (q[14] - q[10]) - (q[12] - q[10]) * (q[13] - q[9])), ex = 0;
        c.grav[2] = -9.81;
        for (i = 0; i < 3; ++i) ex += c.rt * A / 3 * 9.81 * q[3 * i + 2];
        e = t_inertia_fn(&c, q, g, H);
        CHECK_NEAR(e, ex, 1e-12 * fabs(ex));
    }
}

/* Total mass rho tau sum A_T stays constant while interior vertices move inside a fixed boundary:
   evaluate the kernel with x_i = (0, 0, 1), x~ = x, g = (0, 0, -1) so E_T = rho tau A_T. */
static void test_energy_mass_conservation(void)
{
    t_mesh M = t_grid(6, 5, 0, 0, 1.2, 1.0, 2, 0.0);
    int trial, t, k;
    double G[18] = {0}, grav[3] = {0, 0, -1}, x[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1}, tot0 = 0;
    for (trial = 0; trial < 4; ++trial) {
        double tot = 0;
        if (trial > 0) { /* jitter the interior */
            t_mesh J = t_grid(6, 5, 0, 0, 1.2, 1.0, 0, 0.4 * trial / 3.0);
            memcpy(M.u, J.u, sizeof(double) * 2 * (size_t)M.nv);
            t_mesh_free(&J);
        }
        for (t = 0; t < M.nt; ++t) {
            double u[6];
            for (k = 0; k < 3; ++k) {
                u[2 * k] = M.u[2 * M.tris[3 * t + k]];
                u[2 * k + 1] = M.u[2 * M.tris[3 * t + k] + 1];
            }
            tot += rc__inertia_tri(x, u, x, G, 2.0, 0.01, grav, NULL, 0, NULL, NULL);
        }
        if (trial == 0) tot0 = tot;
        CHECK_NEAR(tot, 2.0 * 1.2, 1e-13);
        CHECK_NEAR(tot, tot0, 1e-13);
    }
    t_mesh_free(&M);
}

/* random rotation matrix from three angles */
static void t_rot3(double R[9])
{
    double a = 6.28 * t_rand(), b = 6.28 * t_rand(), c = 6.28 * t_rand();
    double Rz[9] = {cos(a), -sin(a), 0, sin(a), cos(a), 0, 0, 0, 1};
    double Rx[9] = {1, 0, 0, 0, cos(b), -sin(b), 0, sin(b), cos(b)};
    double Rz2[9] = {cos(c), -sin(c), 0, sin(c), cos(c), 0, 0, 0, 1}, T[9];
    int i, j, k;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            T[3 * i + j] = 0;
            for (k = 0; k < 3; ++k) T[3 * i + j] += Rz[3 * i + k] * Rx[3 * k + j];
        }
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            R[3 * i + j] = 0;
            for (k = 0; k < 3; ++k) R[3 * i + j] += T[3 * i + k] * Rz2[3 * k + j];
        }
}

static void test_energy_invariance(void)
{
    t_mesh M = t_grid(5, 4, 0, 0, 1, 0.8, 2, 0.3);
    rc_trimesh m = t_tm(&M);
    rc_material mat = t_mat();
    double *x = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv), *x2 = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv);
    double *u2 = (double *)malloc(sizeof(double) * 2 * (size_t)M.nv), *phi = NULL, R[9], S, B, S2, B2;
    double *gx = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv), *gu = (double *)malloc(sizeof(double) * 2 * (size_t)M.nv);
    rc__sh_edges E;
    int i, k, j;
    CHECK_OK(rc__sh_build_edges(NULL, &m, &E));
    phi = (double *)malloc(sizeof(double) * (size_t)E.ne);
    for (i = 0; i < E.ne; ++i) phi[i] = 0.3 * (t_rand() - 0.5);
    for (i = 0; i < M.nv; ++i) {
        x[3 * i] = 1.1 * M.u[2 * i] + 0.05 * t_rand();
        x[3 * i + 1] = 0.95 * M.u[2 * i + 1];
        x[3 * i + 2] = 0.2 * sin(3 * M.u[2 * i]) + 0.05 * t_rand();
    }
    CHECK_OK(rc_shell_energy(&m, x, M.u, phi, &mat, &S, &B, NULL, NULL));
    CHECK(S > 0 && B > 0);
    /* rigid motion of x */
    t_rot3(R);
    for (i = 0; i < M.nv; ++i)
        for (k = 0; k < 3; ++k) {
            x2[3 * i + k] = 0.7 * k - 2.0;
            for (j = 0; j < 3; ++j) x2[3 * i + k] += R[3 * k + j] * x[3 * i + j];
        }
    CHECK_OK(rc_shell_energy(&m, x2, M.u, phi, &mat, &S2, &B2, NULL, NULL));
    CHECK_NEAR(S2, S, 1e-12 * S);
    CHECK_NEAR(B2, B, 1e-12 * B);
    /* rigid motion of u */
    {
        double a = 1.234, c = cos(a), s = sin(a);
        for (i = 0; i < M.nv; ++i) {
            u2[2 * i] = c * M.u[2 * i] - s * M.u[2 * i + 1] + 3.0;
            u2[2 * i + 1] = s * M.u[2 * i] + c * M.u[2 * i + 1] - 1.0;
        }
        CHECK_OK(rc_shell_energy(&m, x, u2, phi, &mat, &S2, &B2, NULL, NULL));
        CHECK_NEAR(S2, S, 1e-12 * S);
        CHECK_NEAR(B2, B, 1e-12 * B);
    }
    /* zero energy and gradient at rest (x = (u, 0), phi = 0 and phi minimised) */
    for (i = 0; i < M.nv; ++i) {
        x[3 * i] = M.u[2 * i];
        x[3 * i + 1] = M.u[2 * i + 1];
        x[3 * i + 2] = 0;
    }
    for (i = 0; i < E.ne; ++i) phi[i] = 0;
    CHECK_OK(rc_shell_energy(&m, x, M.u, phi, &mat, &S, &B, gx, gu));
    /* a = abar exactly (same arithmetic), so M = P (a - abar) = 0 exactly */
    CHECKF(S == 0 && B == 0, "rest S %.3g B %.3g", S, B);
    CHECKF(t_maxabs(gx, 3 * M.nv) < 1e-12 && t_maxabs(gu, 2 * M.nv) < 1e-12, "rest grad %.3g %.3g",
           t_maxabs(gx, 3 * M.nv), t_maxabs(gu, 2 * M.nv));
    CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, &B, gx, gu));
    CHECK(B == 0);
    /* MIPS: invariant under scaling and rigid motion of u (and zero at u = u0) */
    {
        double e0, e1, e2;
        for (i = 0; i < M.nv; ++i) {
            u2[2 * i] = M.u[2 * i] + 0.06 * (t_rand() - 0.5);
            u2[2 * i + 1] = M.u[2 * i + 1] + 0.06 * (t_rand() - 0.5);
        }
        CHECK_OK(rc_mips_energy(&m, M.u, M.u, 2.5, &e0, gu));
        CHECK(e0 == 0 && t_maxabs(gu, 2 * M.nv) == 0);
        CHECK_OK(rc_mips_energy(&m, u2, M.u, 2.05, &e1, NULL));
        CHECK(e1 > 0 && e1 < HUGE_VAL);
        for (i = 0; i < 2 * M.nv; ++i) x2[i] = 3.7 * u2[i] + 1.0;
        CHECK_OK(rc_mips_energy(&m, x2, M.u, 2.05, &e2, NULL));
        CHECK_NEAR(e2, e1, 1e-12 * e1);
    }
    rc__sh_free_edges(NULL, &E);
    free(x); free(x2); free(u2); free(phi); free(gx); free(gu);
    t_mesh_free(&M);
}

/* public gradients vs centred FD of the public energies (phi given and phi minimised) */
typedef struct t_pctx {
    rc_trimesh m;
    const double *phi;
    rc_material mat;
    double *x, *u;
    int nv;
} t_pctx;
static double t_pub_energy(t_pctx *c)
{
    double S, B;
    rc_status st = rc_shell_energy(&c->m, c->x, c->u, c->phi, &c->mat, &S, &B, NULL, NULL);
    return st == RC_OK ? S + B : NAN;
}
static void test_energy_public_gradient(void)
{
    t_mesh M = t_grid(4, 3, 0, 0, 1, 0.75, 2, 0.3);
    t_pctx c;
    rc__sh_edges E;
    double *gx, *gu, *phi, hs = 1e-6;
    int i, pass;
    c.m = t_tm(&M);
    c.mat = t_mat();
    c.nv = M.nv;
    c.u = M.u;
    c.x = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv);
    gx = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv);
    gu = (double *)malloc(sizeof(double) * 2 * (size_t)M.nv);
    CHECK_OK(rc__sh_build_edges(NULL, &c.m, &E));
    phi = (double *)malloc(sizeof(double) * (size_t)E.ne);
    for (i = 0; i < E.ne; ++i) phi[i] = 0.4 * (t_rand() - 0.5);
    for (i = 0; i < M.nv; ++i) {
        c.x[3 * i] = M.u[2 * i] * 1.05;
        c.x[3 * i + 1] = M.u[2 * i + 1];
        c.x[3 * i + 2] = 0.3 * M.u[2 * i] * M.u[2 * i] + 0.05 * t_rand();
    }
    for (pass = 0; pass < 2; ++pass) {
        double dx = 0, du = 0, mg;
        c.phi = pass == 0 ? phi : NULL;
        CHECK_OK(rc_shell_energy(&c.m, c.x, c.u, c.phi, &c.mat, NULL, NULL, gx, gu));
        for (i = 0; i < 3 * M.nv; ++i) {
            double s = c.x[i], ep, em;
            c.x[i] = s + hs; ep = t_pub_energy(&c);
            c.x[i] = s - hs; em = t_pub_energy(&c);
            c.x[i] = s;
            if (fabs((ep - em) / (2 * hs) - gx[i]) > dx) dx = fabs((ep - em) / (2 * hs) - gx[i]);
        }
        for (i = 0; i < 2 * M.nv; ++i) {
            double s = c.u[i], ep, em;
            c.u[i] = s + hs; ep = t_pub_energy(&c);
            c.u[i] = s - hs; em = t_pub_energy(&c);
            c.u[i] = s;
            if (fabs((ep - em) / (2 * hs) - gu[i]) > du) du = fabs((ep - em) / (2 * hs) - gu[i]);
        }
        mg = t_maxabs(gx, 3 * M.nv);
        if (t_maxabs(gu, 2 * M.nv) > mg) mg = t_maxabs(gu, 2 * M.nv);
        /* 1e-6 bar as above; with phi minimised the envelope theorem makes the partial gradient
           exact at the minimiser (angle tolerance 1e-12 rad adds ~1e-12 relative) */
        CHECKF(dx < 1e-6 * mg && du < 1e-6 * mg, "pass %d: grad_x err %.3g grad_u err %.3g (|g| %.3g)", pass, dx, du, mg);
    }
    /* minimised bending <= bending at any angles */
    {
        double B0, B1;
        CHECK_OK(rc_shell_energy(&c.m, c.x, c.u, phi, &c.mat, NULL, &B0, NULL, NULL));
        CHECK_OK(rc_shell_energy(&c.m, c.x, c.u, NULL, &c.mat, NULL, &B1, NULL, NULL));
        CHECK(B1 <= B0);
    }
    /* MIPS public gradient */
    {
        double *u2 = (double *)malloc(sizeof(double) * 2 * (size_t)M.nv), dd = 0, e;
        for (i = 0; i < 2 * M.nv; ++i) u2[i] = M.u[i] + 0.12 * (t_rand() - 0.5);
        CHECK_OK(rc_mips_energy(&c.m, u2, M.u, 2.05, &e, gu));
        CHECK(e > 0);
        for (i = 0; i < 2 * M.nv; ++i) {
            double s = u2[i], ep, em;
            u2[i] = s + hs; rc_mips_energy(&c.m, u2, M.u, 2.05, &ep, NULL);
            u2[i] = s - hs; rc_mips_energy(&c.m, u2, M.u, 2.05, &em, NULL);
            u2[i] = s;
            if (fabs((ep - em) / (2 * hs) - gu[i]) > dd) dd = fabs((ep - em) / (2 * hs) - gu[i]);
        }
        CHECKF(dd < 1e-6 * t_maxabs(gu, 2 * M.nv), "mips grad err %.3g", dd);
        free(u2);
    }
    rc__sh_free_edges(NULL, &E);
    free(c.x); free(gx); free(gu); free(phi);
    t_mesh_free(&M);
}

/* uniaxial and biaxial stretch vs plane-stress StVK: psi = (alpha/2)(tr G)^2 + beta tr(G^2) per volume,
   G = diag((l1^2 - 1)/2, (l2^2 - 1)/2) the Green strain; S = tau * area * psi */
static void test_energy_stretch_stvk(void)
{
    t_mesh M = t_grid(3, 4, 0, 0, 1.5, 1.0, 2, 0.25);
    rc_trimesh m = t_tm(&M);
    rc_material mat = t_mat();
    double *x = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv);
    double l[3][2] = {{1.2, 1.0}, {1.1, 0.9}, {0.8, 1.3}};
    double alpha = mat.young * mat.poisson / (1 - mat.poisson * mat.poisson), beta = mat.young / (2 * (1 + mat.poisson));
    int c, i;
    for (c = 0; c < 3; ++c) {
        double S, B, g1 = (l[c][0] * l[c][0] - 1) / 2, g2 = (l[c][1] * l[c][1] - 1) / 2;
        double psi = 0.5 * alpha * (g1 + g2) * (g1 + g2) + beta * (g1 * g1 + g2 * g2), ex = mat.thickness * 1.5 * psi;
        for (i = 0; i < M.nv; ++i) {
            x[3 * i] = l[c][0] * M.u[2 * i];
            x[3 * i + 1] = l[c][1] * M.u[2 * i + 1];
            x[3 * i + 2] = 0;
        }
        CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, &B, NULL, NULL));
        CHECK_NEAR(S, ex, 1e-12 * ex);
        CHECK(fabs(B) < 1e-20);
    }
    /* uniaxial closed form: psi = E/(2(1-nu^2)) g^2 */
    {
        double S, g = (1.21 - 1) / 2, ex = mat.thickness * 1.5 * mat.young / (2 * (1 - 0.09)) * g * g;
        for (i = 0; i < M.nv; ++i) {
            x[3 * i] = M.u[2 * i + 1];
            x[3 * i + 1] = 0;
            x[3 * i + 2] = 1.1 * M.u[2 * i];   /* rotated into 3D, stretched along u_x */
        }
        CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, NULL, NULL, NULL));
        CHECK_NEAR(S, ex, 1e-12 * ex);
    }
    free(x);
    t_mesh_free(&M);
}

/* cylinder: a flat 1 x 1 sheet bent isometrically (vertices on the cylinder of radius R) must
   converge to B = D/(2R^2) * area (directors minimised). Returns the whole-sheet ratio and, in
   *interior, the ratio over the triangles inside the central square [1/4, 3/4]^2. Free boundary
   edges relax their directors (the natural boundary condition), which leaves a boundary layer of a
   few elements with less energy: the total converges at first order, the centre at second. */
static double t_cylinder_ratio(int n, int diag, double jitter, double R, double *interior)
{
    t_mesh M = t_grid(n, n, 0, 0, 1.0, 1.0, diag, jitter);
    rc_trimesh m = t_tm(&M);
    rc_material mat = t_mat();
    rc__sh_edges E;
    rc__sh_coef c = rc__sh_make_coef(&mat, 1.0);
    double *x = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv), B, D, Bi = 0, Ai = 0, *phi, *geo;
    int i, t;
    for (i = 0; i < M.nv; ++i) {
        double s = M.u[2 * i];
        x[3 * i] = R * sin(s / R);
        x[3 * i + 1] = M.u[2 * i + 1];
        x[3 * i + 2] = R * (1 - cos(s / R));
    }
    CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, NULL, &B, NULL, NULL));
    D = mat.young * pow(mat.thickness, 3) / (12 * (1 - mat.poisson * mat.poisson));
    CHECK_OK(rc__sh_build_edges(NULL, &m, &E));
    phi = (double *)calloc((size_t)E.ne, sizeof(double));
    geo = (double *)malloc(sizeof(double) * 18 * (size_t)M.nt);
    CHECK(rc__sh_minimise_phi(&m, &E, x, M.u, &c, geo, phi));
    for (t = 0; t < M.nt; ++t) {
        double xl[9], xf[9], ul[6], pl[3];
        int mask, k, inner = 1;
        for (k = 0; k < 3; ++k) {
            int v = M.tris[3 * t + k], ix = v % (n + 1), iy = v / (n + 1);
            if (4 * ix < n || 4 * iy < n || 4 * ix > 3 * n || 4 * iy > 3 * n) inner = 0;
            pl[k] = phi[E.tri_edge[3 * t + k]];
        }
        if (!inner) continue;
        rc__sh_gather(&m, &E, x, M.u, t, xl, xf, ul, &mask);
        Bi += rc__sh_bend_tri(xl, xf, mask, pl, M.tris + 3 * t, ul, &c, 0, NULL, NULL);
        Ai += 0.5 * ((ul[2] - ul[0]) * (ul[5] - ul[1]) - (ul[3] - ul[1]) * (ul[4] - ul[0]));
    }
    *interior = Bi / (D / (2 * R * R) * Ai);
    rc__sh_free_edges(NULL, &E);
    free(phi); free(geo);
    free(x);
    t_mesh_free(&M);
    return B / (D / (2 * R * R));
}
/* plain_avg: phi = 0 (the plain average of the face normals) instead of minimised directors */
static double t_twist_ratio(int n, int diag, double jitter, double k, int plain_avg)
{
    t_mesh M = t_grid(n, n, -0.5, -0.5, 1.0, 1.0, diag, jitter);
    rc_trimesh m = t_tm(&M);
    rc_material mat = t_mat();
    double *x = (double *)malloc(sizeof(double) * 3 * (size_t)M.nv), B, D;
    int i;
    for (i = 0; i < M.nv; ++i) {
        x[3 * i] = M.u[2 * i];
        x[3 * i + 1] = M.u[2 * i + 1];
        x[3 * i + 2] = k * M.u[2 * i] * M.u[2 * i + 1];
    }
    if (plain_avg) {
        double *phi = (double *)calloc((size_t)(3 * M.nt), sizeof(double));   /* >= number of edges */
        CHECK_OK(rc_shell_energy(&m, x, M.u, phi, &mat, NULL, &B, NULL, NULL));
        free(phi);
    } else {
        CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, NULL, &B, NULL, NULL));
    }
    D = mat.young * pow(mat.thickness, 3) / (12 * (1 - mat.poisson * mat.poisson));
    free(x);
    t_mesh_free(&M);
    return B / (D * (1 - mat.poisson) * k * k);
}

static void test_energy_cylinder(void)
{
    int diag, r;
    const char *names[3] = {"structured", "alternating", "random+jitter"};
    for (diag = 0; diag < 3; ++diag) {
        double err[4], erri[4], ratio, inner;
        int ns[4] = {4, 8, 16, 32};
        printf("    cylinder R=1 (%s): total / centre:", names[diag]);
        for (r = 0; r < 4; ++r) {
            ratio = t_cylinder_ratio(ns[r], diag, diag == 2 ? 0.2 : 0.0, 1.0, &inner);
            err[r] = fabs(ratio - 1);
            erri[r] = fabs(inner - 1);
            printf(" n=%d %.5f/%.5f", ns[r], ratio, inner);
        }
        printf("\n      orders (16->32): total %.2f centre %.2f\n", log(err[2] / err[3]) / log(2.0),
               log(erri[2] / erri[3]) / log(2.0));
        /* total: first order (boundary layer): order > 0.8 and the n = 32 error below 6%;
           centre: second order (> 1.6 observed 2.2-2.4) and within 1e-3 at n = 32 */
        CHECKF(log(err[2] / err[3]) / log(2.0) > 0.8 && err[3] < 0.06, "cylinder %s total err %.3g", names[diag], err[3]);
        CHECKF(erri[3] < 1e-3 && log(erri[2] / erri[3]) / log(2.0) > 1.6, "cylinder %s centre err %.3g", names[diag], erri[3]);
    }
}

static void test_energy_twist(void)
{
    int diag, r;
    const char *names[3] = {"structured", "alternating", "random+jitter"};
    double k = 0.02;   /* small twist: the geometric nonlinearity is O((k L)^2) ~ 4e-4 */
    for (diag = 0; diag < 3; ++diag) {
        double ratio[4];
        int ns[4] = {4, 8, 16, 32};
        printf("    twist z=kxy (%s):", names[diag]);
        for (r = 0; r < 4; ++r) {
            ratio[r] = t_twist_ratio(ns[r], diag, diag == 2 ? 0.25 : 0.0, k, 0);
            printf(" n=%d %.5f", ns[r], ratio[r]);
        }
        printf("  (plain average phi=0 at n=16: %.3f)\n", t_twist_ratio(16, diag, diag == 2 ? 0.25 : 0.0, k, 1));
        /* with minimised directors the twist is reproduced on every mesh (DESIGN §2: 1.0000); the
           bar 1e-2 leaves room for the O(k^2) nonlinearity and boundary effects only */
        CHECKF(fabs(ratio[3] - 1) < 1e-2 && fabs(ratio[1] - 1) < 1e-2, "twist %s ratio %.5f", names[diag], ratio[3]);
    }
    /* the plain average is inconsistent on alternating diagonals (DESIGN §2 measured 2.00): the
       minimisation is what makes the directors consistent */
    CHECK(t_twist_ratio(16, 1, 0.0, k, 1) > 1.5);
}

/* The Gauss-Newton bending Hessian (RC__SH_GAUSS_NEWTON, the convex model of the (x, phi) Newton
   fallback): PSD on random and sharply folded stencils for an isotropic material with positive and
   with negative Poisson ratio and for an orthotropic fabric; equal to the exact Hessian where the
   fundamental forms' own curvature carries no weight (flat rest, W_b = 0); different from it on a
   bent stencil; the gradient and energy are the exact ones; with u the flag is ignored. */
static void test_energy_gauss_newton_bending(void)
{
    rc_material mats[3];
    double worst_neg = 0.0, flat_diff = 0.0, bent_diff = 0.0, with_u_diff = 0.0;
    int mi, trial, i, grad_bad = 0;
    mats[0] = t_mat();
    mats[1] = t_mat();
    mats[1].poisson = -0.6;
    memset(&mats[2], 0, sizeof mats[2]);
    mats[2].model = RC_MATERIAL_ORTHOTROPIC;
    mats[2].density = 300; mats[2].thickness = 0.1;
    mats[2].warp_stiffness = 100; mats[2].weft_stiffness = 30; mats[2].shear_stiffness = 7; mats[2].warp_poisson = 0.4;
    mats[2].bend_warp = 0.12; mats[2].bend_weft = 0.05; mats[2].bend_bias = 0.06;
    for (mi = 0; mi < 3; ++mi) {
        t_sctx s;
        s.c = rc__sh_make_coef(&mats[mi], 1.0);
        s.vid[0] = 0; s.vid[1] = 1; s.vid[2] = 2;
        for (trial = 0; trial < 30; ++trial) {
            double q[27], H[21 * 21], Hgn[21 * 21], A[21 * 21], ev[21], V[21 * 21], g[21], ggn[21], e, egn, mx = 0.0, d = 0.0;
            t_rand_bend(q, &s.mask, trial < 15 ? 0.0 : 2.4 + 0.04 * trial, 0.4);
            e = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_GRAD | RC__SH_HESS | RC__SH_NO_U, g, H);
            egn = rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c,
                                  RC__SH_GRAD | RC__SH_HESS | RC__SH_NO_U | RC__SH_GAUSS_NEWTON, ggn, Hgn);
            if (e != egn) grad_bad++;
            for (i = 0; i < 21; ++i) if (g[i] != ggn[i]) grad_bad++;
            for (i = 0; i < 21 * 21; ++i) { if (fabs(H[i]) > mx) mx = fabs(H[i]); if (fabs(H[i] - Hgn[i]) > d) d = fabs(H[i] - Hgn[i]); }
            if (d / mx > bent_diff) bent_diff = d / mx;
            memcpy(A, Hgn, sizeof A);
            rc__sym_eig(21, A, ev, V);
            for (i = 0; i < 21; ++i) if (-ev[i] / mx > worst_neg) worst_neg = -ev[i] / mx;
        }
        {   /* flat rest: every flap the mirror image of the opposite vertex across the edge, zero
               angles, so b = 0 and W_b = 0 */
            double q[27], H[21 * 21], Hgn[21 * 21], mx = 0.0;
            int k, c;
            t_rand_bend(q, &s.mask, 0.0, 0.0);
            for (k = 0; k < 3; ++k) {
                const double *P = q + 3 * k, *A = q + 3 * ((k + 1) % 3), *B = q + 3 * ((k + 2) % 3);
                double e[3], a[3], w;
                rc__sub3(e, B, A);
                rc__sub3(a, P, A);
                w = rc__dot3(e, a) / rc__dot3(e, e);
                for (c = 0; c < 3; ++c) q[9 + 3 * k + c] = 2.0 * (A[c] + w * e[c]) - P[c];
            }
            s.mask = 7;
            CHECK(fabs(rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS | RC__SH_NO_U, NULL, H)) < 1e-20);
            rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS | RC__SH_NO_U | RC__SH_GAUSS_NEWTON, NULL, Hgn);
            for (i = 0; i < 21 * 21; ++i) if (fabs(H[i]) > mx) mx = fabs(H[i]);
            for (i = 0; i < 21 * 21; ++i) if (fabs(H[i] - Hgn[i]) / mx > flat_diff) flat_diff = fabs(H[i] - Hgn[i]) / mx;
        }
        {   /* with u the flag is ignored */
            double q[27], H[27 * 27], Hgn[27 * 27];
            t_rand_bend(q, &s.mask, 0.0, 0.4);
            rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS, NULL, H);
            rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS | RC__SH_GAUSS_NEWTON, NULL, Hgn);
            for (i = 0; i < 27 * 27; ++i) if (fabs(H[i] - Hgn[i]) > with_u_diff) with_u_diff = fabs(H[i] - Hgn[i]);
        }
    }
    printf("    Gauss-Newton bending: most negative eigenvalue %.2g, differs from exact by %.2g on bent stencils, %.2g at flat rest (relative to max |H|)\n",
           -worst_neg, bent_diff, flat_diff);
    CHECKF(worst_neg < 1e-12, "Gauss-Newton bending Hessian not PSD: eigenvalue %.3g of max |H|", -worst_neg);
    CHECKF(flat_diff < 1e-12, "at flat rest the Gauss-Newton and exact Hessians differ by %.3g", flat_diff);
    CHECKF(bent_diff > 1e-3, "on bent stencils the Gauss-Newton Hessian equals the exact one (%.3g): the flag did nothing", bent_diff);
    CHECK(grad_bad == 0);
    CHECK(with_u_diff == 0.0);
}

/* The (x, phi) bending stencil is projected through its Schur complement (rc__sh_project_schur21):
   on stencils from random and sharply folded configurations the result is PSD, the director block
   and its coupling to x are unchanged, the x block only gains what the projection of the Schur
   complement adds, and a stencil that is PSD already comes back unchanged to round-off. */
static void test_energy_schur_projection(void)
{
    t_sctx s;
    rc_material m = t_mat();
    double q[27], H[21 * 21], P[21 * 21], A[21 * 21], ev[21], V[21 * 21], worst_neg = 0.0, kept = 0.0, psd_change = 0.0;
    int trial, i, j, used = 0;
    s.c = rc__sh_make_coef(&m, 1.0);
    s.vid[0] = 0; s.vid[1] = 1; s.vid[2] = 2;
    for (trial = 0; trial < 40; ++trial) {
        double mx = 0.0;
        t_rand_bend(q, &s.mask, trial < 20 ? 0.0 : 2.4 + 0.03 * trial, 0.4);
        rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS | RC__SH_NO_U, NULL, H);
        memcpy(P, H, sizeof P);
        if (!rc__sh_project_schur21(P)) continue;
        ++used;
        for (i = 0; i < 21 * 21; ++i) if (fabs(H[i]) > mx) mx = fabs(H[i]);
        for (i = 0; i < 21; ++i)
            for (j = 18; j < 21; ++j) {
                double d1 = fabs(P[21 * i + j] - H[21 * i + j]) / mx, d2 = fabs(P[21 * j + i] - H[21 * j + i]) / mx;
                if (d1 > kept) kept = d1;
                if (d2 > kept) kept = d2;
            }
        memcpy(A, P, sizeof A);
        rc__sym_eig(21, A, ev, V);
        for (i = 0; i < 21; ++i) if (-ev[i] / mx > worst_neg) worst_neg = -ev[i] / mx;
        /* a PSD stencil (the projected one) projects to itself */
        memcpy(A, P, sizeof A);
        rc__sh_project_schur21(A);
        for (i = 0; i < 21 * 21; ++i) if (fabs(A[i] - P[i]) / mx > psd_change) psd_change = fabs(A[i] - P[i]) / mx;
    }
    printf("    Schur projection on %d of 40 stencils: most negative eigenvalue %.2g, phi rows changed by %.2g, PSD input changed by %.2g (relative to max |H|)\n",
           used, -worst_neg, kept, psd_change);
    CHECKF(used >= 20, "the phi block was positive definite in only %d of 40 stencils (the rest take the whole-stencil projection)", used);
    CHECKF(worst_neg < 1e-10, "Schur-projected stencil not PSD: eigenvalue %.3g", -worst_neg);
    CHECKF(kept == 0.0, "phi rows/columns changed by %.3g", kept);
    CHECKF(psd_change < 1e-12, "a PSD stencil changed by %.3g", psd_change);
}

/* the projected kernels are PSD and the projection leaves PSD parts alone */
static void test_energy_projection(void)
{
    t_sctx s;
    rc_material m = t_mat();
    double q[27], H[27 * 27], A[27 * 27], ev[27], V[27 * 27];
    int i, trial, bad = 0;
    s.c = rc__sh_make_coef(&m, 1.0);
    s.vid[0] = 0; s.vid[1] = 1; s.vid[2] = 2;
    for (trial = 0; trial < 5; ++trial) {
        double mx = 0;
        t_rand_bend(q, &s.mask, 0.0, 0.5);
        rc__sh_bend_tri(q, q + 9, s.mask, q + 18, s.vid, q + 21, &s.c, RC__SH_HESS | RC__SH_PROJECT, NULL, H);
        memcpy(A, H, sizeof A);
        rc__sym_eig(27, A, ev, V);
        for (i = 0; i < 27; ++i) if (fabs(ev[i]) > mx) mx = fabs(ev[i]);
        for (i = 0; i < 27; ++i) if (ev[i] < -1e-10 * mx) bad++;
        rc__sh_stretch_tri(q, q + 21, &s.c, RC__SH_HESS | RC__SH_PROJECT_ABS, NULL, H);
        memcpy(A, H, 225 * sizeof(double));
        rc__sym_eig(15, A, ev, V);
        mx = 0;
        for (i = 0; i < 15; ++i) if (fabs(ev[i]) > mx) mx = fabs(ev[i]);
        for (i = 0; i < 15; ++i) if (ev[i] < -1e-10 * mx) bad++;
    }
    {
        double u0[6] = {0, 0, 1, 0, 0, 1}, u[6] = {0, 0, 3, 0.5, 0.1, 0.6}, Dm[4], mx = 0;
        rc__mips_dminv(u0, Dm);
        CHECK(rc__mips_tri(u, Dm, 1.0, 2.5, 0, NULL, NULL) > 0);
        rc__mips_tri(u, Dm, 1.0, 2.5, RC__SH_HESS | RC__SH_PROJECT, NULL, H);
        memcpy(A, H, 36 * sizeof(double));
        rc__sym_eig(6, A, ev, V);
        for (i = 0; i < 6; ++i) if (fabs(ev[i]) > mx) mx = fabs(ev[i]);
        for (i = 0; i < 6; ++i) if (ev[i] < -1e-10 * mx) bad++;
    }
    CHECK(bad == 0);
}

static void test_energy_bad_input(void)
{
    t_mesh M = t_grid(2, 2, 0, 0, 1, 1, 0, 0);
    rc_trimesh m = t_tm(&M);
    rc_material mat = t_mat(), bad;
    double x[27], S, e;
    int i, tris_bad[6];
    for (i = 0; i < M.nv; ++i) {
        x[3 * i] = M.u[2 * i];
        x[3 * i + 1] = M.u[2 * i + 1];
        x[3 * i + 2] = 0;
    }
    CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, NULL, NULL, NULL));
    CHECK(rc_shell_energy(NULL, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_shell_energy(&m, NULL, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_shell_energy(&m, x, M.u, NULL, NULL, &S, NULL, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    x[4] = NAN;
    CHECK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_NON_FINITE);
    x[4] = INFINITY;
    CHECK(rc_shell_energy(&m, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_NON_FINITE);
    x[4] = M.u[3];
    {
        double phi[16];
        for (i = 0; i < 16; ++i) phi[i] = 0;
        phi[3] = NAN;
        CHECK(rc_shell_energy(&m, x, M.u, phi, &mat, &S, NULL, NULL, NULL) == RC_ERR_NON_FINITE);
    }
    bad = mat; bad.thickness = -1e-3;
    CHECK(rc_shell_energy(&m, x, M.u, NULL, &bad, &S, NULL, NULL, NULL) == RC_ERR_BAD_MATERIAL);
    bad = mat; bad.density = 0;
    CHECK(rc_material_validate(&bad) == RC_ERR_BAD_MATERIAL);
    bad = mat; bad.young = -5;
    CHECK(rc_material_validate(&bad) == RC_ERR_BAD_MATERIAL);
    bad = mat; bad.poisson = 0.5;
    CHECK(rc_material_validate(&bad) == RC_ERR_BAD_MATERIAL);
    bad = mat; bad.poisson = -1.0;
    CHECK(rc_material_validate(&bad) == RC_ERR_BAD_MATERIAL);
    bad = mat; bad.poisson = NAN;
    CHECK(rc_material_validate(&bad) != RC_OK);
    bad = rc_material_cotton(); CHECK_OK(rc_material_validate(&bad));
    bad = rc_material_silk(); CHECK_OK(rc_material_validate(&bad));
    bad = rc_material_denim(); CHECK_OK(rc_material_validate(&bad));
    bad = rc_material_proto(); CHECK_OK(rc_material_validate(&bad));
    CHECK(rc_material_validate(NULL) == RC_ERR_INVALID_ARGUMENT);
    /* zero-area reference triangle: collapse vertex 4 (centre) onto vertex 0's line */
    {
        double u2[18];
        memcpy(u2, M.u, sizeof u2);
        u2[2 * 4] = 0.25; u2[2 * 4 + 1] = 0.25;   /* centre onto the diagonal 0-4-8 line: still fine */
        u2[2 * 1] = 0.0; u2[2 * 1 + 1] = 0.0;     /* vertex 1 onto vertex 0: zero area */
        CHECK(rc_shell_energy(&m, x, u2, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_MESH_DEGENERATE);
        CHECK(rc_mips_energy(&m, M.u, u2, 2.5, &e, NULL) == RC_ERR_MESH_DEGENERATE);
        memcpy(u2, M.u, sizeof u2);
        u2[2 * 4] = 1.2;   /* centre pushed past the right edge: inverted triangles */
        CHECK(rc_shell_energy(&m, x, u2, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_INVERTED);
        CHECK_OK(rc_mips_energy(&m, u2, M.u, 2.5, &e, NULL));
        CHECK(e == HUGE_VAL);
        u2[2 * 4] = NAN;
        CHECK(rc_mips_energy(&m, u2, M.u, 2.5, &e, NULL) == RC_ERR_NON_FINITE);
    }
    /* bad indices, non-manifold */
    memcpy(tris_bad, M.tris, sizeof tris_bad);
    {
        rc_trimesh mb = m;
        int saved = M.tris[1];
        M.tris[1] = 99;
        CHECK(rc_shell_energy(&mb, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_MESH_INDEX);
        M.tris[1] = M.tris[0];
        CHECK(rc_shell_energy(&mb, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_MESH_INDEX);
        M.tris[1] = saved;
        mb.num_verts = 0;
        CHECK(rc_shell_energy(&mb, x, M.u, NULL, &mat, &S, NULL, NULL, NULL) == RC_ERR_INVALID_ARGUMENT);
    }
    {
        /* three triangles on one edge (0,1) */
        int tr[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
        rc_trimesh mb;
        rc__sh_edges E;
        mb.num_verts = 5; mb.num_tris = 3; mb.tris = tr;
        CHECK(rc__sh_build_edges(NULL, &mb, &E) == RC_ERR_MESH_NON_MANIFOLD);
    }
    (void)tris_bad;
    t_mesh_free(&M);
}

/* the edge builder: numbering by first appearance, flaps, boundary */
static void test_energy_edges(void)
{
    int tr[6] = {0, 1, 2, 0, 2, 3};
    rc_trimesh m;
    rc__sh_edges E;
    m.num_verts = 4; m.num_tris = 2; m.tris = tr;
    CHECK_OK(rc__sh_build_edges(NULL, &m, &E));
    CHECK(E.ne == 5);
    /* t0: edge 0 = (1,2) id 0, edge 1 = (2,0) id 1, edge 2 = (0,1) id 2; t1: edge 0 = (2,3) id 3,
       edge 1 = (3,0) id 4, edge 2 = (0,2) = id 1 */
    CHECK(E.tri_edge[0] == 0 && E.tri_edge[1] == 1 && E.tri_edge[2] == 2);
    CHECK(E.tri_edge[3] == 3 && E.tri_edge[4] == 4 && E.tri_edge[5] == 1);
    CHECK(E.tri_flap[1] == 3 && E.tri_flap[5] == 1 && E.tri_flap[0] == -1);
    CHECK(E.edge_tri[2] == 0 && E.edge_tri[3] == 1);
    rc__sh_free_edges(NULL, &E);
}

/* the fast projection (Householder + QL) agrees with BASE's Jacobi projection */
static void test_energy_fast_projection(void)
{
    int trial, n, i, j;
    for (trial = 0; trial < 120; ++trial) {
        double H[27 * 27], H1[27 * 27], H2[27 * 27], work[3 * 27 * 27 + 27], d = 0, mx;
        int mode = trial & 1 ? RC__PROJECT_ABS : RC__PROJECT_CLAMP;
        n = 2 + (int)(26 * t_rand());
        if (trial >= 100) { /* real bending / stretch stencils (many tiny and zero eigenvalues) */
            double q[27], g[27];
            t_sctx sc;
            rc_material mt = t_mat();
            sc.c = rc__sh_make_coef(&mt, 1.0);
            sc.vid[0] = 4; sc.vid[1] = 1; sc.vid[2] = 7;
            t_rand_bend(q, &sc.mask, trial % 3 == 0 ? 2.9 : 0.0, 0.8);
            if (trial & 2) { n = 27; rc__sh_bend_tri(q, q + 9, sc.mask, q + 18, sc.vid, q + 21, &sc.c, RC__SH_HESS, g, H); }
            else { n = 15; rc__sh_stretch_tri(q, q + 21, &sc.c, RC__SH_HESS, g, H); }
        } else {
        for (i = 0; i < n; ++i)
            for (j = 0; j <= i; ++j) H[i * n + j] = H[j * n + i] = t_rand() - 0.5 + (i == j ? 0.3 * (trial % 5) : 0.0);
        if (trial % 7 == 0) /* repeated eigenvalues: a rank-deficient matrix */
            for (i = 0; i < n; ++i)
                for (j = 0; j < n; ++j) H[i * n + j] = (i % 3 == j % 3) ? (i < n / 2 ? -1.0 : 1.0) : 0.0;
        for (i = 0; i < n; ++i) for (j = 0; j < i; ++j) H[i * n + j] = H[j * n + i];
        }
        memcpy(H1, H, sizeof(double) * (size_t)(n * n));
        memcpy(H2, H, sizeof(double) * (size_t)(n * n));
        rc__psd_project(n, H1, mode);
        rc__psd_project_jacobi(n, H2, mode, work);
        mx = t_maxabs(H, n * n);
        for (i = 0; i < n * n; ++i)
            if (fabs(H1[i] - H2[i]) > d) d = fabs(H1[i] - H2[i]);
        /* both are backward stable to ~n eps |H|; 1e-10 leaves room for Jacobi's stopping rule */
        CHECKF(d <= 1e-10 * mx, "n %d mode %d diff %.3g", n, mode, d);
    }
    /* exactly-zero rows/columns (dropped before the eigen path, then scattered back): a random
       indefinite matrix with zero rows interleaved, and the bending stencil of a flat sheet at
       phi = 0 (in-plane rows exactly zero, null-space noise ~1e-18 |H| in the rest, the case
       captured from a simulator's first Newton iterations). Same 1e-10 bar as above. */
    for (trial = 0; trial < 20; ++trial) {
        double H[27 * 27], H1[27 * 27], H2[27 * 27], work[3 * 27 * 27 + 27], d = 0, mx;
        int mode = trial & 1 ? RC__PROJECT_ABS : RC__PROJECT_CLAMP, zeros = 0;
        if (trial < 10) {
            n = 27;
            for (i = 0; i < n; ++i)
                for (j = 0; j <= i; ++j)
                    H[i * n + j] = H[j * n + i] = (i % 3 == trial % 3 || j % 3 == trial % 3) ? 0.0 : t_rand() - 0.5;
        } else {
            double q[27], g[27];
            t_sctx sc;
            rc_material mt = t_mat();
            int k;
            sc.c = rc__sh_make_coef(&mt, 1.0);
            sc.vid[0] = 4; sc.vid[1] = 1; sc.vid[2] = 7;
            t_rand_bend(q, &sc.mask, 0.0, 0.0);
            for (k = 0; k < 6; ++k) q[3 * k + 2] = 0.0; /* flat: z = 0, phi = 0 */
            for (k = 0; k < 3; ++k) q[18 + k] = 0.0;
            n = trial & 2 ? 27 : 21;
            rc__sh_bend_tri(q, q + 9, sc.mask, q + 18, sc.vid, q + 21, &sc.c, RC__SH_GRAD | RC__SH_HESS | (n == 21 ? RC__SH_NO_U : 0), g, H);
        }
        for (i = 0; i < n; ++i) {
            for (j = 0; j < n && H[i * n + j] == 0.0; ++j) {}
            zeros += j == n;
        }
        CHECK(zeros > 0);
        memcpy(H1, H, sizeof(double) * (size_t)(n * n));
        memcpy(H2, H, sizeof(double) * (size_t)(n * n));
        rc__psd_project(n, H1, mode);
        rc__psd_project_jacobi(n, H2, mode, work);
        mx = t_maxabs(H, n * n);
        for (i = 0; i < n * n; ++i)
            if (fabs(H1[i] - H2[i]) > d) d = fabs(H1[i] - H2[i]);
        CHECKF(d <= 1e-10 * mx, "zero rows: n %d mode %d diff %.3g", n, mode, d);
    }
}

/* Session 31: an edge of a sliver triangle, far from the origin (a review's probe pulled a sheet
   by 1e12 N into a needle 1e8 m up, 100 m long, 1e-5 m wide). The squared height N = ee aa - ea^2
   (Lagrange's identity) cancelled to 0 or below, h = sqrt(N / ee) came out 0 or NaN and the
   bending gradient NaN with a finite energy, so every later step failed. |e x a|^2 keeps N exact
   to round-off: here e = (1e-7, 0, 100), a = (0, 1e-7, 200), N = 5e-10 (Lagrange: 4e8 - 4e8). */
static void test_energy_bend_sliver_height(void)
{
    const double base = 1.0892e8;
    double A[3] = { 0.5, 0.5, base }, B[3], q[3], h = -1.0, th = 0.0, Ntrue = 5e-10;
    rc__sh_edged E;
    int k, finite = 1;
    B[0] = A[0] + 1e-7; B[1] = A[1]; B[2] = A[2] + 100.0;
    q[0] = A[0]; q[1] = A[1] + 1e-7; q[2] = A[2] + 200.0;
    /* the differences as the kernels form them: B - A etc. in doubles at 1e8 */
    {
        double e[3], a[3], cr[3];
        rc__sub3(e, B, A); rc__sub3(a, q, A);
        rc__cross3(cr, e, a);
        Ntrue = rc__dot3(cr, cr);   /* about 5e-10 (the differences carry the 1e8 coordinates' round-off) */
    }
    rc__sh_edge_geom(q, A, B, NULL, &h, &th);
    rc__sh_edge_eval(q, A, B, NULL, 0.3, 1.0, 0.0, 2, &E);
    for (k = 0; k < 4; ++k) finite &= rc__all_finite(E.V[k], 9);
    printf("    sliver edge: N %.4g (|e x a|^2 of the differences %.4g), h %.4g m\n", E.N, Ntrue, h);
    CHECK(Ntrue > 4e-10 && Ntrue < 6e-10);
    CHECK_NEAR(E.N, Ntrue, 1e-6 * Ntrue);
    CHECK_NEAR(h, sqrt(Ntrue / E.ee), 1e-6 * sqrt(Ntrue / E.ee));
    CHECK(finite);
    CHECK(rc__isfinite(E.II) && rc__isfinite(E.h) && E.h > 0.0);
}

/* The material law on sliver reference triangles, against an independent evaluation. The kernels
   once wrote the isotropic law over abar = D_u^T D_u, whose det abar = p s - r^2 cancels to round-off
   once the height falls below ~1e-8 of the edge: on 1e5 random slivers (heights 1e-2 .. 1e-9 of
   the edge) 25% were off by more than 1e-3, 4% infinite and 3% NaN, and a collapsed drape's
   bending energy reached -2e177 J. The reference here puts the (rounded) triangle in its own
   frame in long double: e1 along the first axis, D_c = [[L, s], [0, h]] with h = (e1 x e2)/L,
   X = D_c^-T m D_c^-1 (frame-invariant: tr X and |X|_F are what the isotropic law reads),
   W = c A [alpha/2 (tr X)^2 + beta |X|_F^2], A = L h / 2 -- no adjugate, no |J|^-3, and the
   material constants taken from rc_material, not from rc__sh_coef. What double precision allows
   the kernel: J = det D_u carries ~1e-16 of the edge^2 of round-off, which is 1e-16/h_rel of J
   and 3x that of W ~ |J|^-3; the bar is 1e-14/h_rel relative (measured worst 4.6e-16/h_rel; the
   abar form fails it by orders of magnitude, and with NaN and inf values). */
static void test_energy_law_sliver(void)
{
    rc_material m = t_mat();
    rc__sh_coef c = rc__sh_make_coef(&m, 0.7);
    long double al = (long double)m.young * m.poisson / (1.0L - (long double)m.poisson * m.poisson);
    long double be = (long double)m.young / (2.0L * (1.0L + m.poisson));
    long double tau = m.thickness, cst = tau / 4.0L, cbd = 0.7L * tau * tau * tau / 12.0L;
    double worst = 0.0;   /* max over trials of relerr * h_rel */
    int trial, finite = 1, k;
    for (trial = 0; trial < 4000; ++trial) {
        double hrel = pow(10.0, -2.0 - 7.0 * t_rand()), Lq = 0.5 + t_rand(), sq = (0.2 + 0.6 * t_rand()) * Lq;
        double th = 6.283185307179586 * t_rand(), ct = cos(th), st = sin(th), ox = t_rand() - 0.5, oy = t_rand() - 0.5;
        double u[6], x[9], ur[6], g[15], H[15 * 15], bb[3], vb, vs;
        long double e1[2], e2[2], L, s, h, Di[4], a[3], X[3], val[2];
        int w;
        double loc[6] = {0.0, 0.0, Lq, 0.0, sq, hrel * Lq};
        for (k = 0; k < 3; ++k) {
            u[2 * k] = ox + ct * loc[2 * k] - st * loc[2 * k + 1];
            u[2 * k + 1] = oy + st * loc[2 * k] + ct * loc[2 * k + 1];
        }
        /* the reference frame of the rounded u */
        e1[0] = (long double)u[2] - u[0]; e1[1] = (long double)u[3] - u[1];
        e2[0] = (long double)u[4] - u[0]; e2[1] = (long double)u[5] - u[1];
        L = sqrtl(e1[0] * e1[0] + e1[1] * e1[1]);
        s = (e1[0] * e2[0] + e1[1] * e2[1]) / L;
        h = (e1[0] * e2[1] - e1[1] * e2[0]) / L;
        Di[0] = 1.0L / L; Di[1] = -s / (L * h); Di[2] = 0.0L; Di[3] = 1.0L / h;   /* D_c^-1, row-major */
        /* stretch: a random world triangle; bending: a random second fundamental form */
        t_rand_tri(ur, x);   /* a random world triangle (its reference ur unused) */
        for (k = 0; k < 3; ++k) bb[k] = 2.0 * t_rand() - 1.0;
        for (w = 0; w < 2; ++w) {
            long double mm[3], P, Q, R, tr, fro;
            if (w == 0) {
                long double f1[3], f2[3];
                for (k = 0; k < 3; ++k) { f1[k] = (long double)x[3 + k] - x[k]; f2[k] = (long double)x[6 + k] - x[k]; }
                a[0] = f1[0] * f1[0] + f1[1] * f1[1] + f1[2] * f1[2];
                a[1] = f1[0] * f2[0] + f1[1] * f2[1] + f1[2] * f2[2];
                a[2] = f2[0] * f2[0] + f2[1] * f2[1] + f2[2] * f2[2];
                for (k = 0; k < 3; ++k) mm[k] = a[k];
            } else {
                for (k = 0; k < 3; ++k) mm[k] = bb[k];
            }
            /* X = Di^T mm Di (- I for stretch): Di = [[Di0, Di1], [0, Di3]] */
            P = Di[0] * Di[0] * mm[0];
            Q = Di[0] * (Di[1] * mm[0] + Di[3] * mm[1]);
            R = Di[1] * Di[1] * mm[0] + 2.0L * Di[1] * Di[3] * mm[1] + Di[3] * Di[3] * mm[2];
            X[0] = P - (w == 0 ? 1.0L : 0.0L); X[1] = Q; X[2] = R - (w == 0 ? 1.0L : 0.0L);
            tr = X[0] + X[2];
            fro = X[0] * X[0] + 2.0L * X[1] * X[1] + X[2] * X[2];
            val[w] = (w == 0 ? cst : cbd) * (L * h / 2.0L) * (al / 2.0L * tr * tr + be * fro);
        }
        vs = rc__sh_stretch_tri(x, u, &c, RC__SH_GRAD | RC__SH_HESS, g, H);
        finite &= rc__isfinite(vs) && rc__all_finite(g, 15) && rc__all_finite(H, 225);
        /* bending through its own kernel needs b: the law's value at b is Wo(u, b) */
        {
            rc__sh_wo W;
            rc__sh_Wo(u, bb, c.Cb, 2, &W);
            vb = W.v;
            finite &= rc__isfinite(W.v) && rc__all_finite(W.g, 7) && rc__all_finite(W.h, 49);
        }
        for (w = 0; w < 2; ++w) {
            double v = w == 0 ? vs : vb, ref = (double)val[w], err = fabs(v - ref) / ref;
            if (!(v >= 0.0)) finite = 0;
            if (!(err * hrel <= worst)) worst = err * hrel;   /* NaN propagates into worst */
        }
    }
    printf("    material law on slivers (h/edge 1e-2 .. 1e-9): worst relative error x h/edge %.3g\n", worst);
    CHECK(finite);
    CHECKF(worst < 1e-14, "law on slivers: relative error x h_rel %.3g (bar 1e-14)", worst);
    /* Small strain on a sliver: x = F u, F = R [[a, t], [0, b]] (R a random rotation, strains
       eps ~ 1e-2), so the world triangle is a sliver too and the thin direction's strain is what
       round-off can destroy. Exact: S = tau A [alpha/2 (tr E)^2 + beta |E|_F^2], E = (F^T F - I)/2
       (long double, A from the rounded u). The rounding of x = F u itself puts ~1e-16/h_rel of
       error into that strain, ~1e-16/(h_rel eps) into S: the bar is 1e-13/(h_rel eps) (measured
       1.7e-15; the stretch over the world metric a = D_x^T D_x, session 55's first form, reached
       6.5e-5 at h_rel 1e-7 and inf at 1e-8, ~1e-16/h_rel^2). */
    {
        long double tau = m.thickness;
        double worst2 = 0.0;
        rc__sh_coef c1 = rc__sh_make_coef(&m, 1.0);
        for (trial = 0; trial < 4000; ++trial) {
            double hrel = pow(10.0, -2.0 - 7.0 * t_rand()), Lq = 0.5 + t_rand(), sq = (0.2 + 0.6 * t_rand()) * Lq;
            double th = 6.283185307179586 * t_rand(), ct = cos(th), st = sin(th), eps = 1e-2;
            double a = 1.0 + eps * (2.0 * t_rand() - 1.0), b = 1.0 + eps * (2.0 * t_rand() - 1.0), t = eps * (2.0 * t_rand() - 1.0);
            double loc[6] = { 0.0, 0.0, Lq, 0.0, sq, hrel * Lq }, u[6], x[9], R[9], v, err;
            t_rot3(R);
            for (k = 0; k < 3; ++k) {
                double p0, p1;
                int r;
                u[2 * k] = 0.3 + ct * loc[2 * k] - st * loc[2 * k + 1];
                u[2 * k + 1] = -0.2 + st * loc[2 * k] + ct * loc[2 * k + 1];
                p0 = a * u[2 * k] + t * u[2 * k + 1];
                p1 = b * u[2 * k + 1];
                for (r = 0; r < 3; ++r) x[3 * k + r] = R[3 * r] * p0 + R[3 * r + 1] * p1;
            }
            {
                long double E11 = ((long double)a * a - 1.0L) / 2.0L, E12 = (long double)a * t / 2.0L;
                long double E22 = ((long double)t * t + (long double)b * b - 1.0L) / 2.0L, tr = E11 + E22;
                long double A = (((long double)u[2] - u[0]) * ((long double)u[5] - u[1]) - ((long double)u[3] - u[1]) * ((long double)u[4] - u[0])) / 2.0L;
                long double ref = tau * A * (al / 2.0L * tr * tr + be * (E11 * E11 + 2.0L * E12 * E12 + E22 * E22));
                v = rc__sh_stretch_tri(x, u, &c1, 0, NULL, NULL);
                err = fabs(v - (double)ref) / (double)ref;
            }
            if (!(err * hrel * eps <= worst2)) worst2 = err * hrel * eps;
        }
        printf("    stretch of slivers at small strain: worst relative error x h/edge x strain %.3g\n", worst2);
        CHECKF(worst2 < 1e-13, "sliver stretch at small strain: %.3g (bar 1e-13)", worst2);
    }
}

/* rc_shell_energy over the range of scales: the energy of a bent, stretched sheet is the same at
   every scale (bending exactly scale-free, stretch ~ size^2), phi minimised or given; outside
   1e-20 to 1e20 m the call is refused and the outputs untouched. A probe (session 55) found a
   sheet scaled by 1e-30 returned with RC_OK the bending energy at phi = 0 (the minimisation's
   stencil matrix NaN from 0 * inf, every angle skipped as minimal; rc__sh_bend_Wmm) and at 1e-40
   a stretch energy of 0 for 3e-83 J (underflow). */
static void test_energy_shell_scale_range(void)
{
    t_mesh M = t_grid(4, 4, 0, 0, 0.3, 0.3, 1, 0.0);
    rc_trimesh m = t_tm(&M);
    rc_material mats[2];
    double x[75], xs[75], us[50], R = 0.2, worst = 0.0;
    static const double scales[6] = { 1e-18, 1e-12, 1e-3, 1e3, 1e12, 1e18 };
    int i, k, mi;
    mats[0] = rc_material_cotton();
    mats[1] = rc_material_fabric_denim();
    for (i = 0; i < M.nv; ++i) {
        double a = M.u[2 * i], b = M.u[2 * i + 1];
        x[3 * i] = R * sin(1.02 * a / R); x[3 * i + 1] = 0.99 * b; x[3 * i + 2] = R * (1 - cos(1.02 * a / R));
    }
    for (mi = 0; mi < 2; ++mi) {
        double S0, B0;
        CHECK_OK(rc_shell_energy(&m, x, M.u, NULL, &mats[mi], &S0, &B0, NULL, NULL));
        CHECK(B0 > 0.0 && S0 > 0.0);
        for (k = 0; k < 6; ++k) {
            double S = -1.0, B = -1.0;
            for (i = 0; i < 3 * M.nv; ++i) xs[i] = x[i] * scales[k];
            for (i = 0; i < 2 * M.nv; ++i) us[i] = M.u[i] * scales[k];
            CHECK_OK(rc_shell_energy(&m, xs, us, NULL, &mats[mi], &S, &B, NULL, NULL));
            worst = fmax(worst, fabs(B / B0 - 1.0));
            worst = fmax(worst, fabs(S / (scales[k] * scales[k]) / S0 - 1.0));
        }
        for (k = 0; k < 2; ++k) {
            double sc = k ? 1e21 : 1e-21, S = -1.0, B = -1.0, gx[75], gu[50];
            int same = 1;
            for (i = 0; i < 3 * M.nv; ++i) { xs[i] = x[i] * sc; gx[i] = 5.0; }
            for (i = 0; i < 2 * M.nv; ++i) { us[i] = M.u[i] * sc; gu[i] = 6.0; }
            CHECK(rc_shell_energy(&m, xs, us, NULL, &mats[mi], &S, &B, gx, gu) == RC_ERR_INVALID_ARGUMENT);
            for (i = 0; i < 3 * M.nv; ++i) same &= gx[i] == 5.0;
            for (i = 0; i < 2 * M.nv; ++i) same &= gu[i] == 6.0;
            CHECK(same && S == -1.0 && B == -1.0);
        }
    }
    printf("    bent sheet scaled by 1e-18 .. 1e18: energies off the unit sheet's by %.3g (relative)\n", worst);
    CHECKF(worst < 1e-9, "scale dependence %.3g", worst);
    t_mesh_free(&M);
}

static void suite_energy(void)
{
    RUN(test_energy_fast_projection);
    RUN(test_energy_edges);
    RUN(test_energy_fd_stretch);
    RUN(test_energy_fd_bend);
    RUN(test_energy_bend_hinge_unwrap);
    RUN(test_energy_bend_flat_fold_director);
    RUN(test_energy_bend_vector_form);
    RUN(test_energy_bend_sliver_height);
    RUN(test_energy_law_sliver);
    RUN(test_energy_shell_scale_range);
    RUN(test_energy_fd_mips);
    RUN(test_energy_fd_inertia);
    RUN(test_energy_inertia_exact);
    RUN(test_energy_mass_conservation);
    RUN(test_energy_invariance);
    RUN(test_energy_public_gradient);
    RUN(test_energy_stretch_stvk);
    RUN(test_energy_cylinder);
    RUN(test_energy_twist);
    RUN(test_energy_schur_projection);
    RUN(test_energy_gauss_newton_bending);
    RUN(test_energy_projection);
    RUN(test_energy_bad_input);
}
