/* examples/common/scenes.c - the example scenes (see scenes.h). Each builder places a cloth mesh
   in the world, picks the material, creates the sim and adds obstacles and pins; the geometry is
   in metres, gravity is -z. */
#include "scenes.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define SC__PI 3.14159265358979323846

/* ---------------------------------------------------------------- helpers */

int sc_nearest_vertex(const rc_mesh *m, double u, double v)
{
    int i, best = 0;
    double bd = HUGE_VAL;
    for (i = 0; i < m->num_verts; i++) {
        double du = m->ref_uv[2 * i] - u, dv = m->ref_uv[2 * i + 1] - v, d = du * du + dv * dv;
        if (d < bd) { bd = d; best = i; }
    }
    return best;
}

/* Square cloth of side `size` (unstructured Delaunay, rc_mesh_square), reference uv centred at
   the origin, world positions = (u, v, height). */
static rc_status sc__square(sc_scene *sc, double size, int verts, double height)
{
    int i;
    rc_status st = rc_mesh_square(&sc->mesh, size, verts, 7u);
    if (st != RC_OK) return st;
    for (i = 0; i < sc->mesh.num_verts; i++) {
        sc->mesh.ref_uv[2 * i] -= 0.5 * size;
        sc->mesh.ref_uv[2 * i + 1] -= 0.5 * size;
        sc->mesh.pos[3 * i] = sc->mesh.ref_uv[2 * i];
        sc->mesh.pos[3 * i + 1] = sc->mesh.ref_uv[2 * i + 1];
        sc->mesh.pos[3 * i + 2] = height;
    }
    return RC_OK;
}

/* Fill the def from the params and the mesh, create the sim. */
static rc_status sc__create_sim(sc_scene *sc, const sc_params *p, double default_dt)
{
    sc->def.mesh = rc_mesh_describe(&sc->mesh);
    sc->def.dt = p->dt > 0.0 ? p->dt : default_dt;
    sc->def.adaptive = p->adaptive ? 1 : 0;
    sc->def.num_threads = p->threads >= 0 ? p->threads : 1;
    if (p->quality_weight >= 0.0) sc->def.quality_weight = p->quality_weight;
    if (p->travel_weight >= 0.0) sc->def.travel_weight = p->travel_weight;
    if (p->thickness > 0.0) sc->def.material.thickness = p->thickness;
    if (p->tol > 0.0) sc->def.tol = p->tol;
    return rc_sim_create(&sc->def, &sc->sim);
}

static rc_status sc__add(sc_scene *sc, int kind, const double *p, const double *q, double radius)
{
    sc_obstacle *o;
    rc_status st;
    if (sc->nobs >= SC_MAX_OBSTACLES) return RC_ERR_INVALID_ARGUMENT;
    o = &sc->obs[sc->nobs];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    memcpy(o->p, p, sizeof o->p);
    if (q) memcpy(o->q, q, sizeof o->q);
    o->radius = radius;
    switch (kind) {
    case SC_PLANE:   st = rc_sim_add_plane(sc->sim, p, q, &o->id); break;
    case SC_SPHERE:  st = rc_sim_add_sphere(sc->sim, p, radius, &o->id); break;
    case SC_BOX: {
        /* as a triangle mesh, which the scenes' figures were measured with (until session 34 an
           analytic box acted on cloth vertices only, and adaptive vertices slid off its edges;
           now its edges act on whole cloth triangles too) */
        static const int bt[36] = { 0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                    1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7 };
        double bv[24];
        int k;
        for (k = 0; k < 8; ++k) {
            bv[3 * k] = p[0] + ((k == 1 || k == 2 || k == 5 || k == 6) ? q[0] : -q[0]);
            bv[3 * k + 1] = p[1] + ((k == 2 || k == 3 || k == 6 || k == 7) ? q[1] : -q[1]);
            bv[3 * k + 2] = p[2] + (k >= 4 ? q[2] : -q[2]);
        }
        st = rc_sim_add_trimesh(sc->sim, 8, bv, 12, bt, &o->id);
        break;
    }
    default:         st = rc_sim_add_capsule(sc->sim, p, q, radius, &o->id); break;
    }
    if (st == RC_OK) sc->nobs++;
    return st;
}

static rc_status sc__alloc_pins(sc_scene *sc, int n)
{
    sc->pin_vertex = (int *)calloc((size_t)n, sizeof(int));
    sc->pin_rest = (double *)calloc((size_t)3 * n, sizeof(double));
    if (!sc->pin_vertex || !sc->pin_rest) return RC_ERR_OUT_OF_MEMORY;
    sc->npins = n;
    return RC_OK;
}

