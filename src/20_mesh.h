/* ==========================================================================
   SECTION: MESH  (triangle meshes, adjacency, validation, generators, OBJ)
   Owns: rc_trimesh / rc_mesh, the reference-mesh validator, the mesh
   generators (grid, Delaunay square, disk, annulus), OBJ read/write, and the
   private topology (rc__topo: edges, flaps, one-rings, boundary loops, the
   corner / sliding classification of boundary vertices of DESIGN §5) and
   point location in a reference mesh (DESIGN §2, inertia transfer).
   Calls only BASE.

   CONVENTIONS
     A triangle t is tris[3t+0..2]. Its local edge k is opposite its local
     vertex k and joins tris[3t+(k+1)%3] -> tris[3t+(k+2)%3] (in that
     direction: this is the "half-edge" (t, k), index h = 3t+k). Edges are
     numbered in order of first appearance scanning h = 0, 1, 2, ... .
     Reference triangles are counter-clockwise in uv (positive signed area).
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* A non-owning view of a triangle list. */
#ifndef RC_TRIMESH_DEFINED
#define RC_TRIMESH_DEFINED
typedef struct rc_trimesh {
    int num_verts, num_tris;
    const int *tris;            /* 3*num_tris vertex indices */
} rc_trimesh;
#endif

/* Number of distinct edges of m. Edges are numbered in order of first appearance scanning
   tris[3t+k] for t = 0.., k = 0..2, edge k of triangle t joining tris[3t+(k+1)%3] and
   tris[3t+(k+2)%3]; every edge-indexed array of the library uses this numbering.
   Returns -1 on invalid input (NULL, negative counts, an index out of range or repeated within a
   triangle) or if memory runs out. */
RCLOTHDEF int rc_trimesh_num_edges(const rc_trimesh *m);

/* An owning mesh, produced by the generators and the OBJ reader; free with rc_mesh_free.
   ref_uv: 2*num_verts flat reference coordinates; pos: 3*num_verts world positions;
   tris: 3*num_tris, counter-clockwise in ref_uv for the generators. */
typedef struct rc_mesh {
    int num_verts, num_tris;
    double *ref_uv;
    double *pos;
    int *tris;
} rc_mesh;

/* Frees the arrays of m (allocated with the default allocator, user pointer NULL) and zeroes it.
   NULL and an already freed / zeroed mesh are fine. */
RCLOTHDEF void rc_mesh_free(rc_mesh *m);

/* Diagonal patterns for rc_mesh_grid. RC_DIAG_RANDOM uses seed 0; RC_DIAG_RANDOM + s (s > 0)
   uses seed s, so any int >= RC_DIAG_RANDOM is a seeded random pattern. */
enum {
    RC_DIAG_REGULAR = 0,       /* every cell split along the same diagonal (lower-left to upper-right) */
    RC_DIAG_ALTERNATING = 1,   /* diagonal direction alternates per cell in a checkerboard ("union jack") */
    RC_DIAG_RANDOM = 2         /* each cell's diagonal chosen by a seeded hash of the cell */
};

/* Regular grid on [0, width] x [0, height]: exactly nx*ny vertices (nx, ny >= 2), vertex
   (i, j) is index j*nx + i at uv = (width*i/(nx-1), height*j/(ny-1)), 2(nx-1)(ny-1) triangles,
   counter-clockwise, pos = (u, v, 0). On error *out is zeroed. */
RCLOTHDEF rc_status rc_mesh_grid(rc_mesh *out, double width, double height, int nx, int ny, int diagonals);

/* Unstructured Delaunay square [0, size]^2. With m = max(2, round(sqrt(target_verts)) - 1)
   segments per side, the mesh has exactly (m+1)^2 vertices (so within about 2/sqrt(target) of
   the target, relative): 4m boundary points uniformly spaced on the sides and (m-1)^2 interior
   points on the lattice of spacing h = size/m, each jittered uniformly by up to 0.15 h per
   coordinate (seeded), then triangulated (grid) and made Delaunay by Lawson edge flips. */
RCLOTHDEF rc_status rc_mesh_square(rc_mesh *out, double size, int target_verts, unsigned seed);

/* Disk of the given radius centred at the origin: a centre vertex and K concentric rings, ring k
   at radius k*radius/K with 6k vertices (the last ring on the boundary circle), so the mesh has
   1 + 3K(K+1) vertices, K >= 1 the rounded real root of 1 + 3K(K+1) = target_verts (so within
   about 2/sqrt(target) relative for large targets); rings are stitched and made
   Delaunay by Lawson flips. */
RCLOTHDEF rc_status rc_mesh_disk(rc_mesh *out, double radius, int target_verts);

/* Annulus r_inner <= |u| <= r_outer centred at the origin (0 < r_inner < r_outer): M+1 rings,
   ring k at radius r_k = r_inner + k (r_outer - r_inner)/M with n_k = max(3, round(2 pi r_k / h))
   vertices, h chosen so that sum_k n_k is near target_verts (within a few percent for targets in
   the hundreds; at least 3 vertices per ring and 2 rings, and for thin coarse annuli more: each
   ring's polygon must contain the previous one, r_k cos(pi/n_k) > r_(k-1); an annulus so thin that
   this needs more than 4 target_verts + 64 vertices is RC_ERR_INVALID_ARGUMENT). slit != 0 cuts the domain along the
   positive u axis: every ring gets one extra vertex at angle 2 pi duplicating the one at angle 0,
   so the domain is simply connected (one boundary loop instead of two). Lawson-flipped. */
RCLOTHDEF rc_status rc_mesh_annulus(rc_mesh *out, double r_inner, double r_outer, int target_verts, int slit);

/* Reads a Wavefront OBJ: "v x y z" = world position, "vt u v" = reference uv (first two
   components), "f" with v, v/vt, v/vt/vn or v//vn corners (1-based or negative relative
   indices); polygons are fan-triangulated (c0, ck, ck+1). Every "v" line is one mesh vertex
   (unreferenced ones are kept); a vertex whose faces use it with several different vt indices is
   duplicated, one copy per extra (v, vt) pair. A vertex with no vt gets uv = (x, y). Other
   statements (vn, o, g, s, usemtl, mtllib, l, ...) are ignored. Numbers are parsed with strtod
   (C locale expected). Errors: RC_ERR_IO (cannot open/read), RC_ERR_PARSE (bad number, bad face
   corner, index 0 or out of range, face with < 3 corners, no faces at all), RC_ERR_NON_FINITE
   (inf/nan coordinates). The result is not validated: call rc_mesh_validate. */
RCLOTHDEF rc_status rc_mesh_read_obj(rc_mesh *out, const char *path);

/* Writes v (pos), vt (ref_uv; omitted if ref_uv is NULL) and "f a/a b/b c/c" lines, 17
   significant digits (exact round trip). */
RCLOTHDEF rc_status rc_mesh_write_obj(const char *path, int nv, const double *pos, const double *ref_uv,
                                      int nt, const int *tris);

/* Validates a reference mesh, checks in this order (first failure returned):
     RC_ERR_INVALID_ARGUMENT   NULL arrays, nv < 3, nt < 1
     RC_ERR_MESH_INDEX         an index outside [0, nv) or repeated within a triangle
     RC_ERR_NON_FINITE         a NaN/inf uv coordinate (of any vertex)
     RC_ERR_MESH_DEGENERATE    |signed area| <= 1e-12 * (area of the uv bounding box of all vertices)
     RC_ERR_MESH_ORIENTATION   triangles of both orientations (the message names the first triangle
                               whose orientation differs from triangle 0); all clockwise is fine if
                               flipped != NULL: then *flipped = 1 and the caller reverses every
                               triangle (e.g. swaps tris[3t+1] and tris[3t+2]); all clockwise with
                               flipped == NULL is RC_ERR_MESH_ORIENTATION
     RC_ERR_MESH_NON_MANIFOLD  an edge in more than two triangles, or two triangles traversing their
                               shared edge in the same direction (inconsistent winding)
   *flipped (if not NULL) is 0 unless set as above. msg (if not NULL and msg_len > 0) receives a
   NUL-terminated description with the offending triangle index ("" when RC_OK). */
RCLOTHDEF rc_status rc_mesh_validate(int nv, int nt, const double *ref_uv, const int *tris, int *flipped,
                                     char *msg, int msg_len);

#ifdef __cplusplus
}
#endif

/* ==== IMPLEMENTATION ==== */
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RC__UNUSED on public definitions: with RCLOTH_STATIC they are static and may be unused. */

/* ---- private topology ------------------------------------------------------------------
   Built once per connectivity (connectivity never changes in rcloth) and indexed in hot loops.
   Half-edge h = 3t + k is local edge k of triangle t, opposite local vertex k, running
   tris[3t+(k+1)%3] -> tris[3t+(k+2)%3]. Edge numbering = rc_trimesh_num_edges numbering. */
