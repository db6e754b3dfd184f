/* r-adaptive mode (issue 5): u moves with x. Every test runs real steps of the simulator. */
#include "test.h"
#include "../examples/common/scenes.h"   /* the didactic drape scene (scenes.c is #included later, by test_io.c) */

/* a square sheet of side L on an n x n alternating grid, hanging in the x-z plane from its two
   top corners (pins at their rest positions unless pull > 0 moves them inward), material of the
   DESIGN §10 prototype */
static rc_sim *ta_hanging_ex(int n, int adaptive, double pull, double quality_weight, int linear_solver, int exact_hessian);
static rc_sim *ta_hanging(int n, int adaptive, double pull, double quality_weight)
{
    return ta_hanging_ex(n, adaptive, pull, quality_weight, RC_SOLVER_LDLT, 1);
}
/* the same with the outer treatment chosen: linear solver and itr_exact_hessian */
static rc_sim *ta_hanging_ex(int n, int adaptive, double pull, double quality_weight, int linear_solver, int exact_hessian)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    int i;
    const double L = 0.8;
    if (rc_mesh_grid(&m, L, L, n, n, RC_DIAG_ALTERNATING) != RC_OK) return NULL;
    for (i = 0; i < m.num_verts; ++i) {
        double u = m.ref_uv[2 * i], v = m.ref_uv[2 * i + 1];
        m.pos[3 * i] = pull + (1.0 - 2.0 * pull / L) * u;   /* pre-compressed so the pins start at their targets */
        m.pos[3 * i + 1] = 0.01 * sin(3.14159265358979 * u / L) * v / L;   /* breaks the flat symmetry */
        m.pos[3 * i + 2] = -v;
    }
    def.mesh = rc_mesh_describe(&m);
    def.material = rc_material_proto();
    def.adaptive = adaptive;
    def.quality_weight = quality_weight;
    def.num_threads = 1;
    def.itr_max_outer = 150;   /* keeps the suite fast; capped steps still end with RC_OK */
    def.linear_solver = linear_solver;
    def.itr_exact_hessian = exact_hessian;
    if (linear_solver == RC_SOLVER_PCG) def.pcg_tol = 1e-8;
    if (rc_sim_create(&def, &s) == RC_OK) {
        rc_sim_pin(s, 0, rc_sim_positions(s));
        rc_sim_pin(s, n - 1, rc_sim_positions(s) + 3 * (n - 1));
    }
    rc_mesh_free(&m);
    return s;
}

static double ta_total_area(const rc_sim *s)
{
    const double *u = rc_sim_reference(s);
    const int *tri = rc_sim_tris(s);
    double A = 0.0;
    int t;
    for (t = 0; t < rc_sim_num_tris(s); ++t) {
        const double *a = u + 2 * tri[3 * t], *b = u + 2 * tri[3 * t + 1], *c = u + 2 * tri[3 * t + 2];
        A += 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]));
    }
    return A;
}

/* the invariants of an adaptive step on the hanging sheet (n x n vertices of the 0.8 m square),
   accumulated over the steps: the step's IP did not rise, x stayed finite, the smallest reference
   area ratio, the change of the total reference area A0, how far a vertex on a side of the square
   left that side's coordinate, and the largest u travel from u0 */
typedef struct ta_inv { double min_ratio, worst_area, worst_bnd, travel, A0, *u0; int converged; } ta_inv;
/* the start: A0 and u0 of s (0 if s is NULL or out of memory; free(w->u0) after) */
static int ta_start(const rc_sim *s, int n, ta_inv *w)
{
    memset(w, 0, sizeof *w);
    w->min_ratio = HUGE_VAL;
    CHECK(s != NULL);
    if (!s) return 0;
    w->A0 = ta_total_area(s);
    w->u0 = (double *)malloc(sizeof(double) * 2 * n * n);
    if (w->u0) memcpy(w->u0, rc_sim_reference(s), sizeof(double) * 2 * n * n);
    return w->u0 != NULL;
}
static void ta_track(const rc_sim *s, const rc_step_stats *ss, int n, ta_inv *w)
{
    const double A0 = w->A0, *u0 = w->u0;
    int i, c;
    CHECK(ss->ip_end <= ss->ip_start);
    CHECK(rc__all_finite(rc_sim_positions(s), 3 * (size_t)n * n));
    w->converged += ss->converged;
    if (ss->min_area_ratio < w->min_ratio) w->min_ratio = ss->min_area_ratio;
    if (fabs(ta_total_area(s) - A0) > w->worst_area) w->worst_area = fabs(ta_total_area(s) - A0);
    for (i = 0; i < n * n; ++i) {
        const double *u = rc_sim_reference(s) + 2 * i, *u_0 = u0 + 2 * i;
        for (c = 0; c < 2; ++c)
            if (u_0[c] == 0.0 || u_0[c] == 0.8) { double e = fabs(u[c] - u_0[c]); if (e > w->worst_bnd) w->worst_bnd = e; }
        if (hypot(u[0] - u_0[0], u[1] - u_0[1]) > w->travel) w->travel = hypot(u[0] - u_0[0], u[1] - u_0[1]);
    }
}

/* flat, unloaded, no gravity: nothing drives u, so u must stay put (to round-off) */
/* max |u - u0| after some adaptive steps of mesh m under gravity g, from rest */
static double ta_u_drift(rc_mesh *m, const double g[3], int steps)
{
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats ss;
    double du = 0.0;
    int i, k;
    def.mesh = rc_mesh_describe(m);
    for (k = 0; k < 3; ++k) def.gravity[k] = g[k];
    def.adaptive = 1;
    def.num_threads = 1;
    CHECK_OK(rc_sim_create(&def, &s));
    if (!s) return HUGE_VAL;
    for (k = 0; k < steps; ++k) CHECK_OK(rc_sim_step(s, &ss));
    for (i = 0; i < 2 * m->num_verts; ++i) if (fabs(rc_sim_reference(s)[i] - m->ref_uv[i]) > du) du = fabs(rc_sim_reference(s)[i] - m->ref_uv[i]);
    rc_sim_destroy(s);
    return du;
}

static void test_adaptive_flat_unloaded_keeps_u(void)
{
    rc_mesh m;
    const double g[3] = { 0, 0, 0 };
    double du;
    CHECK_OK(rc_mesh_square(&m, 0.5, 49, 3u));
    du = ta_u_drift(&m, g, 5);
    printf("    max |u - u0| after 5 steps: %.3g m\n", du);
    CHECKF(du <= 1e-12, "u drifted by %g", du);
    rc_mesh_free(&m);
}

/* A sheet laid on a large sphere (radius 5 m, so the 0.3 m sheet is nearly flat on it) rests; the
   sphere's per-triangle barrier is weighted by the triangle's area as the vertex barriers are by
   mass, so crowding triangles into the contact gains nothing and u stays. Measured max |u - u0|
   after 30 steps: 1.3e-4 m (the sheet's small Gaussian curvature on the sphere; 1.3 mm on a 2 m
   sphere, falling as 1/R^2); unweighted, 5.9 cm here (a 50-step probe: 5.4 cm, min area ratio
   0.45, ~10 outer iterations per step). */
static void test_adaptive_rest_on_sphere_keeps_u(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    double R = 5.0, c[3] = { 0, 0, -5.0 }, drift = 0.0;
    int i, k, nv;
    CHECK_OK(rc_mesh_grid(&m, 0.3, 0.3, 11, 11, RC_DIAG_ALTERNATING));
    for (i = 0; i < m.num_verts; ++i) {
        double *p = m.pos + 3 * i;
        p[0] -= 0.15; p[1] -= 0.15;
        p[2] = sqrt(R * R - p[0] * p[0] - p[1] * p[1]) - R + 0.0025;
    }
    def.adaptive = 1;
    def.num_threads = 1;
    s = t_sim_on_mesh(&def, &m);
    if (!s) { rc_mesh_free(&m); return; }
    nv = rc_sim_num_verts(s);
    CHECK_OK(rc_sim_add_sphere(s, c, R, NULL));
    for (k = 0; k < 30; ++k) CHECK_OK(rc_sim_step(s, &st));
    for (i = 0; i < nv; ++i) drift = fmax(drift, hypot(rc_sim_reference(s)[2 * i] - m.ref_uv[2 * i], rc_sim_reference(s)[2 * i + 1] - m.ref_uv[2 * i + 1]));
    printf("    after 30 steps on the sphere: max |u - u0| %.3g m, min area ratio %.3f\n", drift, st.min_area_ratio);
    CHECKF(drift < 1e-3, "u drifted by %.3g m", drift);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
}

/* A sheet at rest on a two-triangle mesh floor whose diagonal runs under it: a cloth vertex near
   the diagonal has a barrier pair with both triangles, and the support there was counted twice
   (measured, 0.3 m sheet, 11 x 11, 25 steps: fixed, the vertices over the diagonal stood 0.19 mm
   higher; adaptive, u slid 2.3 cm toward it, 125 outer iterations). The inclusion-exclusion of the
   cloth-vertex barrier over planar patches (rcloth.h, rc__mesh_obstacle_flat) counts it once:
   every vertex at the same height, u kept. The same on the floor made double-sided (each
   triangle added again, reversed; before, held twice: u slid 2.5 cm), also with its first
   copies wound opposite ways: duplicates take no pairs (rc__mesh_obstacle_topology). */
static void test_adaptive_rest_on_mesh_floor_keeps_u(void)
{
    static const double fv[12] = { -0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0 };
    /* floor 0: two triangles; 1: double-sided (each triangle again, reversed); 2: double-sided
       with the first copies wound opposite ways */
    static const int ft[3][12] = { { 0, 1, 2, 0, 2, 3 }, { 0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2 }, { 0, 1, 2, 0, 3, 2, 0, 2, 1, 0, 2, 3 } };
    static const char *const floor_name[3] = { "two-triangle floor", "double-sided floor", "double-sided floor, mixed winding" };
    int adaptive, fl;
    for (fl = 0; fl < 3; ++fl)
    for (adaptive = 0; adaptive < 2; ++adaptive) {
        rc_mesh m;
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s = NULL;
        rc_step_stats st;
        double drift = 0.0, zmin = HUGE_VAL, zmax = -HUGE_VAL;
        int i, k, nv, outer = 0;
        CHECK_OK(rc_mesh_grid(&m, 0.3, 0.3, 11, 11, RC_DIAG_ALTERNATING));
        for (i = 0; i < m.num_verts; ++i) { m.pos[3 * i] -= 0.15; m.pos[3 * i + 1] -= 0.15; m.pos[3 * i + 2] = 0.0025; }
        def.mesh = rc_mesh_describe(&m);
        def.adaptive = adaptive;
        def.num_threads = 1;
        CHECK_OK(rc_sim_create(&def, &s));
        if (!s) { rc_mesh_free(&m); return; }
        nv = rc_sim_num_verts(s);
        CHECK_OK(rc_sim_add_trimesh(s, 4, fv, fl ? 4 : 2, ft[fl], NULL));
        for (k = 0; k < 25; ++k) { CHECK_OK(rc_sim_step(s, &st)); outer += st.outer_iters; }
        for (i = 0; i < nv; ++i) {
            double z = rc_sim_positions(s)[3 * i + 2];
            drift = fmax(drift, hypot(rc_sim_reference(s)[2 * i] - m.ref_uv[2 * i], rc_sim_reference(s)[2 * i + 1] - m.ref_uv[2 * i + 1]));
            zmin = fmin(zmin, z); zmax = fmax(zmax, z);
        }
        printf("    %s, 25 steps on the %s: heights %.6f..%.6f m, max |u - u0| %.3g m, %d outer iterations\n",
               adaptive ? "adaptive" : "fixed", floor_name[fl], zmin, zmax, drift, outer);
        CHECKF(zmax - zmin < 1e-6, "heights differ by %.3g m", zmax - zmin);
        CHECKF(drift < 1e-3, "u drifted by %.3g m", drift);
        rc_sim_destroy(s);
        rc_mesh_free(&m);
    }
}

/* A sheet resting on a box that starts spinning about z (0.01 rad per step, mu 0.5, a sudden
   start) is carried round by friction; nothing in the material changes, so u must stay. Measured
   max |u - u_settled| after 40 turning steps: 0 (to the bit); 7.9 cm before the friction followed
   the vertex masses m_i(u) and the first inner solve was strict under a moving support, 5.1 cm with
   the first alone. The sheet must also turn with the box (the corner's angle about the axis). The
   same on a turning mesh floor: 2.8 cm in the first 3 steps until the material offset was carried
   with the obstacle triangle's displacement gradient (rc__sim_fm_add's Q), 0 now. */
/* mesh 1: a two-triangle turntable whose edges stay clear of the sheet (turned by
   rc_sim_set_obstacle_vertices); mesh 2: a square one whose diagonal runs under the sheet's middle
   (1.7 cm until a planar patch held a vertex once, rc__mesh_obstacle_flat); analytic (0): a box
   turned by rc_sim_move_obstacle; 3: a 5 m sphere turned about its vertical axis, whose friction
   pairs act on whole triangles: u slid by 3.2 mm in the first two turning steps while each pair's
   force was shared among its triangle's vertices (session 35, 0.78 mm left after 40 steps), by up
   to 1.85 cm with the pairs' friction not weighted by their triangle's area as u moves (0.57 mm
   left after 40; session 36, rc__sim_tri_pair_friction), 0 now */
static void t_spinning_support(int mesh)
{
    static const double f1[12] = { -2.0, 0.3, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0 };
    static const double f2[12] = { -0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0 };
    const double *f0 = mesh == 2 ? f2 : f1, sc[3] = { 0, 0, -5.0 };
    static const int ft[6] = { 0, 1, 2, 0, 2, 3 };
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    double c[3] = { 0, 0, -0.05 }, h[3] = { 5, 5, 0.05 }, *u0, drift = 0.0, ang = 0.0, a0, a1;
    double o[3] = { 0.15, -0.15, 0.0025 }, ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 };
    int i, k, id = -1, nv, conv = 0;
    def.adaptive = 1;
    def.num_threads = 1;
    if (mesh) o[0] = -0.15;   /* centred on the turntable's (or the sphere's) axis, inside the turntable's first triangle */
    s = t_sim_grid(&def, 11, 11, 0.3, 0.3, o, ex, ey);
    if (!s) return;
    nv = rc_sim_num_verts(s);
    if (mesh == 3) CHECK_OK(rc_sim_add_sphere(s, sc, 5.0, &id));
    else if (mesh) CHECK_OK(rc_sim_add_trimesh(s, 4, f0, 2, ft, &id));
    else CHECK_OK(rc_sim_add_box(s, c, h, &id));
    CHECK_OK(rc_sim_set_obstacle_friction(s, id, 0.5));
    for (k = 0; k < 20; ++k) CHECK_OK(rc_sim_step(s, &st));   /* settle */
    u0 = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
    memcpy(u0, rc_sim_reference(s), sizeof(double) * 2 * (size_t)nv);
    a0 = atan2(rc_sim_positions(s)[3 * (nv - 1) + 1], rc_sim_positions(s)[3 * (nv - 1)]);
    for (k = 0; k < 40; ++k) {
        double R[9], t[3] = { 0, 0, 0 };
        ang += 0.01;
        R[0] = cos(ang); R[1] = -sin(ang); R[2] = 0; R[3] = sin(ang); R[4] = cos(ang); R[5] = 0; R[6] = 0; R[7] = 0; R[8] = 1;
        if (mesh == 1 || mesh == 2) {
            double fv[12];
            for (i = 0; i < 4; ++i) { fv[3 * i] = R[0] * f0[3 * i] + R[1] * f0[3 * i + 1]; fv[3 * i + 1] = R[3] * f0[3 * i] + R[4] * f0[3 * i + 1]; fv[3 * i + 2] = 0.0; }
            CHECK_OK(rc_sim_set_obstacle_vertices(s, id, fv));
        } else CHECK_OK(rc_sim_move_obstacle(s, id, t, R));
        CHECK_OK(rc_sim_step(s, &st));
        conv += st.converged;
    }
    for (i = 0; i < nv; ++i) drift = fmax(drift, hypot(rc_sim_reference(s)[2 * i] - u0[2 * i], rc_sim_reference(s)[2 * i + 1] - u0[2 * i + 1]));
    a1 = atan2(rc_sim_positions(s)[3 * (nv - 1) + 1], rc_sim_positions(s)[3 * (nv - 1)]);
    printf("    %s turned %.2f rad, the sheet's corner %.2f rad; max |u - u_settled| %.3g m; %d of 40 steps converged\n",
           mesh == 3 ? "sphere" : mesh == 2 ? "mesh turntable, diagonal under the sheet" : mesh ? "mesh turntable" : "box", ang, a1 - a0, drift, conv);
    CHECKF(drift < 1e-6, "u drifted by %.3g m", drift);
    CHECKF(a1 - a0 > 0.5 * ang, "the sheet turned %.3f rad of the support's %.3f", a1 - a0, ang);
    CHECK(conv == 40);
    free(u0);
    rc_sim_destroy(s);
}
static void test_adaptive_spinning_support_keeps_u(void) { t_spinning_support(0); t_spinning_support(1); t_spinning_support(2); t_spinning_support(3); }

/* A sheet across the ridge of a tent mesh (slopes 0.05, mu 1) that starts turning about z at 0.01
   rad per step from rest: the sheet slips a little at the start (while it holds, mu >= 2, u stays
   to the bit), so u may move, but the ridge pairs' friction must not hand it an incentive: their
   terms are weighted by the cloth area as the barrier's (rc__sim_tri_pair_friction) and their
   material offsets carried by the obstacle's motion (rc__sim_obs_carry_gradient). Measured max
   |u - u_settled| after 40 steps: 1.6 mm (gcc), 2.4 mm (clang, and C++ with FMA contraction: the
   slip at the start moves with the last bits); mutants: the ridge pairs unweighted 8.9 mm (clang
   8.2), their carry Q = I 9.5 mm, session 36's build (both) 9.3 mm. The bar, 4 mm, lies between. */
static void test_adaptive_turning_ridge_keeps_u(void)
{
    const double slope = 0.05;
    double f0[18], *u0 = NULL, drift = 0.0, ang = 0.0;
    static const int ft[12] = { 0, 2, 3, 0, 3, 1, 0, 1, 5, 0, 5, 4 };
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    int i, k, id = -1, nv, conv = 0;
    /* ridge (-0.5, 0, 0) - (0.5, 0, 0), eaves at y = -+0.5 */
    const double fv0[18] = { -0.5, 0, 0, 0.5, 0, 0, -0.5, -0.5, -0.5 * slope, 0.5, -0.5, -0.5 * slope, -0.5, 0.5, -0.5 * slope, 0.5, 0.5, -0.5 * slope };
    memcpy(f0, fv0, sizeof f0);
    CHECK_OK(rc_mesh_grid(&m, 0.3, 0.3, 11, 11, RC_DIAG_ALTERNATING));
    for (i = 0; i < m.num_verts; ++i) {   /* laid over the ridge, 6 mm above it, off its symmetry lines */
        m.pos[3 * i] -= 0.15 - 0.013; m.pos[3 * i + 1] -= 0.15 - 0.007;
        m.pos[3 * i + 2] = 0.006 - fabs(m.pos[3 * i + 1]) * slope;
    }
    def.adaptive = 1;
    def.num_threads = 1;
    s = t_sim_on_mesh(&def, &m);
    if (!s) { rc_mesh_free(&m); return; }
    nv = rc_sim_num_verts(s);
    CHECK_OK(rc_sim_add_trimesh(s, 6, f0, 4, ft, &id));
    CHECK_OK(rc_sim_set_obstacle_friction(s, id, 1.0));
    for (k = 0; k < 20; ++k) CHECK_OK(rc_sim_step(s, &st));   /* settle */
    u0 = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
    if (u0) memcpy(u0, rc_sim_reference(s), sizeof(double) * 2 * (size_t)nv);
    for (k = 0; k < 40 && u0; ++k) {
        double fv[18];
        ang += 0.01;
        for (i = 0; i < 6; ++i) {
            fv[3 * i] = cos(ang) * f0[3 * i] - sin(ang) * f0[3 * i + 1];
            fv[3 * i + 1] = sin(ang) * f0[3 * i] + cos(ang) * f0[3 * i + 1];
            fv[3 * i + 2] = f0[3 * i + 2];
        }
        CHECK_OK(rc_sim_set_obstacle_vertices(s, id, fv));
        CHECK_OK(rc_sim_step(s, &st));
        conv += st.converged;
    }
    for (i = 0; i < nv && u0; ++i) drift = fmax(drift, hypot(rc_sim_reference(s)[2 * i] - u0[2 * i], rc_sim_reference(s)[2 * i + 1] - u0[2 * i + 1]));
    printf("    tent ridge (slopes %.2f, mu 1) turned %.2f rad: max |u - u_settled| %.3g m; %d of 40 steps converged\n", slope, ang, drift, conv);
    CHECKF(drift < 4e-3, "u slid %.3g m across the turning ridge", drift);
    CHECK(conv == 40);
    free(u0);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
}

