#include "test.h"

/* ---- helpers ---- */

static double tm_area2(const double *uv, const int *t)
{
    const double *a = uv + 2 * t[0], *b = uv + 2 * t[1], *c = uv + 2 * t[2];
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* The boundary loops of a topology, traced here from its boundary half-edges (an edge with one
   triangle, run as that triangle runs it: the domain on its left). The library keeps only each
   boundary vertex's neighbours (bnd_prev / bnd_next); the loops check them and the edge tables.
   At a vertex with several outgoing boundary half-edges (a bow-tie) the trace takes the first
   unused one, so every loop closes. n loops, loop l = v[ptr[l] .. ptr[l + 1]). */
typedef struct tm_loops { int n, *ptr, *v; } tm_loops;

static tm_loops tm_trace_loops(const rc__topo *t, const int *tris)
{
    tm_loops L;
    int e, nb = 0, s0, nv = 0, *from = (int *)malloc(sizeof(int) * (size_t)(t->ne + 1));
    int *to = (int *)malloc(sizeof(int) * (size_t)(t->ne + 1));
    unsigned char *used = (unsigned char *)calloc((size_t)t->ne + 1, 1);
    L.n = 0;
    L.ptr = (int *)malloc(sizeof(int) * (size_t)(t->ne + 2));
    L.v = (int *)malloc(sizeof(int) * (size_t)(t->ne + 1));
    for (e = 0; e < t->ne; ++e)
        if (t->edge_tri[2 * e + 1] < 0) {
            int tr = t->edge_tri[2 * e], k = t->edge_k[2 * e];
            from[nb] = tris[3 * tr + (k + 1) % 3];
            to[nb++] = tris[3 * tr + (k + 2) % 3];
        }
    L.ptr[0] = 0;
    for (s0 = 0; s0 < nb; ++s0) {
        int cur = s0;
        if (used[s0]) continue;
        while (cur >= 0 && !used[cur]) {
            int j, nxt = -1;
            used[cur] = 1;
            L.v[nv++] = from[cur];
            for (j = 0; j < nb && nxt < 0; ++j) if (!used[j] && from[j] == to[cur]) nxt = j;
            cur = nxt;
        }
        L.ptr[++L.n] = nv;
    }
    free(from); free(to); free(used);
    return L;
}

static void tm_loops_free(tm_loops *L) { free(L->ptr); free(L->v); }

/* signed area of a boundary loop polygon (shoelace), > 0 when counter-clockwise */
static double tm_loop_area(const tm_loops *L, const double *uv, int l)
{
    double s = 0.0;
    int i, n = L->ptr[l + 1] - L->ptr[l];
    for (i = 0; i < n; ++i) {
        const double *p = uv + 2 * L->v[L->ptr[l] + i], *q = uv + 2 * L->v[L->ptr[l] + (i + 1) % n];
        s += p[0] * q[1] - p[1] * q[0];
    }
    return 0.5 * s;
}

/* the number of boundary loops */
static int tm_nloops(const rc__topo *t, const int *tris)
{
    tm_loops L = tm_trace_loops(t, tris);
    int n = L.n;
    tm_loops_free(&L);
    return n;
}

/* every structural invariant of a topology that can be checked locally; returns failures */
static int tm_check_topo(const rc__topo *t, const int *tris)
{
    int bad = 0, h, v, e, j;
    for (h = 0; h < 3 * t->nt; ++h) {
        int tr = h / 3, k = h % 3, e2 = t->tri_edge[h], p = tris[3 * tr + (k + 1) % 3], q = tris[3 * tr + (k + 2) % 3];
        int n = t->tri_nbr[h];
        if (e2 < 0 || e2 >= t->ne) { ++bad; continue; }
        if (t->edge_v[2 * e2] != (p < q ? p : q) || t->edge_v[2 * e2 + 1] != (p < q ? q : p)) ++bad;
        if (n >= 0) {
            int k2 = t->tri_edge[3 * n] == e2 ? 0 : t->tri_edge[3 * n + 1] == e2 ? 1 : 2;
            if (t->tri_nbr[3 * n + k2] != tr || t->tri_edge[3 * n + k2] != e2) ++bad;
            if (t->tri_flap[h] != tris[3 * n + k2]) ++bad;
            if (t->tri_flap[h] == tris[3 * tr] || t->tri_flap[h] == tris[3 * tr + 1] || t->tri_flap[h] == tris[3 * tr + 2]) ++bad;
        } else if (t->tri_flap[h] != -1 || t->edge_tri[2 * e2 + 1] != -1) ++bad;
    }
    for (e = 0; e < t->ne; ++e) {
        int s;
        if (!(t->edge_v[2 * e] < t->edge_v[2 * e + 1])) ++bad;
        for (s = 0; s < 2; ++s) {
            int tr = t->edge_tri[2 * e + s];
            if (tr >= 0 && t->tri_edge[3 * tr + t->edge_k[2 * e + s]] != e) ++bad;
        }
        if (t->edge_tri[2 * e + 1] >= 0 && !(t->edge_tri[2 * e] < t->edge_tri[2 * e + 1])) ++bad;
    }
    for (v = 0; v < t->nv; ++v) {
        for (j = t->vv_ptr[v]; j < t->vv_ptr[v + 1]; ++j) {
            int w = t->vv_idx[j], ee = t->vv_edge[j];
            if (j > t->vv_ptr[v] && !(t->vv_idx[j - 1] < w)) ++bad;
            if (!((t->edge_v[2 * ee] == v && t->edge_v[2 * ee + 1] == w) || (t->edge_v[2 * ee] == w && t->edge_v[2 * ee + 1] == v))) ++bad;
        }
        for (j = t->vt_ptr[v]; j < t->vt_ptr[v + 1]; ++j) {
            int tr = t->vt_idx[j];
            if (tris[3 * tr] != v && tris[3 * tr + 1] != v && tris[3 * tr + 2] != v) ++bad;
        }
    }
    if (t->vt_ptr[t->nv] != 3 * t->nt || t->vv_ptr[t->nv] != 2 * t->ne) ++bad;
    return bad;
}

static int tm_count_kind(const rc__topo *t, int kind)
{
    int v, n = 0;
    for (v = 0; v < t->nv; ++v) n += t->vkind[v] == kind;
    return n;
}

/* ---- edges and adjacency on hand-made meshes ---- */

static void test_mesh_edges_hand(void)
{
    /* unit square split along 0-2: t0 = (0,1,2), t1 = (0,2,3) */
    static const int tris[6] = {0, 1, 2, 0, 2, 3};
    static const double uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const int want_te[6] = {0, 1, 2, 3, 4, 1};   /* (1,2) (2,0) (0,1) | (2,3) (3,0) (0,2)=e1 */
    rc_trimesh m;
    rc__topo t;
    int i;
    m.num_verts = 4; m.num_tris = 2; m.tris = tris;
    CHECK(rc_trimesh_num_edges(&m) == 5);
    CHECK_OK(rc__topo_build(&t, NULL, 4, 2, tris, uv));
    CHECK(t.ne == 5);
    for (i = 0; i < 6; ++i) CHECK(t.tri_edge[i] == want_te[i]);
    CHECK(t.edge_v[2] == 0 && t.edge_v[3] == 2);
    CHECK(t.edge_tri[2] == 0 && t.edge_tri[3] == 1);
    CHECK(t.tri_nbr[1] == 1 && t.tri_flap[1] == 3 && t.tri_edge[3 * 1 + 2] == t.tri_edge[1]);
    CHECK(t.tri_nbr[5] == 0 && t.tri_flap[5] == 1 && t.tri_edge[3 * 0 + 1] == t.tri_edge[5]);
    CHECK(t.tri_nbr[0] == -1 && t.tri_nbr[2] == -1 && t.tri_nbr[3] == -1 && t.tri_nbr[4] == -1);
    CHECK(t.tri_flap[0] == -1);
    CHECK(t.vt_ptr[1] - t.vt_ptr[0] == 2 && t.vt_ptr[2] - t.vt_ptr[1] == 1);
    /* vertex 0: neighbours 1, 2, 3 sorted */
    CHECK(t.vv_ptr[1] - t.vv_ptr[0] == 3);
    CHECK(t.vv_idx[t.vv_ptr[0]] == 1 && t.vv_idx[t.vv_ptr[0] + 1] == 2 && t.vv_idx[t.vv_ptr[0] + 2] == 3);
    CHECK(t.vv_edge[t.vv_ptr[0] + 1] == 1);
    {
        tm_loops L = tm_trace_loops(&t, tris);
        CHECK(L.n == 1 && L.ptr[1] == 4);
        CHECK(tm_loop_area(&L, uv, 0) > 0.99);   /* ccw, area 1 */
        tm_loops_free(&L);
    }
    /* the four corners of a square are corners (90 degree turns) */
    CHECK(tm_count_kind(&t, RC__VK_CORNER) == 4);
    CHECK(tm_check_topo(&t, tris) == 0);
    rc__topo_free(&t, NULL);
    CHECK(t.tri_edge == NULL);
}

static void test_mesh_edges_closed_and_invalid(void)
{
    /* tetrahedron surface (closed, consistently wound): V - E + F = 2, no boundary */
    static const int tet[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
    static const int bad_range[3] = {0, 1, 5};
    static const int bad_rep[3] = {0, 1, 1};
    rc_trimesh m;
    rc__topo t;
    int v;
    m.num_verts = 4; m.num_tris = 4; m.tris = tet;
    CHECK(rc_trimesh_num_edges(&m) == 6);
    CHECK_OK(rc__topo_build(&t, NULL, 4, 4, tet, NULL));
    CHECK(t.ne == 6 && tm_nloops(&t, tet) == 0);
    CHECK(t.nv - t.ne + t.nt == 2);
    for (v = 0; v < 4; ++v) CHECK(t.vkind[v] == RC__VK_INTERIOR);
    CHECK(tm_check_topo(&t, tet) == 0);
    rc__topo_free(&t, NULL);

    CHECK(rc_trimesh_num_edges(NULL) == -1);
    m.num_verts = 4; m.num_tris = 1; m.tris = bad_range;
    CHECK(rc_trimesh_num_edges(&m) == -1);
    m.tris = bad_rep;
    CHECK(rc_trimesh_num_edges(&m) == -1);
    m.tris = NULL;
    CHECK(rc_trimesh_num_edges(&m) == -1);
    m.num_tris = 0;
    CHECK(rc_trimesh_num_edges(&m) == 0);
    m.num_tris = -1;
    CHECK(rc_trimesh_num_edges(&m) == -1);
    CHECK(rc__topo_build(NULL, NULL, 4, 1, tet, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc__topo_build(&t, NULL, 4, 1, bad_range, NULL) == RC_ERR_MESH_INDEX);
    CHECK(rc__topo_build(&t, NULL, 4, 0, tet, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(t.tri_edge == NULL);
}

static void test_mesh_topo_nonmanifold(void)
{
    /* three triangles on edge 0-1 */
    static const int fin[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    /* two triangles running edge 0-1 the same way */
    static const int wind[6] = {0, 1, 2, 0, 1, 3};
    /* bow-tie: two triangles sharing only vertex 0 */
    static const int bow[6] = {0, 1, 2, 0, 3, 4};
    static const double bow_uv[10] = {0, 0, 1, 0, 1, 1, -1, 0, -1, -1};
    rc__topo t;
    CHECK(rc__topo_build(&t, NULL, 5, 3, fin, NULL) == RC_ERR_MESH_NON_MANIFOLD);
    CHECK(rc__topo_build(&t, NULL, 4, 2, wind, NULL) == RC_ERR_MESH_NON_MANIFOLD);
    CHECK_OK(rc__topo_build(&t, NULL, 5, 2, bow, bow_uv));
    {
        tm_loops L = tm_trace_loops(&t, bow);
        CHECK(L.n >= 1);
        CHECK(L.ptr[L.n] == 6);               /* every boundary edge in exactly one loop */
        tm_loops_free(&L);
    }
    CHECK(t.vkind[0] == RC__VK_CORNER);       /* non-manifold vertex is fixed */
    CHECK(t.bnd_next[0] == -1 && t.bnd_prev[0] == -1);
    CHECK(tm_check_topo(&t, bow) == 0);
    rc__topo_free(&t, NULL);
}

/* ---- grid: classification, loops, Euler ---- */

/* Straight sides of a 1 m square turned by 30 or 17 degrees, its coordinates rounded to 6
   decimals as an OBJ file writes them: every vertex on a side still slides (along its side), at
   edges of 9.1 cm, 1 cm and 2.5 mm, and the four corners do not (RC__MESH_STRAIGHT_TOL: with the
   turning-angle tolerance of 1e-9 none of the 9.1 cm sides' 40 vertices slid; with 1e-4, 58 of
   396 at 1 cm and 971 of 1,596 at 2.5 mm froze). Rounded to 4 decimals (+-5e-5 m) most freeze:
   the tolerance is not unbounded. */
static void test_mesh_rounded_sides_slide(void)
{
    static const int ns[4] = { 12, 101, 401, 12 };
    static const double deg[4] = { 30.0, 17.0, 30.0, 30.0 }, scale[4] = { 1e6, 1e6, 1e6, 1e4 };
    int run;
    for (run = 0; run < 4; ++run) {
        const int n = ns[run];
        double c = cos(deg[run] * 3.14159265358979 / 180.0), sn = sin(deg[run] * 3.14159265358979 / 180.0);
        rc_mesh m;
        rc__topo t;
        int v, nslide = 0, nside = 4 * (n - 2), aligned = 0;
        CHECK_OK(rc_mesh_grid(&m, 1.0, 1.0, n, n, RC_DIAG_ALTERNATING));
        for (v = 0; v < m.num_verts; ++v) {
            double x = m.ref_uv[2 * v] + 0.0123, y = m.ref_uv[2 * v + 1] + 0.0456;
            m.ref_uv[2 * v] = floor((c * x - sn * y) * scale[run] + 0.5) / scale[run];
            m.ref_uv[2 * v + 1] = floor((sn * x + c * y) * scale[run] + 0.5) / scale[run];
        }
        CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
        for (v = 0; v < m.num_verts; ++v) {
            int i = v % n, j = v / n, onx = (i == 0 || i == n - 1), ony = (j == 0 || j == n - 1);
            if (onx && ony) CHECK(t.vkind[v] == RC__VK_CORNER);
            if (t.vkind[v] != RC__VK_SLIDING) continue;
            ++nslide;
            /* the slide direction is the side's: (c, s) along the bottom and top, (-s, c) on the others */
            if (fabs(fabs(t.slide_dir[2 * v] * (ony ? c : -sn) + t.slide_dir[2 * v + 1] * (ony ? sn : c)) - 1.0) < 1e-6) ++aligned;
        }
        printf("    %g degrees, edges %.4g m, rounded to %g m: %d of %d side vertices slide, %d along their side\n", deg[run],
               1.0 / (n - 1), 0.5 / scale[run], nslide, nside, aligned);
        if (run < 3) CHECK(nslide == nside && aligned == nside);
        else CHECK(nslide < nside / 2);
        rc__topo_free(&t, NULL);
        rc_mesh_free(&m);
    }
}

static void test_mesh_grid_topology(void)
{
    int d;
    for (d = 0; d < 4; ++d) {
        int diag = d < 3 ? d : RC_DIAG_RANDOM + 7, nx = 5, ny = 4, v, flipped = 1;
        rc_mesh m;
        rc__topo t;
        rc_trimesh tm;
        CHECK_OK(rc_mesh_grid(&m, 2.0, 1.5, nx, ny, diag));
        CHECK(m.num_verts == nx * ny && m.num_tris == 2 * (nx - 1) * (ny - 1));
        CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, NULL, 0));
        CHECK(flipped == 0);
        CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
        tm.num_verts = m.num_verts; tm.num_tris = m.num_tris; tm.tris = m.tris;
        CHECK(rc_trimesh_num_edges(&tm) == t.ne);
        CHECK(t.nv - t.ne + t.nt == 1);   /* disk topology */
        {
            tm_loops L = tm_trace_loops(&t, m.tris);
            CHECK(L.n == 1);
            CHECK(L.ptr[1] == 2 * (nx + ny) - 4);
            CHECK_NEAR(tm_loop_area(&L, m.ref_uv, 0), 3.0, 1e-12);   /* ccw around the domain */
            for (v = 0; v < L.ptr[1]; ++v) {   /* the boundary neighbours follow the loop */
                int a = L.v[v], b = L.v[(v + 1) % L.ptr[1]];
                CHECK(t.bnd_next[a] == b && t.bnd_prev[b] == a);
            }
            tm_loops_free(&L);
        }
        CHECK(tm_count_kind(&t, RC__VK_CORNER) == 4);
        CHECK(tm_count_kind(&t, RC__VK_SLIDING) == 2 * (nx - 2) + 2 * (ny - 2));
        CHECK(tm_count_kind(&t, RC__VK_INTERIOR) == (nx - 2) * (ny - 2));
        for (v = 0; v < t.nv; ++v) {
            int i = v % nx, j = v / nx;
            int onx = (i == 0 || i == nx - 1), ony = (j == 0 || j == ny - 1);
            int want = (onx && ony) ? RC__VK_CORNER : (onx || ony) ? RC__VK_SLIDING : RC__VK_INTERIOR;
            CHECK(t.vkind[v] == want);
            if (want == RC__VK_SLIDING) {   /* tangent along the side: (+-1, 0) on bottom/top, (0, +-1) on left/right */
                CHECK_NEAR(fabs(t.slide_dir[2 * v]), ony ? 1.0 : 0.0, 1e-15);
                CHECK_NEAR(fabs(t.slide_dir[2 * v + 1]), onx ? 1.0 : 0.0, 1e-15);
                CHECK(t.bnd_prev[v] >= 0 && t.bnd_next[v] >= 0);
            } else if (want == RC__VK_INTERIOR) {
                CHECK(t.slide_dir[2 * v] == 0.0 && t.bnd_prev[v] == -1);
            }
        }
        CHECK(tm_check_topo(&t, m.tris) == 0);
        rc__topo_free(&t, NULL);
        rc_mesh_free(&m);
        CHECK(m.tris == NULL && m.num_verts == 0);
    }
}

static void test_mesh_grid_patterns(void)
{
    /* the patterns differ: alternating flips every other cell, random flips some cells and is
       reproducible for a given seed and different across seeds */
    rc_mesh a, b, c, r1, r2, r3;
    int t, diff_ab = 0, diff_ac = 0, diff_r12 = 0, diff_r13 = 0;
    CHECK_OK(rc_mesh_grid(&a, 1, 1, 9, 9, RC_DIAG_REGULAR));
    CHECK_OK(rc_mesh_grid(&b, 1, 1, 9, 9, RC_DIAG_ALTERNATING));
    CHECK_OK(rc_mesh_grid(&c, 1, 1, 9, 9, RC_DIAG_RANDOM));
    CHECK_OK(rc_mesh_grid(&r1, 1, 1, 9, 9, RC_DIAG_RANDOM + 5));
    CHECK_OK(rc_mesh_grid(&r2, 1, 1, 9, 9, RC_DIAG_RANDOM + 5));
    CHECK_OK(rc_mesh_grid(&r3, 1, 1, 9, 9, RC_DIAG_RANDOM + 6));
    for (t = 0; t < 3 * a.num_tris; t += 6) {   /* first triangle of each cell */
        diff_ab += a.tris[t + 2] != b.tris[t + 2];
        diff_ac += a.tris[t + 2] != c.tris[t + 2];
        diff_r12 += r1.tris[t + 2] != r2.tris[t + 2];
        diff_r13 += r1.tris[t + 2] != r3.tris[t + 2];
    }
    CHECK(diff_ab == 32);                       /* half of the 64 cells */
    CHECK(diff_ac > 10 && diff_ac < 54);        /* ~32 expected; 10/54 are > 5 sigma away */
    CHECK(diff_r12 == 0 && diff_r13 > 0);
    rc_mesh_free(&a); rc_mesh_free(&b); rc_mesh_free(&c);
    rc_mesh_free(&r1); rc_mesh_free(&r2); rc_mesh_free(&r3);
}

/* ---- Delaunay square ---- */

static void test_mesh_square_delaunay(void)
{
    unsigned seed;
    for (seed = 1; seed <= 3; ++seed) {
        rc_mesh m;
        rc__topo t;
        int tr, v, viol = 0, flipped = 1;
        double min_angle = 180.0, pi = 3.14159265358979323846;
        CHECK_OK(rc_mesh_square(&m, 2.0, 300, seed));
        CHECK(m.num_verts == 289);   /* m = round(sqrt(300)) - 1 = 16 segments: 17^2 */
        CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, NULL, 0));
        CHECK(flipped == 0);
        CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
        CHECK(t.nv - t.ne + t.nt == 1 && tm_nloops(&t, m.tris) == 1);
        CHECK(tm_count_kind(&t, RC__VK_CORNER) == 4);
        CHECK(tm_count_kind(&t, RC__VK_SLIDING) == 4 * 15);
        /* empty circumcircle, brute force over all vertices: incircle / L^4 <= 1e-9 (the
           generator flips at > 1e-10 relative, so exact co-circular ties pass, true violations
           are O(1e-3) or more for this jitter) */
        for (tr = 0; tr < m.num_tris; ++tr) {
            const int *T = m.tris + 3 * tr;
            int k;
            for (v = 0; v < m.num_verts; ++v) {
                if (v == T[0] || v == T[1] || v == T[2]) continue;
                if (rc__mesh_incircle_rel(m.ref_uv + 2 * T[0], m.ref_uv + 2 * T[1], m.ref_uv + 2 * T[2], m.ref_uv + 2 * v) > 1e-9) ++viol;
            }
            for (k = 0; k < 3; ++k) {
                const double *a = m.ref_uv + 2 * T[k], *b = m.ref_uv + 2 * T[(k + 1) % 3], *c = m.ref_uv + 2 * T[(k + 2) % 3];
                double ux = b[0] - a[0], uy = b[1] - a[1], wx = c[0] - a[0], wy = c[1] - a[1];
                double ang = acos((ux * wx + uy * wy) / sqrt((ux * ux + uy * uy) * (wx * wx + wy * wy))) * 180.0 / pi;
                if (ang < min_angle) min_angle = ang;
            }
        }
        CHECKF(viol == 0, "%d circumcircle violations", viol);
        printf("    square seed %u: %d verts, %d tris, min angle %.2f deg\n", seed, m.num_verts, m.num_tris, min_angle);
        /* with a 0.15 h jitter the worst Delaunay angle is bounded well away from 0; 20 deg is a
           loose floor that a broken triangulation (slivers) would fail */
        CHECK(min_angle > 20.0);
        /* the jitter is real: some interior point is off the lattice by > 0.05 h */
        {
            double h = 2.0 / 16.0, maxoff = 0.0;
            for (v = 0; v < m.num_verts; ++v) {
                double ox = fabs(m.ref_uv[2 * v] / h - floor(m.ref_uv[2 * v] / h + 0.5));
                if (ox > maxoff) maxoff = ox;
            }
            CHECK(maxoff > 0.05);
        }
        rc__topo_free(&t, NULL);
        rc_mesh_free(&m);
    }
}

/* ---- disk and annulus ---- */

static void test_mesh_disk(void)
{
    rc_mesh m;
    rc__topo t;
    int v, flipped = 1, nb = 0, viol = 0, tr;
    CHECK_OK(rc_mesh_disk(&m, 0.5, 200));
    CHECK(m.num_verts == 1 + 3 * 8 * 9);   /* K = 8 is nearest: 217 */
    CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, NULL, 0));
    CHECK(flipped == 0);
    CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
    {
        tm_loops L = tm_trace_loops(&t, m.tris);
        CHECK(t.nv - t.ne + t.nt == 1 && L.n == 1);
        CHECK(L.ptr[1] == 48);
        CHECK(tm_loop_area(&L, m.ref_uv, 0) > 0.0);
        tm_loops_free(&L);
    }
    for (v = 0; v < t.nv; ++v) {
        double r = sqrt(m.ref_uv[2 * v] * m.ref_uv[2 * v] + m.ref_uv[2 * v + 1] * m.ref_uv[2 * v + 1]);
        if (t.vkind[v] != RC__VK_INTERIOR) {
            ++nb;
            CHECK(t.vkind[v] == RC__VK_CORNER);   /* curved boundary: no collinear neighbours */
            CHECK_NEAR(r, 0.5, 1e-15);
        }
        CHECK(m.pos[3 * v + 2] == 0.0 && m.pos[3 * v] == m.ref_uv[2 * v]);
    }
    CHECK(nb == 48);
    for (tr = 0; tr < m.num_tris; ++tr) {
        const int *T = m.tris + 3 * tr;
        for (v = 0; v < m.num_verts; ++v)
            if (v != T[0] && v != T[1] && v != T[2] &&
                rc__mesh_incircle_rel(m.ref_uv + 2 * T[0], m.ref_uv + 2 * T[1], m.ref_uv + 2 * T[2], m.ref_uv + 2 * v) > 1e-9) ++viol;
    }
    CHECK(viol == 0);   /* a convex domain: constrained Delaunay = Delaunay */
    CHECK(tm_check_topo(&t, m.tris) == 0);
    rc__topo_free(&t, NULL);
    rc_mesh_free(&m);
    CHECK_OK(rc_mesh_disk(&m, 1.0, 4));   /* the smallest: centre + 6 */
    CHECK(m.num_verts == 7 && m.num_tris == 6);
    rc_mesh_free(&m);
}