enum { RC__VK_INTERIOR = 0, RC__VK_CORNER = 1, RC__VK_SLIDING = 2 };

typedef struct rc__topo {
    int nv, nt, ne;
    int *tri_v;      /* 3*nt: copy of the triangle list */
    int *tri_edge;   /* 3*nt: global edge of local edge k of triangle t (opposite vertex k) */
    int *edge_v;     /* 2*ne: the two vertices, lower index first */
    int *edge_tri;   /* 2*ne: adjacent triangles; [0] is the first in scan order, [1] = -1 on the boundary */
    int *edge_k;     /* 2*ne: local index of the edge in edge_tri[0] / edge_tri[1] (-1 if none) */
    int *tri_nbr;    /* 3*nt: triangle across local edge k, -1 on the boundary */
    int *tri_flap;   /* 3*nt: vertex of tri_nbr opposite the shared edge, -1 on the boundary */
    int *tri_nbr_k;  /* 3*nt: local index of the shared edge inside tri_nbr, -1 on the boundary */
    int *vt_ptr, *vt_idx;   /* vertex -> incident triangles (CSR, ascending) */
    int *vv_ptr, *vv_idx;   /* vertex -> neighbour vertices (CSR, ascending) */
    int *vv_edge;           /* aligned with vv_idx: the edge joining v and vv_idx[j] */
    int nloops;
    int *loop_ptr, *loop_v; /* boundary loops, vertices in order with the domain on the left
                               (outer boundary ccw, holes cw, for ccw triangles) */
    int *bnd_prev, *bnd_next; /* nv: boundary neighbours along the loop (prev -> v -> next) for
                                 manifold boundary vertices, -1 otherwise */
    unsigned char *vkind;   /* RC__VK_INTERIOR / RC__VK_CORNER / RC__VK_SLIDING */
    double *slide_dir;      /* 2*nv: unit tangent (bnd_next - bnd_prev direction) of sliding vertices, 0 otherwise */
    double *edge_rest_len;  /* ne: edge length in the ref_uv given to rc__topo_build (0 if NULL) */
} rc__topo;

/* Relative collinearity tolerance for sliding vertices: prev p, vertex v, next n are collinear when
   |(v-p) x (n-v)| <= RC__MESH_COLLINEAR_TOL |v-p| |n-v| (the sine of the turning angle) and the
   boundary goes straight on ((v-p).(n-v) > 0). 1e-9 is far above the round-off of generated
   coordinates (~1e-16) and far below the turning angle of any sensible curved boundary (a circle
   with a million boundary vertices turns by 6e-6 per vertex). */
#define RC__MESH_COLLINEAR_TOL 1e-9

static RC__UNUSED void rc__topo_free(rc__topo *t, void *user)
{
    if (!t) return;
    rc__free(user, t->tri_v); rc__free(user, t->tri_edge); rc__free(user, t->edge_v); rc__free(user, t->edge_tri);
    rc__free(user, t->edge_k); rc__free(user, t->tri_nbr); rc__free(user, t->tri_flap);
    rc__free(user, t->tri_nbr_k); rc__free(user, t->vt_ptr); rc__free(user, t->vt_idx);
    rc__free(user, t->vv_ptr); rc__free(user, t->vv_idx); rc__free(user, t->vv_edge);
    rc__free(user, t->loop_ptr); rc__free(user, t->loop_v); rc__free(user, t->bnd_prev);
    rc__free(user, t->bnd_next); rc__free(user, t->vkind); rc__free(user, t->slide_dir);
    rc__free(user, t->edge_rest_len);
    memset(t, 0, sizeof(*t));
}

/* Checks triangle indices: in range and distinct. Returns the first bad triangle or -1. */
static int rc__mesh_bad_index(int nv, int nt, const int *tris)
{
    int t;
    for (t = 0; t < nt; ++t) {
        int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
        if (a < 0 || b < 0 || c < 0 || a >= nv || b >= nv || c >= nv || a == b || b == c || a == c) return t;
    }
    return -1;
}

typedef struct rc__mesh_he { int a, b, h; } rc__mesh_he;

static int rc__mesh_he_cmp(const void *pa, const void *pb)
{
    const rc__mesh_he *x = (const rc__mesh_he *)pa, *y = (const rc__mesh_he *)pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return x->h < y->h ? -1 : (x->h > y->h);
}

/* Edge numbering (indices already checked). tri_edge[3nt] receives the global edge of every
   half-edge, *ne the edge count. Sorting the half-edges by (min, max, h) puts each edge's
   half-edges together with the first-appearing one first; a scan in h order then numbers an edge
   when its first half-edge is met. O(nt log nt). */
static rc_status rc__mesh_number_edges(void *user, int nt, const int *tris, int *tri_edge, int *ne)
{
    int n = 3 * nt, i, count = 0;
    rc__mesh_he *he = (rc__mesh_he *)rc__alloc(user, (size_t)n, sizeof(rc__mesh_he));
    if (!he) return RC_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; ++i) {
        int t = i / 3, k = i % 3;
        int p = tris[3 * t + (k + 1) % 3], q = tris[3 * t + (k + 2) % 3];
        he[i].a = p < q ? p : q;
        he[i].b = p < q ? q : p;
        he[i].h = i;
    }
    qsort(he, (size_t)n, sizeof(rc__mesh_he), rc__mesh_he_cmp);
    for (i = 0; i < n;) {   /* tri_edge[h] <- first half-edge of h's group */
        int j = i;
        while (j < n && he[j].a == he[i].a && he[j].b == he[i].b) tri_edge[he[j++].h] = he[i].h;
        i = j;
    }
    for (i = 0; i < n; ++i)   /* first(h) <= h, so tri_edge[first(h)] already holds its number */
        tri_edge[i] = (tri_edge[i] == i) ? count++ : tri_edge[tri_edge[i]];
    rc__free(user, he);
    *ne = count;
    return RC_OK;
}

RCLOTHDEF RC__UNUSED int rc_trimesh_num_edges(const rc_trimesh *m)
{
    int *te, ne = -1;
    if (!m || m->num_verts < 0 || m->num_tris < 0) return -1;
    if (m->num_tris == 0) return 0;
    if (!m->tris || m->num_tris > 0x7fffffff / 3) return -1;
    if (rc__mesh_bad_index(m->num_verts, m->num_tris, m->tris) >= 0) return -1;
    te = (int *)rc__alloc(NULL, (size_t)3 * (size_t)m->num_tris, sizeof(int));
    if (!te) return -1;
    if (rc__mesh_number_edges(NULL, m->num_tris, m->tris, te, &ne) != RC_OK) ne = -1;
    rc__free(NULL, te);
    return ne;
}

static double rc__mesh_orient2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Builds the topology of a triangle list. ref_uv may be NULL (e.g. an obstacle mesh): then
   every boundary vertex is a corner and edge_rest_len is 0. Errors: RC_ERR_INVALID_ARGUMENT
   (NULL, nv < 1, nt < 1), RC_ERR_MESH_INDEX, RC_ERR_NON_FINITE (ref_uv), RC_ERR_MESH_NON_MANIFOLD
   (an edge in > 2 triangles or traversed twice in the same direction), RC_ERR_OUT_OF_MEMORY.
   Orientation and degeneracy are not checked here (rc_mesh_validate does). On error *t is zeroed. */