static rc_status sc__pin_all(sc_scene *sc)
{
    int k;
    for (k = 0; k < sc->npins; k++) {
        rc_status st = rc_sim_pin(sc->sim, sc->pin_vertex[k], sc->pin_rest + 3 * k);
        if (st != RC_OK) return st;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- sphere_drape (paper Fig. 1 right)
   A 1 m cotton square released 1 cm above a sphere of radius 0.25 m: it wraps the sphere and folds
   around it; the comparison is the fold shapes and their mean-curvature distribution. */
static rc_status sc__sphere_drape(sc_scene *sc, const sc_params *p)
{
    double c[3] = { 0.0, 0.0, 0.0 };
    rc_status st = sc__square(sc, 1.0, p->verts, 0.26);
    if (st == RC_OK) st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add(sc, SC_SPHERE, c, NULL, 0.25);
    return st;
}

/* ---------------------------------------------------------------- two_point_drape (Fig. 6, DESIGN §10)
   The §10 prototype sheet (0.8 m, E 1e5 Pa, tau 1 mm, rho 200): hanging vertically from its two
   top corners, which move from 0.8 m to 0.6 m apart during the first 0.5 s, so the sheet sags
   and buckles. A small out-of-plane bulge breaks the symmetry of the flat start. */
static rc_status sc__two_point_drape(sc_scene *sc, const sc_params *p)
{
    const double L = 0.8;
    int i;
    rc_status st = rc_mesh_square(&sc->mesh, L, p->verts, 7u);
    if (st != RC_OK) return st;
    for (i = 0; i < sc->mesh.num_verts; i++) {
        double u = sc->mesh.ref_uv[2 * i], v = sc->mesh.ref_uv[2 * i + 1];
        sc->mesh.pos[3 * i] = u - 0.5 * L;
        sc->mesh.pos[3 * i + 1] = 0.01 * sin(SC__PI * u / L) * (L - v) / L;
        sc->mesh.pos[3 * i + 2] = v - L;   /* top edge (v = L) at z = 0 */
    }
    sc->def.material = rc_material_proto();
    st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__alloc_pins(sc, 2);
    if (st != RC_OK) return st;
    sc->pin_vertex[0] = sc_nearest_vertex(&sc->mesh, 0.0, L);
    sc->pin_vertex[1] = sc_nearest_vertex(&sc->mesh, L, L);
    for (i = 0; i < 2; i++) memcpy(sc->pin_rest + 3 * i, sc->mesh.pos + 3 * sc->pin_vertex[i], 3 * sizeof(double));
    return sc__pin_all(sc);
}

static void sc__two_point_animate(sc_scene *sc, double t)
{
    /* corners move in x towards each other by 0.1 m each, smoothly (s = smoothstep) over 0.5 s */
    double a = t / 0.5, s, target[3];
    int k;
    if (a > 1.0) a = 1.0;
    s = a * a * (3.0 - 2.0 * a);
    for (k = 0; k < sc->npins; k++) {
        memcpy(target, sc->pin_rest + 3 * k, sizeof target);
        target[0] += (target[0] < 0.0 ? 0.1 : -0.1) * s;
        rc_sim_pin(sc->sim, sc->pin_vertex[k], target);
    }
}

/* ---------------------------------------------------------------- cube_drape (Fig. 8)
   A 0.8 m cotton square dropped 1 cm onto a 0.4 x 0.4 x 0.2 m box on the ground: the contact line
   along the box edges is sharp; --thickness changes the cloth thickness (bending stiffness). */
static rc_status sc__cube_drape(sc_scene *sc, const sc_params *p)
{
    double c[3] = { 0.0, 0.0, -0.1 }, h[3] = { 0.2, 0.2, 0.1 };
    double g[3] = { 0.0, 0.0, -0.2 }, n[3] = { 0.0, 0.0, 1.0 };
    rc_status st = sc__square(sc, 0.8, p->verts, 0.01);
    if (st == RC_OK) st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add(sc, SC_BOX, c, h, 0.0);
    if (st == RC_OK) st = sc__add(sc, SC_PLANE, g, n, 0.0);
    return st;
}

/* a static triangle-mesh obstacle whose arrays the scene owns (copied; freed by sc_destroy) */
static rc_status sc__add_mesh(sc_scene *sc, int nv, const double *x, int nt, const int *tris)
{
    sc_obstacle *o;
    if (sc->nobs >= SC_MAX_OBSTACLES) return RC_ERR_INVALID_ARGUMENT;
    o = &sc->obs[sc->nobs];
    memset(o, 0, sizeof *o);
    o->kind = SC_MESH;
    o->mesh_owned = 1;
    o->mesh_x = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
    o->mesh_tris = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
    if (!o->mesh_x || !o->mesh_tris) { free(o->mesh_x); free(o->mesh_tris); o->mesh_x = NULL; o->mesh_tris = NULL; return RC_ERR_OUT_OF_MEMORY; }
    memcpy(o->mesh_x, x, sizeof(double) * 3 * (size_t)nv);
    memcpy(o->mesh_tris, tris, sizeof(int) * 3 * (size_t)nt);
    o->mesh_nv = nv; o->mesh_nt = nt;
    sc->nobs++;
    return rc_sim_add_trimesh(sc->sim, nv, o->mesh_x, nt, o->mesh_tris, &o->id);
}

/* ---------------------------------------------------------------- spikes (Fig. 7)
   A 1 m square falling onto five upright cones ("spikes", base radius 4 cm, 0.25 m / 0.2 m tall)
   standing on the ground, given as closed triangle meshes: the sharp apex is a mesh vertex, so it
   pushes on the cloth triangles it meets (obstacle vertex - cloth triangle contact) and cannot
   poke through between cloth vertices. */
enum { SC__CONE_SEG = 12 };
static rc_status sc__spikes(sc_scene *sc, const sc_params *p)
{
    static const double xy[5][2] = { { 0.0, 0.0 }, { 0.25, 0.25 }, { -0.25, 0.25 }, { -0.25, -0.25 }, { 0.25, -0.25 } };
    double g[3] = { 0.0, 0.0, 0.0 }, n[3] = { 0.0, 0.0, 1.0 };
    int k;
    rc_status st = sc__square(sc, 1.0, p->verts, 0.28);
    if (st == RC_OK) st = sc__create_sim(sc, p, 0.01);
    for (k = 0; k < 5 && st == RC_OK; k++) {
        /* vertices: 0 apex, 1..SEG base ring, SEG+1 base centre; outward (counter-clockwise seen
           from outside) sides and base */
        double x[3 * (SC__CONE_SEG + 2)], h = k == 0 ? 0.25 : 0.2, r = 0.04;
        int t[6 * SC__CONE_SEG], j;
        x[0] = xy[k][0]; x[1] = xy[k][1]; x[2] = h;
        for (j = 0; j < SC__CONE_SEG; j++) {
            double a = 2.0 * SC__PI * j / SC__CONE_SEG;
            x[3 * (j + 1)] = xy[k][0] + r * cos(a); x[3 * (j + 1) + 1] = xy[k][1] + r * sin(a); x[3 * (j + 1) + 2] = 0.0;
            t[3 * j] = 0; t[3 * j + 1] = 1 + j; t[3 * j + 2] = 1 + (j + 1) % SC__CONE_SEG;
            t[3 * (SC__CONE_SEG + j)] = SC__CONE_SEG + 1; t[3 * (SC__CONE_SEG + j) + 1] = 1 + (j + 1) % SC__CONE_SEG;
            t[3 * (SC__CONE_SEG + j) + 2] = 1 + j;
        }
        x[3 * (SC__CONE_SEG + 1)] = xy[k][0]; x[3 * (SC__CONE_SEG + 1) + 1] = xy[k][1]; x[3 * (SC__CONE_SEG + 1) + 2] = 0.0;
        st = sc__add_mesh(sc, SC__CONE_SEG + 2, x, 2 * SC__CONE_SEG, t);
    }
    if (st == RC_OK) st = sc__add(sc, SC_PLANE, g, n, 0.0);
    return st;
}

/* ---------------------------------------------------------------- bumps (DESIGN 9, Fig. 10)
   A 1 m cotton square dropped from 14 cm (5 cm above the highest point) onto a bumpy height field,
   given as a triangle mesh (a 41 x 41
   grid over 1.2 m, 3 cm cells): three round bumps narrower than the cloth's default elements
   (Gaussians of sigma 7, 5 and 4 cm, 8, 6 and 5 cm high) and a sharp straight ridge (3 cm high,
   flanks 4 cm wide) on flat ground. A fixed mesh of ~7 cm triangles bridges the narrow features;
   the adaptive one moves vertices onto the bump tops and the ridge line, which shows as
   clustering in the reference mesh. */
static double sc__bumps_height(double x, double y)
{
    static const double b[3][5] = { { -0.2, 0.15, 0.07, 0.08, 0.0 }, { 0.22, 0.2, 0.05, 0.06, 0.0 }, { 0.05, -0.22, 0.04, 0.05, 0.0 } };
    double z = 0.0, d;
    int k;
    for (k = 0; k < 3; k++) {
        double dx = x - b[k][0], dy = y - b[k][1];
        z += b[k][3] * exp(-(dx * dx + dy * dy) / (2.0 * b[k][2] * b[k][2]));
    }
    d = fabs(y - (0.45 * x - 0.3)) / sqrt(1.0 + 0.45 * 0.45);   /* distance to the ridge line */
    if (d < 0.04 && x > -0.45 && x < 0.45) z += 0.03 * (1.0 - d / 0.04);
    return z;
}
static rc_status sc__bumps(sc_scene *sc, const sc_params *p)
{
    enum { N = 41 };
    const double half = 0.6;
    double *x;
    int *t, i, j, k = 0;
    rc_status st = sc__square(sc, 1.0, p->verts, 0.14);
    if (st == RC_OK) st = sc__create_sim(sc, p, 0.01);
    if (st != RC_OK) return st;
    x = (double *)malloc(sizeof(double) * 3 * N * N);
    t = (int *)malloc(sizeof(int) * 6 * (N - 1) * (N - 1));
    if (!x || !t) { free(x); free(t); return RC_ERR_OUT_OF_MEMORY; }
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++) {
            double px = -half + 2.0 * half * i / (N - 1), py = -half + 2.0 * half * j / (N - 1);
            x[3 * (j * N + i)] = px; x[3 * (j * N + i) + 1] = py; x[3 * (j * N + i) + 2] = sc__bumps_height(px, py);
        }
    for (j = 0; j < N - 1; j++)
        for (i = 0; i < N - 1; i++) {   /* counter-clockwise seen from above: normals up */
            int a = j * N + i;
            t[k++] = a; t[k++] = a + 1; t[k++] = a + N + 1;
            t[k++] = a; t[k++] = a + N + 1; t[k++] = a + N;
        }
    st = sc__add_mesh(sc, N * N, x, 2 * (N - 1) * (N - 1), t);
    free(x); free(t);
    return st;
}

/* A capsule (axis a-b, radius r) as a closed triangle mesh: nseg segments around, caps of ncap
   rings, the cylinder cut into ncyl pieces; vertices on the ideal capsule, triangles
   counter-clockwise seen from outside. Rings run from a's pole to b's; the poles are the last two
   vertices (a's, then b's); angle 0 points along x projected off the axis (-z for an axis along x).
   x: 3 * sc__capsule_nv(nseg, ncap, ncyl) doubles, tri: 3 * sc__capsule_nt(nseg, ncap, ncyl) ints.
   As a mesh obstacle a capsule gets the full contact treatment (cloth vertex - obstacle triangle,
   obstacle vertex - cloth triangle, edge-edge, CCD), where an analytic one acts on cloth vertices
   only. */
static int sc__capsule_nv(int nseg, int ncap, int ncyl) { return (2 * ncap + ncyl - 1) * nseg + 2; }
static int sc__capsule_nt(int nseg, int ncap, int ncyl) { return 2 * nseg * (2 * ncap + ncyl - 2) + 2 * nseg; }
static void sc__capsule_mesh(const double *a, const double *b, double r, int nseg, int ncap, int ncyl, double *x, int *tri)
{
    const int nring = 2 * ncap + ncyl - 1;
    double ax[3], e1[3], e2[3], ref[3] = { 1.0, 0.0, 0.0 }, len, dot, n1;
    int k, j, i, t = 0;
    for (k = 0; k < 3; k++) ax[k] = b[k] - a[k];
    len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (k = 0; k < 3; k++) ax[k] /= len;
    if (fabs(ax[0]) > 0.9) { ref[0] = 0.0; ref[2] = -1.0; }
    dot = ref[0] * ax[0] + ref[1] * ax[1] + ref[2] * ax[2];
    for (k = 0; k < 3; k++) e1[k] = ref[k] - dot * ax[k];
    n1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (k = 0; k < 3; k++) e1[k] /= n1;
    e2[0] = ax[1] * e1[2] - ax[2] * e1[1]; e2[1] = ax[2] * e1[0] - ax[0] * e1[2]; e2[2] = ax[0] * e1[1] - ax[1] * e1[0];
    for (k = 0; k < nring; k++) {
        const double *c0;   /* the ring's centre is c0 + h ax */
        double h, rho;
        if (k < ncap) { double ph = 0.5 * SC__PI * (k + 1) / ncap; c0 = a; h = -r * cos(ph); rho = r * sin(ph); }
        else if (k < ncap + ncyl - 1) { c0 = a; h = len * (k - ncap + 1) / ncyl; rho = r; }
        else { double ph = 0.5 * SC__PI * (nring - k) / ncap; c0 = b; h = r * cos(ph); rho = r * sin(ph); }
        for (j = 0; j < nseg; j++) {
            double th = 2.0 * SC__PI * j / nseg, c = rho * cos(th), sn = rho * sin(th);
            for (i = 0; i < 3; i++) x[3 * (k * nseg + j) + i] = c0[i] + h * ax[i] + c * e1[i] + sn * e2[i];
        }
    }
    for (k = 0; k < 3; k++) { x[3 * (nring * nseg) + k] = a[k] - r * ax[k]; x[3 * (nring * nseg + 1) + k] = b[k] + r * ax[k]; }
    /* (j, j+1 on ring k, j+1 on ring k+1) faces outwards: the angle turns counter-clockwise about ax */
    for (k = 0; k + 1 < nring; k++)
        for (j = 0; j < nseg; j++) {
            int p0 = k * nseg + j, p1 = k * nseg + (j + 1) % nseg, p2 = p1 + nseg, p3 = p0 + nseg;
            tri[3 * t] = p0; tri[3 * t + 1] = p1; tri[3 * t + 2] = p2; t++;
            tri[3 * t] = p0; tri[3 * t + 1] = p2; tri[3 * t + 2] = p3; t++;
        }
    for (j = 0; j < nseg; j++) {
        int jn = (j + 1) % nseg, top = (nring - 1) * nseg;
        tri[3 * t] = nring * nseg; tri[3 * t + 1] = jn; tri[3 * t + 2] = j; t++;
        tri[3 * t] = nring * nseg + 1; tri[3 * t + 1] = top + j; tri[3 * t + 2] = top + jn; t++;
    }
}

/* a static capsule mesh obstacle (sc__capsule_mesh) whose ideal shape stays in p, q, radius */
static rc_status sc__add_capsule_mesh(sc_scene *sc, const double *a, const double *b, double r, int nseg, int ncap, int ncyl)
{
    int nv = sc__capsule_nv(nseg, ncap, ncyl), nt = sc__capsule_nt(nseg, ncap, ncyl);
    double *x = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
    int *tri = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
    rc_status st = RC_ERR_OUT_OF_MEMORY;
    if (x && tri) {
        sc__capsule_mesh(a, b, r, nseg, ncap, ncyl, x, tri);
        st = sc__add_mesh(sc, nv, x, nt, tri);
        if (st == RC_OK) {
            sc_obstacle *o = &sc->obs[sc->nobs - 1];
            memcpy(o->p, a, sizeof o->p); memcpy(o->q, b, sizeof o->q); o->radius = r;
        }
    }
    free(x); free(tri);
    return st;
}

/* ---------------------------------------------------------------- didactic_drape (Fig. 3)
   A coarse 0.6 m square falling across a horizontal rod (radius 3 cm): one sharp fold line. Run
   with the regulariser (quality_weight 1), without it (0), and on the fixed mesh. The rod is a
   triangle mesh (16 segments around, 2.5 cm along): as an analytic capsule it acted on cloth
   vertices only, and the adaptive sheet slid its vertices off the rod to both sides and fell
   through it between them within 20 steps. */
static rc_status sc__didactic_drape(sc_scene *sc, const sc_params *p)
{
    double a[3] = { -0.5, 0.0, 0.0 }, b[3] = { 0.5, 0.0, 0.0 };
    rc_status st = sc__square(sc, 0.6, p->verts, 0.04);
    if (st == RC_OK) st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add_capsule_mesh(sc, a, b, 0.03, 16, 4, 40);   /* 1 m rod: 2.5 cm pieces */
    return st;
}

/* ---------------------------------------------------------------- plane_drop
   A 0.6 m square, tilted 30 degrees about the x axis, dropped from 0.1-0.4 m onto the ground. */
static rc_status sc__plane_drop(sc_scene *sc, const sc_params *p)
{
    double g[3] = { 0.0, 0.0, 0.0 }, n[3] = { 0.0, 0.0, 1.0 };
    double ca = cos(SC__PI / 6.0), sa = sin(SC__PI / 6.0);
    int i;
    rc_status st = sc__square(sc, 0.6, p->verts, 0.0);
    if (st != RC_OK) return st;
    for (i = 0; i < sc->mesh.num_verts; i++) {
        double v = sc->mesh.ref_uv[2 * i + 1];
        sc->mesh.pos[3 * i + 1] = ca * v;
        sc->mesh.pos[3 * i + 2] = 0.25 + sa * v;
    }
    st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add(sc, SC_PLANE, g, n, 0.0);
    return st;
}

/* ---------------------------------------------------------------- skirt (Fig. 1 left, simplified)
   An annulus (waist radius 0.12 m, hem 0.45 m), flat at waist height, pinned at its waist ring to
   a capsule "body" (radius 0.1 m) that sways sideways (0.1 m, 1 Hz) after 0.3 s: the skirt falls
   into folds and swings. */
static rc_status sc__skirt(sc_scene *sc, const sc_params *p)
{
    const double r_in = 0.12;
    double a[3] = { 0.0, 0.0, -0.9 }, b[3] = { 0.0, 0.0, 0.0 };
    int i, n = 0;
    rc_status st = rc_mesh_annulus(&sc->mesh, r_in, 0.45, p->verts, 0);
    if (st != RC_OK) return st;
    for (i = 0; i < sc->mesh.num_verts; i++) {
        sc->mesh.pos[3 * i] = sc->mesh.ref_uv[2 * i];
        sc->mesh.pos[3 * i + 1] = sc->mesh.ref_uv[2 * i + 1];
        sc->mesh.pos[3 * i + 2] = 0.0;
        if (hypot(sc->mesh.ref_uv[2 * i], sc->mesh.ref_uv[2 * i + 1]) < r_in + 1e-9) n++;
    }
    sc->def.material = rc_material_silk();
    st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add(sc, SC_CAPSULE, a, b, 0.1);
    if (st == RC_OK) st = sc__alloc_pins(sc, n);
    if (st != RC_OK) return st;
    n = 0;
    for (i = 0; i < sc->mesh.num_verts; i++)
        if (hypot(sc->mesh.ref_uv[2 * i], sc->mesh.ref_uv[2 * i + 1]) < r_in + 1e-9) {
            sc->pin_vertex[n] = i;
            memcpy(sc->pin_rest + 3 * n, sc->mesh.pos + 3 * i, 3 * sizeof(double));
            n++;
        }
    return sc__pin_all(sc);
}

static void sc__skirt_animate(sc_scene *sc, double t)
{
    double off[3] = { 0.0, 0.0, 0.0 }, target[3];
    int k;
    if (t > 0.3) off[0] = 0.1 * sin(2.0 * SC__PI * (t - 0.3));
    memcpy(sc->obs[0].offset, off, sizeof off);
    rc_sim_move_obstacle(sc->sim, sc->obs[0].id, off, NULL);
    for (k = 0; k < sc->npins; k++) {
        memcpy(target, sc->pin_rest + 3 * k, sizeof target);
        target[0] += off[0];
        rc_sim_pin(sc->sim, sc->pin_vertex[k], target);
    }
}

/* ---------------------------------------------------------------- dress (issue 6, Fig. 1 left)
   A silk circle skirt (annulus: waist 0.13 m, hem 0.5 m; flat at waist height at the start) whose
   waist ring is pinned to the hips of a procedural rig (sc_dress_pose): a closed body mesh (hips
   and torso) and two legs hinged below the hips, all three kinematic closed triangle meshes moved
   with rc_sim_set_obstacle_vertices every step. A leg is a capsule of radius 6 cm tessellated
   (16 segments around, hemispherical caps of 4 rings, the cylinder cut in 10): as a mesh it gets
   the full contact treatment (point-triangle both ways, edge-edge, CCD of the motion within the
   step), where an analytic capsule acts on cloth vertices only and cloth edges dip into it between
   them (measured up to 7.2 mm with capsule legs). The mesh vertices lie on the ideal capsule, so
   its flat faces are inside it by at most r (1 - cos(pi/16)) = 1.2 mm. The rig stands while the skirt falls, walks forward, stops, and kicks the right leg
   90 degrees forward in 0.25 s, lifting the front of the skirt, then lowers it. Self-contact on.
   The body is a surface of revolution with elliptic sections; the waist section (r 0.10-0.115 m)
   stays 1.5 cm inside the pinned ring, the thigh joints sit below the hips (z = -0.17 m) so a
   thigh raised to the horizontal (top at z = -0.11) never reaches into the hip mesh where the
   cloth lies on it (a cloth pinched between two overlapping obstacles has no valid position). */
#define SC__DRESS_NSEG 32
#define SC__DRESS_NRING 10
#define SC__DRESS_LEG_SEG 16   /* leg mesh: segments around */
#define SC__DRESS_LEG_CAP 4    /* rings per hemispherical cap (the last is the cylinder's end) */
#define SC__DRESS_LEG_CYL 10   /* cylinder segments along the axis (0.075 m each: no long slivers) */
static const double sc__dress_profile[SC__DRESS_NRING][3] = {   /* z, semi-axis x (front), semi-axis y (side) */
    { -0.13, 0.070, 0.100 }, { -0.10, 0.100, 0.140 }, { -0.06, 0.115, 0.155 }, { -0.02, 0.105, 0.130 },
    { 0.00, 0.100, 0.115 }, { 0.05, 0.100, 0.115 }, { 0.15, 0.110, 0.130 }, { 0.28, 0.120, 0.150 },
    { 0.34, 0.100, 0.120 }, { 0.37, 0.060, 0.070 } };
static const double sc__dress_pole[2] = { -0.15, 0.38 };   /* bottom and top pole z */
static const double sc__dress_waist = 0.13;                  /* pinned ring radius, m */
static const double sc__dress_hem = 0.5;
static const double sc__dress_leg_r = 0.06;
static const double sc__dress_joint[2][3] = { { 0.0, 0.085, -0.17 }, { 0.0, -0.085, -0.17 } };   /* left (+y), right */
static const double sc__dress_ankle_z = -0.92;

struct sc_rig {
    int nv, nt;
    double *rest, *cur;      /* 3*nv body vertices: rest (body frame) and current world */
    int *tris;               /* 3*nt */
    int body;                /* index of the body in sc->obs; legs are body + 1 + SC_DRESS_LEFT/RIGHT */
    int leg_nv, leg_nt;
    double *leg_rest;        /* 3*leg_nv: the leg mesh in the body frame at rest (hanging from the left joint) */
    double *leg_cur[2];      /* 3*leg_nv each: current world vertices of the left and right leg */
    int *leg_tris;           /* 3*leg_nt, shared by both legs */
};

static void sc__rig_free(struct sc_rig *r)
{
    if (!r) return;
    free(r->rest); free(r->cur); free(r->tris);
    free(r->leg_rest); free(r->leg_cur[0]); free(r->leg_cur[1]); free(r->leg_tris); free(r);
}

static double sc__smooth(double a) { if (a <= 0.0) return 0.0; if (a >= 1.0) return 1.0; return a * a * (3.0 - 2.0 * a); }
/* integral of the smoothstep from 0 to a (a^3 - a^4/2 on [0, 1], linear after) */
static double sc__smooth_int(double a) { if (a <= 0.0) return 0.0; if (a >= 1.0) return 0.5 + (a - 1.0); return a * a * a - 0.5 * a * a * a * a; }

static void sc__mat_rz(double psi, double *R)
{
    double c = cos(psi), s = sin(psi);
    R[0] = c; R[1] = -s; R[2] = 0.0; R[3] = s; R[4] = c; R[5] = 0.0; R[6] = 0.0; R[7] = 0.0; R[8] = 1.0;
}
/* rotation about +y by -a: takes the leg direction (0,0,-1) to (sin a, 0, -cos a) (forward = +x) */
static void sc__mat_leg(double a, double *R)
{
    double c = cos(a), s = sin(a);
    R[0] = c; R[1] = 0.0; R[2] = -s; R[3] = 0.0; R[4] = 1.0; R[5] = 0.0; R[6] = s; R[7] = 0.0; R[8] = c;
}
static void sc__mat_mul(const double *A, const double *B, double *C)
{
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
static void sc__mat_apply(const double *R, const double *t, const double *x, double *y)
{
    int i;
    for (i = 0; i < 3; i++) y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2] + (t ? t[i] : 0.0);
}

void sc_dress_pose(double t, sc_rig_pose *P)
{
    const double V = 0.5, A = 20.0 * SC__PI / 180.0, yaw = 4.0 * SC__PI / 180.0, bob = 0.012;
    double env = sc__smooth((t - 0.5) / 0.2) - sc__smooth((t - 1.1) / 0.2);   /* walk: 0.5-1.3 s */
    double phi = 2.0 * SC__PI * (t - 0.5) / 0.8;                               /* one stride cycle in 0.8 s */
    double kick = sc__smooth((t - 1.45) / 0.25) - sc__smooth((t - 1.9) / 0.5);
    double swing = t > 0.5 && t < 1.3 ? A * env * sin(phi) : 0.0, Rl[9];
    int k;
    P->body_t[0] = V * 0.2 * (sc__smooth_int((t - 0.5) / 0.2) - sc__smooth_int((t - 1.1) / 0.2));
    P->body_t[1] = 0.0;
    P->body_t[2] = t > 0.5 && t < 1.3 ? -bob * env * 0.5 * (1.0 - cos(2.0 * phi)) : 0.0;
    sc__mat_rz(t > 0.5 && t < 1.3 ? yaw * env * sin(phi) : 0.0, P->body_R);
    P->leg_angle[SC_DRESS_LEFT] = swing;
    P->leg_angle[SC_DRESS_RIGHT] = -swing + 0.5 * SC__PI * kick;
    for (k = 0; k < 2; k++) {
        /* world = Rb (Rl (x - j) + j) + tb:  R = Rb Rl,  t = Rb (j - Rl j) + tb */
        double d[3], rj[3];
        int c;
        sc__mat_leg(P->leg_angle[k], Rl);
        sc__mat_mul(P->body_R, Rl, P->leg_R[k]);
        sc__mat_apply(Rl, NULL, sc__dress_joint[k], rj);
        for (c = 0; c < 3; c++) d[c] = sc__dress_joint[k][c] - rj[c];
        sc__mat_apply(P->body_R, P->body_t, d, P->leg_t[k]);
    }
}

void sc_capsule_world(const sc_obstacle *o, double a[3], double b[3])
{
    int c;
    for (c = 0; c < 3; c++) { a[c] = o->p[c] + o->offset[c]; b[c] = o->q[c] + o->offset[c]; }
}

static rc_status sc__dress_body(struct sc_rig *r)
{
    int k, j, t = 0;
    r->nv = SC__DRESS_NRING * SC__DRESS_NSEG + 2;
    r->nt = 2 * SC__DRESS_NSEG * (SC__DRESS_NRING - 1) + 2 * SC__DRESS_NSEG;
    r->rest = (double *)malloc(sizeof(double) * 3 * (size_t)r->nv);
    r->cur = (double *)malloc(sizeof(double) * 3 * (size_t)r->nv);
    r->tris = (int *)malloc(sizeof(int) * 3 * (size_t)r->nt);
    if (!r->rest || !r->cur || !r->tris) return RC_ERR_OUT_OF_MEMORY;
    for (k = 0; k < SC__DRESS_NRING; k++)
        for (j = 0; j < SC__DRESS_NSEG; j++) {
            double th = 2.0 * SC__PI * j / SC__DRESS_NSEG, *x = r->rest + 3 * (k * SC__DRESS_NSEG + j);
            x[0] = sc__dress_profile[k][1] * cos(th);
            x[1] = sc__dress_profile[k][2] * sin(th);
            x[2] = sc__dress_profile[k][0];
        }
    for (k = 0; k < 2; k++) {
        double *x = r->rest + 3 * (SC__DRESS_NRING * SC__DRESS_NSEG + k);
        x[0] = x[1] = 0.0; x[2] = sc__dress_pole[k];
    }
    /* counter-clockwise seen from outside: (a, b, c) with b the next around (+theta), c above */
    for (k = 0; k + 1 < SC__DRESS_NRING; k++)
        for (j = 0; j < SC__DRESS_NSEG; j++) {
            int a = k * SC__DRESS_NSEG + j, b = k * SC__DRESS_NSEG + (j + 1) % SC__DRESS_NSEG;
            int c = b + SC__DRESS_NSEG, d = a + SC__DRESS_NSEG;
            r->tris[3 * t] = a; r->tris[3 * t + 1] = b; r->tris[3 * t + 2] = c; t++;
            r->tris[3 * t] = a; r->tris[3 * t + 1] = c; r->tris[3 * t + 2] = d; t++;
        }
    for (j = 0; j < SC__DRESS_NSEG; j++) {
        int jn = (j + 1) % SC__DRESS_NSEG, top = (SC__DRESS_NRING - 1) * SC__DRESS_NSEG;
        r->tris[3 * t] = SC__DRESS_NRING * SC__DRESS_NSEG; r->tris[3 * t + 1] = jn; r->tris[3 * t + 2] = j; t++;
        r->tris[3 * t] = SC__DRESS_NRING * SC__DRESS_NSEG + 1; r->tris[3 * t + 1] = top + j; r->tris[3 * t + 2] = top + jn; t++;
    }
    return RC_OK;
}

/* A leg: closed triangle mesh of the capsule with axis joint (top) - ankle (bottom), radius r, in
   the body frame, built for the left joint (the right leg is it shifted in y). Rings from the
   bottom pole up: cap rings at polar angles phi_k = k (pi/2) / CAP from the bottom pole (k = 1..CAP,
   the last one on the cylinder's lower end), CYL - 1 rings inside the cylinder, then the top cap's
   rings mirrored; vertices on the capsule surface; triangles counter-clockwise seen from outside
   (the body's pattern: ring k below ring k + 1). */
static rc_status sc__dress_legs(struct sc_rig *r)
{
    const int S = SC__DRESS_LEG_SEG, C = SC__DRESS_LEG_CAP, Y = SC__DRESS_LEG_CYL;
    const double bot[3] = { sc__dress_joint[0][0], sc__dress_joint[0][1], sc__dress_ankle_z };
    r->leg_nv = sc__capsule_nv(S, C, Y);
    r->leg_nt = sc__capsule_nt(S, C, Y);
    r->leg_rest = (double *)malloc(sizeof(double) * 3 * (size_t)r->leg_nv);
    r->leg_cur[0] = (double *)malloc(sizeof(double) * 3 * (size_t)r->leg_nv);
    r->leg_cur[1] = (double *)malloc(sizeof(double) * 3 * (size_t)r->leg_nv);
    r->leg_tris = (int *)malloc(sizeof(int) * 3 * (size_t)r->leg_nt);
    if (!r->leg_rest || !r->leg_cur[0] || !r->leg_cur[1] || !r->leg_tris) return RC_ERR_OUT_OF_MEMORY;
    /* the left leg at rest: ankle to hip joint along z (angle 0 along x) */
    sc__capsule_mesh(bot, sc__dress_joint[0], sc__dress_leg_r, S, C, Y, r->leg_rest, r->leg_tris);
    return RC_OK;
}

/* the legs' world vertices in pose P (world = leg_R x + leg_t for the rest leg shifted to its
   joint), and the ideal capsule's axis ends kept in the obstacle's p, q for the checks */
static void sc__dress_set_legs(sc_scene *sc, const sc_rig_pose *P)
{
    struct sc_rig *r = sc->rig;
    int i, k;
    for (k = 0; k < 2; k++) {
        double dy = sc__dress_joint[k][1] - sc__dress_joint[0][1], x[3], b0[3];
        for (i = 0; i < r->leg_nv; i++) {
            memcpy(x, r->leg_rest + 3 * i, sizeof x);
            x[1] += dy;
            sc__mat_apply(P->leg_R[k], P->leg_t[k], x, r->leg_cur[k] + 3 * i);
        }
        if (sc->nobs > r->body + 1 + k) {
            sc_obstacle *o = &sc->obs[r->body + 1 + k];
            memcpy(b0, sc__dress_joint[k], sizeof b0);
            b0[2] = sc__dress_ankle_z;
            sc__mat_apply(P->leg_R[k], P->leg_t[k], sc__dress_joint[k], o->p);
            sc__mat_apply(P->leg_R[k], P->leg_t[k], b0, o->q);
        }
    }
}

static void sc__dress_set_body(sc_scene *sc, const sc_rig_pose *P)
{
    struct sc_rig *r = sc->rig;
    int i;
    for (i = 0; i < r->nv; i++) sc__mat_apply(P->body_R, P->body_t, r->rest + 3 * i, r->cur + 3 * i);
}

static rc_status sc__dress(sc_scene *sc, const sc_params *p)
{
    struct sc_rig *r;
    sc_rig_pose P0s, *P0 = &P0s;
    int i, k, n = 0;
    /* >= 100 vertices: the waist ring then has >= 8 vertices, so its chords (sagitta
       0.13 (1 - cos(pi/8)) = 1 cm) stay outside the waist section (0.115 m) by more than the
       contact offset; coarser rings cut into the body at the start */
    rc_status st = rc_mesh_annulus(&sc->mesh, sc__dress_waist, sc__dress_hem, p->verts > 100 ? p->verts : 100, 0);
    if (st != RC_OK) return st;
    r = (struct sc_rig *)calloc(1, sizeof *r);
    if (!r) return RC_ERR_OUT_OF_MEMORY;
    sc->rig = r;
    st = sc__dress_body(r);
    if (st == RC_OK) st = sc__dress_legs(r);
    if (st != RC_OK) return st;
    sc_dress_pose(p->t0, P0);
    sc->time = p->t0;
    for (i = 0; i < sc->mesh.num_verts; i++) {
        double x[3];
        x[0] = sc->mesh.ref_uv[2 * i]; x[1] = sc->mesh.ref_uv[2 * i + 1]; x[2] = 0.0;
        sc__mat_apply(P0->body_R, P0->body_t, x, sc->mesh.pos + 3 * i);
        if (hypot(x[0], x[1]) < sc__dress_waist + 1e-9) n++;
    }
    sc->def.material = rc_material_silk();
    sc->def.self_contact = 1;
    st = sc__create_sim(sc, p, 0.01);
    if (st != RC_OK) return st;
    /* body: kinematic triangle mesh */
    sc__dress_set_body(sc, P0);
    {
        sc_obstacle *o = &sc->obs[sc->nobs];
        memset(o, 0, sizeof *o);
        o->kind = SC_MESH;
        o->mesh_nv = r->nv; o->mesh_nt = r->nt; o->mesh_x = r->cur; o->mesh_tris = r->tris;
        st = rc_sim_add_trimesh(sc->sim, r->nv, r->cur, r->nt, r->tris, &o->id);
        if (st != RC_OK) return st;
        r->body = sc->nobs++;
    }
    /* legs: kinematic triangle meshes in pose0 (radius > 0 and p, q mark the ideal capsule) */
    for (k = 0; k < 2 && st == RC_OK; k++) {
        sc_obstacle *o = &sc->obs[sc->nobs];
        memset(o, 0, sizeof *o);
        o->kind = SC_MESH;
        o->radius = sc__dress_leg_r;
        o->mesh_nv = r->leg_nv; o->mesh_nt = r->leg_nt; o->mesh_x = r->leg_cur[k]; o->mesh_tris = r->leg_tris;
        sc->nobs++;
    }
    sc__dress_set_legs(sc, P0);
    for (k = 0; k < 2 && st == RC_OK; k++) {
        sc_obstacle *o = &sc->obs[r->body + 1 + k];
        st = rc_sim_add_trimesh(sc->sim, o->mesh_nv, o->mesh_x, o->mesh_nt, o->mesh_tris, &o->id);
    }
    if (st == RC_OK) st = sc__alloc_pins(sc, n);
    if (st != RC_OK) return st;
    n = 0;
    for (i = 0; i < sc->mesh.num_verts; i++)
        if (hypot(sc->mesh.ref_uv[2 * i], sc->mesh.ref_uv[2 * i + 1]) < sc__dress_waist + 1e-9) {
            sc->pin_vertex[n] = i;
            memcpy(sc->pin_rest + 3 * n, sc->mesh.pos + 3 * i, 3 * sizeof(double));
            n++;
        }
    return sc__pin_all(sc);
}

static void sc__dress_animate(sc_scene *sc, double t)
{
    struct sc_rig *r = sc->rig;
    sc_rig_pose P;
    int k;
    if (!r) return;
    sc_dress_pose(t, &P);
    sc__dress_set_body(sc, &P);
    rc_sim_set_obstacle_vertices(sc->sim, sc->obs[r->body].id, r->cur);
    sc__dress_set_legs(sc, &P);
    for (k = 0; k < 2; k++) rc_sim_set_obstacle_vertices(sc->sim, sc->obs[r->body + 1 + k].id, r->leg_cur[k]);
    /* waist pins ride with the body: the ring's body-frame position is its flat reference (u, v, 0) */
    for (k = 0; k < sc->npins; k++) {
        double x[3], target[3];
        int v = sc->pin_vertex[k];
        x[0] = sc->mesh.ref_uv[2 * v]; x[1] = sc->mesh.ref_uv[2 * v + 1]; x[2] = 0.0;
        sc__mat_apply(P.body_R, P.body_t, x, target);
        rc_sim_pin(sc->sim, v, target);
    }
}

/* ---------------------------------------------------------------- fold (issue 6, multi-layer)
   A 0.6 x 0.12 m strip (grid) with self-contact on: its left half lies on the ground, its right
   half stands up from the middle line leaning 10 degrees back over the left half. Released, the
   limp standing half collapses under its own weight onto the crease and the left half and folds
   into a pile of several layers (over by ~0.25 s). */
rc_status sc_fold_mesh(rc_mesh *m, int nx, int ny)
{
    const double L = 0.6, W = 0.12, lean = 80.0 * SC__PI / 180.0;
    int i;
    rc_status st = rc_mesh_grid(m, L, W, nx, ny, RC_DIAG_ALTERNATING);
    if (st != RC_OK) return st;
    for (i = 0; i < m->num_verts; i++) {
        double u = m->ref_uv[2 * i], z0 = 0.002;
        m->pos[3 * i + 1] = m->ref_uv[2 * i + 1] - 0.5 * W;
        if (u <= 0.5 * L) { m->pos[3 * i] = u - 0.5 * L; m->pos[3 * i + 2] = z0; }
        else { m->pos[3 * i] = -(u - 0.5 * L) * cos(lean); m->pos[3 * i + 2] = z0 + (u - 0.5 * L) * sin(lean); }
    }
    return RC_OK;
}

rc_status sc_fold_create(int nx, int ny, int self_contact, int adaptive, rc_sim **out)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    double p0[3] = { 0.0, 0.0, 0.0 }, n0[3] = { 0.0, 0.0, 1.0 };
    rc_status st = sc_fold_mesh(&m, nx, ny);
    *out = NULL;
    if (st != RC_OK) return st;
    def.mesh = rc_mesh_describe(&m);
    def.num_threads = 1;
    def.self_contact = self_contact;
    def.adaptive = adaptive;
    def.bending_scale = 0.2;
    st = rc_sim_create(&def, out);
    rc_mesh_free(&m);
    if (st == RC_OK) st = rc_sim_add_plane(*out, p0, n0, NULL);
    if (st != RC_OK) { rc_sim_destroy(*out); *out = NULL; }
    return st;
}

