/* tests/test_io.c - the example pipeline (examples/common: scenes, curvature, demo runner) run
   through its functions at tiny size, and the mean-curvature estimator on exact surfaces.
   picture.c is #included later in this translation unit by test_pictures.c; demo.c only needs
   the declarations from picture.h here. */
#include "test.h"
#include "../examples/common/scenes.c"
#include "../examples/common/curvature.c"
#include "../examples/common/demo.c"

/* ---------------------------------------------------------------- meshes with known curvature */

/* Icosphere of radius R: icosahedron, each triangle split in four `levels` times, vertices pushed
   onto the sphere. Near-equilateral triangles everywhere (no poles), so the cotangent formula is
   accurate at every vertex. Edge midpoints are shared through a linear search (small meshes). */
static int t_io_midpoint(double *x, int *nv, int a, int b, int *edge_a, int *edge_b, int *edge_m, int *ne, double R)
{
    int k;
    double m[3], r;
    for (k = 0; k < *ne; k++)
        if ((edge_a[k] == a && edge_b[k] == b) || (edge_a[k] == b && edge_b[k] == a)) return edge_m[k];
    for (k = 0; k < 3; k++) m[k] = 0.5 * (x[3 * a + k] + x[3 * b + k]);
    r = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    for (k = 0; k < 3; k++) x[3 * *nv + k] = m[k] * R / r;
    edge_a[*ne] = a; edge_b[*ne] = b; edge_m[*ne] = *nv;
    (*ne)++;
    return (*nv)++;
}

static void t_io_icosphere(double R, int levels, double **xo, int *nvo, int **to, int *nto)
{
    static const int f0[20][3] = { { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 }, { 1, 5, 9 }, { 5, 11, 4 },
                                   { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 }, { 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 },
                                   { 3, 8, 9 }, { 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 } };
    double p = (1.0 + sqrt(5.0)) / 2.0;
    double v0[12][3] = { { -1, p, 0 }, { 1, p, 0 }, { -1, -p, 0 }, { 1, -p, 0 }, { 0, -1, p }, { 0, 1, p },
                         { 0, -1, -p }, { 0, 1, -p }, { p, 0, -1 }, { p, 0, 1 }, { -p, 0, -1 }, { -p, 0, 1 } };
    int nt = 20, nv = 12, maxt = 20, maxv, l, k, t;
    int *tris, *ea, *eb, *em;
    double *x;
    for (l = 0; l < levels; l++) maxt *= 4;
    maxv = maxt / 2 + 2;
    x = (double *)malloc((size_t)3 * maxv * sizeof(double));
    tris = (int *)malloc((size_t)3 * maxt * sizeof(int));
    ea = (int *)malloc((size_t)3 * maxt * sizeof(int));
    eb = (int *)malloc((size_t)3 * maxt * sizeof(int));
    em = (int *)malloc((size_t)3 * maxt * sizeof(int));
    for (k = 0; k < 12; k++) {
        double r = sqrt(v0[k][0] * v0[k][0] + v0[k][1] * v0[k][1] + v0[k][2] * v0[k][2]);
        x[3 * k] = v0[k][0] * R / r; x[3 * k + 1] = v0[k][1] * R / r; x[3 * k + 2] = v0[k][2] * R / r;
    }
    for (t = 0; t < 20; t++) for (k = 0; k < 3; k++) tris[3 * t + k] = f0[t][k];
    for (l = 0; l < levels; l++) {
        int *nt2 = (int *)malloc((size_t)12 * nt * sizeof(int)), ne = 0;
        for (t = 0; t < nt; t++) {
            int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
            int ab = t_io_midpoint(x, &nv, a, b, ea, eb, em, &ne, R);
            int bc = t_io_midpoint(x, &nv, b, c, ea, eb, em, &ne, R);
            int ca = t_io_midpoint(x, &nv, c, a, ea, eb, em, &ne, R);
            int q[12];
            q[0] = a; q[1] = ab; q[2] = ca; q[3] = b; q[4] = bc; q[5] = ab;
            q[6] = c; q[7] = ca; q[8] = bc; q[9] = ab; q[10] = bc; q[11] = ca;
            memcpy(nt2 + 12 * t, q, sizeof q);
        }
        memcpy(tris, nt2, (size_t)12 * nt * sizeof(int));
        free(nt2);
        nt *= 4;
    }
    free(ea); free(eb); free(em);
    *xo = x; *nvo = nv; *to = tris; *nto = nt;
}

