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
   RC_OK: every pivot d_j > 1e-13 |a_jj| (A symmetric positive definite to working precision).
   RC_ERR_NOT_SPD: some pivot is not positive. If all pivots are clearly nonzero (|d_j| > 1e-13 |a_jj|)
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

/* y = A x for A symmetric given by its upper triangle as above (x, y of length n, not aliased).
   Validates like analyze, plus RC_ERR_NON_FINITE for NaN in values or x. */
RCLOTHDEF rc_status rc_sparse_symv(int n, const int *colptr, const int *rowind, const double *values,
                                   const double *x, double *y);

/* Preconditioned conjugate gradients on A x = b (A SPD, upper CSC as above).
   Preconditioner: block Jacobi with diagonal blocks [block_ptr[k], block_ptr[k+1]) for k < num_blocks
   (block_ptr[0] = 0, increasing, block_ptr[num_blocks] = n, each block at most 64 wide), each
   inverted by a dense Cholesky; block_ptr == NULL: scalar Jacobi.
   x: initial guess in, solution out. Stops when |b - A x| <= rel_tol |b| (2-norms) or after max_iter
   iterations; then RC_ERR_NOT_CONVERGED and x is the iterate of smallest residual seen.
   iterations / rel_residual (may be NULL) report the work done and |b - A x| / |b| of the returned x.
   RC_ERR_NOT_SPD when a diagonal block is not positive definite or p^T A p <= 0 occurs. */
RCLOTHDEF rc_status rc_pcg_solve(int n, const int *colptr, const int *rowind, const double *values,
                                 const int *block_ptr, int num_blocks, const double *b, double *x,
                                 double rel_tol, int max_iter, int *iterations, double *rel_residual);

#ifdef __cplusplus
}
#endif

/* ==== IMPLEMENTATION ==== */
#if defined(__AVX2__) && defined(__FMA__) && !defined(RCLOTH_NO_SIMD)
#include <immintrin.h>
#define RC__SP_AVX2 1
#endif
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RC__UNUSED on public definitions: with RCLOTH_STATIC they are static and may be unused. */

/* A pivot d_j counts as zero when |d_j| <= RC__SP_PIVOT_TOL * |a_jj|. The ratio d_j / a_jj is
   invariant under symmetric diagonal scaling, and the rounding error of d_j is a modest multiple of
   eps * |a_jj|, so ~450 eps separates "numerically singular" from any pivot round-off can produce. */