static rc_status sc__fold(sc_scene *sc, const sc_params *p)
{
    double g[3] = { 0.0, 0.0, 0.0 }, n[3] = { 0.0, 0.0, 1.0 };
    int ny = (int)floor(sqrt(p->verts / 5.0) + 0.5), nx;
    rc_status st;
    if (ny < 3) ny = 3;
    nx = (int)floor((double)p->verts / ny + 0.5);
    if (nx < 4) nx = 4;
    st = sc_fold_mesh(&sc->mesh, nx, ny);
    if (st != RC_OK) return st;
    sc->def.self_contact = 1;
    sc->def.bending_scale = 0.2;
    st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = sc__add(sc, SC_PLANE, g, n, 0.0);
    return st;
}

/* ---------------------------------------------------------------- skirt_panels (issue 9)
   A two-panel A-line skirt: front and back panels, each a flat annular sector (a real pattern
   piece: the development of a 30-degree cone, so the garment starts exactly unstrained), cut from
   denim with the warp down the panel's centre line, sewn at the two side seams (straight radial
   edges, stitched vertex to vertex with zero-length springs; in adaptive mode the inner seam
   vertices slide along the seam in pairs) and pinned at the waist (radius 0.13 m, z = 0) to an
   animated body made procedurally of a torso capsule, a pelvis triangle mesh and two leg capsules.
   From t = 0.1 s the right leg kicks forward by 60 degrees in 0.15 s (tip speed ~2.5 m/s at hem
   depth) and back down by 0.55 s, the body (torso, legs, and the waist pins) turning 7 degrees
   about the vertical with it. The pelvis mesh is round (a body of revolution) and stays put: a
   kinematic MESH obstacle that moves into cloth resting on it fails the step start (the start
   check pushes cloth out of analytic shapes only; measured: a turning elliptic pelvis ended the
   small adaptive run at t = 0.5 s), so the moving parts are capsules.
   Panel uv: front sector centred at the origin, back sector shifted by 2 s_hem + 0.1 in u. */
