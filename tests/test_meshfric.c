/* tests/test_meshfric.c - lagged IPC friction on every mesh-obstacle pair kind: cloth vertex -
   obstacle triangle (kind 0), obstacle vertex - cloth triangle (kind 1), cloth edge - obstacle
   edge (kind 2); and on the analytic shapes' round-core pairs (a core's point against a cloth
   triangle, its axis against a cloth edge). Included by tests/main.c after test_sim.c. */

/* A "tent" (hip roof) obstacle: ridge from (xr, -ly, 0) to (xr, ly, 0), 45-degree faces down to a
   base rectangle at z = -hb; closed, 6 vertices, 8 triangles. dy shifts it along y. */
static void t_tent(double xr, double ly, double hb, double dy, double *v, int *t)
{
    static const int tt[24] = { 0, 1, 5, 0, 5, 2, 1, 0, 3, 1, 3, 4, 0, 2, 3, 1, 4, 5, 2, 5, 4, 2, 4, 3 };
    double p[18];
    int k;
    p[0] = xr;      p[1] = -ly;      p[2] = 0.0;
    p[3] = xr;      p[4] = ly;       p[5] = 0.0;
    p[6] = xr - hb; p[7] = -ly - hb; p[8] = -hb;
    p[9] = xr + hb; p[10] = -ly - hb; p[11] = -hb;
    p[12] = xr + hb; p[13] = ly + hb; p[14] = -hb;
    p[15] = xr - hb; p[16] = ly + hb; p[17] = -hb;
    for (k = 0; k < 6; ++k) p[3 * k + 1] += dy;
    memcpy(v, p, sizeof p);
    if (t) memcpy(t, tt, sizeof tt);
}

/* A 0.1 x 0.1 m sheet (6 x 6 vertices, 2 cm spacing, columns at x = -0.05, -0.03, ..., 0.05) flat
   at z = 2.5 mm (inside the band xi + dhat = 3 mm, outside xi = 1 mm) on two tents whose ridges
   run along y at x = -0.02 and x = 0.02 (between vertex columns) from y = -0.035 to 0.035 (the
   ridge ends lie under the sheet). A cloth vertex is >= 1 cm from a ridge sideways, so >= 8.8 mm
   from the 45-degree faces: the sheet touches the tents only through cloth edges crossing the
   ridges (kind 2) and the ridge end vertices under cloth triangles (kind 1), never kind 0.
   bending_scale 30 makes it a stiff plate that stays flat on the two ridges (no drape onto the
   faces). */
/* the tent scene with the ridges at x = xr[0], xr[1], half length ly each (t_make_tents: the
   default ridges between vertex columns) */
static rc_sim *t_make_tents_at(double mu, int adaptive, const double *xr, double ly, int *ids)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    double tv[18];
    int tt[24], i, k;
    if (rc_mesh_grid(&m, 0.1, 0.1, 6, 6, RC_DIAG_ALTERNATING) != RC_OK) return NULL;
    for (i = 0; i < m.num_verts; ++i) { m.pos[3 * i] -= 0.05; m.pos[3 * i + 1] -= 0.05; m.pos[3 * i + 2] = 0.0025; }
    def.mesh = rc_mesh_describe(&m);
    def.num_threads = 1;
    def.bending_scale = 30.0;
    def.adaptive = adaptive;
    if (rc_sim_create(&def, &s) != RC_OK) s = NULL;
    rc_mesh_free(&m);
    for (k = 0; k < 2 && s; ++k) {
        t_tent(xr[k], ly, 0.03, 0.0, tv, tt);
        if (rc_sim_add_trimesh(s, 6, tv, 8, tt, ids + k) != RC_OK || rc_sim_set_obstacle_friction(s, ids[k], mu) != RC_OK) {
            rc_sim_destroy(s);
            s = NULL;
        }
    }
    return s;
}
static rc_sim *t_make_tents(double mu, int adaptive, int *ids)
{
    static const double xr[2] = { -0.02, 0.02 };
    return t_make_tents_at(mu, adaptive, xr, 0.035, ids);
}

/* the lagged friction records of the obstacles: the cloth vertices' (fm) then the triangles' (ft:
   mesh kinds 1 and 2, an edge pair once in each of its triangles, and the round cores' pairs) */
static int t_fr_count(const rc_sim *s) { return s->nfm + s->nft; }
static const double *t_fr_rec(const rc_sim *s, int q)
{
    return q < s->nfm ? s->fm + (size_t)RC__FM_STRIDE * q : s->ft + (size_t)RC__FM_STRIDE * (q - s->nfm);
}

/* lagged mesh friction records by kind: n cloth vertices 1 (kind 0), 3 (kind 1), 2 (kind 2; an
   edge pair's record is in both its cloth triangles, so counted twice) */
static void t_fm_kinds(const rc_sim *s, int *n0, int *n1, int *n2)
{
    int q;
    *n0 = *n1 = *n2 = 0;
    for (q = 0; q < t_fr_count(s); ++q) {
        int n = (int)t_fr_rec(s, q)[0];
        if (n == 1) (*n0)++;
        else if (n == 3) (*n1)++;
        else if (n == 2) (*n2)++;
    }
}

/* the step set-up of rc__sim_solve up to the lagging of the mesh friction (no solve), with the
   tents moved by dy over the step (so the obstacle side c of every pair is nonzero) */
static void t_tents_prepare_at(rc_sim *s, const int *ids, const double *xr, double ly, double dy)
{
    double tv[18];
    int k;
    for (k = 0; k < 2; ++k) {
        t_tent(xr[k], ly, 0.03, dy, tv, NULL);
        CHECK_OK(rc_sim_set_obstacle_vertices(s, ids[k], tv));
    }
    t_step_setup(s);   /* as a step: the vertices' mass weights, the obstacles' friction */
    CHECK_OK(s->contact_status);
}
static void t_tents_prepare(rc_sim *s, const int *ids, double dy)
{
    static const double xr[2] = { -0.02, 0.02 };
    t_tents_prepare_at(s, ids, xr, 0.035, dy);
}

/* Per pair (rc__sim_fm_pair): the gradient against central differences of the energy and the
   Hessian against central differences of the gradient, over the pair's cloth vertices, in the
   dynamic regime (slip ~0.1-1 mm >> eps = eps_v h = 1e-5 m) and the static one (cloth moved with
   the obstacle up to a residual slip of ~3e-6 m < eps); the Hessian must be PSD. */
static void test_meshfric_pair_derivs(void)
{
    int ids[2], n0, n1, n2, q, reg, checked = 0, nstatic = 0;
    double worst_g = 0.0, worst_H = 0.0, min_eig = 0.0;
    rc_sim *s = t_make_tents(0.4, 0, ids);
    CHECK(s != NULL);
    if (!s) return;
    t_tents_prepare(s, ids, 1e-3);
    t_fm_kinds(s, &n0, &n1, &n2);
    CHECKF(n1 > 0 && n2 > 0, "lagged pairs: %d obstacle vertex - cloth triangle, %d edge-edge", n1, n2);
    CHECKF(n0 == 0, "%d cloth vertex - obstacle triangle pairs in a scene built without them", n0);
    t_seed(11);
    for (q = 0; q < t_fr_count(s); ++q) {
        const double *rec = t_fr_rec(s, q);
        int n = (int)rec[0], k, c, a, b;
        for (reg = 0; reg < 2; ++reg) {
            double *x = (double *)malloc(sizeof(double) * 3 * (size_t)s->nv), g[9], H[81], sw = 0.0, delta[3];
            double gmax = 0.0, Hmax = 0.0, ev[9], evec[81], Hc[81], eps = s->def.friction_eps_v * s->h, hs;
            memcpy(x, s->x0, sizeof(double) * 3 * (size_t)s->nv);
            for (k = 0; k < n; ++k) sw += rec[4 + k];
            /* reg 0: random cloth motion of 0.5 mm; reg 1: the cloth vertices follow the obstacle
               (sum w_k delta + c = 0) plus 3e-6 m random, so |u| < eps = 1e-5 m */
            for (c = 0; c < 3; ++c) delta[c] = reg ? -rec[14 + c] / sw : 0.0;
            for (k = 0; k < n; ++k)
                for (c = 0; c < 3; ++c) x[3 * (int)rec[1 + k] + c] += delta[c] + (reg ? 3e-6 : 5e-4) * (2.0 * t_rand() - 1.0);
            {
                double rel[3], u0, u1;
                for (c = 0; c < 3; ++c) {
                    rel[c] = rec[14 + c];
                    for (k = 0; k < n; ++k) rel[c] += rec[4 + k] * (x[3 * (int)rec[1 + k] + c] - s->x0[3 * (int)rec[1 + k] + c]);
                }
                u0 = rec[8] * rel[0] + rec[10] * rel[1] + rec[12] * rel[2];
                u1 = rec[9] * rel[0] + rec[11] * rel[1] + rec[13] * rel[2];
                if (sqrt(u0 * u0 + u1 * u1) < eps) nstatic++;
            }
            /* h well inside either regime: 1e-9 m << eps (static), 1e-8 m << 0.1 mm (dynamic);
               central-difference truncation O(h^2 f''') is then far below the 1e-6 bound */
            hs = reg ? 1e-10 : 1e-8;
            rc__sim_fm_pair(s, rec, x, g, H);
            for (a = 0; a < 3 * n; ++a) { if (fabs(g[a]) > gmax) gmax = fabs(g[a]); for (b = 0; b < 3 * n; ++b) if (fabs(H[a * 3 * n + b]) > Hmax) Hmax = fabs(H[a * 3 * n + b]); }
            for (a = 0; a < 3 * n; ++a) {
                int v = (int)rec[1 + a / 3];
                double keep = x[3 * v + a % 3], ep, em, gp[9], gm[9], err;
                x[3 * v + a % 3] = keep + hs; ep = rc__sim_fm_pair(s, rec, x, gp, NULL);
                x[3 * v + a % 3] = keep - hs; em = rc__sim_fm_pair(s, rec, x, gm, NULL);
                x[3 * v + a % 3] = keep;
                err = fabs((ep - em) / (2.0 * hs) - g[a]) / (gmax + 1e-30);
                if (err > worst_g) worst_g = err;
                for (b = 0; b < 3 * n; ++b) {
                    err = fabs((gp[b] - gm[b]) / (2.0 * hs) - H[b * 3 * n + a]) / (Hmax + 1e-30);
                    if (err > worst_H) worst_H = err;
                }
                checked++;
            }
            memcpy(Hc, H, sizeof(double) * 9 * (size_t)n * n);
            rc__sym_eig(3 * n, Hc, ev, evec);
            for (a = 0; a < 3 * n; ++a) if (ev[a] / Hmax < min_eig) min_eig = ev[a] / Hmax;
            free(x);
        }
    }
    printf("    %d pairs (%d vertex-triangle, %d edge-edge), %d static states, %d DOFs: worst gradient error %.2e, Hessian %.2e, min eigenvalue / max |H| %.1e\n",
           t_fr_count(s), n1, n2, nstatic, checked, worst_g, worst_H, min_eig);
    CHECKF(nstatic == t_fr_count(s), "%d of %d constructed static states are static", nstatic, t_fr_count(s));
    /* energy differences of ~1e-9 J over 2e-10 m carry round-off ~1e-16 E / h, ~1e-7 of the
       gradient; Hessian differences likewise; a wrong weight, sign or missing term is O(1) */
    CHECKF(worst_g < 1e-5, "gradient error %.2e", worst_g);
    CHECKF(worst_H < 1e-5, "Hessian error %.2e", worst_H);
    CHECKF(min_eig > -1e-12, "Hessian not PSD (min eigenvalue %.2e of max)", min_eig);
    rc_sim_destroy(s);
}

