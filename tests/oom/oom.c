/* tests/oom/oom.c - allocation-failure test (issue 8). Every allocation of the library goes through
   a counting allocator that fails the n-th call (mode "once": only that one; mode "from": that one
   and every later one). For every n up to the number of allocations each scenario makes, the
   scenario must see only RC_OK or RC_ERR_OUT_OF_MEMORY, must not crash (run under ASan by
   `make oom`), and must leave zero outstanding allocations when it has freed what it owns.
   A sim that saw an allocation failure must still work once memory is back.
   Usage: oom [scenario-substring [max-n]]   exit status 0 when every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long oom_calls;        /* allocations attempted (malloc + realloc) */
static long oom_fail_at;      /* 1-based index of the first failing call; 0 = never fail */
static int oom_persistent;    /* 1: every call from oom_fail_at on fails */
static long oom_live;         /* outstanding blocks */
static long oom_failed;       /* failures injected in this run */

static int oom_should_fail(void)
{
    ++oom_calls;
    if (oom_fail_at <= 0) return 0;
    if (oom_calls == oom_fail_at || (oom_persistent && oom_calls > oom_fail_at)) { ++oom_failed; return 1; }
    return 0;
}
static void *oom_malloc(size_t n)
{
    void *p;
    if (oom_should_fail()) return NULL;
    p = malloc(n);
    if (p) ++oom_live;
    return p;
}
static void *oom_realloc(void *q, size_t n)
{
    void *p;
    if (oom_should_fail()) return NULL;
    p = realloc(q, n);
    if (p && !q) ++oom_live;
    return p;
}
static void oom_free(void *p)
{
    if (p) { --oom_live; free(p); }
}

#define RCLOTH_MALLOC(size, user) ((void)(user), oom_malloc(size))
#define RCLOTH_REALLOC(ptr, size, user) ((void)(user), oom_realloc((ptr), (size)))
#define RCLOTH_FREE(ptr, user) ((void)(user), oom_free(ptr))
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"

static int oom_errors;
static const char *oom_scene;