static RC__UNUSED rc_status rc__topo_build(rc__topo *t, void *user, int nv, int nt, const int *tris,
                                           const double *ref_uv)
{
    rc_status st = RC_OK;
    int i, e, v, n3, nb = 0, *tmp = NULL, *stack = NULL, *mark = NULL, *bout_ptr = NULL, *bout = NULL;
    unsigned char *used = NULL;
    if (!t) return RC_ERR_INVALID_ARGUMENT;
    memset(t, 0, sizeof(*t));
    if (!tris || nv < 1 || nt < 1 || nt > 0x7fffffff / 3) return RC_ERR_INVALID_ARGUMENT;
    if (rc__mesh_bad_index(nv, nt, tris) >= 0) return RC_ERR_MESH_INDEX;
    if (ref_uv && !rc__all_finite(ref_uv, (size_t)2 * (size_t)nv)) return RC_ERR_NON_FINITE;
    n3 = 3 * nt;
    t->nv = nv; t->nt = nt;
    t->tri_v = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->tri_edge = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    if (!t->tri_edge || !t->tri_v) { st = RC_ERR_OUT_OF_MEMORY; goto fail; }
    memcpy(t->tri_v, tris, sizeof(int) * (size_t)n3);
    st = rc__mesh_number_edges(user, nt, tris, t->tri_edge, &t->ne);
    if (st != RC_OK) goto fail;
    t->edge_v = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->edge_tri = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->edge_k = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->tri_nbr = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->tri_flap = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->tri_nbr_k = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->vt_ptr = (int *)rc__calloc(user, (size_t)nv + 1, sizeof(int));
    t->vt_idx = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->vv_ptr = (int *)rc__calloc(user, (size_t)nv + 1, sizeof(int));
    t->vv_idx = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->vv_edge = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->bnd_prev = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    t->bnd_next = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    t->vkind = (unsigned char *)rc__calloc(user, (size_t)nv, 1);
    t->slide_dir = (double *)rc__calloc(user, (size_t)2 * (size_t)nv, sizeof(double));
    t->edge_rest_len = (double *)rc__calloc(user, (size_t)t->ne, sizeof(double));
    tmp = (int *)rc__alloc(user, (size_t)nv + 1, sizeof(int));
    mark = (int *)rc__alloc(user, (size_t)nt, sizeof(int));
    stack = (int *)rc__alloc(user, (size_t)nt, sizeof(int));
    if (!t->edge_v || !t->edge_tri || !t->edge_k || !t->tri_nbr || !t->tri_flap || !t->tri_nbr_k ||
        !t->vt_ptr || !t->vt_idx || !t->vv_ptr || !t->vv_idx || !t->vv_edge || !t->bnd_prev ||
        !t->bnd_next || !t->vkind || !t->slide_dir || !t->edge_rest_len || !tmp || !mark || !stack) {
        st = RC_ERR_OUT_OF_MEMORY;
        goto fail;
    }

    /* edges: endpoints, adjacent triangles, manifoldness and consistent winding */
    for (e = 0; e < 2 * t->ne; ++e) t->edge_tri[e] = t->edge_k[e] = -1;
    for (i = 0; i < n3; ++i) {
        int tr = i / 3, k = i % 3, p = tris[3 * tr + (k + 1) % 3], q = tris[3 * tr + (k + 2) % 3];
        e = t->tri_edge[i];
        t->tri_nbr[i] = t->tri_flap[i] = t->tri_nbr_k[i] = -1;
        if (t->edge_tri[2 * e] < 0) {
            t->edge_v[2 * e] = p < q ? p : q;
            t->edge_v[2 * e + 1] = p < q ? q : p;
            t->edge_tri[2 * e] = tr;
            t->edge_k[2 * e] = k;
        } else if (t->edge_tri[2 * e + 1] < 0) {
            int t0 = t->edge_tri[2 * e], k0 = t->edge_k[2 * e];
            /* the two triangles must run the shared edge in opposite directions */
            if (tris[3 * t0 + (k0 + 1) % 3] == p) { st = RC_ERR_MESH_NON_MANIFOLD; goto fail; }
            t->edge_tri[2 * e + 1] = tr;
            t->edge_k[2 * e + 1] = k;
        } else {
            st = RC_ERR_MESH_NON_MANIFOLD;   /* third triangle on one edge */
            goto fail;
        }
    }
    for (e = 0; e < t->ne; ++e) {
        int t0 = t->edge_tri[2 * e], k0 = t->edge_k[2 * e], t1 = t->edge_tri[2 * e + 1], k1 = t->edge_k[2 * e + 1];
        if (ref_uv) {
            const double *a = ref_uv + 2 * t->edge_v[2 * e], *b = ref_uv + 2 * t->edge_v[2 * e + 1];
            t->edge_rest_len[e] = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]));
        }
        if (t1 < 0) { ++nb; continue; }
        t->tri_nbr[3 * t0 + k0] = t1; t->tri_flap[3 * t0 + k0] = tris[3 * t1 + k1]; t->tri_nbr_k[3 * t0 + k0] = k1;
        t->tri_nbr[3 * t1 + k1] = t0; t->tri_flap[3 * t1 + k1] = tris[3 * t0 + k0]; t->tri_nbr_k[3 * t1 + k1] = k0;
    }

    /* vertex -> triangles */
    for (i = 0; i < n3; ++i) t->vt_ptr[tris[i] + 1]++;
    for (v = 0; v < nv; ++v) t->vt_ptr[v + 1] += t->vt_ptr[v];
    memcpy(tmp, t->vt_ptr, sizeof(int) * (size_t)nv);
    for (i = 0; i < n3; ++i) t->vt_idx[tmp[tris[i]]++] = i / 3;

    /* vertex -> vertices (+ joining edge), each row sorted by neighbour (insertion sort: rows are
       short; a long fan row costs O(deg^2) once, at build time) */
    for (e = 0; e < t->ne; ++e) { t->vv_ptr[t->edge_v[2 * e] + 1]++; t->vv_ptr[t->edge_v[2 * e + 1] + 1]++; }
    for (v = 0; v < nv; ++v) t->vv_ptr[v + 1] += t->vv_ptr[v];
    memcpy(tmp, t->vv_ptr, sizeof(int) * (size_t)nv);
    for (e = 0; e < t->ne; ++e) {
        int a = t->edge_v[2 * e], b = t->edge_v[2 * e + 1];
        t->vv_idx[tmp[a]] = b; t->vv_edge[tmp[a]++] = e;
        t->vv_idx[tmp[b]] = a; t->vv_edge[tmp[b]++] = e;
    }
    for (v = 0; v < nv; ++v) {
        int j, lo = t->vv_ptr[v], hi = t->vv_ptr[v + 1];
        for (j = lo + 1; j < hi; ++j) {
            int x = t->vv_idx[j], xe = t->vv_edge[j], m = j - 1;
            while (m >= lo && t->vv_idx[m] > x) { t->vv_idx[m + 1] = t->vv_idx[m]; t->vv_edge[m + 1] = t->vv_edge[m]; --m; }
            t->vv_idx[m + 1] = x; t->vv_edge[m + 1] = xe;
        }
    }

    /* boundary half-edges grouped by origin vertex (CSR), then loops traced by following them:
       every boundary half-edge runs with the domain on its left, and each vertex has as many
       incoming as outgoing boundary half-edges, so a greedy trace always closes. */
    bout_ptr = (int *)rc__calloc(user, (size_t)nv + 1, sizeof(int));
    bout = (int *)rc__alloc(user, (size_t)nb, sizeof(int));
    used = (unsigned char *)rc__calloc(user, (size_t)nb, 1);
    t->loop_ptr = (int *)rc__alloc(user, (size_t)nb + 1, sizeof(int));
    t->loop_v = (int *)rc__alloc(user, (size_t)nb, sizeof(int));
    if (!bout_ptr || !bout || !used || !t->loop_ptr || !t->loop_v) { st = RC_ERR_OUT_OF_MEMORY; goto fail; }
    for (v = 0; v < nv; ++v) t->bnd_prev[v] = t->bnd_next[v] = -1;
    for (e = 0; e < t->ne; ++e)
        if (t->edge_tri[2 * e + 1] < 0) {
            int h = 3 * t->edge_tri[2 * e] + t->edge_k[2 * e];
            bout_ptr[tris[3 * (h / 3) + (h % 3 + 1) % 3] + 1]++;
        }
    for (v = 0; v < nv; ++v) bout_ptr[v + 1] += bout_ptr[v];
    memcpy(tmp, bout_ptr, sizeof(int) * (size_t)nv);
    for (e = 0; e < t->ne; ++e)
        if (t->edge_tri[2 * e + 1] < 0) {
            int h = 3 * t->edge_tri[2 * e] + t->edge_k[2 * e];
            int o = tris[3 * (h / 3) + (h % 3 + 1) % 3], d = tris[3 * (h / 3) + (h % 3 + 2) % 3];
            bout[tmp[o]++] = h;
            /* (each vertex has as many incoming boundary half-edges as outgoing ones) */
            if (bout_ptr[o + 1] - bout_ptr[o] == 1) t->bnd_next[o] = d;
            if (bout_ptr[d + 1] - bout_ptr[d] == 1) t->bnd_prev[d] = o;
        }
    {
        int nl = 0, nlv = 0, s;
        t->loop_ptr[0] = 0;
        for (s = 0; s < nb; ++s) {
            int cur = s;
            if (used[s]) continue;
            while (!used[cur]) {
                int h = bout[cur], d = tris[3 * (h / 3) + (h % 3 + 2) % 3], j, nxt = -1;
                used[cur] = 1;
                t->loop_v[nlv++] = tris[3 * (h / 3) + (h % 3 + 1) % 3];
                for (j = bout_ptr[d]; j < bout_ptr[d + 1]; ++j)
                    if (!used[j]) { nxt = j; break; }
                if (nxt < 0) break;
                cur = nxt;
            }
            t->loop_ptr[++nl] = nlv;
        }
        t->nloops = nl;
    }

    /* classification: a vertex is interior when it has no boundary edge and its incident
       triangles form one fan (connected across edges through the vertex); boundary vertices with
       exactly one fan and one outgoing boundary edge may slide if straight; everything else
       (bow-ties, several loops, isolated vertices) is a corner. */
    for (i = 0; i < nt; ++i) mark[i] = -1;
    for (v = 0; v < nv; ++v) {
        int j, fans = 0, nbo = bout_ptr[v + 1] - bout_ptr[v];
        for (j = t->vt_ptr[v]; j < t->vt_ptr[v + 1]; ++j) {
            int sp = 0, s0 = t->vt_idx[j];
            if (mark[s0] == v) continue;
            ++fans;
            mark[s0] = v;
            stack[sp++] = s0;
            while (sp > 0) {
                int s = stack[--sp], k;
                for (k = 0; k < 3; ++k) {
                    int nbt = t->tri_nbr[3 * s + k];
                    if (tris[3 * s + k] == v || nbt < 0 || mark[nbt] == v) continue;   /* edge k must contain v */
                    mark[nbt] = v;
                    stack[sp++] = nbt;
                }
            }
        }
        if (fans == 1 && nbo == 0) t->vkind[v] = RC__VK_INTERIOR;
        else t->vkind[v] = RC__VK_CORNER;
        if (fans != 1 || nbo != 1) { t->bnd_next[v] = t->bnd_prev[v] = -1; }
        if (fans == 1 && nbo == 1 && ref_uv && t->bnd_prev[v] >= 0) {
            const double *p = ref_uv + 2 * t->bnd_prev[v], *c = ref_uv + 2 * v, *q = ref_uv + 2 * t->bnd_next[v];
            double d1x = c[0] - p[0], d1y = c[1] - p[1], d2x = q[0] - c[0], d2y = q[1] - c[1];
            double cr = d1x * d2y - d1y * d2x, dt = d1x * d2x + d1y * d2y;
            double l1 = sqrt(d1x * d1x + d1y * d1y), l2 = sqrt(d2x * d2x + d2y * d2y);
            if (dt > 0.0 && fabs(cr) <= RC__MESH_COLLINEAR_TOL * l1 * l2) {
                double tx = q[0] - p[0], ty = q[1] - p[1], l = sqrt(tx * tx + ty * ty);
                t->vkind[v] = RC__VK_SLIDING;
                t->slide_dir[2 * v] = tx / l;
                t->slide_dir[2 * v + 1] = ty / l;
            }
        }
    }
    rc__free(user, tmp); rc__free(user, mark); rc__free(user, stack);
    rc__free(user, bout_ptr); rc__free(user, bout); rc__free(user, used);
    return RC_OK;