/* uniform acceleration with gravity along the sheet as well as across it (the helper probe of
   session 18: g = (3, -2, -6) on a 9 x 9 sheet): a rigid motion, so u must not move. Until session
   18 the first outer iteration of each step took its joint step from x at the step's start, where
   g_x is not zero; there the sliding direction of u (a null direction of the energy at the
   optimum in x) is not a null direction of the Hessian, and u slid ~0.2 mm per step until the
   regulariser woke up. */
static void test_adaptive_tilted_gravity_keeps_u(void)
{
    rc_mesh m;
    const double g[3] = { 3.0, -2.0, -6.0 };
    double du;
    CHECK_OK(rc_mesh_grid(&m, 0.3, 0.3, 9, 9, RC_DIAG_ALTERNATING));
    du = ta_u_drift(&m, g, 20);
    printf("    gravity (3, -2, -6), free fall, 20 steps: max |u - u0| %.3g m\n", du);
    CHECKF(du <= 1e-9, "u drifted by %g m", du);
    rc_mesh_free(&m);
}

/* rigid translation (uniform velocity, no gravity): u does not drift and x follows x0 + v t */
static void test_adaptive_rigid_motion_no_drift(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s;
    rc_step_stats ss;
    double *state, du = 0.0, dx = 0.0, vel[3] = { 0.3, -0.2, 0.5 };
    int i, k, c, nv;
    CHECK_OK(rc_mesh_grid(&m, 0.4, 0.3, 7, 6, RC_DIAG_RANDOM + 4));
    nv = m.num_verts;
    def.mesh.num_verts = nv; def.mesh.num_tris = m.num_tris;
    def.mesh.ref_uv = m.ref_uv; def.mesh.pos = m.pos; def.mesh.tris = m.tris;
    def.gravity[2] = 0.0;
    def.adaptive = 1;
    def.num_threads = 1;
    CHECK_OK(rc_sim_create(&def, &s));
    state = (double *)malloc(sizeof(double) * rc_sim_state_size(s));
    CHECK_OK(rc_sim_save_state(s, state));
    for (i = 0; i < nv; ++i) for (c = 0; c < 3; ++c) state[RC_SIM_STATE_HEADER + 3 * nv + 3 * i + c] = vel[c];   /* layout: header, x, v, u, phi, ... */
    CHECK_OK(rc_sim_load_state(s, state));
    for (k = 0; k < 10; ++k) CHECK_OK(rc_sim_step(s, &ss));
    for (i = 0; i < nv; ++i) {
        for (c = 0; c < 2; ++c) if (fabs(rc_sim_reference(s)[2 * i + c] - m.ref_uv[2 * i + c]) > du) du = fabs(rc_sim_reference(s)[2 * i + c] - m.ref_uv[2 * i + c]);
        for (c = 0; c < 3; ++c) {
            double e = fabs(rc_sim_positions(s)[3 * i + c] - (m.pos[3 * i + c] + 10 * def.dt * vel[c]));
            if (e > dx) dx = e;
        }
    }
    printf("    rigid translation, 10 steps: max |u - u0| %.3g m, max |x - (x0 + v t)| %.3g m\n", du, dx);
    CHECKF(du <= 1e-12, "u drifted by %g in rigid motion", du);
    CHECKF(dx <= 1e-10, "rigid trajectory off by %g", dx);
    free(state);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
}

/* Rigid rotation, no gravity, a free sheet spinning about its normal and tumbling about an in-plane
   axis (5 rad/s): implicit Euler's straight-line prediction x + h v of a rotation is affine in the
   position (a rotation and a uniform scale by sqrt(1 + h^2 w^2)), so the strain stays uniform and
   no force acts on u, which must stay at u0 (within round-off), with x the fixed mesh's. A sheet
   at rest cannot tell a frozen boundary from a free one; here the sides are stretched, so a
   boundary vertex given the wrong u freedom (a session-62 mutation: two u DOFs for the sides'
   vertices) would move. */
static void test_adaptive_rigid_rotation_keeps_u(void)
{
    int axis;
    for (axis = 0; axis < 2; ++axis) {
        rc_mesh m;
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s[2];
        double w[3] = { 0.0, 0.0, 0.0 }, c[3] = { 0.2, 0.15, 0.0 }, *v, du = 0.0, dx = 0.0, dmax = 0.0;
        int i, k, mode, nv;
        w[axis == 0 ? 2 : 0] = 5.0;   /* about the normal (z), then about the in-plane x axis */
        CHECK_OK(rc_mesh_grid(&m, 0.4, 0.3, 7, 6, RC_DIAG_RANDOM + 4));
        nv = m.num_verts;
        def.mesh = rc_mesh_describe(&m);
        def.gravity[2] = 0.0;
        def.num_threads = 1;
        v = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
        CHECK(v != NULL);
        if (!v) { rc_mesh_free(&m); return; }
        for (i = 0; i < nv; ++i) {   /* v = w x (x - c) */
            double r[3];
            for (k = 0; k < 3; ++k) r[k] = m.pos[3 * i + k] - c[k];
            v[3 * i] = w[1] * r[2] - w[2] * r[1]; v[3 * i + 1] = w[2] * r[0] - w[0] * r[2]; v[3 * i + 2] = w[0] * r[1] - w[1] * r[0];
        }
        for (mode = 0; mode < 2; ++mode) {
            def.adaptive = mode;
            s[mode] = NULL;
            CHECK_OK(rc_sim_create(&def, &s[mode]));
            if (!s[mode]) continue;
            CHECK_OK(rc_sim_set_velocities(s[mode], v));
            for (k = 0; k < 10; ++k) CHECK_OK(rc_sim_step(s[mode], NULL));
        }
        if (s[0] && s[1]) {
            for (i = 0; i < nv; ++i) {
                for (k = 0; k < 2; ++k) du = fmax(du, fabs(rc_sim_reference(s[1])[2 * i + k] - m.ref_uv[2 * i + k]));
                for (k = 0; k < 3; ++k) {
                    dx = fmax(dx, fabs(rc_sim_positions(s[1])[3 * i + k] - rc_sim_positions(s[0])[3 * i + k]));
                    dmax = fmax(dmax, fabs(rc_sim_positions(s[0])[3 * i + k] - m.pos[3 * i + k]));
                }
            }
            printf("    rigid rotation about %s, 10 steps: the sheet moved up to %.3g m; max |u - u0| %.3g m, adaptive x - fixed x %.3g m\n",
                   axis == 0 ? "the normal" : "an in-plane axis", dmax, du, dx);
            CHECK(dmax > 0.05);   /* it did turn */
            CHECKF(du <= 1e-10, "u moved %g m in rigid rotation", du);
            /* the two solvers stop at different iterates within the stopping rule's |dx| <= tol L h
               (5e-7 m here); measured 9e-11 and 2e-10 m */
            CHECKF(dx <= 1e-6, "the adaptive sheet is %g m off the fixed one", dx);
        }
        rc_sim_destroy(s[0]); rc_sim_destroy(s[1]);
        free(v);
        rc_mesh_free(&m);
    }
}

/* free flight under gravity: an adaptive cloth follows exactly the fixed-mesh trajectory. In free
   flight every u is a minimiser (the energy is flat in u once x is at x~ + h^2 g), and the joint
   Newton may slide vertices through the material while x is still converging, so the comparison
   is made at material points: adaptive vertex i sits at material point u_i, where the fixed sheet
   (reference u0) is interpolated barycentrically. */
static void test_adaptive_free_flight_matches_fixed(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *a, *f;
    rc_step_stats ss;
    double dx = 0.0, du = 0.0;
    int i, k, c, t, located = 0;
    CHECK_OK(rc_mesh_square(&m, 0.5, 64, 9u));
    def.mesh = rc_mesh_describe(&m);
    def.num_threads = 1;
    CHECK_OK(rc_sim_create(&def, &f));
    def.adaptive = 1;
    CHECK_OK(rc_sim_create(&def, &a));
    for (k = 0; k < 10; ++k) { CHECK_OK(rc_sim_step(f, &ss)); CHECK_OK(rc_sim_step(a, &ss)); }
    for (i = 0; i < m.num_verts; ++i) {
        const double *ua = rc_sim_reference(a) + 2 * i;
        for (c = 0; c < 2; ++c) if (fabs(ua[c] - m.ref_uv[2 * i + c]) > du) du = fabs(ua[c] - m.ref_uv[2 * i + c]);
        for (t = 0; t < m.num_tris; ++t) {
            const int *tri = m.tris + 3 * t;
            const double *p0 = m.ref_uv + 2 * tri[0], *p1 = m.ref_uv + 2 * tri[1], *p2 = m.ref_uv + 2 * tri[2];
            double det = (p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1]);
            double b1 = ((ua[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (ua[1] - p0[1])) / det;
            double b2 = ((p1[0] - p0[0]) * (ua[1] - p0[1]) - (ua[0] - p0[0]) * (p1[1] - p0[1])) / det, b0 = 1.0 - b1 - b2;
            if (b0 < -1e-12 || b1 < -1e-12 || b2 < -1e-12) continue;
            for (c = 0; c < 3; ++c) {
                const double *xf = rc_sim_positions(f);
                double want = b0 * xf[3 * tri[0] + c] + b1 * xf[3 * tri[1] + c] + b2 * xf[3 * tri[2] + c];
                double e = fabs(rc_sim_positions(a)[3 * i + c] - want);
                if (e > dx) dx = e;
            }
            located++;
            break;
        }
    }
    printf("    free flight, 10 steps: max |x_adaptive(u_i) - x_fixed(u_i)| = %.3g m at material points (vertices slid by up to %.3g m)\n", dx, du);
    CHECKF(located == m.num_verts, "only %d of %d material points located", located, m.num_verts);
    /* 1e-10 m: the trajectories agree to round-off (a 0.5 m sheet moving ~0.5 m) */
    CHECKF(dx <= 1e-10, "adaptive free flight deviates by %g", dx);
    rc_sim_destroy(a);
    rc_sim_destroy(f);
    rc_mesh_free(&m);
}

/* a hanging sheet whose corners are pulled inward over a few steps: on every step no reference
   triangle inverts, boundary vertices stay on their side of the square, the total reference
   area (hence the mass) is constant, the step decreases the IP, and u actually moves */
static void test_adaptive_invariants_hanging(void)
{
    const int n = 7;
    rc_sim *s = ta_hanging(n, 1, 0.0, 1.0);
    rc_step_stats ss;
    ta_inv w;
    double max_q = 0.0;
    int k;
    const int steps = 6;
    if (!ta_start(s, n, &w)) { rc_sim_destroy(s); return; }
    for (k = 0; k < steps; ++k) {
        double p0[3], p1[3];
        memcpy(p0, rc_sim_positions(s), sizeof p0);
        memcpy(p1, rc_sim_positions(s) + 3 * (n - 1), sizeof p1);
        p0[0] += 0.01; p1[0] -= 0.01;   /* pull the corners 2 cm closer per step */
        CHECK_OK(rc_sim_pin(s, 0, p0));
        CHECK_OK(rc_sim_pin(s, n - 1, p1));
        CHECK_OK(rc_sim_step(s, &ss));
        ta_track(s, &ss, n, &w);
        if (ss.max_quality > max_q) max_q = ss.max_quality;
    }
    printf("    %d steps: converged %d, min area ratio %.3f, max MIPS %.3f, |dA| %.2e m^2, boundary drift %.2e m, max u travel %.4f m\n",
           steps, w.converged, w.min_ratio, max_q, w.worst_area, w.worst_bnd, w.travel);
    CHECKF(w.min_ratio > 0.0, "a reference triangle inverted (area ratio %g)", w.min_ratio);
    CHECKF(w.worst_area <= 1e-12 * w.A0, "total reference area changed by %g", w.worst_area);
    CHECKF(w.worst_bnd <= 1e-12, "a boundary vertex left its side by %g", w.worst_bnd);
    CHECKF(w.travel > 1e-3, "u hardly moved (%g m): the adaptive solve did nothing", w.travel);
    {   /* rc_sim_vertex_masses follows u: the test's own lumped masses, summing to the cloth's mass */
        int nv = rc_sim_num_verts(s), i;
        double *m = (double *)malloc(sizeof(double) * (size_t)nv), *mt = t_masses(s, &s->def.material), sum = 0.0, dev = 0.0;
        if (m && mt) {
            CHECK_OK(rc_sim_vertex_masses(s, m));
            for (i = 0; i < nv; ++i) { sum += m[i]; dev = fmax(dev, fabs(m[i] - mt[i])); }
            CHECKF(dev <= 1e-15 * s->total_mass, "vertex masses differ by %g kg", dev);
            CHECKF(fabs(sum - s->total_mass) <= 1e-12 * s->total_mass, "vertex masses sum to %.15g kg of %.15g", sum, s->total_mass);
        }
        free(m); free(mt);
    }
    free(w.u0);
    rc_sim_destroy(s);
}

/* From the same state, one adaptive step minimises the same IP over a superset of the fixed
   step's unknowns (u = u^t is feasible and the regulariser is 0 there), so its converged IP must
   not be higher. Checked on the hanging sheet with moving corners. */
static void test_adaptive_step_ip_below_fixed(void)
{
    const int n = 7;
    rc_sim *a = ta_hanging(n, 1, 0.1, 1.0), *f = ta_hanging(n, 0, 0.1, 1.0);
    rc_step_stats sa, sf;
    int k;
    CHECK(a && f);
    if (!a || !f) return;
    for (k = 0; k < 2; ++k) {
        CHECK_OK(rc_sim_step(a, &sa));
        CHECK_OK(rc_sim_step(f, &sf));
        printf("    step %d: IP adaptive %.8g (start %.8g, outer %d, converged %d), fixed %.8g (start %.8g)\n", k, sa.ip_end,
               sa.ip_start, sa.outer_iters, sa.converged, sf.ip_end, sf.ip_start);
        /* only the first step starts from the same state */
        if (k == 0) CHECKF(sa.ip_end <= sf.ip_end + 1e-12 * fabs(sf.ip_end), "adaptive IP %.10g above fixed %.10g", sa.ip_end, sf.ip_end);
    }
    rc_sim_destroy(a);
    rc_sim_destroy(f);
}

/* cube drape (issue 5): a 0.6 m sheet falling over the 0.4 m box of the mesh-obstacle tests
   (t_box_v/t_box_t of test_sim.c, a triangle mesh with sharp edges). Five fixed-mesh steps
   develop the drape over the edges; from that saved state one fixed and one adaptive step.
   The adaptive step minimises over u as well, from the same start and to the same tolerance;
   with several local minima this is not a theorem (a joint descent could end in a worse basin),
   it is the issue's claim checked on this scene: its converged IP is not above the fixed one. */
static rc_sim *ta_cube(int adaptive)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    int i;
    if (rc_mesh_grid(&m, 0.6, 0.6, 9, 9, RC_DIAG_ALTERNATING) != RC_OK) return NULL;
    for (i = 0; i < m.num_verts; ++i) { m.pos[3 * i] -= 0.3; m.pos[3 * i + 1] -= 0.3; m.pos[3 * i + 2] = 0.0025; }
    def.mesh = rc_mesh_describe(&m);
    def.material = rc_material_proto();
    def.adaptive = adaptive;
    def.num_threads = 1;
    if (rc_sim_create(&def, &s) == RC_OK && rc_sim_add_trimesh(s, 8, t_box_v, 12, t_box_t, NULL) != RC_OK) { rc_sim_destroy(s); s = NULL; }
    rc_mesh_free(&m);
    return s;
}

static void test_adaptive_cube_ip_below_fixed(void)
{
    rc_sim *w = ta_cube(0), *f = ta_cube(0), *a = ta_cube(1);
    rc_step_stats sw, sf, sa;
    double *state;
    int k;
    CHECK(w && f && a);
    if (!w || !f || !a) { rc_sim_destroy(w); rc_sim_destroy(f); rc_sim_destroy(a); return; }
    for (k = 0; k < 5; ++k) CHECK_OK(rc_sim_step(w, &sw));
    state = (double *)malloc(sizeof(double) * rc_sim_state_size(w));
    CHECK(state != NULL);
    if (state) {
        CHECK_OK(rc_sim_save_state(w, state));
        CHECK_OK(rc_sim_load_state(f, state));
        CHECK_OK(rc_sim_load_state(a, state));
        CHECK_OK(rc_sim_step(f, &sf));
        CHECK_OK(rc_sim_step(a, &sa));
        printf("    cube drape step 6: IP fixed %.10g (converged %d), adaptive %.10g (converged %d, outer %d, u travel %.3g m)\n",
               sf.ip_end, sf.converged, sa.ip_end, sa.converged, sa.outer_iters, sa.ref_travel);
        CHECK(sf.converged && sa.converged);
        CHECKF(sa.ip_end <= sf.ip_end + 1e-12 * fabs(sf.ip_end), "adaptive IP %.10g above fixed %.10g", sa.ip_end, sf.ip_end);
        free(state);
    }
    rc_sim_destroy(w); rc_sim_destroy(f); rc_sim_destroy(a);
}

/* The issue's claim on its named scenes (the CLI's two_point_drape, corners pulled together, and
   cube_drape, analytic box and ground, at their default sizes): from the fixed run's state after 2,
   7 and 14 steps, one adaptive step ends at a converged IP not above the fixed step's from that
   same state (the same animation time, so the same pin targets). The stand-ins above check the
   same on sheets of the test files. */
static void test_adaptive_scene_ip_below_fixed(void)
{
    static const char *const names[2] = { "two_point_drape", "cube_drape" };
    int q;
    for (q = 0; q < 2; ++q) {
        const sc_info *info = sc_find_scene(names[q]);
        sc_params p = sc_default_params();
        sc_scene fx, ad;
        double *state = NULL;
        int k, compared = 0;
        CHECK(info != NULL);
        if (!info) return;
        p.threads = 1;
        p.adaptive = 0;
        CHECK_OK(sc_create(&fx, info, &p));
        p.adaptive = 1;
        CHECK_OK(sc_create(&ad, info, &p));
        if (fx.sim && ad.sim) state = (double *)malloc(sizeof(double) * rc_sim_state_size(fx.sim));
        CHECK(state != NULL);
        for (k = 0; k < 15 && state; ++k) {
            rc_step_stats sf, sa;
            int compare = k == 2 || k == 7 || k == 14;
            if (compare) {
                CHECK_OK(rc_sim_save_state(fx.sim, state));
                CHECK_OK(rc_sim_load_state(ad.sim, state));
                ad.time = fx.time;
            }
            CHECK_OK(sc_step(&fx, &sf));
            if (!compare) continue;
            CHECK_OK(sc_step(&ad, &sa));
            printf("    %s, step %d: IP fixed %.10g (converged %d), adaptive %.10g (converged %d, outer %d), start %.10g\n", names[q], k + 1,
                   sf.ip_end, sf.converged, sa.ip_end, sa.converged, sa.outer_iters, sa.ip_start);
            CHECK(sf.converged && sa.converged);
            CHECK(sa.ip_start == sf.ip_start);   /* the same step problem */
            CHECKF(sa.ip_end <= sf.ip_end + 1e-12 * fabs(sf.ip_end), "%s step %d: adaptive IP %.10g above fixed %.10g", names[q], k + 1,
                   sa.ip_end, sf.ip_end);
            compared++;
        }
        CHECK(compared == 3);
        free(state);
        sc_destroy(&fx); sc_destroy(&ad);
    }
}