#define OOM_CHECK(cond, ...) do { if (!(cond)) { ++oom_errors; \
    printf("  FAIL %s n=%ld (%s) line %d: %s: ", oom_scene, oom_fail_at, oom_persistent ? "from" : "once", __LINE__, #cond); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)

/* a status a call may return under allocation failure */
#define OOM_ST(expr) do { rc_status oom__s = (expr); \
    OOM_CHECK(oom__s == RC_OK || oom__s == RC_ERR_OUT_OF_MEMORY, "%s -> %s", #expr, rc_status_string(oom__s)); \
    if (oom__s != RC_OK) goto done; } while (0)

/* ---- scenarios: each returns after freeing everything it allocated ---- */

static void sc_sparse(void)
{
    /* 2D Laplacian + I on a 10x10 grid: 100 unknowns, upper CSC (big enough for the factor's
       tree split, whose allocations are then failed too) */
    enum { G = 10, N = G * G };
    int colptr[N + 1], rowind[3 * N], bp[N / 4 + 2], j, nnz = 0, nb = 0;
    double val[3 * N], b[N], x[N];
    rc_ldlt *f = NULL;
    for (j = 0; j < N; ++j) {
        colptr[j] = nnz;
        if (j % G) { rowind[nnz] = j - 1; val[nnz++] = -1; }
        if (j >= G) { rowind[nnz] = j - G; val[nnz++] = -1; }
        rowind[nnz] = j; val[nnz++] = 5;
        b[j] = 1.0 + j % 3; x[j] = 0;
    }
    colptr[N] = nnz;
    for (j = 0; j <= N; j += 4) bp[nb++] = j;
    if (bp[nb - 1] != N) bp[nb++] = N;
    OOM_ST(rc_ldlt_analyze(&f, N, colptr, rowind));
    OOM_CHECK(f != NULL, "analyze OK but no factor");
    OOM_CHECK(f->sgroup != NULL, "no tree split: the scenario no longer fails its allocations");
    OOM_ST(rc_ldlt_factor(f, val));
    OOM_ST(rc_ldlt_solve(f, b));
    OOM_ST(rc_ldlt_solve_refined(f, val, b, 2));
    OOM_ST(rc_pcg_solve(N, colptr, rowind, val, bp, nb - 1, b, x, 1e-10, 200, NULL, NULL));
    OOM_ST(rc_pcg_solve(N, colptr, rowind, val, NULL, 0, b, x, 1e-10, 200, NULL, NULL));
done:
    rc_ldlt_destroy(f);
}

static void sc_generators(void)
{
    rc_mesh m;
    memset(&m, 0, sizeof m);
    OOM_ST(rc_mesh_grid(&m, 1, 1, 4, 3, RC_DIAG_RANDOM + 3)); rc_mesh_free(&m);
    OOM_ST(rc_mesh_square(&m, 1, 30, 7)); rc_mesh_free(&m);
    OOM_ST(rc_mesh_disk(&m, 1, 40)); rc_mesh_free(&m);
    OOM_ST(rc_mesh_annulus(&m, 0.5, 1, 40, 0)); rc_mesh_free(&m);
    OOM_ST(rc_mesh_annulus(&m, 0.5, 1, 40, 1)); rc_mesh_free(&m);
done:
    rc_mesh_free(&m);
}

static const char *oom_obj_path = "build/oom_tmp.obj";

static void sc_obj(void)
{
    rc_mesh m;
    rc_obj_map map;
    int flipped;
    char msg[64];
    memset(&m, 0, sizeof m);
    memset(&map, 0, sizeof map);
    OOM_ST(rc_mesh_read_obj(&m, oom_obj_path));
    {
        rc_status st = rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, msg, (int)sizeof msg);
        OOM_CHECK(st == RC_OK || st == RC_ERR_OUT_OF_MEMORY, "validate -> %s", rc_status_string(st));
    }
    rc_mesh_free(&m);
    /* with the source map (three more arrays); an error leaves both zeroed */
    {
        rc_status st = rc_mesh_read_obj_map(&m, &map, oom_obj_path, msg, (int)sizeof msg);
        OOM_CHECK(st == RC_OK || st == RC_ERR_OUT_OF_MEMORY, "rc_mesh_read_obj_map -> %s", rc_status_string(st));
        OOM_CHECK(st == RC_OK || (m.tris == NULL && m.num_verts == 0 && map.vertex_source == NULL && map.tri_line == NULL &&
                                  map.tri_face == NULL && map.num_verts == 0), "rc_mesh_read_obj_map failed without zeroing");
        if (st != RC_OK) goto done;
    }
    OOM_CHECK(map.num_verts == m.num_verts && map.num_tris == m.num_tris, "map %d/%d, mesh %d/%d", map.num_verts, map.num_tris,
              m.num_verts, m.num_tris);
    OOM_ST(rc_mesh_remove_unreferenced_map(&m, &map, NULL));
done:
    rc_mesh_free(&m);
    rc_obj_map_free(&map);
}

static void sc_energy(void)
{
    static const int tris[18] = { 0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4, 3, 4, 7, 3, 7, 6 };
    double u[16], x[24], gx[24], gu[16], S, B, E;
    rc_trimesh m;
    rc_material mat = rc_material_cotton();
    int i, ne;
    for (i = 0; i < 8; ++i) {
        u[2 * i] = 0.1 * (i % 3); u[2 * i + 1] = 0.1 * (i / 3);
        x[3 * i] = u[2 * i]; x[3 * i + 1] = u[2 * i + 1]; x[3 * i + 2] = 0.01 * (i % 2);
    }
    m.num_verts = 8; m.num_tris = 6; m.tris = tris;
    ne = rc_trimesh_num_edges(&m);
    OOM_CHECK(ne == 13 || ne == -1, "num_edges %d", ne);
    OOM_ST(rc_shell_energy(&m, x, u, NULL, &mat, &S, &B, gx, gu));
    OOM_ST(rc_mips_energy(&m, u, u, 2.5, &E, gu));
done:;
}