/* The assembled gradient (everything in E, including the new pairs) against central differences
   of the exact energy rc__sim_energy on the x DOFs of the sheet, with the tents moved 1 mm along
   y over the step and the sheet moved 0.3 mm + noise: checks the scatter into the cloth DOFs and
   that the energy and the gradient see the same friction. */
static void t_meshfric_gradient(int adaptive)
{
    int ids[2], i, c, checked = 0;
    double worst = 0.0, gmax = 0.0, Ef;
    rc__terms T;
    rc_sim *s = t_make_tents(0.4, adaptive, ids);
    CHECK(s != NULL);
    if (!s) return;
    t_tents_prepare(s, ids, 1e-3);
    t_seed(5);
    for (i = 0; i < s->nv; ++i) {
        s->x[3 * i + 1] += 3e-4;
        for (c = 0; c < 3; ++c) s->x[3 * i + c] += 1e-4 * (2.0 * t_rand() - 1.0);
    }
    rc__sim_assemble(s, &s->sys_xp, s->x, s->u, s->phi, 0);
    CHECK_OK(s->contact_status);
    rc__sim_energy(s, s->x, s->u, s->phi, &T);
    Ef = T.friction;
    for (i = 0; i < s->sys_xp.ndof; ++i) if (fabs(s->sys_xp.g[i]) > gmax) gmax = fabs(s->sys_xp.g[i]);
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c) {
            int g = s->sys_xp.dof_x[3 * i + c];
            double keep = s->x[3 * i + c], hs = 1e-7, ep, em, err;
            if (g < 0) continue;
            s->x[3 * i + c] = keep + hs; ep = rc__sim_energy(s, s->x, s->u, s->phi, &T);
            s->x[3 * i + c] = keep - hs; em = rc__sim_energy(s, s->x, s->u, s->phi, &T);
            s->x[3 * i + c] = keep;
            err = fabs((ep - em) / (2.0 * hs) - s->sys_xp.g[g]) / (fabs(s->sys_xp.g[g]) + 1e-3 * gmax);
            if (err > worst) worst = err;
            checked++;
        }
    printf("    %s: %d lagged mesh friction pairs, friction energy %.3e J, %d x DOFs: worst relative gradient error %.2e\n",
           adaptive ? "adaptive" : "fixed", t_fr_count(s), Ef, checked, worst);
    CHECKF(Ef > 0.0, "no friction energy (%.3e)", Ef);
    /* as in the self-contact check: h = 1e-7 m is 1/10^4 of the smallest gap - xi (1.5 mm), the
       round-off of E over 2h is ~1e-5 of the gradients; a missing or wrong term is O(1) */
    CHECKF(worst < 1e-4, "gradient error %.2e", worst);
    rc_sim_destroy(s);
}
static void test_meshfric_gradient(void) { t_meshfric_gradient(0); }
static void test_meshfric_gradient_adaptive(void) { t_meshfric_gradient(1); }

/* Behaviour: the stiff sheet rests on the two ridges (contact through edge-edge and obstacle
   vertex - cloth triangle pairs only), then the tents move along the ridges (y), ramping up to
   5 cm/s over 5 steps and moving 1 cm in all. Frictionless, every contact normal is orthogonal
   to y (the ridges run along y; the ridge ends meet cloth triangle interiors), so nothing pushes
   the sheet along y. Returns the sheet's mean y displacement; *tent_dy the tents'. */
/* mean y of 9 material points (uv on a 3 x 3 lattice inside the sheet): in adaptive mode the
   vertices slide through the material, so their mean is not the sheet's motion */
static double t_tents_material_y(const rc_sim *s)
{
    double m = 0.0, uv[2], p[3];
    int a, b;
    for (a = 0; a < 3; ++a)
        for (b = 0; b < 3; ++b) {
            uv[0] = 0.02 + 0.03 * a; uv[1] = 0.02 + 0.03 * b;
            CHECK_OK(rc_sim_material_point(s, uv, p));
            m += p[1] / 9.0;
        }
    return m;
}

static double t_tents_drag(double mu, int adaptive, int nsteps, double *tent_dy, int *n0, int *n1, int *n2, int *fails)
{
    int ids[2], k, j;
    double tv[18], y0, y1, dy = 0.0;
    rc_sim *s = t_make_tents(mu, adaptive, ids);
    *n0 = *n1 = *n2 = 0;
    *fails = 0;
    CHECK(s != NULL);
    if (!s) return 0.0;
    for (k = 0; k < 5; ++k) if (rc_sim_step(s, NULL) != RC_OK) (*fails)++;   /* settle on the ridges */
    y0 = t_tents_material_y(s);
    for (k = 1; k <= nsteps; ++k) {
        dy += 5e-4 * (k < 5 ? k / 5.0 : 1.0);   /* ramp to 0.5 mm per 10 ms step */
        if (dy > 0.01) dy = 0.01;
        for (j = 0; j < 2; ++j) {
            t_tent(j ? 0.02 : -0.02, 0.035, 0.03, dy, tv, NULL);
            CHECK_OK(rc_sim_set_obstacle_vertices(s, ids[j], tv));
        }
        if (rc_sim_step(s, NULL) != RC_OK) (*fails)++;
        if (k == nsteps / 2) t_fm_kinds(s, n0, n1, n2);   /* the pairs lagged mid-motion */
    }
    y1 = t_tents_material_y(s);
    *tent_dy = dy;
    rc_sim_destroy(s);
    return y1 - y0;
}

/* Tents dragged along the ridges, with mu = 0.5 and frictionless (fixed or adaptive mesh). In
   fixed mode only obstacle vertex - cloth triangle and edge-edge pairs occur (the cloth vertices lie
   between the ridges); adaptive vertices may slide onto them, so cloth vertex pairs are allowed.
   Sticking: the ramp accelerates the tents at 1 m/s^2 (1 cm/s more every 10 ms step), well within
   mu g = 4.9 m/s^2, and the smoothed static friction lets the contact creep at most eps_v = 1 mm/s
   (2% of 5 cm/s, over 0.24 s at most 0.24 mm): the sheet (adaptive: the material) follows within
   10%. Frictionless, the flat parts of the contact push only along z. What moves the sheet at all
   is the ridge ends acting as fulcrums under the sheet's drooping overhang (up to 5 mm at the
   corners): a ridge end sliding under a tilted triangle pushes along N * slope. Measured: a
   transient of 0.65 mm that relaxes to 0.4 mm (4% of the travel). Bound: 10%, a factor 9 below
   what friction does (100%). */
static void t_ridge_drag_case(int adaptive, int nsteps)
{
    double tdy, d_mu, d_free;
    int a0, a1, a2, b0, b1, b2, fa, fb;
    d_mu = t_tents_drag(0.5, adaptive, nsteps, &tdy, &a0, &a1, &a2, &fa);
    d_free = t_tents_drag(0.0, adaptive, nsteps, &tdy, &b0, &b1, &b2, &fb);
    printf("    %s: tents moved %.5f m: %s moved %.5f m with mu 0.5 (%d vertex-triangle, %d edge-edge, %d cloth vertex pairs lagged), %.5f m with mu 0\n",
           adaptive ? "adaptive" : "fixed", tdy, adaptive ? "material" : "sheet", d_mu, a1, a2, a0, d_free);
    CHECK(fa == 0 && fb == 0);
    CHECKF(a1 > 0 && a2 > 0 && (adaptive || a0 == 0), "contact kinds: %d cloth vertex, %d obstacle vertex, %d edge-edge", a0, a1, a2);
    CHECKF(b0 + b1 + b2 == 0, "friction pairs lagged with mu = 0");
    CHECKF(d_mu > 0.9 * tdy && d_mu < 1.05 * tdy, "with friction it moved %.5f m of %.5f m", d_mu, tdy);
    CHECKF(fabs(d_free) < 0.1 * tdy, "without friction it moved %.5f m", d_free);
}

static void test_meshfric_ridge_drag(void) { t_ridge_drag_case(0, 24); }