static void test_io_curvature_sphere(void)
{
    /* level 3: 642 vertices, edge ~ R/10. The cotangent estimate on a near-uniform sphere mesh
       is accurate to O(h^2) ~ 1e-3 relative; 1 % per vertex leaves a 10x margin and still fails
       for a factor-2 error (e.g. reporting |Delta x| instead of |Delta x|/2) or a wrong area. */
    const double R = 0.37;
    double *x, *H, sum = 0.0, worst = 0.0;
    int *tris, nv, nt, i, n = 0;
    t_io_icosphere(R, 3, &x, &nv, &tris, &nt);
    CHECK(nv == 642 && nt == 1280);
    H = (double *)malloc((size_t)nv * sizeof(double));
    CHECK(curv_mean_curvature(nv, x, nt, tris, H) == 0);
    for (i = 0; i < nv; i++) {
        double e = fabs(H[i] * R - 1.0);
        if (!(e <= worst)) worst = e;   /* NaN makes worst NaN and fails below */
        sum += H[i]; n++;
    }
    CHECKF(worst < 0.01, "worst relative error %g", worst);
    CHECK_NEAR(sum / n, 1.0 / R, 0.002 / R);
    free(x); free(tris); free(H);
}

static void test_io_curvature_plane(void)
{
    /* a jittered Delaunay square, flat, then rigidly rotated: H = 0 at interior vertices up to
       round-off (the Laplacian of a linear function vanishes exactly with cotangent weights),
       NaN on the boundary */
    rc_mesh m;
    double *x, *H, c = cos(0.7), s = sin(0.7), worst = 0.0;
    int i, nb = 0, ni = 0;
    CHECK_OK(rc_mesh_square(&m, 1.0, 150, 3u));
    x = (double *)calloc((size_t)3 * m.num_verts, sizeof(double));
    H = (double *)malloc((size_t)m.num_verts * sizeof(double));
    for (i = 0; i < m.num_verts; i++) {
        double u = m.ref_uv[2 * i], v = m.ref_uv[2 * i + 1];
        x[3 * i] = u; x[3 * i + 1] = c * v; x[3 * i + 2] = s * v + 0.3;   /* rotated about the x axis */
    }
    CHECK(curv_mean_curvature(m.num_verts, x, m.num_tris, m.tris, H) == 0);
    for (i = 0; i < m.num_verts; i++) {
        double u = m.ref_uv[2 * i], v = m.ref_uv[2 * i + 1];
        int on_boundary = u < 1e-12 || v < 1e-12 || u > 1.0 - 1e-12 || v > 1.0 - 1e-12;
        if (on_boundary) { CHECK(H[i] != H[i]); nb++; }
        else { if (!(fabs(H[i]) <= worst)) worst = fabs(H[i]); ni++; }
    }
    CHECK(nb > 0 && ni > 0);
    CHECKF(worst < 1e-9, "max |H| on a plane %g", worst);
    CHECK(curv_log_h2(m.num_verts, H, x) == 0 || worst > 0.0);   /* H = 0 exactly gives no log sample */
    CHECK(curv_mean_curvature(0, x, m.num_tris, m.tris, H) == -1);
    free(x); free(H);
    rc_mesh_free(&m);
}