/* the scene: a sim with a sphere and pins, a few steps, then a static solve. A failed call
   must leave the sim usable: once allocation works again, the next step must succeed. Steps that
   all returned RC_OK must have taken the reference run's trajectory to the bit: an allocation that
   failed inside a step once made it split into half steps, which got the memory back and returned
   RC_OK on another trajectory (a probe, session 62). */
static void sc_sim_common(int adaptive)
{
    static double ref_x[2][3 * 9];   /* per mode: the positions after the steps without any failure */
    rc_mesh g;
    rc_sim_def d;
    rc_sim *s = NULL;
    double c[3] = { 0.15, 0.15, 0.3 }, mv[3] = { 0, 0, 0.02 };
    int i, k, id = -1;
    rc_status st;
    memset(&g, 0, sizeof g);
    OOM_ST(rc_mesh_grid(&g, 0.3, 0.3, 3, 3, RC_DIAG_ALTERNATING));
    for (i = 0; i < g.num_verts; ++i) g.pos[3 * i + 2] = 0.5;
    d = rc_default_sim_def();
    d.mesh = rc_mesh_describe(&g);
    d.dt = 0.02;
    d.adaptive = adaptive;
    d.itr_max_outer = 5;   /* the r-ITR loop, not its length, is what is tested here */
    d.tol = 1e-2;          /* a loose tolerance keeps the static solve to a few pseudo steps */
    d.static_load_steps = 2;   /* its buffers and the memory of its equilibrium are allocated too */
    OOM_ST(rc_sim_create(&d, &s));
    OOM_ST(rc_sim_add_sphere(s, c, 0.1, &id));
    OOM_ST(rc_sim_add_plane(s, mv, mv, NULL));
    OOM_ST(rc_sim_pin(s, 0, g.pos));
    OOM_ST(rc_sim_pin(s, 2, g.pos + 6));
    for (k = 0; k < 3; ++k) {
        OOM_ST(rc_sim_move_obstacle(s, id, mv, NULL));
        st = rc_sim_step(s, NULL);
        OOM_CHECK(st == RC_OK || st == RC_ERR_OUT_OF_MEMORY, "step -> %s (%s)", rc_status_string(st), rc_sim_last_error(s));
        if (st == RC_ERR_OUT_OF_MEMORY) {
            long save = oom_fail_at;
            OOM_CHECK(rc_sim_last_error(s)[0] != 0, "no message after OOM");
            oom_fail_at = 0;                 /* memory is back: the sim must still work */
            st = rc_sim_step(s, NULL);
            OOM_CHECK(st == RC_OK, "step after OOM -> %s (%s)", rc_status_string(st), rc_sim_last_error(s));
            oom_fail_at = save;
            goto done;
        }
        for (i = 0; i < 3 * g.num_verts; ++i) OOM_CHECK(rc__isfinite(rc_sim_positions(s)[i]), "NaN after step");
    }
    if (oom_fail_at == 0) memcpy(ref_x[adaptive], rc_sim_positions(s), sizeof ref_x[0]);
    else
        for (i = 0; i < 3 * g.num_verts; ++i)
            OOM_CHECK(rc_sim_positions(s)[i] == ref_x[adaptive][i], "coordinate %d after RC_OK steps: %.17g, without the failure %.17g", i,
                      rc_sim_positions(s)[i], ref_x[adaptive][i]);
    /* adaptive statics runs hundreds of r-ITR pseudo steps on this scene (seconds per run):
       statics is covered in fixed mode, the adaptive allocations by the steps */
    if (!adaptive) OOM_ST(rc_sim_solve_static(s, NULL));
    OOM_ST(rc_sim_write_reference_obj(s, "build/oom_ref.obj"));
done:
    rc_sim_destroy(s);
    rc_mesh_free(&g);
}
/* the later features: two stitched panels (seam), a material handle, a triangle-mesh obstacle
   and cloth self-contact, three steps */
