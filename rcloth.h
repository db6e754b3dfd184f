/* rcloth.h - variational r-adaptive cloth simulation, single-file C library.    v0.1.0

   Implicit, contact-aware thin-shell cloth whose vertices also slide in the flat reference
   (material) domain every time step, so resolution flows to folds, creases and contact edges
   without changing connectivity. Dependencies: libc and libm; OpenMP optional.

   DO THIS in exactly one C or C++ file:
       #define RCLOTH_IMPLEMENTATION
       #include "rcloth.h"
   Other files just #include "rcloth.h".

   COMPILE-TIME OPTIONS (define before the implementation include)
       RCLOTH_STATIC                  all public functions static (private to one file)
       RCLOTH_MALLOC(size, user)      \
       RCLOTH_REALLOC(p, size, user)   > replace all three; user is the allocator pointer you gave
       RCLOTH_FREE(p, user)           /  (rc_sim_def.alloc_user), NULL for stand-alone calls
       RCLOTH_ASSERT(x)               internal invariant checks (default assert)
       RCLOTH_NO_CPU_DISPATCH         x86-64: keep the sparse LDL^T's SSE2 kernels (no run-time AVX2 pick)
       RCLOTH_NO_SIMD                 scalar kernels only (results differ from SIMD in the last bits)

   STEP BY STEP
       rc_mesh m;  rc_mesh_square(&m, 1.0, 900, 1u);       (or your own uv + positions + triangles)
       rc_sim_def def = rc_default_sim_def();               (cotton-like cloth, dt 1/100 s, gravity -z)
       def.mesh = rc_mesh_describe(&m);                      (a view of m's arrays; create copies them)
       def.adaptive = 1;                                     (0: fixed mesh, the baseline)
       rc_sim *sim; rc_sim_create(&def, &sim);
       rc_sim_add_sphere(sim, center, radius, &id);          (planes, boxes, capsules, triangle meshes)
       rc_sim_pin(sim, vertex, target);                      (call again each frame to move it)
       each frame: rc_sim_step(sim, &stats); read rc_sim_positions(sim), rc_sim_reference(sim)
       rc_sim_destroy(sim); rc_mesh_free(&m);

   ERROR REPORTING
       Every fallible call returns rc_status (RC_OK == 0); rc_status_string() gives a readable
       text; a sim also keeps a message (rc_sim_last_error) and warnings (rc_sim_last_warning).
       Nothing aborts or exits (RCLOTH_ASSERT guards only internal invariants, never input),
       there is no global state, and on error the caller's data is
       untouched (a failed rc_sim_step leaves the state exactly as at the start of the step).

   SECTIONS (public API, then implementation in the same order)
       BASE       status, allocation, small dense math (eigen-solvers, PSD projection), SIMD set-up
       SPARSE     sparse symmetric LDL^T with AMD ordering, PCG
       MESH       triangle mesh, adjacency, validation, generators, OBJ
       ENERGY     shell (stretch + bending via mid-edge directors), MIPS quality, inertia, gravity
       CONTACT    IPC barrier, primitive distances, CCD, friction kernels, broad phase
       SIM        the simulator: Newton on (x, phi), r-ITR on (x, phi, u), obstacles (analytic and
                  triangle meshes), friction, statics
*/
#ifndef RCLOTH_H
#define RCLOTH_H

/* ==========================================================================
   SECTION: BASE  (version, status codes, allocation, small dense math)
   Owns: rc_status and its strings, the allocation wrappers every other
   section uses, 3-vector helpers, the dense symmetric eigen-solvers (Jacobi,
   and Householder + QL for the fast PSD projection of element Hessians),
   and the SIMD configuration the kernels share. Calls nothing else.
   ========================================================================== */
#include <stddef.h>

#define RCLOTH_VERSION_MAJOR 0
#define RCLOTH_VERSION_MINOR 1
#define RCLOTH_VERSION_PATCH 0
#define RCLOTH_VERSION_STRING "0.1.0"

#ifndef RCLOTHDEF
#ifdef RCLOTH_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define RCLOTHDEF static __attribute__((unused))
#else
#define RCLOTHDEF static
#endif
#else
#define RCLOTHDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible call returns one of these. RC_OK is zero. */
typedef enum rc_status {
    RC_OK = 0,
    RC_ERR_INVALID_ARGUMENT,   /* NULL pointer, negative count, out-of-range index, bad parameter */
    RC_ERR_OUT_OF_MEMORY,      /* an allocation failed; nothing leaked, inputs untouched */
    RC_ERR_NON_FINITE,         /* NaN or inf in the input, or produced by the computation */
    RC_ERR_BAD_PATTERN,        /* sparse pattern malformed: colptr not monotone, row out of range, lower entry */
    RC_ERR_NOT_SPD,            /* a pivot was not positive (matrix indefinite or singular) */
    RC_ERR_NOT_CONVERGED,      /* an iterative solve hit its cap before its tolerance */
    RC_ERR_MESH_INDEX,         /* triangle references a vertex outside [0, num_verts) or repeats one */
    RC_ERR_MESH_DEGENERATE,    /* a reference triangle with (near) zero area, or a sliver */
    RC_ERR_MESH_ORIENTATION,   /* reference triangles of mixed orientation */
    RC_ERR_MESH_NON_MANIFOLD,  /* an edge shared by more than two triangles, or inconsistently wound */
    RC_ERR_BAD_MATERIAL,       /* density/thickness/Young <= 0 or Poisson outside (-1, 0.5); in a sim, a
                                  stiffness the inertia at dt cannot balance in double precision */
    RC_ERR_IO,                 /* a file could not be opened, read or written */
    RC_ERR_PARSE,              /* a file was read but its contents are malformed */
    RC_ERR_INTERSECTING,       /* a state in contact violation (cloth through cloth or an obstacle, inside an
                                  obstacle or a contact offset): given, or one a step could not avoid */
    RC_ERR_NO_DESCENT,         /* the solver found no direction that decreases the energy */
    RC_ERR_INVERTED,           /* a reference triangle inverted */
    RC_STATUS_COUNT
} rc_status;

/* A short, readable, static string for a status ("ok", "out of memory", ...). Never NULL. */
RCLOTHDEF const char *rc_status_string(rc_status s);

#ifdef __cplusplus
}
#endif


/* ==========================================================================
   SECTION: SPARSE  (sparse symmetric LDL^T, fill-reducing ordering, PCG)
   Owns: rc_ldlt (ordering + symbolic analysis once per pattern, numeric
   supernodal LDL^T many times, triangular solves, iterative refinement),
   the symmetric CSC mat-vec and block-Jacobi PCG. Calls only BASE.

   MATRIX FORMAT
   A symmetric n x n matrix is given by its UPPER triangle (row <= col) in
   compressed sparse columns: colptr[n+1] (colptr[0] = 0, non-decreasing),
   rowind[colptr[n]] with 0 <= rowind[p] <= column; rows inside a column may
   come in any order, duplicates are rejected. values[p] goes with rowind[p].

   STEP BY STEP
     rc_ldlt *f;
     rc_ldlt_analyze(&f, n, colptr, rowind);      once per pattern (allocates)
     loop:  rc_ldlt_factor(f, values);            no allocation
            if RC_ERR_NOT_SPD: rc_ldlt_factor_shifted(f, values, mu) with a
                               growing mu, or look at rc_ldlt_inertia()
            rc_ldlt_solve(f, b);                  b <- A^-1 b
     rc_ldlt_destroy(f);
   A factor/solve pair on one rc_ldlt must not run concurrently with another
   call on the same rc_ldlt (solve uses workspace stored in it).
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rc_ldlt rc_ldlt;

/* Ordering (approximate minimum degree on the compressed graph), elimination tree, column counts,
   supernodes, and all workspace of the numeric phase. *out is NULL on failure.
   RC_ERR_INVALID_ARGUMENT: out/colptr/rowind NULL (rowind may be NULL when colptr[n] == 0), n < 0.
   RC_ERR_BAD_PATTERN: colptr[0] != 0 or decreasing, a row outside [0, n), a lower entry (row > col),
   a duplicate entry. n == 0 is allowed (an empty system). */
RCLOTHDEF rc_status rc_ldlt_analyze(rc_ldlt **out, int n, const int *colptr, const int *rowind);

/* As rc_ldlt_analyze, with a fill-reducing ordering chosen by the caller (perm[k] = the original
   index eliminated k-th; NULL = our AMD; the elimination tree is still postordered) and the
   allocator user pointer handed to RCLOTH_MALLOC/FREE. */
RCLOTHDEF rc_status rc_ldlt_analyze_ex(rc_ldlt **out, int n, const int *colptr, const int *rowind,
                                       const int *perm, void *user);

/* Numeric factorization P A P^T = L D L^T (L unit lower), same pattern as analyze. Allocates nothing.
   RC_OK: every pivot d_j > 1e-13 s_j, s_j = max(|a_jj|, max_i a_ij^2 / |a_ii|) (= a_jj for an SPD A):
   A symmetric positive definite to working precision.
   RC_ERR_NOT_SPD: some pivot is not positive. If all pivots are clearly nonzero (|d_j| > 1e-13 s_j)
   the factorization still completes: rc_ldlt_inertia() gives the counts and rc_ldlt_solve() works
   (indefinite, no pivoting). A (numerically) zero pivot stops it: the factor is then unusable.
   RC_ERR_NON_FINITE: a NaN/inf value, or one produced. RC_ERR_INVALID_ARGUMENT: NULL. */
RCLOTHDEF rc_status rc_ldlt_factor(rc_ldlt *f, const double *values);

/* Factor A + shift*I instead (shift finite; typical regularised retry of a Newton step). */
RCLOTHDEF rc_status rc_ldlt_factor_shifted(rc_ldlt *f, const double *values, double shift);

/* b <- (L D L^T)^-1 b for the last factorization. RC_ERR_INVALID_ARGUMENT when there is no usable
   factorization (never factored, or it stopped at a zero pivot), RC_ERR_NON_FINITE for NaN in b. */
RCLOTHDEF rc_status rc_ldlt_solve(const rc_ldlt *f, double *b);

/* Solve A x = b with `iters` steps of iterative refinement x += F^-1 (b - A x), where F is the last
   factorization (possibly of a shifted matrix) and A is given by `values` on the analysed pattern.
   Useful after rc_ldlt_factor_shifted, or for ill-conditioned A. b <- x. */
RCLOTHDEF rc_status rc_ldlt_solve_refined(const rc_ldlt *f, const double *values, double *b, int iters);

RCLOTHDEF void rc_ldlt_destroy(rc_ldlt *f);

/* Info. n; strictly-lower nonzeros of L as the symbolic analysis counts them (exact fill, without the
   explicit zeros that supernode amalgamation stores); pivot counts of the last factorization
   (positive + negative < n when it stopped at a zero pivot). Safe on NULL (0). */
RCLOTHDEF int    rc_ldlt_n(const rc_ldlt *f);
RCLOTHDEF size_t rc_ldlt_nnz_l(const rc_ldlt *f);
RCLOTHDEF void   rc_ldlt_inertia(const rc_ldlt *f, int *num_positive, int *num_negative);

/* y = A x for A symmetric given by its upper triangle as above (x, y of length n, not aliased:
   x == y is RC_ERR_INVALID_ARGUMENT). Validates like analyze, plus RC_ERR_NON_FINITE for NaN in
   values or x. */
RCLOTHDEF rc_status rc_sparse_symv(int n, const int *colptr, const int *rowind, const double *values,
                                   const double *x, double *y);

/* Preconditioned conjugate gradients on A x = b (A SPD, upper CSC as above).
   Preconditioner: block Jacobi with diagonal blocks [block_ptr[k], block_ptr[k+1]) for k < num_blocks
   (block_ptr[0] = 0, increasing, block_ptr[num_blocks] = n, each block at most 64 wide), each
   inverted by a dense Cholesky; block_ptr == NULL: scalar Jacobi.
   x: initial guess in, solution out. Stops when |b - A x| <= rel_tol |b| (2-norms) or after max_iter
   iterations; then RC_ERR_NOT_CONVERGED and x is the iterate of smallest residual seen.
   iterations / rel_residual (may be NULL) report the work done and |b - A x| / |b| of the returned x.
   RC_ERR_NOT_SPD when a diagonal block is not positive definite or p^T A p <= 0 occurs; then, as
   on every error but RC_ERR_NOT_CONVERGED, x is the initial guess, unchanged (iterations and
   rel_residual describe the failed attempt). */
RCLOTHDEF rc_status rc_pcg_solve(int n, const int *colptr, const int *rowind, const double *values,
                                 const int *block_ptr, int num_blocks, const double *b, double *x,
                                 double rel_tol, int max_iter, int *iterations, double *rel_residual);

#ifdef __cplusplus
}
#endif


/* ==========================================================================
   SECTION: MESH  (triangle meshes, adjacency, validation, generators, OBJ)
   Owns: rc_trimesh / rc_mesh, the reference-mesh validator, the mesh
   generators (grid, Delaunay square, disk, annulus), OBJ read/write, and the
   private topology (rc__topo: edges, flaps, one-rings, boundary loops, the
   corner / sliding classification of boundary vertices of DESIGN §5).
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

/* A non-owning view of a triangle mesh: num_tris triangles, tris[3t+k] vertex indices in
   [0, num_verts). Reference triangles are counter-clockwise in u. Edge numbering: first appearance
   scanning tris[3t+k]; edge k of a triangle joins its vertices (k+1)%3 and (k+2)%3 (it is opposite
   vertex k). */
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

/* Drops the vertices no triangle uses (a simulation needs every vertex in a triangle; OBJ files
   often carry loose ones, which rc_mesh_read_obj keeps), renumbering the triangles; the kept
   vertices stay in their order. *removed (may be NULL) gets how many went. The arrays are compacted
   in place (not reallocated; pos may be NULL). Errors: RC_ERR_INVALID_ARGUMENT (m NULL, ref_uv or
   tris NULL while there are vertices or triangles), RC_ERR_MESH_INDEX (a triangle index outside
   [0, num_verts)), RC_ERR_OUT_OF_MEMORY; m is unchanged then. A mesh read with
   rc_mesh_read_obj_map takes rc_mesh_remove_unreferenced_map, which keeps its rc_obj_map in step. */
RCLOTHDEF rc_status rc_mesh_remove_unreferenced(rc_mesh *m, int *removed);

/* Diagonal patterns for rc_mesh_grid. RC_DIAG_RANDOM uses seed 0; RC_DIAG_RANDOM + s (s > 0)
   uses seed s, so any int >= RC_DIAG_RANDOM is a seeded random pattern. */
enum {
    RC_DIAG_REGULAR = 0,       /* every cell split along the same diagonal (lower-left to upper-right) */
    RC_DIAG_ALTERNATING = 1,   /* diagonal direction alternates per cell in a checkerboard ("union jack") */
    RC_DIAG_RANDOM = 2         /* each cell's diagonal chosen by a seeded hash of the cell */
};

/* Regular grid on [0, width] x [0, height]: exactly nx*ny vertices (nx, ny >= 2), vertex
   (i, j) is index j*nx + i at uv = (width*i/(nx-1), height*j/(ny-1)), 2(nx-1)(ny-1) triangles,
   counter-clockwise, pos = (u, v, 0). On error *out is zeroed. Every generator below returns a
   mesh that passes rc_mesh_validate, or its status (RC_ERR_MESH_DEGENERATE for sizes whose
   triangles underflow or turn into slivers, e.g. a grid 1e-300 wide, an annulus around a
   1e-6 hole). */
RCLOTHDEF rc_status rc_mesh_grid(rc_mesh *out, double width, double height, int nx, int ny, int diagonals);

/* Unstructured Delaunay square [0, size]^2 (target_verts >= 4). With m = max(2, round(sqrt(target_verts)) - 1)
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
   components), "f" with v, v/vt, v/vt/vn or v//vn corners (1-based or negative relative indices).
   Triangles come face by face in file order, a face's consecutively: a triangle face as written, a
   polygon of n > 3 corners as n - 2 triangles cut by ear clipping in the reference uv plane (a
   convex polygon gets the fan (c0, ck, ck+1); a concave one, or one with a corner in the middle of
   a side, is cut inside itself; what has no ear left, such as corners all on a line, is finished as
   a fan, degenerate triangles that rc_mesh_validate refuses). Mesh vertex i < (number of "v" lines)
   is the i-th "v" line (unreferenced ones are kept). A vertex takes the vt of the first face corner
   that gives it one; each further distinct vt VALUE its corners use (compared by value, not index:
   a vt repeated per corner welds) makes one copy of it, same position, appended after the "v"
   vertices in order of first use; a corner without a vt uses the vertex itself.
   rc_mesh_read_obj_map tells each vertex's "v" line and each triangle's "f" line. A vertex no face
   corner gives a vt (unreferenced, or used only by plain "f 1 2 3" corners) gets the i-th vt when
   the file has exactly as many vt as v lines (as rc_mesh_write_obj writes them: exact round trips),
   else uv = (x, y) (rc_obj_map.uv_from_xy counts those). Other statements (vn, o, g, s, usemtl,
   mtllib, l, ...) are ignored; "#" starts
   a comment anywhere; lines end with LF, CR LF or CR. Normal indices are checked for syntax only
   (normals are not read). Numbers are parsed with strtod (C locale expected). Errors: RC_ERR_IO
   (cannot open/read), RC_ERR_PARSE (bad number, bad face corner, index 0 or out of range, face with
   < 3 corners, no faces at all), RC_ERR_NON_FINITE (inf/nan coordinates), RC_ERR_OUT_OF_MEMORY;
   *out is zeroed then. The result is not validated: call rc_mesh_validate. */
RCLOTHDEF rc_status rc_mesh_read_obj(rc_mesh *out, const char *path);
/* The same, with the reason for a failure written to msg (msg_len bytes, may be 0; "" when RC_OK):
   the line and what was wrong on it ("cloth.obj:12: a 'v' line needs three numbers"), or what was
   wrong with the file as a whole. */
RCLOTHDEF rc_status rc_mesh_read_obj_msg(rc_mesh *out, const char *path, char *msg, int msg_len);

/* Where the mesh rc_mesh_read_obj_map read came from, to name a triangle that rc_mesh_validate or
   rc_sim_create refuses by its OBJ line ("triangle 1234" -> "cloth.obj:" tri_line[1234]), and to
   pin or sew vertices by the authoring tool's "v" indices after UV seams split them. Free with
   rc_obj_map_free (default allocator, user pointer NULL). */
typedef struct rc_obj_map {
    int num_verts, num_tris;    /* the mesh's counts, which the arrays follow */
    int *vertex_source;         /* num_verts: the 0-based index of the "v" line (the first "v" is 0,
                                   as "f 1 ..." names it) mesh vertex i copies: i itself for
                                   i < the number of "v" lines, the split vertex for a seam copy */
    int *tri_line;              /* num_tris: the 1-based line number of the "f" line triangle t was
                                   cut from (the numbering of the messages "cloth.obj:12: ...") */
    int *tri_face;              /* num_tris: that face's 0-based ordinal among the "f" lines */
    int uv_from_xy;             /* how many vertices took uv = (x, y) for want of a vt (a file without
                                   vt: all of them; a panel standing in a vertical plane is then
                                   degenerate in uv, which rc_mesh_validate refuses) */
} rc_obj_map;

/* rc_mesh_read_obj_msg, and with map != NULL fills *map for the mesh read (msg may be NULL).
   The mesh is bit-identical to rc_mesh_read_obj's. On any error *out and *map are zeroed, nothing
   stays allocated. rc_mesh_validate's flip (reversing a triangle's corners) keeps the map valid;
   dropping loose vertices must go through rc_mesh_remove_unreferenced_map. */
RCLOTHDEF rc_status rc_mesh_read_obj_map(rc_mesh *out, rc_obj_map *map, const char *path, char *msg, int msg_len);

/* Frees map's arrays and zeroes it; NULL and an already freed / zeroed map are fine. */
RCLOTHDEF void rc_obj_map_free(rc_obj_map *map);

/* rc_mesh_remove_unreferenced, compacting map->vertex_source alongside and setting
   map->num_verts (the triangles keep their order: tri_line and tri_face stay as they are); map
   NULL is rc_mesh_remove_unreferenced. A map whose num_verts / num_tris differ from m's, or whose
   arrays are NULL while there are vertices / triangles, is RC_ERR_INVALID_ARGUMENT; on any error
   m and map are unchanged. */
RCLOTHDEF rc_status rc_mesh_remove_unreferenced_map(rc_mesh *m, rc_obj_map *map, int *removed);

/* Writes v (pos), vt (ref_uv; omitted if ref_uv is NULL) and "f a/a b/b c/c" lines, 17
   significant digits (exact round trip; "%.17g", so the C locale is expected, as by the reader).
   The file is written as path.tmp (replacing any file of that name) and renamed to path when
   complete, so a write that fails (RC_ERR_IO) leaves an existing file at path as it was (on
   Windows, whose rename does not replace, the old file is removed just before the rename).
   Being a rename, it replaces whatever path names: a symbolic link is replaced by the file (its
   target keeps its old contents), and so would be a device node such as /dev/null where the
   directory is writable; give the final path of a regular file. */
RCLOTHDEF rc_status rc_mesh_write_obj(const char *path, int nv, const double *pos, const double *ref_uv,
                                      int nt, const int *tris);

/* Validates a reference mesh, checks in this order (first failure returned):
     RC_ERR_INVALID_ARGUMENT   NULL arrays, nv < 3, nt < 1
     RC_ERR_MESH_INDEX         an index outside [0, nv) or repeated within a triangle
     RC_ERR_NON_FINITE         a NaN/inf uv coordinate (of any vertex)
     RC_ERR_MESH_DEGENERATE    |signed area| <= 1e-12 * (area of the uv bounding box of all vertices),
                               or a sliver: height < 1e-4 of the triangle's longest edge
     RC_ERR_MESH_ORIENTATION   triangles of both orientations within one connected piece (the
                               message names the first triangle whose orientation differs from its
                               piece's first); clockwise pieces (all of them, or some: panels
                               mirrored in uv) are fine if flipped != NULL: then *flipped = 1 and
                               the caller reverses every clockwise triangle (e.g. swaps
                               tris[3t+1] and tris[3t+2]); clockwise pieces with flipped == NULL are
                               RC_ERR_MESH_ORIENTATION
     RC_ERR_MESH_NON_MANIFOLD  an edge in more than two triangles, or two triangles traversing their
                               shared edge in the same direction (inconsistent winding)
   *flipped (if not NULL) is 0 unless set as above. msg (if not NULL and msg_len > 0) receives a
   NUL-terminated description with the offending triangle index ("" when RC_OK, except
   "all triangles clockwise: flip them" or "clockwise pieces (mirrored panels): flip their
   triangles" when it sets *flipped = 1). */
RCLOTHDEF rc_status rc_mesh_validate(int nv, int nt, const double *ref_uv, const int *tris, int *flipped,
                                     char *msg, int msg_len);

#ifdef __cplusplus
}
#endif


/* ==========================================================================
   SECTION: ENERGY  (shell stretch + bending with mid-edge directors, MIPS
   quality regulariser, lumped inertia + gravity)
   Owns: rc_material and its presets/validation, the public whole-mesh
   kernels rc_shell_energy / rc_mips_energy, and the private per-triangle
   element kernels (value, gradient, Hessian, optional PSD projection) that
   the simulator assembles. Every kernel is a function of world positions x
   AND reference positions u (r-adaptivity differentiates the rest shape).
   Calls: BASE, and MESH's rc__topo for the edge tables (rc__sh_build_edges).
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* Material models (rc_material.model). */
enum {
    RC_MATERIAL_ISOTROPIC = 0,    /* plane-stress StVK of (young, poisson), integrated over thickness */
    RC_MATERIAL_ORTHOTROPIC = 1   /* woven/knit fabric: warp/weft/shear moduli per unit width and
                                     bending stiffnesses given directly (no thickness scaling) */
};

/* Material of the cloth sheet (SI units). Plane-stress StVK: Young's modulus and Poisson ratio
   of the sheet's material; the shell energies integrate it over the thickness.
   The fields after `poisson` describe an orthotropic fabric and are read only when model ==
   RC_MATERIAL_ORTHOTROPIC. Start from a preset (or zero the struct): model must be 0 or 1.
   ORTHOTROPIC: material axes are the reference (uv) axes, warp = u, weft = v. With the Green
   strain E_uv = (F^T F - I)/2 in the uv frame (F = D_x D_u^-1) the membrane energy per unit
   reference area is the orthotropic StVK
       psi_s = 1/2 C11 E11^2 + C12 E11 E22 + 1/2 C22 E22^2 + 2 C33 E12^2       (N/m)
   with, from the engineering constants below (nu21 = nu12 E2/E1, the reciprocity relation),
       C11 = E1/(1 - nu12 nu21), C22 = E2/(1 - nu12 nu21), C12 = nu12 C22, C33 = G12,
   so a strip pulled along warp has force/width/strain = E1 exactly (small strain), along weft E2,
   and along the direction at angle theta to warp 1/E(theta) = c^4/E1 + s^4/E2 +
   (1/G12 - 2 nu12/E1) c^2 s^2 (c = cos theta, s = sin theta). Bending: with the curvature tensor
   K = D_u^-T b D_u^-1 in the uv frame (b the second fundamental form of DESIGN §2),
       psi_b = bending_scale [1/2 B11 K11^2 + 1/2 B22 K22^2 + 2 B33 K12^2],
   B11 = bend_warp, B22 = bend_weft, B12 = 0 (no bending Poisson coupling: fabric data has none)
   and B33 = (4 bend_bias - bend_warp - bend_weft)/4, so that cylindrical bending along warp,
   weft and the 45-degree bias costs bend_warp, bend_weft, bend_bias times kappa^2/2 per area.
   The isotropic model is the special case C11 = C22 = (alpha + 2 beta) tau, C12 = alpha tau,
   C33 = beta tau (the kernels agree to round-off). Mass still comes from density * thickness. */
typedef struct rc_material {
    double density;     /* kg/m^3, > 0 (areal density = density * thickness) */
    double thickness;   /* m, > 0 (tau) */
    double young;       /* Pa, > 0 (E)                       (isotropic model) */
    double poisson;     /* -, in (-1, 0.5) (nu)              (isotropic model) */
    int model;          /* RC_MATERIAL_ISOTROPIC (0, the default of every preset above) or ORTHOTROPIC */
    double warp_stiffness;   /* E1, N/m > 0: uniaxial tension per unit width per unit strain along u */
    double weft_stiffness;   /* E2, N/m > 0: the same along v */
    double shear_stiffness;  /* G12, N/m > 0: in-plane shear (tension per width per radian of shear) */
    double warp_poisson;     /* nu12: weft contraction per unit warp strain under warp tension;
                                any sign, with nu12^2 E2/E1 < 1 (positive definite) */
    double bend_warp;        /* N m > 0: bending stiffness for curvature along u (warp yarns bent) */
    double bend_weft;        /* N m > 0: along v */
    double bend_bias;        /* N m > 0: along the 45-degree bias; 4 bend_bias > bend_warp + bend_weft */
} rc_material;

/* Presets: order-of-magnitude woven-fabric numbers for the continuum shell model (not measured
   data). Stretch stiffness E*tau and bending stiffness D = E tau^3 / (12 (1 - nu^2)):
     cotton: rho 500 kg/m^3, tau 0.3 mm, E 1e6 Pa,  nu 0.3  (0.15 kg/m^2, 300 N/m, D 2.5e-6 N m)
     silk:   rho 600 kg/m^3, tau 0.1 mm, E 5e5 Pa,  nu 0.3  (0.06 kg/m^2,  50 N/m, D 4.6e-8 N m)
     denim:  rho 600 kg/m^3, tau 0.8 mm, E 3e6 Pa,  nu 0.3  (0.48 kg/m^2, 2400 N/m, D 1.4e-4 N m;
             a stiff heavy stand-in, not rc_material_fabric_denim's measured 11oz denim below)
     proto:  rho 200 kg/m^3, tau 1 mm,   E 1e5 Pa,  nu 0.3  (the DESIGN.md §10 prototype sheet) */
RCLOTHDEF rc_material rc_material_cotton(void);
RCLOTHDEF rc_material rc_material_silk(void);
RCLOTHDEF rc_material rc_material_denim(void);
RCLOTHDEF rc_material rc_material_proto(void);

/* Orthotropic fabric presets (model = RC_MATERIAL_ORTHOTROPIC) from measured data: the
   small-strain stiffness and lowest-curvature bending samples of the Berkeley data-driven cloth
   database (H. Wang, R. Ramamoorthi, J. F. O'Brien, "Data-Driven Elastic Models for Cloth:
   Modeling and Measurement", ACM TOG 30(4) 71, SIGGRAPH 2011), as distributed with ARCSim's
   materials/ JSON files. Numbers (see rc__fabric for the conversion; u = the data's first axis):
                  areal kg/m^2  E1 N/m   E2 N/m   G12 N/m  nu12    B_warp   B_weft   B_bias (uN m)
     denim        0.324         410.5    2027     26.69    0.0101  96.95    64.20    73.38   (11oz-black-denim, jeans)
     interlock    0.187         20.66    42.92    18.43   -0.426   14.27    23.19    24.75   (gray-interlock, t-shirt knit)
     ponte        0.284         54.85    77.53    15.95   -0.291   37.16    36.35    33.01   (camel-ponte-roma, jacket knit)
     cotton_poly  0.220         4033     4070     52.38    0.0045  125.4    125.4    108.0   (royal-target, pants)
   thickness is a nominal 0.5 mm for all (it only sets density = areal / thickness: the fabric
   model takes its stiffness from the fields above); young/poisson hold an isotropic stand-in
   (mean of E1, E2 over the thickness, nu 0.3) that is used only if model is switched back. */
RCLOTHDEF rc_material rc_material_fabric_denim(void);
RCLOTHDEF rc_material rc_material_fabric_interlock(void);
RCLOTHDEF rc_material rc_material_fabric_ponte(void);
RCLOTHDEF rc_material rc_material_fabric_cotton_poly(void);

/* RC_OK, RC_ERR_INVALID_ARGUMENT (NULL), RC_ERR_NON_FINITE, or RC_ERR_BAD_MATERIAL when
   density, thickness or Young <= 0 or Poisson outside (-1, 0.5), or model is not one of the
   RC_MATERIAL_* values. ORTHOTROPIC checks density, thickness and the fabric fields instead of
   young/poisson: all stiffnesses > 0, nu12^2 E2/E1 < 1, 4 bend_bias > bend_warp + bend_weft. */
RCLOTHDEF rc_status rc_material_validate(const rc_material *mat);

/* Total stretch and bending energy of the sheet (J), DESIGN.md §2 (StVK, rest-flat Kirchhoff-Love,
   mid-edge directors).
     x: 3*num_verts world positions (m); u: 2*num_verts reference positions (m), CCW triangles.
     phi: one director angle per edge (rad), edge numbering of rc_trimesh; phi_e rotates the
       mid-edge normal about the edge from its lower- to its higher-indexed vertex, measured from
       the normalised average of the two adjacent unit face normals (boundary: the face normal).
       phi == NULL minimises the bending energy over the angles (nonlinear Gauss-Seidel, stopping
       when a sweep changes no angle by more than 1e-12 rad), so the result is a function of x and
       u alone; the gradients are then those at the minimising angles (envelope theorem).
     stretch, bend: outputs (either may be NULL); grad_x (3*nv) and grad_u (2*nv) may be NULL
       and receive the gradient of stretch + bend.
   Errors: RC_ERR_INVALID_ARGUMENT (also a reference domain outside 1e-20 to 1e20 m across, the
   range the kernels compute in double precision), RC_ERR_MESH_INDEX, RC_ERR_MESH_NON_MANIFOLD,
   RC_ERR_MESH_DEGENERATE (zero-area reference triangle), RC_ERR_INVERTED (clockwise reference
   triangle), RC_ERR_BAD_MATERIAL, RC_ERR_NON_FINITE (NaN/inf inputs or results, e.g. a world
   triangle collapsed to a segment), RC_ERR_OUT_OF_MEMORY, RC_ERR_NOT_CONVERGED (angle
   minimisation hit 1000 sweeps; outputs are still written). */
RCLOTHDEF rc_status rc_shell_energy(const rc_trimesh *m, const double *x, const double *u, const double *phi,
                                    const rc_material *mat, double *stretch, double *bend,
                                    double *grad_x, double *grad_u);

/* Quality regulariser with unit weights: sum over triangles of max(0, MIPS(J) - eps_q)^3 where
   J = D_u D_u0^-1 maps the u0 triangle onto the u triangle and MIPS(J) = |J|_F^2 / det J
   (= s1/s2 + s2/s1 >= 2). A triangle with det J <= 0 makes *energy = +inf (HUGE_VAL); its
   gradient is then left out. grad_u (2*nv) may be NULL. Errors: RC_ERR_INVALID_ARGUMENT,
   RC_ERR_MESH_INDEX, RC_ERR_MESH_DEGENERATE (zero-area u0 triangle), RC_ERR_NON_FINITE (NaN/inf
   inputs, or a gradient that overflows: a triangle all but flat). */
RCLOTHDEF rc_status rc_mips_energy(const rc_trimesh *m, const double *u, const double *u0, double eps_q,
                                   double *energy, double *grad_u);

#ifdef __cplusplus
}
#endif


/* ==========================================================================
   SECTION: CONTACT  (IPC barrier, distances, analytic obstacles, CCD, friction)
   Owns: the log barrier on squared distances with a thickness offset and its
   adaptive stiffness; point/edge/triangle squared distances with their type
   classification, gradients and Hessians; the edge-edge mollifier; signed
   distances of analytic obstacles; CCD (conservative advancement with a first-
   and a second-order bound); the lagged friction kernels; a uniform-grid
   broad phase. Every kernel is small and allocation-free
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

/* Adaptive barrier stiffness kappa (IPC's rule, in our scale-explicit reading), for callers that
   build their own solver on rc_barrier. rc_sim starts kappa by its own force balance (ten vertex
   weights at mid-band, rc__sim_kappa_min) and grows it with rc_barrier_stiffness_update.
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


/* ==========================================================================
   SECTION: SIM  (the simulator: fixed-mesh Newton and r-adaptive r-ITR)
   Owns: rc_sim and its definition, the degree-of-freedom map (x, director
   angles phi, reference u), sparse assembly into a fixed pattern, Newton with
   CCD-bounded backtracking line search, analytic obstacles with IPC barrier
   and lagged friction, statics, and the scheduled r-ITR loop with derivative
   caching. Calls BASE, SPARSE, MESH, ENERGY, CONTACT.
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* The mesh given to rc_sim_create: flat reference uv (the material domain), optional world
   positions, counter-clockwise triangles in uv (clockwise meshes are flipped and reported).
   Every vertex must be used by a triangle (RC_ERR_INVALID_ARGUMENT otherwise). */
typedef struct rc_mesh_desc {
    int num_verts, num_tris;
    const double *ref_uv;   /* 2*num_verts, metres in the flat rest domain */
    const double *pos;      /* 3*num_verts world positions; NULL: ref_uv lifted to z = 0 */
    const int *tris;        /* 3*num_tris vertex indices */
} rc_mesh_desc;

/* The descriptor of an owning mesh (all fields; zeroed for NULL, which rc_sim_create refuses):
   def.mesh = rc_mesh_describe(&m) instead of copying its five fields by hand. It points into
   m's arrays without owning them; rc_sim_create copies them, so m may be freed once it returns. */
RCLOTHDEF rc_mesh_desc rc_mesh_describe(const rc_mesh *m);

enum { RC_SOLVER_LDLT = 0, RC_SOLVER_PCG = 1 };

/* Everything that defines a simulation. Start from rc_default_sim_def() and change what you
   need; every field has a usable default. Units are SI. Gravity is along -z by default. */
typedef struct rc_sim rc_sim;

typedef struct rc_sim_def {
    rc_mesh_desc mesh;          /* the cloth: 3 to 5e7 vertices, 1 to 1e8 triangles */
    rc_material material;       /* default: cotton-like (rc_material_cotton()) */
    double bending_scale;       /* multiplier on the material's bending stiffness, default 1
                                   (isotropic: the thin plate E tau^3 / (12 (1 - nu^2)) of
                                   material.thickness; orthotropic: bend_warp/weft/bias as given).
                                   Below 1: limper cloth; 0: no bending */
    double dt;                  /* time step, s (default 1/100; at least 1e-9) */
    double gravity[3];          /* m/s^2 (default 0, 0, -9.81) */
    int adaptive;               /* 0: fixed mesh (u frozen, the baseline); 1: r-adaptive (default 0) */

    /* Newton on (x, phi): converged when max |dx| <= tol * L * dt, L = bounding-box diagonal of
       the initial world mesh, tol in 1/s (IPC-style velocity tolerance; dt is def.dt also inside
       substeps and statics, so the bound is one length per solve). */
    double tol;                 /* default 1e-4 (this is eps* of the r-ITR schedule too). Adaptive
                                   steps usually end first on itr_energy_tol's relative rule, so
                                   there a smaller tol changes little: lower itr_energy_tol too */
    int max_newton_iters;       /* per (inner) solve, default 100 */
    int newton_exact_hessian;   /* 1 (default): Newton directions from the exact Hessian, plus a
                                   Levenberg-Marquardt shift when the LDL^T finds a non-positive
                                   pivot; the convex model after a shortened step or when no shift
                                   works (per-element PSD projection, Gauss-Newton for the bending
                                   stencils; the convex model alone converges linearly under
                                   compression/buckling, DESIGN §3); 0: always the convex model */
    int max_substeps;           /* automatic halving of dt after a failed step, default 8 levels,
                                   at most 20 (8: down to dt/256; a step that fails at its start
                                   or in its solve is retried as two half steps, recursively;
                                   obstacles and pins move half as far in each; not when it failed
                                   at a start that no split changes: nothing moving). 4 levels were
                                   one short for the 1k skirt_panels scene, whose kicking leg
                                   presses two layers together: fixed-mesh step 48 needed 14
                                   substeps */
    int static_load_steps;      /* rc_sim_solve_static: apply gravity, the forces and material loads
                                   and the moves of pins and material handles in this many equal
                                   increments, each solved to equilibrium (load stepping), default 1,
                                   at most 10000. The loads ramp from those of the last call's
                                   equilibrium while the state is still its end state (a repeated
                                   call does not unload first), else from zero */
    int linear_solver;          /* RC_SOLVER_LDLT (default: sparse LDL^T with AMD) or RC_SOLVER_PCG
                                   (Jacobi-preconditioned CG, no factorization; for large meshes'
                                   time steps: without the mass term CG converges slowly, and
                                   rc_sim_solve_static's late pseudo steps have almost none: an
                                   adaptive static solve of a 100-vertex sheet took 88 s against
                                   LDL^T's 1.7 s). CG needs a positive definite matrix, so PCG
                                   always takes the convex model (per-stencil projected Hessians,
                                   as newton_exact_hessian = 0 and itr_exact_hessian = 0): where
                                   the exact Hessian's steps and the convex model's part (a
                                   buckling sheet), its trajectories follow the convex model's; in
                                   adaptive mode its outer steps are the projected ones, far slower
                                   (a probe: 625-vertex sphere drape, 75 s against LDL^T's 5.7 s) */
    double pcg_tol;             /* relative residual of the PCG solves, default 1e-4 */

    /* r-ITR (adaptive = 1), DESIGN §4-6 */
    double itr_eps0;            /* initial inner tolerance, default 1e-2; adaptive: must be >= tol */
    double itr_lambda;          /* tolerance decay per outer iteration, default 0.98 */
    int itr_strict_every;       /* strict inner solve every k outer iterations, default 10 */
    int itr_max_outer;          /* outer iteration cap, default 300 */
    int itr_schedule;           /* 1: scheduled tolerances (default); 0: eps* at every outer iteration */
    int itr_cache;              /* 1: reuse cached stencil Hessians and the previous joint factor
                                   (itr_factor_reuse) (default); 0: recompute and refactor all */
    int itr_exact_hessian;      /* 1 (default, LDL^T only): outer joint steps use the exact Hessian
                                   plus an adaptive Levenberg-Marquardt shift mu*I; 0: per-stencil
                                   PSD projection (stalls in u: see the SIM section notes) */
    double itr_energy_tol;      /* a step also ends when the joint Newton decrement -g.d is below this
                                   fraction of the IP decrease the step has made so far, and the
                                   strict inner solve that confirms it gains no more than that
                                   fraction either; an inner (x, phi) solve also ends when its own
                                   Newton decrement is below it. Default 1e-3; 0: only the
                                   absolute tests (slower, see the SIM section notes) */
    double cache_eps;           /* eps_d: relative displacement below which a stencil reuses its cache, default 1e-3 */
    int itr_factor_reuse;       /* with itr_cache: an outer joint direction first tries this many CG
                                   iterations preconditioned by the previous joint LDL^T factor and
                                   refactors only if they do not reach itr_factor_eta (and at once
                                   after an attempt that needed more than half of them); default
                                   20, 0: off */
    double itr_factor_eta;      /* relative residual |r| <= eta |g| of those CG solves (inexact Newton), default 0.3 */
    double quality_threshold;   /* eps_q of the MIPS regulariser, default 2.5 */
    double quality_weight;      /* multiplier on the inertial-scale weight rho*tau*Abar^2/h_q^2 of
                                   every triangle (Abar: the mean initial reference triangle area,
                                   h_q = min(dt, quality_time)), default 1 */
    double quality_time;        /* adaptive: s; the regulariser's time scale, default 0.04 (as
                                   travel_time). Steps longer than it keep the weight a step of
                                   this length has: the forces that squash reference triangles do
                                   not fall as 1/h^2 as the inertial weight does (a sheet hanging
                                   at dt 1 s reached MIPS 7.8 with h_q = dt, 3.2 with the cap; see
                                   rc__sim_kernel_A). Smaller: a stronger regulariser at long steps */
    double travel_weight;       /* adaptive: weight of the travel term, default 1, 0 = off. A vertex
                                   sliding more than r0 cells (l: its mean incident rest edge length)
                                   in u within one step pays w (m_i / h^2) l^2 (r - r0)^3, r = |u_i -
                                   u_i^t| / l, r0 = min(1, h / travel_time): the transfer of the previous
                                   step's state to the new u is first order, and a fixed allowance per
                                   step would let the material slide arbitrarily fast as h shrinks
                                   (see rc__sim_travel) */
    double travel_time;         /* adaptive: s; the travel term's free slide is one cell per this time
                                   (a material speed limit), default 0.04. A scene in another time
                                   unit scales it with dt, quality_time, tol and friction_eps_v */

    /* contact (IPC): barrier active below thickness + dhat */
    double contact_thickness;   /* xi, m: the gap kept between cloth and obstacles, and between two
                                   layers of cloth (self contact), default 1e-3: the smallest gap
                                   of any vertex at any iterate (capsules: see min_contact_distance).
                                   Cloth resting under a load sits inside the barrier band, between
                                   xi and xi + dhat depending on the load (2.2-2.7 mm for cotton
                                   resting on a box or plane at the defaults) */
    double contact_dhat;        /* dhat, m: barrier activation distance beyond xi, default 2e-3 */
    double friction;            /* default Coulomb coefficient mu for obstacles added later, default 0.3 (at most 1e6) */
    double friction_eps_v;      /* static/dynamic smoothing speed eps_v, m/s, default 1e-3: "static"
                                   friction is a slip below eps_v, so cloth held on a slope creeps at
                                   eps_v (1 - sqrt(1 - tan(theta)/mu)) (0.36 mm/s at 10 degrees, mu 0.3);
                                   a smaller eps_v creeps proportionally less; eps_v dt at least
                                   1e-20 of the cloth's size */
    int self_contact;           /* 1: cloth self-contact (IPC barrier + CCD between non-adjacent cloth
                                   vertex-triangle and edge-edge pairs, same xi / dhat / kappa as the
                                   obstacles, lagged friction with mu = friction); 0: off. Default 0
                                   (opt-in: it changes what scenes do wherever cloth touches itself, and
                                   a fold's layer pairs add a 12x12 Hessian each). Pairs sharing a vertex are never in
                                   contact, nor pairs of one connected piece closer than xi + dhat in
                                   the flat reference (u at the step start): those would be in the
                                   barrier band at rest; nor pairs within two rings of each other that
                                   start a step closer than xi in x (a hinge folded flat: its bending
                                   energy holds it, rc__sim_self_excluded) */

    int num_threads;            /* OpenMP threads, default 1 (no thread is started); N > 1: N
                                   threads; 0: OpenMP's default (omp_get_max_threads()); at
                                   most 4 per processor (and OpenMP's thread limit): a larger
                                   request is cut to that. Ignored without OpenMP. Give a sim
                                   only cores nothing else uses: OpenMP workers spin between parallel regions, and with
                                   more threads than idle cores a step gets several times SLOWER
                                   (measured, 1k adaptive sphere drape on 2 cores: one run alone
                                   0.60 s/step on 2 threads, 0.95 on 1; two runs at once 4.8
                                   s/step each on 2 threads, 0.96 on 1, 1.0 on 2 threads with
                                   OMP_WAIT_POLICY=passive) */
    void *alloc_user;           /* passed to RCLOTH_MALLOC/REALLOC/FREE */
    /* optional, for validation and debugging: called after every accepted line-search iterate
       of every solve (Newton, r-ITR outer and inner, statics), with rc_sim_positions() /
       rc_sim_reference() showing that iterate; it must not call functions that change the sim */
    void (*iterate_hook)(const rc_sim *s, void *user);
    void *iterate_user;
} rc_sim_def;

/* Per-step report. Energies are those of the incremental potential at the end of the step. */
typedef struct rc_step_stats {
    int converged;              /* 1 if the tolerance was met (adaptive: or the relative rules of
                                   itr_energy_tol); 0 if a cap/stall ended the step (still RC_OK) */
    int newton_iters;           /* Newton iterations on (x, phi) in total */
    int outer_iters;            /* r-ITR outer (joint) iterations; 0 in fixed mode */
    int inner_iters;            /* Newton iterations inside inner solves */
    int linear_solves;          /* linear systems solved (LDL^T or PCG, including the CG directions on a reused factor) */
    int substeps;               /* 1 unless automatic substepping split the step; rc_sim_solve_static:
                                   the number of pseudo steps */
    double ip_start, ip_end;    /* incremental potential at the start iterate and at the end */
    double e_inertia, e_stretch, e_bend, e_gravity, e_external, e_contact, e_friction, e_quality;
    double e_travel;            /* adaptive: the travel term (rc_sim_def.travel_weight), 0 in fixed mode */
    double active_rate;         /* fraction of stencils whose Hessian was recomputed, mean over the
                                   outer iterations (of all substeps or pseudo steps) */
    double min_quality, max_quality, mean_quality;   /* MIPS of the reference triangles */
    double min_area_ratio;      /* min over triangles of A(u)/A(u0) */
    double ref_travel;          /* max |u_i - u_i^t| over the step, m */
    double min_contact_distance;/* min cloth-obstacle distance at the end (inf if no obstacle):
                                   each vertex against every obstacle, and triangles against
                                   spheres and triangle meshes where they are near the barrier band
                                   xi + dhat (so with meshes alone, farther than that it may read inf),
                                   and against the cores that act on whole triangles (a capsule's
                                   axis with half its radius, a box's edges), so cloth dipping into a
                                   capsule between its vertices (rc_sim_add_capsule's warning) reads
                                   its distance to the core, not its depth below the surface */
    double t_total, t_assemble, t_factor, t_solve, t_line_search;   /* seconds: wall clock in an OpenMP build
                                   (omp_get_wtime), else clock(), the CPU time of the whole process
                                   (other busy threads of the program count too) */
    const double *active_rate_per_iter; /* adaptive: the active rate of each outer iteration of the
                                           last solve (the last substep if the step was split; the
                                           solve again from the start if it had one), owned
                                           by the sim, valid until its next step; NULL in fixed mode */
    int num_active_rates;               /* entries in active_rate_per_iter */
    /* self-contact (def.self_contact = 1; zero otherwise) */
    double min_self_distance;   /* min distance between non-adjacent cloth primitives at the end (inf if none within the search band) */
    double t_broad_phase;       /* seconds in the spatial-hash pair searches (energy, derivatives and CCD) */
    double t_narrow_phase;      /* seconds in pair distances, barriers, their derivatives and scatter */
    double t_ccd;               /* seconds in the CCD of candidate pairs */
    int pattern_rebuilds;       /* times the Hessian pattern grew for new contact blocks (symbolic re-analysis) */
    /* adaptive: outer joint directions solved by CG on the previous factor (def.itr_factor_reuse)
       instead of a new factorization, and the CG iterations spent (also on attempts that refactored) */
    int factor_reuses, cg_iters;
    /* adaptive: inner (x, phi) solves that ended on the relative decrement rule (their Newton
       decrement below itr_energy_tol of the step's IP decrease) before the length tolerance */
    int inner_relative_stops;
    /* self contact: 1 if the cloth crosses itself at the end of the step (an edge through a
       triangle that shares no vertex with it). Self contact excludes the pairs within
       contact_thickness + contact_dhat of each other in the flat reference (they are that close
       at rest), so a fold sharper than the thickness allows can pass such nearby material
       through itself (an adaptive mesh whose cells slid below that size, pinched). Then
       rc_sim_last_warning names the edge and the triangle; refine the cloth or lower the
       thickness. Later steps keep a crossing (contact cannot untangle one). rc_sim_solve_static:
       the same of its end state. */
    int self_crossed;
    /* 1 if the step ended unconverged above the incremental potential of its feasible start x^t
       (pins at their targets, cloth out of the obstacles, u^t) and ended there instead (the free
       cloth stops for the step; a warning says so). That potential is the state's kinetic plus
       potential energy, so no step ends with more potential energy than the state had energy
       at its start, converged or not. Seen on collapsed meshes (the regulariser off) and with
       iteration caps far below what a step needs; a smaller dt, higher caps or the regulariser
       avoid it. rc_sim_solve_static: 1 if a pseudo step did (its pseudo steps start at rest, at
       A itself, so practically never). */
    int kept_start;
    /* converged = 0: which rule ended the step, a fixed string: the Newton or r-ITR iteration
       cap, a line search without decrease, a round-off stall, a stall in u, ... (a split step:
       its last unconverged substep's; rc_sim_solve_static: the cap of 400 pseudo steps per load
       increment); NULL when the step converged. With kept_start the rule is the one that ended
       the solve whose end was then given up for the start. The state is valid
       either way; an unconverged step is less accurate, and repeated ones call for a smaller dt,
       higher caps or (adaptive) the regulariser */
    const char *stop_reason;
} rc_step_stats;


/* Threads: sims are independent (no global or static mutable state), so different sims may be
   created, stepped and destroyed concurrently from different threads, each with its own
   allocator context (a probe: 2-4 threads, results bit-identical to sequential runs,
   ThreadSanitizer clean). One sim must not be used from two threads at once, not even through
   its const functions: their error paths record the message in the sim. */
RCLOTHDEF rc_sim_def rc_default_sim_def(void);
RCLOTHDEF rc_status rc_sim_create(const rc_sim_def *def, rc_sim **out);
/* the checks rc_sim_create makes of def and its mesh, with the reason written to msg (msg_len
   bytes, may be 0): where create fails without a sim to ask, this says why ("" when RC_OK) */
RCLOTHDEF rc_status rc_sim_def_check(const rc_sim_def *def, char *msg, int msg_len);
RCLOTHDEF void      rc_sim_destroy(rc_sim *s);
/* the message of the last error of this sim ("" if none); calls that succeed leave it as it was,
   except rc_sim_step and rc_sim_solve_static, which clear it when they start */
RCLOTHDEF const char *rc_sim_last_error(const rc_sim *s);
/* the last warning of this sim ("" if none): e.g. rc_sim_add_capsule warns when an edge of the
   cloth can dip into the capsule between two vertices by more than the contact thickness,
   l^2/(8r) > contact_thickness (a capsule's surface acts on cloth vertices; on whole triangles
   only its core, half its radius); a step whose end state crosses itself (self_crossed in
   rc_step_stats) names the crossing; rc_sim_add_seam names a stitch whose vertices start more than
   two mean edge lengths apart. A warning stays until the next one replaces it (steps do not clear it): compare
   with the text last seen to tell a new one. Why a step ended unconverged is in its stats
   (rc_step_stats.stop_reason), not here */
RCLOTHDEF const char *rc_sim_last_warning(const rc_sim *s);
/* 1 if rc_sim_create flipped a clockwise reference mesh, or its clockwise pieces (panels mirrored
   in uv), to counter-clockwise */
RCLOTHDEF int       rc_sim_mesh_was_flipped(const rc_sim *s);

/* Pin a vertex to a world target, reached at the end of the next step (call again to move it).
   The move is checked against the cloth (with self contact) and mesh obstacles: a target whose
   path passes the cloth through cloth or through a mesh obstacle fails the step with
   RC_ERR_INTERSECTING (after the substep splits), the state unchanged, the message naming the pin.
   With self contact, free cloth that the move leaves within contact_thickness of the pinned cloth
   is pushed away from it (a pinned sheet pressed onto a free one pushes it ahead; the steps split
   while the pins' path would cross it); cloth that cannot give way is refused. */
RCLOTHDEF rc_status rc_sim_pin(rc_sim *s, int vertex, const double target[3]);
RCLOTHDEF rc_status rc_sim_unpin(rc_sim *s, int vertex);
/* External force on a vertex, N (zero removes it). In adaptive mode a vertex carrying a force keeps
   its reference position u (DESIGN §5: the force belongs to that material point, and a sliding
   vertex would carry it through the material): forces on every vertex make the mesh as fixed as
   def.adaptive = 0. For loads spread over the cloth (wind, pressure) that the mesh may adapt
   under, use material loads at points inside triangles (rc_sim_add_material_load), which stay
   on their material while vertices slide past; a load exactly at a vertex's uv locks that vertex
   too (the handle locks below). */
RCLOTHDEF rc_status rc_sim_set_force(rc_sim *s, int vertex, const double f[3]);
/* Sets every vertex's velocity (v: 3*nv, m/s), e.g. to throw the cloth or to start it with the
   motion of an animated character; rc_sim_velocities reads them. The next step predicts
   x + h v and follows the contacts as for any velocity. A pinned vertex still ends the step at its
   target, and its velocity is then the pin's own; until then its entry is part of the velocity
   field that the adaptive mode interpolates at material points sliding past it. The same as
   editing the velocities of a saved state (rc_sim_save_state) and loading it back. Errors:
   RC_ERR_INVALID_ARGUMENT (s or v NULL), RC_ERR_NON_FINITE (an entry NaN or inf); nothing changes
   then. */
RCLOTHDEF rc_status rc_sim_set_velocities(rc_sim *s, const double *v);

/* Material-space handles and loads: attached to the material point uv (a point of the flat
   reference domain, metres), not to a vertex, so in adaptive mode they stay on the same material
   while vertices slide past. At every evaluation the point is located in the triangle whose
   CURRENT reference triangle contains it, X = sum_i w_i(u) x_i with barycentric weights in u, and
       E = stiffness/2 |X - target|^2 - force.X
   is added to the incremental potential (reported in e_external) with its exact derivatives in x
   AND u (the weights depend on u), so the stencil vertices keep sliding; X is continuous as the
   point crosses from one triangle to the next (its gradient has a kink there, like any
   piecewise-linear sampling). In adaptive mode a vertex that reaches the handle's point keeps u
   while the handle acts (the kink at a vertex stalled Newton), and so do an edge's two ends while
   the point lies on that edge (a point placed on an edge, such as a grid cell's centre on its
   diagonal, is held there from the first step on). Ids are small integers, stable until
   removed; a removed id is given to the next handle or load added.
   add_material_handle: stiffness > 0 (N/m), at most 1e12 times an average vertex's m / dt^2 (as
   for seams; a hard constraint is a pin); uv must lie in the reference domain (within 1e-9 of
   a triangle, relative to its size), else RC_ERR_INVALID_ARGUMENT. move: new target (call each
   frame to animate). add_material_load: a dead force (N) at uv (stiffness 0); set_material_load
   changes it (given a handle's id, it sets a dead force acting beside the handle's spring: the f
   of E above). remove works for both. rc_sim_material_point gives the current world position of
   any material point uv (the same interpolation). */
RCLOTHDEF rc_status rc_sim_add_material_handle(rc_sim *s, const double uv[2], const double target[3], double stiffness, int *id);
RCLOTHDEF rc_status rc_sim_move_material_handle(rc_sim *s, int id, const double target[3]);
RCLOTHDEF rc_status rc_sim_add_material_load(rc_sim *s, const double uv[2], const double force[3], int *id);
RCLOTHDEF rc_status rc_sim_set_material_load(rc_sim *s, int id, const double force[3]);
RCLOTHDEF rc_status rc_sim_remove_material_handle(rc_sim *s, int id);
RCLOTHDEF rc_status rc_sim_material_point(const rc_sim *s, const double uv[2], double pos[3]);

/* Seams between panels (multi-panel patterns: the reference mesh may have several disconnected
   charts in uv). Stitches side_a[i] to side_b[i] (i < n; vertex indices, a != b, typically two
   boundary polylines of equal vertex count, paired in order) with zero-length springs
       E = stiffness/2 sum_i |x_a_i - x_b_i|^2     (N/m per stitch; the gap is force / stiffness)
   added to the incremental potential (e_external; a stitch whose two vertices are both pinned is
   a constant there and left out, its force still in rc_sim_pin_reaction), with the stitched pairs
   added to the sparse pattern. Adaptive mode: a pair inside a straight stretch of seam on both panels (both vertices
   on straight boundary, each stitched once, not pinned or loaded, and a's two boundary neighbours
   stitched to b's two) slides along the seam with ONE shared parameter t: u_a += t s_a d_a,
   u_b += t s_b d_b (d = unit seam tangents, oriented so the partners move together; s_a =
   2 l_a/(l_a + l_b), s_b = 2 l_b/(l_a + l_b), l = the pair's local stitch spacing on its side in
   the initial reference, so a side longer than its partner, e.g. an eased seam, moves in
   proportion and stitches spaced in proportion stay at equal normalised arclength). Seam ends,
   seam corners and vertices stitched several times keep u fixed. So the seam never shears in the
   material domain and every panel keeps its area. No bending acts across a seam (a free hinge).
   Stitched vertices should start at (nearly) the same world position. The stiffness is at most
   1e12 times an average vertex's m / dt^2 (RC_ERR_INVALID_ARGUMENT beyond: the inertia would be
   lost to round-off). */
RCLOTHDEF rc_status rc_sim_add_seam(rc_sim *s, int n, const int *side_a, const int *side_b, double stiffness);
/* Analytic obstacles (kinematic: rc_sim_move_obstacle / rc_sim_teleport_obstacle), friction
   def.friction until rc_sim_set_obstacle_friction (0 <= mu <= 1e6). A plane's free side is the one its
   normal points to (any finite nonzero length); a box is axis-aligned in its own frame (rotate it
   with rc_sim_move_obstacle), half extents > 0; radii > 0. *id (may be NULL) gets the obstacle's
   index, shared with the triangle meshes. Errors: RC_ERR_INVALID_ARGUMENT (NULL, a zero normal, a
   size <= 0, no such id), RC_ERR_NON_FINITE, RC_ERR_OUT_OF_MEMORY. Cloth vertices already inside a
   new obstacle are pushed out at the next step's start (a placement, no velocity); a sheet laid
   through a box or a capsule (part of it inside, part outside, or a triangle across an edge or
   the axis) is lifted where it can be, and where the vertex push and that lift disagree the step
   fails with RC_ERR_INTERSECTING naming the triangle: add obstacles clear of the cloth (below it,
   and let it fall). The barrier acts as
   a pressure: each cloth vertex's (planes, boxes, capsules: their exact surface) weighted by its
   mass, each cloth triangle's by its area: spheres, a capsule's core (its axis, half its radius)
   and a box's edges act on whole triangles, so none can slip between cloth vertices and through
   the cloth. The barrier stiffness (chosen from the average vertex's weight) means the same at any
   resolution. */
RCLOTHDEF rc_status rc_sim_add_plane(rc_sim *s, const double point[3], const double normal[3], int *id);
RCLOTHDEF rc_status rc_sim_add_sphere(rc_sim *s, const double center[3], double radius, int *id);
RCLOTHDEF rc_status rc_sim_add_box(rc_sim *s, const double center[3], const double half[3], int *id);
RCLOTHDEF rc_status rc_sim_add_capsule(rc_sim *s, const double a[3], const double b[3], double radius, int *id);
RCLOTHDEF rc_status rc_sim_set_obstacle_friction(rc_sim *s, int id, double mu);
/* A triangle-mesh obstacle (static, or kinematic through rc_sim_set_obstacle_vertices): IPC
   barrier and CCD between cloth vertices and its triangles, its vertices and cloth triangles, and
   cloth edges and its edges, so sharp edges cannot cut between cloth vertices. Candidate pairs come
   from a spatial hash. Lagged friction (mu = def.friction, rc_sim_set_obstacle_friction) acts on
   all three pair kinds, relative to the mesh's own motion over the step. Cloth within
   contact_thickness of a mesh that does not move over a step is pushed out to its side (see
   rc_sim_teleport_obstacle_vertices, also for what is refused). Each pair's barrier is
   weighted by the cloth it stands for (a vertex's mass, a triangle's or an edge's area), as for the
   analytic shapes. Over a planar patch a cloth vertex is held once however the patch is split
   into triangles (vertex-edge and vertex-vertex terms of an inclusion-exclusion on its inner
   edges and vertices; the connectivity taken here says which triangles share an edge), and those
   edges and vertices take no edge-edge or vertex-triangle contact (they hold nothing the
   triangles do not); where the surface bends, each triangle holds what is nearest to it (IPC's
   count: twice over a convex edge). A triangle on the same three vertices as an earlier one (a
   double-sided mesh's reversed copy) is the same surface and holds nothing more. A degenerate
   triangle (a repeated index or zero area, as exported meshes often have) is accepted
   (test_sim_plate_lifts_stack_degenerate), and a vertex that no triangle uses is ignored
   (test_sim_mesh_loose_vertex_ignored); an index outside [0, num_verts) is
   RC_ERR_MESH_INDEX. A triangle with an edge longer than (contact_thickness + contact_dhat) /
   (100 DBL_EPSILON) (1.4e11 m at the defaults: double precision cannot resolve the contact band on
   it) is RC_ERR_INVALID_ARGUMENT, here and in rc_sim_set/teleport_obstacle_vertices. */
RCLOTHDEF rc_status rc_sim_add_trimesh(rc_sim *s, int num_verts, const double *pos /* 3*nv */,
                                       int num_tris, const int *tris /* 3*nt */, int *id);
/* kinematic meshes: positions at the end of the next step (e.g. an animated body) */
RCLOTHDEF rc_status rc_sim_set_obstacle_vertices(rc_sim *s, int id, const double *pos /* 3*nv */);
/* Places a mesh obstacle's vertices now, as if it had always been there: no motion within the
   next step, so nothing is carried (rc_sim_teleport_obstacle for meshes). The next step or static
   solve checks the cloth against it as after rc_sim_add_trimesh. A mesh that does not move over a
   step pushes free cloth within contact_thickness of it out, as the analytic shapes do, each piece
   of cloth to the side of the mesh it is on (to contact_thickness + dhat/2, or nearer where another
   obstacle is close; a placement before the step, with no velocity, except for cloth that another
   obstacle's carry pushes into it within the step). A mesh has no inside, so cloth lying on it
   (closer than 1e-3 contact_thickness) or through it, and pinned vertices within the thickness,
   make every step RC_ERR_INTERSECTING, and rc_sim_set_obstacle_vertices cannot help (it moves the
   mesh over the step, from where it stands); teleport it clear of the cloth with this, or out of
   play (there is no removal). Errors: RC_ERR_INVALID_ARGUMENT (no such mesh obstacle, NULL pos, a triangle too
   large: see rc_sim_add_trimesh), RC_ERR_NON_FINITE; the obstacle unchanged then. */
RCLOTHDEF rc_status rc_sim_teleport_obstacle_vertices(rc_sim *s, int id, const double *pos /* 3*nv */);
/* pose at the end of the next step, absolute (not an increment: calling it twice with the same t
   moves nothing the second time): x -> R x + t applied to the shape as added. The step follows
   the motion from the previous pose as a screw: the rotation along the shortest arc, about the
   axis the two poses leave fixed (plus a slide along it), so a shape turned about any point (its
   own centre: t = c - R c; a hinge) turns about that point all through the step, and a pure
   translation is linear; the result does not depend on where the shape's frame has its origin. And
   the cloth the obstacle runs over on the way is carried to its end pose, so a thin obstacle may
   move further than its own thickness in one step without passing through the cloth. Cloth the
   carry cannot take along (held by pins on all sides, a sphere faster than the cloth can stretch)
   is checked against a sphere's path: rather than pass through, the step splits (half the motion
   per half step) and, at the finest split, fails with RC_ERR_INTERSECTING. rotation:
   row-major, NULL = identity; it must be a rotation to 1e-6 (R^T R = I, det +1): a scaled, sheared
   or reflecting matrix is RC_ERR_INVALID_ARGUMENT and changes nothing. */
RCLOTHDEF rc_status rc_sim_move_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9]);
/* Places the obstacle at the pose now, as if it had always been there: no motion within the next
   step, so nothing is carried. Cloth that ends up inside it is pushed out along its normal at the
   next step's start as a change of position, not of velocity (as for an obstacle added where the
   cloth is). For a cut in an animation, or to take an obstacle out of play (teleport it far away,
   a few of the cloth's sizes; there is no removal). Every obstacle coordinate and size, here and in
   rc_sim_add_*, rc_sim_set/teleport_obstacle_vertices and rc_sim_load_state, is at most 1e12 m
   (RC_ERR_INVALID_ARGUMENT beyond). A far rc_sim_move_obstacle instead drags the cloth it runs over along
   the whole way within one step (moved 100 m, a sheet is stretched to 1e12 J and the step takes
   minutes in adaptive mode). Analytic obstacles only (a mesh obstacle moves with
   rc_sim_set_obstacle_vertices and teleports with rc_sim_teleport_obstacle_vertices;
   RC_ERR_INVALID_ARGUMENT). */
RCLOTHDEF rc_status rc_sim_teleport_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9]);

/* One time step of def.dt. The first step or static solve after rc_sim_create, rc_sim_load_state,
   and each rc_sim_add_trimesh or rc_sim_teleport_obstacle_vertices, first checks that no cloth
   edge passes through a cloth triangle (with self contact) or a mesh obstacle's triangle, nor an
   obstacle edge through a cloth triangle: the barrier keeps a state free of crossings but cannot
   untangle one, so a tangled start is RC_ERR_INTERSECTING, naming the edge and triangle. Every
   step in which a mesh obstacle moves checks the same after carrying the cloth it ran over (a
   failure splits the step).
   stats may be NULL; on an error it is zeroed and the state is as before the call. Errors:
   RC_ERR_INVALID_ARGUMENT (s NULL), RC_ERR_INTERSECTING (above, or a crossing no split removed, or
   a cloth that starts inside an obstacle: its start energy is infinite), RC_ERR_NON_FINITE (the
   step's start energy is not finite otherwise, the message names the term; or the solve produced
   NaN), RC_ERR_NO_DESCENT (no split found a decrease above round-off),
   RC_ERR_NOT_SPD (RC_SOLVER_PCG only: a system it cannot solve), RC_ERR_OUT_OF_MEMORY;
   rc_sim_last_error says which and where. A step that ends at an iteration cap is RC_OK with
   stats->converged = 0. */
RCLOTHDEF rc_status rc_sim_step(rc_sim *s, rc_step_stats *stats);
/* equilibrium (no inertia) under the current pins, forces and contact; def.dt is the pseudo step.
   Up to 400 pseudo steps (per load increment, def.static_load_steps) whose size doubles after
   each converged one (up to 1e6 dt) and halves after one that did not converge (down to dt);
   stats->substeps counts them; stats->converged = 0 (with RC_OK) when they end without an equilibrium,
   e.g. when none exists (a sheet that slides off its support falls without bound: check
   converged before using the state as an equilibrium). A cloth, or without self contact a piece
   of it (triangles sharing vertices, panels joined by seams), that nothing holds (no pin or
   material handle with a spring on it, and no obstacle) under a nonzero net load (gravity,
   forces, material loads) is RC_ERR_INVALID_ARGUMENT at once, the state unchanged. Equilibrium:
   a converged pseudo step that moved x less than tol L dt (L the cloth's size) and, adaptive, u
   less than tol l dt (l the mean edge), and whose move leaves a residual acceleration below 1e-3
   of the scene's (|g|; without gravity 1e-4 L / dt^2). At most 400 pseudo steps. Friction holds cloth as Coulomb's static friction would: each vertex in frictional
   contact carries its slip from pseudo step to pseudo step (up to the elastic slip eps_v dt,
   beyond which it slides), so a sheet on a slope below the friction angle, or draped on a
   sphere, stays; above the friction angle it slides off (converged = 0). A call that converged
   remembers its end state, loads and carried slips: a later call from that state (to the bit)
   starts from that hold, so a repeated call does not move the cloth (it used to slip again by
   up to 1.2 cm), and load stepping ramps from those loads (def.static_load_steps). */
RCLOTHDEF rc_status rc_sim_solve_static(rc_sim *s, rc_step_stats *stats);

RCLOTHDEF int           rc_sim_num_verts(const rc_sim *s);
RCLOTHDEF int           rc_sim_num_tris(const rc_sim *s);
RCLOTHDEF int           rc_sim_num_edges(const rc_sim *s);
RCLOTHDEF const int    *rc_sim_tris(const rc_sim *s);        /* 3*nt (counter-clockwise in uv) */
RCLOTHDEF const double *rc_sim_positions(const rc_sim *s);   /* 3*nv */
RCLOTHDEF const double *rc_sim_velocities(const rc_sim *s);  /* 3*nv */
RCLOTHDEF double        rc_sim_time(const rc_sim *s);        /* simulated time, s: the sum of the steps taken
                                                               (restored by rc_sim_load_state; statics add none) */
RCLOTHDEF const double *rc_sim_reference(const rc_sim *s);   /* 2*nv, current u */
RCLOTHDEF const double *rc_sim_directors(const rc_sim *s);   /* ne director angles, radians */
/* the lumped mass of each vertex, kg (nv values into mass): rho tau / 3 times the reference area of
   its triangles at the current u (adaptive: it follows the vertex through the material; they sum
   to the cloth's mass). mass / (rho tau) is the vertex's area share, e.g. to turn a wind pressure
   into rc_sim_set_force forces. RC_ERR_INVALID_ARGUMENT for NULL. */
RCLOTHDEF rc_status rc_sim_vertex_masses(const rc_sim *s, double *mass);
/* reaction force the pin exerts on the cloth at the end of the last step, N (zero for a vertex
   that is not pinned) */
RCLOTHDEF rc_status rc_sim_pin_reaction(const rc_sim *s, int vertex, double force[3]);
/* energies of the current state (no inertia): elastic stretch, bending, gravity potential */
RCLOTHDEF rc_status rc_sim_potential(const rc_sim *s, double *stretch, double *bend, double *gravity);
RCLOTHDEF rc_status rc_sim_write_obj(const rc_sim *s, const char *path);            /* v = x, vt = u */
RCLOTHDEF rc_status rc_sim_write_reference_obj(const rc_sim *s, const char *path);  /* v = (u, 0) */

/* State save/restore (positions, director angles, velocities, reference, time, barrier stiffness,
   obstacle poses and mesh obstacle vertices, the tracked hinge angles of the bending energy and the
   solvers' Levenberg-Marquardt shifts): for retrying a step or branching a simulation. Stepping
   from a loaded state repeats the steps that followed its save bit for bit (with self contact too:
   the sparse pattern's contact blocks are rebuilt from the state at each step's start). Not state but
   set-up, kept as the sim has it: pins and their targets, forces, seams, material handles and loads,
   the set of obstacles (so adding a handle keeps the state's size), and rc_sim_solve_static's
   memory of its last equilibrium (another sim loading that state starts its static solve from no
   hold: loads ramped from zero, no carried friction slip). A step that splits moves each
   handle from its target at the step's start, which after a load is its target at the load: for
   a bit-for-bit replay, set the handles as they were at the save, load, then move them. The
   buffer size is rc_sim_state_size() doubles; it starts with a header (the sim's sizes), and
   loading a state saved by a sim of other sizes (vertices, edges, obstacles, mesh obstacle
   vertices), other cloth triangles or other obstacles (kinds, order, the vertex count of each
   mesh) fails with RC_ERR_INVALID_ARGUMENT, as does a state no sim can be in (a negative barrier stiffness or
   shift, an obstacle rotation that is not one, a corner or straight-side boundary vertex off this
   sim's reference domain, a director angle beyond 1e4 rad); an inverted reference triangle is RC_ERR_INVERTED, one past the
   adaptive line search's MIPS bound (1e4) RC_ERR_MESH_DEGENERATE in an adaptive sim with the
   regulariser on (quality_weight > 0), a NaN or inf
   RC_ERR_NON_FINITE. A refused state changes nothing. A loaded state is checked for crossings
   at the next step, as a new sim's first state is; a barrier stiffness above this sim's cap (100
   times its start) is lowered to it; the pin reactions read zero until the next step. After the header of
   RC_SIM_STATE_HEADER doubles come x (3 nv), v (3 nv), u (2 nv), phi (ne), then the rest. */
#define RC_SIM_STATE_HEADER 8
RCLOTHDEF size_t    rc_sim_state_size(const rc_sim *s);
RCLOTHDEF rc_status rc_sim_save_state(const rc_sim *s, double *buffer);
RCLOTHDEF rc_status rc_sim_load_state(rc_sim *s, const double *buffer);

#ifdef __cplusplus
}
#endif


#endif /* RCLOTH_H */

#ifdef RCLOTH_IMPLEMENTATION
#ifndef RCLOTH_IMPLEMENTATION_DONE
#define RCLOTH_IMPLEMENTATION_DONE

/* ==========================================================================
   IMPLEMENTATION: BASE
   ========================================================================== */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>

/* ---- allocation: override all three (and optionally ASSERT) before including the implementation.
   The second argument is the user pointer given to the object being built (NULL for the stand-alone
   solver and kernels). */
#ifndef RCLOTH_MALLOC
#define RCLOTH_MALLOC(size, user) ((void)(user), malloc(size))
#define RCLOTH_REALLOC(ptr, size, user) ((void)(user), realloc((ptr), (size)))
#define RCLOTH_FREE(ptr, user) ((void)(user), free(ptr))
#endif
#ifndef RCLOTH_ASSERT
#include <assert.h>
#define RCLOTH_ASSERT(x) assert(x)
#endif

#define RC__PI 3.14159265358979323846

/* RC__UNUSED marks the few private functions the library itself may not call: the scalar
   triangular-solve kernels in SIMD builds and rc__sp_fill (tests and benches). Every other
   private function is plain static, so the compiler reports it once it goes unused. */
#if defined(__GNUC__) || defined(__clang__)
#define RC__UNUSED __attribute__((unused))
#else
#define RC__UNUSED
#endif

/* SIMD (the sparse factorization's dense kernels, the solves, and the rotations of the dense
   eigen-solver below): <immintrin.h> is the compiler's own intrinsics header (no
   library, nothing to link; it declares the SSE2, AVX2 and FMA intrinsics alike); SSE2 is part of every x86-64 target, AVX2 + FMA only with
   -march flags. A portable x86-64 build with gcc or clang still gets the AVX2 + FMA tile when the
   CPU has it: that one function is compiled for those instructions (a function target attribute)
   and rc_ldlt_analyze asks the CPU once (__builtin_cpu_supports) whether it may be called
   (RC__SP_DISPATCH). Measured on the 1k sphere drape's LDL^T, -O2: joint (x, phi, u) system 60 ->
   35 ms, (x, phi) system 18 -> 12 ms. The fused multiply-adds round differently, so factors (and
   trajectories) differ in the last bits between CPUs with and without AVX2 + FMA; on one machine
   results stay bit-identical for any thread count. RCLOTH_NO_CPU_DISPATCH keeps the portable build
   on SSE2, RCLOTH_NO_SIMD builds the scalar kernels (CI runs the sparse tests all three ways). */
#if (defined(__SSE2__) || defined(__AVX2__)) && !defined(RCLOTH_NO_SIMD)
#include <immintrin.h>
#endif
#if defined(__AVX2__) && defined(__FMA__) && !defined(RCLOTH_NO_SIMD)
#define RC__SP_AVX2 1
#elif defined(__SSE2__) && !defined(RCLOTH_NO_SIMD)
#define RC__SP_SSE2 1
/* gcc >= 5 or clang >= 6 (target attributes with intrinsics, __builtin_cpu_supports), not clang-cl
   (its <immintrin.h> leaves AVX out without -mavx2, and __builtin_cpu_supports needs a runtime
   library it does not link by default) */
#if ((defined(__clang__) && __clang_major__ >= 6) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 5)) && \
    defined(__x86_64__) && !defined(_MSC_VER) && !defined(RCLOTH_NO_CPU_DISPATCH)
#define RC__SP_DISPATCH 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

RCLOTHDEF const char *rc_status_string(rc_status s)
{
    static const char *const names[RC_STATUS_COUNT] = {
        "ok",
        "invalid argument",
        "out of memory",
        "non-finite value (NaN or inf)",
        "malformed sparse pattern",
        "matrix not positive definite",
        "iteration cap reached before tolerance",
        "triangle vertex index out of range or repeated",
        "degenerate (zero-area) reference triangle",
        "reference triangles of mixed orientation",
        "non-manifold or inconsistently wound mesh",
        "invalid material parameters",
        "I/O error",
        "malformed file contents",
        "cloth intersecting, or inside a contact offset (of an obstacle or of itself)",
        "no descent direction",
        "inverted reference triangle",
    };
    if ((int)s < 0 || s >= RC_STATUS_COUNT) return "unknown status";
    return names[s];
}

/* Allocation of n elements of size sz with overflow check; NULL on failure or n*sz overflow. */
static void *rc__alloc(void *user, size_t n, size_t sz)
{
    (void)user;   /* an RCLOTH_MALLOC that ignores it must still build with -Wextra -Werror */
    if (n == 0) n = 1;
    if (sz != 0 && n > (size_t)-1 / sz) return NULL;
    return RCLOTH_MALLOC(n * sz, user);
}
static void *rc__calloc(void *user, size_t n, size_t sz)
{
    void *p = rc__alloc(user, n, sz);
    if (p) memset(p, 0, (n ? n : 1) * sz);
    return p;
}
static void *rc__realloc(void *user, void *p, size_t n, size_t sz)
{
    (void)user;
    if (n == 0) n = 1;
    if (sz != 0 && n > (size_t)-1 / sz) return NULL;
    return RCLOTH_REALLOC(p, n * sz, user);
}
static void rc__free(void *user, void *p)
{
    (void)user;
    if (p) RCLOTH_FREE(p, user);
}

/* LSD radix sort of the n keys a[0..n), 11 bits per pass over the bits of maxkey (their largest),
   with tmp (n keys) as the other buffer. Stable. Returns a or tmp, whichever holds the sorted
   keys. Shared by the broad phase's pair lists and the pattern builds' key lists. */
static unsigned long long *rc__radix_sort_u64(unsigned long long *a, unsigned long long *tmp, size_t n, unsigned long long maxkey)
{
    enum { BITS = 11, RADIX = 1 << BITS };
    size_t cnt[RADIX], i;
    int shift;
    for (shift = 0; shift < 64 && (maxkey >> shift) != 0; shift += BITS) {
        unsigned long long *w;
        size_t sum = 0;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; ++i) cnt[(a[i] >> shift) & (RADIX - 1)]++;
        for (i = 0; i < RADIX; ++i) { size_t c = cnt[i]; cnt[i] = sum; sum += c; }
        for (i = 0; i < n; ++i) tmp[cnt[(a[i] >> shift) & (RADIX - 1)]++] = a[i];
        w = a; a = tmp; tmp = w;
    }
    return a;
}

/* Finiteness from the bits (IEEE 754 binary64: exponent all ones = inf or NaN), not from
   arithmetic such as v - v == 0: under -ffast-math (-ffinite-math-only) the compiler may assume
   no NaN or inf exists and fold such tests to "finite" (a probe: dt = NaN was accepted and
   a step returned RC_OK with a NaN energy, the cloth frozen); the bits cannot be optimised away. */
#define RC__EXP_MASK 0x7ff0000000000000ULL
static int rc__isfinite(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (b & RC__EXP_MASK) != RC__EXP_MASK;
}
static int rc__isnan(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (b & RC__EXP_MASK) == RC__EXP_MASK && (b & 0x000fffffffffffffULL) != 0;
}
static int rc__all_finite(const double *v, size_t n)
{
    /* (b & mask) + one exponent unit reaches the sign bit only for an all-ones exponent: OR those
       over four independent accumulators (no branch, no dependent chain; measured 1.4x faster than
       the four sums of v[i] * 0 this replaced, and a count of (b & mask) == mask was 3x slower) */
    const unsigned long long one = 0x0010000000000000ULL;
    unsigned long long a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0, b1, b2, b3;
    size_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        memcpy(&b0, v + i, 8); memcpy(&b1, v + i + 1, 8); memcpy(&b2, v + i + 2, 8); memcpy(&b3, v + i + 3, 8);
        a0 |= (b0 & RC__EXP_MASK) + one; a1 |= (b1 & RC__EXP_MASK) + one;
        a2 |= (b2 & RC__EXP_MASK) + one; a3 |= (b3 & RC__EXP_MASK) + one;
    }
    for (; i < n; ++i) { memcpy(&b0, v + i, 8); a0 |= (b0 & RC__EXP_MASK) + one; }
    return !((a0 | a1 | a2 | a3) >> 63);
}
typedef char rc__double_is_binary64[sizeof(double) == 8 && sizeof(unsigned long long) == 8 ? 1 : -1];

/* ---- 3-vectors (double[3]) ---- */
static double rc__dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void rc__sub3(double *r, const double *a, const double *b) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static void rc__add3(double *r, const double *a, const double *b) { r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2]; }
static void rc__scale3(double *r, double s, const double *a) { r[0] = s * a[0]; r[1] = s * a[1]; r[2] = s * a[2]; }
static void rc__axpy3(double *r, double s, const double *a) { r[0] += s * a[0]; r[1] += s * a[1]; r[2] += s * a[2]; }
static void rc__cross3(double *r, const double *a, const double *b)
{
    double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2], t2 = a[0] * b[1] - a[1] * b[0];
    r[0] = t0; r[1] = t1; r[2] = t2;
}
static double rc__norm3(const double *a) { return sqrt(rc__dot3(a, a)); }

/* ---- dense Cholesky M = R^T R in place, n small: R in the row-major upper triangle of M (the
   strictly lower part is left as it was). Returns 0 (M partly overwritten) when a pivot is not
   positive. Used by the PSD projection's definiteness test and the PCG's block preconditioner. */
static int rc__chol_upper(int n, double *M)
{
    int i, j, k;
    for (i = 0; i < n; ++i) {
        double s = M[i * n + i];
        for (k = 0; k < i; ++k) s -= M[k * n + i] * M[k * n + i];
        if (!(s > 0.0)) return 0;
        s = sqrt(s);
        M[i * n + i] = s;
        for (j = i + 1; j < n; ++j) {
            double t = M[i * n + j];
            for (k = 0; k < i; ++k) t -= M[k * n + i] * M[k * n + j];
            M[i * n + j] = t / s;
        }
    }
    return 1;
}

/* ---- dense symmetric eigen-decomposition (cyclic Jacobi), n small (element stencils, n <= ~40).
   A: n*n row-major symmetric, destroyed. evals[n]; evecs[n*n] row-major with eigenvector k in
   column k (evecs[i*n+k]). Jacobi is chosen for accuracy on the tiny eigenvalues that decide the
   clamping; its cost is measured in bench/. */
static void rc__sym_eig(int n, double *A, double *evals, double *evecs)
{
    int i, j, k, sweep;
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) evecs[i * n + j] = (i == j) ? 1.0 : 0.0;
    for (sweep = 0; sweep < 60; ++sweep) {
        double off = 0.0, diag = 0.0;
        for (i = 0; i < n; ++i) {
            diag += A[i * n + i] * A[i * n + i];
            for (j = i + 1; j < n; ++j) off += A[i * n + j] * A[i * n + j];
        }
        if (off <= 1e-30 * diag || off == 0.0) break;
        for (i = 0; i < n - 1; ++i) {
            for (j = i + 1; j < n; ++j) {
                double aij = A[i * n + j], aii, ajj, theta, t, c, s;
                if (fabs(aij) < 1e-300) continue;
                aii = A[i * n + i];
                ajj = A[j * n + j];
                /* rotation angle that zeroes A[i][j]: tan(2 phi) = 2 aij / (ajj - aii) */
                theta = (ajj - aii) / (2.0 * aij);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (k = 0; k < n; ++k) {   /* A <- A J (columns i, j) */
                    double aki = A[k * n + i], akj = A[k * n + j];
                    A[k * n + i] = c * aki - s * akj;
                    A[k * n + j] = s * aki + c * akj;
                }
                for (k = 0; k < n; ++k) {   /* A <- J^T A (rows i, j) */
                    double aik = A[i * n + k], ajk = A[j * n + k];
                    A[i * n + k] = c * aik - s * ajk;
                    A[j * n + k] = s * aik + c * ajk;
                }
                A[i * n + j] = A[j * n + i] = 0.0;
                for (k = 0; k < n; ++k) {   /* V <- V J */
                    double vki = evecs[k * n + i], vkj = evecs[k * n + j];
                    evecs[k * n + i] = c * vki - s * vkj;
                    evecs[k * n + j] = s * vki + c * vkj;
                }
            }
        }
    }
    for (i = 0; i < n; ++i) evals[i] = A[i * n + i];
}

/* How element Hessians are made positive semi-definite before assembly (DESIGN §3). */
enum { RC__PROJECT_CLAMP = 0, RC__PROJECT_ABS = 1 };

/* Project symmetric H (n*n row-major) onto the PSD cone: H = V diag(max(l, 0)) V^T (clamp) or
   V diag(|l|) V^T (abs). work: at least 3*n*n + n doubles. Returns 1 if H was changed. A quick
   diagonal-dominance test skips the eigen-decomposition for matrices that are already PSD.
   The reference projection (any n, Jacobi): used for the 3x3 and 4x4 blocks of contact and
   friction, as the fast path's fallback, and by the tests as the exact answer. */
static int rc__psd_project_jacobi(int n, double *H, int mode, double *work)
{
    double *A = work, *V = work + n * n, *lam = work + 2 * n * n;
    int i, j, k, neg = 0, dominant = 1;
    for (i = 0; i < n && dominant; ++i) {
        double s = 0.0;
        for (j = 0; j < n; ++j)
            if (j != i) s += fabs(H[i * n + j]);
        if (H[i * n + i] < s) dominant = 0;
    }
    if (dominant) return 0;   /* symmetric diagonally dominant with nonnegative diagonal: PSD */
    memcpy(A, H, sizeof(double) * (size_t)n * (size_t)n);
    rc__sym_eig(n, A, lam, V);
    for (k = 0; k < n; ++k)
        if (lam[k] < 0.0) {
            neg = 1;
            lam[k] = (mode == RC__PROJECT_ABS) ? -lam[k] : 0.0;
        }
    if (!neg) return 0;
    for (i = 0; i < n; ++i)
        for (j = i; j < n; ++j) {
            double s = 0.0;
            for (k = 0; k < n; ++k) s += V[i * n + k] * lam[k] * V[j * n + k];
            H[i * n + j] = H[j * n + i] = s;
        }
    return 1;
}

/* ---- fast PSD projection of an element Hessian (n <= 27): rc__psd_project. The Jacobi solver
   above costs ~260 us on a 27x27 bending stencil; this path needs only the NEGATIVE eigenpairs:
     1. diagonally dominant with nonnegative diagonal -> PSD, done;
     2. rows/columns that are exactly zero (boundary edges' flap rows, the in-plane rows of a flat
        sheet's bending stencil) are eigenvectors of eigenvalue 0: they are dropped and the rest
        (m x m) is projected, then scattered back (exact, and it shrinks the O(m^3) work);
     3. Cholesky of H + delta I (delta = 1e-12 max|H_ii|) succeeds -> lambda_min >= -delta: treated
        as PSD and left alone (element Hessians are singular: rigid modes);
     4. Householder tridiagonalisation Q^T H Q = T (reflectors kept, Q never formed), eigenpairs
        of T by implicit QL with Wilkinson shifts, the rotations accumulated (rc__tridiag_ql),
        the negative ones' eigenvectors back-transformed by the reflectors; then
        H += sum_{lambda<0} (lambda' - lambda) v v^T, lambda' = 0 (clamp) or -lambda (abs).
        (Accumulating the rotations replaced inverse iteration on T for the negative
        eigenvalues, 15.6 -> 9.4 us per 18 x 18 bending Schur complement, same distance to the
        exact clamp, 1.8e-14 |S|, on 10k stencils of the bench_energy sheet.)
   Negatives at round-off level (|lambda| <= 1e-13 max|lambda|) are skipped.
   Falls back to rc__psd_project_jacobi if QL does not converge in 60 iterations per eigenvalue.
   Returns 1 if H was changed. Used by the shell stencils (ENERGY, SIM) and, through
   rc__psd_project_core, by the contact barrier's low-rank projection (rc__ct_psd_project_lowrank).
   Measured on stencils captured from a hanging-sheet run (fixed mesh): Cholesky accepts 26% of
   the 9x9 element-A Hessians and 3% of the 21x21 bending ones; the rest have 1-3 (n = 9) or
   4-9 (n = 21) genuinely negative eigenvalues, so step 4 is the common path. */

/* Householder reduction of symmetric A (n*n, destroyed) to tridiagonal (d, e: e[i] couples i and
   i+1); reflector k (P_k = I - beta_k v_k v_k^T, v_k nonzero in k+1..n-1) stored in V[k*n..].
   A sub-column whose norm (below the sub-diagonal) is <= tol is left alone (no reflector): with
   tol = eps |A|_inf this perturbs the eigenvalues by round-off only, and it keeps the singular
   stencils' null-space noise (~1e-18 |A|) out of the arithmetic, where its products went
   subnormal and made the reduction ~20x slower. */
static void rc__sym_tridiag(int n, double *A, double *d, double *e, double *V, double *beta, double tol)
{
    int i, j, k;
    for (k = 0; k + 2 < n; ++k) {
        double sigma = 0.0, x0 = A[(k + 1) * n + k], nrm, alpha, bt, *v = V + k * n, p[27], K = 0.0;
        for (i = k + 2; i < n; ++i) sigma += A[i * n + k] * A[i * n + k];
        beta[k] = 0.0;
        if (sigma <= tol * tol) continue;
        nrm = sqrt(x0 * x0 + sigma);
        alpha = x0 > 0.0 ? -nrm : nrm;
        v[k + 1] = x0 - alpha;
        for (i = k + 2; i < n; ++i) v[i] = A[i * n + k];
        bt = 2.0 / (v[k + 1] * v[k + 1] + sigma);
        beta[k] = bt;
        /* P A P on the trailing block: A -= v w^T + w v^T, w = p - K v, p = beta A v, K = beta/2 v^T p.
           Only the lower triangle (j <= i) is read and updated. */
        for (i = k + 1; i < n; ++i) p[i] = 0.0;
        for (i = k + 1; i < n; ++i) {
            double sum = 0.0, vi = v[i];
            const double *Ai = A + i * n;
            for (j = k + 1; j < i; ++j) {
                sum += Ai[j] * v[j];
                p[j] += Ai[j] * vi;
            }
            p[i] += sum + Ai[i] * vi;
        }
        for (i = k + 1; i < n; ++i) {
            p[i] *= bt;
            K += v[i] * p[i];
        }
        K *= 0.5 * bt;
        for (i = k + 1; i < n; ++i) p[i] -= K * v[i];
        for (i = k + 1; i < n; ++i) {
            double vi = v[i], pi = p[i];
            double *Ai = A + i * n;
            for (j = k + 1; j <= i; ++j) Ai[j] -= vi * p[j] + pi * v[j];
        }
        A[(k + 1) * n + k] = A[k * n + k + 1] = alpha;
    }
    for (i = 0; i < n; ++i) {
        d[i] = A[i * n + i];
        e[i] = i + 1 < n ? A[(i + 1) * n + i] : 0.0;
    }
}

/* (z0, z1) <- (c z0 - s z1, s z0 + c z1) over n entries (two-wide SSE2 where available: the same
   products and sums as the scalar loop, so the same result unless the compiler contracts the
   scalar tail into fused multiply-adds, e.g. -march=native with gcc's default -ffp-contract=fast;
   deterministic either way) */
static void rc__rotate_rows(int n, double *z0, double *z1, double c, double s)
{
    int k = 0;
#ifdef RC__SP_SSE2
    __m128d cc = _mm_set1_pd(c), ss = _mm_set1_pd(s);
    for (; k + 2 <= n; k += 2) {
        __m128d a = _mm_loadu_pd(z0 + k), b = _mm_loadu_pd(z1 + k);
        _mm_storeu_pd(z1 + k, _mm_add_pd(_mm_mul_pd(ss, a), _mm_mul_pd(cc, b)));
        _mm_storeu_pd(z0 + k, _mm_sub_pd(_mm_mul_pd(cc, a), _mm_mul_pd(ss, b)));
    }
#endif
    for (; k < n; ++k) {
        double t = z1[k];
        z1[k] = s * z0[k] + c * t;
        z0[k] = c * z0[k] - s * t;
    }
}

/* eigenvalues of the tridiagonal (d, e) by implicit QL; d is overwritten, e destroyed. 0 on failure.
   Deflation is absolute (|e_m| <= eps |T|): the projection needs eigenvalues to eps |T| only, and
   a relative test would iterate on the null-space (rigid-mode) eigenvalues to no purpose.
   Zt (n*n, may be NULL): the rotations are applied to its rows i, i+1, so starting from I row k
   ends as the eigenvector of d[k] (in T's basis, orthonormal to round-off). Why accumulate: the
   QL sweep is one chain of dependent square roots and divisions (~55 cycles per rotation, 360
   rotations on a bending stencil), and the row updates do not feed that chain, so they run in
   its shadow; measured on 10k bending Schur complements (18 x 18, 8.6 negative eigenvalues
   each), this replaced inverse iteration for the negative ones at lower total cost (see
   rc__psd_project_core). */
static int rc__tridiag_ql(int n, double *d, double *e, double *Zt)
{
    int i, l, m, iter;
    double anorm = 0.0;
    for (i = 0; i < n; ++i) {
        double r = fabs(d[i]) + fabs(e[i]) + (i > 0 ? fabs(e[i - 1]) : 0.0);
        if (r > anorm) anorm = r;
    }
    for (l = 0; l < n; ++l) {
        for (iter = 0;; ++iter) {
            double g, r, s, c, pp, f, b;
            int split = 0;
            for (m = l; m < n - 1; ++m)
                if (fabs(e[m]) <= DBL_EPSILON * anorm) break;
            if (m == l) break;
            if (iter == 60) return 0;
            g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            r = sqrt(g * g + 1.0);
            g = d[m] - d[l] + e[l] / (g + (g >= 0.0 ? r : -r));
            s = c = 1.0;
            pp = 0.0;
            for (i = m - 1; i >= l; --i) {
                f = s * e[i];
                b = c * e[i];
                r = sqrt(f * f + g * g);
                e[i + 1] = r;
                if (r == 0.0) {
                    d[i + 1] -= pp;
                    e[m] = 0.0;
                    split = 1;
                    break;
                }
                {
                    double ir = 1.0 / r; /* one division per rotation instead of two */
                    s = f * ir;
                    c = g * ir;
                }
                g = d[i + 1] - pp;
                r = (d[i] - g) * s + 2.0 * c * b;
                pp = s * r;
                d[i + 1] = g + pp;
                g = c * r - b;
                if (Zt) rc__rotate_rows(n, Zt + (size_t)i * n, Zt + (size_t)(i + 1) * n, c, s);
            }
            if (split) continue;
            d[l] -= pp;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    return 1;
}

/* steps 3-4 on a matrix without zero rows */
static int rc__psd_project_core(int n, double *H, int mode)
{
    double A[27 * 27], V[27 * 27], d[27], e[27], lam[27], e2[27], beta[27], Y[27 * 27], delta = 0.0, tnorm = 0.0;
    double anorm = 0.0, Z[27 * 27], cz[27];
    int i, j, k, nneg = 0;
    for (i = 0; i < n; ++i)
        if (fabs(H[i * n + i]) > delta) delta = fabs(H[i * n + i]);
    delta *= 1e-12;
    /* Cholesky of H + delta I, on A = H^T (its upper triangle is H's lower one, the part this
       test has always read) */
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) A[i * n + j] = H[j * n + i];
    for (i = 0; i < n; ++i) A[i * n + i] += delta;
    if (rc__chol_upper(n, A)) return 0;
    memcpy(A, H, sizeof(double) * (size_t)(n * n));
    for (i = 0; i < n; ++i) {
        double r = 0.0;
        for (j = 0; j < n; ++j) r += fabs(H[i * n + j]);
        if (r > anorm) anorm = r;
    }
    rc__sym_tridiag(n, A, d, e, V, beta, DBL_EPSILON * anorm);
    memcpy(lam, d, sizeof(double) * (size_t)n);
    memcpy(e2, e, sizeof(double) * (size_t)n);
    memset(Y, 0, sizeof(double) * (size_t)(n * n));
    for (i = 0; i < n; ++i) Y[i * n + i] = 1.0;
    if (!rc__tridiag_ql(n, lam, e2, Y)) {
        double work[3 * 27 * 27 + 27];
        return rc__psd_project_jacobi(n, H, mode == RC__PROJECT_ABS ? RC__PROJECT_ABS : RC__PROJECT_CLAMP, work);
    }
    for (i = 0; i < n; ++i)
        if (fabs(lam[i]) > tnorm) tnorm = fabs(lam[i]);
    for (k = 0; k < n; ++k) {
        /* round-off-level negatives (|lambda| <= 1e-13 |H|, e.g. the rigid modes' noise) change H by
           less than its own rounding: skipped */
        if (!(lam[k] < -1e-13 * tnorm)) continue;
        cz[nneg] = (mode == RC__PROJECT_ABS ? -2.0 : -1.0) * lam[k];
        memcpy(Z + nneg * n, Y + k * n, sizeof(double) * (size_t)n);   /* T's eigenvector of lam[k] */
        ++nneg;
    }
    /* back-transform z = Q y = P_0 P_1 ... P_{n-3} y, all vectors through one reflector at a time
       (their dot products are independent: they overlap) */
    for (k = n - 3; k >= 0; --k) {
        const double *v = V + k * n;
        int q;
        if (beta[k] == 0.0) continue;
        for (q = 0; q < nneg; ++q) {
            double *z = Z + q * n, dot = 0.0;
            for (i = k + 1; i < n; ++i) dot += v[i] * z[i];
            dot *= beta[k];
            for (i = k + 1; i < n; ++i) z[i] -= dot * v[i];
        }
    }
    /* H <- sym(H) + sum_k corr_k z_k z_k^T, upper triangle computed once and mirrored (exact symmetry) */
    for (i = 0; i < n; ++i)
        for (j = i; j < n; ++j) {
            double t = 0.5 * (H[i * n + j] + H[j * n + i]);
            for (k = 0; k < nneg; ++k) t += cz[k] * Z[k * n + i] * Z[k * n + j];
            H[i * n + j] = H[j * n + i] = t;
        }
    return 1;
}

static int rc__psd_project(int n, double *H, int mode)
{
    double Hc[27 * 27];
    int idx[27], i, j, m = 0, dominant = 1, changed;
    for (i = 0; i < n && dominant; ++i) {
        double sum = 0.0;
        for (j = 0; j < n; ++j)
            if (j != i) sum += fabs(H[i * n + j]);
        if (H[i * n + i] < sum) dominant = 0;
    }
    if (dominant) return 0;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j)
            if (H[i * n + j] != 0.0) break;
        if (j < n) idx[m++] = i;
    }
    if (m == n) return rc__psd_project_core(n, H, mode);
    if (m == 0) return 0;
    /* a zero row i has H e_i = 0 only if column i is zero too: true for symmetric H */
    for (i = 0; i < m; ++i)
        for (j = 0; j < m; ++j) Hc[i * m + j] = H[idx[i] * n + idx[j]];
    changed = rc__psd_project_core(m, Hc, mode);
    if (changed)
        for (i = 0; i < m; ++i)
            for (j = 0; j < m; ++j) H[idx[i] * n + idx[j]] = Hc[i * m + j];
    return changed;
}

#ifdef __cplusplus
}
#endif

/* ==========================================================================
   IMPLEMENTATION: SPARSE
   ========================================================================== */
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A pivot d_j counts as zero when |d_j| <= RC__SP_PIVOT_TOL * s_j, s_j = max(|a_jj|, max_i a_ij^2 /
   |a_ii|) over A + shift I (f->adiag, set by rc__sp_factor; s_j = a_jj for an SPD matrix). The
   ratio d_j / s_j is invariant under symmetric diagonal scaling, and the rounding error of d_j is
   a modest multiple of eps * s_j, so ~450 eps separates "numerically singular" from any pivot
   round-off can produce. */
#define RC__SP_PIVOT_TOL 1e-13
#define RC__SP_NB 32          /* panel width of the dense supernode factorization */
#define RC__SP_IB 8           /* block width inside a panel (rc__sp_dense_ldlt) */

struct rc_ldlt {
    void *user;
    int n, nnz_a;
    int *colptr, *rowind;     /* copy of the analysed pattern (refinement, validation) */
    int *perm, *pinv;         /* perm[k] = original index of pivot k; pinv = inverse */
    int nsuper;
    int *super;               /* nsuper+1: first column of each supernode */
    int *col2sup;             /* n */
    int *rowp, *rows;         /* rows of supernode s: rows[rowp[s] .. rowp[s+1]) (first its own columns) */
    size_t *lxp;              /* nsuper+1: start of supernode s's nrows x ncols column-major block */
    double *lx, *d;           /* L blocks (unit diagonal stored as 1), pivots D (n) */
    float *lxf;               /* nnz_stored or NULL: lx rounded to single precision, for solves
                                 that only precondition (rc__ldlt_solve_single); lxf_valid says
                                 whether it holds the current factor */
    int lxf_valid;
    size_t *amap;             /* nnz_a, grouped by supernode: where A's entry aidx[q] lands in lx */
    int *aidx, *asp;          /* entries of A assembled into supernode s: q in [asp[s], asp[s+1]) */
    size_t *diagpos;          /* n: position of L(j,j) in lx */
    size_t nnz_l, nnz_stored;
    size_t lx_cap, lxf_cap;   /* allocated lengths of lx and lxf (a recycled array may be longer) */
    /* numeric workspace (allocated in analyze) */
    int *map, *head, *nextd, *lpos, *rmap;
    double *cbuf, *bbuf, *adiag;
    double *work;             /* 3n: solve and refinement */
    int npos, nneg, valid;
    int nthreads;             /* OpenMP threads of the large dense products (1 unless the owner sets it) */
    int simd;                 /* the CPU's dense tiles (RC__SP_DISPATCH builds only): 0 the build's
                                 own, 1 AVX2 + FMA, 2 AVX2 + FMA and AVX-512F (rc__sp_kern_16x4) */
    int stop_on_negative;     /* 1: a negative pivot ends the factorization (RC_ERR_NOT_SPD) at once */
    unsigned char *sgroup;    /* nsuper, or NULL: the tree split (rc__sp_tree_split): 0 or 1 = a
                                 subtree of that group, 2 = the top of the tree */
    /* with a split: the second group's factorization workspace (as map, rmap, cbuf, bbuf) and the
       two groups' lists of supernodes pending for a top supernode (2 x nsuper) */
    int *map1, *rmap1, *tophead;
    int *pts;                 /* with a split: when each pending supernode was pushed (see rc__sp_push) */
    double *cbuf1, *bbuf1;
    size_t cbufsz, bbufsz;
    int maxrows;
};

/* one thread's factorization workspace (rc__sp_factor_super) */
typedef struct rc__sp_work {
    int *map, *rmap, *tophead;   /* tophead: NULL, or where pushes onto a top supernode go */
    double *cbuf, *bbuf;
    int npos, nneg, nthreads;
} rc__sp_work;

/* ---------------------------------------------------------------------------------------------
   Pattern validation: the shape rules of the MATRIX FORMAT paragraph. mark: n ints of scratch. */
static rc_status rc__sp_check_pattern(int n, const int *colptr, const int *rowind, int *mark)
{
    int j, p;
    if (n < 0 || !colptr) return RC_ERR_INVALID_ARGUMENT;
    if (colptr[0] != 0) return RC_ERR_BAD_PATTERN;
    for (j = 0; j < n; ++j)
        if (colptr[j + 1] < colptr[j]) return RC_ERR_BAD_PATTERN;
    if (colptr[n] > 0 && !rowind) return RC_ERR_INVALID_ARGUMENT;
    for (j = 0; j < n; ++j) mark[j] = -1;
    for (j = 0; j < n; ++j)
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            int i = rowind[p];
            if (i < 0 || i > j) return RC_ERR_BAD_PATTERN;   /* out of range or lower triangle */
            if (mark[i] == j) return RC_ERR_BAD_PATTERN;     /* duplicate */
            mark[i] = j;
        }
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------------
   APPROXIMATE MINIMUM DEGREE (Amestoy, Davis & Duff 1996), written from the paper's description.

   The quotient graph holds variables (not yet eliminated) and elements (eliminated pivots, each
   standing for the clique of its remaining neighbours Le). Node x keeps one list in iw at pe[x]:
   for a variable its adjacent elements (first elen[x]) then adjacent variables; for an element its
   variables Le. Weights nv[x] > 1 stand for supervariables (indistinguishable nodes merged).
   Pivot step for the variable me of least approximate degree:
     Lme = (A_me u  U_{e in E_me} Le) \ {me}; the elements of E_me are absorbed into me;
     for every element e touching Lme: w(e) = |Le \ Lme|;
     for i in Lme: d_i = min(n - k, d_i_old + |Lme \ i|, |A_i \ i| + |Lme \ i| + sum_e |Le \ Lme|)
     (elements with |Le \ Lme| = 0 are absorbed into me: aggressive absorption);
     i with no neighbour but me is eliminated with me (mass elimination);
     variables of Lme with identical lists merge into a supervariable (hash, then compare).
   The caller compresses the graph first (vertex blocks become one weighted node). */

enum { RC__AMD_VAR = 0, RC__AMD_ELEM = 1, RC__AMD_DEAD = 2 };

typedef struct rc__amd {
    void *user;
    int n;
    int *iw;
    size_t iwlen, pfree;
    int *pe, *len, *elen, *nv, *degree, *w, *st, *head, *next, *last;
    int *hhead, *hnext, *hval, *mark, *cnext, *ctail, *order, *save;
} rc__amd;

/* Garbage collection: slide every live list down to the start of iw. The first entry of each
   list is saved and replaced by -(x+1), so a left-to-right scan finds list starts in address order. */
static void rc__amd_gc(rc__amd *a)
{
    int x, n = a->n;
    size_t src, dst = 0;
    for (x = 0; x < n; ++x)
        if (a->st[x] != RC__AMD_DEAD && a->len[x] > 0) {
            a->save[x] = a->iw[a->pe[x]];
            a->iw[a->pe[x]] = -(x + 1);
        }
    for (src = 0; src < a->pfree;) {
        int v = a->iw[src];
        if (v < 0) {
            int k, l;
            x = -v - 1;
            l = a->len[x];
            a->iw[dst] = a->save[x];
            for (k = 1; k < l; ++k) a->iw[dst + (size_t)k] = a->iw[src + (size_t)k];
            a->pe[x] = (int)dst;
            dst += (size_t)l;
            src += (size_t)l;
        } else {
            ++src;
        }
    }
    a->pfree = dst;
}

static void rc__amd_remove(rc__amd *a, int i)
{
    int nx = a->next[i], lt = a->last[i];
    if (lt != -1) a->next[lt] = nx; else a->head[a->degree[i]] = nx;
    if (nx != -1) a->last[nx] = lt;
}
static void rc__amd_insert(rc__amd *a, int i, int deg)
{
    int h = a->head[deg];
    a->degree[i] = deg;
    a->next[i] = h;
    a->last[i] = -1;
    if (h != -1) a->last[h] = i;
    a->head[deg] = i;
}
/* append the member chain of b to the chain of a (members are ordered together with their leader) */
static void rc__amd_chain(rc__amd *a, int x, int y)
{
    a->cnext[a->ctail[x]] = y;
    a->ctail[x] = a->ctail[y];
}

/* The core: n nodes with weights nvw (NULL = 1), symmetric adjacency xadj/adj without diagonal.
   order_out[k] = node eliminated k-th (all n nodes appear once). */
static rc_status rc__amd_core(void *user, int n, const int *xadj, const int *adj, const int *nvw,
                              int *order_out)
{
    rc__amd A;
    rc__amd *a = &A;
    int **arrs[17];
    int i, k, nel = 0, mindeg = 0, npiv = 0, stamp = 1, totw = 0;
    int wflg = 1;
    size_t nz = (size_t)xadj[n];
    memset(a, 0, sizeof *a);
    a->user = user;
    a->n = n;
    if (n == 0) return RC_OK;
    arrs[0] = &a->pe; arrs[1] = &a->len; arrs[2] = &a->elen; arrs[3] = &a->nv; arrs[4] = &a->degree;
    arrs[5] = &a->w; arrs[6] = &a->st; arrs[7] = &a->head; arrs[8] = &a->next; arrs[9] = &a->last;
    arrs[10] = &a->hhead; arrs[11] = &a->hnext; arrs[12] = &a->hval; arrs[13] = &a->mark;
    arrs[14] = &a->cnext; arrs[15] = &a->ctail; arrs[16] = &a->order;
    a->iwlen = nz + nz / 5 + 2 * (size_t)n + 64;
    a->iw = (int *)rc__alloc(user, a->iwlen, sizeof(int));
    a->save = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    for (i = 0; i < n; ++i) totw += nvw ? nvw[i] : 1;
    for (k = 0; k < 17; ++k) *arrs[k] = (int *)rc__alloc(user, (size_t)(k == 7 ? totw : n) + 1, sizeof(int));
    {
        int bad = !a->iw || !a->save;
        for (k = 0; k < 17; ++k) bad |= !*arrs[k];
        if (bad) {
            rc__free(user, a->iw);
            rc__free(user, a->save);
            for (k = 0; k < 17; ++k) rc__free(user, *arrs[k]);
            return RC_ERR_OUT_OF_MEMORY;
        }
    }
    memcpy(a->iw, adj, nz * sizeof(int));
    a->pfree = nz;
    for (i = 0; i < n; ++i) {
        a->pe[i] = xadj[i];
        a->len[i] = xadj[i + 1] - xadj[i];
        a->elen[i] = 0;
        a->nv[i] = nvw ? nvw[i] : 1;
        a->st[i] = RC__AMD_VAR;
        a->w[i] = 0;
        a->mark[i] = 0;
        a->head[i] = -1;
        a->hhead[i] = -1;
        a->cnext[i] = -1;
        a->ctail[i] = i;
    }
    for (i = 0; i <= totw; ++i) a->head[i] = -1;
    for (i = 0; i < n; ++i) {   /* initial (weighted) external degree */
        int p, dg = 0;
        for (p = xadj[i]; p < xadj[i + 1]; ++p) dg += a->nv[adj[p]];
        if (dg > totw - 1) dg = totw - 1;
        rc__amd_insert(a, i, dg < 0 ? 0 : dg);
    }
    while (nel < totw) {
        int me, nvpiv, degme = 0, elenme, p, pme1, pme2;
        int nleft;
        while (mindeg < totw && a->head[mindeg] == -1) ++mindeg;
        if (a->head[mindeg] == -1) break;   /* cannot happen: weights are consistent */
        me = a->head[mindeg];
        rc__amd_remove(a, me);
        a->order[npiv++] = me;
        elenme = a->elen[me];
        nvpiv = a->nv[me];
        nel += nvpiv;
        a->nv[me] = -nvpiv;   /* flags "in Lme" for all members below; me itself is skipped */

        /* ---- construct Lme */
        if (elenme == 0) {
            int q = a->pe[me], pend = a->pe[me] + a->len[me];
            pme1 = a->pe[me];
            for (p = a->pe[me]; p < pend; ++p) {
                int j = a->iw[p];
                if (a->st[j] != RC__AMD_VAR || a->nv[j] <= 0) continue;
                degme += a->nv[j];
                a->nv[j] = -a->nv[j];
                rc__amd_remove(a, j);
                a->iw[q++] = j;
            }
            pme2 = q;
        } else {
            size_t need = (size_t)(a->len[me] - elenme);
            int src;
            for (p = a->pe[me]; p < a->pe[me] + elenme; ++p) {
                int e = a->iw[p];
                if (a->st[e] == RC__AMD_ELEM) need += (size_t)a->len[e];
            }
            if (a->pfree + need > a->iwlen) {
                rc__amd_gc(a);
                if (a->pfree + need > a->iwlen) {
                    size_t nl = a->pfree + need + a->iwlen / 2;
                    int *niw = (int *)rc__realloc(user, a->iw, nl, sizeof(int));
                    if (!niw) {
                        rc__free(user, a->iw);
                        rc__free(user, a->save);
                        for (k = 0; k < 17; ++k) rc__free(user, *arrs[k]);
                        return RC_ERR_OUT_OF_MEMORY;
                    }
                    a->iw = niw;
                    a->iwlen = nl;
                }
            }
            pme1 = (int)a->pfree;
            /* sources: each element of me (then absorbed), then me's own variables */
            for (src = 0; src <= elenme; ++src) {
                int ps, pe2;
                if (src < elenme) {
                    int e = a->iw[a->pe[me] + src];
                    if (a->st[e] != RC__AMD_ELEM) continue;
                    ps = a->pe[e];
                    pe2 = ps + a->len[e];
                    a->st[e] = RC__AMD_DEAD;   /* absorbed into me */
                } else {
                    ps = a->pe[me] + elenme;
                    pe2 = a->pe[me] + a->len[me];
                }
                for (p = ps; p < pe2; ++p) {
                    int j = a->iw[p];
                    if (a->st[j] != RC__AMD_VAR || a->nv[j] <= 0) continue;
                    degme += a->nv[j];
                    a->nv[j] = -a->nv[j];
                    rc__amd_remove(a, j);
                    a->iw[a->pfree++] = j;
                }
            }
            pme2 = (int)a->pfree;
        }
        a->pe[me] = pme1;
        a->len[me] = pme2 - pme1;
        a->elen[me] = 0;
        a->st[me] = RC__AMD_ELEM;
        a->degree[me] = degme;

        /* ---- w(e) = |Le \ Lme| for every element touching Lme */
        if (wflg > INT_MAX - 2 * (totw + 2)) {
            for (i = 0; i < n; ++i) a->w[i] = 0;
            wflg = 1;
        }
        for (p = pme1; p < pme2; ++p) {
            int j = a->iw[p], q, nvj = -a->nv[j];
            for (q = a->pe[j]; q < a->pe[j] + a->elen[j]; ++q) {
                int e = a->iw[q], we;
                if (a->st[e] != RC__AMD_ELEM) continue;
                we = a->w[e];
                if (we >= wflg) we -= nvj;
                else we = a->degree[e] + wflg - nvj;
                a->w[e] = we;
            }
        }

        /* ---- degree update, list pruning, mass elimination, hashing */
        for (p = pme1; p < pme2; ++p) {
            int j = a->iw[p], q, p1 = a->pe[j], p2 = p1 + a->elen[j], pend = p1 + a->len[j];
            int pn = p1, ne, nvar, deg = 0;
            unsigned hash = 0;
            for (q = p1; q < p2; ++q) {
                int e = a->iw[q], dext;
                if (a->st[e] != RC__AMD_ELEM) continue;
                dext = a->w[e] - wflg;
                if (dext > 0) {
                    deg += dext;
                    a->iw[pn++] = e;
                    hash += (unsigned)e;
                } else {
                    a->st[e] = RC__AMD_DEAD;   /* Le inside Lme: aggressive absorption into me */
                }
            }
            ne = pn - p1;
            for (q = p2; q < pend; ++q) {
                int v = a->iw[q];
                if (a->st[v] != RC__AMD_VAR || a->nv[v] <= 0) continue;   /* dead, or in Lme */
                deg += a->nv[v];
                a->iw[pn++] = v;
                hash += (unsigned)v;
            }
            nvar = pn - p1 - ne;
            if (ne == 0 && nvar == 0) {
                /* only me is left: j is indistinguishable from me, eliminate it now */
                int nvj = -a->nv[j];
                degme -= nvj;
                nvpiv += nvj;
                nel += nvj;
                a->nv[j] = 0;
                a->st[j] = RC__AMD_DEAD;
                a->len[j] = 0;
                rc__amd_chain(a, me, j);
            } else {
                if (deg < a->degree[j]) a->degree[j] = deg;
                /* room for me: at least one entry (me as a variable or an absorbed element) left */
                RCLOTH_ASSERT(pn < pend);
                if (nvar > 0) a->iw[pn] = a->iw[p1 + ne];
                if (ne > 0) a->iw[p1 + ne] = a->iw[p1];
                a->iw[p1] = me;
                a->len[j] = pn - p1 + 1;
                a->elen[j] = ne + 1;
                a->hval[j] = (int)(hash % (unsigned)n);
                a->hnext[j] = a->hhead[a->hval[j]];
                a->hhead[a->hval[j]] = j;
            }
        }
        wflg += totw + 1;

        /* ---- supervariable detection among Lme: same hash, same lengths, same entries */
        for (p = pme1; p < pme2; ++p) {
            int j = a->iw[p], h, ii;
            if (a->st[j] != RC__AMD_VAR) continue;
            h = a->hval[j];
            while ((ii = a->hhead[h]) != -1) {
                int q, jj, jlast;
                a->hhead[h] = a->hnext[ii];
                if (a->st[ii] != RC__AMD_VAR) continue;
                ++stamp;
                for (q = a->pe[ii] + 1; q < a->pe[ii] + a->len[ii]; ++q) a->mark[a->iw[q]] = stamp;
                jlast = -1;
                jj = a->hhead[h];
                while (jj != -1) {
                    int same = a->len[jj] == a->len[ii] && a->elen[jj] == a->elen[ii];
                    for (q = a->pe[jj] + 1; same && q < a->pe[jj] + a->len[jj]; ++q)
                        if (a->mark[a->iw[q]] != stamp) same = 0;
                    if (same) {
                        a->nv[ii] += a->nv[jj];   /* both negative (in Lme) */
                        a->nv[jj] = 0;
                        a->st[jj] = RC__AMD_DEAD;
                        a->len[jj] = 0;
                        rc__amd_chain(a, ii, jj);
                        if (jlast == -1) a->hhead[h] = a->hnext[jj]; else a->hnext[jlast] = a->hnext[jj];
                    } else {
                        jlast = jj;
                    }
                    jj = jlast == -1 ? a->hhead[h] : a->hnext[jlast];
                }
            }
        }

        /* ---- finalize degrees and compact Lme */
        nleft = totw - nel;
        {
            int q = pme1;
            for (p = pme1; p < pme2; ++p) {
                int j = a->iw[p], nvj, deg;
                if (a->st[j] != RC__AMD_VAR) continue;
                nvj = -a->nv[j];
                if (nvj <= 0) continue;
                a->nv[j] = nvj;
                deg = a->degree[j] + degme - nvj;
                if (deg > nleft - nvj) deg = nleft - nvj;
                if (deg < 0) deg = 0;
                rc__amd_insert(a, j, deg);
                if (deg < mindeg) mindeg = deg;
                a->iw[q++] = j;
            }
            a->len[me] = q - pme1;
            a->nv[me] = nvpiv;
            a->degree[me] = degme;
            if (a->len[me] == 0) a->st[me] = RC__AMD_DEAD;
        }
    }
    /* expand: each pivot, then the chain of nodes merged into it */
    k = 0;
    for (i = 0; i < npiv; ++i) {
        int x = a->order[i];
        while (x != -1) {
            order_out[k++] = x;
            x = a->cnext[x];
        }
    }
    RCLOTH_ASSERT(k == n);
    rc__free(user, a->iw);
    rc__free(user, a->save);
    for (k = 0; k < 17; ++k) rc__free(user, *arrs[k]);
    return RC_OK;
}

/* Symmetric adjacency (both triangles, no diagonal) of a validated upper-CSC pattern. */
static rc_status rc__sp_adjacency(void *user, int n, const int *colptr, const int *rowind,
                                  int **xadj_out, int **adj_out)
{
    int *xadj = (int *)rc__calloc(user, (size_t)n + 1, sizeof(int));
    int *adj, j, p;
    if (!xadj) return RC_ERR_OUT_OF_MEMORY;
    for (j = 0; j < n; ++j)
        for (p = colptr[j]; p < colptr[j + 1]; ++p)
            if (rowind[p] != j) { xadj[rowind[p] + 1]++; xadj[j + 1]++; }
    for (j = 0; j < n; ++j) xadj[j + 1] += xadj[j];
    adj = (int *)rc__alloc(user, (size_t)xadj[n], sizeof(int));
    if (!adj) { rc__free(user, xadj); return RC_ERR_OUT_OF_MEMORY; }
    for (j = 0; j < n; ++j)
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            int i = rowind[p];
            if (i != j) { adj[xadj[i]++] = j; adj[xadj[j]++] = i; }
        }
    for (j = n; j > 0; --j) xadj[j] = xadj[j - 1];
    xadj[0] = 0;
    *xadj_out = xadj;
    *adj_out = adj;
    return RC_OK;
}

/* Fill-reducing ordering: compress indistinguishable nodes (identical closed neighbourhoods, e.g.
   the DOFs of one vertex block), run AMD on the weighted compressed graph, expand.
   perm[k] = original index eliminated k-th. */
static rc_status rc__sp_amd_order(void *user, int n, const int *colptr, const int *rowind, int *perm)
{
    int *xadj = NULL, *adj = NULL, *rep = NULL, *hsh = NULL, *cid = NULL, *mark = NULL, *bucket = NULL;
    int *bnext = NULL, *cx = NULL, *ca = NULL, *cw = NULL, *corder = NULL, *mhead = NULL, *mnext = NULL;
    int i, j, p, nc = 0, k;
    rc_status st;
    if (n == 0) return RC_OK;
    st = rc__sp_adjacency(user, n, colptr, rowind, &xadj, &adj);
    if (st != RC_OK) return st;
    st = RC_ERR_OUT_OF_MEMORY;
    rep = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    hsh = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    cid = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    mark = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    bucket = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    bnext = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    mhead = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    mnext = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    if (!rep || !hsh || !cid || !mark || !bucket || !bnext || !mhead || !mnext) goto done;
    /* hash of the closed neighbourhood {i} u adj(i) */
    for (i = 0; i < n; ++i) {
        unsigned h = (unsigned)i;
        for (p = xadj[i]; p < xadj[i + 1]; ++p) h += (unsigned)adj[p];
        hsh[i] = (int)(h % (unsigned)n);
        bucket[i] = -1;
        rep[i] = -1;
        mark[i] = -1;
    }
    for (i = n - 1; i >= 0; --i) { bnext[i] = bucket[hsh[i]]; bucket[hsh[i]] = i; }
    for (i = 0; i < n; ++i) {
        int deg = xadj[i + 1] - xadj[i];
        if (rep[i] != -1) continue;
        rep[i] = i;
        mark[i] = i;
        for (p = xadj[i]; p < xadj[i + 1]; ++p) mark[adj[p]] = i;
        for (j = bnext[i]; j != -1; j = bnext[j]) {
            int same;
            if (rep[j] != -1 || hsh[j] != hsh[i] || xadj[j + 1] - xadj[j] != deg || mark[j] != i) continue;
            same = 1;
            for (p = xadj[j]; p < xadj[j + 1] && same; ++p) same = mark[adj[p]] == i;
            if (same) rep[j] = i;
        }
    }
    /* compressed graph: node ids for representatives, weights, member lists */
    for (i = 0; i < n; ++i) {
        mhead[i] = -1;
        if (rep[i] == i) cid[i] = nc++;
    }
    cw = (int *)rc__calloc(user, (size_t)nc, sizeof(int));
    cx = (int *)rc__alloc(user, (size_t)nc + 1, sizeof(int));
    corder = (int *)rc__alloc(user, (size_t)nc, sizeof(int));
    if (!cw || !cx || !corder) goto done;
    for (i = n - 1; i >= 0; --i) {
        int c = cid[rep[i]];
        cw[c]++;
        mnext[i] = mhead[c];
        mhead[c] = i;
    }
    cx[0] = 0;
    for (i = 0; i < n; ++i) mark[i] = -1;
    k = 0;
    for (i = 0; i < n; ++i)   /* count pass */
        if (rep[i] == i) {
            int c = cid[i];
            mark[c] = c;
            for (p = xadj[i]; p < xadj[i + 1]; ++p) {
                int c2 = cid[rep[adj[p]]];
                if (mark[c2] != c) { mark[c2] = c; ++k; }
            }
            cx[c + 1] = k;
        }
    ca = (int *)rc__alloc(user, (size_t)k, sizeof(int));
    if (!ca) goto done;
    for (i = 0; i < n; ++i) mark[i] = -1;
    k = 0;
    for (i = 0; i < n; ++i)
        if (rep[i] == i) {
            int c = cid[i];
            mark[c] = c;
            for (p = xadj[i]; p < xadj[i + 1]; ++p) {
                int c2 = cid[rep[adj[p]]];
                if (mark[c2] != c) { mark[c2] = c; ca[k++] = c2; }
            }
        }
    st = rc__amd_core(user, nc, cx, ca, cw, corder);
    if (st != RC_OK) goto done;
    k = 0;
    for (i = 0; i < nc; ++i)
        for (j = mhead[corder[i]]; j != -1; j = mnext[j]) perm[k++] = j;
    RCLOTH_ASSERT(k == n);
    st = RC_OK;
done:
    rc__free(user, xadj); rc__free(user, adj); rc__free(user, rep); rc__free(user, hsh);
    rc__free(user, cid); rc__free(user, mark); rc__free(user, bucket); rc__free(user, bnext);
    rc__free(user, cx); rc__free(user, ca); rc__free(user, cw); rc__free(user, corder);
    rc__free(user, mhead); rc__free(user, mnext);
    return st;
}

/* ---------------------------------------------------------------------------------------------
   SYMBOLIC ANALYSIS on B = P A P^T.
   up: strictly-upper pattern of B by columns (B(i,k), i < k, listed in column k) = the rows of L's
   row k; lo: the same entries listed by their smaller index (column i of L gets row k).
   Elimination tree (Liu): parent(i) = min{ k > i : L(k,i) != 0 }, found by walking from each i
   with B(i,k) != 0 towards its root with path compression (ancestor array).
   Column counts: row k of L is the union of the tree paths from each such i up to k, so a marked
   walk visits exactly the nonzeros L(k, j): O(nnz(L)). */
static void rc__sp_permute_pattern(int n, const int *colptr, const int *rowind, const int *pinv,
                                   int *upp, int *upi, int *lop, int *loi)
{
    int j, p;
    for (j = 0; j <= n; ++j) upp[j] = lop[j] = 0;
    for (j = 0; j < n; ++j)
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            int a = pinv[rowind[p]], b = pinv[j];
            if (a == b) continue;
            if (a > b) { int t = a; a = b; b = t; }
            upp[b + 1]++;
            lop[a + 1]++;
        }
    for (j = 0; j < n; ++j) { upp[j + 1] += upp[j]; lop[j + 1] += lop[j]; }
    for (j = 0; j < n; ++j)
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            int a = pinv[rowind[p]], b = pinv[j];
            if (a == b) continue;
            if (a > b) { int t = a; a = b; b = t; }
            upi[upp[b]++] = a;
            loi[lop[a]++] = b;
        }
    for (j = n; j > 0; --j) { upp[j] = upp[j - 1]; lop[j] = lop[j - 1]; }
    upp[0] = lop[0] = 0;
}

static void rc__sp_etree(int n, const int *upp, const int *upi, int *parent, int *anc)
{
    int k, p;
    for (k = 0; k < n; ++k) {
        parent[k] = -1;
        anc[k] = -1;
        for (p = upp[k]; p < upp[k + 1]; ++p) {
            int i = upi[p];
            while (i != -1 && i < k) {
                int nx = anc[i];
                anc[i] = k;
                if (nx == -1) { parent[i] = k; break; }
                i = nx;
            }
        }
    }
}

/* colcount[j] = strictly-lower nonzeros of column j of L; returns their sum */
static size_t rc__sp_colcounts(int n, const int *upp, const int *upi, const int *parent, int *cnt, int *mark)
{
    int k, p;
    size_t tot = 0;
    for (k = 0; k < n; ++k) { cnt[k] = 0; mark[k] = -1; }
    for (k = 0; k < n; ++k) {
        mark[k] = k;
        for (p = upp[k]; p < upp[k + 1]; ++p) {
            int i = upi[p];
            while (mark[i] != k) {
                mark[i] = k;
                cnt[i]++;
                ++tot;
                i = parent[i];
            }
        }
    }
    return tot;
}

/* Exact nnz(L) (strictly lower) for ordering perm (NULL = natural): used by tests and benches. */
static RC__UNUSED rc_status rc__sp_fill(void *user, int n, const int *colptr, const int *rowind,
                             const int *perm, size_t *nnz_l)
{
    int *w = NULL, *up = NULL, *lp = NULL, *ui = NULL, *li = NULL, j;
    size_t nz = (size_t)colptr[n];
    *nnz_l = 0;
    if (n == 0) return RC_OK;
    w = (int *)rc__calloc(user, 5 * (size_t)n + 2, sizeof(int));
    ui = (int *)rc__alloc(user, nz, sizeof(int));
    li = (int *)rc__alloc(user, nz, sizeof(int));
    if (!w || !ui || !li) { rc__free(user, w); rc__free(user, ui); rc__free(user, li); return RC_ERR_OUT_OF_MEMORY; }
    up = w + 3 * (size_t)n;
    lp = up + n + 1;
    /* w: pinv | parent | scratch */
    for (j = 0; j < n; ++j) w[perm ? perm[j] : j] = j;
    rc__sp_permute_pattern(n, colptr, rowind, w, up, ui, lp, li);
    rc__sp_etree(n, up, ui, w + n, w + 2 * n);
    *nnz_l = rc__sp_colcounts(n, up, ui, w + n, w + 2 * n, w);   /* pinv no longer needed */
    rc__free(user, w); rc__free(user, ui); rc__free(user, li);
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------------
   analyze */
RCLOTHDEF void rc_ldlt_destroy(rc_ldlt *f)
{
    void *u;
    if (!f) return;
    u = f->user;
    rc__free(u, f->colptr); rc__free(u, f->rowind); rc__free(u, f->perm); rc__free(u, f->pinv);
    rc__free(u, f->super); rc__free(u, f->col2sup); rc__free(u, f->rowp); rc__free(u, f->rows);
    rc__free(u, f->lxp); rc__free(u, f->lx); rc__free(u, f->lxf); rc__free(u, f->d); rc__free(u, f->amap);
    rc__free(u, f->aidx); rc__free(u, f->asp);
    rc__free(u, f->diagpos); rc__free(u, f->map); rc__free(u, f->head); rc__free(u, f->nextd);
    rc__free(u, f->lpos); rc__free(u, f->rmap); rc__free(u, f->cbuf); rc__free(u, f->bbuf);
    rc__free(u, f->adiag); rc__free(u, f->work); rc__free(u, f->sgroup);
    rc__free(u, f->map1); rc__free(u, f->rmap1); rc__free(u, f->tophead); rc__free(u, f->cbuf1); rc__free(u, f->bbuf1);
    rc__free(u, f->pts);
    rc__free(u, f);
}

static int rc__sp_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Relaxed amalgamation: a supernode chain s -> s+1 (s+1 the parent of s's last column) is merged
   when the merged block stays small or adds few explicit zeros: the dense kernels then run on
   fewer, larger blocks (same rule of thumb as CHOLMOD's: more zeros allowed for narrow nodes). */
static int rc__sp_relax_ok(int ncols, double zeros, double stored)
{
    if (ncols <= 4) return 1;
    if (ncols <= 16) return zeros < 0.8 * stored;
    if (ncols <= 48) return zeros < 0.1 * stored;
    return zeros < 0.05 * stored;
}

/* The tree split of the factorization and the triangular solves. Two disjoint sets of subtrees of
   the supernodal elimination tree (groups 0 and 1) touch only their own columns and those of their
   common ancestors (the top): the factorization runs the groups at once, then the top
   (rc__sp_factor); the forward solve runs the groups at once (group 1's updates of top rows
   gathered in a second vector and added after, in a fixed order), then the top; the backward
   solve runs the top, then the groups at once (each reads the final top values and writes only its
   own columns). The split depends only on the tree and the same arithmetic runs with one thread or
   two, so results do not depend on the thread count. Found by opening the subtree with the most
   entries of L (its root joins the top) until no subtree holds more than half of the candidates'
   entries, then dealing the subtrees largest first to the lighter group; kept (sgroup != NULL) only
   if each group holds a quarter of L or more. Returns 0 when out of memory. */
typedef struct rc__sp_subtree { double w; int s; } rc__sp_subtree;
static int rc__sp_cmp_subtree(const void *a, const void *b)   /* heaviest first, then by index */
{
    const rc__sp_subtree *x = (const rc__sp_subtree *)a, *y = (const rc__sp_subtree *)b;
    if (x->w != y->w) return x->w > y->w ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}
static int rc__sp_tree_split(rc_ldlt *f)
{
    int ns = f->nsuper, s, k, ncand = 0, it;
    int *par = (int *)rc__alloc(f->user, (size_t)ns, sizeof(int));
    int *first = (int *)rc__alloc(f->user, (size_t)ns, sizeof(int));
    int *kid = (int *)rc__alloc(f->user, 2 * (size_t)ns, sizeof(int));   /* first child, next sibling */
    double *sub = (double *)rc__alloc(f->user, (size_t)ns, sizeof(double)), total = 0.0, load[2] = {0.0, 0.0};
    rc__sp_subtree *cand = (rc__sp_subtree *)rc__alloc(f->user, (size_t)ns, sizeof(rc__sp_subtree));
    int ok = par && first && kid && sub && cand;
    if (!ok) goto done;
    for (s = 0; s < ns; ++s) {
        int nc = f->super[s + 1] - f->super[s], nr = f->rowp[s + 1] - f->rowp[s];
        par[s] = nr > nc ? f->col2sup[f->rows[f->rowp[s] + nc]] : -1;
        sub[s] = (double)nc * (double)nr;
        total += sub[s];
        first[s] = s;
        kid[2 * s] = -1;
    }
    for (s = ns - 1; s >= 0; --s)   /* postorder: a child comes before its parent */
        if (par[s] >= 0) { kid[2 * s + 1] = kid[2 * par[s]]; kid[2 * par[s]] = s; }
    for (s = 0; s < ns; ++s)
        if (par[s] >= 0) {
            sub[par[s]] += sub[s];
            if (first[s] < first[par[s]]) first[par[s]] = first[s];
        }
    for (s = 0; s < ns; ++s)
        if (par[s] < 0) { cand[ncand].w = sub[s]; cand[ncand++].s = s; }
    for (it = 0; it < 256; ++it) {   /* a deep chain of heavy subtrees: no split */
        double sum = 0.0;
        int big = 0, c;
        for (k = 0; k < ncand; ++k) {
            sum += cand[k].w;
            if (cand[k].w > cand[big].w) big = k;
        }
        if (ncand == 0 || cand[big].w <= 0.5 * sum) break;
        c = cand[big].s;   /* open it: its root joins the top, its children become candidates */
        cand[big] = cand[--ncand];
        for (s = kid[2 * c]; s >= 0; s = kid[2 * s + 1]) { cand[ncand].w = sub[s]; cand[ncand++].s = s; }
    }
    /* largest first, each to the lighter group */
    qsort(cand, (size_t)ncand, sizeof(rc__sp_subtree), rc__sp_cmp_subtree);
    f->sgroup = (unsigned char *)rc__alloc(f->user, (size_t)ns, 1);
    if (!f->sgroup) { ok = 0; goto done; }
    memset(f->sgroup, 2, (size_t)ns);
    for (k = 0; k < ncand; ++k) {
        int c = cand[k].s, g = load[1] < load[0];
        load[g] += cand[k].w;
        for (s = first[c]; s <= c; ++s) f->sgroup[s] = (unsigned char)g;
    }
    if (!(load[0] >= 0.25 * total && load[1] >= 0.25 * total)) { rc__free(f->user, f->sgroup); f->sgroup = NULL; }
done:
    rc__free(f->user, par); rc__free(f->user, first); rc__free(f->user, kid); rc__free(f->user, sub); rc__free(f->user, cand);
    return ok;
}

/* rc_ldlt_analyze_ex, taking the factor arrays of recycle (a previous analysis, may be NULL) that
   are long enough, but not over twice as long: a pattern rebuilt often (self contact regrows it
   several times per step) then reuses memory whose pages are mapped. Measured on the 1k fold in
   session 50: allocating and first touching L was a quarter of each analysis (8.5 ms of 33). */
static rc_status rc__ldlt_analyze(rc_ldlt **out, int n, const int *colptr, const int *rowind,
                                  const int *perm_in, void *user, rc_ldlt *recycle);
/* whether a recycled array of cap entries serves for need: long enough, not over twice as long */
static int rc__sp_recycle_fits(size_t cap, size_t need) { return cap >= need && cap <= 2 * need + 1024; }
RCLOTHDEF rc_status rc_ldlt_analyze_ex(rc_ldlt **out, int n, const int *colptr, const int *rowind,
                                       const int *perm, void *user)
{
    return rc__ldlt_analyze(out, n, colptr, rowind, perm, user, NULL);
}
static rc_status rc__ldlt_analyze(rc_ldlt **out, int n, const int *colptr, const int *rowind,
                                  const int *perm_in, void *user, rc_ldlt *recycle)
{
    rc_ldlt *f;
    rc_status st;
    int *iw = NULL, *upp = NULL, *upi = NULL, *lop = NULL, *loi = NULL, *parent, *cnt, *scr, *post;
    int *fsup = NULL;
    int j, k, p, s, nz;
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (n < 0 || !colptr) return RC_ERR_INVALID_ARGUMENT;
    f = (rc_ldlt *)rc__calloc(user, 1, sizeof(rc_ldlt));
    if (!f) return RC_ERR_OUT_OF_MEMORY;
#ifdef RC__SP_DISPATCH
    __builtin_cpu_init();
    f->simd = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (f->simd && __builtin_cpu_supports("avx512f")) f->simd = 2;
#endif
    f->user = user;
    f->n = n;
    iw = (int *)rc__alloc(user, 6 * (size_t)n + 4, sizeof(int));
    if (!iw) { rc__free(user, f); return RC_ERR_OUT_OF_MEMORY; }
    st = rc__sp_check_pattern(n, colptr, rowind, iw);
    if (st != RC_OK) { rc__free(user, iw); rc__free(user, f); return st; }
    nz = colptr[n];
    f->nnz_a = nz;
    st = RC_ERR_OUT_OF_MEMORY;
    f->colptr = (int *)rc__alloc(user, (size_t)n + 1, sizeof(int));
    f->rowind = (int *)rc__alloc(user, (size_t)nz, sizeof(int));
    f->perm = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    f->pinv = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    upp = (int *)rc__alloc(user, (size_t)n + 1, sizeof(int));
    lop = (int *)rc__alloc(user, (size_t)n + 1, sizeof(int));
    upi = (int *)rc__alloc(user, (size_t)nz, sizeof(int));
    loi = (int *)rc__alloc(user, (size_t)nz, sizeof(int));
    if (!f->colptr || !f->rowind || !f->perm || !f->pinv || !upp || !lop || !upi || !loi) goto fail;
    memcpy(f->colptr, colptr, ((size_t)n + 1) * sizeof(int));
    if (nz) memcpy(f->rowind, rowind, (size_t)nz * sizeof(int));
    parent = iw;
    cnt = iw + n;
    scr = iw + 2 * n;
    post = iw + 3 * n;

    /* ordering */
    if (perm_in) {
        for (j = 0; j < n; ++j) f->pinv[j] = -1;
        for (k = 0; k < n; ++k) {
            if (perm_in[k] < 0 || perm_in[k] >= n || f->pinv[perm_in[k]] != -1) { st = RC_ERR_INVALID_ARGUMENT; goto fail; }
            f->pinv[perm_in[k]] = k;
        }
        memcpy(f->perm, perm_in, (size_t)n * sizeof(int));
    } else {
        st = rc__sp_amd_order(user, n, colptr, rowind, f->perm);
        if (st != RC_OK) goto fail;
        st = RC_ERR_OUT_OF_MEMORY;
    }
    for (k = 0; k < n; ++k) f->pinv[f->perm[k]] = k;

    /* etree, then postorder it (children before parents, subtrees contiguous) so supernodes are
       contiguous column ranges; the postorder is an equivalent ordering (same fill) */
    rc__sp_permute_pattern(n, colptr, rowind, f->pinv, upp, upi, lop, loi);
    rc__sp_etree(n, upp, upi, parent, scr);
    {
        int *chead = scr, *cnext = cnt, *stack = iw + 4 * n, top, kk = 0;
        for (j = 0; j < n; ++j) chead[j] = -1;
        for (j = n - 1; j >= 0; --j)
            if (parent[j] != -1) { cnext[j] = chead[parent[j]]; chead[parent[j]] = j; }
        for (j = 0; j < n; ++j) {
            if (parent[j] != -1) continue;
            top = 0;
            stack[top++] = j;
            while (top > 0) {
                int x = stack[top - 1], c = chead[x];
                if (c == -1) { post[kk++] = x; --top; }
                else { chead[x] = cnext[c]; stack[top++] = c; }
            }
        }
        RCLOTH_ASSERT(kk == n);
        for (k = 0; k < n; ++k) scr[k] = f->perm[post[k]];
        memcpy(f->perm, scr, (size_t)n * sizeof(int));
        for (k = 0; k < n; ++k) f->pinv[f->perm[k]] = k;
        /* the postordered matrix's etree is the same tree relabelled: parent'(k) = post^-1(parent(post(k))) */
        for (k = 0; k < n; ++k) scr[post[k]] = k;
        for (k = 0; k < n; ++k) cnt[k] = parent[post[k]] == -1 ? -1 : scr[parent[post[k]]];
        memcpy(parent, cnt, (size_t)n * sizeof(int));
    }
    rc__sp_permute_pattern(n, colptr, rowind, f->pinv, upp, upi, lop, loi);
    f->nnz_l = rc__sp_colcounts(n, upp, upi, parent, cnt, scr);

    /* fundamental supernodes: j+1 continues j's node when it is j's parent, j is its only child and
       col(j) = {j} u col(j+1) (colcount[j] = colcount[j+1] + 1) */
    fsup = (int *)rc__alloc(user, (size_t)n + 1, sizeof(int));
    if (!fsup) goto fail;
    {
        int *nchild = scr, nf = 0;
        double zeros = 0.0;
        for (j = 0; j < n; ++j) nchild[j] = 0;
        for (j = 0; j < n; ++j) if (parent[j] != -1) nchild[parent[j]]++;
        for (j = 0; j < n; ++j)
            if (j == 0 || !(parent[j - 1] == j && cnt[j - 1] == cnt[j] + 1 && nchild[j] == 1)) fsup[nf++] = j;
        fsup[nf] = n;
        /* relaxed merge along chains: group g (ending at fundamental s) absorbs s+1 if parent of
           its last column is s+1's first column. rows(group) = cols(group) + cnt[last col]. */
        f->super = (int *)rc__alloc(user, (size_t)nf + 1, sizeof(int));
        if (!f->super) goto fail;
        s = 0;
        if (nf > 0) {
            int gf = 0;   /* first column of the open group */
            zeros = 0.0;
            f->super[s++] = 0;
            for (k = 0; k + 1 < nf; ++k) {
                int last = fsup[k + 1] - 1, pf = fsup[k + 1], pl = fsup[k + 2];
                int gc = pf - gf, pc = pl - pf;
                double rg = (double)gc + cnt[last];          /* rows of group */
                double rp = (double)pc + cnt[pl - 1];        /* rows of fundamental k+1 */
                double nrow = (double)gc + rp, ncol = (double)(gc + pc);
                /* every column of the group grows from its own (rg - offset) rows to (nrow - offset) */
                double z = zeros + (double)gc * (nrow - rg);
                double stored = ncol * nrow - ncol * (ncol - 1.0) / 2.0;
                if (parent[last] == pf && rc__sp_relax_ok(gc + pc, z, stored)) {
                    zeros = z;
                } else {
                    f->super[s++] = pf;
                    gf = pf;
                    zeros = 0.0;
                }
            }
        }
        f->super[s] = n;
        f->nsuper = s;
    }
    rc__free(user, fsup);
    fsup = NULL;
    {
        int ns = f->nsuper, maxrows = 0, maxcols = 0;
        size_t cbufsz = 1, bbufsz = 1;
        int *smark = scr, *schead = post, *scnext = iw + 4 * n;
        f->col2sup = (int *)rc__alloc(user, (size_t)n, sizeof(int));
        f->rowp = (int *)rc__alloc(user, (size_t)ns + 1, sizeof(int));
        f->lxp = (size_t *)rc__alloc(user, (size_t)ns + 1, sizeof(size_t));
        if (!f->col2sup || !f->rowp || !f->lxp) goto fail;
        f->rowp[0] = 0;
        f->lxp[0] = 0;
        for (s = 0; s < ns; ++s) {
            int fc = f->super[s], lc = f->super[s + 1];
            size_t nr = (size_t)(lc - fc) + (size_t)cnt[lc - 1];
            for (j = fc; j < lc; ++j) f->col2sup[j] = s;
            if ((size_t)f->rowp[s] + nr > (size_t)INT_MAX) { st = RC_ERR_OUT_OF_MEMORY; goto fail; }
            f->rowp[s + 1] = f->rowp[s] + (int)nr;
            f->lxp[s + 1] = f->lxp[s] + nr * (size_t)(lc - fc);
        }
        f->nnz_stored = f->lxp[ns];
        f->rows = (int *)rc__alloc(user, (size_t)f->rowp[ns], sizeof(int));
        if (!f->rows) goto fail;
        /* row structure: own columns, entries of B below them, rows of child supernodes below */
        for (s = 0; s < ns; ++s) { schead[s] = -1; }
        for (j = 0; j < n; ++j) smark[j] = -1;
        for (s = 0; s < ns; ++s) {
            int fc = f->super[s], lc = f->super[s + 1], q = f->rowp[s], c;
            for (j = fc; j < lc; ++j) { f->rows[q++] = j; smark[j] = s; }
            for (j = fc; j < lc; ++j)
                for (p = lop[j]; p < lop[j + 1]; ++p)
                    if (smark[loi[p]] != s) { smark[loi[p]] = s; f->rows[q++] = loi[p]; }
            for (c = schead[s]; c != -1; c = scnext[c]) {
                int r;
                for (r = f->rowp[c] + (f->super[c + 1] - f->super[c]); r < f->rowp[c + 1]; ++r) {
                    int i = f->rows[r];
                    if (smark[i] != s) { smark[i] = s; f->rows[q++] = i; }
                }
            }
            RCLOTH_ASSERT(q == f->rowp[s + 1]);
            qsort(f->rows + f->rowp[s] + (lc - fc), (size_t)(q - f->rowp[s] - (lc - fc)), sizeof(int), rc__sp_cmp_int);
            if (q > f->rowp[s] + (lc - fc)) {   /* link s as a child of the supernode of its parent */
                int ps = f->col2sup[f->rows[f->rowp[s] + (lc - fc)]];
                scnext[s] = schead[ps];
                schead[ps] = s;
            }
        }
        /* workspace sizes: update block of descendant d into s is m2 x n1 with n1 <= min(off_d, ncols_s) */
        for (s = 0; s < ns; ++s) {
            int nc = f->super[s + 1] - f->super[s], nr = f->rowp[s + 1] - f->rowp[s];
            if (nc > maxcols) maxcols = nc;
            if (nr > maxrows) maxrows = nr;
        }
        for (s = 0; s < ns; ++s) {
            int nc = f->super[s + 1] - f->super[s], nr = f->rowp[s + 1] - f->rowp[s], off = nr - nc;
            size_t n1 = (size_t)(off < maxcols ? off : maxcols);
            if ((size_t)off * n1 > cbufsz) cbufsz = (size_t)off * n1;
            if ((n1 + 3) * (size_t)nc > bbufsz) bbufsz = (n1 + 3) * (size_t)nc;
        }
        if (((size_t)maxcols + 3) * RC__SP_NB > bbufsz) bbufsz = ((size_t)maxcols + 3) * RC__SP_NB;
        if (recycle && recycle->lx && rc__sp_recycle_fits(recycle->lx_cap, f->nnz_stored)) {
            f->lx = recycle->lx; f->lx_cap = recycle->lx_cap; recycle->lx = NULL;
        } else {
            /* a rebuild (the pattern grew past the old L) gets a quarter to spare: the next pattern
               of a growing contact set then fits too; a first analysis is exact (memory) */
            f->lx_cap = f->nnz_stored + (recycle ? f->nnz_stored / 4 : 0);
            f->lx = (double *)rc__alloc(user, f->lx_cap, sizeof(double));
            /* touch L once here: the pages are then mapped before the first (timed, repeated) factor */
            if (f->lx) memset(f->lx, 0, f->nnz_stored * sizeof(double));
        }
        if (recycle && recycle->lxf && rc__sp_recycle_fits(recycle->lxf_cap, f->nnz_stored)) {
            f->lxf = recycle->lxf; f->lxf_cap = recycle->lxf_cap; recycle->lxf = NULL;   /* lxf_valid is 0 */
        }
        f->d = (double *)rc__alloc(user, (size_t)n, sizeof(double));
        f->amap = (size_t *)rc__alloc(user, (size_t)nz, sizeof(size_t));
        f->aidx = (int *)rc__alloc(user, (size_t)nz, sizeof(int));
        f->asp = (int *)rc__calloc(user, (size_t)ns + 1, sizeof(int));
        f->diagpos = (size_t *)rc__alloc(user, (size_t)n, sizeof(size_t));
        f->map = (int *)rc__alloc(user, (size_t)n, sizeof(int));
        f->head = (int *)rc__alloc(user, (size_t)ns, sizeof(int));
        f->nextd = (int *)rc__alloc(user, (size_t)ns, sizeof(int));
        f->lpos = (int *)rc__alloc(user, (size_t)ns, sizeof(int));
        f->rmap = (int *)rc__alloc(user, (size_t)maxrows + 1, sizeof(int));
        f->cbuf = (double *)rc__alloc(user, cbufsz, sizeof(double));
        f->bbuf = (double *)rc__alloc(user, bbufsz, sizeof(double));
        f->cbufsz = cbufsz; f->bbufsz = bbufsz; f->maxrows = maxrows;
        f->adiag = (double *)rc__alloc(user, (size_t)n, sizeof(double));
        /* rc_ldlt_solve: [0, n) x, [3n, 4n) a supernode's rows, [4n, 6n) the same for the second
           group of the tree split; rc_ldlt_solve_refined: [n, 3n) */
        f->work = (double *)rc__alloc(user, 6 * (size_t)n, sizeof(double));
        if (!f->lx || !f->d || !f->amap || !f->aidx || !f->asp || !f->diagpos || !f->map || !f->head || !f->nextd || !f->lpos ||
            !f->rmap || !f->cbuf || !f->bbuf || !f->adiag || !f->work) goto fail;
        for (s = 0; s < ns; ++s) {
            int fc = f->super[s], lc = f->super[s + 1], nr = f->rowp[s + 1] - f->rowp[s];
            for (j = fc; j < lc; ++j)
                f->diagpos[j] = f->lxp[s] + (size_t)(j - fc) * (size_t)nr + (size_t)(j - fc);
        }
        /* value map: A(r, c) -> L(hi, lo), in the supernode of lo, grouped by supernode (factor
           assembles each block right before working on it: the block is then in cache, and no
           separate pass over all of L is needed). A counting sort of the entries by supernode
           (aidx, in the order of p within each), then per supernode a scatter map of its rows
           (f->map, free until the factorization) gives each entry's row offset without a search. */
        {
            int *ent = (int *)rc__alloc(user, 2 * (size_t)nz + 1, sizeof(int));   /* lo, hi of each entry */
            if (!ent) goto fail;
            for (j = 0; j < n; ++j)
                for (p = colptr[j]; p < colptr[j + 1]; ++p) {
                    int a = f->pinv[rowind[p]], b = f->pinv[j];
                    ent[2 * p] = a < b ? a : b;
                    ent[2 * p + 1] = a < b ? b : a;
                    f->asp[f->col2sup[ent[2 * p]] + 1]++;
                }
            for (s = 0; s < ns; ++s) f->asp[s + 1] += f->asp[s];
            {
                int *fillp = f->head;   /* ns ints of scratch (workspace is reset by factor) */
                for (s = 0; s < ns; ++s) fillp[s] = f->asp[s];
                for (p = 0; p < nz; ++p) f->aidx[fillp[f->col2sup[ent[2 * p]]]++] = p;
            }
            for (s = 0; s < ns; ++s) {
                int fc = f->super[s], nr = f->rowp[s + 1] - f->rowp[s], r, q;
                const int *rows = f->rows + f->rowp[s];
                for (r = 0; r < nr; ++r) f->map[rows[r]] = r;
                for (q = f->asp[s]; q < f->asp[s + 1]; ++q) {
                    int lo = ent[2 * f->aidx[q]], hi = ent[2 * f->aidx[q] + 1];
                    RCLOTH_ASSERT(rows[f->map[hi]] == hi);
                    f->amap[q] = f->lxp[s] + (size_t)(lo - fc) * (size_t)nr + (size_t)f->map[hi];
                }
            }
            rc__free(user, ent);
        }
    }
    rc__free(user, iw); rc__free(user, upp); rc__free(user, upi); rc__free(user, lop); rc__free(user, loi);
    if (f->nsuper > 0 && !rc__sp_tree_split(f)) { rc_ldlt_destroy(f); return RC_ERR_OUT_OF_MEMORY; }
    if (f->sgroup) {
        f->map1 = (int *)rc__alloc(user, (size_t)n, sizeof(int));
        f->rmap1 = (int *)rc__alloc(user, (size_t)f->maxrows + 1, sizeof(int));
        f->tophead = (int *)rc__alloc(user, 2 * (size_t)f->nsuper, sizeof(int));
        f->cbuf1 = (double *)rc__alloc(user, f->cbufsz, sizeof(double));
        f->bbuf1 = (double *)rc__alloc(user, f->bbufsz, sizeof(double));
        f->pts = (int *)rc__alloc(user, (size_t)f->nsuper, sizeof(int));
        if (!f->map1 || !f->rmap1 || !f->tophead || !f->cbuf1 || !f->bbuf1 || !f->pts) { rc_ldlt_destroy(f); return RC_ERR_OUT_OF_MEMORY; }
    }
    *out = f;
    return RC_OK;
fail:
    rc__free(user, iw); rc__free(user, upp); rc__free(user, upi); rc__free(user, lop); rc__free(user, loi);
    rc__free(user, fsup);
    rc_ldlt_destroy(f);
    return st;
}

RCLOTHDEF rc_status rc_ldlt_analyze(rc_ldlt **out, int n, const int *colptr, const int *rowind)
{
    return rc_ldlt_analyze_ex(out, n, colptr, rowind, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------------
   Dense kernel of the numeric factorization: C(i, j) -= sum_k A(i, k) B(j, k) over the lower part
   (rows i >= j, rounded down to a multiple of 4) of an m x n block; A column-major (lda), C
   column-major (ldc); acc = 0 stores -sum instead of subtracting.
   B comes packed by rc__sp_pack_b in column blocks of 4 (Bp[(j/4)*4k + 4kk + j%4], zero padded)
   and already scaled by D, so the micro-kernels stream it contiguously. Rows are processed in
   blocks of RC__SP_MC so the A rows of a block stay in cache across all column blocks. */
#define RC__SP_MC 192

static void rc__sp_pack_b(int n, int k, const double *L, int ld, const double *D, double *Bp)
{
    int jb, kk, c;
    for (jb = 0; jb < n; jb += 4) {
        double *dst = Bp + (size_t)jb * k;
        int nr = n - jb < 4 ? n - jb : 4;
        for (kk = 0; kk < k; ++kk) {
            const double *src = L + (size_t)kk * ld + jb;
            double dk = D[kk];
            for (c = 0; c < nr; ++c) dst[4 * kk + c] = src[c] * dk;
            for (; c < 4; ++c) dst[4 * kk + c] = 0.0;
        }
    }
}

/* generic tile: mr <= 8 rows, nr <= 4 columns; also the portable path for full 8 x 4 tiles */
static void rc__sp_tile(int mr, int nr, int k, const double *A, int lda, const double *bp,
                        double *C, int ldc, int acc)
{
    double t[4][8];
    int i, j, kk;
    for (j = 0; j < 4; ++j)
        for (i = 0; i < 8; ++i) t[j][i] = 0.0;
    if (mr == 8) {
        for (kk = 0; kk < k; ++kk) {   /* fixed trip counts: the compiler vectorizes this */
            const double *a = A + (size_t)kk * lda, *b = bp + 4 * kk;
            for (j = 0; j < 4; ++j)
                for (i = 0; i < 8; ++i) t[j][i] += a[i] * b[j];
        }
    } else {
        for (kk = 0; kk < k; ++kk) {
            const double *a = A + (size_t)kk * lda, *b = bp + 4 * kk;
            for (j = 0; j < 4; ++j)
                for (i = 0; i < mr; ++i) t[j][i] += a[i] * b[j];
        }
    }
    for (j = 0; j < nr; ++j) {
        double *c = C + (size_t)j * ldc;
        if (acc) for (i = 0; i < mr; ++i) c[i] -= t[j][i];
        else for (i = 0; i < mr; ++i) c[i] = -t[j][i];
    }
}

#if defined(RC__SP_AVX2) || defined(RC__SP_DISPATCH)
#ifdef RC__SP_DISPATCH
__attribute__((target("avx2,fma")))
#endif
static void rc__sp_kern_8x4(int k, const double *A, int lda, const double *bp, double *C, int ldc, int acc)
{
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c02 = c00, c03 = c00;
    __m256d c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    int kk, j;
    __m256d r[8];
    for (kk = 0; kk < k; ++kk) {
        const double *a = A + (size_t)kk * lda, *b = bp + 4 * kk;
        __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4), bb;
        bb = _mm256_broadcast_sd(b + 0); c00 = _mm256_fmadd_pd(a0, bb, c00); c10 = _mm256_fmadd_pd(a1, bb, c10);
        bb = _mm256_broadcast_sd(b + 1); c01 = _mm256_fmadd_pd(a0, bb, c01); c11 = _mm256_fmadd_pd(a1, bb, c11);
        bb = _mm256_broadcast_sd(b + 2); c02 = _mm256_fmadd_pd(a0, bb, c02); c12 = _mm256_fmadd_pd(a1, bb, c12);
        bb = _mm256_broadcast_sd(b + 3); c03 = _mm256_fmadd_pd(a0, bb, c03); c13 = _mm256_fmadd_pd(a1, bb, c13);
    }
    r[0] = c00; r[1] = c10; r[2] = c01; r[3] = c11; r[4] = c02; r[5] = c12; r[6] = c03; r[7] = c13;
    for (j = 0; j < 4; ++j) {
        double *c = C + (size_t)j * ldc;
        if (acc) {
            _mm256_storeu_pd(c, _mm256_sub_pd(_mm256_loadu_pd(c), r[2 * j]));
            _mm256_storeu_pd(c + 4, _mm256_sub_pd(_mm256_loadu_pd(c + 4), r[2 * j + 1]));
        } else {   /* -t by flipping the sign bit (0 - t would give +0 for t = +0), as every kernel does */
            _mm256_storeu_pd(c, _mm256_xor_pd(r[2 * j], _mm256_set1_pd(-0.0)));
            _mm256_storeu_pd(c + 4, _mm256_xor_pd(r[2 * j + 1], _mm256_set1_pd(-0.0)));
        }
    }
}
#endif

#ifdef RC__SP_SSE2
/* The portable build's 4 x 4 tile (SSE2 is the x86-64 baseline, so no -march is needed): the
   same products, summed in the same order k = 0..K-1 without fused multiply-adds, as rc__sp_tile,
   so results are bit-identical to it; but its 8 two-wide accumulators stay in registers, where the
   compiler kept rc__sp_tile's t[4][8] on the stack and paid a load and a store per product pair
   (measured: 31% of the r-ITR ablation's time in that loop). */
static void rc__sp_kern_4x4(int k, const double *A, int lda, const double *bp, double *C, int ldc, int acc)
{
    __m128d c00 = _mm_setzero_pd(), c01 = c00, c02 = c00, c03 = c00;
    __m128d c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    __m128d r[8], sign = _mm_set1_pd(-0.0);
    int kk, j;
    for (kk = 0; kk < k; ++kk) {
        const double *a = A + (size_t)kk * lda, *b = bp + 4 * kk;
        __m128d a0 = _mm_loadu_pd(a), a1 = _mm_loadu_pd(a + 2), bb;
        bb = _mm_set1_pd(b[0]); c00 = _mm_add_pd(c00, _mm_mul_pd(a0, bb)); c10 = _mm_add_pd(c10, _mm_mul_pd(a1, bb));
        bb = _mm_set1_pd(b[1]); c01 = _mm_add_pd(c01, _mm_mul_pd(a0, bb)); c11 = _mm_add_pd(c11, _mm_mul_pd(a1, bb));
        bb = _mm_set1_pd(b[2]); c02 = _mm_add_pd(c02, _mm_mul_pd(a0, bb)); c12 = _mm_add_pd(c12, _mm_mul_pd(a1, bb));
        bb = _mm_set1_pd(b[3]); c03 = _mm_add_pd(c03, _mm_mul_pd(a0, bb)); c13 = _mm_add_pd(c13, _mm_mul_pd(a1, bb));
    }
    r[0] = c00; r[1] = c10; r[2] = c01; r[3] = c11; r[4] = c02; r[5] = c12; r[6] = c03; r[7] = c13;
    for (j = 0; j < 4; ++j) {
        double *c = C + (size_t)j * ldc;
        if (acc) {
            _mm_storeu_pd(c, _mm_sub_pd(_mm_loadu_pd(c), r[2 * j]));
            _mm_storeu_pd(c + 2, _mm_sub_pd(_mm_loadu_pd(c + 2), r[2 * j + 1]));
        } else {   /* -t by flipping the sign bit, as rc__sp_tile's c = -t (0 - t would give +0 for t = +0) */
            _mm_storeu_pd(c, _mm_xor_pd(r[2 * j], sign));
            _mm_storeu_pd(c + 2, _mm_xor_pd(r[2 * j + 1], sign));
        }
    }
}
#endif

/* The same tile eight doubles wide (AVX-512F): 16 rows x 4 columns, each C entry the same chain
   of fused multiply-adds over k as in rc__sp_kern_8x4, so the two give bit-identical factors.
   Compiled when the build targets AVX-512F, or for run-time dispatch (simd = 2). Measured on the
   1k sphere drape (10 adaptive steps, the same iterates): the joint (x, phi, u) factorizations
   3.66/3.70 s -> 3.26/3.40 s in total. */
#if (defined(RC__SP_AVX2) && defined(__AVX512F__)) || defined(RC__SP_DISPATCH)
#define RC__SP_AVX512 1
#ifdef RC__SP_DISPATCH
__attribute__((target("avx512f,avx2,fma")))
#endif
static void rc__sp_kern_16x4(int k, const double *A, int lda, const double *bp, double *C, int ldc, int acc)
{
    __m512d c00 = _mm512_setzero_pd(), c01 = c00, c02 = c00, c03 = c00;
    __m512d c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    __m512d r[8];
    int kk, j;
    for (kk = 0; kk < k; ++kk) {
        const double *a = A + (size_t)kk * lda, *b = bp + 4 * kk;
        __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8), bb;
        bb = _mm512_set1_pd(b[0]); c00 = _mm512_fmadd_pd(a0, bb, c00); c10 = _mm512_fmadd_pd(a1, bb, c10);
        bb = _mm512_set1_pd(b[1]); c01 = _mm512_fmadd_pd(a0, bb, c01); c11 = _mm512_fmadd_pd(a1, bb, c11);
        bb = _mm512_set1_pd(b[2]); c02 = _mm512_fmadd_pd(a0, bb, c02); c12 = _mm512_fmadd_pd(a1, bb, c12);
        bb = _mm512_set1_pd(b[3]); c03 = _mm512_fmadd_pd(a0, bb, c03); c13 = _mm512_fmadd_pd(a1, bb, c13);
    }
    r[0] = c00; r[1] = c10; r[2] = c01; r[3] = c11; r[4] = c02; r[5] = c12; r[6] = c03; r[7] = c13;
    for (j = 0; j < 4; ++j) {
        double *c = C + (size_t)j * ldc;
        if (acc) {
            _mm512_storeu_pd(c, _mm512_sub_pd(_mm512_loadu_pd(c), r[2 * j]));
            _mm512_storeu_pd(c + 8, _mm512_sub_pd(_mm512_loadu_pd(c + 8), r[2 * j + 1]));
        } else {   /* -t by flipping the sign bit, as the other kernels */
            _mm512_storeu_pd(c, _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(r[2 * j]), _mm512_set1_epi64((long long)0x8000000000000000ULL))));
            _mm512_storeu_pd(c + 8, _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(r[2 * j + 1]), _mm512_set1_epi64((long long)0x8000000000000000ULL))));
        }
    }
}
#endif

/* the register-tile kernel of this build: RC__SP_KMR rows x 4 columns */
#if defined(RC__SP_AVX2)
#define RC__SP_KERN rc__sp_kern_8x4
#define RC__SP_KMR 8
#elif defined(RC__SP_SSE2)
#define RC__SP_KERN rc__sp_kern_4x4
#define RC__SP_KMR 4
#endif

/* the tiles of one column block with the register kernel KERN (KMR rows x 4 columns): whole
   4-column blocks straight into C; 1-3 columns (single edge DOFs, the 5th DOF of a vertex): B is
   zero padded, so the kernel computes -t into a scratch tile and nr columns are copied out
   (c + (-t) rounds as c - t does) */
#if defined(RC__SP_KERN) || defined(RC__SP_DISPATCH)
#define RC__SP_TILES(KERN, KMR)                                                                  \
    do {                                                                                          \
        if (nr == 4) {                                                                            \
            for (; i + (KMR) <= i1; i += (KMR)) KERN(k, A + i, lda, bp, cc + i, ldc, acc);        \
        } else {                                                                                  \
            for (; i + (KMR) <= i1; i += (KMR)) {                                                 \
                int c_, r_;                                                                       \
                KERN(k, A + i, lda, bp, tile, (KMR), 0);                                          \
                for (c_ = 0; c_ < nr; ++c_) {                                                     \
                    double *dst = cc + (size_t)c_ * ldc + i;                                      \
                    if (acc) for (r_ = 0; r_ < (KMR); ++r_) dst[r_] += tile[c_ * (KMR) + r_];     \
                    else for (r_ = 0; r_ < (KMR); ++r_) dst[r_] = tile[c_ * (KMR) + r_];          \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    } while (0)
#endif

/* row panel p (rows p*MC .. p*MC+MC-1) of C (+)= -A B^T, lower part only; simd: the CPU's tiles
   (rc_ldlt.simd; RC__SP_DISPATCH builds) */
static void rc__sp_gemm_panel(int p, int m, int n, int k, const double *A, int lda, const double *Bp,
                              double *C, int ldc, int acc, int simd)
{
    int i0 = p * RC__SP_MC, jb, i;
    int i1 = m - i0 < RC__SP_MC ? m : i0 + RC__SP_MC;
    (void)simd;
    for (jb = 0; jb < n && jb < i1; jb += 4) {
        int nr = n - jb < 4 ? n - jb : 4;
        const double *bp = Bp + (size_t)jb * k;
        double *cc = C + (size_t)jb * ldc;
        double tile[4 * 8];
        (void)tile;
        i = jb > i0 ? jb : i0;
#ifdef RC__SP_AVX512
#ifdef RC__SP_DISPATCH
        if (nr == 4 && simd == 2)
#else
        if (nr == 4)
#endif
            for (; i + 16 <= i1; i += 16) rc__sp_kern_16x4(k, A + i, lda, bp, cc + i, ldc, acc);
#endif
#ifdef RC__SP_DISPATCH
        if (simd) RC__SP_TILES(rc__sp_kern_8x4, 8);
#endif
#ifdef RC__SP_KERN
        RC__SP_TILES(RC__SP_KERN, RC__SP_KMR);
#endif
        for (; i < i1; i += 8) {
            int mr = i1 - i < 8 ? i1 - i : 8;
            rc__sp_tile(mr, nr, k, A + i, lda, bp, cc + i, ldc, acc);
        }
    }
}

static void rc__sp_gemm_lower(int m, int n, int k, const double *A, int lda, const double *Bp,
                              double *C, int ldc, int acc, int nthreads, int simd)
{
    int p, npanel = (m + RC__SP_MC - 1) / RC__SP_MC;
    /* row panels write disjoint rows of C: threads take whole panels (the result does not depend
       on the thread count); only products big enough to pay for a parallel region are split.
       Measured, LDL^T of the joint (x, phi, u) sphere-drape system, 2 threads vs 1: 4k vertices
       0.79 s vs 1.25 s, 1k 0.088 s vs 0.118 s (the threshold: 4e6 flops gave 0.93 s and 0.107 s).
       The serial case stays outside any OpenMP construct: even a one-thread region (an if()
       clause that is false) costs libgomp a futex system call, ~5 us, and small supernodes make
       hundreds of thousands of these calls per second (measured: 13% of an adaptive run). */
#ifdef _OPENMP
    if (nthreads > 1 && npanel > 1 && (double)m * n * k > 1e5) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
        for (p = 0; p < npanel; ++p) rc__sp_gemm_panel(p, m, n, k, A, lda, Bp, C, ldc, acc, simd);
        return;
    }
#else
    (void)nthreads;
#endif
    for (p = 0; p < npanel; ++p) rc__sp_gemm_panel(p, m, n, k, A, lda, Bp, C, ldc, acc, simd);
}

/* y[0..n) -= t x[0..n): the axpy of the dense LDL^T's panel columns.
   Two-wide SSE2 where available: each element gets the same product and subtraction (no fused
   multiply-add), so the result is bit-identical to the scalar loop, which gcc's -O2 cost model
   leaves scalar (it cannot rule out that x and y overlap, and may not add a runtime check). */
static void rc__sp_axpy_neg(int n, double t, const double *x, double *y)
{
    int i = 0;
#ifdef RC__SP_SSE2
    __m128d tt = _mm_set1_pd(t);
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(y + i, _mm_sub_pd(_mm_loadu_pd(y + i), _mm_mul_pd(tt, _mm_loadu_pd(x + i))));
#endif
    for (; i < n; ++i) y[i] -= t * x[i];
}

/* Dense LDL^T of one supernode block (nr x nc, column-major, ld = nr): the top nc x nc block is
   factored and the rows below become L21 = A21 L11^-T D^-1. Panels of RC__SP_NB columns, each in
   blocks of RC__SP_IB: inside a block column j gets A(:,j) -= sum_{k in block, k<j} L(:,k) d_k
   L(j,k), then is scaled by 1/d_j; the block's later panel columns get its rank-IB update, and the
   columns right of the panel the panel's rank-NB update, both through the gemm kernel. Returns 0,
   or 1 + the local index of a zero / non-finite pivot. */
static int rc__sp_dense_ldlt(const rc_ldlt *f, rc__sp_work *w, double *L, int nr, int nc, int col0)
{
    double *D = f->d + col0;
    int j0, j, k, i, b0;
    for (j0 = 0; j0 < nc; j0 += RC__SP_NB) {
        int j1 = j0 + RC__SP_NB < nc ? j0 + RC__SP_NB : nc;
        /* the panel in blocks of RC__SP_IB columns: axpys only inside a block, and a rank-IB
           product through the gemm kernel from each block to the panel's later columns (perf
           annotate: the column-by-column axpys over a whole 32-wide panel were ~37% of
           rc__sp_factor's own time, which matched the gemm kernel's). Measured, old and new build interleaved, best of 2: one
           factorization of the 1k sphere drape's (x, phi) system 9.5 -> 7.7 ms, of its joint
           system 29.4 -> 23.7 ms; bench_sparse -O2 4-14% faster from n 5k to 150k. */
        for (b0 = j0; b0 < j1; b0 += RC__SP_IB) {
            int b1 = b0 + RC__SP_IB < j1 ? b0 + RC__SP_IB : j1;
            for (j = b0; j < b1; ++j) {
                double *cj = L + (size_t)j * nr, dj, inv, tol;
                for (k = b0; k < j; ++k) {
                    const double *ck = L + (size_t)k * nr;
                    double t = D[k] * ck[j];   /* d_k L(j,k) */
                    if (t == 0.0) continue;
                    rc__sp_axpy_neg(nr - j, t, ck + j, cj + j);
                }
                dj = cj[j];
                tol = RC__SP_PIVOT_TOL * f->adiag[col0 + j];
                if (!rc__isfinite(dj)) return 1 + j;
                if (dj > tol) w->npos++;
                else if (dj < -tol) { w->nneg++; if (f->stop_on_negative) return 1 + j; }
                else return 1 + j;
                D[j] = dj;
                inv = 1.0 / dj;
                cj[j] = 1.0;
                for (i = j + 1; i < nr; ++i) cj[i] *= inv;
            }
            if (b1 < j1) {
                rc__sp_pack_b(j1 - b1, b1 - b0, L + (size_t)b0 * nr + b1, nr, D + b0, w->bbuf);
                rc__sp_gemm_lower(nr - b1, j1 - b1, b1 - b0, L + (size_t)b0 * nr + b1, nr, w->bbuf, L + (size_t)b1 * nr + b1, nr, 1,
                                  w->nthreads, f->simd);
            }
        }
        if (j1 < nc) {
            int nt = nc - j1, kw = j1 - j0;
            double *B = w->bbuf;
            rc__sp_pack_b(nt, kw, L + (size_t)j0 * nr + j1, nr, D + j0, B);
            rc__sp_gemm_lower(nr - j1, nt, kw, L + (size_t)j0 * nr + j1, nr, B, L + (size_t)j1 * nr + j1, nr, 1, w->nthreads, f->simd);
        }
    }
    return 0;
}

/* d's next pending supernode is s2: onto the front of s2's list, pushed while supernode now is
   factored (a group's pushes onto a top supernode go to its own list, w->tophead). The plain
   supernode order processes each list last pushed first; with a split the lists are put back in
   that order by push time (f->pts) before use (rc__sp_order_list), so every sum is the plain
   order's whichever way the groups ran. */
static void rc__sp_push(rc_ldlt *f, const rc__sp_work *w, int d, int s2, int now)
{
    int *head = w->tophead && f->sgroup[s2] == 2 ? w->tophead : f->head;
    f->nextd[d] = head[s2];
    head[s2] = d;
    if (f->pts) f->pts[d] = now;
}

/* Lists of pending supernodes by push time (f->pts), latest first. rc__sp_merge_lists: lists a and
   b, each in that order, merged into *head (ties: a's first). rc__sp_order_list: *head is at most
   two such runs (a top supernode's list: the pushes of the top's own factorization in front of
   the groups' merged lists), merged into one. */
static void rc__sp_merge_lists(rc_ldlt *f, int a, int b, int *head)
{
    int *link = head;
    while (a != -1 || b != -1) {
        int take_a = b == -1 || (a != -1 && f->pts[a] >= f->pts[b]), d = take_a ? a : b;
        RCLOTH_ASSERT(f->nextd[d] == -1 || f->pts[f->nextd[d]] <= f->pts[d]);   /* each is one run */
        *link = d;
        link = &f->nextd[d];
        if (take_a) a = f->nextd[a]; else b = f->nextd[b];
    }
    *link = -1;
}
static void rc__sp_order_list(rc_ldlt *f, int *head)
{
    int p = *head, b;
    if (p == -1) return;
    while (f->nextd[p] != -1 && f->pts[f->nextd[p]] <= f->pts[p]) p = f->nextd[p];
    if (f->nextd[p] == -1) return;   /* one run: in order already */
    b = f->nextd[p];
    f->nextd[p] = -1;
    rc__sp_merge_lists(f, *head, b, head);
}

/* supernode s: assemble, receive the pending updates, factor densely. RC_OK, or the failing status */
static rc_status rc__sp_factor_super(rc_ldlt *f, rc__sp_work *w, const double *values, double shift, int s)
{
    int fc = f->super[s], lc = f->super[s + 1], nc = lc - fc, j, q;
    int nr = f->rowp[s + 1] - f->rowp[s], d, r;
    const int *rows = f->rows + f->rowp[s];
    double *Ls = f->lx + f->lxp[s];
    /* assemble A (+ shift I) into the block */
    memset(Ls, 0, (size_t)nr * (size_t)nc * sizeof(double));
    for (q = f->asp[s]; q < f->asp[s + 1]; ++q) f->lx[f->amap[q]] = values[f->aidx[q]];
    for (j = fc; j < lc; ++j) f->lx[f->diagpos[j]] += shift;
    for (r = 0; r < nr; ++r) w->map[rows[r]] = r;
    if (f->pts && f->sgroup && f->sgroup[s] == 2) rc__sp_order_list(f, &f->head[s]);
    d = f->head[s];
    f->head[s] = -1;
    while (d != -1) {
        int dnext = f->nextd[d];
        int dnc = f->super[d + 1] - f->super[d], dnr = f->rowp[d + 1] - f->rowp[d];
        const int *drows = f->rows + f->rowp[d];
        const double *Ld = f->lx + f->lxp[d];
        const double *Dd = f->d + f->super[d];
        int p1 = f->lpos[d], p2 = p1, m2, n1, i, jj;
        double *B = w->bbuf, *C = w->cbuf;
        while (p2 < dnr && drows[p2] < lc) ++p2;
        m2 = dnr - p1;
        n1 = p2 - p1;
        rc__sp_pack_b(n1, dnc, Ld + p1, dnr, Dd, B);
        for (i = 0; i < m2; ++i) w->rmap[i] = w->map[drows[p1 + i]];
        if (w->rmap[m2 - 1] - w->rmap[0] == m2 - 1) {
            /* d's rows are exactly the trailing rows of s and its columns contiguous: update in place */
            rc__sp_gemm_lower(m2, n1, dnc, Ld + p1, dnr, B, Ls + (size_t)(drows[p1] - fc) * nr + w->rmap[0], nr, 1, w->nthreads, f->simd);
        } else {
            rc__sp_gemm_lower(m2, n1, dnc, Ld + p1, dnr, B, C, m2, 0, w->nthreads, f->simd);
            for (jj = 0; jj < n1; ++jj) {
                double *lcol = Ls + (size_t)(drows[p1 + jj] - fc) * nr;
                const double *ccol = C + (size_t)jj * m2;
                for (i = jj; i < m2; ++i) lcol[w->rmap[i]] += ccol[i];
            }
        }
        f->lpos[d] = p2;
        if (p2 < dnr) rc__sp_push(f, w, d, f->col2sup[drows[p2]], s);
        d = dnext;
    }
    {
        int bad = rc__sp_dense_ldlt(f, w, Ls, nr, nc, fc);
        if (bad) {
            double v = Ls[(size_t)(bad - 1) * nr + (bad - 1)];
            return rc__isfinite(v) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE;
        }
    }
    if (nr > nc) {
        f->lpos[s] = nc;
        rc__sp_push(f, w, s, f->col2sup[rows[nc]], s);
    }
    return RC_OK;
}

/* the supernodes of group g, in order; abort: set by a failing group when failures stop the
   factorization early (stop_on_negative), read by the other; *fail: the failing supernode */
static rc_status rc__sp_factor_group(rc_ldlt *f, rc__sp_work *w, const double *values, double shift, int g, int *abort_flag,
                                     int *fail)
{
    int s;
    for (s = 0; s < f->nsuper; ++s)
        if (f->sgroup[s] == g) {
            rc_status st;
            int stop;
#ifdef _OPENMP
#pragma omp atomic read
#endif
            stop = *abort_flag;
            if (stop) return RC_OK;
            st = rc__sp_factor_super(f, w, values, shift, s);
            if (st != RC_OK) {
                *fail = s;
                if (f->stop_on_negative) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                    *abort_flag = 1;
                }
                return st;
            }
        }
    return RC_OK;
}

/* Left-looking supernodal numeric factorization (the organisation of CHOLMOD's supernodal
   Cholesky, here for LDL^T): supernode s first receives, from every earlier supernode d whose row
   set meets s's columns, the update L_d(rows >= f_s) D_d L_d(rows in s)^T (dense product into a
   buffer, scattered through the relative row map), then is factored densely. head[s] lists the d
   whose next pending row lies in s; after updating s, d moves to the supernode of its next row.
   With a tree split and f->nthreads > 1 the two groups' subtrees are factored first on two OpenMP
   threads, then the top with every thread in its dense products; the lists kept in push-time order
   (rc__sp_push) make every sum the plain order's, so the factor is bit-identical to the one-thread
   plain order (which keeps the plain order's locality: with the groups run one after the other,
   4k sphere-drape steps spent ~5% more perf samples in the factorization). Measured on 2 threads: one 1k
   sphere-drape joint factorization 17.6 -> ~14 ms; bench_sparse (5k-150k unknowns) 1.5-1.9x over
   one thread, where the dense products alone gave 1.1-1.6x. If it fails, which failure is reported
   (and the partial pivot counts) can depend on the thread count. */
static rc_status rc__sp_factor(rc_ldlt *f, const double *values, double shift)
{
    int ns = f->nsuper, s, split = 0;
    rc__sp_work w0;
    rc_status st = RC_OK;
    f->valid = 0;
    f->lxf_valid = 0;
    f->npos = f->nneg = 0;
    if (!rc__all_finite(values, (size_t)f->nnz_a) || !rc__isfinite(shift)) return RC_ERR_NON_FINITE;
    {
        /* the zero-pivot scale of each column j: max(|a_jj|, max_i a_ij^2 / |a_ii|) of A + shift I
           (a_ii != 0). Invariant under symmetric diagonal scaling like |a_jj| alone, and equal to
           it for an SPD matrix (a_ij^2 <= a_ii a_jj); but with a_jj = 0 (a KKT matrix's
           constraint rows) it is the Schur complement's scale B^2 / H, where the old test
           |d_j| <= 1e-13 |a_jj| took any rounding noise for a pivot and an exactly singular
           matrix factored "successfully", its solve 1e17 large. f->work[0, n) holds |a_ii|. */
        double *dg = f->work;
        int c, q;
        for (c = 0; c < f->n; ++c) dg[c] = fabs(shift);
        for (c = 0; c < f->n; ++c)
            for (q = f->colptr[c]; q < f->colptr[c + 1]; ++q) if (f->rowind[q] == c) dg[c] = fabs(values[q] + shift);
        for (c = 0; c < f->n; ++c) f->adiag[f->pinv[c]] = dg[c];
        for (c = 0; c < f->n; ++c)
            for (q = f->colptr[c]; q < f->colptr[c + 1]; ++q) {
                int r = f->rowind[q];
                double v2 = values[q] * values[q];
                if (r == c) continue;
                if (dg[r] > 0.0 && v2 / dg[r] > f->adiag[f->pinv[c]]) f->adiag[f->pinv[c]] = v2 / dg[r];
                if (dg[c] > 0.0 && v2 / dg[c] > f->adiag[f->pinv[r]]) f->adiag[f->pinv[r]] = v2 / dg[c];
            }
    }
    for (s = 0; s < ns; ++s) f->head[s] = -1;
    memset(&w0, 0, sizeof w0);
    w0.map = f->map; w0.rmap = f->rmap; w0.cbuf = f->cbuf; w0.bbuf = f->bbuf; w0.nthreads = f->nthreads;
#ifdef _OPENMP
    split = f->sgroup != NULL && f->nthreads > 1;
#endif
    if (split) {
        rc__sp_work w1;
        int abort_flag = 0, fail[2], g;
        rc_status gst[2] = {RC_OK, RC_OK};
        w1 = w0;
        w1.map = f->map1; w1.rmap = f->rmap1; w1.cbuf = f->cbuf1; w1.bbuf = f->bbuf1;
        w0.tophead = f->tophead; w1.tophead = f->tophead + ns;
        w0.nthreads = w1.nthreads = 1;
        fail[0] = fail[1] = ns;
        for (s = 0; s < 2 * ns; ++s) f->tophead[s] = -1;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(2)
#endif
        for (g = 0; g < 2; ++g) gst[g] = rc__sp_factor_group(f, g ? &w1 : &w0, values, shift, g, &abort_flag, fail + g);
        f->npos = w0.npos + w1.npos;
        f->nneg = w0.nneg + w1.nneg;
        /* a failure: the one the plain order meets first among the groups' supernodes */
        if (gst[0] != RC_OK || gst[1] != RC_OK) return fail[0] <= fail[1] ? gst[0] : gst[1];
        /* each top supernode's list: the groups' lists merged by push time, latest first */
        for (s = 0; s < ns; ++s)
            if (f->sgroup[s] == 2) rc__sp_merge_lists(f, f->tophead[s], f->tophead[ns + s], &f->head[s]);
        w0.npos = w0.nneg = 0;
        w0.tophead = NULL;
        w0.nthreads = f->nthreads;
    }
    for (s = 0; s < ns; ++s) {
        if (split && f->sgroup[s] != 2) continue;
        st = rc__sp_factor_super(f, &w0, values, shift, s);
        if (st != RC_OK) break;
    }
    f->npos += w0.npos;
    f->nneg += w0.nneg;
    if (st != RC_OK) return st;
    f->valid = 1;
    return f->nneg > 0 ? RC_ERR_NOT_SPD : RC_OK;
}

RCLOTHDEF rc_status rc_ldlt_factor_shifted(rc_ldlt *f, const double *values, double shift)
{
    if (!f || (!values && f->nnz_a > 0)) return RC_ERR_INVALID_ARGUMENT;
    if (f->n == 0) { f->valid = 1; f->npos = f->nneg = 0; return RC_OK; }
    return rc__sp_factor(f, values, shift);
}

RCLOTHDEF rc_status rc_ldlt_factor(rc_ldlt *f, const double *values)
{
    return rc_ldlt_factor_shifted(f, values, 0.0);
}

/* The triangular solves' two kernels, over the columns of a supernode four at a time (one pass
   over y or x per four columns instead of one per column):
     rc__sp_upd4: y[i] -= c0[i] t0 + c1[i] t1 + c2[i] t2 + c3[i] t3   (forward, cj = c + j ld)
     rc__sp_dot4: t[j] -= sum_i cj[i] x[i]                          (backward)
   Scalar, two-wide SSE2 and (chosen at run time like the factorization's tile) four-wide AVX2 +
   FMA forms; they round differently (the sums are grouped differently), each is deterministic. */
static RC__UNUSED void rc__sp_upd4_scalar(int n, const double *c, int ld, const double *t, double *y)
{
    const double *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    int i;
    for (i = 0; i < n; ++i) y[i] -= c[i] * t[0] + c1[i] * t[1] + c2[i] * t[2] + c3[i] * t[3];
}

static RC__UNUSED void rc__sp_dot4_scalar(int n, const double *c, int ld, const double *x, double *t)
{
    const double *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i;
    for (i = 0; i < n; ++i) { double xi = x[i]; s0 += c[i] * xi; s1 += c1[i] * xi; s2 += c2[i] * xi; s3 += c3[i] * xi; }
    t[0] -= s0; t[1] -= s1; t[2] -= s2; t[3] -= s3;
}

/* the same two kernels on the single-precision copy of L (rc__ldlt_solve_single): c is read as
   float, every product and sum is in double */
static RC__UNUSED void rc__sp_upd4f_scalar(int n, const float *c, int ld, const double *t, double *y)
{
    const float *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    int i;
    for (i = 0; i < n; ++i) y[i] -= (double)c[i] * t[0] + (double)c1[i] * t[1] + (double)c2[i] * t[2] + (double)c3[i] * t[3];
}

static RC__UNUSED void rc__sp_dot4f_scalar(int n, const float *c, int ld, const double *x, double *t)
{
    const float *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i;
    for (i = 0; i < n; ++i) { double xi = x[i]; s0 += (double)c[i] * xi; s1 += (double)c1[i] * xi; s2 += (double)c2[i] * xi; s3 += (double)c3[i] * xi; }
    t[0] -= s0; t[1] -= s1; t[2] -= s2; t[3] -= s3;
}

#ifdef RC__SP_SSE2
static void rc__sp_upd4_sse2(int n, const double *c, int ld, const double *t, double *y)
{
    const double *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    __m128d t0 = _mm_set1_pd(t[0]), t1 = _mm_set1_pd(t[1]), t2 = _mm_set1_pd(t[2]), t3 = _mm_set1_pd(t[3]);
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        __m128d s = _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_loadu_pd(c + i), t0), _mm_mul_pd(_mm_loadu_pd(c1 + i), t1)),
                               _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(c2 + i), t2), _mm_mul_pd(_mm_loadu_pd(c3 + i), t3)));
        _mm_storeu_pd(y + i, _mm_sub_pd(_mm_loadu_pd(y + i), s));
    }
    for (; i < n; ++i) y[i] -= (c[i] * t[0] + c1[i] * t[1]) + (c2[i] * t[2] + c3[i] * t[3]);
}

static void rc__sp_dot4_sse2(int n, const double *c, int ld, const double *x, double *t)
{
    const double *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    __m128d s0 = _mm_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    double r[8];
    int i = 0, a;
    for (; i + 2 <= n; i += 2) {
        __m128d xi = _mm_loadu_pd(x + i);
        s0 = _mm_add_pd(s0, _mm_mul_pd(_mm_loadu_pd(c + i), xi));
        s1 = _mm_add_pd(s1, _mm_mul_pd(_mm_loadu_pd(c1 + i), xi));
        s2 = _mm_add_pd(s2, _mm_mul_pd(_mm_loadu_pd(c2 + i), xi));
        s3 = _mm_add_pd(s3, _mm_mul_pd(_mm_loadu_pd(c3 + i), xi));
    }
    _mm_storeu_pd(r, s0); _mm_storeu_pd(r + 2, s1); _mm_storeu_pd(r + 4, s2); _mm_storeu_pd(r + 6, s3);
    for (; i < n; ++i) { r[0] += c[i] * x[i]; r[2] += c1[i] * x[i]; r[4] += c2[i] * x[i]; r[6] += c3[i] * x[i]; }
    for (a = 0; a < 4; ++a) t[a] -= r[2 * a] + r[2 * a + 1];
}
#endif

#if defined(RC__SP_AVX2) || defined(RC__SP_DISPATCH)
/* The AVX2 + FMA solve kernels, generated for L in double (rc__sp_upd4_avx2, rc__sp_dot4_avx2)
   and for its single-precision copy (rc__sp_upd4f_avx2, rc__sp_dot4f_avx2: each float widened
   on load, the arithmetic in double). T: L's element type; LOAD4(p): four of them as __m256d. */
#ifdef RC__SP_DISPATCH
#define RC__SP_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define RC__SP_TARGET_AVX2
#endif
#define RC__SP_LOAD4_D(p) _mm256_loadu_pd(p)
#define RC__SP_LOAD4_F(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define RC__SP_SOLVE_KERNELS_AVX2(UPD4, DOT4, T, LOAD4)                                                                   \
RC__SP_TARGET_AVX2 static void UPD4(int n, const T *c, int ld, const double *t, double *y)                              \
{                                                                                                                      \
    const T *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;                                                                \
    __m256d t0 = _mm256_set1_pd(t[0]), t1 = _mm256_set1_pd(t[1]), t2 = _mm256_set1_pd(t[2]), t3 = _mm256_set1_pd(t[3]); \
    int i = 0;                                                                                                         \
    for (; i + 4 <= n; i += 4) {                                                                                       \
        __m256d s = _mm256_mul_pd(LOAD4(c + i), t0);                                                                   \
        s = _mm256_fmadd_pd(LOAD4(c1 + i), t1, s);                                                                     \
        s = _mm256_fmadd_pd(LOAD4(c2 + i), t2, s);                                                                     \
        s = _mm256_fmadd_pd(LOAD4(c3 + i), t3, s);                                                                     \
        _mm256_storeu_pd(y + i, _mm256_sub_pd(_mm256_loadu_pd(y + i), s));                                             \
    }                                                                                                                  \
    for (; i < n; ++i) y[i] -= (double)c[i] * t[0] + (double)c1[i] * t[1] + (double)c2[i] * t[2] + (double)c3[i] * t[3]; \
}                                                                                                                      \
RC__SP_TARGET_AVX2 static void DOT4(int n, const T *c, int ld, const double *x, double *t)                              \
{                                                                                                                      \
    const T *c1 = c + ld, *c2 = c1 + ld, *c3 = c2 + ld;                                                                \
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;                                                       \
    double r[16];                                                                                                      \
    int i = 0, a;                                                                                                      \
    for (; i + 4 <= n; i += 4) {                                                                                       \
        __m256d xi = _mm256_loadu_pd(x + i);                                                                           \
        s0 = _mm256_fmadd_pd(LOAD4(c + i), xi, s0);                                                                    \
        s1 = _mm256_fmadd_pd(LOAD4(c1 + i), xi, s1);                                                                   \
        s2 = _mm256_fmadd_pd(LOAD4(c2 + i), xi, s2);                                                                   \
        s3 = _mm256_fmadd_pd(LOAD4(c3 + i), xi, s3);                                                                   \
    }                                                                                                                  \
    _mm256_storeu_pd(r, s0); _mm256_storeu_pd(r + 4, s1); _mm256_storeu_pd(r + 8, s2); _mm256_storeu_pd(r + 12, s3);   \
    for (; i < n; ++i) {                                                                                               \
        r[0] += (double)c[i] * x[i]; r[4] += (double)c1[i] * x[i]; r[8] += (double)c2[i] * x[i]; r[12] += (double)c3[i] * x[i]; \
    }                                                                                                                  \
    for (a = 0; a < 4; ++a) t[a] -= (r[4 * a] + r[4 * a + 1]) + (r[4 * a + 2] + r[4 * a + 3]);                         \
}
RC__SP_SOLVE_KERNELS_AVX2(rc__sp_upd4_avx2, rc__sp_dot4_avx2, double, RC__SP_LOAD4_D)
RC__SP_SOLVE_KERNELS_AVX2(rc__sp_upd4f_avx2, rc__sp_dot4f_avx2, float, RC__SP_LOAD4_F)
#endif

/* the solve kernels of this build (and, with RC__SP_DISPATCH, of this CPU), and the L they read:
   lf = NULL the factor itself, else its single-precision copy (the same layout as f->lx) */
typedef void (*rc__sp_col4_fn)(int n, const double *c, int ld, const double *v, double *w);
typedef void (*rc__sp_col4f_fn)(int n, const float *c, int ld, const double *v, double *w);
typedef struct {
    rc__sp_col4_fn upd4, dot4;
    rc__sp_col4f_fn upd4f, dot4f;
    const float *lf;
} rc__sp_solve_ops;

static void rc__sp_solve_kernels(const rc_ldlt *f, const float *lf, rc__sp_solve_ops *k)
{
    (void)f;
    k->lf = lf;
#if defined(RC__SP_AVX2)
    k->upd4 = rc__sp_upd4_avx2; k->dot4 = rc__sp_dot4_avx2; k->upd4f = rc__sp_upd4f_avx2; k->dot4f = rc__sp_dot4f_avx2;
#elif defined(RC__SP_SSE2)
    k->upd4 = rc__sp_upd4_sse2; k->dot4 = rc__sp_dot4_sse2; k->upd4f = rc__sp_upd4f_scalar; k->dot4f = rc__sp_dot4f_scalar;
#else
    k->upd4 = rc__sp_upd4_scalar; k->dot4 = rc__sp_dot4_scalar; k->upd4f = rc__sp_upd4f_scalar; k->dot4f = rc__sp_dot4f_scalar;
#endif
#ifdef RC__SP_DISPATCH
    if (f->simd) { k->upd4 = rc__sp_upd4_avx2; k->dot4 = rc__sp_dot4_avx2; k->upd4f = rc__sp_upd4f_avx2; k->dot4f = rc__sp_dot4f_avx2; }
#endif
}

/* x (permuted order) <- L^-T D^-1 L^-1 x, supernode by supernode. A supernode's entries of x (its
   own columns, then the rows below its diagonal block, scattered over x) are gathered into w, one
   contiguous vector in the order of the supernode's column storage, so that every column touches
   one contiguous range of w; its columns are taken four at a time: forward, the 4x4 triangle, then
   w below it -= L(:, 4 columns) x(4) in one pass; backward, the four dot products of the columns
   with the (final) w below the block in one pass, then the 4x4 triangle. Measured on the 1k adaptive
   sphere drape (the r-ITR's factor reuse runs ~150 CG iterations per step, each one solve with
   the joint factor): the previous solve (forward one column at a time, backward four scalar dot
   products) was ~28% of the run; this one costs 2.04 instead of 2.50 ms per solve there, and
   bench_sparse's solves run 1.2-1.8x faster. */
/* forward substitution through supernode s (x: the permuted right-hand side; w: its rows) */
static void rc__sp_fwd_super(const rc_ldlt *f, int s, double *x, double *w, const rc__sp_solve_ops *k)
{
    int fc = f->super[s], nc = f->super[s + 1] - fc, nr = f->rowp[s + 1] - f->rowp[s], i, j, a, b;
    const int *rows = f->rows + f->rowp[s];
    const double *Ls = f->lx + f->lxp[s];
    for (i = 0; i < nr; ++i) w[i] = x[rows[i]];
    for (j = 0; j < nc; j += 4) {
        int jb = nc - j < 4 ? nc - j : 4;
        const double *c = Ls + (size_t)j * nr;
        for (a = 0; a < jb; ++a)
            for (b = a + 1; b < jb; ++b) w[j + b] -= c[(size_t)a * nr + j + b] * w[j + a];
        if (jb == 4) {
            if (w[j] != 0.0 || w[j + 1] != 0.0 || w[j + 2] != 0.0 || w[j + 3] != 0.0) {
                if (k->lf) k->upd4f(nr - j - 4, k->lf + f->lxp[s] + (size_t)j * nr + j + 4, nr, w + j, w + j + 4);
                else k->upd4(nr - j - 4, c + j + 4, nr, w + j, w + j + 4);
            }
        } else {
            for (a = 0; a < jb; ++a)
                for (i = j + jb; i < nr; ++i) w[i] -= c[(size_t)a * nr + i] * w[j + a];
        }
    }
    for (i = 0; i < nr; ++i) x[rows[i]] = w[i];
}

/* backward substitution through supernode s: its own columns of x from the rows below */
static void rc__sp_bwd_super(const rc_ldlt *f, int s, double *x, double *w, const rc__sp_solve_ops *k)
{
    int nc = f->super[s + 1] - f->super[s], nr = f->rowp[s + 1] - f->rowp[s], i, j, a, b;
    const int *rows = f->rows + f->rowp[s];
    const double *Ls = f->lx + f->lxp[s];
    for (i = 0; i < nr; ++i) w[i] = x[rows[i]];
    for (j = (nc - 1) / 4 * 4; j >= 0; j -= 4) {
        int jb = nc - j < 4 ? nc - j : 4;
        const double *c = Ls + (size_t)j * nr;
        if (jb == 4) {
            if (k->lf) k->dot4f(nr - j - 4, k->lf + f->lxp[s] + (size_t)j * nr + j + 4, nr, w + j + 4, w + j);
            else k->dot4(nr - j - 4, c + j + 4, nr, w + j + 4, w + j);
        } else {
            for (a = 0; a < jb; ++a)
                for (i = j + jb; i < nr; ++i) w[j + a] -= c[(size_t)a * nr + i] * w[i];
        }
        for (a = jb - 1; a >= 0; --a)
            for (b = a + 1; b < jb; ++b) w[j + a] -= c[(size_t)a * nr + j + b] * w[j + b];
    }
    for (i = 0; i < nc; ++i) x[rows[i]] = w[i];
}

/* one pass of group g of the tree split: forward (group 1 on its own vector x1) or backward */
static void rc__sp_solve_group(const rc_ldlt *f, int g, int forward, double *x, double *x1, const rc__sp_solve_ops *k4)
{
    int s, ns = f->nsuper;
    double *w = f->work + (g ? 5 : 3) * (size_t)f->n;
    if (forward) {
        for (s = 0; s < ns; ++s)
            if (f->sgroup[s] == g) rc__sp_fwd_super(f, s, g ? x1 : x, w, k4);
    } else {
        for (s = ns - 1; s >= 0; --s)
            if (f->sgroup[s] == g) rc__sp_bwd_super(f, s, x, w, k4);
    }
}

/* both groups' pass: on two OpenMP threads when f->nthreads > 1, else one after the other */
static void rc__sp_solve_groups(const rc_ldlt *f, int forward, double *x, double *x1, const rc__sp_solve_ops *k4)
{
    int g;
#ifdef _OPENMP
    if (f->nthreads > 1) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
        for (g = 0; g < 2; ++g) rc__sp_solve_group(f, g, forward, x, x1, k4);
        return;
    }
#endif
    for (g = 0; g < 2; ++g) rc__sp_solve_group(f, g, forward, x, x1, k4);
}

/* L D L^T x = b in the factor's order, x overwritten. With a tree split (f->sgroup) the two
   groups run on two OpenMP threads when f->nthreads > 1, one after the other otherwise: the same
   arithmetic, so the same result. */
static void rc__sp_solve_perm(const rc_ldlt *f, const float *lf, double *x)
{
    int s, j, ns = f->nsuper;
    double *w = f->work + 3 * (size_t)f->n, *x1 = f->work + 4 * (size_t)f->n;
    rc__sp_solve_ops k;
    rc__sp_solve_kernels(f, lf, &k);
    if (!f->sgroup) {
        for (s = 0; s < ns; ++s) rc__sp_fwd_super(f, s, x, w, &k);
        for (j = 0; j < f->n; ++j) x[j] /= f->d[j];
        for (s = ns - 1; s >= 0; --s) rc__sp_bwd_super(f, s, x, w, &k);
        return;
    }
    /* group 1 updates the top rows in x1, which starts from zero there */
    memcpy(x1, x, sizeof(double) * (size_t)f->n);
    for (s = 0; s < ns; ++s)
        if (f->sgroup[s] == 2)
            for (j = f->super[s]; j < f->super[s + 1]; ++j) x1[j] = 0.0;
    rc__sp_solve_groups(f, 1, x, x1, &k);
    for (s = 0; s < ns; ++s)
        for (j = f->super[s]; j < f->super[s + 1]; ++j) {
            if (f->sgroup[s] == 2) x[j] += x1[j];
            else if (f->sgroup[s] == 1) x[j] = x1[j];
        }
    for (s = 0; s < ns; ++s)
        if (f->sgroup[s] == 2) rc__sp_fwd_super(f, s, x, w, &k);
    for (j = 0; j < f->n; ++j) x[j] /= f->d[j];
    for (s = ns - 1; s >= 0; --s)
        if (f->sgroup[s] == 2) rc__sp_bwd_super(f, s, x, w, &k);
    rc__sp_solve_groups(f, 0, x, x1, &k);
}

/* b <- (L D L^T)^-1 b through the fill-reducing permutation; lf: NULL, or L's single-precision
   copy (rc__ldlt_solve_single) */
static rc_status rc__ldlt_solve_with(const rc_ldlt *f, const float *lf, double *b)
{
    int k, n = f->n;
    double *x = f->work;
    if (!rc__all_finite(b, (size_t)n)) return RC_ERR_NON_FINITE;
    for (k = 0; k < n; ++k) x[k] = b[f->perm[k]];
    rc__sp_solve_perm(f, lf, x);
    for (k = 0; k < n; ++k) b[f->perm[k]] = x[k];
    return rc__all_finite(b, (size_t)n) ? RC_OK : RC_ERR_NON_FINITE;
}

RCLOTHDEF rc_status rc_ldlt_solve(const rc_ldlt *f, double *b)
{
    if (!f || (!b && f->n > 0)) return RC_ERR_INVALID_ARGUMENT;
    if (!f->valid) return RC_ERR_INVALID_ARGUMENT;
    return rc__ldlt_solve_with(f, NULL, b);
}

/* b <- M^-1 b with M = Lf D Lf^T, Lf the factor's L with the entries its four-column kernels read
   (the rows below each supernode's diagonal 4 x 4 blocks, nearly all of L) rounded to single
   precision; D and the diagonal blocks stay double, and every sum is double. M is an exact
   symmetric positive definite operator close to L D L^T (relative error ~6e-8 per entry of L), so it
   serves as a preconditioner: the r-ITR's conjugate gradients on the joint system with an
   earlier matrix's factor (rc__system_solve_stale), whose triangular solves stream L from memory
   and run nearly twice as fast on half the bytes. The copy is made on first use after each
   factorization; if it cannot be allocated, the double factor serves. */
static rc_status rc__ldlt_solve_single(rc_ldlt *f, double *b)
{
    if (!f || !f->valid) return RC_ERR_INVALID_ARGUMENT;
    if (!f->lxf_valid) {
        size_t q;
        if (!f->lxf) {
            f->lxf = (float *)rc__alloc(f->user, f->nnz_stored > 0 ? f->nnz_stored : 1, sizeof(float));
            f->lxf_cap = f->nnz_stored > 0 ? f->nnz_stored : 1;
        }
        if (!f->lxf) return rc_ldlt_solve(f, b);
        for (q = 0; q < f->nnz_stored; ++q) f->lxf[q] = (float)f->lx[q];
        f->lxf_valid = 1;
    }
    return rc__ldlt_solve_with(f, f->lxf, b);
}

/* y = A x with A given by its upper triangle: each stored a_ij (i < j) acts twice. No checks. */
static void rc__sp_symv(int n, const int *colptr, const int *rowind, const double *values,
                        const double *x, double *y)
{
    int j, p;
    for (j = 0; j < n; ++j) y[j] = 0.0;
    for (j = 0; j < n; ++j) {
        double xj = x[j], t = 0.0;
        for (p = colptr[j]; p < colptr[j + 1]; ++p) {
            int i = rowind[p];
            double a = values[p];
            if (i == j) { t += a * xj; continue; }
            y[i] += a * xj;
            t += a * x[i];
        }
        y[j] += t;
    }
}

RCLOTHDEF rc_status rc_ldlt_solve_refined(const rc_ldlt *f, const double *values, double *b, int iters)
{
    int n, k, it;
    double *x, *r;
    rc_status st;
    if (!f || (!b && f->n > 0) || (!values && f->nnz_a > 0) || iters < 0) return RC_ERR_INVALID_ARGUMENT;
    if (!f->valid) return RC_ERR_INVALID_ARGUMENT;
    n = f->n;
    if (n <= 0 || !b) return RC_OK;   /* (b is NULL only when n = 0): nothing to copy */
    if (!rc__all_finite(b, (size_t)n) || !rc__all_finite(values, (size_t)f->nnz_a)) return RC_ERR_NON_FINITE;
    x = f->work + n;
    r = f->work + 2 * (size_t)n;
    memcpy(x, b, (size_t)n * sizeof(double));
    st = rc_ldlt_solve(f, x);   /* uses work[0..n) */
    if (st != RC_OK) return st;
    for (it = 0; it < iters; ++it) {
        rc__sp_symv(n, f->colptr, f->rowind, values, x, r);
        for (k = 0; k < n; ++k) r[k] = b[k] - r[k];
        st = rc_ldlt_solve(f, r);
        if (st != RC_OK) return st;
        for (k = 0; k < n; ++k) x[k] += r[k];
    }
    memcpy(b, x, (size_t)n * sizeof(double));
    return RC_OK;
}

RCLOTHDEF int rc_ldlt_n(const rc_ldlt *f) { return f ? f->n : 0; }
RCLOTHDEF size_t rc_ldlt_nnz_l(const rc_ldlt *f) { return f ? f->nnz_l : 0; }
RCLOTHDEF void rc_ldlt_inertia(const rc_ldlt *f, int *num_positive, int *num_negative)
{
    if (num_positive) *num_positive = f ? f->npos : 0;
    if (num_negative) *num_negative = f ? f->nneg : 0;
}

/* input checks of the public matrix calls (n > 0): a valid CSC upper pattern, values present */
static rc_status rc__sp_check_matrix(void *user, int n, const int *colptr, const int *rowind, const double *values)
{
    int *mark = (int *)rc__alloc(user, (size_t)n, sizeof(int));
    rc_status st;
    if (!mark) return RC_ERR_OUT_OF_MEMORY;
    st = rc__sp_check_pattern(n, colptr, rowind, mark);
    rc__free(user, mark);
    if (st != RC_OK) return st;
    return colptr[n] > 0 && !values ? RC_ERR_INVALID_ARGUMENT : RC_OK;
}

RCLOTHDEF rc_status rc_sparse_symv(int n, const int *colptr, const int *rowind, const double *values,
                                   const double *x, double *y)
{
    rc_status st;
    if (n < 0 || !colptr || (n > 0 && (!x || !y || x == y))) return RC_ERR_INVALID_ARGUMENT;
    if (n == 0) return RC_OK;
    st = rc__sp_check_matrix(NULL, n, colptr, rowind, values);
    if (st != RC_OK) return st;
    if (!rc__all_finite(values, (size_t)colptr[n]) || !rc__all_finite(x, (size_t)n)) return RC_ERR_NON_FINITE;
    rc__sp_symv(n, colptr, rowind, values, x, y);
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------------
   PCG (Hestenes-Stiefel with preconditioner M = block diagonal of A):
     r = b - A x, z = M^-1 r, p = z;  repeat: alpha = r.z / p.A p, x += alpha p, r -= alpha A p,
     z = M^-1 r, beta = r.z_new / r.z_old, p = z + beta p.
   The recursive residual drifts from b - A x, so the true residual is recomputed every 50
   iterations and at the end (the returned rel_residual is always the true one). */
static rc_status rc__pcg_precond_setup(const int *colptr, const int *rowind, const double *values, double shift,
                                       const int *bp, int nb, double *blk, size_t *boff)
{
    int b, j, p, i;
    for (b = 0; b < nb; ++b) {
        int b0 = bp[b], m = bp[b + 1] - b0;
        double *M = blk + boff[b];
        for (i = 0; i < m * m; ++i) M[i] = 0.0;
        for (j = b0; j < b0 + m; ++j)
            for (p = colptr[j]; p < colptr[j + 1]; ++p) {
                int r = rowind[p];
                if (r >= b0) { M[(r - b0) * m + (j - b0)] = values[p]; M[(j - b0) * m + (r - b0)] = values[p]; }
            }
        for (i = 0; i < m; ++i) M[i * m + i] += shift;
        if (!rc__chol_upper(m, M)) return RC_ERR_NOT_SPD;   /* M = R^T R, R in M's upper triangle */
    }
    return RC_OK;
}

static void rc__pcg_precond_apply(const int *bp, int nb, const double *blk, const size_t *boff,
                                  const double *r, double *z)
{
    int b, i, k;
    for (b = 0; b < nb; ++b) {
        int b0 = bp[b], m = bp[b + 1] - b0;
        const double *M = blk + boff[b];
        double *zz = z + b0;
        for (i = 0; i < m; ++i) {   /* R^T y = r */
            double t = r[b0 + i];
            for (k = 0; k < i; ++k) t -= M[k * m + i] * zz[k];
            zz[i] = t / M[i * m + i];
        }
        for (i = m - 1; i >= 0; --i) {   /* R z = y */
            double t = zz[i];
            for (k = i + 1; k < m; ++k) t -= M[i * m + k] * zz[k];
            zz[i] = t / M[i * m + i];
        }
    }
}

/* The PCG iteration on (A + shift I) x = b (A symmetric, CSC upper), from the x given, with any
   preconditioner z = M^-1 r (precond returns 0 if it cannot apply). work: 5n doubles. Returns
   RC_OK (||b - (A + shift I) x|| <= rel_tol ||b||), RC_ERR_NOT_CONVERGED (max_iter reached),
   RC_ERR_NOT_SPD (a curvature p.(A + shift I)p or r.M^-1 r that is not positive: the matrix or M
   is not positive definite), RC_ERR_NON_FINITE; when not converged x is the best iterate seen.
   *rel_res is the true relative residual of the returned x. Shared by rc_pcg_solve (block
   Jacobi M) and the r-ITR's factor reuse (M = an earlier LDL^T factor, rc__system_solve_stale). */
typedef int (*rc__precond_fn)(void *ctx, const double *r, double *z);

static void rc__sp_symv_shift(int n, const int *colptr, const int *rowind, const double *values, double shift,
                              const double *x, double *y)
{
    int i;
    rc__sp_symv(n, colptr, rowind, values, x, y);
    if (shift != 0.0) for (i = 0; i < n; ++i) y[i] += shift * x[i];
}

/* ||v||_2 without overflow or underflow of the squares (|b| = 1e-170 or 1e300 entries: the plain
   sum of squares made b "zero", or inf) */
static double rc__norm2_scaled(int n, const double *v)
{
    double m = 0.0, s = 0.0;
    int i;
    for (i = 0; i < n; ++i) if (fabs(v[i]) > m) m = fabs(v[i]);
    if (!(m > 0.0) || !rc__isfinite(m)) return m;
    for (i = 0; i < n; ++i) s += (v[i] / m) * (v[i] / m);
    return m * sqrt(s);
}

static rc_status rc__pcg_core(int n, const int *colptr, const int *rowind, const double *values, double shift,
                              rc__precond_fn precond, void *ctx, const double *b, double *x, double rel_tol,
                              int max_iter, double *work, int *iterations, double *rel_residual)
{
    double *r = work, *z = r + n, *pv = z + n, *q = pv + n, *xbest = q + n;
    double bscale, rz = 0.0, best, rnorm;
    int i, it = 0;
    rc_status st = RC_OK;
    if (iterations) *iterations = 0;
    if (rel_residual) *rel_residual = 0.0;
    /* the iteration runs on (A + shift I) (x / |b|) = b / |b|: with |b| = 1e-170 the products
       r.z, p.Ap underflowed to 0 and read as a matrix that is not positive definite */
    bscale = rc__norm2_scaled(n, b);
    if (bscale == 0.0) {
        for (i = 0; i < n; ++i) x[i] = 0.0;
        return RC_OK;
    }
    for (i = 0; i < n; ++i) x[i] /= bscale;
    rc__sp_symv_shift(n, colptr, rowind, values, shift, x, r);
    for (i = 0; i < n; ++i) r[i] = b[i] / bscale - r[i];
    rnorm = rc__norm2_scaled(n, r);
    best = rnorm;
    memcpy(xbest, x, (size_t)n * sizeof(double));
    if (!precond(ctx, r, z)) st = RC_ERR_NOT_SPD;
    else {
        for (i = 0; i < n; ++i) { pv[i] = z[i]; rz += r[i] * z[i]; }
        if (!(rz > 0.0) && rnorm > rel_tol) st = rc__isfinite(rz) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE;
    }
    while (st == RC_OK && rnorm > rel_tol) {
        double pq = 0.0, alpha, rz2 = 0.0, beta;
        if (it >= max_iter) { st = RC_ERR_NOT_CONVERGED; break; }
        rc__sp_symv_shift(n, colptr, rowind, values, shift, pv, q);
        for (i = 0; i < n; ++i) pq += pv[i] * q[i];
        if (!(pq > 0.0)) { st = rc__isfinite(pq) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE; break; }
        alpha = rz / pq;
        ++it;
        for (i = 0; i < n; ++i) { x[i] += alpha * pv[i]; r[i] -= alpha * q[i]; }
        if (it % 50 == 0) {   /* replace the recursive residual by the true one */
            rc__sp_symv_shift(n, colptr, rowind, values, shift, x, q);
            for (i = 0; i < n; ++i) r[i] = b[i] / bscale - q[i];
        }
        rnorm = rc__norm2_scaled(n, r);
        if (rnorm < best) { best = rnorm; memcpy(xbest, x, (size_t)n * sizeof(double)); }
        if (rnorm <= rel_tol) break;
        if (!precond(ctx, r, z)) { st = RC_ERR_NOT_SPD; break; }
        for (i = 0; i < n; ++i) rz2 += r[i] * z[i];
        if (!(rz2 > 0.0)) { st = rc__isfinite(rz2) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE; break; }
        beta = rz2 / rz;
        rz = rz2;
        for (i = 0; i < n; ++i) pv[i] = z[i] + beta * pv[i];
    }
    /* report the true residual of the returned x (the best one seen when not converged) */
    if (st != RC_OK) memcpy(x, xbest, (size_t)n * sizeof(double));
    rc__sp_symv_shift(n, colptr, rowind, values, shift, x, q);
    for (i = 0; i < n; ++i) q[i] = b[i] / bscale - q[i];
    rnorm = rc__norm2_scaled(n, q);
    if (st == RC_OK && rnorm > rel_tol) {
        /* the recursion claimed convergence the true residual does not confirm: the better of x
           and the best iterate, with its true residual, and not converged (earlier versions
           returned RC_OK with the recursive residual: true residuals 2-200x the tolerance) */
        double rb;
        rc__sp_symv_shift(n, colptr, rowind, values, shift, xbest, q);
        for (i = 0; i < n; ++i) q[i] = b[i] / bscale - q[i];
        rb = rc__norm2_scaled(n, q);
        if (rb < rnorm) { memcpy(x, xbest, (size_t)n * sizeof(double)); rnorm = rb; }
        if (rnorm > rel_tol) st = RC_ERR_NOT_CONVERGED;
    }
    for (i = 0; i < n; ++i) x[i] *= bscale;
    if (iterations) *iterations = it;
    if (rel_residual) *rel_residual = rnorm;
    if (st == RC_OK && !rc__all_finite(x, (size_t)n)) st = RC_ERR_NON_FINITE;
    return st;
}

typedef struct rc__pcg_jacobi {
    const int *bp;
    int nb;
    const double *blk;
    const size_t *boff;
} rc__pcg_jacobi;

static int rc__pcg_jacobi_apply(void *ctx, const double *r, double *z)
{
    const rc__pcg_jacobi *j = (const rc__pcg_jacobi *)ctx;
    rc__pcg_precond_apply(j->bp, j->nb, j->blk, j->boff, r, z);
    return 1;
}

/* (A + shift I) x = b; rc_pcg_solve is shift 0 */
static rc_status rc__pcg_solve(void *user, int n, const int *colptr, const int *rowind, const double *values, double shift,
                                           const int *block_ptr, int num_blocks, const double *b, double *x,
                                           double rel_tol, int max_iter, int *iterations, double *rel_residual)
{
    int *bp = NULL, nb, i;
    size_t *boff = NULL, total = 0;
    double *blk = NULL, *work = NULL;
    rc__pcg_jacobi jac;
    rc_status st;
    if (iterations) *iterations = 0;
    if (rel_residual) *rel_residual = 0.0;
    if (n < 0 || !colptr || max_iter < 0 || !(rel_tol >= 0.0) || (n > 0 && (!b || !x))) return RC_ERR_INVALID_ARGUMENT;
    if (n == 0) return RC_OK;
    st = rc__sp_check_matrix(user, n, colptr, rowind, values);
    if (st != RC_OK) return st;
    if (block_ptr) {
        if (num_blocks < 1 || block_ptr[0] != 0 || block_ptr[num_blocks] != n) return RC_ERR_INVALID_ARGUMENT;
        for (i = 0; i < num_blocks; ++i) {
            int m = block_ptr[i + 1] - block_ptr[i];
            if (m < 1 || m > 64) return RC_ERR_INVALID_ARGUMENT;
        }
    }
    if (!rc__all_finite(values, (size_t)colptr[n]) || !rc__all_finite(b, (size_t)n) || !rc__all_finite(x, (size_t)n))
        return RC_ERR_NON_FINITE;
    nb = block_ptr ? num_blocks : n;
    st = RC_ERR_OUT_OF_MEMORY;
    bp = (int *)rc__alloc(user, (size_t)nb + 1, sizeof(int));
    boff = (size_t *)rc__alloc(user, (size_t)nb + 1, sizeof(size_t));
    if (!bp || !boff) goto done;
    for (i = 0; i <= nb; ++i) bp[i] = block_ptr ? block_ptr[i] : i;
    for (i = 0; i < nb; ++i) {
        boff[i] = total;
        total += (size_t)(bp[i + 1] - bp[i]) * (size_t)(bp[i + 1] - bp[i]);
    }
    blk = (double *)rc__alloc(user, total, sizeof(double));
    work = (double *)rc__alloc(user, 6 * (size_t)n, sizeof(double));   /* CG's 5 vectors + the initial guess */
    if (!blk || !work) goto done;
    st = rc__pcg_precond_setup(colptr, rowind, values, shift, bp, nb, blk, boff);
    if (st != RC_OK) goto done;
    jac.bp = bp; jac.nb = nb; jac.blk = blk; jac.boff = boff;
    memcpy(work + 5 * (size_t)n, x, (size_t)n * sizeof(double));
    st = rc__pcg_core(n, colptr, rowind, values, shift, rc__pcg_jacobi_apply, &jac, b, x, rel_tol, max_iter, work, iterations, rel_residual);
    /* a breakdown (p^T A p <= 0: A is not SPD) gives the caller's guess back, as every other error
       does; only RC_ERR_NOT_CONVERGED returns an iterate */
    if (st != RC_OK && st != RC_ERR_NOT_CONVERGED) memcpy(x, work + 5 * (size_t)n, (size_t)n * sizeof(double));
done:
    rc__free(user, bp); rc__free(user, boff); rc__free(user, blk); rc__free(user, work);
    return st;
}

RCLOTHDEF rc_status rc_pcg_solve(int n, const int *colptr, const int *rowind, const double *values,
                                 const int *block_ptr, int num_blocks, const double *b, double *x,
                                 double rel_tol, int max_iter, int *iterations, double *rel_residual)
{
    return rc__pcg_solve(NULL, n, colptr, rowind, values, 0.0, block_ptr, num_blocks, b, x, rel_tol, max_iter, iterations, rel_residual);
}

#ifdef __cplusplus
}
#endif

/* ==========================================================================
   IMPLEMENTATION: MESH
   ========================================================================== */
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- private topology ------------------------------------------------------------------
   Built once per connectivity (connectivity never changes in rcloth) and indexed in hot loops.
   Half-edge h = 3t + k is local edge k of triangle t, opposite local vertex k, running
   tris[3t+(k+1)%3] -> tris[3t+(k+2)%3]. Edge numbering = rc_trimesh_num_edges numbering. */
enum { RC__VK_INTERIOR = 0, RC__VK_CORNER = 1, RC__VK_SLIDING = 2 };

typedef struct rc__topo {
    int nv, nt, ne;
    int *tri_edge;   /* 3*nt: global edge of local edge k of triangle t (opposite vertex k) */
    int *edge_v;     /* 2*ne: the two vertices, lower index first */
    int *edge_tri;   /* 2*ne: adjacent triangles; [0] is the first in scan order, [1] = -1 on the boundary */
    int *edge_k;     /* 2*ne: local index of the edge in edge_tri[0] / edge_tri[1] (-1 if none) */
    int *tri_nbr;    /* 3*nt: triangle across local edge k, -1 on the boundary */
    int *tri_flap;   /* 3*nt: vertex of tri_nbr opposite the shared edge, -1 on the boundary */
    int *vt_ptr, *vt_idx;   /* vertex -> incident triangles (CSR, ascending) */
    int *vv_ptr, *vv_idx;   /* vertex -> neighbour vertices (CSR, ascending) */
    int *vv_edge;           /* aligned with vv_idx: the edge joining v and vv_idx[j] */
    int *bnd_prev, *bnd_next; /* nv: boundary neighbours (prev -> v -> next, the domain on the
                                 left) for manifold boundary vertices, -1 otherwise */
    unsigned char *vkind;   /* RC__VK_INTERIOR / RC__VK_CORNER / RC__VK_SLIDING */
    double *slide_dir;      /* 2*nv: unit tangent (bnd_next - bnd_prev direction) of sliding vertices, 0 otherwise */
} rc__topo;

/* Straightness tolerance for sliding vertices: boundary vertex v, between its boundary neighbours
   p and n, lies on a straight side when its distance from the line p-n, |(v-p) x (n-v)| / |n-p|,
   is at most RC__MESH_STRAIGHT_TOL times the reference domain's size (its bounding box's
   diagonal) and the boundary goes straight on ((v-p).(n-v) > 0). 1e-5 of the size is above the
   rounding of coordinates written with 6 decimals or 6 significant digits (OBJ files: +-5e-7 m on
   a 1 m pattern, a distance off by up to ~1.4e-6 m; 6 significant digits, up to ~1.4e-5 m at
   coordinates of 1-10 m), at any edge length. A curved boundary looks straight only where a vertex
   sits within that distance of its neighbours' chord: a circle with more than ~1,400 boundary
   vertices; a vertex there slides along its chord and leaves the curve by about 1e-5 of the size.
   History: a relative tolerance on the turning angle's sine, 1e-9 until session 58 (a square's
   sides turned by 30 degrees and written with 6 decimals froze in u without a word: 32 of 44 side
   vertices at 8.3 cm edges, all 40 at 9.1 cm), then 1e-4, which a review found too tight at small
   edges (the turn from rounding grows as 1 / edge: 58 of 396 side vertices still froze at 1 cm,
   971 of 1,596 at 2.5 mm). Test: test_mesh_rounded_sides_slide. */
#define RC__MESH_STRAIGHT_TOL 1e-5

static void rc__topo_free(rc__topo *t, void *user)
{
    if (!t) return;
    rc__free(user, t->tri_edge); rc__free(user, t->edge_v); rc__free(user, t->edge_tri);
    rc__free(user, t->edge_k); rc__free(user, t->tri_nbr); rc__free(user, t->tri_flap);
    rc__free(user, t->vt_ptr); rc__free(user, t->vt_idx);
    rc__free(user, t->vv_ptr); rc__free(user, t->vv_idx); rc__free(user, t->vv_edge);
    rc__free(user, t->bnd_prev);
    rc__free(user, t->bnd_next); rc__free(user, t->vkind); rc__free(user, t->slide_dir);
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

RCLOTHDEF int rc_trimesh_num_edges(const rc_trimesh *m)
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

/* the bounding box of n points uv (2 n coordinates, n >= 1) */
static void rc__uv_bbox(int n, const double *uv, double lo[2], double hi[2])
{
    int i, d;
    lo[0] = hi[0] = uv[0]; lo[1] = hi[1] = uv[1];
    for (i = 1; i < n; ++i)
        for (d = 0; d < 2; ++d) {
            if (uv[2 * i + d] < lo[d]) lo[d] = uv[2 * i + d];
            if (uv[2 * i + d] > hi[d]) hi[d] = uv[2 * i + d];
        }
}

/* Builds the topology of a triangle list. ref_uv may be NULL (e.g. an obstacle mesh): then
   every boundary vertex is a corner. Errors: RC_ERR_INVALID_ARGUMENT
   (NULL, nv < 1, nt < 1), RC_ERR_MESH_INDEX, RC_ERR_NON_FINITE (ref_uv), RC_ERR_MESH_NON_MANIFOLD
   (an edge in > 2 triangles or traversed twice in the same direction), RC_ERR_OUT_OF_MEMORY.
   Orientation and degeneracy are not checked here (rc_mesh_validate does). On error *t is zeroed. */
static rc_status rc__topo_build(rc__topo *t, void *user, int nv, int nt, const int *tris,
                                const double *ref_uv)
{
    rc_status st = RC_OK;
    int i, e, v, n3, *tmp = NULL, *stack = NULL, *mark = NULL, *nbout = NULL;
    double size = 0.0;   /* the reference domain's bounding-box diagonal (RC__MESH_STRAIGHT_TOL) */
    if (!t) return RC_ERR_INVALID_ARGUMENT;
    memset(t, 0, sizeof(*t));
    if (!tris || nv < 1 || nt < 1 || nt > 0x7fffffff / 3) return RC_ERR_INVALID_ARGUMENT;
    if (rc__mesh_bad_index(nv, nt, tris) >= 0) return RC_ERR_MESH_INDEX;
    if (ref_uv && !rc__all_finite(ref_uv, (size_t)2 * (size_t)nv)) return RC_ERR_NON_FINITE;
    n3 = 3 * nt;
    t->nv = nv; t->nt = nt;
    t->tri_edge = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    if (!t->tri_edge) { st = RC_ERR_OUT_OF_MEMORY; goto fail; }
    st = rc__mesh_number_edges(user, nt, tris, t->tri_edge, &t->ne);
    if (st != RC_OK) goto fail;
    t->edge_v = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->edge_tri = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->edge_k = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->tri_nbr = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->tri_flap = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->vt_ptr = (int *)rc__calloc(user, (size_t)nv + 1, sizeof(int));
    t->vt_idx = (int *)rc__alloc(user, (size_t)n3, sizeof(int));
    t->vv_ptr = (int *)rc__calloc(user, (size_t)nv + 1, sizeof(int));
    t->vv_idx = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->vv_edge = (int *)rc__alloc(user, (size_t)2 * (size_t)t->ne, sizeof(int));
    t->bnd_prev = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    t->bnd_next = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    t->vkind = (unsigned char *)rc__calloc(user, (size_t)nv, 1);
    t->slide_dir = (double *)rc__calloc(user, (size_t)2 * (size_t)nv, sizeof(double));
    tmp = (int *)rc__alloc(user, (size_t)nv + 1, sizeof(int));
    mark = (int *)rc__alloc(user, (size_t)nt, sizeof(int));
    stack = (int *)rc__alloc(user, (size_t)nt, sizeof(int));
    if (!t->edge_v || !t->edge_tri || !t->edge_k || !t->tri_nbr || !t->tri_flap ||
        !t->vt_ptr || !t->vt_idx || !t->vv_ptr || !t->vv_idx || !t->vv_edge || !t->bnd_prev ||
        !t->bnd_next || !t->vkind || !t->slide_dir || !tmp || !mark || !stack) {
        st = RC_ERR_OUT_OF_MEMORY;
        goto fail;
    }

    /* edges: endpoints, adjacent triangles, manifoldness and consistent winding */
    for (e = 0; e < 2 * t->ne; ++e) t->edge_tri[e] = t->edge_k[e] = -1;
    for (i = 0; i < n3; ++i) {
        int tr = i / 3, k = i % 3, p = tris[3 * tr + (k + 1) % 3], q = tris[3 * tr + (k + 2) % 3];
        e = t->tri_edge[i];
        t->tri_nbr[i] = t->tri_flap[i] = -1;
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
        if (t1 < 0) continue;
        t->tri_nbr[3 * t0 + k0] = t1; t->tri_flap[3 * t0 + k0] = tris[3 * t1 + k1];
        t->tri_nbr[3 * t1 + k1] = t0; t->tri_flap[3 * t1 + k1] = tris[3 * t0 + k0];
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

    /* boundary half-edges (each runs with the domain on its left) counted by origin vertex; a
       vertex with exactly one outgoing (and so one incoming) boundary half-edge gets its
       boundary neighbours */
    nbout = (int *)rc__calloc(user, (size_t)nv, sizeof(int));
    if (!nbout) { st = RC_ERR_OUT_OF_MEMORY; goto fail; }
    for (v = 0; v < nv; ++v) t->bnd_prev[v] = t->bnd_next[v] = -1;
    for (e = 0; e < t->ne; ++e)
        if (t->edge_tri[2 * e + 1] < 0) {
            int h = 3 * t->edge_tri[2 * e] + t->edge_k[2 * e];
            nbout[tris[3 * (h / 3) + (h % 3 + 1) % 3]]++;
        }
    for (e = 0; e < t->ne; ++e)
        if (t->edge_tri[2 * e + 1] < 0) {
            int h = 3 * t->edge_tri[2 * e] + t->edge_k[2 * e];
            int o = tris[3 * (h / 3) + (h % 3 + 1) % 3], d = tris[3 * (h / 3) + (h % 3 + 2) % 3];
            /* (each vertex has as many incoming boundary half-edges as outgoing ones) */
            if (nbout[o] == 1) t->bnd_next[o] = d;
            if (nbout[d] == 1) t->bnd_prev[d] = o;
        }

    /* classification: a vertex is interior when it has no boundary edge and its incident
       triangles form one fan (connected across edges through the vertex); boundary vertices with
       exactly one fan and one outgoing boundary edge may slide if straight; everything else
       (bow-ties, several loops, isolated vertices) is a corner. */
    if (ref_uv) {
        double lo[2], hi[2];
        rc__uv_bbox(nv, ref_uv, lo, hi);
        size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]));
    }
    for (i = 0; i < nt; ++i) mark[i] = -1;
    for (v = 0; v < nv; ++v) {
        int j, fans = 0, nbo = nbout[v];
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
            double lpn = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]));
            if (dt > 0.0 && fabs(cr) <= RC__MESH_STRAIGHT_TOL * size * lpn) {
                double tx = q[0] - p[0], ty = q[1] - p[1], l = sqrt(tx * tx + ty * ty);
                t->vkind[v] = RC__VK_SLIDING;
                t->slide_dir[2 * v] = tx / l;
                t->slide_dir[2 * v + 1] = ty / l;
            }
        }
    }
    rc__free(user, tmp); rc__free(user, mark); rc__free(user, stack);
    rc__free(user, nbout);
    return RC_OK;
fail:
    rc__free(user, tmp); rc__free(user, mark); rc__free(user, stack);
    rc__free(user, nbout);
    rc__topo_free(t, user);
    return st;
}


/* ---- validation -------------------------------------------------------------------------- */

/* union-find: the root of i's set (path halving) */
static int rc__uf_find(int *parent, int i)
{
    while (parent[i] != i) { parent[i] = parent[parent[i]]; i = parent[i]; }
    return i;
}
/* union-find: joins the sets of a and b under the smaller root, which it returns (so every link
   points to a smaller index) */
static int rc__uf_union(int *parent, int a, int b)
{
    a = rc__uf_find(parent, a);
    b = rc__uf_find(parent, b);
    if (a < b) { parent[b] = a; return a; }
    parent[a] = b;
    return b;
}

static void rc__mesh_msg(char *msg, int msg_len, const char *what, int tri)
{
    if (!msg || msg_len <= 0) return;
    if (tri >= 0) snprintf(msg, (size_t)msg_len, "triangle %d: %s", tri, what);
    else snprintf(msg, (size_t)msg_len, "%s", what);
}

static rc_status rc__mesh_validate(void *user, int nv, int nt, const double *ref_uv, const int *tris, int *flipped,
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
    rc__uv_bbox(nv, ref_uv, lo, hi);
    box = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    if (!rc__isfinite(box)) {   /* finite uv whose extent overflows (1e300): every area test below would fail as "zero" */
        rc__mesh_msg(msg, msg_len, "the reference domain is too large: its bounding box's area overflows a double (rescale the uv)", -1);
        return RC_ERR_NON_FINITE;
    }
    for (t = 0; t < nt; ++t) {
        /* signed area A = det[b-a, c-a]/2; degenerate when |A| <= 1e-12 * bbox area, a scale-free
           threshold well below any usable element and well above round-off of the determinant */
        double A = 0.5 * rc__mesh_orient2(ref_uv + 2 * tris[3 * t], ref_uv + 2 * tris[3 * t + 1], ref_uv + 2 * tris[3 * t + 2]);
        if (!(fabs(A) > 1e-12 * box)) {
            rc__mesh_msg(msg, msg_len, "degenerate (zero-area) reference triangle", t);
            return RC_ERR_MESH_DEGENERATE;
        }
        {
            /* a sliver: height below 1e-4 of its longest edge (2|A| < 1e-4 l_max^2). Its stretch
               stiffness is ~1e8 times its neighbours' or more, and its geometric stiffness under
               rounding-level strain makes the Hessian indefinite by far more than the inertia: a
               13 x 13 sheet with one interior vertex 1e-8 m from the opposite edge of its cell
               (4e-7 of that edge) passed this check and fell at a constant speed under gravity,
               every step reported converged; at 3e-5 adaptive steps drifted 20% from free fall
               within 20 steps; from 8.5e-5 up both modes fall as they should */
            const double *a = ref_uv + 2 * tris[3 * t], *b = ref_uv + 2 * tris[3 * t + 1], *c = ref_uv + 2 * tris[3 * t + 2];
            double l0 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]);
            double l1 = (c[0] - b[0]) * (c[0] - b[0]) + (c[1] - b[1]) * (c[1] - b[1]);
            double l2 = (a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]);
            if (!(2.0 * fabs(A) >= 1e-4 * fmax(l0, fmax(l1, l2)))) {
                rc__mesh_msg(msg, msg_len, "sliver reference triangle (height below 1e-4 of its longest edge): remesh", t);
                return RC_ERR_MESH_DEGENERATE;
            }
        }
        if (A > 0.0) ++npos; else ++nneg;
    }
    if (npos > 0 && nneg > 0) {
        /* both orientations: fine piece by piece (a panel mirrored in uv, as garment patterns'
           left and right pieces often are, comes out clockwise), not within a connected piece.
           Pieces: union-find over the triangles' vertices; sign[r] the orientation (+-1) of the
           first triangle of root r, 0 before it */
        int *root = (int *)rc__alloc(user, (size_t)nv, sizeof(int)), *sign = (int *)rc__calloc(user, (size_t)nv, sizeof(int)), v;
        if (!root || !sign) {
            rc__free(user, root); rc__free(user, sign);
            rc__mesh_msg(msg, msg_len, rc_status_string(RC_ERR_OUT_OF_MEMORY), -1);
            return RC_ERR_OUT_OF_MEMORY;
        }
        for (v = 0; v < nv; ++v) root[v] = v;
        for (t = 0; t < nt; ++t) { rc__uf_union(root, tris[3 * t], tris[3 * t + 1]); rc__uf_union(root, tris[3 * t], tris[3 * t + 2]); }
        for (t = 0; t < nt && first_diff < 0; ++t) {
            int r = rc__uf_find(root, tris[3 * t]);
            int sg = rc__mesh_orient2(ref_uv + 2 * tris[3 * t], ref_uv + 2 * tris[3 * t + 1], ref_uv + 2 * tris[3 * t + 2]) > 0.0 ? 1 : -1;
            if (sign[r] == 0) sign[r] = sg;
            else if (sign[r] != sg) first_diff = t;
        }
        rc__free(user, root); rc__free(user, sign);
        if (first_diff >= 0) {
            rc__mesh_msg(msg, msg_len, "orientation differs from the first triangle of its connected piece (mixed orientation)", first_diff);
            return RC_ERR_MESH_ORIENTATION;
        }
        if (!flipped) {
            for (t = 0; t < nt; ++t)
                if (rc__mesh_orient2(ref_uv + 2 * tris[3 * t], ref_uv + 2 * tris[3 * t + 1], ref_uv + 2 * tris[3 * t + 2]) < 0.0) break;
            rc__mesh_msg(msg, msg_len, "its piece is clockwise in uv, others counter-clockwise (a mirrored panel; pass flipped to "
                         "accept and flip its triangles)", t);
            return RC_ERR_MESH_ORIENTATION;
        }
    }
    if (nneg > 0 && !flipped) {
        rc__mesh_msg(msg, msg_len, "all triangles clockwise (pass flipped to accept and flip them)", 0);
        return RC_ERR_MESH_ORIENTATION;
    }
    st = rc__topo_build(&topo, user, nv, nt, tris, NULL);
    if (st == RC_ERR_MESH_NON_MANIFOLD) {
        /* find the first triangle that makes an edge non-manifold, for the message */
        int *te = (int *)rc__alloc(user, (size_t)3 * (size_t)nt, sizeof(int)), ne = 0;
        int *cnt = NULL, *orig = NULL, h;
        if (te && rc__mesh_number_edges(user, nt, tris, te, &ne) == RC_OK) {
            cnt = (int *)rc__calloc(user, (size_t)ne, sizeof(int));
            orig = (int *)rc__alloc(user, (size_t)ne, sizeof(int));
            if (cnt && orig)
                for (h = 0; h < 3 * nt; ++h) {
                    int e = te[h], o = tris[3 * (h / 3) + (h % 3 + 1) % 3];
                    if (cnt[e] == 0) orig[e] = o;
                    else if (cnt[e] >= 2) { rc__mesh_msg(msg, msg_len, "edge shared by more than two triangles", h / 3); break; }
                    else if (orig[e] == o) { rc__mesh_msg(msg, msg_len, "shared edge wound the same way as its neighbour (inconsistent winding)", h / 3); break; }
                    cnt[e]++;
                }
        }
        rc__free(user, te); rc__free(user, cnt); rc__free(user, orig);
        return st;
    }
    if (st != RC_OK) {
        rc__mesh_msg(msg, msg_len, rc_status_string(st), -1);
        return st;
    }
    rc__topo_free(&topo, user);
    if (nneg > 0) {
        *flipped = 1;
        rc__mesh_msg(msg, msg_len, npos > 0 ? "clockwise pieces (mirrored panels): flip their triangles" : "all triangles clockwise: flip them", -1);
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_mesh_validate(int nv, int nt, const double *ref_uv, const int *tris, int *flipped,
                                     char *msg, int msg_len)
{
    return rc__mesh_validate(NULL, nv, nt, ref_uv, tris, flipped, msg, msg_len);
}

/* ---- owning meshes and generators --------------------------------------------------------- */

RCLOTHDEF void rc_mesh_free(rc_mesh *m)
{
    if (!m) return;
    rc__free(NULL, m->ref_uv);
    rc__free(NULL, m->pos);
    rc__free(NULL, m->tris);
    memset(m, 0, sizeof(*m));
}

RCLOTHDEF rc_status rc_mesh_remove_unreferenced(rc_mesh *m, int *removed)
{
    return rc_mesh_remove_unreferenced_map(m, NULL, removed);
}

RCLOTHDEF rc_status rc_mesh_remove_unreferenced_map(rc_mesh *m, rc_obj_map *om, int *removed)
{
    int *map, i, k = 0;
    if (removed) *removed = 0;
    if (!m || m->num_verts < 0 || m->num_tris < 0 || (m->num_verts > 0 && !m->ref_uv) || (m->num_tris > 0 && !m->tris))
        return RC_ERR_INVALID_ARGUMENT;
    if (om && (om->num_verts != m->num_verts || om->num_tris != m->num_tris || (m->num_verts > 0 && !om->vertex_source) ||
               (m->num_tris > 0 && (!om->tri_line || !om->tri_face))))
        return RC_ERR_INVALID_ARGUMENT;
    for (i = 0; i < 3 * m->num_tris; ++i)
        if (m->tris[i] < 0 || m->tris[i] >= m->num_verts) return RC_ERR_MESH_INDEX;
    map = (int *)rc__alloc(NULL, (size_t)m->num_verts + 1, sizeof(int));
    if (!map) return RC_ERR_OUT_OF_MEMORY;
    for (i = 0; i < m->num_verts; ++i) map[i] = -1;
    for (i = 0; i < 3 * m->num_tris; ++i) map[m->tris[i]] = 0;
    for (i = 0; i < m->num_verts; ++i) {
        if (map[i] < 0) continue;
        map[i] = k;
        if (k != i) {
            m->ref_uv[2 * k] = m->ref_uv[2 * i]; m->ref_uv[2 * k + 1] = m->ref_uv[2 * i + 1];
            if (m->pos) { m->pos[3 * k] = m->pos[3 * i]; m->pos[3 * k + 1] = m->pos[3 * i + 1]; m->pos[3 * k + 2] = m->pos[3 * i + 2]; }
            if (om) om->vertex_source[k] = om->vertex_source[i];
        }
        ++k;
    }
    for (i = 0; i < 3 * m->num_tris; ++i) m->tris[i] = map[m->tris[i]];
    if (removed) *removed = m->num_verts - k;
    m->num_verts = k;
    if (om) om->num_verts = k;
    rc__free(NULL, map);
    return RC_OK;
}

RCLOTHDEF rc_mesh_desc rc_mesh_describe(const rc_mesh *m)
{
    rc_mesh_desc d;
    memset(&d, 0, sizeof d);
    if (!m) return d;
    d.num_verts = m->num_verts;
    d.num_tris = m->num_tris;
    d.ref_uv = m->ref_uv;
    d.pos = m->pos;
    d.tris = m->tris;
    return d;
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

/* a generated mesh passes rc_mesh_validate, or is freed and the reason returned (extreme sizes:
   a grid 1e-300 wide underflows its areas, a thin coarse annulus has slivers) */
static rc_status rc__mesh_generated_ok(rc_mesh *out)
{
    rc_status st = rc_mesh_validate(out->num_verts, out->num_tris, out->ref_uv, out->tris, NULL, NULL, 0);
    if (st != RC_OK) rc_mesh_free(out);   /* zeroes *out */
    return st;
}

RCLOTHDEF rc_status rc_mesh_grid(rc_mesh *out, double width, double height, int nx, int ny, int diagonals)
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
    return rc__mesh_generated_ok(out);
}

RCLOTHDEF rc_status rc_mesh_square(rc_mesh *out, double size, int target_verts, unsigned seed)
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
    return rc__mesh_generated_ok(out);
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

RCLOTHDEF rc_status rc_mesh_disk(rc_mesh *out, double radius, int target_verts)
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
    return rc__mesh_generated_ok(out);
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
        double c = rp / r * (1.0 + 1e-9);
        double nmin = c < 1.0 ? floor(pi / acos(c)) + 1.0 : 2e8;   /* rings closer than 1e-9 r: too many (acos(>1) was NaN, the guard skipped) */
        if (n < nmin) n = nmin;
    }
    return n > 1e8 ? 100000000 : (int)n;
}

RCLOTHDEF rc_status rc_mesh_annulus(rc_mesh *out, double r_inner, double r_outer, int target_verts, int slit)
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
    return rc__mesh_generated_ok(out);
}

/* ---- OBJ ------------------------------------------------------------------------------------ */

/* the writer with the allocator's user pointer (a sim's writes pass theirs) */
static rc_status rc__mesh_write_obj_user(void *user, const char *path, int nv, const double *pos, const double *ref_uv,
                                         int nt, const int *tris)
{
    FILE *f;
    int v, t, ok;
    size_t len;
    char *tmp;
    if (!path || !pos || !tris || nv < 1 || nt < 1) return RC_ERR_INVALID_ARGUMENT;
    if (rc__mesh_bad_index(nv, nt, tris) >= 0) return RC_ERR_MESH_INDEX;
    if (!rc__all_finite(pos, (size_t)3 * (size_t)nv) || (ref_uv && !rc__all_finite(ref_uv, (size_t)2 * (size_t)nv)))
        return RC_ERR_NON_FINITE;
    /* written to path.tmp and renamed over path only when complete: a failed write (disk full)
       leaves an existing file as it was */
    len = strlen(path);
    tmp = (char *)rc__alloc(user, len + 5, 1);
    if (!tmp) return RC_ERR_OUT_OF_MEMORY;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (!f) { rc__free(user, tmp); return RC_ERR_IO; }
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
    if (ok && rename(tmp, path) != 0) {
#ifdef _WIN32
        /* Windows' rename does not replace an existing file: remove it first */
        remove(path);
        ok = rename(tmp, path) == 0;
#else
        ok = 0;   /* POSIX rename replaces atomically; a failure (path is a directory, ...) is an error */
#endif
    }
    if (!ok) remove(tmp);
    rc__free(user, tmp);
    return ok ? RC_OK : RC_ERR_IO;
}

RCLOTHDEF rc_status rc_mesh_write_obj(const char *path, int nv, const double *pos, const double *ref_uv,
                                      int nt, const int *tris)
{
    return rc__mesh_write_obj_user(NULL, path, nv, pos, ref_uv, nt, tris);
}

/* growable arrays for the reader */
typedef struct rc__mesh_objbuf {
    double *v, *vt;
    int nv, cv, nvt, cvt;
    int *cv_idx, *cvt_idx, nc, cc;   /* face corners: v and vt (-1 if none), 0-based */
    int *fsize, nf, cf;              /* corners per face */
    int *fline, cfl;                 /* each face's line (for messages) */
    int err_line;                    /* on RC_ERR_PARSE: the 1-based line, 0 if the file as a whole */
    const char *err_what;            /* ... and what was wrong there */
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
        if (e < end && !(*e == ' ' || *e == '\t' || *e == '\r' || *e == '#')) return -1;   /* "1.5#c": a comment */
        /* except the old Microsoft C runtime's spellings of non-finite values, "1.#INF00",
           "-1.#IND00", "1.#QNAN0", "1.#SNAN": read, they would be the numbers 1 and -1 */
        if (e + 4 <= end && e[-1] == '.' && e[0] == '#' &&
            (!strncmp(e + 1, "INF", 3) || !strncmp(e + 1, "IND", 3) ||
             (e + 5 <= end && (!strncmp(e + 1, "QNAN", 4) || !strncmp(e + 1, "SNAN", 4))))) {
            x = HUGE_VAL;   /* the callers refuse it as inf or nan */
            while (e < end && !(*e == ' ' || *e == '\t' || *e == '\r')) ++e;   /* the rest of the token */
        }
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
    int line = 0;
    /* a UTF-8 byte-order mark (editors on Windows write one) is not part of the first keyword:
       kept, it hid a first 'v' line, and every face index then named the vertex after its own */
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF) p += 3;
#define RC__OBJ_FAIL(st, what) do { B->err_line = line; B->err_what = (what); return (st); } while (0)
    while (p < end) {
        const char *le = (const char *)memchr(p, '\n', (size_t)(end - p)), *s = p, *kw;
        size_t kl;
        ++line;
        if (!le) le = end;
        p = le + 1;
        while (s < le && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
        if (s >= le || *s == '#') continue;
        kw = s;
        while (s < le && !(*s == ' ' || *s == '\t' || *s == '\r')) ++s;
        kl = (size_t)(s - kw);
        if (kl == 1 && kw[0] == 'v') {
            double x[3];
            if (rc__mesh_parse_nums(&s, le, x, 3) < 3) RC__OBJ_FAIL(RC_ERR_PARSE, "a 'v' line needs three numbers");
            if (!rc__all_finite(x, 3)) RC__OBJ_FAIL(RC_ERR_NON_FINITE, "a 'v' coordinate is inf or nan");
            RC__MESH_GROW(B->v, double, &B->cv, 3 * (B->nv + 1));
            memcpy(B->v + 3 * B->nv, x, sizeof(x));
            B->nv++;
        } else if (kl == 2 && kw[0] == 'v' && kw[1] == 't') {
            double x[3];
            if (rc__mesh_parse_nums(&s, le, x, 3) < 2) RC__OBJ_FAIL(RC_ERR_PARSE, "a 'vt' line needs two numbers");
            if (!rc__all_finite(x, 2)) RC__OBJ_FAIL(RC_ERR_NON_FINITE, "a 'vt' coordinate is inf or nan");
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
                if (vi < 0) RC__OBJ_FAIL(RC_ERR_PARSE, "a face corner's vertex index is missing, malformed, 0 or out of range");
                if (s < le && *s == '/') {
                    ++s;
                    ti = rc__mesh_parse_index(&s, le, B->nvt, &pr);
                    if (ti == -2) RC__OBJ_FAIL(RC_ERR_PARSE, "a face corner's texture index is malformed, 0 or out of range");
                    if (s < le && *s == '/') {   /* normal index: parsed for syntax, unused */
                        int ni;
                        ++s;
                        ni = rc__mesh_parse_index(&s, le, 0x7fffffff, &pr);
                        if (ni == -2 || !pr) RC__OBJ_FAIL(RC_ERR_PARSE, "a face corner's normal index is malformed");
                    } else if (!pr) RC__OBJ_FAIL(RC_ERR_PARSE, "a face corner 'v/' has nothing after its '/'");
                }
                if (s < le && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '#')) RC__OBJ_FAIL(RC_ERR_PARSE, "a face corner is followed by garbage");
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
            if (n < 3) RC__OBJ_FAIL(RC_ERR_PARSE, "a face needs at least three corners");
            RC__MESH_GROW(B->fsize, int, &B->cf, B->nf + 1);
            RC__MESH_GROW(B->fline, int, &B->cfl, B->nf + 1);
            B->fline[B->nf] = line;
            B->fsize[B->nf++] = n;
        }
        /* anything else (vn, vp, o, g, s, usemtl, mtllib, l, ...) is ignored */
    }
#undef RC__OBJ_FAIL
    return RC_OK;
}

/* Triangulates an OBJ face of n > 3 corners (vertices v[0..n-1], their reference points in uv) into
   its n - 2 triangles by ear clipping in the reference plane, where the cloth is flat: an ear
   (a, b, c) turns the polygon's way with a positive area and holds no other corner. Why not a fan
   from the first corner: a fan cuts a concave polygon outside itself (inverted triangles) and a
   corner in the middle of a straight side (common along seams) into a triangle of zero area; both
   were refused at validation. Starting at corner 1 and going on from each clipped ear's far side,
   a convex polygon gets exactly the fan. A polygon with no such ear left (all its corners on a
   line) ends as a fan. work: 2 n ints. Returns the triangles written (n - 2). */
static int rc__mesh_ear_clip(const double *uv, const int *v, int n, int *tris, int *work)
{
    int *nx = work, *pv = work + n, i, left = n, cur = 1, t = 0, tried = 0;
    double area2 = 0.0, sgn;
    for (i = 0; i < n; ++i) {   /* the shoelace about corner 0: exact far from the origin too */
        const double *o = uv + 2 * v[0], *p = uv + 2 * v[i], *q = uv + 2 * v[(i + 1) % n];
        area2 += (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]);
        nx[i] = (i + 1) % n;
        pv[i] = (i + n - 1) % n;
    }
    sgn = area2 < 0.0 ? -1.0 : 1.0;
    while (left > 3 && tried < left) {
        int a = pv[cur], c = nx[cur], j, ear;
        const double *A = uv + 2 * v[a], *B = uv + 2 * v[cur], *C = uv + 2 * v[c];
        ear = sgn * rc__mesh_orient2(A, B, C) > 0.0;
        for (j = nx[c]; ear && j != a; j = nx[j]) {
            const double *P = uv + 2 * v[j];
            if ((P[0] == A[0] && P[1] == A[1]) || (P[0] == B[0] && P[1] == B[1]) || (P[0] == C[0] && P[1] == C[1])) continue;
            if (sgn * rc__mesh_orient2(A, B, P) >= 0.0 && sgn * rc__mesh_orient2(B, C, P) >= 0.0 && sgn * rc__mesh_orient2(C, A, P) >= 0.0) ear = 0;
        }
        if (!ear) { cur = c; ++tried; continue; }
        tris[3 * t] = v[a]; tris[3 * t + 1] = v[cur]; tris[3 * t + 2] = v[c]; ++t;
        nx[a] = c; pv[c] = a; --left;
        cur = c; tried = 0;
    }
    while (left >= 3) {   /* the last triangle, or a fan over what no ear could clip */
        int a = pv[cur], c = nx[cur];
        tris[3 * t] = v[a]; tris[3 * t + 1] = v[cur]; tris[3 * t + 2] = v[c]; ++t;
        nx[a] = c; pv[c] = a; --left;
        cur = c;
    }
    return t;
}

/* whether texture coordinates a and b (indices, -1: none) are the same point */
static int rc__mesh_vt_same(const rc__mesh_objbuf *B, int a, int b)
{
    if (a < 0 || b < 0) return a == b;
    return B->vt[2 * a] == B->vt[2 * b] && B->vt[2 * a + 1] == B->vt[2 * b + 1];
}

/* builds the mesh, and with map != NULL its map (out and map zeroed on entry by the caller; on
   an error the caller frees both) */
static rc_status rc__mesh_obj_build(rc_mesh *out, rc_obj_map *map, rc__mesh_objbuf *B)
{
    int c, f, nt = 0, nx = 0, nvout, t = 0, fmax = 3, *assigned = NULL, *head = NULL, *xvt = NULL, *xnext = NULL, *cvert = NULL, *ear = NULL;
    rc_status st = RC_OK;
    if (B->nf == 0 || B->nv == 0) { B->err_what = "no faces ('f' lines) or no vertices ('v' lines)"; return RC_ERR_PARSE; }
    for (f = 0, c = 0; f < B->nf; ++f) {   /* forward references were allowed while parsing: now all must exist */
        int k;
        for (k = 0; k < B->fsize[f]; ++k, ++c)
            if (B->cv_idx[c] >= B->nv || B->cvt_idx[c] >= B->nvt) {
                B->err_line = B->fline[f];
                B->err_what = B->cv_idx[c] >= B->nv ? "a face refers to a vertex the file does not define"
                                                    : "a face refers to a texture coordinate ('vt') the file does not define";
                return RC_ERR_PARSE;
            }
    }
    for (f = 0; f < B->nf; ++f) { nt += B->fsize[f] - 2; if (B->fsize[f] > fmax) fmax = B->fsize[f]; }
    assigned = (int *)rc__alloc(NULL, (size_t)B->nv, sizeof(int));
    head = (int *)rc__alloc(NULL, (size_t)B->nv, sizeof(int));
    xvt = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    xnext = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    cvert = (int *)rc__alloc(NULL, (size_t)B->nc, sizeof(int));
    ear = (int *)rc__alloc(NULL, 2 * (size_t)fmax, sizeof(int));
    if (!assigned || !head || !xvt || !xnext || !cvert || !ear) { st = RC_ERR_OUT_OF_MEMORY; goto done; }
    for (c = 0; c < B->nv; ++c) assigned[c] = head[c] = -1;
    for (c = 0; c < B->nc; ++c)   /* a vertex takes the first vt it is used with */
        if (B->cvt_idx[c] >= 0 && assigned[B->cv_idx[c]] < 0) assigned[B->cv_idx[c]] = B->cvt_idx[c];
    /* a vertex no face uses has no vt of its own; where the file has one vt per v (as
       rc_mesh_write_obj writes it) it takes the vt of its index, so the round trip is exact for
       unused vertices too (earlier their uv became (x, y)) */
    if (B->nvt == B->nv)
        for (c = 0; c < B->nv; ++c) if (assigned[c] < 0) assigned[c] = c;
    /* other (v, vt) pairs become extra vertices nv + x. The texture coordinates are compared by
       value, not by index: files that write a vt per face corner (the same coordinates again and
       again) describe one welded cloth, which split by index fell apart into its faces, without
       a word (a 25-vertex sheet read as 16 loose quads) */
    for (c = 0; c < B->nc; ++c) {
        int v = B->cv_idx[c], vt = B->cvt_idx[c], x;
        cvert[c] = v;
        if (vt < 0 || rc__mesh_vt_same(B, vt, assigned[v])) continue;
        for (x = head[v]; x >= 0; x = xnext[x])
            if (rc__mesh_vt_same(B, xvt[x], vt)) break;
        if (x < 0) { x = nx++; xvt[x] = vt; xnext[x] = head[v]; head[v] = x; }
        cvert[c] = B->nv + x;
    }
    nvout = B->nv + nx;
    st = rc__mesh_alloc(out, nvout, nt);
    if (st != RC_OK) goto done;
    if (map) {
        map->vertex_source = (int *)rc__alloc(NULL, (size_t)nvout, sizeof(int));
        map->tri_line = (int *)rc__alloc(NULL, (size_t)nt, sizeof(int));
        map->tri_face = (int *)rc__alloc(NULL, (size_t)nt, sizeof(int));
        if (!map->vertex_source || !map->tri_line || !map->tri_face) { st = RC_ERR_OUT_OF_MEMORY; goto done; }
        map->num_verts = nvout;
        map->num_tris = nt;
        for (c = 0; c < B->nv; ++c) {
            int x;
            map->vertex_source[c] = c;
            for (x = head[c]; x >= 0; x = xnext[x]) map->vertex_source[B->nv + x] = c;
        }
    }
    for (c = 0; c < B->nv; ++c) {
        int a = assigned[c], x;
        memcpy(out->pos + 3 * c, B->v + 3 * c, 3 * sizeof(double));
        out->ref_uv[2 * c] = a >= 0 ? B->vt[2 * a] : B->v[3 * c];
        out->ref_uv[2 * c + 1] = a >= 0 ? B->vt[2 * a + 1] : B->v[3 * c + 1];
        if (map && a < 0) map->uv_from_xy++;
        for (x = head[c]; x >= 0; x = xnext[x]) {
            memcpy(out->pos + 3 * (B->nv + x), B->v + 3 * c, 3 * sizeof(double));
            out->ref_uv[2 * (B->nv + x)] = B->vt[2 * xvt[x]];
            out->ref_uv[2 * (B->nv + x) + 1] = B->vt[2 * xvt[x] + 1];
        }
    }
    c = 0;
    for (f = 0; f < B->nf; ++f) {
        int t0 = t;
        if (B->fsize[f] == 3) {
            out->tris[3 * t] = cvert[c]; out->tris[3 * t + 1] = cvert[c + 1]; out->tris[3 * t + 2] = cvert[c + 2];
            ++t;
        } else {
            t += rc__mesh_ear_clip(out->ref_uv, cvert + c, B->fsize[f], out->tris + 3 * t, ear);
        }
        if (map)
            for (; t0 < t; ++t0) { map->tri_line[t0] = B->fline[f]; map->tri_face[t0] = f; }
        c += B->fsize[f];
    }
done:
    rc__free(NULL, assigned); rc__free(NULL, head); rc__free(NULL, xvt); rc__free(NULL, xnext); rc__free(NULL, cvert);
    rc__free(NULL, ear);
    return st;
}

RCLOTHDEF rc_status rc_mesh_read_obj(rc_mesh *out, const char *path) { return rc_mesh_read_obj_map(out, NULL, path, NULL, 0); }

RCLOTHDEF rc_status rc_mesh_read_obj_msg(rc_mesh *out, const char *path, char *msg, int msg_len)
{
    return rc_mesh_read_obj_map(out, NULL, path, msg, msg_len);
}

RCLOTHDEF void rc_obj_map_free(rc_obj_map *map)
{
    if (!map) return;
    rc__free(NULL, map->vertex_source);
    rc__free(NULL, map->tri_line);
    rc__free(NULL, map->tri_face);
    memset(map, 0, sizeof(*map));
}

RCLOTHDEF rc_status rc_mesh_read_obj_map(rc_mesh *out, rc_obj_map *map, const char *path, char *msg, int msg_len)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    rc__mesh_objbuf B;
    rc_status st;
    if (msg && msg_len > 0) msg[0] = 0;
    if (map) memset(map, 0, sizeof(*map));
    if (!out) { if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "rc_mesh_read_obj: out is NULL"); return RC_ERR_INVALID_ARGUMENT; }
    memset(out, 0, sizeof(*out));
    if (!path) { if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "rc_mesh_read_obj: path is NULL"); return RC_ERR_INVALID_ARGUMENT; }
    f = fopen(path, "rb");
    if (!f) { if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "%s: cannot be opened for reading", path); return RC_ERR_IO; }
    for (;;) {   /* read everything; a growing buffer avoids relying on fseek/ftell */
        size_t got;
        if (len + 1 >= cap) {   /* +1: room for the NUL that stops strtod/strtol at the end */
            size_t nc = cap ? 2 * cap : 65536;
            char *q = (nc > cap) ? (char *)rc__realloc(NULL, buf, nc, 1) : NULL;
            if (!q) {
                rc__free(NULL, buf); fclose(f);
                if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "%s: out of memory reading the file", path);
                return RC_ERR_OUT_OF_MEMORY;
            }
            buf = q;
            cap = nc;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        rc__free(NULL, buf); fclose(f);
        if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "%s: a read error", path);
        return RC_ERR_IO;
    }
    fclose(f);
    buf[len] = '\0';
    {   /* classic Mac line ends: a CR not followed by LF ends a line too */
        size_t i;
        for (i = 0; i < len; ++i) if (buf[i] == '\r' && buf[i + 1] != '\n') buf[i] = '\n';
    }
    memset(&B, 0, sizeof(B));
    st = rc__mesh_obj_parse(&B, buf, len);
    if (st == RC_OK) st = rc__mesh_obj_build(out, map, &B);
    if (st != RC_OK && msg && msg_len > 0) {
        if (B.err_what && B.err_line > 0) snprintf(msg, (size_t)msg_len, "%s:%d: %s", path, B.err_line, B.err_what);
        else snprintf(msg, (size_t)msg_len, "%s: %s", path, B.err_what ? B.err_what : rc_status_string(st));
    }
    rc__free(NULL, buf);
    rc__free(NULL, B.v); rc__free(NULL, B.vt); rc__free(NULL, B.cv_idx); rc__free(NULL, B.cvt_idx); rc__free(NULL, B.fsize); rc__free(NULL, B.fline);
    if (st != RC_OK) { rc_mesh_free(out); rc_obj_map_free(map); }
    return st;
}

#ifdef __cplusplus
}
#endif

/* ==========================================================================
   IMPLEMENTATION: ENERGY
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Element kernels: LOCAL DOF ORDERS (the simulator assembles these).
     stretch  rc__sh_stretch_tri  15: [x0 x1 x2 (9) | u0 u1 u2 (6)]          (9 with RC__SH_NO_U)
     bending  rc__sh_bend_tri     27: [x0 x1 x2 (9) | p0 p1 p2 (9) | phi0 phi1 phi2 (3) | u0 u1 u2 (6)]
                                                                               (21 with RC__SH_NO_U)
              p_i = flap vertex across edge i (edge i joins own vertices i+1, i+2, opposite i);
              a boundary edge has no flap: its p_i rows/columns are zero.
     MIPS     rc__mips_tri         6: [u0 u1 u2]
     material point rc__mp_tri   15: [x0 x1 x2 (9) | u0 u1 u2 (6)]   (handles/loads at a uv point)
   The stretch and bending kernels share one material law psi_C over D_u (the material frame is the
   uv frame; the isotropic model is a coefficient set of it, rc__sh_coef): bending through
   rc__sh_Wo over (D_u, b), stretch over (D_u, the world edges) in rc__sh_stretch_tri.
     inertia  rc__inertia_tri     15: [x0 x1 x2 (9) | u0 u1 u2 (6)]
   Vectors are interleaved per vertex (x0.x x0.y x0.z x1.x ...). Hessians are dense n*n row-major.
   flags: RC__SH_GRAD / RC__SH_HESS ask for the gradient / Hessian (pointers may be NULL
   otherwise); RC__SH_PROJECT clamps negative Hessian eigenvalues to 0, RC__SH_PROJECT_ABS
   mirrors them (|lambda|); RC__SH_NO_U drops the u-derivatives (fixed-mesh mode);
   RC__SH_GAUSS_NEWTON (bending with RC__SH_NO_U only) returns the Gauss-Newton Hessian instead of
   the exact one, and no projection is needed (rc__sh_bend_tri_ref).
   All kernels are allocation-free and O(1); each returns the energy value.
   --------------------------------------------------------------------------------------------- */
enum {
    RC__SH_GRAD = 1,
    RC__SH_HESS = 2,
    RC__SH_PROJECT = 4,
    RC__SH_PROJECT_ABS = 8,
    RC__SH_NO_U = 16,
    RC__SH_GAUSS_NEWTON = 32
};

/* Material constants as the kernels use them: both material models as one orthotropic coefficient
   set over the uv frame (psi_C, the material law below). The isotropic law c A [alpha/2 (tr M)^2 + beta tr(M^2)] is
   psi_C with C11 = C22 = alpha + 2 beta, C12 = alpha, C33 = beta (tr X = X11 + X22,
   tr X^2 = X11^2 + X22^2 + 2 X12^2), alpha = E nu / (1 - nu^2), beta = E / (2 (1 + nu)); its
   stretch prefactor tau and bending prefactor bending_scale tau^3/12 are folded into C. */
typedef struct rc__sh_coef {
    double Cs[4];   /* membrane C11, C12, C22, C33 (N/m) in the uv frame */
    double Cb[4];   /* bending_scale * (B11, B12, B22, B33) (N m) in the uv frame */
} rc__sh_coef;

static rc__sh_coef rc__sh_make_coef(const rc_material *mat, double bending_scale)
{
    rc__sh_coef c;
    if (mat->model == RC_MATERIAL_ORTHOTROPIC) {
        /* engineering constants -> stiffness (see rc_material): nu21 = nu12 E2/E1; no bending
           Poisson coupling (B12 = 0) */
        double E1 = mat->warp_stiffness, E2 = mat->weft_stiffness, n12 = mat->warp_poisson;
        double rr = n12 * sqrt(E2 / E1), den = (1.0 - rr) * (1.0 + rr);   /* 1 - nu12 nu21, without its cancellation */
        c.Cs[0] = E1 / den;
        c.Cs[2] = E2 / den;
        c.Cs[1] = n12 * c.Cs[2];
        c.Cs[3] = mat->shear_stiffness;
        c.Cb[0] = bending_scale * mat->bend_warp;
        c.Cb[1] = 0.0;
        c.Cb[2] = bending_scale * mat->bend_weft;
        c.Cb[3] = bending_scale * 0.25 * (4.0 * mat->bend_bias - mat->bend_warp - mat->bend_weft);
    } else {
        double E = mat->young, nu = mat->poisson, t = mat->thickness;
        /* (1 - nu)(1 + nu), not 1 - nu^2: a probe one ulp above nu = -1 got 1 - nu^2 wrong by 50% */
        double alpha = E * nu / ((1.0 - nu) * (1.0 + nu)), beta = E / (2.0 * (1.0 + nu));
        double tb = bending_scale * t * t * t / 12.0;
        c.Cs[0] = c.Cs[2] = t * (alpha + 2.0 * beta);
        c.Cs[1] = t * alpha;
        c.Cs[3] = t * beta;
        c.Cb[0] = c.Cb[2] = tb * (alpha + 2.0 * beta);
        c.Cb[1] = tb * alpha;
        c.Cb[3] = tb * beta;
    }
    return c;
}

/* The largest eigenvalue of a law psi_C as a quadratic form in (X11, X22, sqrt(2) X12): the
   2 x 2 block [[C11, C12], [C12, C22]] and 2 C33. Its stiffest mode, in N/m (membrane) or N m
   (bending); 1.43 E tau for an isotropic sheet at nu = 0.3. */
static double rc__sh_law_stiffness(const double C[4])
{
    double m = 0.5 * (C[0] + C[2]), r = hypot(0.5 * (C[0] - C[2]), C[1]);
    return fmax(m + r, 2.0 * C[3]);
}

/* H[0..nw, 0..nw] = Jm^T T (Jm, T: 3 x nw, T = W_mm Jm with W_mm symmetric): the upper triangle,
   then mirrored, so the block is exactly symmetric at half the products (its lower entries
   differed from the upper ones by rounding before) */
static void rc__sh_chain_mm(int nw, const double *Jm, const double *T, double *H, int ld)
{
    int i, j;
    for (i = 0; i < nw; ++i) {
        const double a0 = Jm[i], a1 = Jm[nw + i], a2 = Jm[2 * nw + i];
        for (j = i; j < nw; ++j) H[i * ld + j] = a0 * T[j] + a1 * T[nw + j] + a2 * T[2 * nw + j];
    }
    for (i = 1; i < nw; ++i)
        for (j = 0; j < i; ++j) H[i * ld + j] = H[j * ld + i];
}

/* ---- the material law of one triangle, for both material models (rc__sh_coef):
       W = c A psi_C(X),  A = |J|/2,  J = det D_u,  D_u = [u1 - u0, u2 - u0],
       psi_C(X) = 1/2 C11 X11^2 + C12 X11 X22 + 1/2 C22 X22^2 + 2 C33 X12^2,
   X = D_u^-T (a - abar) D_u^-1 = 2 E_uv for stretch (c = 1/4, C = Cs), X = D_u^-T b D_u^-1 = K for
   bending (c = 1, C = Cb). With adj(D_u) = [c1 c2] (columns; c1 = (w1, w2) = (D22, -D21),
   c2 = (w3, w4) = (-D12, D11)) and Y = adj^T (.) adj, X = Y / J^2 and, psi_C being quadratic,
       W = (c/2) psi_C(Y) |J|^-3.
   It is written over D_u itself, never over the reference metric abar = D_u^T D_u:
   - an orthotropic energy depends on the triangle's orientation in the uv frame, not only on abar;
   - forming abar squares a sliver's conditioning. The isotropic law over abar (until session 55)
     needed det abar = p s - r^2, which cancels to round-off once the triangle's height h drops
     below ~1e-8 of its edges, and tr(M^2) = (C1^2 + 2 C2 C3 + C4^2)/d^2 lost its sign the same
     way. Measured on 1e5 random slivers (h = 1e-2 .. 1e-9 of the edge, random b): that form was
     off by more than 1e-3 in 25% of them, infinite in 4%, NaN in 3%; the sheet's bending energy
     reached -2e177 J on a collapsed no-regulariser drape. Here J is a difference of products of
     edge components (no squaring) and psi_C(Y) is a sum of squares for every accepted material,
     so W >= 0 to round-off at any aspect ratio.
   The stretch forms Y from the world edges (rc__sh_stretch_tri); the bending law below takes b:
       W(w, b) = (1/2) psi_C(Y) |J|^-3,  Y11 = c1.b c1, Y22 = c2.b c2, Y12 = c1.b c2,
   a rational function of z = (w1, w2, w3, w4, b11, b12, b22), J = w1 w4 - w2 w3. Closed-form
   derivatives (the Y_k are polynomials):
     dY11 = (2 b c1 | 0 | w1^2, 2 w1 w2, w2^2),  dY22 = (0 | 2 b c2 | w3^2, 2 w3 w4, w4^2),
     dY12 = (b c2 | b c1 | w1 w3, w1 w4 + w2 w3, w2 w4)      (blocks c1 | c2 | b),
     dJ = (w4, -w3, -w2, w1 | 0), d2J: (w1, w4) +1, (w2, w3) -1,
     d2Y11: (c1, c1) 2b, (c1_a, b11) 2 w1 d_a0, (c1_a, b12) 2 (w2, w1)_a, (c1_a, b22) 2 w2 d_a1,
     d2Y22: the same with c2, d2Y12: (c1, c2) b, (c1_a, b) as d2Y11/2 with c2's entries, and
       (c2_a, b) with c1's.
   With N = psi_C(Y), N_Y = (C11 Y11 + C12 Y22, C12 Y11 + C22 Y22, 4 C33 Y12), Q = N_YY
   (constant): N_z = sum_k N_Yk dY_k, N_zz = dY^T Q dY + sum_k N_Yk d2Y_k; and with f = |J|^-3,
   f' = -3 sgn(J) |J|^-4, f'' = 12 |J|^-5:
       W_z = (1/2) (f N_z + N f' dJ),
       W_zz = (1/2) (f N_zz + f' (N_z dJ^T + dJ N_z^T) + N (f'' dJ dJ^T + f' d2J)).
   w is linear in u (rc__sh_Bw), so the u-chain has no second-order term. */

/* dw/du (4 x 6), u = (u0x, u0y, u1x, u1y, u2x, u2y): w1 = u2y - u0y, w2 = u0y - u1y, w3 = u0x - u2x,
   w4 = u1x - u0x */
static const double rc__sh_Bw[4][6] = {{0, -1, 0, 0, 0, 1}, {0, 1, 0, -1, 0, 0}, {1, 0, 0, 0, -1, 0}, {-1, 0, 1, 0, 0, 0}};

typedef struct rc__sh_wo {
    double v, g[7], h[49];   /* over z = (w1..w4, m11, m12, m22), h full row-major */
} rc__sh_wo;

/* The law's scalar parts, shared by the stretch and bending kernels: N = psi_C(Y) and, with NY,
   dN/dY; and f = |J|^-3 with f', f'' (fd) */
static double rc__sh_psi(const double C[4], const double Y[3], double NY[3])
{
    if (NY) {
        NY[0] = C[0] * Y[0] + C[1] * Y[1];
        NY[1] = C[1] * Y[0] + C[2] * Y[1];
        NY[2] = 4.0 * C[3] * Y[2];
    }
    return 0.5 * C[0] * Y[0] * Y[0] + C[1] * Y[0] * Y[1] + 0.5 * C[2] * Y[1] * Y[1] + 2.0 * C[3] * Y[2] * Y[2];
}
static void rc__sh_jfactors(double J, double fd[3])
{
    double aJ = fabs(J);
    fd[0] = 1.0 / (aJ * aJ * aJ);
    fd[1] = -3.0 * (J < 0.0 ? -1.0 : 1.0) * fd[0] / aJ;
    fd[2] = 12.0 * fd[0] / (aJ * aJ);
}
/* W_zz = hc (f N_zz + f' (N_z dJ^T + dJ N_z^T) + N (f'' dJ dJ^T + f' d2J)) over z = (w1..w4, ...)
   (nz), in place: H holds N_zz on entry */
static void rc__sh_law_hess(int nz, double hc, const double fd[3], double N, const double *Nz, const double *dJ, double *H)
{
    int i, j;
    for (i = 0; i < nz; ++i)
        for (j = 0; j < nz; ++j)
            H[nz * i + j] = hc * (fd[0] * H[nz * i + j] + fd[1] * (Nz[i] * dJ[j] + dJ[i] * Nz[j]) + N * fd[2] * dJ[i] * dJ[j]);
    /* d2J: (w1, w4) +1, (w2, w3) -1 */
    H[3] += hc * N * fd[1]; H[3 * nz] += hc * N * fd[1];
    H[nz + 2] -= hc * N * fd[1]; H[2 * nz + 1] -= hc * N * fd[1];
}

/* the bending law W(w, b) above; order: 0 value, 1 + gradient, 2 + Hessian */
static void rc__sh_Wo(const double u[6], const double mm[3], const double C[4], int order, rc__sh_wo *W)
{
    const double w1 = u[5] - u[1], w2 = u[1] - u[3], w3 = u[0] - u[4], w4 = u[2] - u[0];
    const double x = mm[0], y = mm[1], z = mm[2];
    const double Y11 = x * w1 * w1 + 2.0 * y * w1 * w2 + z * w2 * w2, Y22 = x * w3 * w3 + 2.0 * y * w3 * w4 + z * w4 * w4;
    const double Y12 = x * w1 * w3 + y * (w1 * w4 + w2 * w3) + z * w2 * w4;
    const double J = w1 * w4 - w2 * w3, Y[3] = { Y11, Y22, Y12 };
    const double m11 = mm[0], m12 = mm[1], m22 = mm[2], hc = 0.5;
    double dY[3][7], dJ[7], NY[3], Nz[7], fd[3], N = rc__sh_psi(C, Y, NY);
    int i, j;
    rc__sh_jfactors(J, fd);
    W->v = hc * N * fd[0];
    if (order < 1) return;
    /* gradients of Y11, Y22, Y12 (rows) and J */
    dJ[0] = w4; dJ[1] = -w3; dJ[2] = -w2; dJ[3] = w1; dJ[4] = dJ[5] = dJ[6] = 0.0;
    dY[0][0] = 2.0 * (m11 * w1 + m12 * w2); dY[0][1] = 2.0 * (m12 * w1 + m22 * w2); dY[0][2] = dY[0][3] = 0.0;
    dY[0][4] = w1 * w1; dY[0][5] = 2.0 * w1 * w2; dY[0][6] = w2 * w2;
    dY[1][0] = dY[1][1] = 0.0; dY[1][2] = 2.0 * (m11 * w3 + m12 * w4); dY[1][3] = 2.0 * (m12 * w3 + m22 * w4);
    dY[1][4] = w3 * w3; dY[1][5] = 2.0 * w3 * w4; dY[1][6] = w4 * w4;
    dY[2][0] = m11 * w3 + m12 * w4; dY[2][1] = m12 * w3 + m22 * w4; dY[2][2] = m11 * w1 + m12 * w2; dY[2][3] = m12 * w1 + m22 * w2;
    dY[2][4] = w1 * w3; dY[2][5] = w1 * w4 + w2 * w3; dY[2][6] = w2 * w4;
    for (j = 0; j < 7; ++j) {
        Nz[j] = NY[0] * dY[0][j] + NY[1] * dY[1][j] + NY[2] * dY[2][j];
        W->g[j] = hc * (fd[0] * Nz[j] + N * fd[1] * dJ[j]);
    }
    if (order < 2) return;
    {
        double *Hn = W->h, a = NY[0], b = NY[1], e = NY[2];
        /* dY^T Q dY */
        for (i = 0; i < 7; ++i)
            for (j = 0; j < 7; ++j)
                Hn[7 * i + j] = C[0] * dY[0][i] * dY[0][j] + C[1] * (dY[0][i] * dY[1][j] + dY[1][i] * dY[0][j]) +
                                C[2] * dY[1][i] * dY[1][j] + 4.0 * C[3] * dY[2][i] * dY[2][j];
        /* sum_k N_Yk d2Y_k: the (c, c) blocks, then (c, m) */
#define RC__WO_ADD(p, q, v) do { Hn[7 * (p) + (q)] += (v); if ((p) != (q)) Hn[7 * (q) + (p)] += (v); } while (0)
        RC__WO_ADD(0, 0, 2.0 * a * m11); RC__WO_ADD(0, 1, 2.0 * a * m12); RC__WO_ADD(1, 1, 2.0 * a * m22);
        RC__WO_ADD(2, 2, 2.0 * b * m11); RC__WO_ADD(2, 3, 2.0 * b * m12); RC__WO_ADD(3, 3, 2.0 * b * m22);
        RC__WO_ADD(0, 2, e * m11); RC__WO_ADD(0, 3, e * m12); RC__WO_ADD(1, 2, e * m12); RC__WO_ADD(1, 3, e * m22);
        RC__WO_ADD(0, 4, 2.0 * a * w1); RC__WO_ADD(0, 5, 2.0 * a * w2); RC__WO_ADD(1, 5, 2.0 * a * w1); RC__WO_ADD(1, 6, 2.0 * a * w2);
        RC__WO_ADD(2, 4, 2.0 * b * w3); RC__WO_ADD(2, 5, 2.0 * b * w4); RC__WO_ADD(3, 5, 2.0 * b * w3); RC__WO_ADD(3, 6, 2.0 * b * w4);
        RC__WO_ADD(0, 4, e * w3); RC__WO_ADD(0, 5, e * w4); RC__WO_ADD(1, 5, e * w3); RC__WO_ADD(1, 6, e * w4);
        RC__WO_ADD(2, 4, e * w1); RC__WO_ADD(2, 5, e * w2); RC__WO_ADD(3, 5, e * w1); RC__WO_ADD(3, 6, e * w2);
#undef RC__WO_ADD
        rc__sh_law_hess(7, hc, fd, N, Nz, dJ, Hn);
    }
}

/* the chain rule for rc__sh_Wo: E = W(w(u), m(q_w)), Jm (3 x nw) = dm/dq_w, w linear in u.
   Writes g (n = nw + 6 withu) and H = J^T W'' J (ld = n); the caller adds sum_c W_mc d^2 m_c. */
static void rc__sh_chain_o(const rc__sh_wo *W, int nw, const double *Jm, int withu, double *g, double *H, int ld)
{
    int i, j, k, l;
    if (g) {
        for (j = 0; j < nw; ++j) g[j] = W->g[4] * Jm[j] + W->g[5] * Jm[nw + j] + W->g[6] * Jm[2 * nw + j];
        if (withu)
            for (j = 0; j < 6; ++j)
                g[nw + j] = W->g[0] * rc__sh_Bw[0][j] + W->g[1] * rc__sh_Bw[1][j] + W->g[2] * rc__sh_Bw[2][j] + W->g[3] * rc__sh_Bw[3][j];
    }
    if (H) {
        double T[3 * 27];
        for (k = 0; k < 3; ++k)
            for (j = 0; j < nw; ++j)
                T[k * nw + j] = W->h[7 * (4 + k) + 4] * Jm[j] + W->h[7 * (4 + k) + 5] * Jm[nw + j] + W->h[7 * (4 + k) + 6] * Jm[2 * nw + j];
        rc__sh_chain_mm(nw, Jm, T, H, ld);
        if (withu) {
            double Wmu[3][6], Wwu[4][6];   /* W_mw Bw, W_ww Bw */
            for (j = 0; j < 6; ++j) {
                for (k = 0; k < 3; ++k) {
                    Wmu[k][j] = 0.0;
                    for (l = 0; l < 4; ++l) Wmu[k][j] += W->h[7 * (4 + k) + l] * rc__sh_Bw[l][j];
                }
                for (k = 0; k < 4; ++k) {
                    Wwu[k][j] = 0.0;
                    for (l = 0; l < 4; ++l) Wwu[k][j] += W->h[7 * k + l] * rc__sh_Bw[l][j];
                }
            }
            for (i = 0; i < nw; ++i)
                for (j = 0; j < 6; ++j) {
                    double sum = Jm[i] * Wmu[0][j] + Jm[nw + i] * Wmu[1][j] + Jm[2 * nw + i] * Wmu[2][j];
                    H[i * ld + nw + j] = sum;
                    H[(nw + j) * ld + i] = sum;
                }
            for (i = 0; i < 6; ++i)
                for (j = 0; j < 6; ++j)
                    H[(nw + i) * ld + nw + j] = rc__sh_Bw[0][i] * Wwu[0][j] + rc__sh_Bw[1][i] * Wwu[1][j] +
                                                rc__sh_Bw[2][i] * Wwu[2][j] + rc__sh_Bw[3][i] * Wwu[3][j];
        }
    }
}

/* d2W/dm2 (3 x 3) of the bending law at reference u (constant in m: W is quadratic in b), what the
   director-angle minimisation needs: W_mm = (1/2) |J|^-3 dY^T Q dY (rc__sh_Wo's m block: its
   other Hessian terms vanish there). Written out rather than read off rc__sh_Wo's
   full Hessian at m = 0: that one also forms f'' = 12 |J|^-5, which overflows first as the
   triangle shrinks (a probe's sheet scaled by 1e-30), and N f'' dJ dJ^T = 0 * inf poisoned the
   m block with NaN; the minimisation then skipped every angle and returned phi = 0 as minimal. */
static void rc__sh_bend_Wmm(const double u[6], const rc__sh_coef *c, double Wmm[9])
{
    const double w1 = u[5] - u[1], w2 = u[1] - u[3], w3 = u[0] - u[4], w4 = u[2] - u[0];
    const double aJ = fabs(w1 * w4 - w2 * w3), f = 0.5 / (aJ * aJ * aJ), *C = c->Cb;
    const double d0[3] = { w1 * w1, 2.0 * w1 * w2, w2 * w2 }, d1[3] = { w3 * w3, 2.0 * w3 * w4, w4 * w4 };
    const double d2[3] = { w1 * w3, w1 * w4 + w2 * w3, w2 * w4 };   /* dY11/dm, dY22/dm, dY12/dm */
    int k, l;
    for (k = 0; k < 3; ++k)
        for (l = 0; l < 3; ++l)
            Wmm[3 * k + l] = f * (C[0] * d0[k] * d0[l] + C[1] * (d0[k] * d1[l] + d1[k] * d0[l]) + C[2] * d1[k] * d1[l] +
                                  4.0 * C[3] * d2[k] * d2[l]);
}

/* PSD projection of a 21-DOF stencil Hessian [x (18) | phi (3)] (bending or shell, fixed u)
   through its Schur complement: the director angles' block C and their coupling B to x are kept,
   and only S = A - B C^-1 B^T (18 x 18) is projected, A' = proj(S) + B C^-1 B^T. The result
   [[A', B], [B^T, C]] is PSD whenever C is positive definite (then it is PSD iff its Schur
   complement is). Why: the angles are auxiliary unknowns with a positive curvature of their own
   (the tangent fold profile keeps it so at sharp folds), and whole-stencil projection clamped
   eigenvectors that mix x and phi, so Newton's phi step lagged x by hundreds of its tolerance for
   dozens of iterations while the sheet buckled. Measured on the 1k sphere drape, fixed mesh, 32
   steps: 911 -> 867 Newton iterations, 99.6 -> 80.6 s CPU (and an 18 x 18 eigenproblem instead of
   21 x 21).
   Returns 0 and leaves H alone when C is not clearly positive definite (leading minors below 1e-6
   of their scale): the caller then projects the whole stencil. */
static int rc__sh_project_schur21(double *H)
{
    double C[9], Ci[9], det, m2, cmax, BCi[18 * 3], S[18 * 18];
    int i, j, k;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) C[3 * i + j] = H[(18 + i) * 21 + 18 + j];
    cmax = fabs(C[0]);
    if (fabs(C[4]) > cmax) cmax = fabs(C[4]);
    if (fabs(C[8]) > cmax) cmax = fabs(C[8]);
    m2 = C[0] * C[4] - C[1] * C[3];
    det = C[0] * (C[4] * C[8] - C[5] * C[7]) - C[1] * (C[3] * C[8] - C[5] * C[6]) + C[2] * (C[3] * C[7] - C[4] * C[6]);
    if (!(cmax > 0.0 && C[0] > 1e-6 * cmax && m2 > 1e-6 * cmax * cmax && det > 1e-6 * cmax * cmax * cmax)) return 0;
    Ci[0] = (C[4] * C[8] - C[5] * C[7]) / det;
    Ci[1] = Ci[3] = (C[2] * C[7] - C[1] * C[8]) / det;
    Ci[2] = Ci[6] = (C[1] * C[5] - C[2] * C[4]) / det;
    Ci[4] = (C[0] * C[8] - C[2] * C[6]) / det;
    Ci[5] = Ci[7] = (C[2] * C[3] - C[0] * C[5]) / det;
    Ci[8] = m2 / det;
    for (i = 0; i < 18; ++i)
        for (j = 0; j < 3; ++j)
            BCi[3 * i + j] = H[i * 21 + 18] * Ci[j] + H[i * 21 + 19] * Ci[3 + j] + H[i * 21 + 20] * Ci[6 + j];
    for (i = 0; i < 18; ++i)
        for (j = 0; j < 18; ++j) {
            double t = 0.0;
            for (k = 0; k < 3; ++k) t += BCi[3 * i + k] * H[j * 21 + 18 + k];
            S[18 * i + j] = H[i * 21 + j] - t;
            H[i * 21 + j] = t;
        }
    rc__psd_project(18, S, RC__PROJECT_CLAMP);
    for (i = 0; i < 18; ++i)
        for (j = 0; j < 18; ++j) H[i * 21 + j] += S[18 * i + j];
    return 1;
}

static void rc__sh_finish_hess(int n, double *H, int flags)
{
    if (n == 21 && (flags & RC__SH_PROJECT) && rc__sh_project_schur21(H)) return;
    if (flags & (RC__SH_PROJECT | RC__SH_PROJECT_ABS))
        rc__psd_project(n, H, (flags & RC__SH_PROJECT_ABS) ? RC__PROJECT_ABS : RC__PROJECT_CLAMP);
}

/* ---- stretch: S = A psi_Cs(E_uv), E_uv = D_u^-T (a - abar) D_u^-1 / 2 (isotropic: (tau/4) A
   |abar^-1 a - I|^2_SV); DOFs [x0 x1 x2 | u0 u1 u2].
   The law psi_C with X = D_u^-T (a - abar) D_u^-1 and c = 1/4, written over the world edges
   themselves rather than over the world metric a = D_x^T D_x: with adj(D_u) = [c1 c2] = [(w1, w2), (w3, w4)]
   (rc__sh_Bw), G = D_x adj(D_u) = [g1 g2], g1 = w1 e1 + w2 e2, g2 = w3 e1 + w4 e2 (e1 = x1 - x0,
   e2 = x2 - x0; G = J F, F the deformation gradient),
       Y = adj^T (a - abar) adj = G^T G - J^2 I:  Y11 = g1.g1 - J^2, Y22 = g2.g2 - J^2, Y12 = g1.g2,
       S = (1/8) psi_C(Y) |J|^-3.
   Why not over a: on a sliver both metrics carry ~1e-16 of the edge^2 of round-off, and
   c2^T (a - abar) c2 multiplies it by |c2|^2 ~ edge^2 where the true Y22 is ~ strain J^2, so the
   thin direction's strain was off by ~1e-16 / h_rel^2 (h_rel = height / edge; a probe, session 55:
   x = 1.01 u on a triangle of h_rel 1e-8 gave 8.3e-11 J for 2.2e-10 J). Here g2 ~ J is formed from
   edge-sized terms, so that error is ~1e-16 / h_rel; at rest (x = u lifted) Y is exactly 0 as
   before. Derivatives over z = (w1..w4, e1, e2) (10), with A_i = dg_i/dz (3 x 10):
     dY11 = 2 g1^T A1 - 2 J dJ,  dY22 = 2 g2^T A2 - 2 J dJ,  dY12 = g2^T A1 + g1^T A2,
     d2Y11 = 2 A1^T A1 + 2 (g1 at (w1, e1), (w2, e2)) - 2 dJ dJ^T - 2 J d2J, d2Y22 likewise with
     g2 at (w3, e1), (w4, e2), d2Y12 = A1^T A2 + A2^T A1 + g2 at (w1, e1), (w2, e2) + g1 at (w3, e1),
     (w4, e2) (symmetric pairs, one per component); N = psi_C(Y), W_z, W_zz as in rc__sh_Wo; and
   z = P q is linear in the DOFs (e from x, w = Bw u), so the DOF Hessian is P^T W_zz P. */
static double rc__sh_stretch_tri(const double x[9], const double u[6], const rc__sh_coef *c, int flags,
                                 double *grad, double *hess)
{
    const double *C = c->Cs;
    const double w[4] = { u[5] - u[1], u[1] - u[3], u[0] - u[4], u[2] - u[0] };
    double e1[3], e2[3], g1[3], g2[3], J, fd[3], Y[3], N, NY[3], v;
    int withu = !(flags & RC__SH_NO_U), n = withu ? 15 : 9, k;
    for (k = 0; k < 3; ++k) {
        e1[k] = x[3 + k] - x[k];
        e2[k] = x[6 + k] - x[k];
        g1[k] = w[0] * e1[k] + w[1] * e2[k];
        g2[k] = w[2] * e1[k] + w[3] * e2[k];
    }
    J = w[0] * w[3] - w[1] * w[2];
    rc__sh_jfactors(J, fd);
    Y[0] = rc__dot3(g1, g1) - J * J;
    Y[1] = rc__dot3(g2, g2) - J * J;
    Y[2] = rc__dot3(g1, g2);
    N = rc__sh_psi(C, Y, NY);
    v = 0.125 * N * fd[0];
    if (!(flags & (RC__SH_GRAD | RC__SH_HESS))) return v;
    {
        /* z = (w1 w2 w3 w4 | e1 (4..6) | e2 (7..9)) */
        double A1[3][10], A2[3][10], dJ[10], dY[3][10], Nz[10], Wz[10], hc = 0.125;
        int i, j, r;
        memset(A1, 0, sizeof A1); memset(A2, 0, sizeof A2); memset(dJ, 0, sizeof dJ);
        for (k = 0; k < 3; ++k) {
            A1[k][0] = e1[k]; A1[k][1] = e2[k]; A1[k][4 + k] = w[0]; A1[k][7 + k] = w[1];
            A2[k][2] = e1[k]; A2[k][3] = e2[k]; A2[k][4 + k] = w[2]; A2[k][7 + k] = w[3];
        }
        dJ[0] = w[3]; dJ[1] = -w[2]; dJ[2] = -w[1]; dJ[3] = w[0];
        for (j = 0; j < 10; ++j) {
            double a11 = 0.0, a22 = 0.0, a12 = 0.0;
            for (k = 0; k < 3; ++k) {
                a11 += g1[k] * A1[k][j];
                a22 += g2[k] * A2[k][j];
                a12 += g2[k] * A1[k][j] + g1[k] * A2[k][j];
            }
            dY[0][j] = 2.0 * a11 - 2.0 * J * dJ[j];
            dY[1][j] = 2.0 * a22 - 2.0 * J * dJ[j];
            dY[2][j] = a12;
        }
        for (j = 0; j < 10; ++j) {
            Nz[j] = NY[0] * dY[0][j] + NY[1] * dY[1][j] + NY[2] * dY[2][j];
            Wz[j] = hc * (fd[0] * Nz[j] + N * fd[1] * dJ[j]);
        }
        if (grad) {
            for (k = 0; k < 3; ++k) {
                grad[k] = -(Wz[4 + k] + Wz[7 + k]);
                grad[3 + k] = Wz[4 + k];
                grad[6 + k] = Wz[7 + k];
            }
            if (withu)
                for (j = 0; j < 6; ++j)
                    grad[9 + j] = Wz[0] * rc__sh_Bw[0][j] + Wz[1] * rc__sh_Bw[1][j] + Wz[2] * rc__sh_Bw[2][j] + Wz[3] * rc__sh_Bw[3][j];
        }
        if ((flags & RC__SH_HESS) && hess) {
            double Hz[100], sY = -2.0 * (NY[0] + NY[1]), T[10][15];
            int nz0 = withu ? 0 : 4;   /* fixed u: only the e block reaches the DOFs, and only it is formed */
            /* dY^T Q dY + sum_k N_Yk d2Y_k, first the parts over the A's */
            for (i = nz0; i < 10; ++i)
                for (j = i; j < 10; ++j) {
                    double a11 = 0.0, a22 = 0.0, a12 = 0.0, h;
                    for (k = 0; k < 3; ++k) {
                        a11 += A1[k][i] * A1[k][j];
                        a22 += A2[k][i] * A2[k][j];
                        a12 += A1[k][i] * A2[k][j] + A2[k][i] * A1[k][j];
                    }
                    h = C[0] * dY[0][i] * dY[0][j] + C[1] * (dY[0][i] * dY[1][j] + dY[1][i] * dY[0][j]) +
                        C[2] * dY[1][i] * dY[1][j] + 4.0 * C[3] * dY[2][i] * dY[2][j] +
                        2.0 * NY[0] * a11 + 2.0 * NY[1] * a22 + NY[2] * a12 + sY * dJ[i] * dJ[j];
                    Hz[10 * i + j] = Hz[10 * j + i] = h;
                }
            if (withu) {
                /* -2 J d2J (Y11 and Y22): (w1, w4) +1, (w2, w3) -1 */
                Hz[3] += sY * J; Hz[30] += sY * J;
                Hz[12] -= sY * J; Hz[21] -= sY * J;
                /* the g terms of d2g: (w1, e1_k), (w2, e2_k) carry g1 in Y11 and g2 in Y12; (w3, e1_k),
                   (w4, e2_k) carry g2 in Y22 and g1 in Y12 */
                for (k = 0; k < 3; ++k) {
                    double a = 2.0 * NY[0] * g1[k] + NY[2] * g2[k], b = 2.0 * NY[1] * g2[k] + NY[2] * g1[k];
                    Hz[10 * 0 + 4 + k] += a; Hz[10 * (4 + k) + 0] += a;
                    Hz[10 * 1 + 7 + k] += a; Hz[10 * (7 + k) + 1] += a;
                    Hz[10 * 2 + 4 + k] += b; Hz[10 * (4 + k) + 2] += b;
                    Hz[10 * 3 + 7 + k] += b; Hz[10 * (7 + k) + 3] += b;
                }
                rc__sh_law_hess(10, hc, fd, N, Nz, dJ, Hz);
            } else   /* on the e block dJ = 0, so the law's chain rule is the factor hc |J|^-3 alone */
                for (i = 4; i < 10; ++i)
                    for (j = 4; j < 10; ++j) Hz[10 * i + j] = hc * (fd[0] * Hz[10 * i + j]);   /* rc__sh_law_hess's rounding */
            /* T = W_zz P (z rows from nz0, DOF columns), then H = P^T T */
            for (i = nz0; i < 10; ++i) {
                const double *h = Hz + 10 * i;
                for (k = 0; k < 3; ++k) {
                    T[i][3 + k] = h[4 + k];
                    T[i][6 + k] = h[7 + k];
                    T[i][k] = -(h[4 + k] + h[7 + k]);
                }
                if (withu)
                    for (j = 0; j < 6; ++j)
                        T[i][9 + j] = h[0] * rc__sh_Bw[0][j] + h[1] * rc__sh_Bw[1][j] + h[2] * rc__sh_Bw[2][j] + h[3] * rc__sh_Bw[3][j];
            }
            for (j = 0; j < n; ++j) {
                for (k = 0; k < 3; ++k) {
                    hess[(3 + k) * n + j] = T[4 + k][j];
                    hess[(6 + k) * n + j] = T[7 + k][j];
                    hess[k * n + j] = -(T[4 + k][j] + T[7 + k][j]);
                }
                if (withu)
                    for (r = 0; r < 6; ++r)
                        hess[(9 + r) * n + j] = T[0][j] * rc__sh_Bw[0][r] + T[1][j] * rc__sh_Bw[1][r] + T[2][j] * rc__sh_Bw[2][r] +
                                                T[3][j] * rc__sh_Bw[3][r];
            }
            rc__sh_finish_hess(n, hess, flags);
        }
    }
    return v;
}

/* ---- one edge's second-fundamental-form entry II = 2 h S(theta/2 + s phi) (DESIGN §2; S = sin up to
   sharp folds, see rc__sh_fold_profile).
   Edge from A to B (the triangle's own traversal q -> A -> B), opposite vertex q, flap vertex p
   (NULL on a boundary). With e = B - A, a = q - A, c = p - A:
     n_T = e x a, n_F = c x e (unnormalised face normals, both consistently wound);
     h = |n_T| / |e| = sqrt(N / ee),  N = |n_T|^2 = ee aa - ea^2     (height of q over the edge)
     theta = atan2(Y, X),  X = n_T.n_F = ec ea - ee ac,  Y = (n_T x n_F).e/|e| = -D |e|,
       D = det[e a c] = e.(a x c)   (the signed rotation about e taking n_T to n_F; boundary: 0)
   The mid-edge normal is n_T rotated about e by psi = theta/2 + s phi, and v.m = 2 h sin(psi) (the
   vector form; S = sin is then continued past psi0 by rc__sh_fold_profile)
   with v = A + B - 2q; s = +1 when the edge's lower global vertex is A.
   Derivatives in closed form over z = (e, a, c) (9) and phi. Every ingredient is a polynomial in
   dot products (ee = e.e, ea, aa, ec, ac) whose gradients are the obvious vectors:
     N_z = (2 aa e - 2 ea a, 2 ee a - 2 ea e, 0)          X_z = (ec a + ea c - 2 ac e, ec e - ee c, ea e - ee a)
     D_z = (a x c, c x e, e x a)                           |e|_z = (e/|e|, 0, 0)
   and whose Hessians are constant or rank-1 blocks (blocks ordered e, a, c; [v]x = cross matrix):
     N_zz: ee 2aa I - 2 a a^T, aa 2ee I - 2 e e^T, ea -2ea I + 4 e a^T - 2 a e^T
     X_zz: ee c a^T + a c^T - 2ac I, ea ec I + c e^T - 2 e c^T, ec ea I + a e^T - 2 e a^T, ac e e^T - ee I
     D_zz: ea -[c]x, ec [a]x, ac -[e]x        |e|_zz: ee I/|e| - e e^T/|e|^3
   Then h = f(N, ee) = N^1/2 ee^-1/2 (f_N = h/2N, f_ee = -h/2ee, f_NN = -h/4N^2, f_Nee = -h/4N ee,
   f_eeee = 3h/4ee^2), theta = atan2(Y, X) (theta_X = -Y/r2, theta_Y = X/r2, theta_XX = 2XY/r4,
   theta_YY = -theta_XX, theta_XY = (Y^2 - X^2)/r4, r2 = X^2 + Y^2), Y = -D |e|, and
     II_z  = 2 S h_z + h S' theta_z,   II_phi = 2 s h S'        (S, S', S'' at psi; sin: S' = cos, S'' = -sin)
     II_zz = 2 S h_zz + S' (h_z theta_z^T + theta_z h_z^T) + h S' theta_zz + (h/2) S'' theta_z theta_z^T
     II_zphi = s (2 S' h_z + h S'' theta_z),   II_phiphi = 2 s^2 h S''.
   All first derivatives lie in the span of the four vectors V = (N_z, |e|_z, X_z, D_z)
   (ee_z = 2|e| |e|_z, Y_z = -|e| D_z - D |e|_z), so every rank-1 term above is collected into one
   4x4 symmetric K and added as V^T K V; the rest are the constant/sparse blocks listed.
   rc__sh_edge_eval computes the value and (order >= 1) the gradient, keeping what the Hessian
   needs; rc__sh_edge_hess_add then adds w * d2II into a stencil Hessian. */
typedef struct rc__sh_edged {
    double II, gphi, g[9];   /* value, dII/dphi, dII/dz over z = (e, a, c) */
    double e[3], a[3], c[3], V[4][9], ee, ea, aa, ec, ac, se, D, h, N, sn, cs, s;
    double thX, thY, thXX, thXY, s2;   /* s2: S''(psi) (sn, cs: S, S') */
    double th;               /* the hinge angle theta, unwrapped next to th_ref (0 on a boundary) */
    double kh[4], kt[4];     /* coefficients of h_z and theta_z in the basis V */
    int flap;
} rc__sh_edged;

/* the angle th + 2 pi k nearest to ref; th itself (bit for bit) when it is within pi of ref */
static double rc__angle_near(double th, double ref)
{
    double d = th - ref;
    if (d > RC__PI) return th - 2.0 * RC__PI * ceil((d - RC__PI) / (2.0 * RC__PI));
    if (d < -RC__PI) return th + 2.0 * RC__PI * ceil((-d - RC__PI) / (2.0 * RC__PI));
    return th;
}

/* The fold profile S of II = 2 h S(psi), psi = theta/2 + s phi: S = sin(psi) (DESIGN §2) up to
   |psi| = psi0 = 1.2 rad (folds up to ~137 degrees with phi = 0), continued along its tangent
   beyond (odd, C1: S = sin psi0 + cos psi0 (|psi| - psi0), S' = cos psi0, S'' = 0). Why not sin
   all the way: it saturates at the flat fold, psi = pi/2, where dII/dphi = 0 and d2II/dphi2 < 0,
   so the director angle loses its grip (the exact Hessian's phi diagonal turns negative, the
   projected one singular: spikes steps stalled there with phi 50-100x its tolerance and the
   energy flat along the step), and past it sin falls again, so once the hinge angle is tracked
   through pi (rc__sim_track_hinges) folding the faces through each other would LOWER the energy.
   The tangent keeps II increasing and phi convex everywhere. It changes the energy only of folds
   sharper than psi0: at a flat fold II is 6.6% above sin's. Gives S, S', S''. */
#define RC__FOLD_PSI0 1.2
static void rc__sh_fold_profile(double psi, double *S, double *S1, double *S2)
{
    double a = fabs(psi);
    if (a <= RC__FOLD_PSI0) {
        *S = sin(psi);
        *S1 = cos(psi);
        *S2 = -*S;
    } else {
        *S = (psi < 0.0 ? -1.0 : 1.0) * (sin(RC__FOLD_PSI0) + cos(RC__FOLD_PSI0) * (a - RC__FOLD_PSI0));
        *S1 = cos(RC__FOLD_PSI0);
        *S2 = 0.0;
    }
}

static void rc__sh_edge_eval(const double *q, const double *A, const double *B, const double *p, double phi,
                             double s, double th_ref, int order, rc__sh_edged *E)
{
    double psi, th = 0.0;
    int k;
    for (k = 0; k < 3; ++k) {
        E->e[k] = B[k] - A[k];
        E->a[k] = q[k] - A[k];
        E->c[k] = p ? p[k] - A[k] : 0.0;
    }
    E->flap = p != NULL;
    E->s = s;
    E->ee = rc__dot3(E->e, E->e);
    E->ea = rc__dot3(E->e, E->a);
    E->aa = rc__dot3(E->a, E->a);
    {
        /* N = |e x a|^2 (= ee aa - ea^2 by Lagrange's identity, which cancels catastrophically on
           a sliver: a sheet pulled by 1e12 N into a needle 100 m long and 1e-5 m wide gave N <= 0,
           h NaN, and a NaN gradient with a finite energy; the cross product stays >= 0) */
        double ea_x[3];
        rc__cross3(ea_x, E->e, E->a);
        E->N = rc__dot3(ea_x, ea_x);
    }
    E->h = sqrt(E->N / E->ee);
    E->se = sqrt(E->ee);
    if (p) {
        double ax[3], X, Y;
        E->ec = rc__dot3(E->e, E->c);
        E->ac = rc__dot3(E->a, E->c);
        rc__cross3(ax, E->a, E->c);
        E->D = rc__dot3(E->e, ax);
        X = E->ec * E->ea - E->ee * E->ac;
        Y = -E->D * E->se;
        th = atan2(Y, X);
        /* unwrapped next to th_ref (a simulator's tracked hinge angle): atan2 jumps by 2 pi where
           the hinge folds flat onto itself, and psi = theta/2 + s phi with it by pi, flipping II */
        th = rc__angle_near(th, th_ref);
        if (order >= 1) {
            double r2 = X * X + Y * Y, r4 = r2 * r2;
            E->thX = -Y / r2;
            E->thY = X / r2;
            E->thXX = 2.0 * X * Y / r4;
            E->thXY = (Y * Y - X * X) / r4;
        }
    } else {
        E->ec = E->ac = E->D = 0.0;
        E->thX = E->thY = E->thXX = E->thXY = 0.0;
    }
    E->th = th;
    psi = 0.5 * th + s * phi;
    rc__sh_fold_profile(psi, &E->sn, &E->cs, &E->s2);
    E->II = 2.0 * E->h * E->sn;
    if (order < 1) return;
    {
        double (*V)[9] = E->V, cx[3], ex[3], fN = E->h / (2.0 * E->N), fee = -E->h / (2.0 * E->ee);
        for (k = 0; k < 3; ++k) {
            V[0][k] = 2.0 * (E->aa * E->e[k] - E->ea * E->a[k]);
            V[0][3 + k] = 2.0 * (E->ee * E->a[k] - E->ea * E->e[k]);
            V[0][6 + k] = 0.0;
            V[1][k] = E->e[k] / E->se;
            V[1][3 + k] = V[1][6 + k] = 0.0;
            V[2][k] = E->ec * E->a[k] + E->ea * E->c[k] - 2.0 * E->ac * E->e[k];
            V[2][3 + k] = E->ec * E->e[k] - E->ee * E->c[k];
            V[2][6 + k] = E->ea * E->e[k] - E->ee * E->a[k];
        }
        rc__cross3(V[3], E->a, E->c);
        rc__cross3(cx, E->c, E->e);
        rc__cross3(ex, E->e, E->a);
        for (k = 0; k < 3; ++k) {
            V[3][3 + k] = cx[k];
            V[3][6 + k] = ex[k];
        }
        /* h_z = f_N N_z + f_ee 2|e| |e|_z;  theta_z = theta_X X_z + theta_Y (-D |e|_z - |e| D_z) */
        E->kh[0] = fN;
        E->kh[1] = 2.0 * E->se * fee;
        E->kh[2] = E->kh[3] = 0.0;
        E->kt[0] = 0.0;
        E->kt[1] = -E->D * E->thY;
        E->kt[2] = E->thX;
        E->kt[3] = -E->se * E->thY;
        for (k = 0; k < 9; ++k) {
            double gh = E->kh[0] * V[0][k] + E->kh[1] * V[1][k];
            double gt = E->kt[1] * V[1][k] + E->kt[2] * V[2][k] + E->kt[3] * V[3][k];
            E->g[k] = 2.0 * E->sn * gh + E->h * E->cs * gt;
        }
        E->gphi = 2.0 * s * E->h * E->cs;
    }
}

/* H (leading dimension ld) += w d2II over the stencil: own-vertex offsets pA, pB, pq, flap offset
   pp, angle index iphi. z = (e, a, c) = (B - A, q - A, p - A), so the point Hessian is L^T M L:
   blocks of B, q, p are those of e, a, c, and A's row/column is minus the sum of the others. */
static void rc__sh_edge_hess_add(const rc__sh_edged *E, double w, double *H, int ld, int pA, int pB, int pq,
                                 int pp, int iphi)
{
    double M[81], K[16], KV[4][9], mphi[9], sY, sX, sN, sEE, ws = w * E->sn, wc = w * E->cs, w2 = w * E->s2, h = E->h;
    int i, j, k, nz = E->flap ? 3 : 2, nb = E->flap ? 4 : 2;
    const double *e = E->e, *a = E->a, *c = E->c;
    /* K (4x4, symmetric) collects the rank-1 terms, in the basis V = (N_z, |e|_z, X_z, D_z) */
    {
        double fNN = -h / (4.0 * E->N * E->N), fNe = -h / (4.0 * E->N * E->ee), fee2 = 0.75 * h / (E->ee * E->ee);
        const double *kh = E->kh, *kt = E->kt;
        double gY[4], c2 = 2.0 * ws, ch = h * wc;
        gY[0] = 0.0; gY[1] = -E->D; gY[2] = 0.0; gY[3] = -E->se;
        for (i = 0; i < 4; ++i)
            for (j = 0; j < 4; ++j)
                K[4 * i + j] = wc * (kh[i] * kt[j] + kt[i] * kh[j]) + 0.5 * h * w2 * kt[i] * kt[j] +
                               ch * (E->thXY * ((i == 2) * gY[j] + gY[i] * (j == 2)) - E->thXX * gY[i] * gY[j]);
        /* h_zz rank part: f_NN N_z N_z^T + f_Nee (N_z ee_z^T + ee_z N_z^T) + f_eeee ee_z ee_z^T */
        K[0] += c2 * fNN;
        K[1] += c2 * fNe * 2.0 * E->se;
        K[4] += c2 * fNe * 2.0 * E->se;
        K[5] += c2 * fee2 * 4.0 * E->ee;
        /* theta_XX X_z X_z^T (theta_YY = -theta_XX was in the gY gY term above) */
        K[10] += ch * E->thXX;
        /* theta_Y Y_zz rank part: -(D_z |e|_z^T + |e|_z D_z^T) + (D/|e|) |e|_z |e|_z^T */
        K[7] -= ch * E->thY;
        K[13] -= ch * E->thY;
        K[5] += ch * E->thY * E->D / E->se;
    }
    /* M = V^T K V (only the first nb basis vectors are nonzero; boundary: N_z, |e|_z) */
    for (k = 0; k < nb; ++k)
        for (j = 0; j < 9; ++j) {
            double t = 0.0;
            for (i = 0; i < nb; ++i) t += K[4 * k + i] * E->V[i][j];
            KV[k][j] = t;
        }
    for (i = 0; i < 9; ++i)
        for (j = 0; j < 9; ++j) {
            double t = 0.0;
            for (k = 0; k < nb; ++k) t += E->V[k][i] * KV[k][j];
            M[9 * i + j] = t;
        }
    /* constant/sparse blocks: 2 sin h_zz (f_N N_zz + f_ee ee_zz), h cos theta_zz
       (theta_X X_zz + theta_Y (-|e| D_zz - D |e|_zz)) */
    sN = 2.0 * ws * h / (2.0 * E->N);
    sEE = 2.0 * ws * (-h / (2.0 * E->ee));
    sX = h * wc * E->thX;
    sY = h * wc * E->thY;
    {
        double dI = sN * 2.0 * E->aa + 2.0 * sEE - 2.0 * sX * E->ac - sY * E->D / E->se; /* ee block diagonal */
        double aI = sN * 2.0 * E->ee;
        double eaI = -2.0 * sN * E->ea + sX * E->ec, ecI = sX * E->ea, acI = -sX * E->ee, ys = -sY * E->se;
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) {
                double bee = -2.0 * sN * a[i] * a[j] + sX * (c[i] * a[j] + a[i] * c[j]);
                double baa = -2.0 * sN * e[i] * e[j];
                double bea = sN * (4.0 * e[i] * a[j] - 2.0 * a[i] * e[j]) + sX * (c[i] * e[j] - 2.0 * e[i] * c[j]);
                double bec = sX * (a[i] * e[j] - 2.0 * e[i] * a[j]);
                double bac = sX * e[i] * e[j];
                if (i == j) {
                    bee += dI;
                    baa += aI;
                    bea += eaI;
                    bec += ecI;
                    bac += acI;
                }
                M[9 * i + j] += bee;
                M[9 * (3 + i) + 3 + j] += baa;
                M[9 * i + 3 + j] += bea;
                M[9 * (3 + j) + i] += bea;
                if (nz == 3) {
                    M[9 * i + 6 + j] += bec;
                    M[9 * (6 + j) + i] += bec;
                    M[9 * (3 + i) + 6 + j] += bac;
                    M[9 * (6 + j) + 3 + i] += bac;
                }
            }
        if (nz == 3) {
            /* -|e| theta_Y h cos D_zz: ea -[c]x, ec [a]x, ac -[e]x; [v]x = [[0 -v2 v1] [v2 0 -v0] [-v1 v0 0]] */
            const double *vv[3];
            double sg[3];
            int bi[3], bj[3], t;
            vv[0] = c; sg[0] = -ys; bi[0] = 0; bj[0] = 3;
            vv[1] = a; sg[1] = ys;  bi[1] = 0; bj[1] = 6;
            vv[2] = e; sg[2] = -ys; bi[2] = 3; bj[2] = 6;
            for (t = 0; t < 3; ++t) {
                double X01 = -sg[t] * vv[t][2], X02 = sg[t] * vv[t][1], X12 = -sg[t] * vv[t][0];
                int r0 = bi[t], c0 = bj[t];
                M[9 * (r0 + 0) + c0 + 1] += X01; M[9 * (c0 + 1) + r0 + 0] += X01;
                M[9 * (r0 + 1) + c0 + 0] -= X01; M[9 * (c0 + 0) + r0 + 1] -= X01;
                M[9 * (r0 + 0) + c0 + 2] += X02; M[9 * (c0 + 2) + r0 + 0] += X02;
                M[9 * (r0 + 2) + c0 + 0] -= X02; M[9 * (c0 + 0) + r0 + 2] -= X02;
                M[9 * (r0 + 1) + c0 + 2] += X12; M[9 * (c0 + 2) + r0 + 1] += X12;
                M[9 * (r0 + 2) + c0 + 1] -= X12; M[9 * (c0 + 1) + r0 + 2] -= X12;
            }
        }
    }
    /* phi column: w s (2 cos h_z - h sin theta_z) */
    for (j = 0; j < 9; ++j) {
        double t = 0.0;
        for (k = 0; k < nb; ++k) t += (2.0 * wc * E->kh[k] + h * w2 * E->kt[k]) * E->V[k][j];
        mphi[j] = E->s * t;
    }
    /* scatter L^T M L */
    {
        int P[3], r, cc, Y, Z;
        double TA[9], pa[3];
        P[0] = pB; P[1] = pq; P[2] = pp;
        for (r = 0; r < 9; ++r) TA[r] = 0.0;
        for (r = 0; r < 3; ++r) pa[r] = 0.0;
        for (Z = 0; Z < nz; ++Z) {
            for (r = 0; r < 3; ++r)
                for (cc = 0; cc < 3; ++cc) {
                    double t = 0.0;
                    for (Y = 0; Y < nz; ++Y) {
                        double m = M[9 * (3 * Y + r) + 3 * Z + cc];
                        H[(P[Y] + r) * ld + P[Z] + cc] += m;
                        t += m;
                    }
                    TA[3 * r + cc] += t; /* t: column block sum, row r of A against Z */
                    H[(pA + r) * ld + P[Z] + cc] -= t;
                    H[(P[Z] + cc) * ld + pA + r] -= t;
                }
            for (r = 0; r < 3; ++r) {
                double m = mphi[3 * Z + r];
                H[(P[Z] + r) * ld + iphi] += m;
                H[iphi * ld + P[Z] + r] += m;
                pa[r] += m;
            }
        }
        for (r = 0; r < 3; ++r) {
            for (cc = 0; cc < 3; ++cc) H[(pA + r) * ld + pA + cc] += TA[3 * r + cc];
            H[(pA + r) * ld + iphi] -= pa[r];
            H[iphi * ld + pA + r] -= pa[r];
        }
        H[iphi * ld + iphi] += 2.0 * E->s * E->s * h * w2;
    }
}
/* plain-double h_i and theta_i of the same edge (used by the angle minimiser) */
static void rc__sh_edge_geom(const double *q, const double *A, const double *B, const double *p, double *h, double *theta)
{
    double e[3], a[3], c[3], ax[3], ee, ea, ec, ac, D;
    rc__sub3(e, B, A);
    rc__sub3(a, q, A);
    ee = rc__dot3(e, e);
    ea = rc__dot3(e, a);
    rc__cross3(ax, e, a);   /* |e x a|^2 = ee aa - ea^2 without the cancellation (rc__sh_edge_eval) */
    *h = sqrt(rc__dot3(ax, ax) / ee);
    if (!p) {
        *theta = 0.0;
        return;
    }
    rc__sub3(c, p, A);
    ec = rc__dot3(e, c);
    ac = rc__dot3(a, c);
    rc__cross3(ax, a, c);
    D = rc__dot3(e, ax);
    *theta = atan2(-D * sqrt(ee), ec * ea - ee * ac);
}

/* edge orientation sign of edge i of a triangle with global vertex ids vid: +1 when the edge runs
   (in the triangle's traversal i+1 -> i+2) from its lower to its higher global vertex */
static double rc__sh_edge_sign(const int vid[3], int i)
{
    return vid[(i + 1) % 3] < vid[(i + 2) % 3] ? 1.0 : -1.0;
}

/* ---- bending: B = A psi_Cb(D_u^-T b D_u^-1) (isotropic: bending_scale tau^3/12 A |abar^-1 b|^2_SV) with
   b = [[II0 + II1, II0], [II0, II0 + II2]] in the (e1, e2) frame of a (e1 = x1 - x0, e2 = x2 - x0):
   with the Crouzeix-Raviart interpolation of the three mid-edge normals n_i, b_jk = e_j . d_k n
   gives exactly this (e1.n0 = e2.n0 = II0/2, e1.n1 = -II1/2, e2.n2 = -II2/2, e1.n2 = e2.n1 = 0).
   DOFs [x0 x1 x2 | p0 p1 p2 | phi0 phi1 phi2 | u0 u1 u2] (27; 21 with RC__SH_NO_U).
   xf: flap positions (9 doubles; entries of edges without flap are ignored); flap_mask bit i set
   when edge i has a flap vertex; vid: the own vertices' global ids (edge signs s_i).
   Hessian = J^T W'' J (chain, Gauss-Newton-like) + sum_i (dW/dII_i) d2II_i (edge curvature) + the
   u terms; with b = L II, dW/dII = L^T W_b.
   RC__SH_GAUSS_NEWTON with RC__SH_NO_U: the Hessian is J^T W_bb J alone. W is a quadratic form in
   b that is positive definite for every material rc_sim_create accepts (isotropic: beta > 0 and
   alpha + beta = Y / (2 (1 - nu)) > 0; orthotropic: the checked stiffness inequalities), so this
   is PSD by construction and replaces a per-stencil eigen-projection as the convex model of the
   (x, phi) Newton fallback (rc__sim_kernel_B). With u the W_ab, W_aa terms are indefinite, so the
   flag is ignored there. */
static double rc__sh_bend_tri_ref(const double x[9], const double xf[9], int flap_mask, const double phi[3],
                                  const int vid[3], const double u[6], const rc__sh_coef *c, int flags,
                                  const double *th_ref, double *grad, double *hess);
/* the hinge angles in (-pi, pi] (stateless callers: a single configuration) */
static double rc__sh_bend_tri(const double x[9], const double xf[9], int flap_mask, const double phi[3],
                              const int vid[3], const double u[6], const rc__sh_coef *c, int flags,
                              double *grad, double *hess)
{
    return rc__sh_bend_tri_ref(x, xf, flap_mask, phi, vid, u, c, flags, NULL, grad, hess);
}

/* th_ref (3, may be NULL): the edges' hinge angles as tracked by the simulator; each hinge angle is
   taken within pi of its th_ref, so the energy stays continuous through a flat fold */
static double rc__sh_bend_tri_ref(const double x[9], const double xf[9], int flap_mask, const double phi[3],
                                  const int vid[3], const double u[6], const rc__sh_coef *c, int flags,
                                  const double *th_ref, double *grad, double *hess)
{
    static const double L[3][3] = {{1, 1, 0}, {1, 0, 0}, {1, 0, 1}}; /* b_k = sum_i L[k][i] II_i */
    rc__sh_edged Ed[3];
    rc__sh_wo W;
    double b[3], Jb[3 * 21], wII[3];
    int withu = !(flags & RC__SH_NO_U), n = withu ? 27 : 21, i, k, j;
    int need = flags & (RC__SH_GRAD | RC__SH_HESS), order = (flags & RC__SH_HESS) ? 2 : need ? 1 : 0;
    for (i = 0; i < 3; ++i) {
        const double *p = (flap_mask >> i & 1) ? xf + 3 * i : NULL;
        rc__sh_edge_eval(x + 3 * i, x + 3 * ((i + 1) % 3), x + 3 * ((i + 2) % 3), p, phi[i], rc__sh_edge_sign(vid, i),
                         th_ref ? th_ref[i] : 0.0, order, &Ed[i]);
    }
    for (k = 0; k < 3; ++k) b[k] = L[k][0] * Ed[0].II + L[k][1] * Ed[1].II + L[k][2] * Ed[2].II;
    rc__sh_Wo(u, b, c->Cb, order, &W);
    if (!need) return W.v;
    {
        /* dII_i/dq over the 21 world DOFs: A = -(e + a + c), B = e, q = a, p = c */
        double gII[3][21];
        for (i = 0; i < 3; ++i) {
            const rc__sh_edged *E = &Ed[i];
            int pA = 3 * ((i + 1) % 3), pB = 3 * ((i + 2) % 3), pq = 3 * i, pp = 9 + 3 * i, d;
            for (j = 0; j < 21; ++j) gII[i][j] = 0.0;
            for (d = 0; d < 3; ++d) {
                gII[i][pA + d] = -(E->g[d] + E->g[3 + d] + E->g[6 + d]);
                gII[i][pB + d] = E->g[d];
                gII[i][pq + d] = E->g[3 + d];
                if (E->flap) gII[i][pp + d] = E->g[6 + d];
            }
            gII[i][18 + i] = E->gphi;
        }
        for (k = 0; k < 3; ++k)
            for (j = 0; j < 21; ++j) Jb[k * 21 + j] = L[k][0] * gII[0][j] + L[k][1] * gII[1][j] + L[k][2] * gII[2][j];
        rc__sh_chain_o(&W, 21, Jb, withu, (flags & RC__SH_GRAD) ? grad : NULL, (flags & RC__SH_HESS) ? hess : NULL, n);
        if (!(flags & RC__SH_HESS)) return W.v;
        if ((flags & RC__SH_GAUSS_NEWTON) && !withu) return W.v;
        /* second-order part: sum_i wII_i d^2 II_i, wII_i = sum_k W_bk L[k][i] */
        for (i = 0; i < 3; ++i) wII[i] = W.g[4] * L[0][i] + W.g[5] * L[1][i] + W.g[6] * L[2][i];
        for (i = 0; i < 3; ++i)
            rc__sh_edge_hess_add(&Ed[i], wII[i], hess, n, 3 * ((i + 1) % 3), 3 * ((i + 2) % 3), 3 * i, 9 + 3 * i, 18 + i);
        /* w is linear in u (rc__sh_Bw): no u second-order term */
        rc__sh_finish_hess(n, hess, flags);
    }
    return W.v;
}

/* ---- MIPS quality regulariser: J = D_u Dm^-1 (Dm = D_u of the initial reference triangle u0),
   Psi = |J|_F^2 / det J, C = w max(0, Psi - eps)^3 (C^2 at the threshold; +inf if det J <= 0).
   DOFs [u0 u1 u2]. Dminv: Dm^-1 (row-major 2x2, precomputed by the caller; rc__mips_dminv).
   Projection: the 4x4 Hessian in J is projected (numerically, rc__psd_project_jacobi) and pulled back,
   H_u = B^T proj(H_J) B with B = dvecJ/du, which is PSD whenever proj(H_J) is. */
/* D = [u1 - u0, u2 - u0] (columns = edges, row-major [[a, b], [c, d]]) of the uv triangle (u0, u1,
   u2): returns det D = 2 A (signed) and D^-1 in Dinv (zeros when det is zero or not finite). One
   source for the inverse the MIPS term, the initial areas and the gradient recovery use. */
static double rc__uv_dinv(const double u0[2], const double u1[2], const double u2[2], double Dinv[4])
{
    double a = u1[0] - u0[0], b = u2[0] - u0[0], c = u1[1] - u0[1], d = u2[1] - u0[1];
    double det = a * d - b * c;
    if (det != 0.0 && rc__isfinite(det)) {
        Dinv[0] = d / det;
        Dinv[1] = -b / det;
        Dinv[2] = -c / det;
        Dinv[3] = a / det;
    } else {
        Dinv[0] = Dinv[1] = Dinv[2] = Dinv[3] = 0.0;
    }
    return det;
}
static int rc__mips_dminv(const double u0[6], double Dminv[4])
{
    double det = rc__uv_dinv(u0, u0 + 2, u0 + 4, Dminv);
    return det != 0.0 && rc__isfinite(det);
}
/* J = D_u Dm^-1 (row-major 2x2), the map from the initial to the current reference triangle;
   returns det J = A(u) / A(u0). MIPS = |J|_F^2 / det J. */
static double rc__mips_jacobian(const double u[6], const double Dminv[4], double J[4])
{
    double Du[4];
    int i, j;
    Du[0] = u[2] - u[0];
    Du[1] = u[4] - u[0];
    Du[2] = u[3] - u[1];
    Du[3] = u[5] - u[1];
    for (i = 0; i < 2; ++i)
        for (j = 0; j < 2; ++j) J[2 * i + j] = Du[2 * i] * Dminv[j] + Du[2 * i + 1] * Dminv[2 + j];
    return J[0] * J[3] - J[1] * J[2];
}
static double rc__mips_tri(const double u[6], const double Dminv[4], double w, double eps, int flags,
                           double *grad, double *hess)
{
    double J[4], f, d, Psi, z, cof[4], gP[4], HJ[16], Bm[4 * 6];
    int i, j, k, l, r;
    d = rc__mips_jacobian(u, Dminv, J);
    if ((flags & RC__SH_GRAD) && grad) memset(grad, 0, 6 * sizeof(double));
    if ((flags & RC__SH_HESS) && hess) memset(hess, 0, 36 * sizeof(double));
    if (!(d > 0.0)) return HUGE_VAL;
    f = J[0] * J[0] + J[1] * J[1] + J[2] * J[2] + J[3] * J[3];
    Psi = f / d;
    z = Psi - eps;
    if (z <= 0.0) return 0.0;
    if (!(flags & (RC__SH_GRAD | RC__SH_HESS))) return w * z * z * z;
    /* dPsi/dJ = 2J/d - f cof/d^2, cof = d(det)/dJ = [[J11, -J10], [-J01, J00]] */
    cof[0] = J[3];
    cof[1] = -J[2];
    cof[2] = -J[1];
    cof[3] = J[0];
    for (k = 0; k < 4; ++k) gP[k] = 2.0 * J[k] / d - f * cof[k] / (d * d);
    /* B: dJ_{ij}/du_{v,r}: only r == i; coefficient (-(M0j+M1j), M0j, M1j) for v = 0, 1, 2 */
    memset(Bm, 0, sizeof(Bm));
    for (i = 0; i < 2; ++i)
        for (j = 0; j < 2; ++j) {
            Bm[(2 * i + j) * 6 + 0 * 2 + i] = -(Dminv[j] + Dminv[2 + j]);
            Bm[(2 * i + j) * 6 + 1 * 2 + i] = Dminv[j];
            Bm[(2 * i + j) * 6 + 2 * 2 + i] = Dminv[2 + j];
        }
    if ((flags & RC__SH_GRAD) && grad)
        for (r = 0; r < 6; ++r) {
            double s = 0.0;
            for (k = 0; k < 4; ++k) s += 3.0 * w * z * z * gP[k] * Bm[k * 6 + r];
            grad[r] = s;
        }
    if ((flags & RC__SH_HESS) && hess) {
        /* Psi_JJ = 2I/d - 2(J cof^T + cof J^T)/d^2 + 2 f cof cof^T/d^3 - f detJJ/d^2, where
           detJJ pairs (00,11) and (01,10) with +1 and -1 */
        static const double dJJ[16] = {0, 0, 0, 1, 0, 0, -1, 0, 0, -1, 0, 0, 1, 0, 0, 0};
        double work[3 * 16 + 4];
        for (k = 0; k < 4; ++k)
            for (l = 0; l < 4; ++l) {
                double P = (k == l ? 2.0 / d : 0.0) - 2.0 * (J[k] * cof[l] + cof[k] * J[l]) / (d * d) +
                           2.0 * f * cof[k] * cof[l] / (d * d * d) - f * dJJ[4 * k + l] / (d * d);
                HJ[4 * k + l] = 3.0 * w * z * z * P + 6.0 * w * z * gP[k] * gP[l];
            }
        if (flags & (RC__SH_PROJECT | RC__SH_PROJECT_ABS))
            rc__psd_project_jacobi(4, HJ, (flags & RC__SH_PROJECT_ABS) ? RC__PROJECT_ABS : RC__PROJECT_CLAMP, work);
        for (r = 0; r < 6; ++r)
            for (j = 0; j < 6; ++j) {
                double s = 0.0;
                for (k = 0; k < 4; ++k) {
                    if (Bm[k * 6 + r] == 0.0) continue;
                    for (l = 0; l < 4; ++l) s += Bm[k * 6 + r] * HJ[4 * k + l] * Bm[l * 6 + j];
                }
                hess[r * 6 + j] = s;
            }
    }
    return w * z * z * z;
}

/* ---- inertia + gravity of one triangle with lumped mass m_i = rho tau sum A_T / 3:
     E_T = (rho tau A(u) / 3) sum_i [ |x_i - xt_i|^2 / (2 h^2) - g . (x_i - o) ],  A(u) = det D_u / 2 (signed)
   with the potential's origin o (NULL: 0; the simulator's is the step's centroid, rc_sim.origin: the
   total mass is constant, so o changes E by a constant and none of its derivatives, and keeps the
   terms' magnitudes, and the energy's round-off, independent of where the scene is)
   xt_i = x~(u_i) (9 doubles) and G_i = dx~/du_i (3x2 row-major each, 18 doubles) are given by the
   caller; x~ is affine in u_i (the first-order transfer of rc__sim_update_xtil), so d^2 x~/du^2 = 0.
   DOFs [x0 x1 x2 | u0 u1 u2] (15; 9 with RC__SH_NO_U). The exact Hessian is returned (it is
   indefinite in u in general); the PSD flags project it. */
static double rc__inertia_tri(const double x[9], const double u[6], const double xt[9], const double G[18],
                              double rho_tau, double h, const double grav[3], const double *origin, int flags,
                              double *grad, double *hess)
{
    double A2, dA2[6], r[9], phi[3], Phi, m, dm[6], gphi[6], ih2 = 1.0 / (h * h), c = rho_tau / 6.0;
    int withu = !(flags & RC__SH_NO_U), n = withu ? 15 : 9, i, j, k, l;
    /* 2A = (u1 - u0) x (u2 - u0) (2D cross), from differences: the shoelace sum of u_i x u_{i+1}
       on absolute coordinates cancels catastrophically far from the origin (a chart at 1e6 m with
       1 cm cells lost the masses' leading digits: 1.2 mm of drift in 20 steps, a fuzz probe);
       d(2A)/du_i = (d_y, -d_x), d = u_{i+1} - u_{i+2} */
    A2 = (u[2] - u[0]) * (u[5] - u[1]) - (u[3] - u[1]) * (u[4] - u[0]);
    for (i = 0; i < 3; ++i) {
        const double *b = u + 2 * ((i + 1) % 3), *e = u + 2 * ((i + 2) % 3);
        dA2[2 * i] = b[1] - e[1];
        dA2[2 * i + 1] = -(b[0] - e[0]);
    }
    m = c * A2; /* rho tau A / 3 */
    Phi = 0.0;
    for (i = 0; i < 3; ++i) {
        double xo[3];
        rc__sub3(r + 3 * i, x + 3 * i, xt + 3 * i);
        if (origin) rc__sub3(xo, x + 3 * i, origin); else memcpy(xo, x + 3 * i, sizeof xo);
        phi[i] = 0.5 * ih2 * rc__dot3(r + 3 * i, r + 3 * i) - rc__dot3(grav, xo);
        Phi += phi[i];
    }
    if (!(flags & (RC__SH_GRAD | RC__SH_HESS))) return m * Phi;
    for (k = 0; k < 6; ++k) dm[k] = c * dA2[k];
    /* d phi_i / du_i = -G_i^T r_i / h^2 */
    for (i = 0; i < 3; ++i)
        for (k = 0; k < 2; ++k)
            gphi[2 * i + k] = -ih2 * (G[6 * i + k] * r[3 * i] + G[6 * i + 2 + k] * r[3 * i + 1] + G[6 * i + 4 + k] * r[3 * i + 2]);
    if ((flags & RC__SH_GRAD) && grad) {
        for (i = 0; i < 3; ++i)
            for (k = 0; k < 3; ++k) grad[3 * i + k] = m * (ih2 * r[3 * i + k] - grav[k]);
        if (withu)
            for (k = 0; k < 6; ++k) grad[9 + k] = dm[k] * Phi + m * gphi[k];
    }
    if ((flags & RC__SH_HESS) && hess) {
        memset(hess, 0, (size_t)(n * n) * sizeof(double));
        for (k = 0; k < 9; ++k) hess[k * n + k] = m * ih2;
        if (withu) {
            /* x_i u_j: dm_j (r_i/h^2 - g) + delta_ij m (-G_i / h^2) */
            for (i = 0; i < 3; ++i)
                for (k = 0; k < 3; ++k)
                    for (j = 0; j < 6; ++j) {
                        double s = dm[j] * (ih2 * r[3 * i + k] - grav[k]);
                        if (j / 2 == i) s -= m * ih2 * G[6 * i + 2 * k + j % 2];
                        hess[(3 * i + k) * n + 9 + j] = s;
                        hess[(9 + j) * n + 3 * i + k] = s;
                    }
            /* u u: d2m Phi + dm_k gphi_l + gphi_k dm_l + delta m G_i^T G_i / h^2;
               d2(2A)/du_{i,a} du_{i+1,b} = eps_ab, eps = [[0, 1], [-1, 0]] */
            for (k = 0; k < 6; ++k)
                for (l = 0; l < 6; ++l) {
                    double s = dm[k] * gphi[l] + gphi[k] * dm[l];
                    int vi = k / 2, vj = l / 2, a = k % 2, b = l % 2;
                    if (vj == (vi + 1) % 3 && a != b) s += c * Phi * (a == 0 ? 1.0 : -1.0);
                    if (vi == (vj + 1) % 3 && a != b) s += c * Phi * (a == 0 ? -1.0 : 1.0);
                    if (vi == vj)
                        s += m * ih2 * (G[6 * vi + a] * G[6 * vi + b] + G[6 * vi + 2 + a] * G[6 * vi + 2 + b] +
                                        G[6 * vi + 4 + a] * G[6 * vi + 4 + b]);
                    hess[(9 + k) * n + 9 + l] = s;
                }
        }
        rc__sh_finish_hess(n, hess, flags);
    }
    return m * Phi;
}

/* ---- material point: a handle or load attached to the material coordinate q (a point of the
   flat reference domain), sampled through the triangle whose CURRENT reference triangle u holds
   it: barycentric weights w(u) with q = sum_i w_i u_i, world point X = sum_i w_i x_i, and
       E = k/2 |X - p|^2 - f.X     (a spring of stiffness k to target p, and a dead load f).
   DOFs [x0 x1 x2 | u0 u1 u2] (element A's layout). With D = [u1-u0, u2-u0], P = D^-1,
   xi = P (q - u0), w = (1 - xi1 - xi2, xi1, xi2), F = D_x P (the deformation gradient) and
   l_i = grad_u w_i (rows of L P, L = [[-1,-1],[1,0],[0,1]]), differentiating q = sum_i w_i u_i gives
   dw_i/du_j = -w_j l_i and dX/du_j = -w_j F (moving the mesh by delta in the material domain
   samples the point at -delta). With s = k (X - p) - f:
       g_xi = w_i s,   g_uj = -w_j F^T s,
       H_xi,xk = k w_i w_k I,   H_(xi,c),(uj,a) = -k w_i w_j F_ca - s_c w_j l_i,a,
       H_(uj,b),(uk,a) = k w_j w_k (F^T F)_ba + w_k l_j,a (s.F_b) + w_j l_k,b (s.F_a)
   (the u-u part from d2X/du_j,b du_k,a = w_k l_j,a F_b + w_j l_k,b F_a). Exact, unprojected; valid
   for q anywhere (extrapolates outside the triangle). Returns E; g, H may be NULL. */
static double rc__mp_tri(const double x[9], const double u[6], const double q[2], double k, const double p[3],
                         const double f[3], double *g, double *H)
{
    double D00 = u[2] - u[0], D01 = u[4] - u[0], D10 = u[3] - u[1], D11 = u[5] - u[1];
    double J = D00 * D11 - D01 * D10, P[4], xi0, xi1, w[3], l[3][2], F[6], X[3], r[3], sv[3], E = 0.0;
    int i, j, a, b, c;
    P[0] = D11 / J; P[1] = -D01 / J; P[2] = -D10 / J; P[3] = D00 / J;
    xi0 = P[0] * (q[0] - u[0]) + P[1] * (q[1] - u[1]);
    xi1 = P[2] * (q[0] - u[0]) + P[3] * (q[1] - u[1]);
    w[0] = 1.0 - xi0 - xi1; w[1] = xi0; w[2] = xi1;
    l[1][0] = P[0]; l[1][1] = P[1]; l[2][0] = P[2]; l[2][1] = P[3];
    l[0][0] = -P[0] - P[2]; l[0][1] = -P[1] - P[3];
    for (c = 0; c < 3; ++c) {
        double e1 = x[3 + c] - x[c], e2 = x[6 + c] - x[c];
        F[2 * c] = e1 * P[0] + e2 * P[2];
        F[2 * c + 1] = e1 * P[1] + e2 * P[3];
        X[c] = w[0] * x[c] + w[1] * x[3 + c] + w[2] * x[6 + c];
        r[c] = X[c] - p[c];
        E += 0.5 * k * r[c] * r[c] - f[c] * X[c];
        sv[c] = k * r[c] - f[c];
    }
    if (g) {
        for (i = 0; i < 3; ++i)
            for (c = 0; c < 3; ++c) g[3 * i + c] = w[i] * sv[c];
        for (j = 0; j < 3; ++j)
            for (a = 0; a < 2; ++a) g[9 + 2 * j + a] = -w[j] * (F[a] * sv[0] + F[2 + a] * sv[1] + F[4 + a] * sv[2]);
    }
    if (H) {
        double FtF[4], sF[2];
        memset(H, 0, sizeof(double) * 225);
        for (a = 0; a < 2; ++a) {
            sF[a] = F[a] * sv[0] + F[2 + a] * sv[1] + F[4 + a] * sv[2];
            for (b = 0; b < 2; ++b) FtF[2 * a + b] = F[a] * F[b] + F[2 + a] * F[2 + b] + F[4 + a] * F[4 + b];
        }
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j)
                for (c = 0; c < 3; ++c) H[(3 * i + c) * 15 + 3 * j + c] = k * w[i] * w[j];
        for (i = 0; i < 3; ++i)
            for (c = 0; c < 3; ++c)
                for (j = 0; j < 3; ++j)
                    for (a = 0; a < 2; ++a) {
                        double v = -k * w[i] * w[j] * F[2 * c + a] - sv[c] * w[j] * l[i][a];
                        H[(3 * i + c) * 15 + 9 + 2 * j + a] = v;
                        H[(9 + 2 * j + a) * 15 + 3 * i + c] = v;
                    }
        for (j = 0; j < 3; ++j)
            for (b = 0; b < 2; ++b)
                for (i = 0; i < 3; ++i)
                    for (a = 0; a < 2; ++a)
                        H[(9 + 2 * j + b) * 15 + 9 + 2 * i + a] =
                            k * w[j] * w[i] * FtF[2 * b + a] + w[i] * l[j][a] * sF[b] + w[j] * l[i][b] * sF[a];
    }
    return E;
}

/* ---- edge and flap tables (edges by first appearance scanning tris[3t+k], edge k of t opposite
   vertex k) */
/* The edge tables the energy kernels read: a view of MESH's rc__topo (the library's one edge
   numbering, first appearance scanning tris[3t+k]), which also refuses non-manifold edges and
   inconsistent winding (RC_ERR_MESH_NON_MANIFOLD). Requires valid indices. */
typedef struct rc__sh_edges {
    int ne;
    int *tri_edge; /* 3*nt: edge id of edge k of triangle t */
    int *tri_flap; /* 3*nt: vertex across edge k (in the neighbouring triangle), or -1 on the boundary */
    int *edge_tri; /* 2*ne: the (up to) two triangles of the edge, -1 if none */
    rc__topo topo; /* owns the arrays */
} rc__sh_edges;

static void rc__sh_free_edges(void *user, rc__sh_edges *E)
{
    rc__topo_free(&E->topo, user);
    E->tri_edge = E->tri_flap = E->edge_tri = NULL;
    E->ne = 0;
}
static rc_status rc__sh_build_edges(void *user, const rc_trimesh *m, rc__sh_edges *E)
{
    rc_status st;
    memset(E, 0, sizeof *E);
    st = rc__topo_build(&E->topo, user, m->num_verts, m->num_tris, m->tris, NULL);
    if (st != RC_OK) return st;
    E->ne = E->topo.ne;
    E->tri_edge = E->topo.tri_edge;
    E->tri_flap = E->topo.tri_flap;
    E->edge_tri = E->topo.edge_tri;
    return RC_OK;
}

/* ---- public API ---- */

static rc_material rc__material(double density, double thickness, double young, double poisson)
{
    rc_material m;
    memset(&m, 0, sizeof m);   /* model = RC_MATERIAL_ISOTROPIC, fabric fields zero */
    m.density = density;
    m.thickness = thickness;
    m.young = young;
    m.poisson = poisson;
    return m;
}
RCLOTHDEF rc_material rc_material_cotton(void) { return rc__material(500.0, 0.3e-3, 1.0e6, 0.3); }
RCLOTHDEF rc_material rc_material_silk(void) { return rc__material(600.0, 0.1e-3, 5.0e5, 0.3); }
RCLOTHDEF rc_material rc_material_denim(void) { return rc__material(600.0, 0.8e-3, 3.0e6, 0.3); }
RCLOTHDEF rc_material rc_material_proto(void) { return rc__material(200.0, 1.0e-3, 1.0e5, 0.3); }

/* A fabric preset from one material of the Wang et al. 2011 database in ARCSim's JSON layout:
   areal density (kg/m^2); s = the first "stretching" row (the small-strain sample, used by ARCSim
   for every direction at zero strain); b0, b45, b90 = the first column of the three "bending" rows.
   Conversion (reading of ARCSim's dde.cpp/physics.cpp): the stiffness it uses at small strain is
   k = 2 s and its membrane energy per area is 1/2 (k0 G11^2 + 2 k1 G11 G22 + k2 G22^2 + k3 G12^2)
   (G = Green strain), so C11 = 2 s0, C12 = 2 s1, C22 = 2 s2 and 2 C33 = k3/2, C33 = s3/2; then
   E1 = C11 - C12^2/C22, E2 = C22 - C12^2/C11, nu12 = C12/C22, G12 = C33. Bending row i is used for
   edges at angle 0, 45, 90 degrees to u; an edge along u bends the yarns along v, so b0 is the
   weft-curvature (v) stiffness and b90 the warp one; ARCSim's ke plays the role of the plate
   stiffness D (its isotropic path sets ke = E tau^3 / (12 (1 - nu^2))). */
static rc_material rc__fabric(double areal, double s0, double s1, double s2, double s3, double b0, double b45, double b90)
{
    const double tau = 0.5e-3;
    double C11 = 2.0 * s0, C12 = 2.0 * s1, C22 = 2.0 * s2;
    rc_material m;
    memset(&m, 0, sizeof m);
    m.model = RC_MATERIAL_ORTHOTROPIC;
    m.thickness = tau;
    m.density = areal / tau;
    m.warp_stiffness = C11 - C12 * C12 / C22;
    m.weft_stiffness = C22 - C12 * C12 / C11;
    m.warp_poisson = C12 / C22;
    m.shear_stiffness = 0.5 * s3;
    m.bend_warp = b90;
    m.bend_weft = b0;
    m.bend_bias = b45;
    m.young = 0.5 * (m.warp_stiffness + m.weft_stiffness) / tau;
    m.poisson = 0.3;
    return m;
}
/* the numbers as they appear in the data files (materials/<name>.json) */
RCLOTHDEF rc_material rc_material_fabric_denim(void)   /* 11oz-black-denim */
{ return rc__fabric(0.324, 205.352005, 10.234077, 1013.88629, 53.387184, 64.196457e-6, 73.384567e-6, 96.951576e-6); }
RCLOTHDEF rc_material rc_material_fabric_interlock(void)   /* gray-interlock */
{ return rc__fabric(0.187, 16.593832, -14.695990, 34.477123, 36.860302, 23.191698e-6, 24.749964e-6, 14.267624e-6); }
RCLOTHDEF rc_material rc_material_fabric_ponte(void)   /* camel-ponte-roma */
{ return rc__fabric(0.284, 31.146198, -12.802702, 44.028667, 31.896357, 36.348366e-6, 33.013252e-6, 37.157593e-6); }
RCLOTHDEF rc_material rc_material_fabric_cotton_poly(void)   /* royal-target */
{ return rc__fabric(0.220, 2016.55456, 9.170511, 2034.97644, 104.759674, 125.409805e-6, 107.997696e-6, 125.409805e-6); }

/* rc_material_validate with the reason: the first condition that fails, named with its value
   (msg may be NULL) */
static rc_status rc__material_check(const rc_material *mat, char *msg, size_t len)
{
#define RC__MATFAIL(st, ...) do { if (msg && len) snprintf(msg, len, __VA_ARGS__); return (st); } while (0)
    if (!mat) RC__MATFAIL(RC_ERR_INVALID_ARGUMENT, "material is NULL");
    if (mat->model == RC_MATERIAL_ORTHOTROPIC) {
        static const char *names[9] = { "density", "thickness", "warp_stiffness", "weft_stiffness", "shear_stiffness",
                                        "bend_warp", "bend_weft", "bend_bias", "warp_poisson" };
        const double v[9] = {mat->density, mat->thickness, mat->warp_stiffness, mat->weft_stiffness, mat->shear_stiffness,
                             mat->bend_warp, mat->bend_weft, mat->bend_bias, mat->warp_poisson};
        int i;
        for (i = 0; i < 9; ++i)
            if (!rc__isfinite(v[i])) RC__MATFAIL(RC_ERR_NON_FINITE, "material (orthotropic): %s is not finite", names[i]);
        for (i = 0; i < 8; ++i)
            if (!(v[i] > 0.0)) RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material (orthotropic): %s = %g must be > 0", names[i], v[i]);
        /* positive definite membrane (1 - nu12 nu21 > 0) and twist stiffness B33 > 0 */
        if (!(mat->warp_poisson * mat->warp_poisson * mat->weft_stiffness < mat->warp_stiffness))
            RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material (orthotropic): warp_poisson = %g needs warp_poisson^2 weft_stiffness < "
                        "warp_stiffness (|nu12| < %g) for a positive definite membrane", mat->warp_poisson,
                        sqrt(mat->warp_stiffness / mat->weft_stiffness));
        if (!(4.0 * mat->bend_bias > mat->bend_warp + mat->bend_weft))
            RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material (orthotropic): bend_bias = %g needs 4 bend_bias > bend_warp + bend_weft "
                        "= %g (a positive twist stiffness)", mat->bend_bias, mat->bend_warp + mat->bend_weft);
        return RC_OK;
    }
    if (mat->model != RC_MATERIAL_ISOTROPIC)
        RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material: model = %d; RC_MATERIAL_ISOTROPIC (0) or RC_MATERIAL_ORTHOTROPIC (1)", mat->model);
    if (!rc__isfinite(mat->density) || !rc__isfinite(mat->thickness) || !rc__isfinite(mat->young) ||
        !rc__isfinite(mat->poisson))
        RC__MATFAIL(RC_ERR_NON_FINITE, "material: density, thickness, young or poisson is not finite (NaN or inf)");
    if (!(mat->density > 0.0)) RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material: density = %g must be > 0", mat->density);
    if (!(mat->thickness > 0.0)) RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material: thickness = %g must be > 0", mat->thickness);
    if (!(mat->young > 0.0)) RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material: young = %g must be > 0", mat->young);
    if (!(mat->poisson > -1.0) || !(mat->poisson < 0.5))
        RC__MATFAIL(RC_ERR_BAD_MATERIAL, "material: poisson = %g must be in (-1, 0.5)", mat->poisson);
#undef RC__MATFAIL
    return RC_OK;
}

RCLOTHDEF rc_status rc_material_validate(const rc_material *mat)
{
    return rc__material_check(mat, NULL, 0);
}

/* index validation shared by the public kernels */
static rc_status rc__sh_check_mesh(const rc_trimesh *m)
{
    int t, k;
    if (!m || m->num_verts <= 0 || m->num_tris < 0 || (m->num_tris > 0 && !m->tris)) return RC_ERR_INVALID_ARGUMENT;
    for (t = 0; t < m->num_tris; ++t) {
        const int *v = m->tris + 3 * t;
        for (k = 0; k < 3; ++k)
            if (v[k] < 0 || v[k] >= m->num_verts) return RC_ERR_MESH_INDEX;
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) return RC_ERR_MESH_INDEX;
    }
    return RC_OK;
}
/* reference triangle t: degenerate if 2|A| <= 1e-12 * (longest edge)^2, inverted if A < 0 */
static rc_status rc__sh_check_ref_tri(const double *u, const int *v)
{
    const double *a = u + 2 * v[0], *b = u + 2 * v[1], *c = u + 2 * v[2];
    double e1x = b[0] - a[0], e1y = b[1] - a[1], e2x = c[0] - a[0], e2y = c[1] - a[1];
    double A2 = e1x * e2y - e1y * e2x, l = e1x * e1x + e1y * e1y, l2 = e2x * e2x + e2y * e2y;
    double l3 = (c[0] - b[0]) * (c[0] - b[0]) + (c[1] - b[1]) * (c[1] - b[1]);
    if (l2 > l) l = l2;
    if (l3 > l) l = l3;
    if (fabs(A2) <= 1e-12 * l) return RC_ERR_MESH_DEGENERATE;
    if (A2 < 0.0) return RC_ERR_INVERTED;
    return RC_OK;
}

static void rc__sh_gather(const rc_trimesh *m, const rc__sh_edges *E, const double *x, const double *u, int t,
                          double xl[9], double xf[9], double ul[6], int *mask)
{
    int k;
    const int *v = m->tris + 3 * t;
    *mask = 0;
    for (k = 0; k < 3; ++k) {
        int f = E->tri_flap[3 * t + k];
        memcpy(xl + 3 * k, x + 3 * v[k], 3 * sizeof(double));
        memcpy(ul + 2 * k, u + 2 * v[k], 2 * sizeof(double));
        if (f >= 0) {
            memcpy(xf + 3 * k, x + 3 * f, 3 * sizeof(double));
            *mask |= 1 << k;
        } else {
            xf[3 * k] = xf[3 * k + 1] = xf[3 * k + 2] = 0.0;
        }
    }
}

/* Minimise the bending energy over the director angles with x, u fixed: nonlinear Gauss-Seidel,
   one safeguarded 1D Newton step per edge per sweep. Per triangle the bending energy is the
   quadratic form IIᵀ Q II (Q = 1/2 Lᵀ W_bb L, W is quadratic in b) of II_i = 2 h_i S(theta_i/2 + s_i phi_i),
   so h, theta, s, Q are precomputed once. The phi-Hessian is element-local and full-rank per
   triangle (like a mass matrix), so the sweep count does not grow with the mesh size. Steps are
   over-relaxed by 1.2 (measured: 1.0 -> 54 sweeps, 1.2 -> 31, 1.4 -> 41, 1.6 -> 66).
   Stops when no angle moved more than 1e-12 rad in a sweep (returns the number of sweeps, >= 1)
   or after 1000 sweeps (returns 0), or at once (returns -1) when a stencil's h, theta or Q is not
   finite. phi holds the starting angles (warm start) on entry. */
static int rc__sh_minimise_phi(const rc_trimesh *m, const rc__sh_edges *E, const double *x, const double *u,
                               const rc__sh_coef *c, double *geo /* 18 per triangle */, double *phi)
{
    static const double L[3][3] = {{1, 1, 0}, {1, 0, 0}, {1, 0, 1}};
    int nt = m->num_tris, t, i, j, k, l, e, sweep;
    for (t = 0; t < nt; ++t) {
        double xl[9], xf[9], ul[6], Wmm[9], *G = geo + 18 * t;
        int mask;
        rc__sh_gather(m, E, x, u, t, xl, xf, ul, &mask);
        for (i = 0; i < 3; ++i) {
            rc__sh_edge_geom(xl + 3 * i, xl + 3 * ((i + 1) % 3), xl + 3 * ((i + 2) % 3), (mask >> i & 1) ? xf + 3 * i : NULL,
                             &G[i], &G[3 + i]);
            G[6 + i] = rc__sh_edge_sign(m->tris + 3 * t, i);
        }
        rc__sh_bend_Wmm(ul, c, Wmm);
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) {
                double s = 0.0;
                for (k = 0; k < 3; ++k)
                    for (l = 0; l < 3; ++l) s += L[k][i] * Wmm[3 * k + l] * L[l][j];
                G[9 + 3 * i + j] = 0.5 * s;
            }
        /* a stencil out of double's range: report it, never skip its angles as if minimal */
        if (!rc__all_finite(G, 18)) return -1;
    }
    for (sweep = 0; sweep < 1000; ++sweep) {
        double maxd = 0.0;
        for (e = 0; e < E->ne; ++e) {
            double g = 0.0, H = 0.0, Hgn = 0.0, d;
            int side;
            for (side = 0; side < 2; ++side) {
                int tt = E->edge_tri[2 * e + side], li = -1;
                double II[3], QII, dII, d2II, *G;
                if (tt < 0) continue;
                G = geo + 18 * tt;
                for (i = 0; i < 3; ++i) {
                    double arg = 0.5 * G[3 + i] + G[6 + i] * phi[E->tri_edge[3 * tt + i]], S, S1, S2;
                    rc__sh_fold_profile(arg, &S, &S1, &S2);
                    II[i] = 2.0 * G[i] * S;
                    if (E->tri_edge[3 * tt + i] == e) li = i;
                }
                {
                    double arg = 0.5 * G[3 + li] + G[6 + li] * phi[e], S, S1, S2;
                    rc__sh_fold_profile(arg, &S, &S1, &S2);
                    dII = 2.0 * G[li] * G[6 + li] * S1;
                    d2II = 2.0 * G[li] * S2;
                }
                QII = G[9 + 3 * li] * II[0] + G[9 + 3 * li + 1] * II[1] + G[9 + 3 * li + 2] * II[2];
                g += 2.0 * QII * dII;
                H += 2.0 * G[9 + 4 * li] * dII * dII + 2.0 * QII * d2II;
                Hgn += 2.0 * G[9 + 4 * li] * dII * dII;
            }
            if (!(H > 0.0)) H = Hgn;
            if (!(H > 0.0)) continue;
            d = -g / H;
            if (d > 0.5) d = 0.5;
            if (d < -0.5) d = -0.5;
            phi[e] += 1.2 * d; /* mild over-relaxation: 54 -> 31 sweeps on the 100k bench sheet */
            if (fabs(d) > maxd) maxd = fabs(d);
        }
        if (!(maxd > 1e-12)) return sweep + 1;
    }
    return 0;
}

RCLOTHDEF rc_status rc_shell_energy(const rc_trimesh *m, const double *x, const double *u, const double *phi,
                                    const rc_material *mat, double *stretch, double *bend, double *grad_x,
                                    double *grad_u)
{
    rc_status st;
    rc__sh_edges E;
    rc__sh_coef c;
    double *ph = NULL, *geo = NULL, *gx = NULL, *gu = NULL, S = 0.0, B = 0.0;
    int nt, nv, t, k, converged = 1, flags, finite;
    st = rc__sh_check_mesh(m);
    if (st != RC_OK) return st;
    if (!x || !u || !mat) return RC_ERR_INVALID_ARGUMENT;
    st = rc_material_validate(mat);
    if (st != RC_OK) return st;
    nt = m->num_tris;
    nv = m->num_verts;
    if (!rc__all_finite(x, (size_t)3 * (size_t)nv) || !rc__all_finite(u, (size_t)2 * (size_t)nv)) return RC_ERR_NON_FINITE;
    if (nt > 0) {
        /* the kernels' range: the law's rational terms reach |J|^-5 (J = det D_u ~ size^2) and
           psi(Y) ~ size^8 stiffness^2, inside double's range for reference domains of 1e-20 to
           1e20 m. Outside it the energy underflowed to 0 (a sheet scaled to 1e-40 m: 0 J for
           3e-83 J) or overflowed, with RC_OK (a probe, session 55). */
        double lo[2] = { DBL_MAX, DBL_MAX }, hi[2] = { -DBL_MAX, -DBL_MAX }, size;
        int i, cc;
        for (i = 0; i < nv; ++i)
            for (cc = 0; cc < 2; ++cc) { lo[cc] = fmin(lo[cc], u[2 * i + cc]); hi[cc] = fmax(hi[cc], u[2 * i + cc]); }
        size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
        if (!(size >= 1e-20 && size <= 1e20)) return RC_ERR_INVALID_ARGUMENT;
    }
    if (nt == 0) {   /* no triangles: no energy (rc__topo wants at least one) */
        if (stretch) *stretch = 0.0;
        if (bend) *bend = 0.0;
        if (grad_x) memset(grad_x, 0, (size_t)(3 * nv) * sizeof(double));
        if (grad_u) memset(grad_u, 0, (size_t)(2 * nv) * sizeof(double));
        return RC_OK;
    }
    for (t = 0; t < nt; ++t) {
        st = rc__sh_check_ref_tri(u, m->tris + 3 * t);
        if (st != RC_OK) return st;
    }
    st = rc__sh_build_edges(NULL, m, &E);
    if (st != RC_OK) return st;
    if (phi && !rc__all_finite(phi, (size_t)E.ne)) {
        rc__sh_free_edges(NULL, &E);
        return RC_ERR_NON_FINITE;
    }
    c = rc__sh_make_coef(mat, 1.0);
    if (!phi) {
        ph = (double *)rc__calloc(NULL, (size_t)E.ne, sizeof(double));
        geo = (double *)rc__alloc(NULL, (size_t)nt * 18, sizeof(double));
        if (!ph || !geo) {
            rc__free(NULL, ph);
            rc__free(NULL, geo);
            rc__sh_free_edges(NULL, &E);
            return RC_ERR_OUT_OF_MEMORY;
        }
        converged = rc__sh_minimise_phi(m, &E, x, u, &c, geo, ph);
        rc__free(NULL, geo);
        if (converged < 0) {
            rc__free(NULL, ph);
            rc__sh_free_edges(NULL, &E);
            return RC_ERR_NON_FINITE;
        }
        phi = ph;
    }
    /* the gradients are summed in scratch and copied out only on success: on an error the
       caller's arrays are untouched (a collapsed world triangle is found only after the sum) */
    flags = (grad_x || grad_u) ? RC__SH_GRAD : 0;
    if (flags) {
        gx = (double *)rc__calloc(NULL, (size_t)5 * (size_t)nv, sizeof(double));
        if (!gx) {
            rc__free(NULL, ph);
            rc__sh_free_edges(NULL, &E);
            return RC_ERR_OUT_OF_MEMORY;
        }
        gu = gx + (size_t)3 * (size_t)nv;
    }
    for (t = 0; t < nt; ++t) {
        double xl[9], xf[9], ul[6], pl[3], gs[15], gb[27];
        const int *v = m->tris + 3 * t;
        int mask, j;
        rc__sh_gather(m, &E, x, u, t, xl, xf, ul, &mask);
        for (k = 0; k < 3; ++k) pl[k] = phi[E.tri_edge[3 * t + k]];
        S += rc__sh_stretch_tri(xl, ul, &c, flags, gs, NULL);
        B += rc__sh_bend_tri(xl, xf, mask, pl, v, ul, &c, flags, gb, NULL);
        if (!flags) continue;
        for (k = 0; k < 3; ++k) {
            int f = E.tri_flap[3 * t + k];
            for (j = 0; j < 3; ++j) gx[3 * v[k] + j] += gs[3 * k + j] + gb[3 * k + j];
            if (f >= 0)
                for (j = 0; j < 3; ++j) gx[3 * f + j] += gb[9 + 3 * k + j];
            for (j = 0; j < 2; ++j) gu[2 * v[k] + j] += gs[9 + 2 * k + j] + gb[21 + 2 * k + j];
        }
    }
    rc__free(NULL, ph);
    rc__sh_free_edges(NULL, &E);
    finite = rc__isfinite(S) && rc__isfinite(B) && (!grad_x || rc__all_finite(gx, (size_t)3 * (size_t)nv)) &&
             (!grad_u || rc__all_finite(gu, (size_t)2 * (size_t)nv));
    if (finite) {
        if (grad_x) memcpy(grad_x, gx, (size_t)(3 * nv) * sizeof(double));
        if (grad_u) memcpy(grad_u, gu, (size_t)(2 * nv) * sizeof(double));
        if (stretch) *stretch = S;
        if (bend) *bend = B;
    }
    rc__free(NULL, gx);
    if (!finite) return RC_ERR_NON_FINITE;
    return converged ? RC_OK : RC_ERR_NOT_CONVERGED;
}

RCLOTHDEF rc_status rc_mips_energy(const rc_trimesh *m, const double *u, const double *u0, double eps_q,
                                   double *energy, double *grad_u)
{
    rc_status st = RC_OK;
    int t, k, nv;
    double sum = 0.0, *g2 = NULL;
    st = rc__sh_check_mesh(m);
    if (st != RC_OK) return st;
    if (!u || !u0 || !energy) return RC_ERR_INVALID_ARGUMENT;
    nv = m->num_verts;
    if (!rc__isfinite(eps_q) || !rc__all_finite(u, (size_t)2 * (size_t)nv) || !rc__all_finite(u0, (size_t)2 * (size_t)nv))
        return RC_ERR_NON_FINITE;
    for (t = 0; t < m->num_tris; ++t) {
        st = rc__sh_check_ref_tri(u0, m->tris + 3 * t);
        if (st == RC_ERR_MESH_DEGENERATE) return st;
    }
    st = RC_OK;   /* a clockwise u0 triangle is allowed (its map J is then orientation-reversing) */
    /* the gradient is summed in scratch: on an error the caller's outputs are untouched */
    if (grad_u && !(g2 = (double *)rc__calloc(NULL, (size_t)2 * (size_t)nv, sizeof(double)))) return RC_ERR_OUT_OF_MEMORY;
    for (t = 0; t < m->num_tris; ++t) {
        const int *v = m->tris + 3 * t;
        double ul[6], u0l[6], Dminv[4], g[6], e;
        for (k = 0; k < 3; ++k) {
            ul[2 * k] = u[2 * v[k]];
            ul[2 * k + 1] = u[2 * v[k] + 1];
            u0l[2 * k] = u0[2 * v[k]];
            u0l[2 * k + 1] = u0[2 * v[k] + 1];
        }
        if (!rc__mips_dminv(u0l, Dminv)) { st = RC_ERR_MESH_DEGENERATE; break; }
        e = rc__mips_tri(ul, Dminv, 1.0, eps_q, grad_u ? RC__SH_GRAD : 0, g, NULL);
        sum += e;
        if (grad_u && e < HUGE_VAL)
            for (k = 0; k < 3; ++k) {
                g2[2 * v[k]] += g[2 * k];
                g2[2 * v[k] + 1] += g[2 * k + 1];
            }
    }
    /* a nearly flat triangle (det J ~ 1e-95) has a finite energy and an overflowing gradient */
    if (st == RC_OK && g2 && !rc__all_finite(g2, (size_t)(2 * nv))) st = RC_ERR_NON_FINITE;
    if (st == RC_OK) {
        *energy = sum;
        if (grad_u) memcpy(grad_u, g2, (size_t)(2 * nv) * sizeof(double));
    }
    rc__free(NULL, g2);
    return st;
}

#ifdef __cplusplus
}
#endif


/* ==========================================================================
   IMPLEMENTATION: CONTACT
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- barrier */

RCLOTHDEF double rc_barrier(double d2, double xi, double dhat, double *db_dd2, double *d2b_dd22)
{
    double shat, s, r, l;
    if (!rc__isfinite(xi) || !rc__isfinite(dhat) || xi < 0.0 || dhat <= 0.0 || rc__isnan(d2)) {
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

RCLOTHDEF rc_status rc_barrier_stiffness_init(double xi, double dhat, double k_ref, double gE_dot_gB,
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

RCLOTHDEF rc_status rc_barrier_stiffness_update(double prev_min_dist, double min_dist, double xi,
                                                double dhat, double frac, double kappa_max,
                                                double *kappa)
{
    if (!kappa || !(*kappa > 0.0) || !rc__isfinite(*kappa) || !(frac > 0.0 && frac < 1.0) ||
        !(kappa_max > 0.0) || !(xi >= 0.0) || !(dhat > 0.0) || !rc__isfinite(dhat) ||
        rc__isnan(prev_min_dist) || rc__isnan(min_dist))
        return RC_ERR_INVALID_ARGUMENT;
    if (min_dist - xi < frac * dhat && min_dist < prev_min_dist) {
        double k = 2.0 * *kappa;
        *kappa = k < kappa_max ? k : (kappa_max > *kappa ? kappa_max : *kappa);
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- distances
   DOF orders (stacked xyz per vertex, row-major Hessians):
     point-triangle  (p, t0, t1, t2)          12
     edge-edge       (ea0, ea1, eb0, eb1)     12
   Every type's squared distance is d2(x) = min_th |r(x, th)|^2 with r = sum_k c_k(th) x_k and the
   c_k affine in the 0, 1 or 2 parameters th (the closest point's position on an edge, a triangle's
   plane, or both edges' lines). Envelope theorem: grad d2 = df/dx at th*. Implicit function
   theorem on df/dth = 0: Hess d2 = f_xx - f_xth (f_thth)^-1 f_thx. One kernel serves all 16 types
   (7 point-triangle, 9 edge-edge; a closest point at a vertex or on an edge is one of them). */

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

static void rc__ct_aff_set(rc__ct_aff *A, int m, int np, int s0, int s1, int s2, int s3)
{
    int k;
    A->m = m; A->np = np;
    A->slot[0] = s0; A->slot[1] = s1; A->slot[2] = s2; A->slot[3] = s3;
    for (k = 0; k < 4; ++k) { A->c0[k] = 0.0; A->a[k][0] = A->a[k][1] = 0.0; }
}

/* Evaluates min_th |r|^2 for the affine family A over the four stencil vertices X.
   th[] receives the parameters, w[4] the closest-vector weights (r = sum w_i X_i); grad (12)
   and hess (12 x 12) are overwritten when non-NULL. *ok = 0 if the parameter system is singular
   (then d2 is the value at th = 0). */
static double rc__ct_aff_eval(const rc__ct_aff *A, const double *X[4], double th[2],
                              double *w, double *grad, double *hess, int *ok)
{
    double e[2][3] = {{0, 0, 0}, {0, 0, 0}}, r[3] = {0, 0, 0}, c[4], G[2][2], Gi[2][2], d2;
    double B[12][2];
    int k, l, j, i, dd;
    const int nst = 4, n = 3 * nst;
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
static void rc__ct_aff_pp(rc__ct_aff *A, int sp, int sq)
{
    rc__ct_aff_set(A, 2, 0, sp, sq, 0, 0);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
}
/* r = p - e0 - th (e1 - e0) */
static void rc__ct_aff_pe(rc__ct_aff *A, int sp, int s0, int s1)
{
    rc__ct_aff_set(A, 3, 1, sp, s0, s1, 0);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
    A->a[1][0] = 1.0; A->a[2][0] = -1.0;
}
/* r = p - t0 - th0 (t1 - t0) - th1 (t2 - t0) */
static void rc__ct_aff_ptplane(rc__ct_aff *A)
{
    rc__ct_aff_set(A, 4, 2, 0, 1, 2, 3);
    A->c0[0] = 1.0; A->c0[1] = -1.0;
    A->a[1][0] = 1.0; A->a[2][0] = -1.0;
    A->a[1][1] = 1.0; A->a[3][1] = -1.0;
}
/* r = ea0 + th0 (ea1 - ea0) - eb0 - th1 (eb1 - eb0) */
static void rc__ct_aff_eeline(rc__ct_aff *A)
{
    rc__ct_aff_set(A, 4, 2, 0, 1, 2, 3);
    A->c0[0] = 1.0; A->c0[2] = -1.0;
    A->a[0][0] = -1.0; A->a[1][0] = 1.0;
    A->a[2][1] = 1.0; A->a[3][1] = -1.0;
}
/* vertex eb_j (slot 2+j) against edge a's line: r = ea0 + th (ea1 - ea0) - eb_j */
static void rc__ct_aff_ea_ebj(rc__ct_aff *A, int j)
{
    rc__ct_aff_set(A, 3, 1, 0, 1, 2 + j, 0);
    A->c0[0] = 1.0; A->c0[2] = -1.0;
    A->a[0][0] = -1.0; A->a[1][0] = 1.0;
}

static void rc__ct_pt_aff(rc__ct_aff *A, int type)
{
    static const int ei[3] = {0, 1, 2}, ej[3] = {1, 2, 0};
    if (type <= RC__CT_P_T2) rc__ct_aff_pp(A, 0, 1 + type);
    else if (type <= RC__CT_P_E2) rc__ct_aff_pe(A, 0, 1 + ei[type - RC__CT_P_E0], 1 + ej[type - RC__CT_P_E0]);
    else rc__ct_aff_ptplane(A);
}
static void rc__ct_ee_aff(rc__ct_aff *A, int type)
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
static int rc__ct_pe_case(const double *X[4], int sp, int s0, int s1, double *d2)
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
static int rc__ct_point_triangle_type(const double p[3], const double t0[3], const double t1[3],
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
        (void)rc__ct_aff_eval(&A, X, th, NULL, NULL, NULL, &ok);
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

static int rc__ct_edge_edge_type(const double ea0[3], const double ea1[3], const double eb0[3],
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
    (void)rc__ct_aff_eval(&A, X, th, NULL, NULL, NULL, &ok);
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
/* w (optional, 4): closest-vector weights, r = w0 p + w1 t0 + w2 t1 + w3 t2 = p - closest point */
static double rc__ct_point_triangle_d2_typed(const double p[3], const double t0[3], const double t1[3],
                                             const double t2[3], int type, double w[4],
                                             double grad[12], double hess[144])
{
    const double *X[4];
    double th[2];
    rc__ct_aff A;
    X[0] = p; X[1] = t0; X[2] = t1; X[3] = t2;
    rc__ct_pt_aff(&A, type);
    return rc__ct_aff_eval(&A, X, th, w, grad, hess, NULL);
}
static double rc__ct_point_triangle_d2(const double p[3], const double t0[3], const double t1[3],
                                       const double t2[3], int *type, double grad[12], double hess[144])
{
    int t = rc__ct_point_triangle_type(p, t0, t1, t2);
    if (type) *type = t;
    return rc__ct_point_triangle_d2_typed(p, t0, t1, t2, t, NULL, grad, hess);
}

/* w (optional, 4): r = sum w_i x_i = (closest point on a) - (closest point on b) */
static double rc__ct_edge_edge_d2_typed(const double ea0[3], const double ea1[3], const double eb0[3],
                                        const double eb1[3], int type, double w[4],
                                        double grad[12], double hess[144])
{
    const double *X[4];
    double th[2], d2;
    rc__ct_aff A;
    X[0] = ea0; X[1] = ea1; X[2] = eb0; X[3] = eb1;
    rc__ct_ee_aff(&A, type);
    /* every family is written with r = (point on a) - (point on b) */
    d2 = rc__ct_aff_eval(&A, X, th, w, grad, hess, NULL);
    return d2;
}
static double rc__ct_edge_edge_d2(const double ea0[3], const double ea1[3], const double eb0[3],
                                  const double eb1[3], int *type, double grad[12], double hess[144])
{
    int t = rc__ct_edge_edge_type(ea0, ea1, eb0, eb1);
    if (type) *type = t;
    return rc__ct_edge_edge_d2_typed(ea0, ea1, eb0, eb1, t, NULL, grad, hess);
}

/* ---- a segment against a triangle ----
   The least squared distance between segment [a, b] and triangle (t0, t1, t2), and *tau in [0, 1]
   with a + tau (b - a) the segment's closest point. Two convex sets that do not meet are closest
   at a pair of features, so the distance is the least of: each end against the triangle
   (point-triangle), the segment against each triangle edge (edge-edge). That misses only a
   segment through the triangle's interior, tested first (then 0, tau at the crossing). a = b (a
   sphere's centre) is the point-triangle distance alone, tau = 0. */
/* distance from x to segment [a, b] (a = b: to the point) */
static double rc__ct_point_segment_dist(const double x[3], const double a[3], const double b[3])
{
    double ax[3], v[3], aa, tp;
    rc__sub3(ax, b, a);
    rc__sub3(v, x, a);
    aa = rc__dot3(ax, ax);
    if (aa > 0.0) {
        tp = rc__dot3(v, ax) / aa;
        rc__axpy3(v, -(tp < 0.0 ? 0.0 : tp > 1.0 ? 1.0 : tp), ax);
    }
    return rc__norm3(v);
}

/* A cheap lower bound on the distance from segment [a, b] to the triangle tv: every point of the
   triangle lies within rad of its centroid c (rad = the farthest vertex) and within emax (the
   longest edge) of every vertex, so the distance is at least the larger of
   dist(c) - rad and min_k dist(x_k) - emax. */
static double rc__ct_segment_triangle_lower_bound(const double a[3], const double b[3], const double *tv[3])
{
    double c[3], rad = 0.0, lo = HUGE_VAL, emax = 0.0;
    int k;
    for (k = 0; k < 3; ++k) c[k] = (tv[0][k] + tv[1][k] + tv[2][k]) / 3.0;
    for (k = 0; k < 3; ++k) {
        double e[3], d = rc__ct_point_segment_dist(tv[k], a, b);
        if (d < lo) lo = d;
        rc__sub3(e, tv[(k + 1) % 3], tv[k]);
        if (rc__norm3(e) > emax) emax = rc__norm3(e);
        rc__sub3(e, tv[k], c);
        if (rc__norm3(e) > rad) rad = rc__norm3(e);
    }
    return fmax(lo - emax, rc__ct_point_segment_dist(c, a, b) - rad);
}

/* 1 if triangle (v0, v1, v2) and the box |y_i| <= h_i (its own frame) overlap or touch: no
   separating axis among the box's three axes, the triangle's normal and the nine crosses of a box
   axis with a triangle edge (the separating axis theorem for two convex polytopes). */
static int rc__ct_triangle_box_overlap(const double *v0, const double *v1, const double *v2, const double h[3])
{
    const double *v[3];
    double f[3][3], n[3], lo, hi, r;
    int i, j, k;
    v[0] = v0; v[1] = v1; v[2] = v2;
    for (i = 0; i < 3; ++i) {   /* the box's axes */
        lo = fmin(v0[i], fmin(v1[i], v2[i]));
        hi = fmax(v0[i], fmax(v1[i], v2[i]));
        if (lo > h[i] || hi < -h[i]) return 0;
    }
    for (k = 0; k < 3; ++k) rc__sub3(f[k], v[(k + 1) % 3], v[k]);
    rc__cross3(n, f[0], f[1]);   /* the triangle's normal */
    r = h[0] * fabs(n[0]) + h[1] * fabs(n[1]) + h[2] * fabs(n[2]);
    if (fabs(rc__dot3(n, v0)) > r) return 0;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {   /* a = e_i x f_j */
            double a[3], e[3] = { 0.0, 0.0, 0.0 }, p;
            e[i] = 1.0;
            rc__cross3(a, e, f[j]);
            r = h[0] * fabs(a[0]) + h[1] * fabs(a[1]) + h[2] * fabs(a[2]);
            lo = HUGE_VAL; hi = -HUGE_VAL;
            for (k = 0; k < 3; ++k) { p = rc__dot3(a, v[k]); lo = fmin(lo, p); hi = fmax(hi, p); }
            if (lo > r || hi < -r) return 0;
        }
    return 1;
}

/* 1 if segment [a, b] meets the triangle (t0, t1, t2), *s the segment's parameter there */
static int rc__ct_segment_meets_triangle(const double a[3], const double b[3], const double *tv[3], double *s)
{
    double ax[3], n[3], e1[3], e2[3], w[3], sa, sb, p[3], in = 1.0;
    int k;
    rc__sub3(ax, b, a);
    rc__sub3(e1, tv[1], tv[0]);
    rc__sub3(e2, tv[2], tv[0]);
    rc__cross3(n, e1, e2);
    rc__sub3(w, a, tv[0]); sa = rc__dot3(n, w);
    rc__sub3(w, b, tv[0]); sb = rc__dot3(n, w);
    if ((sa > 0.0 && sb > 0.0) || (sa < 0.0 && sb < 0.0) || !(rc__dot3(n, n) > 0.0)) return 0;
    /* it meets the triangle's plane at p = a + s ax: inside when p is on the inner side of all
       three edges (signed areas with n) */
    *s = sa != sb ? sa / (sa - sb) : 0.0;
    for (k = 0; k < 3; ++k) p[k] = a[k] + *s * ax[k];
    for (k = 0; k < 3 && in >= 0.0; ++k) {
        double e[3], v[3], c[3];
        rc__sub3(e, tv[(k + 1) % 3], tv[k]);
        rc__sub3(v, p, tv[k]);
        rc__cross3(c, e, v);
        in = rc__dot3(c, n);
    }
    return in >= 0.0;
}

static double rc__ct_segment_triangle_d2(const double a[3], const double b[3], const double t0[3],
                                         const double t1[3], const double t2[3], double *tau)
{
    const double *tv[3];
    double best, d2, w[4];
    int k;
    tv[0] = t0; tv[1] = t1; tv[2] = t2;
    *tau = 0.0;
    if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) return rc__ct_point_triangle_d2(a, t0, t1, t2, NULL, NULL, NULL);
    if (rc__ct_segment_meets_triangle(a, b, tv, tau)) return 0.0;
    *tau = 0.0;   /* the failed test wrote its plane crossing there (review) */
    best = rc__ct_point_triangle_d2(a, t0, t1, t2, NULL, NULL, NULL);
    d2 = rc__ct_point_triangle_d2(b, t0, t1, t2, NULL, NULL, NULL);
    if (d2 < best) { best = d2; *tau = 1.0; }
    for (k = 0; k < 3; ++k) {
        int type = rc__ct_edge_edge_type(a, b, tv[k], tv[(k + 1) % 3]);
        d2 = rc__ct_edge_edge_d2_typed(a, b, tv[k], tv[(k + 1) % 3], type, w, NULL, NULL);
        if (d2 < best) { best = d2; *tau = w[1]; }   /* the segment's closest point: w0 a + w1 b */
    }
    return best;
}

/* ---- edge-edge mollifier (IPC): c = |ea x eb|^2 with ea = ea1 - ea0, eb = eb1 - eb0,
   m(c) = (2 - c/eps_x)(c/eps_x) for c < eps_x, 1 otherwise (C^1 at c = eps_x), with
   eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2. It multiplies the edge-edge barrier so that the energy
   and its gradient vanish smoothly as the edges become parallel (where the EA_EB distance type's
   Hessian is discontinuous). The simulator's rest length of a cloth edge is its initial reference
   (uv) length; a kinematic obstacle edge has no rest shape and uses its length at the evaluation.
   la2, lb2: the two edges' squared rest lengths. */
static double rc__ct_ee_mollifier_eps(double la2, double lb2)
{
    return 1e-3 * la2 * lb2;
}

/* Value m, gradient (12) and Hessian (144) w.r.t. (ea0, ea1, eb0, eb1); grad/hess may be NULL. */
static double rc__ct_ee_mollifier(const double ea0[3], const double ea1[3], const double eb0[3],
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
static int rc__ct_psd_project_lowrank(int n, double *H, int mode)
{
    double R[144], Q[144], T[144], S[144], nrm[12], tol2 = 0.0;
    int used[12], k = 0, i, j, l, m;
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
    /* S (k x k, k = 4-5 for most barrier Hessians) projected in place by the shell section's QL
       projection (Cholesky test, implicit QL with accumulated rotations, only the negative
       eigenvectors back-transformed) instead of cyclic Jacobi (rc__sym_eig): measured on 20,000
       point-triangle and edge-edge barrier Hessians, 2.75 -> 1.92 us per 12 x 12 projection,
       the same projected entries to 11 digits (sum of |H|) */
    if (!rc__psd_project_core(k, S, mode)) return 0;
    for (i = 0; i < n; ++i)          /* T = Q S' (n x k) */
        for (m = 0; m < k; ++m) {
            double s = 0.0;
            for (l = 0; l < k; ++l) s += Q[i * n + l] * S[l * k + m];
            T[i * k + m] = s;
        }
    for (i = 0; i < n; ++i)          /* H = T Q^T, upper triangle mirrored */
        for (j = i; j < n; ++j) {
            double s = 0.0;
            for (m = 0; m < k; ++m) s += T[i * k + m] * Q[j * n + m];
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
static double rc__ct_barrier_local(int n, double d2, const double *g, const double *Hd, double xi,
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
static double rc__ct_pt_barrier(const double p[3], const double t0[3], const double t1[3], const double t2[3],
                                double xi, double dhat, double kappa, int project, int *type,
                                double *d2_out, double grad[12], double hess[144])
{
    double g[12], H[144], d2 = rc__ct_point_triangle_d2(p, t0, t1, t2, type, g, hess ? H : NULL);
    if (d2_out) *d2_out = d2;
    return rc__ct_barrier_local(12, d2, g, H, xi, dhat, kappa, 1.0, NULL, NULL, project, grad, hess);
}
/* Point p against segment (e0, e1), or against the point e0 alone (e1 == NULL): the same barrier,
   written as a point-triangle pair on the degenerate triangle (e0, e1, e1) (or (e0, e0, e0)) with
   its distance type fixed by the segment's own classification. Slots (12 DOFs): p, e0, e1, unused.
   So that a point-edge term equals, value and derivatives, the point-triangle term of a triangle
   whose closest feature is that edge: the inclusion-exclusion of the mesh obstacles' cloth-vertex
   barrier (rc__sim_mesh_contact) cancels them exactly. */
static double rc__ct_pe_barrier(const double p[3], const double e0[3], const double e1[3], double xi, double dhat,
                                double kappa, int project, double *d2_out, double grad[12], double hess[144])
{
    double g[12], H[144], d2;
    const double *X[4];
    int type = RC__CT_P_T0, c;
    if (e1) {
        X[0] = p; X[1] = e0; X[2] = e1; X[3] = e1;
        c = rc__ct_pe_case(X, 0, 1, 2, &d2);
        type = c == 2 ? RC__CT_P_E0 : (c == 0 ? RC__CT_P_T0 : RC__CT_P_T1);
    }
    d2 = rc__ct_point_triangle_d2_typed(p, e0, e1 ? e1 : e0, e1 ? e1 : e0, type, NULL, g, hess ? H : NULL);
    if (d2_out) *d2_out = d2;
    return rc__ct_barrier_local(12, d2, g, H, xi, dhat, kappa, 1.0, NULL, NULL, project, grad, hess);
}
/* Edge-edge with the mollifier; eps_x from rc__ct_ee_mollifier_eps on the rest lengths. */
static double rc__ct_ee_barrier(const double ea0[3], const double ea1[3], const double eb0[3],
                                const double eb1[3], double eps_x, double xi, double dhat, double kappa,
                                int project, int *type, double *d2_out, double grad[12], double hess[144])
{
    double g[12], H[144], gm[12], Hm[144], m, d2 = rc__ct_edge_edge_d2(ea0, ea1, eb0, eb1, type, g, hess ? H : NULL);
    if (d2_out) *d2_out = d2;
    m = rc__ct_ee_mollifier(ea0, ea1, eb0, eb1, eps_x, gm, hess ? Hm : NULL);
    return rc__ct_barrier_local(12, d2, g, H, xi, dhat, kappa, m, gm, Hm, project, grad, hess);
}
/* The lagged normal force of a barrier pair for IPC friction: lambda = |dE/dd| = kappa m |b'(d^2)| 2d
   (m = mollifier value, 1 for non-edge-edge pairs), but with the gap d - xi taken as at least
   dhat/1000: a pair pressed closer than that lends friction the force it would have there, not an
   unbounded one. Measured on the 1k didactic drape without the regulariser: from step 12 a cloth
   edge lying almost parallel along a ridge of the rod mesh (a mollified edge-edge pair, whose
   barrier m b weakens as the edges turn parallel) sank 4-6x closer at every step (gap 1.3 mm ->
   1e-12 m in 15 steps); its lagged mu lambda grew from 0.02 N to 4e7 N with it, and the friction
   term (whose constant part mu lambda eps_v h / 3 grows too) carried the step's IP from 0.007 J to
   2e7 J, every step reported converged. With the floor the IP stayed at 0.17 J over those 40
   steps; the gap still sinks to round-off and the sheet stays stuck there (a known limitation:
   README). The barrier
   stiffness update pushes pairs out of gaps below dhat/100 (rc_barrier_stiffness_update), so
   healthy contacts stay clear of the floor. */
#define RC__FRICTION_MIN_GAP 1e-3
/* the same at distance d with d2 = d^2 given (the analytic obstacles have d, the pairs d^2) */
static double rc__ct_normal_force_at(double d, double d2, double xi, double dhat, double kappa, double m)
{
    double b1, dmin = xi + RC__FRICTION_MIN_GAP * dhat;
    if (!(d2 > 0.0)) return 0.0;
    if (d < dmin) { d = dmin; d2 = dmin * dmin; }
    (void)rc_barrier(d2, xi, dhat, &b1, NULL);
    if (!rc__isfinite(b1)) return HUGE_VAL;
    return kappa * m * (-b1) * 2.0 * d;
}
static double rc__ct_normal_force(double d2, double xi, double dhat, double kappa, double m)
{
    return rc__ct_normal_force_at(sqrt(d2 > 0.0 ? d2 : 0.0), d2, xi, dhat, kappa, m);
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
static void rc__ct_sdf_radial(const double v[3], const double P[9], double r, double *d, double grad[3],
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
static int rc__ct_shape_sdf(const rc__ct_shape *s, const double x[3], double *d, double grad[3],
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

/* ---------------------------------------------------------------- CCD
   Conservative advancement with a second-order bound (ours; the first-order part is the additive
   CCD of Li et al. 2021, "Codimensional IPC"). Trajectories are linear, x(t) = x0 + t dx, t in
   [0, tmax]. For barycentric weights w of primitive A and w' of B, the relative vector
   r(t) = x_A(w, t) - x_B(w', t) is linear in t with velocity v = sum w_k (dx_k - m) -
   sum w'_k (dx_k - m) for any common m (a common translation changes no distance), so
   |v| <= l = max_{k in A} |dx_k - m| + max_{k in B} |dx_k - m|; m is the best of the mean
   displacement and each vertex's (for a point against a triangle, m = the point's own motion).
   Over an interval [t, t + h], with D(t) the distance between the primitives:
     (1) Lipschitz (ACCD):  D >= (D(t) + D(t + h) - l h) / 2;
     (2) sag:  |r(s)|^2 is a convex quadratic in s with second derivative 2|v|^2 <= 2 l^2, so it
         lies at most l^2 h^2 / 4 below its chord, whose ends are >= D(t)^2 and D(t + h)^2:
         D^2 >= min(D(t)^2, D(t + h)^2) - l^2 h^2 / 4.
   (2) is what makes contact under pressure cheap: with a thickness xi > 0 an interval is safe
   when D(t + h) - target >~ l^2 h^2 / (8 xi), so a pair sliding at speed l past a gap g needs
   steps of ~ sqrt(8 xi g) / l, where (1) alone needs 0.9 g / l (measured, session 32: a sheet
   pinned all round and stretched over a sphere pressed its barrier to gaps of 1e-8 to 1e-10 m,
   and every line search spent up to 1e5 Lipschitz steps per triangle). The target is
   D >= xi + RC__CT_CCD_KEEP (D(0) - xi): the next Newton iterate keeps 10% of its gap, and is
   never placed on the contact surface itself. The search starts at t0 = (D(0) - target) / l, safe
   by (1) from the start alone (ACCD's first step: most pairs of a line search end there, at
   tmax, without evaluating a distance), with an interval of t0; an interval grows (x2) after a
   safe one and halves after one that is not; the search stops at tmax, when a rejected interval is
   shorter than 1e-3 of the time reached, or after RC__CT_CCD_MAXIT distance evaluations. The
   intervals tried do not depend on tmax, so the result is min(tmax, T) with T a function of the
   pair alone: the line search's minimum over pairs does not depend on the order they are visited
   in, or on the bound reached before (a test compares the kept candidate lists with a brute
   force). Hence: the returned t is never past the first time the distance reaches the target
   (and the distance stays above it on [0, t]); t > 0 whenever D(0) > xi; t = tmax when nothing
   gets within the target. Non-finite input returns 0. */
#define RC__CT_CCD_KEEP 0.1
#define RC__CT_CCD_MAXIT 10000
#define RC__CT_CCD_ROUND 1e-14

static double rc__ct_ccd_dist(int ee, const double *X[4])
{
    double d2 = ee ? rc__ct_edge_edge_d2(X[0], X[1], X[2], X[3], NULL, NULL, NULL)
                   : rc__ct_point_triangle_d2(X[0], X[1], X[2], X[3], NULL, NULL, NULL);
    return sqrt(d2);
}

/* l of the header comment: the relative speed bound with the best common displacement m */
static double rc__ct_ccd_speed(int ee, const double *dx[4])
{
    double best = HUGE_VAL, m[3];
    int na = ee ? 2 : 1, j, k;
    for (j = -1; j < 4; ++j) {
        double la = 0.0, lb = 0.0, v[3];
        if (j < 0) {
            m[0] = m[1] = m[2] = 0.0;
            for (k = 0; k < 4; ++k) rc__axpy3(m, 0.25, dx[k]);
        } else memcpy(m, dx[j], sizeof m);
        for (k = 0; k < 4; ++k) {
            double sp;
            rc__sub3(v, dx[k], m);
            sp = rc__norm3(v);
            if (k < na) { if (sp > la) la = sp; }
            else if (sp > lb) lb = sp;
        }
        if (la + lb < best) best = la + lb;
    }
    return best;
}

static double rc__ct_ccd_at(int ee, const double *x0[4], const double *dx[4], double t)
{
    double xt[4][3];
    const double *X[4];
    int k;
    for (k = 0; k < 4; ++k) {
        xt[k][0] = x0[k][0] + t * dx[k][0];
        xt[k][1] = x0[k][1] + t * dx[k][1];
        xt[k][2] = x0[k][2] + t * dx[k][2];
        X[k] = xt[k];
    }
    return rc__ct_ccd_dist(ee, X);
}

static double rc__ct_ccd_pair(int ee, const double *x0[4], const double *dx[4], double xi, double tmax)
{
    double l, d0, dt, target, t, h;
    int k, it;
    if (!(tmax > 0.0)) return 0.0;
    for (k = 0; k < 4; ++k)   /* non-finite input: no step is provably safe */
        if (!rc__all_finite(x0[k], 3) || !rc__all_finite(dx[k], 3)) return 0.0;
    d0 = rc__ct_ccd_dist(ee, x0);
    if (!(d0 > xi)) return 0.0;
    l = rc__ct_ccd_speed(ee, dx);
    if (!(l > 0.0)) return tmax;
    target = xi + RC__CT_CCD_KEEP * (d0 - xi);
    t = (d0 - target) / l;   /* safe by (1) from the start alone: no evaluation needed */
    if (t >= tmax) return tmax;
    dt = rc__ct_ccd_at(ee, x0, dx, t);
    h = t;
    for (it = 0; it < RC__CT_CCD_MAXIT; ++it) {
        double s = t + h, ds = rc__ct_ccd_at(ee, x0, dx, s), lh = l * h;
        double lo = ds < dt ? ds : dt, lip = 0.5 * (dt + ds - lh), sag = lo * lo - 0.25 * lh * lh;
        /* both bounds are differences of computed lengths: each must clear its round-off
           (RC__CT_CCD_ROUND of the terms' size), or a path of 1e38 m straight through a sphere
           of 0.2 m passes (D(t) + D(t + h) - l h cancels to noise of 1e22 m; a probe did that) */
        if (ds > target && (lip - target >= RC__CT_CCD_ROUND * (dt + ds + lh) ||
                            sag - target * target >= RC__CT_CCD_ROUND * (lo * lo + lh * lh))) {
            t = s;
            dt = ds;
            if (t >= tmax) return tmax;
            h *= 2.0;
        } else {
            h *= 0.5;
            if (h <= 1e-3 * t) return t;
        }
    }
    return t;   /* < tmax: reaching it returned above */
}

/* Point p (moving by dp) against triangle (t0, t1, t2) moving by (dt0, dt1, dt2). */
static double rc__ct_ccd_point_triangle(const double p0[3], const double t00[3], const double t10[3],
                                        const double t20[3], const double dp[3], const double dt0[3],
                                        const double dt1[3], const double dt2[3], double xi, double tmax)
{
    const double *x0[4], *dx[4];
    x0[0] = p0; x0[1] = t00; x0[2] = t10; x0[3] = t20;
    dx[0] = dp; dx[1] = dt0; dx[2] = dt1; dx[3] = dt2;
    return rc__ct_ccd_pair(0, x0, dx, xi, tmax);
}

/* Edge (ea0, ea1) moving by (dea0, dea1) against edge (eb0, eb1) moving by (deb0, deb1). */
static double rc__ct_ccd_edge_edge(const double ea0[3], const double ea1[3], const double eb0[3],
                                   const double eb1[3], const double dea0[3], const double dea1[3],
                                   const double deb0[3], const double deb1[3], double xi, double tmax)
{
    const double *x0[4], *dx[4];
    x0[0] = ea0; x0[1] = ea1; x0[2] = eb0; x0[3] = eb1;
    dx[0] = dea0; dx[1] = dea1; dx[2] = deb0; dx[3] = deb1;
    return rc__ct_ccd_pair(1, x0, dx, xi, tmax);
}

/* Segment [a, b] (moving by da, db; NULL: still) against triangle (t0, t1, t2) moving by (dt0,
   dt1, dt2), thickness xi: the ends against the triangle and the segment against its three
   edges. Sound for a start farther than xi apart: the segment cannot reach the triangle's interior
   without first coming within xi of it, and while they do not meet their distance is one of those
   five (rc__ct_segment_triangle_d2). a = b: the point-triangle CCD alone. */
static double rc__ct_ccd_round_triangle(const double a[3], const double b[3], const double da_in[3], const double db_in[3],
                                        const double t0[3], const double t1[3], const double t2[3], const double dt0[3],
                                        const double dt1[3], const double dt2[3], double xi, double tmax)
{
    static const double zero[3] = { 0.0, 0.0, 0.0 };
    const double *tv[3], *dv[3], *da = da_in ? da_in : zero, *db = db_in ? db_in : zero;
    double t, vmax = 0.0;
    int k;
    if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && da[0] == db[0] && da[1] == db[1] && da[2] == db[2])
        return rc__ct_ccd_point_triangle(a, t0, t1, t2, da, dt0, dt1, dt2, xi, tmax);
    tv[0] = t0; tv[1] = t1; tv[2] = t2; dv[0] = dt0; dv[1] = dt1; dv[2] = dt2;
    /* Far apart: every pair's start distance is at least the segment-triangle lower bound and its
       CCD speed (rc__ct_ccd_speed, in the frame of the first end) at most vmax = max |dt_k| +
       2 (|da| + |db|); then each pair's first safe step, (1 - KEEP)(d0 - xi) / speed, already
       reaches tmax, and so would the five calls below. */
    for (k = 0; k < 3; ++k) if (rc__norm3(dv[k]) > vmax) vmax = rc__norm3(dv[k]);
    vmax += 2.0 * (rc__norm3(da) + rc__norm3(db));
    if (tmax > 0.0 && (1.0 - RC__CT_CCD_KEEP) * (rc__ct_segment_triangle_lower_bound(a, b, tv) - xi) >= tmax * vmax) return tmax;
    t = rc__ct_ccd_point_triangle(a, t0, t1, t2, da, dt0, dt1, dt2, xi, tmax);
    t = rc__ct_ccd_point_triangle(b, t0, t1, t2, db, dt0, dt1, dt2, xi, t);
    for (k = 0; k < 3; ++k) t = rc__ct_ccd_edge_edge(a, b, tv[k], tv[(k + 1) % 3], da, db, dv[k], dv[(k + 1) % 3], xi, t);
    return t;
}

/* Moving point x0 + t dx against a static analytic shape inflated by xi. f(t) = d(x(t)) is convex
   (d is the signed distance of a convex set, x(t) affine), so Newton on f(t) = target started at
   t = 0 approaches the first root monotonically from below (a convex function lies above its
   tangents): every iterate is safe, and the limit is the exact first crossing. Same margin as
   the pair CCD (rc__ct_ccd_pair): target = xi + KEEP (d0 - xi). f is C^1 outside the shape
   (distance to a convex set), which is where the target lies. Returns tmax when f stops
   decreasing above the target (no contact), 0 when the start is not separated by more than xi
   and the point moves inward (f'(0) < 0), tmax when it moves outward. Stops when within 1e-3 of
   the target band or after 100 Newton steps (linear convergence only for exactly grazing motion);
   the iterate is safe either way. */
static double rc__ct_ccd_point_shape(const rc__ct_shape *s, const double x0[3], const double dx[3],
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
     f0(y) = -y^3/(3 eps^2) + y^2/eps   (y < eps),   y - eps/3   (y >= eps)
     f1(y) = f0'(y) = 2y/eps - y^2/eps^2 (y < eps),   1           (y >= eps)
   with y = |T^T dx| the tangential relative displacement of the step. The friction potential of a
   stencil is D = mu lambda f0(|u|), u = P^T sum_k w_k dx_k (2-vector), where lambda is the
   lagged normal force, w the lagged closest-point weights (relative displacement = sum w_k dx_k)
   and P (3x2, row-major) an orthonormal basis of the lagged tangent plane.
   f0 is IPC's minus its value at rest, eps/3 (IPC's f0(0)): D = 0 where nothing slips. A constant
   changes nothing in x, but the adaptive mode weights each contact's D by the mass or area its
   material carries at u (rc__sim_tri_friction, rc__sim_tri_pair_friction), and there the constant
   became a potential in u alone, mu lambda (eps/3) m_i(u) / m_i(u^t), pushing material away from
   every vertex in frictional contact with a force proportional to h. Dynamic steps barely felt it
   (eps/3 = 3.3 um at h = 0.01 s), but statics doubles its pseudo step up to 1e6 dt: an adaptive
   rc_sim_solve_static of pinned cloth on a sphere or a plane, with the default friction, slid u
   by 5-10 cm per pseudo step and ended unconverged after 400 of them (a sweep found it; fixed mode
   and mu = 0 converged in 9-16). test_adaptive_static_friction_converges. */
static double rc__ct_f0(double y, double eps)
{
    if (y >= eps) return y - eps / 3.0;
    return y * y * (1.0 / eps - y / (3.0 * eps * eps));
}
/* f1(y)/y, finite at y = 0 (2/eps) */
static double rc__ct_f1_over_y(double y, double eps)
{
    if (y >= eps) return 1.0 / y;
    return 2.0 / eps - y / (eps * eps);
}
/* f1'(y) = f0''(y) >= 0 */
static double rc__ct_f1_dy(double y, double eps)
{
    if (y >= eps) return 0.0;
    return 2.0 / eps - 2.0 * y / (eps * eps);
}

/* Orthonormal basis P (3x2 row-major, columns t1, t2) of the plane orthogonal to n (any length > 0;
   a zero n gives the xy plane). */
static void rc__ct_basis_from_normal(const double n_in[3], double P[6])
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
static void rc__ct_combine4(double r[3], const double w[4], const double *a, const double *b,
                            const double *c, const double *d)
{
    int i;
    for (i = 0; i < 3; ++i) r[i] = w[0] * a[i] + w[1] * b[i] + w[2] * c[i] + w[3] * d[i];
}
static int rc__ct_pt_tangent(const double p[3], const double t0[3], const double t1[3], const double t2[3],
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
static int rc__ct_ee_tangent(const double ea0[3], const double ea1[3], const double eb0[3],
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

/* Lagged friction potential of a stencil of nv (1..4) vertices: D = mu_lambda f0(|u|),
   u = P^T sum_k w_k dx_k, dx (3 nv) the step displacements (x - x^t at the material points).
   grad (3 nv) = mu_lambda w_k P (f1(y)/y) u;  Hessian blocks (k,l) = mu_lambda w_k w_l P M P^T with
   M = (f1/y)(I - uh uh^T) + f1'(y) uh uh^T: its eigenvalues f1/y >= 0 and f1' >= 0 make it PSD
   as is, and it is the exact Hessian of D wherever y != eps (no projection needed).
   grad/hess may be NULL. */
static double rc__ct_friction(int nv, const double *w, const double P[6], const double *dx,
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
   edge or a triangle swept over the step: the box of its vertices at the start and the end of
   the step) and asks for the candidate pairs whose boxes, each grown by `inflate` on every
   side (d-hat + xi for the barrier, 0 for CCD after sweeping), overlap.
   Method: every box is entered in each grid cell it touches; entries are sorted by (cell, set,
   index); a pair is reported from a cell only if that cell is the lowest corner cell of the
   overlap of the two boxes' cell ranges, so no pair is reported twice and no dedup pass is
   needed. The cell size defaults to the mean box extent and is doubled while the entry count
   exceeds 32 per box (a few huge swept boxes cannot blow up the memory). Output: pairs (i, j)
   sorted by i then j; i indexes set A and j set B, or, for a self query (B == NULL), i < j both
   in A. Deterministic: depends only on the inputs. */

typedef struct rc__ct_bp_entry {
    unsigned long long key;
    int set, id;
    int c0[3];   /* the box's lowest cell */
} rc__ct_bp_entry;

static int rc__ct_pair_cmp(const void *pa, const void *pb)
{
    const int *a = (const int *)pa, *b = (const int *)pb;
    if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Stable LSD radix sort of broad-phase entries by key, 11-bit digits over the bits the keys use.
   Entries are made in (set, index) order, so the stable sort leaves them in (cell, set, index)
   order, the order the pair sweep below needs, in O(n) per digit (qsort with its comparator was
   36% of a 1k spikes-drape run in a perf profile). *tmp: n entries
   of scratch; returns whichever of the two buffers holds the result. (The 2048 counters take 16 KiB
   of stack.) */
static rc__ct_bp_entry *rc__ct_bp_sort(rc__ct_bp_entry *a, rc__ct_bp_entry *tmp, size_t n, unsigned long long maxkey)
{
    size_t cnt[2048];
    int shift;
    for (shift = 0; shift < 64 && (maxkey >> shift) != 0; shift += 11) {
        rc__ct_bp_entry *t;
        size_t i, sum = 0;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; ++i) cnt[(a[i].key >> shift) & 2047u]++;
        for (i = 0; i < 2048; ++i) { size_t c = cnt[i]; cnt[i] = sum; sum += c; }
        for (i = 0; i < n; ++i) tmp[cnt[(a[i].key >> shift) & 2047u]++] = a[i];
        t = a; a = tmp; tmp = t;
    }
    return a;
}

/* Sorts the n pairs of out (2 ints each, unique, 0 <= a < na, 0 <= b < nb) by (a, b): an LSD radix
   sort of the keys a nb + b, 11-bit digits over the bits they use, O(n) per digit (the qsort
   with rc__ct_pair_cmp it replaces was 15% of a dress-scene run in a perf profile). qsort if the
   scratch cannot be had; the order is the same. */
static void rc__ct_pair_sort(void *user, int *out, size_t n, int nb)
{
    unsigned long long *k = n > 1 ? (unsigned long long *)rc__alloc(user, n, 2 * sizeof(unsigned long long)) : NULL, *a, mx = 0;
    size_t i;
    if (n < 2) return;
    if (!k) { qsort(out, n, 2 * sizeof(int), rc__ct_pair_cmp); return; }
    for (i = 0; i < n; ++i) {
        k[i] = (unsigned long long)out[2 * i] * (unsigned long long)nb + (unsigned long long)out[2 * i + 1];
        if (k[i] > mx) mx = k[i];
    }
    a = rc__radix_sort_u64(k, k + n, n, mx);
    for (i = 0; i < n; ++i) { out[2 * i] = (int)(a[i] / (unsigned long long)nb); out[2 * i + 1] = (int)(a[i] % (unsigned long long)nb); }
    rc__free(user, k);
}

/* alo/ahi: na boxes (3 doubles each) of set A; blo/bhi: nb boxes of set B, or NULL for pairs
   within A. cell <= 0 chooses it. *pairs (2 ints per pair, allocated with rc__alloc(user, ...),
   free with rc__free(user, *pairs)); *npairs. Errors: RC_ERR_INVALID_ARGUMENT (NULL outputs,
   negative counts or counts summing past INT_MAX / 2, NULL boxes with a positive count,
   inflate < 0), RC_ERR_NON_FINITE (a box coordinate or inflate not finite), RC_ERR_OUT_OF_MEMORY
   (nothing leaked; *pairs = NULL).
   Two sets: only the boxes that reach the other set's bounding box enter the grid (a pair must
   overlap both bounding boxes), so a small obstacle next to a big cloth hashes the few cloth
   primitives near it, not all of them. Memory: at most 32 grid entries of 32 bytes per entered
   box, as much again of radix-sort scratch, and one int per box. Boxes so far apart that
   the grid's extent overflows give RC_ERR_NON_FINITE. */
static rc_status rc__ct_bp_pairs(void *user, int na, const double *alo, const double *ahi, int nb,
                                 const double *blo, const double *bhi, double inflate, double cell,
                                 int **pairs, int *npairs)
{
    double glo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, ghi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double slo[2][3], shi[2][3];   /* each set's bounding box, boxes inflated */
    rc__ct_bp_entry *ent = NULL, *sorted;
    int *out = NULL, *keep = NULL, nkeep[2] = {0, 0};
    size_t nent = 0, cap = 0, nout = 0, i0;
    int self = (blo == NULL), nbox, s, b, i, k, dims[3];
    unsigned long long maxkey;
    if (!pairs || !npairs) return RC_ERR_INVALID_ARGUMENT;
    *pairs = NULL; *npairs = 0;
    if (na < 0 || (!self && nb < 0) || (na > 0 && (!alo || !ahi)) || (!self && nb > 0 && !bhi) || !(inflate >= 0.0))
        return rc__isnan(inflate) ? RC_ERR_NON_FINITE : RC_ERR_INVALID_ARGUMENT;
    if (!rc__isfinite(inflate) || !rc__isfinite(cell)) return RC_ERR_NON_FINITE;
    if (self) nb = 0;
    if ((size_t)na + (size_t)nb > (size_t)INT_MAX / 2) return RC_ERR_INVALID_ARGUMENT;   /* counts stay ints */
    if (na + nb == 0 || (!self && (na == 0 || nb == 0))) return RC_OK;
    for (s = 0; s < 2; ++s) {
        const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
        int n = s ? nb : na;
        for (i = 0; i < 3; ++i) { slo[s][i] = HUGE_VAL; shi[s][i] = -HUGE_VAL; }
        if (!rc__all_finite(lo, (size_t)n * 3) || !rc__all_finite(hi, (size_t)n * 3)) return RC_ERR_NON_FINITE;
        for (b = 0; b < n; ++b)
            for (i = 0; i < 3; ++i) {
                double l = lo[3 * b + i] - inflate, h = hi[3 * b + i] + inflate;
                if (h < l) return RC_ERR_INVALID_ARGUMENT;
                if (l < slo[s][i]) slo[s][i] = l;
                if (h > shi[s][i]) shi[s][i] = h;
            }
    }
    /* the boxes that enter the grid: keep[0 .. nkeep[0]) of A, then nkeep[1] of B */
    keep = (int *)rc__alloc(user, (size_t)na + (size_t)nb, sizeof(int));
    if (!keep) return RC_ERR_OUT_OF_MEMORY;
    for (s = 0; s < 2; ++s) {
        const double *lo = s ? blo : alo, *hi = s ? bhi : ahi;
        int n = s ? nb : na, o = 1 - s;
        for (b = 0; b < n; ++b) {
            int in = 1;
            for (i = 0; i < 3 && in && !self; ++i)
                if (lo[3 * b + i] - inflate > shi[o][i] || hi[3 * b + i] + inflate < slo[o][i]) in = 0;
            if (!in) continue;
            keep[nkeep[0] + nkeep[1]] = b;
            nkeep[s]++;
            for (i = 0; i < 3; ++i) {
                if (lo[3 * b + i] - inflate < glo[i]) glo[i] = lo[3 * b + i] - inflate;
                if (hi[3 * b + i] + inflate > ghi[i]) ghi[i] = hi[3 * b + i] + inflate;
            }
        }
    }
    nbox = nkeep[0] + nkeep[1];
    if (nkeep[0] == 0 || (!self && nkeep[1] == 0)) { rc__free(user, keep); return RC_OK; }
    if (!(cell > 0.0)) {
        double sum = 0.0;
        for (k = 0; k < nbox; ++k) {
            int s1 = k >= nkeep[0];
            const double *lo = s1 ? blo : alo, *hi = s1 ? bhi : ahi;
            double m = 0.0;
            b = keep[k];
            for (i = 0; i < 3; ++i) if (hi[3 * b + i] - lo[3 * b + i] + 2 * inflate > m) m = hi[3 * b + i] - lo[3 * b + i] + 2 * inflate;
            sum += m;
        }
        cell = sum / nbox;
    }
    {   /* the grid must have at most ~2^20 cells per axis so keys fit in 64 bits; else grow cell */
        double span = 0.0;
        for (i = 0; i < 3; ++i) if (ghi[i] - glo[i] > span) span = ghi[i] - glo[i];
        /* finite boxes whose extent overflows (coordinates near +-1e308): no grid can hold them */
        if (!rc__isfinite(span) || !rc__isfinite(cell)) { rc__free(user, keep); return RC_ERR_NON_FINITE; }
        if (!(cell > 0.0)) cell = span > 0.0 ? span : 1.0;
        while (span / cell > 1048576.0) cell *= 2.0;
    }
    for (;;) {   /* count entries at this cell size; double the cell while there are too many */
        double total = 0.0;
        for (k = 0; k < nbox; ++k) {
            int s1 = k >= nkeep[0];
            const double *lo = s1 ? blo : alo, *hi = s1 ? bhi : ahi;
            double c = 1.0;
            b = keep[k];
            for (i = 0; i < 3; ++i)
                c *= floor((hi[3 * b + i] + inflate - glo[i]) / cell) - floor((lo[3 * b + i] - inflate - glo[i]) / cell) + 1.0;
            total += c;
        }
        if (total <= 32.0 * nbox) { cap = (size_t)total; break; }
        cell *= 2.0;
    }
    for (i = 0; i < 3; ++i) dims[i] = (int)floor((ghi[i] - glo[i]) / cell) + 1;
    maxkey = (unsigned long long)dims[0] * (unsigned long long)dims[1] * (unsigned long long)dims[2] - 1u;
    ent = (rc__ct_bp_entry *)rc__alloc(user, cap, 2 * sizeof(rc__ct_bp_entry));   /* entries + sort scratch */
    if (!ent) { rc__free(user, keep); return RC_ERR_OUT_OF_MEMORY; }
    for (k = 0; k < nbox; ++k) {
        int s1 = k >= nkeep[0];
        const double *lo = s1 ? blo : alo, *hi = s1 ? bhi : ahi;
        int c0[3], c1[3], x, y, z;
        b = keep[k];
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
                    e->set = s1; e->id = b;
                    e->c0[0] = c0[0]; e->c0[1] = c0[1]; e->c0[2] = c0[2];
                }
    }
    rc__free(user, keep);
    sorted = rc__ct_bp_sort(ent, ent + cap, nent, maxkey);
    cap = 0;
    for (i0 = 0; i0 < nent;) {
        size_t i1 = i0, p, q;
        unsigned long long key = sorted[i0].key;
        int cx, cy, cz;
        while (i1 < nent && sorted[i1].key == key) ++i1;
        cx = (int)(key % (unsigned long long)dims[0]);
        cy = (int)((key / (unsigned long long)dims[0]) % (unsigned long long)dims[1]);
        cz = (int)(key / ((unsigned long long)dims[0] * (unsigned long long)dims[1]));
        for (p = i0; p < i1; ++p) {
            if (sorted[p].set != 0) break;
            for (q = p + 1; q < i1; ++q) {
                const rc__ct_bp_entry *ea = &sorted[p], *eb = &sorted[q];
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
    rc__ct_pair_sort(user, out, nout, self ? na : nb);
    *pairs = out;
    *npairs = (int)nout;
    return RC_OK;
}

#ifdef __cplusplus
}
#endif

/* ==========================================================================
   IMPLEMENTATION: SIM
   ========================================================================== */
#include <stdio.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Data. Unknowns per step (DESIGN §2): world positions x (3/vertex), one director angle phi per
   edge (solved with x; the solver's unknown is s_e = l_e phi_e so angle and position pivots have
   similar scales), and in adaptive mode reference positions u (0-2 per vertex, DESIGN §5).
   --------------------------------------------------------------------------------------------- */
typedef struct rc__obstacle {
    rc__ct_shape shape;           /* as added (rest pose) */
    double R[9], t[3];            /* pose at the end of the step being solved */
    double R_prev[9], t_prev[3];  /* pose at the start of that step */
    double mu;
    /* triangle-mesh obstacles (shape.kind = RC__OBS_TRIMESH): vertices at the end and at the
       start of the step, triangles, unique edges */
    int mesh_nv, mesh_nt, mesh_ne;
    double *mesh_x, *mesh_xprev;
    int *mesh_tris, *mesh_edges;
    /* adjacency (rc__mesh_obstacle_topology, one block): mesh_enf an edge's number of triangles,
       mesh_etri its first two triangles (-1: none).
       mesh_flat (ne + nv): the edges and vertices inside a planar patch at the positions of the
       last candidate build (rc__mesh_obstacle_flat), which carry the cloth-vertex barrier's
       inclusion-exclusion terms (rc__mesh_feature_weight) */
    int *mesh_enf, *mesh_etri;
    int *mesh_vtri_start, *mesh_vtri;   /* in mesh_enf's block: vertex v's triangles (no duplicates) are
                                           mesh_vtri[mesh_vtri_start[v] .. mesh_vtri_start[v + 1]) */
    unsigned char *mesh_flat;
    unsigned char *mesh_tdup;     /* nt, in mesh_flat's block: 1 = the same three vertices as an earlier triangle */
} rc__obstacle;
enum { RC__OBS_TRIMESH = 100 };

/* One linear system layout: which unknown each free scalar DOF is, its CSC upper pattern and
   its factorization. The sim has two: (x, phi) for Newton/inner solves, (x, phi, u) for the
   joint r-ITR direction. A local stencil DOF maps to (global index, coefficient) with at most
   one target, because a sliding boundary vertex has one DOF t with u = u_start + t * dir. */
typedef struct rc__system {
    int with_u;
    int ndof;
    int *dof_x;        /* 3*nv: global DOF or -1 (pinned) */
    int *dof_phi;      /* ne */
    int *dof_u;        /* nv: first u DOF or -1; number of u DOFs in nu */
    unsigned char *nu; /* nv: 0, 1 (sliding), 2 */
    int *colptr, *rowind;
    double *val;
    rc_ldlt *ldlt;
    double *g, *d;     /* gradient and direction, ndof */
    double *rhs_scratch; /* ndof, right-hand side for PCG */
    double *pcg_work;  /* 5 ndof: PCG vectors of rc__system_solve_stale (rc__pcg_core) */
    /* the triangles' scatter table (rc__system_build_tables; NULL: search): triangle t's entries
       are [el_off[t], el_off[t+1]), el_pos their CSC positions, el_loc = kind << 10 | a << 5 | b
       (kind 0: element A, 1: element B; local pair (a, b)) */
    int *el_off, *el_pos;
    unsigned short *el_loc;
    /* the self-contact vertex pairs (a nv + b, a < b, sorted) whose blocks the pattern holds
       (rc__sim_self_regrow): a pattern is a function of its keys */
    long long *pat_keys;
    size_t npat_keys;
} rc__system;

/* a material-space handle or load: point uv of the reference domain, spring k to target, dead
   force f; tri = the triangle it was last located in (a hint), -1 when removed; target_prev: the
   target at the step's start (a split step interpolates from it, as pins from x and obstacles
   from their previous pose): the target at the last step's end, or at the last load of a state */
typedef struct rc__mhandle {
    double uv[2], target[3], target_prev[3], k, f[3];
    double f_eq[3];   /* the load the state is in equilibrium with (rc_sim_solve_static's ramp) */
    int tri;
    int pp_tri[2], pp_count, pp_edge;   /* within a step: the point's last two triangles, how often it went back, the edge locked for it (rc__sim_handle_pingpong) */
} rc__mhandle;

/* the element derivative blocks (rc__sim_assemble_tri), gradient then row-major Hessian, in the
   full adaptive layout: element A 15 DOFs (x of the 3 vertices, then their u), element B 27 (x of
   the 3 vertices and 3 flaps, the 3 edge angles, then the vertices' u); RC__CHUNK triangles'
   blocks per parallel chunk of rc__sim_assemble */
#define RC__ELEM_A (15 + 15 * 15)
#define RC__ELEM_B (27 + 27 * 27)
#define RC__CHUNK 1024
#define RC__SIM_A_TERMS 7   /* the length of element A's a[] (rc__sim_kernel_A) */
#define RC__SIM_TRI_E (RC__SIM_A_TERMS + 1)   /* a row of tri_e: A's six energies, B's bending, A's core distance */
#define RC__POLISH_W 18                     /* a bending stencil in the angle polish: Q (9), h (3), theta (3), s (3) */

struct rc_sim {
    void *user;
    rc_sim_def def;
    int nv, nt, ne;
    int *tris;
    rc__topo topo;
    int flipped;
    double *x, *v, *u, *phi;             /* state at the current time */
    double *x0, *u0_step;                /* state at the start of the step (x^t, u^t) */
    double *xt;                           /* predicted field x^t + h v^t at old vertices */
    double *u_init;                       /* the initial reference (MIPS measures against it) */
    double *Dinv0;                        /* 4*nt inverse of the initial D_u */
    double *A0;                           /* nt initial reference areas */
    double *edge_len0;                    /* ne initial rest edge lengths */
    double *hinge_ref;                    /* ne: each edge's hinge angle at the last accepted iterate, unwrapped
                                             (the same from both sides; rc__sim_track_hinges); part of the saved state */
    double *start_x, *start_phi, *start_href;   /* the step's feasible start x^t (3 nv), its phi and hinge_ref (ne
                                                   each) before the move toward the predictor (rc__sim_keep_start) */
    double origin[3];                     /* the origin of the potentials of gravity and loads in the solve's
                                             energy: x^t's centroid at each solve's start (rc__inertia_tri) */
    double origin_gravity, origin_loads;  /* what that origin takes from the gravity and load terms: added back
                                             in the stats (rc__sim_set_origin) */
    const char *stop_why;                 /* the rule that last ended a solve unconverged (rc_step_stats.stop_reason) */
    double *static_eq;                    /* rc_sim_solve_static's memory of its last equilibrium: the end
                                             state of the last converged call, x (3 nv), u (2 nv), phi (ne),
                                             the vertex forces it is in equilibrium with (3 nv) and the
                                             friction's carried slips that hold it (3 nv); allocated at first use */
    int static_eq_valid;
    double *vert_len0;                    /* nv mean rest length of incident edges */
    double *mesh_tb;                      /* mesh obstacles: 91 nt scratch, each cloth triangle's summed weighted
                                             obstacle-vertex and edge-edge barriers: b, gradient (9), Hessian (81) */
    double *mesh_vb;                      /* mesh obstacles: 25 nv scratch, each cloth vertex's summed
                                             vertex-triangle barrier or friction and its derivatives
                                             (rc__sim_scatter_weighted) */
    unsigned char *mesh_vneg;             /* mesh obstacles: nv, the vertex's barrier sum has a negative term (rc__sim_mesh_contact) */
    int *panel;                           /* self contact: nv, the connected piece of the mesh a vertex belongs to
                                             (its smallest vertex index); the reference-distance exclusion
                                             acts within a piece only */
    double *travel_mass;                  /* nv lumped mass at the step's start (the travel term's m_i) */
    unsigned char *pinned, *phi_fixed, *u_fixed;
    double *pin_target, *force, *reaction;
    double L, mean_edge, total_mass;
    double quality_w;   /* the MIPS regulariser's weight per triangle, quality_weight rho tau Abar^2 / min(dt, quality_time)^2 (rc__sim_kernel_A) */
    int nobs, cap_obs;
    rc__obstacle *obs;
    double kappa;                         /* barrier stiffness */
    double kappa_prev_dist;               /* closest contact distance at the end of the last step (1e300: none) */
    double *fr_lambda, *fr_T, *fr_anchor; /* lagged friction per (vertex, obstacle): normal force,
                                             3x2 tangent basis, material anchor point */
    rc__sh_coef coef;                     /* material constants of the shell kernels */
    rc__system sys_p;                     /* director angles alone (the polish once x is near its optimum) */
    double *polish;                       /* nt*RC__POLISH_W: each bending stencil as a function of its angles
                                             at fixed x and u (rc__sim_polish_prepare), then ne: the angles
                                             at the polish's start */
    int dir_fallback;                     /* the last rc__system_direction was the scaled-gradient fallback */
    int proj;                             /* element Hessian treatment: RC__PROJECT_CLAMP, RC__PROJECT_ABS, or -1 (exact) */
    int itr_cg_last;                      /* CG iterations of the last direction taken on a reused joint factor (0: a new one) */
    double itr_mu;                        /* Levenberg-Marquardt shift of the exact outer Hessian (N/m), kept across steps */
    double itr_mu_fail;                   /* the last shift its LDL^T rejected (rc__system_direction_shifted_mu) */
    double newton_mu, newton_mu_fail;     /* the same pair for the inner (x, phi) Newton (rc__sim_newton_xp) */
    rc__system sys_xp, sys_xpu;
    /* per-vertex inertia target at the current u: xtil (3) and dxtil/du (3x2) (rc__sim_update_xtil) */
    double *xtil, *xtil_G;
    double *x0_G;                         /* 6*nv recovered u-gradient of x^t (material-point velocities) */
    /* friction slip at material points (adaptive): G0 = recovered u-gradient of x^t over u^t (6*nv,
       once per step), and the offset G0 (u - u^t) of the material point's start x^t(u) from x^t
       at the current u (3*nv, with x~) */
    double *fr_G, *fr_off;
    /* rc_sim_solve_static: each vertex's friction slip carried from pseudo step to pseudo step
       (elastic part, |fr_acc| <= eps_v dt; 3*nv, zero in rc_sim_step), and the flag that makes the
       friction's smoothing length eps_v dt instead of eps_v h (rc__sim_static_friction_carry) */
    double *fr_acc;
    int static_fric;
    double *fr_inv_A2;                    /* adaptive: 1 / A2sum_i(u^t) of each vertex (0: pinned), the mass weight of its friction (rc__sim_tri_friction) */
    /* derivative cache (r-ITR, DESIGN §6): the stencil Hessians in cacheA/cacheB (exact, or
       PSD-projected with itr_exact_hessian = 0) are kept with the stencil state they were computed
       at (x of 6 vertices, u of 3, phi of 3 = 27 numbers) */
    double *cache_state;                  /* nt*27 */
    unsigned char *cache_valid;           /* nt */
    double *cache_score;                  /* nt scratch: relative displacement since caching */
    double *active_hist;                  /* active rate of each outer iteration, active_cap entries */
    int active_cap;                       /* def.itr_max_outer at creation */
    double *tri_e;                        /* nt*RC__SIM_TRI_E per-triangle energy terms (fixed-order sums) and core distance */
    double *chunkA, *chunkB;              /* RC__CHUNK * RC__ELEM_A, RC__CHUNK * RC__ELEM_B element scratch */
    double *cacheA, *cacheB;              /* nt*(15+225), nt*(27+729): cached joint element derivatives (adaptive) */
    double *ls_x, *ls_u, *ls_phi;
    double h, inv_h2;                     /* current (sub)step size and 1/h^2 (inertia weight) */
    int has_mesh_obstacle;
    int support_moves;                    /* this step: an obstacle with lagged friction contact moved (rc__sim_ritr: strict first inner solve) */
    double gravity_norm;                  /* |def.gravity| as created (load stepping scales def.gravity; kappa_min keeps this) */
    int start_pushed;                     /* this step's start pushed cloth out of an obstacle (rc__sim_push_out) */
    int carry_limited;                    /* the last mesh carry was held back by the CCD (cloth-cloth, other obstacles: rc__sim_resolve_start_mesh) */
    int ls_nonfinite;                     /* the last line search met no finite trial energy (rc__sim_line_search) */
    int ls_halvings;                      /* the halvings of its first trial (1 or the CCD / inversion bound) it accepted after */
    int ls_nodescent;                     /* ... or halved the step to 1e-14 without a decrease above round-off */
    int crossings_checked;                /* 1 once the state was checked for cloth through cloth / mesh (rc__sim_find_crossing) */
    int nfm, cap_fm;                      /* lagged friction pairs of cloth vertices with mesh obstacles' triangles: */
    double *fm;                           /* RC__FM_STRIDE doubles each (rc__sim_lag_mesh_friction) */
    int nft, cap_ft, *ft_start;           /* lagged friction pairs that act on a cloth triangle's area (the round cores', */
    double *ft;                           /* the mesh obstacles' other kinds), by triangle: ft_start (nt + 1), records as fm's */
    rc_status contact_status;             /* out-of-memory in a pair search, reported by the solve */
    double *bp_box;                       /* box scratch for the pair searches (mesh obstacles) */
    double *ct_buf;                       /* per-pair results of the mesh-contact narrow phase */
    size_t ct_cap;                        /* doubles in ct_buf */
    /* mesh-contact candidate lists, kept over evaluations (rc__sim_mesh_cands): */
    int *mc_pairs, *mc_act;               /* every (obstacle, kind) list concatenated; a filtered copy */
    size_t mc_cap, mc_act_cap;            /* pairs they hold */
    size_t *mc_off;                       /* RC__MC_KINDS*mc_nobs + 1: list (o, kind) is pairs [mc_off[5o+k], mc_off[5o+k+1]) */
    double *mc_xb, *mc_Xb;                /* 3*nv cloth and all obstacle vertices at the build */
    size_t mc_nX;                         /* doubles in mc_Xb */
    int mc_nobs, mc_valid;                /* obstacles at the build; 0 = build at the next evaluation */
    double mc_r;                          /* the band xi + dhat of the build */
    double *ls_dx;                        /* 3*nv scratch: the x part of a direction */
    /* self-contact (def.self_contact) */
    double *self_box;                     /* 6*max(nv + nt, ne) box scratch of the self pair searches */
    double *self_dx;                      /* 3*nv scratch: the direction minus its mean (CCD boxes) */
    int *sc_pairs, *sc_act;               /* self-contact candidate lists kept over evaluations (rc__sim_self_cands): */
    size_t sc_cap, sc_act_cap, sc_off[3]; /*   kind k is pairs [sc_off[k], sc_off[k+1]); a filtered copy */
    double *sc_xb, sc_r;                  /*   3*nv positions and the band xi + dhat of the build */
    int sc_valid;
    int *self_act, nself_act, cap_self_act; /* active pairs of an assembly: (kind, a, b) triples */
    double *fs;                           /* lagged self friction, 15 doubles per pair: 4 vertices, */
    int nfs, cap_fs;                      /*   4 weights, mu*lambda, tangent basis P (3x2) */
    double t_bp, t_np, t_ccd;             /* phase timers of the current solve (seconds) */
    int npat;                             /* pattern rebuilds of the current solve */
    int nmh, cap_mh;                      /* material-space handles / loads (rc_sim_add_material_handle) */
    unsigned char *u_lock;                /* nv: adaptive, a vertex that reached a handle's point keeps u (rc__sim_update_handle_locks) */
    int nst, cap_st;                      /* seam stitches (rc_sim_add_seam): vertex pairs and stiffness */
    int *st_pair;
    double *st_k;
    int *st_mate;                         /* nv: the vertex stitched to v, -1 none, -2 several (rc__sim_stitched) */
    int *st_share;                        /* nv: partner whose sliding parameter v shares (adaptive), -1 none */
    double *u_dir;                        /* 2*nv with seams: u direction of a one-DOF vertex (slide_dir,
                                             or the scaled seam tangent of a shared pair); NULL: slide_dir */
    struct rc__mhandle *mh;
    double time;                          /* simulated time, s (rc_sim_time) */
    char err[1024];
    char err_whole[1024];   /* why the whole step (before any split) failed */
    int split_futile;       /* the failed attempt's start was inside a contact offset with nothing
                               moving over the step: every split starts the same (rc__sim_advance) */
    char warn[256];
};

/* ---------------------------------------------------------------------------------------------
   Errors: a readable message kept in the sim; the status is returned.
   --------------------------------------------------------------------------------------------- */
static void rc__sim_set_step_size(rc_sim *s, double h);
static void rc__sim_pin_reactions(rc_sim *s);
static double rc__sim_mesh_friction(const rc_sim *s, const double *x, const double *u, rc__system *y);
static double rc__sim_fm_pair(const rc_sim *s, const double *rec, const double *x, double *g, double *H);
static void rc__sim_fm_carry(const rc_sim *s, const double *rec, int v, double *QG);
#define RC__FM_STRIDE 28   /* doubles per lagged friction pair record (rc__sim_fm_record) */

static rc_status rc__sim_fail(rc_sim *s, rc_status st, const char *msg)
{
    if (s) {
        size_t n = strlen(msg);
        if (n > sizeof(s->err) - 1) n = sizeof(s->err) - 1;
        memcpy(s->err, msg, n);
        s->err[n] = 0;
    }
    return st;
}

/* The same from a const entry point: the message buffer is the only thing written (every rc_sim is
   heap-allocated, never a const object, so the cast is well defined). */
static rc_status rc__sim_fail_c(const rc_sim *s, rc_status st, const char *msg)
{
    return rc__sim_fail((rc_sim *)s, st, msg);
}

static double rc__now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / (double)CLOCKS_PER_SEC;
#endif
}

RCLOTHDEF rc_sim_def rc_default_sim_def(void)
{
    rc_sim_def d;
    memset(&d, 0, sizeof d);
    d.material = rc_material_cotton();
    d.bending_scale = 1.0;
    d.dt = 0.01;
    d.gravity[2] = -9.81;
    d.adaptive = 0;
    d.tol = 1e-4;
    d.max_newton_iters = 100;
    d.newton_exact_hessian = 1;
    d.max_substeps = 8;
    d.static_load_steps = 1;
    d.linear_solver = RC_SOLVER_LDLT;
    d.pcg_tol = 1e-4;
    d.itr_eps0 = 1e-2;
    d.itr_lambda = 0.98;
    d.itr_strict_every = 10;
    d.itr_max_outer = 300;
    d.itr_schedule = 1;
    d.itr_cache = 1;
    d.itr_exact_hessian = 1;
    d.itr_energy_tol = 1e-3;
    d.cache_eps = 1e-3;
    d.itr_factor_reuse = 20;
    d.itr_factor_eta = 0.3;
    d.quality_threshold = 2.5;
    d.quality_weight = 1.0;
    d.travel_weight = 1.0;
    d.travel_time = 0.04;
    d.quality_time = 0.04;
    d.contact_thickness = 1e-3;
    d.contact_dhat = 2e-3;
    d.friction = 0.3;
    d.friction_eps_v = 1e-3;
    /* Off by default (opt-in). It is cheap where the cloth is not near itself: on the 10k-vertex
       sphere drape the self-contact phases took 6-8% of the step (bench/bench_self.c overhead; bar
       30%). But it changes what existing scenes do wherever cloth does touch itself (e.g. the limp
       sheet of the box-edge test, whose corners fold onto themselves, rests 0.1 mm higher), and in
       a folded region every layer-to-layer pair adds a 12x12 Hessian (the fold bench spends a third
       to a half of its step time in self-contact). */
    d.self_contact = 0;
    d.num_threads = 1;   /* see rc_sim_def.num_threads: threads are opt-in */
    d.alloc_user = NULL;
    return d;
}


/* ---------------------------------------------------------------------------------------------
   Creation and destruction
   --------------------------------------------------------------------------------------------- */
static void rc__system_free(rc__system *y, void *user)
{
    rc__free(user, y->dof_x); rc__free(user, y->dof_phi); rc__free(user, y->dof_u); rc__free(user, y->nu);
    rc__free(user, y->colptr); rc__free(user, y->rowind); rc__free(user, y->val);
    rc__free(user, y->g); rc__free(user, y->d); rc__free(user, y->rhs_scratch); rc__free(user, y->pcg_work);
    rc__free(user, y->el_off); rc__free(user, y->el_pos); rc__free(user, y->el_loc); rc__free(user, y->pat_keys);
    if (y->ldlt) rc_ldlt_destroy(y->ldlt);
    memset(y, 0, sizeof *y);
}

RCLOTHDEF void rc_sim_destroy(rc_sim *s)
{
    void *user;
    if (!s) return;
    user = s->user;
    rc__free(user, s->tris);
    rc__topo_free(&s->topo, user);
    rc__free(user, s->x); rc__free(user, s->v); rc__free(user, s->u); rc__free(user, s->phi);
    rc__free(user, s->x0); rc__free(user, s->u0_step); rc__free(user, s->xt);
    rc__free(user, s->u_init); rc__free(user, s->Dinv0); rc__free(user, s->A0);
    rc__free(user, s->edge_len0); rc__free(user, s->vert_len0); rc__free(user, s->panel); rc__free(user, s->mesh_vb); rc__free(user, s->mesh_vneg); rc__free(user, s->mesh_tb); rc__free(user, s->travel_mass); rc__free(user, s->hinge_ref);
    rc__free(user, s->start_x); rc__free(user, s->start_phi); rc__free(user, s->start_href);
    rc__free(user, s->static_eq);
    rc__free(user, s->pinned); rc__free(user, s->phi_fixed); rc__free(user, s->u_fixed); rc__free(user, s->u_lock);
    rc__free(user, s->pin_target); rc__free(user, s->force); rc__free(user, s->reaction);
    if (s->obs) {
        int o;
        for (o = 0; o < s->nobs; ++o) {
            rc__free(user, s->obs[o].mesh_x); rc__free(user, s->obs[o].mesh_xprev);
            rc__free(user, s->obs[o].mesh_tris); rc__free(user, s->obs[o].mesh_edges);
            rc__free(user, s->obs[o].mesh_enf); rc__free(user, s->obs[o].mesh_flat);
        }
    }
    rc__free(user, s->obs);
    rc__free(user, s->fr_lambda); rc__free(user, s->fr_T); rc__free(user, s->fr_anchor);
    rc__system_free(&s->sys_xp, user);
    rc__system_free(&s->sys_xpu, user);
    rc__system_free(&s->sys_p, user);
    rc__free(user, s->xtil); rc__free(user, s->xtil_G); rc__free(user, s->x0_G);
    rc__free(user, s->fr_G); rc__free(user, s->fr_off); rc__free(user, s->fr_inv_A2); rc__free(user, s->fr_acc);
    rc__free(user, s->tri_e); rc__free(user, s->polish); rc__free(user, s->chunkA); rc__free(user, s->chunkB);
    rc__free(user, s->cacheA); rc__free(user, s->cacheB);
    rc__free(user, s->cache_state); rc__free(user, s->cache_valid); rc__free(user, s->cache_score); rc__free(user, s->active_hist);
    rc__free(user, s->mh); rc__free(user, s->st_pair); rc__free(user, s->st_k);
    rc__free(user, s->self_box); rc__free(user, s->self_dx);
    rc__free(user, s->sc_pairs); rc__free(user, s->sc_act); rc__free(user, s->sc_xb); rc__free(user, s->self_act); rc__free(user, s->fs);
    rc__free(user, s->st_mate); rc__free(user, s->st_share); rc__free(user, s->u_dir);
    rc__free(user, s->ls_x); rc__free(user, s->ls_dx); rc__free(user, s->bp_box); rc__free(user, s->ct_buf); rc__free(user, s->fm);
    rc__free(user, s->ft); rc__free(user, s->ft_start);
    rc__free(user, s->mc_pairs); rc__free(user, s->mc_act); rc__free(user, s->mc_off); rc__free(user, s->mc_xb); rc__free(user, s->mc_Xb); rc__free(user, s->ls_u); rc__free(user, s->ls_phi);
    RCLOTH_FREE(s, user);
}

RCLOTHDEF const char *rc_sim_last_error(const rc_sim *s) { return s ? s->err : "no sim"; }
RCLOTHDEF const char *rc_sim_last_warning(const rc_sim *s) { return s ? s->warn : "no sim"; }
RCLOTHDEF int rc_sim_mesh_was_flipped(const rc_sim *s) { return s ? s->flipped : 0; }

/* Friction coefficients beyond 1e6 (fabrics: 0.1-1.5; 10 already holds cloth like glue) are
   refused: probes of a sheet on a plane tilted by its gravity, 10 steps, held it to the bit up to
   mu = 1e9, 7 of 10 steps converged at 1e100, and at 1e300 the joint Hessian overflowed (every
   step in contact failed "factorization ... failed"). */
#define RC__MU_MAX 1e6
#define RC__DT_MIN 1e-9   /* the smallest time step, s (why: at its check below) */

static rc_status rc__sim_check_def(const rc_sim_def *d, char *msg, size_t len)
{
    const rc_mesh_desc *m = &d->mesh;
    rc_status st;
#define RC__DEFCHECK(cond, text) do { if (!(cond)) { snprintf(msg, len, "rc_sim_def: %s", text); return RC_ERR_INVALID_ARGUMENT; } } while (0)
    /* NaN or inf in a scalar is RC_ERR_NON_FINITE (the status's meaning everywhere else), named;
       the range checks below then see finite values only */
#define RC__DEFFINITE(v) do { if (!rc__isfinite(d->v)) { snprintf(msg, len, "rc_sim_def: " #v " is not finite (NaN or inf)"); return RC_ERR_NON_FINITE; } } while (0)
    RC__DEFFINITE(dt); RC__DEFFINITE(gravity[0]); RC__DEFFINITE(gravity[1]); RC__DEFFINITE(gravity[2]);
    RC__DEFFINITE(bending_scale); RC__DEFFINITE(tol); RC__DEFFINITE(pcg_tol); RC__DEFFINITE(itr_eps0);
    RC__DEFFINITE(itr_lambda); RC__DEFFINITE(itr_energy_tol); RC__DEFFINITE(cache_eps); RC__DEFFINITE(itr_factor_eta);
    RC__DEFFINITE(quality_threshold); RC__DEFFINITE(quality_weight); RC__DEFFINITE(travel_weight); RC__DEFFINITE(travel_time); RC__DEFFINITE(quality_time);
    RC__DEFFINITE(contact_thickness); RC__DEFFINITE(contact_dhat); RC__DEFFINITE(friction); RC__DEFFINITE(friction_eps_v);
#undef RC__DEFFINITE
    RC__DEFCHECK(m->num_verts >= 3 && m->num_tris >= 1, "mesh needs at least 3 vertices and 1 triangle");
    RC__DEFCHECK(m->ref_uv != NULL && m->tris != NULL, "mesh.ref_uv and mesh.tris must not be NULL");
    RC__DEFCHECK(m->num_verts <= 50000000 && m->num_tris <= 100000000, "mesh too large");
    RC__DEFCHECK(d->dt > 0.0, "dt must be positive");
    /* 1/dt^2 weights the inertia and tol L dt is the stopping bound: far below a nanosecond double
       precision loses them (probes on a falling 8 x 8 grid: at dt 1e-100 it fell 8x too far in
       three steps, RC_OK; at 1e-160 the first step failed blaming a degenerated triangle) */
    RC__DEFCHECK(d->dt >= RC__DT_MIN, "dt must be >= 1e-9 s (below, the inertia's 1/dt^2 and the stopping bound tol L dt leave double precision)");
    RC__DEFCHECK(d->bending_scale >= 0.0, "bending_scale must be >= 0");
    RC__DEFCHECK(d->adaptive == 0 || d->adaptive == 1, "adaptive must be 0 or 1");
    RC__DEFCHECK(d->tol > 0.0, "tol must be positive");
    RC__DEFCHECK(d->max_newton_iters >= 1, "max_newton_iters must be >= 1");
    RC__DEFCHECK(d->newton_exact_hessian == 0 || d->newton_exact_hessian == 1, "newton_exact_hessian must be 0 or 1");
    RC__DEFCHECK(d->max_substeps >= 0 && d->max_substeps <= 20, "max_substeps must be in [0, 20]");
    RC__DEFCHECK(d->static_load_steps >= 1 && d->static_load_steps <= 10000, "static_load_steps must be in [1, 10000]");
    RC__DEFCHECK(d->linear_solver == RC_SOLVER_LDLT || d->linear_solver == RC_SOLVER_PCG, "linear_solver must be RC_SOLVER_LDLT or RC_SOLVER_PCG");
    RC__DEFCHECK(d->pcg_tol > 0.0 && d->pcg_tol < 1.0, "pcg_tol must be in (0, 1)");
    RC__DEFCHECK(!d->adaptive || d->itr_eps0 >= d->tol, "itr_eps0 must be >= tol (adaptive)");   /* fixed mode never reads it: a loose tol alone is fine */
    RC__DEFCHECK(d->itr_lambda > 0.0 && d->itr_lambda <= 1.0, "itr_lambda must be in (0, 1]");
    RC__DEFCHECK(d->itr_strict_every >= 1, "itr_strict_every must be >= 1");
    RC__DEFCHECK(d->itr_max_outer >= 1, "itr_max_outer must be >= 1");
    RC__DEFCHECK(d->itr_schedule == 0 || d->itr_schedule == 1, "itr_schedule must be 0 or 1");
    RC__DEFCHECK(d->itr_cache == 0 || d->itr_cache == 1, "itr_cache must be 0 or 1");
    RC__DEFCHECK(d->itr_exact_hessian == 0 || d->itr_exact_hessian == 1, "itr_exact_hessian must be 0 or 1");
    RC__DEFCHECK(d->itr_energy_tol >= 0.0 && d->itr_energy_tol < 1.0, "itr_energy_tol must be in [0, 1)");
    RC__DEFCHECK(d->cache_eps >= 0.0, "cache_eps must be >= 0");
    RC__DEFCHECK(d->itr_factor_reuse >= 0, "itr_factor_reuse must be >= 0");
    RC__DEFCHECK(d->itr_factor_eta > 0.0 && d->itr_factor_eta < 1.0, "itr_factor_eta must be in (0, 1)");
    RC__DEFCHECK(d->quality_threshold > 2.0, "quality_threshold must be > 2 (MIPS >= 2)");
    RC__DEFCHECK(d->quality_weight >= 0.0, "quality_weight must be >= 0");
    RC__DEFCHECK(d->travel_weight >= 0.0, "travel_weight must be >= 0");
    RC__DEFCHECK(d->travel_time > 0.0, "travel_time must be > 0 (s)");
    RC__DEFCHECK(d->quality_time >= RC__DT_MIN, "quality_time must be >= 1e-9 s (as dt)");
    RC__DEFCHECK(d->contact_thickness >= 0.0, "contact_thickness must be >= 0");
    RC__DEFCHECK(d->contact_dhat > 0.0, "contact_dhat must be > 0");
    RC__DEFCHECK(d->friction >= 0.0 && d->friction <= RC__MU_MAX, "friction must be in [0, 1e6]");
    RC__DEFCHECK(d->friction_eps_v > 0.0, "friction_eps_v must be > 0");
    RC__DEFCHECK(d->num_threads >= 0, "num_threads must be >= 0");
    RC__DEFCHECK(d->self_contact == 0 || d->self_contact == 1, "self_contact must be 0 or 1");
#undef RC__DEFCHECK
    {
        char why[240];
        st = rc__material_check(&d->material, why, sizeof why);
        if (st != RC_OK) { snprintf(msg, len, "rc_sim_def.%s", why); return st; }
    }
    {
        int i;
        for (i = 0; i < m->num_verts; ++i)
            if (!rc__all_finite(m->ref_uv + 2 * i, 2) || (m->pos && !rc__all_finite(m->pos + 3 * i, 3))) {
                snprintf(msg, len, "rc_sim_def.mesh: vertex %d has a non-finite %s", i, rc__all_finite(m->ref_uv + 2 * i, 2) ? "position (pos)" : "reference uv");
                return RC_ERR_NON_FINITE;
            }
    }
    return RC_OK;
}

/* The scales a step can represent in double precision. After rc_mesh_validate (which refuses a
   degenerate domain first).
   - The reference domain's size between 1 um and 1000 km. Far outside it the energies' products
     of lengths (areas^2, inertia |dx|^2 / h^2) under- or overflow, and a perfect grid scaled to
     1e-20 or 1e40 m failed its first step with a misleading message.
   - The contact band xi + dhat at most 1e6 m, the largest supported domain: at 1e100 m the first
     step failed blaming a degenerated world triangle (a probe). (Relative to the cloth no
     upper bound: a 10 um sheet with the default 1 mm thickness is a valid sim without obstacles.)
   - Lower bounds relative to the cloth's size (session 50, an adversarial probe: each value was
     accepted, then failed every step or ran for minutes with a message blaming something else):
     dhat at least 1e-10 of it (1e-300: adaptive statics ran 118,812 outer iterations); the
     static-friction slip per step eps_v dt at least 1e-20 of it (1e-160 m/s: eps^2 underflowed,
     NaN friction); the fall per step |g| dt^2 at most 1e10 times it (1e300 m/s^2: no descent).
   - Stiffness over inertia (below) at least 1e-30, for the bending part only when bending is on
     (bending_scale 0 turns it off): a subnormal bending stiffness left the director angles'
     pivots zero.
   - The elastic stiffness against the inertia at the mesh's scale, membrane K_m h^2 / (sigma l^2)
     and bending K_b h^2 / (sigma l^4) (K_m, K_b the stiffest modes of the membrane and bending
     laws, rc__sh_law_stiffness: ~1.43 E tau and 1.43 E tau^3/12 at nu = 0.3; sigma = rho tau, l the mean
     reference edge), at most 1e12: beyond, the inertia's share of the Hessian nears round-off and
     rigid motions are lost. Measured (probes, a free-falling cotton square, 3 steps at dt 0.01,
     with K_m = E tau then): E = 1e22 Pa (membrane ratio ~1e18) or density 1e-20 stayed put, every
     step "converged"; on an 8 x 8 grid membrane ratios of 3e13 fell exactly and 3e14 were frozen,
     bending ratios of 4e12 fell and 1e13 were frozen (bending_scale 3e17). The material presets
     reach at most 2e7 (dt 1e-3 to 0.1, edges of 3 mm and more). */
static rc_status rc__sim_check_scale(const rc_sim_def *d, char *msg, size_t len)
{
    const rc_mesh_desc *m = &d->mesh;
    const rc_material *mat = &d->material;
    double lo[2] = { DBL_MAX, DBL_MAX }, hi[2] = { -DBL_MAX, -DBL_MAX }, size, l = 0.0, km, kb, sigma, rm, rb;
    int i, c, t;
    for (i = 0; i < m->num_verts; ++i)
        for (c = 0; c < 2; ++c) { lo[c] = fmin(lo[c], m->ref_uv[2 * i + c]); hi[c] = fmax(hi[c], m->ref_uv[2 * i + c]); }
    size = m->num_verts > 0 ? fmax(hi[0] - lo[0], hi[1] - lo[1]) : 1.0;
    if (!(size >= 1e-6 && size <= 1e6)) {
        snprintf(msg, len, "rc_sim_def.mesh: the reference domain is %g m across; supported: 1e-6 to 1e6 m (rescale the units)", size);
        return RC_ERR_INVALID_ARGUMENT;
    }
    if (d->contact_thickness + d->contact_dhat > 1e6) {
        snprintf(msg, len, "rc_sim_def: contact_thickness + contact_dhat = %g m; supported: up to 1e6 m (the cloth is %g m across)",
                 d->contact_thickness + d->contact_dhat, size);
        return RC_ERR_INVALID_ARGUMENT;
    }
    for (t = 0; t < m->num_tris; ++t)
        for (c = 0; c < 3; ++c) {
            const double *a = m->ref_uv + 2 * m->tris[3 * t + c], *b = m->ref_uv + 2 * m->tris[3 * t + (c + 1) % 3];
            l += hypot(b[0] - a[0], b[1] - a[1]);
        }
    l /= 3.0 * m->num_tris;
    {
        /* the stiffest mode of the law itself, not the engineering constants: near its Poisson
           limit a material is far stiffer than E tau (shear E tau / (2 (1 + nu)) as nu -> -1; an
           orthotropic C11 = E1 / (1 - nu12^2 E2/E1)). A probe's sheet at nu = -1 + 1e-13, or
           nu12 within 1e-13 of its limit, stayed put in free fall, every step "converged". */
        rc__sh_coef law = rc__sh_make_coef(mat, d->bending_scale);
        km = rc__sh_law_stiffness(law.Cs);
        kb = rc__sh_law_stiffness(law.Cb);
    }
    /* lower bounds, each far below any real use (session 50 probe: the values below them were
       accepted and then failed every step, or ran for minutes, with messages that blamed
       something else) */
    if (d->contact_dhat < 1e-10 * size) {
        snprintf(msg, len, "rc_sim_def.contact_dhat = %g m is below 1e-10 of the cloth's size (%g m across): the barrier band "
                 "would be lost to the round-off of the positions", d->contact_dhat, size);
        return RC_ERR_INVALID_ARGUMENT;
    }
    if (d->friction_eps_v * d->dt < 1e-20 * size) {
        snprintf(msg, len, "rc_sim_def.friction_eps_v = %g m/s: the static-friction slip per step, eps_v dt = %g m, is below "
                 "1e-20 of the cloth's size (%g m across), far below the round-off of the positions", d->friction_eps_v,
                 d->friction_eps_v * d->dt, size);
        return RC_ERR_INVALID_ARGUMENT;
    }
    if (rc__norm3(d->gravity) * d->dt * d->dt > 1e10 * size) {
        snprintf(msg, len, "rc_sim_def.gravity: |g| dt^2 = %g m of fall per step, over 1e10 times the cloth's size (%g m "
                 "across): the step's energies would overflow; check the units", rc__norm3(d->gravity) * d->dt * d->dt, size);
        return RC_ERR_INVALID_ARGUMENT;
    }
    sigma = mat->density * mat->thickness;
    rm = km * d->dt * d->dt / (sigma * l * l);
    rb = kb * d->dt * d->dt / (sigma * l * l * l * l);
    if (!(rm >= 1e-30) || (kb > 0.0 && !(rb >= 1e-30))) {
        /* the director angles carry only bending stiffness (no inertia): a bending stiffness in
           subnormal numbers left their pivots zero (probes: young 1e-300, or bending_scale 1e-306
           to 1e-310, failed every step, "factorization failed"; bending_scale 0, or small enough to
           underflow to 0, turns bending off and steps) */
        int bend = kb > 0.0 && !(rb >= 1e-30);
        snprintf(msg, len, "rc_sim_def.material: %s stiffness over inertia at this dt and mesh is %.3g (supported: at least "
                 "1e-30): too small to compute in double precision; check the units%s", bend ? "bending" : "membrane",
                 bend ? rb : rm, bend ? " (bending_scale = 0 turns bending off)" : "");
        return RC_ERR_BAD_MATERIAL;
    }
    if (!(rm <= 1e12 && rb <= 1e12)) {
        snprintf(msg, len, "rc_sim_def.material: %s stiffness over inertia at this dt and mesh is %.3g (supported: up to 1e12): the "
                 "inertia would be lost to round-off (rigid motions frozen); check the units, or use a smaller dt",
                 rm >= rb ? "membrane" : "bending", fmax(rm, rb));
        return RC_ERR_BAD_MATERIAL;
    }
    if (d->adaptive) {   /* the regulariser's weight over the inertia's scale, quality_weight (dt / h_q)^2 (rc__sim_kernel_A) */
        double hq = fmin(d->dt, d->quality_time), rq = d->quality_weight * (d->dt / hq) * (d->dt / hq);
        if (!(rq <= 1e12)) {
            snprintf(msg, len, "rc_sim_def: the regulariser's weight over the inertia's, quality_weight (dt / min(dt, quality_time))^2, "
                     "is %.3g (supported: up to 1e12): raise quality_time or lower quality_weight", rq);
            return RC_ERR_INVALID_ARGUMENT;
        }
    }
    return RC_OK;
}

/* Everything rc_sim_create checks before building (the def's fields, the mesh's validity and
   scale, and that every vertex is in a triangle: one in none has no mass, no elastic energy and
   no incident triangle for the inertia transfer, so the step would be singular or read out of
   bounds). Shared by rc_sim_create and rc_sim_def_check. */
/* 1 if the world triangle (a, b, c) has no plane: its vertices coincide or are collinear to
   round-off (twice its area at most 1e-14 of its longest edge squared), so its normal, hinge angles
   and directors are undefined */
static int rc__tri_flat(const double *a, const double *b, const double *c)
{
    double e1[3], e2[3], e3[3], n[3];
    rc__sub3(e1, b, a); rc__sub3(e2, c, a); rc__sub3(e3, c, b);
    rc__cross3(n, e1, e2);
    return !(rc__norm3(n) > 1e-14 * fmax(rc__dot3(e1, e1), fmax(rc__dot3(e2, e2), rc__dot3(e3, e3))));
}

static rc_status rc__sim_def_checks(const rc_sim_def *def, char *msg, size_t len, int *flipped)
{
    unsigned char *used;
    int i;
    rc_status st = rc__sim_check_def(def, msg, len);
    if (st == RC_OK) st = rc__mesh_validate(def->alloc_user, def->mesh.num_verts, def->mesh.num_tris, def->mesh.ref_uv, def->mesh.tris, flipped, msg, (int)len);
    if (st == RC_OK) st = rc__sim_check_scale(def, msg, len);
    if (st != RC_OK) return st;
    used = (unsigned char *)rc__calloc(def->alloc_user, (size_t)def->mesh.num_verts + 1, 1);
    if (!used) { snprintf(msg, len, "out of memory checking the mesh"); return RC_ERR_OUT_OF_MEMORY; }
    for (i = 0; i < 3 * def->mesh.num_tris; ++i) used[def->mesh.tris[i]] = 1;
    for (i = 0; i < def->mesh.num_verts && st == RC_OK; ++i)
        if (!used[i]) {
            snprintf(msg, len, "rc_sim_def.mesh: vertex %d is in no triangle (rc_mesh_remove_unreferenced drops such vertices)", i);
            st = RC_ERR_INVALID_ARGUMENT;
        }
    rc__free(def->alloc_user, used);
    /* The world triangles must have a plane (rc__tri_flat): the first step failed on one without
       (a probe: "the energy of the step's start is not finite (bending NaN)") */
    for (i = 0; i < def->mesh.num_tris && st == RC_OK && def->mesh.pos; ++i) {
        const int *t = def->mesh.tris + 3 * i;
        if (rc__tri_flat(def->mesh.pos + 3 * t[0], def->mesh.pos + 3 * t[1], def->mesh.pos + 3 * t[2])) {
            snprintf(msg, len, "rc_sim_def.mesh: triangle %d (vertices %d %d %d) is degenerate in the world positions (pos): its "
                     "vertices coincide or are collinear, so its normal is undefined", i, t[0], t[1], t[2]);
            st = RC_ERR_MESH_DEGENERATE;
        }
    }
    return st;
}

RCLOTHDEF rc_status rc_sim_def_check(const rc_sim_def *def, char *msg, int msg_len)
{
    char buf[256];
    int flipped = 0;
    rc_status st;
    buf[0] = 0;
    if (!def) { snprintf(buf, sizeof buf, "rc_sim_def_check: def is NULL"); st = RC_ERR_INVALID_ARGUMENT; }
    else if ((st = rc__sim_def_checks(def, buf, sizeof buf, &flipped)) == RC_OK) buf[0] = 0;
    if (msg && msg_len > 0) snprintf(msg, (size_t)msg_len, "%s", buf);
    return st;
}

RCLOTHDEF rc_status rc_sim_create(const rc_sim_def *def, rc_sim **out)
{
    rc_sim *s;
    void *user;
    int nv, nt, ne, i, t, e, flipped = 0;
    rc_status st;
    char msg[256];
    double lo[3] = { DBL_MAX, DBL_MAX, DBL_MAX }, hi[3] = { -DBL_MAX, -DBL_MAX, -DBL_MAX };
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!def) return RC_ERR_INVALID_ARGUMENT;
    st = rc__sim_def_checks(def, msg, sizeof msg, &flipped);
    if (st != RC_OK) return st;
    user = def->alloc_user;
    s = (rc_sim *)RCLOTH_MALLOC(sizeof(rc_sim), user);
    if (!s) return RC_ERR_OUT_OF_MEMORY;
    memset(s, 0, sizeof *s);
    s->user = user;
    s->def = *def;
    s->gravity_norm = rc__norm3(def->gravity);
    s->def.mesh.ref_uv = NULL; s->def.mesh.pos = NULL; s->def.mesh.tris = NULL;   /* not retained */
    s->flipped = flipped;
    nv = s->nv = def->mesh.num_verts;
    nt = s->nt = def->mesh.num_tris;
    s->tris = (int *)rc__alloc(user, (size_t)3 * nt, sizeof(int));
    if (!s->tris) goto oom;
    memcpy(s->tris, def->mesh.tris, sizeof(int) * 3 * (size_t)nt);
    if (flipped)   /* the clockwise pieces (rc__mesh_validate): every clockwise triangle */
        for (t = 0; t < nt; ++t) {
            const int *tr = s->tris + 3 * t;
            if (rc__mesh_orient2(def->mesh.ref_uv + 2 * tr[0], def->mesh.ref_uv + 2 * tr[1], def->mesh.ref_uv + 2 * tr[2]) < 0.0) {
                int tmp = s->tris[3 * t + 1]; s->tris[3 * t + 1] = s->tris[3 * t + 2]; s->tris[3 * t + 2] = tmp;
            }
        }
    st = rc__topo_build(&s->topo, user, nv, nt, s->tris, def->mesh.ref_uv);
    if (st != RC_OK) { rc_sim_destroy(s); return st; }
    ne = s->ne = s->topo.ne;

#define RC__A(ptr, n, type) do { (ptr) = (type *)rc__calloc(user, (size_t)(n), sizeof(type)); if (!(ptr)) goto oom; } while (0)
    RC__A(s->x, 3 * nv, double); RC__A(s->v, 3 * nv, double); RC__A(s->u, 2 * nv, double); RC__A(s->phi, ne, double);
    RC__A(s->x0, 3 * nv, double); RC__A(s->u0_step, 2 * nv, double); RC__A(s->xt, 3 * nv, double);
    RC__A(s->u_init, 2 * nv, double); RC__A(s->Dinv0, 4 * nt, double); RC__A(s->A0, nt, double);
    RC__A(s->edge_len0, ne, double); RC__A(s->vert_len0, nv, double); RC__A(s->travel_mass, nv, double); RC__A(s->hinge_ref, ne, double);
    RC__A(s->start_x, 3 * nv, double); RC__A(s->start_phi, ne, double); RC__A(s->start_href, ne, double);
    RC__A(s->pinned, nv, unsigned char); RC__A(s->phi_fixed, ne, unsigned char); RC__A(s->u_fixed, nv, unsigned char); RC__A(s->u_lock, nv, unsigned char);
    RC__A(s->pin_target, 3 * nv, double); RC__A(s->force, 3 * nv, double); RC__A(s->reaction, 3 * nv, double);
    RC__A(s->xtil, 3 * nv, double); RC__A(s->xtil_G, 6 * nv, double); RC__A(s->x0_G, 6 * nv, double);
    RC__A(s->fr_G, 6 * nv, double); RC__A(s->fr_off, 3 * nv, double); RC__A(s->fr_inv_A2, nv, double); RC__A(s->fr_acc, 3 * nv, double);
    RC__A(s->ls_x, 3 * nv, double); RC__A(s->ls_dx, 3 * nv, double); RC__A(s->ls_u, 2 * nv, double); RC__A(s->ls_phi, ne, double);
    RC__A(s->tri_e, (size_t)RC__SIM_TRI_E * nt, double);
    RC__A(s->polish, (size_t)RC__POLISH_W * nt + ne, double);
    RC__A(s->chunkA, (size_t)(nt < RC__CHUNK ? nt : RC__CHUNK) * RC__ELEM_A, double);
    RC__A(s->chunkB, (size_t)(nt < RC__CHUNK ? nt : RC__CHUNK) * RC__ELEM_B, double);
    if (def->adaptive && def->itr_cache) {   /* the derivative cache and its bookkeeping */
        RC__A(s->cacheA, (size_t)nt * RC__ELEM_A, double); RC__A(s->cacheB, (size_t)nt * RC__ELEM_B, double);
        RC__A(s->cache_state, (size_t)nt * 27, double); RC__A(s->cache_valid, nt, unsigned char); RC__A(s->cache_score, nt, double);
    }
    if (def->adaptive) { RC__A(s->active_hist, def->itr_max_outer, double); s->active_cap = def->itr_max_outer; }
    if (def->self_contact) {
        size_t nb = (size_t)nv + (size_t)nt > (size_t)s->topo.ne ? (size_t)nv + (size_t)nt : (size_t)s->topo.ne;
        RC__A(s->self_box, 6 * nb, double); RC__A(s->self_dx, 3 * nv, double); RC__A(s->panel, nv, int);
    }
#undef RC__A
    memcpy(s->u, def->mesh.ref_uv, sizeof(double) * 2 * (size_t)nv);
    memcpy(s->u_init, s->u, sizeof(double) * 2 * (size_t)nv);
    for (i = 0; i < nv; ++i) {
        int c;
        if (def->mesh.pos) for (c = 0; c < 3; ++c) s->x[3 * i + c] = def->mesh.pos[3 * i + c];
        else { s->x[3 * i] = s->u[2 * i]; s->x[3 * i + 1] = s->u[2 * i + 1]; s->x[3 * i + 2] = 0.0; }
        for (c = 0; c < 3; ++c) { if (s->x[3 * i + c] < lo[c]) lo[c] = s->x[3 * i + c]; if (s->x[3 * i + c] > hi[c]) hi[c] = s->x[3 * i + c]; }
    }
    s->L = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    for (t = 0; t < nt; ++t) {
        const int *tri = s->tris + 3 * t;
        /* the mesh was validated: det > 0 */
        s->A0[t] = 0.5 * rc__uv_dinv(s->u + 2 * tri[0], s->u + 2 * tri[1], s->u + 2 * tri[2], s->Dinv0 + 4 * t);
        s->total_mass += def->material.density * def->material.thickness * s->A0[t];
    }
    {   /* the regulariser's weight (rc__sim_kernel_A): its h is min(def.dt, quality_time), also in
           substeps and statics */
        double abar = s->total_mass / (def->material.density * def->material.thickness * nt);
        double hq = def->dt < def->quality_time ? def->dt : def->quality_time;
        s->quality_w = def->quality_weight * def->material.density * def->material.thickness * abar * abar / (hq * hq);
    }
    {
        int *cnt = (int *)rc__calloc(user, (size_t)nv, sizeof(int));
        if (!cnt) goto oom;
        for (e = 0; e < ne; ++e) {
            int a = s->topo.edge_v[2 * e], b = s->topo.edge_v[2 * e + 1];
            double du = s->u[2 * a] - s->u[2 * b], dv = s->u[2 * a + 1] - s->u[2 * b + 1];
            double l = sqrt(du * du + dv * dv);
            s->edge_len0[e] = l;
            s->mean_edge += l;
            s->vert_len0[a] += l; s->vert_len0[b] += l; cnt[a]++; cnt[b]++;
        }
        s->mean_edge /= (double)(ne > 0 ? ne : 1);
        for (i = 0; i < nv; ++i) s->vert_len0[i] = cnt[i] ? s->vert_len0[i] / cnt[i] : s->mean_edge;
        rc__free(user, cnt);
    }
    if (s->panel) {
        /* connected pieces: union-find over the edges (path halving), labelled by their smallest vertex */
        for (i = 0; i < nv; ++i) s->panel[i] = i;
        for (e = 0; e < ne; ++e) rc__uf_union(s->panel, s->topo.edge_v[2 * e], s->topo.edge_v[2 * e + 1]);
        /* every link points to a smaller index, so one pass in index order labels by the root */
        for (i = 0; i < nv; ++i) s->panel[i] = s->panel[s->panel[i]];
    }
    if (s->L <= 0.0) s->L = s->mean_edge;
    rc__sim_set_step_size(s, def->dt);
    s->coef = rc__sh_make_coef(&def->material, def->bending_scale);
    s->proj = RC__PROJECT_CLAMP;
    s->kappa = 0.0;   /* set from the mass scale when the first contact appears */
    s->kappa_prev_dist = 1e300;
    {
        /* uv is the rest shape in metres: an OBJ's texture coordinates (vt in [0, 1] on a 2 m
           plane) or uv in other units than pos are a valid but surely unintended pre-stretch (a
           probe: 964 J of stretch in a 0.15 kg cloth, which snapped to its uv size in a step). Not
           an error (a cloth may start stretched); a warning when the world edges are on average
           more than 1.25 times, or less than half, their rest lengths: no fabric stretches by a
           quarter, while compressed starts are common (corners pulled together). Until session 58
           the bound was twice, inclusive, and a 2 m cloth with vt in [0, 1] (exactly 2) and a sheet
           tilted by 60 degrees whose uv were its x and y (1.3 on average) went unwarned. */
        double lw = 0.0, lu = 0.0;
        for (e = 0; e < ne; ++e) {
            double d[3];
            rc__sub3(d, s->x + 3 * s->topo.edge_v[2 * e], s->x + 3 * s->topo.edge_v[2 * e + 1]);
            lw += rc__norm3(d);
            lu += s->edge_len0[e];
        }
        if (!(lw <= 1.25 * lu && lw >= 0.5 * lu))
            snprintf(s->warn, sizeof s->warn, "rc_sim_create: the world edges (pos) are on average %.3g times their rest lengths "
                     "(uv): uv is the rest shape in metres, not texture coordinates; the cloth starts %s", lw / lu,
                     lw > lu ? "stretched" : "compressed");
    }
    *out = s;
    return RC_OK;
oom:
    rc_sim_destroy(s);
    return RC_ERR_OUT_OF_MEMORY;
}

RCLOTHDEF int rc_sim_num_verts(const rc_sim *s) { return s ? s->nv : 0; }
RCLOTHDEF int rc_sim_num_tris(const rc_sim *s) { return s ? s->nt : 0; }
RCLOTHDEF int rc_sim_num_edges(const rc_sim *s) { return s ? s->ne : 0; }
RCLOTHDEF const int *rc_sim_tris(const rc_sim *s) { return s ? s->tris : NULL; }
RCLOTHDEF const double *rc_sim_positions(const rc_sim *s) { return s ? s->x : NULL; }
RCLOTHDEF const double *rc_sim_velocities(const rc_sim *s) { return s ? s->v : NULL; }
RCLOTHDEF double rc_sim_time(const rc_sim *s) { return s ? s->time : 0.0; }
RCLOTHDEF const double *rc_sim_reference(const rc_sim *s) { return s ? s->u : NULL; }
RCLOTHDEF const double *rc_sim_directors(const rc_sim *s) { return s ? s->phi : NULL; }
RCLOTHDEF rc_status rc_sim_vertex_masses(const rc_sim *s, double *mass)
{
    const double rho_tau = s ? s->def.material.density * s->def.material.thickness : 0.0;
    int t, k;
    if (!s || !mass) return RC_ERR_INVALID_ARGUMENT;
    memset(mass, 0, sizeof(double) * (size_t)s->nv);
    for (t = 0; t < s->nt; ++t) {   /* the triangles are counter-clockwise in u: A > 0 */
        const int *tr = s->tris + 3 * t;
        const double *a = s->u + 2 * tr[0], *b = s->u + 2 * tr[1], *c = s->u + 2 * tr[2];
        double A = 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]));
        for (k = 0; k < 3; ++k) mass[tr[k]] += rho_tau * A / 3.0;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------------
   Pins, forces, obstacles. Changing the set of pinned vertices or of loaded vertices changes the
   DOF layout; the systems are rebuilt lazily at the next step.
   --------------------------------------------------------------------------------------------- */
static void rc__sim_invalidate_layout(rc_sim *s)
{
    rc__system_free(&s->sys_xp, s->user);
    rc__system_free(&s->sys_xpu, s->user);
    rc__system_free(&s->sys_p, s->user);
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
}

RCLOTHDEF rc_status rc_sim_pin(rc_sim *s, int vertex, const double target[3])
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!target) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin: target is NULL");
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin: vertex out of range");
    if (!rc__all_finite(target, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_pin: target is not finite");
    if (!s->pinned[vertex]) {
        s->pinned[vertex] = 1;
        memset(s->reaction + 3 * vertex, 0, 3 * sizeof(double));   /* not pinned during the last step */
        rc__sim_invalidate_layout(s);
    }
    memcpy(s->pin_target + 3 * vertex, target, 3 * sizeof(double));
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_unpin(rc_sim *s, int vertex)
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_unpin: vertex out of range");
    if (s->pinned[vertex]) {
        s->pinned[vertex] = 0;
        memset(s->reaction + 3 * vertex, 0, 3 * sizeof(double));   /* documented: zero when not pinned */
        rc__sim_invalidate_layout(s);
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_set_force(rc_sim *s, int vertex, const double f[3])
{
    int had, has;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!f) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_force: force is NULL");
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_force: vertex out of range");
    if (!rc__all_finite(f, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_set_force: force is not finite");
    had = s->force[3 * vertex] != 0.0 || s->force[3 * vertex + 1] != 0.0 || s->force[3 * vertex + 2] != 0.0;
    has = f[0] != 0.0 || f[1] != 0.0 || f[2] != 0.0;
    memcpy(s->force + 3 * vertex, f, 3 * sizeof(double));
    if (had != has && s->def.adaptive) rc__sim_invalidate_layout(s);   /* loaded vertices keep u fixed */
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_set_velocities(rc_sim *s, const double *v)
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!v) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_velocities: v is NULL");
    if (!rc__all_finite(v, (size_t)3 * (size_t)s->nv)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_set_velocities: a velocity is not finite");
    memcpy(s->v, v, sizeof(double) * 3 * (size_t)s->nv);
    return RC_OK;
}

/* ---- material-space handles (DESIGN §5's material-space loads) ---- */

/* the barycentric coordinates w of q in the plane triangle (a, b, c): q = w0 a + w1 b + w2 c */
static void rc__barycentric2(const double a[2], const double b[2], const double c[2], const double q[2], double w[3])
{
    double J = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    w[1] = ((q[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (q[1] - a[1])) / J;
    w[2] = ((b[0] - a[0]) * (q[1] - a[1]) - (q[0] - a[0]) * (b[1] - a[1])) / J;
    w[0] = 1.0 - w[1] - w[2];
}

/* Point location: the triangle of u whose barycentric coordinates of q have the largest minimum
   (*minbary; >= 0 inside; the largest also picks a triangle for a point on an edge or a round-off
   hair outside the domain), the first of equals. The hint triangle (where the handle was last
   found) is tried first and taken when q lies inside it by a margin (1e-9) no other triangle can
   also meet, so a handle that stays in its triangle costs O(1); otherwise a scan of all triangles
   (handles are few; a walk would make this O(sqrt(nt)) if ever needed). So the result depends on
   (u, q) alone, never on the hint. Why: a handle at a mesh vertex or on an edge lies
   in several triangles to round-off, and taking the hint whenever q was inside it made the
   handle's stencil depend on its history: a state loaded into a second sim (whose hints are those
   of its set-up) did not replay the first sim's steps bit for bit (4.6 mm apart after 4 adaptive
   steps, pin + handle). */
static int rc__sim_locate_uv(const rc_sim *s, const double *u, const double q[2], int hint, double *minbary)
{
    int t, best = -1;
    double bestm = -HUGE_VAL;
    for (t = (hint >= 0 && hint < s->nt) ? -1 : 0; t < s->nt; ++t) {
        int tt = t < 0 ? hint : t;
        const int *v = s->tris + 3 * tt;
        double w[3], m;
        rc__barycentric2(u + 2 * v[0], u + 2 * v[1], u + 2 * v[2], q, w);
        m = w[0];
        if (w[1] < m) m = w[1];
        if (w[2] < m) m = w[2];
        if (t < 0) {
            if (m > 1e-9) { bestm = m; best = tt; break; }   /* inside the hint, away from its edges */
            continue;
        }
        if (m > bestm) { bestm = m; best = tt; }
    }
    if (minbary) *minbary = bestm;
    return best;
}

static void rc__sim_gather_A(const rc_sim *s, int t, const double *x, const double *u, double xl[9], double ul[6])
{
    int k, c;
    for (k = 0; k < 3; ++k) {
        for (c = 0; c < 3; ++c) xl[3 * k + c] = x[3 * s->tris[3 * t + k] + c];
        for (c = 0; c < 2; ++c) ul[2 * k + c] = u[2 * s->tris[3 * t + k] + c];
    }
}

/* A spring's stiffness (a seam's stitch, a material handle) against the inertia of an average
   vertex, k dt^2 / (M / nv), at most 1e12, as rc__sim_check_scale bounds the material's: beyond,
   the inertia is lost to round-off. Measured (session 53's probe): a handle or a seam of 1e300 N/m
   was accepted, and the adaptive steps then ended at the iteration cap with the stretch energy
   growing 419 -> 1.6e8 J over four steps; at 1e20 they took 235-300 outer iterations. A hard
   constraint is a pin. */
static rc_status rc__sim_check_spring(rc_sim *s, double k, const char *fn)
{
    double m_h2 = s->total_mass / s->nv / (s->def.dt * s->def.dt);
    char msg[256];
    if (k <= 1e12 * m_h2) return RC_OK;
    snprintf(msg, sizeof msg, "%s: stiffness %g N/m is %.3g times the inertia of an average vertex (m / dt^2 = %.3g N/m); supported: up "
             "to 1e12 (for a hard constraint, pin the vertex)", fn, k, k / m_h2, m_h2);
    return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
}

RCLOTHDEF rc_status rc_sim_add_seam(rc_sim *s, int n, const int *side_a, const int *side_b, double stiffness)
{
    int i;
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (n < 1 || !side_a || !side_b) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_seam: n < 1 or a side is NULL");
    if (!rc__isfinite(stiffness)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_seam: stiffness is not finite");
    if (!(stiffness > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_seam: stiffness must be > 0");
    if ((st = rc__sim_check_spring(s, stiffness, "rc_sim_add_seam")) != RC_OK) return st;
    for (i = 0; i < n; ++i)
        if (side_a[i] < 0 || side_a[i] >= s->nv || side_b[i] < 0 || side_b[i] >= s->nv || side_a[i] == side_b[i]) {
            char msg[200];
            snprintf(msg, sizeof msg, "rc_sim_add_seam: stitch %d joins vertices %d and %d: %s", i, side_a[i], side_b[i],
                     side_a[i] == side_b[i] ? "a vertex stitched to itself" : "a vertex out of range [0, number of vertices)");
            return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
        }
    for (i = 0; i < n; ++i) {
        /* a zero-length stitch along a mesh edge collapses that edge and its triangles (the
           gradient turned non-finite within ten steps) */
        int j, a = side_a[i], b = side_b[i];
        for (j = s->topo.vv_ptr[a]; j < s->topo.vv_ptr[a + 1]; ++j)
            if (s->topo.vv_idx[j] == b) {
                char msg[160];
                snprintf(msg, sizeof msg, "rc_sim_add_seam: vertices %d and %d are joined by an edge of the mesh (the stitch would collapse it)", a, b);
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
            }
    }
    if (s->nst + n > s->cap_st) {
        int cap = s->cap_st ? s->cap_st : 16;
        int *np;
        double *nk;
        while (cap < s->nst + n) cap *= 2;
        np = (int *)rc__realloc(s->user, s->st_pair, (size_t)2 * cap, sizeof(int));
        if (!np) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding a seam");
        s->st_pair = np;
        nk = (double *)rc__realloc(s->user, s->st_k, (size_t)cap, sizeof(double));
        if (!nk) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding a seam");
        s->st_k = nk;
        s->cap_st = cap;
    }
    if (!s->st_mate) {
        s->st_mate = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));
        s->st_share = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));
        s->u_dir = (double *)rc__alloc(s->user, (size_t)2 * s->nv, sizeof(double));
        if (!s->st_mate || !s->st_share || !s->u_dir) {
            rc__free(s->user, s->st_mate); rc__free(s->user, s->st_share); rc__free(s->user, s->u_dir);
            s->st_mate = s->st_share = NULL; s->u_dir = NULL;
            return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding a seam");
        }
        for (i = 0; i < s->nv; ++i) s->st_mate[i] = s->st_share[i] = -1;
    }
    for (i = 0; i < n; ++i) {
        int a = side_a[i], b = side_b[i];
        s->st_pair[2 * (s->nst + i)] = a;
        s->st_pair[2 * (s->nst + i) + 1] = b;
        s->st_k[s->nst + i] = stiffness;
        /* a vertex stitched twice (a seam corner, a repeated pair) has no single mate */
        s->st_mate[a] = s->st_mate[a] == -1 ? b : -2;
        s->st_mate[b] = s->st_mate[b] == -1 ? a : -2;
    }
    s->nst += n;
    rc__sim_invalidate_layout(s);   /* new pattern entries, new u layout of the stitched vertices */
    {   /* stitches far apart are accepted (the springs pull them together), but a pairing in the
           wrong order or the wrong vertex usually shows as a gap of many edges: say so */
        double gmax = 0.0;
        int imax = 0;
        for (i = 0; i < n; ++i) {
            double d[3], g;
            rc__sub3(d, s->x + 3 * side_b[i], s->x + 3 * side_a[i]);
            g = rc__norm3(d);
            if (g > gmax) { gmax = g; imax = i; }
        }
        if (gmax > 2.0 * s->mean_edge)
            snprintf(s->warn, sizeof s->warn, "rc_sim_add_seam: stitch %d joins vertices %d and %d, %.3g m apart (%.3g mean edges),"
                     " pulling with %.3g N; stitched vertices should start together: sides paired in order?",
                     imax, side_a[imax], side_b[imax], gmax, gmax / s->mean_edge, stiffness * gmax);
    }
    return RC_OK;
}

/* 1 if vertices a and b are joined by a seam stitch (either order). HOOK for cloth self-contact:
   a stitched pair sits at zero distance by design, so the self-contact pair search must skip it
   (and, with a thickness, the few stencils around it). O(1) for a vertex stitched once, a scan
   over the stitches for a vertex stitched several times (seam corners, rare). */
static int rc__sim_stitched(const rc_sim *s, int a, int b)
{
    int i;
    if (!s->st_mate || a < 0 || b < 0 || a >= s->nv || b >= s->nv) return 0;
    if (s->st_mate[a] != -2) return s->st_mate[a] == b;
    for (i = 0; i < s->nst; ++i)
        if ((s->st_pair[2 * i] == a && s->st_pair[2 * i + 1] == b) || (s->st_pair[2 * i] == b && s->st_pair[2 * i + 1] == a)) return 1;
    return 0;
}

static rc_status rc__sim_check_uv(const rc_sim *s, const double uv[2], int *tri, const char *fn)
{
    double mb;
    char msg[256];
    if (!uv) { snprintf(msg, sizeof msg, "%s: uv is NULL", fn); return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, msg); }
    if (!rc__all_finite(uv, 2)) { snprintf(msg, sizeof msg, "%s: uv is not finite", fn); return rc__sim_fail_c(s, RC_ERR_NON_FINITE, msg); }
    *tri = rc__sim_locate_uv(s, s->u, uv, -1, &mb);
    if (*tri < 0 || mb < -1e-9) {
        /* all the digits: a point 1e-7 outside a 0.5 m square printed as (0.5, 0.2), on its boundary
           (session 53's probe) */
        if (*tri < 0) snprintf(msg, sizeof msg, "%s: uv (%.17g, %.17g) is outside the reference domain", fn, uv[0], uv[1]);
        else snprintf(msg, sizeof msg, "%s: uv (%.17g, %.17g) is outside the reference domain (barycentric coordinate %.3g in the "
                      "nearest triangle; -1e-9 is accepted)", fn, uv[0], uv[1], mb);
        return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    return RC_OK;
}

static rc_status rc__sim_add_mh(rc_sim *s, const double uv[2], const double target[3], double k, const double f[3], int *id,
                                const char *fn)
{
    int tri, slot;
    rc_status st = rc__sim_check_uv(s, uv, &tri, fn);
    if (st != RC_OK) return st;
    /* a removed handle's slot (and id) is reused: an editor adding and removing a grab every
       frame grew the array without bound before this (100k pairs: adaptive steps 30% slower) */
    for (slot = 0; slot < s->nmh; ++slot)
        if (s->mh[slot].tri < 0) break;
    if (slot == s->nmh && s->nmh == s->cap_mh) {
        int cap = s->cap_mh ? 2 * s->cap_mh : 4;
        rc__mhandle *n = (rc__mhandle *)rc__realloc(s->user, s->mh, (size_t)cap, sizeof(rc__mhandle));
        if (!n) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding a material handle");
        s->mh = n;
        s->cap_mh = cap;
    }
    memcpy(s->mh[slot].uv, uv, 2 * sizeof(double));
    memcpy(s->mh[slot].target, target, 3 * sizeof(double));
    memcpy(s->mh[slot].target_prev, target, 3 * sizeof(double));
    memcpy(s->mh[slot].f, f, 3 * sizeof(double));
    memset(s->mh[slot].f_eq, 0, 3 * sizeof(double));
    s->mh[slot].k = k;
    s->mh[slot].tri = tri;
    s->mh[slot].pp_edge = -1;
    if (id) *id = slot;
    if (slot == s->nmh) s->nmh++;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_add_material_handle(rc_sim *s, const double uv[2], const double target[3], double stiffness, int *id)
{
    static const double zero[3] = {0, 0, 0};
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!target) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_material_handle: target is NULL");
    if (!rc__all_finite(target, 3) || !rc__isfinite(stiffness))
        return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_material_handle: target or stiffness not finite");
    if (!(stiffness > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_material_handle: stiffness must be > 0");
    st = rc__sim_check_spring(s, stiffness, "rc_sim_add_material_handle");
    return st != RC_OK ? st : rc__sim_add_mh(s, uv, target, stiffness, zero, id, "rc_sim_add_material_handle");
}

RCLOTHDEF rc_status rc_sim_add_material_load(rc_sim *s, const double uv[2], const double force[3], int *id)
{
    static const double zero[3] = {0, 0, 0};
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!force) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_material_load: force is NULL");
    if (!rc__all_finite(force, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_material_load: force is not finite");
    return rc__sim_add_mh(s, uv, zero, 0.0, force, id, "rc_sim_add_material_load");
}

static rc_status rc__sim_mh_get(rc_sim *s, int id, const double v[3], const char *fn, rc__mhandle **out)
{
    char msg[128];
    if (id < 0 || id >= s->nmh || s->mh[id].tri < 0) {
        snprintf(msg, sizeof msg, "%s: no material handle with id %d", fn, id);
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    if (v && !rc__all_finite(v, 3)) {
        snprintf(msg, sizeof msg, "%s: value is not finite", fn);
        return rc__sim_fail(s, RC_ERR_NON_FINITE, msg);
    }
    *out = s->mh + id;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_move_material_handle(rc_sim *s, int id, const double target[3])
{
    rc__mhandle *m;
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!target) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_material_handle: target is NULL");
    st = rc__sim_mh_get(s, id, target, "rc_sim_move_material_handle", &m);
    if (st != RC_OK) return st;
    if (!(m->k > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_material_handle: id is a load, not a handle");
    memcpy(m->target, target, 3 * sizeof(double));
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_set_material_load(rc_sim *s, int id, const double force[3])
{
    rc__mhandle *m;
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!force) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_material_load: force is NULL");
    st = rc__sim_mh_get(s, id, force, "rc_sim_set_material_load", &m);
    if (st != RC_OK) return st;
    memcpy(m->f, force, 3 * sizeof(double));
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_remove_material_handle(rc_sim *s, int id)
{
    rc__mhandle *m;
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    st = rc__sim_mh_get(s, id, NULL, "rc_sim_remove_material_handle", &m);
    if (st != RC_OK) return st;
    m->tri = -1;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_material_point(const rc_sim *s, const double uv[2], double pos[3])
{
    int tri;
    double xl[9], ul[6], zero[3] = {0, 0, 0};
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!pos) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_material_point: pos is NULL");
    st = rc__sim_check_uv(s, uv, &tri, "rc_sim_material_point");
    if (st != RC_OK) return st;
    rc__sim_gather_A(s, tri, s->x, s->u, xl, ul);
    /* the handle kernel's energy -f.X with k = 0 and f = -e_c is X_c: one interpolation rule */
    {
        int c;
        for (c = 0; c < 3; ++c) {
            double f[3] = {0, 0, 0};
            f[c] = -1.0;
            pos[c] = rc__mp_tri(xl, ul, uv, 0.0, zero, f, NULL, NULL);
        }
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_pin_reaction(const rc_sim *s, int vertex, double force[3])
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!force || vertex < 0 || vertex >= s->nv) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin_reaction: force is NULL or vertex out of range");
    memcpy(force, s->reaction + 3 * vertex, 3 * sizeof(double));
    return RC_OK;
}

/* The largest obstacle coordinate or size accepted, m: far beyond any scene (the cloth is at most
   1e6 m across), far inside double's range for the contact and CCD polynomials (products of up to
   six coordinates). An obstacle teleported 1e160 m away to take it out of play (a probe, session
   55) overflowed the CCD: the adaptive step never returned (a root search at t = NaN), the fixed one
   froze the cloth with RC_OK. */
#define RC__WORLD_MAX 1e12
/* 1 (with msg) if a coordinate or size among v[0..n) exceeds RC__WORLD_MAX */
static int rc__sim_too_far(const double *v, size_t n, const char *who, char *msg, size_t len)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (fabs(v[i]) > RC__WORLD_MAX) {
            snprintf(msg, len, "%s: a coordinate or size of %.3g m; supported: up to %.0e m (to take an obstacle out of play, a few of "
                     "the cloth's sizes away is enough)", who, v[i], RC__WORLD_MAX);
            return 1;
        }
    return 0;
}

static rc_status rc__sim_add_obstacle(rc_sim *s, const rc__obstacle *o, int *id)
{
    if (s->nobs == s->cap_obs) {
        int cap = s->cap_obs ? 2 * s->cap_obs : 4;
        rc__obstacle *n = (rc__obstacle *)rc__realloc(s->user, s->obs, (size_t)cap, sizeof(rc__obstacle));
        double *lam, *T, *anc;
        if (!n) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->obs = n;
        lam = (double *)rc__realloc(s->user, s->fr_lambda, (size_t)cap * s->nv, sizeof(double));
        if (!lam) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_lambda = lam;
        T = (double *)rc__realloc(s->user, s->fr_T, (size_t)cap * s->nv * 6, sizeof(double));
        if (!T) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_T = T;
        anc = (double *)rc__realloc(s->user, s->fr_anchor, (size_t)cap * s->nv * 3, sizeof(double));
        if (!anc) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_anchor = anc;
        s->cap_obs = cap;
    }
    s->obs[s->nobs] = *o;
    memset(s->fr_lambda + (size_t)s->nobs * s->nv, 0, sizeof(double) * (size_t)s->nv);
    if (id) *id = s->nobs;
    s->nobs++;
    return RC_OK;
}

static void rc__obstacle_init(rc__obstacle *o, int kind, double mu)
{
    memset(o, 0, sizeof *o);
    o->shape.kind = kind;
    o->shape.R[0] = o->shape.R[4] = o->shape.R[8] = 1.0;
    o->R[0] = o->R[4] = o->R[8] = 1.0;
    memcpy(o->R_prev, o->R, sizeof o->R);
    o->mu = mu;
}

RCLOTHDEF rc_status rc_sim_add_plane(rc_sim *s, const double point[3], const double normal[3], int *id)
{
    rc__obstacle o;
    double m, nm[3];
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!point || !normal) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_plane: point or normal is NULL");
    if (!rc__all_finite(point, 3) || !rc__all_finite(normal, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_plane: non-finite input");
    if (rc__sim_too_far(point, 3, "rc_sim_add_plane", s->err, sizeof s->err)) return RC_ERR_INVALID_ARGUMENT;
    /* any finite nonzero normal: divided by its largest component first, so |n| neither
       overflows (1e155: |n| = inf turned the normal into 0, and the plane into one no step
       could evaluate) nor underflows */
    m = fmax(fabs(normal[0]), fmax(fabs(normal[1]), fabs(normal[2])));
    if (!(m > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_plane: zero normal");
    nm[0] = normal[0] / m; nm[1] = normal[1] / m; nm[2] = normal[2] / m;   /* not * (1/m): 1/1e-310 = inf */
    rc__obstacle_init(&o, RC__CT_SHAPE_PLANE, s->def.friction);
    memcpy(o.shape.p, point, sizeof o.shape.p);
    rc__scale3(o.shape.n, 1.0 / rc__norm3(nm), nm);
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_sphere(rc_sim *s, const double center[3], double radius, int *id)
{
    rc__obstacle o;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!center) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_sphere: center is NULL");
    if (!rc__all_finite(center, 3) || !rc__isfinite(radius)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_sphere: non-finite input");
    if (!(radius > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_sphere: radius must be > 0");
    if (rc__sim_too_far(center, 3, "rc_sim_add_sphere", s->err, sizeof s->err) || rc__sim_too_far(&radius, 1, "rc_sim_add_sphere", s->err, sizeof s->err))
        return RC_ERR_INVALID_ARGUMENT;
    rc__obstacle_init(&o, RC__CT_SHAPE_SPHERE, s->def.friction);
    memcpy(o.shape.p, center, sizeof o.shape.p);
    o.shape.r = radius;
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_box(rc_sim *s, const double center[3], const double half[3], int *id)
{
    rc__obstacle o;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!center || !half) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_box: center or half is NULL");
    if (!rc__all_finite(center, 3) || !rc__all_finite(half, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_box: non-finite input");
    if (!(half[0] > 0.0 && half[1] > 0.0 && half[2] > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_box: half extents must be > 0");
    if (rc__sim_too_far(center, 3, "rc_sim_add_box", s->err, sizeof s->err) || rc__sim_too_far(half, 3, "rc_sim_add_box", s->err, sizeof s->err))
        return RC_ERR_INVALID_ARGUMENT;
    rc__obstacle_init(&o, RC__CT_SHAPE_BOX, s->def.friction);
    memcpy(o.shape.p, center, sizeof o.shape.p);
    memcpy(o.shape.half, half, sizeof o.shape.half);
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_capsule(rc_sim *s, const double a[3], const double b[3], double radius, int *id)
{
    rc__obstacle o;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!a || !b) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_capsule: an end point is NULL");
    if (!rc__all_finite(a, 3) || !rc__all_finite(b, 3) || !rc__isfinite(radius)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_capsule: non-finite input");
    if (!(radius > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_capsule: radius must be > 0");
    if (rc__sim_too_far(a, 3, "rc_sim_add_capsule", s->err, sizeof s->err) || rc__sim_too_far(b, 3, "rc_sim_add_capsule", s->err, sizeof s->err) ||
        rc__sim_too_far(&radius, 1, "rc_sim_add_capsule", s->err, sizeof s->err))
        return RC_ERR_INVALID_ARGUMENT;
    {
        /* a straight cloth edge of rest length l between two vertices outside a cylinder of
           radius r can dip into it by up to l^2/(8r) (sagitta), down to the core at r/2
           (rc__sim_round_core); warn when that exceeds the offset. (Until session 34, in adaptive
           mode a warning said the cloth could pass through between vertices: the core stops that.) */
        double lmax = 0.0, dip;
        int e;
        for (e = 0; e < s->ne; ++e) if (s->edge_len0[e] > lmax) lmax = s->edge_len0[e];
        dip = lmax * lmax / (8.0 * radius);
        if (dip > s->def.contact_thickness)
            snprintf(s->warn, sizeof s->warn, "rc_sim_add_capsule: cloth edges up to %.3g m can dip %.3g m into this capsule between vertices (contact thickness %.3g m); refine the cloth or enlarge the thickness",
                     lmax, dip, s->def.contact_thickness);
    }
    rc__obstacle_init(&o, RC__CT_SHAPE_CAPSULE, s->def.friction);
    memcpy(o.shape.a, a, sizeof o.shape.a);
    memcpy(o.shape.b, b, sizeof o.shape.b);
    o.shape.r = radius;
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_set_obstacle_friction(rc_sim *s, int id, double mu)
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (id < 0 || id >= s->nobs) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_obstacle_friction: no such obstacle");
    if (!rc__isfinite(mu)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_set_obstacle_friction: mu is not finite");
    if (!(mu >= 0.0 && mu <= RC__MU_MAX)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_obstacle_friction: mu must be in [0, 1e6]");
    s->obs[id].mu = mu;
    return RC_OK;
}

static int rc__cmp_int2(const void *a, const void *b)
{
    const int *x = (const int *)a, *y = (const int *)b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* the index of edge (a, b) in a mesh obstacle's sorted unique edges (-1: not an edge) */
static int rc__mesh_obstacle_edge(const rc__obstacle *o, int a, int b)
{
    int lo = 0, hi = o->mesh_ne - 1, key[2];
    key[0] = a < b ? a : b; key[1] = a < b ? b : a;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = rc__cmp_int2(o->mesh_edges + 2 * mid, key);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* the three indices of tv in increasing order */
static void rc__sort3_int(const int *tv, int k[3])
{
    int a = tv[0], b = tv[1], c = tv[2], t;
    if (a > b) { t = a; a = b; b = t; }
    if (b > c) { t = b; b = c; c = t; }
    if (a > b) { t = a; a = b; b = t; }
    k[0] = a; k[1] = b; k[2] = c;
}

/* The adjacency of a mesh obstacle (see rc__obstacle) from its triangles and sorted edges; 0 on
   out-of-memory */
static int rc__mesh_obstacle_topology(void *user, rc__obstacle *o)
{
    int ne = o->mesh_ne, t, k, e, *first, *next;
    o->mesh_enf = (int *)rc__alloc(user, (size_t)ne * 3 + (size_t)o->mesh_nv + 1 + 3 * (size_t)o->mesh_nt, sizeof(int));
    o->mesh_flat = (unsigned char *)rc__calloc(user, (size_t)ne + (size_t)o->mesh_nv + (size_t)o->mesh_nt, 1);
    if (!o->mesh_enf || !o->mesh_flat) return 0;
    o->mesh_etri = o->mesh_enf + ne;
    o->mesh_vtri_start = o->mesh_enf + 3 * (size_t)ne;
    o->mesh_vtri = o->mesh_vtri_start + o->mesh_nv + 1;
    o->mesh_tdup = o->mesh_flat + ne + o->mesh_nv;
    /* Duplicates: a triangle on the same three vertices as an earlier one, in either winding (a
       double-sided mesh adds each triangle again reversed). The barrier is unsigned, so it is the
       same surface: it takes no pairs (rc__sim_mesh_pairs) and no part in the edges' triangle
       counts (so a double-sided planar patch is flat like a single-sided one). Before: a sheet
       resting on a double-sided mesh floor was held twice (its vertices by both copies of each
       triangle), and adaptive, its reference mesh slid 2.5 cm toward the floor's diagonal.
       Found through lists of the triangles by the edge of their two smallest vertex indices. */
    first = (int *)rc__alloc(user, (size_t)ne + 1, sizeof(int));
    next = (int *)rc__alloc(user, (size_t)o->mesh_nt + 1, sizeof(int));
    if (!first || !next) { rc__free(user, first); rc__free(user, next); return 0; }
    for (e = 0; e < ne; ++e) first[e] = -1;
    for (t = 0; t < o->mesh_nt; ++t) {
        int kt[3], u;
        rc__sort3_int(o->mesh_tris + 3 * t, kt);
        e = rc__mesh_obstacle_edge(o, kt[0], kt[1]);
        if (e < 0) continue;
        for (u = first[e]; u >= 0 && !o->mesh_tdup[t]; u = next[u]) {
            int ku[3];
            rc__sort3_int(o->mesh_tris + 3 * u, ku);
            o->mesh_tdup[t] = ku[0] == kt[0] && ku[1] == kt[1] && ku[2] == kt[2];
        }
        if (!o->mesh_tdup[t]) { next[t] = first[e]; first[e] = t; }
    }
    rc__free(user, first); rc__free(user, next);
    for (e = 0; e < ne; ++e) { o->mesh_enf[e] = 0; o->mesh_etri[2 * e] = o->mesh_etri[2 * e + 1] = -1; }
    for (t = 0; t < o->mesh_nt; ++t)
        for (k = 0; k < 3 && !o->mesh_tdup[t]; ++k) {
            e = rc__mesh_obstacle_edge(o, o->mesh_tris[3 * t + k], o->mesh_tris[3 * t + (k + 1) % 3]);
            if (o->mesh_enf[e] < 2) o->mesh_etri[2 * e + o->mesh_enf[e]] = t;
            o->mesh_enf[e]++;
        }
    /* each vertex's star: counts, their prefix sums, then the triangles (vtri_start[v] runs up to
       the next vertex's start while filling, so it is shifted back after) */
    memset(o->mesh_vtri_start, 0, sizeof(int) * ((size_t)o->mesh_nv + 1));
    for (t = 0; t < o->mesh_nt; ++t)
        for (k = 0; k < 3 && !o->mesh_tdup[t]; ++k) o->mesh_vtri_start[o->mesh_tris[3 * t + k] + 1]++;
    for (k = 0; k < o->mesh_nv; ++k) o->mesh_vtri_start[k + 1] += o->mesh_vtri_start[k];
    for (t = 0; t < o->mesh_nt; ++t)
        for (k = 0; k < 3 && !o->mesh_tdup[t]; ++k) o->mesh_vtri[o->mesh_vtri_start[o->mesh_tris[3 * t + k]]++] = t;
    for (k = o->mesh_nv; k > 0; --k) o->mesh_vtri_start[k] = o->mesh_vtri_start[k - 1];
    o->mesh_vtri_start[0] = 0;
    return 1;
}

/* A triangle's normal (not normalised) at positions X */
static void rc__mesh_obstacle_normal(const rc__obstacle *o, const double *X, int t, double n[3])
{
    const int *tv = o->mesh_tris + 3 * t;
    double a[3], b[3];
    rc__sub3(a, X + 3 * tv[1], X + 3 * tv[0]);
    rc__sub3(b, X + 3 * tv[2], X + 3 * tv[0]);
    rc__cross3(n, a, b);
}
/* 1 if the normals lie on one line (sine of the angle below sine_tol), in either direction: the
   barrier is unsigned, so two coplanar triangles wound opposite ways (a mesh with flipped
   triangles, or a double-sided one whose first copies of two neighbours differ in winding) are
   one plane; a fold has its apexes on one side of the edge, which rc__mesh_obstacle_flat tests */
static int rc__mesh_normals_parallel(const double *n, const double *m, double sine_tol)
{
    double c[3], nn = rc__dot3(n, n), mm = rc__dot3(m, m);
    rc__cross3(c, n, m);
    return rc__dot3(c, c) <= sine_tol * sine_tol * nn * mm && nn > 0.0 && mm > 0.0;
}
/* How far rounding can turn the normal n = (X1 - X0) x (X2 - X0) of obstacle triangle t (as a
   sine): each coordinate is X to within eps |X|, so the edges are off by up to ~2 eps |X|_max and n
   by that times |e1| + |e2|. Far from the world's origin this exceeds any fixed tolerance: a
   tilted floor of 2.25 cm cells 1e6 m up (a far-from-origin probe, session 57) had
   normals 1e-8 apart, its edges lost their flat count, and a sheet rested 0.2 mm higher on it
   (the double support below) and, adaptive, slid u 7.7 mm where it slides 0.61 mm at the origin. */
static double rc__mesh_normal_rounding(const rc__obstacle *o, const double *X, int t, const double *n)
{
    const int *tv = o->mesh_tris + 3 * t;
    double a[3], b[3], big = 0.0, nn = rc__norm3(n);
    int k, c;
    for (k = 0; k < 3; ++k) for (c = 0; c < 3; ++c) big = fmax(big, fabs(X[3 * tv[k] + c]));
    rc__sub3(a, X + 3 * tv[1], X + 3 * tv[0]);
    rc__sub3(b, X + 3 * tv[2], X + 3 * tv[0]);
    return nn > 0.0 ? 4.0 * DBL_EPSILON * big * (rc__norm3(a) + rc__norm3(b)) / nn : HUGE_VAL;
}
/* the vertex of triangle t that is not on edge e (-1: none, a repeated index) */
static int rc__mesh_obstacle_apex(const rc__obstacle *o, int t, int e)
{
    int k;
    for (k = 0; k < 3; ++k) {
        int v = o->mesh_tris[3 * t + k];
        if (v != o->mesh_edges[2 * e] && v != o->mesh_edges[2 * e + 1]) return v;
    }
    return -1;
}

/* flat[] (ne + nv) at positions X. A flat edge has exactly two triangles (duplicates not
   counted: rc__mesh_obstacle_topology), coplanar (normals on one line to a sine of 1e-9, or of
   their rounding where that is larger: rc__mesh_normal_rounding) and on
   opposite sides of it (not a fold, not a triangle on repeated indices); a flat
   vertex has triangles and all its edges flat (so it is inside the patch, not on a boundary or a
   hole's rim). By its edges alone, not by comparing its triangles with one of them: the tolerance
   is not transitive, and a fan whose neighbours agree but whose far triangles did not (a centre
   raised 3e-12 m in a 5 mm fan, a review's probe; rounding does it on a tilted floor 10 km from
   the origin) had six -1 edges and no +1 vertex, a sum of 5e-4 of one support. (Two closed flat
   fans meeting at the vertex in different planes still hold at least once.)
   Why: a cloth vertex near an edge shared by triangles A and B has a barrier pair with each, and
   where its nearest point on B is on that edge the two pairs count the support twice (a sheet at
   rest on a two-triangle floor stood 0.19 mm higher over the diagonal and, adaptive, slid u 2.3 cm
   toward it). So each flat edge adds its point-edge term with weight -1 and each flat vertex its
   point-point term with +1 (rc__mesh_feature_weight): the terms of one feature are the same
   function of the cloth vertex (rc__ct_pe_barrier), and over a planar patch without holes the sum
   is exactly b(d) of the nearest point however the patch is triangulated (the improved max
   approximator of convergent IPC, Li, Kaufman, Jiang 2023, applied to the planar patches only).
   Around a hole smaller than the band xi + dhat in a planar patch, whose rim closes a loop of
   flat edges within reach, the sum falls below one support (measured: 0.91 next to a 1 mm hole; a
   plate perforated by 0.4 mm holes 0.4 mm apart is negative in the band, attracting above
   1.05 mm; a sheet settling on it rested at 2.97 mm, held by the holes' rims' edge-edge pairs,
   against 2.69 mm on the solid plate).
   Edges and vertices where the surface bends keep IPC's own count (each triangle holds what is
   nearest to it: twice over a convex edge), as the full inclusion-exclusion weakened the support
   around thin features (0.15 of one support around a 0.1 mm needle: the far side subtracted). A cloth edge or triangle cannot reach a flat feature
   without a cloth vertex reaching the patch around it first (the nearest point of a segment or a
   triangle to a planar patch is at one of its vertices or on the patch's boundary), so the
   edge-edge pairs of flat edges and the obstacle-vertex pairs of flat vertices are left out of the
   barrier and its friction too (they only added support); the CCD keeps them. */
static void rc__mesh_obstacle_flat(const rc__obstacle *o, const double *X, unsigned char *flat)
{
    int ne = o->mesh_ne, e, k;
    memset(flat + ne, 0, (size_t)o->mesh_nv);
    for (e = 0; e < ne; ++e)   /* a vertex on an edge has triangles; its edges decide below */
        for (k = 0; k < 2; ++k) flat[ne + o->mesh_edges[2 * e + k]] = 1;
    for (e = 0; e < ne; ++e) {
        const int *et = o->mesh_etri + 2 * e;
        flat[e] = 0;
        if (o->mesh_enf[e] == 2) {
            double n0[3], n1[3], a[3], m[3], p0[3], p1[3];
            int c0 = rc__mesh_obstacle_apex(o, et[0], e), c1 = rc__mesh_obstacle_apex(o, et[1], e);
            const double *A = X + 3 * o->mesh_edges[2 * e], *B = X + 3 * o->mesh_edges[2 * e + 1];
            rc__mesh_obstacle_normal(o, X, et[0], n0);
            rc__mesh_obstacle_normal(o, X, et[1], n1);
            if (c0 >= 0 && c1 >= 0 && c0 != c1 &&
                rc__mesh_normals_parallel(n0, n1, fmax(1e-9, rc__mesh_normal_rounding(o, X, et[0], n0) + rc__mesh_normal_rounding(o, X, et[1], n1)))) {
                /* m: in the plane, across the edge; the apexes on opposite sides of it */
                rc__sub3(a, B, A);
                rc__cross3(m, n0, a);
                rc__sub3(p0, X + 3 * c0, A);
                rc__sub3(p1, X + 3 * c1, A);
                flat[e] = rc__dot3(p0, m) * rc__dot3(p1, m) < 0.0;
            }
        }
        if (!flat[e]) flat[ne + o->mesh_edges[2 * e]] = flat[ne + o->mesh_edges[2 * e + 1]] = 0;
    }
}
/* the weight of the cloth-vertex barrier's term against obstacle feature j of kind 3 (an edge:
   -1 if flat) or 4 (a vertex: +1 if flat), from the obstacle's flat flags (rc__mesh_obstacle_flat) */
static int rc__mesh_feature_weight(const rc__obstacle *o, int kind, int j)
{
    return kind == 3 ? -(int)o->mesh_flat[j] : (int)o->mesh_flat[o->mesh_ne + j];
}

/* A mesh triangle so large that double precision cannot resolve the contact band on it: its
   distances to cloth are computed from coordinates of its own size, with rounding errors of about
   that size times 1e-16. Found by session 47's probe: a one-triangle floor with vertices 1e14 m
   out let the cloth fall straight through it, every step RC_OK (at 1e13 the cloth sank below it,
   then the step failed non-finite). Triangles longer than (xi + dhat) / (100 eps) (1.4e11 m at the
   defaults) are refused: 1 if one is, with the message. */
static int rc__sim_mesh_too_large(const rc_sim *s, const double *pos, int nt, const int *tris, const char *who, char *msg, size_t len)
{
    double bound = (s->def.contact_thickness + s->def.contact_dhat) / (100.0 * DBL_EPSILON);
    int t, k;
    for (t = 0; t < nt; ++t)
        for (k = 0; k < 3; ++k) {
            const double *a = pos + 3 * tris[3 * t + k], *b = pos + 3 * tris[3 * t + (k + 1) % 3];
            double d[3], l;
            rc__sub3(d, a, b);
            l = rc__norm3(d);
            if (l > bound) {
                snprintf(msg, len, "%s: triangle %d has an edge %.3g m long; double precision resolves the contact band (%.3g mm)"
                         " only on triangles shorter than %.3g m: split it", who, t, l, 1e3 * (s->def.contact_thickness + s->def.contact_dhat), bound);
                return 1;
            }
        }
    return 0;
}

RCLOTHDEF rc_status rc_sim_add_trimesh(rc_sim *s, int num_verts, const double *pos, int num_tris, const int *tris, int *id)
{
    char big[400];
    rc__obstacle o;
    int t, k, ne = 0, *e2 = NULL;
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!pos || !tris || num_verts < 3 || num_tris < 1) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_trimesh: needs >= 3 vertices, >= 1 triangle, non-NULL arrays");
    if (!rc__all_finite(pos, (size_t)3 * num_verts)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_trimesh: non-finite vertex");
    for (t = 0; t < 3 * num_tris; ++t)
        if (tris[t] < 0 || tris[t] >= num_verts) return rc__sim_fail(s, RC_ERR_MESH_INDEX, "rc_sim_add_trimesh: triangle index out of range");
    if (rc__sim_mesh_too_large(s, pos, num_tris, tris, "rc_sim_add_trimesh", big, sizeof big))
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, big);
    rc__obstacle_init(&o, RC__OBS_TRIMESH, s->def.friction);
    o.mesh_nv = num_verts; o.mesh_nt = num_tris;
    o.mesh_x = (double *)rc__alloc(s->user, (size_t)3 * num_verts, sizeof(double));
    o.mesh_xprev = (double *)rc__alloc(s->user, (size_t)3 * num_verts, sizeof(double));
    o.mesh_tris = (int *)rc__alloc(s->user, (size_t)3 * num_tris, sizeof(int));
    e2 = (int *)rc__alloc(s->user, (size_t)6 * num_tris, sizeof(int));
    if (!o.mesh_x || !o.mesh_xprev || !o.mesh_tris || !e2) goto oom;
    memcpy(o.mesh_x, pos, sizeof(double) * 3 * (size_t)num_verts);
    memcpy(o.mesh_xprev, pos, sizeof(double) * 3 * (size_t)num_verts);
    memcpy(o.mesh_tris, tris, sizeof(int) * 3 * (size_t)num_tris);
    for (t = 0; t < num_tris; ++t)
        for (k = 0; k < 3; ++k) {
            int a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            e2[2 * ne] = a < b ? a : b; e2[2 * ne + 1] = a < b ? b : a; ne++;
        }
    qsort(e2, (size_t)ne, 2 * sizeof(int), rc__cmp_int2);
    for (t = 0, k = 0; t < ne; ++t)
        if (k == 0 || e2[2 * t] != e2[2 * (k - 1)] || e2[2 * t + 1] != e2[2 * (k - 1) + 1]) { e2[2 * k] = e2[2 * t]; e2[2 * k + 1] = e2[2 * t + 1]; k++; }
    o.mesh_ne = k;
    o.mesh_edges = e2;
    if (!rc__mesh_obstacle_topology(s->user, &o)) goto oom;
    {
        /* box scratch: 6 doubles per cloth primitive plus 6 per obstacle primitive, largest kinds */
        size_t nc = (size_t)(s->nv > s->ne ? (s->nv > s->nt ? s->nv : s->nt) : (s->ne > s->nt ? s->ne : s->nt));
        size_t no = (size_t)(num_verts > o.mesh_ne ? (num_verts > num_tris ? num_verts : num_tris) : (o.mesh_ne > num_tris ? o.mesh_ne : num_tris));
        int q;
        for (q = 0; q < s->nobs; ++q) {
            size_t m2 = (size_t)s->obs[q].mesh_nv;
            if ((size_t)s->obs[q].mesh_ne > m2) m2 = (size_t)s->obs[q].mesh_ne;
            if ((size_t)s->obs[q].mesh_nt > m2) m2 = (size_t)s->obs[q].mesh_nt;
            if (m2 > no) no = m2;
        }
        {
            double *nb = (double *)rc__realloc(s->user, s->bp_box, 6 * (nc + no), sizeof(double));
            if (!nb) goto oom;
            s->bp_box = nb;
        }
        /* each on its own: after a failed add one may exist without the other (review) */
        if (!s->mesh_vb) s->mesh_vb = (double *)rc__calloc(s->user, (size_t)25 * s->nv, sizeof(double));
        if (!s->mesh_tb) s->mesh_tb = (double *)rc__calloc(s->user, (size_t)91 * s->nt, sizeof(double));
        if (!s->mesh_vneg) s->mesh_vneg = (unsigned char *)rc__calloc(s->user, (size_t)s->nv, 1);
        if (!s->mesh_vb || !s->mesh_tb || !s->mesh_vneg) goto oom;
    }
    st = rc__sim_add_obstacle(s, &o, id);
    if (st != RC_OK) goto fail;
    s->has_mesh_obstacle = 1;
    s->crossings_checked = 0;   /* the next step checks the cloth against it (rc__sim_find_crossing) */
    return RC_OK;
oom:
    st = rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "rc_sim_add_trimesh: out of memory");
fail:
    rc__free(s->user, o.mesh_x); rc__free(s->user, o.mesh_xprev); rc__free(s->user, o.mesh_tris); rc__free(s->user, e2);
    rc__free(s->user, o.mesh_enf); rc__free(s->user, o.mesh_flat);
    return st;
}

/* a mesh obstacle's vertices at the end of the next step; teleport: also at its start
   (mesh_xprev), so the step-start checks see the mesh where it now is. Without the teleport a mesh
   added through the cloth locked the sim: every step failed on the crossing at the step start,
   which only a successful step advances (an adversarial probe, session 47) */
static rc_status rc__sim_set_mesh_vertices(rc_sim *s, int id, const double *pos, int teleport)
{
    const char *who = teleport ? "rc_sim_teleport_obstacle_vertices" : "rc_sim_set_obstacle_vertices";
    char msg[400];
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (id < 0 || id >= s->nobs || s->obs[id].shape.kind != RC__OBS_TRIMESH) {
        snprintf(msg, sizeof msg, "%s: no such mesh obstacle", who);
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    if (!pos) { snprintf(msg, sizeof msg, "%s: NULL positions", who); return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg); }
    if (!rc__all_finite(pos, (size_t)3 * s->obs[id].mesh_nv)) {
        snprintf(msg, sizeof msg, "%s: non-finite vertex", who);
        return rc__sim_fail(s, RC_ERR_NON_FINITE, msg);
    }
    if (rc__sim_mesh_too_large(s, pos, s->obs[id].mesh_nt, s->obs[id].mesh_tris, who, msg, sizeof msg) ||
        rc__sim_too_far(pos, (size_t)3 * s->obs[id].mesh_nv, who, msg, sizeof msg))
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    memcpy(s->obs[id].mesh_x, pos, sizeof(double) * 3 * (size_t)s->obs[id].mesh_nv);
    if (teleport) {
        memcpy(s->obs[id].mesh_xprev, pos, sizeof(double) * 3 * (size_t)s->obs[id].mesh_nv);
        s->crossings_checked = 0;   /* the next step checks the cloth against it (rc__sim_find_crossing) */
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_set_obstacle_vertices(rc_sim *s, int id, const double *pos)
{
    return rc__sim_set_mesh_vertices(s, id, pos, 0);
}

RCLOTHDEF rc_status rc_sim_teleport_obstacle_vertices(rc_sim *s, int id, const double *pos)
{
    return rc__sim_set_mesh_vertices(s, id, pos, 1);
}

/* NULL if R (finite) is a rotation: orthonormal to 1e-6 with det +1; else what it is not */
static const char *rc__rotation_problem(const double R[9])
{
    int i, j, k;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            double rr = 0.0;
            for (k = 0; k < 3; ++k) rr += R[3 * k + i] * R[3 * k + j];
            if (fabs(rr - (i == j ? 1.0 : 0.0)) > 1e-6) return "rotation is not orthonormal";
        }
    /* an orthonormal matrix with det -1 is a reflection: it would turn the shape inside out */
    if (R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]) < 0.0)
        return "rotation is a reflection (det -1)";
    return NULL;
}

/* the pose of an analytic obstacle at the end of the next step; teleport: also at its start */
static rc_status rc__sim_set_pose(rc_sim *s, int id, const double translation[3], const double rotation[9], int teleport)
{
    static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };   /* not "I": <complex.h> defines that macro */
    const double *R = rotation ? rotation : identity;
    const char *bad, *who = teleport ? "rc_sim_teleport_obstacle" : "rc_sim_move_obstacle";
    char msg[320];
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!translation) { snprintf(msg, sizeof msg, "%s: translation is NULL", who); return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg); }
    if (id < 0 || id >= s->nobs) { snprintf(msg, sizeof msg, "%s: no such obstacle", who); return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg); }
    if (s->obs[id].shape.kind == RC__OBS_TRIMESH) {
        snprintf(msg, sizeof msg, "%s: a mesh obstacle moves with rc_sim_set_obstacle_vertices (teleports with rc_sim_teleport_obstacle_vertices)", who);
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    if (!rc__all_finite(translation, 3) || !rc__all_finite(R, 9)) { snprintf(msg, sizeof msg, "%s: non-finite pose", who); return rc__sim_fail(s, RC_ERR_NON_FINITE, msg); }
    if (rc__sim_too_far(translation, 3, who, msg, sizeof msg)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    if ((bad = rc__rotation_problem(R)) != NULL) {
        snprintf(msg, sizeof msg, "%s: %s", who, bad);
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    memcpy(s->obs[id].R, R, 9 * sizeof(double));
    memcpy(s->obs[id].t, translation, 3 * sizeof(double));
    if (teleport) {
        memcpy(s->obs[id].R_prev, R, 9 * sizeof(double));
        memcpy(s->obs[id].t_prev, translation, 3 * sizeof(double));
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_move_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9])
{
    return rc__sim_set_pose(s, id, translation, rotation, 0);
}

RCLOTHDEF rc_status rc_sim_teleport_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9])
{
    return rc__sim_set_pose(s, id, translation, rotation, 1);
}


/* ---------------------------------------------------------------------------------------------
   DOF layout and the sparse pattern. Nodes are vertices (x, and u when adaptive) and edges (phi);
   a triangle couples its 3 own vertices, its up to 3 flap vertices and its 3 edges (the bending
   stencil), which covers every other stencil (stretch, inertia, MIPS, vertex contact).
   --------------------------------------------------------------------------------------------- */

/* Sliding seams (adaptive mode). A stitched pair (a, b) slides along its seam with ONE shared
   parameter t when it is an inner vertex of a straight stretch of seam on both panels: a and b are
   stitched once each, both are straight-boundary (sliding) vertices, neither is pinned or loaded,
   and a's two boundary neighbours are stitched to b's two boundary neighbours. Then
       u_a = u_a^0 + t s_a d_a,   u_b = u_b^0 + t s_b d_b,
   d_a, d_b the unit boundary tangents, d_b's sign chosen so that a's and b's motions head for
   partnered neighbours (panels sewn face to face run their boundaries in opposite directions).
   Scales: l_a = |u_next(a) - u_prev(a)| and l_b the same on b's side, in the initial reference,
   s_a = 2 l_a / (l_a + l_b), s_b = 2 l_b / (l_a + l_b): t is the mean of the two arclength moves
   and the two moves keep the ratio l_a / l_b of the local stitch spacings, so when the stitches
   are spaced in proportion along both sides (the usual case: same count, uniform on each side,
   sides of different lengths allowed) the pair keeps equal normalised arclength positions and the
   seam never shears; the scatter is additive, so the shared DOF collects s_a d_a . dE/du_a +
   s_b d_b . dE/du_b. Each panel's boundary stays on its straight lines, so panel areas are
   unchanged. Seam ends (corners, pinned or once-stitched neighbours) and vertices stitched several
   times keep u fixed; so does every stitched vertex that cannot share (u_fixed). Fills st_share
   and u_dir; to be called after the base u_fixed is set. */
static void rc__sim_seam_shares(rc_sim *s)
{
    const rc__topo *tp = &s->topo;
    int i;
    for (i = 0; i < s->nv; ++i) {
        s->st_share[i] = -1;
        s->u_dir[2 * i] = tp->slide_dir[2 * i];
        s->u_dir[2 * i + 1] = tp->slide_dir[2 * i + 1];
    }
    for (i = 0; i < s->nst; ++i) {
        int a = s->st_pair[2 * i], b = s->st_pair[2 * i + 1], pa, na, pb, nb, sgn;
        const double *U = s->u_init;
        double la, lb, c;
        if (s->st_mate[a] != b || s->st_mate[b] != a || s->u_fixed[a] || s->u_fixed[b]) continue;
        if (tp->vkind[a] != RC__VK_SLIDING || tp->vkind[b] != RC__VK_SLIDING) continue;
        pa = tp->bnd_prev[a]; na = tp->bnd_next[a]; pb = tp->bnd_prev[b]; nb = tp->bnd_next[b];
        if (pa < 0 || na < 0 || pb < 0 || nb < 0) continue;
        if (s->st_mate[pa] == pb && s->st_mate[na] == nb) sgn = 1;
        else if (s->st_mate[pa] == nb && s->st_mate[na] == pb) sgn = -1;
        else continue;
        la = hypot(U[2 * na] - U[2 * pa], U[2 * na + 1] - U[2 * pa + 1]);
        lb = hypot(U[2 * nb] - U[2 * pb], U[2 * nb + 1] - U[2 * pb + 1]);
        if (!(la > 0.0 && lb > 0.0)) continue;
        s->st_share[a] = b;
        s->st_share[b] = a;
        c = 2.0 * la / (la + lb);
        s->u_dir[2 * a] *= c; s->u_dir[2 * a + 1] *= c;
        c = sgn * 2.0 * lb / (la + lb);
        s->u_dir[2 * b] *= c; s->u_dir[2 * b + 1] *= c;
    }
    for (i = 0; i < 2 * s->nst; ++i)   /* stitched vertices that do not share keep u */
        if (s->st_share[s->st_pair[i]] < 0) s->u_fixed[s->st_pair[i]] = 1;
}

/* u direction of a one-DOF vertex (u moves by d * dir): the boundary tangent, or the scaled seam
   tangent of a shared pair (rc__sim_seam_shares) */
static const double *rc__sim_u_dir(const rc_sim *s, int v)
{
    return (s->u_dir ? s->u_dir : s->topo.slide_dir) + 2 * v;
}

/* the u displacement of vertex v along direction y->d (zero for a fixed u) */
static void rc__sim_dof_du(const rc_sim *s, const rc__system *y, int v, double du[2])
{
    du[0] = du[1] = 0.0;
    if (!y->with_u || y->dof_u[v] < 0) return;
    if (y->nu[v] == 2) { du[0] = y->d[y->dof_u[v]]; du[1] = y->d[y->dof_u[v] + 1]; }
    else { const double *dir = rc__sim_u_dir(s, v); du[0] = y->d[y->dof_u[v]] * dir[0]; du[1] = y->d[y->dof_u[v]] * dir[1]; }
}

/* Which vertices keep u fixed (DESIGN §5): domain corners and any non-sliding boundary vertex,
   pinned vertices, vertices carrying an external force, vertices locked to a material handle's
   point or to the edge it lies on (rc__sim_update_handle_locks), and stitched vertices that do not slide with their
   partner (rc__sim_seam_shares). */
static void rc__sim_update_u_fixed(rc_sim *s)
{
    int i;
    for (i = 0; i < s->nv; ++i) {
        int loaded = s->force[3 * i] != 0.0 || s->force[3 * i + 1] != 0.0 || s->force[3 * i + 2] != 0.0;
        s->u_fixed[i] = (unsigned char)(s->pinned[i] || loaded || s->topo.vkind[i] == RC__VK_CORNER || s->u_lock[i]);
    }
    if (s->nst) rc__sim_seam_shares(s);
}

/* A clamp clamps rotation too: every edge of a triangle whose three vertices are pinned keeps its
   director angle (DESIGN §2). */
static void rc__sim_update_phi_fixed(rc_sim *s)
{
    int t, k;
    memset(s->phi_fixed, 0, (size_t)s->ne);
    for (t = 0; t < s->nt; ++t) {
        const int *tri = s->tris + 3 * t;
        if (s->pinned[tri[0]] && s->pinned[tri[1]] && s->pinned[tri[2]])
            for (k = 0; k < 3; ++k) s->phi_fixed[s->topo.tri_edge[3 * t + k]] = 1;
    }
}

/* Sorts the n keys a[0..n) (each >= 0) ascending and drops repeats; returns the count left, -1
   when out of memory (n keys of scratch). Radix-sorted (rc__radix_sort_u64). Why not qsort: a
   self-contact regrow sorts ~10^5 vertex-pair keys that repeat ~14 times each (every active pair
   adds the 6 pairs of its 4 vertices, and nearby pairs share vertices), and the pattern build
   sorts ~66 node pairs per triangle; qsort's comparator calls made those sorts 20-30% of a regrow
   (1k fold pile, perf). */
static long long rc__sort_unique_keys(void *user, long long *a, size_t n)
{
    unsigned long long *tmp, *src, mx = 0;
    size_t i, m;
    if (n < 2) return (long long)n;
    tmp = (unsigned long long *)rc__alloc(user, n, sizeof(unsigned long long));
    if (!tmp) return -1;
    for (i = 0; i < n; ++i) {
        RCLOTH_ASSERT(a[i] >= 0);
        if ((unsigned long long)a[i] > mx) mx = (unsigned long long)a[i];
    }
    /* long long and unsigned long long may alias; the keys are >= 0, so their order is the same */
    src = rc__radix_sort_u64((unsigned long long *)a, tmp, n, mx);
    for (i = 0, m = 0; i < n; ++i)
        if (m == 0 || (long long)src[i] != a[m - 1]) a[m++] = (long long)src[i];   /* in place when src is a (m <= i) */
    rc__free(user, tmp);
    return (long long)m;
}

/* the up-to-9 nodes of triangle t's stencil: own vertices, flap vertices (-1 if boundary), edges */
static int rc__sim_tri_nodes(const rc_sim *s, int t, int *nodes)
{
    int k, n = 0;
    for (k = 0; k < 3; ++k) nodes[n++] = s->tris[3 * t + k];
    for (k = 0; k < 3; ++k) if (s->topo.tri_flap[3 * t + k] >= 0) nodes[n++] = s->topo.tri_flap[3 * t + k];
    for (k = 0; k < 3; ++k) nodes[n++] = s->nv + s->topo.tri_edge[3 * t + k];
    return n;
}

/* The DOF layout and the upper CSC pattern of the node adjacency: the triangle stencils, plus
   (self-contact) the vertex pairs keys[0..nkeys) (a*nv + b, a < b), whose node blocks are added so
   contact pairs between non-adjacent vertices have their entries. The layout does not depend on
   the keys, so a pattern can be regrown without touching the DOF numbering. */
static int rc__sim_threads(const rc_sim *s);   /* OpenMP threads of this sim (defined below) */

static rc_status rc__system_build_x(rc_sim *s, rc__system *y, int with_u, const long long *keys, size_t nkeys)
{
    void *user = s->user;
    int nv = s->nv, ne = s->ne, nn, nsh = 0, i, e, t, ndof = 0;
    int *node_first = NULL, *node_cnt = NULL, *adj_ptr = NULL, *adj = NULL, *shnode = NULL;
    long long *pairs = NULL;
    size_t npairs = 0, np, p;
    rc_status st = RC_ERR_OUT_OF_MEMORY;
    rc_ldlt *old = y->ldlt;   /* its factor arrays are recycled by the new analysis (rc__ldlt_analyze) */
    y->ldlt = NULL;
    rc__system_free(y, user);
    y->with_u = with_u > 0;   /* with_u < 0: the angle-only system (no x, no u) */
    if (nkeys) {
        y->pat_keys = (long long *)rc__alloc(user, nkeys, sizeof(long long));
        if (!y->pat_keys) goto done;
        memcpy(y->pat_keys, keys, nkeys * sizeof(long long));
        y->npat_keys = nkeys;
    }
    rc__sim_update_u_fixed(s);
    rc__sim_update_phi_fixed(s);
    /* Sliding seams: the shared parameter of a stitched pair (rc__sim_seam_shares) is a node of
       its own after the edges (node nv + ne + k, one DOF), adjacent to everything either vertex's
       u couples with; shnode[v] is that node for both vertices of the pair, -1 otherwise. */
    shnode = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    if (!shnode) goto done;
    for (i = 0; i < nv; ++i) {
        int m = (with_u > 0 && s->st_share) ? s->st_share[i] : -1;
        shnode[i] = -1;
        if (m >= 0 && m < i) shnode[i] = shnode[m];
        else if (m > i) shnode[i] = nv + ne + nsh++;
    }
    nn = nv + ne + nsh;
    y->dof_x = (int *)rc__alloc(user, (size_t)3 * nv, sizeof(int));
    y->dof_phi = (int *)rc__alloc(user, (size_t)(ne > 0 ? ne : 1), sizeof(int));
    y->dof_u = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    y->nu = (unsigned char *)rc__calloc(user, (size_t)nv, 1);
    node_first = (int *)rc__alloc(user, (size_t)nn, sizeof(int));
    node_cnt = (int *)rc__calloc(user, (size_t)nn, sizeof(int));
    if (!y->dof_x || !y->dof_phi || !y->dof_u || !y->nu || !node_first || !node_cnt) goto done;
    for (i = 0; i < nv; ++i) {
        int c;
        node_first[i] = ndof;
        for (c = 0; c < 3; ++c) y->dof_x[3 * i + c] = (s->pinned[i] || with_u < 0) ? -1 : ndof++;
        y->dof_u[i] = -1;
        if (with_u > 0 && !s->u_fixed[i] && shnode[i] < 0) {
            y->nu[i] = (unsigned char)(s->topo.vkind[i] == RC__VK_SLIDING ? 1 : 2);
            y->dof_u[i] = ndof;
            ndof += y->nu[i];
        }
        node_cnt[i] = ndof - node_first[i];
    }
    for (e = 0; e < ne; ++e) {
        node_first[nv + e] = ndof;
        y->dof_phi[e] = s->phi_fixed[e] ? -1 : ndof++;
        node_cnt[nv + e] = ndof - node_first[nv + e];
    }
    for (i = 0; i < nv; ++i)
        if (shnode[i] >= 0) {
            int m = s->st_share[i];
            if (m > i) { node_first[shnode[i]] = ndof; node_cnt[shnode[i]] = 1; ++ndof; }
            y->dof_u[i] = node_first[shnode[i]];
            y->nu[i] = 1;
        }
    y->ndof = ndof;
    /* node adjacency from the triangle stencils: sorted unique pairs (a <= b) */
    pairs = (long long *)rc__alloc(user, (size_t)s->nt * 66 + (size_t)nn + (size_t)s->nst + 4 * nkeys, sizeof(long long));
    if (!pairs) goto done;
    for (i = 0; i < nn; ++i) pairs[npairs++] = (long long)i * nn + i;
    for (i = 0; i < s->nst; ++i) {   /* seam stitches couple two vertices of different panels */
        int a = s->st_pair[2 * i] < s->st_pair[2 * i + 1] ? s->st_pair[2 * i] : s->st_pair[2 * i + 1];
        int b = s->st_pair[2 * i] + s->st_pair[2 * i + 1] - a;
        pairs[npairs++] = (long long)a * nn + b;
    }
    for (p = 0; p < nkeys; ++p) {
        /* a vertex pair's node block holds both vertices' x and own u DOFs; a seam-shared u lives
           in its own node, so (joint system) its blocks with the other vertex's node and shared
           node are added too (the self friction couples x and u of both: rc__sim_slip_scatter) */
        int a = (int)(keys[p] / nv), b = (int)(keys[p] % nv), na[2], nb[2], ia, ib;
        pairs[npairs++] = (long long)a * nn + b;
        na[0] = a; na[1] = shnode[a]; nb[0] = b; nb[1] = shnode[b];
        for (ia = 0; ia < 2; ++ia)
            for (ib = 0; ib < 2; ++ib)
                if ((ia || ib) && na[ia] >= 0 && nb[ib] >= 0 && na[ia] != nb[ib])
                    pairs[npairs++] = na[ia] < nb[ib] ? (long long)na[ia] * nn + nb[ib] : (long long)nb[ib] * nn + na[ia];
    }
    for (t = 0; t < s->nt; ++t) {
        int nodes[12], n = rc__sim_tri_nodes(s, t, nodes), a, b;
        for (a = 0; a < 3; ++a)   /* a shared seam parameter enters through its vertex's u */
            if (shnode[s->tris[3 * t + a]] >= 0) nodes[n++] = shnode[s->tris[3 * t + a]];
        for (a = 0; a < n; ++a)
            for (b = 0; b < n; ++b)
                if (nodes[a] < nodes[b]) pairs[npairs++] = (long long)nodes[a] * nn + nodes[b];
    }
    {
        long long m = rc__sort_unique_keys(user, pairs, npairs);
        if (m < 0) goto done;
        np = (size_t)m;
    }
    /* column J's row nodes are the a with (a, J) in pairs: bucket by b */
    adj_ptr = (int *)rc__calloc(user, (size_t)nn + 1, sizeof(int));
    adj = (int *)rc__alloc(user, np, sizeof(int));
    if (!adj_ptr || !adj) goto done;
    for (p = 0; p < np; ++p) adj_ptr[(int)(pairs[p] % nn) + 1]++;
    for (i = 0; i < nn; ++i) adj_ptr[i + 1] += adj_ptr[i];
    {
        int *cur = (int *)rc__alloc(user, (size_t)nn, sizeof(int));   /* next free slot of each bucket */
        if (!cur) goto done;
        memcpy(cur, adj_ptr, sizeof(int) * (size_t)nn);
        for (p = 0; p < np; ++p) { int b = (int)(pairs[p] % nn), a = (int)(pairs[p] / nn); adj[cur[b]++] = a; }
        rc__free(user, cur);
    }
    /* pairs are sorted by a then b, so bucket b receives its a in increasing order */
    y->colptr = (int *)rc__calloc(user, (size_t)ndof + 1, sizeof(int));
    if (!y->colptr) goto done;
    for (i = 0; i < nn; ++i) {
        int c, q;
        for (c = 0; c < node_cnt[i]; ++c) {
            int col = node_first[i] + c, cnt = 0;
            for (q = adj_ptr[i]; q < adj_ptr[i + 1]; ++q) {
                int a = adj[q];
                if (a == i) cnt += c + 1;          /* upper part of the diagonal block */
                else cnt += node_cnt[a];
            }
            y->colptr[col + 1] = cnt;
        }
    }
    for (i = 0; i < ndof; ++i) y->colptr[i + 1] += y->colptr[i];
    y->rowind = (int *)rc__alloc(user, (size_t)y->colptr[ndof], sizeof(int));
    y->val = (double *)rc__calloc(user, (size_t)y->colptr[ndof], sizeof(double));
    y->g = (double *)rc__calloc(user, (size_t)ndof, sizeof(double));
    y->d = (double *)rc__calloc(user, (size_t)ndof, sizeof(double));
    y->rhs_scratch = (double *)rc__calloc(user, (size_t)ndof, sizeof(double));
    y->pcg_work = (double *)rc__calloc(user, 5 * (size_t)ndof, sizeof(double));
    if (!y->rowind || !y->val || !y->g || !y->d || !y->rhs_scratch || !y->pcg_work) goto done;
    for (i = 0; i < nn; ++i) {
        int c, q, r;
        for (c = 0; c < node_cnt[i]; ++c) {
            int col = node_first[i] + c, pos = y->colptr[col];
            for (q = adj_ptr[i]; q < adj_ptr[i + 1]; ++q) {
                int a = adj[q];
                if (a == i) for (r = 0; r <= c; ++r) y->rowind[pos++] = node_first[i] + r;
                else for (r = 0; r < node_cnt[a]; ++r) y->rowind[pos++] = node_first[a] + r;
            }
        }
    }
    if (ndof > 0 && s->def.linear_solver == RC_SOLVER_LDLT) {
        st = rc__ldlt_analyze(&y->ldlt, ndof, y->colptr, y->rowind, NULL, s->user, old);
        if (st != RC_OK) goto done;
        /* every factorization of the sim wants a positive definite matrix (a failure means: shift
           more, or project): stop at the first negative pivot instead of finishing the work */
        y->ldlt->stop_on_negative = 1;
        y->ldlt->nthreads = rc__sim_threads(s);
    }
    st = RC_OK;
done:
    rc_ldlt_destroy(old);
    rc__free(user, node_first); rc__free(user, node_cnt); rc__free(user, shnode);
    rc__free(user, adj_ptr); rc__free(user, adj); rc__free(user, pairs);
    if (st != RC_OK) rc__system_free(y, user);
    return st;
}

static rc_status rc__system_build(rc_sim *s, rc__system *y, int with_u)
{
    return rc__system_build_x(s, y, with_u, NULL, 0);
}

/* position of (row, col), row <= col, in the CSC values; -1 if absent */
static int rc__system_find(const rc__system *y, int row, int col)
{
    int lo = y->colptr[col], hi = y->colptr[col + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1, r = y->rowind[mid];
        if (r == row) return mid;
        if (r < row) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* Local stencil DOF -> (global DOF, coefficient). */
typedef struct rc__dofmap { int n; int g[27]; double c[27]; } rc__dofmap;

static void rc__map_x(const rc__system *y, int v, rc__dofmap *m)
{
    int c;
    for (c = 0; c < 3; ++c) { m->g[m->n] = (v >= 0) ? y->dof_x[3 * v + c] : -1; m->c[m->n++] = 1.0; }
}
static void rc__map_u(const rc_sim *s, const rc__system *y, int v, rc__dofmap *m)
{
    int c;
    for (c = 0; c < 2; ++c) {
        if (!y->with_u || y->dof_u[v] < 0) { m->g[m->n] = -1; m->c[m->n++] = 0.0; }
        else if (y->nu[v] == 2) { m->g[m->n] = y->dof_u[v] + c; m->c[m->n++] = 1.0; }
        else { m->g[m->n] = y->dof_u[v]; m->c[m->n++] = rc__sim_u_dir(s, v)[c]; }
    }
}
/* triangle element A: x of the 3 vertices (9), u of the 3 vertices (6) */
static void rc__map_triA(const rc_sim *s, const rc__system *y, int t, rc__dofmap *m)
{
    int k;
    m->n = 0;
    for (k = 0; k < 3; ++k) rc__map_x(y, s->tris[3 * t + k], m);
    for (k = 0; k < 3; ++k) rc__map_u(s, y, s->tris[3 * t + k], m);
}
/* triangle element B (bending): x of own 3 and flap 3 vertices (18), phi of the 3 edges (3),
   u of the own 3 vertices (6). The solver's angle unknown is s_e = l_e phi_e. */
static void rc__map_triB(const rc_sim *s, const rc__system *y, int t, rc__dofmap *m)
{
    int k;
    m->n = 0;
    for (k = 0; k < 3; ++k) rc__map_x(y, s->tris[3 * t + k], m);
    for (k = 0; k < 3; ++k) rc__map_x(y, s->topo.tri_flap[3 * t + k], m);
    for (k = 0; k < 3; ++k) {
        int e = s->topo.tri_edge[3 * t + k];
        m->g[m->n] = y->dof_phi[e];
        m->c[m->n++] = 1.0 / s->edge_len0[e];
    }
    for (k = 0; k < 3; ++k) rc__map_u(s, y, s->tris[3 * t + k], m);
}

/* add a local gradient g (n = m->n) and Hessian H (n*n, symmetric, may be NULL) into the global
   system, searching the CSC positions (the triangles use their table: rc__system_scatter_tris).
   The local DOFs are visited in the order of their global indices (a stable insertion sort of the
   map: equal indices, a sliding u two local entries share, keep their local order, so every value
   sums its terms in the same order as a visit in local order would). A node's DOFs are then
   consecutive both ways: within one column, row ga follows row ga - 1 at the next position, and
   row ga sits at the same offset in column gb as in gb - 1 (both guesses checked); so one binary
   search per pair of nodes finds a whole block. Measured on the 1k fold (self friction: 20 x 20
   blocks of x and u over four vertices, rc__sim_slip_scatter) in session 50: rc__system_find
   was 7% of the CPU time with the searches per (row, node of columns). */
static void rc__system_scatter(rc__system *y, const rc__dofmap *m, const double *g, const double *H)
{
    int ord[27], prev[27], cur[27];
    int i, n = m->n;
    for (i = 0; i < n; ++i) {   /* ord: local indices by global index, stable */
        int k = i, gi = m->g[i];
        while (k > 0 && m->g[ord[k - 1]] > gi) { ord[k] = ord[k - 1]; --k; }
        ord[k] = i;
    }
    for (i = 0; i < n; ++i) prev[i] = -1;
    for (i = 0; i < n; ++i) {
        int ia = ord[i], ga = m->g[ia], j, pb = -1, gp = -2, pga = i > 0 ? m->g[ord[i - 1]] : -2;
        if (ga < 0) continue;   /* prev stays all -1 (no row yet) */
        if (g) y->g[ga] += m->c[ia] * g[ia];
        if (!H) continue;
        for (j = 0; j < n; ++j) {
            int ib = ord[j], gb = m->g[ib], pos = -1;
            cur[j] = -1;
            if (gb < ga) continue;
            if (gb == gp + 1 && gb > ga) {   /* the next column of the node: same offset */
                pos = pb + y->colptr[gb] - y->colptr[gp];
                if (pos >= y->colptr[gb + 1] || y->rowind[pos] != ga) pos = -1;
            }
            if (pos < 0 && pga == ga - 1 && prev[j] >= 0) {   /* the next row of the node: next position */
                pos = prev[j] + 1;
                if (pos >= y->colptr[gb + 1] || y->rowind[pos] != ga) pos = -1;
            }
            if (pos < 0) pos = rc__system_find(y, ga, gb);
            RCLOTH_ASSERT(pos >= 0);
            y->val[pos] += m->c[ia] * m->c[ib] * H[ia * n + ib];
            cur[j] = pos;
            if (gb != gp) { pb = pos; gp = gb; }
        }
        memcpy(prev, cur, sizeof(int) * (size_t)n);
    }
}

/* the table keys of one element (map m, local stride ld, serial ranks from rank0): position * 1024 +
   the pair's rank in rc__system_scatter's order, for every pair with g_a >= 0 and g_b >= g_a,
   sorted. Generated column by column in the order of the global indices, so they come out sorted
   but for the pairs of a global index that two local ones share (sliding u): an insertion sort
   fixes those few. Returns the count. */
static int rc__system_table_keys(const rc__system *y, const rc__dofmap *m, int ld, int rank0, long long *key)
{
    int ord[27], cnt = 0, i, j, k, n = 0;
    for (i = 0; i < m->n; ++i) {   /* local indices with a DOF, by global index (ties: local index) */
        if (m->g[i] < 0) continue;
        for (k = cnt; k > 0 && m->g[ord[k - 1]] > m->g[i]; --k) ord[k] = ord[k - 1];
        ord[k] = i;
        ++cnt;
    }
    for (j = 0; j < cnt; ++j) {
        int b = ord[j], gb = m->g[b], pos = -1, pg = -2;
        for (i = 0; i < cnt && m->g[ord[i]] <= gb; ++i) {
            /* rows by increasing global index: a repeated one has the same position, the next row
               of a node the next position (checked); otherwise a search */
            int ga = m->g[ord[i]];
            if (ga != pg) {
                if (ga == pg + 1 && pos >= 0 && pos + 1 < y->colptr[gb + 1] && y->rowind[pos + 1] == ga) ++pos;
                else pos = rc__system_find(y, ga, gb);
            }
            pg = ga;
            key[n++] = (long long)pos * 1024 + rank0 + ld * ord[i] + b;
        }
    }
    for (i = 1; i < n; ++i) {
        long long t = key[i];
        for (k = i; k > 0 && key[k - 1] > t; --k) key[k] = key[k - 1];
        key[k] = t;
    }
    return n;
}

/* pairs (a, b) of map m that land in the stored upper triangle: g_a >= 0, g_b >= g_a */
static int rc__dofmap_upper_pairs(const rc__dofmap *m)
{
    int a, b, n = 0;
    for (a = 0; a < m->n; ++a)
        for (b = 0; b < m->n; ++b) n += m->g[a] >= 0 && m->g[b] >= m->g[a];
    return n;
}

/* The scatter table of the triangle elements A (15 DOFs) and B (27): every local pair (a, b) of a
   triangle that lands in the stored upper triangle, with its position in the CSC values, computed
   once per layout so assembly does no searching. A triangle's entries are sorted by position, ties
   kept in the order rc__system_scatter adds them (A before B, then a, then b). Why sorted: a
   thread can then take the entries of one range of positions (rc__system_scatter_tris), so
   threads write disjoint values while each value still sums its terms in the serial order: the
   parallel assembly is bit-identical to the serial one for any thread count. Skipped (binary
   search instead) when the table would exceed 256 MB (6 bytes per entry, <= 498 per triangle). */
static void rc__system_build_tables(const rc_sim *s, rc__system *y)
{
    long long keyA[225], keyB[729];
    int t;
    size_t total = 0, q;
    if ((double)s->nt * 498.0 * 6.0 > 256.0 * 1024 * 1024) return;
    y->el_off = (int *)rc__alloc(s->user, (size_t)s->nt + 1, sizeof(int));
    if (!y->el_off) return;
    for (t = 0; t < s->nt; ++t) {
        rc__dofmap mA, mB;
        /* zeroed although the maps set every entry they count: gcc -O3 -Wall cannot see that
           (maybe-uninitialized) and a user building with -Werror could not compile the header */
        memset(&mA, 0, sizeof mA); memset(&mB, 0, sizeof mB);
        y->el_off[t] = (int)total;
        rc__map_triA(s, y, t, &mA);
        rc__map_triB(s, y, t, &mB);
        total += (size_t)(rc__dofmap_upper_pairs(&mA) + rc__dofmap_upper_pairs(&mB));
    }
    y->el_off[s->nt] = (int)total;
    y->el_pos = (int *)rc__alloc(s->user, total, sizeof(int));
    y->el_loc = (unsigned short *)rc__alloc(s->user, total, sizeof(unsigned short));
    if ((total && (!y->el_pos || !y->el_loc))) {
        rc__free(s->user, y->el_off); rc__free(s->user, y->el_pos); rc__free(s->user, y->el_loc);
        y->el_off = y->el_pos = NULL; y->el_loc = NULL;
        return;
    }
    for (t = 0, q = 0; t < s->nt; ++t) {
        rc__dofmap mA, mB;
        int nA, nB, i = 0, j = 0;
        rc__map_triA(s, y, t, &mA);
        rc__map_triB(s, y, t, &mB);
        /* A's 225 pairs rank first, then B's: a merge of the two sorted key lists */
        nA = rc__system_table_keys(y, &mA, 15, 0, keyA);
        nB = rc__system_table_keys(y, &mB, 27, 225, keyB);
        while (i < nA || j < nB) {
            long long k = (j >= nB || (i < nA && keyA[i] < keyB[j])) ? keyA[i++] : keyB[j++];
            int r = (int)(k % 1024), kind = r >= 225;
            RCLOTH_ASSERT(k >= 0);
            if (kind) r -= 225;
            y->el_pos[q] = (int)(k / 1024);
            y->el_loc[q] = (unsigned short)(kind << 10 | (kind ? r / 27 : r / 15) << 5 | (kind ? r % 27 : r % 15));
            ++q;
        }
    }
    RCLOTH_ASSERT(q == total);
}

/* Scatter the Hessian terms of triangles [c0, c1) whose CSC positions lie in [lo, hi) (the whole
   range: all of them), from element blocks bA + RC__ELEM_A (t - t0) and bB + RC__ELEM_B (t - t0) (gradient, then
   the Hessian with row stride 15 and 27, or 9 and 21 without u). The gradients: rc__system_scatter
   with H = NULL. Needs the table. */
static void rc__system_scatter_tris(const rc_sim *s, rc__system *y, int c0, int c1, const double *bA,
                                    const double *bB, int t0, size_t lo, size_t hi)
{
    int t, nA = y->with_u ? 15 : 9, nB = y->with_u ? 27 : 21;
    for (t = c0; t < c1; ++t) {
        const double *HA = bA + (size_t)RC__ELEM_A * (t - t0) + 15, *HB = bB + (size_t)RC__ELEM_B * (t - t0) + 27;
        int q0 = y->el_off[t], q1 = y->el_off[t + 1], q;
        rc__dofmap mA, mB;
        if (lo > 0) {   /* first entry at or after lo */
            int r = q1;
            while (q0 < r) {
                int mid = q0 + (r - q0) / 2;
                if ((size_t)y->el_pos[mid] < lo) q0 = mid + 1; else r = mid;
            }
        }
        if (q0 >= q1 || (size_t)y->el_pos[q0] >= hi) continue;
        rc__map_triA(s, y, t, &mA);
        rc__map_triB(s, y, t, &mB);
        for (q = q0; q < q1 && (size_t)y->el_pos[q] < hi; ++q) {
            int loc = y->el_loc[q], a = loc >> 5 & 31, b = loc & 31;
            if (loc >> 10) y->val[y->el_pos[q]] += mB.c[a] * mB.c[b] * HB[a * nB + b];
            else y->val[y->el_pos[q]] += mA.c[a] * mA.c[b] * HA[a * nA + b];
        }
    }
}

/* Energy of all material handles at (x, u); with y: their gradient and Hessian scattered with
   element A's map of the containing triangle (the pattern holds every pair of a triangle). The
   15x15 Hessian is projected like element A's when u is a DOF (s->proj); in x alone it is
   k w w^T (x) I, PSD already. Updates the location hints. */
static double rc__sim_handles(rc_sim *s, const double *x, const double *u, rc__system *y)
{
    double E = 0.0;
    int h;
    for (h = 0; h < s->nmh; ++h) {
        rc__mhandle *m = s->mh + h;
        double xl[9], ul[6], g[15], H[225], p[3];
        rc__dofmap map;
        int k;
        if (m->tri < 0) continue;
        m->tri = rc__sim_locate_uv(s, u, m->uv, m->tri, NULL);
        rc__sim_gather_A(s, m->tri, x, u, xl, ul);
        for (k = 0; k < 3; ++k) rc__sub3(xl + 3 * k, xl + 3 * k, s->origin);   /* from the potential's origin (rc__inertia_tri) */
        rc__sub3(p, m->target, s->origin);
        E += rc__mp_tri(xl, ul, m->uv, m->k, p, m->f, y ? g : NULL, y ? H : NULL);
        if (!y) continue;
        if (y->with_u && s->proj >= 0) rc__psd_project(15, H, s->proj);
        rc__map_triA(s, y, m->tri, &map);
        rc__system_scatter(y, &map, g, H);
    }
    return E;
}

/* The travel term (ours; rc_sim_def.travel_weight). The previous step's state reaches the new u
   through the first-order transfer x~_i + Gbar_i (u_i - u_i^t) (rc__sim_recover_gradients below),
   whose error grows like |u_i - u_i^t|^2 times the curvature of the field: accurate within about a
   cell, it under-prices the inertia of a longer slide, and the optimiser then takes such slides.
   Measured (a probe, a 0.5 m cotton square on a 15 x 15 grid pinned at two corners,
   swinging without damping): vertices slid 8-15 cm (2-4 cells of 3.6 cm) per step, and in the
   steps with such slides the total energy KE + V ROSE, by up to 3.9e-4 J (2.5% of the kinetic
   energy; 5 of 150 steps at dt 0.01, 13 of 150 at dt 0.005), where the fixed mesh never gains.
   With the exact piecewise-linear transfer of DESIGN §2 (only C^0 in u, see below) the same steps
   slid at most 1.1 cells and gained nothing: the long slides are an artefact of the first-order
   pricing. So a vertex pays for travel beyond r0 cells (l_i its mean incident rest edge length;
   r0 was 1 at first, see below) at the inertial scale,
       T_i(u_i) = w (m_i^t / h^2) l_i^2 a(r),   r = |u_i - u_i^t| / l_i,   a(r) = (r - r0)^3 (r > r0), 0 else,
   with m_i^t the lumped mass at the step's start (constant in the step). C^2, convex in u_i
   (a', a'' >= 0), zero for travel within r0 cells (rigid motion, free flight and the flat unloaded
   sheet keep u exactly as before), so it changes only the steps that slid further. Gradient
   w m/h^2 l a'(r) n and Hessian w m/h^2 [a''(r) n n^T + a'(r) (l / |du|) (I - n n^T)], n = du/|du|.
   The same swinging sheet then gains in 1 of 150 steps at dt 0.01 (2.9e-5 J) and 8 of 150 at dt
   0.005 (the largest 1.6e-4 J): the transfer's own error within a cell, which the PL transfer
   also has.
   The free travel is r0 = min(1, h / travel_time) cells (default 0.04 s), a material speed limit, not one
   cell per step. Why: the transfer's error costs ~ (m/h^2) |du|^4 per step, so with a
   step-independent allowance the error per unit time grows like 1/h^3, and the allowance was
   taken (probes): a cotton square released at rest above a sphere at dt = 1 ms slid 1.3
   cells per step (140 m/s through the material) and KE + V + barrier rose on 32 steps to +0.049 J
   above its rest start (the fixed mesh never gains); a very soft sheet (E = 1e3 Pa) over the
   sphere at dt = 0.01 slid 1.2 cells per step and gained 0.053 J in one step (KE +46%). A speed
   keeps du ~ h and the error per unit time ~ h. Its value, measured on that soft sheet (largest
   gain in a step / total at step 28, fixed mesh -0.043 J): one cell per 0.01 s 0.053 / +0.016 J,
   per 0.02 s 0.0096 / -0.022 J, per 0.04 s 0.0019 / -0.036 J; at 1 ms the cotton square peaks at
   +1.2e-3 J with 0.01 s. The eleven CLI scenes at dt 0.01 (100 steps, default sizes) converge
   every step with 0.04 s as with 0.01 s, in 0.76-1.15x the time (eight of them faster); steps of
   0.04 s and longer (the demo, the energy bench) are unchanged unless split. Not removed: gains with little
   travel (a stretched annulus at dt 0.004: 3.7e-4 J in a step sliding 6 mm). The time is a def field
   (travel_time): as a constant it was the one default a scene's time unit could not scale (a
   similarity probe, session 57: every other parameter scaled, adaptive steps matched to 3e-10 m
   with lengths and masses rescaled, but with the time unit rescaled by 0.1-10 they differed by
   1e-4 m at material points in one step, 1-4 mm after five). */
static double rc__sim_travel(const rc_sim *s, int i, const double *u, double *g, double *H)
{
    double d0 = u[2 * i] - s->u0_step[2 * i], d1 = u[2 * i + 1] - s->u0_step[2 * i + 1], len = hypot(d0, d1);
    double l = s->vert_len0[i], r = len / l, r0 = s->h < s->def.travel_time ? s->h / s->def.travel_time : 1.0, K, a1, a2, n0, n1, t;
    if (g) g[0] = g[1] = 0.0;
    if (H) H[0] = H[1] = H[2] = H[3] = 0.0;
    if (!(r > r0)) return 0.0;
    K = s->def.travel_weight * s->travel_mass[i] * s->inv_h2;
    a1 = 3.0 * (r - r0) * (r - r0);
    a2 = 6.0 * (r - r0);
    n0 = d0 / len; n1 = d1 / len;
    if (g) { g[0] = K * l * a1 * n0; g[1] = K * l * a1 * n1; }
    if (H) {
        t = a1 * l / len;
        H[0] = K * (a2 * n0 * n0 + t * (1.0 - n0 * n0));
        H[1] = H[2] = K * (a2 - t) * n0 * n1;
        H[3] = K * (a2 * n1 * n1 + t * (1.0 - n1 * n1));
    }
    return K * l * l * (r - r0) * (r - r0) * (r - r0);
}

/* the lumped masses m_i = rho tau sum_T A_T(u) / 3 at the step's start, for rc__sim_travel */
static void rc__sim_travel_masses(rc_sim *s) { (void)rc_sim_vertex_masses(s, s->travel_mass); }

/* Seam stitches: E = k/2 |x_a - x_b|^2 per pair; with y, gradient (k d, -k d) and Hessian
   k [I -I; -I I] (PSD) scattered into the (a, b) blocks the pattern reserves for them.
   A stitch between two pinned vertices is a constant within a step and is left out: its energy
   only set the round-off scale of E. Measured (a probe, session 56): two pinned vertices 1 m
   apart stitched at k = 1e9 put 5e8 J into every evaluation, decreases below ~1e-7 J were lost
   to E's rounding, and the adaptive steps ended unconverged (1 of 10 converged), statics at its
   cap of 400 pseudo steps. Their force still counts in the pin reactions. */
static double rc__sim_seams(const rc_sim *s, const double *x, rc__system *y)
{
    double E = 0.0;
    int i, c;
    for (i = 0; i < s->nst; ++i) {
        int a = s->st_pair[2 * i], b = s->st_pair[2 * i + 1];
        double d[3], k = s->st_k[i], g[6], H[36];
        rc__dofmap map;
        if (s->pinned[a] && s->pinned[b]) continue;
        rc__sub3(d, x + 3 * a, x + 3 * b);
        E += 0.5 * k * rc__dot3(d, d);
        if (!y) continue;
        memset(H, 0, sizeof H);
        for (c = 0; c < 3; ++c) {
            g[c] = k * d[c];
            g[3 + c] = -k * d[c];
            H[6 * c + c] = H[6 * (3 + c) + 3 + c] = k;
            H[6 * c + 3 + c] = H[6 * (3 + c) + c] = -k;
        }
        map.n = 0;
        rc__map_x(y, a, &map);
        rc__map_x(y, b, &map);
        rc__system_scatter(y, &map, g, H);
    }
    return E;
}


/* ---------------------------------------------------------------------------------------------
   Fields of the previous step at moved reference positions (DESIGN §2, our choice of transfer).
   The predictor x~ = x^t + h v^t (and x^t itself, for velocities) lives on the old reference mesh
   u^t. DESIGN's point interpolation (locate u_i in an old triangle) is only C^0: every u_i starts
   a step exactly on an old vertex, where it has one gradient per incident triangle, and Newton
   directions computed with one of them are often not descent directions for the true one-sided
   slope (measured: the joint line search stalled on the first outer iteration of most steps). We
   use instead the first-order expansion about the old vertex with its recovered gradient,
       x~_i(u_i) = x~_i + Gbar_i (u_i - u_i^t),   Gbar_i = sum_T A_T grad_T x~ / sum_T A_T,
   (area-weighted average of the old triangles' 3x2 gradients): smooth (linear) in u_i, exact for
   affine fields, so free flight and rigid motion stay exact, and O(h |du|) from the piecewise
   linear interpolant elsewhere. The same rule gives the material-point velocity after the step.
   --------------------------------------------------------------------------------------------- */
static void rc__sim_recover_gradients(const rc_sim *s, const double *uref, const double *field, double *Gbar)
{
    int i, c, k;
    memset(Gbar, 0, sizeof(double) * 6 * (size_t)s->nv);
    for (i = 0; i < s->nv; ++i) {
        double W = 0.0;
        int q;
        for (q = s->topo.vt_ptr[i]; q < s->topo.vt_ptr[i + 1]; ++q) {
            const int *tri = s->tris + 3 * s->topo.vt_idx[q];
            double Di[4], det = rc__uv_dinv(uref + 2 * tri[0], uref + 2 * tri[1], uref + 2 * tri[2], Di);
            if (!(det > 0.0) || !rc__isfinite(det)) continue;
            /* grad_T f = [f1 - f0, f2 - f0] D^{-1}, weighted by 2A_T = det */
            for (c = 0; c < 3; ++c) {
                double f1 = field[3 * tri[1] + c] - field[3 * tri[0] + c], f2 = field[3 * tri[2] + c] - field[3 * tri[0] + c];
                for (k = 0; k < 2; ++k) Gbar[6 * i + 2 * c + k] += det * (f1 * Di[k] + f2 * Di[2 + k]);
            }
            W += det;
        }
        if (W > 0.0) for (k = 0; k < 6; ++k) Gbar[6 * i + k] /= W;
    }
}

/* x~ and its u-gradient at the current u (fixed mode: the old vertex values, zero gradient) */
static void rc__sim_update_xtil(rc_sim *s, const double *u)
{
    int i, c;
    if (!s->def.adaptive) {
        memcpy(s->xtil, s->xt, sizeof(double) * 3 * (size_t)s->nv);
        memset(s->xtil_G, 0, sizeof(double) * 6 * (size_t)s->nv);
        return;
    }
    for (i = 0; i < s->nv; ++i) {
        double du0 = u[2 * i] - s->u0_step[2 * i], du1 = u[2 * i + 1] - s->u0_step[2 * i + 1];
        for (c = 0; c < 3; ++c) s->xtil[3 * i + c] = s->xt[3 * i + c] + s->xtil_G[6 * i + 2 * c] * du0 + s->xtil_G[6 * i + 2 * c + 1] * du1;
        for (c = 0; c < 3; ++c) s->fr_off[3 * i + c] = s->fr_G[6 * i + 2 * c] * du0 + s->fr_G[6 * i + 2 * c + 1] * du1;
    }
}

/* Friction slip at material points (issue #5): in adaptive mode vertex k is not the same material
   point at the end of the step as at its start; it slid in the material from u^t_k to u_k. The
   material point now at vertex k started at x^t(u_k) = x^t_k + G0_k (u_k - u^t_k) (the same
   first-order transfer as the inertia's x~, with G0 the recovered gradient of x^t over u^t), so
   every lagged friction term measures the vertex's slip as
       dx_k = x_k - x^t_k - G0_k (u_k - u^t_k)        (fixed mode: x_k - x^t_k).
   A friction term F(dx_1..dx_n) keeps its x-gradient g_k and Hessian blocks H_kl; in the joint
   (x, u) system the chain rule through J_k = [I, -G_k] adds
       g_uk = -G_k^T g_k,  H_{x_k u_l} = -H_kl G_l,  H_{u_k u_l} = G_k^T H_kl G_l
   (J^T H J: PSD stays PSD). rc__sim_slip_extend builds that (5n) system in the local order x of
   the n vertices, then u of the n vertices (the order of rc__map_x ... rc__map_u); G[k] is the
   3x2 row-major G_k (entry (c, a) at 2c + a). */
static void rc__sim_slip_extend(int n, const double *const *G, const double *g, const double *H, double *ge, double *He)
{
    int m = 5 * n, nx = 3 * n, i, j, k, l, a, b, c, d;
    double HG[12 * 8];   /* H G (3n x 2n) */
    if (g) {
        for (i = 0; i < nx; ++i) ge[i] = g[i];
        for (k = 0; k < n; ++k)
            for (a = 0; a < 2; ++a) {
                double acc = 0.0;
                for (c = 0; c < 3; ++c) acc += G[k][2 * c + a] * g[3 * k + c];
                ge[nx + 2 * k + a] = -acc;
            }
    }
    if (!H) return;
    for (i = 0; i < nx; ++i) {
        for (j = 0; j < nx; ++j) He[i * m + j] = H[i * nx + j];
        for (l = 0; l < n; ++l)
            for (b = 0; b < 2; ++b) {
                double acc = 0.0;
                for (d = 0; d < 3; ++d) acc += H[i * nx + 3 * l + d] * G[l][2 * d + b];
                HG[i * 2 * n + 2 * l + b] = acc;
                He[i * m + nx + 2 * l + b] = He[(nx + 2 * l + b) * m + i] = -acc;
            }
    }
    for (k = 0; k < n; ++k)
        for (a = 0; a < 2; ++a)
            for (j = 0; j < 2 * n; ++j) {
                double acc = 0.0;
                for (c = 0; c < 3; ++c) acc += G[k][2 * c + a] * HG[(3 * k + c) * 2 * n + j];
                He[(nx + 2 * k + a) * m + nx + j] = acc;
            }
}

/* Add a friction term's x-gradient g (3n) and x-Hessian H (3n x 3n) over vertices v[0..n) into y,
   with its u-parts (rc__sim_slip_extend) when y has u DOFs. The u DOFs map through rc__map_u
   (sliding vertices' direction, seam-shared parameters); every (x, u) block a vertex pair needs is
   in the pattern: pairs of one triangle from the stencils, self-contact pairs from their keys
   (rc__system_build_x adds the shared seam nodes of both vertices). */
static void rc__sim_slip_scatter(const rc_sim *s, rc__system *y, int n, const int *v, const double *g, const double *H)
{
    rc__dofmap m;
    int k;
    m.n = 0;
    for (k = 0; k < n; ++k) rc__map_x(y, v[k], &m);
    if (y->with_u && s->def.adaptive) {
        const double *G[4];
        double ge[20], He[400];
        for (k = 0; k < n; ++k) { rc__map_u(s, y, v[k], &m); G[k] = s->fr_G + 6 * (size_t)v[k]; }
        rc__sim_slip_extend(n, G, g, H, ge, He);
        rc__system_scatter(y, &m, ge, He);
    } else rc__system_scatter(y, &m, g, H);
}

/* ---------------------------------------------------------------------------------------------
   Obstacles in their end-of-step pose: p_world = R p_rest + t.
   --------------------------------------------------------------------------------------------- */
static void rc__obs_to_rest(const double *R, const double *t, const double *x, double *xr)
{
    double d[3];
    int i;
    rc__sub3(d, x, t);
    for (i = 0; i < 3; ++i) xr[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2];   /* R^T d */
}
static void rc__obs_from_rest_vec(const double *R, const double *vr, double *v)
{
    int i;
    for (i = 0; i < 3; ++i) v[i] = R[3 * i] * vr[0] + R[3 * i + 1] * vr[1] + R[3 * i + 2] * vr[2];
}
/* a point of the shape's rest frame at pose (R, t): x = R r + t (a sphere's centre: r = shape.p) */
static void rc__obs_from_rest(const double *R, const double *t, const double *r, double *x)
{
    rc__obs_from_rest_vec(R, r, x);
    rc__add3(x, x, t);
}

/* The rotation a fraction f of the way from Ra to Rb along the shortest arc (f = 1/2: the midpoint
   pose of a substep): Q = Rb Ra^T is a rotation by theta about n, with
   2 sin(theta) n = (Q32 - Q23, Q13 - Q31, Q21 - Q12) and cos(theta) = (tr Q - 1)/2;
   Rf = Rot(n, f theta) Ra by Rodrigues, Rot(n, a) = cos(a) I + sin(a) [n]x + (1 - cos(a)) n n^T.
   Returns theta, and the axis n in axis (may be NULL). Near theta = pi the axis comes from the
   symmetric part of Q (the skew part vanishes there); a rotation below 1e-9 rad is not resolved:
   Rf is then the nearer of Ra, Rb, and the axis zero. */
static double rc__sim_rot_frac(const double *Ra, const double *Rb, double f, double *Rf, double *axis)
{
    double Q[9], w[3], c, sn, th, n[3], ch, sh, Rh[9];
    int i, j, k;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            Q[3 * i + j] = 0.0;
            for (k = 0; k < 3; ++k) Q[3 * i + j] += Rb[3 * i + k] * Ra[3 * j + k];
        }
    c = 0.5 * (Q[0] + Q[4] + Q[8] - 1.0);
    if (c > 1.0) c = 1.0;
    if (c < -1.0) c = -1.0;
    w[0] = Q[7] - Q[5]; w[1] = Q[2] - Q[6]; w[2] = Q[3] - Q[1];
    sn = 0.5 * rc__norm3(w);
    th = atan2(sn, c);
    if (axis) axis[0] = axis[1] = axis[2] = 0.0;
    if (!(sn > 1e-9) && th < 1.0) {   /* too small to resolve: the nearer end (the midpoint: Ra) */
        memcpy(Rf, f > 0.5 ? Rb : Ra, 9 * sizeof(double));
        return th;
    }
    if (th < 3.0) rc__scale3(n, 0.5 / sn, w);
    else {
        /* near pi the skew part vanishes: the axis from the symmetric part,
           (Q + Q^T)/2 = c I + (1 - c) n n^T, through its largest diagonal entry */
        int m = Q[0] >= Q[4] && Q[0] >= Q[8] ? 0 : Q[4] >= Q[8] ? 1 : 2;
        double nm = sqrt(fmax(0.0, (Q[4 * m] - c) / (1.0 - c))), len;
        for (j = 0; j < 3; ++j) n[j] = j == m ? nm : 0.5 * (Q[3 * m + j] + Q[3 * j + m]) / ((1.0 - c) * nm);
        len = rc__norm3(n);
        rc__scale3(n, (rc__dot3(n, w) < 0.0 ? -1.0 : 1.0) / len, n);
    }
    if (axis) memcpy(axis, n, sizeof n);
    ch = cos(f * th); sh = sin(f * th);
    Rh[0] = ch + (1.0 - ch) * n[0] * n[0];        Rh[1] = -sh * n[2] + (1.0 - ch) * n[0] * n[1]; Rh[2] = sh * n[1] + (1.0 - ch) * n[0] * n[2];
    Rh[3] = sh * n[2] + (1.0 - ch) * n[1] * n[0];  Rh[4] = ch + (1.0 - ch) * n[1] * n[1];        Rh[5] = -sh * n[0] + (1.0 - ch) * n[1] * n[2];
    Rh[6] = -sh * n[1] + (1.0 - ch) * n[2] * n[0]; Rh[7] = sh * n[0] + (1.0 - ch) * n[2] * n[1];  Rh[8] = ch + (1.0 - ch) * n[2] * n[2];
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            Rf[3 * i + j] = 0.0;
            for (k = 0; k < 3; ++k) Rf[3 * i + j] += Rh[3 * i + k] * Ra[3 * k + j];
        }
    return th;
}

/* signed distance of world point x to obstacle o at pose (R, t); gradient and Hessian of d w.r.t. x */
static double rc__sim_obs_sdf_pose(const rc__obstacle *o, const double *R, const double *t, const double *x, double *grad, double *hess)
{
    double xr[3], gr[3], Hr[9], d;
    int i, j, k, l;
    rc__obs_to_rest(R, t, x, xr);
    if (!rc__ct_shape_sdf(&o->shape, xr, &d, grad ? gr : NULL, hess ? Hr : NULL)) d = HUGE_VAL;
    if (grad) rc__obs_from_rest_vec(R, gr, grad);
    if (hess)
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) {
                double acc = 0.0;
                for (k = 0; k < 3; ++k)
                    for (l = 0; l < 3; ++l) acc += R[3 * i + k] * Hr[3 * k + l] * R[3 * j + l];
                hess[3 * i + j] = acc;
            }
    return d;
}
static double rc__sim_obs_sdf(const rc__obstacle *o, const double *x, double *grad, double *hess)
{
    return rc__sim_obs_sdf_pose(o, o->R, o->t, x, grad, hess);
}

/* The round cores of an analytic obstacle, which act on whole cloth triangles (not only on their
   vertices): segments [a, b] with a radius, so that no shape can slip between cloth vertices and
   through the cloth. rc__sim_num_cores: how many; rc__sim_round_core: core k at pose (R, t), the
   segment (world) and the radius returned.
   - A sphere is all core: its centre (a = b) and its radius.
   - A capsule keeps its exact surface on the cloth's vertices (rc__sim_tri_vertex_barriers) and
     adds a core of half its radius around its axis. Measured before the core: an adaptive sheet
     across a 1.5 cm rod slid its vertices off it and fell through at step 6; the skirt_panels scene
     had a triangle straddling a leg. Why half the radius: the vertices already carry resting
     contact with the exact surface, and the core is the guard against slipping through, asleep
     until the sag between vertices, l^2/(8r), reaches half the radius (so capsule scenes whose
     cloth is fine enough run as before; a full-radius core, not tried, would add its pairs to
     every resting contact).
   - A box: its 12 edges, radius 0 (its faces are flat: cloth cannot cross one without a vertex
     crossing, which the vertex barrier stops; its edges and corners can cut between vertices.
     Measured before: a sheet of 2.5 cm cells dropped on a 20 cm cube had box edges through cloth
     triangles from step 3, fixed and adaptive, RC_OK). */
#define RC__MAX_CORES 12
static int rc__sim_num_cores(const rc__obstacle *o)
{
    return o->shape.kind == RC__CT_SHAPE_SPHERE || o->shape.kind == RC__CT_SHAPE_CAPSULE ? 1 : o->shape.kind == RC__CT_SHAPE_BOX ? 12 : 0;
}
static double rc__sim_round_core(const rc__obstacle *o, int k, const double *R, const double *t, double a[3], double b[3])
{
    if (o->shape.kind == RC__CT_SHAPE_SPHERE) {
        rc__obs_from_rest(R, t, o->shape.p, a);
        memcpy(b, a, 3 * sizeof(double));
        return o->shape.r;
    }
    if (o->shape.kind == RC__CT_SHAPE_CAPSULE) {
        rc__obs_from_rest(R, t, o->shape.a, a);
        rc__obs_from_rest(R, t, o->shape.b, b);
        return 0.5 * o->shape.r;
    }
    if (o->shape.kind == RC__CT_SHAPE_BOX) {
        /* edge k runs along box axis d = k / 4, at the signs (k & 1, k & 2) of the other two;
           box frame y -> p + Rb y (Rb = shape.R, columns the box axes), then the pose */
        int d = k / 4, o1 = (d + 1) % 3, o2 = (d + 2) % 3, i, j;
        double ya[3], yb[3], ra[3], rb[3];
        const double *h = o->shape.half, *Rb = o->shape.R;
        ya[d] = -h[d]; yb[d] = h[d];
        ya[o1] = yb[o1] = (k & 1) ? h[o1] : -h[o1];
        ya[o2] = yb[o2] = (k & 2) ? h[o2] : -h[o2];
        for (i = 0; i < 3; ++i) {
            ra[i] = o->shape.p[i]; rb[i] = o->shape.p[i];
            for (j = 0; j < 3; ++j) { ra[i] += Rb[3 * i + j] * ya[j]; rb[i] += Rb[3 * i + j] * yb[j]; }
        }
        rc__obs_from_rest(R, t, ra, a);
        rc__obs_from_rest(R, t, rb, b);
        return 0.0;
    }
    return 0.0;
}

/* a mesh obstacle whose vertices do not move over this step (none was set for its end) */
static int rc__sim_mesh_still(const rc__obstacle *ob)
{
    return ob->shape.kind == RC__OBS_TRIMESH && memcmp(ob->mesh_x, ob->mesh_xprev, sizeof(double) * 3 * (size_t)ob->mesh_nv) == 0;
}

/* conservative CCD of the path x0 -> x0 + a dx, a in [0, amax], against the obstacle at its end
   pose (the map to the rest frame is affine, so the path stays a segment) */
static double rc__sim_obs_ccd(const rc__obstacle *o, const double *x0, const double *dx, double xi, double amax)
{
    double xr[3], dr[3], z[3] = { 0, 0, 0 };
    rc__obs_to_rest(o->R, o->t, x0, xr);
    rc__obs_to_rest(o->R, z, dx, dr);
    return rc__ct_ccd_point_shape(&o->shape, xr, dr, xi, amax);
}

/* ---------------------------------------------------------------------------------------------
   Vertex terms: external force -f.x and lagged friction mu * lambda * f0(|T^T (x - anchor)|)
   against each obstacle (DESIGN §2); the obstacles' barriers are triangle terms of element A.
   In adaptive mode the anchor is that of the material point now at the vertex: its start x^t(u) =
   x^t + G0 du (rc__sim_slip_extend) carried by the obstacle's motion, anchor + Q G0 du with
   Q = R R_prev^T; so the vertex's slip uses Q G0 in place of G0. In adaptive mode the friction is
   also weighted by the vertex's mass as u moves (a triangle term of element A,
   rc__sim_tri_friction); here it is the fixed-mode vertex term.
   --------------------------------------------------------------------------------------------- */
/* The friction's smoothing length (rc__ct_friction's eps): the slip eps_v h below which friction
   is "static" in a time step; eps_v dt in rc_sim_solve_static, whose pseudo steps grow to 1e6 dt
   (with eps_v h the friction faded as they grew, and cloth held by friction slid off) */
static double rc__sim_fric_eps(const rc_sim *s)
{
    return s->def.friction_eps_v * (s->static_fric ? s->def.dt : s->h);
}

/* Q v = R R_prev^T v: a vector of the obstacle's start pose carried to its end pose */
static void rc__sim_obs_carry(const rc__obstacle *ob, const double *v, double *q)
{
    double r[3], z[3] = { 0, 0, 0 };
    rc__obs_to_rest(ob->R_prev, z, v, r);
    rc__obs_from_rest_vec(ob->R, r, q);
}

/* Vertex i's lagged friction against the analytic obstacles at x_i (and, adaptive, at the u the
   last rc__sim_update_xtil saw): returns F_i; with g, its x-gradient (3) and PSD x-Hessian (9);
   with gu also its u-parts from the slip at material points (rc__sim_slip_extend with the carried
   gradient Q G0): gu (2), Hxu (3x2 row-major), Huu (2x2). Outputs are overwritten. */
static double rc__sim_vertex_friction(const rc_sim *s, int i, const double *xi, double *g, double *H,
                                      double *gu, double *Hxu, double *Huu)
{
    int o, a, b;
    double F = 0.0;
    if (g) { memset(g, 0, 3 * sizeof(double)); memset(H, 0, 9 * sizeof(double)); }
    if (gu) { memset(gu, 0, 2 * sizeof(double)); memset(Hxu, 0, 6 * sizeof(double)); memset(Huu, 0, 4 * sizeof(double)); }
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        double lam = s->fr_lambda[(size_t)o * s->nv + i];
        if (lam > 0.0 && ob->mu > 0.0) {
            const double *T = s->fr_T + ((size_t)o * s->nv + i) * 6, *anc = s->fr_anchor + ((size_t)o * s->nv + i) * 3;
            double dx[3], w = 1.0, gf[3], Hf[9];
            rc__sub3(dx, xi, anc);
            if (s->def.adaptive) {   /* minus Q G0 du: slip of the material point (see above) */
                double q[3];
                rc__sim_obs_carry(ob, s->fr_off + 3 * i, q);
                rc__sub3(dx, dx, q);
            }
            rc__add3(dx, dx, s->fr_acc + 3 * i);   /* statics: the slip carried from earlier pseudo steps */
            F += rc__ct_friction(1, &w, T, dx, ob->mu * lam, rc__sim_fric_eps(s), g ? gf : NULL, g ? Hf : NULL);
            if (!g) continue;
            for (a = 0; a < 3; ++a) g[a] += gf[a];
            for (a = 0; a < 9; ++a) H[a] += Hf[a];   /* Hf is PSD */
            if (gu) {
                const double *G0 = s->fr_G + 6 * (size_t)i, *Gp = NULL;
                double Gq[6], col[3], qc[3], ge[5], He[25];
                int c;
                for (b = 0; b < 2; ++b) {   /* Q G0, column by column */
                    for (c = 0; c < 3; ++c) col[c] = G0[2 * c + b];
                    rc__sim_obs_carry(ob, col, qc);
                    for (c = 0; c < 3; ++c) Gq[2 * c + b] = qc[c];
                }
                Gp = Gq;
                rc__sim_slip_extend(1, &Gp, gf, Hf, ge, He);
                for (a = 0; a < 2; ++a) gu[a] += ge[3 + a];
                for (a = 0; a < 3; ++a) for (b = 0; b < 2; ++b) Hxu[2 * a + b] += He[5 * a + 3 + b];
                for (a = 0; a < 2; ++a) for (b = 0; b < 2; ++b) Huu[2 * a + b] += He[5 * (3 + a) + 3 + b];
            }
        }
    }
    return F;
}

static double rc__sim_vertex_energy(const rc_sim *s, int i, const double *xi, double *ext, double *fri, double *mind)
{
    int o;
    double xo[3], e_ext, e_fri = 0.0;
    rc__sub3(xo, xi, s->origin);
    e_ext = -rc__dot3(s->force + 3 * i, xo);   /* from the potential's origin (rc__inertia_tri) */
    for (o = 0; o < s->nobs; ++o) {
        double d = rc__sim_obs_sdf(s->obs + o, xi, NULL, NULL);
        if (d < *mind) *mind = d;
    }
    if (!s->def.adaptive) e_fri = rc__sim_vertex_friction(s, i, xi, NULL, NULL, NULL, NULL, NULL);
    *ext += e_ext; *fri += e_fri;
    return e_ext + e_fri;
}

/* gradient (3) and projected Hessian (3x3) of the vertex terms (adaptive: the external force alone,
   the friction is in element A) */
static void rc__sim_vertex_derivs(const rc_sim *s, int i, const double *xi, double *g, double *H)
{
    int a;
    if (s->def.adaptive) { memset(g, 0, 3 * sizeof(double)); memset(H, 0, 9 * sizeof(double)); }
    else rc__sim_vertex_friction(s, i, xi, g, H, NULL, NULL, NULL);
    for (a = 0; a < 3; ++a) g[a] -= s->force[3 * i + a];
}


/* ---------------------------------------------------------------------------------------------
   Triangle elements. Element A couples the 3 own vertices: stretch S_T, inertia + gravity, and in
   adaptive mode the MIPS regulariser C_T; its Hessians are summed and projected once (the mass
   block usually makes it diagonally dominant, which skips the eigen-decomposition). Element B is
   the bending stencil (own + flap vertices + 3 edge angles). Each writes its gradient and
   Hessian (n x n, row stride n) over the DOFs of the mode: x then u (A: n = 9 or 15), x, phi then u
   (B: n = 21 or 27); the u DOFs come last, so an x-only layout is the full one cut short
   (rc__sim_assemble scatters it with the full layout's position tables). Element A also carries
   the analytic obstacles' barriers: planes, boxes and capsules on its vertices weighted by mass
   (rc__sim_tri_vertex_barriers), the round cores (spheres, capsules' axes, boxes' edges) on the
   whole triangle weighted by area (rc__sim_tri_round).
   a[0..5] = stretch, inertia, gravity, quality, contact, friction (adaptive) energies; a[6] the
   least distance d - r of the triangle to a core within the barrier band (HUGE_VAL: none);
   RC__SIM_A_TERMS entries (defined before struct rc_sim, whose tri_e rows hold them).
   --------------------------------------------------------------------------------------------- */

/* One pair of the round cores' barrier: kappa b(ds^2), ds = d - r, d^2 = d2 with its gradient gd
   and Hessian Hd (n DOFs) given. Returns the energy (0 outside the band, HUGE_VAL within the
   thickness), its gradient g and Hessian H (n x n; may be NULL); *dist_out is lowered to ds where
   the pair is within the band.
     d(ds)/dx = gd / (2d),   d2(ds)/dx2 = Hd / (2d) - gd gd^T / (4 d^3),
     d2E/dx2 = kappa (4 ds^2 b'' ds_x ds_x^T + 2 b' (ds_x ds_x^T + ds ds_xx)). */
static double rc__sim_round_pair(const rc_sim *s, double d2, const double *gd, const double *Hd, double r, int n,
                                 double *g, double *H, double *dist_out)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, dist = sqrt(d2), ds = dist - r, db, d2b, E, dd[9];
    int i, j;
    if (ds >= xi_ + dh) return 0.0;
    if (ds < *dist_out) *dist_out = ds;
    if (ds <= xi_) return HUGE_VAL;
    E = s->kappa * rc_barrier(ds * ds, xi_, dh, &db, &d2b);
    for (i = 0; i < n; ++i) dd[i] = gd[i] / (2.0 * dist);
    if (g) for (i = 0; i < n; ++i) g[i] = s->kappa * db * 2.0 * ds * dd[i];
    if (H)
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                double hds = Hd[n * i + j] / (2.0 * dist) - gd[i] * gd[j] / (4.0 * d2 * dist);
                H[n * i + j] = s->kappa * (4.0 * ds * ds * d2b * dd[i] * dd[j] + 2.0 * db * (dd[i] * dd[j] + ds * hds));
            }
    return E;
}

/* A round core (rc__sim_round_core) against a cloth triangle, not only its vertices (or a sphere
   slips between vertices, and r-adaptivity would slide the vertices off it). A sphere (a = b):
   d = dist(c, T) - r, the point-triangle distance of the CONTACT section. A capsule's core: the
   sum over the pairs its distance to the triangle is made of (rc__ct_segment_triangle_d2), as IPC
   sums its pairs: each end against the triangle (point-triangle) and the axis against each of the
   triangle's edges (edge-edge, times the IPC mollifier m(|axis x edge|^2), eps_x from the axis
   length and the edge's initial reference length l0[k], edge k = vertices k, k+1), each
   kappa b((d - r)^2) with the thickness offset. The least distance alone (one term) would have a
   kink where a triangle lies along the axis: tilt it and the closest point jumps from one end of
   the line contact to the other, and cloth draped on the core sat on that kink (an adaptive sheet
   across a 1.5 cm rod: no step converged). Summed, the two edges that cross the axis each hold
   their end of the line. An edge along the axis is mollified away: its vertices are held by the
   capsule's own surface. A triangle the axis runs through is infinite energy. Returns the energy;
   g (9) and H (9x9, unprojected; element A projects its sum) w.r.t. the 3 vertices; *dist_out is
   lowered to d - r where a pair is within the barrier band (the least over the obstacles). */
static double rc__sim_tri_round(const rc_sim *s, const double *ca, const double *cb, double r, const double *xl, const double *l0,
                                double *g, double *H, double *dist_out)
{
    double E = 0.0, ax[3], aa, g12[12], H144[144], gp[9], Hp[81], d2, tau;
    const double *tv[3];
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    int k, i, j, e;
    if (g) memset(g, 0, 9 * sizeof(double));
    if (H) memset(H, 0, 81 * sizeof(double));
    tv[0] = xl; tv[1] = xl + 3; tv[2] = xl + 6;
    if (rc__ct_segment_triangle_lower_bound(ca, cb, tv) - r >= xi_ + dh) return 0.0;   /* most triangles */
    rc__sub3(ax, cb, ca);
    aa = rc__dot3(ax, ax);
    if (aa == 0.0) {   /* a sphere */
        d2 = rc__ct_point_triangle_d2(ca, xl, xl + 3, xl + 6, NULL, g12, H ? H144 : NULL);
        for (i = 0; i < 9; ++i) gp[i] = g12[3 + i];
        if (H) for (i = 0; i < 9; ++i) for (j = 0; j < 9; ++j) Hp[9 * i + j] = H144[(3 + i) * 12 + 3 + j];
        return rc__sim_round_pair(s, d2, gp, Hp, r, 9, g, H, dist_out);
    }
    if (rc__ct_segment_meets_triangle(ca, cb, tv, &tau)) {
        if (-r < *dist_out) *dist_out = -r;
        return HUGE_VAL;
    }
    for (e = 0; e < 2; ++e) {   /* the ends */
        double Ee, ge[9], He[81];
        d2 = rc__ct_point_triangle_d2(e ? cb : ca, xl, xl + 3, xl + 6, NULL, g12, H ? H144 : NULL);
        for (i = 0; i < 9; ++i) gp[i] = g12[3 + i];
        if (H) for (i = 0; i < 9; ++i) for (j = 0; j < 9; ++j) Hp[9 * i + j] = H144[(3 + i) * 12 + 3 + j];
        Ee = rc__sim_round_pair(s, d2, gp, Hp, r, 9, g ? ge : NULL, H ? He : NULL, dist_out);
        if (Ee == 0.0) continue;
        if (Ee == HUGE_VAL) return HUGE_VAL;
        E += Ee;
        if (g) for (i = 0; i < 9; ++i) g[i] += ge[i];
        if (H) for (i = 0; i < 81; ++i) H[i] += He[i];
    }
    for (k = 0; k < 3; ++k) {   /* the axis against edge k: vertices k, k1 (local DOFs 3k, 3k1) */
        int k1 = (k + 1) % 3, v[6], ia, ib;
        const double *p = xl + 3 * k, *q = xl + 3 * k1;
        double ge[6], He[36], gm[12], Hm[144], m, b, gd[6], Hd[36];
        d2 = rc__ct_edge_edge_d2(ca, cb, p, q, NULL, g12, H ? H144 : NULL);
        for (i = 0; i < 6; ++i) gd[i] = g12[6 + i];
        if (H) for (i = 0; i < 6; ++i) for (j = 0; j < 6; ++j) Hd[6 * i + j] = H144[(6 + i) * 12 + 6 + j];
        b = rc__sim_round_pair(s, d2, gd, Hd, r, 6, g || H ? ge : NULL, H ? He : NULL, dist_out);
        if (b == 0.0) continue;
        m = rc__ct_ee_mollifier(ca, cb, p, q, rc__ct_ee_mollifier_eps(aa, l0[k] * l0[k]), gm, H ? Hm : NULL);
        if (m == 0.0) continue;
        if (b == HUGE_VAL) return HUGE_VAL;
        E += m * b;
        for (i = 0; i < 3; ++i) { v[i] = 3 * k + i; v[3 + i] = 3 * k1 + i; }
        /* (m b)' = m b' + b m',  (m b)'' = m b'' + b' m'^T + m' b'^T + b m'' (m over slots 6..11) */
        if (g) for (ia = 0; ia < 6; ++ia) g[v[ia]] += m * ge[ia] + b * gm[6 + ia];
        if (H)
            for (ia = 0; ia < 6; ++ia)
                for (ib = 0; ib < 6; ++ib)
                    H[9 * v[ia] + v[ib]] += m * He[6 * ia + ib] + ge[ia] * gm[6 + ib] + gm[6 + ia] * ge[ib] + b * Hm[(6 + ia) * 12 + 6 + ib];
    }
    return E;
}

/* A triangle's area over the average triangle's (at creation), per unit of A2 = 2 A_T: the weight
   of the sphere's per-triangle barrier, A_T(u) / A_avg, so that it acts as a pressure over the
   cloth's area, as the vertex barriers do through the vertex masses (rc__sim_tri_vertex_barriers).
   Unweighted, adaptive cloth resting on a sphere lowered its potential by crowding triangles into
   the contact: a 0.3 m sheet at rest on a 2 m sphere slid u by 4.2 cm (min area ratio 0.20, 341
   outer iterations in its first 25 steps) where on a plane it keeps u. */
static double rc__sim_tri_area_weight(const rc_sim *s)
{
    return s->def.material.density * s->def.material.thickness * s->nt / (2.0 * s->total_mass);
}

/* A vertex's lumped mass over the average vertex's, per unit of A2 = 2 A_T of each incident
   triangle: m_i / m_avg = sum over its triangles of A2 rho tau / (6 m_avg). The weight of the
   vertex barriers (rc__sim_tri_vertex_barriers, the mesh obstacles' cloth-vertex pairs). */
static double rc__sim_weight_per_A2(const rc_sim *s)
{
    return s->def.material.density * s->def.material.thickness / (6.0 * (s->total_mass / s->nv));
}

/* the 9x9 block-diagonal matrix of three 3x3 blocks (vertex k's at 9k) */
static void rc__blockdiag9(const double *B27, double *H81)
{
    int k, i, j;
    memset(H81, 0, 81 * sizeof(double));
    for (k = 0; k < 3; ++k)
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) H81[(3 * k + i) * 9 + 3 * k + j] = B27[9 * k + 3 * i + j];
}

/* A vertex quantity weighted by the vertices' lumped masses, as a triangle term (see below):
   E_T = alpha A2(u) sum_k b_k with b_k(x, u_k), the x-gradient gb (9) and x-Hessian Hb (9x9) of
   sum_k b_k given (block-diagonal when each b_k depends on x_k alone), and when b_k depends on u_k too (the friction
   slip at material points) its u-parts gbu (6: vertex k's 2), Hbxu (18: vertex k's 3x2 row-major)
   and Hbuu (12: vertex k's 2x2), or NULL. Adds E_T's gradient and Hessian in (x, u) to g and H
   (n = 9 or 15, u last) and returns E_T:
     dE/dx_k = alpha A2 gb_k,            dE/du = alpha (sum b) dA2/du + alpha A2 gbu,
     x x: alpha A2 Hb,                   x_k u: alpha gb_k dA2/du^T + alpha A2 Hbxu_k (at u_k),
     u u: alpha (sum b) d2A2/du2 + alpha (dA2/du gbu^T + gbu dA2/du^T) + alpha A2 Hbuu_k (at u_k, u_k). */
/* dA2/du of A2 = (u1 - u0) x (u2 - u0), in the order u0x u0y u1x u1y u2x u2y */
static void rc__A2_du(const double *ul, double dA[6])
{
    dA[0] = ul[3] - ul[5]; dA[1] = ul[4] - ul[2];
    dA[2] = ul[5] - ul[1]; dA[3] = ul[0] - ul[4];
    dA[4] = ul[1] - ul[3]; dA[5] = ul[2] - ul[0];
}
/* H's u block (rows and columns 9..14 of an n x n H) += coef d2A2/du2, a constant:
   A2 = u1x u2y - u1x u0y - u0x u2y - u2x u1y + u2x u0y + u0x u1y */
static void rc__A2_add_uu(double *H, int n, double coef)
{
    static const int pp[6][2] = { { 2, 5 }, { 4, 1 }, { 0, 3 }, { 2, 1 }, { 0, 5 }, { 4, 3 } };
    static const double sg[6] = { 1, 1, 1, -1, -1, -1 };
    int k;
    for (k = 0; k < 6; ++k) {
        H[(9 + pp[k][0]) * n + 9 + pp[k][1]] += coef * sg[k];
        H[(9 + pp[k][1]) * n + 9 + pp[k][0]] += coef * sg[k];
    }
}
static double rc__sim_tri_weighted(double alpha, const double *ul, double A2, const double *bk, const double *gb,
                                   const double *Hb, const double *gbu, const double *Hbxu, const double *Hbuu,
                                   int n, double *g, double *H)
{
    double dA[6], bsum = bk[0] + bk[1] + bk[2];
    int i, j, with_u = n == 15;
    rc__A2_du(ul, dA);
    if (g) {
        for (i = 0; i < 9; ++i) g[i] += alpha * A2 * gb[i];
        if (with_u) for (j = 0; j < 6; ++j) g[9 + j] += alpha * (bsum * dA[j] + (gbu ? A2 * gbu[j] : 0.0));
    }
    if (H) {
        for (i = 0; i < 9; ++i)
            for (j = 0; j < 9; ++j) H[i * n + j] += alpha * A2 * Hb[9 * i + j];
        if (with_u) {
            for (i = 0; i < 9; ++i)
                for (j = 0; j < 6; ++j) {
                    double v = alpha * gb[i] * dA[j];
                    if (Hbxu && j / 2 == i / 3) v += alpha * A2 * Hbxu[6 * (i / 3) + 2 * (i % 3) + j % 2];
                    H[i * n + 9 + j] += v;
                    H[(9 + j) * n + i] += v;
                }
            rc__A2_add_uu(H, n, alpha * bsum);
            if (gbu)
                for (i = 0; i < 6; ++i)
                    for (j = 0; j < 6; ++j) {
                        double v = alpha * (dA[i] * gbu[j] + gbu[i] * dA[j]);
                        if (Hbuu && i / 2 == j / 2) v += alpha * A2 * Hbuu[4 * (i / 2) + 2 * (i % 2) + j % 2];
                        H[(9 + i) * n + 9 + j] += v;
                    }
        }
    }
    return alpha * A2 * bsum;
}

/* The barrier of planes, boxes and capsules on the cloth's vertices, weighted by their mass: vertex
   i gets kappa (m_i(u) / m_avg) b(d_i^2), and as m_i = sum over its triangles of rho tau A_T(u) / 3,
   that is a triangle term, as gravity's is:
     E_T = kappa rho tau A_T(u) / (3 m_avg) sum_{k in T} b(d_k^2) = alpha A2(u) sum_k b_k,
     alpha = kappa rho tau / (6 m_avg),  A2 = 2 A_T = (u1 - u0) x (u2 - u0).
   Why weighted: gravity m_i(u) g.x_i depends on u, and with an unweighted barrier
   min over z of (m g z + kappa b(z)) is concave in m, so adaptive cloth at rest on a floor lowered
   its potential by piling mass onto a few vertices (a flat 225-vertex sheet slid u at the travel
   limit for 62 steps, min area ratio 0.18, until the regulariser stopped it). Weighted, that
   minimum is m times a constant: no drive. Under uniform load every vertex now rests at the same
   distance (the barrier approximates a pressure over the cloth's area). kappa keeps its meaning:
   m_avg = total mass / nv is the average vertex.
   Gradient: x_k: alpha A2 b_k' ; u: alpha dA2/du sum b. Hessian: x_k x_k: alpha A2 b_k'';
   x_k u: alpha b_k' dA2/du^T; u u: alpha sum b d2A2/du2 (constant) (rc__sim_tri_weighted).
   Returns the energy (HUGE_VAL if a vertex is within the thickness). */
static double rc__sim_tri_vertex_barriers(const rc_sim *s, const double *xl, const double *ul, double A2, int n,
                                          double *g, double *H)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, bk[3] = { 0, 0, 0 }, gb[9], Hb[27], Hf[81];
    int o, k, i, j, any = 0;
    memset(gb, 0, sizeof gb);
    memset(Hb, 0, sizeof Hb);
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (ob->shape.kind == RC__CT_SHAPE_SPHERE || ob->shape.kind == RC__OBS_TRIMESH) continue;
        for (k = 0; k < 3; ++k) {
            double nrm[3], Hd[9], d = rc__sim_obs_sdf(ob, xl + 3 * k, NULL, NULL), db, d2b;
            if (!(d < xi_ + dh)) continue;   /* most vertices: the distance alone */
            if (d <= xi_) return HUGE_VAL;
            bk[k] += rc_barrier(d * d, xi_, dh, &db, &d2b);
            any = 1;
            if (!g && !H) continue;
            d = rc__sim_obs_sdf(ob, xl + 3 * k, nrm, H ? Hd : NULL);
            for (i = 0; i < 3; ++i) gb[3 * k + i] += db * 2.0 * d * nrm[i];   /* H's x-u block needs it too */
            if (H)
                for (i = 0; i < 3; ++i)
                    for (j = 0; j < 3; ++j)
                        Hb[9 * k + 3 * i + j] += 4.0 * d * d * d2b * nrm[i] * nrm[j] + 2.0 * db * (nrm[i] * nrm[j] + d * Hd[3 * i + j]);
        }
    }
    if (!any) return 0.0;
    rc__blockdiag9(Hb, Hf);
    return rc__sim_tri_weighted(s->kappa * rc__sim_weight_per_A2(s), ul, A2, bk, gb, Hf, NULL, NULL, NULL, n, g, H);
}

/* A2 = 2 A_T of triangle t at reference positions u */
static double rc__sim_tri_A2(const rc_sim *s, const double *u, int t)
{
    const int *tr = s->tris + 3 * t;
    return rc__mesh_orient2(u + 2 * tr[0], u + 2 * tr[1], u + 2 * tr[2]);
}

/* the sum of A2 over edge e's (one or two) triangles at reference positions u */
static double rc__sim_edge_A2(const rc_sim *s, const double *u, int e)
{
    double A2 = rc__sim_tri_A2(s, u, s->topo.edge_tri[2 * e]);
    if (s->topo.edge_tri[2 * e + 1] >= 0) A2 += rc__sim_tri_A2(s, u, s->topo.edge_tri[2 * e + 1]);
    return A2;
}

/* vertex i's lumped mass at reference positions u over the average vertex's, m_i(u) / m_avg: the
   weight of its barriers (rc__sim_tri_vertex_barriers; cloth-vertex pairs of mesh obstacles) */
static double rc__sim_vertex_weight(const rc_sim *s, const double *u, int i)
{
    double A2 = 0.0;
    int q;
    for (q = s->topo.vt_ptr[i]; q < s->topo.vt_ptr[i + 1]; ++q) A2 += rc__sim_tri_A2(s, u, s->topo.vt_idx[q]);
    return A2 * rc__sim_weight_per_A2(s);
}

/* The analytic obstacles' lagged friction in adaptive mode, weighted by the vertex's mass as u
   moves: vertex i's term mu lambda_i f0(|slip_i|) becomes (m_i(u) / m_i(u^t)) mu lambda_i f0, as
   its normal force lambda_i (lagged at u^t) is that of its mass. Why: a vertex that slides in the
   material carries its mass (m_i = rho tau sum of its triangles' areas / 3) and its share of the
   load; with lambda_i held fixed, a support turned under the cloth pulled u along through the
   friction of vertices that had lost mass (a sheet on a spinning box drifted 7.6 cm in u at
   mu = 0.5). With A2sum_i(u) = sum over i's triangles of A2_T(u), m_i(u)/m_i(u^t) =
   A2sum_i(u) / A2sum_i(u^t), so the weighted friction is a triangle term like the vertex barriers:
     E_T = A2_T(u) sum_{k in T} F_k(x_k, u_k) / A2sum_k(u^t)
   (rc__sim_tri_weighted with the slip's u-parts of rc__sim_vertex_friction). */
static double rc__sim_tri_friction(const rc_sim *s, const int *tri, const double *xl, const double *ul, double A2, int n,
                                   double *g, double *H)
{
    double bk[3], gb[9], Hb[27], Hf[81], gbu[6], Hbxu[18], Hbuu[12];
    int k, c, any = 0, with_u = n == 15;
    for (k = 0; k < 3; ++k) {
        double w = s->fr_inv_A2[tri[k]], *gk = gb + 3 * k, *Hk = Hb + 9 * k;
        bk[k] = 0.0;
        if (w > 0.0) bk[k] = w * rc__sim_vertex_friction(s, tri[k], xl + 3 * k, g || H ? gk : NULL, Hk, with_u ? gbu + 2 * k : NULL,
                                                         Hbxu + 6 * k, Hbuu + 4 * k);
        if (!(bk[k] > 0.0)) {   /* no friction at this vertex: zero parts */
            bk[k] = 0.0;
            memset(gk, 0, 3 * sizeof(double)); memset(Hk, 0, 9 * sizeof(double));
            memset(gbu + 2 * k, 0, 2 * sizeof(double)); memset(Hbxu + 6 * k, 0, 6 * sizeof(double)); memset(Hbuu + 4 * k, 0, 4 * sizeof(double));
            continue;
        }
        any = 1;
        if (!(g || H)) continue;
        for (c = 0; c < 3; ++c) gk[c] *= w;
        for (c = 0; c < 9; ++c) Hk[c] *= w;
        if (with_u) {
            for (c = 0; c < 2; ++c) gbu[2 * k + c] *= w;
            for (c = 0; c < 6; ++c) Hbxu[6 * k + c] *= w;
            for (c = 0; c < 4; ++c) Hbuu[4 * k + c] *= w;
        }
    }
    if (!any) return 0.0;
    if (H) rc__blockdiag9(Hb, Hf);
    return rc__sim_tri_weighted(1.0, ul, A2, bk, gb, Hf, with_u ? gbu : NULL, with_u ? Hbxu : NULL, with_u ? Hbuu : NULL, n, g, H);
}

/* The lagged friction pairs that act on triangle t's area (ft: the round cores' pairs, the mesh
   obstacles' obstacle vertex - cloth triangle and edge-edge pairs), a term of its element A weighted
   like their barriers by the cloth area as u moves:
     E_T = A2(u) sum_p a_p mu lambda_p f0(|P_p^T rel_p|),
   a_p = 1 / A2(u^t) of the area the pair's barrier was weighted by at the step start (the
   triangle's; an edge pair's record sits in both its triangles with 1 / A2_e(u^t), A2_e the sum of
   theirs, so the two terms sum to A_e(u)/A_e(u^t) of its friction), rel_p = sum_k w_k (x_k - x^t_k
   - Q G0_k (u_k - u^t_k)) + c_p (the slip of material points, rc__sim_slip_extend with the carried
   gradient Q G0). With e = sum_p a_p f_p and its derivatives ge, He over the triangle's DOFs, by the
   product rule:
     g = A2 ge + e dA2,  H = A2 He + dA2 ge^T + ge dA2^T + e d2A2
   (dA2 nonzero in u only). Why weighted: unweighted, a triangle's friction does not shrink with it,
   so sliding u to crowd triangles where the slip is small lowers the friction: a sheet resting on a
   sphere that starts turning under it slid u by up to 1.85 cm in its first two steps, 0.57 mm
   left after 40 (weighted: 0, test_adaptive_spinning_support_keeps_u); a sheet across a turning
   tent's ridge (mesh) 2.9 cm in 40 steps, 2.6 cm weighted (the carry did the rest:
   rc__sim_obs_carry_gradient). Fixed mode: the same sum at u = u^t. */
static double rc__sim_tri_pair_friction(const rc_sim *s, int t, const double *x, const double *ul, double A2, int n,
                                        double *g, double *H)
{
    const int *tri = s->tris + 3 * t;
    int q, q0 = s->ft_start ? s->ft_start[t] : 0, q1 = s->ft_start ? s->ft_start[t + 1] : 0, i, j, k, with_u = n == 15;
    double e = 0.0, ge[15], He[225], dA[6];
    if (q1 == q0) return 0.0;
    if (g || H) { memset(ge, 0, sizeof ge); memset(He, 0, sizeof He); }
    for (q = q0; q < q1; ++q) {
        const double *rec = s->ft + (size_t)RC__FM_STRIDE * q;
        int np = (int)rec[0], loc[3], map[15], m = with_u ? 5 * np : 3 * np;
        double gp[9], Hp[81], gx[15], Hx[225], a = rec[27];
        e += a * rc__sim_fm_pair(s, rec, x, g || H ? gp : NULL, H ? Hp : NULL);
        if (!(g || H)) continue;
        for (k = 0; k < np; ++k) {   /* the record's vertices in the triangle's local order */
            loc[k] = 0;
            for (i = 0; i < 3; ++i) if (tri[i] == (int)rec[1 + k]) loc[k] = i;
        }
        for (i = 0; i < 3 * np; ++i) map[i] = 3 * loc[i / 3] + i % 3;
        if (with_u) {
            const double *G[3];
            double QG[18];
            for (k = 0; k < np; ++k) {   /* the carried gradient Q G0 */
                rc__sim_fm_carry(s, rec, (int)rec[1 + k], QG + 6 * k);
                G[k] = QG + 6 * k;
                map[3 * np + 2 * k] = 9 + 2 * loc[k]; map[3 * np + 2 * k + 1] = 10 + 2 * loc[k];
            }
            rc__sim_slip_extend(np, G, gp, H ? Hp : NULL, gx, Hx);
        } else {
            memcpy(gx, gp, sizeof(double) * 3 * (size_t)np);
            if (H) memcpy(Hx, Hp, sizeof(double) * 9 * (size_t)np * (size_t)np);
        }
        for (i = 0; i < m; ++i) {
            ge[map[i]] += a * gx[i];
            if (H) for (j = 0; j < m; ++j) He[map[i] * n + map[j]] += a * Hx[i * m + j];
        }
    }
    if (!(g || H)) return A2 * e;
    rc__A2_du(ul, dA);
    if (g) {
        for (i = 0; i < n; ++i) g[i] += A2 * ge[i];
        if (with_u) for (j = 0; j < 6; ++j) g[9 + j] += e * dA[j];
    }
    if (H) {
        for (i = 0; i < n * n; ++i) H[i] += A2 * He[i];
        if (with_u) {
            for (i = 0; i < n; ++i)
                for (j = 0; j < 6; ++j) {
                    H[i * n + 9 + j] += ge[i] * dA[j];
                    H[(9 + j) * n + i] += ge[i] * dA[j];
                }
            rc__A2_add_uu(H, n, e);
        }
    }
    return A2 * e;
}

/* 1 if the cloth triangle (x0, x1, x2) overlaps box obstacle ob (separating axes in the box's
   frame: world x = pose(p + shape.R y)) */
static int rc__sim_tri_overlaps_box(const rc__obstacle *ob, const double *x0, const double *x1, const double *x2)
{
    const double *xv[3];
    double y[9];
    int e, c;
    xv[0] = x0; xv[1] = x1; xv[2] = x2;
    for (e = 0; e < 3; ++e) {
        double r0[3], w[3];
        rc__obs_to_rest(ob->R, ob->t, xv[e], r0);
        rc__sub3(w, r0, ob->shape.p);
        for (c = 0; c < 3; ++c) y[3 * e + c] = ob->shape.R[c] * w[0] + ob->shape.R[3 + c] * w[1] + ob->shape.R[6 + c] * w[2];
    }
    return rc__ct_triangle_box_overlap(y, y + 3, y + 6, ob->shape.half);
}

static void rc__sim_kernel_A(const rc_sim *s, int t, const double *x, const double *u, int with_u, double *a,
                             double *g, double *H)
{
    const int *tri = s->tris + 3 * t;
    const rc_material *mat = &s->def.material;
    double xl[9], ul[6], xt[9], G[18], gi[15], Hi[225], gm[6], Hm[36], A2;
    int k, c, i, j, n = with_u ? 15 : 9;
    int flags = (g ? RC__SH_GRAD : 0) | (H ? RC__SH_HESS : 0) | (with_u ? 0 : RC__SH_NO_U);
    double rho_tau = mat->density * mat->thickness;
    for (k = 0; k < 3; ++k) {
        for (c = 0; c < 3; ++c) { xl[3 * k + c] = x[3 * tri[k] + c]; xt[3 * k + c] = s->xtil[3 * tri[k] + c]; }
        for (c = 0; c < 6; ++c) G[6 * k + c] = s->xtil_G[6 * tri[k] + c];
        ul[2 * k] = u[2 * tri[k]]; ul[2 * k + 1] = u[2 * tri[k] + 1];
    }
    a[0] = rc__sh_stretch_tri(xl, ul, &s->coef, flags, g, H);
    a[1] = rc__inertia_tri(xl, ul, xt, G, rho_tau, s->h, s->def.gravity, s->origin, flags, g ? gi : NULL, H ? Hi : NULL);
    A2 = rc__mesh_orient2(ul, ul + 2, ul + 4);
    for (a[2] = 0.0, k = 0; k < 3; ++k) {
        double xo[3];
        rc__sub3(xo, xl + 3 * k, s->origin);
        a[2] -= rho_tau * A2 / 6.0 * rc__dot3(s->def.gravity, xo);
    }
    a[1] -= a[2];
    if (g) for (i = 0; i < n; ++i) g[i] += gi[i];
    if (H) for (i = 0; i < n * n; ++i) H[i] += Hi[i];
    a[3] = 0.0;
    if (s->def.adaptive && s->def.quality_weight > 0.0) {
        /* C_T = w max(0, Psi_T - eps_q)^3 with one weight for every triangle, w = rho tau Abar^2 / h_q^2
           (s->quality_w), the inertial energy of moving the MEAN initial triangle its own size in one
           step of h_q = min(dt, quality_time) (def.dt: substeps and statics keep it). The cap is ours: the forces that squash a reference
           triangle (stretch, bending, gravity through the mass transfer) do not fall as 1/h^2, so
           with h_q = h the regulariser faded at long steps. Measured (session 59, a 0.6 m 13 x 13
           sheet hanging from two corners for 10 s, max MIPS over the run / V at the end; h_q = h,
           then the default cap 0.04 s, then 0.01 s): dt 0.04 3.49 / -0.22456 J (uncapped and
           default alike); dt 0.1 4.61 / -0.22487, 3.57 / -0.22455, 2.84 / -0.22429; dt 0.25 8.79 /
           -0.22522, 3.98 / -0.22447, 3.32 / -0.22426; dt 1 7.80 / -0.22576 (one step unconverged),
           3.18 / -0.22454, 2.72 / -0.22425; dropped on a sphere at dt 1: 6.10, 2.98, 2.70. The cap
           costs adaptivity where it bites: the didactic drape at dt 0.1 (test_adaptive_didactic_
           drape_ablation) ends at V -0.05124 J uncapped, -0.05084 at 0.04 s, -0.05060 at 0.01 s,
           against -0.05057 for the fixed mesh with 4x the vertices; so the default cap is the
           travel term's time scale, beyond which a step is long for the material. DESIGN §2 weights each triangle by its own initial area, rho tau (A_T^0)^2 / h^2; on a
           uniform mesh the two agree, but on a graded one the forces that squash a small triangle
           come from its larger neighbours (stretch and inertia scale with their size) while its own
           weight falls as A_T^2, so the small triangles went unprotected. Measured (session 58,
           adaptive): a 1 m sheet on a 12 x 12 grid with one column of 1e-4 m cells, dropped on a
           sphere, 40 steps: max MIPS 50 -> 2.9, 8 -> 2 unconverged steps (2 had ended at their
           start), V -0.2749 -> -0.2978 J (the fixed mesh -0.3084, 5 unconverged); the same sheet
           hanging from two corners: max MIPS 96 -> 2.6, V -0.6510 -> -0.6662 J (fixed -0.6659);
           a graded disc (area ratio 279) from one pin: max MIPS 6.3 -> 2.8. The area-weighted
           integral form, rho tau A_T Abar / h^2, fell between (MIPS 7.1, 11.2, 3.0). Test:
           test_adaptive_regulariser_graded_mesh. */
        a[3] = rc__mips_tri(ul, s->Dinv0 + 4 * t, s->quality_w, s->def.quality_threshold, with_u ? (flags & (RC__SH_GRAD | RC__SH_HESS)) : 0,
                            gm, Hm);
        if (with_u) {
            if (g) for (i = 0; i < 6; ++i) g[9 + i] += gm[i];
            if (H) for (i = 0; i < 6; ++i) for (j = 0; j < 6; ++j) H[(9 + i) * n + 9 + j] += Hm[6 * i + j];
        }
    }
    a[4] = rc__sim_tri_vertex_barriers(s, xl, ul, A2, n, g, H);
    a[5] = (s->def.adaptive ? rc__sim_tri_friction(s, tri, xl, ul, A2, n, g, H) : 0.0) + rc__sim_tri_pair_friction(s, t, x, ul, A2, n, g, H);
    a[6] = HUGE_VAL;
    for (k = 0; k < s->nobs; ++k) {
        /* round cores (spheres, capsules' axes, boxes' edges), weighted by the triangle's area,
           A_T(u) / A_avg (rc__sim_tri_area_weight) */
        const rc__obstacle *ob = s->obs + k;
        int nc = rc__sim_num_cores(ob), ic, e;
        double l0[3];
        if (nc == 0) continue;
        if (nc > 1) {   /* the whole shape first: every core is on its surface, sdf is 1-Lipschitz */
            double cen[3], rad = 0.0;
            for (c = 0; c < 3; ++c) cen[c] = (xl[c] + xl[3 + c] + xl[6 + c]) / 3.0;
            for (e = 0; e < 3; ++e) { double v[3]; rc__sub3(v, xl + 3 * e, cen); if (rc__norm3(v) > rad) rad = rc__norm3(v); }
            if (rc__sim_obs_sdf(ob, cen, NULL, NULL) - rad >= s->def.contact_thickness + s->def.contact_dhat) continue;
        }
        if (ob->shape.kind == RC__CT_SHAPE_BOX) {
            /* Its edges and the vertex barrier keep cloth out of a box as the cloth moves (to get
               into it, a cloth edge must cross a box edge, or a face at its end). A jump at the
               step's start (a carry, a push) could still land a cloth edge skewered through the
               box between its edges, which no term would see: a triangle overlapping the box is
               infinite energy too, so such a start splits the step (a guard; cloth held off the
               box never overlaps it) */
            if (rc__sim_tri_overlaps_box(ob, xl, xl + 3, xl + 6)) { a[4] = HUGE_VAL; continue; }
        }
        for (e = 0; e < 3; ++e) l0[e] = s->edge_len0[s->topo.tri_edge[3 * t + (e + 2) % 3]];   /* edge e, e+1: opposite e+2 */
        for (ic = 0; ic < nc; ++ic) {
            double gc[9], Hc[81], bk[3] = { 0.0, 0.0, 0.0 }, ca[3], cb[3], r = rc__sim_round_core(ob, ic, ob->R, ob->t, ca, cb);
            bk[0] = rc__sim_tri_round(s, ca, cb, r, xl, l0, g || H ? gc : NULL, H ? Hc : NULL, &a[6]);
            if (bk[0] == 0.0) continue;
            if (bk[0] == HUGE_VAL) { a[4] = HUGE_VAL; continue; }   /* within the thickness (a NaN goes on as one) */
            a[4] += rc__sim_tri_weighted(rc__sim_tri_area_weight(s), ul, A2, bk, g || H ? gc : NULL, H ? Hc : NULL, NULL, NULL, NULL, n, g, H);
        }
    }
    if (H && s->proj >= 0) rc__psd_project(n, H, s->proj);
}

static void rc__sim_kernel_B(const rc_sim *s, int t, const double *x, const double *u, const double *phi, int with_u,
                             double *b, double *g, double *H)
{
    const int *tri = s->tris + 3 * t;
    double xl[9], xf[9], ph[3], ul[6], th_ref[3];
    int k, c, mask = 0;
    /* the convex model of the bending stencil: projected with u; in (x, phi) alone, where that
       eigen-projection (an 18 x 18 Schur complement per triangle) is the expensive part of a
       fallback iteration, the Gauss-Newton Hessian J^T W_bb J, PSD by construction
       (rc__sh_bend_tri_ref). Measured on 20 saved 1k sphere-drape step problems (1 thread, the
       fallback taking ~30% of the inner Newton iterations): 33.5 -> 29.1 s CPU, 694 -> 689 inner
       iterations, the same final IPs to 3e-5 relative; 100 steps at 1k, 1 thread, every step
       converged: adaptive sphere drape 124.6 -> 102.9 s, spikes 162.0 -> 124.5, cube 120.9 ->
       111.8, two-point 68.0 -> 67.5; fixed sphere 49.0 -> 31.1 s (bench/RESULTS.md §5). */
    int proj = s->proj == RC__PROJECT_CLAMP ? RC__SH_PROJECT : s->proj == RC__PROJECT_ABS ? RC__SH_PROJECT_ABS : 0;
    int flags = (g ? RC__SH_GRAD : 0) | (H ? RC__SH_HESS | proj : 0) | (with_u ? 0 : RC__SH_NO_U);
    if (proj == RC__SH_PROJECT && !with_u) flags = (flags & ~RC__SH_PROJECT) | RC__SH_GAUSS_NEWTON;
    for (k = 0; k < 3; ++k) {
        int f = s->topo.tri_flap[3 * t + k];
        for (c = 0; c < 3; ++c) { xl[3 * k + c] = x[3 * tri[k] + c]; xf[3 * k + c] = f >= 0 ? x[3 * f + c] : 0.0; }
        if (f >= 0) mask |= 1 << k;
        ph[k] = phi[s->topo.tri_edge[3 * t + k]];
        th_ref[k] = s->hinge_ref[s->topo.tri_edge[3 * t + k]];
        ul[2 * k] = u[2 * tri[k]]; ul[2 * k + 1] = u[2 * tri[k] + 1];
    }
    *b = rc__sh_bend_tri_ref(xl, xf, mask, ph, tri, ul, &s->coef, flags, th_ref, g, H);
}

/* threads for the element loops: def.num_threads, or the OpenMP default when 0. Small loops, and
   every loop when this is 1, run outside any OpenMP region: thread start-up costs more than a few
   hundred elements (see rc__sp_gemm_lower). */
static int rc__sim_threads(const rc_sim *s)
{
#ifdef _OPENMP
    /* at most 4 per processor and OpenMP's thread limit: more never helps, and a request the
       runtime cannot start ends the process inside libgomp (a probe: num_threads 400 under a 3 GB
       address-space limit, "Thread creation failed"; 100000 crashed) */
    int n = s->def.num_threads > 0 ? s->def.num_threads : omp_get_max_threads(), cap = 4 * omp_get_num_procs();
    if (omp_get_thread_limit() < cap) cap = omp_get_thread_limit();
    return n < cap ? n : (cap > 0 ? cap : 1);
#else
    (void)s;
    return 1;
#endif
}

/* ---------------------------------------------------------------------------------------------
   Triangle-mesh obstacles: IPC pairs point-triangle (cloth vertex vs obstacle triangle, obstacle
   vertex vs cloth triangle) and mollified edge-edge (cloth edge vs obstacle edge), barrier on the
   squared distance with the thickness offset, kernels from the CONTACT section. Candidates: every
   pair whose boxes are within xi + dhat (brute force with box culling). With y != NULL the
   gradient and the PSD-projected Hessian of the cloth DOFs are added to y; returns the energy.
   --------------------------------------------------------------------------------------------- */
/* Boxes of primitives (nverts vertices each, indices idx, or the identity when idx == NULL) at
   positions x, swept to x + a dx when dx != NULL. */
static void rc__sim_boxes(int n, int nverts, const int *idx, const double *x, const double *dx, double a,
                          double *lo, double *hi)
{
    int p, k, c;
    for (p = 0; p < n; ++p)
        for (c = 0; c < 3; ++c) {
            double l = HUGE_VAL, h = -HUGE_VAL;
            for (k = 0; k < nverts; ++k) {
                int v = idx ? idx[nverts * p + k] : p;
                double v0 = x[3 * v + c], v1 = dx ? v0 + a * dx[3 * v + c] : v0;
                if (v0 < l) l = v0;
                if (v0 > h) h = v0;
                if (v1 < l) l = v1;
                if (v1 > h) h = v1;
            }
            lo[3 * p + c] = l; hi[3 * p + c] = h;
        }
}

/* 1 if a triangle of mesh obstacle ob uses vertex j. A vertex no triangle uses (exported meshes
   often keep such loose vertices) is not part of the surface and takes no pairs: before, one 2 cm
   above a floor held a sheet up on an invisible point, and one in the cloth's plane refused every
   step ("cloth triangle ... is 1.7e-15 mm from mesh obstacle 0"; session 53's probe). */
static int rc__mesh_vertex_used(const rc__obstacle *ob, int j)
{
    return ob->mesh_vtri_start[j + 1] > ob->mesh_vtri_start[j];
}

/* Candidate pairs of one kind between the cloth and mesh obstacle ob, from the spatial hash of
   the CONTACT section: kind 0 cloth vertex - obstacle triangle, 1 obstacle vertex - cloth
   triangle, 2 cloth edge - obstacle edge; and the cloth-vertex barrier's inclusion-exclusion terms
   (rc__mesh_obstacle_flat), 3 cloth vertex - obstacle edge and 4 cloth vertex - obstacle vertex,
   only those of nonzero weight (the flat ones). Cloth boxes swept by a dx (if dx), inflated by
   r. Sets s->contact_status on out-of-memory (the solve then stops with that status). */
#define RC__MC_KINDS 5
static int rc__sim_mesh_pairs(rc_sim *s, const rc__obstacle *ob, int kind, const double *x, const double *dx, double a,
                              double r, int **pairs)
{
    int na, nb, np = 0, q, k;
    rc_status st;
    double *alo = s->bp_box, *ahi, *blo, *bhi;
    if (kind == 0 || kind >= 3) { na = s->nv; nb = kind == 0 ? ob->mesh_nt : kind == 3 ? ob->mesh_ne : ob->mesh_nv; }
    else if (kind == 1) { na = s->nt; nb = ob->mesh_nv; }
    else { na = s->ne; nb = ob->mesh_ne; }
    ahi = alo + 3 * (size_t)na; blo = ahi + 3 * (size_t)na; bhi = blo + 3 * (size_t)nb;
    if (kind == 0) { rc__sim_boxes(na, 1, NULL, x, dx, a, alo, ahi); rc__sim_boxes(nb, 3, ob->mesh_tris, ob->mesh_x, NULL, 0.0, blo, bhi); }
    else if (kind == 1) { rc__sim_boxes(na, 3, s->tris, x, dx, a, alo, ahi); rc__sim_boxes(nb, 1, NULL, ob->mesh_x, NULL, 0.0, blo, bhi); }
    else if (kind == 2) { rc__sim_boxes(na, 2, s->topo.edge_v, x, dx, a, alo, ahi); rc__sim_boxes(nb, 2, ob->mesh_edges, ob->mesh_x, NULL, 0.0, blo, bhi); }
    else if (kind == 3) { rc__sim_boxes(na, 1, NULL, x, dx, a, alo, ahi); rc__sim_boxes(nb, 2, ob->mesh_edges, ob->mesh_x, NULL, 0.0, blo, bhi); }
    else { rc__sim_boxes(na, 1, NULL, x, dx, a, alo, ahi); rc__sim_boxes(nb, 1, NULL, ob->mesh_x, NULL, 0.0, blo, bhi); }
    st = rc__ct_bp_pairs(s->user, na, alo, ahi, nb, blo, bhi, r, 0.0, pairs, &np);
    if (st != RC_OK) { s->contact_status = st; *pairs = NULL; return 0; }
    if (kind != 2) {   /* keep the order: the sums stay in the sorted order of a fresh search */
        for (q = 0, k = 0; q < np; ++q)
            if (kind == 0 ? !ob->mesh_tdup[(*pairs)[2 * q + 1]]
                : kind == 1 ? rc__mesh_vertex_used(ob, (*pairs)[2 * q + 1])
                : rc__mesh_feature_weight(ob, kind, (*pairs)[2 * q + 1]) != 0) {
                (*pairs)[2 * k] = (*pairs)[2 * q]; (*pairs)[2 * k + 1] = (*pairs)[2 * q + 1]; k++;
            }
        np = k;
    }
    return np;
}

/* One candidate pair of kind k (see rc__sim_mesh_pairs) into r: r[0] the barrier, r[1] the squared
   distance, with derivs also r[2..14) its gradient and r[14..158) its PSD Hessian over the
   pair's 12 coordinates (kind 0: cloth vertex, then the triangle; 1: obstacle vertex, then the
   cloth triangle; 2: the cloth edge, then the obstacle edge). Projected in every mode, as the
   self-contact pairs (rc__sim_self_derivs): measured with the pairs exact in the exact mode, side
   by side, 1k, 1 thread, CPU s, projected -> exact: adaptive cube drape 30 steps 30.5 -> 32.0,
   spikes 34.9 -> 37.4; fixed cube 40 steps 22.1 -> 20.7, spikes 21.7 -> 25.6 (bench/RESULTS.md
   section 9). */
static void rc__sim_mesh_pair_eval(const rc_sim *s, const rc__obstacle *ob, int kind, const int *pair, const double *x,
                                   int derivs, double *r)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, *g = derivs ? r + 2 : NULL, *H = derivs ? r + 14 : NULL;
    const double *X = ob->mesh_x, *v[3];
    int type, k, c, proj = derivs ? RC__PROJECT_CLAMP : -1;
    if (kind == 0) {
        for (k = 0; k < 3; ++k) v[k] = X + 3 * ob->mesh_tris[3 * pair[1] + k];
        r[0] = rc__ct_pt_barrier(x + 3 * pair[0], v[0], v[1], v[2], xi_, dh, s->kappa, proj, &type, r + 1, g, H);
    } else if (kind == 3) {
        const int *fv = ob->mesh_edges + 2 * pair[1];
        r[0] = rc__ct_pe_barrier(x + 3 * pair[0], X + 3 * fv[0], X + 3 * fv[1], xi_, dh, s->kappa, proj, r + 1, g, H);
    } else if (kind == 4) {
        r[0] = rc__ct_pe_barrier(x + 3 * pair[0], X + 3 * pair[1], NULL, xi_, dh, s->kappa, proj, r + 1, g, H);
    } else if (kind == 1) {
        for (k = 0; k < 3; ++k) v[k] = x + 3 * s->tris[3 * pair[0] + k];
        r[0] = rc__ct_pt_barrier(X + 3 * pair[1], v[0], v[1], v[2], xi_, dh, s->kappa, proj, &type, r + 1, g, H);
    } else {
        const int *ev = s->topo.edge_v + 2 * pair[0], *fv = ob->mesh_edges + 2 * pair[1];
        double lb2 = 0.0, eps_x;
        for (c = 0; c < 3; ++c) lb2 += (X[3 * fv[1] + c] - X[3 * fv[0] + c]) * (X[3 * fv[1] + c] - X[3 * fv[0] + c]);
        eps_x = rc__ct_ee_mollifier_eps(s->edge_len0[pair[0]] * s->edge_len0[pair[0]], lb2);
        r[0] = rc__ct_ee_barrier(x + 3 * ev[0], x + 3 * ev[1], X + 3 * fv[0], X + 3 * fv[1], eps_x, xi_, dh, s->kappa, proj, &type,
                                 r + 1, g, H);
    }
}

/* The pair test of rc__ct_bp_pairs on the boxes of rc__sim_boxes, for one pair: cloth primitive A
   (na vertices ia of xa, swept to xa + a dxa when dxa) and obstacle primitive B (nb vertices ib of
   xb, which stands still within the solve), each box grown by infl; 1 if they meet on every axis.
   The same arithmetic as the search, so a kept list filtered with it yields exactly the pairs a
   fresh search would. */
static int rc__sim_boxes_meet(const double *xa, const double *dxa, const int *ia, int na, const double *xb,
                              const int *ib, int nb, double a, double infl)
{
    int c, k;
    for (c = 0; c < 3; ++c) {
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
        for (k = 0; k < na; ++k) {
            double v0 = xa[3 * ia[k] + c], v1 = dxa ? v0 + a * dxa[3 * ia[k] + c] : v0;
            if (v0 < lo[0]) lo[0] = v0;
            if (v0 > hi[0]) hi[0] = v0;
            if (v1 < lo[0]) lo[0] = v1;
            if (v1 > hi[0]) hi[0] = v1;
        }
        for (k = 0; k < nb; ++k) {
            double v = xb[3 * ib[k] + c];
            if (v < lo[1]) lo[1] = v;
            if (v > hi[1]) hi[1] = v;
        }
        if (lo[0] - infl > hi[1] + infl || lo[1] - infl > hi[0] + infl) return 0;
    }
    return 1;
}

/* The vertices of candidate pair (a, b) of kind k of the mesh-obstacle search (rc__sim_mesh_pairs):
   the cloth side ia (na of them, indices into x), the obstacle side ib (nb, into its mesh_x) */
static void rc__sim_mesh_pair_verts(const rc_sim *s, const rc__obstacle *ob, int kind, const int *pair, const int **ia,
                                    int *na, const int **ib, int *nb)
{
    if (kind == 0) { *ia = pair; *na = 1; *ib = ob->mesh_tris + 3 * pair[1]; *nb = 3; }
    else if (kind == 1) { *ia = s->tris + 3 * pair[0]; *na = 3; *ib = pair + 1; *nb = 1; }
    else if (kind == 2) { *ia = s->topo.edge_v + 2 * pair[0]; *na = 2; *ib = ob->mesh_edges + 2 * pair[1]; *nb = 2; }
    else if (kind == 3) { *ia = pair; *na = 1; *ib = ob->mesh_edges + 2 * pair[1]; *nb = 2; }
    else { *ia = pair; *na = 1; *ib = pair + 1; *nb = 1; }
}

/* Room for n pairs in *list (capacity *cap pairs, grown to want when short); 0 and the status set
   on out-of-memory */
static int rc__sim_pairs_reserve(rc_sim *s, int **list, size_t *cap, size_t n, size_t want)
{
    int *nb;
    if (n <= *cap) return 1;
    nb = (int *)rc__realloc(s->user, *list, want, 2 * sizeof(int));
    if (!nb) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return 0; }
    *list = nb;
    *cap = want;
    return 1;
}

/* Appends the np pairs of a fresh search (freed here) to a kept list of *total pairs, growing it.
   0 (and nothing appended) when the contact status is already an error (the search's, or an
   earlier one) or memory runs out (then the status says so). */
static int rc__sim_pairs_append(rc_sim *s, int **list, size_t *cap, size_t *total, int *pairs, int np)
{
    if (s->contact_status == RC_OK) (void)rc__sim_pairs_reserve(s, list, cap, *total + (size_t)np, 2 * (*total + (size_t)np));
    if (s->contact_status == RC_OK && np) memcpy(*list + 2 * *total, pairs, (size_t)np * 2 * sizeof(int));
    rc__free(s->user, pairs);
    if (s->contact_status != RC_OK) return 0;
    *total += (size_t)np;
    return 1;
}

/* Candidate lists of the mesh-obstacle barrier, kept over evaluations (a Verlet list). A pair's
   barrier is zero unless its distance d < r = xi + dhat, and d is at least the gap between the two
   primitives' boxes. The lists are built at cloth positions x_b with every box inflated by r, so
   they hold each pair whose boxes were within 2r there. A cloth vertex that moved by at most delta
   (max norm) since x_b narrows a gap by at most delta, so while delta < r every pair with d < r at x
   is in the lists: the evaluation then filters them by the boxes at x (rc__sim_mesh_gap_ok) and
   sums exactly the nonzero terms, in the same (sorted) order, as a fresh search would. The lists
   are rebuilt when delta reaches RC__MC_REUSE r, when an obstacle vertex differs bit for bit from
   the build's copy (obstacles move between steps, or through the API), or when r or the obstacles
   change. Sets s->contact_status on out-of-memory or a non-finite position. */
#define RC__MC_REUSE 0.9
static void rc__sim_mesh_cands(rc_sim *s, const double *x)
{
    double r = s->def.contact_thickness + s->def.contact_dhat;
    size_t nX = 0, k, n3 = (size_t)3 * s->nv, total = 0;
    int o, kind, np, *pairs;
    for (o = 0; o < s->nobs; ++o)
        if (s->obs[o].shape.kind == RC__OBS_TRIMESH) nX += (size_t)3 * s->obs[o].mesh_nv;
    if (s->mc_valid && s->mc_nobs == s->nobs && s->mc_r == r && s->mc_nX == nX) {
        size_t off = 0;
        int same = 1;
        for (o = 0; o < s->nobs && same; ++o) {
            size_t n = (size_t)3 * s->obs[o].mesh_nv;
            if (s->obs[o].shape.kind != RC__OBS_TRIMESH) continue;
            same = memcmp(s->mc_Xb + off, s->obs[o].mesh_x, n * sizeof(double)) == 0;
            off += n;
        }
        for (k = 0; k < n3 && same; ++k)
            if (!(fabs(x[k] - s->mc_xb[k]) < RC__MC_REUSE * r)) same = 0;   /* also a NaN */
        if (same) return;
    }
    s->mc_valid = 0;
    if (!s->mc_off || s->mc_nobs < s->nobs || !s->mc_xb || s->mc_nX < nX) {
        size_t *no = (size_t *)rc__realloc(s->user, s->mc_off, (size_t)RC__MC_KINDS * s->nobs + 1, sizeof(size_t));
        double *nxb, *nXb;
        if (no) s->mc_off = no;
        nxb = (double *)rc__realloc(s->user, s->mc_xb, n3 ? n3 : 1, sizeof(double));
        if (nxb) s->mc_xb = nxb;
        nXb = (double *)rc__realloc(s->user, s->mc_Xb, nX ? nX : 1, sizeof(double));
        if (nXb) s->mc_Xb = nXb;
        if (!no || !nxb || !nXb) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
    }
    s->mc_off[0] = 0;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (ob->shape.kind == RC__OBS_TRIMESH) rc__mesh_obstacle_flat(ob, ob->mesh_x, ob->mesh_flat);
        for (kind = 0; kind < RC__MC_KINDS; ++kind) {
            pairs = NULL;
            np = ob->shape.kind == RC__OBS_TRIMESH ? rc__sim_mesh_pairs(s, ob, kind, x, NULL, 0.0, r, &pairs) : 0;
            if (!rc__sim_pairs_append(s, &s->mc_pairs, &s->mc_cap, &total, pairs, np)) return;
            s->mc_off[RC__MC_KINDS * o + kind + 1] = total;
        }
    }
    if (!rc__sim_pairs_reserve(s, &s->mc_act, &s->mc_act_cap, total, total)) return;
    memcpy(s->mc_xb, x, n3 * sizeof(double));
    for (o = 0, k = 0; o < s->nobs; ++o)
        if (s->obs[o].shape.kind == RC__OBS_TRIMESH) {
            memcpy(s->mc_Xb + k, s->obs[o].mesh_x, (size_t)3 * s->obs[o].mesh_nv * sizeof(double));
            k += (size_t)3 * s->obs[o].mesh_nv;
        }
    s->mc_nobs = s->nobs; s->mc_nX = nX; s->mc_r = r; s->mc_valid = 1;
}

/* Whether a point-triangle (ee = 0: P = p, t0, t1, t2) or edge-edge pair (ee = 1: P = ea0, ea1, eb0,
   eb1) may be within r, by a lower bound of its distance: the point's distance to the triangle's
   plane, or the distance of the two edges' lines, |w.n| / |n| with n the plane normal or ea x eb.
   Used only where the triangle or the pair is far from degenerate (sin^2 > 1e-6), where its
   rounding error is below 1e-13 m; 1 (may be) otherwise. */
static int rc__ct_plane_bound_ok(int ee, const double *P[4], double r)
{
    double e[3], f[3], n[3], w[3], nn, h;
    if (!ee) { rc__sub3(e, P[2], P[1]); rc__sub3(f, P[3], P[1]); rc__sub3(w, P[0], P[1]); }
    else { rc__sub3(e, P[1], P[0]); rc__sub3(f, P[3], P[2]); rc__sub3(w, P[2], P[0]); }
    rc__cross3(n, e, f);
    nn = rc__dot3(n, n);
    if (!(nn > 1e-6 * rc__dot3(e, e) * rc__dot3(f, f))) return 1;
    h = rc__dot3(w, n);
    return h * h <= r * r * nn;
}

/* Whether candidate pair (a, b) of kind k (rc__sim_mesh_pairs) may be within r at x, by two lower
   bounds of its distance d: the gap of its two primitives' boxes (at x and at the obstacle's
   vertices; each grown by r/2), then rc__ct_plane_bound_ok. A pair that fails has d > r and a
   barrier of exactly zero (the margin 1e-9 r keeps rounding of d^2 out of it). */
static int rc__sim_mesh_gap_ok(const rc_sim *s, const rc__obstacle *ob, int kind, const int *pair, const double *x,
                               double r)
{
    const int *ia, *ib;
    const double *X = ob->mesh_x, *P[4];
    int na, nb, k;
    rc__sim_mesh_pair_verts(s, ob, kind, pair, &ia, &na, &ib, &nb);
    r *= 1.0 + 1e-9;
    if (!rc__sim_boxes_meet(x, NULL, ia, na, X, ib, nb, 0.0, 0.5 * r)) return 0;
    if (kind >= 3) return 1;
    /* P[0] the point (or ea0), P[1..3] the triangle (or ea1, eb0, eb1) */
    if (kind == 0) { P[0] = x + 3 * ia[0]; for (k = 0; k < 3; ++k) P[1 + k] = X + 3 * ib[k]; }
    else if (kind == 1) { P[0] = X + 3 * ib[0]; for (k = 0; k < 3; ++k) P[1 + k] = x + 3 * ia[k]; }
    else { P[0] = x + 3 * ia[0]; P[1] = x + 3 * ia[1]; P[2] = X + 3 * ib[0]; P[3] = X + 3 * ib[1]; }
    return rc__ct_plane_bound_ok(kind == 2, P, r);
}

/* An edge's area A_e = (sum of its triangles' areas) / 3 (the edges' areas sum to the cloth's)
   over the average edge's, per unit of A2 of each of its triangles: the weight of the mesh
   obstacles' edge-edge barriers (rc__sim_mesh_contact) */
static double rc__sim_edge_area_weight(const rc_sim *s)
{
    return s->def.material.density * s->def.material.thickness * s->topo.ne / (6.0 * s->total_mass);
}

/* A term b(x of triangle t) (its gradient g9 and Hessian H81 over t's 3 vertices) weighted by
   alpha A2_t(u): summed per triangle in mesh_tb (alpha b, alpha g, alpha H), then added to y in
   (x, u) once per triangle by rc__sim_flush_tri_weighted (one 15x15 scatter and projection per
   triangle, not per pair) */
static void rc__sim_add_tri_weighted(const rc_sim *s, int t, double alpha, double b, const double *g9, const double *H81)
{
    double *tb = s->mesh_tb + (size_t)91 * t;
    int k;
    tb[0] += alpha * b;
    for (k = 0; k < 9; ++k) tb[1 + k] += alpha * g9[k];
    for (k = 0; k < 81; ++k) tb[10 + k] += alpha * H81[k];
}
/* adds triangle t's weighted term (rc__sim_tri_weighted's arguments after ul and A2, taken at u)
   to y in (x, u): its joint Hessian is projected like element A's (the weight's u-derivatives
   times b make it indefinite; in x alone it is alpha A2 Hb, PSD with Hb) */
static void rc__sim_scatter_tri_term(const rc_sim *s, rc__system *y, const double *u, int t, double alpha, const double *bk,
                                     const double *gb, const double *Hb, const double *gbu, const double *Hbxu, const double *Hbuu)
{
    int n = y->with_u ? 15 : 9, k;
    double ul[6], gl[15], Hl[225];
    rc__dofmap m;
    for (k = 0; k < 3; ++k) { ul[2 * k] = u[2 * s->tris[3 * t + k]]; ul[2 * k + 1] = u[2 * s->tris[3 * t + k] + 1]; }
    memset(gl, 0, sizeof(double) * (size_t)n);
    memset(Hl, 0, sizeof(double) * (size_t)(n * n));
    rc__sim_tri_weighted(alpha, ul, rc__mesh_orient2(ul, ul + 2, ul + 4), bk, gb, Hb, gbu, Hbxu, Hbuu, n, gl, Hl);
    if (n == 15 && s->proj >= 0) rc__psd_project(n, Hl, s->proj);
    rc__map_triA(s, y, t, &m);
    m.n = n;
    rc__system_scatter(y, &m, gl, Hl);
}
static void rc__sim_flush_tri_weighted(const rc_sim *s, rc__system *y, const double *u)
{
    int t;
    for (t = 0; t < s->nt; ++t) {
        double *tb = s->mesh_tb + (size_t)91 * t, bk[3] = { 0.0, 0.0, 0.0 };
        if (tb[0] == 0.0) continue;
        bk[0] = tb[0];
        rc__sim_scatter_tri_term(s, y, u, t, 1.0, bk, tb + 1, tb + 10, NULL, NULL, NULL);
        memset(tb, 0, 91 * sizeof(double));
    }
}

/* Per-vertex terms of the mesh obstacles summed in mesh_vb (25 nv: b (nv), its x-gradient (3 nv),
   x-Hessian (9 nv), and with u_parts its u-gradient (2 nv), x-u (6 nv) and u-u (4 nv) blocks from
   the slip at material points), added to y as the mass-weighted triangle terms
   alpha A2_T(u) sum_{k in T} c_k b_k (rc__sim_tri_weighted; c NULL: 1); mesh_vb is zeroed after.
   The vertex-triangle barriers (rc__sim_mesh_contact) and, adaptive, their friction
   (rc__sim_mesh_friction) are weighted this way. */
static void rc__sim_scatter_weighted(const rc_sim *s, rc__system *y, const double *u, double alpha, const double *c, int u_parts)
{
    double *vb = s->mesh_vb;
    size_t nv = (size_t)s->nv;
    int t, k, i;
    for (t = 0; t < s->nt; ++t) {
        const int *tr = s->tris + 3 * t;
        double bk[3], gb[9], Hb[27], Hf[81], gbu[6], Hbxu[18], Hbuu[12];
        if (vb[tr[0]] == 0.0 && vb[tr[1]] == 0.0 && vb[tr[2]] == 0.0) continue;
        for (k = 0; k < 3; ++k) {
            size_t v = (size_t)tr[k];
            double ck = c ? c[v] : 1.0;
            bk[k] = ck * vb[v];
            for (i = 0; i < 3; ++i) gb[3 * k + i] = ck * vb[nv + 3 * v + i];
            for (i = 0; i < 9; ++i) Hb[9 * k + i] = ck * vb[4 * nv + 9 * v + i];
            if (u_parts) {
                for (i = 0; i < 2; ++i) gbu[2 * k + i] = ck * vb[13 * nv + 2 * v + i];
                for (i = 0; i < 6; ++i) Hbxu[6 * k + i] = ck * vb[15 * nv + 6 * v + i];
                for (i = 0; i < 4; ++i) Hbuu[4 * k + i] = ck * vb[21 * nv + 4 * v + i];
            }
        }
        rc__blockdiag9(Hb, Hf);
        rc__sim_scatter_tri_term(s, y, u, t, alpha, bk, gb, Hf, u_parts ? gbu : NULL, u_parts ? Hbxu : NULL, u_parts ? Hbuu : NULL);
    }
    memset(vb, 0, sizeof(double) * (u_parts ? 25 : 13) * nv);
}

/* The barrier energy of all mesh-obstacle pairs; with y their gradient and PSD Hessian too. The
   pairs are evaluated in parallel into ct_buf (with OpenMP, many pairs), then summed and scattered
   in pair order, so the result is the serial one bit for bit. *mind gets the smallest distance of
   the pairs within the band (pairs farther than xi + dhat may or may not count). */
static double rc__sim_mesh_contact(rc_sim *s, const double *x, const double *u, rc__system *y, double *mind)
{
    double E = 0.0, r = s->def.contact_thickness + s->def.contact_dhat;
    int o, q, kind, np, *pairs, stride = y ? 158 : 2, weighted = 0, tri_weighted = 0;
    size_t p;
    rc__sim_mesh_cands(s, x);
    if (s->contact_status != RC_OK) return HUGE_VAL;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (ob->shape.kind != RC__OBS_TRIMESH) continue;
        for (kind = 0; kind < RC__MC_KINDS; ++kind) {
            pairs = s->mc_act;
            np = 0;
            for (p = s->mc_off[RC__MC_KINDS * o + kind]; p < s->mc_off[RC__MC_KINDS * o + kind + 1]; ++p)
                /* flat obstacle vertices and edges hold nothing the cloth-vertex barrier does not
                   (rc__mesh_obstacle_flat) */
                if (!(kind == 1 && ob->mesh_flat[ob->mesh_ne + s->mc_pairs[2 * p + 1]]) && !(kind == 2 && ob->mesh_flat[s->mc_pairs[2 * p + 1]]) &&
                    rc__sim_mesh_gap_ok(s, ob, kind, s->mc_pairs + 2 * p, x, r)) {
                    pairs[2 * np] = s->mc_pairs[2 * p]; pairs[2 * np + 1] = s->mc_pairs[2 * p + 1];
                    ++np;
                }
            if ((size_t)np * (size_t)stride > s->ct_cap) {
                size_t cap = 2 * (size_t)np * (size_t)stride;
                double *nb = (double *)rc__realloc(s->user, s->ct_buf, cap, sizeof(double));
                if (!nb) {
                    s->contact_status = RC_ERR_OUT_OF_MEMORY;
                    memset(s->mesh_vb, 0, sizeof(double) * 13 * (size_t)s->nv);
                    memset(s->mesh_tb, 0, sizeof(double) * 91 * (size_t)s->nt);
                    memset(s->mesh_vneg, 0, (size_t)s->nv);
                    return HUGE_VAL;
                }
                s->ct_buf = nb;
                s->ct_cap = cap;
            }
#ifdef _OPENMP
            if (np >= 64 && rc__sim_threads(s) > 1) {   /* serial: no OpenMP region at all (see rc__sp_gemm_lower) */
#pragma omp parallel for schedule(dynamic, 16) num_threads(rc__sim_threads(s))
                for (q = 0; q < np; ++q) rc__sim_mesh_pair_eval(s, ob, kind, pairs + 2 * q, x, y != NULL, s->ct_buf + (size_t)stride * q);
            } else
#endif
            for (q = 0; q < np; ++q) rc__sim_mesh_pair_eval(s, ob, kind, pairs + 2 * q, x, y != NULL, s->ct_buf + (size_t)stride * q);
            for (q = 0; q < np; ++q) {
                const double *res = s->ct_buf + (size_t)stride * q, *g = res + 2, *H = res + 14;
                double Hl[81], gl9[9];
                int a2, b2, k;
                if (sqrt(res[1]) < *mind) *mind = sqrt(res[1]);
                if (kind == 0 || kind >= 3) {
                    /* the cloth vertex's barrier weighted by its mass, as the analytic shapes'
                       (rc__sim_tri_vertex_barriers; unweighted, adaptive cloth at rest on a mesh
                       floor piled mass onto a few vertices): summed per vertex here, then added as
                       triangle terms in (x, u) below. Its point-edge and point-point terms carry
                       the inclusion-exclusion weights (rc__mesh_obstacle_flat); where one is
                       negative the vertex's summed Hessian is projected again. */
                    int v = pairs[2 * q], a3;
                    double *vb = s->mesh_vb, c = kind == 0 ? 1.0 : rc__mesh_feature_weight(ob, kind, pairs[2 * q + 1]);
                    /* inside the offset of an edge or vertex the triangles around it are too (their
                       distances are no larger) and hold the +inf: -inf would make it NaN */
                    if (c < 0.0 && !rc__isfinite(res[0])) continue;
                    E += c * rc__sim_vertex_weight(s, u, v) * res[0];
                    if (!y || !(res[0] > 0.0)) continue;
                    vb[v] += c * res[0];
                    for (a2 = 0; a2 < 3; ++a2) {
                        vb[s->nv + 3 * v + a2] += c * g[a2];
                        for (a3 = 0; a3 < 3; ++a3) vb[4 * (size_t)s->nv + 9 * (size_t)v + 3 * a2 + a3] += c * H[a2 * 12 + a3];
                    }
                    if (c < 0.0) s->mesh_vneg[v] = 1;
                    weighted = 1;
                    continue;
                }
                /* (1) the cloth triangle's barrier weighted by its area as the sphere's,
                   A_T(u)/A_avg; (2) the cloth edge's by its area A_e = (sum of its triangles'
                   areas)/3 over the average edge's, as a term on each of its triangles (unweighted,
                   adaptive cloth at rest on a two-triangle mesh floor slid u by 2.5 cm toward the
                   floor's diagonal edge, whose edge-edge pairs held it up) */
                if (kind == 1) {
                    int t = pairs[2 * q];
                    double w = rc__sim_tri_area_weight(s);
                    E += w * rc__sim_tri_A2(s, u, t) * res[0];
                    if (!y || !(res[0] > 0.0)) continue;
                    for (a2 = 0; a2 < 9; ++a2) {
                        gl9[a2] = g[3 + a2];
                        for (b2 = 0; b2 < 9; ++b2) Hl[9 * a2 + b2] = H[(3 + a2) * 12 + 3 + b2];
                    }
                    rc__sim_add_tri_weighted(s, t, w, res[0], gl9, Hl);
                    tri_weighted = 1;
                } else {
                    int e = pairs[2 * q], side;
                    const int *ev = s->topo.edge_v + 2 * e;
                    double w = rc__sim_edge_area_weight(s);
                    for (side = 0; side < 2; ++side) {
                        int t = s->topo.edge_tri[2 * e + side], la = -1, lb = -1;
                        if (t < 0) continue;
                        E += w * rc__sim_tri_A2(s, u, t) * res[0];
                        if (!y || !(res[0] > 0.0)) continue;
                        for (k = 0; k < 3; ++k) {
                            if (s->tris[3 * t + k] == ev[0]) la = k;
                            if (s->tris[3 * t + k] == ev[1]) lb = k;
                        }
                        memset(gl9, 0, sizeof gl9);
                        memset(Hl, 0, sizeof Hl);
                        for (a2 = 0; a2 < 6; ++a2) {
                            int ia = 3 * (a2 < 3 ? la : lb) + a2 % 3;
                            gl9[ia] = g[a2];
                            for (b2 = 0; b2 < 6; ++b2) Hl[9 * ia + 3 * (b2 < 3 ? la : lb) + b2 % 3] = H[a2 * 12 + b2];
                        }
                        rc__sim_add_tri_weighted(s, t, w, res[0], gl9, Hl);
                        tri_weighted = 1;
                    }
                }
            }
            if (s->contact_status != RC_OK) {
                memset(s->mesh_vb, 0, sizeof(double) * 13 * (size_t)s->nv);
                memset(s->mesh_tb, 0, sizeof(double) * 91 * (size_t)s->nt);
                memset(s->mesh_vneg, 0, (size_t)s->nv);
                return HUGE_VAL;
            }
        }
    }
    if (weighted) {
        int v;
        for (v = 0; v < s->nv; ++v)
            if (s->mesh_vneg[v]) {
                if (s->proj >= 0) rc__psd_project(3, s->mesh_vb + 4 * (size_t)s->nv + 9 * (size_t)v, s->proj);
                s->mesh_vneg[v] = 0;
            }
        rc__sim_scatter_weighted(s, y, u, rc__sim_weight_per_A2(s), NULL, 0);
    }
    if (tri_weighted) rc__sim_flush_tri_weighted(s, y, u);
    return s->contact_status == RC_OK ? E : HUGE_VAL;
}

/* The candidates of one kind for the CCD of the sweep bx -> bx + a dx against obstacle o: the
   pairs whose swept boxes come within 2 xi (each inflated by xi, as rc__sim_mesh_pairs does). With
   reuse, they are taken from the kept lists (rc__sim_mesh_cands), with the same box test, in the
   same order: the lists hold every pair whose boxes were within 2 (xi + dhat) at their build, and
   the caller has checked that no vertex of the sweep leaves 2 dhat of the build, so no pair is
   missed. Otherwise a fresh search (*fresh = 1: free the result). */
static int rc__sim_mesh_ccd_pairs(rc_sim *s, int o, int kind, const double *bx, const double *dx, double a, int reuse,
                                  int **pairs, int *fresh)
{
    const rc__obstacle *ob = s->obs + o;
    const double *X = ob->mesh_x, xi_ = s->def.contact_thickness;
    size_t p;
    int np = 0;
    *fresh = !reuse;
    if (!reuse) return rc__sim_mesh_pairs(s, ob, kind, bx, dx, a, xi_, pairs);
    *pairs = s->mc_act;
    for (p = s->mc_off[RC__MC_KINDS * o + kind]; p < s->mc_off[RC__MC_KINDS * o + kind + 1]; ++p) {
        const int *pr = s->mc_pairs + 2 * p, *ia, *ib;
        int na, nb;
        rc__sim_mesh_pair_verts(s, ob, kind, pr, &ia, &na, &ib, &nb);
        if (!rc__sim_boxes_meet(bx, dx, ia, na, X, ib, nb, a, xi_)) continue;
        (*pairs)[2 * np] = pr[0]; (*pairs)[2 * np + 1] = pr[1];
        ++np;
    }
    return np;
}

/* CCD of the cloth sweep bx -> bx + amax dx (dx: 3 nv) against the (static, end-pose) mesh
   obstacles: the largest step <= amax that keeps every pair at distance >= xi. With skip (1 for
   each obstacle left out; the one-shot bounds of the start's carry and push) the verdict is
   whether the move passes through an obstacle: 0 if a pair whose cloth side moves comes within
   1e-3 xi of touching on the way (rc__sim_motion_touches, which follows the path exactly), else
   amax. Not the line search's conservative CCD, which stops where a gap falls to a tenth of its
   start (a review's probes: cloth sliding flat over a floor mesh's edges, 1.1 mm above it, was
   stopped at 16% of a push; a pair that does not move at all, within xi of a moving mesh's end
   pose, stopped every push at 0). Ending within xi is left to the step's start check. */
static int rc__sim_motion_touches(int kind, const double *X0[4], const double *D[4], double touch);
static double rc__sim_mesh_ccd(rc_sim *s, const double *dx, const double *bx, double amax, const unsigned char *skip)
{
    double xi_ = s->def.contact_thickness, zero[3] = { 0, 0, 0 }, lim = RC__MC_REUSE * 2.0 * s->def.contact_dhat, touch = 1e-3 * xi_;
    int o, q, np, *pairs, fresh, reuse = 1;
    size_t k, n3 = (size_t)3 * s->nv;
    /* the kept lists serve when the whole sweep stays within 2 dhat of their build */
    rc__sim_mesh_cands(s, bx);
    if (s->contact_status != RC_OK) return 0.0;
    for (k = 0; k < n3 && reuse; ++k)
        if (!(fabs(bx[k] - s->mc_xb[k]) < lim && fabs(bx[k] + amax * dx[k] - s->mc_xb[k]) < lim)) reuse = 0;
#define RC__MOVES(v) (dx[3 * (v)] != 0.0 || dx[3 * (v) + 1] != 0.0 || dx[3 * (v) + 2] != 0.0)
    for (o = 0; o < s->nobs && amax > 0.0; ++o) {
        const rc__obstacle *ob = s->obs + o;
        const double *X = ob->mesh_x;
        if (ob->shape.kind != RC__OBS_TRIMESH || (skip && skip[o])) continue;
        np = rc__sim_mesh_ccd_pairs(s, o, 0, bx, dx, amax, reuse, &pairs, &fresh);
        for (q = 0; q < np; ++q) {
            int v = pairs[2 * q], t = pairs[2 * q + 1];
            const int *tv = ob->mesh_tris + 3 * t;
            double a;
            if (skip) {
                const double *P0[4], *D[4];
                if (!RC__MOVES(v)) continue;
                P0[0] = bx + 3 * v; D[0] = dx + 3 * v;
                for (k = 0; k < 3; ++k) { P0[1 + k] = X + 3 * tv[k]; D[1 + k] = zero; }
                if (rc__sim_motion_touches(0, P0, D, touch)) amax = 0.0;
                continue;
            }
            a = rc__ct_ccd_point_triangle(bx + 3 * v, X + 3 * tv[0], X + 3 * tv[1], X + 3 * tv[2], dx + 3 * v, zero, zero, zero, xi_, amax);
            if (a < amax) amax = a;
        }
        if (fresh) rc__free(s->user, pairs);
        np = rc__sim_mesh_ccd_pairs(s, o, 1, bx, dx, amax, reuse, &pairs, &fresh);
        for (q = 0; q < np; ++q) {
            const int *tri = s->tris + 3 * pairs[2 * q];
            double a;
            if (skip) {
                const double *P0[4], *D[4];
                if (!RC__MOVES(tri[0]) && !RC__MOVES(tri[1]) && !RC__MOVES(tri[2])) continue;
                P0[0] = X + 3 * pairs[2 * q + 1]; D[0] = zero;
                for (k = 0; k < 3; ++k) { P0[1 + k] = bx + 3 * tri[k]; D[1 + k] = dx + 3 * tri[k]; }
                if (rc__sim_motion_touches(0, P0, D, touch)) amax = 0.0;
                continue;
            }
            a = rc__ct_ccd_point_triangle(X + 3 * pairs[2 * q + 1], bx + 3 * tri[0], bx + 3 * tri[1], bx + 3 * tri[2], zero,
                                                 dx + 3 * tri[0], dx + 3 * tri[1], dx + 3 * tri[2], xi_, amax);
            if (a < amax) amax = a;
        }
        if (fresh) rc__free(s->user, pairs);
        np = rc__sim_mesh_ccd_pairs(s, o, 2, bx, dx, amax, reuse, &pairs, &fresh);
        for (q = 0; q < np; ++q) {
            const int *ev = s->topo.edge_v + 2 * pairs[2 * q], *fv = ob->mesh_edges + 2 * pairs[2 * q + 1];
            double a;
            if (skip) {
                const double *P0[4], *D[4];
                if (!RC__MOVES(ev[0]) && !RC__MOVES(ev[1])) continue;
                for (k = 0; k < 2; ++k) { P0[k] = bx + 3 * ev[k]; D[k] = dx + 3 * ev[k]; P0[2 + k] = X + 3 * fv[k]; D[2 + k] = zero; }
                if (rc__sim_motion_touches(1, P0, D, touch)) amax = 0.0;
                continue;
            }
            a = rc__ct_ccd_edge_edge(bx + 3 * ev[0], bx + 3 * ev[1], X + 3 * fv[0], X + 3 * fv[1], dx + 3 * ev[0], dx + 3 * ev[1], zero, zero, xi_, amax);
            if (a < amax) amax = a;
        }
        if (fresh) rc__free(s->user, pairs);
    }
#undef RC__MOVES
    return s->contact_status == RC_OK ? amax : 0.0;
}

/* ---------------------------------------------------------------------------------------------
   Cloth self-contact (def.self_contact): IPC pairs between non-adjacent cloth primitives, kind 0
   cloth vertex - cloth triangle (the vertex not in the triangle) and kind 1 mollified cloth edge -
   cloth edge (no shared vertex), with the obstacles' barrier kappa m b(d^2 - xi^2): the same xi,
   dhat, kappa (m the edge-edge mollifier, 1 for vertex-triangle; eps_x from the rest lengths).
   A pair is also left out when its primitives are within xi + dhat of each other in the flat
   reference at the step start (u^t lifted to z = 0): such a pair (the 2-ring of a mesh finer than
   the barrier band) would sit in the band with the cloth at rest and push flat cloth apart. The
   exclusion is fixed over a step, so E is one fixed sum of pair terms during the step's solve.
   Candidates come from the spatial hash of the CONTACT section, kept over evaluations until a
   vertex has moved 0.45 of xi + dhat (rc__sim_self_cands) and filtered exactly at each one; CCD
   bounds every line search for both kinds.
   Unlike the obstacle pairs (one cloth vertex, edge or triangle each, always inside one triangle
   stencil's block), a self pair couples vertices far apart in the mesh, so its Hessian blocks are
   not in the mesh pattern. A system's pattern holds the vertex-pair blocks it was last grown with. An
   assembly first collects its active pairs (rc__sim_self_prepare); if one of them, or a lagged
   friction pair, needs a block the pattern lacks, the pattern is regrown with every pair then
   within 2 (xi + dhat) (so pairs about to touch are in already) and the symbolic analysis is
   redone; otherwise the analysis is reused. Contact depends on x only: in the joint (x, phi, u)
   system its u rows are zero.
   --------------------------------------------------------------------------------------------- */
/* the 4 vertices of pair (kind, a, b): kind 0 p, t0, t1, t2; kind 1 ea0, ea1, eb0, eb1 */
static void rc__sim_self_verts(const rc_sim *s, int kind, int a, int b, int *v)
{
    if (kind == 0) { v[0] = a; v[1] = s->tris[3 * b]; v[2] = s->tris[3 * b + 1]; v[3] = s->tris[3 * b + 2]; }
    else { v[0] = s->topo.edge_v[2 * a]; v[1] = s->topo.edge_v[2 * a + 1]; v[2] = s->topo.edge_v[2 * b]; v[3] = s->topo.edge_v[2 * b + 1]; }
}

/* adjacent pairs (sharing a vertex) are never in contact */
/* primitives that share a vertex, or a seam stitch (the two stitched vertices are one material
   point held together by the seam: a vertex and a triangle across the seam touch by design) */
static int rc__sim_self_adjacent(const rc_sim *s, int kind, const int *v)
{
    int na = kind == 0 ? 1 : 2, i, j;
    for (i = 0; i < na; ++i)
        for (j = na; j < 4; ++j)
            if (v[i] == v[j] || (s->nst && rc__sim_stitched(s, v[i], v[j]))) return 1;
    return 0;
}

static double rc__sim_self_d2(int kind, const double *P[4])
{
    return kind == 0 ? rc__ct_point_triangle_d2(P[0], P[1], P[2], P[3], NULL, NULL, NULL)
                     : rc__ct_edge_edge_d2(P[0], P[1], P[2], P[3], NULL, NULL, NULL);
}

/* 1 if the pair is within xi + dhat in the reference uv (2 per vertex; the solver passes u at the
   step start, see above) */
static int rc__sim_self_excluded_uv(const rc_sim *s, const double *uv, int kind, const int *v)
{
    double r[12], lim = s->def.contact_thickness + s->def.contact_dhat, lo[2][2], hi[2][2];
    const double *P[4];
    int k, c, na = kind == 0 ? 1 : 2;
    /* only within one connected piece: separate panels may share reference coordinates (a front
       and a back cut from one pattern piece). A probe: two 0.8 m panels with the same uv
       dropped one onto the other passed through each other (336 crossing edges, every step RC_OK),
       each vertex excused against the triangles around its twin. */
    if (s->panel[v[0]] != s->panel[v[3]]) return 0;
    /* the reference boxes of the two primitives more than lim apart: not excluded (most calls) */
    for (c = 0; c < 2; ++c) {
        lo[0][c] = hi[0][c] = uv[2 * v[0] + c];
        lo[1][c] = hi[1][c] = uv[2 * v[3] + c];
        for (k = 1; k < 3; ++k) {
            int side = k < na ? 0 : 1;
            double w = uv[2 * v[k] + c];
            if (w < lo[side][c]) lo[side][c] = w;
            if (w > hi[side][c]) hi[side][c] = w;
        }
        if (lo[0][c] - hi[1][c] > lim || lo[1][c] - hi[0][c] > lim) return 0;
    }
    for (k = 0; k < 4; ++k) {
        r[3 * k] = uv[2 * v[k]]; r[3 * k + 1] = uv[2 * v[k] + 1]; r[3 * k + 2] = 0.0;
        P[k] = r + 3 * k;
    }
    return rc__sim_self_d2(kind, P) <= lim * lim;
}

/* 1 if a vertex of one primitive and a vertex of the other are joined by a mesh edge (the pair
   lies within the 2-ring: a hinge's flap vertex and the triangle across it, say) */
static int rc__sim_self_joined(const rc_sim *s, int kind, const int *v)
{
    int na = kind == 0 ? 1 : 2, i, j, k;
    for (i = 0; i < na; ++i)
        for (k = s->topo.vv_ptr[v[i]]; k < s->topo.vv_ptr[v[i] + 1]; ++k)
            for (j = na; j < 4; ++j)
                if (s->topo.vv_idx[k] == v[j]) return 1;
    return 0;
}

/* The exclusion of a step: the pair is within xi + dhat in u^t (rc__sim_self_excluded_uv) and
   in the initial reference u_init (the same test twice in fixed mode, where u^t is u_init); or it
   lies within the 2-ring and is within xi in x^t. Why both references: the adaptive mesh squeezes its cells where the cloth creases, and a
   pair squeezed into xi + dhat in u^t alone used to lose its barrier exactly there, so the crease
   could fold that material through itself (session 42: 4 of the randomized sweep's 60 adaptive
   pinches and twists crossed, 1-19 steps each; a 1k fold squeezed 6.2 mm of reference to 2.2 mm
   and an edge crossed the triangle beside it). A pair that started apart keeps its barrier: it
   cannot come within xi in x, and in a flat region, where x follows u, the barrier resists the
   squeeze below xi + dhat instead. Measured on the randomized sweep's 60 adaptive cases
   (bench/RESULTS.md section 10): the 4 that crossed ran without a crossing; one twist that ran
   before now stops at its 4th step with RC_ERR_INTERSECTING (its pinned end's move starts that
   step 0.57 mm from cloth; the pair not traced). The
   exclusion is still what lets cloth rest flat: pairs within xi + dhat of each other in the
   initial reference are excused as before. The second clause keeps the exclusion consistent
   from step to step when u moves: an excluded pair has no barrier, so a sharp fold can
   bring it inside the thickness during the step, and if the vertices then slide apart in u it
   would return at the next step's start inside the thickness (infinite energy, the step failing
   at every split). Measured: the 1k adaptive fold scene, step 24, a flap vertex
   0.56 mm from the triangle across its hinge (5.6 mm apart in u, excluded at step 23's start)
   ended the run with RC_ERR_INTERSECTING. Such a pair stays excluded while it is within the
   thickness at a step's start (the hinge's bending energy governs it, as for any excluded pair),
   and gets its barrier back at the first step's start it is clear of it. Pairs farther apart in
   the mesh are never excused: cloth inside the thickness there is a real error. In the fixed
   mode the clause acts only on a state given within the thickness (a pre-creased garment). */
static int rc__sim_self_excluded(const rc_sim *s, int kind, const int *v)
{
    const double *P[4];
    double xi_ = s->def.contact_thickness;
    int k;
    if (rc__sim_self_excluded_uv(s, s->u0_step, kind, v) && rc__sim_self_excluded_uv(s, s->u_init, kind, v)) return 1;
    if (!rc__sim_self_joined(s, kind, v)) return 0;
    for (k = 0; k < 4; ++k) P[k] = s->x0 + 3 * v[k];
    return rc__sim_self_d2(kind, P) <= xi_ * xi_;
}

/* edge-edge mollifier threshold from the two cloth edges' rest lengths */
static double rc__sim_self_eps_x(const rc_sim *s, int kind, int a, int b)
{
    return kind == 1 ? rc__ct_ee_mollifier_eps(s->edge_len0[a] * s->edge_len0[a], s->edge_len0[b] * s->edge_len0[b]) : 0.0;
}

/* Candidate pairs of one kind at x (boxes swept to x + a dx when dx) whose boxes are less than r
   apart (each box grown by r/2; the box gap is a lower bound of the distance): kind 0 (vertex,
   triangle), kind 1 (edge e, edge f) with e < f. Timed into t_bp; sets contact_status on
   out-of-memory. */
static int rc__sim_self_pairs(rc_sim *s, int kind, const double *x, const double *dx, double a, double r, int **pairs)
{
    int np = 0;
    double t0 = rc__now(), *lo = s->self_box, *hi, *blo, *bhi;
    rc_status st;
    if (kind == 0) {
        hi = lo + 3 * (size_t)s->nv; blo = hi + 3 * (size_t)s->nv; bhi = blo + 3 * (size_t)s->nt;
        rc__sim_boxes(s->nv, 1, NULL, x, dx, a, lo, hi);
        rc__sim_boxes(s->nt, 3, s->tris, x, dx, a, blo, bhi);
        st = rc__ct_bp_pairs(s->user, s->nv, lo, hi, s->nt, blo, bhi, 0.5 * r, 0.0, pairs, &np);
    } else {
        hi = lo + 3 * (size_t)s->ne;
        rc__sim_boxes(s->ne, 2, s->topo.edge_v, x, dx, a, lo, hi);
        st = rc__ct_bp_pairs(s->user, s->ne, lo, hi, 0, NULL, NULL, 0.5 * r, 0.0, pairs, &np);
    }
    if (st != RC_OK) { s->contact_status = st; *pairs = NULL; np = 0; }
    s->t_bp += rc__now() - t0;
    return np;
}

/* Self-contact candidate lists kept over evaluations, as the mesh-obstacle ones
   (rc__sim_mesh_cands): built at x_b with every box inflated by r = xi + dhat (pairs whose boxes
   were within 2r). Both primitives of a pair move, so its gap narrows by at most 2 delta (delta the
   largest coordinate change since x_b); a fresh search at x takes the pairs with boxes within r,
   so the lists hold all of them while 2 delta < r (rebuilt from RC__MC_REUSE r on). The
   evaluation filters them with the fresh search's own box test, in the same sorted order, so it
   sees exactly the pairs a fresh search would. Sets contact_status on out-of-memory (a NaN x
   rebuilds, and the search reports it). */
static void rc__sim_self_cands(rc_sim *s, const double *x)
{
    double r = s->def.contact_thickness + s->def.contact_dhat;
    size_t k, n3 = (size_t)3 * s->nv, total = 0;
    int kind, np, *pairs;
    if (s->sc_valid && s->sc_r == r) {
        for (k = 0; k < n3; ++k)
            if (!(2.0 * fabs(x[k] - s->sc_xb[k]) < RC__MC_REUSE * r)) break;   /* also a NaN */
        if (k == n3) return;
    }
    s->sc_valid = 0;
    if (!s->sc_xb) {
        s->sc_xb = (double *)rc__alloc(s->user, n3, sizeof(double));
        if (!s->sc_xb) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
    }
    s->sc_off[0] = 0;
    for (kind = 0; kind < 2; ++kind) {
        double t0;
        np = rc__sim_self_pairs(s, kind, x, NULL, 0.0, 2.0 * r, &pairs);
        t0 = rc__now();
        if (!rc__sim_pairs_append(s, &s->sc_pairs, &s->sc_cap, &total, pairs, np)) return;
        s->sc_off[kind + 1] = total;
        s->t_bp += rc__now() - t0;
    }
    if (!rc__sim_pairs_reserve(s, &s->sc_act, &s->sc_act_cap, total, total)) return;
    memcpy(s->sc_xb, x, n3 * sizeof(double));
    s->sc_r = r; s->sc_valid = 1;
}

/* The self candidates of one kind from the kept lists, into s->sc_act: the pairs whose boxes (at x,
   or swept to x + a dx when dx) come within 2 infl, each grown by infl: the test of
   rc__ct_bp_pairs on the boxes of rc__sim_boxes, as rc__sim_self_pairs would run it (the energy:
   infl = r/2 at x; the CCD: infl = xi over the sweep). */
static int rc__sim_self_filter(rc_sim *s, int kind, const double *x, const double *dx, double a, double infl)
{
    double t0 = rc__now(), *lo = s->self_box, *hi = lo + 3 * (size_t)s->nv;
    size_t p;
    int np = 0, na = kind == 0 ? 1 : 2;
    /* Each vertex's (swept) box once, then a primitive's box is the min / max of its vertices'
       boxes: the same numbers as rc__sim_boxes_meet's loop over the vertices (a min does not
       depend on the order it is taken in; a NaN coordinate leaves an empty box, skipped by both),
       at a fraction of its cost, as a vertex sits in many candidate pairs. */
    rc__sim_boxes(s->nv, 1, NULL, x, dx, a, lo, hi);
    for (p = s->sc_off[kind]; p < s->sc_off[kind + 1]; ++p) {
        const int *pr = s->sc_pairs + 2 * p;
        int v[4], c, k, meet = 1;
        rc__sim_self_verts(s, kind, pr[0], pr[1], v);
        for (c = 0; c < 3 && meet; ++c) {
            double l[2] = { HUGE_VAL, HUGE_VAL }, h[2] = { -HUGE_VAL, -HUGE_VAL };
            for (k = 0; k < 4; ++k) {
                int side = k >= na;
                double vl = lo[3 * v[k] + c], vh = hi[3 * v[k] + c];
                if (vl < l[side]) l[side] = vl;
                if (vh > h[side]) h[side] = vh;
            }
            if (l[0] - infl > h[1] + infl || l[1] - infl > h[0] + infl) meet = 0;
        }
        if (!meet) continue;
        s->sc_act[2 * np] = pr[0]; s->sc_act[2 * np + 1] = pr[1];
        ++np;
    }
    s->t_bp += rc__now() - t0;
    return np;
}

/* Self-contact energy at x. collect = 1 also records the active pairs (non-adjacent, not excluded,
   d < xi + dhat) in s->self_act for rc__sim_self_derivs. *mind gets the smallest pair distance. */
static double rc__sim_self_contact(rc_sim *s, const double *x, int collect, double *mind)
{
    double E = 0.0, xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, r = xi_ + dh;
    int kind, q, k, np, *pairs;
    if (collect) s->nself_act = 0;
    rc__sim_self_cands(s, x);
    if (s->contact_status != RC_OK) return HUGE_VAL;
    for (kind = 0; kind < 2; ++kind) {
        double t0;
        np = rc__sim_self_filter(s, kind, x, NULL, 0.0, 0.5 * r);
        pairs = s->sc_act;
        t0 = rc__now();
        for (q = 0; q < np; ++q) {
            int v[4];
            const double *P[4];
            double d2, b, m = 1.0;
            rc__sim_self_verts(s, kind, pairs[2 * q], pairs[2 * q + 1], v);
            if (rc__sim_self_adjacent(s, kind, v)) continue;
            for (k = 0; k < 4; ++k) P[k] = x + 3 * v[k];
            if (!rc__ct_plane_bound_ok(kind, P, r * (1.0 + 1e-9))) continue;   /* d > r: no term (a NaN x never gets here) */
            d2 = rc__sim_self_d2(kind, P);
            if (!(d2 < r * r)) { if (rc__isnan(d2)) E = d2; continue; }
            if (rc__sim_self_excluded(s, kind, v)) continue;
            if (sqrt(d2) < *mind) *mind = sqrt(d2);
            b = rc_barrier(d2, xi_, dh, NULL, NULL);
            if (kind == 1 && rc__isfinite(b))
                m = rc__ct_ee_mollifier(P[0], P[1], P[2], P[3], rc__sim_self_eps_x(s, kind, pairs[2 * q], pairs[2 * q + 1]), NULL, NULL);
            E += rc__isfinite(b) ? s->kappa * m * b : b;
            if (collect) {
                if (s->nself_act == s->cap_self_act) {
                    int cap = s->cap_self_act ? 2 * s->cap_self_act : 256;
                    int *na = (int *)rc__realloc(s->user, s->self_act, (size_t)cap * 3, sizeof(int));
                    if (!na) { s->contact_status = RC_ERR_OUT_OF_MEMORY; break; }
                    s->self_act = na; s->cap_self_act = cap;
                }
                s->self_act[3 * s->nself_act] = kind; s->self_act[3 * s->nself_act + 1] = pairs[2 * q];
                s->self_act[3 * s->nself_act + 2] = pairs[2 * q + 1];
                s->nself_act++;
            }
        }
        s->t_np += rc__now() - t0;
    }
    return s->contact_status == RC_OK ? E : HUGE_VAL;
}

/* 1 if every block between the free vertices of v[0..3] is in y's pattern; with_u: also every
   block the u-parts of a lagged friction stencil reach (rc__sim_slip_scatter: each vertex's u DOF
   against the others' x and u). A seam-shared sliding parameter lives in its own node, so its
   blocks are not implied by the x blocks: a triangle's bending stencil couples its two flap
   vertices' x, but a flap's shared parameter only through the triangles that own that vertex.
   Measured: a 1k skirt_panels step had a friction pair holding two flaps of one triangle, one of
   them a seam vertex (x blocks present, the shared u's block absent), and stopped on the
   scatter's pattern assertion (test_garment_seam_self_friction_pattern). */
/* 1 if vertex v's u DOFs sit in its own node, right after its x (rc__system_build_x); not a
   seam-shared u, which is a node of its own */
static int rc__system_u_in_vertex_node(const rc__system *y, int v)
{
    return y->dof_u[v] >= 0 && y->dof_x[3 * v] >= 0 && y->dof_u[v] == y->dof_x[3 * v] + 3;
}
static int rc__sim_self_covered(const rc__system *y, const int *v, int with_u)
{
    int a, b;
    for (a = 0; a < 4; ++a)
        for (b = a + 1; b < 4; ++b) {
            int ga = y->dof_x[3 * v[a]], gb = y->dof_x[3 * v[b]];
            if (ga < 0 || gb < 0 || v[a] == v[b]) continue;
            if (rc__system_find(y, ga < gb ? ga : gb, ga < gb ? gb : ga) < 0) return 0;
        }
    if (!with_u) return 1;
    /* A vertex's own u DOFs follow its x in one node (rc__system_build_x), and the pattern holds
       whole node blocks: a u in its vertex's node is covered by the x blocks checked above. Only a
       seam-shared u (a node of its own) needs its blocks searched. */
    for (a = 0; a < 4; ++a) {
        int gu = y->dof_u[v[a]], own_a = rc__system_u_in_vertex_node(y, v[a]);
        if (gu < 0) continue;
        for (b = 0; b < 4; ++b) {
            int g2[2], k, own_b = rc__system_u_in_vertex_node(y, v[b]);
            g2[0] = y->dof_x[3 * v[b]]; g2[1] = y->dof_u[v[b]];
            for (k = 0; k < 2; ++k) {
                if (g2[k] < 0 || g2[k] == gu || (own_a && (k == 0 || own_b))) continue;
                if (rc__system_find(y, gu < g2[k] ? gu : g2[k], gu < g2[k] ? g2[k] : gu) < 0) return 0;
            }
        }
    }
    return 1;
}

static int rc__sim_self_addkeys(rc_sim *s, const int *v, long long **keys, size_t *nk, size_t *cap)
{
    int a, b;
    if (*nk + 6 > *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        long long *n2 = (long long *)rc__realloc(s->user, *keys, nc, sizeof(long long));
        if (!n2) return 0;
        *keys = n2; *cap = nc;
    }
    for (a = 0; a < 4; ++a)
        for (b = a + 1; b < 4; ++b) {
            int lo = v[a] < v[b] ? v[a] : v[b], hi = v[a] < v[b] ? v[b] : v[a];
            if (lo != hi) (*keys)[(*nk)++] = (long long)lo * s->nv + hi;
        }
    return 1;
}

/* Regrow y's pattern with the blocks of every pair within 2 (xi + dhat) at x and of the lagged
   friction pairs; redoes the symbolic analysis and the scatter tables. The DOF layout is unchanged. */
static rc_status rc__sim_self_regrow(rc_sim *s, rc__system *y, const double *x)
{
    double r2 = 2.0 * (s->def.contact_thickness + s->def.contact_dhat);
    long long *keys = NULL;
    size_t nk = 0, cap = 0, n;
    int kind, q, k, np, *pairs, ok = 1;
    rc_status st;
    for (kind = 0; kind < 2 && ok; ++kind) {
        np = rc__sim_self_pairs(s, kind, x, NULL, 0.0, r2, &pairs);
        if (s->contact_status != RC_OK) { rc__free(s->user, pairs); ok = 0; break; }
        for (q = 0; q < np && ok; ++q) {
            int v[4];
            const double *P[4];
            rc__sim_self_verts(s, kind, pairs[2 * q], pairs[2 * q + 1], v);
            if (rc__sim_self_adjacent(s, kind, v)) continue;
            for (k = 0; k < 4; ++k) P[k] = x + 3 * v[k];
            if (!(rc__sim_self_d2(kind, P) < r2 * r2) || rc__sim_self_excluded(s, kind, v)) continue;
            ok = rc__sim_self_addkeys(s, v, &keys, &nk, &cap);
        }
        rc__free(s->user, pairs);
    }
    for (q = 0; q < s->nfs && ok; ++q) {
        int v[4];
        for (k = 0; k < 4; ++k) v[k] = (int)s->fs[(size_t)15 * q + k];
        ok = rc__sim_self_addkeys(s, v, &keys, &nk, &cap);
    }
    if (!ok) { rc__free(s->user, keys); return RC_ERR_OUT_OF_MEMORY; }
    {
        long long m = rc__sort_unique_keys(s->user, keys, nk);
        if (m < 0) { rc__free(s->user, keys); return RC_ERR_OUT_OF_MEMORY; }
        n = (size_t)m;
    }
    if (y->dof_x && n == y->npat_keys && (n == 0 || memcmp(keys, y->pat_keys, n * sizeof(long long)) == 0)) {
        rc__free(s->user, keys);   /* the pattern these keys make is the one y has */
        return RC_OK;
    }
    st = rc__system_build_x(s, y, y == &s->sys_xpu ? 1 : 0, keys, n);
    rc__free(s->user, keys);
    if (st != RC_OK) return st;
    rc__system_build_tables(s, y);
    s->npat++;
    return RC_OK;
}

/* Before an assembly of y at x: collect the active pairs and make sure the pattern has their
   blocks and those of the lagged friction pairs (regrow otherwise). Sets contact_status on error
   (y is then freed and rebuilt by the next step). */
static void rc__sim_self_prepare(rc_sim *s, rc__system *y, const double *x)
{
    double mind = HUGE_VAL;
    int q, k, covered = 1;
    s->nself_act = 0;
    (void)rc__sim_self_contact(s, x, 1, &mind);
    if (s->contact_status != RC_OK) return;
    for (q = 0; q < s->nself_act && covered; ++q) {
        int v[4];
        rc__sim_self_verts(s, s->self_act[3 * q], s->self_act[3 * q + 1], s->self_act[3 * q + 2], v);
        covered = rc__sim_self_covered(y, v, 0);
    }
    for (q = 0; q < s->nfs && covered; ++q) {
        int v[4];
        for (k = 0; k < 4; ++k) v[k] = (int)s->fs[(size_t)15 * q + k];
        covered = rc__sim_self_covered(y, v, y->with_u && s->def.adaptive);
    }
    if (!covered) {
        rc_status st = rc__sim_self_regrow(s, y, x);
        if (st != RC_OK) s->contact_status = st;
    }
}

/* Add a 4-vertex stencil's gradient g (12) and Hessian H (12x12) over x into y. The x DOFs of a
   vertex are consecutive and its rows are consecutive in every column of the pattern (one node
   block), so one search per (vertex, column) finds three entries. Every block must be in the
   pattern (rc__sim_self_prepare made sure). */
static void rc__sim_scatter_x4(rc__system *y, const int *v, const double *g, const double *H)
{
    int a, b, j, r;
    for (a = 0; a < 4; ++a) {
        int ga = y->dof_x[3 * v[a]];
        if (ga < 0) continue;
        for (r = 0; r < 3; ++r) y->g[ga + r] += g[3 * a + r];
    }
    if (!H) return;
    /* One binary search per vertex pair: the three columns of a vertex have the same rows above
       its own block, so row ga sits at the same offset in columns gb + 1 and gb + 2 as in gb (the
       guess is checked, and searched for if it misses). */
    for (b = 0; b < 4; ++b) {
        int gb = y->dof_x[3 * v[b]];
        if (gb < 0) continue;
        for (a = 0; a < 4; ++a) {
            int ga = y->dof_x[3 * v[a]], pos0;
            if (ga < 0 || ga > gb) continue;
            pos0 = rc__system_find(y, ga, gb);
            RCLOTH_ASSERT(pos0 >= 0);
            if (pos0 < 0) continue;
            for (j = 0; j < 3; ++j) {
                int nr = ga == gb ? j + 1 : 3, pos = pos0 + y->colptr[gb + j] - y->colptr[gb];   /* diagonal block: r <= j */
                if (j && (pos >= y->colptr[gb + j + 1] || y->rowind[pos] != ga)) pos = rc__system_find(y, ga, gb + j);
                RCLOTH_ASSERT(pos >= 0);
                if (pos < 0) continue;
                for (r = 0; r < nr; ++r) y->val[pos + r] += H[(3 * a + r) * 12 + 3 * b + j];
            }
        }
    }
}

/* gradient and PSD-projected Hessian of the active pairs (from rc__sim_self_prepare) into y, each
   pair's Hessian clamped in both models, also in the exact-Hessian mode the Newton solves try
   first (as the mesh-obstacle pairs', rc__sim_mesh_pair_eval). Measured in session 42: along the
   Newton directions of a 1k fold pile's strict inner solves the clamped pairs made the model's
   curvature d.H.d 5-50% above the energy's second difference (with self contact off the two
   agreed to 4 digits), so the steps come out short there; with the pairs exact in the exact mode
   the same step problems (bench/bench_steps.c, states saved along one trajectory, each solved by
   both builds; 1k, adaptive, 20 problems each, CPU s) took fold 71.7 -> 67.0, dress 42.1 -> 46.2,
   skirt panels 24.4 -> 24.1, fixed fold 20.6 -> 21.3, with final IPs 0.02-0.3% of the steps'
   decreases higher on average: the indefinite pairs cost as many shifted iterations as the short
   steps did (bench/RESULTS.md section 9). test_sim_self_hessian_projected. */
static void rc__sim_self_derivs(rc_sim *s, rc__system *y, const double *x)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, t0 = rc__now();
    int q, k;
    for (q = 0; q < s->nself_act; ++q) {
        int kind = s->self_act[3 * q], a = s->self_act[3 * q + 1], b = s->self_act[3 * q + 2], v[4];
        double g[12], H[144], e;
        const double *P[4];
        rc__sim_self_verts(s, kind, a, b, v);
        for (k = 0; k < 4; ++k) P[k] = x + 3 * v[k];
        if (kind == 0) e = rc__ct_pt_barrier(P[0], P[1], P[2], P[3], xi_, dh, s->kappa, RC__PROJECT_CLAMP, NULL, NULL, g, H);
        else e = rc__ct_ee_barrier(P[0], P[1], P[2], P[3], rc__sim_self_eps_x(s, kind, a, b), xi_, dh, s->kappa, RC__PROJECT_CLAMP, NULL, NULL, g, H);
        if (!(e > 0.0) || !rc__isfinite(e)) continue;
        rc__sim_scatter_x4(y, v, g, H);
    }
    s->t_np += rc__now() - t0;
}

/* CCD of the cloth against itself along the x part of y's direction from bx. Relative motion is
   all that matters, so the boxes are swept by the direction minus its mean: a sheet in free fall
   sweeps thin boxes and gets few candidates. */
static double rc__sim_self_ccd_hits(rc_sim *s, const rc__system *y, const double *bx, double amax, unsigned char *hit, double *push);
static double rc__sim_self_ccd(rc_sim *s, const rc__system *y, const double *bx, double amax)
{
    return rc__sim_self_ccd_hits(s, y, bx, amax, NULL, NULL);
}

/* ... and with hit != NULL, every pair that the move takes below xi before amax (not only the
   first one) marks those of its vertices that the move leaves where they are (hit[v] = 1): the
   cloth the moving part would run into (the transitive carry and push of rc__sim_resolve_start_mesh
   and rc__sim_push_out); push (3 nv, or NULL) gets for each such vertex the largest displacement
   (amax times the move) of a moving vertex of its pairs */
static double rc__sim_self_ccd_hits(rc_sim *s, const rc__system *y, const double *bx, double amax, unsigned char *hit, double *push)
{
    const double amax0 = amax;
    double xi_ = s->def.contact_thickness, mean[3] = { 0, 0, 0 }, *dx = s->ls_dx, *dr = s->self_dx, big = 0.0;
    int i, c, kind, q, k, np, *pairs, reuse = 1;
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c) {
            int g = y->dof_x[3 * i + c];
            dx[3 * i + c] = g >= 0 ? y->d[g] : 0.0;
            if (fabs(dx[3 * i + c]) > big) big = fabs(dx[3 * i + c]);
            mean[c] += dx[3 * i + c] / s->nv;
        }
    if (!(big > 0.0)) return amax;
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c) dr[3 * i + c] = dx[3 * i + c] - mean[c];
    /* The kept lists (rc__sim_self_cands) serve when the sweep bx -> bx + amax dr stays within
       dhat of their build: both primitives then moved at most that far, so a pair left out of the
       lists (boxes more than 2 (xi + dhat) apart at the build) stays more than 2 xi apart, beyond
       the search below (swept boxes grown by xi each). The filter is that search's own test. */
    rc__sim_self_cands(s, bx);
    if (s->contact_status != RC_OK) return 0.0;
    {
        double lim = RC__MC_REUSE * s->def.contact_dhat;
        for (i = 0; i < 3 * s->nv && reuse; ++i)
            if (!(fabs(bx[i] - s->sc_xb[i]) < lim && fabs(bx[i] + amax * dr[i] - s->sc_xb[i]) < lim)) reuse = 0;
    }
    for (kind = 0; kind < 2; ++kind) {
        double t0;
        np = reuse ? rc__sim_self_filter(s, kind, bx, dr, amax, xi_) : rc__sim_self_pairs(s, kind, bx, dr, amax, xi_, &pairs);
        if (reuse) pairs = s->sc_act;
        t0 = rc__now();
        for (q = 0; q < np; ++q) {
            int v[4];
            const double *X0[4], *DX[4];
            double a;
            rc__sim_self_verts(s, kind, pairs[2 * q], pairs[2 * q + 1], v);
            if (rc__sim_self_adjacent(s, kind, v)) continue;
            for (k = 0; k < 4; ++k) { X0[k] = bx + 3 * v[k]; DX[k] = dx + 3 * v[k]; }
            a = rc__ct_ccd_pair(kind, X0, DX, xi_, hit ? amax0 : amax);
            if (a == 0.0) {
                /* a pair that starts within xi may not come nearer than half its start distance; at
                   distance 0 nothing is provably safe. Only the push-outs meet such pairs: a pin moved
                   cloth that close and the push moves the free side away (rc__sim_feature_push_out).
                   A solve's iterates are never within xi (the barrier is infinite there; the step's
                   start check refuses such a start), and excused pairs do not bound the step. */
                double d0 = rc__ct_ccd_dist(kind, X0);
                if (d0 > 0.0 && d0 <= xi_) a = rc__ct_ccd_pair(kind, X0, DX, 0.5 * d0, hit ? amax0 : amax);
            }
            if (a < amax0 && hit && !rc__sim_self_excluded(s, kind, v)) {
                int m, far = -1;
                double big2 = 0.0;
                for (m = 0; m < 4; ++m) if (rc__dot3(DX[m], DX[m]) > big2) { big2 = rc__dot3(DX[m], DX[m]); far = m; }
                for (k = 0; k < 4 && far >= 0; ++k)   /* far < 0: nothing of the pair moves (a pair already within xi) */
                    if (DX[k][0] == 0.0 && DX[k][1] == 0.0 && DX[k][2] == 0.0) {
                        if (push && (!hit[v[k]] || amax0 * amax0 * big2 > rc__dot3(push + 3 * v[k], push + 3 * v[k])))
                            rc__scale3(push + 3 * v[k], amax0, DX[far]);
                        hit[v[k]] = 1;
                    }
            }
            if (a < amax && !rc__sim_self_excluded(s, kind, v)) amax = a;
        }
        if (!reuse) rc__free(s->user, pairs);
        s->t_ccd += rc__now() - t0;
    }
    return s->contact_status == RC_OK ? amax : 0.0;
}

/* Whether the linear motion X0[k] -> X0[k] + D[k] (k < 4; kind 0 point-triangle, 1 edge-edge)
   brings the pair within `touch`: the pair CCD (rc__ct_ccd_pair) at thickness 0, restarted from
   each of its stops (each keeps 10% of the gap it starts from, so a real contact is approached
   geometrically). */
static int rc__sim_motion_touches(int kind, const double *X0[4], const double *D[4], double touch)
{
    double P[12], t = 0.0;
    const double *X[4];
    int k, c, it;
    for (k = 0; k < 4; ++k) X[k] = P + 3 * k;
    for (it = 0; it < 100; ++it) {
        double a;
        for (k = 0; k < 4; ++k)
            for (c = 0; c < 3; ++c) P[3 * k + c] = X0[k][c] + t * D[k][c];
        if (rc__ct_ccd_dist(kind, X) <= touch) return 1;
        a = rc__ct_ccd_pair(kind, X, D, 0.0, 1.0 - t);
        if (!(a < 1.0 - t)) return 0;
        t += a;
    }
    return 1;   /* no verdict after 100 restarts (each closes a real contact's gap ~10x): say touching */
}

/* Pins set their vertices to the targets at the step's start, outside every CCD, and the barrier
   cannot see an edge through the interior of a triangle (it is at a positive distance from the
   triangle's edges and vertices). So a target beyond another layer of cloth, or beyond a mesh
   obstacle, put the cloth through it for good (measured: a pinned corner moved 4 cm through a
   layer, or through a plate of two triangles, left 4 edges through it, and every later step
   reported converged). The pins' motion (pinned vertices x^t -> target, every free vertex still,
   mesh obstacles from their previous to their new vertices) is therefore followed by CCD
   (rc__sim_motion_touches, to within 1e-3 xi) against the cloth (with self contact) and every mesh
   obstacle. A pair that mixes pinned and free cloth vertices is checked against a mesh obstacle
   only where that obstacle's vertices stay: free vertices are not still in front of a moving
   obstacle, which carries them afterwards (rc__sim_resolve_start_mesh; measured: the dress's
   waist edges, one vertex pinned to the walking body, "touched" the body at every step from 72). Returns a pinned vertex of the first touching pair, or -1; *what is -1 for the cloth,
   else the obstacle. The step's start then fails; split steps move the pins half as far while the
   rest of the cloth follows, and a target truly beyond fails at the last level. Against the
   analytic shapes the pinned vertex's own path is checked (rc__sim_pin_path_enters): a target
   beyond a sphere put the cloth on its far side in one step, RC_OK (a probe: 25 cm through a 5 cm
   sphere), where the same move over 25 steps was refused. */
/* 1 if a pinned vertex's move x0 -> x0 + dx passes through analytic obstacle o, the obstacle moving
   from its previous to its new pose: followed in the obstacle's frame, from x0 at the previous
   pose to x0 + dx at the new one, as a straight segment, which passes through when its signed
   distance falls below -(xi + dhat) on the way. Not at 0: the chord of a pin dragged along a curved
   surface at contact distance dips into it by its sagitta, and the split steps' targets lie on the
   same chord (a review: a pin moved 4.3 cm per step 2 mm above a 0.1 m sphere failed every split).
   The signed distance of a convex shape is convex along a segment, so a golden-section search finds
   its minimum; the ends are not judged (the start is a valid state; an end inside fails the step's
   start check with its own message). */
static double rc__sim_rest_sdf(const rc__obstacle *o, const double *r)
{
    double d;
    return rc__ct_shape_sdf(&o->shape, r, &d, NULL, NULL) ? d : HUGE_VAL;
}
static int rc__sim_pin_path_enters(const rc__obstacle *o, const double *x0, const double *dx, double touch, double deep)
{
    const double gr = 0.6180339887498949;
    double r0[3], r1[3], p[3], dr[3], a = 0.0, b = 1.0, c1, c2, f1, f2;
    int it, k;
    for (k = 0; k < 3; ++k) p[k] = x0[k] + dx[k];
    rc__obs_to_rest(o->R_prev, o->t_prev, x0, r0);
    rc__obs_to_rest(o->R, o->t, p, r1);
    rc__sub3(dr, r1, r0);
    if (rc__sim_rest_sdf(o, r1) < touch) return 0;   /* a target inside: the start check names it */
    c1 = b - gr * (b - a); c2 = a + gr * (b - a);
    for (k = 0; k < 3; ++k) p[k] = r0[k] + c1 * dr[k];
    f1 = rc__sim_rest_sdf(o, p);
    for (k = 0; k < 3; ++k) p[k] = r0[k] + c2 * dr[k];
    f2 = rc__sim_rest_sdf(o, p);
    for (it = 0; it < 60 && f1 >= deep && f2 >= deep; ++it) {
        if (f1 < f2) {
            b = c2; c2 = c1; f2 = f1; c1 = b - gr * (b - a);
            for (k = 0; k < 3; ++k) p[k] = r0[k] + c1 * dr[k];
            f1 = rc__sim_rest_sdf(o, p);
        } else {
            a = c1; c1 = c2; f1 = f2; c2 = a + gr * (b - a);
            for (k = 0; k < 3; ++k) p[k] = r0[k] + c2 * dr[k];
            f2 = rc__sim_rest_sdf(o, p);
        }
    }
    return f1 < deep || f2 < deep;
}
static int rc__sim_pin_motion_touches(rc_sim *s, int *what)
{
    double *dx = s->ls_dx, *dr = s->self_dx, mean[3] = { 0.0, 0.0, 0.0 }, big = 0.0, touch = 1e-3 * s->def.contact_thickness;
    const double *x0 = s->x0;
    int i, c, kind, q, k, np, o, *pairs, hit = -1;
    *what = -1;
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c) {
            dx[3 * i + c] = s->pinned[i] ? s->pin_target[3 * i + c] - x0[3 * i + c] : 0.0;
            if (fabs(dx[3 * i + c]) > big) big = fabs(dx[3 * i + c]);
            mean[c] += dx[3 * i + c] / s->nv;
        }
    if (!(big > 0.0)) return -1;
#define RC__PIN_MOVES(v_) (s->pinned[v_] && (dx[3 * (v_)] != 0.0 || dx[3 * (v_) + 1] != 0.0 || dx[3 * (v_) + 2] != 0.0))
#define RC__OBS_MOVES(j_) (dX[3 * (j_)] != 0.0 || dX[3 * (j_) + 1] != 0.0 || dX[3 * (j_) + 2] != 0.0)
    if (s->def.self_contact) {
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) dr[3 * i + c] = dx[3 * i + c] - mean[c];
        for (kind = 0; kind < 2 && hit < 0; ++kind) {
            np = rc__sim_self_pairs(s, kind, x0, dr, 1.0, touch, &pairs);
            if (s->contact_status != RC_OK) return -1;
            for (q = 0; q < np && hit < 0; ++q) {
                int v[4], moving = -1;
                const double *X[4], *D[4];
                rc__sim_self_verts(s, kind, pairs[2 * q], pairs[2 * q + 1], v);
                for (k = 0; k < 4; ++k) if (RC__PIN_MOVES(v[k])) moving = v[k];
                if (moving < 0 || rc__sim_self_adjacent(s, kind, v) || rc__sim_self_excluded(s, kind, v)) continue;
                for (k = 0; k < 4; ++k) { X[k] = x0 + 3 * v[k]; D[k] = dx + 3 * v[k]; }
                if (rc__sim_motion_touches(kind, X, D, touch)) hit = moving;
            }
            rc__free(s->user, pairs);
        }
    }
    for (o = 0; o < s->nobs && hit < 0; ++o) {
        rc__obstacle start = s->obs[o];
        const double *X = s->obs[o].mesh_x, *Xp = s->obs[o].mesh_xprev;
        double disp = 0.0, *dX;
        if (start.shape.kind != RC__OBS_TRIMESH) {
            for (i = 0; i < s->nv && hit < 0; ++i)
                if (RC__PIN_MOVES(i) && rc__sim_pin_path_enters(s->obs + o, x0 + 3 * i, dx + 3 * i, touch,
                                                                -(s->def.contact_thickness + s->def.contact_dhat))) { hit = i; *what = o; }
            continue;
        }
        dX = (double *)rc__alloc(s->user, (size_t)3 * start.mesh_nv, sizeof(double));
        if (!dX) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return -1; }
        for (k = 0; k < 3 * start.mesh_nv; ++k) { dX[k] = X[k] - Xp[k]; if (fabs(dX[k]) > disp) disp = fabs(dX[k]); }
        start.mesh_x = s->obs[o].mesh_xprev;
        for (kind = 0; kind < 3 && hit < 0; ++kind) {
            np = rc__sim_mesh_pairs(s, &start, kind, x0, dx, 1.0, touch + 2.0 * disp, &pairs);
            if (s->contact_status != RC_OK) { rc__free(s->user, dX); return -1; }
            for (q = 0; q < np && hit < 0; ++q) {
                int a = pairs[2 * q], b = pairs[2 * q + 1], moving = -1, ck = kind == 2 ? 1 : 0;
                const double *P0[4], *D[4];
                if (kind == 0) {          /* cloth vertex a, obstacle triangle b */
                    const int *tv = start.mesh_tris + 3 * b;
                    if (!RC__PIN_MOVES(a)) continue;
                    moving = a;
                    P0[0] = x0 + 3 * a; D[0] = dx + 3 * a;
                    for (k = 0; k < 3; ++k) { P0[1 + k] = Xp + 3 * tv[k]; D[1 + k] = dX + 3 * tv[k]; }
                } else if (kind == 1) {   /* obstacle vertex b, cloth triangle a */
                    const int *tv = s->tris + 3 * a;
                    for (k = 0; k < 3; ++k) if (RC__PIN_MOVES(tv[k])) moving = tv[k];
                    if (moving < 0 || (RC__OBS_MOVES(b) && !(s->pinned[tv[0]] && s->pinned[tv[1]] && s->pinned[tv[2]]))) continue;
                    P0[0] = Xp + 3 * b; D[0] = dX + 3 * b;
                    for (k = 0; k < 3; ++k) { P0[1 + k] = x0 + 3 * tv[k]; D[1 + k] = dx + 3 * tv[k]; }
                } else {                  /* cloth edge a, obstacle edge b */
                    const int *ev = s->topo.edge_v + 2 * a, *fv = start.mesh_edges + 2 * b;
                    for (k = 0; k < 2; ++k) if (RC__PIN_MOVES(ev[k])) moving = ev[k];
                    if (moving < 0 || ((RC__OBS_MOVES(fv[0]) || RC__OBS_MOVES(fv[1])) && !(s->pinned[ev[0]] && s->pinned[ev[1]]))) continue;
                    for (k = 0; k < 2; ++k) {
                        P0[k] = x0 + 3 * ev[k]; D[k] = dx + 3 * ev[k];
                        P0[2 + k] = Xp + 3 * fv[k]; D[2 + k] = dX + 3 * fv[k];
                    }
                }
                if (rc__sim_motion_touches(ck, P0, D, touch)) { hit = moving; *what = o; }
            }
            rc__free(s->user, pairs);
        }
        rc__free(s->user, dX);
    }
#undef RC__PIN_MOVES
#undef RC__OBS_MOVES
    return hit;
}

/* det[b - a, c - a, d - a]: d above (+), on, or below (-) the plane of a, b, c. A value within
   1e-12 |b - a| |c - a| |d - a| of zero is returned as 0: for coplanar points the determinant is
   rounding noise of either sign (measured: a flat sheet tilted about two axes had in-plane edges
   "crossing" triangles two rings away in 4 orientations of 8). */
static double rc__orient3(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3], n[3], det;
    rc__sub3(u, b, a); rc__sub3(v, c, a); rc__sub3(w, d, a);
    rc__cross3(n, u, v);
    det = rc__dot3(n, w);
    return fabs(det) <= 1e-12 * rc__norm3(u) * rc__norm3(v) * rc__norm3(w) ? 0.0 : det;
}
/* 1 if segment pq passes through the interior of triangle abc: p and q strictly on opposite
   sides of its plane and the line pq strictly inside its three edges (touching does not count) */
static int rc__seg_crosses_tri(const double *p, const double *q, const double *a, const double *b, const double *c)
{
    double op = rc__orient3(a, b, c, p), oq = rc__orient3(a, b, c, q), s1, s2, s3;
    if (!((op > 0.0 && oq < 0.0) || (op < 0.0 && oq > 0.0))) return 0;
    s1 = rc__orient3(p, q, a, b); s2 = rc__orient3(p, q, b, c); s3 = rc__orient3(p, q, c, a);
    return (s1 > 0.0 && s2 > 0.0 && s3 > 0.0) || (s1 < 0.0 && s2 < 0.0 && s3 < 0.0);
}

/* Edges of set E (ne edges, ev pairs into X) against triangles of set T (nt, tv triples into Y)
   through the broad phase: the first edge through a triangle's interior, as (edge, triangle), or
   -1. same != 0: both sets are the cloth (pairs sharing a vertex or a seam stitch are skipped;
   same = 1 also skips the pairs self contact excludes in the reference, same = 2 checks them). */
static int rc__sim_first_crossing(rc_sim *s, int ne, const int *ev, const double *X, int nt, const int *tv,
                                  const double *Y, int same, int *edge, int *tri)
{
    double *box = (double *)rc__alloc(s->user, (size_t)6 * ((size_t)ne + nt) + 1, sizeof(double));
    int *pairs = NULL, np = 0, q, found = 0;
    rc_status st;
    if (!box) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return 0; }
    rc__sim_boxes(ne, 2, ev, X, NULL, 0.0, box, box + 3 * (size_t)ne);
    rc__sim_boxes(nt, 3, tv, Y, NULL, 0.0, box + 6 * (size_t)ne, box + 6 * (size_t)ne + 3 * (size_t)nt);
    st = rc__ct_bp_pairs(s->user, ne, box, box + 3 * (size_t)ne, nt, box + 6 * (size_t)ne, box + 6 * (size_t)ne + 3 * (size_t)nt,
                         0.0, 0.0, &pairs, &np);
    rc__free(s->user, box);
    if (st != RC_OK) { s->contact_status = st; return 0; }
    for (q = 0; q < np && !found; ++q) {
        const int *e = ev + 2 * pairs[2 * q], *t = tv + 3 * pairs[2 * q + 1];
        if (same) {
            /* pairs the self contact ignores (so they may cross in a run): adjacent or stitched, or
               within xi + dhat in the flat reference (now, u). The edge-triangle pair is its two
               (endpoint, triangle) pairs and three (edge, triangle edge) pairs. */
            int pt[2][4], ee[3][4], k, skip = 0;
            for (k = 0; k < 2; ++k) { pt[k][0] = e[k]; pt[k][1] = t[0]; pt[k][2] = t[1]; pt[k][3] = t[2]; }
            for (k = 0; k < 3; ++k) { ee[k][0] = e[0]; ee[k][1] = e[1]; ee[k][2] = t[k]; ee[k][3] = t[(k + 1) % 3]; }
            for (k = 0; k < 2 && !skip; ++k) skip = rc__sim_self_adjacent(s, 0, pt[k]) || (same == 1 && rc__sim_self_excluded_uv(s, s->u, 0, pt[k]));
            for (k = 0; k < 3 && !skip && same == 1; ++k) skip = rc__sim_self_excluded_uv(s, s->u, 1, ee[k]);
            if (skip) continue;
        }
        if (rc__seg_crosses_tri(X + 3 * e[0], X + 3 * e[1], Y + 3 * t[0], Y + 3 * t[1], Y + 3 * t[2])) {
            *edge = pairs[2 * q]; *tri = pairs[2 * q + 1]; found = 1;
        }
    }
    rc__free(s->user, pairs);
    return found;
}

/* The barrier and the CCD keep a state free of crossings, but cannot make one so: an edge through
   a triangle's interior can be at a positive distance from the triangle's edges and vertices, and
   every step from such a start keeps it (measured: two crossing squares with self contact stepped
   without complaint). So the state is checked once, at the first step or static solve after
   rc_sim_create and after each rc_sim_add_trimesh: cloth edges against cloth triangles (with self
   contact), cloth edges against every mesh obstacle's triangles and its edges against cloth
   triangles (the obstacle as at the step's start). Writes the first crossing into msg; 1 if any.
   With end_pose: only the mesh obstacles that move in this step, at their end pose, against the
   cloth after their carry (rc__sim_solve's start; see there). */
static int rc__sim_find_crossing(rc_sim *s, char *msg, size_t len, int end_pose)
{
    int o, e, t;
    if (!end_pose && s->def.self_contact && rc__sim_first_crossing(s, s->ne, s->topo.edge_v, s->x, s->nt, s->tris, s->x, 1, &e, &t)) {
        snprintf(msg, len, "the cloth crosses itself: edge %d (vertices %d, %d) passes through triangle %d (vertices %d, %d, %d);"
                 " self contact keeps a state free of crossings but cannot untangle one", e, s->topo.edge_v[2 * e],
                 s->topo.edge_v[2 * e + 1], t, s->tris[3 * t], s->tris[3 * t + 1], s->tris[3 * t + 2]);
        return 1;
    }
    for (o = 0; o < s->nobs && s->contact_status == RC_OK; ++o) {
        const rc__obstacle *ob = s->obs + o;
        const double *X = end_pose ? ob->mesh_x : ob->mesh_xprev;
        /* at the start of a step, where the mesh stands: only a teleport can clear it */
        const char *hint = end_pose ? "" : " (place the mesh clear of the cloth with rc_sim_teleport_obstacle_vertices)";
        if (ob->shape.kind != RC__OBS_TRIMESH || (end_pose && rc__sim_mesh_still(ob))) continue;
        if (rc__sim_first_crossing(s, s->ne, s->topo.edge_v, s->x, ob->mesh_nt, ob->mesh_tris, X, 0, &e, &t)) {
            snprintf(msg, len, "the cloth crosses mesh obstacle %d: cloth edge %d (vertices %d, %d) passes through its triangle %d%s",
                     o, e, s->topo.edge_v[2 * e], s->topo.edge_v[2 * e + 1], t, hint);
            return 1;
        }
        if (rc__sim_first_crossing(s, ob->mesh_ne, ob->mesh_edges, X, s->nt, s->tris, s->x, 0, &e, &t)) {
            snprintf(msg, len, "the cloth crosses mesh obstacle %d: its edge %d passes through cloth triangle %d (vertices %d, %d, %d)%s",
                     o, e, t, s->tris[3 * t], s->tris[3 * t + 1], s->tris[3 * t + 2], hint);
            return 1;
        }
    }
    return 0;
}

/* the check above as a status: RC_OK, or RC_ERR_INTERSECTING / RC_ERR_OUT_OF_MEMORY with the
   message (after the prefix, if any) */
static rc_status rc__sim_crossing_status(rc_sim *s, int end_pose, const char *prefix)
{
    char msg[sizeof(s->err)], full[sizeof(s->err)];
    int found;
    s->contact_status = RC_OK;
    found = rc__sim_find_crossing(s, msg, sizeof msg, end_pose);
    if (s->contact_status != RC_OK) {
        snprintf(msg, sizeof msg, "checking the state for crossings: %s", rc_status_string(s->contact_status));
        return rc__sim_fail(s, s->contact_status, msg);
    }
    if (!found) return RC_OK;
    snprintf(full, sizeof full, "%s%.*s", prefix ? prefix : "", 400, msg);
    return rc__sim_fail(s, RC_ERR_INTERSECTING, full);
}

/* ... once, at the first step or static solve after creation, a loaded state, or an added or
   teleported mesh obstacle */
static rc_status rc__sim_check_crossings(rc_sim *s)
{
    rc_status rs;
    if (s->crossings_checked) return RC_OK;
    rs = rc__sim_crossing_status(s, 0, NULL);
    if (rs == RC_OK) s->crossings_checked = 1;
    return rs;
}

/* Lagged self friction (IPC): every active pair at the step start x^t gets its normal force
   mu*lambda (lambda = kappa m |b'| 2d), closest-point weights w (relative displacement
   sum_k w_k dx_k, dx_k = x_k - x^t_k, minus G0_k du_k in adaptive mode: rc__sim_slip_extend) and
   tangent basis P, fixed over the step. */
static void rc__sim_lag_self_friction(rc_sim *s)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, r = xi_ + dh, mu = s->def.friction;
    int kind, q, k, np, *pairs;
    s->nfs = 0;
    if (!(mu > 0.0)) return;
    for (kind = 0; kind < 2; ++kind) {
        np = rc__sim_self_pairs(s, kind, s->x0, NULL, 0.0, r, &pairs);
        for (q = 0; q < np; ++q) {
            int v[4], a = pairs[2 * q], b = pairs[2 * q + 1];
            const double *P[4];
            double d2, m = 1.0, lam, w[4], Pb[6], *rec;
            rc__sim_self_verts(s, kind, a, b, v);
            if (rc__sim_self_adjacent(s, kind, v)) continue;
            if (s->pinned[v[0]] && s->pinned[v[1]] && s->pinned[v[2]] && s->pinned[v[3]]) continue;
            for (k = 0; k < 4; ++k) P[k] = s->x0 + 3 * v[k];
            d2 = rc__sim_self_d2(kind, P);
            if (!(d2 < r * r) || rc__sim_self_excluded(s, kind, v)) continue;
            if (kind == 1) m = rc__ct_ee_mollifier(P[0], P[1], P[2], P[3], rc__sim_self_eps_x(s, kind, a, b), NULL, NULL);
            lam = rc__ct_normal_force(d2, xi_, dh, s->kappa, m);
            if (!(lam > 0.0) || !rc__isfinite(lam)) continue;
            if (kind == 0) rc__ct_pt_tangent(P[0], P[1], P[2], P[3], w, Pb);
            else rc__ct_ee_tangent(P[0], P[1], P[2], P[3], w, Pb);
            if (s->nfs == s->cap_fs) {
                int cap = s->cap_fs ? 2 * s->cap_fs : 64;
                double *nf = (double *)rc__realloc(s->user, s->fs, (size_t)cap * 15, sizeof(double));
                if (!nf) { s->contact_status = RC_ERR_OUT_OF_MEMORY; break; }
                s->fs = nf; s->cap_fs = cap;
            }
            rec = s->fs + (size_t)15 * s->nfs++;
            for (k = 0; k < 4; ++k) { rec[k] = v[k]; rec[4 + k] = w[k]; }
            rec[8] = mu * lam;
            for (k = 0; k < 6; ++k) rec[9 + k] = Pb[k];
        }
        rc__free(s->user, pairs);
    }
}

/* energy of the lagged self friction; with y, gradient and (PSD) Hessian added */
static double rc__sim_self_friction(const rc_sim *s, const double *x, rc__system *y)
{
    double E = 0.0;
    int q, k, c;
    for (q = 0; q < s->nfs; ++q) {
        const double *rec = s->fs + (size_t)15 * q;
        double dx[12], g[12], H[144];
        int v[4];
        for (k = 0; k < 4; ++k) {
            v[k] = (int)rec[k];
            for (c = 0; c < 3; ++c) dx[3 * k + c] = x[3 * v[k] + c] - s->x0[3 * v[k] + c];
            if (s->def.adaptive) for (c = 0; c < 3; ++c) dx[3 * k + c] -= s->fr_off[3 * v[k] + c];   /* material-point slip */
            for (c = 0; c < 3; ++c) dx[3 * k + c] += s->fr_acc[3 * v[k] + c];   /* statics: carried slip */
        }
        E += rc__ct_friction(4, rec + 4, rec + 9, dx, rec[8], rc__sim_fric_eps(s), y ? g : NULL, y ? H : NULL);
        if (y && y->dof_x) {
            if (y->with_u && s->def.adaptive) rc__sim_slip_scatter(s, y, 4, v, g, H);
            else rc__sim_scatter_x4(y, v, g, H);
        }
    }
    return E;
}

/* ---------------------------------------------------------------------------------------------
   The incremental potential (DESIGN §2)
     E(x, phi, u) = sum_T [ I_T + S_T + B_T + G_T + C_T ] + sum_i [ -f_i.x_i + K_i + D_i ]
   evaluated exactly (never cached); per-triangle terms go to a buffer and are summed in a fixed
   order so results do not depend on the thread count.
   --------------------------------------------------------------------------------------------- */
typedef struct rc__terms {
    double inertia, stretch, bend, gravity, quality, ext, contact, friction, min_dist;
    double travel;     /* adaptive: the travel term (rc__sim_travel) */
    double min_self;   /* smallest self-contact pair distance (inf if none within the band) */
    double min_mesh;   /* smallest cloth to mesh-obstacle distance, also in min_dist (inf if none within the band) */
} rc__terms;

static double rc__terms_total(const rc__terms *T)
{
    return T->inertia + T->stretch + T->bend + T->gravity + T->quality + T->travel + T->ext + T->contact + T->friction;
}

/* the energy's round-off scale: its terms' magnitudes summed, not |E|, which cancellation can make 0 */
static double rc__terms_scale(double E, const rc__terms *T)
{
    return fmax(fabs(E), fabs(T->inertia) + fabs(T->stretch) + fabs(T->bend) + fabs(T->gravity) + fabs(T->quality) +
                             fabs(T->travel) + fabs(T->ext) + fabs(T->contact) + fabs(T->friction));
}

/* the per-triangle energies of stencils A and B into the triangle's row of tri_e, then its least
   core distance (kernel A's a[6]) */
static void rc__sim_energy_tri(rc_sim *s, int t, const double *x, const double *u, const double *phi)
{
    double a[RC__SIM_A_TERMS], b;
    rc__sim_kernel_A(s, t, x, u, 0, a, NULL, NULL);
    rc__sim_kernel_B(s, t, x, u, phi, 0, &b, NULL, NULL);
    double *e = s->tri_e + RC__SIM_TRI_E * t;
    e[0] = a[0]; e[1] = a[1]; e[2] = a[2]; e[3] = a[3]; e[4] = b; e[5] = a[4]; e[6] = a[5]; e[7] = a[6];
}

static double rc__sim_energy(rc_sim *s, const double *x, const double *u, const double *phi, rc__terms *T)
{
    int t, i, nt = s->nt;
    memset(T, 0, sizeof *T);
    T->min_dist = HUGE_VAL;
    T->min_self = HUGE_VAL;
    T->min_mesh = HUGE_VAL;
    if (s->def.adaptive) rc__sim_update_xtil(s, u);
#ifdef _OPENMP
    if (nt >= 512 && rc__sim_threads(s) > 1) {   /* serial: no OpenMP region at all (see rc__sp_gemm_lower) */
#pragma omp parallel for schedule(static) num_threads(rc__sim_threads(s))
        for (t = 0; t < nt; ++t) rc__sim_energy_tri(s, t, x, u, phi);
    } else
#endif
    for (t = 0; t < nt; ++t) rc__sim_energy_tri(s, t, x, u, phi);
    for (t = 0; t < nt; ++t) {
        const double *e = s->tri_e + RC__SIM_TRI_E * t;
        T->stretch += e[0]; T->inertia += e[1]; T->gravity += e[2];
        T->quality += e[3]; T->bend += e[4]; T->contact += e[5];
        T->friction += e[6];
        if (e[7] < T->min_dist) T->min_dist = e[7];   /* cores act on triangles: a triangle can be far closer than its vertices */
    }
    for (i = 0; i < s->nv; ++i) rc__sim_vertex_energy(s, i, x + 3 * i, &T->ext, &T->friction, &T->min_dist);
    if (s->def.adaptive && s->def.travel_weight > 0.0)
        for (i = 0; i < s->nv; ++i) T->travel += rc__sim_travel(s, i, u, NULL, NULL);
    if (s->nmh) T->ext += rc__sim_handles(s, x, u, NULL);   /* material-space handles and loads */
    if (s->nst) T->ext += rc__sim_seams(s, x, NULL);         /* seam stitches */
    if (s->has_mesh_obstacle) {
        T->contact += rc__sim_mesh_contact(s, x, u, NULL, &T->min_mesh);
        T->friction += rc__sim_mesh_friction(s, x, u, NULL);
        T->min_dist = fmin(T->min_dist, T->min_mesh);
    }
    if (s->def.self_contact) {
        T->contact += rc__sim_self_contact(s, x, 0, &T->min_self);
        T->friction += rc__sim_self_friction(s, x, NULL);
    }
    return rc__terms_total(T);
}

/* the 27 numbers a triangle's cached Hessians depend on: x of its 6 stencil vertices, u of its
   own 3, phi of its 3 edges (absent flaps read as zero) */
static void rc__sim_stencil_state(const rc_sim *s, int t, const double *x, const double *u, const double *phi, double *st)
{
    int k, c;
    for (k = 0; k < 6; ++k) {
        int v = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
        for (c = 0; c < 3; ++c) st[3 * k + c] = v >= 0 ? x[3 * v + c] : 0.0;
    }
    for (k = 0; k < 3; ++k) { st[18 + 2 * k] = u[2 * s->tris[3 * t + k]]; st[19 + 2 * k] = u[2 * s->tris[3 * t + k] + 1]; }
    for (k = 0; k < 3; ++k) st[24 + k] = phi[s->topo.tri_edge[3 * t + k]];
}

/* relative displacement of a stencil since its cache was made (DESIGN §6): vertices by their mean
   incident rest edge length, angles in radians */
static double rc__sim_stencil_displacement(const rc_sim *s, int t, const double *now)
{
    const double *old = s->cache_state + (size_t)27 * t;
    double dmax = 0.0;
    int k;
    for (k = 0; k < 6; ++k) {
        int v = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
        double dx, du = 0.0, d;
        if (v < 0) continue;
        dx = fabs(now[3 * k] - old[3 * k]);
        if (fabs(now[3 * k + 1] - old[3 * k + 1]) > dx) dx = fabs(now[3 * k + 1] - old[3 * k + 1]);
        if (fabs(now[3 * k + 2] - old[3 * k + 2]) > dx) dx = fabs(now[3 * k + 2] - old[3 * k + 2]);
        if (k < 3) {
            du = fabs(now[18 + 2 * k] - old[18 + 2 * k]);
            if (fabs(now[19 + 2 * k] - old[19 + 2 * k]) > du) du = fabs(now[19 + 2 * k] - old[19 + 2 * k]);
        }
        d = (dx > du ? dx : du) / s->vert_len0[v];
        if (d > dmax) dmax = d;
    }
    for (k = 0; k < 3; ++k)
        if (fabs(now[24 + k] - old[24 + k]) > dmax) dmax = fabs(now[24 + k] - old[24 + k]);
    return dmax;
}

static int rc__cmp_desc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Gradient and Hessian of E over the DOFs of system y at (x, u, phi); the Hessian is exact or
   per-stencil PSD-projected as the caller's mode (s->proj) asks.
   use_cache (joint system only): reuse a triangle's Hessians when its stencil moved less than
   cache_eps (relative) since they were computed, except the 10% that moved most (DESIGN §6);
   gradients are always exact, so a stale PSD Hessian still gives a descent direction, and a
   stale exact one that does not is caught by rc__sim_ritr (g.d >= 0: refresh all, retry). Element
   derivatives are computed in parallel in chunks; each value of the matrix sums its terms in
   triangle order whether the chunk is scattered by one thread or by several (each taking one range
   of CSC positions), so the result is bit-identical for any thread count. Returns the active rate (recomputed / all). */
/* derivatives of triangle t's stencils A and B: into the cache (use_cache; Hessians only when the
   stencil moved, thresh = the 10%-most-moved score) or into the chunk buffers (chunk start c0).
   Returns 1 if the Hessians were recomputed. */
static int rc__sim_assemble_tri(rc_sim *s, int t, int c0, const double *x, const double *u, const double *phi,
                                          int with_u, int use_cache, double thresh)
{
    double a[RC__SIM_A_TERMS], b;
    double *gA, *HA, *gB, *HB;
    int recompute = 1;
    if (use_cache) {
        gA = s->cacheA + (size_t)RC__ELEM_A * t; gB = s->cacheB + (size_t)RC__ELEM_B * t;
        recompute = !s->cache_valid[t] || s->cache_score[t] >= s->def.cache_eps || s->cache_score[t] > thresh;
    } else {
        gA = s->chunkA + (size_t)RC__ELEM_A * (t - c0); gB = s->chunkB + (size_t)RC__ELEM_B * (t - c0);
    }
    HA = gA + 15; HB = gB + 27;
    rc__sim_kernel_A(s, t, x, u, with_u, a, gA, recompute ? HA : NULL);
    rc__sim_kernel_B(s, t, x, u, phi, with_u, &b, gB, recompute ? HB : NULL);
    if (recompute && use_cache) {
        rc__sim_stencil_state(s, t, x, u, phi, s->cache_state + (size_t)27 * t);
        s->cache_valid[t] = 1;
    }
    return recompute;
}

static double rc__sim_assemble(rc_sim *s, rc__system *y, const double *x, const double *u, const double *phi, int use_cache)
{
    int t, i, nt = s->nt, nactive = 0, with_u = y->with_u, c0;
    double thresh = HUGE_VAL;
    if (s->def.self_contact) {
        /* may regrow y's pattern (new contact blocks): before anything is written into y */
        rc__sim_self_prepare(s, y, x);
        if (s->contact_status != RC_OK) return 0.0;
    }
    if (s->def.adaptive) rc__sim_update_xtil(s, u);
    memset(y->g, 0, sizeof(double) * (size_t)y->ndof);
    memset(y->val, 0, sizeof(double) * (size_t)y->colptr[y->ndof]);
    use_cache = use_cache && with_u && s->cacheA;   /* blocks of one kind: the outer treatment is fixed per sim */
    if (use_cache) {
        double *tmp = s->tri_e;   /* nt*RC__SIM_TRI_E scratch, free here */
        for (t = 0; t < nt; ++t) {
            double st[27];
            rc__sim_stencil_state(s, t, x, u, phi, st);
            s->cache_score[t] = s->cache_valid[t] ? rc__sim_stencil_displacement(s, t, st) : HUGE_VAL;
            tmp[t] = s->cache_score[t];
        }
        qsort(tmp, (size_t)nt, sizeof(double), rc__cmp_desc_double);
        thresh = tmp[nt / 10];
    }
    for (c0 = 0; c0 < nt; c0 += RC__CHUNK) {
        int c1 = c0 + RC__CHUNK < nt ? c0 + RC__CHUNK : nt, t0 = use_cache ? 0 : c0, scattered = 0;
        const double *bA0 = use_cache ? s->cacheA : s->chunkA, *bB0 = use_cache ? s->cacheB : s->chunkB;
#ifdef _OPENMP
        if (c1 - c0 >= 256 && rc__sim_threads(s) > 1) {   /* serial: no OpenMP region at all (see rc__sp_gemm_lower) */
            /* the threads compute the chunk's elements, then each scatters the Hessian terms of
               one range of CSC positions (bit-identical to the serial scatter, see the table) */
            scattered = y->el_off != NULL;
#pragma omp parallel num_threads(rc__sim_threads(s)) reduction(+ : nactive)
            {
#pragma omp for schedule(dynamic, 16)
                for (t = c0; t < c1; ++t) nactive += rc__sim_assemble_tri(s, t, c0, x, u, phi, with_u, use_cache, thresh);
                if (scattered) {
                    size_t nnz = (size_t)y->colptr[y->ndof], p = (size_t)omp_get_thread_num(), np = (size_t)omp_get_num_threads();
                    rc__system_scatter_tris(s, y, c0, c1, bA0, bB0, t0, nnz * p / np, nnz * (p + 1) / np);
                }
            }
        } else
#endif
        for (t = c0; t < c1; ++t) nactive += rc__sim_assemble_tri(s, t, c0, x, u, phi, with_u, use_cache, thresh);
        if (!scattered && y->el_off) rc__system_scatter_tris(s, y, c0, c1, bA0, bB0, t0, 0, (size_t)y->colptr[y->ndof]);
        for (t = c0; t < c1; ++t) {
            rc__dofmap m;
            const double *bA = bA0 + (size_t)RC__ELEM_A * (t - t0), *bB = bB0 + (size_t)RC__ELEM_B * (t - t0);
            /* the element layouts end with the u DOFs: without u they are cut short; with the
               table only the gradients are left to scatter here */
            rc__map_triA(s, y, t, &m);
            if (!with_u) m.n = 9;
            rc__system_scatter(y, &m, bA, y->el_off ? NULL : bA + 15);
            rc__map_triB(s, y, t, &m);
            if (!with_u) m.n = 21;
            rc__system_scatter(y, &m, bB, y->el_off ? NULL : bB + 27);
        }
    }
    for (i = 0; i < s->nv; ++i) {
        double g[3], H[9];
        rc__dofmap m;
        if (s->pinned[i]) continue;
        rc__sim_vertex_derivs(s, i, x + 3 * i, g, H);
        m.n = 0;
        rc__map_x(y, i, &m);
        rc__system_scatter(y, &m, g, H);
    }
    if (with_u && s->def.adaptive && s->def.travel_weight > 0.0)
        for (i = 0; i < s->nv; ++i) {
            double g[2], H[4];
            rc__dofmap m;
            if (!(rc__sim_travel(s, i, u, g, H) > 0.0)) continue;
            m.n = 0;
            rc__map_u(s, y, i, &m);
            rc__system_scatter(y, &m, g, H);
        }
    if (s->nmh) rc__sim_handles(s, x, u, y);   /* material-space handles and loads */
    if (s->nst) rc__sim_seams(s, x, y);        /* seam stitches */
    if (s->has_mesh_obstacle) {
        double mind = HUGE_VAL;
        rc__sim_mesh_contact(s, x, u, y, &mind);
        rc__sim_mesh_friction(s, x, u, y);
    }
    if (s->def.self_contact) {
        rc__sim_self_derivs(s, y, x);
        rc__sim_self_friction(s, x, y);
    }
    return (double)nactive / (double)(nt > 0 ? nt : 1);
}


/* ---------------------------------------------------------------------------------------------
   Newton machinery: factor with a regularised retry, CCD and inversion-filter step bounds,
   backtracking Armijo line search on the exact E.
   --------------------------------------------------------------------------------------------- */

/* factor y->val and solve y->d = -H^{-1} g. A projected Hessian is PSD, but it can be singular
   (u DOFs of an unstressed flat region have no stiffness): then retry with a growing diagonal
   shift relative to the mean diagonal. */
static rc_status rc__system_direction(rc_sim *s, rc__system *y, rc_step_stats *st)
{
    int i, attempt;
    double diag = 0.0, t0 = rc__now();
    rc_status rs = RC_OK;
    s->dir_fallback = 0;
    if (y->ndof == 0) return RC_OK;
    for (i = 0; i < y->ndof; ++i) diag += fabs(y->val[y->colptr[i + 1] - 1]);   /* diagonal is last in each column */
    diag /= y->ndof;
    if (!(diag > 0.0)) diag = 1.0;
    if (s->def.linear_solver == RC_SOLVER_PCG) {
        /* Jacobi-preconditioned CG from zero: every iterate of CG on a PSD system is a descent
           direction, so a capped or loose solve still serves the line search. A singular system
           (with bending_scale = 0 no energy holds the director angles: their rows are zero) is
           retried with the shifts of the LDL^T below; an angle no energy sees then gets a zero step
           (an adversarial probe, session 54: PCG refused every step of such a sheet). */
        for (attempt = 0; attempt < 8; ++attempt) {
            int iters = 0;
            double res = 0.0, shift = attempt == 0 ? 0.0 : diag * pow(10.0, -10.0 + 1.5 * attempt);
            for (i = 0; i < y->ndof; ++i) { y->d[i] = 0.0; y->rhs_scratch[i] = -y->g[i]; }
            rs = rc__pcg_solve(s->user, y->ndof, y->colptr, y->rowind, y->val, shift, NULL, 0, y->rhs_scratch, y->d, s->def.pcg_tol,
                               10 * y->ndof + 100, &iters, &res);
            if (st) st->linear_solves++;
            if (rs != RC_ERR_NOT_SPD) break;
        }
        if (st) st->t_solve += rc__now() - t0;
        if (rs != RC_OK && rs != RC_ERR_NOT_CONVERGED) return rc__sim_fail(s, rs, "PCG failed on the Newton system");
        if (!rc__all_finite(y->d, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "Newton direction is not finite");
        return RC_OK;
    }
    for (attempt = 0; attempt < 8; ++attempt) {
        double shift = attempt == 0 ? 0.0 : diag * pow(10.0, -10.0 + 1.5 * attempt);
        rs = shift == 0.0 ? rc_ldlt_factor(y->ldlt, y->val) : rc_ldlt_factor_shifted(y->ldlt, y->val, shift);
        if (rs == RC_OK) break;
        if (rs != RC_ERR_NOT_SPD) break;
    }
    if (st) st->t_factor += rc__now() - t0;
    if (rs == RC_ERR_NOT_SPD) {
        /* The convex model is PSD by construction, so a factorization that still meets a
           non-positive pivot under shifts up to ~3x the mean diagonal is round-off: entries ~1e13
           (a barrier pair within a hair of the offset, its lagged friction) beside ~1e-4 left
           negative diagonal entries after the per-stencil projections (measured: the didactic
           drape without the regulariser, its sheet collapsed and pressed onto the rod, from step 90).
           The step then takes the diagonally scaled gradient, d_i = -g_i / max(|H_ii|, 1e-8 mean),
           still a descent direction, instead of failing: the line search and the iteration cap
           decide the rest (the step may end with converged = 0); a step is never judged converged
           on such a direction (its length says nothing about the distance to the minimum). */
        s->dir_fallback = 1;
        for (i = 0; i < y->ndof; ++i) {
            double hii = fabs(y->val[y->colptr[i + 1] - 1]);
            y->d[i] = -y->g[i] / (hii > 1e-8 * diag ? hii : 1e-8 * diag);
        }
        if (!rc__all_finite(y->d, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "Newton direction is not finite");
        return RC_OK;
    }
    if (rs != RC_OK) return rc__sim_fail(s, rs, "factorization failed");
    t0 = rc__now();
    for (i = 0; i < y->ndof; ++i) y->d[i] = -y->g[i];
    rs = rc_ldlt_solve(y->ldlt, y->d);
    if (st) { st->t_solve += rc__now() - t0; st->linear_solves++; }
    if (rs != RC_OK) return rc__sim_fail(s, rs, "linear solve failed");
    if (!rc__all_finite(y->d, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "Newton direction is not finite");
    return RC_OK;
}

static int rc__pcg_ldlt_apply(void *ctx, const double *r, double *z)
{
    rc_ldlt *f = (rc_ldlt *)ctx;
    memcpy(z, r, (size_t)f->n * sizeof(double));
    return rc__ldlt_solve_single(f, z) == RC_OK;
}

/* Solve (A + mu I) d = -g by conjugate gradients preconditioned with the LDL^T factor the
   system already holds, of an EARLIER matrix (a previous outer iteration's). Why: the derivative
   cache says which stencils changed; when few did, the joint matrix is close to the factored one
   and a handful of CG iterations (each one triangular solve, ~4 nnz(L) flops) replace a numeric
   factorization (~nnz(L)^2/n flops, the dominant cost of an outer iteration). Inexact Newton:
   stop at ||r|| <= eta ||g||. Every CG iterate from d = 0 on a system whose curvatures p.Ap met so
   far are positive is a descent direction (g.d = -sum alpha_k r_k.z_k < 0), so an early stop still
   serves the line search. Returns 1 with y->d set, or 0 (not converged in max_it iterations, or a
   non-positive curvature: the caller refactors). */
static int rc__system_solve_stale(rc__system *y, double mu, double eta, int max_it, int *iters)
{
    int i;
    *iters = 0;
    if (!y->ldlt || !y->ldlt->valid) return 0;
    for (i = 0; i < y->ndof; ++i) { y->d[i] = 0.0; y->rhs_scratch[i] = -y->g[i]; }
    return rc__pcg_core(y->ndof, y->colptr, y->rowind, y->val, mu, rc__pcg_ldlt_apply, y->ldlt, y->rhs_scratch, y->d, eta,
                        max_it, y->pcg_work, iters, NULL) == RC_OK;
}

/* Newton direction from the EXACT Hessian H (no per-stencil projection): solve (H + mu I) d = -g
   with a shift mu the LDL^T accepts as positive definite (Levenberg-Marquardt). All unknowns are
   lengths (x, u in m, s = l phi in m), so mu I is dimensionally one stiffness for all of them.
   *mu is the caller's running shift, kept across iterations and steps (x 0.3 after a full
   line-search step, x 3 after a shortened one: rc__sim_ritr for the outer joint system,
   rc__sim_newton_xp for the inner one), never below 1e-8 of the mean diagonal (from 1e-12, a
   failed factorization climbed x 4 twenty times at the first adaptive step of the 4k and 16k
   benches); it grows x 4 until the factorization succeeds. *mu_fail remembers the last shift
   that was rejected: while the Hessian's most negative eigenvalue barely moves between
   iterations, the x 0.3 decay would otherwise drop mu below it again and pay a failed
   factorization almost every time, so mu starts at >= 1.5 *mu_fail, and *mu_fail halves after
   each search that needed no retry (so mu can still fall as the Hessian turns definite) and, for
   the outer system, after each direction taken from a reused factor (rc__sim_outer_direction).
   Measured on 45 adaptive steps of the 1k sphere drape: 371 of 574 outer shifted factorizations
   failed before, 71 of 197 with the memory; outer iterations 720 -> 557, inner 1443 -> 1323.
   Returns RC_ERR_NOT_SPD if no shift up to 1e6 x the mean diagonal works (the caller then falls
   back to projection). */
static rc_status rc__system_direction_shifted_mu(rc_sim *s, rc__system *y, double *mu, double *mu_fail, rc_step_stats *st)
{
    int i, attempt;
    double diag = 0.0, t0 = rc__now();
    rc_status rs = RC_ERR_NOT_SPD;
    if (y->ndof == 0) return RC_OK;
    for (i = 0; i < y->ndof; ++i) diag += fabs(y->val[y->colptr[i + 1] - 1]);
    diag /= y->ndof;
    if (!(diag > 0.0)) diag = 1.0;
    if (!((*mu) >= 1e-8 * diag)) (*mu) = 1e-8 * diag;
    if (*mu < 1.5 * *mu_fail) *mu = 1.5 * *mu_fail;
    /* A kept shift above the mean diagonal starts its search at the diagonal. Why: the decay
       (x 0.3) acts once per accepted step, so a shift a pathological iteration drove up stays up,
       and every later direction -(H + mu I)^-1 g ~ -g/mu is shorter than the tolerance while |g|
       is not small. Measured: the didactic drape without the regulariser at dt 1/30 met a start
       at IP 925 J; the shifts climbed to 5.9e12 (outer) and 1.8e11 (inner), and the 17 steps
       after it "converged" after one outer and one inner iteration each while the stretch energy
       rose from 0.2 J to 252 J. With the clamp that run ends at IP 1.09 J. Healthy shifts stay far
       below the diagonal (100 adaptive sphere-drape steps: the directions judged converged had mu
       below 1e-3 of it in 338 of 381 cases, never above 0.1): of the 20 default-size CLI runs (100
       steps, adaptive and fixed) 17 iterate exactly as before; fold (fixed) and skirt_panels (both
       modes), where self contact drove a shift past the diagonal a few times, end within 0.7% of
       their old final IPs, every step converged. Test: test_adaptive_huge_kept_shift. Also tried:
       refusing convergence on any direction whose shift exceeded the diagonal and searching again
       from the floor. In that regime it traded the false convergence for chaotic, slow runs (the
       default-size run without the regulariser took 172 s instead of 13 and ended at IP 19.7 J);
       not kept. */
    if (*mu > diag) *mu = diag;
    for (attempt = 0; attempt < 40 && (*mu) <= 1e6 * diag; ++attempt) {
        rs = rc_ldlt_factor_shifted(y->ldlt, y->val, (*mu));
        if (rs != RC_ERR_NOT_SPD) break;
        *mu_fail = *mu;
        (*mu) *= 4.0;
    }
    if (attempt == 0) *mu_fail *= 0.5;
    if (st) st->t_factor += rc__now() - t0;
    if (rs == RC_ERR_NOT_SPD) return rs;   /* the caller falls back to projection */
    if (rs != RC_OK) return rc__sim_fail(s, rs, y == &s->sys_xpu ? "factorization of the joint (x, phi, u) system failed" : "factorization of the (x, phi) system failed");
    t0 = rc__now();
    for (i = 0; i < y->ndof; ++i) y->d[i] = -y->g[i];
    rs = rc_ldlt_solve(y->ldlt, y->d);
    if (st) { st->t_solve += rc__now() - t0; st->linear_solves++; }
    if (rs != RC_OK) return rc__sim_fail(s, rs, "linear solve failed");
    if (!rc__all_finite(y->d, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "Newton direction is not finite");
    return RC_OK;
}

/* the outer joint system's shift */
static rc_status rc__system_direction_shifted(rc_sim *s, rc__system *y, rc_step_stats *st)
{
    return rc__system_direction_shifted_mu(s, y, &s->itr_mu, &s->itr_mu_fail, st);
}

/* state = base + alpha * d (x, phi and, for the joint system, u) */
static void rc__sim_apply(const rc_sim *s, const rc__system *y, double alpha, const double *bx, const double *bu, const double *bphi,
                          double *x, double *u, double *phi)
{
    int i, c, e;
    for (i = 0; i < s->nv; ++i) {
        for (c = 0; c < 3; ++c) {
            int g = y->dof_x[3 * i + c];
            x[3 * i + c] = bx[3 * i + c] + (g >= 0 ? alpha * y->d[g] : 0.0);
        }
        u[2 * i] = bu[2 * i]; u[2 * i + 1] = bu[2 * i + 1];
        if (y->with_u && y->dof_u[i] >= 0) {
            double du[2];
            rc__sim_dof_du(s, y, i, du);
            u[2 * i] += alpha * du[0]; u[2 * i + 1] += alpha * du[1];
        }
    }
    for (e = 0; e < s->ne; ++e) phi[e] = bphi[e] + (y->dof_phi[e] >= 0 ? alpha * y->d[y->dof_phi[e]] / s->edge_len0[e] : 0.0);
}

/* largest displacement of the direction: x (m), u (m), edge-scaled angle l_e phi (m) */
static void rc__sim_dir_size(const rc_sim *s, const rc__system *y, double *dx, double *du, double *dphi)
{
    int i, c, e;
    *dx = *du = *dphi = 0.0;
    for (i = 0; i < s->nv; ++i) {
        for (c = 0; c < 3; ++c) if (y->dof_x[3 * i + c] >= 0 && fabs(y->d[y->dof_x[3 * i + c]]) > *dx) *dx = fabs(y->d[y->dof_x[3 * i + c]]);
        if (y->with_u && y->dof_u[i] >= 0) {   /* the u move itself (a shared seam DOF moves each side by s d) */
            double w[2];
            rc__sim_dof_du(s, y, i, w);
            for (c = 0; c < 2; ++c) if (fabs(w[c]) > *du) *du = fabs(w[c]);
        }
    }
    for (e = 0; e < s->ne; ++e) if (y->dof_phi[e] >= 0 && fabs(y->d[y->dof_phi[e]]) > *dphi) *dphi = fabs(y->d[y->dof_phi[e]]);
}

/* largest alpha in (0, 1] such that the vertex paths base -> base + alpha d stay outside every
   obstacle inflated by the contact thickness (conservative CCD); with skip (obstacles only, no self
   contact; the one-shot bounds of the start's carry and push): the obstacles o with skip[o] = 1
   left out, cloth that does not move ignored, and the meshes asked only whether the move passes
   through them (rc__sim_mesh_ccd). The analytic shapes keep the conservative test there: a move
   whose gap to a shape shrinks below a tenth of its start is stopped even without touching
   (conservative, so it splits a step it need not; not seen in the scenes) */
static double rc__sim_ccd_bound_ex(const rc_sim *s, const rc__system *y, const double *bx, const unsigned char *skip)
{
    double amax = 1.0;
    int i, o, c, t, k;
    if (s->nobs == 0 && (!s->def.self_contact || skip)) return 1.0;
    for (o = 0; o < s->nobs; ++o) {
        int ic, nc = rc__sim_num_cores(s->obs + o);
        if (skip && skip[o]) continue;
        for (ic = 0; ic < nc; ++ic) {
            double ca[3], cb[3], r = rc__sim_round_core(s->obs + o, ic, s->obs[o].R, s->obs[o].t, ca, cb);
            for (t = 0; t < s->nt; ++t) {
                double dxk[9], a;
                const int *tri = s->tris + 3 * t;
                int moving = 0;
                for (k = 0; k < 3; ++k)
                    for (c = 0; c < 3; ++c) { int g = y->dof_x[3 * tri[k] + c]; dxk[3 * k + c] = g >= 0 ? y->d[g] : 0.0; moving |= skip ? dxk[3 * k + c] != 0.0 : g >= 0; }
                if (!moving) continue;
                a = rc__ct_ccd_round_triangle(ca, cb, NULL, NULL, bx + 3 * tri[0], bx + 3 * tri[1], bx + 3 * tri[2], dxk, dxk + 3, dxk + 6,
                                              r + s->def.contact_thickness, amax);
                if (a < amax) amax = a;
            }
        }
    }
    for (i = 0; i < s->nv; ++i) {
        double dx[3];
        if (s->pinned[i]) continue;
        for (c = 0; c < 3; ++c) { int g = y->dof_x[3 * i + c]; dx[c] = g >= 0 ? y->d[g] : 0.0; }
        if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) continue;
        for (o = 0; o < s->nobs; ++o) {
            double a;
            if (s->obs[o].shape.kind == RC__OBS_TRIMESH || (skip && skip[o])) continue;
            a = rc__sim_obs_ccd(s->obs + o, bx + 3 * i, dx, s->def.contact_thickness, amax);
            if (a < amax) amax = a;
        }
    }
    if (s->has_mesh_obstacle) {   /* scratch, kept candidate lists and status only */
        rc_sim *sm = (rc_sim *)s;
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) { int g = y->dof_x[3 * i + c]; sm->ls_dx[3 * i + c] = g >= 0 ? y->d[g] : 0.0; }
        amax = rc__sim_mesh_ccd(sm, sm->ls_dx, bx, amax, skip);
    }
    if (s->def.self_contact && !skip) amax = rc__sim_self_ccd((rc_sim *)s, y, bx, amax);
    return amax;
}
static double rc__sim_ccd_bound(const rc_sim *s, const rc__system *y, const double *bx)
{
    return rc__sim_ccd_bound_ex(s, y, bx, NULL);
}

/* Reference-inversion filter (DESIGN §4), as a shape bound (ours): the line search's largest step
   is 0.8 x the smallest positive root over the triangles of
       f(a) = Q det J(a) - |J(a)|_F^2,   J(a) = D_u(u + a du) D_0^-1   (the map from the rest shape),
   i.e. of MIPS(J(a)) = |J|_F^2 / det J = Q, with Q = RC__MIPS_CAP. Both terms are quadratic in a
   (D_u is linear in a), so the root is exact. f >= 0 implies det J > 0: the bound contains
   DESIGN's (the root of A_T(a) = 0) and stops a triangle at a needle of aspect ~1e-4, the sliver
   limit rc_mesh_validate puts on input meshes. A triangle already at the cap (0.8 of each root
   approaches it; with the regulariser off a review saw one reach it and then creep past, MIPS
   10168 to 11324 over steps) keeps the plain inversion root. Why: with the regulariser off
   (quality_weight = 0, the issue's ablation) the plain filter let a triangle lose 80% of its area per line search, and triangles
   collapsed geometrically into needles: on an adaptive sphere drape (144 vertices) MIPS reached
   3e7 and the smallest reference area 6e-8 of its rest value by step 13, and from step 21 every
   step failed with a non-finite gradient, for good (a probe; steps 13-20 had returned
   RC_OK, unconverged; an area floor of 1e-6 alone still ended in NaN at step 23, MIPS 2.8e6).
   With the regulariser on (threshold 2.5), no triangle comes near the cap. */
#define RC__MIPS_CAP 1e4
/* the MIPS measure |J|_F^2 / det J of reference triangle t at u (J: its map from the rest shape),
   +inf when it is inverted or degenerate */
static double rc__sim_ref_mips(const rc_sim *s, const double *u, int t)
{
    double ul[6], J[4], det;
    int c;
    for (c = 0; c < 3; ++c) { ul[2 * c] = u[2 * s->tris[3 * t + c]]; ul[2 * c + 1] = u[2 * s->tris[3 * t + c] + 1]; }
    det = rc__mips_jacobian(ul, s->Dinv0 + 4 * t, J);
    return det > 0.0 ? (J[0] * J[0] + J[1] * J[1] + J[2] * J[2] + J[3] * J[3]) / det : HUGE_VAL;
}
static double rc__sim_inversion_bound(const rc_sim *s, const rc__system *y, const double *bu)
{
    double amax = 1.0;
    int t, k;
    if (!y->with_u) return 1.0;
    for (t = 0; t < s->nt; ++t) {
        const double *Di = s->Dinv0 + 4 * t;
        double p[3][2], q[3][2], c0, c1, c2, e1[2], e2[2], f1[2], f2[2], r = HUGE_VAL, M0[4], M1[4], dj;
        int moving = 0;
        for (k = 0; k < 3; ++k) {
            int v = s->tris[3 * t + k];
            p[k][0] = bu[2 * v]; p[k][1] = bu[2 * v + 1];
            q[k][0] = q[k][1] = 0.0;
            if (y->dof_u[v] >= 0) {
                moving = 1;
                rc__sim_dof_du(s, y, v, q[k]);
            }
        }
        if (!moving) continue;
        /* 2A(a) = (e1 + a f1) x (e2 + a f2) = c0 + c1 a + c2 a^2 */
        e1[0] = p[1][0] - p[0][0]; e1[1] = p[1][1] - p[0][1]; e2[0] = p[2][0] - p[0][0]; e2[1] = p[2][1] - p[0][1];
        f1[0] = q[1][0] - q[0][0]; f1[1] = q[1][1] - q[0][1]; f2[0] = q[2][0] - q[0][0]; f2[1] = q[2][1] - q[0][1];
        c0 = e1[0] * e2[1] - e1[1] * e2[0];
        c1 = e1[0] * f2[1] - e1[1] * f2[0] + f1[0] * e2[1] - f1[1] * e2[0];
        c2 = f1[0] * f2[1] - f1[1] * f2[0];
        /* J(a) = M0 + a M1 with M = [e1 e2] D_0^-1 (rows x, y), det J = 2A(a) det D_0^-1 */
        M0[0] = e1[0] * Di[0] + e2[0] * Di[2]; M0[1] = e1[0] * Di[1] + e2[0] * Di[3];
        M0[2] = e1[1] * Di[0] + e2[1] * Di[2]; M0[3] = e1[1] * Di[1] + e2[1] * Di[3];
        M1[0] = f1[0] * Di[0] + f2[0] * Di[2]; M1[1] = f1[0] * Di[1] + f2[0] * Di[3];
        M1[2] = f1[1] * Di[0] + f2[1] * Di[2]; M1[3] = f1[1] * Di[1] + f2[1] * Di[3];
        dj = Di[0] * Di[3] - Di[1] * Di[2];
        {
            double n0 = M0[0] * M0[0] + M0[1] * M0[1] + M0[2] * M0[2] + M0[3] * M0[3];
            double n1 = 2.0 * (M0[0] * M1[0] + M0[1] * M1[1] + M0[2] * M1[2] + M0[3] * M1[3]);
            double n2 = M1[0] * M1[0] + M1[1] * M1[1] + M1[2] * M1[2] + M1[3] * M1[3];
            double Q = RC__MIPS_CAP * dj;
            if (Q * c0 - n0 > 0.0) {   /* below the cap: the root of f(a) = 0 */
                c0 = Q * c0 - n0; c1 = Q * c1 - n1; c2 = Q * c2 - n2;
            }   /* else the plain inversion root of 2A(a) = 0 */
        }
        if (fabs(c2) < 1e-300 * (fabs(c0) + 1e-300)) { if (c1 < 0.0) r = -c0 / c1; }
        else {
            double disc = c1 * c1 - 4.0 * c2 * c0;
            if (disc >= 0.0) {
                double sq = sqrt(disc), qq = -0.5 * (c1 + (c1 >= 0 ? sq : -sq)), r1 = qq / c2, r2 = qq != 0.0 ? c0 / qq : HUGE_VAL;
                if (r1 > 0.0 && r1 < r) r = r1;
                if (r2 > 0.0 && r2 < r) r = r2;
            }
        }
        if (0.8 * r < amax) amax = 0.8 * r;
    }
    return amax;
}

/* Extrapolation after an accepted full step of an (x, phi) direction d whose energy fell faster
   than its quadratic model predicts (E0 - E(1) > 1.5 x -g.d/2: the true curvature along d is below
   the projected Hessian's, so the minimum along d lies beyond 1, e.g. where the sheet snaps into a
   buckle and the projected Hessian's steps are held back by the inertia alone). Tries alpha = 2,
   4, 8 within the CCD bound of 8d while the energy keeps falling, and leaves the iterate at the
   best. Measured on the 1k sphere drape, fixed mesh, 32 steps, with the Schur projection above:
   867 -> 610 Newton iterations. Returns the alpha taken (the iterate at alpha = 1 is current on
   entry); an alpha above 1 also keeps rc__sim_newton_xp from trying the exact Hessian next, which
   is right: the curvature along d was below the projected model's. The CCD bound and the energy
   test (the barrier is +inf inside the contact thickness) keep every trial as safe as alpha <= 1. */
static double rc__sim_extrapolate(rc_sim *s, const rc__system *y, double *E, rc__terms *T)
{
    double amax, a = 1.0;
    int k;
    for (k = 0; k < y->ndof; ++k) y->d[k] *= 8.0;   /* the CCD bound of the longest trial (<= 1) */
    amax = 8.0 * rc__sim_ccd_bound(s, y, s->ls_x);
    for (k = 0; k < y->ndof; ++k) y->d[k] *= 0.125;   /* exact: powers of two */
    while (2.0 * a <= amax && a < 8.0) {
        rc__terms Tm;
        double Em;
        rc__sim_apply(s, y, 2.0 * a, s->ls_x, s->ls_u, s->ls_phi, s->x, s->u, s->phi);
        Em = rc__sim_energy(s, s->x, s->u, s->phi, &Tm);
        if (!(rc__isfinite(Em) && Em < *E)) break;
        a *= 2.0;
        *E = Em;
        *T = Tm;
    }
    rc__sim_apply(s, y, a, s->ls_x, s->ls_u, s->ls_phi, s->x, s->u, s->phi);
    return a;
}

static void rc__sim_track_hinges(rc_sim *s, int at_step_start);
/* Backtracking Armijo from alpha_max on the exact E. On success the sim state is the accepted
   iterate and *E the new energy; returns 0 if no decrease was found (stall at round-off).
   An accepted iterate that moved x re-centres the tracked hinge angles on itself. */
static int rc__sim_line_search(rc_sim *s, const rc__system *y, double *E, rc__terms *T, double *alpha_out, rc_step_stats *st)
{
    double gTd = 0.0, alpha, E0 = *E, t0 = rc__now();
    int i, ok = 0, tried = 0, finite = 0, roundoff = 0;
    double scale = rc__terms_scale(E0, T);
    s->ls_nonfinite = s->ls_nodescent = s->ls_halvings = 0;
    for (i = 0; i < y->ndof; ++i) gTd += y->g[i] * y->d[i];
    memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->ls_u, s->u, sizeof(double) * 2 * (size_t)s->nv);
    memcpy(s->ls_phi, s->phi, sizeof(double) * (size_t)s->ne);
    *alpha_out = 0.0;
    if (!(gTd < 0.0)) { if (st) st->t_line_search += rc__now() - t0; return 0; }
    alpha = rc__sim_ccd_bound(s, y, s->ls_x);
    if (y->with_u) { double ai = rc__sim_inversion_bound(s, y, s->ls_u); if (ai < alpha) alpha = ai; }
    /* the bound itself is always tried, however small: a CCD bound below the 1e-14 floor (a
       direction ~1e98 m long from a force of 1e100 N, stopped by a sphere at ~1e-92 of it) used
       to leave the loop without a trial, which the caller took for a round-off stall: RC_OK,
       unconverged, the cloth frozen, where the same step without the sphere reports the overflow */
    for (i = 0; i < 60 && (i == 0 || alpha > 1e-14); ++i, alpha *= 0.5) {
        rc__terms Tn;
        double En;
        rc__sim_apply(s, y, alpha, s->ls_x, s->ls_u, s->ls_phi, s->x, s->u, s->phi);
        En = rc__sim_energy(s, s->x, s->u, s->phi, &Tn);
        tried = 1;
        if (rc__isfinite(En)) finite = 1;
        if (rc__isfinite(En) && En <= E0 + 1e-4 * alpha * gTd) {
            *E = En; *T = Tn; *alpha_out = alpha; ok = 1;
            s->ls_halvings = i;
            if (i == 0 && alpha == 1.0 && !y->with_u && E0 - En > -0.75 * gTd) *alpha_out = rc__sim_extrapolate(s, y, E, T);
            rc__sim_track_hinges(s, 0);
            if (s->def.iterate_hook) s->def.iterate_hook(s, s->def.iterate_user);
            break;
        }
        if (fabs(alpha * gTd) <= 1e-12 * scale) { roundoff = 1; break; }   /* the model decrease is below round-off */
    }
    s->ls_nonfinite = tried && !finite;
    s->ls_nodescent = tried && finite && !ok && !roundoff;
    if (!ok) {
        memcpy(s->x, s->ls_x, sizeof(double) * 3 * (size_t)s->nv);
        memcpy(s->u, s->ls_u, sizeof(double) * 2 * (size_t)s->nv);
        memcpy(s->phi, s->ls_phi, sizeof(double) * (size_t)s->ne);
    }
    if (st) st->t_line_search += rc__now() - t0;
    return ok;
}


static rc_status rc__sim_ensure_systems(rc_sim *s)
{
    rc_status st;
    if (!s->sys_xp.dof_x) {
        st = rc__system_build(s, &s->sys_xp, 0);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the (x, phi) system failed");
        rc__system_build_tables(s, &s->sys_xp);
        st = rc__system_build(s, &s->sys_p, -1);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the angle system failed");
    }
    if (s->def.adaptive && !s->sys_xpu.dof_x) {
        st = rc__system_build(s, &s->sys_xpu, 1);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the (x, phi, u) system failed");
        rc__system_build_tables(s, &s->sys_xpu);
        if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    }
    return RC_OK;
}

/* ---- The director-angle polish: Newton on phi alone, x and u fixed.
   With x and u fixed, a bending stencil's energy is a function of its three angles alone. W is
   quadratic in b (shift 0), so B_t = 1/2 b^T Q_t b with Q_t = W_bb(abar(u)) constant, b = L II,
   II_i = 2 h_i S(theta_i/2 + s_i phi_i) (rc__sh_edge_eval), where h_i and theta_i depend on x
   alone. Hence, with II'_i = 2 s_i h_i S'(psi_i), II''_i = 2 s_i^2 h_i S''(psi_i) and
   w = L^T Q b:
       dB_t/dphi_i = w_i II'_i,    d2B_t/dphi_i dphi_j = (L^T Q L)_ij II'_i II'_j + delta_ij w_i II''_i,
   which is the angle block of rc__sh_bend_tri_ref's Hessian without the 21 x 21 stencil around
   it, and every other term of E is constant. So the polish stores (Q, h, theta, s) per triangle
   once (rc__sim_polish_prepare) and then costs a few sines per stencil per iteration, where
   assembling sys_p through the full kernels cost a whole bending Hessian per stencil. */
static void rc__sim_polish_prepare(rc_sim *s)
{
    int t, k, c;
    for (t = 0; t < s->nt; ++t) {
        const int *tri = s->tris + 3 * t;
        double *P = s->polish + (size_t)RC__POLISH_W * t, xl[9], xf[9], ul[6];
        for (k = 0; k < 3; ++k) {
            int f = s->topo.tri_flap[3 * t + k];
            for (c = 0; c < 3; ++c) { xl[3 * k + c] = s->x[3 * tri[k] + c]; xf[3 * k + c] = f >= 0 ? s->x[3 * f + c] : 0.0; }
            ul[2 * k] = s->u[2 * tri[k]]; ul[2 * k + 1] = s->u[2 * tri[k] + 1];
        }
        rc__sh_bend_Wmm(ul, &s->coef, P);
        for (k = 0; k < 3; ++k) {
            rc__sh_edged Ed;
            int f = s->topo.tri_flap[3 * t + k], e = s->topo.tri_edge[3 * t + k];
            rc__sh_edge_eval(xl + 3 * k, xl + 3 * ((k + 1) % 3), xl + 3 * ((k + 2) % 3), f >= 0 ? xf + 3 * k : NULL, 0.0,
                             rc__sh_edge_sign(tri, k), s->hinge_ref[e], 0, &Ed);
            P[9 + k] = Ed.h;
            P[12 + k] = Ed.th;
            P[15 + k] = rc__sh_edge_sign(tri, k);
        }
    }
}

/* B_t at the angles phi (global, per edge) from the stored stencil; with g, H: its gradient and
   Hessian over the triangle's three angles (phi, not the solver's l_e phi) */
static double rc__sim_polish_bend(const rc_sim *s, int t, const double *phi, double g[3], double H[9])
{
    static const double L[3][3] = {{1, 1, 0}, {1, 0, 0}, {1, 0, 1}}; /* b_k = sum_i L[k][i] II_i (rc__sh_bend_tri_ref) */
    const double *P = s->polish + (size_t)RC__POLISH_W * t, *Q = P, *h = P + 9, *th = P + 12, *sg = P + 15;
    double II[3], d1[3], d2[3], b[3], Qb[3], w[3], B = 0.0;
    int i, j, k, l;
    for (i = 0; i < 3; ++i) {
        double S, S1, S2;
        rc__sh_fold_profile(0.5 * th[i] + sg[i] * phi[s->topo.tri_edge[3 * t + i]], &S, &S1, &S2);
        II[i] = 2.0 * h[i] * S;
        d1[i] = 2.0 * sg[i] * h[i] * S1;
        d2[i] = 2.0 * sg[i] * sg[i] * h[i] * S2;
    }
    for (k = 0; k < 3; ++k) b[k] = L[k][0] * II[0] + L[k][1] * II[1] + L[k][2] * II[2];
    for (k = 0; k < 3; ++k) { Qb[k] = Q[3 * k] * b[0] + Q[3 * k + 1] * b[1] + Q[3 * k + 2] * b[2]; B += 0.5 * b[k] * Qb[k]; }
    if (!g) return B;
    for (i = 0; i < 3; ++i) { w[i] = L[0][i] * Qb[0] + L[1][i] * Qb[1] + L[2][i] * Qb[2]; g[i] = w[i] * d1[i]; }
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            double lql = 0.0;
            for (k = 0; k < 3; ++k) for (l = 0; l < 3; ++l) lql += L[k][i] * Q[3 * k + l] * L[l][j];
            H[3 * i + j] = lql * d1[i] * d1[j] + (i == j ? w[i] * d2[i] : 0.0);
        }
    return B;
}

/* the polish's convex model of stencil t: B_t, its angle gradient, and its angle Hessian clamped
   to PSD (the block alone: its curvature is real once x is fixed), projected only when it is not
   positive definite already (leading minors; the eigen-solve was 40% of the polish's time) */
static double rc__sim_polish_block(const rc_sim *s, int t, const double *phi, double g[3], double H[9])
{
    double work[3 * 9 + 3], B = rc__sim_polish_bend(s, t, phi, g, H);
    double m2 = H[0] * H[4] - H[1] * H[3];
    double m3 = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) + H[2] * (H[3] * H[7] - H[4] * H[6]);
    if (!(H[0] > 0.0 && m2 > 0.0 && m3 > 0.0)) rc__psd_project_jacobi(3, H, RC__PROJECT_CLAMP, work);
    return B;
}

static double rc__sim_polish_energy(const rc_sim *s, const double *phi)
{
    double B = 0.0;
    int t;
    for (t = 0; t < s->nt; ++t) B += rc__sim_polish_bend(s, t, phi, NULL, NULL);
    return B;
}

/* Newton on the director angles alone (x, u fixed), at most 10 iterations, until l_e |dphi| <= bound:
   sys_p's gradient and per-stencil clamped angle Hessians from the stored stencils, backtracking
   Armijo on the bending energy (the rest of E is constant), then E evaluated once at the result,
   which is kept only if E did not rise (round-off of the two sums). */
static rc_status rc__sim_polish_phi(rc_sim *s, double bound, double *E, rc__terms *T, rc_step_stats *st)
{
    rc__system *y = &s->sys_p;
    double *phi0 = s->polish + (size_t)RC__POLISH_W * s->nt, scale, t0 = rc__now();
    int it, t, e, moved = 0;
    rc__terms Tn;
    if (y->ndof == 0) return RC_OK;
    scale = rc__terms_scale(*E, T);
    memcpy(phi0, s->phi, sizeof(double) * (size_t)s->ne);
    rc__sim_polish_prepare(s);
    for (it = 0; it < 10; ++it) {
        double dx, du, dphi, gTd = 0.0, B0 = 0.0, alpha;
        int i, ok = 0;
        rc_status rs;
        memset(y->g, 0, sizeof(double) * (size_t)y->ndof);
        memset(y->val, 0, sizeof(double) * (size_t)y->colptr[y->ndof]);
        for (t = 0; t < s->nt; ++t) {
            double g[3], H[9];
            rc__dofmap m;
            int k;
            B0 += rc__sim_polish_block(s, t, s->phi, g, H);
            m.n = 0;
            for (k = 0; k < 3; ++k) {
                int ek = s->topo.tri_edge[3 * t + k];
                m.g[m.n] = y->dof_phi[ek];
                m.c[m.n++] = 1.0 / s->edge_len0[ek];   /* the solver's unknown is l_e phi_e */
            }
            rc__system_scatter(y, &m, g, H);
        }
        if (st) st->t_assemble += rc__now() - t0;
        rs = rc__system_direction(s, y, st);
        if (rs != RC_OK) return rs;
        t0 = rc__now();
        rc__sim_dir_size(s, y, &dx, &du, &dphi);
        for (i = 0; i < y->ndof; ++i) gTd += y->g[i] * y->d[i];
        if (!(gTd < 0.0)) break;
        memcpy(s->ls_phi, s->phi, sizeof(double) * (size_t)s->ne);
        for (alpha = 1.0, i = 0; i < 60; ++i, alpha *= 0.5) {
            double Bn;
            for (e = 0; e < s->ne; ++e) s->phi[e] = s->ls_phi[e] + (y->dof_phi[e] >= 0 ? alpha * y->d[y->dof_phi[e]] / s->edge_len0[e] : 0.0);
            Bn = rc__sim_polish_energy(s, s->phi);
            if (rc__isfinite(Bn) && Bn <= B0 + 1e-4 * alpha * gTd) { ok = 1; break; }
            if (fabs(alpha * gTd) <= 1e-12 * scale) break;   /* the model decrease is below round-off */
        }
        if (st) st->t_line_search += rc__now() - t0;
        t0 = rc__now();
        if (!ok) { memcpy(s->phi, s->ls_phi, sizeof(double) * (size_t)s->ne); break; }
        moved = 1;
        if (dphi <= bound) break;
    }
    if (!moved) return RC_OK;
    {
        double En = rc__sim_energy(s, s->x, s->u, s->phi, &Tn);
        if (st) st->t_line_search += rc__now() - t0;
        if (!(En <= *E)) { memcpy(s->phi, phi0, sizeof(double) * (size_t)s->ne); return RC_OK; }
        *E = En;
        *T = Tn;
    }
    if (s->def.iterate_hook) s->def.iterate_hook(s, s->def.iterate_user);
    return RC_OK;
}

#define RC__POLISH_NEAR 100.0   /* polish the angles once x is within this many times its bound */
/* Newton on (x, phi) with u fixed, until the direction satisfies max|dx| <= tol L h and
   max l_e|dphi| <= tol L h, or (gain_floor > 0, r-ITR's inner solves) its Newton decrement -g.d is
   at most gain_floor. *conv = 1 on convergence; a cap or a stalled line search leaves *conv = 0
   and returns RC_OK.
   Why the decrement test (r-ITR passes itr_energy_tol times the step's IP decrease so far, the
   outer iteration's own relative test): an adaptive sheet's free corners, where the boundary
   vertices have slid close to the corner and left thin triangles, make (x, phi) Newton crawl on a
   soft mode. Traced on the 1k ablation's eighth step problem: a confirming solve took 99
   iterations, full exact Newton steps of 50-200 times the length bound turning the corner edges'
   director angles by up to 1.3 rad in all, each gaining 1e-9 to 1e-7 J, 3.5e-5 J in all of a 0.094 J
   step decrease (and the periodic strict solve before it hit its cap of 25). The length test cannot
   see that such steps no longer matter; the decrement can. Measured (the same 20 step problems of
   seven 1k scenes, adaptive, 1 thread): outer + inner iterations 3,719 -> 2,394 (fold 774 -> 379),
   final IPs within 1.04% of each step's decrease of the old ones (mean within 0.07%), every
   problem converged; the 1k ablation: the unaccelerated solve 135.6 -> 52.4 inner iterations per
   step, the accelerated one 35.6 -> 6.4 (bench/RESULTS.md section 17). */
/* A non-finite gradient, explained where the cause is visible: a world triangle without a plane
   (its normal, hinge angles and directors undefined), which pins can make by moving a vertex onto
   a neighbour's position or line (a probe: the bare "gradient is not finite" left the user guessing) */
static rc_status rc__sim_fail_gradient(rc_sim *s)
{
    char msg[200];
    int t;
    for (t = 0; t < s->nt; ++t) {
        const int *v = s->tris + 3 * t;
        if (rc__tri_flat(s->x + 3 * v[0], s->x + 3 * v[1], s->x + 3 * v[2])) {
            snprintf(msg, sizeof msg, "the gradient is not finite: world triangle %d (vertices %d %d %d) has collapsed to a line or a "
                     "point%s", t, v[0], v[1], v[2], s->pinned[v[0]] || s->pinned[v[1]] || s->pinned[v[2]] ?
                     " (a pin moved a vertex onto its neighbours?)" : "");
            return rc__sim_fail(s, RC_ERR_NON_FINITE, msg);
        }
    }
    return rc__sim_fail(s, RC_ERR_NON_FINITE, "the gradient is not finite (loads, velocities or stiffnesses far too large?)");
}

static rc_status rc__sim_newton_xp(rc_sim *s, double tol, double gain_floor, int max_iter, int exact_first, double *E, rc__terms *T, int *iters,
                                   int *conv, rc_step_stats *st)
{
    rc__system *y = &s->sys_xp;
    double bound = tol * s->L * s->def.dt;
    int it, ok, k, by_length, by_floor;
    rc_status rs;
    int exact = exact_first;   /* try the exact Hessian at this iteration (0: the convex model first) */
    int flat = 0;       /* consecutive accepted iterations that left E unchanged */
    int crawl = 0;      /* iterations on the scaled-gradient fallback (rc__system_direction) */
    int cut = 0;        /* consecutive iterations whose line search halved its first trial 4+ times */
    double E_before, gTd;
    *conv = 0;
    *iters = 0;
    s->stop_why = s->def.adaptive ? "an inner Newton solve's iteration cap (max_newton_iters, or the periodic strict solve's)"
                                  : "the Newton iteration cap (max_newton_iters)";
    for (it = 0; it < max_iter; ++it) {
        double dx, du, dphi, alpha, t0 = rc__now();
        /* Projected Hessians make Newton linear where the true Hessian has negative curvature
           (compression, buckling; DESIGN §3): the clamped model is stiffer than the energy along
           the buckling mode, so every step stops short of the snap (measured: 20-90 iterations
           per step while a 1k sheet folds). So the direction comes from the exact Hessian H:
           H itself when the LDL^T finds it positive definite; else H + mu I with the
           Levenberg-Marquardt shift mu of rc__system_direction_shifted_mu, mu kept across
           iterations and steps in s->newton_mu (x 0.3 after a full step, x 3 after a shortened
           one, as a trust radius); only if no shift works, after a shortened step (the model
           was not trusted), or at the first iteration when the caller says so (exact_first = 0:
           r-ITR's iteration from the predictor), the convex model: per-stencil projected Hessians, with the bending
           stencils' Gauss-Newton Hessian in place of their projection (rc__sim_kernel_B).
           Measured (old and new build one after the other, 100 steps, CPU s): adaptive two-point, sphere,
           cube, spikes and didactic drapes at 225 vertices 246 -> 172 s, fixed sphere, cube, spikes 41.8 ->
           29.5 s, every step converged in both. (An earlier version rejected the shift here: it damped the
           soft director angles into round-off stalls; the projected retry after a failed exact line search
           below, added since, and the fold profile end those.) */
        int saved_proj = s->proj, used_exact = 0, used_shift = 0;
        s->dir_fallback = 0;
        if (exact && s->def.newton_exact_hessian && s->def.linear_solver == RC_SOLVER_LDLT) { s->proj = -1; used_exact = 1; }
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        s->proj = saved_proj;
        if (st) st->t_assemble += rc__now() - t0;
        if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
        if (!rc__all_finite(y->g, (size_t)y->ndof)) return rc__sim_fail_gradient(s);
        if (used_exact) {
            t0 = rc__now();
            rs = rc_ldlt_factor(y->ldlt, y->val);
            if (st) st->t_factor += rc__now() - t0;
            if (rs == RC_OK) {
                for (k = 0; k < y->ndof; ++k) y->d[k] = -y->g[k];
                rs = rc_ldlt_solve(y->ldlt, y->d);
                if (st) st->linear_solves++;
            } else if ((rs = rc__system_direction_shifted_mu(s, y, &s->newton_mu, &s->newton_mu_fail, st)) != RC_ERR_NOT_SPD) {
                used_shift = 1;
            } else {
                t0 = rc__now();
                rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                if (st) st->t_assemble += rc__now() - t0;
                rs = rc__system_direction(s, y, st);
                used_exact = 0;
            }
        } else rs = rc__system_direction(s, y, st);
        if (rs != RC_OK) return rs;
        rc__sim_dir_size(s, y, &dx, &du, &dphi);
        for (gTd = 0.0, k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        /* the direction is paid for: take it even when it is already below the bound, else a
           sub-tolerance velocity error is never corrected and carries on from step to step */
        ++*iters;
        E_before = *E;
        ok = rc__sim_line_search(s, y, E, T, &alpha, st);
        if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
        by_length = dx <= bound && dphi <= bound;
        /* the decrement tests: below gain_floor; or, where E could not follow the direction (no
           decrease at all), within the length tolerance in the inertia metric, M (tol L dt / h)^2
           (the bound on every vertex weighed by M/h^2; r-ITR's decrement_strict at h = dt), where
           the length test fails on a direction that no longer matters. Measured: a 0.5 m sheet held 20-fold
           between two corners (2e5 J of stretch) at its equilibrium, whose exact Hessian needs a
           shift (a short shifted direction is not trusted, below) while the convex model's
           Gauss-Newton bending block, far from the exact one at such strains, turned the director
           angles by 0.2-2 rad for -g.d of 3e-13 to 4e-12 J, E unchanged to the last bit: every step
           ended unconverged on the failed or flat line searches, and rc_sim_solve_static ran to
           its cap of 400 pseudo steps (test_sim_taut_sheet_converges). */
        by_floor = !by_length && gTd < 0.0 &&
                   (-gTd <= gain_floor || ((!ok || !(*E < E_before)) && -gTd <= s->total_mass * (bound / s->h) * (bound / s->h)));
        if ((by_length || by_floor) && !s->dir_fallback) {
            /* a short shifted direction is no evidence of convergence: (H + mu I) d = -g is short
               wherever mu is large, whatever g is. The convex model (per-stencil projection, no
               shift) must agree: the next iteration takes it, and converges if its direction is
               short too. Measured: a thin reference triangle (height 3e-5 of its edge) made the
               Hessian at the step's start indefinite by far more than the inertia (its geometric
               stiffness from rounding-level strain grows like 1/height^2), the shift search
               climbed to 1e8 N/m, and every step after the first "converged" after one
               iteration, the sheet falling at constant speed under gravity. The norm test
               mu |d| > |g| / 2 does not see it: g is the thin triangle's, the shift hid the
               rest. */
            if (used_shift) { exact = 0; continue; }
            if (by_floor && -gTd <= gain_floor && st) st->inner_relative_stops++;
            *conv = 1;
            break;
        }
        if (used_shift) s->newton_mu *= ok && alpha >= 1.0 ? 0.3 : 3.0;   /* trust the model more / less */
        /* a failed line search on an exact-Hessian direction: that Hessian was positive definite
           but nearly singular in the soft director angles, so the direction's angle part was huge
           (thousands of times the bound) and only round-off-sized steps along it were tried.
           Retry the iteration with the projected Hessian instead of ending the solve (measured:
           2 of 100 adaptive two-point steps ended unconverged this way, none with the retry) */
        if (!ok && used_exact) { exact = 0; continue; }
        /* no finite energy anywhere along the convex model's direction either, down to 2^-60 of
           it: the loads, stiffnesses or velocities are so large that the energy overflows. An
           error, not a stall: earlier a force of 1e100 N returned RC_OK with the cloth
           frozen */
        if (!ok && s->ls_nonfinite)
            return rc__sim_fail(s, RC_ERR_NON_FINITE, "the energy overflows along every Newton step tried (loads, stiffnesses or velocities far too large?)");
        /* no decrease down to 1e-14 of the step although the model promised one above round-off
           (DESIGN §4: a direction that cannot decrease E at all is an error, not a stall). Seen
           with gravity of 1e100 m/s^2: E at the start was 0 by cancellation, so the old round-off
           test (relative to |E|) never fired and the step returned RC_OK, the cloth frozen; the
           round-off scale is now the largest energy term */
        if (!ok && s->ls_nodescent)
            return rc__sim_fail(s, RC_ERR_NO_DESCENT, "no decrease of the energy along the Newton direction down to 1e-14 of it, above round-off (loads or stiffnesses far too large?)");
        if (!ok) { s->stop_why = "a Newton line search found no decrease above round-off"; break; }
        exact = alpha == 1.0;
        if (dx <= RC__POLISH_NEAR * bound && dphi > bound) {
            /* x is near its optimum but the director angles are not: polish them by Newton on phi
               alone (rc__sim_polish_phi, a few sines per stencil per iteration). At sharp folds
               (hinge angles near pi) they otherwise wander 0.005-0.09 rad per (x, phi) iteration
               for 20-30 iterations (bench/RESULTS.md section 13). Polishing once x is within 100
               times its bound, not only once it has converged, takes most of those iterations off
               the full Newton. Measured (RESULTS section 15; the same 20 step problems per scene,
               1k, adaptive, 1 thread, CPU s): sphere, two-point, cube, spikes, skirt panels,
               dress, fold drapes 210.7 -> 175.7 s in all (every scene faster, 5-23%); within 1000
               times or at every iteration 189.9 and 186.6 s; the 1k ablation's unaccelerated
               solve 4.49 -> 3.75 s per step and the accelerated one 2.00 -> 1.72. */
            rs = rc__sim_polish_phi(s, bound, E, T, st);
            if (rs != RC_OK) return rs;
        }
        /* round-off stall: the line search accepts steps (Armijo holds when alpha g.d is below
           the energy's last digit) that leave E unchanged to the last bit; measured on the
           adaptive two-point drape, an inner solve sat at dx = 5e-11 bound, l dphi = 1.35 bound
           for all its 100 iterations, with E equal to 13 digits. Three such iterations in a row
           end the solve unconverged. */
        flat = *E < E_before ? 0 : flat + 1;
        if (flat >= 3) { s->stop_why = "a round-off stall: three Newton iterations left the energy unchanged"; break; }
        /* ten iterations on the scaled gradient: the convex model's LDL^T fails even under shifts at
           the diagonal's scale (collapsed elements beside a barrier, rc__system_direction), so the
           solve only crawls; end it unconverged. Measured (session 55): the didactic drape without
           the regulariser at 324 vertices spent 3,682 s in 153,734 Newton iterations over 600 steps,
           its inner solves running to the cap of 100 iterations on this direction, each gaining
           ~1e-6 J; at 121 vertices up to 301 inner iterations per step from step ~220. No other CLI
           scene ever takes that direction (their trajectories are bit-identical with the rule). */
        if (s->dir_fallback && ++crawl >= 10) {
            s->stop_why = "ten Newton iterations on the scaled-gradient fallback (the convex model did not factor)";
            break;
        }
        /* ten iterations in a row whose line search had to halve its first trial four times or more:
           the model (exact or convex) is far from the energy along its own direction and Newton
           only crawls; end the solve unconverged. (Halvings, not alpha: a first trial cut short by
           the CCD bound is the contact's doing; a barrier rising steeply inside it can still need
           halvings, but not for ten iterations in a row in any CLI scene.) Measured (session 56):
           the no-regulariser drape at 100 vertices, collapsed, whose confirming inner solves ran
           to the cap of 100 iterations on convex-model directions with director-angle parts
           1e4-5e5 times the bound, halved 6-9 times and gaining ~1e-8 J each: 170 of 600 steps
           took 100-301 inner iterations (386 s in all). */
        cut = s->ls_halvings >= 4 ? cut + 1 : 0;   /* ok here: a failed line search ended the loop above */
        if (cut >= 10) { s->stop_why = "ten Newton iterations in a row whose line search had to cut the step 16-fold"; break; }
    }
    return RC_OK;
}

/* How far the material moved in a joint step: max_i |dx_i - (grad_u x)_i du_i|. Sliding a vertex
   through the material by du drags x along the surface by (grad_u x) du without moving any
   material point; only the remainder is physical motion, so that remainder (not |dx|) says
   whether x still needs an inner solve. Uses x0_G as scratch (rc__sim_finish refills it). */
static double rc__sim_material_step(rc_sim *s, const rc__system *y)
{
    double m = 0.0, *G = s->x0_G;
    int i, c;
    rc__sim_recover_gradients(s, s->u, s->x, G);
    for (i = 0; i < s->nv; ++i) {
        double du[2];
        rc__sim_dof_du(s, y, i, du);
        for (c = 0; c < 3; ++c) {
            int g = y->dof_x[3 * i + c];
            double r = (g >= 0 ? y->d[g] : 0.0) - G[6 * i + 2 * c] * du[0] - G[6 * i + 2 * c + 1] * du[1];
            if (fabs(r) > m) m = fabs(r);
        }
    }
    return m;
}

/* The outer direction from a new factorization of the assembled exact joint matrix (shifted); if
   no shift makes it definite, from the projected blocks, reassembled. */
static rc_status rc__sim_outer_fresh(rc_sim *s, rc__system *y, rc_step_stats *st)
{
    double t0;
    rc_status rs;
    s->itr_cg_last = 0;   /* a new factor */
    rs = rc__system_direction_shifted(s, y, st);
    if (rs != RC_ERR_NOT_SPD) return rs;
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);   /* the cache holds exact blocks */
    t0 = rc__now();
    rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
    st->t_assemble += rc__now() - t0;
    return rc__system_direction(s, y, st);
}

/* One outer joint direction: assemble the joint system (exact stencil Hessians when exact, else
   projected; cached stencils when use_cache) and solve it (shifted when exact; if no shift makes
   the exact Hessian definite, reassemble projected and take that step). *rate: active rate. */
static rc_status rc__sim_outer_direction(rc_sim *s, rc__system *y, int exact, int use_cache, double *rate, int *stale, rc_step_stats *st)
{
    int saved_proj = s->proj;
    double t0 = rc__now(), r;
    *stale = 0;
    s->dir_fallback = 0;
    if (exact) s->proj = -1;
    r = rc__sim_assemble(s, y, s->x, s->u, s->phi, use_cache);
    s->proj = saved_proj;
    st->t_assemble += rc__now() - t0;
    if (rate) *rate = r;
    if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
    if (!rc__all_finite(y->g, (size_t)y->ndof)) return rc__sim_fail_gradient(s);
    if (!exact) return rc__system_direction(s, y, st);
    /* The CG iterations a reused factor needs grow with every outer iteration since it was made
       (a trace of the 1k ablation: 4, 6, 15, then 20 and a failure; 5, 9, 11, 15, 20 and a
       failure), and a failure costs the whole itr_factor_reuse iterations before the
       factorization it ends in (40 of 132 attempts failed, 44% of the CG work). So once an
       attempt needed more than half of them, the next direction refactors at once. Measured (the
       same 20 step problems of seven 1k scenes): outer + inner iterations 3,809 -> 3,719, CG
       iterations of the 1k ablation's 8 problems 1,248 -> 875; its 4k problems 14.8 / 44.8 ->
       14.0 / 44.5 outer / inner iterations per step (bench/RESULTS.md section 16). */
    if (use_cache && s->def.itr_factor_reuse > 0 && 2 * s->itr_cg_last <= s->def.itr_factor_reuse) {
        int its = 0, ok;
        t0 = rc__now();
        ok = rc__system_solve_stale(y, s->itr_mu, s->def.itr_factor_eta, s->def.itr_factor_reuse, &its);
        st->t_solve += rc__now() - t0;
        st->cg_iters += its;
        /* no shift search ran, but the Hessian moved on: the memory of the last rejected shift
           halves as after a search without retry (else, after a run of reused factors, the next
           search starts from a shift the Hessian outgrew long ago: measured 0.2 -> 10 in one
           iteration, and that heavily shifted, short direction passed the stopping test) */
        if (ok) { s->itr_cg_last = its; st->linear_solves++; st->factor_reuses++; *stale = 1; s->itr_mu_fail *= 0.5; return RC_OK; }
    }
    return rc__sim_outer_fresh(s, y, st);
}

/* ---------------------------------------------------------------------------------------------
   The scheduled r-ITR solve of one step (DESIGN §4): inner Newton on (x, phi) at a tolerance that
   tightens geometrically from eps0 to eps* with a strict solve every k-th outer iteration, and an
   outer Newton step on (x, phi, u) jointly with cached stencil Hessians.

   Outer Hessian (our deviation from DESIGN's per-stencil projection, def.itr_exact_hessian = 1):
   the EXACT joint Hessian plus a Levenberg-Marquardt shift mu I (rc__system_direction_shifted).
   Why: projecting each stencil's Hessian to PSD adds curvature along the sliding directions of u,
   where the stencils' negative and positive parts cancel in the sum; measured on the 256-vertex
   sphere drape, the projected direction's energy decrease equalled -g.d (the energy was linear
   along it, the model curvature was fictitious), every line search took the full step and the
   u step shrank by 0.2% per outer iteration: 300 iterations without converging. The exact Hessian
   is only mildly indefinite there (the smallest accepted mu is ~1e-5 of the mean diagonal) and
   the same steps converge in 50-200 outer iterations with a lower IP. In this mode the loose inner
   solves are skipped (the joint step contains x's Newton step); the strict every-k and the
   confirming inner solves remain, so "unaccelerated" (itr_schedule = 0) still means a strict inner
   solve at every outer iteration (strict: to the length tolerance, or to the relative decrement
   rule of rc__sim_newton_xp, which every variant shares). Convergence: the joint step below eps* L
   dt (x, phi) and eps* l dt (u), or its Newton decrement -g.d below M (eps* L)^2 (the same
   tolerance in the inertia norm, which also ends steps whose u is flat), or -g.d below
   itr_energy_tol (1e-3) times the IP decrease the step has made so far; then a strict inner solve
   that takes at most one step or converges gaining no more than that fraction of the decrease (if
   its line search stalls on its first step, at round-off, the step ends unconverged instead of
   repeating the same small joint step up to the cap). Every inner solve, strict ones included, also
   counts as converged once its own Newton decrement is below that fraction (rc__sim_newton_xp: x's
   crawl on soft modes; 0 at the first outer iteration, where the step has decreased nothing yet;
   the confirming solve only after a healthy shift).
   Why the relative test (measured): convergence in u is linear with long flat stretches (DESIGN
   §10); on the 225-vertex sphere drape, after the 5th outer iteration a step typically gained
   1e-7 J per iteration out of a 1e-2 J step decrease and ran 50-300 iterations. With the test,
   30 steps took 14 s instead of 35 s CPU (1k vertices: 1.4 s instead of 26 s per early contact
   step). The price: where u still drifts, the step leaves that drift to the next steps (u carries
   over); on the first two-point drape step of test_adaptive (a 1.1 J decrease) the IP ends
   0.035 J above the fully converged solve (0.113 in 26 outer iterations vs 0.078 in 94; the
   fixed mesh: 0.378). itr_energy_tol = 0 restores the absolute tests alone.
   Factor reuse (with itr_cache): the joint direction is first sought by at most itr_factor_reuse
   (20) CG iterations preconditioned by the joint factor of an earlier outer iteration, to a
   relative residual itr_factor_eta (0.3); only if that fails is the matrix refactored (the cache of
   the derivatives extended to the factorization, which costs far more than the stencil Hessians
   once they are exact). Measured when it was added: 1k sphere drape, 15 steps: 56 -> 33 s CPU;
   eta 0.1 was slower (44 s), 0.5 no faster (36 s); a cap of 10 iterations refactored more (37 s).
   Today (bench_sim ablation, every variant solving the same 8 saved step problems) the cache does
   not pay at 225 vertices: schedule 1.47x, both 1.39x over the unaccelerated solve (final IPs
   within 1.6% of each step's decrease); converged to the same IP (itr_energy_tol = 0) schedule
   1.87x, both 1.86x. At 1k it pays on top of the schedule, through the factor reuse: schedule
   1.49x, both 1.75x, blocks only 1.48x; alone it is a net loss (0.85x).
   --------------------------------------------------------------------------------------------- */
#define RC__ITR_STRICT_CAP 25   /* Newton iterations of a periodic strict inner solve (rc__sim_ritr) */
/* whether the outer joint direction's Levenberg-Marquardt shift is a healthy one, so that a short
   direction says the state is near converged: the directions judged converged have mu below 0.1 of
   the mean diagonal (rc__system_direction_shifted_mu); a huge kept shift makes every direction
   short, ~ -g/mu (test_adaptive_huge_kept_shift). Without the exact Hessian no shift is taken
   (itr_mu stays 0). */
static int rc__sim_outer_shift_healthy(const rc_sim *s, const rc__system *y)
{
    double dg = 0.0;
    int k;
    for (k = 0; k < y->ndof; ++k) dg += fabs(y->val[y->colptr[k + 1] - 1]);
    return s->itr_mu < 0.1 * dg / (y->ndof > 0 ? y->ndof : 1);
}
static int rc__sim_update_handle_locks(rc_sim *s, int snap);
static int rc__sim_snap_to_handle(rc_sim *s, double *E, rc__terms *T);
static int rc__sim_handle_pingpong(rc_sim *s);
static rc_status rc__sim_ritr(rc_sim *s, double E_ref, double *E, rc__terms *T, rc_step_stats *st, int *conv)
{
    const rc_sim_def *d = &s->def;
    rc__system *y = &s->sys_xpu;
    double eps = d->itr_schedule ? d->itr_eps0 : d->tol, last_dx = HUGE_VAL, active_sum = 0.0;
    double bound_x_strict = d->tol * s->L * d->dt, bound_u_strict = d->tol * s->mean_edge * d->dt;
    /* the same tolerance in the energy norm: a step of tol*L*h on every vertex, measured in the
       inertia metric M/h^2, costs M (tol L)^2; a joint step whose Newton decrement -g.d is below
       that is converged even where u is flat (sliding an unstressed region changes nothing, so
       the step length there is arbitrary and the length test alone would never pass) */
    double decrement_strict = s->total_mass * (d->tol * s->L) * (d->tol * s->L);
    int exact = d->itr_exact_hessian && d->linear_solver == RC_SOLVER_LDLT;
    int j, inner_it, inner_conv, nactive = 0, stale = 0, small, small_unhealthy = 0, flat_moves = 0;
    double E_start = fmin(*E, E_ref), etol = d->itr_energy_tol;   /* the relative rules' reference (rc__sim_solve) */
    rc_status rs;
    *conv = 0;
    for (j = 1; j <= d->itr_max_outer; ++j) {
        int strict = !d->itr_schedule || (j % d->itr_strict_every) == 0;
        double tol = strict ? d->tol : eps, dx, du, dphi, alpha, gTd = 0.0;
        int k;
        /* inner solve; skipped when the previous joint step already met this tolerance. With the
           exact joint Hessian the joint step contains x's own Newton step (and x's response to
           du), so a loose inner solve repeats what the joint step does: then only the strict
           every-k solve (and the confirming one) runs an x-only Newton. Measured on the 256-vertex sphere drape, 5 steps: same IPs to 1e-4
           relative, 1.8x less time. */
        /* ... except at the first outer iteration, whose joint step must start from x near its
           optimum for the step's start u. Where the energy does not depend on how the mesh sits
           in the material (free flight, rigid motion, any unstressed region), sliding u with x
           following is a null direction of the energy at that optimum, but not of its Hessian
           away from it (g_x != 0). Measured: joint steps taken from the predictor slid u by
           ~0.2 mm per step in free fall under gravity tilted against the sheet; after one x-only
           Newton iteration first, u stays to the bit (test_adaptive_tilted_gravity_keeps_u: one
           iteration makes g_x zero where the energy is quadratic in x, as in free flight). Cost
           (100 steps at the CLI's default sizes, side by side with an earlier build, CPU s):
           two-point 3.00 vs 3.75, sphere 9.13 vs 8.95, cube 10.13 vs 9.91, spikes 11.16 vs
           10.58, every step converged. A whole inner solve at eps0 instead cost 10-35% more on
           the contact drapes (twice the inner iterations: from the predictor, contact takes
           several). */
        /* ... and strict when a support in frictional contact moved over the step (a box turned
           under the cloth, a kinematic mesh carrying it): the predictor then sits on the sliding
           branch of the friction, off the support-carried anchors, and after one Newton iteration
           x still has a gradient (measured 3.7e-3 on a sheet on a box spinning at 0.01 rad per
           step); the joint direction then follows the zero-curvature reparametrisation mode, u
           and x sliding together along the sheet, and nothing pulls u back: the sheet's u drifted
           by 5.1 cm in 100 steps (7.9 cm before the friction followed m_i(u)). Strict: 0 to the
           bit, and one outer iteration per step instead of 5-7. Not for every step: on the 1k
           drapes over resting shapes a strict first solve costs 9-38% more time (more inner
           iterations from the predictor through contact), while cloth sliding over a resting
           support does not drift (7e-5 m in 100 steps down a 20-degree plane, mu 0.2). */
        /* That first iteration, from the predictor, takes the convex model (per-stencil projected
           Hessians), not the exact Hessian the later ones try first. Why: at the adaptive
           predictor the exact (x, phi) Hessian is far from definite; measured over 30 steps of the
           1k sphere drape, the first iteration of 47 of 107 inner solves needed a shift, by 43 N/m
           on average (the mean diagonal is ~300), after 116 failed factorizations (2.5 per
           shifted solve); the fixed mesh's predictor needed 0.19 N/m on average (15 of 30 steps,
           14 failures). The large shift also stays in the kept shift (x 0.3 per full step), so
           the step's strict inner solves then ran 10-20 damped iterations before Newton's fast
           phase (bench/RESULTS.md section 3, session 33).
           Measured, side by side, adaptive, 1 thread, CPU s: 1k, 20 steps, sphere / two-point /
           cube / spikes / fold drapes 16.3 / 17.1 / 16.9 / 12.4 / 42.4 -> 13.8 / 15.0 / 13.5 /
           10.9 / 39.0; the eleven CLI scenes at their default sizes, 100 steps, 122.5 -> 106.3,
           none slower, every step converged. (In fixed mode the same change is no gain: 40 steps
           of six 1k scenes took 4,526 -> 4,512 Newton iterations, so it stays adaptive only.) */
        /* The periodic strict solve (every itr_strict_every-th outer iteration) runs at most
           RC__ITR_STRICT_CAP Newton iterations; the confirming one below, which decides whether the
           step has converged, runs to max_newton_iters. The periodic solve keeps the outer line
           search on the reduced energy honest, and the joint step that follows moves x again
           anyway; on a 1k fold pile one of them crept through the full 100 iterations (full exact
           Newton steps shrinking by ~0.85 each: the strip's free end sliding over the layers).
           Measured, side by side, 1k, 1 thread, CPU s (bench/RESULTS.md section 8): fold 25 steps
           128.8 -> 109.3 (inner iterations 1,481 -> 1,082), sphere / cube / spikes / two-point
           30 steps and dress 40 steps unchanged within noise (the cap rarely binds there), every
           step converged; the 1k ablation's unaccelerated solve (every outer iteration strict)
           5.80 -> 5.46 s per step, both accelerations 2.91 -> 2.59. */
        if (strict || j == 1 || (!exact && last_dx > tol * s->L * d->dt)) {
            int first_strict = j == 1 && s->support_moves;
            int cap = strict || !exact || first_strict ? d->max_newton_iters : 1;
            if (strict && !first_strict && cap > RC__ITR_STRICT_CAP) cap = RC__ITR_STRICT_CAP;
            rs = rc__sim_newton_xp(s, first_strict ? d->tol : tol, etol * (E_start - *E), cap, j > 1,
                                   E, T, &inner_it, &inner_conv, st);
            if (rs != RC_OK) return rs;
            st->inner_iters += inner_it;
        }
        /* outer joint direction */
        {
            double rate = 0.0;
            rs = rc__sim_outer_direction(s, y, exact, d->itr_cache, &rate, &stale, st);
            if (rs != RC_OK) return rs;
            if (j <= s->active_cap) s->active_hist[j - 1] = rate;
            active_sum += rate;
            nactive++;
        }
        for (k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        if (!(gTd < 0.0) && d->itr_cache) {
            /* a stale Hessian can still be singular-shifted into a bad direction: refresh all */
            memset(s->cache_valid, 0, (size_t)s->nt);
            rs = rc__sim_outer_direction(s, y, exact, 0, NULL, &stale, st);
            if (rs != RC_OK) return rs;
            for (gTd = 0.0, k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        }
        st->outer_iters = j;
        for (;;) {
            rc__sim_dir_size(s, y, &dx, &du, &dphi);
            small = ((dx <= bound_x_strict && du <= bound_u_strict && dphi <= bound_x_strict) || -gTd <= decrement_strict ||
                     -gTd <= etol * (E_start - *E)) && !s->dir_fallback;
            if (small && j == 1 && s->support_moves) {
                /* x is at its strict optimum for this u already, so the confirming inner solve
                   cannot reject the verdict, and E_start - E is mostly the x-only decrease: trust
                   it only from a healthy shift (converged directions have mu below 0.1 of the
                   mean diagonal, rc__system_direction_shifted_mu); from a huge kept shift, clamped
                   to the diagonal, a strict first solve "converged" the step after one outer
                   iteration at an IP 0.17 J above the solve's (test_adaptive_huge_kept_shift) */
                if (!rc__sim_outer_shift_healthy(s, y)) small = 0;
            }
            if (!small || !stale) break;
            /* the direction came from CG on an earlier factor, stopped at |r| <= eta |g|: it is
               short by up to eta, and so are -g.d and the step, which would end the step early
               (part of the early stops measured on 8 two-point steps, every variant solving the
               same step problems: final IPs 2.6% (mean) and up to 4.9% of a step's decrease above
               the unaccelerated solve's; the rest came from the shift memory, see
               rc__sim_outer_direction). The step is judged on the current matrix's own factor. */
            st->factor_reuses--;   /* that direction is discarded */
            stale = 0;
            rs = rc__sim_outer_fresh(s, y, st);
            if (rs != RC_OK) return rs;
            for (gTd = 0.0, k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        }
        if (small) {
            /* small joint step: confirm with a strict inner solve. Its decrement rule only from a
               healthy shift: a joint direction short because mu is huge judged the step small, and
               a one-iteration confirmation ended by the rule would end the step on it (a review
               found 11 such ends in the adaptive tests, mu 65 to 5e5) */
            double E_confirm = *E;
            rs = rc__sim_newton_xp(s, d->tol, rc__sim_outer_shift_healthy(s, y) ? etol * (E_start - *E) : 0.0,
                                   d->max_newton_iters, 1, E, T, &inner_it, &inner_conv, st);
            if (rs != RC_OK) return rs;
            st->inner_iters += inner_it;
            if (inner_it <= 1 || !(E_confirm - *E > 1e-12 * rc__terms_scale(*E, T))) {
                /* x needed at most one step: the joint state is converged (inner_conv = 1: x met
                   the strict tolerance or the decrement rule); or the inner solve stalled at
                   round-off (its first line search failed, or E moved by round-off only: the
                   line search's own floor), where another joint step would again be small and
                   stall the same way: end the step, reporting whether the inner solve converged.
                   Measured (session 53): the didactic drape without the regulariser, its
                   elements collapsed against the inversion filter, its shift driven to 1e14 by
                   line searches cut to alpha ~1e-7, repeated one such outer iteration (a small
                   joint step, two inner iterations gaining ~1e-17 J) until the cap of 300, at
                   5-8 s per step where its other steps take 0.05 s; the round-off floor ends it. */
                *conv = inner_conv;
                break;
            }
            /* x took several steps to converge (strict tolerance or decrement rule), but gained no
               more than the relative test tolerates of a joint step: the joint state is converged
               by the same rule that judged the step small. Without this, a next outer iteration
               only computed a joint direction (small again) and a one-step confirming solve, an
               assembly and a factorization of each system that moved nothing the stopping rule
               could see. Measured (the same 20 step problems of each of seven 1k scenes, adaptive,
               1 thread): outer + inner iterations 4,125 -> 3,809, every scene 6-10% fewer, every
               problem converged; the final IPs equal to print precision in most problems and at
               most 1.2e-3 (fold; mean 1.6e-4) of the step's decrease apart. Only from a healthy
               shift: a direction short because mu is huge judged the step small, and x's few steps
               then gained little too (test_adaptive_huge_kept_shift ended 11% of the decrease
               short); the next outer iteration, with mu decayed, finds the joint step again.
               itr_energy_tol = 0 keeps the one-step confirmation alone. */
            if (inner_conv && E_confirm - *E <= etol * (E_start - *E) && rc__sim_outer_shift_healthy(s, y)) { *conv = 1; break; }
            /* Small only because the shift is huge, three times in a row: the Hessian needs a shift
               at the diagonal's scale to be definite, so the next direction is as short again and
               x's solve gains as little. End the step, unconverged. Measured (session 53): the
               didactic drape without the regulariser, its collapsed elements' Hessians needing a
               shift of 1e17 (the mean diagonal's), repeated such an iteration to the cap of 300,
               each with a 100-iteration inner solve gaining 3e-12 J: 213 s for one step. */
            if (!rc__sim_outer_shift_healthy(s, y)) {
                if (++small_unhealthy >= 3) {
                    s->stop_why = "three short joint steps in a row under a shift at the Hessian diagonal's scale (a stall in u)";
                    break;
                }
            } else small_unhealthy = 0;
            last_dx = 0.0;
            flat_moves = 0;   /* "in a row": line searches of consecutive outer iterations */
        } else {
            double E_ls = *E;
            int moved = rc__sim_line_search(s, y, E, T, &alpha, st);
            small_unhealthy = 0;
            /* A line search that moved, by a step too short to change E, three times in a row is
               stalled too (below). Measured (session 56): the didactic drape without the
               regulariser at 225 vertices met collapsed states where every joint step was cut by
               the inversion filter to alpha ~1e-12, E unchanged to the bit, and 291 of its 600
               steps repeated that to the outer cap of 300 (810 s in all). */
            flat_moves = moved && !(E_ls - *E > 1e-12 * rc__terms_scale(*E, T)) ? flat_moves + 1 : 0;
            if (moved && !exact) last_dx = alpha * rc__sim_material_step(s, y);
            if (moved && exact) s->itr_mu *= alpha >= 1.0 ? 0.3 : 3.0;   /* trust the quadratic model more / less */
            /* Handle locks inside the step (rc__sim_update_handle_locks, u not moved), where a
               material handle's point meets the kinks of X(u): (a) the line search stalled at a
               point that reached an edge or a vertex during this step; measured on session 43's
               random handle sweep (26 seeds, 290 steps), every outer line search that ended a
               step unconverged had a handle's point within 1e-11 of an edge; (b) it shortened the
               step and a vertex hovering near a point was moved onto it (rc__sim_snap_to_handle);
               (c) an edge keeps crossing a point back and forth (rc__sim_handle_pingpong).
               Either way the step goes on with the locked layout. */
            if ((!moved || (alpha < 1.0 && s->nmh > 0 && rc__sim_snap_to_handle(s, E, T)) || (s->nmh > 0 && rc__sim_handle_pingpong(s))) &&
                rc__sim_update_handle_locks(s, 0)) {
                rc__sim_invalidate_layout(s);
                rs = rc__sim_ensure_systems(s);
                if (rs != RC_OK) return rs;
                stale = 0;
                last_dx = HUGE_VAL;
                flat_moves = 0;   /* a new layout: its line searches count afresh */
                if (!moved) continue;
            } else if (!moved || flat_moves >= 3) {
                /* stalled at round-off: finish with a strict inner solve */
                rs = rc__sim_newton_xp(s, d->tol, etol * (E_start - *E), d->max_newton_iters, 1, E, T, &inner_it, &inner_conv, st);
                if (rs != RC_OK) return rs;
                st->inner_iters += inner_it;
                s->stop_why = moved ? "three joint line searches in a row that changed the energy by round-off only"
                                    : "a joint line search found no decrease above round-off";
                break;
            }
        }
        eps = eps * d->itr_lambda > d->tol ? eps * d->itr_lambda : d->tol;
    }
    if (j > d->itr_max_outer) s->stop_why = "the outer iteration cap (itr_max_outer)";
    st->active_rate = nactive ? active_sum / nactive : 0.0;
    st->active_rate_per_iter = s->active_hist;
    st->num_active_rates = nactive < s->active_cap ? nactive : s->active_cap;
    return RC_OK;
}


/* ---------------------------------------------------------------------------------------------
   One time step: prepare (predictor, pins, barrier stiffness, lagged friction, a feasible start),
   solve (Newton or r-ITR), finish (velocities at material points, reactions, stats). An error
   restores the state exactly as it was and, if allowed, retries as two half steps.
   --------------------------------------------------------------------------------------------- */

/* Barrier stiffness (ours, IPC-like): at the first contact, kappa is set so that the barrier force
   at mid-range distance xi + dhat/2 carries ten times the weight of an average vertex: kappa_min,
   with the acceleration |g|, or 1e-4 L / dt^2 in gravity-free scenes (L the bounding-box
   diagonal; 1.4 m/s^2 for a 1 m square at dt = 0.01 s), rc__sim_accel_scale. Earlier that was
   |g| + 1 m/s^2, a constant with units: a scene scaled in length, time and gravity consistently
   (x2, x2, /2) then contacted with a different kappa (9% off) and left the fixed-mesh trajectory
   it repeats to the bit without contact. After each step, IPC's growth rule
   (rc_barrier_stiffness_update, frac 1e-2): kappa doubles when the closest pair (obstacles and
   self contact) ended with a gap d - xi below dhat/100 and closer than at the end of the previous
   step, once per halving of the gap below dhat/100 (up to 8), capped at 100 kappa_min. Earlier the
   simulator doubled kappa after every step that ended that deep, without the approach test and
   the cap: where a collapsed sheet could not leave the band (the didactic drape without the
   regulariser) kappa doubled at every step and the step's IP grew from -0.03 J to 4.6e11 J within
   25 steps while the sheet stood still. */
/* the scene's acceleration scale: |g| as created, or 1e-4 L / dt^2 without gravity (a length over
   a time squared that scales with the scene; not a floor under |g|, which at dt = 1e-4 s would be
   1.4e4 m/s^2 for a 1 m square) */
static double rc__sim_accel_scale(const rc_sim *s)
{
    return s->gravity_norm > 0.0 ? s->gravity_norm : 1e-4 * s->L / (s->def.dt * s->def.dt);
}

static double rc__sim_kappa_min(const rc_sim *s)
{
    double dm = s->def.contact_thickness + 0.5 * s->def.contact_dhat, db, m_avg = s->total_mass / s->nv;
    double a = rc__sim_accel_scale(s);
    rc_barrier(dm * dm, s->def.contact_thickness, s->def.contact_dhat, &db, NULL);
    return 10.0 * m_avg * a / (fabs(db) * 2.0 * dm);
}
static void rc__sim_init_kappa(rc_sim *s)
{
    s->kappa = rc__sim_kappa_min(s);
    s->kappa_prev_dist = 1e300;
}

/* IPC lagged friction: normal force magnitude lambda and tangent basis T at the step start, and
   the anchor: the start point carried by the obstacle's motion over the step, so slip is measured
   relative to the obstacle surface. */
/* Lagged friction against mesh obstacles (IPC), on every pair kind the mesh barrier has: (0) cloth
   vertex - obstacle triangle, (1) obstacle vertex - cloth triangle, (2) cloth edge - obstacle edge.
   For each pair within the barrier zone at the step start (cloth x^t, obstacle at mesh_xprev) it
   lags the normal force mu*lambda (lambda = kappa m |b'| 2d, m the edge-edge mollifier at the
   start, 1 otherwise), the closest-point weights w and the tangent basis P of the closest vector,
   carried to the end of the step with Q below (rc__sim_carry_basis). The obstacle is kinematic, so its side of the relative displacement is a constant of the step:
     rel = sum_{cloth k} w_k (x_k - x^t_k) + c,   c = sum_{obstacle j} w_j (X_j - X^prev_j)
   (X = mesh_x, the obstacle at the end of the step): slip is measured relative to the moving
   obstacle surface at the contact point. Record (RC__FM_STRIDE doubles): n cloth vertices (1..3),
   their indices (3), their weights (3), mu*lambda, P (6), c (3), Q (9), and for the pairs that act
   on a triangle's area (ft) the triangle and 1/A2 of the area the pair's barrier was weighted by at
   the step start (rc__sim_tri_pair_friction). Like the vertex-obstacle
   friction and the self friction, the cloth displacement is the slip of the material point at
   vertex k, x_k - x^t_k - Q G0_k (u_k - u^t_k) in adaptive mode (rc__sim_slip_extend), x_k - x^t_k
   otherwise. Q carries the material offset G0 du over the obstacle's motion as the analytic
   shapes' R R_prev^T does: the material point now at the vertex started G0 du away, where the
   obstacle moved by c + D G0 du, D the gradient of the obstacle triangle's displacement field
   (rc__sim_obs_carry_gradient: the triangle's, the edge's two triangles', the vertex's star's).
   Without it a cloth vertex could lower its friction by sliding in the material toward where the
   surface moved less: a sheet on a turning mesh floor slid u by 2.8 cm in its first 3 steps (0 on
   a turning box); a sheet across a turning tent's ridge, with Q = I at the ridge (edge-edge pairs),
   by 2.6 cm in 40 steps, 0.37 cm with the feature's gradient (and the basis carried). */
static double *rc__sim_fm_push(rc_sim *s, double **buf, int *n, int *cap)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        double *nf = (double *)rc__realloc(s->user, *buf, (size_t)nc * RC__FM_STRIDE, sizeof(double));
        if (!nf) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return NULL; }
        *buf = nf; *cap = nc;
    }
    return *buf + (size_t)RC__FM_STRIDE * (*n)++;
}
/* a record of the pairs that act on triangle t's area (ft), whose barrier was weighted by an area
   of A2 = 1/inv_A2 at the step start; kept by triangle once all are lagged (rc__sim_index_tri_friction) */
static double *rc__sim_ft_push(rc_sim *s, int t, double inv_A2)
{
    double *rec = rc__sim_fm_push(s, &s->ft, &s->nft, &s->cap_ft);
    if (rec) { rec[26] = t; rec[27] = inv_A2; }
    return rec;
}

/* one lagged pair record (rec: NULL after a failed push): n cloth vertices cv with weights cw
   (relative displacement sum_k cw_k dx_k + c), mu*lambda, the tangent basis P, the obstacle's side
   c and the carry Q of the material offset */
static void rc__sim_fm_record(double *rec, int n, const int *cv, const double *cw, double mu_lambda, const double P[6],
                              const double c[3], const double *Q)
{
    int k;
    if (!rec) return;
    rec[0] = n;
    for (k = 0; k < 3; ++k) { rec[1 + k] = k < n ? cv[k] : -1; rec[4 + k] = k < n ? cw[k] : 0.0; }
    rec[7] = mu_lambda;
    for (k = 0; k < 6; ++k) rec[8 + k] = P[k];
    for (k = 0; k < 3; ++k) rec[14 + k] = c[k];
    for (k = 0; k < 9; ++k) rec[17 + k] = Q[k];
}

/* Q = I + D for the material offsets of pairs at a mesh obstacle's feature (rc__sim_lag_mesh_friction):
   D the least-squares gradient of the obstacle's displacement over the step, d = X - X^prev, over
   the triangles tl[0..n) of the feature's neighbourhood (kind 0: its triangle; kind 2: the edge's
   one or two; kind 1: the vertex's star). Each triangle gives its three edge vectors e (at the
   start) with their displacement differences, and its unit normal scaled by its size, l n with
   l = sqrt(|2 area|), with l (n_end - n_start):
     D = argmin sum |D e - (d_b - d_a)|^2 + sum |D l n - l (n_end - n_start)|^2 = B M^+,
     B = sum (data) v^T, M = sum v v^T over those vectors v
   The normals make M full rank for any neighbourhood with a non-degenerate triangle, flat or not,
   and the equations are consistent for a rigid motion: Q = R exactly (test_meshfric_carry_gradient_rigid).
   With edge vectors alone, a flat neighbourhood (one triangle, an open mesh's boundary) had no
   gradient across it, and a nearly flat one (a ridge of dihedral 2e-5 rad) turned an in-plane
   strain of 1e-4 into Q entries of ~10 (a review's probe). M^+: the pseudo-inverse (only
   degenerate triangles leave a direction unspanned, which then gets no gradient). */
static void rc__sim_obs_carry_gradient(const double *X, const double *Xp, const int *tris, const int *tl, int n, double Q[9])
{
    double M[9] = { 0 }, B[9] = { 0 }, ev[3], V[9], Mp[9] = { 0 }, emax;
    int k, r, c, i, a;
    for (k = 0; k < n; ++k) {
        const int *tv = tris + 3 * tl[k];
        double v[4][3], dv[4][3], ns[3], ne[3], e0[3], e1[3], l, le;
        for (a = 0; a < 3; ++a) {   /* the edges tv[a] -> tv[a + 1] */
            int p = tv[a], q = tv[(a + 1) % 3];
            for (c = 0; c < 3; ++c) {
                v[a][c] = Xp[3 * q + c] - Xp[3 * p + c];
                dv[a][c] = (X[3 * q + c] - Xp[3 * q + c]) - (X[3 * p + c] - Xp[3 * p + c]);
            }
        }
        rc__cross3(ns, v[0], v[1]);
        l = rc__norm3(ns);
        rc__add3(e0, v[0], dv[0]);   /* the edges at the end */
        rc__add3(e1, v[1], dv[1]);
        rc__cross3(ne, e0, e1);
        le = rc__norm3(ne);
        if (l > 0.0 && le > 0.0) {   /* the normal row: l n_start -> l (n_end - n_start) */
            double sq = sqrt(l);
            for (c = 0; c < 3; ++c) { v[3][c] = sq * ns[c] / l; dv[3][c] = sq * (ne[c] / le - ns[c] / l); }
        } else
            for (c = 0; c < 3; ++c) v[3][c] = dv[3][c] = 0.0;
        for (a = 0; a < 4; ++a)
            for (r = 0; r < 3; ++r)
                for (c = 0; c < 3; ++c) { M[3 * r + c] += v[a][r] * v[a][c]; B[3 * r + c] += dv[a][r] * v[a][c]; }
    }
    rc__sym_eig(3, M, ev, V);
    emax = fmax(ev[0], fmax(ev[1], ev[2]));
    for (i = 0; i < 3; ++i)
        if (ev[i] > 1e-12 * emax && emax > 0.0)
            for (r = 0; r < 3; ++r)
                for (c = 0; c < 3; ++c) Mp[3 * r + c] += V[3 * r + i] * V[3 * c + i] / ev[i];
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c)
            Q[3 * r + c] = (r == c) + B[3 * r] * Mp[c] + B[3 * r + 1] * Mp[3 + c] + B[3 * r + 2] * Mp[6 + c];
}

/* A pair's tangent basis P (3x2, row-major, orthonormal columns at the step start) carried with
   the obstacle to the end of the step: Q P, re-orthonormalised (Gram-Schmidt; a no-op for a rigid
   motion, where Q = R). Slip is measured in the plane the contact has at the end of the step, as
   for the analytic shapes' vertices. P itself if Q P is degenerate. */
static void rc__sim_carry_basis(const double Q[9], const double P[6], double Pc[6])
{
    double t1[3], t2[3], l1, l2;
    int k;
    for (k = 0; k < 3; ++k) {
        t1[k] = Q[3 * k] * P[0] + Q[3 * k + 1] * P[2] + Q[3 * k + 2] * P[4];
        t2[k] = Q[3 * k] * P[1] + Q[3 * k + 1] * P[3] + Q[3 * k + 2] * P[5];
    }
    l1 = rc__norm3(t1);
    if (l1 > 1e-6) rc__scale3(t1, 1.0 / l1, t1);
    rc__axpy3(t2, -rc__dot3(t1, t2), t1);
    l2 = rc__norm3(t2);
    if (!(l1 > 1e-6) || !(l2 > 1e-6)) { memcpy(Pc, P, 6 * sizeof(double)); return; }
    rc__scale3(t2, 1.0 / l2, t2);
    for (k = 0; k < 3; ++k) { Pc[2 * k] = t1[k]; Pc[2 * k + 1] = t2[k]; }
}

/* one lagged pair with mesh obstacle o: n cloth vertices cv with weights cw, m obstacle vertices
   ov with weights ow, the material offsets' carry Q (rc__sim_obs_carry_gradient); t < 0: a cloth
   vertex's pair (fm), else a term of triangle t's area whose barrier had the weight 1/inv_A2 (ft) */
static void rc__sim_fm_add(rc_sim *s, int o, int n, const int *cv, const double *cw, int m, const int *ov,
                           const double *ow, double mu_lambda, const double P[6], const double Q[9], int t, double inv_A2)
{
    const double *X = s->obs[o].mesh_x, *Xp = s->obs[o].mesh_xprev;
    double c3[3], Pc[6];
    int k, c;
    for (c = 0; c < 3; ++c) {
        c3[c] = 0.0;
        for (k = 0; k < m; ++k) c3[c] += ow[k] * (X[3 * ov[k] + c] - Xp[3 * ov[k] + c]);
    }
    rc__sim_carry_basis(Q, P, Pc);
    rc__sim_fm_record(t < 0 ? rc__sim_fm_push(s, &s->fm, &s->nfm, &s->cap_fm) : rc__sim_ft_push(s, t, inv_A2), n, cv, cw, mu_lambda, Pc, c3, Q);
}

/* Q G0 of a mesh friction record for cloth vertex v (3x2 row-major, as G0) */
static void rc__sim_fm_carry(const rc_sim *s, const double *rec, int v, double *QG)
{
    const double *Q = rec + 17, *G0 = s->fr_G + 6 * (size_t)v;
    int r, a;
    for (r = 0; r < 3; ++r)
        for (a = 0; a < 2; ++a) QG[2 * r + a] = Q[3 * r] * G0[a] + Q[3 * r + 1] * G0[2 + a] + Q[3 * r + 2] * G0[4 + a];
}

/* The share of its lagged normal force that each cloth vertex - obstacle triangle pair (np pairs,
   sorted by cloth vertex) keeps under the inclusion-exclusion of the barrier (rc__mesh_obstacle_
   flat, with ob's flags), at cloth positions x and the obstacle's positions: per vertex, the
   weighted sum of the normal forces of all its terms (triangles +1, flat edges -1, flat vertices
   +1) over the sum of its triangle pairs' alone. Over a planar patch that is the one support the
   barrier holds, however many triangles see the vertex at the same distance (two where it lies
   over a flat edge: 1/2 each, whichever type their nearest points classify as); where the surface
   bends, 1 (IPC's own count, as the barrier). By value, not by the nearest feature's type, which
   is ambiguous exactly on an edge (both triangles call such a point inside and the edge term is
   what makes the sum right). Unweighted, a sheet sliding over a two-triangle floor had its
   friction twice on the vertices over the diagonal. */
static void rc__sim_fm_shares(rc_sim *s, const rc__obstacle *ob, const double *x, const int *p0, int n0, double r,
                              double *share)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    const double *X = ob->mesh_x;
    int *p3 = NULL, *p4 = NULL, n3, n4, q0 = 0, q3 = 0, q4 = 0;
    n3 = rc__sim_mesh_pairs(s, ob, 3, x, NULL, 0.0, r, &p3);
    n4 = s->contact_status == RC_OK ? rc__sim_mesh_pairs(s, ob, 4, x, NULL, 0.0, r, &p4) : 0;
    while (q0 < n0 && s->contact_status == RC_OK) {
        int i = p0[2 * q0], q, q0end;
        double tri = 0.0, all;
        for (q0end = q0; q0end < n0 && p0[2 * q0end] == i; ++q0end) {
            const int *tv = ob->mesh_tris + 3 * p0[2 * q0end + 1];
            double d2 = rc__ct_point_triangle_d2(x + 3 * i, X + 3 * tv[0], X + 3 * tv[1], X + 3 * tv[2], NULL, NULL, NULL);
            if (sqrt(d2) < r) tri += rc__ct_normal_force(d2, xi_, dh, 1.0, 1.0);
        }
        all = tri;
        for (; q3 < n3 && p3[2 * q3] < i; ++q3) {}
        for (; q3 < n3 && p3[2 * q3] == i; ++q3) {
            const int *fv = ob->mesh_edges + 2 * p3[2 * q3 + 1];
            const double *P[4];
            double d2;
            P[0] = x + 3 * i; P[1] = X + 3 * fv[0]; P[2] = X + 3 * fv[1]; P[3] = P[2];
            (void)rc__ct_pe_case(P, 0, 1, 2, &d2);
            if (sqrt(d2) < r) all += rc__mesh_feature_weight(ob, 3, p3[2 * q3 + 1]) * rc__ct_normal_force(d2, xi_, dh, 1.0, 1.0);
        }
        for (; q4 < n4 && p4[2 * q4] < i; ++q4) {}
        for (; q4 < n4 && p4[2 * q4] == i; ++q4) {
            double d[3], d2;
            rc__sub3(d, x + 3 * i, X + 3 * p4[2 * q4 + 1]);
            d2 = rc__dot3(d, d);
            if (sqrt(d2) < r) all += rc__mesh_feature_weight(ob, 4, p4[2 * q4 + 1]) * rc__ct_normal_force(d2, xi_, dh, 1.0, 1.0);
        }
        for (q = q0; q < q0end; ++q) share[q] = tri > 0.0 && all > 0.0 && rc__isfinite(all / tri) ? all / tri : 0.0;
        q0 = q0end;
    }
    rc__free(s->user, p3);
    rc__free(s->user, p4);
}

static void rc__sim_lag_mesh_friction(rc_sim *s)
{
    int o, q, np, *pairs, c;
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, r = xi_ + dh;
    s->nfm = 0;
    for (o = 0; o < s->nobs; ++o) {
        rc__obstacle start = s->obs[o];
        const double *X;
        double *share;
        unsigned char *flat;
        int nfm0 = s->nfm, nft0 = s->nft;
        if (start.shape.kind != RC__OBS_TRIMESH || start.mu <= 0.0) continue;
        start.mesh_x = s->obs[o].mesh_xprev;
        X = start.mesh_x;
        /* the flat features at the start (rc__mesh_obstacle_flat), left out as in the barrier */
        flat = (unsigned char *)rc__alloc(s->user, (size_t)start.mesh_ne + (size_t)start.mesh_nv, 1);
        if (!flat) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
        rc__mesh_obstacle_flat(&start, X, flat);
        start.mesh_flat = flat;   /* the weights of the shares below too */
        /* (0) cloth vertex - obstacle triangle: w = {1, -barycentrics}, each with its share of the
           vertex's support (rc__sim_fm_shares) */
        np = rc__sim_mesh_pairs(s, &start, 0, s->x0, NULL, 0.0, r, &pairs);
        share = (double *)rc__alloc(s->user, (size_t)np + 1, sizeof(double));
        if (!share && s->contact_status == RC_OK) s->contact_status = RC_ERR_OUT_OF_MEMORY;
        if (s->contact_status == RC_OK) rc__sim_fm_shares(s, &start, s->x0, pairs, np, r, share);
        for (q = 0; q < np && s->contact_status == RC_OK; ++q) {
            int i = pairs[2 * q];
            const int *tv = start.mesh_tris + 3 * pairs[2 * q + 1];
            double w[4], P[6], d2, lam, Q[9];
            if (s->pinned[i] || !(share[q] > 0.0)) continue;
            d2 = rc__ct_point_triangle_d2(s->x0 + 3 * i, X + 3 * tv[0], X + 3 * tv[1], X + 3 * tv[2], NULL, NULL, NULL);
            if (!(sqrt(d2) < r)) continue;
            lam = share[q] * rc__ct_normal_force(d2, xi_, dh, s->kappa, rc__sim_vertex_weight(s, s->u, i));   /* weighted as the barrier */
            if (!(lam > 0.0) || !rc__isfinite(lam)) continue;
            rc__ct_pt_tangent(s->x0 + 3 * i, X + 3 * tv[0], X + 3 * tv[1], X + 3 * tv[2], w, P);
            rc__sim_obs_carry_gradient(s->obs[o].mesh_x, X, start.mesh_tris, pairs + 2 * q + 1, 1, Q);
            rc__sim_fm_add(s, o, 1, &i, w, 3, tv, w + 1, start.mu * lam, P, Q, -1, 0.0);
        }
        rc__free(s->user, pairs);
        rc__free(s->user, share);
        /* (1) obstacle vertex - cloth triangle: w = {1 (obstacle vertex), -barycentrics (cloth)};
           a term of the triangle's area (rc__sim_tri_pair_friction); the vertex's star gives the
           carry's gradient */
        np = rc__sim_mesh_pairs(s, &start, 1, s->x0, NULL, 0.0, r, &pairs);
        for (q = 0; q < np && s->contact_status == RC_OK; ++q) {
            const int *tri = s->tris + 3 * pairs[2 * q];
            int j = pairs[2 * q + 1];
            double w[4], P[6], d2, lam, A2 = rc__sim_tri_A2(s, s->u, pairs[2 * q]), Q[9];
            const double *t0 = s->x0 + 3 * tri[0], *t1 = s->x0 + 3 * tri[1], *t2 = s->x0 + 3 * tri[2];
            if ((s->pinned[tri[0]] && s->pinned[tri[1]] && s->pinned[tri[2]]) || flat[start.mesh_ne + j]) continue;
            d2 = rc__ct_point_triangle_d2(X + 3 * j, t0, t1, t2, NULL, NULL, NULL);
            if (!(sqrt(d2) < r)) continue;
            lam = rc__ct_normal_force(d2, xi_, dh, s->kappa, rc__sim_tri_area_weight(s) * A2);   /* weighted as the barrier */
            if (!(lam > 0.0) || !rc__isfinite(lam) || !(A2 > 0.0)) continue;
            rc__ct_pt_tangent(X + 3 * j, t0, t1, t2, w, P);
            rc__sim_obs_carry_gradient(s->obs[o].mesh_x, X, start.mesh_tris, start.mesh_vtri + start.mesh_vtri_start[j],
                                       start.mesh_vtri_start[j + 1] - start.mesh_vtri_start[j], Q);
            rc__sim_fm_add(s, o, 3, tri, w + 1, 1, &j, w, start.mu * lam, P, Q, pairs[2 * q], 1.0 / A2);
        }
        rc__free(s->user, pairs);
        /* (2) cloth edge - obstacle edge: w = {cloth a0, a1, obstacle b0, b1}, normal force with the
           start mollifier (eps_x as in rc__sim_mesh_contact); weighted as the barrier by the edge's
           area A_e (the sum over its triangles), so a term of each of its triangles: A2_T(u) / A2_e(u^t) */
        np = rc__sim_mesh_pairs(s, &start, 2, s->x0, NULL, 0.0, r, &pairs);
        for (q = 0; q < np && s->contact_status == RC_OK; ++q) {
            int e = pairs[2 * q];
            const int *ev = s->topo.edge_v + 2 * e, *fv = start.mesh_edges + 2 * pairs[2 * q + 1];
            const double *a0 = s->x0 + 3 * ev[0], *a1 = s->x0 + 3 * ev[1], *b0 = X + 3 * fv[0], *b1 = X + 3 * fv[1];
            double w[4], P[6], d2, lam, lb2 = 0.0, mol, A2 = rc__sim_edge_A2(s, s->u, e), Q[9];
            int side, nb = 0, nbr[2];
            if ((s->pinned[ev[0]] && s->pinned[ev[1]]) || flat[pairs[2 * q + 1]]) continue;
            d2 = rc__ct_edge_edge_d2(a0, a1, b0, b1, NULL, NULL, NULL);
            if (!(sqrt(d2) < r)) continue;
            for (c = 0; c < 3; ++c) lb2 += (b1[c] - b0[c]) * (b1[c] - b0[c]);
            mol = rc__ct_ee_mollifier(a0, a1, b0, b1, rc__ct_ee_mollifier_eps(s->edge_len0[e] * s->edge_len0[e], lb2), NULL, NULL);
            /* weighted as the barrier, by the edge's area */
            lam = rc__ct_normal_force(d2, xi_, dh, s->kappa, mol * rc__sim_edge_area_weight(s) * A2);
            if (!(lam > 0.0) || !rc__isfinite(lam) || !(A2 > 0.0)) continue;
            rc__ct_ee_tangent(a0, a1, b0, b1, w, P);
            for (side = 0; side < 2; ++side)   /* the obstacle edge's (up to) two triangles */
                if (start.mesh_etri[2 * pairs[2 * q + 1] + side] >= 0) nbr[nb++] = start.mesh_etri[2 * pairs[2 * q + 1] + side];
            rc__sim_obs_carry_gradient(s->obs[o].mesh_x, X, start.mesh_tris, nbr, nb, Q);
            for (side = 0; side < 2; ++side)
                if (s->topo.edge_tri[2 * e + side] >= 0)
                    rc__sim_fm_add(s, o, 2, ev, w, 2, fv, w + 2, start.mu * lam, P, Q, s->topo.edge_tri[2 * e + side], 1.0 / A2);
        }
        rc__free(s->user, pairs);
        rc__free(s->user, flat);
        if ((s->nfm > nfm0 || s->nft > nft0) && !rc__sim_mesh_still(s->obs + o)) s->support_moves = 1;
    }
}

/* Energy of one lagged mesh friction pair at x; with g (3n) and H (3n x 3n) its gradient and
   Hessian over the pair's cloth vertices. The obstacle side enters rc__ct_friction as one more
   stencil "vertex" with weight 1 and displacement c; its rows are dropped: the cloth block of the
   PSD stencil Hessian (a principal submatrix) is PSD, and exact wherever y != eps_v h. */
static double rc__sim_fm_pair(const rc_sim *s, const double *rec, const double *x, double *g, double *H)
{
    int n = (int)rec[0], k, l, c, a, b, m;
    double w[4], dx[12], gl[12], Hl[144], E;
    for (k = 0; k < n; ++k) {
        int v = (int)rec[1 + k];
        w[k] = rec[4 + k];
        for (c = 0; c < 3; ++c) dx[3 * k + c] = x[3 * v + c] - s->x0[3 * v + c];
        if (s->def.adaptive) {   /* material-point slip: minus Q G0 du */
            const double *Q = rec + 17, *off = s->fr_off + 3 * v;
            for (c = 0; c < 3; ++c) dx[3 * k + c] -= Q[3 * c] * off[0] + Q[3 * c + 1] * off[1] + Q[3 * c + 2] * off[2];
        }
        for (c = 0; c < 3; ++c) dx[3 * k + c] += s->fr_acc[3 * v + c];   /* statics: carried slip (still meshes) */
    }
    w[n] = 1.0;
    for (c = 0; c < 3; ++c) dx[3 * n + c] = rec[14 + c];
    E = rc__ct_friction(n + 1, w, rec + 8, dx, rec[7], rc__sim_fric_eps(s), g ? gl : NULL, H ? Hl : NULL);
    m = 3 * (n + 1);
    if (g) for (k = 0; k < 3 * n; ++k) g[k] = gl[k];
    if (H)
        for (k = 0; k < n; ++k) for (a = 0; a < 3; ++a)
            for (l = 0; l < n; ++l) for (b = 0; b < 3; ++b)
                H[(3 * k + a) * 3 * n + 3 * l + b] = Hl[(3 * k + a) * m + 3 * l + b];
    return E;
}

/* energy of the lagged friction of the cloth vertex - obstacle triangle pairs (fm); with y, gradient
   and Hessian added. In adaptive mode each is weighted by the vertex's mass as u moves,
   m_i(u)/m_i(u^t), as the analytic obstacles' friction (rc__sim_tri_friction): summed per vertex,
   then added as triangle terms (rc__sim_scatter_weighted). (The other kinds act on the cloth's
   triangles: rc__sim_tri_pair_friction.) */
static double rc__sim_mesh_friction(const rc_sim *s, const double *x, const double *u, rc__system *y)
{
    double E = 0.0, *vb = s->mesh_vb;
    size_t nv = (size_t)s->nv;
    int q, k, weighted = 0;
    for (q = 0; q < s->nfm; ++q) {
        const double *rec = s->fm + (size_t)RC__FM_STRIDE * q;
        double g[9], H[81], e;
        int v[3], n = (int)rec[0];
        e = rc__sim_fm_pair(s, rec, x, y ? g : NULL, y ? H : NULL);
        for (k = 0; k < n; ++k) v[k] = (int)rec[1 + k];
        if (n == 1 && s->def.adaptive) {
            size_t i = (size_t)v[0];
            E += e * rc__sim_vertex_weight(s, u, v[0]) / rc__sim_weight_per_A2(s) * s->fr_inv_A2[i];
            if (!y) continue;
            vb[i] += e;
            for (k = 0; k < 3; ++k) vb[nv + 3 * i + k] += g[k];
            for (k = 0; k < 9; ++k) vb[4 * nv + 9 * i + k] += H[k];
            if (y->with_u) {
                double QG[6], ge[5], He[25];
                const double *G = QG;
                int a, b;
                rc__sim_fm_carry(s, rec, v[0], QG);
                rc__sim_slip_extend(1, &G, g, H, ge, He);
                for (a = 0; a < 2; ++a) vb[13 * nv + 2 * i + a] += ge[3 + a];
                for (a = 0; a < 3; ++a) for (b = 0; b < 2; ++b) vb[15 * nv + 6 * i + 2 * a + b] += He[5 * a + 3 + b];
                for (a = 0; a < 2; ++a) for (b = 0; b < 2; ++b) vb[21 * nv + 4 * i + 2 * a + b] += He[5 * (3 + a) + 3 + b];
            }
            weighted = 1;
            continue;
        }
        E += e;
        if (y) rc__sim_slip_scatter(s, y, n, v, g, H);
    }
    if (weighted) rc__sim_scatter_weighted(s, y, u, 1.0, s->fr_inv_A2, y->with_u);
    return E;
}


/* one lagged core pair of analytic obstacle ob: the cloth's closest point p = sum_k cw_k x^t_k, its
   tangent basis P (start pose) carried to the end pose with Q = R R_prev^T, and the obstacle's
   side -(carried p - p) */
static void rc__sim_core_pair(rc_sim *s, const rc__obstacle *ob, int n, const int *cv, const double *cw, double mu_lambda,
                              const double P[6], int t, double inv_A2)
{
    double p[3] = { 0, 0, 0 }, pr[3], pc[3], c[3], Pc[6], Q[9];
    int k;
    if (!(mu_lambda > 0.0) || !rc__isfinite(mu_lambda)) return;
    for (k = 0; k < 3; ++k) {   /* Q, column by column */
        double e[3] = { 0, 0, 0 }, q[3];
        e[k] = 1.0;
        rc__sim_obs_carry(ob, e, q);
        Q[k] = q[0]; Q[3 + k] = q[1]; Q[6 + k] = q[2];
    }
    for (k = 0; k < n; ++k) rc__axpy3(p, cw[k], s->x0 + 3 * cv[k]);
    rc__obs_to_rest(ob->R_prev, ob->t_prev, p, pr);
    rc__obs_from_rest(ob->R, ob->t, pr, pc);
    rc__sub3(c, p, pc);
    rc__sim_carry_basis(Q, P, Pc);
    rc__sim_fm_record(rc__sim_ft_push(s, t, inv_A2), n, cv, cw, mu_lambda, Pc, c, Q);
}

/* Lagged friction of the analytic obstacles' round cores (rc__sim_round_core), pair by pair (IPC):
   a core's barrier acts on whole triangles (rc__sim_tri_round), so each of its pairs within the
   barrier zone at the step start (the obstacle at its start pose) gets its own friction record,
   like a mesh obstacle's (rc__sim_fm_record): the normal force kappa |b'(ds^2)| 2 ds at the pair's
   distance ds = d - r (times the mollifier for an edge pair), weighted as the barrier by the
   triangle's area at the step start; the cloth's closest point (barycentric weights over the
   triangle's 3 vertices, or the edge's 2); the tangent plane normal to the pair's closest vector,
   carried with the obstacle to its end pose; and the obstacle's side, the displacement of the
   surface point at the contact, rel = sum_k w_k dx_k - (Q (p - t_prev) + t - p), p the cloth's
   closest point and Q = R R_prev^T, which also carries the material offset (as for the vertex
   terms). The records are kept by triangle (ft_start): a triangle's pairs are a term of its
   element A, weighted like its barrier by the triangle's area as u moves (rc__sim_tri_pair_friction).
   Why per pair (session 36): until session 35 each pair's force was shared among the triangle's
   vertices and acted in one plane per vertex: first the obstacle's tangent plane at the vertex
   (an edge resting across a thin rod is pushed straight up, but the vertices beside the rod, which
   carried that force, had planes tilted by up to ~60 deg: an adaptive sheet slid across a tilted
   1.5 cm rod and fell off it), then the plane normal to the vertex's resultant force, which swings
   where the forces a vertex carries oppose. A sphere acts through its core alone; a capsule's or a
   box's cores add to the friction of its exact surface on the vertices (rc__sim_lag_friction). */
static void rc__sim_lag_core_friction(rc_sim *s)
{
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat, *core;
    int t, k, o, ic, ncore = 0;
    /* the cores at the start pose: 8 doubles each (a, b, r, obstacle) */
    for (o = 0; o < s->nobs; ++o) if (s->obs[o].mu > 0.0) ncore += rc__sim_num_cores(s->obs + o);
    if (ncore == 0) return;
    core = (double *)rc__alloc(s->user, (size_t)ncore * 8, sizeof(double));
    if (!core) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
    for (ncore = 0, o = 0; o < s->nobs; ++o)
        for (ic = 0; ic < (s->obs[o].mu > 0.0 ? rc__sim_num_cores(s->obs + o) : 0); ++ic, ++ncore) {
            double *cr = core + 8 * ncore;
            cr[6] = rc__sim_round_core(s->obs + o, ic, s->obs[o].R_prev, s->obs[o].t_prev, cr, cr + 3);
            cr[7] = o;
        }
    for (t = 0; t < s->nt && s->contact_status == RC_OK; ++t) {
        const int *tri = s->tris + 3 * t;
        const double *tv[3];
        double A2 = rc__sim_tri_A2(s, s->u, t), wA;
        if ((s->pinned[tri[0]] && s->pinned[tri[1]] && s->pinned[tri[2]]) || !(A2 > 0.0)) continue;
        tv[0] = s->x0 + 3 * tri[0]; tv[1] = s->x0 + 3 * tri[1]; tv[2] = s->x0 + 3 * tri[2];
        /* weighted as the barrier, by the triangle's area at the step start (rc__sim_tri_area_weight) */
        wA = rc__sim_tri_area_weight(s) * A2;
        for (ic = 0; ic < ncore; ++ic) {
            const double *a = core + 8 * ic, *b = a + 3, r = a[6];
            const rc__obstacle *ob = s->obs + (int)a[7];
            double aa = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]), w[4], ds, f;
            int e, n0 = s->nft;
            if (rc__ct_segment_triangle_lower_bound(a, b, tv) - r >= xi_ + dh) continue;   /* most triangles */
            for (e = 0; e < (aa > 0.0 ? 2 : 1); ++e) {   /* a sphere's centre, or a segment's ends */
                const double *c = e ? b : a;
                double P[6], cw[3];
                int type = rc__ct_point_triangle_type(c, tv[0], tv[1], tv[2]);
                ds = sqrt(rc__ct_point_triangle_d2_typed(c, tv[0], tv[1], tv[2], type, w, NULL, NULL)) - r;
                if (!(ds > xi_ && ds < xi_ + dh)) continue;
                f = rc__ct_normal_force_at(ds, ds * ds, xi_, dh, s->kappa, wA);
                /* c - closest = w0 c + sum_k w_{k+1} X_k with w0 = 1: the closest point's weights are -w_{k+1} */
                rc__ct_pt_tangent(c, tv[0], tv[1], tv[2], w, P);
                for (k = 0; k < 3; ++k) cw[k] = -w[k + 1];
                rc__sim_core_pair(s, ob, 3, tri, cw, ob->mu * f, P, t, 1.0 / A2);
            }
            if (aa > 0.0)
                for (e = 0; e < 3; ++e) {   /* the axis against edge e (vertices e, e + 1) */
                    const double *p = tv[e], *q = tv[(e + 1) % 3];
                    double m, l0 = s->edge_len0[s->topo.tri_edge[3 * t + (e + 2) % 3]], P[6], cw[2];
                    int ev[2], type = rc__ct_edge_edge_type(a, b, p, q);
                    ds = sqrt(rc__ct_edge_edge_d2_typed(a, b, p, q, type, w, NULL, NULL)) - r;
                    if (!(ds > xi_ && ds < xi_ + dh)) continue;
                    m = rc__ct_ee_mollifier(a, b, p, q, rc__ct_ee_mollifier_eps(aa, l0 * l0), NULL, NULL);
                    f = m * rc__ct_normal_force_at(ds, ds * ds, xi_, dh, s->kappa, wA);
                    /* r = w0 a + w1 b + w2 p + w3 q = (axis point) - (edge point): the edge point's weights are -w2, -w3 */
                    rc__ct_ee_tangent(a, b, p, q, w, P);
                    ev[0] = tri[e]; ev[1] = tri[(e + 1) % 3];
                    cw[0] = -w[2]; cw[1] = -w[3];
                    if (!(s->pinned[ev[0]] && s->pinned[ev[1]])) rc__sim_core_pair(s, ob, 2, ev, cw, ob->mu * f, P, t, 1.0 / A2);   /* a constant otherwise */
                }
            if (s->nft > n0 && (memcmp(ob->R, ob->R_prev, sizeof ob->R) || memcmp(ob->t, ob->t_prev, sizeof ob->t)))
                s->support_moves = 1;
        }
    }
    rc__free(s->user, core);
}

/* The triangles' lagged friction pairs (ft: the round cores', the mesh obstacles' kinds 1 and 2)
   sorted by triangle, stably (a triangle's pairs are summed in the order they were lagged):
   ft_start[t] .. ft_start[t + 1]. Out of memory: no pairs (the step fails; nothing reads a half list). */
static void rc__sim_index_tri_friction(rc_sim *s)
{
    int t, q, *pos = NULL;
    double *sorted = NULL;
    if (!s->ft_start) s->ft_start = (int *)rc__alloc(s->user, (size_t)s->nt + 1, sizeof(int));
    if (s->ft_start && s->nft > 0 && s->contact_status == RC_OK) {
        pos = (int *)rc__alloc(s->user, (size_t)s->nt + 1, sizeof(int));
        sorted = (double *)rc__alloc(s->user, (size_t)s->cap_ft * RC__FM_STRIDE, sizeof(double));
    }
    if (s->nft > 0 && s->contact_status == RC_OK && (!s->ft_start || !pos || !sorted)) s->contact_status = RC_ERR_OUT_OF_MEMORY;
    if (s->contact_status != RC_OK) s->nft = 0;
    if (s->ft_start) {
        memset(s->ft_start, 0, sizeof(int) * ((size_t)s->nt + 1));
        for (q = 0; q < s->nft; ++q) s->ft_start[(int)s->ft[(size_t)RC__FM_STRIDE * q + 26] + 1]++;
        for (t = 0; t < s->nt; ++t) s->ft_start[t + 1] += s->ft_start[t];
    }
    if (s->nft > 0) {   /* a counting sort */
        memcpy(pos, s->ft_start, sizeof(int) * ((size_t)s->nt + 1));
        for (q = 0; q < s->nft; ++q) {
            const double *rec = s->ft + (size_t)RC__FM_STRIDE * q;
            memcpy(sorted + (size_t)RC__FM_STRIDE * pos[(int)rec[26]]++, rec, sizeof(double) * RC__FM_STRIDE);
        }
        rc__free(s->user, s->ft);
        s->ft = sorted;
        sorted = NULL;
    }
    rc__free(s->user, pos);
    rc__free(s->user, sorted);
}

/* IPC lagged friction against the analytic obstacles at the step start: the vertices' own
   barriers (a plane's, a capsule's and a box's exact surface; rc__sim_tri_vertex_barriers) give
   each vertex a normal force (weighted by its mass as the barrier), the tangent plane at the vertex
   and the anchor, the vertex's start carried by the obstacle's motion; the round cores' pairs are
   lagged pair by pair (rc__sim_lag_core_friction), then the mesh obstacles' pairs
   (rc__sim_lag_mesh_friction), and the pairs that act on triangles are sorted by triangle. */
static void rc__sim_lag_friction(rc_sim *s)
{
    int o, i;
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    s->support_moves = 0;
    s->nft = 0;
    rc__sim_lag_core_friction(s);
    if (s->def.adaptive)   /* the friction's mass weight m_i(u)/m_i(u^t) (rc__sim_tri_friction) */
        for (i = 0; i < s->nv; ++i) {
            double w = rc__sim_vertex_weight(s, s->u, i);
            s->fr_inv_A2[i] = s->pinned[i] || !(w > 0.0) ? 0.0 : rc__sim_weight_per_A2(s) / w;
        }
    for (o = 0; o < s->nobs; ++o) {
        rc__obstacle *ob = s->obs + o;
        double *lam = s->fr_lambda + (size_t)o * s->nv;
        int moved = memcmp(ob->R, ob->R_prev, sizeof ob->R) || memcmp(ob->t, ob->t_prev, sizeof ob->t);
        memset(lam, 0, sizeof(double) * (size_t)s->nv);
        if (ob->mu <= 0.0 || ob->shape.kind == RC__OBS_TRIMESH || ob->shape.kind == RC__CT_SHAPE_SPHERE) continue;   /* a sphere: all core */
        for (i = 0; i < s->nv; ++i) {
            size_t k = (size_t)o * s->nv + i;
            double n[3], d, xr[3], *T = s->fr_T + 6 * k, t1[3], t2[3], len;
            if (s->pinned[i]) continue;
            d = rc__sim_obs_sdf_pose(ob, ob->R_prev, ob->t_prev, s->x0 + 3 * i, n, NULL);
            if (!(d > xi_ && d < xi_ + dh)) continue;
            lam[i] = rc__ct_normal_force_at(d, d * d, xi_, dh, s->kappa, rc__sim_vertex_weight(s, s->u, i));
            if (!(lam[i] > 0.0)) { lam[i] = 0.0; continue; }
            /* tangent basis orthogonal to n, rotated with the obstacle to its end pose */
            if (fabs(n[0]) < 0.9) { double ex[3] = { 1, 0, 0 }; rc__cross3(t1, n, ex); } else { double ey[3] = { 0, 1, 0 }; rc__cross3(t1, n, ey); }
            len = rc__norm3(t1); rc__scale3(t1, 1.0 / len, t1);
            rc__cross3(t2, n, t1);
            rc__obs_to_rest(ob->R_prev, ob->t_prev, s->x0 + 3 * i, xr);
            {
                double a[3], q1[3], q2[3];
                rc__sim_obs_carry(ob, t1, q1); rc__sim_obs_carry(ob, t2, q2);
                rc__obs_from_rest_vec(ob->R, xr, a);
                rc__add3(s->fr_anchor + 3 * k, a, ob->t);
                T[0] = q1[0]; T[2] = q1[1]; T[4] = q1[2];
                T[1] = q2[0]; T[3] = q2[1]; T[5] = q2[2];
            }
            if (moved) s->support_moves = 1;
        }
    }
    if (s->has_mesh_obstacle) rc__sim_lag_mesh_friction(s);
    rc__sim_index_tri_friction(s);
}

/* The largest a in [0, 1] such that moving the free cloth vertices from base toward target,
   base + a (target - base), passes no cloth primitive through another (self-contact CCD). The
   step-start moves that shift some vertices and not their neighbours (the carry by kinematic
   meshes, the push-out of analytic shapes) are limited by it. Uses sys_xp's direction. hit: NULL,
   or marks the vertices the move would run into (rc__sim_self_ccd_hits). */
static void rc__sim_move_direction(rc_sim *s, const double *base, const double *target)
{
    rc__system *y = &s->sys_xp;
    int i, c;
    memset(y->d, 0, sizeof(double) * (size_t)y->ndof);
    for (i = 0; i < s->nv; ++i)
        for (c = 0; c < 3; ++c) if (y->dof_x[3 * i + c] >= 0) y->d[y->dof_x[3 * i + c]] = target[3 * i + c] - base[3 * i + c];
}
static double rc__sim_self_move_bound(rc_sim *s, const double *base, const double *target, unsigned char *hit, double *push)
{
    rc__sim_move_direction(s, base, target);
    return rc__sim_self_ccd_hits(s, &s->sys_xp, base, 1.0, hit, push);
}
/* ... and the largest a such that the move passes into no obstacle at its end pose but those
   with skip[o] = 1 (skip: nobs flags, not NULL) */
static double rc__sim_obstacle_move_bound(rc_sim *s, const double *base, const double *target, const unsigned char *skip)
{
    rc__sim_move_direction(s, base, target);
    return rc__sim_ccd_bound_ex(s, &s->sys_xp, base, skip);
}

/* Kinematic mesh obstacles that moved onto the cloth (rc_sim_set_obstacle_vertices): the barrier
   and the CCD see the mesh at its end-of-step position only, so a mesh that sweeps further than the
   gap into the cloth within one step (a kicking leg: ~5 cm per 10 ms step) leaves the step start
   inside its offset (infinite energy, RC_ERR_INTERSECTING even after the substep halvings). Like
   rc__sim_resolve_start for analytic shapes, the obstacle carries the cloth it runs into: a free
   vertex within rho = xi + dhat + (largest obstacle vertex displacement) of the mesh at its
   previous position, with closest point q_prev = sum_k b_k Xprev_k on triangle T, whose distance
   to T's plane at the end (same side as before) would fall below xi + dhat, is moved rigidly with
   T's frame F = [e1, e2, n] (e1 along the first edge, n the normal):
     p' = q_end + F_end F_prev^T (p - q_prev),   q_end = sum_k b_k X_k,
   which is exact for a rigidly moving obstacle (its distances to the whole mesh are kept). A vertex
   is carried when the obstacle's motion over the step (cloth held still) brings it within xi + dhat
   of the vertex (CCD point-triangle), or brings an obstacle vertex within it of a cloth triangle or
   an obstacle edge of a cloth edge (then the triangle's or edge's vertices are carried: coarse
   cloth spans a thin obstacle between its vertices). Not
   checked by CCD (as the analytic push-out and the pin targets are not): the step's start energy
   and the exact-geometry tests are the check. */
static void rc__sim_mesh_frame(const double *a, const double *b, const double *c, double F[9])
{
    double e1[3], e2[3], n[3], l;
    int k;
    rc__sub3(e1, b, a); rc__sub3(e2, c, a);
    rc__cross3(n, e1, e2);
    l = rc__norm3(e1); if (l > 0.0) rc__scale3(e1, 1.0 / l, e1);
    l = rc__norm3(n); if (l > 0.0) rc__scale3(n, 1.0 / l, n);
    rc__cross3(e2, n, e1);
    for (k = 0; k < 3; ++k) { F[3 * k] = e1[k]; F[3 * k + 1] = e2[k]; F[3 * k + 2] = n[k]; }   /* columns e1, e2, n */
}

/* 1 if triangle t of ob has a frame to carry with at both ends of the step: not degenerate (sine
   of its smallest angle above ~1e-12). A degenerate one (repeated indices, collinear vertices) has
   no normal, and its frame F = 0 put the carried point onto the triangle (a review's probe: a
   repeated-index triangle listed first won the ties of the vertices over its segment, which were
   carried down onto the plate). */
static int rc__mesh_carry_frame_ok(const rc__obstacle *ob, int t)
{
    const double *Xs[2];
    int k;
    Xs[0] = ob->mesh_xprev; Xs[1] = ob->mesh_x;
    for (k = 0; k < 2; ++k) {
        const int *tv = ob->mesh_tris + 3 * t;
        double a[3], b[3], n[3];
        rc__sub3(a, Xs[k] + 3 * tv[1], Xs[k] + 3 * tv[0]);
        rc__sub3(b, Xs[k] + 3 * tv[2], Xs[k] + 3 * tv[0]);
        rc__cross3(n, a, b);
        if (!(rc__dot3(n, n) > 1e-24 * rc__dot3(a, a) * rc__dot3(b, b))) return 0;
    }
    return 1;
}

/* where the rigid carry by obstacle ob's triangle t takes the point p (above):
   q_end + F_end F_prev^T (p - q_prev), q the point of t nearest to p at the step's start */
static void rc__sim_mesh_carry_point(const rc__obstacle *ob, int t, const double *p, double *out)
{
    const double *X = ob->mesh_x, *Xp = ob->mesh_xprev;
    const int *tv = ob->mesh_tris + 3 * t;
    double w[4], qp[3], qe[3], Fp[9], Fe[9], r[3], rl[3];
    int c, k, type = rc__ct_point_triangle_type(p, Xp + 3 * tv[0], Xp + 3 * tv[1], Xp + 3 * tv[2]);
    (void)rc__ct_point_triangle_d2_typed(p, Xp + 3 * tv[0], Xp + 3 * tv[1], Xp + 3 * tv[2], type, w, NULL, NULL);
    for (c = 0; c < 3; ++c) {   /* w = {1, -b0, -b1, -b2}: q = sum_k b_k X_k */
        qp[c] = -(w[1] * Xp[3 * tv[0] + c] + w[2] * Xp[3 * tv[1] + c] + w[3] * Xp[3 * tv[2] + c]);
        qe[c] = -(w[1] * X[3 * tv[0] + c] + w[2] * X[3 * tv[1] + c] + w[3] * X[3 * tv[2] + c]);
    }
    rc__sim_mesh_frame(Xp + 3 * tv[0], Xp + 3 * tv[1], Xp + 3 * tv[2], Fp);
    rc__sim_mesh_frame(X + 3 * tv[0], X + 3 * tv[1], X + 3 * tv[2], Fe);
    rc__sub3(r, p, qp);
    for (k = 0; k < 3; ++k) rl[k] = r[0] * Fp[k] + r[1] * Fp[3 + k] + r[2] * Fp[6 + k];   /* F_prev^T r */
    for (c = 0; c < 3; ++c) out[c] = qe[c] + Fe[3 * c] * rl[0] + Fe[3 * c + 1] * rl[1] + Fe[3 * c + 2] * rl[2];
}

/* rounds of the transitive carry (rc__sim_resolve_start_mesh): layers carried beyond the first */
#define RC__CARRY_ROUNDS 8

/* 1 if cloth that one moving mesh carries runs into another moving mesh on the way: for each
   moving mesh o (a carrier or not: one that carried nothing but crosses the carried cloth's path
   within the step is seen at its end pose only, by rc__sim_obstacle_move_bound), the pairs that
   hold a vertex another carrier moved (who[i] >= 0, != o), every cloth vertex
   moving x -> xc (o's own too: a cloth triangle across two plates rising together has a vertex on
   each, and holding o's still split every step, a review's probe), against o moving from its
   previous to its new vertices, both linearly over the step, to within 1e-3 xi
   (rc__sim_motion_touches; every pair kind). Why: each carrier moves the cloth it runs into from
   the same start, and a vertex both reach goes with the later one, so cloth squeezed between two
   meshes that close on it was carried by one while the other passed through it; the bounds
   against the obstacles' end pose skip the carriers (the cloth they carry starts behind their
   end pose) and missed it (test_sim_plate_lifts_stack_ceiling: a ceiling mesh coming down on a
   plate that lifts two sheets, all three steps accepted with the plate through both). Then the
   carry is refused: the step is split, and where the meshes truly close on the cloth the last
   split level fails (RC_ERR_INTERSECTING). The transitively carried layers are not checked. */
static int rc__sim_carry_pinched(rc_sim *s, const double *xc, const int *who)
{
    double touch = 1e-3 * s->def.contact_thickness, *dxc, *dX = NULL;
    int o, i, k, q, np, kind, *pairs, pinched = 0;
    dxc = (double *)rc__alloc(s->user, (size_t)3 * s->nv, sizeof(double));
    if (!dxc) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return 1; }
    for (i = 0; i < 3 * s->nv; ++i) dxc[i] = xc[i] - s->x[i];
    for (o = 0; o < s->nobs && !pinched && s->contact_status == RC_OK; ++o) {
        rc__obstacle start = s->obs[o];
        double disp = 0.0;
        int any = 0;
        if (start.shape.kind != RC__OBS_TRIMESH) continue;
        for (i = 0; i < s->nv && !any; ++i) any = who[i] >= 0 && who[i] != o;
        if (!any) continue;
        rc__free(s->user, dX);
        dX = (double *)rc__alloc(s->user, (size_t)3 * start.mesh_nv, sizeof(double));
        if (!dX) { s->contact_status = RC_ERR_OUT_OF_MEMORY; break; }
        for (k = 0; k < start.mesh_nv; ++k) {
            rc__sub3(dX + 3 * k, start.mesh_x + 3 * k, start.mesh_xprev + 3 * k);
            if (rc__norm3(dX + 3 * k) > disp) disp = rc__norm3(dX + 3 * k);
        }
        if (!(disp > 0.0)) continue;   /* a still mesh: the end-pose bound covers it */
        start.mesh_x = start.mesh_xprev;
        for (kind = 0; kind <= 2 && !pinched && s->contact_status == RC_OK; ++kind) {
            np = rc__sim_mesh_pairs(s, &start, kind, s->x, dxc, 1.0, disp + touch, &pairs);
            for (q = 0; q < np && !pinched; ++q) {
                const double *P0[4], *D[4];
                const int *cv, *fv;
                int a = pairs[2 * q], b = pairs[2 * q + 1], mv = 0;
                if (kind == 0) {          /* cloth vertex a - mesh triangle b */
                    fv = start.mesh_tris + 3 * b;
                    P0[0] = s->x + 3 * a; D[0] = dxc + 3 * a; mv = who[a] >= 0 && who[a] != o;
                    for (k = 0; k < 3; ++k) { P0[1 + k] = start.mesh_xprev + 3 * fv[k]; D[1 + k] = dX + 3 * fv[k]; }
                } else if (kind == 1) {   /* mesh vertex b - cloth triangle a */
                    cv = s->tris + 3 * a;
                    P0[0] = start.mesh_xprev + 3 * b; D[0] = dX + 3 * b;
                    for (k = 0; k < 3; ++k) { P0[1 + k] = s->x + 3 * cv[k]; D[1 + k] = dxc + 3 * cv[k]; mv |= who[cv[k]] >= 0 && who[cv[k]] != o; }
                } else {                  /* cloth edge a - mesh edge b */
                    cv = s->topo.edge_v + 2 * a; fv = start.mesh_edges + 2 * b;
                    for (k = 0; k < 2; ++k) {
                        P0[k] = s->x + 3 * cv[k]; D[k] = dxc + 3 * cv[k]; mv |= who[cv[k]] >= 0 && who[cv[k]] != o;
                        P0[2 + k] = start.mesh_xprev + 3 * fv[k]; D[2 + k] = dX + 3 * fv[k];
                    }
                }
                if (mv && rc__sim_motion_touches(kind == 2, P0, D, touch)) pinched = 1;
            }
            rc__free(s->user, pairs);
        }
    }
    rc__free(s->user, dxc); rc__free(s->user, dX);
    return pinched || s->contact_status != RC_OK;
}

static void rc__sim_resolve_start_mesh(rc_sim *s)
{
    double xi_ = s->def.contact_thickness, zone = xi_ + s->def.contact_dhat;
    int o, i, q, k, np, *pairs, *best_t, *who, kind, ncarriers = 0, nmoving = 0;
    double *best_d, zero[3] = { 0.0, 0.0, 0.0 };
    unsigned char *carry, *moved, *carrier;
    double *xc = s->ls_x;   /* carried positions (ls_x is free until the CCD-safe start) */
    if (!s->has_mesh_obstacle) return;
    memcpy(xc, s->x, sizeof(double) * 3 * (size_t)s->nv);
    best_d = (double *)rc__alloc(s->user, (size_t)s->nv, sizeof(double));
    best_t = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));
    who = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));   /* the obstacle that carried each vertex, -1 none */
    carry = (unsigned char *)rc__alloc(s->user, (size_t)s->nv, 1);
    moved = (unsigned char *)rc__calloc(s->user, (size_t)s->nv, 1);
    carrier = (unsigned char *)rc__calloc(s->user, (size_t)s->nobs + 1, 1);   /* the obstacles that carried something */
    if (!best_d || !best_t || !who || !carry || !moved || !carrier) {
        rc__free(s->user, best_d); rc__free(s->user, best_t); rc__free(s->user, who); rc__free(s->user, carry); rc__free(s->user, moved);
        rc__free(s->user, carrier);
        s->contact_status = RC_ERR_OUT_OF_MEMORY;
        return;
    }
    for (i = 0; i < s->nv; ++i) who[i] = -1;
    for (o = 0; o < s->nobs; ++o) {
        rc__obstacle start = s->obs[o];
        const double *X = s->obs[o].mesh_x, *Xp = s->obs[o].mesh_xprev;
        double disp = 0.0;
        if (start.shape.kind != RC__OBS_TRIMESH) continue;
        for (k = 0; k < start.mesh_nv; ++k) {
            double d[3], l;
            rc__sub3(d, X + 3 * k, Xp + 3 * k);
            l = rc__norm3(d);
            if (l > disp) disp = l;
        }
        if (!(disp > 0.0)) continue;
        nmoving++;
        start.mesh_x = s->obs[o].mesh_xprev;
        np = rc__sim_mesh_pairs(s, &start, 0, s->x, NULL, 0.0, zone + disp, &pairs);
        if (s->contact_status != RC_OK) { rc__free(s->user, pairs); break; }
        for (i = 0; i < s->nv; ++i) { best_d[i] = HUGE_VAL; best_t[i] = -1; carry[i] = 0; }
        for (q = 0; q < np; ++q) {
            int v = pairs[2 * q], t = pairs[2 * q + 1];
            const int *tv = start.mesh_tris + 3 * t;
            double d2, dX[9];
            if (s->pinned[v]) continue;
            d2 = rc__ct_point_triangle_d2(s->x + 3 * v, Xp + 3 * tv[0], Xp + 3 * tv[1], Xp + 3 * tv[2], NULL, NULL, NULL);
            if (d2 < best_d[v] && rc__mesh_carry_frame_ok(&start, t)) { best_d[v] = d2; best_t[v] = t; }
            for (k = 0; k < 3; ++k) rc__sub3(dX + 3 * k, X + 3 * tv[k], Xp + 3 * tv[k]);
            if (!carry[v] && rc__ct_ccd_point_triangle(s->x + 3 * v, Xp + 3 * tv[0], Xp + 3 * tv[1], Xp + 3 * tv[2], zero, dX, dX + 3, dX + 6, zone, 1.0) < 1.0) {
                const double *P0[4], *D[4];
                P0[0] = s->x + 3 * v; D[0] = zero;
                for (k = 0; k < 3; ++k) { P0[1 + k] = Xp + 3 * tv[k]; D[1 + k] = dX + 3 * k; }
                carry[v] = rc__sim_motion_touches(0, P0, D, zone);   /* see below */
            }
        }
        rc__free(s->user, pairs);
        for (kind = 1; kind <= 2 && s->contact_status == RC_OK; ++kind) {
            np = rc__sim_mesh_pairs(s, &start, kind, s->x, NULL, 0.0, zone + disp, &pairs);
            for (q = 0; q < np; ++q) {
                double a, d0[3], d1[3];
                const int *cv;
                int n;
                if (kind == 1) {   /* obstacle vertex j against cloth triangle */
                    int j = pairs[2 * q + 1];
                    cv = s->tris + 3 * pairs[2 * q]; n = 3;
                    rc__sub3(d0, X + 3 * j, Xp + 3 * j);
                    a = rc__ct_ccd_point_triangle(Xp + 3 * j, s->x + 3 * cv[0], s->x + 3 * cv[1], s->x + 3 * cv[2], d0, zero, zero, zero, zone, 1.0);
                } else {           /* cloth edge against obstacle edge */
                    const int *fv = start.mesh_edges + 2 * pairs[2 * q + 1];
                    cv = s->topo.edge_v + 2 * pairs[2 * q]; n = 2;
                    rc__sub3(d0, X + 3 * fv[0], Xp + 3 * fv[0]); rc__sub3(d1, X + 3 * fv[1], Xp + 3 * fv[1]);
                    a = rc__ct_ccd_edge_edge(s->x + 3 * cv[0], s->x + 3 * cv[1], Xp + 3 * fv[0], Xp + 3 * fv[1], zero, zero, d0, d1, zone, 1.0);
                }
                /* The CCD is conservative (it stops where a gap falls to a tenth of its start), so
                   its hit is confirmed by following the motion exactly to within the zone
                   (rc__sim_motion_touches; also above for kind 0): a mesh sweeping 1.4 m sideways
                   50 mm above a sheet was taken to carry it (a review's probe), and its carry
                   replaced the one of the plate lifting the sheet, which went through it, RC_OK */
                if (a < 1.0) {
                    const double *P0[4], *D[4];
                    if (kind == 1) {
                        P0[0] = Xp + 3 * pairs[2 * q + 1]; D[0] = d0;
                        for (k = 0; k < 3; ++k) { P0[1 + k] = s->x + 3 * cv[k]; D[1 + k] = zero; }
                    } else {
                        const int *fv = start.mesh_edges + 2 * pairs[2 * q + 1];
                        P0[0] = s->x + 3 * cv[0]; P0[1] = s->x + 3 * cv[1]; D[0] = D[1] = zero;
                        P0[2] = Xp + 3 * fv[0]; P0[3] = Xp + 3 * fv[1]; D[2] = d0; D[3] = d1;
                    }
                    if (rc__sim_motion_touches(kind == 2, P0, D, zone)) for (k = 0; k < n; ++k) carry[cv[k]] = 1;
                }
            }
            rc__free(s->user, pairs);
        }
        if (s->contact_status != RC_OK) break;
        for (i = 0; i < s->nv; ++i) {
            if (!carry[i] || s->pinned[i]) continue;
            if (best_t[i] < 0) {
                /* marked through its triangle or edge only (an obstacle vertex or edge runs into
                   it), itself farther than the pair search reached: its nearest obstacle triangle,
                   found by a scan (such vertices are few). Without it a coarse sheet swept by a box
                   corner kept these vertices behind and the split steps all failed. */
                for (k = 0; k < start.mesh_nt; ++k) {
                    const int *kv = start.mesh_tris + 3 * k;
                    double d2 = rc__ct_point_triangle_d2(s->x + 3 * i, Xp + 3 * kv[0], Xp + 3 * kv[1], Xp + 3 * kv[2], NULL, NULL, NULL);
                    if (d2 < best_d[i] && rc__mesh_carry_frame_ok(&start, k)) { best_d[i] = d2; best_t[i] = k; }
                }
                if (best_t[i] < 0) continue;
            }
            rc__sim_mesh_carry_point(s->obs + o, best_t[i], s->x + 3 * i, xc + 3 * i);
            if (!carrier[o]) ncarriers++;
            moved[i] = carrier[o] = 1;
            who[i] = o;
        }
    }
    if (s->contact_status == RC_OK) {
        /* the carry moves some cloth vertices and not their neighbours: with self-contact it must
           not push cloth through cloth. Cloth the carried cloth would run into is carried too,
           transitively (a leg pushes the skirt's inner layer into the outer one: both move with
           the leg), each such vertex by the displacement of the vertex carrying it into it
           (rc__sim_self_ccd_hits), as the analytic shapes' push-out does (rc__sim_push_out; the
           first version carried it rigidly with its nearest moving obstacle triangle, a scan of
           every triangle per vertex, to the same effect on the tests and scenes); then the whole carry is taken only as far as the cloth-cloth CCD
           allows (what is left inside the obstacle's offset then fails the step's start, and
           the step is split: a half step carries half as far). Measured on the adaptive dress:
           the unchecked carry put a cloth edge through a cloth triangle; at 1k vertices, before
           the transitive carry, 45 of 100 steps were split for a held-back carry (321 s CPU; none now, 186 s). */
        double a = 1.0, *push = s->def.self_contact ? (double *)rc__alloc(s->user, (size_t)3 * s->nv, sizeof(double)) : NULL;
        int round, added = 1;
        for (round = 0; s->def.self_contact && added; ++round) {
            int last = round == RC__CARRY_ROUNDS || !push;
            if (!last) memset(carry, 0, (size_t)s->nv);
            a = rc__sim_self_move_bound(s, s->x, xc, last ? NULL : carry, last ? NULL : push);
            if (!(a < 1.0) || last || s->contact_status != RC_OK) break;
            for (added = 0, i = 0; i < s->nv; ++i)
                if (carry[i] && !moved[i] && !s->pinned[i]) {
                    rc__add3(xc + 3 * i, s->x + 3 * i, push + 3 * i);
                    moved[i] = 1;
                    added++;
                }
        }
        rc__free(s->user, push);
        for (k = 0, i = 0; i < s->nv && !k; ++i) k = moved[i];
        if (s->contact_status == RC_OK && a > 0.0 && k) {
            /* ... and as far as CCD against the other obstacles at their end pose allows (all but
               the meshes that carried, whose end pose the carried cloth may start behind): a
               carried layer must not be pushed into another mesh or a shape (a review's probe: a
               second sheet carried with the first through a ceiling mesh 1 cm above it, the step
               accepted; the first layer alone went through it too, before the transitive carry;
               the same with the ceiling sliding 1 mm per step) */
            double b = rc__sim_obstacle_move_bound(s, s->x, xc, carrier);
            if (b < a) a = b;
            /* ... and carried cloth that another moving mesh meets within the step, cloth squeezed
               between two carriers among it, is pinched (rc__sim_carry_pinched) */
            if (ncarriers >= 1 && nmoving > 1 && s->contact_status == RC_OK && rc__sim_carry_pinched(s, xc, who)) a = 0.0;
        }
        if (s->contact_status == RC_OK) {
            for (i = 0; i < 3 * s->nv; ++i) s->x[i] += a * (xc[i] - s->x[i]);
            s->carry_limited = a < 1.0;
        }
    }
    rc__free(s->user, best_d); rc__free(s->user, best_t); rc__free(s->user, who); rc__free(s->user, carry); rc__free(s->user, moved);
    rc__free(s->user, carrier);
}

/* Analytic obstacles that moved over the step. The barrier and the CCD see an obstacle at its end
   pose only, so one that moves further than its own thickness in a step left the cloth it ran into
   on its far side, and the push-out below then put that cloth there for good: measured, a 1 cm
   thick box swept at 2 m/s (2 cm per 10 ms step) through a hanging sheet crossed it in one step,
   every step reported converged. So each free vertex is followed in the obstacle's frame. With the
   pose interpolated over the step as a screw motion (rc__sim_obs_pose_at: R(tau) = Rot(n, tau
   theta) R_prev, turning about a fixed axis while sliding along it), a world point x held still
   moves in the rest frame along r(tau) = R(tau)^T (x - t(tau)), an arc of a helix, followed as
   chords of at most 0.05 rad (a sphere's shape
   does not turn: r(tau) = R^T (x - c(tau)) + p with its centre c(tau) = R(tau) p + t(tau)). On a
   chord, the shape CCD finds the first stop a; the vertex was run over if the obstacle at its
   true pose comes within the thickness xi of it after that (the smallest distance over the rest
   of the chord's interval, by golden-section search: the chord itself sags inside the arc, by
   ~3e-4 of the radius, and measured on a capsule turning about its axis it "entered" vertices
   resting 2-10 um off it). A vertex run over is carried rigidly from the CCD stop r* to the end
   pose, x' = R r* + t: it keeps its distance, on the side the obstacle came from. A sphere also
   runs over triangles between their vertices (its barrier acts on whole triangles): a triangle
   whose distance to a chord of the centre's path falls to r + xi is carried with the centre from
   the CCD stop, its free vertices translated by c - c(tau*). Returns whether any vertex moved;
   carried[i] marks the vertices. */
/* The obstacle's pose a fraction tau of the way through the step (also the substeps' midpoint
   pose, tau = 1/2): the screw motion from (R_prev, t_prev) to (R, t), the rigid motion of constant
   velocity between them, which depends on no choice of origin. The step's relative motion
   D x = Q x + d (Q = R R_prev^T, a rotation by theta about n; d = t - Q t_prev) is a rotation about
   an axis along n through some point q plus a slide a n along it (Chasles): d = (I - Q) q + a n.
   At tau it has turned by tau theta about that axis and slid tau a n:
       R(tau) = Rot(n, tau theta) R_prev,   t(tau) = Rot(n, tau theta) t_prev + D_tau,
       D_tau = (I - Rot(n, tau theta)) q + tau a n = A p + B (n x p) + tau a n,
   p = d - a n (the part across the axis), with q = (p + cot(theta/2) n x p)/2 (the inverse of
   I - Q across n) worked out into A = ((1 - cos tau theta) + cot(theta/2) sin tau theta)/2 and
   B = ((1 - cos tau theta) cot(theta/2) - sin tau theta)/2: A = 1, B = 0 at tau = 1, and A -> tau,
   B -> 0 as theta -> 0 (a translation stays linear). Why (session 54's probe): with t(tau)
   interpolated linearly the rotation turned about the origin of the shape's frame, which for a
   shape added where it stands is the world origin: a capsule turned 179 degrees about its own
   midpoint (t = c - R c) swung round the world origin within the step, missed the sheet draped on
   it, and the step carried none of the 11 vertices its true path runs through; a box turned 90
   degrees moved the cloth 2 cm where its path sweeps 48 cm. A leg kicking about its hip likewise
   left the hip. */
static void rc__sim_obs_pose_at(const rc__obstacle *ob, double tau, double *R, double *t)
{
    double n[3], z[3] = { 0.0, 0.0, 0.0 }, r[3], d[3], rt[3], p[3], nxp[3], a, th, A, B, ct, half, c;
    int k;
    th = rc__sim_rot_frac(ob->R_prev, ob->R, tau, R, n);
    if (!(rc__dot3(n, n) > 0.0)) {   /* no resolved rotation: translation linear */
        for (k = 0; k < 3; ++k) t[k] = ob->t_prev[k] + tau * (ob->t[k] - ob->t_prev[k]);
        return;
    }
    rc__obs_to_rest(ob->R_prev, z, ob->t_prev, r);   /* r = R_prev^T t_prev */
    rc__obs_from_rest_vec(ob->R, r, d);              /* d = t - Q t_prev */
    rc__sub3(d, ob->t, d);
    rc__obs_from_rest_vec(R, r, rt);                 /* Rot(n, tau theta) t_prev = R(tau) r */
    a = rc__dot3(d, n);
    for (k = 0; k < 3; ++k) p[k] = d[k] - a * n[k];
    rc__cross3(nxp, n, p);
    half = 0.5 * tau * th;
    ct = cos(0.5 * th) / sin(0.5 * th);              /* theta in (0, pi]: finite */
    c = 2.0 * sin(half) * sin(half);                 /* 1 - cos(tau theta), without cancellation */
    A = 0.5 * (c + ct * sin(tau * th));
    B = 0.5 * (c * ct - sin(tau * th));
    for (k = 0; k < 3; ++k) t[k] = rt[k] + A * p[k] + B * nxp[k] + tau * a * n[k];
}
/* world point x in the obstacle's frame at pose (R, t): r = R^T (x - t); a sphere's shape does not
   turn, so only its centre c = R p + t counts: r = R_end^T (x - c) + p */
static void rc__sim_rest_point(const rc__obstacle *ob, int sphere, const double *R, const double *t, const double *x, double *r)
{
    if (sphere) {
        double c[3];
        rc__obs_from_rest(R, t, ob->shape.p, c);
        rc__obs_to_rest(ob->R, c, x, r);
        rc__add3(r, r, ob->shape.p);
    } else rc__obs_to_rest(R, t, x, r);
}

/* a distance along a path, u in [0, 1], for the golden-section search below */
typedef struct rc__path {
    const rc__obstacle *ob;   /* NULL: the segment [a0 + u da, b0 + u db] against the triangle tri */
    int sphere;
    const double *x;
    double tau0, tau1;
    const double *tri, *a0, *da, *b0, *db;
} rc__path;
static double rc__sim_path_dist(const rc__path *p, double u)
{
    double r[3], d;
    if (!p->ob) {
        double q[3], tau;
        int k;
        for (k = 0; k < 3; ++k) { r[k] = p->a0[k] + u * p->da[k]; q[k] = p->b0[k] + u * p->db[k]; }
        return sqrt(rc__ct_segment_triangle_d2(r, q, p->tri, p->tri + 3, p->tri + 6, &tau));
    }
    {
        double R[9], t[3];
        rc__sim_obs_pose_at(p->ob, p->tau0 + u * (p->tau1 - p->tau0), R, t);
        rc__sim_rest_point(p->ob, p->sphere, R, t, p->x, r);
    }
    if (!rc__ct_shape_sdf(&p->ob->shape, r, &d, NULL, NULL)) return HUGE_VAL;
    return d;
}

/* whether the distance along the path for u in [a, 1] falls to fmax: golden-section search for its
   minimum (exact for a convex distance: a point moving linearly against a convex set; on an arc
   as short as 0.05 rad, the path is that up to its sag), stopping at the first value <= fmax */
static int rc__sim_path_enters(const rc__path *p, double a, double fmax)
{
    const double g = 0.6180339887498949;
    double lo = a, hi = 1.0, m1, m2, f1, f2;
    int it;
    if (rc__sim_path_dist(p, lo) <= fmax || rc__sim_path_dist(p, hi) <= fmax) return 1;
    m1 = hi - g * (hi - lo); m2 = lo + g * (hi - lo);
    f1 = rc__sim_path_dist(p, m1); f2 = rc__sim_path_dist(p, m2);
    for (it = 0; it < 60 && hi - lo > 1e-12; ++it) {
        if (f1 <= fmax || f2 <= fmax) return 1;
        if (f1 < f2) { hi = m2; m2 = m1; f2 = f1; m1 = hi - g * (hi - lo); f1 = rc__sim_path_dist(p, m1); }
        else { lo = m1; m1 = m2; f1 = f2; m2 = lo + g * (hi - lo); f2 = rc__sim_path_dist(p, m2); }
    }
    return f1 <= fmax || f2 <= fmax;
}

/* the least distance from x to the points a0 + u da + v (b0 + u db - a0 - u da), u, v in [0, 1]
   (the quad the segment sweeps along a chord), from below: the distance to the chord of the
   segment's end nearest x minus the segment's length. A cheap filter. */
static double rc__sim_swept_segment_dist(const double *a0, const double *da, const double *b0, const double *db, const double *x)
{
    double best = HUGE_VAL, len = 0.0, ab[3];
    int e, c;
    rc__sub3(ab, b0, a0);
    len = rc__norm3(ab);
    for (e = 0; e < 2; ++e) {
        const double *p = e ? b0 : a0, *d = e ? db : da;
        double w[3], dd = rc__dot3(d, d), sp;
        rc__sub3(w, x, p);
        sp = dd > 0.0 ? rc__dot3(w, d) / dd : 0.0;
        sp = sp < 0.0 ? 0.0 : sp > 1.0 ? 1.0 : sp;
        for (c = 0; c < 3; ++c) w[c] -= sp * d[c];
        if (rc__norm3(w) < best) best = rc__norm3(w);
    }
    return best - len;
}

/* The carry of the cloth a moving analytic obstacle runs over (marked in carried; returns 1 if
   anything moved). What the obstacle meets on its way moves rigidly with it from the meeting to
   the end pose: a free vertex its surface meets (to where that surface point goes), and the free
   vertices of a triangle one of its round cores meets (a sphere, a capsule's axis, a box's edges:
   they act on whole triangles). Each vertex takes its earliest meeting, as the cloth lay before
   this obstacle's carry. Why (session 39; until then the triangles were met after the vertices had
   been carried, each moved by its core's nearest point from the meeting on): a thin plate (4 mm)
   lifting a larger sheet 5 cm per step met a triangle straddling its edge late (its inner vertex
   already on top) and moved its outer vertices only the rest of the way; or met it early while its
   inner vertex, 8 mm above the plate, was carried only from its own later meeting. Either way
   the plate's edge ended through the triangle, the pass-through check refused it and every step
   split 8-16 times (0.6-1.6 s per fixed step at 225 vertices). */
static int rc__sim_carry_analytic(rc_sim *s, unsigned char *carried)
{
    static const double zero3[3] = { 0.0, 0.0, 0.0 };
    enum { MAXK = 64 };   /* theta <= pi: at most 63 chords */
    double xi_ = s->def.contact_thickness, enter = xi_ + 1e-3 * s->def.contact_dhat, pose[MAXK + 1][12];
    double *when = NULL, *dest = NULL;   /* per vertex: its earliest meeting (fraction of the step) and where it goes */
    int o, i, k, t, K, any = 0;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        double th;
        rc__path path;
        int sphere = ob->shape.kind == RC__CT_SHAPE_SPHERE;
        int ic, nc = rc__sim_num_cores(ob);
        if (ob->shape.kind == RC__OBS_TRIMESH) continue;
        if (memcmp(ob->R, ob->R_prev, sizeof ob->R) == 0 && memcmp(ob->t, ob->t_prev, sizeof ob->t) == 0) continue;
        if (!when) {
            when = (double *)rc__alloc(s->user, (size_t)s->nv, 4 * sizeof(double));
            if (!when) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return any; }
            dest = when + s->nv;
        }
        for (i = 0; i < s->nv; ++i) when[i] = HUGE_VAL;
        th = rc__sim_rot_frac(ob->R_prev, ob->R, 1.0, pose[0], NULL);   /* the angle */
        K = th > 0.05 ? (int)ceil(th / 0.05) : 1;
        if (K > MAXK) K = MAXK;
        for (k = 0; k <= K; ++k) rc__sim_obs_pose_at(ob, (double)k / K, pose[k], pose[k] + 9);   /* the chords' ends */
        path.ob = ob; path.sphere = sphere; path.tri = path.a0 = path.da = path.b0 = path.db = NULL;
        for (i = 0; i < s->nv; ++i) {
            double r0[3], r1[3], dr[3], a = 1.0;
            if (s->pinned[i]) continue;
            path.x = s->x + 3 * i;
            rc__sim_rest_point(ob, sphere, pose[0], pose[0] + 9, s->x + 3 * i, r0);
            for (k = 0; k < K; ++k) {
                rc__sim_rest_point(ob, sphere, pose[k + 1], pose[k + 1] + 9, s->x + 3 * i, r1);
                rc__sub3(dr, r1, r0);
                a = rc__ct_ccd_point_shape(&ob->shape, r0, dr, xi_, 1.0);
                path.tau0 = (double)k / K; path.tau1 = (double)(k + 1) / K;
                if (a < 1.0 && rc__sim_path_enters(&path, a, enter)) break;
                memcpy(r0, r1, sizeof r0);
                a = 1.0;
            }
            if (k < K) {   /* x' = R r* + t, r* the surface point met */
                double rs[3];
                for (t = 0; t < 3; ++t) rs[t] = r0[t] + a * dr[t];
                rc__obs_from_rest(ob->R, ob->t, rs, dest + 3 * i);
                when[i] = (k + a) / K;
            }
        }
        for (ic = 0; ic < nc; ++ic) {
            double aend[3], bend[3], core = rc__sim_round_core(ob, ic, ob->R, ob->t, aend, bend), reach = core + xi_ + s->def.contact_dhat;
            path.ob = NULL;
            for (k = 0; k < K; ++k) {   /* chords of the core's path: its ends at the chord's ends */
                double a0[3], b0[3], a1[3], b1[3], da[3], db[3];
                (void)rc__sim_round_core(ob, ic, pose[k], pose[k] + 9, a0, b0);
                (void)rc__sim_round_core(ob, ic, pose[k + 1], pose[k + 1] + 9, a1, b1);
                rc__sub3(da, a1, a0);
                rc__sub3(db, b1, b0);
                path.a0 = a0; path.da = da; path.b0 = b0; path.db = db;
                for (t = 0; t < s->nt; ++t) {
                    const int *tv = s->tris + 3 * t;
                    double tri[9], cen[3] = { 0.0, 0.0, 0.0 }, rad = 0.0, a, tau, R[9], tr[3];
                    int m, later = 0;
                    for (m = 0; m < 3; ++m) { memcpy(tri + 3 * m, s->x + 3 * tv[m], 3 * sizeof(double)); rc__axpy3(cen, 1.0 / 3.0, tri + 3 * m); }
                    for (m = 0; m < 3; ++m) { double e[3]; rc__sub3(e, tri + 3 * m, cen); if (rc__norm3(e) > rad) rad = rc__norm3(e); }
                    if (rc__sim_swept_segment_dist(a0, da, b0, db, cen) - rad > reach) continue;
                    a = rc__ct_ccd_round_triangle(a0, b0, da, db, tri, tri + 3, tri + 6, zero3, zero3, zero3, core + xi_, 1.0);
                    if (!(a < 1.0)) continue;
                    tau = (k + a) / K;
                    for (m = 0; m < 3; ++m) later |= !s->pinned[tv[m]] && !carried[tv[m]] && tau < when[tv[m]];
                    if (!later) continue;
                    path.tri = tri;
                    if (!rc__sim_path_enters(&path, a, core + enter)) continue;
                    rc__sim_obs_pose_at(ob, tau, R, tr);   /* met at tau: each vertex rigidly from there */
                    for (m = 0; m < 3; ++m)
                        if (!s->pinned[tv[m]] && !carried[tv[m]] && tau < when[tv[m]]) {
                            double r[3];
                            rc__sim_rest_point(ob, sphere, R, tr, tri + 3 * m, r);
                            rc__obs_from_rest(ob->R, ob->t, r, dest + 3 * tv[m]);
                            when[tv[m]] = tau;
                        }
                }
            }
        }
        for (i = 0; i < s->nv; ++i)
            if (when[i] < HUGE_VAL) { memcpy(s->x + 3 * i, dest + 3 * i, 3 * sizeof(double)); carried[i] = 1; any = 1; }
    }
    rc__free(s->user, when);
    return any;
}

/* 1 if an analytic obstacle has not moved since the last step's end (or was added since) */
static int rc__sim_obs_static(const rc__obstacle *ob)
{
    return ob->shape.kind != RC__OBS_TRIMESH && memcmp(ob->R, ob->R_prev, sizeof ob->R) == 0 &&
           memcmp(ob->t, ob->t_prev, sizeof ob->t) == 0;
}

/* The move of a triangle that a core's segment [a, b] runs through, to clear it by target: along
   the triangle's normal, past the nearer end of the segment (a sheet laid through a box is lifted
   over its top, as the vertex push lifts the sheet's vertices: neighbours pierced by the same
   edges move alike; a sideways move, though sometimes shorter, tore neighbours apart). 0 for a
   point (a sphere's centre on the triangle: no direction) or a degenerate triangle. */
static int rc__sim_unpierce_move(const double *a, const double *b, const double *x0, const double *x1, const double *x2,
                                 double target, double *mv)
{
    double n[3], e1[3], e2[3], w[3], sa, sb, up, down, nn;
    if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) return 0;
    rc__sub3(e1, x1, x0);
    rc__sub3(e2, x2, x0);
    rc__cross3(n, e1, e2);
    nn = rc__norm3(n);
    if (!(nn > 0.0)) return 0;
    rc__scale3(n, 1.0 / nn, n);
    rc__sub3(w, a, x0); sa = rc__dot3(n, w);
    rc__sub3(w, b, x0); sb = rc__dot3(n, w);
    up = fmax(sa, sb) + target;     /* moving by +up n: both ends end below the plane */
    down = -fmin(sa, sb) + target;  /* by -down n: both above */
    rc__scale3(mv, up <= down ? up : -down, n);
    return 1;
}

/* Still mesh obstacles, and with self contact the pinned cloth, push free cloth out of their
   offset as the analytic shapes do. Each pair closer than clear between such a pusher's feature and
   free cloth asks the free vertices of its cloth side (a vertex, or a triangle or an edge as a
   whole) to move along the closest vector r, from the pusher's feature to the cloth's, by
   target - |r|: away from it, on the side the cloth is on. The pairs: the mesh barrier's kinds (0
   cloth vertex - mesh triangle, 1 mesh vertex - cloth triangle, 2 cloth edge - mesh edge) of every
   mesh that did not move over the step; with pins (the step's start, after the pins moved), the
   self-contact pairs (vertex - triangle, edge - edge) of which one side is all pinned and the
   other has a free vertex (not adjacent, not excused by the reference distance): a pin moved to
   within the thickness of other cloth (a pinned sheet pressed down onto a free one at 0.5 m/s:
   until session 52 every split of such a step was refused, the cloth ahead of the pins 0.997 mm
   from them at the deepest split). A mesh has no inside, so a pair at distance 0 (cloth lying on
   the mesh or through it) has no side: it is left to the step's start check, which names it. So
   is a pair within 1e-3 xi (1 um at the defaults): the CCD that bounds the push counts cloth that
   close as touching and would cancel the push anyway (a probe: a floor mesh 1e-9 to 1e-6 m under
   a sheet); test_sim_feature_push_rules (e) checks the rule itself.

   Each request is a half-space for its vertex's move d, n.d >= target - |r| (n = r/|r|). The
   pusher's feature lies in the half-space {y : n.y <= n.q} (q its closest point: the two closest
   points of two convex sets define a separating plane), and every point of the cloth's feature in
   {n.y >= n.q + |r|}: moving each vertex of the cloth's feature by any d in its half-space moves
   the whole feature at least target - |r| further along n, so it ends at least target from the
   pusher's feature and never comes nearer on the way. Each piece of pushed cloth takes the
   shortest common move that satisfies all its vertices' half-spaces at once, or each vertex its
   own (Hildreth's dual coordinate ascent, rc__push_shortest_move; the pieces and the caps on a
   move are at the end of the function). Until session 52 the pairs pushed one after the other,
   each along its own r: a strip 0.4 mm inside a mesh V-groove of 30 or 60 degrees was pushed off
   one face through the other and refused; the shortest move of both half-spaces runs along the
   groove's bisector.
   Runs in both push-outs of a step (the placement and rc__sim_resolve_start): three pair searches
   per still mesh each, 0.24% of a fixed 1k spikes step. push = 0 only measures. Returns the least
   distance among the pairs closer than clear (HUGE_VAL: none); *moved = 1 if a vertex moved. Sets
   s->contact_status on out-of-memory. */
typedef struct { int v; double n[3], c; } rc__push_halfspace;   /* the move d of vertex v: n.d >= c */

/* The shortest d with n_k.d >= c_k for the m half-spaces h (|n_k| = 1), by Hildreth's method:
   d = sum lambda_k n_k, lambda_k >= 0, each sweep raising or lowering one lambda at a time to meet
   its half-space exactly (the dual's coordinate ascent, which converges to the shortest d when the
   half-spaces meet; rate cos^2 of the angle between two of them). Half-spaces that do not meet
   (cloth pinched between two faces) leave d where the last sweep put it: the push-out's later
   checks find what is still inside. lambda: m doubles of scratch. */
static void rc__push_shortest_move(const rc__push_halfspace *h, int m, double *lambda, double *d)
{
    int sweep, k;
    double scale = 0.0;
    d[0] = d[1] = d[2] = 0.0;
    for (k = 0; k < m; ++k) { lambda[k] = 0.0; scale = fmax(scale, fabs(h[k].c)); }
    for (sweep = 0; sweep < 200; ++sweep) {
        double change = 0.0;
        for (k = 0; k < m; ++k) {
            double dl = fmax(-lambda[k], h[k].c - rc__dot3(h[k].n, d));
            if (dl == 0.0) continue;
            lambda[k] += dl;
            rc__axpy3(d, dl, h[k].n);
            change = fmax(change, fabs(dl));
        }
        if (!(change > 1e-12 * scale)) break;
    }
}

/* The push requests being gathered: nh half-spaces in h (cap allocated) */
typedef struct { rc__push_halfspace *h; int nh, cap; } rc__push_requests;

/* A pair's closest vector r = sum w_k P_k (P: a point then a triangle, or two edges; ee: edges),
   from the second feature to the first; returns |r| */
static double rc__pair_closest(int ee, const double *P[4], double *r)
{
    double w[4];
    int k;
    if (!ee) (void)rc__ct_point_triangle_d2_typed(P[0], P[1], P[2], P[3], rc__ct_point_triangle_type(P[0], P[1], P[2], P[3]), w, NULL, NULL);
    else (void)rc__ct_edge_edge_d2_typed(P[0], P[1], P[2], P[3], rc__ct_edge_edge_type(P[0], P[1], P[2], P[3]), w, NULL, NULL);
    r[0] = r[1] = r[2] = 0.0;
    for (k = 0; k < 4; ++k) rc__axpy3(r, w[k], P[k]);
    return rc__norm3(r);
}

/* A mesh barrier pair's closest vector r, from the mesh's feature to the cloth's (kinds as
   rc__sim_mesh_pair_verts: 0 cloth vertex - mesh triangle, 1 mesh vertex - cloth triangle, 2 cloth
   edge - mesh edge); returns |r| */
static double rc__sim_mesh_pair_closest(const rc_sim *s, const rc__obstacle *ob, int kind, const int *ia, const int *ib, double *r)
{
    const double *P[4];
    double d;
    int k;
    /* P: the point first (kind 0: a cloth vertex, 1: a mesh vertex), then the triangle; kind 2:
       the cloth edge, then the mesh edge */
    if (kind == 0) { P[0] = s->x + 3 * ia[0]; for (k = 0; k < 3; ++k) P[k + 1] = ob->mesh_x + 3 * ib[k]; }
    else if (kind == 1) { P[0] = ob->mesh_x + 3 * ib[0]; for (k = 0; k < 3; ++k) P[k + 1] = s->x + 3 * ia[k]; }
    else { P[0] = s->x + 3 * ia[0]; P[1] = s->x + 3 * ia[1]; P[2] = ob->mesh_x + 3 * ib[0]; P[3] = ob->mesh_x + 3 * ib[1]; }
    d = rc__pair_closest(kind == 2, P, r);
    if (kind == 1) rc__scale3(r, -1.0, r);   /* from the mesh vertex to the cloth triangle */
    return d;
}

/* One pair's requests: the free ones of the n cloth vertices v move by target - d along r/d (r from
   the pusher to the cloth, d = |r| < clear). Tracks the least distance in *dmin; with push = 0, or a
   pair on the pusher (d within 1e-3 xi), asks nothing. 0 on out-of-memory (contact_status set). */
static int rc__push_request(rc_sim *s, rc__push_requests *q, const int *v, int n, const double *r, double d, double target, int push,
                            double *dmin)
{
    int k;
    if (d < *dmin) *dmin = d;
    if (!push || !(d > 1e-3 * s->def.contact_thickness)) return 1;   /* on the pusher: no side to push to */
    for (k = 0; k < n; ++k) {
        if (s->pinned[v[k]]) continue;
        if (q->nh == q->cap) {
            rc__push_halfspace *g = (rc__push_halfspace *)rc__realloc(s->user, q->h, (size_t)(q->cap = 2 * q->cap + 64), sizeof *g);
            if (!g) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return 0; }
            q->h = g;
        }
        q->h[q->nh].v = v[k];
        rc__scale3(q->h[q->nh].n, 1.0 / d, r);
        q->h[q->nh].c = target - d;
        q->nh++;
    }
    return 1;
}

/* 1 if some pin's target is not where its vertex started the step (x0) */
static int rc__sim_pins_moved(const rc_sim *s)
{
    int i;
    for (i = 0; i < s->nv; ++i)
        if (s->pinned[i] && memcmp(s->pin_target + 3 * i, s->x0 + 3 * i, 3 * sizeof(double)) != 0) return 1;
    return 0;
}

static double rc__sim_feature_push_out(rc_sim *s, double target, double clear, int push, int pins, int *moved)
{
    int o, kind, p, k, i;
    double dmin = HUGE_VAL;
    rc__push_requests q = { NULL, 0, 0 };
    *moved = 0;
    for (o = 0; o < s->nobs && s->contact_status == RC_OK; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (!rc__sim_mesh_still(ob)) continue;
        for (kind = 0; kind < 3 && s->contact_status == RC_OK; ++kind) {
            int *pairs = NULL, np = rc__sim_mesh_pairs(s, ob, kind, s->x, NULL, 0.0, clear, &pairs);
            for (p = 0; p < np && s->contact_status == RC_OK; ++p) {
                const int *ia, *ib;
                double r[3], d;
                int na, nb;
                rc__sim_mesh_pair_verts(s, ob, kind, pairs + 2 * p, &ia, &na, &ib, &nb);
                d = rc__sim_mesh_pair_closest(s, ob, kind, ia, ib, r);
                if (d < clear) (void)rc__push_request(s, &q, ia, na, r, d, target, push, &dmin);
            }
            rc__free(s->user, pairs);
        }
    }
    for (kind = 0; kind < 2 && pins && s->def.self_contact && s->contact_status == RC_OK; ++kind) {
        int *pairs = NULL, np = rc__sim_self_pairs(s, kind, s->x, NULL, 0.0, clear, &pairs), na = kind == 0 ? 1 : 2;
        for (p = 0; p < np && s->contact_status == RC_OK; ++p) {
            const double *P[4];
            double r[3], d;
            int v[4], pinned_a = 1, pinned_b = 1;
            rc__sim_self_verts(s, kind, pairs[2 * p], pairs[2 * p + 1], v);
            for (k = 0; k < 4; ++k) {
                if (k < na) pinned_a &= s->pinned[v[k]] != 0;
                else pinned_b &= s->pinned[v[k]] != 0;
            }
            if (pinned_a == pinned_b || rc__sim_self_adjacent(s, kind, v) || rc__sim_self_excluded(s, kind, v)) continue;
            for (k = 0; k < 4; ++k) P[k] = s->x + 3 * v[k];
            d = rc__pair_closest(kind == 1, P, r);   /* from the second feature to the first */
            if (!(d < clear)) continue;
            if (pinned_a) rc__scale3(r, -1.0, r);
            (void)rc__push_request(s, &q, pinned_a ? v + na : v, pinned_a ? 4 - na : na, r, d, target, push, &dmin);
        }
        rc__free(s->user, pairs);
    }
    if (q.nh > 0 && s->contact_status == RC_OK) {
        /* The pieces of pushed cloth (vertices with requests, joined by cloth edges: union-find).
           A piece takes one shortest common move that meets all its half-spaces, keeping its
           shape: moved vertex by vertex, the cloth in a groove gathered at the groove's bisector (a
           strip's two columns at one point, a review's probe) and cloth folded in it swapped sides.
           Where no common move meets them all (a garment all round a body mesh) or it is too long
           (below), each vertex takes its own shortest move. A move is not made (the cloth stays,
           and the start check refuses it) if it is longer than 4 target (a placement, not a
           relocation: a sheet jammed 0.4 mm into a 10 degree wedge under a hinged plate would move
           18 mm as a piece), or longer than target and than half an edge from the moved cloth to
           cloth that does not move with it (the jammed edge's vertices alone, moved 8 mm against 10
           mm cells, launched the cloth at 1.3 m/s). The half-spaces are sorted by vertex, then
           stably by piece (counting sorts), so each piece's list holds its vertices' lists. */
        int *parent = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));
        int *first = (int *)rc__calloc(s->user, 2 * (size_t)s->nv + 2, sizeof(int)), *firstv = first ? first + s->nv + 1 : NULL;
        rc__push_halfspace *byp = (rc__push_halfspace *)rc__alloc(s->user, 2 * (size_t)q.nh, sizeof *byp), *byv = byp ? byp + q.nh : NULL;
        double *lambda = (double *)rc__alloc(s->user, (size_t)q.nh, sizeof(double));
        double *move = (double *)rc__alloc(s->user, (size_t)5 * s->nv, sizeof(double));
        double *room = move ? move + 3 * (size_t)s->nv : NULL, *vroom = move ? move + 4 * (size_t)s->nv : NULL;
        if (!parent || !first || !byp || !lambda || !move) s->contact_status = RC_ERR_OUT_OF_MEMORY;
        else {
            int e, r, j;
            for (i = 0; i < s->nv; ++i) { parent[i] = -1; room[i] = vroom[i] = HUGE_VAL; }
            for (p = 0; p < q.nh; ++p) parent[q.h[p].v] = q.h[p].v;
            for (e = 0; e < s->ne; ++e) {
                int a = s->topo.edge_v[2 * e], b = s->topo.edge_v[2 * e + 1];
                if (parent[a] >= 0 && parent[b] >= 0) rc__uf_union(parent, a, b);
            }
            /* by vertex, then by piece */
            for (p = 0; p < q.nh; ++p) firstv[q.h[p].v + 1]++;
            for (i = 0; i < s->nv; ++i) firstv[i + 1] += firstv[i];
            for (p = 0; p < q.nh; ++p) byv[firstv[q.h[p].v]++] = q.h[p];
            for (p = 0; p < q.nh; ++p) first[rc__uf_find(parent, byv[p].v) + 1]++;
            for (i = 0; i < s->nv; ++i) first[i + 1] += first[i];
            for (p = 0; p < q.nh; ++p) byp[first[rc__uf_find(parent, byv[p].v)]++] = byv[p];
            for (i = s->nv; i > 0; --i) first[i] = first[i - 1];   /* first[] advanced to the next piece's start: shift back */
            first[0] = 0;
            /* half the shortest edge from each piece (room, at its root) and each pushed vertex
               (vroom) to cloth outside the piece, resp. to any other vertex */
            for (e = 0; e < s->ne; ++e) {
                int a = s->topo.edge_v[2 * e], b = s->topo.edge_v[2 * e + 1];
                double ev[3], half;
                rc__sub3(ev, s->x + 3 * a, s->x + 3 * b);
                half = 0.5 * rc__norm3(ev);
                vroom[a] = fmin(vroom[a], half); vroom[b] = fmin(vroom[b], half);
                if ((parent[a] >= 0) == (parent[b] >= 0)) continue;
                r = rc__uf_find(parent, parent[a] >= 0 ? a : b);
                room[r] = fmin(room[r], half);
            }
            for (r = 0; r < s->nv; ++r) {
                int lo = first[r], hi = first[r + 1], whole = hi > lo;
                double *mv = move + 3 * r, len;
                if (!whole) continue;
                rc__push_shortest_move(byp + lo, hi - lo, lambda + lo, mv);
                len = rc__norm3(mv);
                for (p = lo; p < hi && whole; ++p) whole = rc__dot3(byp[p].n, mv) >= byp[p].c - 1e-9 * target;   /* the move meets them all */
                if (whole && !(len > 4.0 * target || (len > target && len > room[r]))) {
                    for (p = lo; p < hi; ++p)
                        if (p == lo || byp[p].v != byp[p - 1].v) { rc__add3(s->x + 3 * byp[p].v, s->x + 3 * byp[p].v, mv); *moved = 1; }
                    continue;
                }
                for (p = lo; p < hi; p = j) {   /* vertex by vertex */
                    double dv[3];
                    for (j = p; j < hi && byp[j].v == byp[p].v; ++j) {}
                    rc__push_shortest_move(byp + p, j - p, lambda + p, dv);
                    len = rc__norm3(dv);
                    if (len > 4.0 * target || (len > target && len > vroom[byp[p].v])) continue;
                    rc__add3(s->x + 3 * byp[p].v, s->x + 3 * byp[p].v, dv);
                    *moved = 1;
                }
            }
        }
        rc__free(s->user, parent); rc__free(s->user, first); rc__free(s->user, byp); rc__free(s->user, lambda); rc__free(s->user, move);
    }
    rc__free(s->user, q.h);
    return dmin;
}

/* The largest a <= amax such that moving the free cloth from base toward target, base + a (target
   - base), brings no vertex within xi of an analytic shape that did not move and no triangle
   within xi of such a shape's round core (a sphere's centre, a capsule's axis, a box's edges),
   counting only the cloth that started clear of the shape (what the shape itself pushes moves
   away from it): a vertex farther than clear from the shape and from its cores through every
   triangle of the vertex; a triangle farther than clear from the core, with a moving vertex of
   the first kind. The push-out's moves are bounded by it: a push moves cloth up to xi + dhat/2,
   which clears a shape thinner than dhat/2 - xi with both its offsets (a probe, session 51:
   contact_thickness 0.5 mm, a 0.1 mm box slab 0.55 mm above a sheet that a floor mesh 0.25 mm
   under it pushed up; the sheet landed above the slab, every step RC_OK; an analytic floor, or a
   0.1 mm sphere or capsule between the sheet's vertices, did the same). A moving shape's carry
   runs cloth to its leading side by design: moving shapes are not checked. Sets
   s->contact_status (and returns 0) on out-of-memory. */
static int rc__sim_tri_clear_of_core(const double *ca, const double *cb, double r, const double **tv, double clear)
{
    double tau;
    return rc__ct_segment_triangle_lower_bound(ca, cb, tv) - r > clear ||   /* most triangles */
           sqrt(rc__ct_segment_triangle_d2(ca, cb, tv[0], tv[1], tv[2], &tau)) - r > clear;
}
static double rc__sim_push_shape_bound(rc_sim *s, const double *base, const double *target, double clear, double amax)
{
    double xi_ = s->def.contact_thickness;
    int o, i, c, t, k, ic;
    unsigned char *near = NULL;   /* per vertex: started within clear of the shape, or on a triangle within clear of a core */
    for (o = 0; o < s->nobs && amax > 0.0; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (!rc__sim_obs_static(ob)) continue;
        if (!near && !(near = (unsigned char *)rc__alloc(s->user, (size_t)s->nv, 1))) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return 0.0; }
        for (i = 0; i < s->nv; ++i) near[i] = !(rc__sim_obs_sdf(ob, base + 3 * i, NULL, NULL) > clear);
        for (ic = 0; ic < rc__sim_num_cores(ob); ++ic) {
            double ca[3], cb[3], r = rc__sim_round_core(ob, ic, ob->R, ob->t, ca, cb);
            for (t = 0; t < s->nt; ++t) {
                const int *tri = s->tris + 3 * t;
                const double *tv[3];
                for (k = 0; k < 3; ++k) tv[k] = base + 3 * tri[k];
                if (!rc__sim_tri_clear_of_core(ca, cb, r, tv, clear))
                    for (k = 0; k < 3; ++k) near[tri[k]] = 1;
            }
        }
        for (i = 0; i < s->nv && amax > 0.0; ++i) {
            double dx[3];
            if (s->pinned[i] || near[i]) continue;
            rc__sub3(dx, target + 3 * i, base + 3 * i);
            if (dx[0] != 0.0 || dx[1] != 0.0 || dx[2] != 0.0) amax = rc__sim_obs_ccd(ob, base + 3 * i, dx, xi_, amax);
        }
        for (ic = 0; ic < rc__sim_num_cores(ob) && amax > 0.0; ++ic) {
            double ca[3], cb[3], r = rc__sim_round_core(ob, ic, ob->R, ob->t, ca, cb);
            for (t = 0; t < s->nt && amax > 0.0; ++t) {
                const int *tri = s->tris + 3 * t;
                const double *tv[3];
                double d[9];
                int moving = 0, others = 0;   /* others: moving vertices that the shape did not push */
                for (k = 0; k < 3; ++k) tv[k] = base + 3 * tri[k];
                if (!rc__sim_tri_clear_of_core(ca, cb, r, tv, clear)) continue;   /* the core's own push */
                for (k = 0; k < 3; ++k) {
                    int mv = 0;
                    for (c = 0; c < 3; ++c) { d[3 * k + c] = s->pinned[tri[k]] ? 0.0 : target[3 * tri[k] + c] - base[3 * tri[k] + c]; mv |= d[3 * k + c] != 0.0; }
                    moving |= mv;
                    others |= mv && !near[tri[k]];
                }
                if (moving && others)
                    amax = rc__ct_ccd_round_triangle(ca, cb, NULL, NULL, base + 3 * tri[0], base + 3 * tri[1], base + 3 * tri[2], d, d + 3, d + 6,
                                                     r + xi_, amax);
            }
        }
    }
    rc__free(s->user, near);
    return amax;
}

/* Free vertices inside the contact offset of an analytic obstacle (a carried one: within dhat/2
   of it) are pushed out along the obstacle normal to xi + dhat/2; a round core also pushes the free
   vertices of a triangle it cuts into (rc__sim_unpierce_move where its segment runs through it);
   then the still mesh obstacles push, and unless only_static, with self contact, the pinned cloth
   after the pins moved (rc__sim_feature_push_out). only_static: the analytic obstacles that did
   not move (rc__sim_place_static); the meshes are the still ones either way. The moves
   are bounded by CCD against the still analytic shapes (rc__sim_push_shape_bound), and with self
   contact, from s->ls_x (the caller sets it: the state before its carry and this push), only as
   far as the cloth-cloth CCD allows; carried: NULL, or the vertices the caller's carry moved (a
   carried vertex is pushed to xi + dhat/2); any_carried: the carry moved something (then the CCD
   limit applies even without a push). */
static void rc__sim_push_out(rc_sim *s, const unsigned char *carried, int any_carried, int only_static)
{
    int o, i, pass, pushed = any_carried, level, pins = !only_static && s->def.self_contact && rc__sim_pins_moved(s);
    double xi_ = s->def.contact_thickness, target = xi_ + 0.5 * s->def.contact_dhat, clear = xi_ + 1e-3 * s->def.contact_dhat;
    double *x_in = (double *)rc__alloc(s->user, (size_t)3 * s->nv, sizeof(double));   /* x as the push found it */
    if (!x_in) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
    memcpy(x_in, s->x, sizeof(double) * 3 * (size_t)s->nv);
    /* Two obstacles closer than 2 xi + dhat/2 (cloth pinched in a narrow gap) push a vertex back
       and forth between their targets: then everything is repeated with targets nearer the
       offset, xi + dhat/10 and xi + dhat/50 (measured: a sphere sweeping 10 cm per step over cloth
       on a floor, 2.5 mm above it, failed every split of its step with a vertex 0.33 mm from the
       sphere) */
    for (level = 0; level < 3; ++level) {
        int inside = 0, mesh_moved;
        if (level > 0) target = xi_ + (level == 1 ? 0.1 : 0.02) * s->def.contact_dhat;
        for (pass = 0; pass < 4; ++pass)
            for (o = 0; o < s->nobs; ++o) {
                if (only_static && !rc__sim_obs_static(s->obs + o)) continue;
                for (i = 0; i < s->nv; ++i) {
                    double n[3], d;
                    if (s->pinned[i]) continue;
                    d = rc__sim_obs_sdf(s->obs + o, s->x + 3 * i, n, NULL);
                    if (d <= (carried && carried[i] ? target : clear)) { rc__axpy3(s->x + 3 * i, target - d, n); pushed = 1; }
                }
            }
        /* round cores act on whole triangles: a sphere (a capsule's core) that moved into a
           triangle's interior pushes the triangle's free vertices out along the direction from
           its closest point on the centre (axis) to the triangle's closest point; a triangle the
           axis runs through, along its normal past the segment's nearer end (rc__sim_unpierce_move). Passes that still moved one
           at the last leave it possibly inside (inside = 1) */
        for (pass = 0; pass < 8; ++pass) {
            int moved = 0, t, k;
            for (o = 0; o < s->nobs * RC__MAX_CORES; ++o) {
                double ca[3], cb[3], r;
                const rc__obstacle *ob = s->obs + o / RC__MAX_CORES;
                if (o % RC__MAX_CORES >= rc__sim_num_cores(ob) || (only_static && !rc__sim_obs_static(ob))) continue;
                r = rc__sim_round_core(ob, o % RC__MAX_CORES, ob->R, ob->t, ca, cb);
                for (t = 0; t < s->nt; ++t) {
                    const int *tri = s->tris + 3 * t;
                    const double *x0 = s->x + 3 * tri[0], *x1 = s->x + 3 * tri[1], *x2 = s->x + 3 * tri[2];
                    double g[12], c[3], dir[3], d2, dist, ds, tau = 0.0, len;
                    const double *tv[3];
                    int meets = 0;
                    tv[0] = x0; tv[1] = x1; tv[2] = x2;
                    if (rc__ct_segment_triangle_lower_bound(ca, cb, tv) - r > clear) continue;   /* most triangles */
                    if (ca[0] != cb[0] || ca[1] != cb[1] || ca[2] != cb[2]) meets = !(rc__ct_segment_triangle_d2(ca, cb, x0, x1, x2, &tau) > 0.0);
                    for (k = 0; k < 3; ++k) c[k] = ca[k] + tau * (cb[k] - ca[k]);
                    d2 = meets ? 0.0 : rc__ct_point_triangle_d2(c, x0, x1, x2, NULL, g, NULL);
                    dist = sqrt(d2);
                    ds = dist - r;
                    if (ds > clear) continue;
                    if (dist > 0.0) {
                        /* closest point q = c - g_c / 2 (g_c = d(d2)/dc = 2 (c - q)): push away from c */
                        rc__scale3(dir, 1.0 / (2.0 * dist), g);
                        len = -(target - ds);
                    } else if (rc__sim_unpierce_move(ca, cb, x0, x1, x2, r + target, dir)) len = 1.0;   /* clear the core's radius too */
                    else continue;   /* a centre on the triangle */
                    for (k = 0; k < 3; ++k)
                        if (!s->pinned[tri[k]]) rc__axpy3(s->x + 3 * tri[k], len, dir);
                    moved = pushed = 1;
                }
            }
            inside = moved;
            if (!moved) break;
        }
        /* the still mesh obstacles and the moved pins (rc__sim_feature_push_out), after the analytic shapes */
        mesh_moved = 0;
        for (pass = 0; pass < 4 && (s->has_mesh_obstacle || pins); ++pass) {
            int moved = 0;
            (void)rc__sim_feature_push_out(s, target, clear, 1, pins, &moved);
            if (s->contact_status != RC_OK) { rc__free(s->user, x_in); return; }
            if (!moved) break;
            pushed = mesh_moved = 1;
        }
        /* or a vertex left inside an offset (the sphere passes may have pushed it into another
           shape's): the next level */
        for (o = 0; o < s->nobs && !inside; ++o) {
            if (only_static && !rc__sim_obs_static(s->obs + o)) continue;
            for (i = 0; i < s->nv && !inside; ++i)
                if (!s->pinned[i] && rc__sim_obs_sdf(s->obs + o, s->x + 3 * i, NULL, NULL) <= xi_) inside = 1;
        }
        if (!inside && mesh_moved) {   /* nothing was within clear, so nothing is within xi */
            int moved;
            inside = rc__sim_feature_push_out(s, target, xi_, 0, pins, &moved) <= xi_;
            if (s->contact_status != RC_OK) { rc__free(s->user, x_in); return; }
        }
        /* or the push would carry cloth across an analytic shape that did not move (a target
           beyond a thin shape, rc__sim_push_shape_bound): the next level pushes again from where
           the push started, to the nearer target (a probe: a 0.1 mm capsule 0.48 mm above a
           sheet 0.1 mm thick that a floor mesh under it pushed up 1.1 mm, over the capsule; at
           xi + dhat/10 the sheet fits between them) */
        if (!inside && pushed && level < 2) {
            double b = rc__sim_push_shape_bound(s, x_in, s->x, clear, 1.0);
            if (b >= 1.0 && s->has_mesh_obstacle && s->contact_status == RC_OK) {
                /* ... or across a mesh obstacle (its CCD at the end pose, as the final bound below runs
                   it): a review's probe, a sheet 0.05 mm over a floor mesh and 0.5 mm under a plate
                   mesh, thickness 0.1 mm: the first target, 1.1 mm, is beyond the plate, and the
                   final bound cancelled the whole push (refused), where an analytic slab let the
                   next level place the sheet between them */
                unsigned char *skip = (unsigned char *)rc__alloc(s->user, (size_t)s->nobs, 1);
                if (!skip) s->contact_status = RC_ERR_OUT_OF_MEMORY;
                else {
                    for (o = 0; o < s->nobs; ++o) skip[o] = s->obs[o].shape.kind != RC__OBS_TRIMESH;
                    b = rc__sim_obstacle_move_bound(s, x_in, s->x, skip);
                    rc__free(s->user, skip);
                }
            }
            if (s->contact_status != RC_OK) { rc__free(s->user, x_in); return; }
            if (b < 1.0) {
                memcpy(s->x, x_in, sizeof(double) * 3 * (size_t)s->nv);
                continue;
            }
        }
        if (!inside) break;
    }
    rc__free(s->user, x_in);
    s->start_pushed |= pushed;
    if (pushed) {
        /* The push moves some cloth vertices and not their neighbours: with self contact it must
           not push cloth through cloth. Cloth that the pushed cloth would run into is pushed too,
           transitively (the outer layer in front of the inner one a leg pushes out), each such
           vertex by the displacement of the vertex pushing it (rc__sim_self_ccd_hits), for up to
           RC__CARRY_ROUNDS rounds, if CCD against every obstacle at its end pose allows that move
           (this cloth starts outside all of them; a review's probe pushed it through a slowly
           moving ceiling mesh when only the still ones were checked); else the rounds stop. Then
           the whole move is taken only as far as the cloth-cloth CCD and CCD against the mesh
           obstacles at their end pose allow (not the analytic shapes: the pushed cloth starts
           inside them; a review's probe: a box pushed a sheet through a still ceiling mesh within
           a step, accepted). What is left inside an offset fails the step's start check and the
           step is split (a half step moves the obstacle half as far). Measured: the 1k
           skirt_panels scene (two layers between a kicking leg capsule and the body) started a
           step with cloth 0.56 mm from cloth, inside the 1 mm thickness, at step 41 and failed
           there, before the cloth-cloth limit; its fixed-mesh step 48 needs 14 substeps, hence
           def.max_substeps = 8. skip: nobs flags for the whole move's bound (the analytic
           shapes), then nobs zeros for the rounds'. */
        unsigned char *hit = (unsigned char *)rc__alloc(s->user, (size_t)s->nv, 1);
        unsigned char *skip = (unsigned char *)rc__calloc(s->user, 2 * (size_t)s->nobs + 1, 1);
        double *push = (double *)rc__alloc(s->user, (size_t)6 * s->nv, sizeof(double)), *tgt = push ? push + 3 * (size_t)s->nv : NULL;
        double a = 1.0;
        int round, added = s->def.self_contact;
        if (!skip) { s->contact_status = RC_ERR_OUT_OF_MEMORY; added = 0; }
        for (round = 0; added; ++round) {
            int last = round == RC__CARRY_ROUNDS || !hit || !push || !skip;
            if (!last) memset(hit, 0, (size_t)s->nv);
            a = rc__sim_self_move_bound(s, s->ls_x, s->x, last ? NULL : hit, last ? NULL : push);
            if (!(a < 1.0) || last || s->contact_status != RC_OK) break;
            memcpy(tgt, s->x, sizeof(double) * 3 * (size_t)s->nv);
            for (added = 0, i = 0; i < s->nv; ++i)
                if (hit[i] && !s->pinned[i]) { rc__add3(tgt + 3 * i, tgt + 3 * i, push + 3 * i); added++; }
            if (added && !(rc__sim_obstacle_move_bound(s, s->x, tgt, skip + s->nobs) >= 1.0)) break;
            if (s->contact_status != RC_OK) break;
            memcpy(s->x, tgt, sizeof(double) * 3 * (size_t)s->nv);
        }
        if (skip && s->has_mesh_obstacle && a > 0.0 && s->contact_status == RC_OK) {
            double b;
            for (o = 0; o < s->nobs; ++o) skip[o] = s->obs[o].shape.kind != RC__OBS_TRIMESH;
            b = rc__sim_obstacle_move_bound(s, s->ls_x, s->x, skip);
            if (b < a) a = b;
        }
        /* ... and by CCD against the analytic shapes that did not move, for the cloth that started
           clear of them (rc__sim_push_shape_bound) */
        if (a > 0.0 && s->contact_status == RC_OK) {
            double b = rc__sim_push_shape_bound(s, s->ls_x, s->x, clear, a);
            if (b < a) a = b;
        }
        rc__free(s->user, hit); rc__free(s->user, push); rc__free(s->user, skip);
        if (s->def.self_contact || a < 1.0)
            for (i = 0; i < 3 * s->nv; ++i) s->x[i] = s->ls_x[i] + a * (s->x[i] - s->ls_x[i]);
    }
}

/* Cloth inside the offset of an obstacle that has not moved (an analytic shape or a still mesh,
   added where the cloth already is, or cloth laid exactly on a floor) is pushed out BEFORE the
   step takes its state x^t: a placement, not a motion. Earlier the push was part of the step (as
   for a moving obstacle, rc__sim_resolve_start), so it became velocity v = (x - x^t)/h: a floor
   added 0.5 m above a sheet launched it at 50 m/s (every step RC_OK), a sphere poking 1 cm through
   a sheet without gravity threw a vertex up at 1.3 m/s, a sheet lying on its floor hopped 1.1 cm.
   Velocities are kept as they are. An obstacle's motion (rc_sim_move_obstacle) still carries and pushes the
   cloth within the step, which is the momentum it imparts. */
static void rc__sim_place_static(rc_sim *s)
{
    int o, any = 0;
    for (o = 0; o < s->nobs; ++o) any |= rc__sim_obs_static(s->obs + o) || rc__sim_mesh_still(s->obs + o);
    if (!any) return;
    memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);   /* the CCD base of the push */
    rc__sim_push_out(s, NULL, 0, 1);
}

/* A start inside the contact offset of an obstacle that moved onto the cloth: the vertices it ran
   over are carried (rc__sim_carry_analytic), then every vertex inside the offset (a carried one:
   within dhat/2 of it) is pushed out along the obstacle normal to xi + dhat/2. */
static void rc__sim_resolve_start(rc_sim *s)
{
    unsigned char *carried = (unsigned char *)rc__alloc(s->user, (size_t)s->nv, 1);
    if (!carried) { s->contact_status = RC_ERR_OUT_OF_MEMORY; return; }
    memset(carried, 0, (size_t)s->nv);
    memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);   /* the CCD base of carry and push */
    rc__sim_push_out(s, carried, rc__sim_carry_analytic(s, carried), 0);
    rc__free(s->user, carried);
}

/* where the material point now at node i was at the step's start: x^t(u_i) = x0_i + G0_i (u_i -
   u0_i) in adaptive mode (G0: the recovered u-gradient of x0, rc__sim_recover_gradients), x0_i in
   fixed mode */
static void rc__sim_material_start(const rc_sim *s, const double *G0, int i, double out[3])
{
    int c;
    memcpy(out, s->x0 + 3 * i, 3 * sizeof(double));
    if (s->def.adaptive)
        for (c = 0; c < 3; ++c)
            out[c] += G0[6 * i + 2 * c] * (s->u[2 * i] - s->u0_step[2 * i]) + G0[6 * i + 2 * c + 1] * (s->u[2 * i + 1] - s->u0_step[2 * i + 1]);
}

/* What the pass-through check watches, in the obstacle's rest frame: core segments seg[6 k ..]
   (a, b) with the radius returned (0: not checked), and for a box its inner box |p_c| < inner[c]
   (inner = 0 otherwise). Returns the number of segments. A sphere: its centre, radius r/2; a
   capsule: its axis, half its core's radius. A box: its inner box, every face moved in by half
   the smallest half extent h, by its 12 edges with radius h/4, and by the cloth vertices' paths
   against its volume. Cloth the box carries or pushes stays outside the box, at least h/4 from
   that core. Why the whole inner box and not the centre alone (until session 38): a 2 cm bar
   rising 0.3 m in a step between two columns of vertices cut through a sheet's pinned edge with
   RC_OK, its centre off the cloth and the carry (which follows vertices) taking nothing
   (test_sim_thin_bar_through_pinned_edge). Why edges and vertices: a triangle moving through a convex
   volume first touches it vertex to face, face to vertex or edge to edge, so the paths of the
   cloth's vertices and the inner box's edges see every triangle that enters it. */
static int rc__sim_pass_core(const rc__obstacle *ob, double *seg, double *radius, double inner[3])
{
    static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, zero[3] = { 0.0, 0.0, 0.0 };
    inner[0] = inner[1] = inner[2] = 0.0;
    *radius = 0.0;
    if (ob->shape.kind == RC__CT_SHAPE_BOX) {
        const double *h = ob->shape.half, *Rb = ob->shape.R;
        double hmin = fmin(h[0], fmin(h[1], h[2]));
        int axis, corner, n = 0, k, i;
        for (k = 0; k < 3; ++k) inner[k] = h[k] - 0.5 * hmin;
        /* each edge runs along one box axis, at one of the four sign pairs of the other two; box
           frame y -> p + Rb y (Rb = shape.R, columns the box axes) */
        for (axis = 0; axis < 3; ++axis)
            for (corner = 0; corner < 4; ++corner) {
                int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                double ya[3], yb[3], *e = seg + 6 * n++;
                ya[axis] = -inner[axis]; yb[axis] = inner[axis];
                ya[a1] = yb[a1] = (corner & 1 ? 1.0 : -1.0) * inner[a1];
                ya[a2] = yb[a2] = (corner & 2 ? 1.0 : -1.0) * inner[a2];
                for (i = 0; i < 3; ++i) {
                    e[i] = e[3 + i] = ob->shape.p[i];
                    for (k = 0; k < 3; ++k) { e[i] += Rb[3 * i + k] * ya[k]; e[3 + i] += Rb[3 * i + k] * yb[k]; }
                }
            }
        *radius = 0.25 * hmin;
        return n;
    }
    if (rc__sim_num_cores(ob) != 1) return 0;
    *radius = 0.5 * rc__sim_round_core(ob, 0, I3, zero, seg, seg + 3);
    return *radius > 0.0 ? 1 : 0;
}

/* 1 if the path p -> p + d (the obstacle's rest frame) meets the open box |y_c| < half_c in the
   frame y = Rb^T (q - centre) of box (Rb = box->R, columns the box axes) */
static int rc__sim_path_in_box(const double p[3], const double d[3], const rc__ct_shape *box, const double half[3])
{
    const double *Rb = box->R;
    double t0 = 0.0, t1 = 1.0;
    int c;
    for (c = 0; c < 3; ++c) {
        double q = Rb[c] * (p[0] - box->p[0]) + Rb[3 + c] * (p[1] - box->p[1]) + Rb[6 + c] * (p[2] - box->p[2]);
        double v = Rb[c] * d[0] + Rb[3 + c] * d[1] + Rb[6 + c] * d[2], a, b;
        if (v == 0.0) {
            if (!(fabs(q) < half[c])) return 0;
            continue;
        }
        a = (-half[c] - q) / v;
        b = (half[c] - q) / v;
        if (a > b) { double w = a; a = b; b = w; }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
        if (!(t0 < t1)) return 0;
    }
    return 1;
}

/* A sphere moving fast through cloth held on all sides (a trampoline: 30-50 cm per step through a
   sheet pinned all round) ended the step on the far side of it with RC_OK (a review's probe): the
   carry took only part of the tent, and the push-out moved the triangles the sphere cut to their
   far side. So the cloth's move is checked against the obstacle's path, in its frame: each
   triangle's vertices moving linearly in the world from their start x0 to where they are now,
   mapped by the pose at the ends of the chords of the obstacle's path (rotation included, as the
   carry's; cloth carried along then stays put in that frame), must keep off the obstacle's core
   (rc__sim_pass_core). Cloth carried or pushed by a sphere stays about r + xi from its centre
   (spheres act on whole triangles); cloth it went through comes to 0. Checked after the carry and
   push-out, the only moves made while the obstacle moves: the solve that follows has it at its end
   pose, and its line search's CCD keeps every vertex and every triangle (against the round cores)
   outside it along each iterate, so the solve cannot pass cloth through it. (Until session 39 the
   whole step's straight path x0 -> x was checked again after the solve; cloth that wrapped round
   an edge within the step cuts the corner on that path, a false pass: a 1 cm bar pushing a hanging
   curtain 5 cm per step split 5 of 8 steps, a sphere rising 1 m per step into a pinned sheet split
   one. No test or probe needed that second check.) Returns the first obstacle whose path fails,
   else -1; triangles that started on the core (an obstacle added inside the cloth and moved at
   once) are left to the push-out. */
static int rc__sim_obstacle_passed_through(rc_sim *s, const double *x0, int *tri_out)
{
    enum { MAXK = 64 };
    static const double still[3] = { 0.0, 0.0, 0.0 };
    double pose[MAXK + 1][12], seg[12 * 6];
    int o, k, t, m, c, K, j, nseg;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        double th, keep, inner[3], lo[3], hi[3];
        if (rc__sim_obs_static(ob)) continue;
        nseg = rc__sim_pass_core(ob, seg, &keep, inner);
        if (nseg == 0) continue;
        for (c = 0; c < 3; ++c) {   /* the core's bounding box */
            lo[c] = HUGE_VAL; hi[c] = -HUGE_VAL;
            for (j = 0; j < nseg; ++j) {
                lo[c] = fmin(lo[c], fmin(seg[6 * j + c], seg[6 * j + 3 + c]));
                hi[c] = fmax(hi[c], fmax(seg[6 * j + c], seg[6 * j + 3 + c]));
            }
        }
        th = rc__sim_rot_frac(ob->R_prev, ob->R, 1.0, pose[0], NULL);
        K = th > 0.05 ? (int)ceil(th / 0.05) : 1;
        if (K > MAXK) K = MAXK;
        for (k = 0; k <= K; ++k) rc__sim_obs_pose_at(ob, (double)k / K, pose[k], pose[k] + 9);   /* the chords' ends */
        for (t = 0; t < s->nt; ++t) {
            const int *tv = s->tris + 3 * t;
            double r0[3][3];
            int on_core = 0, apart = 0;
            for (m = 0; m < 3; ++m) {
                rc__obs_to_rest(pose[0], pose[0] + 9, x0 + 3 * tv[m], r0[m]);
                if (inner[0] > 0.0 && rc__sim_path_in_box(r0[m], still, &ob->shape, inner)) on_core = 1;
            }
            for (c = 0; c < 3 && !apart; ++c)   /* the start's box farther than keep from the core's: not on it */
                apart = fmin(r0[0][c], fmin(r0[1][c], r0[2][c])) > hi[c] + keep || fmax(r0[0][c], fmax(r0[1][c], r0[2][c])) < lo[c] - keep;
            for (j = 0; j < nseg && !on_core && !apart; ++j) {
                double tau;
                if (!(rc__ct_segment_triangle_d2(seg + 6 * j, seg + 6 * j + 3, r0[0], r0[1], r0[2], &tau) > keep * keep)) on_core = 1;
            }
            if (on_core) continue;
            for (k = 0; k < K; ++k) {
                double p[3][3], d[3][3], f0 = (double)k / K, f1 = (double)(k + 1) / K;
                int away = 0;
                for (m = 0; m < 3; ++m) {
                    double w0[3], w1[3], q1[3];
                    for (c = 0; c < 3; ++c) {
                        double a = x0[3 * tv[m] + c], e = s->x[3 * tv[m] + c];
                        w0[c] = a + f0 * (e - a);
                        w1[c] = a + f1 * (e - a);
                    }
                    rc__obs_to_rest(pose[k], pose[k] + 9, w0, p[m]);
                    rc__obs_to_rest(pose[k + 1], pose[k + 1] + 9, w1, q1);
                    rc__sub3(d[m], q1, p[m]);
                }
                for (c = 0; c < 3 && !away; ++c) {   /* the triangle's swept box against the core's box */
                    double tlo = HUGE_VAL, thi = -HUGE_VAL;
                    for (m = 0; m < 3; ++m) {
                        double q0 = p[m][c], qe = p[m][c] + d[m][c];
                        tlo = q0 < tlo ? q0 : tlo; tlo = qe < tlo ? qe : tlo;
                        thi = q0 > thi ? q0 : thi; thi = qe > thi ? qe : thi;
                    }
                    away = hi[c] < tlo - keep || lo[c] > thi + keep;
                }
                if (away) continue;
                for (m = 0; m < 3 && inner[0] > 0.0; ++m)
                    if (rc__sim_path_in_box(p[m], d[m], &ob->shape, inner)) { if (tri_out) *tri_out = t; return o; }
                for (j = 0; j < nseg; ++j)
                    if (rc__ct_ccd_round_triangle(seg + 6 * j, seg + 6 * j + 3, NULL, NULL, p[0], p[1], p[2], d[0], d[1], d[2], keep, 1.0) < 1.0) {
                        if (tri_out) *tri_out = t;
                        return o;
                    }
            }
        }
    }
    return -1;
}

/* RC_OK, or the step's failure when an obstacle passed through the cloth in the carry at the
   step's start (its nodes still at their u of the step's start, so x0 is each one's own start) */
static rc_status rc__sim_pass_status(rc_sim *s)
{
    int tri = -1, o, any = 0;
    char msg[sizeof(s->err)];
    for (o = 0; o < s->nobs; ++o) {
        double seg[12 * 6], keep, inner[3];
        any |= rc__sim_pass_core(s->obs + o, seg, &keep, inner) > 0 && !rc__sim_obs_static(s->obs + o);
    }
    if (!any) return RC_OK;
    o = rc__sim_obstacle_passed_through(s, s->x0, &tri);
    if (o < 0) return RC_OK;
    snprintf(msg, sizeof msg, "%s obstacle %d passed through the cloth in the carry at the step's start (triangle %d): the cloth cannot follow it; "
             "move it less per step, or let the cloth go",
             s->obs[o].shape.kind == RC__CT_SHAPE_SPHERE ? "sphere" : s->obs[o].shape.kind == RC__CT_SHAPE_BOX ? "box" : "capsule", o, tri);
    return rc__sim_fail(s, RC_ERR_INTERSECTING, msg);
}

static void rc__sim_quality_stats(const rc_sim *s, rc_step_stats *st)
{
    int t;
    double mn = HUGE_VAL, mx = 0.0, sum = 0.0, amin = HUGE_VAL;
    for (t = 0; t < s->nt; ++t) {
        const int *tri = s->tris + 3 * t;
        double ul[6], J[4], det, q, ar;
        int k;
        for (k = 0; k < 3; ++k) { ul[2 * k] = s->u[2 * tri[k]]; ul[2 * k + 1] = s->u[2 * tri[k] + 1]; }
        det = rc__mips_jacobian(ul, s->Dinv0 + 4 * t, J);
        q = det > 0.0 ? (J[0] * J[0] + J[1] * J[1] + J[2] * J[2] + J[3] * J[3]) / det : HUGE_VAL;   /* MIPS = |J|_F^2 / det J */
        ar = det;   /* A(u)/A(u0) = det J */
        if (q < mn) mn = q;
        if (q > mx) mx = q;
        if (ar < amin) amin = ar;
        sum += q;
    }
    st->min_quality = mn; st->max_quality = mx; st->mean_quality = sum / s->nt; st->min_area_ratio = amin;
}

static void rc__sim_set_step_size(rc_sim *s, double h)
{
    s->h = h;
    s->inv_h2 = 1.0 / (h * h);
}

/* Track every hinge angle through the steps: at a step start, the angle of the current x taken
   within pi of the previous start's, and within a step each edge's theta taken within pi of that
   (rc__angle_near). atan2 alone lies in (-pi, pi] and jumps by 2 pi where a hinge folds flat onto
   itself; psi = theta/2 + s phi then jumps by pi and II flips sign: a jump of the bending energy.
   Measured on the 1k sphere drape (no self-contact): folds reach theta = pi from step 16; a Newton
   iterate sitting on the jump had every line search fail, the step ending unconverged with x still
   400x its tolerance away. The reference also follows every accepted iterate (rc__sim_line_search
   calls this with at_step_start = 0; the energy at that iterate is unchanged, theta keeps its
   value): with the reference fixed at the step start, a hinge turning by pi within a step put
   the branch cut on the current iterate (measured: the 1k adaptive sphere drape, step 38, every
   joint direction raised the bending energy by a constant 2.6e-5 J for any step length down to
   1e-8, and the step ended unconverged). So a hinge may turn by up to pi per line-search step.
   Memory is bounded: at a step start a tracked angle beyond 1.5 pi (the faces have passed
   through each other by 90 degrees, which only the absence of self-contact allows) restarts from
   atan2's value. Without the bound, hinges at the cone tips of the spikes scene wound on through
   whole turns (8 rad by step 96) and kept the energy of a multiple fold while lying flat; the
   reset changes the energy between steps, never inside a solve. */
#define RC__HINGE_MEMORY (1.5 * RC__PI)
static void rc__sim_track_hinges_at(const rc_sim *s, const double *x, double *hinge_ref, int at_step_start)
{
    int t, k;
    for (t = 0; t < s->nt; ++t)
        for (k = 0; k < 3; ++k) {
            const int *tri = s->tris + 3 * t;
            int f = s->topo.tri_flap[3 * t + k];
            double h, th, *ref = hinge_ref + s->topo.tri_edge[3 * t + k];
            /* once per interior edge: its two triangles traverse it in opposite directions */
            if (f < 0 || tri[(k + 1) % 3] > tri[(k + 2) % 3]) continue;
            rc__sh_edge_geom(x + 3 * tri[k], x + 3 * tri[(k + 1) % 3], x + 3 * tri[(k + 2) % 3], x + 3 * f, &h, &th);
            *ref = rc__angle_near(th, *ref);
            if (at_step_start && fabs(*ref) > RC__HINGE_MEMORY) *ref = th;
        }
}
static void rc__sim_track_hinges(rc_sim *s, int at_step_start) { rc__sim_track_hinges_at(s, s->x, s->hinge_ref, at_step_start); }

/* The error of a step whose start is inside a contact offset, naming what is closest: the nearest
   cloth vertex to an analytic obstacle (its id is the index rc_sim_add_* returned), the closest
   cloth-obstacle gap (mesh obstacles included) and the closest cloth-cloth distance, against the
   thickness. A user who sees "vertex 512 is 0.4 mm from obstacle 3" can tell a pinch between two
   obstacles from an obstacle moving too far per step; the bare status could not. */
#define RC__MSG_APPEND(...) do { if (n >= 0 && (size_t)n < sizeof msg) { int w__ = snprintf(msg + n, sizeof msg - (size_t)n, __VA_ARGS__); \
                                 n = w__ < 0 ? -1 : n + w__; } } while (0)
/* whether anything that places a step's start moves over the step: a pin's target, an obstacle, a
   material handle's target. If nothing does, the start (the cloth as it is, pushed out of the
   obstacles) is the same for every step size, and so is its contact check. */
static int rc__sim_start_moves(const rc_sim *s)
{
    int i, o;
    if (rc__sim_pins_moved(s)) return 1;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        if (ob->shape.kind == RC__OBS_TRIMESH ? !rc__sim_mesh_still(ob) : !rc__sim_obs_static(ob)) return 1;
    }
    for (i = 0; i < s->nmh; ++i)
        if (memcmp(s->mh[i].target, s->mh[i].target_prev, 3 * sizeof(double)) != 0) return 1;
    return 0;
}

/* distance from point p to obstacle o: an analytic shape's signed distance (negative inside), a
   mesh's nearest triangle (a scan: for error messages) */
static double rc__sim_point_obstacle_distance(const rc_sim *s, int o, const double *p)
{
    const rc__obstacle *ob = s->obs + o;
    double d2 = HUGE_VAL;
    int t;
    if (ob->shape.kind != RC__OBS_TRIMESH) return rc__sim_obs_sdf(ob, p, NULL, NULL);
    for (t = 0; t < ob->mesh_nt; ++t) {
        const int *tv = ob->mesh_tris + 3 * t;
        double d = rc__ct_point_triangle_d2(p, ob->mesh_x + 3 * tv[0], ob->mesh_x + 3 * tv[1], ob->mesh_x + 3 * tv[2], NULL, NULL, NULL);
        if (d < d2) d2 = d;
    }
    return sqrt(d2);
}

static rc_status rc__sim_fail_start(rc_sim *s, const rc__terms *T)
{
    char msg[sizeof(s->err)];
    double xi_ = s->def.contact_thickness, dmin = HUGE_VAL;
    int i, o, vmin = -1, omin = -1, n = 0;
    /* a split would meet the same start: rc__sim_advance returns this error without splitting
       (before, a sheet at gap 0 over a floor mesh split 8 levels deep and reported the same
       message twice) */
    s->split_futile = !rc__sim_start_moves(s);
    for (o = 0; o < s->nobs; ++o) {
        if (s->obs[o].shape.kind == RC__OBS_TRIMESH) continue;
        for (i = 0; i < s->nv; ++i) {
            double d = rc__sim_obs_sdf(s->obs + o, s->x + 3 * i, NULL, NULL);
            if (d < dmin) { dmin = d; vmin = i; omin = o; }
        }
    }
    msg[0] = 0;
    RC__MSG_APPEND("the start of the step (h = %.3g s) is inside a contact offset (thickness %.3g mm):", s->h, 1e3 * xi_);
    if (vmin >= 0 && dmin <= xi_)
        RC__MSG_APPEND(" vertex %d is %.3g mm from obstacle %d (%s%s),", vmin, 1e3 * dmin, omin,
                       s->obs[omin].shape.kind == RC__CT_SHAPE_BOX ? "a box" : s->obs[omin].shape.kind == RC__CT_SHAPE_CAPSULE ? "a capsule"
                       : s->obs[omin].shape.kind == RC__CT_SHAPE_SPHERE ? "a sphere" : "a plane",
                       s->pinned[vmin] ? "; a pinned vertex: its target is inside the obstacle" : "");
    {   /* the round cores (spheres, capsules' axes, boxes' edges) on whole triangles */
        double cmin = HUGE_VAL;
        int t, ic, tmin = -1, cobs = -1;
        for (o = 0; o < s->nobs; ++o)
            for (ic = 0; ic < rc__sim_num_cores(s->obs + o); ++ic) {
                double a[3], b[3], tau, r = rc__sim_round_core(s->obs + o, ic, s->obs[o].R, s->obs[o].t, a, b);
                for (t = 0; t < s->nt; ++t) {
                    const int *v = s->tris + 3 * t;
                    double d = sqrt(rc__ct_segment_triangle_d2(a, b, s->x + 3 * v[0], s->x + 3 * v[1], s->x + 3 * v[2], &tau)) - r;
                    if (d < cmin) { cmin = d; tmin = t; cobs = o; }
                }
            }
        if (vmin >= 0 && dmin <= xi_) {
            /* the vertex explains it */
        } else if (tmin >= 0 && cmin <= xi_)
            RC__MSG_APPEND(" triangle %d is %.3g mm from obstacle %d (%s),", tmin, 1e3 * cmin, cobs,
                           s->obs[cobs].shape.kind == RC__CT_SHAPE_BOX ? "an edge of the box: cloth laid through a box, or one moving too far per step"
                           : s->obs[cobs].shape.kind == RC__CT_SHAPE_CAPSULE ? "the capsule's core, half its radius" : "the sphere");
        else {   /* a triangle skewered through a box between its edges (rc__sim_tri_overlaps_box) */
            int found = 0;
            for (o = 0; o < s->nobs && !found; ++o)
                for (t = 0; t < s->nt && !found && s->obs[o].shape.kind == RC__CT_SHAPE_BOX; ++t) {
                    const int *v = s->tris + 3 * t;
                    found = rc__sim_tri_overlaps_box(s->obs + o, s->x + 3 * v[0], s->x + 3 * v[1], s->x + 3 * v[2]);
                    if (found) RC__MSG_APPEND(" triangle %d runs through box %d (cloth laid through a box, or one moving too far per step),", t, o);
                }
        }
    }
    if (T->min_mesh <= xi_) {
        /* which mesh and which cloth feature: the closest pair within xi (a review's probe found
           "cloth is 0.05 mm from a mesh obstacle" too vague beside the analytic shapes' message) */
        double mmin = HUGE_VAL;
        int kind, p, mo = -1, mk = -1, mv[3] = { -1, -1, -1 }, pin = 0;
        rc_status cs = s->contact_status;
        s->contact_status = RC_OK;
        for (o = 0; o < s->nobs && s->contact_status == RC_OK; ++o) {
            const rc__obstacle *ob = s->obs + o;
            if (ob->shape.kind != RC__OBS_TRIMESH) continue;
            for (kind = 0; kind < 3 && s->contact_status == RC_OK; ++kind) {
                int *pairs = NULL, np = rc__sim_mesh_pairs(s, ob, kind, s->x, NULL, 0.0, xi_, &pairs);
                for (p = 0; p < np; ++p) {
                    const int *ia, *ib;
                    double r[3], d;
                    int na, nb, k;
                    rc__sim_mesh_pair_verts(s, ob, kind, pairs + 2 * p, &ia, &na, &ib, &nb);
                    d = rc__sim_mesh_pair_closest(s, ob, kind, ia, ib, r);
                    if (d < mmin) {
                        mmin = d; mo = o; mk = kind; pin = 0;
                        for (k = 0; k < 3; ++k) { mv[k] = k < na ? ia[k] : -1; if (k < na) pin |= s->pinned[ia[k]] != 0; }
                    }
                }
                rc__free(s->user, pairs);
            }
        }
        s->contact_status = cs;   /* out of memory here costs only the detail */
        if (mo >= 0) {
            double d2nd = HUGE_VAL;
            int o2 = -1;
            if (mk == 0) RC__MSG_APPEND(" cloth vertex %d", mv[0]);
            else if (mk == 1) RC__MSG_APPEND(" the cloth triangle (%d, %d, %d)", mv[0], mv[1], mv[2]);
            else RC__MSG_APPEND(" the cloth edge (%d, %d)", mv[0], mv[1]);
            RC__MSG_APPEND("%s is %.3g mm from mesh obstacle %d", pin ? " (pinned)" : "", 1e3 * mmin, mo);
            /* pinched: another obstacle within the contact band of the same cloth (its first vertex).
               Named first, as the cause: a plate pressing a sheet onto a floor was refused with a
               message about the floor's push-out and the pinch in a trailing remark (session 53's probe) */
            for (o = 0; o < s->nobs; ++o)
                if (o != mo) {
                    double d = rc__sim_point_obstacle_distance(s, o, s->x + 3 * mv[0]);
                    if (d < d2nd) { d2nd = d; o2 = o; }
                }
            if (o2 >= 0 && d2nd <= xi_ + s->def.contact_dhat)
                RC__MSG_APPEND(" and %.3g mm from %sobstacle %d: pinched between them (where their gap is under twice the thickness,"
                               " the cloth has no room),", 1e3 * d2nd, s->obs[o2].shape.kind == RC__OBS_TRIMESH ? "mesh " : "", o2);
            else if (rc__sim_mesh_still(s->obs + mo))
                RC__MSG_APPEND(" (a still mesh pushes free cloth out to its side, but not cloth lying on it or through it, nor pinned"
                               " vertices: place it clear with rc_sim_teleport_obstacle_vertices),");
            else
                RC__MSG_APPEND(" (a moving mesh carries the cloth it runs into, but not through cloth or another obstacle, nor pinned"
                               " cloth),");
        } else RC__MSG_APPEND(" cloth is %.3g mm from a mesh obstacle,", 1e3 * T->min_mesh);
    }
    if (s->def.self_contact && T->min_self <= xi_) {
        /* which cloth: the closest pair within xi, as the self contact counts pairs (not adjacent,
           not stitched, not excused by reference distance). "cloth is 0 mm from cloth" named
           nothing where two panels' edges lay on each other stitched in the reverse order
           (session 53's probe). */
        double smin = HUGE_VAL;
        int kind, p, sk = -1, sv[4] = { -1, -1, -1, -1 };
        rc_status cs = s->contact_status;
        s->contact_status = RC_OK;
        for (kind = 0; kind < 2 && s->contact_status == RC_OK; ++kind) {
            int *pairs = NULL, np = rc__sim_self_pairs(s, kind, s->x, NULL, 0.0, xi_, &pairs);
            for (p = 0; p < np; ++p) {
                int v[4], k;
                const double *P[4];
                double d;
                rc__sim_self_verts(s, kind, pairs[2 * p], pairs[2 * p + 1], v);
                if (rc__sim_self_adjacent(s, kind, v) || rc__sim_self_excluded(s, kind, v)) continue;
                for (k = 0; k < 4; ++k) P[k] = s->x + 3 * v[k];
                d = sqrt(rc__sim_self_d2(kind, P));
                if (d < smin) { smin = d; sk = kind; memcpy(sv, v, sizeof sv); }
            }
            rc__free(s->user, pairs);
        }
        s->contact_status = cs;   /* out of memory here costs only the detail */
        if (sk == 0) RC__MSG_APPEND(" cloth vertex %d is %.3g mm from the cloth triangle (%d, %d, %d)", sv[0], 1e3 * smin, sv[1], sv[2], sv[3]);
        else if (sk == 1) RC__MSG_APPEND(" the cloth edges (%d, %d) and (%d, %d) are %.3g mm apart", sv[0], sv[1], sv[2], sv[3], 1e3 * smin);
        else RC__MSG_APPEND(" cloth is %.3g mm from cloth", 1e3 * T->min_self);
        /* at distance 0 the cloth touches itself as given: coincident panels (an OBJ file's UV
           seam, split by the reader into two panels on the same positions, not sewn), whatever
           the pins did (an OBJ probe: such a file was refused with the pins blamed) */
        RC__MSG_APPEND("%s,", smin != 0.0 ? "" : s->nst > 0 ? " (panels laid on each other but not stitched there: a seam's sides paired in"
                                                             " the wrong order?)"
                                                           : " (coincident cloth: panels on the same positions, e.g. two sides of a UV"
                                                             " seam that rc_mesh_read_obj split; sew them with rc_sim_add_seam)");
    }
    for (i = 0, o = 0; i < s->nv; ++i) o |= s->pinned[i];
    if (s->nobs > 0) {
        /* the causes this scene allows: a box added where it cuts through a flat sheet was refused
           with "pinched between obstacles, or an obstacle moving too far per step" when it was the
           only obstacle and had not moved (session 59's first-use review) */
        int moving = 0, still = 0, near = 0, k, nwhy = 0;
        const char *why[3];
        for (k = 0; k < s->nobs; ++k) {
            const rc__obstacle *ob = s->obs + k;
            /* with a vertex named, only the obstacles at it (a sphere moving 20 cm away was offered
               as the cause: the diff review) */
            if (vmin >= 0 && dmin <= xi_ && !(rc__sim_point_obstacle_distance(s, k, s->x + 3 * vmin) <= xi_ + s->def.contact_dhat))
                continue;
            ++near;
            if (ob->shape.kind == RC__OBS_TRIMESH ? rc__sim_mesh_still(ob) : rc__sim_obs_static(ob)) still = 1;
            else moving = 1;
        }
        if (near > 1) why[nwhy++] = "cloth pinched between obstacles";
        if (moving) why[nwhy++] = "an obstacle moving too far per step";
        if (still && !(vmin >= 0 && dmin <= xi_ && s->pinned[vmin]))   /* a pinned vertex named: the pins' clause below */
            why[nwhy++] = "an obstacle added or teleported through the cloth: teleport it clear";
        RC__MSG_APPEND(" after the obstacles' push-out%s", s->def.self_contact ? ", which stops where cloth would cross cloth" : "");
        for (k = 0; k < nwhy; ++k) RC__MSG_APPEND("%s%s", k ? ", or " : " (", why[k]);
        if (nwhy) RC__MSG_APPEND(")");
    }
    /* with pins and obstacles both, either may have done it: a randomized twist on a ground plane
       (session 42) was refused with the obstacles alone blamed, its pinned end's move the cause */
    if (o)
        RC__MSG_APPEND("%s after the pins moved (a pin target too close to an obstacle or to pinned cloth, or cloth ahead of a moving pin that"
                       " cannot give way: pinned, or pressed against an obstacle)",
                       s->nobs > 0 ? ", or" : "");
    else if (s->nobs == 0)   /* earlier this case blamed pins in sims without any */
        RC__MSG_APPEND(" in the state given (cloth closer to cloth than the thickness: the mesh, or a loaded state)");
    return rc__sim_fail(s, RC_ERR_INTERSECTING, msg);
}
#undef RC__MSG_APPEND

/* a handle or load that is in place and acts (a spring, or a nonzero dead force) */
static int rc__sim_handle_acts(const rc__mhandle *m)
{
    return m->tri >= 0 && (m->k > 0.0 || m->f[0] != 0.0 || m->f[1] != 0.0 || m->f[2] != 0.0);
}

/* Handle locks (adaptive; ours, DESIGN §5's rule for loaded vertices carried over to material
   handles and loads). A handle acts at the material point uv through the barycentric weights of
   the triangle containing it, which are continuous in u but only piecewise smooth: with a vertex
   at uv the energy has a kink in that vertex's u, and the point of a load attracts a vertex (the
   mesh puts resolution where the force acts). Measured (a 12 x 12 sheet, a handle pulled 0.1 m):
   a vertex slid 7 cm in u onto the handle's point within two steps, to 3e-14 m, and from then on
   every step ended unconverged after 40-120 outer iterations, Newton stepping across the kink.
   So at each step's start a vertex within 1e-8 of its edge length of an active handle's point
   keeps u from then on, like a loaded vertex (an interior one is first moved onto the point
   exactly); the weights are then (1, 0, 0) whatever the other vertices do, and the energy is
   smooth. X(u) kinks across every edge too, and a point can come to rest on one with no vertex
   near (session 43's sweep: a dead load at an edge's midpoint, adaptive statics 400 pseudo steps
   unconverged against the fixed mesh's 30; a hanging sheet whose load drifted onto an edge, 34 of
   40 steps unconverged). So a point whose barycentric weight of one vertex is 1e-8 or less at a
   step's start locks the opposite edge's two ends: the weights are then (1 - s, s, 0) along the
   edge, again smooth. Both rules read only u and the handles, so a saved state replays the same
   locks; and since locked ends keep u, a lock once taken holds. A point placed exactly on an
   edge (a grid cell's centre lies on its diagonal) is locked there at once and no vertex slides
   onto it. The locks end with the handle (rc_sim_remove_material_handle). The r-ITR also takes
   new locks inside a step, where its line search stalls (rc__sim_ritr), with snap = 0: u is not
   moved there, so the step's energy stays that of its last accepted iterate. Returns 1 if the
   set of locked vertices changed (the DOF layout must be rebuilt). */
static int rc__sim_update_handle_locks(rc_sim *s, int snap)
{
    int h, i, k, changed = 0;
    if (!s->def.adaptive) return 0;
    for (h = 0; h < s->nmh; ++h) {
        rc__mhandle *m = s->mh + h;
        const int *tv;
        int at_vertex = 0;
        double w[3];
        if (!rc__sim_handle_acts(m)) continue;
        if (m->pp_edge >= 0) { s->u_lock[s->topo.edge_v[2 * m->pp_edge]] |= 2; s->u_lock[s->topo.edge_v[2 * m->pp_edge + 1]] |= 2; }
        m->tri = rc__sim_locate_uv(s, s->u, m->uv, m->tri, NULL);
        tv = s->tris + 3 * m->tri;
        for (k = 0; k < 3; ++k) {
            double *uv = s->u + 2 * tv[k];
            if (hypot(uv[0] - m->uv[0], uv[1] - m->uv[1]) <= 1e-8 * s->vert_len0[tv[k]]) {
                if (snap && s->topo.vkind[tv[k]] == RC__VK_INTERIOR) { uv[0] = m->uv[0]; uv[1] = m->uv[1]; }
                s->u_lock[tv[k]] |= 2;
                at_vertex = 1;
            }
        }
        if (at_vertex) continue;
        rc__barycentric2(s->u + 2 * tv[0], s->u + 2 * tv[1], s->u + 2 * tv[2], m->uv, w);
        for (k = 0; k < 3; ++k)
            if (fabs(w[k]) <= 1e-8) { s->u_lock[tv[(k + 1) % 3]] |= 2; s->u_lock[tv[(k + 2) % 3]] |= 2; }
    }
    for (i = 0; i < s->nv; ++i) {
        changed |= (s->u_lock[i] & 1) != (s->u_lock[i] >> 1);
        s->u_lock[i] >>= 1;
    }
    return changed;
}

/* A handle's point that an edge keeps crossing back and forth: after each accepted outer step the
   point's triangle is located; once it has gone back to the triangle it was in two steps before
   three times in a row (t, t', t, t', ...), the edge the two share is locked for the rest of the
   step (its two ends keep u), so the point stays on one side and X(u) is smooth in what is left.
   Why: a point that hovers near an edge (1e-4 of its triangle's weight) is not on it, so the
   step-start lock does not see it, the line search does not stall (it accepts steps of 1/256-1/2)
   and no vertex approaches (the vertex try finds none). Measured (a sweep of handles near holes
   and boundaries, session 45): a silk sheet with a stiff handle 0.15 cell from its left boundary
   ran 300 outer iterations in each of three steps, the point switching between two triangles at
   every one. An approaching vertex crosses the point over an edge of its fan once, not back and
   forth, so it still arrives (test_garment_handle_lock). Returns 1 if an edge was locked. */
static int rc__sim_handle_pingpong(rc_sim *s)
{
    int h, k, locked = 0;
    for (h = 0; h < s->nmh; ++h) {
        rc__mhandle *m = s->mh + h;
        int t;
        if (!rc__sim_handle_acts(m) || m->pp_edge >= 0) continue;
        t = m->tri = rc__sim_locate_uv(s, s->u, m->uv, m->tri, NULL);
        if (t == m->pp_tri[0]) continue;
        m->pp_count = t == m->pp_tri[1] ? m->pp_count + 1 : 0;
        m->pp_tri[1] = m->pp_tri[0];
        m->pp_tri[0] = t;
        if (m->pp_count < 3) continue;
        for (k = 0; k < 3; ++k)
            if (s->topo.tri_nbr[3 * t + k] == m->pp_tri[1]) { m->pp_edge = s->topo.tri_edge[3 * t + k]; locked = 1; }
    }
    return locked;
}

/* A vertex that approaches a handle's point hovers: the point attracts it (the minimum sits on
   the kink at the vertex), Newton's steps cross the kink back and forth, the line search
   shortens them, and the lock radius above (1e-8 of the edge length) is never reached. Measured
   on session 43's random handle sweep (after the edge locks): the 5 of 290 steps still
   unconverged ran the 300 outer iterations with a vertex 1e-3 to 1e-6 of its edge length from a
   handle's point, the point's triangle cycling through that vertex's fan. So where the r-ITR's
   line search shortens a step, an unlocked interior vertex of the point's triangle within
   RC__HANDLE_SNAP of its edge length is tried AT the point: kept if no reference triangle around
   it inverts or passes the MIPS bound and the IP decreases (a descent step of its own, x and phi
   unchanged), then locked like any vertex at a handle's point. The sweep then: 1 of 290 steps
   unconverged, in 32 s (5 in 55 s without the try). Not kept: the same try for an edge the point
   hovers at (its two ends shifted by the point's offset from the edge's line; the sweep's last
   unconverged step had two points 1e-4 to 1e-8 in weight from edges, the line search down to
   alpha 3e-5). It left no step of the sweep unconverged, but an approaching vertex's edges pass
   near the point first, so the edge took the point and no vertex reached it (test_garment_handle_
   lock, even when tried only after the line search had shortened a step to 1/16 or less; at
   1e-3 or less the vertex arrives, but that last sweep step stays unconverged).
   Returns 1 if a vertex moved. */
#define RC__HANDLE_SNAP 1e-2
static int rc__sim_snap_to_handle(rc_sim *s, double *E, rc__terms *T)
{
    int h, k;
    for (h = 0; h < s->nmh; ++h) {
        rc__mhandle *m = s->mh + h;
        const int *tv;
        if (!rc__sim_handle_acts(m)) continue;
        m->tri = rc__sim_locate_uv(s, s->u, m->uv, m->tri, NULL);
        tv = s->tris + 3 * m->tri;
        for (k = 0; k < 3; ++k) {
            int v = tv[k], j, ok = 1;
            double *uv = s->u + 2 * v, keep[2], En;
            rc__terms Tn;
            if (s->u_fixed[v] || s->topo.vkind[v] != RC__VK_INTERIOR ||
                !(hypot(uv[0] - m->uv[0], uv[1] - m->uv[1]) <= RC__HANDLE_SNAP * s->vert_len0[v])) continue;
            keep[0] = uv[0]; keep[1] = uv[1];
            uv[0] = m->uv[0]; uv[1] = m->uv[1];
            for (j = s->topo.vt_ptr[v]; j < s->topo.vt_ptr[v + 1] && ok; ++j)
                ok = rc__sim_ref_mips(s, s->u, s->topo.vt_idx[j]) <= RC__MIPS_CAP;
            En = ok ? rc__sim_energy(s, s->x, s->u, s->phi, &Tn) : HUGE_VAL;
            if (rc__isfinite(En) && En < *E) {
                *E = En; *T = Tn;
                if (s->def.iterate_hook) s->def.iterate_hook(s, s->def.iterate_user);
                return 1;
            }
            uv[0] = keep[0]; uv[1] = keep[1];
        }
    }
    return 0;
}

/* A step that ended unconverged at (x, u, phi) with incremental potential E: if its feasible start
   A = (x^t with the pins at their targets and the cloth out of the obstacles, u^t, phi^t) has a
   lower one, the step ends at A instead. Why: with x~ = x^t + h v^t,
       IP(A) ~ (1/2) |v^t|_M^2 + V(x^t)          (the state's kinetic plus potential energy),
   and IP(x) = (1/2) |v - v^t|_M^2 + V(x) for the end's velocity v = (x - x^t)/h, so ending at or
   below IP(A) bounds V(x^{t+1}) by the energy at t whether or not the solve converged. A solve
   started from the predictor x^t + h v^t that stalls can end above it: on a collapsed mesh (the
   didactic drape with the regulariser off, 100 vertices) every step from ~200 on ended after three
   outer iterations with x at the predictor, one vertex coasting at 0.012 m/s through a sliver of
   area ratio 6e-8, and the stretch energy climbed 0.002 -> 9.1 J over 400 steps while the kinetic
   energy stayed ~1e-7 J. A converged fixed-mesh step is left alone: a stationary point above
   IP(A), reached from a predictor above it, is the dynamics (backward Euler's answer), and A is not
   stationary. A converged adaptive step above IP(A) is solved again from A (rc__sim_solve: r-ITR's
   relative rules cannot tell such a point from a stall). Sets st->kept_start. */
/* IP(A), the incremental potential of the step's feasible start (above and below); the sim's state
   is left as it was */
static double rc__sim_start_energy(rc_sim *s, rc__terms *TA)
{
    double EA, *href = s->hinge_ref;
    rc__sim_track_hinges_at(s, s->start_x, s->start_href, 1);
    s->hinge_ref = s->start_href;   /* the bending energy reads the hinge references of the sim */
    EA = rc__sim_energy(s, s->start_x, s->u0_step, s->start_phi, TA);
    s->hinge_ref = href;
    if (s->def.adaptive) rc__sim_update_xtil(s, s->u);   /* the evaluation at u^t moved x~ there */
    return EA;
}

/* an energy of the solve (about s->origin, rc__sim_set_origin) as the stats report it (about the world's origin) */
static double rc__sim_world_energy(const rc_sim *s, double E) { return E + s->origin_gravity + s->origin_loads; }

/* the sim's state becomes A */
static void rc__sim_adopt_start(rc_sim *s)
{
    memcpy(s->x, s->start_x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->u, s->u0_step, sizeof(double) * 2 * (size_t)s->nv);
    memcpy(s->phi, s->start_phi, sizeof(double) * (size_t)s->ne);
    memcpy(s->hinge_ref, s->start_href, sizeof(double) * (size_t)s->ne);
}

static rc_status rc__sim_keep_start(rc_sim *s, double *E, rc__terms *T, rc_step_stats *st)
{
    rc__terms TA;
    double EA = rc__sim_start_energy(s, &TA);
    if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
    if (!(EA < *E)) return RC_OK;
    rc__sim_adopt_start(s);
    snprintf(s->warn, sizeof s->warn, "t = %.6g s: a step unconverged at IP %.4g J, above its start's %.4g J, ended at its start "
             "(free cloth stopped); lower dt, raise the iteration caps or (adaptive) use the regulariser", s->time,
             rc__sim_world_energy(s, *E), rc__sim_world_energy(s, EA));
    *E = EA;
    *T = TA;
    st->kept_start = 1;
    return RC_OK;
}

/* The origin of the potentials of gravity and loads for one solve: the centroid of x. Far from the
   world's origin, -m g.x and -f.x are large and cancel in every difference the solve takes, so
   their magnitude (not the physics) set the energy's round-off, and with it the line search's floor
   (1e-12 of the terms' scale, rc__terms_scale) and the stall rules. Measured (an invariance
   probe, session 57): a sheet dropped onto a tilted plane, adaptive, 40 steps, all converged at the
   origin; moved by 1000 m along gravity 4 unconverged, by 1e5 m 8, by 1e7 m 35 (moved sideways:
   none, x.g = 0). The total mass and the loads are constant in a solve, so the origin changes the
   energy by a constant; the stats add it back: E = E_o - (M g + sum f).o. */
static void rc__sim_set_origin(rc_sim *s)
{
    double F[3] = { 0.0, 0.0, 0.0 };
    int i, c;
    memset(s->origin, 0, sizeof s->origin);
    for (i = 0; i < s->nv; ++i) for (c = 0; c < 3; ++c) s->origin[c] += s->x[3 * i + c];
    for (c = 0; c < 3; ++c) s->origin[c] /= s->nv;
    for (i = 0; i < s->nv; ++i) for (c = 0; c < 3; ++c) F[c] += s->force[3 * i + c];
    for (i = 0; i < s->nmh; ++i) if (s->mh[i].tri >= 0) for (c = 0; c < 3; ++c) F[c] += s->mh[i].f[c];
    s->origin_gravity = -s->total_mass * rc__dot3(s->def.gravity, s->origin);   /* sum_i m_i(u) = M for every u */
    s->origin_loads = -rc__dot3(F, s->origin);
}

/* the solve of one step of size s->h from the current state, with x^t + h v^t as predictor */
static rc_status rc__sim_solve(rc_sim *s, rc_step_stats *st)
{
    rc__terms T;
    double E, alpha = 1.0;
    int i, conv = 0, iters = 0, resolved = 0;   /* resolved: solved again from A (below) */
    rc_status rs;
    rc__sim_set_origin(s);
    for (i = 0; i < s->nmh; ++i) {   /* the ping-pong locks last one step */
        s->mh[i].pp_tri[0] = s->mh[i].pp_tri[1] = -1;
        s->mh[i].pp_count = 0;
        s->mh[i].pp_edge = -1;
    }
    if (rc__sim_update_handle_locks(s, 1)) rc__sim_invalidate_layout(s);
    rs = rc__sim_ensure_systems(s);
    if (rs != RC_OK) return rs;
    s->t_bp = s->t_np = s->t_ccd = 0.0;   /* the step's contact timings, the placement's CCD included */
    s->start_pushed = 0;
    if (s->nobs > 0) {   /* cloth inside an obstacle that did not move: placed out, before x^t is taken */
        /* the cloth-cloth CCD that limits the placement excludes pairs by x0 and u0_step: this
           state's, not the previous step's (or the zeros of a new sim, which excluded every pair:
           a first step's placement pushed cloth through cloth; found in review) */
        memcpy(s->x0, s->x, sizeof(double) * 3 * (size_t)s->nv);
        memcpy(s->u0_step, s->u, sizeof(double) * 2 * (size_t)s->nv);
        s->contact_status = RC_OK;
        rc__sim_place_static(s);
        if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the step's start");
    }
    memcpy(s->x0, s->x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->u0_step, s->u, sizeof(double) * 2 * (size_t)s->nv);
    if (s->def.adaptive) rc__sim_travel_masses(s);
    for (i = 0; i < 3 * s->nv; ++i) s->xt[i] = s->x[i] + s->h * s->v[i];
    if (s->def.adaptive) rc__sim_recover_gradients(s, s->u0_step, s->xt, s->xtil_G);
    if (s->def.adaptive) rc__sim_recover_gradients(s, s->u0_step, s->x0, s->fr_G);   /* friction slip (rc__sim_slip_extend) */
    rc__sim_update_xtil(s, s->u);   /* fixed mode: x~ once per step; adaptive: again at every new u */
    /* a step depends only on the state (rc_sim_save_state): the derivative cache and the joint
       factor that the first outer directions could reuse start empty */
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    if (s->sys_xpu.ldlt) s->sys_xpu.ldlt->valid = 0;
    s->itr_cg_last = 0;
    if ((s->nobs > 0 || s->def.self_contact) && s->kappa == 0.0) rc__sim_init_kappa(s);
    s->contact_status = RC_OK;
    rc__sim_lag_friction(s);   /* the obstacles' pair records, then self contact's */
    s->npat = 0;
    if (s->def.self_contact) rc__sim_lag_self_friction(s);
    if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory lagging the friction pairs");
    if (s->def.self_contact) {
        /* The pattern's self-contact blocks are those of the pairs near x at its last regrow, so
           they depend on the history; the AMD ordering, and with it the factors' round-off,
           follows the pattern. A step must depend only on its state (rc_sim_save_state): the
           pattern starts each step as this state's, for the pairs near x now (no rebuild when
           that is the pattern in place). Before, a fold replayed from a saved state moved by
           3e-17 m after one step, and an adaptive dress by 6 mm after four. */
        rs = rc__sim_self_regrow(s, &s->sys_xp, s->x);
        if (rs == RC_OK && s->def.adaptive) rs = rc__sim_self_regrow(s, &s->sys_xpu, s->x);
        if (rs != RC_OK) return rc__sim_fail(s, rs, "out of memory building the self-contact pattern at the step's start");
        s->npat = 0;   /* rc_step_stats.pattern_rebuilds counts the regrows inside the solve */
    }
    if (s->def.self_contact || s->nobs > 0) {
        int what, v = rc__sim_pin_motion_touches(s, &what);
        if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "checking the pins' motion: the contact pair search failed");
        if (v >= 0) {
            char msg[sizeof(s->err)], obs[32];
            double m[3];
            rc__sub3(m, s->pin_target + 3 * v, s->x0 + 3 * v);
            if (what >= 0) snprintf(obs, sizeof obs, "%sobstacle %d", s->obs[what].shape.kind == RC__OBS_TRIMESH ? "mesh " : "", what);
            snprintf(msg, sizeof msg, "pinned vertex %d: its move to the target (%.3g mm in a step of h = %.3g s) passes cloth through"
                     " %s; move the pin around it, or more slowly%s", v, 1e3 * rc__norm3(m), s->h, what >= 0 ? obs : "cloth",
                     what >= 0 ? "" : " (cloth bunched in front of the pin blocks it at any speed)");
            return rc__sim_fail(s, RC_ERR_INTERSECTING, msg);
        }
    }
    for (i = 0; i < s->nv; ++i)
        if (s->pinned[i]) memcpy(s->x + 3 * i, s->pin_target + 3 * i, 3 * sizeof(double));
    rc__sim_resolve_start(s);
    if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the step's start");
    rs = rc__sim_pass_status(s);
    if (rs != RC_OK) return rs;
    s->carry_limited = 0;
    rc__sim_resolve_start_mesh(s);
    if (s->carry_limited)
        /* the carry would push cloth through cloth (or into another obstacle) and was held back: the obstacle may then pass
           through the cloth it should have carried, leaving nothing to detect once it is through
           (a probe: a plate rising 4 cm per step through a sheet with a second, pinned
           one above it, every step RC_OK). Split the step instead (the obstacle moves half as far) */
        return rc__sim_fail(s, RC_ERR_INTERSECTING, "a moving mesh obstacle would push cloth through cloth or into another obstacle (its carry was held back by the CCD): cloth pinched between the obstacle and pinned cloth or another obstacle, or the obstacle moving too far per step");
    if (s->has_mesh_obstacle) {
        /* The carry moves the cloth a moving mesh obstacle runs over with it, each vertex on its
           own; a neighbour left behind (pinned, outside the swept region, or held by the
           cloth-cloth CCD) can leave an edge through the obstacle with both its vertices clear of
           the thickness, where the barrier sees nothing (probes: a plate rising past a
           pinned corner, a paddle turning 1 rad per step with a 10 um thickness, a zero-thickness
           blade through a coarse triangle; every later step "converged" with the crossing). So
           the state after the carry is checked exactly against every moving mesh obstacle; a
           crossing fails the step's start, and the step is split (the obstacle moves half as far). */
        rs = rc__sim_crossing_status(s, 1, "after carrying the cloth a moving mesh obstacle ran over: ");
        if (rs != RC_OK) return rs;
    }
    /* CCD-safe start: free vertices move toward the predictor as far as CCD allows */
    {
        rc__system *y = &s->sys_xp;
        int c;
        memset(y->d, 0, sizeof(double) * (size_t)y->ndof);
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) if (y->dof_x[3 * i + c] >= 0) y->d[y->dof_x[3 * i + c]] = s->xt[3 * i + c] - s->x[3 * i + c];
        memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);
        memcpy(s->start_x, s->x, sizeof(double) * 3 * (size_t)s->nv);
        memcpy(s->start_phi, s->phi, sizeof(double) * (size_t)s->ne);
        memcpy(s->start_href, s->hinge_ref, sizeof(double) * (size_t)s->ne);
        alpha = rc__sim_ccd_bound(s, y, s->ls_x);
        rc__sim_apply(s, y, alpha, s->ls_x, s->u, s->phi, s->x, s->u, s->phi);
    }
    rc__sim_track_hinges(s, 1);   /* on the solve's first iterate: after the pins and the CCD-safe start moved x */
    E = rc__sim_energy(s, s->x, s->u, s->phi, &T);
    if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
    if (!rc__isfinite(E) && (!rc__isfinite(T.inertia + T.stretch + T.bend + T.gravity + T.quality + T.ext + T.friction) || rc__isnan(T.contact))) {
        /* not the barrier alone: name the terms, and only the causes this sim can have (earlier
           the message blamed a pin in sims without pins) */
        char msg[300];
        const char *names[8] = { "inertia", "stretch", "bending", "gravity", "quality", "loads", "friction", "contact" };
        double vals[8];
        int n = 0, k, any_pin = 0, listed = 0;
        vals[0] = T.inertia; vals[1] = T.stretch; vals[2] = T.bend; vals[3] = T.gravity;
        vals[4] = T.quality; vals[5] = T.ext; vals[6] = T.friction; vals[7] = T.contact;
        for (i = 0; i < s->nv; ++i) any_pin |= s->pinned[i];
        n = snprintf(msg, sizeof msg, "the energy of the step's start is not finite (");
        for (k = 0; k < 8 && n > 0 && (size_t)n < sizeof msg; ++k)
            if (!rc__isfinite(vals[k])) n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s %s", listed++ ? ", " : "", names[k], rc__isnan(vals[k]) ? "NaN" : "inf");
        /* cloth that started inside an obstacle (deeper than the push can resolve: a sheet wholly
           inside a box, its vertices pushed to different faces) is a contact violation of the
           state given, not an overflow (a probe: the message blamed velocities or loads) */
        if (s->start_pushed) {
            if (n > 0 && (size_t)n < sizeof msg)
                snprintf(msg + n, sizeof msg - (size_t)n, "): the cloth started inside an obstacle, and pushing it out collapsed world triangles; start it outside the obstacles");
            return rc__sim_fail(s, RC_ERR_INTERSECTING, msg);
        }
        if (n > 0 && (size_t)n < sizeof msg)
            snprintf(msg + n, sizeof msg - (size_t)n, "): %s%s", !rc__isfinite(vals[4]) ? "a reference triangle inverted; " : "",
                     any_pin ? "a world triangle degenerated (a pin moved onto a neighbour?), or velocities or loads too large"
                             : "a world triangle degenerated, or velocities or loads too large");
        return rc__sim_fail(s, RC_ERR_NON_FINITE, msg);
    }
    if (!rc__isfinite(E)) return rc__sim_fail_start(s, &T);
    st->ip_start = rc__sim_world_energy(s, E);
    if (s->def.adaptive) rs = rc__sim_ritr(s, HUGE_VAL, &E, &T, st, &conv);
    else { rs = rc__sim_newton_xp(s, s->def.tol, 0.0, s->def.max_newton_iters, 1, &E, &T, &iters, &conv, st); st->newton_iters += iters; }
    if (rs != RC_OK) return rs;
    if (conv && s->def.adaptive) {
        /* r-ITR's relative rules (itr_energy_tol) judge the remaining gain against the step's
           decrease from the predictor, which says nothing when the predictor's IP is far above
           the start's (A, rc__sim_keep_start): a step that ends above IP(A) is not at a minimiser
           reached by that decrease. So the step is solved again from A, its relative rules judged
           against the decrease from IP(A); it ends at a stationary point (the length or absolute
           tests), or unconverged, at or below IP(A) since it starts there (going on from where
           the first solve ended instead, relative rules off above IP(A), still climbed 1.9e5 ->
           2.7e5 J in three converged steps). The stats count both solves; active_rate_per_iter is the
           second's.
           Measured: a 0.5 m sheet held 20-fold between two corners, one pin moved 10 m at once:
           from step 4 on a vertex's velocity put the predictor at IP 1e10-1e12 J against IP(A)
           ~2e5 J, each step ended "converged" after one outer iteration 8e3-1.8e6 J above IP(A),
           and the potential energy climbed 1.9e5 -> 5.8e7 J in 16 steps. */
        rc__terms TA;
        double EA = rc__sim_start_energy(s, &TA);
        if (s->contact_status != RC_OK) return rc__sim_fail(s, s->contact_status, "out of memory in the contact pair search");
        if (EA < E) {   /* the solve from A ends at or below IP(A): rc__sim_keep_start has nothing to do below */
            int outer = st->outer_iters;
            double rate = st->active_rate;
            rc__sim_adopt_start(s);
            E = EA;
            T = TA;
            rs = rc__sim_ritr(s, EA, &E, &T, st, &conv);
            if (rs != RC_OK) return rs;
            st->active_rate = (rate * outer + st->active_rate * st->outer_iters) / (outer + st->outer_iters > 0 ? outer + st->outer_iters : 1);
            st->outer_iters += outer;
            resolved = 1;
        }
    }
    if (!conv && !resolved) {
        rs = rc__sim_keep_start(s, &E, &T, st);
        if (rs != RC_OK) return rs;
    }
    st->newton_iters += st->inner_iters;
    st->converged = conv;
    st->stop_reason = conv ? NULL : s->stop_why;
    st->ip_end = rc__sim_world_energy(s, E);
    st->e_inertia = T.inertia; st->e_stretch = T.stretch; st->e_bend = T.bend; st->e_gravity = T.gravity + s->origin_gravity;
    st->e_external = T.ext + s->origin_loads; st->e_contact = T.contact; st->e_friction = T.friction; st->e_quality = T.quality;
    st->e_travel = T.travel;
    st->min_contact_distance = T.min_dist;
    st->min_self_distance = s->def.self_contact ? T.min_self : 0.0;   /* documented: zero when off */
    st->t_broad_phase = s->t_bp; st->t_narrow_phase = s->t_np; st->t_ccd = s->t_ccd;
    st->pattern_rebuilds = s->npat;
    if (s->kappa > 0.0) {
        double m = s->nobs > 0 ? T.min_dist : HUGE_VAL;
        if (s->def.self_contact && T.min_self < m) m = T.min_self;
        if (m < 1e300) {
            /* IPC's rule doubles kappa once; near the barrier the force it carries goes like
               kappa / gap, so a pair pressed to a gap g < dhat/100 is doubled once per halving
               between g and dhat/100 (at most 8 times, capped as the rule is): a sheet pushed
               onto a sphere at 1e-8 m reached 100 kappa_min in one step instead of seven
               (session 32: 40 fixed steps 1.54 -> 0.93 s, 36 -> 39 converged; the CLI scenes,
               where the rule fires rarely, take the same iterations) */
            double g = m - s->def.contact_thickness, tgt = 1e-2 * s->def.contact_dhat;
            int k, halvings = 1;   /* the rule's own doubling, which it applies only when the gap is below tgt */
            while (halvings < 8 && g * (double)(1 << halvings) < tgt) ++halvings;
            for (k = 0; k < halvings; ++k)
                (void)rc_barrier_stiffness_update(s->kappa_prev_dist, m, s->def.contact_thickness, s->def.contact_dhat, 1e-2,
                                                  100.0 * rc__sim_kappa_min(s), &s->kappa);
            s->kappa_prev_dist = m;
        } else s->kappa_prev_dist = 1e300;
    }
    return RC_OK;
}

/* the material handles reached their targets: a split of the next step moves them from there
   (rc__sim_advance) */
static void rc__sim_handles_arrive(rc_sim *s)
{
    int i;
    for (i = 0; i < s->nmh; ++i) memcpy(s->mh[i].target_prev, s->mh[i].target, sizeof s->mh[i].target);
}

/* the obstacles reached their poses (and mesh positions): the next step starts from there. Also
   after each pseudo step of the static solve: a mesh left "moving" there dragged the cloth by its
   lagged friction at every pseudo step (a floor mesh shifted 1 mm with mu 0.5 carried a sheet 10 cm) */
static void rc__sim_obstacles_arrive(rc_sim *s)
{
    int i;
    for (i = 0; i < s->nobs; ++i) {
        memcpy(s->obs[i].R_prev, s->obs[i].R, sizeof s->obs[i].R);
        memcpy(s->obs[i].t_prev, s->obs[i].t, sizeof s->obs[i].t);
        if (s->obs[i].mesh_x) memcpy(s->obs[i].mesh_xprev, s->obs[i].mesh_x, sizeof(double) * 3 * (size_t)s->obs[i].mesh_nv);
    }
    rc__sim_handles_arrive(s);
}

/* velocities at material points, v_i = (x_i - x^t(u_i)) / h, and pin reactions */
static void rc__sim_finish(rc_sim *s, rc_step_stats *st)
{
    int i, c;
    double travel = 0.0, *G0 = s->x0_G;
    if (s->def.adaptive) rc__sim_recover_gradients(s, s->u0_step, s->x0, G0);
    for (i = 0; i < s->nv; ++i) {
        double old[3];
        rc__sim_material_start(s, G0, i, old);
        for (c = 0; c < 3; ++c) s->v[3 * i + c] = (s->x[3 * i + c] - old[c]) / s->h;
        {
            double du = hypot(s->u[2 * i] - s->u0_step[2 * i], s->u[2 * i + 1] - s->u0_step[2 * i + 1]);
            if (du > travel) travel = du;
        }
    }
    if (travel > st->ref_travel) st->ref_travel = travel;
    rc__sim_pin_reactions(s);
    rc__sim_obstacles_arrive(s);
    s->time += s->h;
}


/* f_pin = dE/dx_i at a pinned vertex: the force the pin applies to the cloth (the momentum
   balance M(x - x~)/h^2 = -grad V + f_pin). */
static void rc__sim_pin_reactions(rc_sim *s)
{
    int t, i, k, c, any = 0;
    for (i = 0; i < s->nv; ++i) any |= s->pinned[i];
    memset(s->reaction, 0, sizeof(double) * 3 * (size_t)s->nv);
    if (!any) return;
    if (s->def.adaptive) rc__sim_update_xtil(s, s->u);
    for (t = 0; t < s->nt; ++t) {
        double a[RC__SIM_A_TERMS], b, gA[15], gB[27];
        int touches = 0, verts[6];
        for (k = 0; k < 6; ++k) {
            verts[k] = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
            if (verts[k] >= 0 && s->pinned[verts[k]]) touches = 1;
        }
        if (!touches) continue;
        rc__sim_kernel_A(s, t, s->x, s->u, 0, a, gA, NULL);
        rc__sim_kernel_B(s, t, s->x, s->u, s->phi, 0, &b, gB, NULL);
        for (k = 0; k < 6; ++k)
            if (verts[k] >= 0 && s->pinned[verts[k]])
                for (c = 0; c < 3; ++c) s->reaction[3 * verts[k] + c] += gB[3 * k + c] + (k < 3 ? gA[3 * k + c] : 0.0);
    }
    for (i = 0; i < s->nv; ++i)
        if (s->pinned[i]) {
            double g[3], H[9];
            rc__sim_vertex_derivs(s, i, s->x + 3 * i, g, H);
            for (c = 0; c < 3; ++c) s->reaction[3 * i + c] += g[c];
        }
    for (i = 0; i < s->nst; ++i) {   /* seam stitches at pinned vertices */
        int a = s->st_pair[2 * i], b = s->st_pair[2 * i + 1];
        for (c = 0; c < 3; ++c) {
            double f = s->st_k[i] * (s->x[3 * a + c] - s->x[3 * b + c]);
            if (s->pinned[a]) s->reaction[3 * a + c] += f;
            if (s->pinned[b]) s->reaction[3 * b + c] -= f;
        }
    }
    for (i = 0; i < s->nmh; ++i) {   /* material handles whose triangle has a pinned vertex */
        const rc__mhandle *m = s->mh + i;
        double xl[9], ul[6], g[15];
        if (m->tri < 0) continue;
        rc__sim_gather_A(s, m->tri, s->x, s->u, xl, ul);
        rc__mp_tri(xl, ul, m->uv, m->k, m->target, m->f, g, NULL);
        for (k = 0; k < 3; ++k)
            if (s->pinned[s->tris[3 * m->tri + k]])
                for (c = 0; c < 3; ++c) s->reaction[3 * s->tris[3 * m->tri + k] + c] += g[3 * k + c];
    }
}

/* Layout: header (RC_SIM_STATE_HEADER doubles: tag, layout version, total size, nv, ne, nobs, mesh
   obstacle vertices, the signature: the cloth's triangles, the obstacles' kinds and mesh sizes in order), x, v, u (3, 3, 2
   per vertex), phi (ne), time, kappa, kappa_prev_dist, the
   four shifts, per obstacle R, t, R_prev, t_prev (24) and, for a mesh, its vertices at the end and
   at the start of the step (6 per mesh vertex), hinge_ref (ne). */
#define RC__STATE_TAG 7.2630e4      /* "rc" */
#define RC__STATE_VERSION 4.0   /* 4: the signature covers the cloth's triangles too */
static size_t rc__sim_state_mesh_verts(const rc_sim *s)
{
    size_t n = 0;
    int o;
    for (o = 0; o < s->nobs; ++o) if (s->obs[o].shape.kind == RC__OBS_TRIMESH) n += (size_t)s->obs[o].mesh_nv;
    return n;
}
/* the cloth's triangles and the obstacles' kinds and mesh vertex counts in order, hashed into an
   integer below 2^52 (exact in a double): a state of a sim whose obstacles differ only in order or
   in how the mesh vertices are split between meshes, or whose cloth has the same vertex and edge
   counts but other triangles (another diagonal pattern: its phi and hinge angles belong to other
   edges), has the same sizes but another signature */
static double rc__sim_state_signature(const rc_sim *s)
{
    unsigned long long h = 1469598103ull;
    int o, k;
    for (k = 0; k < 3 * s->nt; ++k) h = (h * 1000003ull + (unsigned long long)s->tris[k] + 1ull) & 0xFFFFFFFFFFFFFull;
    for (o = 0; o < s->nobs; ++o) {
        h = (h * 1000003ull + (unsigned long long)(s->obs[o].shape.kind + 1)) & 0xFFFFFFFFFFFFFull;
        h = (h * 1000003ull + (unsigned long long)(s->obs[o].shape.kind == RC__OBS_TRIMESH ? s->obs[o].mesh_nv : 0)) & 0xFFFFFFFFFFFFFull;
    }
    return (double)h;
}

RCLOTHDEF size_t rc_sim_state_size(const rc_sim *s)
{
    if (!s) return 0;
    return RC_SIM_STATE_HEADER + (size_t)8 * s->nv + (size_t)2 * s->ne + 7 + (size_t)24 * s->nobs + 6 * rc__sim_state_mesh_verts(s);
}

RCLOTHDEF rc_status rc_sim_save_state(const rc_sim *s, double *b)
{
    int o;
    size_t nv = s ? (size_t)s->nv : 0;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!b) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_save_state: buffer is NULL");
    b[0] = RC__STATE_TAG; b[1] = RC__STATE_VERSION; b[2] = (double)rc_sim_state_size(s);
    b[3] = s->nv; b[4] = s->ne; b[5] = s->nobs; b[6] = (double)rc__sim_state_mesh_verts(s); b[7] = rc__sim_state_signature(s);
    b += RC_SIM_STATE_HEADER;
    memcpy(b, s->x, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(b, s->v, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(b, s->u, sizeof(double) * 2 * nv); b += 2 * nv;
    memcpy(b, s->phi, sizeof(double) * (size_t)s->ne); b += s->ne;
    *b++ = s->time;
    *b++ = s->kappa;
    *b++ = s->kappa_prev_dist;
    *b++ = s->itr_mu; *b++ = s->itr_mu_fail; *b++ = s->newton_mu; *b++ = s->newton_mu_fail;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        memcpy(b, ob->R, 9 * sizeof(double)); memcpy(b + 9, ob->t, 3 * sizeof(double));
        memcpy(b + 12, ob->R_prev, 9 * sizeof(double)); memcpy(b + 21, ob->t_prev, 3 * sizeof(double));
        b += 24;
        if (ob->shape.kind == RC__OBS_TRIMESH) {
            memcpy(b, ob->mesh_x, sizeof(double) * 3 * (size_t)ob->mesh_nv); b += 3 * (size_t)ob->mesh_nv;
            memcpy(b, ob->mesh_xprev, sizeof(double) * 3 * (size_t)ob->mesh_nv); b += 3 * (size_t)ob->mesh_nv;
        }
    }
    memcpy(b, s->hinge_ref, sizeof(double) * (size_t)s->ne);
    return RC_OK;
}

/* the copy of a state known to be valid (saved by this sim: rc_sim_step's and
   rc_sim_solve_static's restores after an error) */
static void rc__sim_restore_state(rc_sim *s, const double *b)
{
    int o;
    size_t nv = (size_t)s->nv;
    b += RC_SIM_STATE_HEADER;
    memcpy(s->x, b, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(s->v, b, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(s->u, b, sizeof(double) * 2 * nv); b += 2 * nv;
    memcpy(s->phi, b, sizeof(double) * (size_t)s->ne); b += s->ne;
    s->time = *b++;
    s->kappa = *b++;
    s->kappa_prev_dist = *b++;
    s->itr_mu = *b++; s->itr_mu_fail = *b++; s->newton_mu = *b++; s->newton_mu_fail = *b++;
    for (o = 0; o < s->nobs; ++o) {
        rc__obstacle *ob = s->obs + o;
        memcpy(ob->R, b, 9 * sizeof(double)); memcpy(ob->t, b + 9, 3 * sizeof(double));
        memcpy(ob->R_prev, b + 12, 9 * sizeof(double)); memcpy(ob->t_prev, b + 21, 3 * sizeof(double));
        b += 24;
        if (ob->shape.kind == RC__OBS_TRIMESH) {
            memcpy(ob->mesh_x, b, sizeof(double) * 3 * (size_t)ob->mesh_nv); b += 3 * (size_t)ob->mesh_nv;
            memcpy(ob->mesh_xprev, b, sizeof(double) * 3 * (size_t)ob->mesh_nv); b += 3 * (size_t)ob->mesh_nv;
        }
    }
    memcpy(s->hinge_ref, b, sizeof(double) * (size_t)s->ne);
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    if (s->sys_xpu.ldlt) s->sys_xpu.ldlt->valid = 0;
    s->itr_cg_last = 0;
}

/* The header is checked before anything else is read, so a state of another sim (say, saved before
   an obstacle was added) is refused without reading past its end. Everything the next step depends
   on is restored or reset: the derivative cache and the joint factor that the next step's first
   outer directions would reuse (rc__sim_outer_direction) are dropped, as at every step's start. */
#define RC__PHI_MAX 1e4   /* the largest director angle a loaded state may hold, rad */
RCLOTHDEF rc_status rc_sim_load_state(rc_sim *s, const double *b)
{
    int o;
    size_t nv = s ? (size_t)s->nv : 0, size;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!b) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: buffer is NULL");
    size = rc_sim_state_size(s);
    if (b[0] != RC__STATE_TAG || b[1] != RC__STATE_VERSION)
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: not a state saved by rc_sim_save_state (or of another version)");
    if (b[2] != (double)size || b[3] != s->nv || b[4] != s->ne || b[5] != s->nobs || b[6] != (double)rc__sim_state_mesh_verts(s)) {
        char msg[360];
        snprintf(msg, sizeof msg, "rc_sim_load_state: the state was saved by a sim with %.6g vertices, %.6g edges, %.6g obstacles "
                 "(%.6g mesh obstacle vertices), %.6g doubles in all; this one has %d, %d, %d (%d), %.6g",
                 b[3], b[4], b[5], b[6], b[2], s->nv, s->ne, s->nobs, (int)rc__sim_state_mesh_verts(s), (double)size);
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    if (b[7] != rc__sim_state_signature(s))
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: the state was saved by a sim with another cloth mesh "
                            "(other triangles) or other obstacles (their kinds, order or mesh sizes differ)");
    if (!rc__all_finite(b, size)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_load_state: non-finite state");
    {
        /* finite but not a state a sim can be in: refused before anything is copied (a negative
           barrier stiffness attracts, a scaled "rotation" moves a box's surface, an inverted
           reference triangle has no rest shape) */
        const double *q = b + RC_SIM_STATE_HEADER, *uu = q + 6 * nv, *sc = q + 8 * nv + s->ne + 1;
        char msg[320];
        int t, v;
        if (!(sc[0] >= 0.0) || !(sc[1] >= 0.0) || !(sc[2] >= 0.0) || !(sc[3] >= 0.0) || !(sc[4] >= 0.0) || !(sc[5] >= 0.0))
            return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: negative barrier stiffness, contact distance or solver shift");
        if (!(q[8 * nv + s->ne] >= 0.0))   /* the simulated time (before kappa) starts at 0 and only grows */
            return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: negative simulated time");
        /* Director angles: a step keeps them within a few radians (their energy grows without
           bound past the fold profile's psi0; measured at most 7.5 rad over 100-400 steps of the
           CLI scenes). At 1e12 rad the hinge angle, psi = theta/2 + s phi, is lost to round-off
           (the ulp of phi is 1e-4 rad): an adversarial probe (session 54) loaded such a state and
           the steps returned RC_OK with the sheet crumpled, its energy at 1e8-1e18 J. The bound
           1e4 rad keeps round-off at 2e-12 rad and is 1000 times what any step reached. */
        for (v = 0; v < s->ne; ++v)
            if (!(fabs(q[8 * nv + (size_t)v]) <= RC__PHI_MAX)) {
                snprintf(msg, sizeof msg, "rc_sim_load_state: the director angle of edge %d is %.3g rad in the state (a step keeps "
                         "them within a few radians; the bound is %g)", v, q[8 * nv + (size_t)v], RC__PHI_MAX);
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
            }
        for (t = 0; t < s->nt; ++t) {
            const double *a = uu + 2 * s->tris[3 * t], *bb = uu + 2 * s->tris[3 * t + 1], *c = uu + 2 * s->tris[3 * t + 2];
            if (!(rc__mesh_orient2(a, bb, c) > 0.0)) {
                snprintf(msg, sizeof msg, "rc_sim_load_state: reference triangle %d is inverted or degenerate in the state's u", t);
                return rc__sim_fail(s, RC_ERR_INVERTED, msg);
            }
            /* with the regulariser on, no step comes near the line search's MIPS bound (its cubic
               energy holds triangles at a few units); without it a collapsing mesh can creep past
               the bound (a review: MIPS 1.13e4 at step 39 of a no-regulariser drape), so only a sim
               with the regulariser refuses such a sliver */
            if (s->def.adaptive && s->def.quality_weight > 0.0) {
                if (!(rc__sim_ref_mips(s, uu, t) <= RC__MIPS_CAP * (1.0 + 1e-9))) {
                    snprintf(msg, sizeof msg, "rc_sim_load_state: reference triangle %d is a sliver in the state's u (MIPS above %g, "
                             "which the regulariser never lets a step reach)", t, RC__MIPS_CAP);
                    return rc__sim_fail(s, RC_ERR_MESH_DEGENERATE, msg);
                }
            }
        }
        /* the reference domain is this sim's: corners where they were created, straight boundary
           vertices on their side (an adaptive step never moves them otherwise) */
        for (v = 0; v < s->nv; ++v) {
            const double *w = uu + 2 * v, *w0 = s->u_init + 2 * v, *dir = s->topo.slide_dir + 2 * v;
            double tol = 1e-6 * s->mean_edge, off;
            if (s->topo.vkind[v] == RC__VK_CORNER) off = sqrt((w[0] - w0[0]) * (w[0] - w0[0]) + (w[1] - w0[1]) * (w[1] - w0[1]));
            else if (s->topo.vkind[v] == RC__VK_SLIDING) off = fabs((w[0] - w0[0]) * dir[1] - (w[1] - w0[1]) * dir[0]);
            else continue;
            if (!(off <= tol)) {
                snprintf(msg, sizeof msg, "rc_sim_load_state: boundary vertex %d is %.3g m off this sim's reference domain in the state's u "
                         "(a %s)", v, off, s->topo.vkind[v] == RC__VK_CORNER ? "corner" : "vertex of a straight side");
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
            }
        }
        for (o = 0, q = sc + 6; o < s->nobs; ++o) {
            const char *bad = rc__rotation_problem(q);
            if (!bad) bad = rc__rotation_problem(q + 12);
            if (bad) {
                snprintf(msg, sizeof msg, "rc_sim_load_state: obstacle %d: %s", o, bad);
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
            }
            if (rc__sim_too_far(q + 9, 3, "rc_sim_load_state: an obstacle's translation", msg, sizeof msg) ||
                rc__sim_too_far(q + 21, 3, "rc_sim_load_state: an obstacle's translation", msg, sizeof msg) ||
                (s->obs[o].shape.kind == RC__OBS_TRIMESH &&
                 rc__sim_too_far(q + 24, 6 * (size_t)s->obs[o].mesh_nv, "rc_sim_load_state: a mesh obstacle's vertex", msg, sizeof msg)))
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
            q += 24 + (s->obs[o].shape.kind == RC__OBS_TRIMESH ? 6 * (size_t)s->obs[o].mesh_nv : 0);
        }
    }
    rc__sim_restore_state(s, b);
    {   /* a stiffness above this sim's growth cap (a state of another time step or mass) is lowered to it */
        double kmax = 100.0 * rc__sim_kappa_min(s);
        if (s->kappa > kmax) s->kappa = kmax;
    }
    s->crossings_checked = 0;   /* the next step checks the loaded state for crossings, as a new sim's first */
    rc__sim_handles_arrive(s);   /* not state: the handles start the next step from where they are */
    memset(s->reaction, 0, sizeof(double) * 3 * (size_t)s->nv);   /* no step has ended in this state yet */
    return RC_OK;
}

static void rc__stats_add(rc_step_stats *acc, const rc_step_stats *st, int first)
{
    if (first) { double ip0 = st->ip_start; *acc = *st; acc->ip_start = ip0; return; }
    /* the active rate is a mean over outer iterations: weight each part by its count (taken
       before the counts add up) */
    if (acc->outer_iters + st->outer_iters > 0)
        acc->active_rate = (acc->active_rate * acc->outer_iters + st->active_rate * st->outer_iters) /
                           (double)(acc->outer_iters + st->outer_iters);
    acc->newton_iters += st->newton_iters; acc->outer_iters += st->outer_iters; acc->inner_iters += st->inner_iters;
    acc->linear_solves += st->linear_solves; acc->substeps += st->substeps;
    acc->converged = acc->converged && st->converged;
    if (!st->converged) acc->stop_reason = st->stop_reason;
    acc->ip_end = st->ip_end;
    acc->e_inertia = st->e_inertia; acc->e_stretch = st->e_stretch; acc->e_bend = st->e_bend; acc->e_gravity = st->e_gravity;
    acc->e_external = st->e_external; acc->e_contact = st->e_contact; acc->e_friction = st->e_friction; acc->e_quality = st->e_quality;
    acc->e_travel = st->e_travel;
    acc->active_rate_per_iter = st->active_rate_per_iter; acc->num_active_rates = st->num_active_rates;
    if (st->ref_travel > acc->ref_travel) acc->ref_travel = st->ref_travel;
    acc->min_contact_distance = st->min_contact_distance;
    acc->t_assemble += st->t_assemble; acc->t_factor += st->t_factor; acc->t_solve += st->t_solve; acc->t_line_search += st->t_line_search;
    acc->min_self_distance = st->min_self_distance;
    acc->t_broad_phase += st->t_broad_phase; acc->t_narrow_phase += st->t_narrow_phase; acc->t_ccd += st->t_ccd;
    acc->pattern_rebuilds += st->pattern_rebuilds;
    acc->factor_reuses += st->factor_reuses; acc->cg_iters += st->cg_iters;
    acc->inner_relative_stops += st->inner_relative_stops;
    acc->kept_start |= st->kept_start;
}

/* advance by h; on error restore and, while levels remain, do two half steps with pin targets,
   material handles' targets (from their target at the step's start) and obstacle poses
   interpolated to the midpoint (rotations along the shortest arc). */
static rc_status rc__sim_advance(rc_sim *s, double h, int levels, double *saved, rc_step_stats *st)
{
    rc_status rs;
    memset(st, 0, sizeof *st);
    st->substeps = 1;
    rc_sim_save_state(s, saved);
    rc__sim_set_step_size(s, h);
    s->split_futile = 0;
    rs = rc__sim_solve(s, st);
    if (rs == RC_OK) { rc__sim_finish(s, st); return RC_OK; }
    rc__sim_restore_state(s, saved);
    if (h == s->def.dt) memcpy(s->err_whole, s->err, sizeof s->err_whole);
    if (levels <= 0 || s->split_futile) return rs;
    {
        size_t n3 = (size_t)3 * s->nv;
        rc_step_stats a, b;
        int i, o;
        size_t nmesh = 0, off;
        double *mid, *tend, *mend, *hend;
        for (o = 0; o < s->nobs; ++o) nmesh += (size_t)3 * s->obs[o].mesh_nv;
        /* tend: 3 (end translation) + 9 (end rotation) per obstacle; hend: material handles' targets */
        mid = (double *)rc__alloc(s->user, n3 + (size_t)12 * (s->nobs + 1) + nmesh + (size_t)3 * s->nmh, sizeof(double));
        tend = mid ? mid + n3 : NULL;
        mend = mid ? tend + (size_t)12 * (s->nobs + 1) : NULL;
        hend = mid ? mend + nmesh : NULL;
        /* a split that cannot be made is out of memory, not the whole step's failure (that
           reported RC_ERR_INTERSECTING for a step the split would have run: make oom's pin_press) */
        if (!mid) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory splitting the step");
        memcpy(mid, s->pin_target, sizeof(double) * n3);
        for (i = 0; i < s->nmh; ++i) {   /* handles: halfway from their target at the step's start */
            int c;
            memcpy(hend + 3 * i, s->mh[i].target, 3 * sizeof(double));
            for (c = 0; c < 3; ++c) s->mh[i].target[c] = 0.5 * (s->mh[i].target_prev[c] + hend[3 * i + c]);
        }
        for (o = 0; o < s->nobs; ++o) {
            /* midpoint pose: translation halfway, rotation halfway along the arc (a rotating
               obstacle, e.g. a leg swinging about a hip, kept at its end rotation with a halved
               translation would sit off its path) */
            double Rm[9], tm[3];
            memcpy(tend + 3 * o, s->obs[o].t, 3 * sizeof(double));
            memcpy(tend + 3 * s->nobs + 9 * o, s->obs[o].R, 9 * sizeof(double));
            rc__sim_obs_pose_at(s->obs + o, 0.5, Rm, tm);
            memcpy(s->obs[o].R, Rm, sizeof Rm); memcpy(s->obs[o].t, tm, sizeof tm);
        }
        for (o = 0, off = 0; o < s->nobs; ++o) {   /* mesh obstacles: vertices halfway too */
            size_t k, n = (size_t)3 * s->obs[o].mesh_nv;
            for (k = 0; k < n; ++k) { mend[off + k] = s->obs[o].mesh_x[k]; s->obs[o].mesh_x[k] = 0.5 * (s->obs[o].mesh_xprev[k] + mend[off + k]); }
            off += n;
        }
        for (i = 0; i < s->nv; ++i)
            if (s->pinned[i]) { int c; for (c = 0; c < 3; ++c) s->pin_target[3 * i + c] = 0.5 * (s->x[3 * i + c] + mid[3 * i + c]); }
        rs = rc__sim_advance(s, 0.5 * h, levels - 1, saved, &a);
        memcpy(s->pin_target, mid, sizeof(double) * n3);
        for (i = 0; i < s->nmh; ++i) memcpy(s->mh[i].target, hend + 3 * i, 3 * sizeof(double));
        for (o = 0; o < s->nobs; ++o) {
            memcpy(s->obs[o].t, tend + 3 * o, 3 * sizeof(double));
            memcpy(s->obs[o].R, tend + 3 * s->nobs + 9 * o, 9 * sizeof(double));
        }
        for (o = 0, off = 0; o < s->nobs; ++o) {
            size_t n = (size_t)3 * s->obs[o].mesh_nv;
            if (n) memcpy(s->obs[o].mesh_x, mend + off, n * sizeof(double));
            off += n;
        }
        if (rs == RC_OK) rs = rc__sim_advance(s, 0.5 * h, levels - 1, saved, &b);
        rc__free(s->user, mid);
        if (rs != RC_OK) return rs;
        rc__stats_add(&a, &b, 0);
        *st = a;
    }
    return RC_OK;
}

/* the material handles' targets at the step's start (rc__mhandle.target_prev) copied to buf, or
   back from it (restore = 1) */
static void rc__sim_handles_start(rc_sim *s, double *buf, int restore)
{
    int i;
    for (i = 0; i < s->nmh; ++i) {
        if (restore) memcpy(s->mh[i].target_prev, buf + 3 * i, 3 * sizeof(double));
        else memcpy(buf + 3 * i, s->mh[i].target_prev, 3 * sizeof(double));
    }
}

/* The barrier and the CCD keep every pair they see apart; the pairs excluded in the reference they
   do not see. An exact check of the end state (edges against the triangles sharing no vertex with
   them) tells the caller when a fold passed such nearby material through itself: st->self_crossed
   and the warning (a random pinch, adaptive, session 41: an edge through a triangle two cells
   away, 2.6 mm apart in the squeezed reference, every step RC_OK and converged, the crossing kept
   for 19 steps), instead of a silent tangle. Out of memory in the check: no verdict. */
static void rc__sim_report_self_crossing(rc_sim *s, rc_step_stats *st)
{
    int e, t;
    if (!s->def.self_contact) return;
    s->contact_status = RC_OK;
    if (rc__sim_first_crossing(s, s->ne, s->topo.edge_v, s->x, s->nt, s->tris, s->x, 2, &e, &t)) {
        st->self_crossed = 1;
        snprintf(s->warn, sizeof s->warn, "at t = %.6g s the cloth crosses itself, edge %d (%d-%d) through triangle %d "
                 "(%d %d %d), a fold sharper than self contact sees; refine the cloth or lower contact_thickness",
                 s->time, e, s->topo.edge_v[2 * e], s->topo.edge_v[2 * e + 1], t, s->tris[3 * t], s->tris[3 * t + 1], s->tris[3 * t + 2]);
    }
    s->contact_status = RC_OK;
}

/* 1 if two messages are the same apart from the step sizes they name ("(h = 0.01 s)") and the
   distances measured at them (the numbers before " mm"): a split step's finest half failing for
   the reason the whole step gave */
static int rc__msg_same_but_h(const char *a, const char *b)
{
    while (*a && *b) {
        if (!strncmp(a, "(h = ", 5) && !strncmp(b, "(h = ", 5)) {
            while (*a && *a != ')') ++a;
            while (*b && *b != ')') ++b;
            continue;
        }
        if ((*a == '-' || (*a >= '0' && *a <= '9')) && (*b == '-' || (*b >= '0' && *b <= '9'))) {
            const char *a0 = a, *b0 = b;
            while (*a == '-' || *a == '.' || *a == 'e' || *a == '+' || (*a >= '0' && *a <= '9')) ++a;
            while (*b == '-' || *b == '.' || *b == 'e' || *b == '+' || (*b >= '0' && *b <= '9')) ++b;
            if (strncmp(a, " mm", 3) || strncmp(b, " mm", 3)) {   /* not a distance: the numbers must agree */
                if (a - a0 != b - b0 || strncmp(a0, b0, (size_t)(a - a0))) return 0;
            }
            continue;
        }
        if (*a++ != *b++) return 0;
    }
    return *a == *b;
}

RCLOTHDEF rc_status rc_sim_step(rc_sim *s, rc_step_stats *stats)
{
    rc_step_stats st;
    double *saved, t0 = rc__now();
    char warn[sizeof(((rc_sim *)0)->warn)];
    rc_status rs;
    if (stats) memset(stats, 0, sizeof *stats);   /* zero on every error return */
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    s->err[0] = 0;
    rs = rc__sim_check_crossings(s);
    if (rs != RC_OK) return rs;
    /* the state at the step's start, the substeps' scratch, the pin reactions and the handles'
       start targets (not state, but a failed step must not leave a succeeded half step's reactions
       or midpoint targets behind) */
    saved = (double *)rc__alloc(s->user, 2 * rc_sim_state_size(s) + (size_t)3 * s->nv + (size_t)3 * s->nmh + 1, sizeof(double));
    if (!saved) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_step");
    rc_sim_save_state(s, saved);
    memcpy(saved + 2 * rc_sim_state_size(s), s->reaction, sizeof(double) * 3 * (size_t)s->nv);
    rc__sim_handles_start(s, saved + 2 * rc_sim_state_size(s) + (size_t)3 * s->nv, 0);
    memcpy(warn, s->warn, sizeof warn);
    rs = rc__sim_advance(s, s->def.dt, s->def.max_substeps, saved + rc_sim_state_size(s), &st);
    if (rs != RC_OK) {
        /* a failed second half step leaves the midpoint: restore the state of the step start,
           and the warning (a half step that kept its start, then failed, set one about a step
           that never happened) */
        rc__sim_restore_state(s, saved);
        memcpy(s->warn, warn, sizeof warn);
        memcpy(s->reaction, saved + 2 * rc_sim_state_size(s), sizeof(double) * 3 * (size_t)s->nv);
        rc__sim_handles_start(s, saved + 2 * rc_sim_state_size(s) + (size_t)3 * s->nv, 1);
        rc__free(s->user, saved);
        if (s->def.max_substeps > 0 && strcmp(s->err, s->err_whole) != 0) {
            /* the whole step's reason may name the cause (a pin or an obstacle moving through the
               cloth) where the finest split's is often only "too close": report both; when they
               differ only in the step size they name, the whole one alone (each half was cut to
               500 characters, which lost the causes at the end of a long reason) */
            char msg[sizeof(s->err)];
            if (rc__msg_same_but_h(s->err, s->err_whole))
                snprintf(msg, sizeof msg, "%.*s; the same at every split down to %d levels", 960, s->err_whole, s->def.max_substeps);
            else
                snprintf(msg, sizeof msg, "%.*s; split down to %d levels: %.*s", 500, s->err_whole, s->def.max_substeps, 480, s->err);
            memcpy(s->err, msg, sizeof s->err);
        }
        return rs;
    }
    rc__free(s->user, saved);
    s->err[0] = 0;   /* a step that succeeded after splitting leaves no message of the failed whole step */
    rc__sim_quality_stats(s, &st);
    rc__sim_report_self_crossing(s, &st);
    st.t_total = rc__now() - t0;
    if (stats) *stats = st;
    return RC_OK;
}


/* Statics (ours): a proximal-point sequence of pseudo time steps with zero velocity. Pseudo step
   k minimises V(x, u) + sum_i m_i/(2 h_k^2)|x_i - x_i^k|^2 (+ C(u) with the regulariser's h_q =
   min(def.dt, quality_time); adaptive: x^k taken at the material points, x~(u), as a step's
   inertia, so sliding the mesh through the material costs nothing), so V never increases from
   one pseudo step to the next; h_k starts at def.dt and doubles after every converged pseudo step (up to 1e6 def.dt; it
   halves after an unconverged one, down to def.dt), so late steps are plain Newton on V. At most
   400 pseudo steps.
   Converged when a pseudo step moves no vertex more than tol * L * dt (and no u more than
   tol * l * dt). Velocities are zero afterwards. Accumulates into acc; *conv = 1 on equilibrium. */
/* Friction in statics (DESIGN §1's pseudo steps): the lagged friction of a time step measures the
   slip from the step's start, and each pseudo step starts where the last one ended, so a sheet held
   by friction had its static friction reset to zero force at every pseudo step and crept, or (with
   the smoothing length eps_v h growing with the pseudo step) slid off: the sphere drape's static
   solve ended 3.7e6 m below the sphere. Here each vertex in frictional contact carries its slip
   from pseudo step to pseudo step, elastic-plastically: fr_acc += this pseudo step's slip (of the
   material point now at the vertex in adaptive mode: x - x^t - G0 (u - u^t)), then clamped to
   |fr_acc| <= eps_v dt (beyond it friction is kinetic, and a vertex that slid on must be held anew
   where it stops); a vertex out of contact forgets it. Every friction term adds fr_acc to its slip
   (analytic shapes, round cores and meshes, which stand still after the first pseudo step, and
   self contact, vertex by vertex). */
static void rc__sim_static_friction_carry(rc_sim *s)
{
    const double eps = s->def.friction_eps_v * s->def.dt;
    unsigned char *in = (unsigned char *)s->ls_u;   /* scratch: 2*nv doubles >= nv flags */
    int i, o, q, k, c;
    memset(in, 0, (size_t)s->nv);
    for (o = 0; o < s->nobs; ++o)
        if (s->obs[o].mu > 0.0)
            for (i = 0; i < s->nv; ++i) if (s->fr_lambda[(size_t)o * s->nv + i] > 0.0) in[i] = 1;
    for (q = 0; q < s->nfm + s->nft; ++q) {
        const double *rec = q < s->nfm ? s->fm + (size_t)RC__FM_STRIDE * q : s->ft + (size_t)RC__FM_STRIDE * (q - s->nfm);
        if (rec[7] > 0.0) for (k = 0; k < (int)rec[0]; ++k) in[(int)rec[1 + k]] = 1;
    }
    for (q = 0; q < s->nfs; ++q) {
        const double *rec = s->fs + (size_t)15 * q;
        if (rec[8] > 0.0) for (k = 0; k < 4; ++k) if (rec[4 + k] != 0.0) in[(int)rec[k]] = 1;
    }
    for (i = 0; i < s->nv; ++i) {
        double *a = s->fr_acc + 3 * i, len;
        if (!in[i] || s->pinned[i]) { a[0] = a[1] = a[2] = 0.0; continue; }
        for (c = 0; c < 3; ++c) {
            double slip = s->x[3 * i + c] - s->x0[3 * i + c];
            if (s->def.adaptive)
                slip -= s->fr_G[6 * i + 2 * c] * (s->u[2 * i] - s->u0_step[2 * i]) +
                        s->fr_G[6 * i + 2 * c + 1] * (s->u[2 * i + 1] - s->u0_step[2 * i + 1]);
            a[c] += slip;
        }
        len = rc__norm3(a);
        if (len > eps) rc__scale3(a, eps / len, a);
    }
}

/* carry_in: the friction's carried slip to start from (the last equilibrium's, rc_sim_solve_static;
   NULL: none); carry_out: where the carried slip of an equilibrium found is kept (NULL: nowhere) */
static rc_status rc__sim_static_equilibrium(rc_sim *s, rc_step_stats *acc, int *first, int *conv, const double *carry_in,
                                            double *carry_out)
{
    rc_step_stats st;
    double h = s->def.dt;
    int k, i;
    rc_status rs = RC_OK;
    *conv = 0;
    s->static_fric = 1;
    if (carry_in) memcpy(s->fr_acc, carry_in, sizeof(double) * 3 * (size_t)s->nv);
    else memset(s->fr_acc, 0, sizeof(double) * 3 * (size_t)s->nv);
    for (k = 0; k < 400; ++k) {
        double move = 0.0, umove = 0.0;
        memset(s->v, 0, sizeof(double) * 3 * (size_t)s->nv);
        memset(&st, 0, sizeof st);
        st.substeps = 1;   /* the stats count pseudo steps here */
        rc__sim_set_step_size(s, h);
        rs = rc__sim_solve(s, &st);
        if (rs != RC_OK) break;
        rc__sim_static_friction_carry(s);
        for (i = 0; i < 3 * s->nv; ++i) if (fabs(s->x[i] - s->x0[i]) > move) move = fabs(s->x[i] - s->x0[i]);
        for (i = 0; i < 2 * s->nv; ++i) if (fabs(s->u[i] - s->u0_step[i]) > umove) umove = fabs(s->u[i] - s->u0_step[i]);
        rc__sim_obstacles_arrive(s);   /* the obstacles' (and handles') motion is done after the first pseudo step */
        rc__stats_add(acc, &st, *first);
        *first = 0;
        /* equilibrium: a converged pseudo step that moved less than the step tolerance, and whose
           move is no residual force either. The proximal step's optimality gives the force left
           at its end, grad V = -M (x_{k+1} - x_k) / h_k^2, so move / h_k^2 is the residual
           acceleration: below 1e-3 of the scene's (|g|). Without it, for dt below tol L / g the
           first pseudo step from rest (moving g dt^2) passed the length test: a hanging sheet
           at dt 1e-4, tol 1e-3 was declared in equilibrium after one Newton iteration, 0.1 m
           above it, and so was a free-falling one. At the defaults the two tests agree. */
        if (move <= s->def.tol * s->L * s->def.dt && umove <= s->def.tol * s->mean_edge * s->def.dt && st.converged &&
            move <= 1e-3 * rc__sim_accel_scale(s) * h * h) { *conv = 1; break; }
        if (st.converged && h < 1e6 * s->def.dt) h *= 2.0;
        else if (!st.converged && h > s->def.dt) h *= 0.5;
    }
    memset(s->v, 0, sizeof(double) * 3 * (size_t)s->nv);
    rc__sim_set_step_size(s, s->def.dt);
    s->static_fric = 0;
    if (rs == RC_OK && *conv && carry_out) memcpy(carry_out, s->fr_acc, sizeof(double) * 3 * (size_t)s->nv);
    memset(s->fr_acc, 0, sizeof(double) * 3 * (size_t)s->nv);
    return rs;
}

/* A free piece of cloth (no pin, no obstacle, no handle's spring on it) under a net load has no
   equilibrium: the pseudo steps would take it 1e7-1e8 m away in up to 400 solves (an API sweep,
   session 44: 5-45 s), and the state would be lost; refused at once instead. Per connected piece
   (triangles sharing a vertex, panels joined by seams): one pinned piece does not hold another
   (session 47's probe: beside a pinned piece, a free one fell to z = -1.8e9 m over 400 pseudo steps,
   RC_OK and converged = 0). Any obstacle may hold any piece, so with obstacles nothing is refused;
   with self contact one piece may hold another, so then the cloth counts as one piece. */
static rc_status rc__sim_static_held(rc_sim *s)
{
    int i, c, t, k, npieces = 0, bad = -1, *parent;
    double *load;   /* per piece root: net load (3), |load| scale (1), held flag (1) */
    rc_status rs = RC_OK;
    if (s->nobs > 0) return RC_OK;
    parent = (int *)rc__alloc(s->user, (size_t)s->nv, sizeof(int));
    load = (double *)rc__calloc(s->user, (size_t)5 * s->nv, sizeof(double));
    if (!parent || !load) {
        rc__free(s->user, parent); rc__free(s->user, load);
        return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "rc_sim_solve_static: out of memory");
    }
    /* with self contact one piece may rest on another (a napkin on a pinned tablecloth; the stop
       review, session 47): the cloth is one piece (root 0), held if any part of it is */
    for (i = 0; i < s->nv; ++i) parent[i] = s->def.self_contact ? 0 : i;
    for (t = 0; t < s->nt && !s->def.self_contact; ++t)
        for (k = 1; k < 3; ++k) rc__uf_union(parent, s->tris[3 * t], s->tris[3 * t + k]);
    /* seams join panels; each piece's root is its smallest vertex, the one a message names */
    for (i = 0; i < s->nst && !s->def.self_contact; ++i) rc__uf_union(parent, s->st_pair[2 * i], s->st_pair[2 * i + 1]);
    for (t = 0; t < s->nt; ++t) {   /* gravity on each piece's mass (constant: rho tau A0) */
        double m = s->def.material.density * s->def.material.thickness * s->A0[t];
        double *L = load + 5 * rc__uf_find(parent, s->tris[3 * t]);
        for (c = 0; c < 3; ++c) L[c] += s->def.gravity[c] * m;
        L[3] += s->gravity_norm * m;
    }
    for (i = 0; i < s->nv; ++i) {
        double *L = load + 5 * rc__uf_find(parent, i);
        if (s->pinned[i]) L[4] = 1.0;
        for (c = 0; c < 3; ++c) { L[c] += s->force[3 * i + c]; L[3] += fabs(s->force[3 * i + c]); }
    }
    for (i = 0; i < s->nmh; ++i) {
        double *L;
        if (s->mh[i].tri < 0) continue;
        L = load + 5 * rc__uf_find(parent, s->tris[3 * s->mh[i].tri]);
        if (s->mh[i].k > 0.0) L[4] = 1.0;
        for (c = 0; c < 3; ++c) { L[c] += s->mh[i].f[c]; L[3] += fabs(s->mh[i].f[c]); }
    }
    for (i = 0; i < s->nv; ++i) {
        const double *L = load + 5 * i;
        if (parent[i] != i) continue;
        npieces++;
        if (bad < 0 && L[4] == 0.0 && rc__norm3(L) > 1e-9 * L[3]) bad = i;
    }
    if (bad >= 0) {
        char msg[300];
        int nvp = 0;
        for (i = 0; i < s->nv; ++i) nvp += rc__uf_find(parent, i) == bad;
        if (npieces == 1)
            snprintf(msg, sizeof msg, "rc_sim_solve_static: nothing holds the cloth (no pin, obstacle or material handle) against "
                     "a net load of %.3g N, so it has no equilibrium; rc_sim_step lets it fall", rc__norm3(load + 5 * bad));
        else
            snprintf(msg, sizeof msg, "rc_sim_solve_static: nothing holds a piece of the cloth (%d vertices, vertex %d among them: no pin or"
                     " material handle on it, no obstacle) against a net load of %.3g N, so it has no equilibrium; rc_sim_step lets it fall",
                     nvp, bad, rc__norm3(load + 5 * bad));
        rs = rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, msg);
    }
    rc__free(s->user, parent);
    rc__free(s->user, load);
    return rs;
}

/* Load stepping (def.static_load_steps = N > 1, DESIGN §1): the loads (gravity, vertex forces,
   material loads) moved by lambda = 1/N, 2/N, ..., 1 of the way from the loads the state is in
   equilibrium with to the current ones, and the prescribed positions (pin targets, material handle
   targets) the same fraction of the way from where they are at the call, each increment solved to
   equilibrium from the last; the first increment without equilibrium ends the sequence
   (converged = 0). The full loads and targets are in place afterwards, also on error.
   "In equilibrium with": the loads of the last call that converged, if the state is still its end
   state to the bit (no step, load or other solve since); else none, and the loads ramp from zero.
   So a repeated call, or one after a change of the forces or a move of the pins, continues from
   the equilibrium it starts in instead of unloading it to 1/N first (session 56's probe: 0.2-0.4 s
   per repeated call at equilibrium, and the ramp from zero can end in another equilibrium).
   The same memory keeps the friction's carried slips (rc__sim_static_friction_carry) of that
   equilibrium, for any N: the first increment starts from them, where it used to start from none
   and the cloth slipped again until friction held it anew (a probe, session 57: 1e-4 m on
   a sphere, 1.2 cm for an adaptive sheet on a 10-degree slope; test_sim_static_repeat_holds). */
RCLOTHDEF rc_status rc_sim_solve_static(rc_sim *s, rc_step_stats *stats)
{
    rc_step_stats acc;
    double *saved, *buf = NULL, *eq, g0[3], gs[3] = { 0.0, 0.0, 0.0 }, t0 = rc__now();
    int n, i, c, first = 1, conv = 0, steps, from_eq;
    size_t n3, n_eq;
    rc_status rs = RC_OK;
    if (stats) memset(stats, 0, sizeof *stats);   /* zero on every error return */
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    s->err[0] = 0;
    rs = rc__sim_check_crossings(s);
    if (rs != RC_OK) return rs;
    rs = rc__sim_static_held(s);
    if (rs != RC_OK) return rs;
    steps = s->def.static_load_steps > 1 ? s->def.static_load_steps : 1;
    n3 = (size_t)3 * s->nv;
    n_eq = (size_t)5 * s->nv + (size_t)s->ne;   /* the snapshot of x, u, phi in static_eq; then forces, carried slip */
    if (!s->static_eq) {
        s->static_eq = (double *)rc__alloc(s->user, n_eq + 2 * n3, sizeof(double));
        s->static_eq_valid = 0;
        if (!s->static_eq) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_solve_static");
    }
    eq = s->static_eq;
    from_eq = s->static_eq_valid && memcmp(eq, s->x, n3 * sizeof(double)) == 0 &&
              memcmp(eq + n3, s->u, (size_t)2 * s->nv * sizeof(double)) == 0 &&
              memcmp(eq + 5 * (size_t)s->nv, s->phi, (size_t)s->ne * sizeof(double)) == 0;
    saved = (double *)rc__alloc(s->user, rc_sim_state_size(s) + (size_t)3 * s->nmh + 1, sizeof(double));
    if (steps > 1 && saved) buf = (double *)rc__alloc(s->user, 4 * n3 + (size_t)12 * s->nmh + 1, sizeof(double));
    if (!saved || (steps > 1 && !buf)) {
        rc__free(s->user, saved);
        return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_solve_static");
    }
    s->static_eq_valid = 0;   /* until this call converges */
    rc_sim_save_state(s, saved);
    rc__sim_handles_start(s, saved + rc_sim_state_size(s), 0);
    memset(&acc, 0, sizeof acc);
    memcpy(g0, s->def.gravity, sizeof g0);
    if (buf) {   /* full forces, pin targets, pin starts, starting forces; per handle: full force, full target, start, starting force */
        double *f0 = buf, *p1 = buf + n3, *p0 = buf + 2 * n3, *fs = buf + 3 * n3, *m = buf + 4 * n3;
        memcpy(f0, s->force, n3 * sizeof(double));
        memcpy(p1, s->pin_target, n3 * sizeof(double));
        memcpy(p0, s->x, n3 * sizeof(double));
        if (from_eq) { memcpy(fs, eq + n_eq, n3 * sizeof(double)); memcpy(gs, g0, sizeof gs); }   /* gravity has no setter */
        else memset(fs, 0, n3 * sizeof(double));
        for (i = 0; i < s->nmh; ++i) {
            memcpy(m + 12 * i, s->mh[i].f, 3 * sizeof(double));
            memcpy(m + 12 * i + 3, s->mh[i].target, 3 * sizeof(double));
            memcpy(m + 12 * i + 6, s->mh[i].target, 3 * sizeof(double));
            if (s->mh[i].tri >= 0 && s->mh[i].k > 0.0) (void)rc_sim_material_point(s, s->mh[i].uv, m + 12 * i + 6);
            for (c = 0; c < 3; ++c) m[12 * i + 9 + c] = from_eq ? s->mh[i].f_eq[c] : 0.0;
        }
    }
    for (n = 1; n <= steps; ++n) {
        if (buf) {   /* the last increment: exactly the loads and targets given */
            double lam = (double)n / steps, *f0 = buf, *p1 = buf + n3, *p0 = buf + 2 * n3, *fs = buf + 3 * n3, *m = buf + 4 * n3;
            for (c = 0; c < 3; ++c) s->def.gravity[c] = n == steps ? g0[c] : gs[c] + lam * (g0[c] - gs[c]);
            for (i = 0; i < 3 * s->nv; ++i) s->force[i] = n == steps ? f0[i] : fs[i] + lam * (f0[i] - fs[i]);
            for (i = 0; i < s->nv; ++i)
                if (s->pinned[i]) for (c = 0; c < 3; ++c) s->pin_target[3 * i + c] = n == steps ? p1[3 * i + c] : p0[3 * i + c] + lam * (p1[3 * i + c] - p0[3 * i + c]);
            for (i = 0; i < s->nmh; ++i)
                for (c = 0; c < 3; ++c) {
                    s->mh[i].f[c] = n == steps ? m[12 * i + c] : m[12 * i + 9 + c] + lam * (m[12 * i + c] - m[12 * i + 9 + c]);
                    s->mh[i].target[c] = n == steps ? m[12 * i + 3 + c] : m[12 * i + 6 + c] + lam * (m[12 * i + 3 + c] - m[12 * i + 6 + c]);
                }
        }
        /* the first increment starts from the friction's hold of the equilibrium it starts in */
        rs = rc__sim_static_equilibrium(s, &acc, &first, &conv, n == 1 && from_eq ? eq + n_eq + n3 : NULL, n == steps ? eq + n_eq + n3 : NULL);
        if (rs != RC_OK || !conv) break;
    }
    if (rs == RC_OK) rc__sim_pin_reactions(s);   /* under the loads the state is in equilibrium with */
    if (buf) {   /* the full loads and targets, whatever happened */
        double *f0 = buf, *p1 = buf + n3, *m = buf + 4 * n3;
        memcpy(s->def.gravity, g0, sizeof g0);
        memcpy(s->force, f0, n3 * sizeof(double));
        for (i = 0; i < s->nv; ++i) if (s->pinned[i]) memcpy(s->pin_target + 3 * i, p1 + 3 * i, 3 * sizeof(double));
        for (i = 0; i < s->nmh; ++i) { memcpy(s->mh[i].f, m + 12 * i, 3 * sizeof(double)); memcpy(s->mh[i].target, m + 12 * i + 3, 3 * sizeof(double)); }
        rc__free(s->user, buf);
    }
    if (rs == RC_OK && conv) {   /* the state is in equilibrium with these loads, held by that carried slip */
        memcpy(eq, s->x, n3 * sizeof(double));
        memcpy(eq + n3, s->u, (size_t)2 * s->nv * sizeof(double));
        memcpy(eq + 5 * (size_t)s->nv, s->phi, (size_t)s->ne * sizeof(double));
        memcpy(eq + n_eq, s->force, n3 * sizeof(double));
        for (i = 0; i < s->nmh; ++i) memcpy(s->mh[i].f_eq, s->mh[i].f, 3 * sizeof(double));
        s->static_eq_valid = 1;
    }
    if (rs != RC_OK) {
        rc__sim_restore_state(s, saved);
        rc__sim_handles_start(s, saved + rc_sim_state_size(s), 1);
        rc__free(s->user, saved);
        return rs;
    }
    rc__free(s->user, saved);
    acc.converged = conv;
    /* a pseudo step may end unconverged on the way (its size then halves): what ends the call is the cap */
    acc.stop_reason = conv ? NULL : "400 pseudo steps without an equilibrium (there may be none: cloth sliding off its support)";
    rc__sim_quality_stats(s, &acc);
    rc__sim_report_self_crossing(s, &acc);
    acc.t_total = rc__now() - t0;
    if (stats) *stats = acc;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_potential(const rc_sim *s, double *stretch, double *bend, double *gravity)
{
    int t;
    double S = 0.0, B = 0.0, G = 0.0;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    for (t = 0; t < s->nt; ++t) {
        double a[RC__SIM_A_TERMS], b;
        rc__sim_kernel_A(s, t, s->x, s->u, 0, a, NULL, NULL);
        rc__sim_kernel_B(s, t, s->x, s->u, s->phi, 0, &b, NULL, NULL);
        S += a[0]; G += a[2]; B += b;
    }
    G -= s->total_mass * rc__dot3(s->def.gravity, s->origin);   /* from x = 0 (rc__sim_set_origin) */
    if (stretch) *stretch = S;
    if (bend) *bend = B;
    if (gravity) *gravity = G;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_write_obj(const rc_sim *s, const char *path)
{
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!path) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_write_obj: path is NULL");
    st = rc__mesh_write_obj_user(s->user, path, s->nv, s->x, s->u, s->nt, s->tris);
    if (st != RC_OK) rc__sim_fail_c(s, st, "rc_sim_write_obj: could not write the file");
    return st;
}

RCLOTHDEF rc_status rc_sim_write_reference_obj(const rc_sim *s, const char *path)
{
    rc_status st;
    double *p;
    int i;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!path) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_write_reference_obj: path is NULL");
    p = (double *)rc__alloc(s->user, (size_t)3 * s->nv, sizeof(double));
    if (!p) return rc__sim_fail_c(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_write_reference_obj");
    for (i = 0; i < s->nv; ++i) { p[3 * i] = s->u[2 * i]; p[3 * i + 1] = s->u[2 * i + 1]; p[3 * i + 2] = 0.0; }
    st = rc__mesh_write_obj_user(s->user, path, s->nv, p, s->u, s->nt, s->tris);
    rc__free(s->user, p);
    if (st != RC_OK) rc__sim_fail_c(s, st, "rc_sim_write_reference_obj: could not write the file");
    return st;
}

#ifdef __cplusplus
}
#endif

#endif /* RCLOTH_IMPLEMENTATION_DONE */
#endif /* RCLOTH_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the rcloth authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