/* The same in adaptive mode (12 steps, 5 mm of travel; each adaptive step costs ~20 fixed ones).
   Friction slip is measured at material points, x_k - x^t(u_k) (issue #5), so the material
   sticks to the ridges while the vertices slide through it. Before that (slip per vertex,
   x_k - x^t_k) the vertices stuck to the ridges but the material crept through them: measured
   0.0029 m of the 0.005 m travel (58%); now 0.0050 m (>99%). Bound 90%, as in fixed mode (the
   sticking argument of test_meshfric_ridge_drag holds for the material). Frictionless: measured
   -0.00008 m (both before and after). The vertices are free to slide onto the ridges now (in
   both runs the closest vertex ends ~0.5 mm from a ridge, as in the frictionless one), so cloth
   vertex - obstacle triangle pairs (kind 0) occur too: only kinds 1 and 2 are required. */
static void test_meshfric_ridge_drag_adaptive(void) { t_ridge_drag_case(1, 12); }

/* Friction slip at material points (issue #5), derivatives in u. In the joint (x, phi, u) system,
   every u entry of the assembled gradient must match central differences of the exact energy
   rc__sim_energy along that u DOF (two per interior vertex, one along the boundary for sliding
   boundary vertices), and so must its friction part alone: the gradient assembled with every
   lagged friction term removed is subtracted, and compared with central differences of
   T.friction (so a missing or wrong u-part of friction cannot hide behind the larger elastic and
   inertial u-gradients). The state: the step set-up with the lagged terms at x^t, then every free
   vertex slid by up to 0.2 mm in u (1% of the 2 cm spacing) and moved by up to 0.1 mm in x. */
/* assemble y at the current state without friction (no mesh or self records, no vertex-obstacle
   normal forces, no core pairs), then restore the lagged terms (lam_keep: the nl saved fr_lambda) */
static void t_slip_nofric_assemble(rc_sim *s, rc__system *y, const double *lam_keep, size_t nl)
{
    int nfm = s->nfm, nfs = s->nfs, *ft_start = s->ft_start;
    if (nl) memset(s->fr_lambda, 0, sizeof(double) * nl);
    s->nfm = 0; s->nfs = 0; s->ft_start = NULL;
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    if (nl) memcpy(s->fr_lambda, lam_keep, sizeof(double) * nl);
    s->nfm = nfm; s->nfs = nfs; s->ft_start = ft_start;
}

/* the direction in u of vertex i's a-th u DOF: a coordinate axis, or the boundary direction of a
   sliding boundary vertex (one DOF) */
static void t_u_dof_dir(const rc_sim *s, const rc__system *y, int i, int a, double *e)
{
    if (y->nu[i] == 2) { e[0] = a == 0; e[1] = a == 1; }
    else { e[0] = rc__sim_u_dir(s, i)[0]; e[1] = rc__sim_u_dir(s, i)[1]; }
}

/* central differences (step hs) along u DOF a of vertex i of the incremental potential (*dE) and of
   one of its terms (*dterm; term = offsetof(rc__terms, field)); u is left as it was */
static void t_u_central_diff(rc_sim *s, const rc__system *y, int i, int a, double hs, size_t term, double *dE, double *dterm)
{
    double e[2], ku[2], ep, em, tp, tm;
    rc__terms T;
    t_u_dof_dir(s, y, i, a, e);
    ku[0] = s->u[2 * i]; ku[1] = s->u[2 * i + 1];
    s->u[2 * i] = ku[0] + hs * e[0]; s->u[2 * i + 1] = ku[1] + hs * e[1];
    ep = rc__sim_energy(s, s->x, s->u, s->phi, &T); tp = *(const double *)((const char *)&T + term);
    s->u[2 * i] = ku[0] - hs * e[0]; s->u[2 * i + 1] = ku[1] - hs * e[1];
    em = rc__sim_energy(s, s->x, s->u, s->phi, &T); tm = *(const double *)((const char *)&T + term);
    s->u[2 * i] = ku[0]; s->u[2 * i + 1] = ku[1];
    *dE = (ep - em) / (2.0 * hs);
    *dterm = (tp - tm) / (2.0 * hs);
}

/* The u columns of an assembled joint Hessian Href (the values of y's pattern) against central
   differences (step hs) of the assembled gradient along every u DOF: of the friction part alone
   (friction_only: the assembly without friction, t_slip_nofric_assemble, subtracted) or of the
   whole. Returns the largest absolute error. */
static double t_hess_u_columns(rc_sim *s, rc__system *y, const double *Href, double hs, int friction_only,
                               const double *lam_keep, size_t nl)
{
    double *gp = (double *)malloc(sizeof(double) * (size_t)y->ndof), worst = 0.0;
    int i, a, k;
    for (i = 0; i < s->nv; ++i)
        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
            int j = y->dof_u[i] + a, sg;
            double e[2], ku[2];
            t_u_dof_dir(s, y, i, a, e);
            ku[0] = s->u[2 * i]; ku[1] = s->u[2 * i + 1];
            for (sg = 0; sg < 2; ++sg) {   /* gp = gradient at u + h e, then minus at u - h e */
                double sgn = sg ? -1.0 : 1.0;
                s->u[2 * i] = ku[0] + sgn * hs * e[0]; s->u[2 * i + 1] = ku[1] + sgn * hs * e[1];
                rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                for (k = 0; k < y->ndof; ++k) gp[k] = sg ? gp[k] - y->g[k] : y->g[k];
                if (friction_only) {
                    t_slip_nofric_assemble(s, y, lam_keep, nl);
                    for (k = 0; k < y->ndof; ++k) gp[k] += sg ? y->g[k] : -y->g[k];
                }
            }
            s->u[2 * i] = ku[0]; s->u[2 * i + 1] = ku[1];
            for (k = 0; k < y->ndof; ++k) {
                int pos = rc__system_find(y, k < j ? k : j, k < j ? j : k);
                double hv = pos >= 0 ? Href[pos] : 0.0, err = fabs(gp[k] / (2.0 * hs) - hv);
                if (err > worst) worst = err;
            }
        }
    free(gp);
    return worst;
}

static void t_slip_u_check(rc_sim *s, const char *name)
{
    rc__system *y = &s->sys_xpu;
    rc__terms T;
    double *gtot, *gnof, *lam_keep, gmax = 0.0, fmax = 0.0, worst = 0.0, worst_f = 0.0, worst_h = 0.0, hmax = 0.0;
    int i, a, c, checked = 0;
    size_t nl = (size_t)s->nobs * s->nv;
    memset(&T, 0, sizeof T);
    t_seed(17);
    for (i = 0; i < s->nv; ++i) {
        double r0 = 2e-4 * (2.0 * t_rand() - 1.0), r1 = 2e-4 * (2.0 * t_rand() - 1.0);
        if (y->dof_u[i] >= 0 && y->nu[i] == 2) { s->u[2 * i] += r0; s->u[2 * i + 1] += r1; }
        else if (y->dof_u[i] >= 0) { const double *dir = rc__sim_u_dir(s, i); s->u[2 * i] += r0 * dir[0]; s->u[2 * i + 1] += r0 * dir[1]; }
        if (!s->pinned[i]) for (c = 0; c < 3; ++c) s->x[3 * i + c] += 1e-4 * (2.0 * t_rand() - 1.0);
    }
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    CHECK_OK(s->contact_status);
    gtot = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gnof = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    lam_keep = (double *)malloc(sizeof(double) * (nl ? nl : 1));
    memcpy(gtot, y->g, sizeof(double) * (size_t)y->ndof);
    if (nl) memcpy(lam_keep, s->fr_lambda, sizeof(double) * nl);   /* fr_lambda is NULL without obstacles */
    t_slip_nofric_assemble(s, y, lam_keep, nl);
    CHECK_OK(s->contact_status);
    memcpy(gnof, y->g, sizeof(double) * (size_t)y->ndof);
    for (i = 0; i < s->nv; ++i)
        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
            int j = y->dof_u[i] + a;
            if (fabs(gtot[j]) > gmax) gmax = fabs(gtot[j]);
            if (fabs(gtot[j] - gnof[j]) > fmax) fmax = fabs(gtot[j] - gnof[j]);
        }
    for (i = 0; i < s->nv; ++i)
        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
            int j = y->dof_u[i] + a;
            double fd, ffd, gf = gtot[j] - gnof[j], err;
            t_u_central_diff(s, y, i, a, 1e-7, offsetof(rc__terms, friction), &fd, &ffd);
            err = fabs(fd - gtot[j]) / (fabs(gtot[j]) + 1e-3 * gmax);
            if (err > worst) worst = err;
            err = fabs(ffd - gf) / (fabs(gf) + 1e-3 * fmax);
            if (err > worst_f) worst_f = err;
            checked++;
        }
    {
        /* the friction part of the u columns of the joint Hessian ((x, u) and (u, u) blocks)
           against central differences of the friction part of the assembled gradient */
        int nnz = y->colptr[y->ndof], k;
        double *Hf = (double *)malloc(sizeof(double) * (size_t)nnz), hs = 1e-8;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        memcpy(Hf, y->val, sizeof(double) * (size_t)nnz);
        t_slip_nofric_assemble(s, y, lam_keep, nl);
        CHECKF(y->colptr[y->ndof] == nnz, "pattern changed between assemblies");
        for (k = 0; k < nnz; ++k) { Hf[k] -= y->val[k]; if (fabs(Hf[k]) > hmax) hmax = fabs(Hf[k]); }
        worst_h = t_hess_u_columns(s, y, Hf, hs, 1, lam_keep, nl);
        worst_h /= hmax + 1e-300;
        if (s->proj == -1) {
            /* the whole joint Hessian's u columns (contact of every pair kind, weighted by the
               cloth's area or mass, the inertia, the shell) against central differences of the
               whole assembled gradient: exact with s->proj = -1 */
            double tmax = 0.0, worst_t;
            rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
            memcpy(Hf, y->val, sizeof(double) * (size_t)nnz);
            for (k = 0; k < nnz; ++k) if (fabs(Hf[k]) > tmax) tmax = fabs(Hf[k]);
            worst_t = t_hess_u_columns(s, y, Hf, hs, 0, NULL, 0);
            worst_t /= tmax;
            printf("    %s: the joint Hessian's u columns: error %.2e of max %.3e\n", name, worst_t, tmax);
            CHECKF(worst_t < 1e-5, "joint Hessian u columns error %.2e", worst_t);
        }
        free(Hf);
    }
    rc__sim_energy(s, s->x, s->u, s->phi, &T);   /* the terms at the checked state, for the line below */
    printf("    %s: %d mesh vertex + %d triangle + %d self friction records, friction energy %.3e J, %d u DOFs: worst relative error %.2e (total), %.2e (friction part); max |g_u| %.3e, of it friction %.3e; friction Hessian u columns: error %.2e of max %.3e\n",
           name, s->nfm, s->nft, s->nfs, T.friction, checked, worst, worst_f, gmax, fmax, worst_h, hmax);
    /* the friction Hessian is exact away from y = eps_v h (test_meshfric_pair_derivs); h = 1e-8
       m keeps 1e-8 m << eps = 1e-5 m and the round-off ~1e-16 |g| / h ~ 1e-8 of max |H| */
    CHECKF(worst_h < 1e-5, "friction Hessian u columns error %.2e", worst_h);
    CHECK(checked > 0);
    /* the friction part must be there at all (a missing u-part gives fmax = 0 and an O(1) error) */
    CHECKF(fmax > 1e-6 * gmax && fmax > 0.0, "no friction in the u gradient (%.3e of %.3e)", fmax, gmax);
    /* h = 1e-7 m is 1/2000 of the u perturbation and 1/10^4 of the smallest gap - xi: truncation
       O(h^2) is far below the round-off of E over 2h (~1e-16 |E| / h, ~1e-6 of these gradients,
       as in the x checks of t_meshfric_gradient and t_self_gradient); a wrong sign, a missing
       G0 or Q factor is an O(1) error */
    CHECKF(worst < 1e-4, "u gradient error %.2e", worst);
    CHECKF(worst_f < 1e-4, "friction u gradient error %.2e", worst_f);
    free(gtot); free(gnof); free(lam_keep);
}