/* one step under the failing allocator: RC_OK or RC_ERR_OUT_OF_MEMORY (with a message), and after
   an OOM the same sim steps once memory is back; positions finite. Returns 0 after an OOM. */
static int oom_step(rc_sim *s)
{
    int i;
    rc_status st = rc_sim_step(s, NULL);
    OOM_CHECK(st == RC_OK || st == RC_ERR_OUT_OF_MEMORY, "step -> %s (%s)", rc_status_string(st), rc_sim_last_error(s));
    if (st == RC_ERR_OUT_OF_MEMORY) {
        long save = oom_fail_at;
        OOM_CHECK(rc_sim_last_error(s)[0] != 0, "no message after OOM");
        oom_fail_at = 0;
        st = rc_sim_step(s, NULL);
        OOM_CHECK(st == RC_OK, "step after OOM -> %s (%s)", rc_status_string(st), rc_sim_last_error(s));
        oom_fail_at = save;
        return 0;
    }
    for (i = 0; i < 3 * rc_sim_num_verts(s); ++i) OOM_CHECK(rc__isfinite(rc_sim_positions(s)[i]), "NaN after step");
    return 1;
}

/* The default def on np panels of 3 x 3 vertices (0.2 m square, two triangles per cell): panel p's
   reference at uv x offset 0.3 p (disconnected charts), its world positions at off[3 p ..] + (u, v,
   0); 5 outer iterations at most (the r-ITR loop, not its length, is what is tested) */
static rc_sim_def oom_panels(int np, const double *off, double *uv, double *pos, int *tris)
{
    rc_sim_def d = rc_default_sim_def();
    int p, i, j, nt = 0;
    for (p = 0; p < np; ++p)
        for (j = 0; j < 3; ++j)
            for (i = 0; i < 3; ++i) {
                int v = 9 * p + 3 * j + i;
                uv[2 * v] = 0.3 * p + 0.1 * i; uv[2 * v + 1] = 0.1 * j;
                pos[3 * v] = off[3 * p] + 0.1 * i; pos[3 * v + 1] = off[3 * p + 1] + 0.1 * j; pos[3 * v + 2] = off[3 * p + 2];
                if (i < 2 && j < 2) {
                    tris[3 * nt] = v; tris[3 * nt + 1] = v + 1; tris[3 * nt + 2] = v + 4; nt++;
                    tris[3 * nt] = v; tris[3 * nt + 1] = v + 4; tris[3 * nt + 2] = v + 3; nt++;
                }
            }
    d.mesh.num_verts = 9 * np; d.mesh.num_tris = nt; d.mesh.ref_uv = uv; d.mesh.pos = pos; d.mesh.tris = tris;
    d.itr_max_outer = 5;
    return d;
}