#define RC__SP_PIVOT_TOL 1e-13
#define RC__SP_NB 32          /* panel width of the dense supernode factorization */

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
    size_t *amap;             /* nnz_a, grouped by supernode: where A's entry aidx[q] lands in lx */
    int *aidx, *asp;          /* entries of A assembled into supernode s: q in [asp[s], asp[s+1]) */
    size_t *diagpos;          /* n: position of L(j,j) in lx */
    size_t nnz_l, nnz_stored;
    /* numeric workspace (allocated in analyze) */
    int *map, *head, *nextd, *lpos, *rmap;
    double *cbuf, *bbuf, *adiag;
    double *work;             /* 3n: solve and refinement */
    int npos, nneg, valid;
};

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
RC__UNUSED RCLOTHDEF void rc_ldlt_destroy(rc_ldlt *f)
{
    void *u;
    if (!f) return;
    u = f->user;
    rc__free(u, f->colptr); rc__free(u, f->rowind); rc__free(u, f->perm); rc__free(u, f->pinv);
    rc__free(u, f->super); rc__free(u, f->col2sup); rc__free(u, f->rowp); rc__free(u, f->rows);
    rc__free(u, f->lxp); rc__free(u, f->lx); rc__free(u, f->d); rc__free(u, f->amap);
    rc__free(u, f->aidx); rc__free(u, f->asp);
    rc__free(u, f->diagpos); rc__free(u, f->map); rc__free(u, f->head); rc__free(u, f->nextd);
    rc__free(u, f->lpos); rc__free(u, f->rmap); rc__free(u, f->cbuf); rc__free(u, f->bbuf);
    rc__free(u, f->adiag); rc__free(u, f->work);
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

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_analyze_ex(rc_ldlt **out, int n, const int *colptr, const int *rowind,
                                       const int *perm_in, void *user)
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
    }
    rc__sp_permute_pattern(n, colptr, rowind, f->pinv, upp, upi, lop, loi);
    rc__sp_etree(n, upp, upi, parent, scr);
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
        f->lx = (double *)rc__alloc(user, f->nnz_stored, sizeof(double));
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
        f->adiag = (double *)rc__alloc(user, (size_t)n, sizeof(double));
        f->work = (double *)rc__alloc(user, 3 * (size_t)n, sizeof(double));
        if (!f->lx || !f->d || !f->amap || !f->aidx || !f->asp || !f->diagpos || !f->map || !f->head || !f->nextd || !f->lpos ||
            !f->rmap || !f->cbuf || !f->bbuf || !f->adiag || !f->work) goto fail;
        /* touch L once here: the pages are then mapped before the first (timed, repeated) factor */
        memset(f->lx, 0, f->nnz_stored * sizeof(double));
        for (s = 0; s < ns; ++s) {
            int fc = f->super[s], lc = f->super[s + 1], nr = f->rowp[s + 1] - f->rowp[s];
            for (j = fc; j < lc; ++j)
                f->diagpos[j] = f->lxp[s] + (size_t)(j - fc) * (size_t)nr + (size_t)(j - fc);
        }
        /* value map: A(r,c) -> L(hi, lo) of B, inside supernode of lo */
        for (j = 0; j < n; ++j)
            for (p = colptr[j]; p < colptr[j + 1]; ++p) {
                int a = f->pinv[rowind[p]], b = f->pinv[j], lo, hi, pos, fc, lc, nr;
                lo = a < b ? a : b;
                hi = a < b ? b : a;
                s = f->col2sup[lo];
                fc = f->super[s];
                lc = f->super[s + 1];
                nr = f->rowp[s + 1] - f->rowp[s];
                if (hi < lc) {
                    pos = hi - fc;
                } else {
                    const int *r = f->rows + f->rowp[s];
                    int lo_i = lc - fc, hi_i = nr - 1;
                    while (lo_i < hi_i) {
                        int mid = (lo_i + hi_i) / 2;
                        if (r[mid] < hi) lo_i = mid + 1; else hi_i = mid;
                    }
                    pos = lo_i;
                    RCLOTH_ASSERT(r[pos] == hi);
                }
                f->amap[p] = f->lxp[s] + (size_t)(lo - fc) * (size_t)nr + (size_t)pos;
                f->asp[s + 1]++;
            }
        /* group the entries by supernode: factor assembles each block right before working on it
           (the block is then in cache, and no separate pass over all of L is needed) */
        for (s = 0; s < ns; ++s) f->asp[s + 1] += f->asp[s];
        {
            int *fillp = f->head;   /* ns ints of scratch (workspace is reset by factor) */
            for (s = 0; s < ns; ++s) fillp[s] = f->asp[s];
            for (p = 0; p < nz; ++p) {
                int q;
                size_t pos = f->amap[p];
                /* supernode of the destination: binary search on lxp */
                int lo_s = 0, hi_s = ns - 1;
                while (lo_s < hi_s) {
                    int mid = (lo_s + hi_s + 1) / 2;
                    if (f->lxp[mid] <= pos) lo_s = mid; else hi_s = mid - 1;
                }
                q = fillp[lo_s]++;
                f->aidx[q] = p;
            }
        }
        {
            /* permute amap into the grouped order */
            size_t *am2 = (size_t *)rc__alloc(user, (size_t)nz, sizeof(size_t));
            if (!am2) goto fail;
            for (p = 0; p < nz; ++p) am2[p] = f->amap[f->aidx[p]];
            rc__free(user, f->amap);
            f->amap = am2;
        }
    }
    rc__free(user, iw); rc__free(user, upp); rc__free(user, upi); rc__free(user, lop); rc__free(user, loi);
    *out = f;
    return RC_OK;
fail:
    rc__free(user, iw); rc__free(user, upp); rc__free(user, upi); rc__free(user, lop); rc__free(user, loi);
    rc__free(user, fsup);
    rc_ldlt_destroy(f);
    return st;
}

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_analyze(rc_ldlt **out, int n, const int *colptr, const int *rowind)
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