fail:
    rc__free(user, tmp); rc__free(user, mark); rc__free(user, stack);
    rc__free(user, bout_ptr); rc__free(user, bout); rc__free(user, used);
    rc__topo_free(t, user);
    return st;
}

/* ---- point location ---------------------------------------------------------------------- */

/* Closest point of triangle (a, b, c) to p: its squared distance, and its barycentrics. */
static double rc__mesh_tri_closest(const double *a, const double *b, const double *c, const double *p, double bary[3])
{
    const double *v[3];
    double area = rc__mesh_orient2(a, b, c), best = -1.0;
    int k;
    v[0] = a; v[1] = b; v[2] = c;
    if (area > 0.0) {
        double l0 = rc__mesh_orient2(p, b, c) / area, l1 = rc__mesh_orient2(a, p, c) / area;
        double l2 = rc__mesh_orient2(a, b, p) / area;
        if (l0 >= 0.0 && l1 >= 0.0 && l2 >= 0.0) {
            bary[0] = l0; bary[1] = l1; bary[2] = l2;
            return 0.0;
        }
    }
    for (k = 0; k < 3; ++k) {   /* nearest point on edge k (opposite vertex k) */
        const double *q0 = v[(k + 1) % 3], *q1 = v[(k + 2) % 3];
        double ex = q1[0] - q0[0], ey = q1[1] - q0[1], ll = ex * ex + ey * ey, s = 0.0, dx, dy, d2;
        if (ll > 0.0) s = ((p[0] - q0[0]) * ex + (p[1] - q0[1]) * ey) / ll;
        if (s < 0.0) s = 0.0;
        if (s > 1.0) s = 1.0;
        dx = q0[0] + s * ex - p[0];
        dy = q0[1] + s * ey - p[1];
        d2 = dx * dx + dy * dy;
        if (best < 0.0 || d2 < best) {
            best = d2;
            bary[k] = 0.0;
            bary[(k + 1) % 3] = 1.0 - s;
            bary[(k + 2) % 3] = s;
        }
    }
    return best;
}

/* Locates p in the reference mesh (t, ref_uv). Walks from start_tri across the edge whose
   barycentric is negative (choosing among several negative ones pseudo-randomly, which makes the
   walk terminate on any triangulation), at most 64 + 8 sqrt(nt) steps; if the walk is capped,
   meets a degenerate/inverted triangle or leaves the domain more than 1e-9 of the triangle size
   away, it falls back to an O(nt) scan for the nearest triangle. Returns the triangle and in bary
   the barycentrics of p (which reconstruct p up to round-off; entries may be slightly negative,
   >= -1e-12, when p is on an edge) or, if p lies outside the domain, those of the nearest point of
   the returned triangle (clamped: all in [0, 1]). Returns -1 on bad input (NULL, empty mesh,
   non-finite p). A start_tri out of range starts from triangle 0. For the inertia transfer, start
   from a triangle of the vertex's old one-ring (t->vt_idx[t->vt_ptr[i]]): then the walk is a few
   steps (measured 150 ns per query on an 80k-triangle square for moves of ~1/100 of the width;
   8 us from a random start). */
static RC__UNUSED int rc__mesh_locate(const rc__topo *t, const double *ref_uv, int start_tri, const double p[2],
                                      double bary[3])
{
    int cur, step, cap, best = -1;
    unsigned r;
    double bestd = -1.0, tb[3];
    if (!t || !ref_uv || !p || !bary || t->nt < 1 || !t->tri_nbr || !t->tri_v) return -1;
    if (!rc__isfinite(p[0]) || !rc__isfinite(p[1])) return -1;
    cur = (start_tri >= 0 && start_tri < t->nt) ? start_tri : 0;
    cap = 64 + (int)(8.0 * sqrt((double)t->nt));
    r = 2463534242u ^ (unsigned)cur;
    for (step = 0; step < cap; ++step) {
        const int *vid = t->tri_v + 3 * cur;
        int k, pick = -1, k0;
        const double *a, *b, *c;
        double area, l[3], lmin;
        a = ref_uv + 2 * vid[0]; b = ref_uv + 2 * vid[1]; c = ref_uv + 2 * vid[2];
        area = rc__mesh_orient2(a, b, c);
        if (!(area > 0.0)) break;
        l[0] = rc__mesh_orient2(p, b, c) / area;
        l[1] = rc__mesh_orient2(a, p, c) / area;
        l[2] = rc__mesh_orient2(a, b, p) / area;
        lmin = l[0] < l[1] ? (l[0] < l[2] ? l[0] : l[2]) : (l[1] < l[2] ? l[1] : l[2]);
        if (lmin >= -1e-12) {
            bary[0] = l[0]; bary[1] = l[1]; bary[2] = l[2];
            return cur;
        }
        r = r * 1664525u + 1013904223u;
        k0 = (int)((r >> 16) % 3u);
        for (k = 0; k < 3; ++k) {
            int kk = (k0 + k) % 3;
            if (l[kk] < -1e-12 && t->tri_nbr[3 * cur + kk] >= 0) { pick = kk; break; }
        }
        if (pick < 0) {   /* p is beyond boundary edges of cur: accept if it is only round-off away */
            double d2 = rc__mesh_tri_closest(a, b, c, p, tb);
            if (d2 <= 1e-18 * area) {
                bary[0] = tb[0]; bary[1] = tb[1]; bary[2] = tb[2];
                return cur;
            }
            break;
        }
        cur = t->tri_nbr[3 * cur + pick];
    }
    /* fallback: nearest triangle by brute force */
    for (cur = 0; cur < t->nt; ++cur) {
        const int *vid = t->tri_v + 3 * cur;
        double d2;
        d2 = rc__mesh_tri_closest(ref_uv + 2 * vid[0], ref_uv + 2 * vid[1], ref_uv + 2 * vid[2], p, tb);
        if (best < 0 || d2 < bestd) {
            best = cur; bestd = d2;
            bary[0] = tb[0]; bary[1] = tb[1]; bary[2] = tb[2];
            if (d2 == 0.0) break;
        }
    }
    return best;
}