static void test_mesh_annulus(void)
{
    int slit;
    for (slit = 0; slit <= 1; ++slit) {
        rc_mesh m;
        rc__topo t;
        tm_loops L;
        int flipped = 1, v, nslide = 0;
        double area = 0.0, pi = 3.14159265358979323846;
        CHECK_OK(rc_mesh_annulus(&m, 0.3, 1.0, 400, slit));
        CHECKF(m.num_verts > 340 && m.num_verts < 460, "nv %d for target 400", m.num_verts);
        printf("    annulus slit=%d: %d verts (target 400), %d tris\n", slit, m.num_verts, m.num_tris);
        CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, NULL, 0));
        CHECK(flipped == 0);
        CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
        L = tm_trace_loops(&t, m.tris);
        CHECK(L.n == (slit ? 1 : 2));
        CHECK(t.nv - t.ne + t.nt == (slit ? 1 : 0));
        for (v = 0; v < m.num_tris; ++v) area += 0.5 * tm_area2(m.ref_uv, m.tris + 3 * v);
        /* polygonal approximation of pi (1 - 0.09): within 1% */
        CHECK(fabs(area - pi * 0.91) < 0.01 * pi * 0.91);
        if (!slit) {   /* outer loop ccw (positive), hole cw (negative) */
            double a0 = tm_loop_area(&L, m.ref_uv, 0), a1 = tm_loop_area(&L, m.ref_uv, 1);
            CHECK((a0 > 0.0) != (a1 > 0.0));
            CHECK_NEAR(a0 + a1, area, 1e-12);
        } else {
            CHECK_NEAR(tm_loop_area(&L, m.ref_uv, 0), area, 1e-12);
        }
        tm_loops_free(&L);
        for (v = 0; v < t.nv; ++v)
            if (t.vkind[v] == RC__VK_SLIDING) {   /* only on the slit (y = 0), sliding radially */
                ++nslide;
                CHECK(m.ref_uv[2 * v + 1] == 0.0);
                CHECK_NEAR(fabs(t.slide_dir[2 * v]), 1.0, 1e-12);
            }
        if (slit) CHECK(nslide > 0 && nslide % 2 == 0);   /* both sides of the cut */
        else CHECK(nslide == 0);
        CHECK(tm_check_topo(&t, m.tris) == 0);
        rc__topo_free(&t, NULL);
        rc_mesh_free(&m);
    }
}