/* mesh friction (tents moved 1 mm along y) and vertex - analytic obstacle friction (a plane under
   the sheet at z = 0, sheet 2.5 mm above it: inside the band; the plane turned 0.05 rad about its
   normal and shifted 1 mm over the step, so the anchor's carried gradient Q G0 differs from G0) */
static void test_meshfric_slip_u_derivs_mesh(void)
{
    int ids[2], pid;
    double p0[3] = { 0, 0, 0 }, n[3] = { 0, 0, 1 }, t[3] = { 1e-3, 0, 0 }, R[9], th = 0.05;
    rc_sim *s = t_make_tents(0.4, 1, ids);
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(rc_sim_add_plane(s, p0, n, &pid));
    R[0] = cos(th); R[1] = -sin(th); R[2] = 0; R[3] = sin(th); R[4] = cos(th); R[5] = 0; R[6] = 0; R[7] = 0; R[8] = 1;
    CHECK_OK(rc_sim_move_obstacle(s, pid, t, R));
    t_tents_prepare(s, ids, 1e-3);
    {
        int i, nl = 0;
        for (i = 0; i < s->nv; ++i) nl += s->fr_lambda[(size_t)pid * s->nv + i] > 0.0;
        CHECKF(nl == s->nv, "%d of %d vertices have plane friction", nl, s->nv);
    }
    CHECK(s->nft > 0);   /* the tents: kinds 1 and 2, terms of the triangles */
    /* adaptive, the plane's friction is a triangle term of element A (weighted by the vertices'
       mass, rc__sim_tri_friction), whose Hessian is projected as a sum: the exact Hessian here,
       so that assembling without friction subtracts exactly its part */
    s->proj = -1;
    t_slip_u_check(s, "tents + turned plane");
    rc_sim_destroy(s);
}

/* a flat mesh floor under the sheet: cloth vertex - obstacle triangle pairs (kind 0), whose
   friction is weighted in adaptive mode by the vertex's mass as u moves (rc__sim_mesh_friction,
   rc__sim_scatter_weighted); the floor (a 0.3 m square, two triangles, at z = 0, sheet at 2.5 mm)
   turned 0.05 rad about z and shifted 1 mm over the step */
static void t_floor(double th, double dx, double *v)
{
    int k;
    static const double p[12] = { -0.15, -0.15, 0, 0.15, -0.15, 0, 0.15, 0.15, 0, -0.15, 0.15, 0 };
    for (k = 0; k < 4; ++k) {
        v[3 * k] = cos(th) * p[3 * k] - sin(th) * p[3 * k + 1] + dx;
        v[3 * k + 1] = sin(th) * p[3 * k] + cos(th) * p[3 * k + 1];
        v[3 * k + 2] = 0.0;
    }
}
static void test_meshfric_slip_u_derivs_floor(void)
{
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    double fv[12], o[3] = { -0.05, -0.05, 0.0025 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 };
    int ft[6] = { 0, 1, 2, 0, 2, 3 }, id = -1, n0, n1, n2;
    def.num_threads = 1;
    def.adaptive = 1;
    s = t_sim_grid(&def, 6, 6, 0.1, 0.1, o, ex, ey);
    if (!s) return;
    t_floor(0.0, 0.0, fv);
    CHECK_OK(rc_sim_add_trimesh(s, 4, fv, 2, ft, &id));
    CHECK_OK(rc_sim_set_obstacle_friction(s, id, 0.4));
    t_floor(0.05, 1e-3, fv);
    CHECK_OK(rc_sim_set_obstacle_vertices(s, id, fv));
    t_step_setup(s);   /* the vertices' mass weights, the friction pairs */
    CHECK_OK(s->contact_status);
    t_fm_kinds(s, &n0, &n1, &n2);
    CHECKF(n0 >= s->nv, "%d kind-0 pairs for %d vertices", n0, s->nv);   /* near the diagonal: one per floor triangle */
    s->proj = -1;   /* the weighted terms' joint Hessian is projected otherwise (rc__sim_scatter_weighted) */
    t_slip_u_check(s, "floor mesh");
    rc_sim_destroy(s);
}

/* self friction: the two layers of t_make_two_layers (test_sim.c) */
static void test_meshfric_slip_u_derivs_self(void)
{
    rc_sim *s = t_make_two_layers(1, 0.3);
    CHECK(s != NULL);
    if (!s) return;
    t_self_prepare_step(s);
    rc__sim_recover_gradients(s, s->u0_step, s->x0, s->fr_G);   /* as rc__sim_solve does */
    CHECK(s->nfs > 0);
    t_slip_u_check(s, "two layers");
    rc_sim_destroy(s);
}

/* The assembled gradient and the x columns of the assembled Hessian where barrier pairs and their
   friction act (and seams: test_garment.c), against central differences of the energy and of the
   assembled gradient. The pair kernels are checked against differences on their own
   (test_contact.c, test_meshfric_pair_derivs); this checks what the assembly makes of them: the
   copies of a pair's blocks into its triangles (mesh kinds 1 and 2, an edge pair in both its
   triangles), the inclusion-exclusion weights of the point-edge and point-point terms, the mass
   and area weights, the scatter of self pairs and of every friction record. The library projects
   each pair's Hessian (s->pair_proj); with it and the elements exact (s->proj = -1) the assembly
   is E's exact Hessian, and the friction Hessians are exact anyway (away from slip eps_v h). A
   session-63 audit found that doubling the self pairs', the mesh kind-1 pairs', the cloth-vertex
   mesh friction's or the self friction's Hessian in the assembly, or swapping the edge pairs'
   local columns, passed every derivative check (the assembled Hessians were only checked on a box
   top without pairs, and the self pairs' by an inequality).
   The part under test (the assembly less the same assembly by `off`, on the same pattern) sets
   the scale: err = |FD - H| / (|H_part| + 1e-3 max |H_part|) over every entry of every free x
   column, returned; *gworst the same for the gradient over the free x DOFs (the energy's central
   differences, step 1e-7 m); *checked and *pmax (max |H_part|) report. */
/* column j of an assembled Hessian (values H on y's pattern) against a difference of gradients
   (dg over step width w), scaled by the part under test (Hp, its largest entry pmax): the largest
   of worst and |dg / w - H| / (|Hp| + 1e-3 pmax) over the column (NaN counts as worst) */