/* ---- validation -------------------------------------------------------------------------- */

static void rc__mesh_msg(char *msg, int msg_len, const char *what, int tri)
{
    if (!msg || msg_len <= 0) return;
    if (tri >= 0) snprintf(msg, (size_t)msg_len, "triangle %d: %s", tri, what);
    else snprintf(msg, (size_t)msg_len, "%s", what);
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_validate(int nv, int nt, const double *ref_uv, const int *tris, int *flipped,
                                     char *msg, int msg_len)
{
    int t, bad, npos = 0, nneg = 0, first_diff = -1;
    double lo[2], hi[2], box;
    rc__topo topo;
    rc_status st;
    if (flipped) *flipped = 0;
    rc__mesh_msg(msg, msg_len, "", -1);
    if (!ref_uv || !tris || nv < 3 || nt < 1 || nt > 0x7fffffff / 3) {
        rc__mesh_msg(msg, msg_len, "NULL array or too few vertices / triangles", -1);
        return RC_ERR_INVALID_ARGUMENT;
    }
    bad = rc__mesh_bad_index(nv, nt, tris);
    if (bad >= 0) {
        rc__mesh_msg(msg, msg_len, "vertex index out of range or repeated", bad);
        return RC_ERR_MESH_INDEX;
    }
    if (!rc__all_finite(ref_uv, (size_t)2 * (size_t)nv)) {
        int v;
        char buf[64];
        for (v = 0; v < nv; ++v)
            if (!rc__isfinite(ref_uv[2 * v]) || !rc__isfinite(ref_uv[2 * v + 1])) break;
        snprintf(buf, sizeof(buf), "vertex %d has a non-finite uv", v);
        rc__mesh_msg(msg, msg_len, buf, -1);
        return RC_ERR_NON_FINITE;
    }
    lo[0] = hi[0] = ref_uv[0]; lo[1] = hi[1] = ref_uv[1];
    for (t = 1; t < nv; ++t) {
        int d;
        for (d = 0; d < 2; ++d) {
            double x = ref_uv[2 * t + d];
            if (x < lo[d]) lo[d] = x;
            if (x > hi[d]) hi[d] = x;
        }
    }
    box = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    for (t = 0; t < nt; ++t) {
        /* signed area A = det[b-a, c-a]/2; degenerate when |A| <= 1e-12 * bbox area, a scale-free
           threshold well below any usable element and well above round-off of the determinant */
        double A = 0.5 * rc__mesh_orient2(ref_uv + 2 * tris[3 * t], ref_uv + 2 * tris[3 * t + 1], ref_uv + 2 * tris[3 * t + 2]);
        if (!(fabs(A) > 1e-12 * box)) {
            rc__mesh_msg(msg, msg_len, "degenerate (zero-area) reference triangle", t);
            return RC_ERR_MESH_DEGENERATE;
        }
        if (A > 0.0) ++npos; else ++nneg;
    }
    if (npos > 0 && nneg > 0) {
        double A0 = rc__mesh_orient2(ref_uv + 2 * tris[0], ref_uv + 2 * tris[1], ref_uv + 2 * tris[2]);
        for (t = 1; t < nt; ++t) {
            double A = rc__mesh_orient2(ref_uv + 2 * tris[3 * t], ref_uv + 2 * tris[3 * t + 1], ref_uv + 2 * tris[3 * t + 2]);
            if ((A > 0.0) != (A0 > 0.0)) { first_diff = t; break; }
        }
        rc__mesh_msg(msg, msg_len, "orientation differs from triangle 0 (mixed orientation)", first_diff);
        return RC_ERR_MESH_ORIENTATION;
    }
    if (nneg > 0 && !flipped) {
        rc__mesh_msg(msg, msg_len, "all triangles clockwise (pass flipped to accept and flip them)", 0);
        return RC_ERR_MESH_ORIENTATION;
    }
    st = rc__topo_build(&topo, NULL, nv, nt, tris, NULL);
    if (st == RC_ERR_MESH_NON_MANIFOLD) {
        /* find the first triangle that makes an edge non-manifold, for the message */
        int *te = (int *)rc__alloc(NULL, (size_t)3 * (size_t)nt, sizeof(int)), ne = 0;
        int *cnt = NULL, *orig = NULL, h;
        if (te && rc__mesh_number_edges(NULL, nt, tris, te, &ne) == RC_OK) {
            cnt = (int *)rc__calloc(NULL, (size_t)ne, sizeof(int));
            orig = (int *)rc__alloc(NULL, (size_t)ne, sizeof(int));
            if (cnt && orig)
                for (h = 0; h < 3 * nt; ++h) {
                    int e = te[h], o = tris[3 * (h / 3) + (h % 3 + 1) % 3];
                    if (cnt[e] == 0) orig[e] = o;
                    else if (cnt[e] >= 2) { rc__mesh_msg(msg, msg_len, "edge shared by more than two triangles", h / 3); break; }
                    else if (orig[e] == o) { rc__mesh_msg(msg, msg_len, "shared edge wound the same way as its neighbour (inconsistent winding)", h / 3); break; }
                    cnt[e]++;
                }
        }
        rc__free(NULL, te); rc__free(NULL, cnt); rc__free(NULL, orig);
        return st;
    }
    if (st != RC_OK) {
        rc__mesh_msg(msg, msg_len, rc_status_string(st), -1);
        return st;
    }
    rc__topo_free(&topo, NULL);
    if (nneg > 0) {
        *flipped = 1;
        rc__mesh_msg(msg, msg_len, "all triangles clockwise: flip them", -1);
    }
    return RC_OK;
}

/* ---- owning meshes and generators --------------------------------------------------------- */

RCLOTHDEF RC__UNUSED void rc_mesh_free(rc_mesh *m)
{
    if (!m) return;
    rc__free(NULL, m->ref_uv);
    rc__free(NULL, m->pos);
    rc__free(NULL, m->tris);
    memset(m, 0, sizeof(*m));
}

/* allocates out's arrays for nv vertices and nt triangles (pos left for rc__mesh_lift_flat) */
static rc_status rc__mesh_alloc(rc_mesh *out, int nv, int nt)
{
    memset(out, 0, sizeof(*out));
    out->ref_uv = (double *)rc__alloc(NULL, (size_t)2 * (size_t)nv, sizeof(double));
    out->pos = (double *)rc__alloc(NULL, (size_t)3 * (size_t)nv, sizeof(double));
    out->tris = (int *)rc__alloc(NULL, (size_t)3 * (size_t)nt, sizeof(int));
    if (!out->ref_uv || !out->pos || !out->tris) { rc_mesh_free(out); return RC_ERR_OUT_OF_MEMORY; }
    out->num_verts = nv;
    out->num_tris = nt;
    return RC_OK;
}

static void rc__mesh_lift_flat(rc_mesh *m)
{
    int v;
    for (v = 0; v < m->num_verts; ++v) {
        m->pos[3 * v] = m->ref_uv[2 * v];
        m->pos[3 * v + 1] = m->ref_uv[2 * v + 1];
        m->pos[3 * v + 2] = 0.0;
    }
}

/* d > 0 iff d lies strictly inside the circumcircle of the ccw triangle (a, b, c) */
static double rc__mesh_incircle(const double *a, const double *b, const double *c, const double *d)
{
    double adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1];
    double cdx = c[0] - d[0], cdy = c[1] - d[1];
    return (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy) +
           (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
}

/* relative incircle value: the determinant over L^4 (L^2 the largest squared distance to d), so
   the flip threshold below is scale free */
static double rc__mesh_incircle_rel(const double *a, const double *b, const double *c, const double *d)
{
    double l = 0.0, q;
    q = (a[0] - d[0]) * (a[0] - d[0]) + (a[1] - d[1]) * (a[1] - d[1]); if (q > l) l = q;
    q = (b[0] - d[0]) * (b[0] - d[0]) + (b[1] - d[1]) * (b[1] - d[1]); if (q > l) l = q;
    q = (c[0] - d[0]) * (c[0] - d[0]) + (c[1] - d[1]) * (c[1] - d[1]); if (q > l) l = q;
    if (l <= 0.0) return 0.0;
    return rc__mesh_incircle(a, b, c, d) / (l * l);
}

/* Lawson flips to a (constrained, boundary edges kept) Delaunay triangulation. Each pass
   rebuilds the adjacency and flips every interior edge whose flap vertex is inside the
   circumcircle (relative incircle > 1e-10: co-circular configurations are left alone, which is
   what makes the process terminate), at most one flip per triangle per pass. The flip of edge
   (b, c) shared by ccw (a, b, c) and (d, c, b) gives (a, b, d) and (a, d, c), both ccw because a
   locally non-Delaunay quad is convex. */
static rc_status rc__mesh_lawson(rc_mesh *m)
{
    int pass, e;
    unsigned char *dirty = (unsigned char *)rc__alloc(NULL, (size_t)m->num_tris, 1);
    if (!dirty) return RC_ERR_OUT_OF_MEMORY;
    for (pass = 0; pass < 1000; ++pass) {
        rc__topo tp;
        int flips = 0;
        rc_status st = rc__topo_build(&tp, NULL, m->num_verts, m->num_tris, m->tris, NULL);
        if (st != RC_OK) { rc__free(NULL, dirty); return st; }
        memset(dirty, 0, (size_t)m->num_tris);
        for (e = 0; e < tp.ne; ++e) {
            int t0 = tp.edge_tri[2 * e], t1 = tp.edge_tri[2 * e + 1], k0, ia, ib, ic, id;
            if (t1 < 0 || dirty[t0] || dirty[t1]) continue;
            k0 = tp.edge_k[2 * e];
            ia = m->tris[3 * t0 + k0];
            ib = m->tris[3 * t0 + (k0 + 1) % 3];
            ic = m->tris[3 * t0 + (k0 + 2) % 3];
            id = tp.tri_flap[3 * t0 + k0];
            if (rc__mesh_incircle_rel(m->ref_uv + 2 * ia, m->ref_uv + 2 * ib, m->ref_uv + 2 * ic, m->ref_uv + 2 * id) > 1e-10) {
                m->tris[3 * t0] = ia; m->tris[3 * t0 + 1] = ib; m->tris[3 * t0 + 2] = id;
                m->tris[3 * t1] = ia; m->tris[3 * t1 + 1] = id; m->tris[3 * t1 + 2] = ic;
                dirty[t0] = dirty[t1] = 1;
                ++flips;
            }
        }
        rc__topo_free(&tp, NULL);
        if (flips == 0) break;
    }
    rc__free(NULL, dirty);
    return RC_OK;
}

static unsigned rc__mesh_hash(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

/* structured triangulation of an (nx x ny) lattice of vertex ids j*nx+i; diag(i, j) = 1 picks the
   lower-right to upper-left diagonal */
static void rc__mesh_grid_tris(int *tris, int nx, int ny, int diagonals)
{
    int i, j, t = 0;
    unsigned seed = diagonals > RC_DIAG_RANDOM ? (unsigned)(diagonals - RC_DIAG_RANDOM) : 0u;
    for (j = 0; j + 1 < ny; ++j)
        for (i = 0; i + 1 < nx; ++i) {
            int a = j * nx + i, b = a + 1, c = a + nx + 1, d = a + nx, other;
            if (diagonals == RC_DIAG_REGULAR) other = 0;
            else if (diagonals == RC_DIAG_ALTERNATING) other = (i + j) & 1;
            else other = (int)(rc__mesh_hash(rc__mesh_hash(seed * 0x9e3779b9u + (unsigned)i) ^ (unsigned)j * 0x85ebca6bu) >> 31);
            if (!other) {   /* diagonal a-c */
                tris[3 * t] = a; tris[3 * t + 1] = b; tris[3 * t + 2] = c; ++t;
                tris[3 * t] = a; tris[3 * t + 1] = c; tris[3 * t + 2] = d; ++t;
            } else {        /* diagonal b-d */
                tris[3 * t] = a; tris[3 * t + 1] = b; tris[3 * t + 2] = d; ++t;
                tris[3 * t] = b; tris[3 * t + 1] = c; tris[3 * t + 2] = d; ++t;
            }
        }
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_grid(rc_mesh *out, double width, double height, int nx, int ny, int diagonals)
{
    int i, j;
    rc_status st;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!rc__isfinite(width) || !rc__isfinite(height)) return RC_ERR_NON_FINITE;
    if (!(width > 0.0) || !(height > 0.0) || nx < 2 || ny < 2 || diagonals < 0 || nx > 46340 || ny > 46340 ||
        (double)nx * (double)ny > 2.0e8)
        return RC_ERR_INVALID_ARGUMENT;
    st = rc__mesh_alloc(out, nx * ny, 2 * (nx - 1) * (ny - 1));
    if (st != RC_OK) return st;
    for (j = 0; j < ny; ++j)
        for (i = 0; i < nx; ++i) {
            /* (i/(n-1))*w: the last row/column lands exactly on w / h, so sides are exactly straight */
            out->ref_uv[2 * (j * nx + i)] = ((double)i / (double)(nx - 1)) * width;
            out->ref_uv[2 * (j * nx + i) + 1] = ((double)j / (double)(ny - 1)) * height;
        }
    rc__mesh_grid_tris(out->tris, nx, ny, diagonals);
    rc__mesh_lift_flat(out);
    return RC_OK;
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_square(rc_mesh *out, double size, int target_verts, unsigned seed)
{
    int m, i, j, n;
    unsigned s;
    rc_status st;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!rc__isfinite(size)) return RC_ERR_NON_FINITE;
    if (!(size > 0.0) || target_verts < 4 || target_verts > 100000000) return RC_ERR_INVALID_ARGUMENT;
    m = (int)floor(sqrt((double)target_verts) + 0.5) - 1;
    if (m < 2) m = 2;
    n = m + 1;
    st = rc__mesh_alloc(out, n * n, 2 * m * m);
    if (st != RC_OK) return st;
    s = rc__mesh_hash(seed ^ 0x51ed270bu);
    for (j = 0; j < n; ++j)
        for (i = 0; i < n; ++i) {
            double x = (double)i, y = (double)j;
            if (i > 0 && i < m && j > 0 && j < m) {
                /* jitter <= 0.15 h per coordinate keeps every triangle of both lattice diagonals ccw:
                   det = (1+e1)(1+e4) - (1+e3) e2 >= 0.7^2 - 1.3*0.3 > 0 with |e| <= 0.3 */
                s = rc__mesh_hash(s + 0x9e3779b9u);
                x += 0.3 * ((double)(s >> 8) / 16777216.0 - 0.5);
                s = rc__mesh_hash(s + 0x9e3779b9u);
                y += 0.3 * ((double)(s >> 8) / 16777216.0 - 0.5);
            }
            out->ref_uv[2 * (j * n + i)] = (x / (double)m) * size;
            out->ref_uv[2 * (j * n + i) + 1] = (y / (double)m) * size;
        }
    rc__mesh_grid_tris(out->tris, n, n, RC_DIAG_RANDOM + (int)(seed & 0xffffu));
    st = rc__mesh_lawson(out);
    if (st != RC_OK) { rc_mesh_free(out); return st; }
    rc__mesh_lift_flat(out);
    return RC_OK;
}

/* Stitches ring A (na vertices from index a0, angle of vertex i = 2 pi (i + oa) / na) to ring B
   outside it (nb from b0, offset ob) with na + nb ccw triangles by advancing on whichever ring's
   next vertex comes first in angle. closed = 0 (slit rings): each ring has na+1 / nb+1 vertices,
   the last duplicating the first at angle 2 pi, and no wrap-around. na = 1: a fan around a centre. */
static int rc__mesh_stitch(int *tris, int t, int a0, int na, int b0, int nb, int closed)
{
    int i = 0, j = 0;
    while (i < (na == 1 ? 0 : na) || j < nb) {
        int ai = a0 + (closed ? i % na : i), bj = b0 + (closed ? j % nb : j);
        int adv_a;
        if (na == 1 || i >= na) adv_a = 0;
        else if (j >= nb) adv_a = 1;
        else adv_a = (double)(i + 1) / (double)na < (double)(j + 1) / (double)nb;   /* compare next angles */
        if (na == 1) ai = a0;
        if (adv_a) {
            tris[3 * t] = ai; tris[3 * t + 1] = bj; tris[3 * t + 2] = a0 + (closed ? (i + 1) % na : i + 1);
            ++i;
        } else {
            tris[3 * t] = ai; tris[3 * t + 1] = bj; tris[3 * t + 2] = b0 + (closed ? (j + 1) % nb : j + 1);
            ++j;
        }
        ++t;
    }
    return t;
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_disk(rc_mesh *out, double radius, int target_verts)
{
    int K, k, nv, nt, t = 0, v = 1;
    rc_status st;
    const double pi = 3.14159265358979323846;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!rc__isfinite(radius)) return RC_ERR_NON_FINITE;
    if (!(radius > 0.0) || target_verts < 4 || target_verts > 100000000) return RC_ERR_INVALID_ARGUMENT;
    /* 1 + 3K(K+1) = target  =>  K = (-3 + sqrt(9 + 12 (target - 1))) / 6 */
    K = (int)floor((-3.0 + sqrt(9.0 + 12.0 * (double)(target_verts - 1))) / 6.0 + 0.5);
    if (K < 1) K = 1;
    nv = 1 + 3 * K * (K + 1);
    nt = 6 * K * K;   /* ring k-1 (6(k-1), or 1 centre for k = 1) to ring k: 6(k-1) + 6k triangles */
    st = rc__mesh_alloc(out, nv, nt);
    if (st != RC_OK) return st;
    out->ref_uv[0] = out->ref_uv[1] = 0.0;
    for (k = 1; k <= K; ++k) {
        int j, n = 6 * k, prev0 = (k == 1) ? 0 : v - 6 * (k - 1);
        double r = (k == K) ? radius : radius * (double)k / (double)K;
        for (j = 0; j < n; ++j) {
            double a = 2.0 * pi * (double)j / (double)n;
            out->ref_uv[2 * (v + j)] = r * cos(a);
            out->ref_uv[2 * (v + j) + 1] = r * sin(a);
        }
        t = rc__mesh_stitch(out->tris, t, prev0, k == 1 ? 1 : 6 * (k - 1), v, n, 1);
        v += n;
    }
    st = rc__mesh_lawson(out);
    if (st != RC_OK) { rc_mesh_free(out); return st; }
    rc__mesh_lift_flat(out);
    return RC_OK;
}

/* vertices on ring k of the annulus: spacing about h, at least 3, and enough that the ring's
   polygon contains the previous ring (inradius r_k cos(pi/n) > r_(k-1)), else a coarse ring's
   chords would cut through the inner one and fold triangles over */
static int rc__mesh_ring_count(double r_inner, double w, int M, int k, double h)
{
    const double pi = 3.14159265358979323846;
    double r = r_inner + w * (double)k / (double)M, rp = r_inner + w * (double)(k - 1) / (double)M;
    double n = floor(2.0 * pi * r / h + 0.5);
    if (n < 3.0) n = 3.0;
    if (k > 0) {   /* cos(pi/n) > rp/r  <=>  n > pi / acos(rp/r); the margin absorbs round-off */
        double nmin = floor(pi / acos(rp / r * (1.0 + 1e-9))) + 1.0;
        if (n < nmin) n = nmin;
    }
    return n > 1e8 ? 100000000 : (int)n;
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_annulus(rc_mesh *out, double r_inner, double r_outer, int target_verts, int slit)
{
    const double pi = 3.14159265358979323846;
    double h, w, rm;
    int M, k, nv = 0, nt = 0, t = 0, v = 0, extra = slit ? 1 : 0, prev0 = 0, prevn = 0;
    rc_status st;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!rc__isfinite(r_inner) || !rc__isfinite(r_outer)) return RC_ERR_NON_FINITE;
    if (!(r_inner > 0.0) || !(r_outer > r_inner) || target_verts < 6 || target_verts > 100000000)
        return RC_ERR_INVALID_ARGUMENT;
    /* about (w/h + 1) rings of 2 pi rm / h vertices: target = 2 pi rm (w/h + 1)/h, solved for h */
    w = r_outer - r_inner;
    rm = 0.5 * (r_inner + r_outer);
    {
        double A = (double)target_verts, B = -2.0 * pi * rm, C = -2.0 * pi * rm * w;   /* A h^2 + B h + C = 0 */
        h = (-B + sqrt(B * B - 4.0 * A * C)) / (2.0 * A);
    }
    M = (int)floor(w / h + 0.5);
    if (M < 1) M = 1;
    if (M > 100000) M = 100000;
    for (k = 0; k <= M; ++k) {
        int n = rc__mesh_ring_count(r_inner, w, M, k, h);
        if ((double)nv + n + extra > 4.0 * (double)target_verts + 64.0) return RC_ERR_INVALID_ARGUMENT;
        nv += n + extra;
        if (k > 0) nt += n + prevn;
        prevn = n;
    }
    st = rc__mesh_alloc(out, nv, nt);
    if (st != RC_OK) return st;
    for (k = 0; k <= M; ++k) {
        double r = (k == M) ? r_outer : r_inner + w * (double)k / (double)M;
        int j, n = rc__mesh_ring_count(r_inner, w, M, k, h);
        if (n < 3) n = 3;
        for (j = 0; j < n + extra; ++j) {
            double a = 2.0 * pi * (double)j / (double)n;
            out->ref_uv[2 * (v + j)] = (j == n) ? r : r * cos(a);   /* the slit copy sits exactly on the cut */
            out->ref_uv[2 * (v + j) + 1] = (j == n) ? 0.0 : r * sin(a);
        }
        if (k > 0) t = rc__mesh_stitch(out->tris, t, prev0, prevn, v, n, !slit);
        prev0 = v;
        prevn = n;
        v += n + extra;
    }
    st = rc__mesh_lawson(out);
    if (st != RC_OK) { rc_mesh_free(out); return st; }
    rc__mesh_lift_flat(out);
    return RC_OK;
}

/* ---- OBJ ------------------------------------------------------------------------------------ */

RCLOTHDEF RC__UNUSED rc_status rc_mesh_write_obj(const char *path, int nv, const double *pos, const double *ref_uv,
                                      int nt, const int *tris)
{
    FILE *f;
    int v, t, ok;
    if (!path || !pos || !tris || nv < 1 || nt < 1) return RC_ERR_INVALID_ARGUMENT;
    if (rc__mesh_bad_index(nv, nt, tris) >= 0) return RC_ERR_MESH_INDEX;
    if (!rc__all_finite(pos, (size_t)3 * (size_t)nv) || (ref_uv && !rc__all_finite(ref_uv, (size_t)2 * (size_t)nv)))
        return RC_ERR_NON_FINITE;
    f = fopen(path, "wb");
    if (!f) return RC_ERR_IO;
    fprintf(f, "# rcloth mesh: %d vertices, %d triangles; v = world position, vt = reference uv\n", nv, nt);
    for (v = 0; v < nv; ++v) fprintf(f, "v %.17g %.17g %.17g\n", pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]);
    if (ref_uv)
        for (v = 0; v < nv; ++v) fprintf(f, "vt %.17g %.17g\n", ref_uv[2 * v], ref_uv[2 * v + 1]);
    for (t = 0; t < nt; ++t) {
        int a = tris[3 * t] + 1, b = tris[3 * t + 1] + 1, c = tris[3 * t + 2] + 1;
        if (ref_uv) fprintf(f, "f %d/%d %d/%d %d/%d\n", a, a, b, b, c, c);
        else fprintf(f, "f %d %d %d\n", a, b, c);
    }
    ok = !ferror(f);
    if (fclose(f) != 0) ok = 0;
    return ok ? RC_OK : RC_ERR_IO;
}

/* growable arrays for the reader */
typedef struct rc__mesh_objbuf {
    double *v, *vt;
    int nv, cv, nvt, cvt;
    int *cv_idx, *cvt_idx, nc, cc;   /* face corners: v and vt (-1 if none), 0-based */
    int *fsize, nf, cf;              /* corners per face */
} rc__mesh_objbuf;

/* returns p grown to hold need elements (capacity doubling), or NULL (p still valid) */
static void *rc__mesh_grow(void *p, int *cap, int need, size_t sz)
{
    int nc = *cap ? *cap : 64;
    void *q;
    if (need <= *cap) return p;
    while (nc < need) {
        if (nc > 0x3fffffff) return NULL;
        nc *= 2;
    }
    q = rc__realloc(NULL, p, (size_t)nc, sz);
    if (q) *cap = nc;
    return q;
}
#define RC__MESH_GROW(arr, type, cap, need) do { \
        void *q__ = rc__mesh_grow((arr), (cap), (need), sizeof(type)); \
        if (!q__) { return RC_ERR_OUT_OF_MEMORY; } \
        (arr) = (type *)q__; \
    } while (0)