/* ---- validation: every failure has its own status ---- */

/* a sliver reference triangle (one interior vertex of a 13 x 13 grid moved to 1e-8 m from the
   opposite edge of its cell, the probe of session 18: it passed validation and the sheet then fell
   at a constant speed, every step reported converged) is refused by rc_mesh_validate and
   rc_sim_create with a message (also at 1e-6 m, 2.8e-5 of the edge, where adaptive steps drifted
   20% from free fall); at 1e-5 m (2.8e-4 of the edge) it is accepted and falls as it should, fixed
   and adaptive, for 20 steps */
static void test_mesh_sliver_refused(void)
{
    static const double hs[3] = { 1e-8, 1e-6, 1e-5 };
    int k;
    for (k = 0; k < 3; ++k) {
        rc_mesh m;
        rc_sim_def d = rc_default_sim_def();
        rc_sim *s = NULL;
        char msg[200];
        int v = 6 * 13 + 6, i;
        CHECK_OK(rc_mesh_grid(&m, 0.3, 0.3, 13, 13, RC_DIAG_ALTERNATING));
        /* vertex v onto the line between its neighbours v-1 and v+1-13 ... the cell diagonal: move it
           next to the segment (v-1, v+13) of one of its triangles by finding that triangle */
        for (i = 0; i < m.num_tris; ++i) {
            const int *t = m.tris + 3 * i;
            int j;
            for (j = 0; j < 3; ++j) if (t[j] == v) break;
            if (j < 3) {
                const double *a = m.ref_uv + 2 * t[(j + 1) % 3], *b = m.ref_uv + 2 * t[(j + 2) % 3];
                double mx = 0.5 * (a[0] + b[0]), my = 0.5 * (a[1] + b[1]), ex = b[0] - a[0], ey = b[1] - a[1], l = hypot(ex, ey);
                /* the midpoint of the opposite edge, moved hs[k] toward v (inside the triangle) */
                double nx = -ey / l, ny = ex / l, side = (m.ref_uv[2 * v] - mx) * nx + (m.ref_uv[2 * v + 1] - my) * ny > 0 ? 1.0 : -1.0;
                m.ref_uv[2 * v] = mx + side * hs[k] * nx; m.ref_uv[2 * v + 1] = my + side * hs[k] * ny;
                m.pos[3 * v] = m.ref_uv[2 * v]; m.pos[3 * v + 1] = m.ref_uv[2 * v + 1];
                break;
            }
        }
        d.mesh = rc_mesh_describe(&m);
        d.num_threads = 1;
        if (k < 2) {
            CHECK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, msg, (int)sizeof msg) == RC_ERR_MESH_DEGENERATE);
            CHECK(strstr(msg, "sliver") != NULL);
            CHECK(rc_sim_create(&d, &s) == RC_ERR_MESH_DEGENERATE && s == NULL);
        } else {
            int mode;
            for (mode = 0; mode <= 1; ++mode) {
                rc_step_stats st;
                double zmin = 1.0, zmax = -1.0, want = -9.81 * d.dt * d.dt * 20 * 21 / 2;
                d.adaptive = mode;
                s = NULL;
                CHECK_OK(rc_sim_create(&d, &s));
                if (!s) continue;
                for (i = 0; i < 20; ++i) CHECK_OK(rc_sim_step(s, &st));
                for (i = 0; i < m.num_verts; ++i) { zmin = fmin(zmin, rc_sim_positions(s)[3 * i + 2]); zmax = fmax(zmax, rc_sim_positions(s)[3 * i + 2]); }
                printf("    thin triangle (2.8e-4 of its edge), %s: 20 steps of free fall, z in [%.6g, %.6g] m (implicit Euler: %.6g)\n",
                       mode ? "adaptive" : "fixed", zmin, zmax, want);
                CHECK(fabs(zmin - want) < 1e-3 * fabs(want) && fabs(zmax - want) < 1e-3 * fabs(want));
                rc_sim_destroy(s);
            }
        }
        rc_mesh_free(&m);
    }
}