/* Adaptive statics with friction (session 43, a randomized sweep): a 10 x 10 cotton sheet held by
   two interior pins (one target 2 cm down), partly resting on an obstacle, gravity tilted. The
   friction potential used to be mu lambda f0 with IPC's f0(0) = eps/3, and the adaptive mode
   weights it by the mass (analytic shapes) or area (mesh obstacles) the contact's material
   carries at u, so the constant was a force in u alone, growing with the pseudo step of statics
   (up to 1e6 dt): u slid 5-10 cm per pseudo step and the solve ended unconverged after 400 of them
   (93 s), on a sphere and on a tilted mesh floor; fixed mode and mu = 0 converged. f0 is now 0 at
   rest (rc__ct_f0): both converge, and the sphere's equilibrium is the frictionless one (friction
   vanishes where nothing slips) up to where the flat u landscape lets the sheet settle: the bug put
   V with friction 1.8% above the frictionless V (0.10416 J against 0.10229), while equilibria of
   the same scene reached by different correct solves differ by up to 0.19% (session 46, at
   itr_energy_tol = 0: 0.102277 to 0.102468 J, with and without friction, two headers), so the bar
   is 0.5%. */
static double t_static_fric(int obstacle, double mu, int *converged, int *pseudo)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    double S = 0.0, B = 0.0, G = 0.0, p[3];
    int i;
    *converged = 0; *pseudo = 0;
    if (rc_mesh_grid(&m, 0.4, 0.4, 10, 10, RC_DIAG_ALTERNATING) != RC_OK) { CHECK(0); return 0.0; }
    for (i = 0; i < m.num_verts; ++i) m.pos[3 * i + 2] = 0.5;
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.num_threads = 1;
    def.friction = mu;
    def.dt = 0.02;
    def.gravity[0] = -3.0; def.gravity[1] = 0.0; def.gravity[2] = -9.0;
    CHECK_OK(rc_sim_create(&def, &s));
    rc_mesh_free(&m);
    if (!s) return 0.0;
    if (obstacle == 0) {
        const double c[3] = { 0.2, 0.2, 0.39 };
        CHECK_OK(rc_sim_add_sphere(s, c, 0.1, NULL));
    } else {   /* a floor through (0.2, 0.2, 0.43) tilted 0.29 rad about y: two triangles */
        const double n[3] = { 0.3, 0.0, 1.0 };
        double X[12];
        const int tris[6] = { 0, 1, 2, 0, 2, 3 };
        for (i = 0; i < 4; ++i) {
            X[3 * i] = (i == 1 || i == 2) ? 1.2 : -0.8;
            X[3 * i + 1] = i >= 2 ? 1.2 : -0.8;
            X[3 * i + 2] = 0.43 - (n[0] * (X[3 * i] - 0.2)) / n[2];
        }
        CHECK_OK(rc_sim_add_trimesh(s, 4, X, 2, tris, NULL));
    }
    memcpy(p, s->x + 3 * 33, sizeof p);
    CHECK_OK(rc_sim_pin(s, 33, p));
    memcpy(p, s->x + 3 * 66, sizeof p);
    p[2] -= 0.02;
    CHECK_OK(rc_sim_pin(s, 66, p));
    CHECK_OK(rc_sim_solve_static(s, &st));
    *converged = st.converged;
    *pseudo = st.substeps;
    rc_sim_potential(s, &S, &B, &G);
    rc_sim_destroy(s);
    return S + B + G;
}

static void test_adaptive_static_friction_converges(void)
{
    int conv[3], pseudo[3];
    double V_fric = t_static_fric(0, 0.3, &conv[0], &pseudo[0]);
    double V_free = t_static_fric(0, 0.0, &conv[1], &pseudo[1]);
    double V_floor = t_static_fric(1, 0.3, &conv[2], &pseudo[2]);
    printf("    adaptive statics, pinned sheet: on a sphere mu 0.3 V %.8f J (converged %d, %d pseudo steps), mu 0 V %.8f J (%d, %d); "
           "on a tilted mesh floor mu 0.3 V %.8f J (%d, %d)\n", V_fric, conv[0], pseudo[0], V_free, conv[1], pseudo[1], V_floor, conv[2], pseudo[2]);
    CHECK(conv[0] && conv[1] && conv[2]);
    CHECKF(fabs(V_fric - V_free) <= 5e-3 * fabs(V_free), "sphere: V with friction %.9g, without %.9g", V_fric, V_free);
}

/* The reference-inversion filter of the joint line search (rc__sim_inversion_bound, DESIGN §4:
   0.8 x the smallest positive root where a triangle's MIPS reaches RC__MIPS_CAP, or its area 0),
   on a direction that moves the hanging sheet's centre vertex two cells in u (through its
   neighbours at ~0.5): the bound is below that and positive, at the bound every triangle keeps
   MIPS <= the cap, and at 1.25 x the bound (its root) one reaches it. No scene test sees this
   filter go: with it removed, inverted iterates still have a non-finite energy that the line
   search refuses (a session-62 mutation passed every other test but one). */
static void test_adaptive_inversion_bound(void)
{
    const int n = 7, v = 3 * n + 3;
    rc_sim *s = ta_hanging(n, 1, 0.1, 1.0);
    rc__system *y;
    double cell = 0.8 / (n - 1), a, *u2, worst_at = 0.0, worst_past = 0.0;
    int t, k;
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(rc_sim_step(s, NULL));
    y = &s->sys_xpu;
    CHECK(y->with_u && y->dof_u[v] >= 0 && y->nu[v] == 2);
    if (!y->with_u || y->dof_u[v] < 0 || y->nu[v] != 2) { rc_sim_destroy(s); return; }
    memset(y->d, 0, sizeof(double) * (size_t)y->ndof);
    y->d[y->dof_u[v]] = 2.0 * cell;
    y->d[y->dof_u[v] + 1] = 0.3 * cell;
    a = rc__sim_inversion_bound(s, y, s->u);
    u2 = (double *)malloc(sizeof(double) * 2 * (size_t)s->nv);
    CHECK(u2 != NULL);
    if (u2) {
        for (k = 0; k < 2; ++k) {
            double f = k == 0 ? a : 1.25 * a, w = 0.0;
            memcpy(u2, s->u, sizeof(double) * 2 * (size_t)s->nv);
            u2[2 * v] += f * y->d[y->dof_u[v]];
            u2[2 * v + 1] += f * y->d[y->dof_u[v] + 1];
            for (t = 0; t < s->nt; ++t) {
                double q = rc__sim_ref_mips(s, u2, t);
                if (!(q <= w)) w = q;
            }
            if (k == 0) worst_at = w; else worst_past = w;
        }
        free(u2);
    }
    printf("    a step of 2 cells through the neighbours: bound alpha %.4f; max MIPS %.4g there, %.4g at 1.25 alpha (cap %g)\n", a, worst_at,
           worst_past, RC__MIPS_CAP);
    CHECK(a > 0.0 && a < 0.5);
    CHECKF(worst_at <= RC__MIPS_CAP, "MIPS %.6g at the bound", worst_at);
    CHECKF(worst_past >= RC__MIPS_CAP * (1.0 - 1e-6), "MIPS %.6g at 1.25 x the bound: the bound is not at the cap's root", worst_past);
    rc_sim_destroy(s);
}

/* The regulariser as assembled into the joint system, where it is active: its u-gradient against
   central differences of its energy, the whole assembled u-gradient against those of the whole
   energy, and the joint Hessian's u columns (exact: proj = -1) against differences of the
   assembled gradient. The kernel's own checks (test_energy_fd_mips) do not see the assembly: a
   session-62 mutation that left the regulariser's gradient out of the assembled one passed every
   assembled check, whose states all sat below the threshold. Here the interior vertices at odd
   rows and columns of the hanging sheet (no two in one triangle) are slid 35% of a cell, so that
   their triangles pass MIPS 2.5. */
static void test_adaptive_regulariser_assembled_fd(void)
{
    const int n = 7;
    rc_sim *s = ta_hanging(n, 1, 0.1, 1.0);
    rc__system *y;
    rc__terms T;
    double *g, *gq, gmax = 0.0, qmax = 0.0, worst = 0.0, worst_q = 0.0, cell = 0.8 / (n - 1);
    int i, a, checked = 0, nnz, k;
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(rc_sim_step(s, NULL));   /* the systems built, x~ and the masses of a real step */
    y = &s->sys_xpu;
    for (i = 0; i < s->nv; ++i)   /* along u on odd rows 1, 5, ..., along v on rows 3, 7, ... */
        if ((i % n) & 1 && (i / n) & 1) s->u[2 * i + ((i / n) % 4 == 3)] += 0.35 * cell;
    memset(&T, 0, sizeof T);
    rc__sim_energy(s, s->x, s->u, s->phi, &T);
    printf("    regulariser energy %.3e J at the slid state (the total's terms: inertia %.3e, stretch %.3e)\n", T.quality, T.inertia, T.stretch);
    CHECKF(rc__isfinite(T.quality) && T.quality > 1e-6 * (fabs(T.inertia) + fabs(T.stretch) + fabs(T.gravity)),
           "the regulariser is not active or not finite: %g J", T.quality);
    s->proj = -1;
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    g = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    gq = (double *)malloc(sizeof(double) * (size_t)y->ndof);
    CHECK(g != NULL && gq != NULL);
    if (!g || !gq) { free(g); free(gq); rc_sim_destroy(s); return; }
    memcpy(g, y->g, sizeof(double) * (size_t)y->ndof);
    {   /* the regulariser's part: the assembly with its weight at zero subtracted */
        double w = s->quality_w;
        s->quality_w = 0.0;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        s->quality_w = w;
        for (k = 0; k < y->ndof; ++k) gq[k] = g[k] - y->g[k];
    }
    for (i = 0; i < s->nv; ++i)
        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
            int j = y->dof_u[i] + a;
            if (fabs(g[j]) > gmax) gmax = fabs(g[j]);
            if (fabs(gq[j]) > qmax) qmax = fabs(gq[j]);
        }
    for (i = 0; i < s->nv; ++i)
        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
            int j = y->dof_u[i] + a;
            double fd, qfd, err;
            t_u_central_diff(s, y, i, a, 1e-7, offsetof(rc__terms, quality), &fd, &qfd);
            err = fabs(fd - g[j]) / (fabs(g[j]) + 1e-3 * gmax);
            if (!(err <= worst)) worst = err;   /* NaN too */
            err = fabs(qfd - gq[j]) / (fabs(gq[j]) + 1e-3 * qmax);
            if (!(err <= worst_q)) worst_q = err;
            checked++;
        }
    {
        double *H, hmax = 0.0, worst_h;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        nnz = y->colptr[y->ndof];
        H = (double *)malloc(sizeof(double) * (size_t)nnz);
        CHECK(H != NULL);
        if (H) {
            memcpy(H, y->val, sizeof(double) * (size_t)nnz);
            for (k = 0; k < nnz; ++k) if (fabs(H[k]) > hmax) hmax = fabs(H[k]);
            worst_h = t_hess_u_columns(s, y, H, 1e-8, 0, NULL, 0) / hmax;
            printf("    the joint Hessian's u columns: error %.2e of max %.3e\n", worst_h, hmax);
            CHECKF(rc__all_finite(H, (size_t)nnz) && worst_h < 1e-5, "joint Hessian u columns error %.2e", worst_h);
            free(H);
        }
    }
    printf("    %d u DOFs: worst relative error %.2e (total), %.2e (regulariser); max |g_u| %.3e, of it the regulariser's %.3e\n",
           checked, worst, worst_q, gmax, qmax);
    CHECK(checked > 0);
    CHECKF(rc__all_finite(g, (size_t)y->ndof) && qmax > 1e-3 * gmax, "the regulariser is missing from the assembled u-gradient (%.3e of %.3e)",
           qmax, gmax);
    CHECKF(worst < 1e-4 && worst_q < 1e-4, "u gradient error %.2e (total), %.2e (regulariser)", worst, worst_q);
    free(g); free(gq);
    rc_sim_destroy(s);
}

/* "Every step is monotone in E" (DESIGN §4): the incremental potential at every accepted iterate of
   a step (inner x solves, joint outer steps, the angle polish: def.iterate_hook) never rises above
   the one before it, beyond round-off. The hanging sheet has no contact; the sphere and cube drapes
   and the fold (self contact) at 150 vertices are in contact at most iterates (session 63), where
   the barrier stiffness and the lagged friction stay fixed within a step. Checked in both modes;
   before, only each step's end against its start was asserted (ta_track). Measured: no rise at
   all, in 49 to 199 iterates per run. */
typedef struct ta_mono {
    double last, rise;   /* E at the last iterate of this step; the largest rise from one iterate to the next */
    int count, touching; /* iterates seen; of them with a barrier term (contact energy > 0) */
} ta_mono;
static void ta_mono_hook(const rc_sim *cs, void *user)
{
    ta_mono *m = (ta_mono *)user;
    rc_sim *s = (rc_sim *)cs;   /* the energy evaluation writes only scratch */
    rc__terms T;
    double E = rc__sim_energy(s, s->x, s->u, s->phi, &T);
    if (m->count > 0 && !(E <= m->last)) m->rise = fmax(m->rise, E - m->last);
    if (!rc__isfinite(E)) m->rise = HUGE_VAL;
    m->touching += T.contact > 0.0;
    m->last = E;
    m->count++;
}
static void test_adaptive_iterates_monotone(void)
{
    int mode;
    for (mode = 0; mode <= 1; ++mode) {
        rc_sim *s = ta_hanging(7, mode, 0.1, 1.0);
        ta_mono m;
        int k, total = 0;
        double worst = 0.0;
        CHECK(s != NULL);
        if (!s) return;
        memset(&m, 0, sizeof m);
        s->def.iterate_hook = ta_mono_hook;
        s->def.iterate_user = &m;
        for (k = 0; k < 8; ++k) {
            rc_step_stats st;
            m.count = 0; m.rise = 0.0;
            CHECK_OK(rc_sim_step(s, &st));
            /* 1e-12 of the step's IP: far above E's round-off (~1e-16 of its terms) and far below
               any real rise */
            total += m.count;
            worst = fmax(worst, m.rise / (fabs(st.ip_start) + fabs(st.ip_end) + 1e-300));
            CHECKF(m.count > 1, "mode %d step %d: %d iterates seen", mode, k, m.count);
        }
        printf("    %s: %d accepted iterates over 8 steps; the largest rise from one to the next %.2e of the step's IP\n",
               mode ? "adaptive" : "fixed", total, worst);
        CHECKF(worst <= 1e-12, "%s: an iterate rose %.3g of the step's IP above the one before it", mode ? "adaptive" : "fixed", worst);
        rc_sim_destroy(s);
    }
    {   /* the same in contact scenes (the CLI's, small): within a step the barrier stiffness and the
           lagged friction are fixed, so E is one function there too (a split step's substeps are
           skipped: each has its own) */
        static const char *scenes[3] = { "sphere_drape", "cube_drape", "fold" };
        int sc_i;
        for (sc_i = 0; sc_i < 3; ++sc_i)
            for (mode = 0; mode <= 1; ++mode) {
                const sc_info *info = sc_find_scene(scenes[sc_i]);
                sc_params p = sc_default_params();
                sc_scene sc;
                ta_mono m;
                int k, total = 0, split = 0, touching = 0;
                double worst = 0.0;
                CHECK(info != NULL);
                if (!info) return;
                p.adaptive = mode; p.threads = 1; p.verts = 150;
                CHECK_OK(sc_create(&sc, info, &p));
                if (!sc.sim) continue;
                memset(&m, 0, sizeof m);
                sc.sim->def.iterate_hook = ta_mono_hook;
                sc.sim->def.iterate_user = &m;
                for (k = 0; k < 12; ++k) {
                    rc_step_stats st;
                    m.count = 0; m.rise = 0.0;
                    if (sc_step(&sc, &st) != RC_OK) { CHECKF(0, "%s step %d failed", scenes[sc_i], k); break; }
                    total += m.count;
                    touching += m.touching;
                    m.touching = 0;
                    if (st.substeps > 1) { ++split; continue; }
                    worst = fmax(worst, m.rise / (fabs(st.ip_start) + fabs(st.ip_end) + 1e-300));
                }
                printf("    %s, %s: %d accepted iterates over 12 steps (%d in contact, %d split steps); the largest rise %.2e of the step's IP\n",
                       scenes[sc_i], mode ? "adaptive" : "fixed", total, touching, split, worst);
                CHECKF(touching > total / 4, "%s: %d of %d iterates in contact", scenes[sc_i], touching, total);
                CHECKF(worst <= 1e-12, "%s, %s: an iterate rose %.3g of the step's IP", scenes[sc_i], mode ? "adaptive" : "fixed", worst);
                sc_destroy(&sc);
            }
    }
}

/* the scheduled + cached solver ends the step where the unaccelerated one does: final IPs within
   1% of the IP decrease of the step (issue 5) */
static void test_adaptive_schedule_cache_agree(void)
{
    const int n = 7;
    rc_sim *a = ta_hanging(n, 1, 0.0, 1.0), *b;
    rc_sim_def def;
    rc_step_stats sa, sb;
    (void)def;
    CHECK(a != NULL);
    if (!a) return;
    b = ta_hanging(n, 1, 0.0, 1.0);   /* same scene, unaccelerated */
    CHECK(b != NULL);
    if (!b) { rc_sim_destroy(a); return; }
    b->def.itr_schedule = 0;   /* unaccelerated: eps* at every outer iteration, no cache */
    b->def.itr_cache = 0;
    a->def.itr_max_outer = b->def.itr_max_outer = 300;   /* the default cap; u converges linearly (DESIGN §10), so both may end there */
    CHECK_OK(rc_sim_step(a, &sa));
    CHECK_OK(rc_sim_step(b, &sb));
    printf("    accelerated: IP %.10g (outer %d, inner %d, active %.2f, %d directions on the previous factor, converged %d);"
           " unaccelerated: IP %.10g (outer %d, inner %d, converged %d)\n",
           sa.ip_end, sa.outer_iters, sa.inner_iters, sa.active_rate, sa.factor_reuses, sa.converged, sb.ip_end, sb.outer_iters, sb.inner_iters, sb.converged);
    CHECK(sa.factor_reuses > 0 && sb.factor_reuses == 0 && sb.cg_iters == 0);   /* the reuse is exercised, and off without the cache */
    CHECK(sa.converged && sb.converged);   /* two runs stopped by the cap could "agree" anywhere */
    CHECKF(fabs(sa.ip_end - sb.ip_end) <= 0.01 * fabs(sb.ip_start - sb.ip_end), "IPs differ by %g, decrease %g",
           fabs(sa.ip_end - sb.ip_end), fabs(sb.ip_start - sb.ip_end));
    /* the per-iteration active rates: one per outer iteration, in [0, 1], their mean is active_rate;
       the unaccelerated run recomputes every stencil every time */
    CHECK(sa.substeps == 1 && sa.active_rate_per_iter != NULL && sa.num_active_rates == sa.outer_iters);
    if (sa.active_rate_per_iter && sa.num_active_rates > 0) {
        double mean = 0.0;
        int k, inrange = 1;
        for (k = 0; k < sa.num_active_rates; ++k) {
            mean += sa.active_rate_per_iter[k] / sa.num_active_rates;
            inrange &= sa.active_rate_per_iter[k] >= 0.0 && sa.active_rate_per_iter[k] <= 1.0;
        }
        CHECK(inrange);
        CHECK_NEAR(mean, sa.active_rate, 1e-12);
    }
    CHECK(sb.num_active_rates == sb.outer_iters && sb.active_rate == 1.0);
    rc_sim_destroy(a);
    rc_sim_destroy(b);
}

/* DESIGN §6's second refresh rule: besides the stencils that moved more than cache_eps, the 10%
   that moved most are always recomputed. With cache_eps = 1e30 only that rule acts: after the
   first outer iteration (everything computed) each iteration recomputes some stencils, and at most
   a tenth. (Session 21, a mutation audit: dropping the rule passed every test.) */