#ifdef RC__SP_AVX2
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
        } else {
            _mm256_storeu_pd(c, _mm256_sub_pd(_mm256_setzero_pd(), r[2 * j]));
            _mm256_storeu_pd(c + 4, _mm256_sub_pd(_mm256_setzero_pd(), r[2 * j + 1]));
        }
    }
}
#endif

#if defined(RC__SP_AVX2) && defined(__AVX512F__)
#define RC__SP_AVX512 1
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
        } else {
            _mm512_storeu_pd(c, _mm512_sub_pd(_mm512_setzero_pd(), r[2 * j]));
            _mm512_storeu_pd(c + 8, _mm512_sub_pd(_mm512_setzero_pd(), r[2 * j + 1]));
        }
    }
}
#endif

static void rc__sp_gemm_lower(int m, int n, int k, const double *A, int lda, const double *Bp,
                              double *C, int ldc, int acc)
{
    int i0, jb, i;
    for (i0 = 0; i0 < m; i0 += RC__SP_MC) {
        int i1 = m - i0 < RC__SP_MC ? m : i0 + RC__SP_MC;
        for (jb = 0; jb < n && jb < i1; jb += 4) {
            int nr = n - jb < 4 ? n - jb : 4;
            const double *bp = Bp + (size_t)jb * k;
            double *cc = C + (size_t)jb * ldc;
            i = jb > i0 ? jb : i0;
            if (nr == 4) {
#ifdef RC__SP_AVX512
                for (; i + 16 <= i1; i += 16) rc__sp_kern_16x4(k, A + i, lda, bp, cc + i, ldc, acc);
#endif
#ifdef RC__SP_AVX2
                for (; i + 8 <= i1; i += 8) rc__sp_kern_8x4(k, A + i, lda, bp, cc + i, ldc, acc);
#endif
            }
#ifdef RC__SP_AVX2
            else {
                /* 1-3 columns (single edge DOFs, the 5th DOF of a vertex): B is zero padded, so
                   the 4-wide kernel computes into a scratch tile and nr columns are copied out */
                double tile[4 * 8];
                for (; i + 8 <= i1; i += 8) {
                    int c, rr;
                    rc__sp_kern_8x4(k, A + i, lda, bp, tile, 8, 0);
                    for (c = 0; c < nr; ++c) {
                        double *dst = cc + (size_t)c * ldc + i;
                        if (acc) for (rr = 0; rr < 8; ++rr) dst[rr] += tile[c * 8 + rr];
                        else for (rr = 0; rr < 8; ++rr) dst[rr] = tile[c * 8 + rr];
                    }
                }
            }
#endif
            for (; i < i1; i += 8) {
                int mr = i1 - i < 8 ? i1 - i : 8;
                rc__sp_tile(mr, nr, k, A + i, lda, bp, cc + i, ldc, acc);
            }
        }
    }
}

/* Dense LDL^T of one supernode block (nr x nc, column-major, ld = nr): the top nc x nc block is
   factored and the rows below become L21 = A21 L11^-T D^-1. Panels of RC__SP_NB columns: inside a
   panel column j gets A(:,j) -= sum_{k in panel, k<j} L(:,k) d_k L(j,k), then is scaled by 1/d_j;
   the columns right of the panel get the rank-NB update through the gemm kernel. Returns 0, or
   1 + the local index of a zero / non-finite pivot. */
static int rc__sp_dense_ldlt(rc_ldlt *f, double *L, int nr, int nc, int col0)
{
    double *D = f->d + col0;
    int j0, j, k, i;
    for (j0 = 0; j0 < nc; j0 += RC__SP_NB) {
        int j1 = j0 + RC__SP_NB < nc ? j0 + RC__SP_NB : nc;
        for (j = j0; j < j1; ++j) {
            double *cj = L + (size_t)j * nr, dj, inv, tol;
            for (k = j0; k < j; ++k) {
                const double *ck = L + (size_t)k * nr;
                double t = D[k] * ck[j];   /* d_k L(j,k) */
                if (t == 0.0) continue;
                for (i = j; i < nr; ++i) cj[i] -= t * ck[i];
            }
            dj = cj[j];
            tol = RC__SP_PIVOT_TOL * f->adiag[col0 + j];
            if (!rc__isfinite(dj)) return 1 + j;
            if (dj > tol) f->npos++;
            else if (dj < -tol) f->nneg++;
            else return 1 + j;
            D[j] = dj;
            inv = 1.0 / dj;
            cj[j] = 1.0;
            for (i = j + 1; i < nr; ++i) cj[i] *= inv;
        }
        if (j1 < nc) {
            int nt = nc - j1, kw = j1 - j0;
            double *B = f->bbuf;
            rc__sp_pack_b(nt, kw, L + (size_t)j0 * nr + j1, nr, D + j0, B);
            rc__sp_gemm_lower(nr - j1, nt, kw, L + (size_t)j0 * nr + j1, nr, B, L + (size_t)j1 * nr + j1, nr, 1);
        }
    }
    return 0;
}