static void test_mesh_validate_failures(void)
{
    static const double uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const int ok[6] = {0, 1, 2, 0, 2, 3};
    static const int cw[6] = {0, 2, 1, 0, 3, 2};
    static const int range[6] = {0, 1, 2, 0, 2, 4};
    static const int rep[6] = {0, 1, 2, 0, 2, 2};
    static const double uv_nan_src[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    /* fold: (0,2,4) shares 0-2 with (0,1,2) consistently but is clockwise */
    static const double uv5[10] = {0, 0, 1, 0, 0, 1, 0, 1, 0.3, 0.3};
    static const int fold[6] = {0, 1, 2, 0, 2, 4};
    /* consistent orientation, inconsistent winding: (0,4,2) runs 2->0 like (0,1,2) */
    static const int wind[6] = {0, 1, 2, 0, 4, 2};
    static const double uvz[8] = {0, 0, 1, 0, 2, 0, 0, 1};   /* 0,1,2 collinear */
    static const int zero[6] = {0, 1, 2, 0, 1, 3};
    /* non-manifold fin: three triangles on edge 0-1, all ccw in uv */
    static const double uvf[10] = {0, 0, 1, 0, 0.5, 1, 0.5, -1, 0.5, 2};
    static const int fin[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    double uvn[8];
    char msg[128];
    int flipped = 7;
    CHECK_OK(rc_mesh_validate(4, 2, uv, ok, &flipped, msg, sizeof(msg)));
    CHECK(flipped == 0 && msg[0] == '\0');
    {   /* mixed orientation names the piece's minority, here its first triangle (it named triangle 1,
           a correct one, when the reversed face came first: a garment probe) */
        rc_mesh g;
        char m2[256];
        if (rc_mesh_grid(&g, 1.0, 1.0, 3, 3, RC_DIAG_REGULAR) == RC_OK) {
            int tmp = g.tris[1];
            g.tris[1] = g.tris[2]; g.tris[2] = tmp;
            CHECK(rc_mesh_validate(g.num_verts, g.num_tris, g.ref_uv, g.tris, &flipped, m2, sizeof m2) == RC_ERR_MESH_ORIENTATION);
            CHECKF(strstr(m2, "triangle 0") && strstr(m2, "clockwise, as are 0 more of its connected piece's 8 triangles"), "%s", m2);
            rc_mesh_free(&g);
        }
    }
    CHECK(rc_mesh_validate(4, 2, uv, range, &flipped, msg, sizeof(msg)) == RC_ERR_MESH_INDEX);
    CHECK(strstr(msg, "triangle 1") != NULL);
    CHECK(rc_mesh_validate(4, 2, uv, rep, &flipped, NULL, 0) == RC_ERR_MESH_INDEX);
    memcpy(uvn, uv_nan_src, sizeof(uvn));
    uvn[5] = NAN;
    CHECK(rc_mesh_validate(4, 2, uvn, ok, &flipped, msg, sizeof(msg)) == RC_ERR_NON_FINITE);
    CHECK(strstr(msg, "vertex 2") != NULL);
    uvn[5] = INFINITY;
    CHECK(rc_mesh_validate(4, 2, uvn, ok, &flipped, NULL, 0) == RC_ERR_NON_FINITE);
    {   /* finite uv whose area overflows: said so, not "zero-area" (session 54's probe) */
        int k;
        for (k = 0; k < 8; ++k) uvn[k] = 1e300 * uv[k];
        CHECK(rc_mesh_validate(4, 2, uvn, ok, &flipped, msg, sizeof(msg)) == RC_ERR_NON_FINITE);
        CHECKF(strstr(msg, "overflows") != NULL, "1e300 uv: %s", msg);
    }
    CHECK(rc_mesh_validate(4, 2, uvz, zero, &flipped, msg, sizeof(msg)) == RC_ERR_MESH_DEGENERATE);
    CHECK(strstr(msg, "triangle 0") != NULL);
    CHECK(rc_mesh_validate(5, 2, uv5, fold, &flipped, msg, sizeof(msg)) == RC_ERR_MESH_ORIENTATION);
    CHECK(strstr(msg, "triangle 1") != NULL);
    CHECK(rc_mesh_validate(5, 2, uv5, wind, &flipped, msg, sizeof(msg)) == RC_ERR_MESH_NON_MANIFOLD);
    CHECK(strstr(msg, "triangle 1") != NULL);
    CHECK(rc_mesh_validate(5, 3, uvf, fin, &flipped, msg, sizeof(msg)) == RC_ERR_MESH_NON_MANIFOLD);
    CHECK(strstr(msg, "triangle 2") != NULL);
    flipped = 0;
    CHECK_OK(rc_mesh_validate(4, 2, uv, cw, &flipped, msg, sizeof(msg)));
    CHECK(flipped == 1);
    CHECK(rc_mesh_validate(4, 2, uv, cw, NULL, NULL, 0) == RC_ERR_MESH_ORIENTATION);
    /* two panels, the second mirrored in uv (clockwise), as garment patterns' left and right
       pieces often are (session 58's OBJ probe: the whole file was refused): accepted with
       flipped, its triangles reversed by rc_sim_create alone; refused without flipped, naming it */
    {
        static const double uv2[16] = { 0, 0, 1, 0, 1, 1, 0, 1, 3, 0, 2, 0, 2, 1, 3, 1 };
        static const int two[12] = { 0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7 };
        double pos2[24];
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s = NULL;
        int i, t;
        CHECK(rc_mesh_validate(8, 4, uv2, two, NULL, msg, sizeof(msg)) == RC_ERR_MESH_ORIENTATION);
        CHECK(strstr(msg, "triangle 2") != NULL && strstr(msg, "mirrored") != NULL);
        flipped = 0;
        CHECK_OK(rc_mesh_validate(8, 4, uv2, two, &flipped, msg, sizeof(msg)));
        CHECK(flipped == 1 && strstr(msg, "mirrored") != NULL);
        for (i = 0; i < 8; ++i) { pos2[3 * i] = 0.3 * uv2[2 * i]; pos2[3 * i + 1] = 0.3 * uv2[2 * i + 1]; pos2[3 * i + 2] = 0.0; }
        def.mesh.num_verts = 8; def.mesh.num_tris = 4; def.mesh.ref_uv = uv2; def.mesh.pos = pos2; def.mesh.tris = two;
        {
            double uvs[16];
            for (i = 0; i < 16; ++i) uvs[i] = 0.3 * uv2[i];
            def.mesh.ref_uv = uvs;
            def.adaptive = 1;
            CHECK_OK(rc_sim_create(&def, &s));
            if (s) {
                const int *st = rc_sim_tris(s);
                rc_step_stats ss;
                CHECK(rc_sim_mesh_was_flipped(s) == 1);
                for (t = 0; t < 4; ++t) CHECKF(tm_area2(rc_sim_reference(s), st + 3 * t) > 0.0, "triangle %d clockwise in the sim", t);
                CHECK(st[0] == 0 && st[1] == 1 && st[2] == 2);   /* the counter-clockwise panel as given */
                rc_sim_pin(s, 2, rc_sim_positions(s) + 6);
                rc_sim_pin(s, 7, rc_sim_positions(s) + 21);
                for (i = 0; i < 3; ++i) CHECK_OK(rc_sim_step(s, &ss));
                rc_sim_destroy(s);
            }
        }
    }
    /* bad arguments */
    CHECK(rc_mesh_validate(4, 2, NULL, ok, &flipped, NULL, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_validate(4, 2, uv, NULL, &flipped, NULL, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_validate(-1, 2, uv, ok, &flipped, NULL, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_validate(4, 0, uv, ok, &flipped, NULL, 0) == RC_ERR_INVALID_ARGUMENT);
    /* a tiny buffer is still NUL-terminated */
    msg[0] = 'x'; msg[1] = 'y'; msg[2] = 'z';
    CHECK(rc_mesh_validate(4, 2, uv, range, NULL, msg, 3) == RC_ERR_MESH_INDEX);
    CHECK(msg[2] == '\0');
}

/* ---- OBJ ---- */

static const char *tm_path(char *buf, size_t n, const char *name)
{
    FILE *f = fopen("build/.probe_mesh", "w");
    if (f) { fclose(f); remove("build/.probe_mesh"); snprintf(buf, n, "build/%s", name); }
    else snprintf(buf, n, "/tmp/%s", name);
    return buf;
}

static int tm_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fputs(text, f);
    fclose(f);
    return 1;
}

static void test_mesh_obj_roundtrip(void)
{
    char path[256];
    rc_mesh m, r;
    int v;
    tm_path(path, sizeof(path), "t_mesh_rt.obj");
    CHECK_OK(rc_mesh_square(&m, 1.0, 50, 3));
    for (v = 0; v < m.num_verts; ++v) m.pos[3 * v + 2] = 0.1 * sin(7.0 * m.ref_uv[2 * v]) + 1e-17 * v;   /* lift */
    CHECK_OK(rc_mesh_write_obj(path, m.num_verts, m.pos, m.ref_uv, m.num_tris, m.tris));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == m.num_verts && r.num_tris == m.num_tris);
    if (r.num_verts == m.num_verts && r.num_tris == m.num_tris) {
        CHECK(memcmp(r.pos, m.pos, sizeof(double) * 3 * (size_t)m.num_verts) == 0);   /* %.17g is exact */
        CHECK(memcmp(r.ref_uv, m.ref_uv, sizeof(double) * 2 * (size_t)m.num_verts) == 0);
        CHECK(memcmp(r.tris, m.tris, sizeof(int) * 3 * (size_t)m.num_tris) == 0);
    }
    rc_mesh_free(&r);
    /* without uv: read back uv = (x, y) */
    CHECK_OK(rc_mesh_write_obj(path, m.num_verts, m.pos, NULL, m.num_tris, m.tris));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == m.num_verts);
    if (r.num_verts == m.num_verts)
        for (v = 0; v < m.num_verts; ++v) CHECK(r.ref_uv[2 * v] == m.pos[3 * v] && r.ref_uv[2 * v + 1] == m.pos[3 * v + 1]);
    rc_mesh_free(&r);
    /* bad writes */
    CHECK(rc_mesh_write_obj("/nonexistent_dir_rcloth/x.obj", m.num_verts, m.pos, m.ref_uv, m.num_tris, m.tris) == RC_ERR_IO);
    CHECK(rc_mesh_write_obj(NULL, m.num_verts, m.pos, m.ref_uv, m.num_tris, m.tris) == RC_ERR_INVALID_ARGUMENT);
    m.tris[4] = m.num_verts;
    CHECK(rc_mesh_write_obj(path, m.num_verts, m.pos, m.ref_uv, m.num_tris, m.tris) == RC_ERR_MESH_INDEX);
    m.tris[4] = 0;
    m.pos[0] = NAN;
    CHECK(rc_mesh_write_obj(path, m.num_verts, m.pos, m.ref_uv, m.num_tris, m.tris) == RC_ERR_NON_FINITE);
    rc_mesh_free(&m);
    remove(path);
}

static void test_mesh_obj_read_variants(void)
{
    char path[256];
    rc_mesh r;
    tm_path(path, sizeof(path), "t_mesh_var.obj");
    /* v/vt/vn quad with negative indices, comments, CRLF, ignored statements */
    CHECK(tm_write_text(path,
        "# comment\r\nmtllib x.mtl\r\no thing\r\n"
        "v 0 0 5\r\nv 1 0 5\r\nv 1 1 5\r\nv 0 1 5\r\n"
        "vt 10 20\r\nvt 11 20 0\r\nvt 11 21\r\nvt 10 21\r\n"
        "vn 0 0 1\r\ns off\r\nusemtl m\r\n"
        "f -4/-4/1 -3/-3/1 -2/-2/1 -1/-1/1\r\n"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == 4 && r.num_tris == 2);
    if (r.num_tris == 2) {
        CHECK(r.tris[0] == 0 && r.tris[1] == 1 && r.tris[2] == 2);   /* fan (c0, c1, c2), (c0, c2, c3) */
        CHECK(r.tris[3] == 0 && r.tris[4] == 2 && r.tris[5] == 3);
        CHECK(r.ref_uv[2] == 11.0 && r.ref_uv[3] == 20.0 && r.pos[5] == 5.0);
    }
    rc_mesh_free(&r);
    /* no vt at all, v//vn corners, pentagon -> 3 triangles, uv = (x, y) */
    CHECK(tm_write_text(path, "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1 5//1\n"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == 5 && r.num_tris == 3);
    if (r.num_verts == 5) CHECK(r.ref_uv[4] == 3.0 && r.ref_uv[5] == 1.0);
    rc_mesh_free(&r);
    /* seam: vertex 1 used with vt 1 and vt 3 -> duplicated */
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 5 5\nvt 6 6\n"
                              "f 1/1 2/2 3/3\nf 2/4 4/5 3/3\n"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == 5 && r.num_tris == 2);
    if (r.num_verts == 5 && r.num_tris == 2) {
        CHECK(r.tris[3] == 4 && r.ref_uv[8] == 5.0 && r.pos[12] == 1.0 && r.pos[13] == 0.0);
        CHECK(r.ref_uv[2] == 1.0 && r.ref_uv[3] == 0.0);
    }
    rc_mesh_free(&r);
    /* classic Mac line ends (CR only) and a comment right after a number (an I/O probe found both
       refused as RC_ERR_PARSE) */
    CHECK(tm_write_text(path, "v 0 0 0#a\rv 1 0 0 # b\rv 0 1 0\rf 1 2 3#c\r"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == 3 && r.num_tris == 1);
    rc_mesh_free(&r);
    /* session 58's OBJ probe. A texture coordinate per face corner, the same values repeated: one
       welded sheet (2 x 2 quads on 9 vertices), not 16 loose corners */
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nv 1 1 0\nv 2 1 0\nv 0 2 0\nv 1 2 0\nv 2 2 0\n"
                              "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 1 0\nvt 2 0\nvt 2 1\nvt 1 1\n"
                              "vt 0 1\nvt 1 1\nvt 1 2\nvt 0 2\nvt 1 1\nvt 2 1\nvt 2 2\nvt 1 2\n"
                              "f 1/1 2/2 5/3 4/4\nf 2/5 3/6 6/7 5/8\nf 4/9 5/10 8/11 7/12\nf 5/13 6/14 9/15 8/16\n"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECKF(r.num_verts == 9 && r.num_tris == 8, "%d vertices, %d triangles", r.num_verts, r.num_tris);
    rc_mesh_free(&r);
    /* a UTF-8 byte-order mark before the first 'v' */
    CHECK(tm_write_text(path, "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_verts == 3 && r.num_tris == 1 && r.pos[3] == 1.0);
    rc_mesh_free(&r);
    /* polygons are cut into triangles in the reference plane: a concave quad listed from a corner
       next to its reflex one (a fan from it inverted a triangle) and a pentagon with a corner in
       the middle of a side (a fan from the corner before it made a triangle of zero area) validate, their triangles
       covering the polygon (areas 0.015 and 0.02) */
    {
        static const char *poly[2] = {
            "v 0 0 0\nv 0.1 0.05 0\nv 0.2 0 0\nv 0.1 0.2 0\nf 1 2 3 4\n",
            "v 0 0 0\nv 0.1 0 0\nv 0.2 0 0\nv 0.2 0.1 0\nv 0 0.1 0\nf 1 2 3 4 5\n" };
        int k;
        for (k = 0; k < 2; ++k) {
            double area = 0.0;
            int tt;
            CHECK(tm_write_text(path, poly[k]));
            CHECK_OK(rc_mesh_read_obj(&r, path));
            CHECK(r.num_tris == r.num_verts - 2);
            CHECKF(rc_mesh_validate(r.num_verts, r.num_tris, r.ref_uv, r.tris, NULL, NULL, 0) == RC_OK, "polygon %d", k);
            for (tt = 0; tt < r.num_tris; ++tt) {
                double a2 = tm_area2(r.ref_uv, r.tris + 3 * tt);
                CHECKF(a2 > 0.0, "polygon %d: triangle %d has area %g", k, tt, 0.5 * a2);
                area += 0.5 * a2;
            }
            CHECK_NEAR(area, k == 0 ? 0.015 : 0.02, 1e-15);
            rc_mesh_free(&r);
        }
    }
    /* the old Microsoft C runtime's non-finite spellings are not the numbers 1 and -1 */
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 -1.#IND00 0\nf 1 2 3\n"));
    CHECK(rc_mesh_read_obj(&r, path) == RC_ERR_NON_FINITE);
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1.#INF00 0\nvt 0 1\nf 1/1 2/2 3/3\n"));
    CHECK(rc_mesh_read_obj(&r, path) == RC_ERR_NON_FINITE);
    CHECK(tm_write_text(path, "v 0 0 0\nv 1.#QNAN0 0 0\nv 0 1 0\nf 1 2 3\n"));
    CHECK(rc_mesh_read_obj(&r, path) == RC_ERR_NON_FINITE);
}

static void test_mesh_obj_malformed(void)
{
    static const char *bad[] = {
        "v 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",          /* v with 2 coordinates */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",          /* face with 2 corners */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",        /* index out of range */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n",        /* index 0 */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n",       /* negative too far back */
        "v 0 x 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",        /* bad number */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1a 2 3\n",       /* bad index */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/ 2/1 3/1\n",   /* "1/" */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n",  /* vt index without any vt */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 1\nf 1 2 3\n",  /* vt with one component */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\n",                 /* no faces */
        "",                                           /* empty */
        "\x01\x02 binary garbage \xff\xfe",           /* not an OBJ */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/ 2 3\n",    /* empty normal index */
        "v 0 0 0 # c\nv 1 0 0\nv 0 1 0\nf 1 2 3 # tri",  /* valid: trailing comments, no final newline */
    };
    char path[256];
    int i, n = (int)(sizeof(bad) / sizeof(bad[0]));
    rc_mesh r;
    tm_path(path, sizeof(path), "t_mesh_bad.obj");
    /* rc_mesh_read_obj_msg names the line and the fault: the line of each case above (0: the file
       as a whole), and a word of its message */
    static const int line[] = { 1, 4, 4, 4, 4, 1, 4, 5, 4, 4, 0, 0, 0, 4 };
    static const char *word[] = { "three numbers", "three corners", "does not define", "out of range", "out of range",
                                  "three numbers", "garbage", "nothing after", "does not define", "two numbers",
                                  "no faces", "no faces", "no faces", "normal index" };
    for (i = 0; i < n - 1; ++i) {
        rc_status st;
        char msg[200], at[32];
        CHECK(tm_write_text(path, bad[i]));
        st = rc_mesh_read_obj(&r, path);
        CHECKF(st == RC_ERR_PARSE, "case %d: %s", i, rc_status_string(st));
        CHECK(r.pos == NULL && r.num_verts == 0);
        rc_mesh_free(&r);
        CHECK(rc_mesh_read_obj_msg(&r, path, msg, (int)sizeof msg) == RC_ERR_PARSE);
        snprintf(at, sizeof at, ".obj:%d: ", line[i]);
        CHECKF((line[i] ? strstr(msg, at) != NULL : strstr(msg, ".obj: ") != NULL) && strstr(msg, word[i]) != NULL,
               "case %d: \"%s\"", i, msg);
        if (i == 0 || i == 8) printf("    %s\n", msg);
        rc_mesh_free(&r);
    }
    CHECK(tm_write_text(path, bad[n - 1]));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK(r.num_tris == 1);
    rc_mesh_free(&r);
    CHECK(tm_write_text(path, "v 0 nan 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    CHECK(rc_mesh_read_obj(&r, path) == RC_ERR_NON_FINITE);
    {
        char msg[200];
        CHECK(rc_mesh_read_obj_msg(&r, path, msg, (int)sizeof msg) == RC_ERR_NON_FINITE && strstr(msg, ".obj:1: a 'v' coordinate is inf or nan") != NULL);
        CHECK(rc_mesh_read_obj_msg(&r, "/nonexistent_dir_rcloth/none.obj", msg, (int)sizeof msg) == RC_ERR_IO && strstr(msg, "cannot be opened") != NULL);
        CHECK(rc_mesh_read_obj_msg(&r, path, NULL, 0) == RC_ERR_NON_FINITE);
    }
    CHECK(rc_mesh_read_obj(&r, "/nonexistent_dir_rcloth/none.obj") == RC_ERR_IO);
    CHECK(rc_mesh_read_obj(&r, NULL) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_read_obj(NULL, path) == RC_ERR_INVALID_ARGUMENT);
    remove(path);
}

/* rc_mesh_read_obj_map: each mesh vertex's "v" line index and each triangle's "f" line, through a
   quad, a concave pentagon (ear clipped), UV seams (split by vt value, a repeated vt value welds)
   and a loose vertex; then rc_mesh_remove_unreferenced_map, a validation failure named by its OBJ
   line, and the error paths */
static void test_mesh_obj_map(void)
{
    static const char *text =
        "# a quad, a pentagon and a triangle on 7 vertices, a loose one\n"   /* line 1 */
        "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\n"                                 /* 2-5: v0..v3 */
        "v 1 1 0\nv 2 1 0\nv 1 2 0\nv 9 9 9\n"                                 /* 6-9: v4..v7 (v7 loose) */
        "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"                                     /* 10-13: t1..t4 */
        "vt 5 0\nvt 6 0\nvt 6 1\nvt 5 1\nvt 5.5 0.5\nvt 0.5 2\nvt 0 1\n"       /* 14-20: t5..t11 (t11 = t4) */
        "g left\n"                                                             /* 21 */
        "f 1/1 2/2 5/3 4/4\n"                                                  /* 22: quad v0 v1 v4 v3 */
        "\n"                                                                   /* 23 */
        "g right\n"                                                            /* 24 */
        "f 2/5 3/6 6/7 7/9 5/8  # concave in uv\n"                             /* 25: pentagon v1 v2 v5 v6 v4 */
        "f 4/11 5/3 7/10\n";                                                   /* 26: v3 (t11 = t4: welds) v4 v6 (seam) */
    /* the seams: v1 first with t2, then t5 -> vertex 8; v4 with t3, then t8 -> 9; v6 with t9, then
       t10 -> 10 */
    static const int src[11] = { 0, 1, 2, 3, 4, 5, 6, 7, 1, 4, 6 };
    static const int line[6] = { 22, 22, 25, 25, 25, 26 }, face[6] = { 0, 0, 1, 1, 1, 2 };
    static const int fv[3][5] = { { 0, 1, 4, 3, -1 }, { 1, 2, 5, 6, 4 }, { 3, 4, 6, -1, -1 } };
    static const double vpos[8][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 }, { 2, 1, 0 }, { 1, 2, 0 }, { 9, 9, 9 } };
    char path[256], msg[256];
    rc_mesh m, r;
    rc_obj_map map;
    int i, k, removed = -1, junk[4] = { 0, 0, 0, 0 };
    tm_path(path, sizeof(path), "t_mesh_map.obj");
    CHECK(tm_write_text(path, text));
    CHECK_OK(rc_mesh_read_obj(&r, path));
    CHECK_OK(rc_mesh_read_obj_map(&m, &map, path, msg, (int)sizeof msg));
    CHECK(msg[0] == 0);
    CHECKF(m.num_verts == 11 && m.num_tris == 6 && map.num_verts == 11 && map.num_tris == 6, "%d vertices, %d triangles",
           m.num_verts, m.num_tris);
    if (m.num_verts != 11 || m.num_tris != 6 || map.num_verts != 11 || map.num_tris != 6) goto out;
    /* the same mesh as rc_mesh_read_obj's, bit for bit */
    CHECK(r.num_verts == m.num_verts && r.num_tris == m.num_tris);
    if (r.num_verts == m.num_verts && r.num_tris == m.num_tris) {
        CHECK(memcmp(r.pos, m.pos, sizeof(double) * 3 * (size_t)m.num_verts) == 0);
        CHECK(memcmp(r.ref_uv, m.ref_uv, sizeof(double) * 2 * (size_t)m.num_verts) == 0);
        CHECK(memcmp(r.tris, m.tris, sizeof(int) * 3 * (size_t)m.num_tris) == 0);
    }
    for (i = 0; i < 11; ++i) {
        CHECKF(map.vertex_source[i] == src[i], "vertex %d from v %d, expected %d", i, map.vertex_source[i], src[i]);
        CHECK(memcmp(m.pos + 3 * i, vpos[src[i]], sizeof(double) * 3) == 0);
    }
    CHECK(m.ref_uv[16] == 5.0 && m.ref_uv[17] == 0.0 && m.ref_uv[18] == 5.0 && m.ref_uv[19] == 1.0);   /* t5, t8 */
    CHECK(m.ref_uv[20] == 0.5 && m.ref_uv[21] == 2.0 && m.ref_uv[12] == 5.5 && m.ref_uv[13] == 0.5);   /* t10; v6: t9 */
    for (i = 0; i < 6; ++i) {
        CHECKF(map.tri_line[i] == line[i] && map.tri_face[i] == face[i], "triangle %d: line %d face %d", i, map.tri_line[i],
               map.tri_face[i]);
        for (k = 0; k < 3; ++k) {   /* its corners are its face's vertices */
            int v = map.vertex_source[m.tris[3 * i + k]], j, in = 0;
            for (j = 0; j < 5; ++j) in |= fv[face[i]][j] == v;
            CHECKF(in, "triangle %d corner %d is v %d, not of face %d", i, k, v, face[i]);
        }
        CHECK(tm_area2(m.ref_uv, m.tris + 3 * i) > 0.0);
    }
    CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, NULL, 0));
    /* a map that does not match the mesh is refused, nothing changed */
    map.num_verts = 10;
    CHECK(rc_mesh_remove_unreferenced_map(&m, &map, &removed) == RC_ERR_INVALID_ARGUMENT && removed == 0 && m.num_verts == 11);
    map.num_verts = 11;
    /* dropping the loose v7 keeps the map in step */
    CHECK_OK(rc_mesh_remove_unreferenced_map(&m, &map, &removed));
    CHECK(removed == 1 && m.num_verts == 10 && map.num_verts == 10 && map.num_tris == 6);
    for (i = 0; i < m.num_verts; ++i) {
        CHECKF(map.vertex_source[i] == src[i < 7 ? i : i + 1], "after removal: vertex %d from v %d", i, map.vertex_source[i]);
        CHECK(memcmp(m.pos + 3 * i, vpos[map.vertex_source[i]], sizeof(double) * 3) == 0);
    }
    for (i = 0; i < 6; ++i) CHECK(map.tri_line[i] == line[i] && map.tri_face[i] == face[i]);
    CHECKF(map.uv_from_xy == 1, "%d vertices took uv = (x, y) (the loose one only)", map.uv_from_xy);
    CHECK_OK(rc_mesh_remove_unreferenced_map(&m, NULL, &removed));
    CHECK(removed == 0);
out:
    rc_mesh_free(&m);
    rc_mesh_free(&r);
    rc_obj_map_free(&map);
    rc_obj_map_free(&map);   /* twice: fine */
    rc_obj_map_free(NULL);
    CHECK(map.vertex_source == NULL && map.tri_line == NULL && map.num_verts == 0);
    /* map NULL: rc_mesh_read_obj_msg */
    CHECK_OK(rc_mesh_read_obj_map(&m, NULL, path, NULL, 0));
    CHECK(m.num_verts == 11 && m.num_tris == 6);
    rc_mesh_free(&m);
    /* a validation failure names a triangle, the map its line: the quad on line 4 has its corners
       on one line in uv (its vertices are defined after it: forward references), its triangles
       have zero area */
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nf 1/1 2/2 3/3\nf 2/2 4/4 5/5 6/6\n"
                              "v 1 1 0\nv 2 0 0\nv 2 1 0\nv 3 0 0\n"
                              "vt 0 0\nvt 1 0\nvt 1 1\nvt 2 0\nvt 3 0\nvt 4 0\n"));
    CHECK_OK(rc_mesh_read_obj_map(&m, &map, path, NULL, 0));
    {
        rc_status st = rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, msg, (int)sizeof msg);
        const char *at = strstr(msg, "triangle ");
        int t = -1;
        CHECKF(st == RC_ERR_MESH_DEGENERATE && at && sscanf(at, "triangle %d", &t) == 1 && t >= 1 && t < map.num_tris,
               "%s: %s", rc_status_string(st), msg);
        if (t >= 1 && t < map.num_tris) {
            CHECKF(map.tri_line[t] == 4 && map.tri_face[t] == 1, "triangle %d: line %d", t, map.tri_line[t]);
            printf("    %s (%s:%d)\n", msg, path, map.tri_line[t]);
        }
        CHECK(map.tri_line[0] == 3 && map.tri_face[0] == 0);
    }
    rc_mesh_free(&m);
    rc_obj_map_free(&map);
    /* no vt: uv = (x, y), counted, so that a panel standing in the xz plane (degenerate in uv) can
       be explained to the user (the first-use review) */
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n"));
    CHECK_OK(rc_mesh_read_obj_map(&m, &map, path, NULL, 0));
    CHECK(map.uv_from_xy == 3);
    CHECK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, NULL, 0) == RC_ERR_MESH_DEGENERATE);
    rc_mesh_free(&m);
    rc_obj_map_free(&map);
    /* errors: the mesh and the map zeroed, nothing allocated (the OOM harness fails each allocation) */
    map.num_verts = 5; map.num_tris = 7; map.vertex_source = map.tri_line = map.tri_face = junk;
    CHECK(tm_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n"));
    CHECK(rc_mesh_read_obj_map(&m, &map, path, msg, (int)sizeof msg) == RC_ERR_PARSE && strstr(msg, ".obj:5: ") != NULL);
    CHECK(m.pos == NULL && m.tris == NULL && m.num_verts == 0 && map.vertex_source == NULL && map.tri_line == NULL &&
          map.tri_face == NULL && map.num_verts == 0 && map.num_tris == 0);
    map.vertex_source = junk;
    CHECK(rc_mesh_read_obj_map(NULL, &map, path, msg, (int)sizeof msg) == RC_ERR_INVALID_ARGUMENT && map.vertex_source == NULL);
    map.vertex_source = junk;
    CHECK(rc_mesh_read_obj_map(&m, &map, NULL, NULL, 0) == RC_ERR_INVALID_ARGUMENT && map.vertex_source == NULL);
    map.vertex_source = junk;
    CHECK(rc_mesh_read_obj_map(&m, &map, "/nonexistent_dir_rcloth/none.obj", NULL, 0) == RC_ERR_IO && map.vertex_source == NULL);
    CHECK(rc_mesh_remove_unreferenced_map(NULL, &map, NULL) == RC_ERR_INVALID_ARGUMENT);
    remove(path);
}

/* ---- topology input: non-finite reference positions are refused ---- */
static void test_mesh_topo_non_finite(void)
{
    rc_mesh m;
    rc__topo t;
    CHECK_OK(rc_mesh_grid(&m, 1.0, 1.0, 5, 5, RC_DIAG_REGULAR));
    CHECK_OK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv));
    rc__topo_free(&t, NULL);
    m.ref_uv[0] = NAN;
    CHECK(rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv) == RC_ERR_NON_FINITE);
    rc_mesh_free(&m);
}