static void test_adaptive_cache_top_tenth_refreshed(void)
{
    rc_sim *a = ta_hanging(9, 1, 0.15, 1.0);
    rc_step_stats st;
    int k, nt;
    double lo = 1.0, hi = 0.0;
    CHECK(a != NULL);
    if (!a) return;
    nt = rc_sim_num_tris(a);
    a->def.cache_eps = 1e30;
    a->def.itr_energy_tol = 0.0;   /* enough outer iterations to look at */
    a->def.itr_max_outer = 12;
    CHECK_OK(rc_sim_step(a, &st));
    CHECK(st.num_active_rates >= 3);
    for (k = 1; k < st.num_active_rates; ++k) {
        if (st.active_rate_per_iter[k] < lo) lo = st.active_rate_per_iter[k];
        if (st.active_rate_per_iter[k] > hi) hi = st.active_rate_per_iter[k];
    }
    printf("    %d outer iterations, first %.3f, later %.4f - %.4f (%d triangles)\n", st.num_active_rates,
           st.num_active_rates ? st.active_rate_per_iter[0] : -1.0, lo, hi, nt);
    CHECK(st.num_active_rates > 0 && st.active_rate_per_iter[0] == 1.0);
    CHECKF(lo > 0.0 && hi <= (double)(nt / 10) / nt + 1e-12, "later active rates %g - %g, expected in (0, %g]", lo, hi,
           (double)(nt / 10) / nt);
    rc_sim_destroy(a);
}

/* The schedule's strict inner solve every itr_strict_every-th outer iteration (DESIGN §4): two
   runs of the same step capped at 10 outer iterations iterate identically through the 9th; with
   itr_strict_every = 10 the 10th starts with a strict x-only Newton solve, so it ends with more
   inner iterations than the run whose strict solves never come (itr_strict_every = 1000).
   (Session 21, a mutation audit: never running the every-k solve passed every test: the tested
   steps end in fewer than 10 outer iterations.) */
static void test_adaptive_strict_every_k(void)
{
    rc_sim *a = ta_hanging(9, 1, 0.15, 1.0), *b = ta_hanging(9, 1, 0.15, 1.0);
    rc_step_stats sa, sb;
    CHECK(a != NULL && b != NULL);
    if (!a || !b) { rc_sim_destroy(a); rc_sim_destroy(b); return; }
    a->def.itr_energy_tol = b->def.itr_energy_tol = 0.0;   /* no early end: the cap decides */
    a->def.itr_max_outer = b->def.itr_max_outer = 10;
    a->def.itr_strict_every = 10;
    b->def.itr_strict_every = 1000;
    CHECK_OK(rc_sim_step(a, &sa));
    CHECK_OK(rc_sim_step(b, &sb));
    printf("    10 outer iterations: inner %d with a strict solve at the 10th, %d without (converged %d, %d)\n", sa.inner_iters,
           sb.inner_iters, sa.converged, sb.converged);
    CHECK(sa.outer_iters == 10 && sb.outer_iters == 10);
    CHECKF(sa.inner_iters > sb.inner_iters, "inner iterations %d vs %d", sa.inner_iters, sb.inner_iters);
    rc_sim_destroy(a);
    rc_sim_destroy(b);
}

/* The two other outer treatments: DESIGN's per-stencil projected joint Hessian
   (itr_exact_hessian = 0) and the PCG linear solver (which always takes it: no factor to shift).
   Neither ran anywhere in the suite before session 50 (a coverage run found rc__sim_material_step
   never called). On the hanging sheet with its corners pulled inward, each must keep the
   invariants (IP down within every step, no inverted reference triangle, the total reference area
   and the sides of the square kept) and, from the same first state, end its first step within 2%
   of that step's IP decrease of the default (exact, LDL^T) solve: the same IP, minimised to
   the same tolerance and stopping rules. Measured when written: projected 0.87%, PCG 0.85% (both
   lower: the default ends its step by the relative decrement rule, itr_energy_tol, a little
   earlier); the default converges 4 of 4 steps, the others too. */
static void test_adaptive_projected_and_pcg_outer(void)
{
    const int n = 7, steps = 4;
    int mode;
    double ip_ref = 0.0, dec_ref = 0.0;
    for (mode = 0; mode < 3; ++mode) {
        rc_sim *s = ta_hanging_ex(n, 1, 0.1, 1.0, mode == 2 ? RC_SOLVER_PCG : RC_SOLVER_LDLT, mode == 0);
        rc_step_stats ss;
        ta_inv w;
        int k;
        if (!ta_start(s, n, &w)) { rc_sim_destroy(s); return; }
        for (k = 0; k < steps; ++k) {
            CHECK_OK(rc_sim_step(s, &ss));
            ta_track(s, &ss, n, &w);
            if (k == 0 && mode == 0) { ip_ref = ss.ip_end; dec_ref = ss.ip_start - ss.ip_end; }
            if (k == 0 && mode > 0)
                printf("    %s: first step IP %.10g, default %.10g (%.3f%% of the decrease)\n", mode == 1 ? "projected" : "PCG",
                       ss.ip_end, ip_ref, 100.0 * fabs(ss.ip_end - ip_ref) / dec_ref);
            if (k == 0 && mode > 0)
                CHECKF(fabs(ss.ip_end - ip_ref) <= 0.02 * dec_ref, "first step IP %.10g vs %.10g (decrease %g)", ss.ip_end, ip_ref, dec_ref);
        }
        printf("    mode %d: %d of %d steps converged, min area ratio %.3f, |dA| %.2e, boundary drift %.2e, max u travel %.4f m\n", mode,
               w.converged, steps, w.min_ratio, w.worst_area, w.worst_bnd, w.travel);
        CHECK(w.min_ratio > 0.0);
        CHECK(w.worst_area <= 1e-12 * w.A0 && w.worst_bnd <= 1e-12);
        CHECK(w.converged == steps && w.travel > 1e-3);
        free(w.u0);
        rc_sim_destroy(s);
    }
}

/* A flat sheet lying at rest on a plane (inside the barrier band) has nothing that drives u: it
   keeps u, as in the fixed mode, and every vertex rests at the same height. (Session 21 probe:
   with the barrier unweighted by the vertices' u-dependent masses, piling mass onto a few vertices
   lowered the potential; u slid at the travel limit for 62 steps, 12 cm, min area ratio 0.18.) */
static void test_adaptive_rest_on_plane_keeps_u(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    double p0[3] = { 0, 0, 0 }, nz[3] = { 0, 0, 1 }, du = 0.0, zlo = HUGE_VAL, zhi = -HUGE_VAL;
    int i, k, nv, conv = 0;
    CHECK_OK(rc_mesh_grid(&m, 0.5, 0.5, 11, 11, RC_DIAG_ALTERNATING));
    for (i = 0; i < m.num_verts; ++i) m.pos[3 * i + 2] = def.contact_thickness + 0.5 * def.contact_dhat;
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    CHECK_OK(rc_sim_create(&def, &s));
    if (!s) { rc_mesh_free(&m); return; }
    nv = rc_sim_num_verts(s);
    CHECK_OK(rc_sim_add_plane(s, p0, nz, NULL));
    for (k = 0; k < 40; ++k) {
        rc_step_stats st;
        if (rc_sim_step(s, &st) != RC_OK) { CHECKF(0, "step %d: %s", k + 1, rc_sim_last_error(s)); break; }
        conv += st.converged;
    }
    for (i = 0; i < nv; ++i) {
        du = fmax(du, hypot(rc_sim_reference(s)[2 * i] - m.ref_uv[2 * i], rc_sim_reference(s)[2 * i + 1] - m.ref_uv[2 * i + 1]));
        zlo = fmin(zlo, rc_sim_positions(s)[3 * i + 2]);
        zhi = fmax(zhi, rc_sim_positions(s)[3 * i + 2]);
    }
    printf("    40 steps at rest on a plane: max |u - u0| %.3g m, heights %.6f - %.6f mm, %d converged\n", du, 1e3 * zlo, 1e3 * zhi, conv);
    /* bounds: the solver's tolerance on a u step is tol * mean edge * dt = 5e-8 m here; the
       unweighted barrier slid u by centimetres */
    CHECKF(du < 1e-6, "u moved by %.3g m", du);
    CHECKF(zhi - zlo < 1e-9, "heights differ by %.3g m", zhi - zlo);
    CHECK(conv == 40);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
}

/* A step reported converged must be converged by the stopping rule of rc__sim_ritr measured on a
   FRESH exact joint direction at its end state (the step's incremental potential is still the
   sim's until the next step): the smallest of the rule's three ratios (step length over its
   bounds, Newton decrement over M (tol L)^2, decrement over itr_energy_tol times the step's IP
   decrease), <= 1 when the rule holds. (Session 21, a mutation audit: judging convergence on a
   direction from CG on an earlier factor, stopped at |r| <= eta |g| and so short by up to eta,
   passed every test.) White box: the sim's shift memory and joint factor are overwritten. */