#define SC__SK_SINB 0.5                  /* sin of the cone half-angle (30 degrees) */
#define SC__SK_RW 0.13                   /* waist radius, m */
#define SC__SK_LEN 0.45                  /* skirt length along the cone, m */
#define SC__SK_SEG 24                    /* pelvis mesh: segments around */
static const double sc__sk_hip[2][3] = { { 0.0, 0.085, -0.15 }, { 0.0, -0.085, -0.15 } };   /* left, right hip joints */
static const double sc__sk_foot[2][3] = { { 0.0, 0.085, -0.9 }, { 0.0, -0.085, -0.9 } };
/* (z, radius); tapered at the bottom so the kicking thigh does not close a wedge against it */
static const double sc__sk_pelvis_ring[4][2] = { { -0.02, 0.112 }, { -0.08, 0.142 }, { -0.13, 0.15 }, { -0.18, 0.11 } };

/* kick profile in [0, 1]: smoothstep up over [0.1, 0.25] s, hold, down over [0.3, 0.55] s */
static double sc__sk_kick(double t)
{
    double a;
    if (t <= 0.1 || t >= 0.55) return 0.0;
    if (t < 0.25) { a = (t - 0.1) / 0.15; return a * a * (3.0 - 2.0 * a); }
    if (t <= 0.3) return 1.0;
    a = (0.55 - t) / 0.25;
    return a * a * (3.0 - 2.0 * a);
}