/* Left-looking supernodal numeric factorization (the organisation of CHOLMOD's supernodal
   Cholesky, here for LDL^T): supernode s first receives, from every earlier supernode d whose row
   set meets s's columns, the update L_d(rows >= f_s) D_d L_d(rows in s)^T (dense product into a
   buffer, scattered through the relative row map), then is factored densely. head[s] lists the d
   whose next pending row lies in s; after updating s, d moves to the supernode of its next row. */
static rc_status rc__sp_factor(rc_ldlt *f, const double *values, double shift)
{
    int ns = f->nsuper, s, j, stop = 0;
    f->valid = 0;
    f->npos = f->nneg = 0;
    if (!rc__all_finite(values, (size_t)f->nnz_a) || !rc__isfinite(shift)) return RC_ERR_NON_FINITE;
    for (s = 0; s < ns; ++s) f->head[s] = -1;
    for (s = 0; s < ns && !stop; ++s) {
        int fc = f->super[s], lc = f->super[s + 1], nc = lc - fc;
        int nr = f->rowp[s + 1] - f->rowp[s], d, r;
        const int *rows = f->rows + f->rowp[s];
        double *Ls = f->lx + f->lxp[s];
        int q;
        /* assemble A (+ shift I) into the block */
        memset(Ls, 0, (size_t)nr * (size_t)nc * sizeof(double));
        for (q = f->asp[s]; q < f->asp[s + 1]; ++q) f->lx[f->amap[q]] = values[f->aidx[q]];
        for (j = fc; j < lc; ++j) {
            f->lx[f->diagpos[j]] += shift;
            f->adiag[j] = fabs(f->lx[f->diagpos[j]]);
        }
        for (r = 0; r < nr; ++r) f->map[rows[r]] = r;
        d = f->head[s];
        f->head[s] = -1;
        while (d != -1) {
            int dnext = f->nextd[d];
            int dnc = f->super[d + 1] - f->super[d], dnr = f->rowp[d + 1] - f->rowp[d];
            const int *drows = f->rows + f->rowp[d];
            const double *Ld = f->lx + f->lxp[d];
            const double *Dd = f->d + f->super[d];
            int p1 = f->lpos[d], p2 = p1, m2, n1, i, jj;
            double *B = f->bbuf, *C = f->cbuf;
            while (p2 < dnr && drows[p2] < lc) ++p2;
            m2 = dnr - p1;
            n1 = p2 - p1;
            rc__sp_pack_b(n1, dnc, Ld + p1, dnr, Dd, B);
            for (i = 0; i < m2; ++i) f->rmap[i] = f->map[drows[p1 + i]];
            if (f->rmap[m2 - 1] - f->rmap[0] == m2 - 1) {
                /* d's rows are exactly the trailing rows of s and its columns contiguous: update in place */
                rc__sp_gemm_lower(m2, n1, dnc, Ld + p1, dnr, B, Ls + (size_t)(drows[p1] - fc) * nr + f->rmap[0], nr, 1);
            } else {
                rc__sp_gemm_lower(m2, n1, dnc, Ld + p1, dnr, B, C, m2, 0);
                for (jj = 0; jj < n1; ++jj) {
                    double *lcol = Ls + (size_t)(drows[p1 + jj] - fc) * nr;
                    const double *ccol = C + (size_t)jj * m2;
                    for (i = jj; i < m2; ++i) lcol[f->rmap[i]] += ccol[i];
                }
            }
            f->lpos[d] = p2;
            if (p2 < dnr) {
                int s2 = f->col2sup[drows[p2]];
                f->nextd[d] = f->head[s2];
                f->head[s2] = d;
            }
            d = dnext;
        }
        {
            int bad = rc__sp_dense_ldlt(f, Ls, nr, nc, fc);
            if (bad) {
                double v = Ls[(size_t)(bad - 1) * nr + (bad - 1)];
                return rc__isfinite(v) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE;
            }
        }
        if (nr > nc) {
            int s2 = f->col2sup[rows[nc]];
            f->lpos[s] = nc;
            f->nextd[s] = f->head[s2];
            f->head[s2] = s;
        }
    }
    f->valid = 1;
    return f->nneg > 0 ? RC_ERR_NOT_SPD : RC_OK;
}

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_factor_shifted(rc_ldlt *f, const double *values, double shift)
{
    if (!f || (!values && f->nnz_a > 0)) return RC_ERR_INVALID_ARGUMENT;
    if (f->n == 0) { f->valid = 1; f->npos = f->nneg = 0; return RC_OK; }
    return rc__sp_factor(f, values, shift);
}

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_factor(rc_ldlt *f, const double *values)
{
    return rc_ldlt_factor_shifted(f, values, 0.0);
}