static double t_column_err(const rc__system *y, int j, const double *dg, double w, const double *H, const double *Hp, double pmax,
                           double worst)
{
    int k;
    for (k = 0; k < y->ndof; ++k) {
        int pos = rc__system_find(y, k < j ? k : j, k < j ? j : k);
        double hv = pos >= 0 ? H[pos] : 0.0, hc = pos >= 0 ? Hp[pos] : 0.0;
        double err = fabs(dg[k] / w - hv) / (fabs(hc) + 1e-3 * pmax + 1e-300);
        if (!(err <= worst)) worst = err;
    }
    return worst;
}
#ifdef T_SANITIZED
#define T_PART_STRIDE 4   /* the sanitizer build checks every 4th vertex's columns (the same code paths, a quarter of the time) */
#else
#define T_PART_STRIDE 1
#endif
static double t_hess_x_columns_part(rc_sim *s, rc__system *y, void (*off)(rc_sim *, rc__system *), int *checked, double *pmax,
                                    double *gworst)
{
    int nnz, k, i, c;
    double *Hon, *Hc, *gp, *gon, *gpart, hs = 1e-8, worst = 0.0, gmax = 0.0;
    rc__terms T;
    *checked = 0; *pmax = 0.0; *gworst = 0.0;
    s->proj = -1;
    s->pair_proj = -1;
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);   /* grows the pattern for the pairs */
    CHECK_OK(s->contact_status);
    nnz = y->colptr[y->ndof];
    Hon = (double *)malloc(sizeof(double) * (size_t)nnz);
    Hc = (double *)malloc(sizeof(double) * (size_t)nnz);
    gp = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gon = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gpart = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    CHECK(Hon && Hc && gp && gon && gpart);
    if (Hon && Hc && gp && gon && gpart) {
        memcpy(Hon, y->val, sizeof(double) * (size_t)nnz);
        memcpy(gon, y->g, sizeof(double) * (size_t)y->ndof);
        off(s, y);
        CHECKF(y->colptr[y->ndof] == nnz, "pattern changed between assemblies");
        for (k = 0; k < nnz; ++k) { Hc[k] = Hon[k] - y->val[k]; if (fabs(Hc[k]) > *pmax) *pmax = fabs(Hc[k]); }
        for (k = 0; k < y->ndof; ++k) { gpart[k] = gon[k] - y->g[k]; if (fabs(gpart[k]) > gmax) gmax = fabs(gpart[k]); }
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) {
                int j = y->dof_x[3 * i + c], sg;
                double keep = s->x[3 * i + c], ep, em, err;
                if (j < 0 || i % T_PART_STRIDE) continue;
                s->x[3 * i + c] = keep + 1e-7; ep = rc__sim_energy(s, s->x, s->u, s->phi, &T);
                s->x[3 * i + c] = keep - 1e-7; em = rc__sim_energy(s, s->x, s->u, s->phi, &T);
                err = fabs((ep - em) / 2e-7 - gon[j]) / (fabs(gpart[j]) + 1e-3 * gmax + 1e-300);
                if (!(err <= *gworst)) *gworst = err;
                for (sg = 0; sg < 2; ++sg) {
                    s->x[3 * i + c] = keep + (sg ? -hs : hs);
                    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                    for (k = 0; k < y->ndof; ++k) gp[k] = sg ? gp[k] - y->g[k] : y->g[k];
                }
                s->x[3 * i + c] = keep;
                worst = t_column_err(y, j, gp, 2.0 * hs, Hon, Hc, *pmax, worst);
                ++*checked;
            }
        /* joint systems: the u columns too (the part's u-dependence: the mass and area weights,
           friction slip at material points), along each u DOF's direction (t_u_dof_dir); a DOF two
           stitched vertices share moves both (test_garment_seam_shared_dof_fd checks those) */
        for (i = 0; y->with_u && i < s->nv; ++i)
            for (c = 0; c < y->nu[i] && y->dof_u[i] >= 0; ++c) {
                int j = y->dof_u[i] + c, sg, other, shared = 0;
                double e[2], ku[2], fd, fdp, err;
                for (other = 0; other < s->nv && !shared; ++other) shared = other != i && y->dof_u[other] == y->dof_u[i];
                if (i % T_PART_STRIDE || shared) continue;
                t_u_dof_dir(s, y, i, c, e);
                ku[0] = s->u[2 * i]; ku[1] = s->u[2 * i + 1];
                t_u_central_diff(s, y, i, c, 1e-7, offsetof(rc__terms, contact), &fd, &fdp);
                err = fabs(fd - gon[j]) / (fabs(gpart[j]) + 1e-3 * gmax + 1e-300);
                if (!(err <= *gworst)) *gworst = err;
                for (sg = 0; sg < 2; ++sg) {
                    double sgn = sg ? -1.0 : 1.0;
                    s->u[2 * i] = ku[0] + sgn * hs * e[0]; s->u[2 * i + 1] = ku[1] + sgn * hs * e[1];
                    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                    for (k = 0; k < y->ndof; ++k) gp[k] = sg ? gp[k] - y->g[k] : y->g[k];
                }
                s->u[2 * i] = ku[0]; s->u[2 * i + 1] = ku[1];
                worst = t_column_err(y, j, gp, 2.0 * hs, Hon, Hc, *pmax, worst);
                ++*checked;
            }
    }
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    free(Hon); free(Hc); free(gp); free(gon); free(gpart);
    return worst;
}
/* the assembly without the barrier pairs (kappa 0) and without friction */
static void t_assemble_no_contact(rc_sim *s, rc__system *y)
{
    size_t nl = (size_t)s->nobs * s->nv;
    double kappa = s->kappa, *lam_keep = (double *)malloc(sizeof(double) * (nl ? nl : 1));
    CHECK(lam_keep != NULL);
    if (!lam_keep) return;
    if (nl) memcpy(lam_keep, s->fr_lambda, sizeof(double) * nl);
    s->kappa = 0.0;
    t_slip_nofric_assemble(s, y, lam_keep, nl);
    s->kappa = kappa;
    free(lam_keep);
}
/* the scenes: tents with their ridges between vertex columns (kinds 1 and 2) and under them (cloth
   vertices over a ridge: kind 0 against both faces, less the ridge edge's point-edge term, weight
   -1); the mesh floor (kind 0); the two layers (self pairs, self friction); a sphere, a capsule and
   a box (the vertices' barriers and friction, the round cores' pairs); each in both modes,
   perturbed as t_slip_u_check does (x by up to 0.1 mm, u by up to 0.2 mm) */
static rc_sim *t_make_cores(int adaptive);
static void t_contact_hessian_case(int scene, int adaptive)
{
    static const char *names[5] = { "tents between columns", "tents under columns", "floor mesh", "two layers", "sphere, capsule, box" };
    static const double xr_under[2] = { -0.03, 0.03 };
    rc_sim *s = NULL;
    rc__system *y;
    int ids[2] = { -1, -1 }, i, c, checked = 0, n0 = 0, n1 = 0, n2 = 0;
    double worst, hcmax, gworst;
    if (scene == 0) s = t_make_tents(0.4, adaptive, ids);
    else if (scene == 1) s = t_make_tents_at(0.4, adaptive, xr_under, 0.035, ids);
    else if (scene == 2) {
        rc_sim_def def = rc_default_sim_def();
        double fv[12], o[3] = { -0.05, -0.05, 0.0025 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 };
        int ft[6] = { 0, 1, 2, 0, 2, 3 };
        def.num_threads = 1;
        def.adaptive = adaptive;
        s = t_sim_grid(&def, 6, 6, 0.1, 0.1, o, ex, ey);
        if (s) {
            t_floor(0.0, 0.0, fv);
            CHECK_OK(rc_sim_add_trimesh(s, 4, fv, 2, ft, ids));
            CHECK_OK(rc_sim_set_obstacle_friction(s, ids[0], 0.4));
            t_floor(0.05, 1e-3, fv);
            CHECK_OK(rc_sim_set_obstacle_vertices(s, ids[0], fv));
        }
    } else if (scene == 3) s = t_make_two_layers(adaptive, 0.3);
    else s = t_make_cores(adaptive);   /* set up as a step already */
    CHECK(s != NULL);
    if (!s) return;
    if (scene == 0) t_tents_prepare(s, ids, 1e-3);
    if (scene == 1) t_tents_prepare_at(s, ids, xr_under, 0.035, 1e-3);
    if (scene == 2) { t_step_setup(s); CHECK_OK(s->contact_status); }
    if (scene == 3) t_self_prepare_step(s);
    if (adaptive) rc__sim_recover_gradients(s, s->u0_step, s->x0, s->fr_G);   /* as rc__sim_solve does */
    y = adaptive ? &s->sys_xpu : &s->sys_xp;
    t_seed(29);
    for (i = 0; i < s->nv; ++i) {
        double r0 = 2e-4 * (2.0 * t_rand() - 1.0), r1 = 2e-4 * (2.0 * t_rand() - 1.0);
        if (adaptive && y->dof_u[i] >= 0 && y->nu[i] == 2) { s->u[2 * i] += r0; s->u[2 * i + 1] += r1; }
        if (!s->pinned[i]) for (c = 0; c < 3; ++c) s->x[3 * i + c] += 1e-4 * (2.0 * t_rand() - 1.0);
    }
    if (scene <= 2) t_fm_kinds(s, &n0, &n1, &n2);
    worst = t_hess_x_columns_part(s, y, t_assemble_no_contact, &checked, &hcmax, &gworst);
    printf("    %s, %s: %d x and u columns, %d obstacle friction records (mesh kinds 0 / 1 / 2: %d / %d / %d), %d self pairs, %d self friction; "
           "Hessian error %.2e (of |H_contact| + 1e-3 of its max %.3e), gradient %.2e\n",
           names[scene], adaptive ? "adaptive" : "fixed", checked, t_fr_count(s), n0, n1, n2, s->nself_act, s->nfs, worst, hcmax, gworst);
    if (scene == 0) CHECKF(n1 > 0 && n2 > 0, "tents: kinds 1 and 2 expected (%d, %d)", n1, n2);
    if (scene == 1 || scene == 2) CHECKF(n0 > 0, "%s: no cloth vertex - obstacle triangle pair", names[scene]);
    if (scene == 3) CHECKF(s->nself_act > 50 && s->nfs > 0, "two layers: %d pairs, %d friction records", s->nself_act, s->nfs);
    if (scene == 4) CHECKF(s->nft > 0, "no core friction record");
    CHECK(checked > 0 && hcmax > 0.0);
    /* h = 1e-8 m << the gaps - xi (>= 1.3 mm) and eps_v h = 1e-5 m (at 1e-7 a few of the two
       layers' 887 friction records cross it: error 2e-2): truncation is negligible. Measured
       7.8e-7 to 4.9e-5, the largest on the tents between columns, whose contact part (max 3.6
       N/m) is small beside the elements' entries, so their round-off shows (1e-7: 8.7e-6). The
       audit's five mutants give 0.2 to 40 here */
    CHECKF(worst < 1e-3, "%s, %s: assembled contact Hessian error %.2e", names[scene], adaptive ? "adaptive" : "fixed", worst);
    /* the gradient: measured 4e-6 to 8.8e-5, the round-off of E (~1e-16 |E| / 1e-7 m) over the
       tents' small contact forces; a wrong factor is O(1) */
    CHECKF(gworst < 1e-3, "%s, %s: assembled gradient error %.2e", names[scene], adaptive ? "adaptive" : "fixed", gworst);
    rc_sim_destroy(s);
}
static void test_meshfric_contact_hessian_assembled_fd(void)
{
    int scene, adaptive;
    for (scene = 0; scene < 5; ++scene)
        for (adaptive = 0; adaptive <= 1; ++adaptive) t_contact_hessian_case(scene, adaptive);
}

