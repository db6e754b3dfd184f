/* tests/soak/soak.c - long-run robustness (issue 8; `make soak`, not part of `make test`).
   A 9x9 cotton sheet (0.5 m) held by four corner pins that random-walk, a sphere sweeping through
   it fast (up to about 4 m/s) and a box spinning about z while it bobs up and down below it, with
   a large step (dt = 0.02 s). After every step it asserts:
     - every position, velocity and director angle is finite;
     - no vertex is inside an obstacle, by the exact geometry (sphere: |x - c| > r; box: the
       point in the box's frame is outside the half extents), at the obstacle's end-of-step pose;
     - no reference triangle is inverted (signed uv area > 0);
     - the energy stays bounded: stretch + bend + kinetic below 5 J (the sheet weighs 37.5 g;
       lifting it 1 m is 0.37 J, the pins and obstacles bring at most a few times that).
   A step that returns an error is allowed (the state must then be unchanged) but counted; more
   than 1% failed steps fails the soak. Usage: soak [steps=10000] [adaptive=0] [seed=1] */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long soak_state = 88172645463325252ULL;
static double soak_rand(void)   /* uniform in [0, 1) */
{
    soak_state ^= soak_state << 13; soak_state ^= soak_state >> 7; soak_state ^= soak_state << 17;
    return (double)(soak_state >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 10000, k, failed = 0;
    int adaptive = argc > 2 ? atoi(argv[2]) : 0;
    const int N = 9, corners[4] = { 0, 8, 72, 80 };
    rc_mesh g;
    rc_sim_def d;
    rc_sim *s = NULL;
    double base[4][3], pin[4][3], sph_r = 0.08, box_half[3] = { 0.12, 0.04, 0.04 }, min_gap = HUGE_VAL;
    double sph0[3] = { 0.25, 0.25, 0.0 }, box0[3] = { 0.25, 0.25, -0.45 }, E_max = 0.0;
    int sph = -1, box = -1, i, c, nv, nt, errors = 0;
    double *saved;
    long newton = 0, substeps = 0, unconverged = 0;
    rc_step_stats stats;
    clock_t t0;
    if (argc > 3) soak_state += (unsigned long long)atol(argv[3]) * 0x9E3779B97F4A7C15ULL;
    if (rc_mesh_grid(&g, 0.5, 0.5, N, N, RC_DIAG_ALTERNATING) != RC_OK) return 1;
    for (i = 0; i < g.num_verts; ++i) g.pos[3 * i + 2] = 0.5;
    d = rc_default_sim_def();
    d.mesh = rc_mesh_describe(&g);
    d.dt = 0.02;
    d.adaptive = adaptive;
    d.itr_max_outer = 30;
    if (rc_sim_create(&d, &s) != RC_OK) { printf("create failed\n"); return 1; }
    nv = rc_sim_num_verts(s);
    nt = rc_sim_num_tris(s);
    if (rc_sim_add_sphere(s, sph0, sph_r, &sph) != RC_OK || rc_sim_add_box(s, box0, box_half, &box) != RC_OK) return 1;
    for (c = 0; c < 4; ++c) {
        for (i = 0; i < 3; ++i) base[c][i] = pin[c][i] = g.pos[3 * corners[c] + i];
        rc_sim_pin(s, corners[c], pin[c]);
    }
    saved = (double *)malloc(sizeof(double) * rc_sim_state_size(s));
    if (!saved) return 1;
    t0 = clock();
    for (k = 0; k < steps && errors < 20; ++k) {
        double t = (k + 1) * d.dt, st[3], R[9], bt[3], a = 3.0 * t, ca = cos(a), sa = sin(a);
        double S = 0, B = 0, G = 0, K = 0, mass_v = 0.5 * 0.5 * 500 * 3e-4 / nv;
        const double *x, *v, *u;
        rc_status rs;
        /* pins: random walk within 5 cm of their start, at most 1 cm per step */
        for (c = 0; c < 4; ++c) {
            for (i = 0; i < 3; ++i) {
                pin[c][i] += 0.01 * (2.0 * soak_rand() - 1.0);
                if (pin[c][i] > base[c][i] + 0.05) pin[c][i] = base[c][i] + 0.05;
                if (pin[c][i] < base[c][i] - 0.05) pin[c][i] = base[c][i] - 0.05;
            }
            rc_sim_pin(s, corners[c], pin[c]);
        }
        /* sphere: a circle of radius 0.12 m in x-y at 5 rad/s, bobbing through the sheet in z
           (0.1 .. 0.5 below the start plane + 0.0 .. 0.4): speed up to ~ 4 m/s */
        st[0] = 0.12 * cos(5.0 * t); st[1] = 0.12 * sin(5.0 * t); st[2] = 0.3 + 0.25 * sin(7.0 * t);
        rc_sim_move_obstacle(s, sph, st, NULL);
        /* box: spins about z at 3 rad/s (about its own centre) and bobs 0..0.5 m up */
        R[0] = ca; R[1] = -sa; R[2] = 0; R[3] = sa; R[4] = ca; R[5] = 0; R[6] = 0; R[7] = 0; R[8] = 1;
        bt[0] = box0[0] - (ca * box0[0] - sa * box0[1]);
        bt[1] = box0[1] - (sa * box0[0] + ca * box0[1]);
        bt[2] = 0.25 + 0.25 * sin(2.0 * t);
        rc_sim_move_obstacle(s, box, bt, R);
        rc_sim_save_state(s, saved);
        rs = rc_sim_step(s, &stats);
        if (rs == RC_OK) { newton += stats.newton_iters; substeps += stats.substeps; unconverged += !stats.converged; }
        x = rc_sim_positions(s); v = rc_sim_velocities(s); u = rc_sim_reference(s);
        if (rs != RC_OK) {
            ++failed;
            if (failed <= 5) printf("step %ld: %s (%s)\n", k, rc_status_string(rs), rc_sim_last_error(s));
            for (i = 0; i < 3 * nv; ++i) if (x[i] != saved[RC_SIM_STATE_HEADER + i]) break;
            if (i < 3 * nv) { printf("step %ld: failed step changed the state\n", k); ++errors; }
            continue;
        }
        for (i = 0; i < 3 * nv; ++i)
            if (!rc__isfinite(x[i]) || !rc__isfinite(v[i])) { printf("step %ld: non-finite state at %d\n", k, i); ++errors; break; }
        for (i = 0; i < rc_sim_num_edges(s); ++i)
            if (!rc__isfinite(rc_sim_directors(s)[i])) { printf("step %ld: non-finite director\n", k); ++errors; break; }
        for (i = 0; i < nv; ++i) {
            const double *p = x + 3 * i;
            double dx = p[0] - (sph0[0] + st[0]), dy = p[1] - (sph0[1] + st[1]), dz = p[2] - (sph0[2] + st[2]);
            double ds = sqrt(dx * dx + dy * dy + dz * dz) - sph_r, q[3], db;
            /* box frame: q = R^T (p - R c0 - t) */
            double w[3];
            w[0] = p[0] - (ca * box0[0] - sa * box0[1] + bt[0]);
            w[1] = p[1] - (sa * box0[0] + ca * box0[1] + bt[1]);
            w[2] = p[2] - (box0[2] + bt[2]);
            q[0] = ca * w[0] + sa * w[1]; q[1] = -sa * w[0] + ca * w[1]; q[2] = w[2];
            db = fabs(q[0]) - box_half[0];
            if (fabs(q[1]) - box_half[1] > db) db = fabs(q[1]) - box_half[1];
            if (fabs(q[2]) - box_half[2] > db) db = fabs(q[2]) - box_half[2];
            if (ds < min_gap) min_gap = ds;
            if (db < min_gap) min_gap = db;
            if (ds <= 0.0 || db <= 0.0) { printf("step %ld: vertex %d inside %s (%g)\n", k, i, ds <= 0 ? "sphere" : "box", ds <= 0 ? ds : db); ++errors; break; }
        }
        for (i = 0; i < nt; ++i) {
            const int *tr = rc_sim_tris(s) + 3 * i;
            const double *a0 = u + 2 * tr[0], *b0 = u + 2 * tr[1], *c0 = u + 2 * tr[2];
            double A = (b0[0] - a0[0]) * (c0[1] - a0[1]) - (c0[0] - a0[0]) * (b0[1] - a0[1]);
            if (!(A > 0.0)) { printf("step %ld: reference triangle %d inverted (2A = %g)\n", k, i, A); ++errors; break; }
        }
        rc_sim_potential(s, &S, &B, &G);
        for (i = 0; i < 3 * nv; ++i) K += 0.5 * mass_v * v[i] * v[i];
        if (!(S + B + K < 5.0)) { printf("step %ld: energy %g (stretch %g bend %g kinetic %g)\n", k, S + B + K, S, B, K); ++errors; }
        if (S + B + K > E_max) E_max = S + B + K;
        if ((k + 1) % 1000 == 0) { printf("  %ld steps, %.1f s\n", k + 1, (double)(clock() - t0) / CLOCKS_PER_SEC); fflush(stdout); }
    }
    {
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("soak: %ld steps (adaptive %d), %ld failed steps, %.2f s CPU (%.2f ms/step), min gap %.3g m, max energy %.3g J\n",
               k, adaptive, failed, secs, 1e3 * secs / (k ? k : 1), min_gap, E_max);
        printf("soak: %.1f Newton iterations and %.2f substeps per step, %ld steps ended unconverged (at a cap)\n",
               (double)newton / (k ? k : 1), (double)substeps / (k ? k : 1), unconverged);
    }
    if (failed * 100 > steps) { printf("soak: more than 1%% of the steps failed\n"); ++errors; }
    free(saved);
    rc_sim_destroy(s);
    rc_mesh_free(&g);
    printf(errors ? "soak: FAILED\n" : "soak: ok\n");
    return errors ? 1 : 0;
}