static double ta_fresh_stop_ratio(rc_sim *s, const rc_step_stats *st)
{
    rc__system *y = &s->sys_xpu;
    rc_step_stats scratch;
    double dx, du, dphi, gTd = 0.0, len, dec, rel;
    int stale = 0, k;
    memset(&scratch, 0, sizeof scratch);
    if (rc__sim_outer_direction(s, y, 1, 0, NULL, &stale, &scratch) != RC_OK || stale || s->dir_fallback) return HUGE_VAL;
    for (k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
    rc__sim_dir_size(s, y, &dx, &du, &dphi);
    len = fmax(fmax(dx, dphi) / (s->def.tol * s->L * s->def.dt), du / (s->def.tol * s->mean_edge * s->def.dt));
    dec = -gTd / (s->total_mass * (s->def.tol * s->L) * (s->def.tol * s->L));
    rel = s->def.itr_energy_tol > 0.0 ? -gTd / (s->def.itr_energy_tol * (st->ip_start - st->ip_end)) : HUGE_VAL;
    return fmin(len, fmin(dec, rel));
}

/* the same agreement over a buckling trajectory, step problem by step problem: a reference run
   (default solver) saves its state before each step, and the accelerated and the unaccelerated
   solvers each solve every saved step from a fresh sim. (Before the fix it guards, the accelerated
   solve ended step 1 5.2% and steps 4-5 1.2-1.3% of their IP decrease above the unaccelerated one:
   while directions came from CG on an earlier factor, the joint shift's memory of a rejected shift
   never decayed, so the next refactorization started ~50x above the shift it needed, and that short,
   heavily shifted direction passed the relative stopping test.) */
static void test_adaptive_schedule_cache_agree_trajectory(void)
{
    enum { NS = 6 };
    const int n = 9;
    rc_sim *r = ta_hanging(n, 1, 0.15, 1.0);
    double *state = NULL, worst = 0.0, worst_stop = 0.0, worst_loose = 0.0;
    int k, reuses = 0;
    CHECK(r != NULL);
    if (!r) return;
    state = (double *)malloc(rc_sim_state_size(r) * sizeof(double));
    CHECK(state != NULL);
    for (k = 0; k < NS && state; ++k) {
        rc_sim *a, *b;
        rc_step_stats sa, sb, sr;
        double dev;
        rc_sim_save_state(r, state);
        a = ta_hanging(n, 1, 0.15, 1.0);
        b = ta_hanging(n, 1, 0.15, 1.0);
        CHECK(a != NULL && b != NULL);
        if (!a || !b) { rc_sim_destroy(a); rc_sim_destroy(b); break; }
        b->def.itr_schedule = 0;   /* unaccelerated */
        b->def.itr_cache = 0;
        if (rc_sim_load_state(a, state) != RC_OK || rc_sim_load_state(b, state) != RC_OK || rc_sim_step(a, &sa) != RC_OK ||
            rc_sim_step(b, &sb) != RC_OK || rc_sim_step(r, &sr) != RC_OK) {
            CHECKF(0, "step %d: load or step failed", k + 1);
            rc_sim_destroy(a); rc_sim_destroy(b);
            break;
        }
        reuses += sa.factor_reuses;
        if (sa.converged) {
            double r = ta_fresh_stop_ratio(a, &sa);
            if (r > worst_stop) worst_stop = r;
        }
        {
            /* the same step with directions from CG on an earlier factor stopped at a relative
               residual of 0.9, so up to 90% short: a converged end must still pass the rule on a
               fresh direction. Measured: ratio 0.88; 8.5 when such a short direction was allowed
               to end the step (the mutation audit's case). Bound 2: the confirming strict inner
               solve moves x after the judged direction, so the end ratio is not the judged one. */
            rc_sim *c = ta_hanging(n, 1, 0.15, 1.0);
            rc_step_stats sc;
            CHECK(c != NULL);
            if (c) {
                c->def.itr_factor_eta = 0.9;
                if (rc_sim_load_state(c, state) == RC_OK && rc_sim_step(c, &sc) == RC_OK && sc.converged) {
                    double rc_ = ta_fresh_stop_ratio(c, &sc);
                    if (rc_ > worst_loose) worst_loose = rc_;
                }
                rc_sim_destroy(c);
            }
        }
        /* step 1 (the fall from rest, a 2.6 J decrease) ends by the relative stopping test while
           u still drifts, in both solvers: there only the accelerated solve ending HIGHER counts
           (measured: the unaccelerated one ends 1.3% of the decrease above it, after 13 outer
           iterations against 30); later steps must agree both ways. That step has several
           minima: solved to itr_energy_tol = 0 the accelerated solve ends in another one, 1.05%
           of the decrease ABOVE the unaccelerated (0.1130 against 0.0858 J; session 60), and the
           one-sided check holds at the default tolerance only because the unaccelerated solve
           stops higher (0.1515 J). With slide_damping = 1e-2 it failed (4.5%, bench/RESULTS.md
           section 34). So on step 1 the check tests where the default stopping rule leaves the
           two solvers, not their agreement */
        dev = (k == 0 ? sa.ip_end - sb.ip_end : fabs(sa.ip_end - sb.ip_end)) / fabs(sb.ip_start - sb.ip_end);
        if (dev > worst) worst = dev;
        printf("    step %d: accelerated IP %.10g (outer %d, converged %d), unaccelerated %.10g (outer %d, converged %d): %.3f%% of the step's decrease\n", k + 1,
               sa.ip_end, sa.outer_iters, sa.converged, sb.ip_end, sb.outer_iters, sb.converged, 100.0 * (sa.ip_end - sb.ip_end) / fabs(sb.ip_start - sb.ip_end));
        if (!sa.converged || !sb.converged) printf("      stop reasons: %s / %s\n", sa.stop_reason ? sa.stop_reason : "-", sb.stop_reason ? sb.stop_reason : "-");
        CHECKF(dev <= 0.01, "step %d: IPs %.10g (accelerated) vs %.10g, %.2f%% of the decrease %g", k + 1, sa.ip_end, sb.ip_end,
               100.0 * dev, fabs(sb.ip_start - sb.ip_end));
        rc_sim_destroy(a);
        rc_sim_destroy(b);
    }
    printf("    %d step problems: largest deviation %.3f%% of the step's IP decrease; %d accelerated directions on an earlier factor;"
           " stopping rule on a fresh direction at the converged ends: ratio %.3g (<= 1 holds), %.3g with itr_factor_eta 0.9\n",
           NS, 100.0 * worst, reuses, worst_stop, worst_loose);
    CHECKF(worst_stop <= 2.0 && worst_loose <= 2.0, "a converged step fails the stopping rule on a fresh direction: ratio %g (%g with eta 0.9)",
           worst_stop, worst_loose);
    CHECK(reuses > 0);   /* the factor reuse, whose stopping the fix concerns, is exercised */
    free(state);
    rc_sim_destroy(r);
}

/* The inner (x, phi) solve's decrement rule (rc__sim_newton_xp's gain_floor, r-ITR passes
   itr_energy_tol times the step's IP decrease): a solve that ends on it must leave less than the
   floor on the table. The steps report solves it ended (rc_step_stats.inner_relative_stops). From a
   perturbed end state of an adaptive hanging-sheet step (u fixed), both solves from the same kept
   shift: the solve with a floor ends converged in fewer iterations; a fresh (convex-model)
   direction at its end has a decrement below the floor; the strict solve continued from there
   gains less than the floor, and reaches the energy the strict solve from the perturbed state
   reaches to within the floor. White box: the sim's x, phi, shifts and (x, phi) system are
   overwritten. */
static void test_adaptive_inner_decrement_floor(void)
{
    rc_sim *s = ta_hanging(9, 1, 0.15, 1.0);
    rc_step_stats st, scratch;
    rc__terms T;
    double *x0 = NULL, *phi0 = NULL, E0, E_strict, E_floor, E_after, floor_, gTd = 0.0, mu0, mu_fail0;
    int k, i, c, it_strict = 0, it_floor = 0, it_after = 0, conv_strict = 0, conv_floor = 0, conv_after = 0, stops = 0;
    CHECK(s != NULL);
    if (!s) return;
    /* the wiring: r-ITR passes the floor (rc_step_stats.inner_relative_stops counts the inner
       solves it ended) */
    for (k = 0; k < 3; ++k) { CHECK_OK(rc_sim_step(s, &st)); stops += st.inner_relative_stops; }
    printf("    3 steps: %d inner solves ended on the decrement rule\n", stops);
    CHECK(stops > 0);
    x0 = (double *)malloc(sizeof(double) * 3 * (size_t)s->nv);
    phi0 = (double *)malloc(sizeof(double) * (size_t)(s->ne > 0 ? s->ne : 1));
    CHECK(x0 != NULL && phi0 != NULL);
    if (!x0 || !phi0) { free(x0); free(phi0); rc_sim_destroy(s); return; }
    /* a smooth bulge of 5 mm across the free vertices (pins keep their targets) */
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c)
            if (s->sys_xp.dof_x[3 * i + c] >= 0) s->x[3 * i + c] += 5e-3 * sin(1.7 * i + c);
    memcpy(x0, s->x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(phi0, s->phi, sizeof(double) * (size_t)s->ne);
    memset(&scratch, 0, sizeof scratch);
    mu0 = s->newton_mu;   /* the kept shift: both solves start from the same */
    mu_fail0 = s->newton_mu_fail;
    E0 = rc__sim_energy(s, s->x, s->u, s->phi, &T);
    E_strict = E0;
    CHECK_OK(rc__sim_newton_xp(s, s->def.tol, 0.0, s->def.max_newton_iters, 1, &E_strict, &T, &it_strict, &conv_strict, &scratch));
    floor_ = 1e-3 * (E0 - E_strict);
    memcpy(s->x, x0, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->phi, phi0, sizeof(double) * (size_t)s->ne);
    s->newton_mu = mu0;
    s->newton_mu_fail = mu_fail0;
    E_floor = rc__sim_energy(s, s->x, s->u, s->phi, &T);
    CHECK_OK(rc__sim_newton_xp(s, s->def.tol, floor_, s->def.max_newton_iters, 1, &E_floor, &T, &it_floor, &conv_floor, &scratch));
    {   /* a fresh direction at the end the floor accepted: the exact Hessian is indefinite there,
           so the convex model's (per-stencil projections), the one rc__sim_newton_xp judges a
           shifted step by */
        rc__system *y = &s->sys_xp;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        if (rc__system_direction(s, y, &scratch) == RC_OK && !s->dir_fallback)
            for (k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        else CHECKF(0, "no convex-model direction at the floor's end");
    }
    E_after = E_floor;
    CHECK_OK(rc__sim_newton_xp(s, s->def.tol, 0.0, s->def.max_newton_iters, 1, &E_after, &T, &it_after, &conv_after, &scratch));
    printf("    perturbed by 5 mm: IP %.10g; strict solve %d iterations to %.10g; with the floor %.3g: %d iterations to %.10g"
           " (fresh decrement %.3g), then strict %d more gaining %.3g\n",
           E0, it_strict, E_strict, floor_, it_floor, E_floor, -gTd, it_after, E_floor - E_after);
    CHECK(conv_strict && conv_floor && conv_after);
    CHECK(E0 - E_strict > 0.0);
    CHECK(it_floor < it_strict);   /* the floor acts (measured 6 of 11 on session 48's build) */
    CHECKF(-gTd <= floor_, "a fresh direction at the floor's end has decrement %g > floor %g", -gTd, floor_);
    CHECKF(E_floor - E_after <= floor_, "the strict solve gained %g after the floor's end (floor %g)", E_floor - E_after, floor_);
    CHECKF(fabs(E_floor - E_strict) <= floor_, "the floor's end %.10g vs the strict end %.10g (floor %g)", E_floor, E_strict, floor_);
    free(x0);
    free(phi0);
    rc_sim_destroy(s);
}

/* Without the regulariser (quality_weight = 0, a valid setting: the ablation) the reference
   triangles collapse, but the line search's shape bound (rc__sim_inversion_bound: MIPS <= 1e4)
   stops them at needles the arithmetic can take. The session-19 probe: an adaptive 144-vertex
   sheet dropped on a sphere reached MIPS 3e7 and area ratio 6e-8 by step 13 (RC_OK, unconverged)
   and from step 21 every step failed with a non-finite gradient. Here: 24 steps all RC_OK, no
   NaN, no triangle past the cap, every area positive. */
static void test_adaptive_no_regulariser_collapse_bounded(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    double c[3] = { 0.5, 0.5, -0.3 }, qmax = 0.0, amin = HUGE_VAL;
    int k, i, fails = 0, nan = 0;
    CHECK_OK(rc_mesh_square(&m, 1.0, 144, 1u));
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.quality_weight = 0.0;
    def.num_threads = 1;
    CHECK_OK(rc_sim_create(&def, &s));
    rc_mesh_free(&m);
    if (!s) return;
    CHECK_OK(rc_sim_add_sphere(s, c, 0.25, NULL));
    for (k = 0; k < 24; ++k) {
        rc_status r = rc_sim_step(s, &st);
        if (r != RC_OK) { ++fails; printf("    step %d: %s (%s)\n", k, rc_status_string(r), rc_sim_last_error(s)); break; }
        for (i = 0; i < 3 * s->nv; ++i) nan += !(s->x[i] == s->x[i]);
        if (st.max_quality > qmax) qmax = st.max_quality;
        if (st.min_area_ratio < amin) amin = st.min_area_ratio;
    }
    printf("    24 steps without the regulariser: %d failed, %d NaN, max MIPS %.3g, min area ratio %.3g\n", fails, nan, qmax, amin);
    CHECK(fails == 0 && nan == 0);
    CHECKF(qmax <= 1e4 && amin > 0.0, "max MIPS %.3g, min area ratio %.3g", qmax, amin);
    CHECKF(qmax > 20.0, "no collapse to bound (max MIPS %.3g): the test lost its point", qmax);
    rc_sim_destroy(s);
}

/* regulariser ablation on the hanging sheet: without C(u) elements collapse; with it the mesh
   quality stays bounded (max MIPS <= 3.5, no triangle below 1% of its initial area) */
static void test_adaptive_regulariser_ablation(void)
{
    const int n = 7, steps = 8;
    double q[2] = { 0.0, 1.0 }, maxq[2] = { 0, 0 }, minA[2] = { HUGE_VAL, HUGE_VAL };
    int r, k, failed[2] = { 0, 0 };
    for (r = 0; r < 2; ++r) {
        rc_sim *s = ta_hanging(n, 1, 0.1, q[r]);
        rc_step_stats ss;
        CHECK(s != NULL);
        if (!s) return;
        for (k = 0; k < steps; ++k) {
            /* without the regulariser elements collapse until a step fails (non-finite energy of a
               degenerate element; the state is restored): that is the measured pathology */
            if (rc_sim_step(s, &ss) != RC_OK) { failed[r]++; break; }
            if (ss.max_quality > maxq[r]) maxq[r] = ss.max_quality;
            if (ss.min_area_ratio < minA[r]) minA[r] = ss.min_area_ratio;
        }
        rc_sim_destroy(s);
    }
    printf("    without regulariser: max MIPS %.3f, min area ratio %.4f (%s); with: max MIPS %.3f, min area ratio %.4f\n",
           maxq[0], minA[0], failed[0] ? "then a step failed on a collapsed element" : "no failure", maxq[1], minA[1]);
    CHECKF(failed[1] == 0, "a step failed with the regulariser on");
    CHECKF(maxq[1] <= 3.5, "max MIPS %.3f with the regulariser", maxq[1]);
    CHECKF(minA[1] >= 0.01, "a triangle shrank to %.4f of its area with the regulariser", minA[1]);
    CHECKF(maxq[0] > maxq[1], "the regulariser did not improve the worst element (%.3f vs %.3f)", maxq[0], maxq[1]);
}

/* The regulariser on a graded mesh: a 1 m cotton sheet on a 12 x 12 grid whose middle column of
   cells is 0.1 mm wide (1000 times narrower than the rest), hanging from its two top corners, 30
   adaptive steps. The regulariser's weight is one for all triangles (the mean initial area's
   inertial scale); with DESIGN's per-triangle weight rho tau (A_T^0)^2 / h^2 the narrow cells, a
   million times lighter, were squashed by their neighbours (here max MIPS 86, a triangle at 1.2%
   of its area; session 58's irregular-mesh probe). Now: max MIPS <= 3.5, no triangle below 10% of
   its area, every step converged. (The potentials are printed, not compared: the sheet still
   swings after 30 steps, and the two modes' V differ by 3e-4 of it either way.) */
static void test_adaptive_regulariser_graded_mesh(void)
{
    const int n = 12, steps = 30;
    const double xs[12] = { 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5001, 0.6, 0.7, 0.8, 0.9, 1.0 };
    double maxq = 0.0, minA = HUGE_VAL, V[2] = { 0.0, 0.0 };
    int mode, k, unconv = 0, failed = 0;
    for (mode = 0; mode < 2; ++mode) {
        rc_mesh m;
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s = NULL;
        rc_step_stats ss;
        int i;
        CHECK_OK(rc_mesh_grid(&m, 1.0, 1.0, n, n, RC_DIAG_ALTERNATING));
        for (i = 0; i < m.num_verts; ++i) {
            m.ref_uv[2 * i] = m.pos[3 * i] = xs[i % n];
            m.ref_uv[2 * i + 1] = m.pos[3 * i + 1] = xs[i / n];
            m.pos[3 * i + 2] = 0.0;
        }
        def.mesh = rc_mesh_describe(&m);
        def.adaptive = mode;
        def.num_threads = 1;
        CHECK_OK(rc_sim_create(&def, &s));
        rc_mesh_free(&m);
        if (!s) return;
        rc_sim_pin(s, n * (n - 1), rc_sim_positions(s) + 3 * n * (n - 1));
        rc_sim_pin(s, n * n - 1, rc_sim_positions(s) + 3 * (n * n - 1));
        for (k = 0; k < steps; ++k) {
            if (rc_sim_step(s, &ss) != RC_OK) { failed++; break; }
            if (!mode) continue;
            unconv += !ss.converged;
            if (ss.max_quality > maxq) maxq = ss.max_quality;
            if (ss.min_area_ratio < minA) minA = ss.min_area_ratio;
        }
        {
            double st = 0.0, bd = 0.0, gr = 0.0;
            CHECK_OK(rc_sim_potential(s, &st, &bd, &gr));
            V[mode] = st + bd + gr;
        }
        rc_sim_destroy(s);
    }
    printf("    0.1 mm column, %d steps: adaptive max MIPS %.3f, min area ratio %.4f, %d unconverged, V %.6f J (fixed %.6f J)\n",
           steps, maxq, minA, unconv, V[1], V[0]);
    CHECK(failed == 0);
    CHECKF(maxq <= 3.5, "max MIPS %.3f on the graded mesh", maxq);
    CHECKF(minA >= 0.1, "a triangle shrank to %.4f of its area", minA);
    CHECKF(unconv == 0, "%d adaptive steps unconverged", unconv);
}

/* The regulariser at long steps: its weight is the inertial scale rho tau Abar^2 / h_q^2 with
   h_q = min(dt, quality_time), because the forces that squash reference triangles do not fall as
   1/h^2. A 0.6 m 13 x 13 sheet hanging from two corners, 10 steps of 1 s: with the cap (default
   quality_time 0.04 s) max MIPS 3.18; with h_q = dt (quality_time = dt, DESIGN's weight) 7.8 and a
   triangle at 0.3% of its area (session 59). */
static void test_adaptive_regulariser_long_step(void)
{
    const int n = 13, steps = 10;
    double maxq = 0.0, minA = HUGE_VAL;
    int k, failed = 0, unconv = 0;
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats ss;
    CHECK_OK(rc_mesh_grid(&m, 0.6, 0.6, n - 1, n - 1, RC_DIAG_ALTERNATING));
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.num_threads = 1;
    def.dt = 1.0;
    CHECK_OK(rc_sim_create(&def, &s));
    rc_mesh_free(&m);
    if (!s) return;
    rc_sim_pin(s, 0, rc_sim_positions(s));
    rc_sim_pin(s, n - 1, rc_sim_positions(s) + 3 * (n - 1));
    for (k = 0; k < steps; ++k) {
        if (rc_sim_step(s, &ss) != RC_OK) { failed++; break; }
        unconv += !ss.converged;
        if (ss.max_quality > maxq) maxq = ss.max_quality;
        if (ss.min_area_ratio < minA) minA = ss.min_area_ratio;
    }
    rc_sim_destroy(s);
    printf("    hanging sheet, %d steps of 1 s: max MIPS %.3f, min area ratio %.4f\n", steps, maxq, minA);
    CHECK(failed == 0);
    CHECKF(unconv == 0, "%d steps unconverged", unconv);
    CHECKF(maxq <= 3.5, "max MIPS %.3f at dt 1 s", maxq);
    CHECKF(minA >= 0.03, "a triangle shrank to %.4f of its area", minA);
}

/* The didactic drape (DESIGN §9, the paper's Fig. 3): a coarse square falling across a rod (a
   triangle-mesh capsule), 100 vertices, dt 0.1 s so that 10 implicit steps bring it close to rest.
   Regulariser off: the collapse is measured (max MIPS, min area ratio; a step may fail on a
   degenerate element, the state is then restored). On: max MIPS <= 3.5, no triangle below 1% of
   its area, no vertex inside the rod, and a lower potential V = stretch + bend + gravity than the
   fixed mesh with 4x the vertices (DESIGN §10 shows the same on the hanging sheet). */
#ifdef T_SANITIZED
#define T_ABLATION_SANITIZED 1
#else
#define T_ABLATION_SANITIZED 0
#endif
static void test_adaptive_didactic_drape_ablation(void)
{
    const sc_info *info = sc_find_scene("didactic_drape");
    /* adaptive with / without the regulariser, fixed at N and 4N, over 10 steps; without the
       regulariser 20: the elements degenerate (max MIPS 1e3-1e4, min area ratio < 1e-3), but
       when depends on the solver's path: in steps 6-8 up to session 25, in steps 10-17 once the
       r-ITR's CG preconditioner ran in single precision (max MIPS 5.5 after step 10, 20 after 11,
       6.8e3 after 18); before that, max MIPS wanders between 4 and 17, so a run cut short would
       test that path rather than the collapse */
    const int adaptive[4] = { 1, 1, 0, 0 }, steps[4] = { 10, 20, 10, 10 };
    const double qw[4] = { 1.0, 0.0, -1.0, -1.0 };
    double V[4] = { 0, 0, 0, 0 }, maxq[4] = { 0, 0, 0, 0 }, minA[4] = { HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL }, rodmin = HUGE_VAL;
    double Veq[4] = { 0, 0, 0, 0 };
    int nv[4] = { 0, 0, 0, 0 }, failed[4] = { 0, 0, 0, 0 }, eq_conv[4] = { 0, 0, 0, 0 }, r, k;
    CHECK(info != NULL);
    if (!info) return;
    for (r = 0; r < 4; ++r) {
        sc_params p = sc_default_params();
        sc_scene sc;
        rc_step_stats ss;
        p.adaptive = adaptive[r];
        p.quality_weight = qw[r];
        p.dt = 0.1;
        p.threads = 1;
        if (r == 3) p.verts = 4 * nv[2];
        CHECK_OK(sc_create(&sc, info, &p));
        nv[r] = sc.sim->nv;
        for (k = 0; k < steps[r]; ++k) {
            if (rc_sim_step(sc.sim, &ss) != RC_OK) { failed[r]++; break; }
            if (ss.max_quality > maxq[r]) maxq[r] = ss.max_quality;
            if (ss.min_area_ratio < minA[r]) minA[r] = ss.min_area_ratio;
            if (r == 0) {   /* distance of every cloth vertex to the rod's axis (the x axis, |x| < 0.5) */
                const double *x = rc_sim_positions(sc.sim);
                int i;
                for (i = 0; i < sc.sim->nv; ++i) {
                    double d = sqrt(x[3 * i + 1] * x[3 * i + 1] + x[3 * i + 2] * x[3 * i + 2]);
                    if (d < rodmin) rodmin = d;
                }
            }
        }
        V[r] = ss.e_stretch + ss.e_bend + ss.e_gravity;
        if ((r == 0 || r == 3) && !failed[r] && !T_ABLATION_SANITIZED) {
            /* the cloth still swings after 10 steps (V moves 1e-4 J per step, the margin below is
               ~3e-4 J): the claim is checked at rest too, each sheet's static equilibrium from there
               (adaptive: u free in statics as in a step; not in the sanitizer build, whose suite
               has static solves of its own, this test's two taking a third of its time there) */
            rc_step_stats se;
            double S = 0, B = 0, G = 0;
            CHECK_OK(rc_sim_solve_static(sc.sim, &se));
            eq_conv[r] = se.converged;
            rc_sim_potential(sc.sim, &S, &B, &G);
            Veq[r] = S + B + G;
        }
        sc_destroy(&sc);
    }
    printf("    no regulariser: max MIPS %.1f, min area ratio %.5f%s\n", maxq[1], minA[1], failed[1] ? " (then a step failed on a collapsed element)" : "");
    printf("    regulariser: max MIPS %.3f, min area ratio %.3f, closest vertex to the rod axis %.4f m (radius 0.03), V %.5f J\n", maxq[0], minA[0], rodmin, V[0]);
    printf("    fixed %d vertices: V %.5f J; fixed %d vertices: V %.5f J\n", nv[2], V[2], nv[3], V[3]);
    if (!T_ABLATION_SANITIZED)
        printf("    at rest (statics from there): adaptive %d vertices V %.6f J (converged %d), fixed %d vertices %.6f J (converged %d)\n", nv[0],
               Veq[0], eq_conv[0], nv[3], Veq[3], eq_conv[3]);
    CHECKF(maxq[1] > 10.0 || minA[1] < 0.01 || failed[1], "no collapse without the regulariser (max MIPS %.2f, min area %.3f)", maxq[1], minA[1]);
    CHECKF(failed[0] == 0 && failed[2] == 0 && failed[3] == 0, "a step failed (%d %d %d)", failed[0], failed[2], failed[3]);
    CHECKF(maxq[0] <= 3.5, "max MIPS %.3f with the regulariser", maxq[0]);
    CHECKF(minA[0] >= 0.01, "a triangle shrank to %.4f of its area", minA[0]);
    CHECKF(rodmin > 0.03, "a cloth vertex %.4f m from the rod's axis: inside the rod", rodmin);
    CHECK(nv[3] >= 4 * nv[2] - nv[2] / 10);
    CHECKF(V[0] < V[3], "adaptive %d vertices V %.6f not below fixed %d vertices %.6f", nv[0], V[0], nv[3], V[3]);
    CHECK(T_ABLATION_SANITIZED || (eq_conv[0] && eq_conv[3]));
    CHECKF(T_ABLATION_SANITIZED || Veq[0] < Veq[3], "at rest: adaptive %d vertices V %.6f not below fixed %d vertices %.6f", nv[0], Veq[0], nv[3], Veq[3]);
}

/* rc_sim_def.slide_damping: the didactic drape at the CLI's defaults (100 vertices, dt 0.01 s), whose
   flaps hang from the rod nearly flat, so u is a nearly free mode there and vertices slide back
   and forth in u from step to step. From the state after 40 undamped steps, 40 more steps without
   damping and, through rc_sim_set_def, at c = 1e-2: the u path of all vertices (the sum of
   |u^k - u^(k-1)|) against their net displacement. Measured: 10.7 m for 3.6 m net without (6.3
   outer iterations per step), 4.6 m for 3.2 m net with (5.1); every step converged in both. The bar: the damped path at most half
   the undamped one. (Until session 61 each run stepped from the start, 160 steps in all.) */
static void test_adaptive_slide_damping_flap(void)
{
    const sc_info *info = sc_find_scene("didactic_drape");
    double path[2] = { 0, 0 }, net[2] = { 0, 0 }, *state = NULL, *u0 = NULL, *up = NULL;
    int run, k, i, nv, outer[2] = { 0, 0 }, unconv[2] = { 0, 0 };
    sc_params p = sc_default_params();
    sc_scene sc;
    rc_step_stats ss;
    CHECK(info != NULL);
    if (!info) return;
    p.adaptive = 1; p.threads = 1;
    CHECK_OK(sc_create(&sc, info, &p));
    if (!sc.sim) return;
    nv = sc.sim->nv;
    for (k = 1; k <= 40; ++k) CHECK_OK(rc_sim_step(sc.sim, NULL));
    state = (double *)malloc(sizeof(double) * rc_sim_state_size(sc.sim));
    u0 = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
    up = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
    CHECK(state && u0 && up);
    if (state && u0 && up) {
        CHECK_OK(rc_sim_save_state(sc.sim, state));
        memcpy(u0, rc_sim_reference(sc.sim), sizeof(double) * 2 * (size_t)nv);
        for (run = 0; run < 2; ++run) {
            rc_sim_def d = *rc_sim_get_def(sc.sim);
            d.slide_damping = run ? 1e-2 : 0.0;
            CHECK_OK(rc_sim_set_def(sc.sim, &d));
            CHECK_OK(rc_sim_load_state(sc.sim, state));
            memcpy(up, u0, sizeof(double) * 2 * (size_t)nv);
            for (k = 41; k <= 80; ++k) {
                const double *u = rc_sim_reference(sc.sim);
                rc_status r = rc_sim_step(sc.sim, &ss);
                CHECKF(r == RC_OK, "step %d: %s", k, rc_status_string(r));
                if (r != RC_OK) break;
                for (i = 0; i < nv; ++i) path[run] += hypot(u[2 * i] - up[2 * i], u[2 * i + 1] - up[2 * i + 1]);
                outer[run] += ss.outer_iters;
                unconv[run] += !ss.converged;
                memcpy(up, u, sizeof(double) * 2 * (size_t)nv);
            }
            for (i = 0; i < nv; ++i) net[run] += hypot(up[2 * i] - u0[2 * i], up[2 * i + 1] - u0[2 * i + 1]);
        }
    }
    free(state); free(u0); free(up);
    sc_destroy(&sc);
    printf("    steps 40-80, u path / net: damping 0: %.2f / %.2f m (%.1f outer iterations per step, %d unconverged); "
           "1e-2: %.2f / %.2f m (%.1f, %d)\n", path[0], net[0], outer[0] / 40.0, unconv[0], path[1], net[1], outer[1] / 40.0, unconv[1]);
    CHECK(path[0] > 0.0 && unconv[0] == 0 && unconv[1] == 0);
    CHECKF(path[1] <= 0.5 * path[0], "damped u path %.3g m, undamped %.3g m", path[1], path[0]);
}

/* The didactic drape at the CLI's defaults (100 vertices, dt 0.01 s) without the regulariser: its
   elements collapse against the inversion filter, the line searches are cut to alpha ~1e-7 and
   the joint shift grows to ~1e14. Then a small joint step's confirming inner solve gained only
   round-off (~1e-17 J in two iterations), the outer loop repeated the same iteration until the
   cap of 300 (step 22: 5-8 s, where the other steps take 0.05 s), and the scene's 100 frames would
   have taken hours. Now such a confirmation ends the step (unconverged where it stalled). Later
   (step 127 of that run) the shift stood at 1e17, the mean diagonal's scale, so every joint step
   was small while -g.d was 8.6e-3 J, and each confirming inner solve ran 100 iterations gaining
   3e-12 J: 213 s in one step. Now three such iterations in a row end the step. No step reaches
   the cap over 130 steps (0.1 s a step at most). */
/* The 225-vertex run (session 56's grind: from step 129 every joint step cut by the inversion
   filter to alpha ~1e-12, E unchanged, to the cap) takes ~14 s; the sanitizer build, which is
   there for memory errors, runs the 100-vertex one only, and only to step 30 (past step 22's
   grind): its 130 steps took 44 s there, the longest test of CI's sanitizer suite. */
#ifdef T_SANITIZED
#define TA_GRIND_SIZES 1
#define TA_GRIND_STEPS_100 30
#else
#define TA_GRIND_SIZES 2
#define TA_GRIND_STEPS_100 130
#endif
static void test_adaptive_collapse_does_not_grind(void)
{
    const sc_info *info = sc_find_scene("didactic_drape");
    const int verts[2] = { 100, 225 }, steps[2] = { TA_GRIND_STEPS_100, 135 };
    int run;
    CHECK(info != NULL);
    if (!info) return;
    for (run = 0; run < TA_GRIND_SIZES; ++run) {
        sc_params p = sc_default_params();
        sc_scene sc;
        rc_step_stats ss;
        int k, worst = 0, total = 0, capped = 0, unconv = 0;
        memset(&ss, 0, sizeof ss);
        p.adaptive = 1; p.quality_weight = 0.0; p.threads = 1; p.verts = verts[run];
        CHECK_OK(sc_create(&sc, info, &p));
        for (k = 0; k < steps[run]; ++k) {
            rc_status r = rc_sim_step(sc.sim, &ss);
            CHECKF(r == RC_OK, "step %d: %s (%s)", k, rc_status_string(r), rc_sim_last_error(sc.sim));
            if (r != RC_OK) break;
            total += ss.outer_iters;
            if (ss.outer_iters > worst) worst = ss.outer_iters;
            capped += ss.outer_iters >= sc.sim->def.itr_max_outer;
            unconv += !ss.converged;
        }
        printf("    %d vertices, %d steps without the regulariser: %d outer iterations, at most %d in a step, %d at the cap, %d unconverged, max MIPS %.3g\n",
               verts[run], steps[run], total, worst, capped, unconv, ss.max_quality);
        CHECKF(capped == 0, "%d vertices: %d steps ran to the outer-iteration cap", verts[run], capped);
        sc_destroy(&sc);
    }
}

/* A direction taken with a huge Levenberg-Marquardt shift is short because it is mostly -g/mu, not
   because the state is converged. Here the shifts a step starts from (kept across steps) are set
   absurdly high, as a pathological earlier step once left them (5.9e12 and 1.8e11 on the didactic
   drape without the regulariser at dt 1/30); the step must still solve (the search restarts at
   the mean diagonal: rc__system_direction_shifted_mu): the same IP decrease as from the usual
   shifts, not "converged" after one tiny outer iteration. */
static void test_adaptive_huge_kept_shift(void)
{
    rc_sim *a = ta_hanging(9, 1, 0.1, 1.0), *b = ta_hanging(9, 1, 0.1, 1.0);
    rc_step_stats sa, sb;
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        CHECK_OK(rc_sim_step(a, &sa));
        b->itr_mu = b->itr_mu_fail = 1e12;
        b->newton_mu = b->newton_mu_fail = 1e12;
        CHECK_OK(rc_sim_step(b, &sb));
        printf("    usual shifts: IP %.6f -> %.6f in %d outer its; from 1e12: -> %.6f in %d outer its, converged %d\n",
               sa.ip_start, sa.ip_end, sa.outer_iters, sb.ip_end, sb.outer_iters, sb.converged);
        CHECK(sa.converged);
        CHECKF(sb.outer_iters > 1, "the step ended after %d outer iteration(s)", sb.outer_iters);
        /* the same step problem: both decreases within 5% of each other */
        CHECKF(fabs((sb.ip_start - sb.ip_end) - (sa.ip_start - sa.ip_end)) <= 0.05 * (sa.ip_start - sa.ip_end),
               "decrease %.6g from huge shifts vs %.6g", sb.ip_start - sb.ip_end, sa.ip_start - sa.ip_end);
    }
    rc_sim_destroy(a);
    rc_sim_destroy(b);
}


/* A converged adaptive step never ends above the incremental potential of its feasible start A
   (x^t, u^t: the state's kinetic plus potential energy; rc__sim_solve). The case: a 0.5 m sheet held
   between two corners, one pin moved 10 m at once (20-fold stretch). A boundary vertex then carried
   17.8 m/s into steps whose predictor sat at IP 1e10-1e12 J against IP(A) ~2e5 J, and r-ITR's
   relative rules, judged against that decrease, called steps converged after one outer iteration
   8e3-1.8e6 J above IP(A): the potential energy climbed 1.9e5 -> 5.8e7 J in 16 steps, every step
   "converged". Such a step is now solved again from A. */
static void test_adaptive_converged_step_below_start_energy(void)
{
    rc_sim *s = t_taut_sheet(1);
    rc_step_stats st;
    int k, i, nv, above = 0, conv = 0;
    double worst = -HUGE_VAL, v0 = 0.0, v_end = 0.0;
    CHECK(s != NULL);
    if (!s) return;
    nv = rc_sim_num_verts(s);
    for (k = 0; k < 20; ++k) {
        double es, eb, eg, ke = 0.0, *mass = t_masses(s, &s->def.material), start;
        for (i = 0; i < 3 * nv; ++i) ke += 0.5 * mass[i / 3] * rc_sim_velocities(s)[i] * rc_sim_velocities(s)[i];
        free(mass);
        CHECK_OK(rc_sim_potential(s, &es, &eb, &eg));
        /* IP(A) once the pins are at their targets (after step 0): the kinetic and potential
           energies and the regulariser's (of u^t: the last step's end) */
        start = ke + es + eb + eg + (k > 0 ? st.e_quality : 0.0);
        if (k == 2) v0 = es + eb + eg;
        CHECK_OK(rc_sim_step(s, &st));
        if (k >= 1 && st.converged) {
            ++conv;
            worst = fmax(worst, (st.ip_end - start) / start);
            above += st.ip_end > start * (1.0 + 1e-9);
        }
    }
    {
        double es, eb, eg;
        CHECK_OK(rc_sim_potential(s, &es, &eb, &eg));
        v_end = es + eb + eg;
    }
    printf("    %d of 19 steps converged, %d of them above IP(A) (worst %+.3g of it); potential energy %.6g J after step 3, %.6g J at the end\n",
           conv, above, worst, v0, v_end);
    CHECKF(above == 0, "%d converged steps ended above their start's energy (worst by %.3g of it)", above, worst);
    CHECKF(v_end <= v0 * (1.0 + 1e-9), "the potential energy climbed %.6g -> %.6g J", v0, v_end);
    rc_sim_destroy(s);
}

/* The same adaptive scene in another unit of time: a 1 m sheet (9 x 9) hanging from two corners, 3
   steps, and again with every time-dependent parameter rescaled for a time unit 10 times shorter
   (tau = 0.1: dt x tau, gravity and Young's modulus / tau^2, tol and itr_eps0 / tau, friction_eps_v
   / tau, travel_time and quality_time x tau). The dimensionless problem is the same, so the shapes must agree to
   round-off (checked at 21 x 21 fixed material points). The travel term's time used to be a
   constant 0.04 s, which no scaling could reach: the shapes then differed by 1e-4 m after one step
   (a helper's similarity probe, session 57). */
static void test_adaptive_time_unit_similarity(void)
{
    double *mp[2] = { NULL, NULL }, dev = 0.0;
    int run, a, b, k, conv[2] = { 0, 0 };
    for (run = 0; run < 2; ++run) {
        double tau = run ? 0.1 : 1.0;
        rc_mesh m;
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s = NULL;
        rc_step_stats st;
        CHECK_OK(rc_mesh_grid(&m, 1.0, 1.0, 9, 9, RC_DIAG_ALTERNATING));
        def.mesh = rc_mesh_describe(&m);
        def.adaptive = 1; def.num_threads = 1;
        def.dt *= tau;
        def.gravity[2] /= tau * tau;
        def.material.young /= tau * tau;
        def.tol /= tau; def.itr_eps0 /= tau;
        def.friction_eps_v /= tau;
        def.travel_time *= tau; def.quality_time *= tau;
        CHECK_OK(rc_sim_create(&def, &s));
        rc_mesh_free(&m);
        if (!s) break;
        CHECK_OK(rc_sim_pin(s, 72, rc_sim_positions(s) + 3 * 72));
        CHECK_OK(rc_sim_pin(s, 80, rc_sim_positions(s) + 3 * 80));
        for (k = 0; k < 3; ++k) { CHECK_OK(rc_sim_step(s, &st)); conv[run] += st.converged; }
        mp[run] = (double *)malloc(sizeof(double) * 3 * 21 * 21);
        for (a = 0; a < 21; ++a)
            for (b = 0; b < 21; ++b) {
                double uv[2] = { 0.001 + 0.998 * a / 20.0, 0.001 + 0.998 * b / 20.0 };
                CHECK_OK(rc_sim_material_point(s, uv, mp[run] + 3 * (21 * a + b)));
            }
        rc_sim_destroy(s);
    }
    if (mp[0] && mp[1])
        for (k = 0; k < 3 * 21 * 21; ++k) dev = fmax(dev, fabs(mp[1][k] - mp[0][k]));
    printf("    3 steps at dt 0.01 and at 0.001 with the time unit rescaled: %d and %d converged, material points %.3g m apart\n",
           conv[0], conv[1], dev);
    CHECK(conv[0] == 3 && conv[1] == 3);
    CHECKF(dev < 1e-8, "the rescaled run differs by %.3g m", dev);
    free(mp[0]); free(mp[1]);
}

/* The travel term (rc__sim_travel: rc_sim_def.travel_weight and slide_damping): gradient and
   Hessian against central differences of its energy, for vertices slid 0.5-3 cells in random
   directions from the step's start and 0.9 r0 cells (r0 = min(1, h / 0.04 s) = 0.25 here), and its
   u-part in the assembled joint gradient (the gradient with the term minus the one without, along
   every u DOF, sliding boundary vertices along their boundary) against central differences of
   T.travel. Three passes: the cubic part alone (zero below r0, where its value and derivatives
   vanish); with damping c = 0.3; damping alone (travel_weight 0). With damping, at u = u^t: zero
   energy and gradient, Hessian c m/h^2 I, and the assembled u diagonal gains c m/h^2 there (the
   term is assembled where its value is 0). */
static void test_adaptive_travel_term_fd(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats ss;
    rc__terms T;
    double *g1 = NULL, *g0 = NULL, *d1 = NULL, *usave = NULL;
    int i, a, c, pass;
    CHECK_OK(rc_mesh_grid(&m, 0.2, 0.2, 9, 9, RC_DIAG_ALTERNATING));
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.num_threads = 1;
    def.quality_weight = 0.0;   /* slid vertices invert triangles: keep every other term finite */
    CHECK_OK(rc_sim_create(&def, &s));
    rc_mesh_free(&m);
    if (!s) return;
    CHECK_OK(rc_sim_step(s, &ss));   /* sets u^t, the masses and the systems */
    for (pass = 0; pass < 3; ++pass) {
        double worst_g = 0.0, worst_h = 0.0, worst_a = 0.0, worst_d = 0.0, gmax = 0.0, damp = pass ? 0.3 : 0.0, tw = pass == 2 ? 0.0 : 1.0;
        int active = 0, zero_ok = 1, checked = 0, ndiag = 0;
        s->def.slide_damping = damp;
        s->def.travel_weight = tw;
        t_seed(5);
        for (i = 0; i < s->nv; ++i) {
            double r = 0.5 + 2.5 * t_rand(), r0 = fmin(1.0, s->h / s->def.travel_time), ang = 6.283185307179586 * t_rand(), l = s->vert_len0[i];
            double g[2], H[4], e0, gh[2], Hh[4], Kd = damp * s->travel_mass[i] * s->inv_h2, hs = 1e-6 * l, rr[2];
            int pt;
            /* at u^t: no energy, no gradient, the damping's Hessian alone */
            e0 = rc__sim_travel(s, i, s->u0_step, g, H);
            if (e0 != 0.0 || g[0] != 0.0 || g[1] != 0.0 || H[0] != Kd || H[1] != 0.0 || H[2] != 0.0 || H[3] != Kd) zero_ok = 0;
            rr[0] = 0.9 * r0; rr[1] = r;
            for (pt = 0; pt < 2; ++pt) {
                s->u[2 * i] = s->u0_step[2 * i] + rr[pt] * l * cos(ang); s->u[2 * i + 1] = s->u0_step[2 * i + 1] + rr[pt] * l * sin(ang);
                e0 = rc__sim_travel(s, i, s->u, g, H);
                if (!pass && rr[pt] <= r0) {   /* the cubic part alone vanishes within r0 */
                    if (e0 != 0.0 || g[0] != 0.0 || g[1] != 0.0 || H[0] != 0.0 || H[1] != 0.0 || H[3] != 0.0) zero_ok = 0;
                    continue;
                }
                ++active;
                for (a = 0; a < 2; ++a) {
                    double keep = s->u[2 * i + a], ep, em, gp[2], gm[2], Hd[4], scale = fabs(g[0]) + fabs(g[1]), hscale = fabs(H[0]) + fabs(H[3]);
                    s->u[2 * i + a] = keep + hs; ep = rc__sim_travel(s, i, s->u, gp, Hd);
                    s->u[2 * i + a] = keep - hs; em = rc__sim_travel(s, i, s->u, gm, Hd);
                    s->u[2 * i + a] = keep;
                    gh[a] = (ep - em) / (2.0 * hs);
                    for (c = 0; c < 2; ++c) Hh[2 * c + a] = (gp[c] - gm[c]) / (2.0 * hs);
                    if (fabs(gh[a] - g[a]) / scale > worst_g) worst_g = fabs(gh[a] - g[a]) / scale;
                    for (c = 0; c < 2; ++c)
                        if (fabs(Hh[2 * c + a] - H[2 * c + a]) / hscale > worst_h) worst_h = fabs(Hh[2 * c + a] - H[2 * c + a]) / hscale;
                }
                /* convex: both eigenvalues of H >= 0, and symmetric */
                if (H[0] < 0.0 || H[3] < 0.0 || H[0] * H[3] - H[1] * H[2] < -1e-12 * H[0] * H[3] || H[1] != H[2]) zero_ok = 0;
            }
        }
        printf("    travel_weight %g, damping %g: %d points (slides 0.9 r0 and 0.5-3 cells, r0 = 0.25): worst relative FD error gradient %.2e, Hessian %.2e\n",
               tw, damp, active, worst_g, worst_h);
        CHECK(active > (pass ? 150 : 70));
        CHECK(zero_ok);
        CHECKF(worst_g < 1e-6 && worst_h < 1e-6, "travel FD errors %.3g / %.3g", worst_g, worst_h);
        /* the assembled u gradient: with the term minus without, against central differences of T.travel;
           with damping, the assembled u diagonal at u = u^t: with minus without = c m/h^2 */
        {
            rc__system *y = &s->sys_xpu;
            free(g1); free(g0); free(d1); free(usave);
            g1 = (double *)malloc(sizeof(double) * (size_t)y->ndof);
            g0 = (double *)malloc(sizeof(double) * (size_t)y->ndof);
            d1 = (double *)malloc(sizeof(double) * (size_t)y->ndof);
            usave = (double *)malloc(sizeof(double) * 2 * (size_t)s->nv);
            if (g1 && g0 && d1 && usave) {
                int k;
                if (pass) {
                    memcpy(usave, s->u, sizeof(double) * 2 * (size_t)s->nv);
                    memcpy(s->u, s->u0_step, sizeof(double) * 2 * (size_t)s->nv);
                    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                    for (k = 0; k < y->ndof; ++k) d1[k] = y->val[y->colptr[k + 1] - 1];
                    s->def.slide_damping = 0.0;
                    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                    s->def.slide_damping = damp;
                    for (i = 0; i < s->nv; ++i)
                        for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
                            int j = y->dof_u[i] + a;
                            double Kd = damp * s->travel_mass[i] * s->inv_h2, dd = d1[j] - y->val[y->colptr[j + 1] - 1];
                            double err = fabs(dd - Kd) / (Kd + 1e-9 * fabs(d1[j]));
                            if (err > worst_d) worst_d = err;
                            ++ndiag;
                        }
                    memcpy(s->u, usave, sizeof(double) * 2 * (size_t)s->nv);
                }
                rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                memcpy(g1, y->g, sizeof(double) * (size_t)y->ndof);
                s->def.travel_weight = 0.0;
                s->def.slide_damping = 0.0;
                rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                memcpy(g0, y->g, sizeof(double) * (size_t)y->ndof);
                s->def.travel_weight = tw;
                s->def.slide_damping = damp;
                for (i = 0; i < y->ndof; ++i) if (fabs(g1[i] - g0[i]) > gmax) gmax = fabs(g1[i] - g0[i]);
                for (i = 0; i < s->nv; ++i)
                    for (a = 0; a < y->nu[i] && y->dof_u[i] >= 0; ++a) {
                        int j = y->dof_u[i] + a;
                        double e[2], ku[2], hs = 1e-7, tp, tm, fd, gt = g1[j] - g0[j];
                        if (y->nu[i] == 2) { e[0] = a == 0; e[1] = a == 1; }
                        else { e[0] = rc__sim_u_dir(s, i)[0]; e[1] = rc__sim_u_dir(s, i)[1]; }
                        ku[0] = s->u[2 * i]; ku[1] = s->u[2 * i + 1];
                        s->u[2 * i] = ku[0] + hs * e[0]; s->u[2 * i + 1] = ku[1] + hs * e[1];
                        rc__sim_energy(s, s->x, s->u, s->phi, &T); tp = T.travel;
                        s->u[2 * i] = ku[0] - hs * e[0]; s->u[2 * i + 1] = ku[1] - hs * e[1];
                        rc__sim_energy(s, s->x, s->u, s->phi, &T); tm = T.travel;
                        s->u[2 * i] = ku[0]; s->u[2 * i + 1] = ku[1];
                        fd = (tp - tm) / (2.0 * hs);
                        if (fabs(fd - gt) / (fabs(gt) + 1e-3 * gmax) > worst_a) worst_a = fabs(fd - gt) / (fabs(gt) + 1e-3 * gmax);
                        ++checked;
                    }
            }
        }
        printf("    assembled joint gradient, travel part: %d u DOFs (largest entry %.3g), worst relative error %.2e", checked, gmax, worst_a);
        if (pass) printf("; u diagonal at u^t: %d DOFs, worst relative error %.2e", ndiag, worst_d);
        printf("\n");
        CHECK(gmax > 0.0);
        CHECK(checked > 100);
        CHECKF(worst_a < 1e-5, "assembled travel gradient error %.3g", worst_a);
        if (pass) {
            CHECK(ndiag > 100);
            CHECKF(worst_d < 1e-6, "assembled damping diagonal error %.3g", worst_d);
        }
    }
    free(g1); free(g0); free(d1); free(usave);
    rc_sim_destroy(s);
}