/* pelvis mesh (rings, flat caps, outward triangles; the front-back scale 0.95 of a body) */
static void sc__sk_pelvis(double *x)
{
    int k, j, n = 0;
    for (k = 0; k < 4; k++)
        for (j = 0; j < SC__SK_SEG; j++) {
            double a = 2.0 * SC__PI * j / SC__SK_SEG;
            x[3 * n] = 0.95 * sc__sk_pelvis_ring[k][1] * cos(a); x[3 * n + 1] = sc__sk_pelvis_ring[k][1] * sin(a);
            x[3 * n + 2] = sc__sk_pelvis_ring[k][0];
            n++;
        }
    x[3 * n] = x[3 * n + 1] = 0.0; x[3 * n + 2] = sc__sk_pelvis_ring[0][0]; n++;   /* top centre */
    x[3 * n] = x[3 * n + 1] = 0.0; x[3 * n + 2] = sc__sk_pelvis_ring[3][0];        /* bottom centre */
}

static int sc__sk_pelvis_tris(int *t)
{
    int k, j, n = 0, top = 4 * SC__SK_SEG, bot = top + 1;
    for (j = 0; j < SC__SK_SEG; j++) {
        int j1 = (j + 1) % SC__SK_SEG;
        t[3 * n] = top; t[3 * n + 1] = j; t[3 * n + 2] = j1; n++;   /* ccw seen from outside */
        t[3 * n] = bot; t[3 * n + 1] = 3 * SC__SK_SEG + j1; t[3 * n + 2] = 3 * SC__SK_SEG + j; n++;
        for (k = 0; k < 3; k++) {
            int a = k * SC__SK_SEG + j, b = k * SC__SK_SEG + j1, c = a + SC__SK_SEG, d = b + SC__SK_SEG;
            t[3 * n] = a; t[3 * n + 1] = c; t[3 * n + 2] = b; n++;
            t[3 * n] = b; t[3 * n + 1] = c; t[3 * n + 2] = d; n++;
        }
    }
    return n;
}