static void sc_features_common(int adaptive)
{
    static const double tet_v[12] = { 0.15, 0.15, 0.35, 0.35, 0.15, 0.2, 0.15, 0.35, 0.2, -0.05, 0.05, 0.2 };
    static const int tet_t[12] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
    double uv[36], pos[54], huv[2] = { 0.1, 0.1 }, target[3] = { 0.1, 0.1, 0.55 };
    /* two panels, panel 1 shifted back by 0.1 m so its left column sits on panel 0's right column */
    static const double off[6] = { 0.0, 0.0, 0.5, 0.2, 0.0, 0.5 };
    int tris[48], side_a[3], side_b[3], j, k, id = -1;
    rc_sim_def d;
    rc_sim *s = NULL;
    rc_status st;
    d = oom_panels(2, off, uv, pos, tris);
    for (j = 0; j < 3; ++j) { side_a[j] = 3 * j + 2; side_b[j] = 9 + 3 * j; }
    d.dt = 0.02;
    d.adaptive = adaptive;
    d.self_contact = 1;
    d.tol = 1e-2;
    OOM_ST(rc_sim_create(&d, &s));
    OOM_ST(rc_sim_add_seam(s, 3, side_a, side_b, 1e3));
    OOM_ST(rc_sim_add_material_handle(s, huv, target, 10.0, &id));
    st = rc_sim_add_trimesh(s, 4, tet_v, 4, tet_t, NULL);
    OOM_CHECK(st == RC_OK || st == RC_ERR_OUT_OF_MEMORY, "add_trimesh -> %s", rc_status_string(st));
    if (st != RC_OK) {
        /* a retry after the failure must give a working sim (a scratch buffer allocated and its
           sibling not once left the retry with a NULL buffer: a crash in the next step) */
        long save = oom_fail_at;
        oom_fail_at = 0;
        st = rc_sim_add_trimesh(s, 4, tet_v, 4, tet_t, NULL);
        OOM_CHECK(st == RC_OK, "add_trimesh retried -> %s", rc_status_string(st));
        st = rc_sim_step(s, NULL);
        OOM_CHECK(st == RC_OK, "step after a retried add_trimesh -> %s (%s)", rc_status_string(st), rc_sim_last_error(s));
        oom_fail_at = save;
        goto done;
    }
    for (k = 0; k < 3; ++k)
        if (!oom_step(s)) break;
    if (k == 3) {   /* three RC_OK steps: the reference run's trajectory to the bit (as in sc_sim_common) */
        static double ref_x[2][3 * 18];
        if (oom_fail_at == 0) memcpy(ref_x[adaptive], rc_sim_positions(s), sizeof ref_x[0]);
        else
            for (j = 0; j < 3 * 18; ++j)
                OOM_CHECK(rc_sim_positions(s)[j] == ref_x[adaptive][j], "coordinate %d after RC_OK steps: %.17g, without the failure %.17g",
                          j, rc_sim_positions(s)[j], ref_x[adaptive][j]);
    }
done:
    rc_sim_destroy(s);
}
/* two plate meshes side by side rising under a small sheet: each carries the cloth over it, so a
   step runs the mesh carry and the check of carried cloth against the other moving mesh
   (rc__sim_carry_pinched) */
static void sc_two_plates(void)
{
    static const int pt[6] = { 0, 1, 2, 0, 2, 3 };
    double A[12] = { -0.05, -0.05, 0.005, 0.099, -0.05, 0.005, 0.099, 0.25, 0.005, -0.05, 0.25, 0.005 };
    double B[12] = { 0.101, -0.05, 0.005, 0.25, -0.05, 0.005, 0.25, 0.25, 0.005, 0.101, 0.25, 0.005 };
    static const double off[3] = { 0.0, 0.0, 0.02 };
    double uv[18], pos[27];
    int tris[24], i, k, ida = -1, idb = -1;
    rc_sim_def d;
    rc_sim *s = NULL;
    d = oom_panels(1, off, uv, pos, tris);
    d.gravity[2] = 0.0;
    OOM_ST(rc_sim_create(&d, &s));
    OOM_ST(rc_sim_add_trimesh(s, 4, A, 2, pt, &ida));
    OOM_ST(rc_sim_add_trimesh(s, 4, B, 2, pt, &idb));
    for (k = 0; k < 2; ++k) {
        for (i = 0; i < 4; ++i) { A[3 * i + 2] += 0.012; B[3 * i + 2] += 0.012; }
        OOM_ST(rc_sim_set_obstacle_vertices(s, ida, A));
        OOM_ST(rc_sim_set_obstacle_vertices(s, idb, B));
        if (!oom_step(s)) break;
    }
done:
    rc_sim_destroy(s);
}
static void sc_features(void) { sc_features_common(0); }
static void sc_features_adaptive(void) { sc_features_common(1); }
static void sc_sim(void) { sc_sim_common(0); }
static void sc_sim_adaptive(void) { sc_sim_common(1); }