/* The round cores' friction pairs (rcloth.h, rc__sim_lag_core_friction): a flat 11 x 11 sheet
   (1 cm spacing) over a 20 cm sphere (its top 2 mm below the sheet: every triangle within ~2 cm
   of it in the band), a 2 mm capsule along y (its surface 1.5 mm below the sheet, its half-radius
   core 2.5 mm: in the band, its ends under the sheet) and the top edges of a box (1.5 mm below);
   each obstacle turned by 0.02 rad about z and shifted over the step, so every record's obstacle
   side c and carry Q are not trivial. Fixed: the friction part of the assembled x gradient (the
   assembly without friction subtracted) against central differences of T.friction, and its
   Hessian's x blocks against central differences of that gradient part; adaptive: the same in u
   (t_slip_u_check). */
static const double t_core_sc[3] = { -0.03, -0.02, -0.202 }, t_core_ca[3] = { 0.03, -0.04, -0.0035 }, t_core_cb[3] = { 0.032, 0.04, -0.0035 };
static const double t_core_bc[3] = { 0.0, 0.0675, -0.0115 }, t_core_bh[3] = { 0.012, 0.0325, 0.01 };
/* only: -1 all three obstacles, else only obstacle 0 (sphere), 1 (capsule) or 2 (box). Motion over
   the step: R = 0.02 rad about z and a shift t (tilted = 0), or (tilted = 1) R = 0.05 rad about the
   axis (1, 2, 3) / |.| through each obstacle's own centre (t = c - R c; the records only: the end
   pose may put a capsule end inside the sheet's offset) */
static rc_sim *t_make_cores_ex(int adaptive, int only, int tilted, double *R, double *t)
{
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s;
    double o[3] = { -0.05, -0.05, 0.0 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 }, th = tilted ? 0.05 : 0.02;
    double cen[3][3], ax[3] = { 0, 0, 1 };
    int ids[3], k, c, i;
    def.num_threads = 1;
    def.friction = 0.4;
    def.adaptive = adaptive;
    s = t_sim_grid(&def, 11, 11, 0.1, 0.1, o, ex, ey);
    if (!s) return NULL;
    for (c = 0; c < 3; ++c) { cen[0][c] = t_core_sc[c]; cen[1][c] = 0.5 * (t_core_ca[c] + t_core_cb[c]); cen[2][c] = t_core_bc[c]; }
    if (only < 0 || only == 0) CHECK_OK(rc_sim_add_sphere(s, t_core_sc, 0.2, &ids[0]));
    if (only < 0 || only == 1) CHECK_OK(rc_sim_add_capsule(s, t_core_ca, t_core_cb, 0.002, &ids[1]));
    if (only < 0 || only == 2) CHECK_OK(rc_sim_add_box(s, t_core_bc, t_core_bh, &ids[2]));
    if (tilted) { ax[0] = 1.0 / sqrt(14.0); ax[1] = 2.0 / sqrt(14.0); ax[2] = 3.0 / sqrt(14.0); }
    {   /* Rodrigues: R = cos I + sin [ax]x + (1 - cos) ax ax^T */
        const double K[9] = { 0, -ax[2], ax[1], ax[2], 0, -ax[0], -ax[1], ax[0], 0 };
        for (i = 0; i < 3; ++i)
            for (c = 0; c < 3; ++c) R[3 * i + c] = (i == c ? cos(th) : 0.0) + sin(th) * K[3 * i + c] + (1.0 - cos(th)) * ax[i] * ax[c];
    }
    for (k = 0; k < 3; ++k) {
        if (!(only < 0 || only == k)) continue;
        if (tilted) for (i = 0; i < 3; ++i) t[i] = cen[k][i] - (R[3 * i] * cen[k][0] + R[3 * i + 1] * cen[k][1] + R[3 * i + 2] * cen[k][2]);
        else { t[0] = 4e-4; t[1] = -2e-4; t[2] = 0.0; }
        CHECK_OK(rc_sim_move_obstacle(s, only < 0 ? ids[k] : 0, t, R));
    }
    t_step_setup(s);
    CHECK_OK(s->contact_status);
    return s;
}
static rc_sim *t_make_cores(int adaptive)
{
    double R[9], t[3];
    return t_make_cores_ex(adaptive, -1, 0, R, t);
}
static void test_meshfric_core_pairs_derivs(void)
{
    rc_sim *s = t_make_cores(0);
    rc__system *y;
    rc__terms T;
    double *gtot, *gnof, *gp, *Hf, gmax = 0.0, worst_g = 0.0, worst_h = 0.0, hmax = 0.0, Ef;
    size_t nl;
    int i, c, k, n2, n3, checked = 0, nnz;
    CHECK(s != NULL);
    if (!s) return;
    y = &s->sys_xp;
    nl = (size_t)s->nobs * s->nv;
    for (n2 = n3 = k = 0; k < s->nft; ++k) {
        int n = (int)s->ft[(size_t)RC__FM_STRIDE * k];
        n2 += n == 2; n3 += n == 3;
    }
    printf("    %d core friction pairs: %d point - triangle, %d axis or edge - cloth edge\n", s->nft, n3, n2);
    CHECKF(n3 >= 50 && n2 >= 50 && n2 + n3 == s->nft, "%d point and %d edge pairs of %d", n3, n2, s->nft);
    t_seed(23);
    for (i = 0; i < s->nv; ++i) {   /* a step's worth of slip: 0.3 mm along x plus 0.05 mm of noise */
        s->x[3 * i] += 3e-4;
        for (c = 0; c < 3; ++c) s->x[3 * i + c] += 5e-5 * (2.0 * t_rand() - 1.0);
    }
    s->proj = -1;   /* exact element Hessians: the friction part's blocks are its exact Hessian */
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    CHECK_OK(s->contact_status);
    nnz = y->colptr[y->ndof];
    gtot = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gnof = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gp = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    Hf = (double *)malloc(sizeof(double) * (size_t)nnz);
    {
        double *lam_keep = (double *)malloc(sizeof(double) * nl);
        memcpy(lam_keep, s->fr_lambda, sizeof(double) * nl);
        memcpy(gtot, y->g, sizeof(double) * (size_t)y->ndof);
        memcpy(Hf, y->val, sizeof(double) * (size_t)nnz);
        t_slip_nofric_assemble(s, y, lam_keep, nl);
        for (k = 0; k < y->ndof; ++k) { gtot[k] -= y->g[k]; if (fabs(gtot[k]) > gmax) gmax = fabs(gtot[k]); }
        for (k = 0; k < nnz; ++k) { Hf[k] -= y->val[k]; if (fabs(Hf[k]) > hmax) hmax = fabs(Hf[k]); }
        rc__sim_energy(s, s->x, s->u, s->phi, &T);
        Ef = T.friction;
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) {
                int j = y->dof_x[3 * i + c], sg;
                double keep = s->x[3 * i + c], hs = 1e-8, fp, fm, err;
                if (j < 0) continue;
                s->x[3 * i + c] = keep + hs; rc__sim_energy(s, s->x, s->u, s->phi, &T); fp = T.friction;
                s->x[3 * i + c] = keep - hs; rc__sim_energy(s, s->x, s->u, s->phi, &T); fm = T.friction;
                err = fabs((fp - fm) / (2.0 * hs) - gtot[j]) / (fabs(gtot[j]) + 1e-3 * gmax);
                if (err > worst_g) worst_g = err;
                for (sg = 0; sg < 2; ++sg) {   /* gp: the friction part of the gradient at x + h e, minus at x - h e */
                    s->x[3 * i + c] = keep + (sg ? -hs : hs);
                    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                    for (k = 0; k < y->ndof; ++k) gp[k] = sg ? gp[k] - y->g[k] : y->g[k];
                    t_slip_nofric_assemble(s, y, lam_keep, nl);
                    for (k = 0; k < y->ndof; ++k) gp[k] += sg ? y->g[k] : -y->g[k];
                }
                s->x[3 * i + c] = keep;
                for (k = 0; k < y->ndof; ++k) {
                    int pos = rc__system_find(y, k < j ? k : j, k < j ? j : k);
                    double hv = pos >= 0 ? Hf[pos] : 0.0;
                    err = fabs(gp[k] / (2.0 * hs) - hv) / hmax;
                    if (err > worst_h) worst_h = err;
                }
                checked++;
            }
        free(lam_keep);
    }
    printf("    fixed: friction energy %.3e J, %d x DOFs: worst relative gradient error %.2e, Hessian %.2e of max %.3e\n",
           Ef, checked, worst_g, worst_h, hmax);
    CHECKF(Ef > 0.0 && gmax > 0.0, "no friction (%.3e J)", Ef);
    /* h = 1e-8 m is far below the slip (0.3 mm) and eps_v h (1e-5 m); the round-off of T.friction
       over 2h is ~1e-16 E / h ~ 1e-7 of these gradients; a wrong weight, sign, basis or carry is O(1) */
    CHECKF(worst_g < 1e-5, "gradient error %.2e", worst_g);
    CHECKF(worst_h < 1e-5, "Hessian error %.2e", worst_h);
    free(gtot); free(gnof); free(gp); free(Hf);
    rc_sim_destroy(s);
    s = t_make_cores(1);
    CHECK(s != NULL);
    if (!s) return;
    s->proj = -1;
    t_slip_u_check(s, "sphere, capsule and box cores");
    rc_sim_destroy(s);
}