static void test_io_curvature_cylinder(void)
{
    /* a cylinder of radius R has H = 1/(2R) (one principal curvature 1/R, the other 0): a second
       exact case, which catches an estimator returning the Gaussian or the max curvature */
    rc_mesh m;
    const double R = 0.2;
    double *x, *H, worst = 0.0;
    int i, n = 0;
    CHECK_OK(rc_mesh_grid(&m, 1.0, 0.5, 81, 21, RC_DIAG_ALTERNATING));
    x = (double *)calloc((size_t)3 * m.num_verts, sizeof(double));
    H = (double *)malloc((size_t)m.num_verts * sizeof(double));
    /* wrap u in [0, 1] onto 3/4 of the circle (an open sheet, so the boundary stays a boundary) */
    for (i = 0; i < m.num_verts; i++) {
        double a = 1.5 * 3.14159265358979323846 * m.ref_uv[2 * i];
        x[3 * i] = R * cos(a); x[3 * i + 1] = R * sin(a); x[3 * i + 2] = m.ref_uv[2 * i + 1];
    }
    CHECK(curv_mean_curvature(m.num_verts, x, m.num_tris, m.tris, H) == 0);
    for (i = 0; i < m.num_verts; i++)
        if (H[i] == H[i]) { double e = fabs(H[i] * 2.0 * R - 1.0); if (!(e <= worst)) worst = e; n++; }
    CHECK(n == 79 * 19);
    /* angular spacing 0.06 rad: chord error O(h^2) ~ 1e-3; 1 % bound */
    CHECKF(worst < 0.01, "cylinder worst relative error %g", worst);
    free(x); free(H);
    rc_mesh_free(&m);
}

/* ---------------------------------------------------------------- quality measure */

static void test_io_mips(void)
{
    /* MIPS >= 2 with equality for similarities of the reference (rotation + uniform scale) */
    const int tri[3] = { 0, 1, 2 };
    const double u0[6] = { 0.0, 0.0, 1.0, 0.2, 0.3, 0.9 };
    double u[6], q, ar;
    int i;
    double c = cos(1.1) * 2.5, s = sin(1.1) * 2.5;
    for (i = 0; i < 3; i++) { u[2 * i] = c * u0[2 * i] - s * u0[2 * i + 1] + 4.0; u[2 * i + 1] = s * u0[2 * i] + c * u0[2 * i + 1]; }
    dm_mips(1, tri, u0, u, &q, &ar);
    CHECK_NEAR(q, 2.0, 1e-12);
    CHECK_NEAR(ar, 2.5 * 2.5, 1e-12);   /* the area ratio, det J */
    /* stretch by 2 along x: J = diag(2, 1): (4 + 1) / 2 = 2.5 */
    for (i = 0; i < 3; i++) { u[2 * i] = 2.0 * u0[2 * i]; u[2 * i + 1] = u0[2 * i + 1]; }
    dm_mips(1, tri, u0, u, &q, &ar);
    CHECK_NEAR(q, 2.5, 1e-12);
    CHECK_NEAR(ar, 2.0, 1e-12);
    /* mirrored: inverted */
    for (i = 0; i < 3; i++) { u[2 * i] = -u0[2 * i]; u[2 * i + 1] = u0[2 * i + 1]; }
    dm_mips(1, tri, u0, u, &q, &ar);
    CHECK(q == HUGE_VAL);
    CHECK_NEAR(ar, -1.0, 1e-12);
    dm_mips(1, tri, u0, u, &q, NULL);   /* the ratio is optional */
    CHECK(q == HUGE_VAL);
}

/* ---------------------------------------------------------------- scenes */