/* KE + stretch + bend + gravity of a sim's current state, the kinetic energy with lumped masses
   m_i = rho tau sum_T A_T(u) / 3 at its current reference u (mv: nv doubles of scratch); *ke may
   be NULL */
static double ta_total_energy(rc_sim *s, double *mv, double *ke)
{
    const double *u = rc_sim_reference(s), *v = rc_sim_velocities(s);
    const int *tr = rc_sim_tris(s);
    double rho_tau = s->def.material.density * s->def.material.thickness, KE = 0.0, S = 0.0, B = 0.0, G = 0.0;
    int i, t, c, nv = rc_sim_num_verts(s);
    for (i = 0; i < nv; ++i) mv[i] = 0.0;
    for (t = 0; t < rc_sim_num_tris(s); ++t) {
        const double *a = u + 2 * tr[3 * t], *b = u + 2 * tr[3 * t + 1], *d = u + 2 * tr[3 * t + 2];
        double A = 0.5 * ((b[0] - a[0]) * (d[1] - a[1]) - (d[0] - a[0]) * (b[1] - a[1]));
        for (c = 0; c < 3; ++c) mv[tr[3 * t + c]] += rho_tau * A / 3.0;
    }
    for (i = 0; i < nv; ++i) for (c = 0; c < 3; ++c) KE += 0.5 * mv[i] * v[3 * i + c] * v[3 * i + c];
    CHECK_OK(rc_sim_potential(s, &S, &B, &G));
    if (ke) *ke = KE;
    return KE + S + B + G;
}