static rc_status sc__skirt_panels(sc_scene *sc, const sc_params *p)
{
    const double sb = SC__SK_SINB, cb = sqrt(1.0 - sb * sb), s_w = SC__SK_RW / sb, s_h = s_w + SC__SK_LEN;
    const double theta = SC__PI * sb;   /* angle of one panel sector (half the cone's development) */
    double torso_a[3] = { 0.0, 0.0, -0.12 }, torso_b[3] = { 0.0, 0.0, 0.35 };
    int per = p->verts / 2, nr1, np1, nvp, ntp, i, j, k, pnl;
    rc_mesh g;
    rc_status st;
    if (per < 9) per = 9;
    nr1 = (int)floor(sqrt(per / 1.6) + 0.5);   /* rings: the sector is ~1.6x wider (mean arc) than long */
    if (nr1 < 3) nr1 = 3;
    np1 = (int)floor((double)per / nr1 + 0.5);
    if (np1 < 3) np1 = 3;
    st = rc_mesh_grid(&g, 1.0, 1.0, np1, nr1, RC_DIAG_ALTERNATING);
    if (st != RC_OK) return st;
    nvp = g.num_verts; ntp = g.num_tris;
    /* the two panels in one mesh (rc_mesh_free frees with the default allocator, i.e. free) */
    sc->mesh.num_verts = 2 * nvp; sc->mesh.num_tris = 2 * ntp;
    sc->mesh.ref_uv = (double *)malloc(sizeof(double) * 4 * (size_t)nvp);
    sc->mesh.pos = (double *)malloc(sizeof(double) * 6 * (size_t)nvp);
    sc->mesh.tris = (int *)malloc(sizeof(int) * 6 * (size_t)ntp);
    sc->nseam = 2 * nr1;
    sc->seam_a = (int *)malloc(sizeof(int) * (size_t)sc->nseam);
    sc->seam_b = (int *)malloc(sizeof(int) * (size_t)sc->nseam);
    if (!sc->mesh.ref_uv || !sc->mesh.pos || !sc->mesh.tris || !sc->seam_a || !sc->seam_b) { rc_mesh_free(&g); return RC_ERR_OUT_OF_MEMORY; }
    for (pnl = 0; pnl < 2; pnl++) {
        for (i = 0; i < nvp; i++) {
            /* grid u -> sector angle psi (decreasing, so the triangles stay counter-clockwise),
               grid v -> distance rho from the cone apex */
            double psi = 0.5 * theta - theta * g.ref_uv[2 * i], rho = s_w + (s_h - s_w) * g.ref_uv[2 * i + 1];
            double az = (pnl ? SC__PI : 0.0) + psi / sb, r = rho * sb;
            int v = pnl * nvp + i;
            sc->mesh.ref_uv[2 * v] = rho * cos(psi) + (pnl ? 2.0 * s_h + 0.1 : 0.0);
            sc->mesh.ref_uv[2 * v + 1] = rho * sin(psi);
            sc->mesh.pos[3 * v] = r * cos(az);
            sc->mesh.pos[3 * v + 1] = r * sin(az);
            sc->mesh.pos[3 * v + 2] = -(rho - s_w) * cb;
        }
        for (i = 0; i < 3 * ntp; i++) sc->mesh.tris[3 * pnl * ntp + i] = g.tris[i] + pnl * nvp;
    }
    rc_mesh_free(&g);
    /* side seams: front psi = +theta/2 (azimuth +90 deg, grid column 0) to back psi = -theta/2
       (azimuth 90 deg, last column), and front's last column (-90 deg) to back's column 0 (270) */
    for (j = 0; j < nr1; j++) {
        sc->seam_a[j] = j * np1;                   sc->seam_b[j] = nvp + j * np1 + np1 - 1;
        sc->seam_a[nr1 + j] = j * np1 + np1 - 1;   sc->seam_b[nr1 + j] = nvp + j * np1;
    }
    sc->def.material = rc_material_fabric_denim();
    sc->def.self_contact = 1;   /* the panels fold against each other when the leg kicks */
    st = sc__create_sim(sc, p, 0.01);
    if (st == RC_OK) st = rc_sim_add_seam(sc->sim, sc->nseam, sc->seam_a, sc->seam_b, 2e4);
    /* body: torso capsule, pelvis mesh, legs (left, right = kicking) */
    if (st == RC_OK) st = sc__add(sc, SC_CAPSULE, torso_a, torso_b, 0.11);
    if (st == RC_OK) {
        sc_obstacle *o = &sc->obs[sc->nobs];
        memset(o, 0, sizeof *o);
        o->kind = SC_MESH;
        o->mesh_nv = 4 * SC__SK_SEG + 2;
        o->mesh_owned = 1;
        o->mesh_x = (double *)malloc(sizeof(double) * 3 * (size_t)o->mesh_nv);
        o->mesh_tris = (int *)malloc(sizeof(int) * 3 * 8 * SC__SK_SEG);
        if (!o->mesh_x || !o->mesh_tris) { free(o->mesh_x); free(o->mesh_tris); o->mesh_x = NULL; o->mesh_tris = NULL; return RC_ERR_OUT_OF_MEMORY; }
        sc__sk_pelvis(o->mesh_x);
        o->mesh_nt = sc__sk_pelvis_tris(o->mesh_tris);
        sc->nobs++;   /* owned from here: sc_destroy frees the arrays */
        st = rc_sim_add_trimesh(sc->sim, o->mesh_nv, o->mesh_x, o->mesh_nt, o->mesh_tris, &o->id);
    }
    for (k = 0; k < 2 && st == RC_OK; k++) st = sc__add(sc, SC_CAPSULE, sc__sk_hip[k], sc__sk_foot[k], 0.06);
    if (st == RC_OK) st = sc__alloc_pins(sc, 2 * np1);
    if (st != RC_OK) return st;
    for (pnl = 0; pnl < 2; pnl++)
        for (i = 0; i < np1; i++) {   /* the waist ring: grid row 0 of each panel */
            int v = pnl * nvp + i;
            sc->pin_vertex[pnl * np1 + i] = v;
            memcpy(sc->pin_rest + 3 * (pnl * np1 + i), sc->mesh.pos + 3 * v, 3 * sizeof(double));
        }
    return sc__pin_all(sc);
}