/* parses up to maxn doubles separated by blanks until end of line; returns count or -1 on garbage */
static int rc__mesh_parse_nums(const char **ps, const char *end, double *out, int maxn)
{
    const char *s = *ps;
    int n = 0;
    for (;;) {
        char *e;
        double x;
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
        if (s >= end || *s == '#') break;   /* end of line or trailing comment */
        x = strtod(s, &e);
        if (e == s || e > end) return -1;
        if (e < end && !(*e == ' ' || *e == '\t' || *e == '\r')) return -1;
        if (n < maxn) out[n] = x;
        ++n;
        s = e;
    }
    *ps = s;
    return n;
}

/* one OBJ index (1-based or negative); returns 0-based or -1 (absent), -2 on error */
static int rc__mesh_parse_index(const char **ps, const char *end, int count, int *present)
{
    const char *s = *ps;
    char *e;
    long x;
    *present = 0;
    if (s >= end || *s == '/' || *s == ' ' || *s == '\t' || *s == '\r') return -1;
    x = strtol(s, &e, 10);
    if (e == s || e > end) return -2;
    *ps = e;
    *present = 1;
    if (x == 0 || x > 0x7fffffffL || x < -0x7fffffffL) return -2;
    if (x < 0) {
        x += count;   /* relative: -1 is the last one defined so far */
        if (x < 0) return -2;
        return (int)x;
    }
    return (int)(x - 1);
}