/* x (permuted order) <- L^-T D^-1 L^-1 x, supernode by supernode, column oriented. */
static void rc__sp_solve_perm(const rc_ldlt *f, double *x)
{
    int s, j, i, ns = f->nsuper;
    for (s = 0; s < ns; ++s) {
        int fc = f->super[s], nc = f->super[s + 1] - fc, nr = f->rowp[s + 1] - f->rowp[s];
        const int *rows = f->rows + f->rowp[s];
        const double *Ls = f->lx + f->lxp[s];
        for (j = 0; j < nc; ++j) {
            const double *c = Ls + (size_t)j * nr;
            double xj = x[fc + j];
            if (xj == 0.0) continue;
            for (i = j + 1; i < nc; ++i) x[fc + i] -= c[i] * xj;
            for (i = nc; i < nr; ++i) x[rows[i]] -= c[i] * xj;
        }
    }
    for (j = 0; j < f->n; ++j) x[j] /= f->d[j];
    for (s = ns - 1; s >= 0; --s) {
        int fc = f->super[s], nc = f->super[s + 1] - fc, nr = f->rowp[s + 1] - f->rowp[s];
        const int *rows = f->rows + f->rowp[s];
        const double *Ls = f->lx + f->lxp[s];
        for (j = nc - 1; j >= 0; --j) {
            const double *c = Ls + (size_t)j * nr;
            double t = x[fc + j];
            for (i = j + 1; i < nc; ++i) t -= c[i] * x[fc + i];
            for (i = nc; i < nr; ++i) t -= c[i] * x[rows[i]];
            x[fc + j] = t;
        }
    }
}

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_solve(const rc_ldlt *f, double *b)
{
    int k, n;
    double *x;
    if (!f || (!b && f->n > 0)) return RC_ERR_INVALID_ARGUMENT;
    if (!f->valid) return RC_ERR_INVALID_ARGUMENT;
    n = f->n;
    if (!rc__all_finite(b, (size_t)n)) return RC_ERR_NON_FINITE;
    x = f->work;
    for (k = 0; k < n; ++k) x[k] = b[f->perm[k]];
    rc__sp_solve_perm(f, x);
    for (k = 0; k < n; ++k) b[f->perm[k]] = x[k];
    return rc__all_finite(b, (size_t)n) ? RC_OK : RC_ERR_NON_FINITE;
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

RC__UNUSED RCLOTHDEF rc_status rc_ldlt_solve_refined(const rc_ldlt *f, const double *values, double *b, int iters)
{
    int n, k, it;
    double *x, *r, *b0;
    rc_status st;
    if (!f || (!b && f->n > 0) || (!values && f->nnz_a > 0) || iters < 0) return RC_ERR_INVALID_ARGUMENT;
    if (!f->valid) return RC_ERR_INVALID_ARGUMENT;
    n = f->n;
    if (!rc__all_finite(b, (size_t)n) || !rc__all_finite(values, (size_t)f->nnz_a)) return RC_ERR_NON_FINITE;
    x = f->work + n;
    r = f->work + 2 * (size_t)n;
    b0 = f->work;   /* used by the first solve only through perm copies: keep b0 separate */
    (void)b0;
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

RC__UNUSED RCLOTHDEF int rc_ldlt_n(const rc_ldlt *f) { return f ? f->n : 0; }
RC__UNUSED RCLOTHDEF size_t rc_ldlt_nnz_l(const rc_ldlt *f) { return f ? f->nnz_l : 0; }
RC__UNUSED RCLOTHDEF void rc_ldlt_inertia(const rc_ldlt *f, int *num_positive, int *num_negative)
{
    if (num_positive) *num_positive = f ? f->npos : 0;
    if (num_negative) *num_negative = f ? f->nneg : 0;
}

RC__UNUSED RCLOTHDEF rc_status rc_sparse_symv(int n, const int *colptr, const int *rowind, const double *values,
                                   const double *x, double *y)
{
    int *mark;
    rc_status st;
    if (n < 0 || !colptr || (n > 0 && (!x || !y))) return RC_ERR_INVALID_ARGUMENT;
    if (n == 0) return RC_OK;
    mark = (int *)rc__alloc(NULL, (size_t)n, sizeof(int));
    if (!mark) return RC_ERR_OUT_OF_MEMORY;
    st = rc__sp_check_pattern(n, colptr, rowind, mark);
    rc__free(NULL, mark);
    if (st != RC_OK) return st;
    if (colptr[n] > 0 && !values) return RC_ERR_INVALID_ARGUMENT;
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
static rc_status rc__pcg_precond_setup(int n, const int *colptr, const int *rowind, const double *values,
                                       const int *bp, int nb, double *blk, size_t *boff)
{
    int b, j, p, i, k;
    (void)n;
    for (b = 0; b < nb; ++b) {
        int b0 = bp[b], m = bp[b + 1] - b0;
        double *M = blk + boff[b];
        for (i = 0; i < m * m; ++i) M[i] = 0.0;
        for (j = b0; j < b0 + m; ++j)
            for (p = colptr[j]; p < colptr[j + 1]; ++p) {
                int r = rowind[p];
                if (r >= b0) { M[(r - b0) * m + (j - b0)] = values[p]; M[(j - b0) * m + (r - b0)] = values[p]; }
            }
        /* dense Cholesky M = R^T R in place (upper R in row-major upper triangle) */
        for (i = 0; i < m; ++i) {
            double s = M[i * m + i];
            for (k = 0; k < i; ++k) s -= M[k * m + i] * M[k * m + i];
            if (!(s > 0.0)) return RC_ERR_NOT_SPD;
            s = sqrt(s);
            M[i * m + i] = s;
            for (j = i + 1; j < m; ++j) {
                double t = M[i * m + j];
                for (k = 0; k < i; ++k) t -= M[k * m + i] * M[k * m + j];
                M[i * m + j] = t / s;
            }
        }
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

RC__UNUSED RCLOTHDEF rc_status rc_pcg_solve(int n, const int *colptr, const int *rowind, const double *values,
                                 const int *block_ptr, int num_blocks, const double *b, double *x,
                                 double rel_tol, int max_iter, int *iterations, double *rel_residual)
{
    int *mark = NULL, *bp = NULL, nb, i, it = 0;
    size_t *boff = NULL, total = 0;
    double *blk = NULL, *r = NULL, *z = NULL, *pv = NULL, *q = NULL, *xbest = NULL;
    double bnorm, rz, best, rnorm;
    rc_status st;
    if (iterations) *iterations = 0;
    if (rel_residual) *rel_residual = 0.0;
    if (n < 0 || !colptr || max_iter < 0 || !(rel_tol >= 0.0) || (n > 0 && (!b || !x))) return RC_ERR_INVALID_ARGUMENT;
    if (n == 0) return RC_OK;
    mark = (int *)rc__alloc(NULL, (size_t)n, sizeof(int));
    if (!mark) return RC_ERR_OUT_OF_MEMORY;
    st = rc__sp_check_pattern(n, colptr, rowind, mark);
    rc__free(NULL, mark);
    if (st != RC_OK) return st;
    if (colptr[n] > 0 && !values) return RC_ERR_INVALID_ARGUMENT;
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
    bp = (int *)rc__alloc(NULL, (size_t)nb + 1, sizeof(int));
    boff = (size_t *)rc__alloc(NULL, (size_t)nb + 1, sizeof(size_t));
    if (!bp || !boff) goto done;
    for (i = 0; i <= nb; ++i) bp[i] = block_ptr ? block_ptr[i] : i;
    for (i = 0; i < nb; ++i) {
        boff[i] = total;
        total += (size_t)(bp[i + 1] - bp[i]) * (size_t)(bp[i + 1] - bp[i]);
    }
    blk = (double *)rc__alloc(NULL, total, sizeof(double));
    r = (double *)rc__alloc(NULL, 5 * (size_t)n, sizeof(double));
    if (!blk || !r) goto done;
    z = r + n; pv = z + n; q = pv + n; xbest = q + n;
    st = rc__pcg_precond_setup(n, colptr, rowind, values, bp, nb, blk, boff);
    if (st != RC_OK) goto done;
    bnorm = 0.0;
    for (i = 0; i < n; ++i) bnorm += b[i] * b[i];
    bnorm = sqrt(bnorm);
    if (bnorm == 0.0) {
        for (i = 0; i < n; ++i) x[i] = 0.0;
        st = RC_OK;
        goto done;
    }
    rc__sp_symv(n, colptr, rowind, values, x, r);
    rnorm = 0.0;
    for (i = 0; i < n; ++i) { r[i] = b[i] - r[i]; rnorm += r[i] * r[i]; }
    rnorm = sqrt(rnorm);
    best = rnorm;
    memcpy(xbest, x, (size_t)n * sizeof(double));
    rc__pcg_precond_apply(bp, nb, blk, boff, r, z);
    rz = 0.0;
    for (i = 0; i < n; ++i) { pv[i] = z[i]; rz += r[i] * z[i]; }
    st = RC_OK;
    while (rnorm > rel_tol * bnorm) {
        double pq = 0.0, alpha, rz2 = 0.0, beta;
        if (it >= max_iter) { st = RC_ERR_NOT_CONVERGED; break; }
        rc__sp_symv(n, colptr, rowind, values, pv, q);
        for (i = 0; i < n; ++i) pq += pv[i] * q[i];
        if (!(pq > 0.0)) { st = rc__isfinite(pq) ? RC_ERR_NOT_SPD : RC_ERR_NON_FINITE; break; }
        alpha = rz / pq;
        ++it;
        for (i = 0; i < n; ++i) { x[i] += alpha * pv[i]; r[i] -= alpha * q[i]; }
        if (it % 50 == 0) {   /* replace the recursive residual by the true one */
            rc__sp_symv(n, colptr, rowind, values, x, q);
            for (i = 0; i < n; ++i) r[i] = b[i] - q[i];
        }
        rnorm = 0.0;
        for (i = 0; i < n; ++i) rnorm += r[i] * r[i];
        rnorm = sqrt(rnorm);
        if (rnorm < best) { best = rnorm; memcpy(xbest, x, (size_t)n * sizeof(double)); }
        rc__pcg_precond_apply(bp, nb, blk, boff, r, z);
        for (i = 0; i < n; ++i) rz2 += r[i] * z[i];
        beta = rz2 / rz;
        rz = rz2;
        for (i = 0; i < n; ++i) pv[i] = z[i] + beta * pv[i];
    }
    /* report the true residual of the returned x (the best one seen when not converged) */
    if (st != RC_OK) memcpy(x, xbest, (size_t)n * sizeof(double));
    rc__sp_symv(n, colptr, rowind, values, x, q);
    rnorm = 0.0;
    for (i = 0; i < n; ++i) rnorm += (b[i] - q[i]) * (b[i] - q[i]);
    rnorm = sqrt(rnorm);
    if (st == RC_OK && rnorm > rel_tol * bnorm && rnorm > best) {
        /* the recursion claimed convergence the true residual does not confirm: keep best */
        memcpy(x, xbest, (size_t)n * sizeof(double));
        rnorm = best;
    }
    if (iterations) *iterations = it;
    if (rel_residual) *rel_residual = rnorm / bnorm;
    if (st == RC_OK && !rc__all_finite(x, (size_t)n)) st = RC_ERR_NON_FINITE;
done:
    rc__free(NULL, bp); rc__free(NULL, boff); rc__free(NULL, blk); rc__free(NULL, r);
    return st;
}

#ifdef __cplusplus
}
#endif