/* What the core pairs' records hold, checked against geometry computed here (the derivative test
   above only checks that a record's energy and derivatives agree, whatever the record holds). One
   obstacle at a time (a sphere, a capsule, a box), turned over the step by 0.05 rad about a tilted
   axis through its own centre, so the carried tangent plane, the obstacle side c and the carry Q
   all matter. For every record: the weights sum to 1; the cloth point p = sum_k w_k x^t_k lies in
   the barrier zone of its core point q (the core's radius off); Q is R R_prev^T; and if the cloth
   moves rigidly with the obstacle plus a step delta along the carried normal of the pair (R n0,
   n0 = (p - q) / |p - q|), the relative displacement rel = sum_k w_k dx_k + c is exactly
   delta R n0: no slip in the record's plane P (|P^T rel| ~ 0). The record does not name its core
   (a box's 12 edges each give pairs near a corner), so q is any candidate that passes: each core
   segment's ends and its closest point to p. A flipped or missing c, a plane left at the start
   pose, or a wrong Q fails this (a review's mutants passed the derivative test). */
static void t_seg_closest(const double *a, const double *b, const double *p, double *q)
{
    double ab[3], ap[3], l2, tau;
    rc__sub3(ab, b, a); rc__sub3(ap, p, a);
    l2 = rc__dot3(ab, ab);
    tau = l2 > 0.0 ? rc__dot3(ap, ab) / l2 : 0.0;
    tau = tau < 0.0 ? 0.0 : tau > 1.0 ? 1.0 : tau;
    q[0] = a[0] + tau * ab[0]; q[1] = a[1] + tau * ab[1]; q[2] = a[2] + tau * ab[2];
}
static void test_meshfric_core_pairs_records(void)
{
    static const char *const name[3] = { "sphere", "capsule", "box" };
    int which;
    for (which = 0; which < 3; ++which) {
        double R[9], t[3], seg[12][6], rcore, worst_w = 0.0, worst_q = 0.0, worst_slip = 0.0, worst_n = 0.0, delta = 1e-4;
        int nseg = 0, q, k, c, inband = 0;
        rc_sim *s = t_make_cores_ex(0, which, 1, R, t);
        CHECK(s != NULL);
        if (!s) return;
        if (which == 0) { for (c = 0; c < 3; ++c) seg[0][c] = seg[0][3 + c] = t_core_sc[c]; nseg = 1; rcore = 0.2; }
        else if (which == 1) { for (c = 0; c < 3; ++c) { seg[0][c] = t_core_ca[c]; seg[0][3 + c] = t_core_cb[c]; } nseg = 1; rcore = 0.001; }
        else {   /* the box's 12 edges: along axis d at the signs of the other two */
            int d;
            for (d = 0; d < 3; ++d)
                for (k = 0; k < 4; ++k, ++nseg) {
                    int o1 = (d + 1) % 3, o2 = (d + 2) % 3;
                    seg[nseg][d] = t_core_bc[d] - t_core_bh[d]; seg[nseg][3 + d] = t_core_bc[d] + t_core_bh[d];
                    seg[nseg][o1] = seg[nseg][3 + o1] = t_core_bc[o1] + ((k & 1) ? t_core_bh[o1] : -t_core_bh[o1]);
                    seg[nseg][o2] = seg[nseg][3 + o2] = t_core_bc[o2] + ((k & 2) ? t_core_bh[o2] : -t_core_bh[o2]);
                }
            rcore = 0.0;
        }
        for (q = 0; q < s->nft; ++q) {
            const double *rec = s->ft + (size_t)RC__FM_STRIDE * q, *P = rec + 8;
            double p[3] = { 0, 0, 0 }, n0[3], Rn[3], rel[3], wsum = 0.0, pt[2];
            int n = (int)rec[0], j;
            double slip = HUGE_VAL, nerr = HUGE_VAL;
            int found = 0;
            for (k = 0; k < n; ++k) { wsum += rec[4 + k]; rc__axpy3(p, rec[4 + k], s->x0 + 3 * (int)rec[1 + k]); }
            worst_w = fmax(worst_w, fabs(wsum - 1.0));
            for (k = 0; k < 9; ++k) worst_q = fmax(worst_q, fabs(rec[17 + k] - R[k]));
            for (j = 0; j < 3 * nseg; ++j) {   /* the candidates q: each segment's ends and its closest point to p */
                double qq[3], d;
                if (j % 3 == 2) t_seg_closest(seg[j / 3], seg[j / 3] + 3, p, qq);
                else memcpy(qq, seg[j / 3] + 3 * (j % 3), sizeof qq);
                rc__sub3(n0, p, qq);
                d = rc__norm3(n0);
                if (!(d - rcore > s->def.contact_thickness * (1.0 - 1e-9) && d - rcore < (s->def.contact_thickness + s->def.contact_dhat) * (1.0 + 1e-9)))
                    continue;
                found = 1;
                rc__scale3(n0, 1.0 / d, n0);
                for (c = 0; c < 3; ++c) Rn[c] = R[3 * c] * n0[0] + R[3 * c + 1] * n0[1] + R[3 * c + 2] * n0[2];
                for (c = 0; c < 3; ++c) rel[c] = rec[14 + c] + delta * Rn[c];
                for (k = 0; k < n; ++k) {   /* dx_k: the obstacle's rigid motion of x^t_k (R x + t) */
                    const double *xk = s->x0 + 3 * (int)rec[1 + k];
                    for (c = 0; c < 3; ++c) rel[c] += rec[4 + k] * (R[3 * c] * xk[0] + R[3 * c + 1] * xk[1] + R[3 * c + 2] * xk[2] + t[c] - xk[c]);
                }
                pt[0] = P[0] * rel[0] + P[2] * rel[1] + P[4] * rel[2];
                pt[1] = P[1] * rel[0] + P[3] * rel[1] + P[5] * rel[2];
                if (hypot(pt[0], pt[1]) / delta < slip) { slip = hypot(pt[0], pt[1]) / delta; nerr = fabs(rc__dot3(rel, Rn) - delta) / delta; }
            }
            inband += found;
            worst_slip = fmax(worst_slip, slip);
            worst_n = fmax(worst_n, nerr);
        }
        printf("    %s turned about a tilted axis: %d records, %d with a core point in the band; |sum w - 1| %.1e, |Q - R| %.1e; carried rigidly plus delta "
               "along the normal: slip in P %.1e delta, normal part off by %.1e delta\n",
               name[which], s->nft, inband, worst_w, worst_q, worst_slip, worst_n);
        CHECKF(s->nft >= 10 && inband == s->nft, "%d of %d records with a core point in the band", inband, s->nft);
        CHECKF(worst_w < 1e-12 && worst_q < 1e-15, "weights %.2e, Q %.2e", worst_w, worst_q);
        /* round-off: displacements ~1e-3 m summed to ~1e-4 m, ~1e-19 m each, over delta */
        CHECKF(worst_slip < 1e-9 && worst_n < 1e-9, "slip %.2e, normal %.2e (of delta)", worst_slip, worst_n);
        rc_sim_destroy(s);
    }
}

/* (mutation audit, mutant C12: the lagged normal force of a
   cloth edge - obstacle edge friction pair taken without the edge-edge mollifier: `mol` -> 1.0).
   The barrier of an edge-edge pair is kappa m b; the lagged normal force must carry the same m
   (lambda = kappa m |b'| 2d), so an exactly parallel pair (m = 0: no barrier force)
   lends friction nothing. In test_meshfric's tent scene the ridges run between vertex columns and
   every lagged edge pair crosses a ridge (m = 1), so the mollifier never matters there. Here the
   ridges sit under the cloth columns x = -0.01 and x = 0.01: the cloth edges along y above them are
   exactly parallel to the ridge, 2.5 mm away (inside the band xi + dhat = 3 mm); the ridges (ly = 0.08)
   run past the sheet, so no ridge-end edge comes near those cloth edges. Every lagged
   kind-2 record must come from a non-parallel cloth edge. */
static void test_meshfric_parallel_edges_no_force(void)
{
    const double xr[2] = {-0.01, 0.01};
    int ids[2], q, n2 = 0, n2par = 0;
    rc_sim *s = t_make_tents_at(0.4, 0, xr, 0.08, ids);
    CHECK(s != NULL);
    if (!s) return;
    t_tents_prepare_at(s, ids, xr, 0.08, 1e-3);   /* tents moved by 1 mm along y */
    for (q = 0; q < s->nft; ++q) {
        const double *rec = s->ft + (size_t)RC__FM_STRIDE * q;
        if ((int)rec[0] != 2) continue;
        ++n2;
        {
            const double *a = s->x0 + 3 * (int)rec[1], *b = s->x0 + 3 * (int)rec[2];
            if (fabs(a[0] - b[0]) < 1e-12 && fabs(a[2] - b[2]) < 1e-12 && (fabs(a[0] - xr[0]) < 1e-12 || fabs(a[0] - xr[1]) < 1e-12)) {
                ++n2par;
                printf("    parallel pair lagged: cloth %d-%d, mu lambda %g\n", (int)rec[1], (int)rec[2], rec[7]);
            }
        }
    }
    CHECKF(n2 > 0, "no edge-edge friction pairs lagged at all");
    CHECKF(n2par == 0, "%d of %d lagged edge-edge pairs are exactly parallel (mollifier 0, no barrier force)", n2par, n2);
    rc_sim_destroy(s);
}

/* The core's edge pairs carry the barrier's mollifier too: a capsule's axis exactly parallel to
   a column of cloth edges (along y at x = 0.03, 3.5 mm below the flat sheet: the core, of radius
   1 mm, 2.5 mm from the edges, inside the band) exerts no force on those edges (mollifier 0), so
   none of them may lend friction (beyond round-off); the cloth edges that cross the axis do. */