/* No energy from the transfer's long slides: a 0.5 m cotton square (15 x 15 grid, 3.6 cm cells)
   pinned at two corners swings down without damping or contact, so E = KE + V (KE with the lumped
   masses of the current u) should not rise from step to step. Without the travel term (session-18
   header) vertices slid up to 12.9 cm (3.6 cells) in one step and E rose in steps 7 and 14, by
   2.9e-4 and 3.2e-4 J (2.5% of the kinetic energy); the first-order transfer under-prices such slides
   (rc__sim_travel). With one free cell per step (session 19) no vertex slid more than 1.24 cells and
   one step gained 2.9e-5 J (0.2%); with one cell per 0.04 s (session 20) the slides stay below 0.4
   cells and no step gains. The fixed mesh never gains. */
static void test_adaptive_swing_no_energy_gain(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    const int n = 15;
    double Eprev = 0.0, worst = -HUGE_VAL, travel = 0.0, *mv;
    int k, ok = 1;
    CHECK_OK(rc_mesh_grid(&m, 0.5, 0.5, n, n, RC_DIAG_ALTERNATING));
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.num_threads = 1;
    CHECK_OK(rc_sim_create(&def, &s));
    mv = (double *)malloc(sizeof(double) * (size_t)m.num_verts);
    if (!s || !mv) { rc_sim_destroy(s); free(mv); rc_mesh_free(&m); return; }
    CHECK_OK(rc_sim_pin(s, 0, rc_sim_positions(s)));
    CHECK_OK(rc_sim_pin(s, n - 1, rc_sim_positions(s) + 3 * (n - 1)));
    for (k = 0; k < 30 && ok; ++k) {
        double KE, E;
        ok = rc_sim_step(s, &st) == RC_OK;
        CHECK(ok);
        CHECK(st.converged);
        E = ta_total_energy(s, mv, &KE);   /* 0 at the flat start at rest */
        if ((E - Eprev) / KE > worst) worst = (E - Eprev) / KE;
        if (st.ref_travel > travel) travel = st.ref_travel;
        Eprev = E;
    }
    printf("    30 steps: largest energy change per step %+.2e of the kinetic energy, largest slide %.3f m (%.2f cells)\n",
           worst, travel, travel / (0.5 / (n - 1)));
    CHECKF(worst < 0.01, "a step gained %.3g of the kinetic energy", worst);
    CHECKF(travel < 1.5 * 0.5 / (n - 1), "a vertex slid %.3f m in one step", travel);
    free(mv);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
}

/* The travel allowance scales with the step below 0.04 s (session 20, helper probes): a 1 m cotton
   square (100 vertices, cells ~0.11 m) released at rest 1 cm above a sphere, dt = 1 ms. With one
   free cell per step whatever h, vertices slid 1.3 cells per 1 ms step (140 m/s through the
   material), 120-220 outer iterations each, and KE + V + barrier rose on every step from 46 to 77
   to +0.049 J above its rest start of 0 (the fixed mesh never gains); the centre of mass fell 1.8x
   faster than free fall while resting on the sphere. The transfer's error per step grows with
   |du|^2 at the inertial scale m/h^2, so a step-independent allowance makes the error per unit
   time grow like 1/h^3; a material speed limit (one cell per 0.04 s) makes it vanish as h -> 0. */
static void test_adaptive_small_dt_no_energy_gain(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    double worst = -HUGE_VAL, *mv, c3[3] = { 0.5, 0.5, -0.26 };
    int k, ok = 1;
    CHECK_OK(rc_mesh_square(&m, 1.0, 100, 1u));
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    def.num_threads = 1;
    def.dt = 1e-3;
    CHECK_OK(rc_sim_create(&def, &s));
    mv = (double *)malloc(sizeof(double) * (size_t)m.num_verts);
    if (!s || !mv) { rc_sim_destroy(s); free(mv); rc_mesh_free(&m); return; }
    CHECK_OK(rc_sim_add_sphere(s, c3, 0.25, NULL));
    for (k = 0; k < 60 && ok; ++k) {
        double E;
        ok = rc_sim_step(s, &st) == RC_OK;
        CHECK(ok);
        E = ta_total_energy(s, mv, NULL) + st.e_contact;   /* 0 at the start, at rest */
        if (E > worst) worst = E;
    }
    printf("    60 steps of 1 ms: largest KE + V + barrier %+.2e J (the rest start: 0)\n", worst);
    CHECKF(worst < 5e-3, "the sheet gained %.3g J", worst);
    free(mv);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
    /* the same drape at dt 0.01 with a very soft sheet (E = 1e3 Pa): with one free cell per step
       it slid 1.2 cells per step and gained 0.053 J in step 18 (its kinetic energy +46%) */
    {
        double Eprev = 0.0;
        def = rc_default_sim_def();
        CHECK_OK(rc_mesh_square(&m, 1.0, 100, 1u));
        def.mesh = rc_mesh_describe(&m);
        def.adaptive = 1;
        def.num_threads = 1;
        def.material.young = 1e3;
        s = NULL;
        CHECK_OK(rc_sim_create(&def, &s));
        mv = (double *)malloc(sizeof(double) * (size_t)m.num_verts);
        if (!s || !mv) { rc_sim_destroy(s); free(mv); rc_mesh_free(&m); return; }
        CHECK_OK(rc_sim_add_sphere(s, c3, 0.25, NULL));
        worst = -HUGE_VAL;
        for (k = 0, ok = 1; k < 20 && ok; ++k) {
            double E;
            ok = rc_sim_step(s, &st) == RC_OK;
            CHECK(ok);
            E = ta_total_energy(s, mv, NULL) + st.e_contact;
            if (E - Eprev > worst) worst = E - Eprev;
            Eprev = E;
        }
        printf("    soft sheet, 20 steps of 10 ms: largest gain of KE + V + barrier in a step %+.2e J\n", worst);
        CHECKF(worst < 0.01, "a step gained %.3g J", worst);
        free(mv);
        rc_sim_destroy(s);
        rc_mesh_free(&m);
    }
}

/* rc_sim_save_state / rc_sim_load_state: stepping from a loaded state repeats the steps that
   followed its save bit for bit, in both modes, with a mesh obstacle moved by the caller every
   step (its vertices at the step's start are state). Until session 18 the solvers' kept
   Levenberg-Marquardt shifts, the joint factor reused by the next step's first outer directions
   and a mesh obstacle's vertices were not state: the replayed adaptive step moved the sheet 0.27 m
   from the first run's, and the cloth ended on the wrong side of a rising plate. A state of a sim
   with other sizes (here: saved before an obstacle was added) is refused with a message, without
   reading past its end (ASan build). */
static void ta_plate(double z, double *p)
{
    static const double c[8] = { -0.5, -0.5, 1.5, -0.5, 1.5, 0.5, -0.5, 0.5 };
    int i;
    for (i = 0; i < 4; ++i) { p[3 * i] = c[2 * i]; p[3 * i + 1] = c[2 * i + 1]; p[3 * i + 2] = z; }
}

static void test_adaptive_state_replay(void)
{
    static const int plate_t[6] = { 0, 1, 2, 0, 2, 3 };
    int mode;
    for (mode = 1; mode >= 0; --mode) {
        rc_sim *s = ta_hanging(9, mode, 0.1, 1.0);
        double *state = NULL, *xs = NULL, *us = NULL, pv[12], dmax = 0.0;
        int k, i, id = -1, nv, nsteps = 10, touched = 0;
        CHECK(s != NULL);
        if (!s) return;
        nv = rc_sim_num_verts(s);
        /* the old state, before the plate exists, is refused once it does */
        state = (double *)malloc(sizeof(double) * rc_sim_state_size(s));
        CHECK_OK(rc_sim_save_state(s, state));
        ta_plate(-0.90, pv);
        CHECK_OK(rc_sim_add_trimesh(s, 4, pv, 2, plate_t, &id));
        CHECK(rc_sim_load_state(s, state) == RC_ERR_INVALID_ARGUMENT);
        CHECK(strstr(rc_sim_last_error(s), "obstacles") != NULL);
        free(state);
        state = (double *)malloc(sizeof(double) * rc_sim_state_size(s));
        xs = (double *)malloc(sizeof(double) * 3 * nv * nsteps);
        us = (double *)malloc(sizeof(double) * 2 * nv * nsteps);
        for (k = 0; k < 4 + nsteps; ++k) {
            rc_step_stats st;
            if (k == 4) CHECK_OK(rc_sim_save_state(s, state));
            ta_plate(-0.90 + 0.012 * k, pv);
            CHECK_OK(rc_sim_set_obstacle_vertices(s, id, pv));
            CHECK_OK(rc_sim_step(s, &st));
            if (st.min_contact_distance < 0.01) touched = 1;
            if (k >= 4) {
                memcpy(xs + (size_t)3 * nv * (k - 4), rc_sim_positions(s), sizeof(double) * 3 * nv);
                memcpy(us + (size_t)2 * nv * (k - 4), rc_sim_reference(s), sizeof(double) * 2 * nv);
            }
        }
        /* rc_sim_time: the sum of the steps taken, restored with the state */
        CHECKF(fabs(rc_sim_time(s) - (4 + nsteps) * 0.01) < 1e-12, "time %.17g after %d steps of 0.01 s", rc_sim_time(s), 4 + nsteps);
        CHECK_OK(rc_sim_load_state(s, state));
        CHECKF(fabs(rc_sim_time(s) - 4 * 0.01) < 1e-12, "time %.17g after loading the state of step 4", rc_sim_time(s));
        for (k = 4; k < 4 + nsteps; ++k) {
            ta_plate(-0.90 + 0.012 * k, pv);
            CHECK_OK(rc_sim_set_obstacle_vertices(s, id, pv));
            CHECK_OK(rc_sim_step(s, NULL));
            for (i = 0; i < 3 * nv; ++i) dmax = fmax(dmax, fabs(rc_sim_positions(s)[i] - xs[(size_t)3 * nv * (k - 4) + i]));
            for (i = 0; i < 2 * nv; ++i) dmax = fmax(dmax, fabs(rc_sim_reference(s)[i] - us[(size_t)2 * nv * (k - 4) + i]));
        }
        printf("    %s: replay of %d steps from a saved state (plate mesh rising into the sheet: %s), largest difference %.3g m\n",
               mode ? "adaptive" : "fixed", nsteps, touched ? "contact" : "no contact", dmax);
        CHECK(touched);
        CHECKF(dmax == 0.0, "replay differs by %g m", dmax);
        free(state); free(xs); free(us);
        rc_sim_destroy(s);
    }
}

/* rc_sim_set_def: changing dt, gravity, the material and solver settings of a running sim gives
   exactly the steps of a new sim created with the new def from the same mesh, with the same pins
   and obstacle, loaded with the old one's state (the workaround the README gave before the
   setter existed), in both modes. Gravity turned sideways blows the hanging sheet into a sphere
   added with the change, so the compared steps include contact and the barrier stiffness set
   from the new def's mass and gravity. Refused changes (a field that shaped the allocations, the
   contact band, non-finite or out-of-range values, a dt at which a handle's spring exceeds the
   accepted stiffness) leave the sim as it was: its next steps still match the new sim's. */
static rc_sim_def ta_setdef_def(rc_mesh *m, int adaptive)
{
    rc_sim_def def = rc_default_sim_def();
    int i;
    const double L = 0.8;
    if (rc_mesh_grid(m, L, L, 8, 8, RC_DIAG_ALTERNATING) == RC_OK)
        for (i = 0; i < m->num_verts; ++i) {
            double u = m->ref_uv[2 * i], v = m->ref_uv[2 * i + 1];
            m->pos[3 * i] = 0.1 + 0.75 * u;
            m->pos[3 * i + 1] = 0.01 * sin(3.14159265358979 * u / L) * v / L;
            m->pos[3 * i + 2] = -v;
        }
    def.mesh = rc_mesh_describe(m);
    def.material = rc_material_proto();
    def.adaptive = adaptive;
    def.num_threads = 1;
    def.itr_max_outer = 150;
    return def;
}

static void ta_setdef_sphere(rc_sim *s)
{
    const double c[3] = { 0.45, 0.15, -0.45 };
    CHECK_OK(rc_sim_add_sphere(s, c, 0.12, NULL));
}

static rc_sim *ta_setdef_sim(const rc_sim_def *def, int sphere)
{
    rc_sim *s = NULL;
    double p0[3], p8[3];
    if (rc_sim_create(def, &s) != RC_OK || !s) return NULL;
    memcpy(p0, rc_sim_positions(s), sizeof p0);
    memcpy(p8, rc_sim_positions(s) + 3 * 8, sizeof p8);
    rc_sim_pin(s, 0, p0);
    rc_sim_pin(s, 8, p8);
    if (sphere) ta_setdef_sphere(s);
    return s;
}

static void test_adaptive_set_def_matches_new_sim(void)
{
    int mode;
    for (mode = 1; mode >= 0; --mode) {
        rc_mesh m;
        rc_sim_def d0 = ta_setdef_def(&m, mode), d1 = d0, bad;
        rc_sim *a = ta_setdef_sim(&d0, 0), *b = NULL;
        double *state = NULL, mind = HUGE_VAL, ymax = 0.0;
        int k, nv, same = 1, refused = 0;
        rc_status st;
        CHECK(a != NULL);
        if (!a) { rc_mesh_free(&m); return; }
        nv = rc_sim_num_verts(a);
        for (k = 0; k < 3; ++k) CHECK_OK(rc_sim_step(a, NULL));
        d1.dt = 0.005;
        d1.gravity[1] = 9.0;
        d1.material.density *= 2.0;
        d1.material.thickness *= 1.5;
        d1.bending_scale = 0.5;
        d1.quality_weight = 2.0;
        d1.travel_time = 0.02;
        d1.tol = 0.5 * d0.tol;
        d1.itr_max_outer = 100;
        d1.mesh.pos = NULL;   /* ignored by rc_sim_set_def */
        CHECK_OK(rc_sim_set_def(a, rc_sim_get_def(a)));   /* its own def: accepted, changes nothing */
        CHECK_OK(rc_sim_set_def(a, &d1));
        CHECK(rc_sim_get_def(a)->dt == 0.005 && rc_sim_get_def(a)->gravity[1] == 9.0 && rc_sim_get_def(a)->mesh.ref_uv == NULL);
        CHECK(rc_sim_get_def(NULL) == NULL);
        /* refusals, each naming its reason; none may change the sim */
        bad = d1; bad.adaptive = !mode;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "adaptive") != NULL;
        bad = d1; bad.contact_thickness *= 2.0;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "contact_thickness") != NULL;
        bad = d1; bad.linear_solver = RC_SOLVER_PCG;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "linear_solver") != NULL;
        bad = d1; bad.dt = sqrt(-d1.dt);
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_NON_FINITE && strstr(rc_sim_last_error(a), "dt") != NULL;
        bad = d1; bad.material.density = -1.0; bad.dt = 1.0;
        st = rc_sim_set_def(a, &bad); refused += st != RC_OK;
        bad = d1; bad.itr_max_outer = 151;
        st = rc_sim_set_def(a, &bad); refused += mode ? st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "itr_max_outer") != NULL : st == RC_OK;
        st = rc_sim_set_def(a, NULL); refused += st == RC_ERR_INVALID_ARGUMENT;
        bad = d1; bad.self_contact = 1;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "self_contact") != NULL;
        bad = d1; bad.itr_cache = !d1.itr_cache;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "itr_cache") != NULL;
        bad = d1; bad.alloc_user = &bad;
        st = rc_sim_set_def(a, &bad); refused += st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(a), "alloc_user") != NULL;
        if (!mode) CHECK_OK(rc_sim_set_def(a, &d1));   /* the accepted itr_max_outer 151 of the fixed mesh, back to d1 */
        CHECKF(refused == 10, "%d of 10 refusals as expected (last: %s)", refused, rc_sim_last_error(a));
        /* nothing of the refused defs was taken: the def is d1 field by field (its mesh as the sim keeps it) */
        {
            const rc_sim_def *now = rc_sim_get_def(a);
            CHECK(now->dt == d1.dt && memcmp(now->gravity, d1.gravity, sizeof d1.gravity) == 0 &&
                  now->material.density == d1.material.density && now->material.thickness == d1.material.thickness &&
                  now->material.young == d1.material.young && now->bending_scale == d1.bending_scale &&
                  now->quality_weight == d1.quality_weight && now->travel_time == d1.travel_time && now->tol == d1.tol &&
                  now->itr_max_outer == d1.itr_max_outer && now->adaptive == d1.adaptive && now->self_contact == d1.self_contact &&
                  now->itr_cache == d1.itr_cache && now->linear_solver == d1.linear_solver &&
                  now->contact_thickness == d1.contact_thickness && now->contact_dhat == d1.contact_dhat && now->alloc_user == d1.alloc_user);
        }
        {   /* at the material's stiffness bound, the verdict is rc_sim_create's on the mesh as created, although u
               has moved (adaptive): the largest Young's modulus rc_sim_def_check accepts, found by bisection */
            rc_sim_def dc = d1;
            double lo = dc.material.young, hi = 1e30;
            int it, agree = 1;
            dc.mesh = d0.mesh;
            for (it = 0; it < 200; ++it) {
                double mid = sqrt(lo * hi);
                dc.material.young = mid;
                if (rc_sim_def_check(&dc, NULL, 0) == RC_OK) lo = mid; else hi = mid;
            }
            for (it = -2; it <= 2; ++it) {
                bad = d1;
                bad.material.young = lo * (1.0 + 1e-9 * it);
                dc.material.young = bad.material.young;
                agree &= (rc_sim_def_check(&dc, NULL, 0) == RC_OK) == (rc_sim_set_def(a, &bad) == RC_OK);
            }
            CHECKF(agree, "at Young's modulus %.17g: rc_sim_set_def and rc_sim_def_check disagree", lo);
            CHECK_OK(rc_sim_set_def(a, &d1));
        }
        CHECK(rc_sim_set_def(NULL, &d1) == RC_ERR_INVALID_ARGUMENT);
        /* the sphere arrives now, so the barrier's stiffness is first set from the new def's mass and gravity */
        ta_setdef_sphere(a);
        state = (double *)malloc(sizeof(double) * rc_sim_state_size(a));
        CHECK_OK(rc_sim_save_state(a, state));
        /* the new sim of the workaround */
        {
            rc_mesh m2;
            rc_sim_def d2 = ta_setdef_def(&m2, mode);
            d2.mesh.pos = m2.pos;
            d1.mesh = d2.mesh;
            b = ta_setdef_sim(&d1, 1);
            rc_mesh_free(&m2);
        }
        CHECK(b != NULL);
        if (b) {
            CHECK_OK(rc_sim_load_state(b, state));
            for (k = 0; k < 8; ++k) {
                rc_step_stats sa, sb;
                int i;
                CHECK_OK(rc_sim_step(a, &sa));
                CHECK_OK(rc_sim_step(b, &sb));
                same &= memcmp(rc_sim_positions(a), rc_sim_positions(b), sizeof(double) * 3 * nv) == 0;
                same &= memcmp(rc_sim_velocities(a), rc_sim_velocities(b), sizeof(double) * 3 * nv) == 0;
                same &= memcmp(rc_sim_reference(a), rc_sim_reference(b), sizeof(double) * 2 * nv) == 0;
                same &= memcmp(rc_sim_directors(a), rc_sim_directors(b), sizeof(double) * rc_sim_num_edges(a)) == 0;
                same &= sa.ip_end == sb.ip_end && sa.outer_iters == sb.outer_iters && sa.inner_iters == sb.inner_iters;
                if (sa.min_contact_distance < mind) mind = sa.min_contact_distance;
                for (i = 0; i < nv; ++i) ymax = fmax(ymax, rc_sim_positions(a)[3 * i + 1]);
            }
            CHECKF(fabs(rc_sim_time(a) - (3 * 0.01 + 8 * 0.005)) < 1e-12, "time %.17g", rc_sim_time(a));
            {   /* threads reach the factorizations already built (a review: they kept the count they were built with) */
                rc_sim_def dt2 = d1;
                dt2.num_threads = 2;
                CHECK_OK(rc_sim_set_def(a, &dt2));
                CHECK(a->sys_xp.ldlt && a->sys_xp.ldlt->nthreads == rc__sim_threads(a));
                CHECK(!a->sys_xpu.ldlt || a->sys_xpu.ldlt->nthreads == rc__sim_threads(a));
                CHECK_OK(rc_sim_set_def(a, &d1));
                CHECK(a->sys_xp.ldlt && a->sys_xp.ldlt->nthreads == rc__sim_threads(a));
            }
            {   /* in contact, a def whose barrier stiffness cap (100 kappa_min) is far below the kappa in
                   use: lowered to the cap, as rc_sim_load_state lowers it (a probe: density x1e-3 left
                   the set_def sim at 10 times the new sim's kappa, the steps 1.2 m apart) */
                rc_sim_def d4 = d1;
                rc_sim *c = NULL;
                rc_mesh m4;
                rc_sim_def d5 = ta_setdef_def(&m4, mode);
                double *st2 = (double *)malloc(sizeof(double) * rc_sim_state_size(a));
                int same2 = 1;
                CHECK_OK(rc_sim_save_state(a, st2));
                d4.material.density *= 1e-3;
                d4.mesh = d5.mesh;
                CHECK_OK(rc_sim_set_def(a, &d4));
                c = ta_setdef_sim(&d4, 1);
                rc_mesh_free(&m4);
                CHECK(c != NULL && st2 != NULL);
                if (c && st2) {
                    CHECK_OK(rc_sim_load_state(c, st2));
                    for (k = 0; k < 2; ++k) {
                        CHECK_OK(rc_sim_step(a, NULL));
                        CHECK_OK(rc_sim_step(c, NULL));
                        same2 &= memcmp(rc_sim_positions(a), rc_sim_positions(c), sizeof(double) * 3 * nv) == 0;
                        same2 &= memcmp(rc_sim_reference(a), rc_sim_reference(c), sizeof(double) * 2 * nv) == 0;
                    }
                }
                CHECKF(same2, "%s: density x1e-3 in contact: the steps differ from a new sim's", mode ? "adaptive" : "fixed");
                free(st2);
                rc_sim_destroy(c);
            }
        }
        printf("    %s: 8 steps after rc_sim_set_def (dt 0.01 -> 0.005, gravity sideways, material, solver): %s a new sim's; "
               "closest to the sphere %.3g m, sheet at y <= %.3f m\n", mode ? "adaptive" : "fixed", same ? "bit-identical to" : "DIFFERENT from", mind, ymax);
        CHECK(same);
        CHECKF(mind < d1.contact_thickness + d1.contact_dhat, "the sheet never came within the barrier band of the sphere (%.3g m)", mind);
        /* a handle accepted at dt 0.01 whose spring a 30 times longer step cannot carry */
        {
            rc_sim *c = NULL;
            double M = 0.0, uv[2] = { 0.41, 0.43 }, tgt[3], *mass = (double *)malloc(sizeof(double) * nv);
            int i;
            rc_mesh m3;
            rc_sim_def d3 = ta_setdef_def(&m3, mode);
            CHECK_OK(rc_sim_create(&d3, &c));
            rc_mesh_free(&m3);
            if (c && mass) {
                CHECK_OK(rc_sim_vertex_masses(c, mass));
                for (i = 0; i < nv; ++i) M += mass[i];
                CHECK_OK(rc_sim_material_point(c, uv, tgt));
                CHECK_OK(rc_sim_add_material_handle(c, uv, tgt, 1e11 * M / nv / (d3.dt * d3.dt), NULL));
                d3.dt = 0.3;
                st = rc_sim_set_def(c, &d3);
                CHECKF(st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(c), "handle"), "spring at dt 0.3: %s (%s)", rc_status_string(st), rc_sim_last_error(c));
                CHECK(rc_sim_get_def(c)->dt == 0.01);
                d3.dt = 0.02;
                CHECK_OK(rc_sim_set_def(c, &d3));
            }
            free(mass);
            rc_sim_destroy(c);
        }
        free(state);
        rc_sim_destroy(a);
        rc_sim_destroy(b);
        rc_mesh_free(&m);
    }
}