/* ---- generator sweep: every parameter combination gives a valid ccw mesh of the right topology ---- */

static void test_mesh_generators_sweep(void)
{
    int trial, bad = 0;
    for (trial = 0; trial < 60; ++trial) {
        rc_mesh m;
        rc__topo t;
        int kind = trial % 3, target = 4 + (int)(t_rand() * 600), slit = (int)(t_rand() * 2), chi = 1, loops = 1;
        rc_status st;
        if (kind == 0) st = rc_mesh_square(&m, 0.01 + 5.0 * t_rand(), target, (unsigned)trial);
        else if (kind == 1) st = rc_mesh_disk(&m, 0.01 + 5.0 * t_rand(), target);
        else {
            double ri = 0.01 + t_rand(), ro = ri * (1.01 + 5.0 * t_rand());
            st = rc_mesh_annulus(&m, ri, ro, target < 6 ? 6 : target, slit);
            chi = slit ? 1 : 0;
            loops = slit ? 1 : 2;
        }
        CHECK_OK(st);
        if (st != RC_OK) { ++bad; continue; }
        st = rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, NULL, 0);
        CHECKF(st == RC_OK, "kind %d target %d: %s", kind, target, rc_status_string(st));
        if (kind < 2 && target > 30) /* vertex counts honoured to within 25% at these sizes */
            CHECKF(fabs((double)m.num_verts - target) < 0.25 * target, "kind %d target %d got %d", kind, target, m.num_verts);
        if (rc__topo_build(&t, NULL, m.num_verts, m.num_tris, m.tris, m.ref_uv) == RC_OK) {
            CHECK(t.nv - t.ne + t.nt == chi && tm_nloops(&t, m.tris) == loops);
            rc__topo_free(&t, NULL);
        } else ++bad;
        rc_mesh_free(&m);
    }
    CHECK(bad == 0);
}

