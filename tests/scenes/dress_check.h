/* tests/scenes/dress_check.h - an exact-geometry intersection check of a scene's state, independent
   of the simulator's barrier and CCD (issue 6: "scene tests with an independent exact intersection
   check on every accepted iterate"). Used by the dress check runner (tests/scenes/dress_check.c)
   and the dress test in tests/test_sim.c. Needs scenes.h (sc_scene, sc_obstacle) and libc/libm.

   What is checked (plain double arithmetic; the barrier keeps every pair >= the contact thickness
   of 1 mm apart, so a sign decided at 1e-16 relative precision is never in question):
     - NaN / inf in the cloth positions;
     - capsules: distance of every cloth vertex to the capsule segment minus the radius (> 0 required);
       cloth edges vs the segment too (reported, not required: capsules act on cloth vertices only,
       so an edge may dip into a capsule between its vertices, rcloth.h rc_sim_last_warning);
     - closed mesh obstacles (SC_MESH): every cloth vertex outside (generalised winding number
       |w| < 1/2), no cloth edge crossing a mesh triangle, no mesh edge crossing a cloth triangle,
       min vertex-triangle distance in both directions within a band; reported apart for the body
       (radius 0) and for meshes that tessellate a capsule (radius > 0: the dress legs);
     - such a tessellated capsule is also compared with the ideal capsule it approximates (info,
       not required: the mesh is the obstacle, its flat faces lie up to r (1 - cos(pi/n)) inside the
       ideal surface): the max depth of cloth vertices and of cloth edge points inside it;
     - the cloth against itself: no edge crossing a triangle it does not share a vertex with, and
       the min distance of non-adjacent vertex-triangle and edge-edge pairs within a band. */
#ifndef RCLOTH_DRESS_CHECK_H
#define RCLOTH_DRESS_CHECK_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct dc_report {
    int nan;             /* non-finite cloth coordinates */
    int cap_inside;      /* (vertex, capsule) pairs with distance to the segment <= radius */
    double cap_gap;      /* min over cloth vertices and capsules of distance - radius, m */
    double cap_edge_gap; /* min over cloth edges of segment-segment distance - radius (info; < 0: an edge dips in) */
    int mesh_inside;     /* cloth vertices inside a closed mesh obstacle */
    int mesh_cross;      /* cloth edge x mesh triangle and mesh edge x cloth triangle crossings */
    double mesh_gap;     /* min cloth vertex - mesh triangle and mesh vertex - cloth triangle distance (band capped) */
    int leg_inside;      /* the same for the tessellated-capsule meshes (legs) */
    int leg_cross;
    double leg_gap;
    double leg_vdip;     /* info: max depth of a cloth vertex inside a leg's ideal capsule (0: none inside), m */
    double leg_edip;     /* info: max depth of a cloth edge point inside a leg's ideal capsule ("edge dip"), m */
    int self_cross;      /* cloth edge x cloth triangle crossings, the pair sharing no vertex */
    double self_gap;     /* min non-adjacent cloth vertex-triangle / edge-edge distance (band capped) */
} dc_report;

static int dc_bad(const dc_report *r)
{
    return r->nan > 0 || r->cap_inside > 0 || r->mesh_inside > 0 || r->mesh_cross > 0 || r->self_cross > 0 ||
           r->leg_inside > 0 || r->leg_cross > 0;
}

