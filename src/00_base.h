/* ==========================================================================
   SECTION: BASE  (version, status codes, allocation, small dense math)
   Owns: rc_status and its strings, the allocation wrappers every other
   section uses, 3-vector helpers, the dense symmetric eigen-solver and the
   PSD projection of element Hessians. Calls nothing else.
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
    RC_ERR_MESH_DEGENERATE,    /* a reference triangle with (near) zero area */
    RC_ERR_MESH_ORIENTATION,   /* reference triangles of mixed orientation */
    RC_ERR_MESH_NON_MANIFOLD,  /* an edge shared by more than two triangles, or inconsistently wound */
    RC_ERR_BAD_MATERIAL,       /* density/thickness/Young <= 0 or Poisson outside (-1, 0.5) */
    RC_ERR_IO,                 /* a file could not be opened, read or written */
    RC_ERR_PARSE,              /* a file was read but its contents are malformed */
    RC_ERR_INTERSECTING,       /* the state given is in contact violation (penetrating / inside an obstacle) */
    RC_ERR_NO_DESCENT,         /* the solver found no direction that decreases the energy */
    RC_ERR_INVERTED,           /* a reference triangle inverted */
    RC_STATUS_COUNT
} rc_status;

/* A short, readable, static string for a status ("ok", "out of memory", ...). Never NULL. */
RCLOTHDEF const char *rc_status_string(rc_status s);

#ifdef __cplusplus
}
#endif

/* ==== IMPLEMENTATION ==== */
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

#if defined(__GNUC__) || defined(__clang__)
#define RC__UNUSED __attribute__((unused))
#else
#define RC__UNUSED
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
        "initial state intersects an obstacle or itself",
        "no descent direction",
        "inverted reference triangle",
    };
    if ((int)s < 0 || s >= RC_STATUS_COUNT) return "unknown status";
    return names[s];
}

/* Allocation of n elements of size sz with overflow check; NULL on failure or n*sz overflow. */
static RC__UNUSED void *rc__alloc(void *user, size_t n, size_t sz)
{
    if (n == 0) n = 1;
    if (sz != 0 && n > (size_t)-1 / sz) return NULL;
    return RCLOTH_MALLOC(n * sz, user);
}
static RC__UNUSED void *rc__calloc(void *user, size_t n, size_t sz)
{
    void *p = rc__alloc(user, n, sz);
    if (p) memset(p, 0, (n ? n : 1) * sz);
    return p;
}
static RC__UNUSED void *rc__realloc(void *user, void *p, size_t n, size_t sz)
{
    if (n == 0) n = 1;
    if (sz != 0 && n > (size_t)-1 / sz) return NULL;
    return RCLOTH_REALLOC(p, n * sz, user);
}
static RC__UNUSED void rc__free(void *user, void *p)
{
    if (p) RCLOTH_FREE(p, user);
}

static RC__UNUSED int rc__isfinite(double v) { return v - v == 0.0; }
static RC__UNUSED int rc__all_finite(const double *v, size_t n)
{
    size_t i;
    double acc = 0.0;
    for (i = 0; i < n; ++i) acc += v[i] * 0.0;   /* NaN*0 = NaN, inf*0 = NaN */
    return acc == 0.0;
}

/* ---- 3-vectors (double[3]) ---- */
static RC__UNUSED double rc__dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static RC__UNUSED void rc__sub3(double *r, const double *a, const double *b) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static RC__UNUSED void rc__add3(double *r, const double *a, const double *b) { r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2]; }
static RC__UNUSED void rc__scale3(double *r, double s, const double *a) { r[0] = s * a[0]; r[1] = s * a[1]; r[2] = s * a[2]; }
static RC__UNUSED void rc__axpy3(double *r, double s, const double *a) { r[0] += s * a[0]; r[1] += s * a[1]; r[2] += s * a[2]; }
static RC__UNUSED void rc__cross3(double *r, const double *a, const double *b)
{
    double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2], t2 = a[0] * b[1] - a[1] * b[0];
    r[0] = t0; r[1] = t1; r[2] = t2;
}
static RC__UNUSED double rc__norm3(const double *a) { return sqrt(rc__dot3(a, a)); }

/* ---- dense symmetric eigen-decomposition (cyclic Jacobi), n small (element stencils, n <= ~40).
   A: n*n row-major symmetric, destroyed. evals[n]; evecs[n*n] row-major with eigenvector k in
   column k (evecs[i*n+k]). Jacobi is chosen for accuracy on the tiny eigenvalues that decide the
   clamping; its cost is measured in bench/. */
static RC__UNUSED void rc__sym_eig(int n, double *A, double *evals, double *evecs)
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
   diagonal-dominance test skips the eigen-decomposition for matrices that are already PSD. */
static RC__UNUSED int rc__psd_project(int n, double *H, int mode, double *work)
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

#ifdef __cplusplus
}
#endif