static void test_io_scenes_build_and_step(void)
{
    /* every scene builds at a small size in both modes and takes one step with finite positions */
    int i, mode;
    CHECK(sc_find_scene("no_such_scene") == NULL);
    CHECK(sc_num_scenes() >= 6);
    for (i = 0; i < sc_num_scenes(); i++) {
        const sc_info *info = sc_scene_at(i);
        CHECK(sc_find_scene(info->name) == info);
        for (mode = 0; mode < 2; mode++) {
            sc_params p = sc_default_params();
            sc_scene sc;
            rc_step_stats st;
            rc_status r;
            p.verts = 25; p.adaptive = mode; p.threads = 1;
            r = sc_create(&sc, info, &p);
            CHECKF(r == RC_OK, "%s mode %d: %s", info->name, mode, rc_status_string(r));
            if (r != RC_OK) continue;
            CHECK(sc.def.adaptive == mode);
            CHECK(rc_sim_num_verts(sc.sim) == sc.mesh.num_verts);
            r = sc_step(&sc, &st);
            CHECKF(r == RC_OK, "%s mode %d step: %s %s", info->name, mode, rc_status_string(r), rc_sim_last_error(sc.sim));
            CHECK(rc__all_finite(rc_sim_positions(sc.sim), (size_t)3 * rc_sim_num_verts(sc.sim)));
            CHECK_NEAR(sc.time, sc.def.dt, 1e-15);
            sc_destroy(&sc);
        }
    }
}

/* ---------------------------------------------------------------- the demo pipeline */

static int t_io_file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return (int)n;
}