/* ---- bad input never crashes ---- */

static void test_mesh_bad_input(void)
{
    rc_mesh m;
    CHECK(rc_mesh_grid(NULL, 1, 1, 3, 3, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_grid(&m, NAN, 1, 3, 3, 0) == RC_ERR_NON_FINITE);
    CHECK(rc_mesh_grid(&m, 1, INFINITY, 3, 3, 0) == RC_ERR_NON_FINITE);
    CHECK(rc_mesh_grid(&m, -1, 1, 3, 3, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_grid(&m, 1, 1, 1, 3, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_grid(&m, 1, 1, 3, 3, -1) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_grid(&m, 1, 1, 1 << 20, 1 << 20, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(m.tris == NULL && m.num_verts == 0);
    CHECK(rc_mesh_square(NULL, 1, 100, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_square(&m, 0, 100, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_square(&m, NAN, 100, 0) == RC_ERR_NON_FINITE);
    CHECK(rc_mesh_square(&m, 1, 3, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_disk(&m, -1, 100) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_disk(&m, NAN, 100) == RC_ERR_NON_FINITE);
    CHECK(rc_mesh_disk(&m, 1, -100) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_annulus(&m, 1, 0.5, 100, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_annulus(&m, 0, 1, 100, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(rc_mesh_annulus(&m, 0.5, INFINITY, 100, 0) == RC_ERR_NON_FINITE);
    CHECK(rc_mesh_annulus(&m, 0.5, 1, 2, 1) == RC_ERR_INVALID_ARGUMENT);
    /* too thin for the target: ~2 x 2200 vertices needed for 1e-6 relative width */
    CHECK(rc_mesh_annulus(&m, 1.0, 1.000001, 50, 0) == RC_ERR_INVALID_ARGUMENT);
    CHECK(m.tris == NULL && m.num_verts == 0);
    rc_mesh_free(NULL);
    rc_mesh_free(&m);   /* zeroed: fine */
    /* small targets still give valid meshes */
    CHECK_OK(rc_mesh_square(&m, 1, 4, 1));
    CHECK(m.num_verts == 9);
    CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, NULL, 0));
    rc_mesh_free(&m);
    CHECK_OK(rc_mesh_annulus(&m, 0.9, 1, 6, 1));
    CHECK_OK(rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, NULL, NULL, 0));
    rc_mesh_free(&m);
    /* random garbage triangle lists: validate and topo never crash, and agree on index errors */
    {
        int trial;
        for (trial = 0; trial < 200; ++trial) {
            int tris[30], k, nv = 6;
            double uv[12];
            rc__topo t;
            rc_status s1, s2;
            for (k = 0; k < 30; ++k) tris[k] = (int)(t_rand() * 8) - 1;
            for (k = 0; k < 12; ++k) uv[k] = t_rand();
            s1 = rc_mesh_validate(nv, 10, uv, tris, NULL, NULL, 0);
            s2 = rc__topo_build(&t, NULL, nv, 10, tris, uv);
            CHECK((s1 == RC_ERR_MESH_INDEX) == (s2 == RC_ERR_MESH_INDEX));
            if (s2 == RC_OK) {
                CHECK(tm_check_topo(&t, tris) == 0);
                rc__topo_free(&t, NULL);
            }
        }
    }
}

/* A generator's result passes rc_mesh_validate, or the generator refuses with its status (session
   19 probe: a grid 1e-300 wide and an annulus of inner radius 1e-6 came back RC_OK with meshes the
   validator and rc_sim_create reject); *out is then zeroed. */
static void test_mesh_generators_validate_output(void)
{
    rc_mesh m;
    rc_status st;
    st = rc_mesh_grid(&m, 1e-300, 1.0, 3, 3, RC_DIAG_REGULAR);
    CHECK(st == RC_ERR_MESH_DEGENERATE);
    CHECK(m.num_verts == 0 && m.ref_uv == NULL && m.tris == NULL);
    st = rc_mesh_annulus(&m, 1e-6, 1.0, 100, 1);
    CHECK(st == RC_ERR_MESH_DEGENERATE);
    CHECK(m.num_verts == 0 && m.ref_uv == NULL);
    st = rc_mesh_annulus(&m, 1e-6, 1.0, 100, 0);
    CHECK(st == RC_ERR_MESH_DEGENERATE);
    /* ordinary sizes still pass */
    CHECK_OK(rc_mesh_grid(&m, 1e-3, 1.0, 3, 3, RC_DIAG_REGULAR));
    rc_mesh_free(&m);
    CHECK_OK(rc_mesh_annulus(&m, 0.2, 1.0, 100, 1));
    rc_mesh_free(&m);
}

/* rc_mesh_describe gives the view of every field of an owning mesh (zeros for NULL, which
   rc_sim_create refuses), and a sim made from it is the one the hand-wired descriptor makes; m may
   be freed once the sims exist (rc_sim_create copies the arrays). */
static void test_mesh_describe(void)
{
    rc_mesh m;
    rc_mesh_desc md, hand, z;
    rc_sim_def d = rc_default_sim_def(), dh = rc_default_sim_def();
    rc_sim *s = NULL, *sh = NULL;
    rc_step_stats st;
    char msg[200];
    int i, nv;
    CHECK_OK(rc_mesh_grid(&m, 0.4, 0.3, 5, 4, RC_DIAG_ALTERNATING));
    for (i = 0; i < m.num_verts; ++i) m.pos[3 * i + 2] = 0.01 * i;   /* positions unlike the flat lift */
    md = rc_mesh_describe(&m);
    CHECK(md.num_verts == m.num_verts && md.num_tris == m.num_tris);
    CHECK(md.ref_uv == m.ref_uv && md.pos == m.pos && md.tris == m.tris);
    z = rc_mesh_describe(NULL);
    CHECK(z.num_verts == 0 && z.num_tris == 0 && z.ref_uv == NULL && z.pos == NULL && z.tris == NULL);
    d.mesh = z;
    CHECK(rc_sim_def_check(&d, msg, (int)sizeof msg) == RC_ERR_INVALID_ARGUMENT && strstr(msg, "mesh") != NULL);
    CHECK(rc_sim_create(&d, &s) == RC_ERR_INVALID_ARGUMENT && s == NULL);
    /* the same sim from the view and from the five fields set by hand */
    hand.num_verts = m.num_verts; hand.num_tris = m.num_tris;
    hand.ref_uv = m.ref_uv; hand.pos = m.pos; hand.tris = m.tris;
    d.mesh = md; dh.mesh = hand;
    d.num_threads = dh.num_threads = 1;
    CHECK_OK(rc_sim_create(&d, &s));
    CHECK_OK(rc_sim_create(&dh, &sh));
    nv = m.num_verts;
    rc_mesh_free(&m);
    if (s && sh) {
        CHECK(rc_sim_num_verts(s) == nv && rc_sim_num_verts(sh) == nv);
        CHECK(rc_sim_num_tris(s) == rc_sim_num_tris(sh));
        CHECK(memcmp(rc_sim_tris(s), rc_sim_tris(sh), sizeof(int) * 3 * (size_t)rc_sim_num_tris(s)) == 0);
        CHECK(memcmp(rc_sim_positions(s), rc_sim_positions(sh), sizeof(double) * 3 * (size_t)nv) == 0);
        CHECK(memcmp(rc_sim_reference(s), rc_sim_reference(sh), sizeof(double) * 2 * (size_t)nv) == 0);
        for (i = 0; i < nv; ++i) CHECK(rc_sim_positions(s)[3 * i + 2] == 0.01 * i);
        CHECK_OK(rc_sim_step(s, &st));
        CHECK_OK(rc_sim_step(sh, &st));
        CHECK(memcmp(rc_sim_positions(s), rc_sim_positions(sh), sizeof(double) * 3 * (size_t)nv) == 0);
    }
    rc_sim_destroy(s);
    rc_sim_destroy(sh);
}

/* rc_mesh_remove_unreferenced: loose vertices (as OBJ files carry them) dropped, triangles
   renumbered, kept vertices in order; the compacted mesh makes a sim that the loose one could not.
   Bad input leaves the mesh alone. Also rc_sim_create's checks of what rc_mesh_validate does not
   look at: a world triangle without a plane, a non-finite vertex named, and the warning for uv at
   another scale than pos. */
static void test_mesh_remove_unreferenced_and_create_checks(void)
{
    rc_mesh g, m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    char msg[256];
    int i, removed = -1, nv, nt;
    CHECK_OK(rc_mesh_grid(&g, 1.0, 1.0, 4, 4, RC_DIAG_ALTERNATING));
    nv = g.num_verts; nt = g.num_tris;
    /* m: a loose vertex before every third grid vertex and one at the end */
    memset(&m, 0, sizeof m);
    m.ref_uv = (double *)malloc(sizeof(double) * 2 * (size_t)(2 * nv));
    m.pos = (double *)malloc(sizeof(double) * 3 * (size_t)(2 * nv));
    m.tris = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
    {
        int *idx = (int *)malloc(sizeof(int) * (size_t)nv), k = 0;
        for (i = 0; i < nv; ++i) {
            if (i % 3 == 0) { m.ref_uv[2 * k] = 9.0; m.ref_uv[2 * k + 1] = -9.0; m.pos[3 * k] = m.pos[3 * k + 1] = m.pos[3 * k + 2] = 7.0; ++k; }
            idx[i] = k;
            memcpy(m.ref_uv + 2 * k, g.ref_uv + 2 * i, 2 * sizeof(double));
            memcpy(m.pos + 3 * k, g.pos + 3 * i, 3 * sizeof(double));
            ++k;
        }
        m.ref_uv[2 * k] = 5.0; m.ref_uv[2 * k + 1] = 5.0; m.pos[3 * k] = m.pos[3 * k + 1] = m.pos[3 * k + 2] = 5.0; ++k;
        for (i = 0; i < 3 * nt; ++i) m.tris[i] = idx[g.tris[i]];
        m.num_verts = k; m.num_tris = nt;
        free(idx);
    }
    def.mesh = rc_mesh_describe(&m);
    CHECK(rc_sim_def_check(&def, msg, sizeof msg) == RC_ERR_INVALID_ARGUMENT && strstr(msg, "rc_mesh_remove_unreferenced") != NULL);
    /* bad input: unchanged */
    {
        int keep = m.tris[4], n0 = m.num_verts;
        double *uv0 = (double *)malloc(sizeof(double) * 2 * (size_t)n0);
        int *t0 = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
        m.tris[4] = m.num_verts;
        memcpy(uv0, m.ref_uv, sizeof(double) * 2 * (size_t)n0);
        memcpy(t0, m.tris, sizeof(int) * 3 * (size_t)nt);
        CHECK(rc_mesh_remove_unreferenced(&m, &removed) == RC_ERR_MESH_INDEX && removed == 0 && m.num_verts == n0 &&
              n0 == nv + (nv + 2) / 3 + 1);
        CHECK(memcmp(uv0, m.ref_uv, sizeof(double) * 2 * (size_t)n0) == 0 && memcmp(t0, m.tris, sizeof(int) * 3 * (size_t)nt) == 0);
        m.tris[4] = keep;
        free(uv0); free(t0);
    }
    CHECK(rc_mesh_remove_unreferenced(NULL, &removed) == RC_ERR_INVALID_ARGUMENT);
    CHECK_OK(rc_mesh_remove_unreferenced(&m, &removed));
    CHECK(removed == (nv + 2) / 3 + 1 && m.num_verts == nv && m.num_tris == nt);
    CHECK(memcmp(m.ref_uv, g.ref_uv, sizeof(double) * 2 * (size_t)nv) == 0 && memcmp(m.pos, g.pos, sizeof(double) * 3 * (size_t)nv) == 0 &&
          memcmp(m.tris, g.tris, sizeof(int) * 3 * (size_t)nt) == 0);
    def.mesh = rc_mesh_describe(&m);
    CHECK_OK(rc_sim_create(&def, &s));
    CHECK(s && rc_sim_last_warning(s)[0] == 0);
    rc_sim_destroy(s); s = NULL;
    CHECK_OK(rc_mesh_remove_unreferenced(&m, &removed));
    CHECK(removed == 0 && m.num_verts == nv);
    /* a world triangle without a plane: vertex 5 moved onto vertex 4 */
    memcpy(m.pos + 3 * 5, m.pos + 3 * 4, 3 * sizeof(double));
    CHECK(rc_sim_def_check(&def, msg, sizeof msg) == RC_ERR_MESH_DEGENERATE && strstr(msg, "world positions") != NULL);
    printf("    %s\n", msg);
    memcpy(m.pos + 3 * 5, g.pos + 3 * 5, 3 * sizeof(double));
    /* a non-finite position, named */
    m.pos[3 * 7 + 1] = NAN;
    CHECK(rc_sim_def_check(&def, msg, sizeof msg) == RC_ERR_NON_FINITE && strstr(msg, "vertex 7 has a non-finite position") != NULL);
    m.pos[3 * 7 + 1] = g.pos[3 * 7 + 1];
    /* pos at three times the uv scale (texture coordinates for a 3 m cloth): created, with a
       warning; so at twice (vt in [0, 1] on a 2 m cloth: until session 58 the bound was 2,
       inclusive) and at 1.3 (no fabric stretches so far), not at 1.2 or at half */
    {
        const double f[5] = { 3.0, 2.0, 1.3, 1.2, 0.5 };
        int k;
        for (k = 0; k < 5; ++k) {
            for (i = 0; i < 3 * nv; ++i) m.pos[i] = f[k] * g.pos[i];
            CHECK_OK(rc_sim_create(&def, &s));
            if (k < 3) CHECKF(s && strstr(rc_sim_last_warning(s), "not texture coordinates") != NULL, "no warning at %g", f[k]);
            else CHECKF(s && rc_sim_last_warning(s)[0] == 0, "a warning at %g: %s", f[k], s ? rc_sim_last_warning(s) : "");
            if (s && k == 0) printf("    %s\n", rc_sim_last_warning(s));
            rc_sim_destroy(s);
        }
    }
    free(m.ref_uv); free(m.pos); free(m.tris);
    rc_mesh_free(&g);
}

static void suite_mesh(void)
{
    RUN(test_mesh_edges_hand);
    RUN(test_mesh_edges_closed_and_invalid);
    RUN(test_mesh_topo_nonmanifold);
    RUN(test_mesh_grid_topology);
    RUN(test_mesh_rounded_sides_slide);
    RUN(test_mesh_grid_patterns);
    RUN(test_mesh_square_delaunay);
    RUN(test_mesh_disk);
    RUN(test_mesh_annulus);
    RUN(test_mesh_validate_failures);
    RUN(test_mesh_sliver_refused);
    RUN(test_mesh_obj_roundtrip);
    RUN(test_mesh_obj_read_variants);
    RUN(test_mesh_obj_malformed);
    RUN(test_mesh_obj_map);
    RUN(test_mesh_topo_non_finite);
    RUN(test_mesh_generators_sweep);
    RUN(test_mesh_bad_input);
    RUN(test_mesh_generators_validate_output);
    RUN(test_mesh_describe);
    RUN(test_mesh_remove_unreferenced_and_create_checks);
}