static void dc__sub(double *r, const double *a, const double *b) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static double dc__dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void dc__cross(double *r, const double *a, const double *b)
{
    r[0] = a[1] * b[2] - a[2] * b[1]; r[1] = a[2] * b[0] - a[0] * b[2]; r[2] = a[0] * b[1] - a[1] * b[0];
}
/* orientation of d against the plane (a, b, c): det[b - a, c - a, d - a] */
static double dc__orient(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3], n[3];
    dc__sub(u, b, a); dc__sub(v, c, a); dc__sub(w, d, a);
    dc__cross(n, u, v);
    return dc__dot(n, w);
}
/* segment pq crosses (or touches) triangle abc; coplanar configurations count as no crossing */
static int dc__seg_tri(const double *p, const double *q, const double *a, const double *b, const double *c)
{
    double s1 = dc__orient(a, b, c, p), s2 = dc__orient(a, b, c, q), t1, t2, t3;
    if ((s1 > 0.0 && s2 > 0.0) || (s1 < 0.0 && s2 < 0.0) || (s1 == 0.0 && s2 == 0.0)) return 0;
    t1 = dc__orient(p, q, a, b); t2 = dc__orient(p, q, b, c); t3 = dc__orient(p, q, c, a);
    return (t1 >= 0.0 && t2 >= 0.0 && t3 >= 0.0) || (t1 <= 0.0 && t2 <= 0.0 && t3 <= 0.0);
}
static double dc__clamp01(double t) { return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t); }
static double dc__point_seg(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3], t, d[3], L = 0.0;
    dc__sub(ab, b, a); dc__sub(ap, p, a);
    L = dc__dot(ab, ab);
    t = L > 0.0 ? dc__clamp01(dc__dot(ap, ab) / L) : 0.0;
    d[0] = ap[0] - t * ab[0]; d[1] = ap[1] - t * ab[1]; d[2] = ap[2] - t * ab[2];
    return sqrt(dc__dot(d, d));
}
/* closest distance between segments p0p1 and q0q1 (clamped parameters, degenerate cases handled) */
static double dc__seg_seg(const double *p0, const double *p1, const double *q0, const double *q1)
{
    double d1[3], d2[3], r[3], a, e, f, s, t, c, b, den, x[3];
    dc__sub(d1, p1, p0); dc__sub(d2, q1, q0); dc__sub(r, p0, q0);
    a = dc__dot(d1, d1); e = dc__dot(d2, d2); f = dc__dot(d2, r);
    if (a <= 0.0 && e <= 0.0) return sqrt(dc__dot(r, r));
    if (a <= 0.0) { s = 0.0; t = dc__clamp01(f / e); }
    else {
        c = dc__dot(d1, r);
        if (e <= 0.0) { t = 0.0; s = dc__clamp01(-c / a); }
        else {
            b = dc__dot(d1, d2); den = a * e - b * b;
            s = den > 0.0 ? dc__clamp01((b * f - c * e) / den) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) { t = 0.0; s = dc__clamp01(-c / a); }
            else if (t > 1.0) { t = 1.0; s = dc__clamp01((b - c) / a); }
        }
    }
    x[0] = r[0] + s * d1[0] - t * d2[0]; x[1] = r[1] + s * d1[1] - t * d2[1]; x[2] = r[2] + s * d1[2] - t * d2[2];
    return sqrt(dc__dot(x, x));
}
/* point-triangle distance (closest point by Voronoi regions of the triangle) */
static double dc__point_tri(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], ap[3], n[3], nn, u, v, w, d;
    dc__sub(ab, b, a); dc__sub(ac, c, a); dc__sub(ap, p, a);
    dc__cross(n, ab, ac);
    nn = dc__dot(n, n);
    if (nn > 0.0) {
        double bp[3], cp[3], m[3];
        /* barycentrics of the projection: signed areas of the sub-triangles over the normal */
        dc__sub(bp, p, b); dc__sub(cp, p, c);
        { double e1[3], e2[3]; dc__sub(e1, c, b); dc__cross(m, e1, bp); u = dc__dot(m, n) / nn; dc__sub(e2, a, c); dc__cross(m, e2, cp); v = dc__dot(m, n) / nn; }
        w = 1.0 - u - v;
        if (u >= 0.0 && v >= 0.0 && w >= 0.0) { d = dc__dot(ap, n); return fabs(d) / sqrt(nn); }
    }
    d = dc__point_seg(p, a, b);
    u = dc__point_seg(p, b, c); if (u < d) d = u;
    u = dc__point_seg(p, c, a); if (u < d) d = u;
    return d;
}
/* solid angle of triangle abc seen from p (van Oosterom and Strackee), for the winding number */
static double dc__solid_angle(const double *p, const double *a, const double *b, const double *c)
{
    double A[3], B[3], C[3], la, lb, lc, num, den, bc[3];
    dc__sub(A, a, p); dc__sub(B, b, p); dc__sub(C, c, p);
    la = sqrt(dc__dot(A, A)); lb = sqrt(dc__dot(B, B)); lc = sqrt(dc__dot(C, C));
    dc__cross(bc, B, C);
    num = dc__dot(A, bc);
    den = la * lb * lc + dc__dot(A, B) * lc + dc__dot(A, C) * lb + dc__dot(B, C) * la;
    return 2.0 * atan2(num, den);
}
static void dc__box(int n, const double *const *P, double pad, double *lo, double *hi)
{
    int i, c;
    for (c = 0; c < 3; c++) { lo[c] = HUGE_VAL; hi[c] = -HUGE_VAL; }
    for (i = 0; i < n; i++)
        for (c = 0; c < 3; c++) { if (P[i][c] < lo[c]) lo[c] = P[i][c]; if (P[i][c] > hi[c]) hi[c] = P[i][c]; }
    for (c = 0; c < 3; c++) { lo[c] -= pad; hi[c] += pad; }
}
static int dc__overlap(const double *alo, const double *ahi, const double *blo, const double *bhi)
{
    return alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] && alo[2] <= bhi[2] && blo[2] <= ahi[2];
}
static int dc__cmp2(const void *pa, const void *pb)
{
    const int *a = (const int *)pa, *b = (const int *)pb;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0);
}
/* unique edges of a triangle list: 2*ne ints (malloc), returns ne (-1 out of memory) */
static int dc__edges(int nt, const int *tris, int **out)
{
    int *e = (int *)malloc(sizeof(int) * 6 * (size_t)(nt > 0 ? nt : 1)), t, k, n = 0, m = 0;
    if (!e) return -1;
    for (t = 0; t < nt; t++)
        for (k = 0; k < 3; k++) {
            int a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            e[2 * n] = a < b ? a : b; e[2 * n + 1] = a < b ? b : a; n++;
        }
    qsort(e, (size_t)n, 2 * sizeof(int), dc__cmp2);
    for (t = 0; t < n; t++)
        if (m == 0 || e[2 * t] != e[2 * (m - 1)] || e[2 * t + 1] != e[2 * (m - 1) + 1]) { e[2 * m] = e[2 * t]; e[2 * m + 1] = e[2 * t + 1]; m++; }
    *out = e;
    return m;
}

