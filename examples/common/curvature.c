/* examples/common/curvature.c - discrete mean curvature (see curvature.h). */
#include "curvature.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

static void curv__sub(const double *a, const double *b, double *r) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static double curv__dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void curv__cross(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1]; r[1] = a[2] * b[0] - a[0] * b[2]; r[2] = a[0] * b[1] - a[1] * b[0];
}

/* Sort key of an undirected edge for boundary detection. */
static int curv__cmp(const void *a, const void *b)
{
    const long long *p = (const long long *)a, *q = (const long long *)b;
    return *p < *q ? -1 : *p > *q ? 1 : 0;
}

int curv_mean_curvature(int nv, const double *x, int nt, const int *tris, double *H)
{
    double *lap, *area;
    long long *edges;
    int t, i, k;
    if (nv <= 0 || nt <= 0 || !x || !tris || !H) return -1;
    for (k = 0; k < 3 * nt; k++) if (tris[k] < 0 || tris[k] >= nv) return -1;
    lap = (double *)calloc((size_t)4 * nv, sizeof(double));
    edges = (long long *)malloc((size_t)3 * nt * sizeof(long long));
    if (!lap || !edges) { free(lap); free(edges); return -1; }
    area = lap + 3 * (size_t)nv;
    for (t = 0; t < nt; t++) {
        const int *v = tris + 3 * t;
        double e[3][3], n[3], A2, cot[3];
        /* e[k] = edge opposite corner k, from corner k+1 to corner k+2 */
        for (k = 0; k < 3; k++) curv__sub(x + 3 * v[(k + 2) % 3], x + 3 * v[(k + 1) % 3], e[k]);
        curv__cross(e[0], e[1], n);
        A2 = sqrt(curv__dot(n, n));           /* twice the triangle area */
        if (!(A2 > 0.0)) continue;
        for (k = 0; k < 3; k++) {
            /* angle at corner k between the edges to corners k+1 and k+2: they are -e[k+2] and e[k+1] */
            const double *a = e[(k + 2) % 3], *b = e[(k + 1) % 3];
            cot[k] = -curv__dot(a, b) / A2;   /* cot = (u . w) / |u x w| with u = -a, w = b */
        }
        for (k = 0; k < 3; k++) {
            int p = v[(k + 1) % 3], q = v[(k + 2) % 3], c;
            /* edge pq is opposite corner k: its weight cot(angle k)/2 on each end (the other half
               comes from the neighbouring triangle) */
            for (c = 0; c < 3; c++) {
                double d = x[3 * q + c] - x[3 * p + c];
                lap[3 * p + c] += 0.5 * cot[k] * d;
                lap[3 * q + c] -= 0.5 * cot[k] * d;
            }
        }
        /* mixed area: obtuse triangle -> A/2 to the obtuse corner, A/4 to the others */
        {
            int obtuse = -1;
            for (k = 0; k < 3; k++) if (cot[k] < 0.0) obtuse = k;
            for (k = 0; k < 3; k++) {
                double ak;
                if (obtuse >= 0) ak = (k == obtuse ? 0.25 : 0.125) * A2;
                else {
                    /* Voronoi part at corner k: (|e_{k+1}|^2 cot_{k+1} + |e_{k+2}|^2 cot_{k+2}) / 8 */
                    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
                    ak = (curv__dot(e[k1], e[k1]) * cot[k1] + curv__dot(e[k2], e[k2]) * cot[k2]) / 8.0;
                }
                area[v[k]] += ak;
            }
        }
    }
    for (i = 0; i < nv; i++) {
        const double *L = lap + 3 * i;
        /* lap_i = sum_j (cot a + cot b)/2 (x_j - x_i) = A_i (Delta x)_i, so H = |Delta x|/2 = |lap_i| / (2 A_i) */
        H[i] = area[i] > 0.0 ? sqrt(curv__dot(L, L)) / (2.0 * area[i]) : NAN;
    }
    /* boundary vertices -> NaN: an edge used by one triangle only */
    for (t = 0; t < nt; t++)
        for (k = 0; k < 3; k++) {
            long long a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            edges[3 * t + k] = a < b ? a * nv + b : b * nv + a;
        }
    qsort(edges, (size_t)3 * nt, sizeof(long long), curv__cmp);
    for (k = 0; k < 3 * nt;) {
        int m = 1;
        while (k + m < 3 * nt && edges[k + m] == edges[k]) m++;
        if (m == 1) { H[edges[k] / nv] = NAN; H[edges[k] % nv] = NAN; }
        k += m;
    }
    for (i = 0; i < nv; i++) if (area[i] == 0.0) H[i] = NAN;
    free(lap);
    free(edges);
    return 0;
}

int curv_log_h2(int nv, const double *H, double *out)
{
    int i, n = 0;
    if (nv <= 0 || !H || !out) return 0;
    for (i = 0; i < nv; i++)
        if (H[i] > 0.0 && H[i] < HUGE_VAL) out[n++] = log(H[i] * H[i]);
    return n;
}