static void sc__skirt_panels_animate(sc_scene *sc, double t)
{
    double kick = sc__sk_kick(t), a = (SC__PI / 3.0) * kick, yaw = 0.12 * kick;
    double cz = cos(yaw), sz = sin(yaw), ca = cos(a), sa = sin(a);
    double Rz[9], R[9], Ry[9], tr[3], target[3];
    int k, i, j;
    Rz[0] = cz; Rz[1] = -sz; Rz[2] = 0; Rz[3] = sz; Rz[4] = cz; Rz[5] = 0; Rz[6] = 0; Rz[7] = 0; Rz[8] = 1;
    /* forward kick: rotation about y taking the leg's downward axis (0, 0, -1) to (sin a, 0, -cos a) */
    Ry[0] = ca; Ry[1] = 0; Ry[2] = -sa; Ry[3] = 0; Ry[4] = 1; Ry[5] = 0; Ry[6] = sa; Ry[7] = 0; Ry[8] = ca;
    rc_sim_move_obstacle(sc->sim, sc->obs[0].id, sc->obs[0].offset, Rz);   /* torso: turns with the hips (a no-op for its axis) */
    for (k = 0; k < 2; k++) {
        sc_obstacle *o = &sc->obs[2 + k];
        /* x -> Rz (Ry (x - hip) + hip) for the kicking leg, x -> Rz x for the other */
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) {
                int m;
                R[3 * i + j] = 0.0;
                for (m = 0; m < 3; m++) R[3 * i + j] += Rz[3 * i + m] * (k == 1 ? Ry[3 * m + j] : (m == j ? 1.0 : 0.0));
            }
        /* t = Rz hip - R hip (zero for the other leg: R = Rz) */
        for (i = 0; i < 3; i++) {
            tr[i] = 0.0;
            for (j = 0; j < 3; j++) tr[i] += Rz[3 * i + j] * sc__sk_hip[k][j] - R[3 * i + j] * sc__sk_hip[k][j];
        }
        rc_sim_move_obstacle(sc->sim, o->id, tr, R);
        /* drawing: the capsule's current ends (offset stays zero) */
        for (i = 0; i < 3; i++) {
            o->p[i] = tr[i]; o->q[i] = tr[i];
            for (j = 0; j < 3; j++) { o->p[i] += R[3 * i + j] * sc__sk_hip[k][j]; o->q[i] += R[3 * i + j] * sc__sk_foot[k][j]; }
        }
    }
    for (k = 0; k < sc->npins; k++) {   /* the waist follows the hips */
        const double *r0 = sc->pin_rest + 3 * k;
        target[0] = cz * r0[0] - sz * r0[1]; target[1] = sz * r0[0] + cz * r0[1]; target[2] = r0[2];
        rc_sim_pin(sc->sim, sc->pin_vertex[k], target);
    }
}