/* ---- a uniform grid over the cloth triangles (their boxes grown by the band), hashed into buckets */
typedef struct dc__grid {
    double h;            /* cell size */
    int nb;              /* buckets */
    int *start, *items;  /* CSR: bucket b holds items[start[b] .. start[b+1]) (triangle ids) */
} dc__grid;
static unsigned dc__hash(long i, long j, long k, int nb)
{
    unsigned long h = (unsigned long)(i * 73856093L) ^ (unsigned long)(j * 19349663L) ^ (unsigned long)(k * 83492791L);
    return (unsigned)(h % (unsigned long)nb);
}
static void dc__cells(const dc__grid *g, const double *lo, const double *hi, long *c0, long *c1)
{
    int c;
    for (c = 0; c < 3; c++) { c0[c] = (long)floor(lo[c] / g->h); c1[c] = (long)floor(hi[c] / g->h); }
}
static int dc__grid_build(dc__grid *g, int nt, const int *tris, const double *x, double pad, double h)
{
    int pass, t;
    long c0[3], c1[3], i, j, k;
    g->h = h; g->nb = 4 * nt + 1;
    g->start = (int *)calloc((size_t)g->nb + 1, sizeof(int));
    g->items = NULL;
    if (!g->start) return -1;
    for (pass = 0; pass < 2; pass++) {
        int *fill = NULL;
        if (pass == 1) {
            int b, tot = 0;
            for (b = 0; b < g->nb; b++) { int n = g->start[b]; g->start[b] = tot; tot += n; }
            g->start[g->nb] = tot;
            g->items = (int *)malloc(sizeof(int) * (size_t)(tot > 0 ? tot : 1));
            fill = (int *)malloc(sizeof(int) * (size_t)g->nb);
            if (!g->items || !fill) { free(fill); return -1; }
            memcpy(fill, g->start, sizeof(int) * (size_t)g->nb);
        }
        for (t = 0; t < nt; t++) {
            const double *P[3];
            double lo[3], hi[3];
            P[0] = x + 3 * tris[3 * t]; P[1] = x + 3 * tris[3 * t + 1]; P[2] = x + 3 * tris[3 * t + 2];
            dc__box(3, P, pad, lo, hi);
            dc__cells(g, lo, hi, c0, c1);
            for (i = c0[0]; i <= c1[0]; i++)
                for (j = c0[1]; j <= c1[1]; j++)
                    for (k = c0[2]; k <= c1[2]; k++) {
                        unsigned b = dc__hash(i, j, k, g->nb);
                        if (pass == 0) g->start[b]++;
                        else g->items[fill[b]++] = t;
                    }
        }
        free(fill);
    }
    return 0;
}
static void dc__grid_free(dc__grid *g) { free(g->start); free(g->items); g->start = g->items = NULL; }