static void test_meshfric_core_parallel_edges_no_force(void)
{
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s;
    double o[3] = { -0.05, -0.05, 0.0 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 }, ca[3] = { 0.03, -0.03, -0.0035 }, cb[3] = { 0.03, 0.03, -0.0035 };
    double lmax = 0.0;
    int q, n2 = 0, n2par = 0;
    def.num_threads = 1;
    def.friction = 0.4;
    s = t_sim_grid(&def, 11, 11, 0.1, 0.1, o, ex, ey);
    if (!s) return;
    CHECK_OK(rc_sim_add_capsule(s, ca, cb, 0.002, NULL));
    t_step_setup(s);
    CHECK_OK(s->contact_status);
    for (q = 0; q < s->nft; ++q) lmax = fmax(lmax, s->ft[(size_t)RC__FM_STRIDE * q + 7]);
    for (q = 0; q < s->nft; ++q) {
        const double *rec = s->ft + (size_t)RC__FM_STRIDE * q, *a, *b;
        if ((int)rec[0] != 2) continue;
        ++n2;
        a = s->x0 + 3 * (int)rec[1]; b = s->x0 + 3 * (int)rec[2];
        /* the grid's round-off leaves |u x v|^2 ~ 1e-34, not 0: a force ~1e-14 of the others' */
        if (fabs(a[0] - 0.03) < 1e-12 && fabs(b[0] - 0.03) < 1e-12 && rec[7] > 1e-9 * lmax) {
            ++n2par;
            printf("    parallel pair lagged: cloth %d-%d, mu lambda %g\n", (int)rec[1], (int)rec[2], rec[7]);
        }
    }
    printf("    a capsule's axis under a column of cloth edges: %d edge pairs lagged (largest mu lambda %.3g N), %d of them parallel to the axis\n",
           n2, lmax, n2par);
    CHECKF(n2 > 0, "no axis - edge friction pairs lagged at all");
    CHECKF(n2par == 0, "%d of %d lagged axis - edge pairs are exactly parallel (mollifier 0, no barrier force)", n2par, n2);
    rc_sim_destroy(s);
}

/* The carry Q of a mesh pair's material offset (rcloth.h, rc__sim_obs_carry_gradient) for an
   obstacle turned rigidly by R over the step (0.02 rad about a tilted axis, through a point off
   the ridges) must be R for every pair kind: at a ridge (edge-edge pairs) and a ridge end (obstacle
   vertex - cloth triangle), on a floor triangle (cloth vertex pairs: the triangle's normal gives
   the gradient across it), and at the floor's open boundary (a sheet larger than the floor: edge
   pairs on its border edges, vertex pairs at its corners, flat neighbourhoods which edge vectors
   alone left without a gradient across them, |Q - R| 1e-2). With Q = I at the ridges (until
   session 37) a sheet across a turning tent's ridge slid u by 2.6 cm in 40 steps (0.37 cm now).
   Every pair's closest vector is vertical at the start (the flat sheet 2.5 mm above the floor,
   the ridges, the ridge ends, the floor's border), so its tangent basis, carried to the end of the
   step (rc__sim_carry_basis), must be orthonormal and normal to R e_z (uncarried: off by up to
   sin 0.02). */
static void test_meshfric_carry_gradient_rigid(void)
{
    static const double xr[2] = { -0.02, 0.02 }, c0[3] = { 0.01, -0.005, -0.01 };
    static const char *const name[3] = { "tents", "floor", "floor under a larger sheet" };
    double R[9], k[3] = { 1.0, 2.0, 3.0 }, kn = sqrt(14.0);
    int scene, a, b;
    for (a = 0; a < 3; ++a) k[a] /= kn;
    t_rot(k, 0.02, R);
    for (scene = 0; scene < 3; ++scene) {
        rc_sim *s;
        int ids[2], q, nrec = 0, kinds[4] = { 0, 0, 0, 0 };
        double worst = 0.0, worst_p = 0.0;
        if (scene == 0) s = t_make_tents(0.4, 1, ids);
        else {
            rc_sim_def def = rc_default_sim_def();
            double o[3] = { -0.05, -0.05, 0.0025 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 }, fv[12];
            static const int ft[6] = { 0, 1, 2, 0, 2, 3 };
            def.num_threads = 1;
            def.adaptive = 1;
            if (scene == 2) { o[0] = o[1] = -0.2; s = t_sim_grid(&def, 11, 11, 0.4, 0.4, o, ex, ey); }   /* border at +-0.15 between columns */
            else s = t_sim_grid(&def, 6, 6, 0.1, 0.1, o, ex, ey);
            if (s) {
                t_floor(0.0, 0.0, fv);
                CHECK_OK(rc_sim_add_trimesh(s, 4, fv, 2, ft, ids));
                CHECK_OK(rc_sim_set_obstacle_friction(s, ids[0], 0.4));
            }
        }
        CHECK(s != NULL);
        if (!s) return;
        for (q = 0; q < (scene == 0 ? 2 : 1); ++q) {   /* each obstacle turned by R about c0 */
            double v[18], w[18];
            int nvo, i;
            if (scene == 0) { t_tent(xr[q], 0.035, 0.03, 0.0, v, NULL); nvo = 6; }
            else { t_floor(0.0, 0.0, v); nvo = 4; }
            for (i = 0; i < nvo; ++i)
                for (a = 0; a < 3; ++a) {
                    w[3 * i + a] = c0[a];
                    for (b = 0; b < 3; ++b) w[3 * i + a] += R[3 * a + b] * (v[3 * i + b] - c0[b]);
                }
            CHECK_OK(rc_sim_set_obstacle_vertices(s, ids[q], w));
        }
        t_step_setup(s);
        CHECK_OK(s->contact_status);
        for (q = 0; q < t_fr_count(s); ++q) {
            const double *rec = t_fr_rec(s, q), *Q = rec + 17, *P = rec + 8;
            int n = (int)rec[0];
            kinds[n]++;
            nrec++;
            for (a = 0; a < 9; ++a) worst = fmax(worst, fabs(Q[a] - R[a]));
            for (a = 0; a < 2; ++a) {   /* P^T P = I, P^T R e_z = 0 */
                for (b = 0; b < 2; ++b)
                    worst_p = fmax(worst_p, fabs(P[a] * P[b] + P[2 + a] * P[2 + b] + P[4 + a] * P[4 + b] - (a == b)));
                worst_p = fmax(worst_p, fabs(P[a] * R[2] + P[2 + a] * R[5] + P[4 + a] * R[8]));
            }
        }
        printf("    %s turned 0.02 rad about a tilted axis: %d records (%d cloth vertex, %d obstacle vertex, %d edge-edge, each in both its triangles); "
               "max |Q - R| %.1e (|R - I| %.1e); tangent bases off orthonormal / R e_z by %.1e\n",
               name[scene], nrec, kinds[1], kinds[3], kinds[2], worst, fabs(R[1]), worst_p);
        CHECKF(scene == 0 ? kinds[3] > 0 && kinds[2] > 0 : scene == 1 ? kinds[1] > 0 : kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0,
               "no records of the kinds the scene must give");
        /* round-off: |d| ~ 1e-3 m over edges of ~3 cm through a pseudo-inverse, ~1e-14 */
        CHECKF(worst < 1e-10, "carry off R by %.2e", worst);
        CHECKF(worst_p < 1e-10, "tangent basis not carried: %.2e", worst_p);
        rc_sim_destroy(s);
    }
}

/* The carry's gradient on a nearly flat neighbourhood under a strain (rc__sim_obs_carry_gradient):
   two 1 cm triangles folded by 2e-5 rad along their shared edge, stretched by 1e-4 along x in
   their plane. D must be about the strain (|Q - I| ~ 1e-4); from edge vectors alone the fold's
   thin normal direction made it ~10 (a review's probe). Also a single triangle and a
   degenerate one (collinear: no normal) stay finite and bounded. */
static void test_meshfric_carry_gradient_flat_strain(void)
{
    static const int tris[9] = { 0, 1, 2, 1, 0, 3, 0, 1, 4 };
    double Xp[15], X[15], Q[9], worst = 0.0;
    int i, a, c, tl[2] = { 0, 1 }, tdeg = 2;
    /* shared edge 0-1 along y; vertex 2 at x = +1 cm, vertex 3 at x = -1 cm tilted by the fold */
    double P[15] = { 0, 0, 0,  0, 0.01, 0,  0.01, 0.005, 0,  -0.01 * cos(2e-5), 0.005, 0.01 * sin(2e-5),  0, 0.02, 0 };
    for (i = 0; i < 15; ++i) Xp[i] = P[i];
    for (i = 0; i < 5; ++i) for (c = 0; c < 3; ++c) X[3 * i + c] = Xp[3 * i + c] + (c == 0 ? 1e-4 * Xp[3 * i] : 0.0);
    for (a = 0; a < 3; ++a) {
        double lw = 0.0;
        if (a == 0) rc__sim_obs_carry_gradient(X, Xp, tris, tl, 2, Q);        /* the fold */
        else if (a == 1) rc__sim_obs_carry_gradient(X, Xp, tris, tl, 1, Q);   /* one triangle */
        else rc__sim_obs_carry_gradient(X, Xp, tris, &tdeg, 1, Q);            /* collinear vertices 0, 1, 4 */
        for (i = 0; i < 9; ++i) {
            CHECK(rc__isfinite(Q[i]));
            lw = fmax(lw, fabs(Q[i] - (i % 4 == 0)));
        }
        printf("    %s: max |Q - I| %.2e (strain 1e-4)\n", a == 0 ? "fold of 2e-5 rad" : a == 1 ? "one triangle" : "degenerate triangle", lw);
        worst = fmax(worst, lw);
    }
    CHECKF(worst < 2e-4, "|Q - I| %.2e for a strain of 1e-4", worst);
}

static void suite_meshfric(void)
{
    RUN(test_meshfric_pair_derivs);
    RUN(test_meshfric_gradient);
    RUN(test_meshfric_gradient_adaptive);
    RUN(test_meshfric_ridge_drag);
    RUN(test_meshfric_ridge_drag_adaptive);
    RUN(test_meshfric_slip_u_derivs_mesh);
    RUN(test_meshfric_slip_u_derivs_floor);
    RUN(test_meshfric_slip_u_derivs_self);
    RUN(test_meshfric_contact_hessian_assembled_fd);
    RUN(test_meshfric_core_pairs_derivs);
    RUN(test_meshfric_core_pairs_records);
    RUN(test_meshfric_parallel_edges_no_force);
    RUN(test_meshfric_core_parallel_edges_no_force);
    RUN(test_meshfric_carry_gradient_rigid);
    RUN(test_meshfric_carry_gradient_flat_strain);
}