static rc_status rc__mesh_obj_parse(rc__mesh_objbuf *B, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *le = (const char *)memchr(p, '\n', (size_t)(end - p)), *s = p, *kw;
        size_t kl;
        if (!le) le = end;
        p = le + 1;
        while (s < le && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
        if (s >= le || *s == '#') continue;
        kw = s;
        while (s < le && !(*s == ' ' || *s == '\t' || *s == '\r')) ++s;
        kl = (size_t)(s - kw);
        if (kl == 1 && kw[0] == 'v') {
            double x[3];
            if (rc__mesh_parse_nums(&s, le, x, 3) < 3) return RC_ERR_PARSE;
            RC__MESH_GROW(B->v, double, &B->cv, 3 * (B->nv + 1));
            memcpy(B->v + 3 * B->nv, x, sizeof(x));
            B->nv++;
        } else if (kl == 2 && kw[0] == 'v' && kw[1] == 't') {
            double x[3];
            if (rc__mesh_parse_nums(&s, le, x, 3) < 2) return RC_ERR_PARSE;
            RC__MESH_GROW(B->vt, double, &B->cvt, 2 * (B->nvt + 1));
            B->vt[2 * B->nvt] = x[0];
            B->vt[2 * B->nvt + 1] = x[1];
            B->nvt++;
        } else if (kl == 1 && kw[0] == 'f') {
            int n = 0;
            for (;;) {
                int vi, ti = -1, pr;
                while (s < le && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
                if (s >= le || *s == '#') break;
                vi = rc__mesh_parse_index(&s, le, B->nv, &pr);
                if (vi < 0) return RC_ERR_PARSE;
                if (s < le && *s == '/') {
                    ++s;
                    ti = rc__mesh_parse_index(&s, le, B->nvt, &pr);
                    if (ti == -2) return RC_ERR_PARSE;
                    if (s < le && *s == '/') {   /* normal index: parsed for syntax, unused */
                        int ni;
                        ++s;
                        ni = rc__mesh_parse_index(&s, le, 0x7fffffff, &pr);
                        if (ni == -2 || !pr) return RC_ERR_PARSE;
                    } else if (!pr) return RC_ERR_PARSE;   /* "v/" alone */
                }
                if (s < le && !(*s == ' ' || *s == '\t' || *s == '\r')) return RC_ERR_PARSE;
                if (B->nc + 1 > B->cc) {   /* cv_idx and cvt_idx grow together */
                    int cap = B->cc, cap2 = B->cc;
                    RC__MESH_GROW(B->cv_idx, int, &cap, B->nc + 1);
                    RC__MESH_GROW(B->cvt_idx, int, &cap2, B->nc + 1);
                    B->cc = cap;
                }
                B->cv_idx[B->nc] = vi;
                B->cvt_idx[B->nc] = ti;
                B->nc++;
                ++n;
            }
            if (n < 3) return RC_ERR_PARSE;
            RC__MESH_GROW(B->fsize, int, &B->cf, B->nf + 1);
            B->fsize[B->nf++] = n;
        }
        /* anything else (vn, vp, o, g, s, usemtl, mtllib, l, ...) is ignored */
    }
    return RC_OK;
}

static rc_status rc__mesh_obj_build(rc_mesh *out, const rc__mesh_objbuf *B)
{
    int c, f, nt = 0, nx = 0, nvout, t = 0, *assigned = NULL, *head = NULL, *xvt = NULL, *xnext = NULL, *cvert = NULL;
    rc_status st = RC_OK;
    if (B->nf == 0 || B->nv == 0) return RC_ERR_PARSE;
    for (c = 0; c < B->nc; ++c)
        if (B->cv_idx[c] >= B->nv || B->cvt_idx[c] >= B->nvt) return RC_ERR_PARSE;
    if (!rc__all_finite(B->v, (size_t)3 * (size_t)B->nv) || (B->nvt && !rc__all_finite(B->vt, (size_t)2 * (size_t)B->nvt)))
        return RC_ERR_NON_FINITE;
    for (f = 0; f < B->nf; ++f) nt += B->fsize[f] - 2;
    assigned = (int *)rc__alloc(NULL, (size_t)B->nv, sizeof(int));
    head = (int *)rc__alloc(NULL, (size_t)B->nv, sizeof(int));
    xvt = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    xnext = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    cvert = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    if (!assigned || !head || !xvt || !xnext || !cvert) { st = RC_ERR_OUT_OF_MEMORY; goto done; }
    for (c = 0; c < B->nv; ++c) assigned[c] = head[c] = -1;
    for (c = 0; c < B->nc; ++c)   /* a vertex takes the first vt it is used with */
        if (B->cvt_idx[c] >= 0 && assigned[B->cv_idx[c]] < 0) assigned[B->cv_idx[c]] = B->cvt_idx[c];
    for (c = 0; c < B->nc; ++c) {   /* other (v, vt) pairs become extra vertices nv + x */
        int v = B->cv_idx[c], vt = B->cvt_idx[c], x;
        cvert[c] = v;
        if (vt < 0 || vt == assigned[v]) continue;
        for (x = head[v]; x >= 0; x = xnext[x])
            if (xvt[x] == vt) break;
        if (x < 0) { x = nx++; xvt[x] = vt; xnext[x] = head[v]; head[v] = x; }
        cvert[c] = B->nv + x;
    }
    nvout = B->nv + nx;
    st = rc__mesh_alloc(out, nvout, nt);
    if (st != RC_OK) goto done;
    for (c = 0; c < B->nv; ++c) {
        int a = assigned[c], x;
        memcpy(out->pos + 3 * c, B->v + 3 * c, 3 * sizeof(double));
        out->ref_uv[2 * c] = a >= 0 ? B->vt[2 * a] : B->v[3 * c];
        out->ref_uv[2 * c + 1] = a >= 0 ? B->vt[2 * a + 1] : B->v[3 * c + 1];
        for (x = head[c]; x >= 0; x = xnext[x]) {
            memcpy(out->pos + 3 * (B->nv + x), B->v + 3 * c, 3 * sizeof(double));
            out->ref_uv[2 * (B->nv + x)] = B->vt[2 * xvt[x]];
            out->ref_uv[2 * (B->nv + x) + 1] = B->vt[2 * xvt[x] + 1];
        }
    }
    c = 0;
    for (f = 0; f < B->nf; ++f) {
        int k;
        for (k = 1; k + 1 < B->fsize[f]; ++k) {
            out->tris[3 * t] = cvert[c];
            out->tris[3 * t + 1] = cvert[c + k];
            out->tris[3 * t + 2] = cvert[c + k + 1];
            ++t;
        }
        c += B->fsize[f];
    }
done:
    rc__free(NULL, assigned); rc__free(NULL, head); rc__free(NULL, xvt); rc__free(NULL, xnext); rc__free(NULL, cvert);
    return st;
}

RCLOTHDEF RC__UNUSED rc_status rc_mesh_read_obj(rc_mesh *out, const char *path)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    rc__mesh_objbuf B;
    rc_status st;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!path) return RC_ERR_INVALID_ARGUMENT;
    f = fopen(path, "rb");
    if (!f) return RC_ERR_IO;
    for (;;) {   /* read everything; a growing buffer avoids relying on fseek/ftell */
        size_t got;
        if (len + 1 >= cap) {   /* +1: room for the NUL that stops strtod/strtol at the end */
            size_t nc = cap ? 2 * cap : 65536;
            char *q = (nc > cap) ? (char *)rc__realloc(NULL, buf, nc, 1) : NULL;
            if (!q) { rc__free(NULL, buf); fclose(f); return RC_ERR_OUT_OF_MEMORY; }
            buf = q;
            cap = nc;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) { rc__free(NULL, buf); fclose(f); return RC_ERR_IO; }
    fclose(f);
    buf[len] = '\0';
    memset(&B, 0, sizeof(B));
    st = rc__mesh_obj_parse(&B, buf, len);
    if (st == RC_OK) st = rc__mesh_obj_build(out, &B);
    rc__free(NULL, buf);
    rc__free(NULL, B.v); rc__free(NULL, B.vt); rc__free(NULL, B.cv_idx); rc__free(NULL, B.cvt_idx); rc__free(NULL, B.fsize);
    if (st != RC_OK) rc_mesh_free(out);
    return st;
}

#ifdef __cplusplus
}
#endif