static int dc__shares(const int *e, const int *t)
{
    return e[0] == t[0] || e[0] == t[1] || e[0] == t[2] || e[1] == t[0] || e[1] == t[1] || e[1] == t[2];
}

/* one closed mesh obstacle (index o) against the cloth: counts and min distance accumulated into
   inside / cross / gap. Returns 0, or -1 when out of memory. */
static int dc__mesh(const sc_obstacle *ob, int o, const double *x, const int *tris, int nv, int nt, const int *E, int ne,
                    const dc__grid *g, int *stamp, double band, int *inside, int *cross, double *gap)
{
    int i, t;
    const double *mx = ob->mesh_x;
    const int *mt = ob->mesh_tris;
    double mlo[3], mhi[3];
    int *ME = NULL, mne = dc__edges(ob->mesh_nt, mt, &ME), j;
    if (mne < 0) return -1;
    for (j = 0; j < 3; j++) { mlo[j] = HUGE_VAL; mhi[j] = -HUGE_VAL; }
    for (i = 0; i < ob->mesh_nv; i++)
        for (j = 0; j < 3; j++) { if (mx[3 * i + j] < mlo[j]) mlo[j] = mx[3 * i + j]; if (mx[3 * i + j] > mhi[j]) mhi[j] = mx[3 * i + j]; }
    /* cloth vertices: inside (winding number) and distance to the mesh triangles */
    for (i = 0; i < nv; i++) {
        const double *p = x + 3 * i;
        double plo[3], phi_[3], w = 0.0;
        for (j = 0; j < 3; j++) { plo[j] = p[j] - band; phi_[j] = p[j] + band; }
        if (p[0] >= mlo[0] && p[0] <= mhi[0] && p[1] >= mlo[1] && p[1] <= mhi[1] && p[2] >= mlo[2] && p[2] <= mhi[2]) {
            for (t = 0; t < ob->mesh_nt; t++)
                w += dc__solid_angle(p, mx + 3 * mt[3 * t], mx + 3 * mt[3 * t + 1], mx + 3 * mt[3 * t + 2]);
            if (fabs(w) > 2.0 * 3.14159265358979323846) (*inside)++;   /* |w| / 4 pi > 1/2 */
        }
        if (!dc__overlap(plo, phi_, mlo, mhi)) continue;
        for (t = 0; t < ob->mesh_nt; t++) {
            const double *P[3];
            double lo[3], hi[3], d;
            P[0] = mx + 3 * mt[3 * t]; P[1] = mx + 3 * mt[3 * t + 1]; P[2] = mx + 3 * mt[3 * t + 2];
            dc__box(3, P, 0.0, lo, hi);
            if (!dc__overlap(plo, phi_, lo, hi)) continue;
            d = dc__point_tri(p, P[0], P[1], P[2]);
            if (d < *gap) *gap = d;
        }
    }
    /* cloth edges x mesh triangles */
    for (i = 0; i < ne; i++) {
        const double *P[2];
        double lo[3], hi[3];
        P[0] = x + 3 * E[2 * i]; P[1] = x + 3 * E[2 * i + 1];
        dc__box(2, P, 0.0, lo, hi);
        if (!dc__overlap(lo, hi, mlo, mhi)) continue;
        for (t = 0; t < ob->mesh_nt; t++) {
            const double *Q[3];
            double tlo[3], thi[3];
            Q[0] = mx + 3 * mt[3 * t]; Q[1] = mx + 3 * mt[3 * t + 1]; Q[2] = mx + 3 * mt[3 * t + 2];
            dc__box(3, Q, 0.0, tlo, thi);
            if (dc__overlap(lo, hi, tlo, thi) && dc__seg_tri(P[0], P[1], Q[0], Q[1], Q[2])) (*cross)++;
        }
    }
    /* mesh edges x cloth triangles, mesh vertices - cloth triangles (grid query) */
    for (i = 0; i < mne + ob->mesh_nv; i++) {
        const double *P[2];
        double lo[3], hi[3];
        long c0[3], c1[3], ci, cj, ck;
        int is_edge = i < mne;
        P[0] = mx + 3 * (is_edge ? ME[2 * i] : i - mne); P[1] = is_edge ? mx + 3 * ME[2 * i + 1] : P[0];
        dc__box(2, P, 0.0, lo, hi);
        dc__cells(g, lo, hi, c0, c1);
        for (ci = c0[0]; ci <= c1[0]; ci++)
            for (cj = c0[1]; cj <= c1[1]; cj++)
                for (ck = c0[2]; ck <= c1[2]; ck++) {
                    unsigned bk = dc__hash(ci, cj, ck, g->nb);
                    int q;
                    for (q = g->start[bk]; q < g->start[bk + 1]; q++) {
                        int tt = g->items[q];
                        const double *a = x + 3 * tris[3 * tt], *b = x + 3 * tris[3 * tt + 1], *c = x + 3 * tris[3 * tt + 2];
                        if (stamp[tt] == i + (o + 1) * 1000000) continue;
                        stamp[tt] = i + (o + 1) * 1000000;
                        if (is_edge) { if (dc__seg_tri(P[0], P[1], a, b, c)) (*cross)++; }
                        else { double d = dc__point_tri(P[0], a, b, c); if (d < *gap) *gap = d; }
                    }
                }
    }
    for (t = 0; t < nt; t++) stamp[t] = -1;
    free(ME);
    return 0;
}