/* a pinned 2 x 2 cell sheet lowered to 0.5 mm over a free one (self contact): the step's start
   pushes the free sheet out of the pins' thickness (rc__sim_feature_push_out, its half-space
   buffers) */
static void sc_pin_press(void)
{
    static const double off[6] = { 0.0, 0.0, 0.0, 0.02, 0.02, 0.004 };
    double uv[36], pos[54];
    int tris[48], i, k;
    rc_sim_def d;
    rc_sim *s = NULL;
    d = oom_panels(2, off, uv, pos, tris);
    d.gravity[2] = 0.0;
    d.self_contact = 1;
    OOM_ST(rc_sim_create(&d, &s));
    for (k = 0; k < 2; ++k) {
        for (i = 9; i < 18; ++i) {
            double t[3];
            t[0] = pos[3 * i]; t[1] = pos[3 * i + 1]; t[2] = pos[3 * i + 2] - 0.0035 * (k + 1);
            OOM_ST(rc_sim_pin(s, i, t));
        }
        if (!oom_step(s)) break;
    }
done:
    rc_sim_destroy(s);
}

typedef struct { const char *name; void (*fn)(void); } oom_scenario;

int main(int argc, char **argv)
{
    static const oom_scenario scenes[] = {
        { "sparse", sc_sparse }, { "generators", sc_generators }, { "obj", sc_obj },
        { "energy", sc_energy }, { "sim", sc_sim }, { "sim_adaptive", sc_sim_adaptive },
        { "features", sc_features }, { "features_adaptive", sc_features_adaptive }, { "two_plates", sc_two_plates },
        { "pin_press", sc_pin_press },
    };
    size_t i;
    FILE *fp;
    /* an OBJ with vt, a quad and a vertex used with two vt (duplicated by the reader) */
    fp = fopen(oom_obj_path, "wb");
    if (!fp) { printf("cannot write %s\n", oom_obj_path); return 1; }
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nv 5 5 5\n"
          "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 2 0\nvt 2 1\nvt 1.01 0\n"
          "f 1/1 2/2 3/3 4/4\nf 2/7 5/5 6/6\nf 2/7 6/6 3/3\n", fp);
    fclose(fp);
    for (i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        long total, n, oom_ref_calls;
        int mode, before = oom_errors;
        if (argc > 1 && !strstr(scenes[i].name, argv[1])) continue;
        oom_scene = scenes[i].name;
        /* reference run: no failure; count the allocations */
        oom_calls = 0; oom_fail_at = 0; oom_live = 0;
        scenes[i].fn();
        total = oom_ref_calls = oom_calls;
        if (argc > 2 && atol(argv[2]) < total) total = atol(argv[2]);
        OOM_CHECK(oom_live == 0, "%ld blocks leaked without any failure", oom_live);
        for (mode = 0; mode < 2; ++mode)
            for (n = 1; n <= total; ++n) {
                oom_calls = 0; oom_fail_at = n; oom_persistent = mode; oom_live = 0; oom_failed = 0;
                scenes[i].fn();
                OOM_CHECK(oom_live == 0, "%ld blocks leaked", oom_live);
                OOM_CHECK(oom_failed > 0, "the failure was not reached (%ld calls)", oom_calls);
            }
        printf("%-13s %4ld allocations, %ld failure points x 2 modes: %s\n", scenes[i].name, oom_ref_calls, total,
               oom_errors == before ? "ok" : "FAILED");
        fflush(stdout);
    }
    remove(oom_obj_path);
    remove("build/oom_ref.obj");
    printf(oom_errors ? "oom: %d failures\n" : "oom: all passed\n", oom_errors);
    return oom_errors ? 1 : 0;
}
