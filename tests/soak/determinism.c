/* tests/soak/determinism.c - `make determinism` (built with -fopenmp): the same scene run with 1
   and with 2 OpenMP threads (omp_set_num_threads) gives bit-identical positions, velocities and
   director angles, in fixed and adaptive mode. Parallel loops must therefore not reorder any
   floating-point sum (per-element results, summed in a fixed order). */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* a 12x12 sheet, two pins, a sphere moving up into it: contact, friction, bending */
static int run(int threads, int adaptive, int steps, double *out, size_t *n_out)
{
    rc_mesh g;
    rc_sim_def d;
    rc_sim *s = NULL;
    double c[3] = { 0.25, 0.25, 0.3 }, t[3] = { 0, 0, 0 };
    int i, k, id = -1, ok = 1;
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    if (rc_mesh_grid(&g, 0.5, 0.5, 12, 12, RC_DIAG_RANDOM + 5) != RC_OK) return 0;
    for (i = 0; i < g.num_verts; ++i) g.pos[3 * i + 2] = 0.5;
    d = rc_default_sim_def();
    d.mesh = rc_mesh_describe(&g);
    d.adaptive = adaptive;
    d.itr_max_outer = 20;
    d.num_threads = threads;
    if (rc_sim_create(&d, &s) != RC_OK) { rc_mesh_free(&g); return 0; }
    ok = rc_sim_add_sphere(s, c, 0.1, &id) == RC_OK && rc_sim_pin(s, 0, g.pos) == RC_OK &&
         rc_sim_pin(s, 11, g.pos + 33) == RC_OK;
    for (k = 0; ok && k < steps; ++k) {
        t[2] = 0.01 * k;
        ok = rc_sim_move_obstacle(s, id, t, NULL) == RC_OK && rc_sim_step(s, NULL) == RC_OK;
    }
    if (ok) {
        size_t nv = (size_t)rc_sim_num_verts(s), ne = (size_t)rc_sim_num_edges(s);
        memcpy(out, rc_sim_positions(s), sizeof(double) * 3 * nv);
        memcpy(out + 3 * nv, rc_sim_velocities(s), sizeof(double) * 3 * nv);
        memcpy(out + 6 * nv, rc_sim_directors(s), sizeof(double) * ne);
        *n_out = 6 * nv + ne;
    }
    rc_sim_destroy(s);
    rc_mesh_free(&g);
    return ok;
}

int main(void)
{
    static double a[6 * 144 + 3 * 2 * 144], b[6 * 144 + 3 * 2 * 144];
    int adaptive, fails = 0;
#ifndef _OPENMP
    printf("determinism: built without OpenMP, nothing to compare\n");
#endif
    for (adaptive = 0; adaptive <= 1; ++adaptive) {
        size_t na = 0, nb = 0, i;
        int steps = adaptive ? 4 : 20;
        int oka = run(1, adaptive, steps, a, &na), okb = run(2, adaptive, steps, b, &nb);
        if (!oka || !okb || na != nb) { printf("determinism: adaptive %d: a run failed\n", adaptive); ++fails; continue; }
        for (i = 0; i < na; ++i) if (memcmp(a + i, b + i, sizeof(double)) != 0) break;
        if (i < na) { printf("determinism: adaptive %d: 1 vs 2 threads differ at %zu (%.17g vs %.17g)\n", adaptive, i, a[i], b[i]); ++fails; }
        else printf("determinism: adaptive %d: %d steps, %zu values bit-identical with 1 and 2 threads\n", adaptive, steps, na);
    }
    return fails ? 1 : 0;
}