/* depth of the cloth inside a leg's ideal capsule (axis p-q, radius) for information */
static void dc__capsule_dip(const sc_obstacle *ob, const double *x, int nv, const int *E, int ne, double *vdip, double *edip)
{
    double a[3], b[3];
    int i;
    sc_capsule_world(ob, a, b);
    for (i = 0; i < nv; i++) {
        double d = ob->radius - dc__point_seg(x + 3 * i, a, b);
        if (d > *vdip) *vdip = d;
    }
    for (i = 0; i < ne; i++) {
        double d = ob->radius - dc__seg_seg(x + 3 * E[2 * i], x + 3 * E[2 * i + 1], a, b);
        if (d > *edip) *edip = d;
    }
}

/* Check the scene's current cloth state against its capsules and closed meshes and itself.
   band: distances are evaluated up to this far (m; larger ones are reported as band).
   Returns 0, or -1 when out of memory. */
static int dc_check(const sc_scene *sc, double band, dc_report *r)
{
    const rc_sim *s = sc->sim;
    const double *x = rc_sim_positions(s);
    const int *tris = rc_sim_tris(s);
    int nv = rc_sim_num_verts(s), nt = rc_sim_num_tris(s), ne, *E = NULL, *stamp = NULL, i, o, t;
    double hsum = 0.0;
    dc__grid g;
    memset(r, 0, sizeof *r);
    r->cap_gap = r->cap_edge_gap = r->mesh_gap = r->leg_gap = r->self_gap = band;
    for (i = 0; i < 3 * nv; i++) if (!(x[i] - x[i] == 0.0)) r->nan++;
    if (r->nan) return 0;
    ne = dc__edges(nt, tris, &E);
    if (ne < 0) return -1;
    for (i = 0; i < ne; i++) { double d[3]; dc__sub(d, x + 3 * E[2 * i], x + 3 * E[2 * i + 1]); hsum += sqrt(dc__dot(d, d)); }
    if (dc__grid_build(&g, nt, tris, x, band, hsum / (ne > 0 ? ne : 1) + band) != 0) { free(E); return -1; }
    stamp = (int *)malloc(sizeof(int) * (size_t)(nt > 0 ? nt : 1));
    if (!stamp) { free(E); dc__grid_free(&g); return -1; }
    for (t = 0; t < nt; t++) stamp[t] = -1;

    for (o = 0; o < sc->nobs; o++) {
        const sc_obstacle *ob = &sc->obs[o];
        if (ob->kind == SC_CAPSULE) {
            double a[3], b[3];
            sc_capsule_world(ob, a, b);
            for (i = 0; i < nv; i++) {
                double d = dc__point_seg(x + 3 * i, a, b) - ob->radius;
                if (d <= 0.0) r->cap_inside++;
                if (d < r->cap_gap) r->cap_gap = d;
            }
            for (i = 0; i < ne; i++) {
                double d = dc__seg_seg(x + 3 * E[2 * i], x + 3 * E[2 * i + 1], a, b) - ob->radius;
                if (d < r->cap_edge_gap) r->cap_edge_gap = d;
            }
        } else if (ob->kind == SC_MESH) {
            int rc = ob->radius > 0.0 ? dc__mesh(ob, o, x, tris, nv, nt, E, ne, &g, stamp, band, &r->leg_inside, &r->leg_cross, &r->leg_gap)
                                      : dc__mesh(ob, o, x, tris, nv, nt, E, ne, &g, stamp, band, &r->mesh_inside, &r->mesh_cross, &r->mesh_gap);
            if (rc != 0) { free(E); free(stamp); dc__grid_free(&g); return -1; }
            if (ob->radius > 0.0) dc__capsule_dip(ob, x, nv, E, ne, &r->leg_vdip, &r->leg_edip);
        }
    }

    /* cloth against itself: every edge against the triangles in its cells */
    for (i = 0; i < ne; i++) {
        const int *e = E + 2 * i;
        const double *P[2];
        double lo[3], hi[3];
        long c0[3], c1[3], ci, cj, ck;
        P[0] = x + 3 * e[0]; P[1] = x + 3 * e[1];
        dc__box(2, P, 0.0, lo, hi);
        dc__cells(&g, lo, hi, c0, c1);
        for (ci = c0[0]; ci <= c1[0]; ci++)
            for (cj = c0[1]; cj <= c1[1]; cj++)
                for (ck = c0[2]; ck <= c1[2]; ck++) {
                    unsigned bk = dc__hash(ci, cj, ck, g.nb);
                    int q, k;
                    for (q = g.start[bk]; q < g.start[bk + 1]; q++) {
                        int tt = g.items[q];
                        const int *T = tris + 3 * tt;
                        const double *a = x + 3 * T[0], *b = x + 3 * T[1], *c = x + 3 * T[2];
                        if (stamp[tt] == i) continue;
                        stamp[tt] = i;
                        if (!dc__shares(e, T) && dc__seg_tri(P[0], P[1], a, b, c)) r->self_cross++;
                        /* distances: the edge's end points to the triangle, the edge to the triangle's edges */
                        for (k = 0; k < 2; k++)
                            if (e[k] != T[0] && e[k] != T[1] && e[k] != T[2]) {
                                double d = dc__point_tri(P[k], a, b, c);
                                if (d < r->self_gap) r->self_gap = d;
                            }
                        for (k = 0; k < 3; k++) {
                            int f0 = T[k], f1 = T[(k + 1) % 3];
                            if (f0 == e[0] || f0 == e[1] || f1 == e[0] || f1 == e[1]) continue;
                            {
                                double d = dc__seg_seg(P[0], P[1], x + 3 * f0, x + 3 * f1);
                                if (d < r->self_gap) r->self_gap = d;
                            }
                        }
                    }
                }
    }
    free(E); free(stamp); dc__grid_free(&g);
    return 0;
}
#endif /* RCLOTH_DRESS_CHECK_H */