static void test_io_demo_pipeline(void)
{
    /* the `make demo` pipeline at tiny size: 36 vertices (rc_mesh_square gives exactly (m+1)^2
       = 36 for a target of 36), 2 frames, both runs; every output exists and the OBJ frames read
       back with the right vertex count and finite coordinates */
    static const char *files[] = { "final.png", "reference.png", "energy.svg", "curvature.svg", "summary.txt" };
    dm_options o = dm_default_options();
    dm_result r;
    char path[256];
    int k, rc, v;
    o.scene = "sphere_drape"; o.verts = 36; o.frames = 2; o.outdir = "build/test_io_demo"; o.quiet = 1;
    o.panel_px = 200; o.threads = 1;
    rc = dm_run(&o, &r);
    CHECKF(rc == 0, "dm_run -> %d", rc);
    CHECK(r.nruns == 2);
    CHECK(!strcmp(r.run[0].label, "adaptive") && !strcmp(r.run[1].label, "fixed"));
    for (k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", o.outdir, files[k]);
        CHECKF(t_io_file_size(path) > 100, "%s", path);
    }
    for (k = 0; k < r.nruns; k++) {
        int f;
        CHECK(r.run[k].status == RC_OK);
        CHECK(r.run[k].nv == 36 && r.run[k].frames_done == 2);
        CHECK(rc__isfinite(r.run[k].ip) && rc__isfinite(r.run[k].potential));
        /* the cloth fell: gravity potential went down from m g h at h = 0.26 m */
        CHECK(r.run[k].potential < 0.15 * 9.81 * 0.26);
        for (f = 0; f <= 2; f++) {
            rc_mesh m;
            snprintf(path, sizeof path, "%s/%s/x_%04d.obj", o.outdir, r.run[k].label, f);
            CHECK_OK(rc_mesh_read_obj(&m, path));
            CHECK(m.num_verts == 36 && m.num_tris == r.run[k].nt);
            CHECK(rc__all_finite(m.pos, (size_t)3 * m.num_verts) && rc__all_finite(m.ref_uv, (size_t)2 * m.num_verts));
            rc_mesh_free(&m);
            snprintf(path, sizeof path, "%s/%s/u_%04d.obj", o.outdir, r.run[k].label, f);
            CHECK_OK(rc_mesh_read_obj(&m, path));
            CHECK(m.num_verts == 36);
            for (v = 0; v < m.num_verts; v++) CHECK(m.pos[3 * v + 2] == 0.0 && rc__isfinite(m.pos[3 * v]));
            rc_mesh_free(&m);
        }
    }
    for (k = 0; k < r.nruns; k++) {   /* 2 frames of 4 steps; the fixed reference mesh never changes */
        CHECK(r.run[k].steps_done == 8 && r.run[k].unconverged_steps >= 0 && r.run[k].unconverged_steps <= 8);
        CHECK(r.run[k].max_mips >= 2.0 - 1e-12 && r.run[k].max_mips < 3.5 && r.run[k].min_area_ratio > 0.0 &&
              r.run[k].min_area_ratio <= 1.0 + 1e-12);
        if (strcmp(r.run[k].label, "fixed") == 0) CHECK(r.run[k].max_mips == 2.0 && r.run[k].min_area_ratio == 1.0);
    }
    {   /* the reference OBJ says what its v holds */
        char line[200] = "";
        FILE *f;
        snprintf(path, sizeof path, "%s/adaptive/u_0001.obj", o.outdir);
        f = fopen(path, "r");
        CHECK(f != NULL);
        if (f) { CHECK(fgets(line, sizeof line, f) != NULL); fclose(f); }
        CHECKF(strstr(line, "reference mesh: v = (u, 0)") != NULL, "%s", line);
    }
    /* --steps: 5 steps are a frame of 4 and one of 1; the same folder again: frames past the new
       run's last (x_0002, u_0002 of the run above) are gone; a single variant; the regulariser
       off in the adaptive run */
    o.frames = 0; o.steps = 5; o.variant = "adaptive"; o.quality_weight = 0.0; o.pictures = 0;
    rc = dm_run(&o, &r);
    CHECKF(rc == 0, "dm_run -> %d", rc);
    CHECK(r.nruns == 1 && !strcmp(r.run[0].label, "adaptive") && r.run[0].steps_done == 5 && r.run[0].frames_done == 2);
    {   /* stale frames of any run of the scene, far past the last one too, go; other files stay */
        static const char *const made[3] = { "fixed/x_1500.obj", "adaptive/u_20000.obj", "adaptive/keep.txt" };
        for (k = 0; k < 3; k++) {
            FILE *f;
            snprintf(path, sizeof path, "%s/%s", o.outdir, made[k]);
            f = fopen(path, "w");
            CHECK(f != NULL);
            if (f) { fputs("stale\n", f); fclose(f); }
        }
    }
    o.steps = 3;
    rc = dm_run(&o, &r);
    snprintf(path, sizeof path, "%s/fixed/x_1500.obj", o.outdir);
    CHECK(t_io_file_size(path) < 0);
    snprintf(path, sizeof path, "%s/adaptive/u_20000.obj", o.outdir);
    CHECK(t_io_file_size(path) < 0);
    snprintf(path, sizeof path, "%s/adaptive/keep.txt", o.outdir);
    CHECK(t_io_file_size(path) == 6);
    CHECKF(rc == 0 && r.run[0].steps_done == 3 && r.run[0].frames_done == 1, "dm_run -> %d, %d steps", rc, r.run[0].steps_done);
    snprintf(path, sizeof path, "%s/adaptive/x_0001.obj", o.outdir);
    CHECK(t_io_file_size(path) > 100);
    snprintf(path, sizeof path, "%s/adaptive/x_0002.obj", o.outdir);
    CHECK(t_io_file_size(path) < 0);
    snprintf(path, sizeof path, "%s/adaptive/u_0002.obj", o.outdir);
    CHECK(t_io_file_size(path) < 0);
    /* bad options are refused before anything runs */
    o.variant = "no_such_run";
    CHECK(dm_run(&o, &r) == -1 && r.nruns == 0);
    o.variant = "fixed"; o.mode = DM_ADAPTIVE;
    CHECK(dm_run(&o, &r) == -1 && r.nruns == 0);
    o.variant = NULL; o.mode = DM_BOTH;
    o.scene = "no_such_scene";
    CHECK(dm_run(&o, &r) == -1 && r.nruns == 0);
    o.scene = "sphere_drape"; o.mode = 7;
    CHECK(dm_run(&o, &r) == -1);
    o.mode = DM_BOTH; o.steps = -1;
    CHECK(dm_run(&o, &r) == -1);
}

static void suite_io(void)
{
    RUN(test_io_curvature_sphere);
    RUN(test_io_curvature_plane);
    RUN(test_io_curvature_cylinder);
    RUN(test_io_mips);
    RUN(test_io_scenes_build_and_step);
    RUN(test_io_demo_pipeline);
}
