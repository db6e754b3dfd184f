/* examples/common/curvature.h - discrete mean curvature of a triangle mesh (libc + libm only).

   At an interior vertex i the cotangent Laplacian of the positions is
       (Delta x)_i = 1/(2 A_i) sum_j (cot a_ij + cot b_ij) (x_j - x_i),
   a_ij, b_ij the angles opposite edge ij, A_i the mixed Voronoi area (Meyer et al. 2003: the
   Voronoi region inside non-obtuse triangles, half / a quarter of the area of obtuse ones).
   On a smooth surface Delta x = -2 H n, so H_i = |Delta x|_i / 2 (unsigned; 1/R on a sphere of
   radius R, 0 on a plane). Boundary vertices (on an edge with one triangle) get NaN: their
   Laplacian measures the boundary curve, not the surface. */
#ifndef RCLOTH_CURVATURE_H
#define RCLOTH_CURVATURE_H

#ifdef __cplusplus
extern "C" {
#endif

/* H[nv] <- unsigned mean curvature per vertex (NaN on the boundary, on isolated vertices and where
   the area is zero). Returns 0, or -1 on bad input / out of memory. */
int curv_mean_curvature(int nv, const double *x, int nt, const int *tris, double *H);

/* log(H^2) (natural log) of the finite, positive H values, packed into out (at most nv values);
   returns how many were written. */
int curv_log_h2(int nv, const double *H, double *out);

#ifdef __cplusplus
}
#endif
#endif /* RCLOTH_CURVATURE_H */
