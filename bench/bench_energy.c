/* bench/bench_energy.c - ns per element stencil of the ENERGY kernels in an assembly-like loop
   (gather the stencil, evaluate, accumulate a checksum) over a ~100k-triangle jittered grid with a
   wavy world shape. Modes: value, value+gradient, +Hessian, +Hessian with PSD projection (clamp).
   The projected Hessians are timed on a 10k-triangle subset to keep the run to seconds.
   Usage: make bench-energy */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include <stdio.h>
#include <time.h>

static double now(void) { return (double)clock() / CLOCKS_PER_SEC; }

int main(void)
{
    const int n = 224; /* 2 n^2 = 100352 triangles */
    int nv = (n + 1) * (n + 1), nt = 2 * n * n, i, j, t, mode;
    int *tris = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
    double *u = (double *)malloc(sizeof(double) * 2 * (size_t)nv), *x = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
    double *u0 = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
    double H[27 * 27], g[27], sink = 0;
    unsigned long s = 12345;
    rc_trimesh m;
    rc__sh_edges E;
    rc_material mat = rc_material_cotton();
    rc__sh_coef c = rc__sh_make_coef(&mat, 1.0);
    const char *modes[4] = {"value", "grad", "hess", "hess+proj"};
    int flags[4] = {0, RC__SH_GRAD, RC__SH_GRAD | RC__SH_HESS, RC__SH_GRAD | RC__SH_HESS | RC__SH_PROJECT};
    for (j = 0; j <= n; ++j)
        for (i = 0; i <= n; ++i) {
            int v = j * (n + 1) + i;
            double jx = 0, jy = 0;
            s = s * 6364136223846793005UL + 1442695040888963407UL;
            if (i > 0 && j > 0 && i < n && j < n) {
                jx = 0.25 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
                s = s * 6364136223846793005UL + 1442695040888963407UL;
                jy = 0.25 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
            }
            u0[2 * v] = (i + 0.0) / n;
            u0[2 * v + 1] = (j + 0.0) / n;
            u[2 * v] = (i + jx) / n;
            u[2 * v + 1] = (j + jy) / n;
            x[3 * v] = 0.98 * u[2 * v];
            x[3 * v + 1] = u[2 * v + 1];
            x[3 * v + 2] = 0.05 * sin(20 * u[2 * v]) * cos(13 * u[2 * v + 1]);
        }
    t = 0;
    for (j = 0; j < n; ++j)
        for (i = 0; i < n; ++i) {
            int a = j * (n + 1) + i, b = a + 1, cc = a + n + 1, d = cc + 1;
            tris[3 * t] = a; tris[3 * t + 1] = b; tris[3 * t + 2] = d; ++t;
            tris[3 * t] = a; tris[3 * t + 1] = d; tris[3 * t + 2] = cc; ++t;
        }
    m.num_verts = nv; m.num_tris = nt; m.tris = tris;
    if (rc__sh_build_edges(NULL, &m, &E) != RC_OK) return 1;
    printf("ENERGY kernels, %d triangles, ns per stencil (projected: first 10000 triangles)\n", nt);
    printf("%-22s %10s %10s %10s %10s\n", "kernel", modes[0], modes[1], modes[2], modes[3]);
    for (i = 0; i < 6; ++i) {
        const char *names[6] = {"stretch (15 dof)", "stretch fixed-u (9)", "bend (27 dof)", "bend fixed-u (21 dof)", "mips (6 dof)", "inertia (15 dof)"};
        printf("%-22s", names[i]);
        for (mode = 0; mode < 4; ++mode) {
            int cnt = mode == 3 ? 10000 : nt;
            double t0 = now(), dt;
            for (t = 0; t < cnt; ++t) {
                double xl[9], xf[9], ul[6], pl[3] = {0.01, -0.02, 0.03}, u0l[6], Dm[4];
                int mask, k;
                rc__sh_gather(&m, &E, x, u, t, xl, xf, ul, &mask);
                switch (i) {
                case 0: sink += rc__sh_stretch_tri(xl, ul, &c, flags[mode], g, H); break;
                case 1: sink += rc__sh_stretch_tri(xl, ul, &c, flags[mode] | RC__SH_NO_U, g, H); break;
                case 2: sink += rc__sh_bend_tri(xl, xf, mask, pl, tris + 3 * t, ul, &c, flags[mode], g, H); break;
                case 3: sink += rc__sh_bend_tri(xl, xf, mask, pl, tris + 3 * t, ul, &c, flags[mode] | RC__SH_NO_U, g, H); break;
                case 4:
                    for (k = 0; k < 3; ++k) { u0l[2 * k] = u0[2 * tris[3 * t + k]]; u0l[2 * k + 1] = u0[2 * tris[3 * t + k] + 1]; }
                    rc__mips_dminv(u0l, Dm);
                    sink += rc__mips_tri(ul, Dm, 1.0, 2.05, flags[mode], g, H);
                    break;
                default: {
                    double Gm[18] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}, grav[3] = {0, 0, -9.81};
                    sink += rc__inertia_tri(xl, ul, xl, Gm, 0.15, 0.01, grav, NULL, flags[mode], g, H);
                }
                }
                sink += (flags[mode] & RC__SH_HESS) ? H[0] : (flags[mode] & RC__SH_GRAD) ? g[0] : 0.0;
            }
            dt = now() - t0;
            printf(" %10.0f", 1e9 * dt / cnt);
            fflush(stdout);
        }
        printf("\n");
    }
    {
        double t0 = now(), S, B;
        double *gx = (double *)malloc(sizeof(double) * 3 * (size_t)nv), *gu = (double *)malloc(sizeof(double) * 2 * (size_t)nv);
        rc_status st = rc_shell_energy(&m, x, u, NULL, &mat, &S, &B, gx, gu);
        printf("rc_shell_energy (phi minimised, with gradients): %.3f s, status %s\n", now() - t0, rc_status_string(st));
        {
            double *phi = (double *)calloc((size_t)E.ne, sizeof(double)), *geo = (double *)malloc(sizeof(double) * 18 * (size_t)nt);
            int sweeps;
            t0 = now();
            sweeps = rc__sh_minimise_phi(&m, &E, x, u, &c, geo, phi);
            printf("  angle minimisation from phi = 0: %d Gauss-Seidel sweeps, %.3f s\n", sweeps, now() - t0);
            free(phi); free(geo);
        }
        free(gx); free(gu);
    }
    printf("(checksum %g)\n", sink);
    rc__sh_free_edges(NULL, &E);
    free(tris); free(u); free(x); free(u0);
    return 0;
}