/* rc_sim_solve_static's load stepping after rc_sim_set_def: a second static solve from the first's
   equilibrium ramps from the loads that equilibrium holds, now including its weight (gravity and
   rho tau, which rc_sim_set_def can change). Gravity doubled and the density 1.5 times: the first
   increment of 4 sees the old weight plus a quarter of the change (gravity -9.81 in the new
   density's terms), where before the setter existed the ramp started at the new gravity. */
static double ta_static_first_gz;
static int ta_static_hooked;
static void ta_static_hook(const rc_sim *s, void *user)
{
    (void)user;
    if (!ta_static_hooked++) ta_static_first_gz = rc_sim_get_def(s)->gravity[2];
}

static void test_adaptive_set_def_static_ramp(void)
{
    int mode;
    for (mode = 0; mode < 2; ++mode) {
        rc_mesh m;
        rc_sim_def d = ta_setdef_def(&m, mode);
        rc_sim *s = NULL;
        rc_step_stats st;
        d.static_load_steps = 4;
        s = ta_setdef_sim(&d, 0);
        rc_mesh_free(&m);
        CHECK(s != NULL);
        if (!s) return;
        CHECK_OK(rc_sim_solve_static(s, &st));
        CHECK(st.converged);
        d = *rc_sim_get_def(s);
        d.gravity[2] *= 2.0;
        d.material.density *= 1.5;
        d.iterate_hook = ta_static_hook;
        CHECK_OK(rc_sim_set_def(s, &d));
        ta_static_hooked = 0;
        CHECK_OK(rc_sim_solve_static(s, &st));
        printf("    %s: static solve after gravity x2 and density x1.5: first increment's gravity %.6f m/s^2 (old weight + 1/4 of the change: -9.81), "
               "converged %d, gravity after %.4f\n", mode ? "adaptive" : "fixed", ta_static_first_gz, st.converged, rc_sim_get_def(s)->gravity[2]);
        CHECK(ta_static_hooked > 0);
        CHECKF(fabs(ta_static_first_gz + 9.81) < 1e-12, "first increment at gravity %.15g", ta_static_first_gz);
        CHECK(st.converged);
        CHECK(rc_sim_get_def(s)->gravity[2] == d.gravity[2]);
        rc_sim_destroy(s);
    }
}

/* A step never ends in a state the sim would refuse to load: one vertex given 1e10 m/s made an
   adaptive step return RC_OK (unconverged) with director angles of 3e4 rad, past
   rc_sim_load_state's bound of 1e4 (a probe, session 61). Now such a step fails and is split, or
   fails with RC_ERR_NOT_CONVERGED (or RC_ERR_NON_FINITE where the energy overflows) and the state
   restored; either way the state loads back. */
static void test_adaptive_huge_velocity_state_loads(void)
{
    double speeds[4] = { 1e10, 1e13, 1e20, 1e150 };
    int q;
    for (q = 0; q < 4; ++q) {
        rc_mesh m;
        rc_sim_def d = ta_setdef_def(&m, 1);
        rc_sim *s, *twin;
        double *v, *state, pmax = 0.0;
        int k, nv;
        rc_status st;
        d.gravity[1] = 6.0;   /* the probe's scene: the sheet blown onto the sphere */
        d.friction = 0.3;
        s = ta_setdef_sim(&d, 1);
        twin = ta_setdef_sim(&d, 1);
        rc_mesh_free(&m);
        CHECK(s != NULL && twin != NULL);
        if (!s || !twin) { rc_sim_destroy(s); rc_sim_destroy(twin); return; }
        nv = rc_sim_num_verts(s);
        for (k = 0; k < 4; ++k) CHECK_OK(rc_sim_step(s, NULL));
        v = (double *)malloc(sizeof(double) * 3 * nv);
        state = (double *)malloc(sizeof(double) * rc_sim_state_size(s));
        CHECK(v != NULL && state != NULL);
        if (!v || !state) { free(v); free(state); rc_sim_destroy(s); rc_sim_destroy(twin); return; }
        memcpy(v, rc_sim_velocities(s), sizeof(double) * 3 * nv);
        v[3 * 30 + 2] = speeds[q];
        if (speeds[q] * d.dt > 1e12) {   /* past 1e12 m in one step: refused when given, the sim unchanged */
            CHECK(rc_sim_set_velocities(s, v) == RC_ERR_INVALID_ARGUMENT);
            CHECK(rc_sim_velocities(s)[3 * 30 + 2] != speeds[q]);
            printf("    vertex 30 at %g m/s: refused (%s)\n", speeds[q], rc_sim_last_error(s));
            free(v); free(state);
            rc_sim_destroy(s); rc_sim_destroy(twin);
            continue;
        }
        CHECK_OK(rc_sim_set_velocities(s, v));
        st = rc_sim_step(s, NULL);
        for (k = 0; k < rc_sim_num_edges(s); ++k) pmax = fmax(pmax, fabs(rc_sim_directors(s)[k]));
        CHECK_OK(rc_sim_save_state(s, state));
        printf("    vertex 30 at %g m/s: the step: %s%s%s; largest director angle %.3g rad\n", speeds[q], rc_status_string(st),
               st == RC_OK ? "" : ", ", st == RC_OK ? "" : rc_sim_last_error(s), pmax);
        CHECK(st == RC_OK || st == RC_ERR_NOT_CONVERGED || st == RC_ERR_NON_FINITE);
        CHECKF(rc_sim_load_state(twin, state) == RC_OK, "the state after the step does not load: %s", rc_sim_last_error(twin));
        free(v); free(state);
        rc_sim_destroy(s); rc_sim_destroy(twin);
    }
}

/* States a sim cannot be in, or that another sim saved, found by a probe; each was
   accepted before: (1) obstacles of the same sizes in another order (a sphere and a plane swapped);
   (2) a reference domain other than the sim's (u scaled by 3: the corners move); (3) a sliver of
   positive area (a vertex 1e-9 m from its neighbour in u: MIPS 4e8, past the line search's bound
   1e4, which the regulariser never lets a step reach; a sim without it accepts the state); (4) a tangled state loaded into a sim that had stepped (its crossing check was done once
   per sim, so the sheet stepped on with a vertex through the plate); (5) a barrier stiffness of
   1e300 (every step unconverged for good; now lowered to the cap); (6) the pin reactions of the
   state before the load; (7, session 54's probe) a director angle of 1e12 rad (the steps returned
   RC_OK with the sheet crumpled, its energy at 1e8 J and more); and the size message names the
   total size when only it differs. */
static void test_adaptive_state_load_refuses(void)
{
    static const int plate_t[6] = { 0, 1, 2, 0, 2, 3 };
    rc_sim *s = ta_hanging(9, 1, 0.1, 1.0), *s2 = ta_hanging(9, 1, 0.1, 1.0);
    double *state, *bad, c[3] = { 0.4, 0.3, -2.0 }, p0[3] = { 0.0, 0.0, -3.0 }, nz[3] = { 0.0, 0.0, 1.0 }, pv[12], f[3];
    size_t n, i;
    int id, k, nv;
    rc_status st;
    CHECK(s != NULL && s2 != NULL);
    if (!s || !s2) { rc_sim_destroy(s); rc_sim_destroy(s2); return; }
    nv = rc_sim_num_verts(s);
    CHECK_OK(rc_sim_add_sphere(s, c, 0.1, NULL)); CHECK_OK(rc_sim_add_plane(s, p0, nz, NULL));
    CHECK_OK(rc_sim_add_plane(s2, p0, nz, NULL)); CHECK_OK(rc_sim_add_sphere(s2, c, 0.1, NULL));
    ta_plate(-0.90, pv);
    CHECK_OK(rc_sim_add_trimesh(s, 4, pv, 2, plate_t, &id)); CHECK_OK(rc_sim_add_trimesh(s2, 4, pv, 2, plate_t, &id));
    for (k = 0; k < 3; ++k) CHECK_OK(rc_sim_step(s, NULL));
    n = rc_sim_state_size(s);
    state = (double *)malloc(sizeof(double) * n);
    bad = (double *)malloc(sizeof(double) * n);
    CHECK_OK(rc_sim_save_state(s, state));
    /* (1) */
    st = rc_sim_load_state(s2, state);
    CHECKF(st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(s2), "other obstacles"), "obstacles swapped: %s (%s)", rc_status_string(st), rc_sim_last_error(s2));
    /* (2) */
    memcpy(bad, state, sizeof(double) * n);
    for (i = 0; i < (size_t)2 * nv; ++i) bad[RC_SIM_STATE_HEADER + 6 * nv + i] *= 3.0;
    st = rc_sim_load_state(s, bad);
    CHECKF(st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(s), "reference domain"), "u scaled: %s (%s)", rc_status_string(st), rc_sim_last_error(s));
    /* (3) vertex 40 (interior) 1e-9 m from vertex 41 along the row */
    memcpy(bad, state, sizeof(double) * n);
    {
        double *u = bad + RC_SIM_STATE_HEADER + 6 * nv;
        u[80] = u[82] - 1e-9 * (u[82] - u[78]) / fabs(u[82] - u[78]); u[81] = u[83];
    }
    st = rc_sim_load_state(s, bad);
    CHECKF(st == RC_ERR_MESH_DEGENERATE && strstr(rc_sim_last_error(s), "sliver"), "sliver: %s (%s)", rc_status_string(st), rc_sim_last_error(s));
    {   /* without the regulariser a collapsing mesh can creep past the bound: such a sim accepts it */
        rc_sim *s3 = ta_hanging(9, 1, 0.1, 0.0);
        if (s3) {
            CHECK_OK(rc_sim_add_sphere(s3, c, 0.1, NULL)); CHECK_OK(rc_sim_add_plane(s3, p0, nz, NULL));
            CHECK_OK(rc_sim_add_trimesh(s3, 4, pv, 2, plate_t, &id));
            CHECK_OK(rc_sim_load_state(s3, bad));
            {   /* nor can the regulariser be turned on over it (rc_sim_set_def) */
                rc_sim_def d3 = *rc_sim_get_def(s3);
                d3.quality_weight = 1.0;
                st = rc_sim_set_def(s3, &d3);
                CHECKF(st == RC_ERR_MESH_DEGENERATE && strstr(rc_sim_last_error(s3), "sliver"), "regulariser on over a sliver: %s (%s)",
                       rc_status_string(st), rc_sim_last_error(s3));
                CHECK(rc_sim_get_def(s3)->quality_weight == 0.0);
            }
            rc_sim_destroy(s3);
        }
    }
    /* the refused loads changed nothing: a save is the state the sim had */
    CHECK_OK(rc_sim_save_state(s, bad));
    CHECK(memcmp(bad, state, sizeof(double) * n) == 0);
    /* (6) then (4): the bottom middle vertex 10 cm below the plate */
    CHECK_OK(rc_sim_pin_reaction(s, 0, f));
    CHECK(f[0] != 0.0 || f[1] != 0.0 || f[2] != 0.0);
    memcpy(bad, state, sizeof(double) * n);
    bad[RC_SIM_STATE_HEADER + 3 * 76 + 2] = -1.0;
    CHECK_OK(rc_sim_load_state(s, bad));
    CHECK_OK(rc_sim_pin_reaction(s, 0, f));
    CHECK(f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0);
    st = rc_sim_step(s, NULL);
    CHECKF(st == RC_ERR_INTERSECTING, "tangled state loaded into a sim that had stepped: %s", rc_status_string(st));
    /* (5) */
    memcpy(bad, state, sizeof(double) * n);
    bad[RC_SIM_STATE_HEADER + 8 * nv + rc_sim_num_edges(s) + 1] = 1e300;
    CHECK_OK(rc_sim_load_state(s, bad));
    CHECKF(s->kappa <= 100.0 * rc__sim_kappa_min(s), "kappa %g after loading 1e300 (cap %g)", s->kappa, 100.0 * rc__sim_kappa_min(s));
    CHECK_OK(rc_sim_load_state(s, state));
    CHECK_OK(rc_sim_step(s, NULL));
    /* (7), from the state saved at the start */
    CHECK_OK(rc_sim_load_state(s, state));
    memcpy(bad, state, sizeof(double) * n);
    bad[RC_SIM_STATE_HEADER + 8 * nv + 5] += 1e12;
    st = rc_sim_load_state(s, bad);
    CHECKF(st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(s), "director angle of edge 5"), "phi 1e12: %s (%s)",
           rc_status_string(st), rc_sim_last_error(s));
    memcpy(bad, state, sizeof(double) * n);
    bad[2] += 1.0;
    st = rc_sim_load_state(s, bad);
    {
        char want[64];
        snprintf(want, sizeof want, "%.6g doubles in all; this one has", (double)n + 1.0);
        CHECKF(st == RC_ERR_INVALID_ARGUMENT && strstr(rc_sim_last_error(s), want), "size + 1: %s (%s)", rc_status_string(st), rc_sim_last_error(s));
    }
    CHECK_OK(rc_sim_save_state(s, bad));   /* refused: unchanged */
    CHECK(memcmp(bad, state, sizeof(double) * n) == 0);
    memcpy(bad, state, sizeof(double) * n);
    bad[RC_SIM_STATE_HEADER + 8 * nv + 5] += 9e3;   /* within the bound: loads */
    CHECK_OK(rc_sim_load_state(s, bad));
    free(state); free(bad);
    rc_sim_destroy(s); rc_sim_destroy(s2);
}

static void suite_adaptive(void)
{
    RUN(test_adaptive_flat_unloaded_keeps_u);
    RUN(test_adaptive_rigid_motion_no_drift);
    RUN(test_adaptive_rigid_rotation_keeps_u);
    RUN(test_adaptive_tilted_gravity_keeps_u);
    RUN(test_adaptive_spinning_support_keeps_u);
    RUN(test_adaptive_turning_ridge_keeps_u);
    RUN(test_adaptive_rest_on_sphere_keeps_u);
    RUN(test_adaptive_rest_on_mesh_floor_keeps_u);
    RUN(test_adaptive_free_flight_matches_fixed);
    RUN(test_adaptive_invariants_hanging);
    RUN(test_adaptive_step_ip_below_fixed);
    RUN(test_adaptive_cube_ip_below_fixed);
    RUN(test_adaptive_scene_ip_below_fixed);
    RUN(test_adaptive_didactic_drape_ablation);
    RUN(test_adaptive_static_friction_converges);
    RUN(test_adaptive_schedule_cache_agree);
    RUN(test_adaptive_schedule_cache_agree_trajectory);
    RUN(test_adaptive_inner_decrement_floor);
    RUN(test_adaptive_cache_top_tenth_refreshed);
    RUN(test_adaptive_strict_every_k);
    RUN(test_adaptive_projected_and_pcg_outer);
    RUN(test_adaptive_rest_on_plane_keeps_u);
    RUN(test_adaptive_regulariser_ablation);
    RUN(test_adaptive_inversion_bound);
    RUN(test_adaptive_regulariser_assembled_fd);
    RUN(test_adaptive_iterates_monotone);
    RUN(test_adaptive_regulariser_graded_mesh);
    RUN(test_adaptive_regulariser_long_step);
    RUN(test_adaptive_no_regulariser_collapse_bounded);
    RUN(test_adaptive_collapse_does_not_grind);
    RUN(test_adaptive_huge_kept_shift);
    RUN(test_adaptive_converged_step_below_start_energy);
    RUN(test_adaptive_time_unit_similarity);
    RUN(test_adaptive_state_replay);
    RUN(test_adaptive_set_def_matches_new_sim);
    RUN(test_adaptive_set_def_static_ramp);
    RUN(test_adaptive_huge_velocity_state_loads);
    RUN(test_adaptive_state_load_refuses);
    RUN(test_adaptive_travel_term_fd);
    RUN(test_adaptive_slide_damping_flap);
    RUN(test_adaptive_swing_no_energy_gain);
    RUN(test_adaptive_small_dt_no_energy_gain);
}