/* ---------------------------------------------------------------- registry */

static const sc_info sc__scenes[] = {
    { "sphere_drape", "1 m square draped on a sphere (r 0.25 m); adaptive vs fixed",
      225, 15, 0.01, 0.04, { -0.55, 0.85, -0.75 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__sphere_drape, NULL },
    { "two_point_drape", "0.8 m sheet hanging from two corners pulled 0.2 m together (DESIGN 10)",
      169, 15, 0.01, 0.04, { 0.0, 1.0, -0.25 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__two_point_drape, sc__two_point_animate },
    { "cube_drape", "0.8 m square onto a 0.4 x 0.4 x 0.2 m box (--thickness sets cloth thickness)",
      225, 15, 0.01, 0.04, { -0.55, 0.85, -0.6 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__cube_drape, NULL },
    { "spikes", "1 m square onto five upright cone spikes (triangle meshes) on the ground",
      225, 15, 0.01, 0.04, { -0.55, 0.85, -0.75 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__spikes, NULL },
    { "didactic_drape", "coarse square across a rod: regulariser on / off (adaptive) and fixed",
      100, 10, 0.01, 0.04, { -0.9, 0.6, -0.5 }, 3,
      { { "adaptive", 1, 1.0 }, { "no_regulariser", 1, 0.0 }, { "fixed", 0, -1.0 } }, sc__didactic_drape, NULL },
    { "plane_drop", "0.6 m square dropped tilted onto the ground",
      144, 15, 0.01, 0.04, { -0.5, 0.8, -0.6 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__plane_drop, NULL },
    { "skirt", "annulus pinned at the waist to a swaying capsule body",
      200, 15, 0.01, 0.04, { 0.0, 1.0, -0.3 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__skirt, sc__skirt_animate },
    { "fold", "0.6 m strip collapsing onto itself on the ground (self-contact, multi-layer pile)",
      150, 15, 0.01, 0.04, { -0.3, 0.8, -0.6 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__fold, NULL },
    { "skirt_panels", "front/back denim panels sewn at two side seams, waist pinned to a body that kicks",
      160, 15, 0.01, 0.04, { -0.4, 1.0, -0.3 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__skirt_panels, sc__skirt_panels_animate },
    { "bumps", "1 m square onto a height-field mesh with bumps and a ridge narrower than its elements (DESIGN 9)",
      225, 15, 0.01, 0.04, { -0.55, 0.85, -0.75 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__bumps, NULL },
    { "dress", "silk circle skirt on a walking body mesh with tessellated-capsule mesh legs and a fast kick (self-contact; at least 100 verts)",
      250, 60, 0.01, 0.04, { -0.2, 1.0, -0.25 }, 2,
      { { "adaptive", 1, -1.0 }, { "fixed", 0, -1.0 }, { NULL, 0, 0.0 } }, sc__dress, sc__dress_animate }
};

int sc_num_scenes(void) { return (int)(sizeof sc__scenes / sizeof sc__scenes[0]); }

const sc_info *sc_scene_at(int i) { return i >= 0 && i < sc_num_scenes() ? &sc__scenes[i] : NULL; }

const sc_info *sc_find_scene(const char *name)
{
    int i;
    if (!name) return NULL;
    for (i = 0; i < sc_num_scenes(); i++)
        if (strcmp(sc__scenes[i].name, name) == 0) return &sc__scenes[i];
    return NULL;
}

sc_params sc_default_params(void)
{
    sc_params p;
    memset(&p, 0, sizeof p);
    p.quality_weight = -1.0;
    p.travel_weight = -1.0;
    p.threads = 1;   /* as rc_default_sim_def: threads are opt-in */
    return p;
}

void sc_destroy(sc_scene *sc)
{
    if (!sc) return;
    rc_sim_destroy(sc->sim);
    rc_mesh_free(&sc->mesh);
    free(sc->pin_vertex);
    free(sc->pin_rest);
    free(sc->seam_a);
    free(sc->seam_b);
    {
        int k;
        for (k = 0; k < SC_MAX_OBSTACLES; k++)
            if (sc->obs[k].mesh_owned) { free(sc->obs[k].mesh_x); free(sc->obs[k].mesh_tris); }
    }
    sc__rig_free(sc->rig);
    memset(sc, 0, sizeof *sc);
}

rc_status sc_create(sc_scene *sc, const sc_info *info, const sc_params *p)
{
    sc_params q;
    rc_status st;
    if (!sc || !info || !p) return RC_ERR_INVALID_ARGUMENT;
    memset(sc, 0, sizeof *sc);
    q = *p;
    if (q.verts <= 0) q.verts = info->default_verts;
    sc->info = info;
    sc->def = rc_default_sim_def();
    st = info->build(sc, &q);
    if (st != RC_OK) { sc_destroy(sc); return st; }
    return RC_OK;
}

rc_status sc_step(sc_scene *sc, rc_step_stats *st)
{
    rc_status r;
    if (!sc || !sc->sim) return RC_ERR_INVALID_ARGUMENT;
    if (sc->info->animate) sc->info->animate(sc, sc->time + sc->def.dt);
    r = rc_sim_step(sc->sim, st);
    if (r == RC_OK) { sc->time += sc->def.dt; sc->steps++; }
    return r;
}
