/* bench/bench_self.c - cloth self-contact (issue 6) benchmarks. Single thread.

   Sections (give any subset as arguments; none = both):
     overhead   10k-vertex sheet (100 x 100 grid, 1 m) released 2 mm above a sphere (r 0.25 m): no
                cloth-cloth proximity. The same steps with def.self_contact = 0 and 1, run
                alternately from the same start (off, on, off, on, ...) so load drift on the shared
                machine hits both; prints s/step and the ratio on/off (bar: <= 1.30).
     fold       the multi-layer fold (tests/test_sim.c test_sim_self_fold, at 150 vertices and a
                finer 333-vertex strip): a strip whose standing half collapses onto the crease and its
                lower half on the ground, folding into a pile of several layers; share of the step time in the self-contact broad phase, narrow phase
                and CCD (rc_step_stats t_broad_phase, t_narrow_phase, t_ccd).
   Options: --steps N (overhead: timed steps per setting, default 2)

   Usage: build/bench_self [sections] [options]      (make bench-self [BENCH_SELF_ARGS=...]) */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "bench_scenes.h"
#include "../examples/common/scenes.h"   /* sc_fold_create (scenes.c is linked in) */

static rc_sim *make_sphere_drape(int n, int self_contact)
{
    return bench_sphere_drape(n, 0, self_contact, 1, -1.0);
}

static void bench_overhead(int steps)
{
    rc_sim *s[2];
    int k, o, n = 100, iters[2] = { 0, 0 };
    double t[2] = { 0, 0 }, bp = 0, np = 0, ccd = 0;
    printf("== overhead: %d x %d sheet over a sphere, no cloth-cloth proximity, %d steps per setting, 1 thread\n", n, n, steps);
    for (o = 0; o < 2; ++o) {
        s[o] = make_sphere_drape(n, o);
        if (!s[o]) { printf("  create failed\n"); return; }
    }
    for (k = 0; k < steps; ++k)
        for (o = 0; o < 2; ++o) {
            rc_step_stats st;
            rc_status rs = rc_sim_step(s[o], &st);
            if (rs != RC_OK) { printf("  step failed: %s\n", rc_status_string(rs)); return; }
            printf("  step %d self_contact %d: %.3f s, newton %d, conv %d, min self distance %.3g m, broad %.3f s, narrow %.3f s, ccd %.3f s\n",
                   k + 1, o, st.t_total, st.newton_iters, st.converged, st.min_self_distance, st.t_broad_phase, st.t_narrow_phase, st.t_ccd);
            t[o] += st.t_total;
            iters[o] += st.newton_iters;
            if (o) { bp += st.t_broad_phase; np += st.t_narrow_phase; ccd += st.t_ccd; }
        }
    printf("  | self_contact | s/step | Newton it/step |\n  |---|---|---|\n");
    for (o = 0; o < 2; ++o) printf("  | %d | %.3f | %.1f |\n", o, t[o] / steps, (double)iters[o] / steps);
    printf("  ratio on/off: %.3f (bar <= 1.30); with self-contact on, broad phase %.1f%%, narrow %.1f%%, ccd %.1f%% of the step\n",
           t[1] / t[0], 100 * bp / t[1], 100 * np / t[1], 100 * ccd / t[1]);
    rc_sim_destroy(s[0]); rc_sim_destroy(s[1]);
}

/* the fold strip of sc_fold_create (the fold test and CLI scene): 0.6 x 0.12 m, nx x ny grid,
   left half on the ground, right half standing up from the middle line leaning 10 degrees back */
static void bench_fold(int nx, int ny, int steps)
{
    rc_sim *s = NULL;
    double t = 0, bp = 0, np = 0, ccd = 0, as = 0, fa = 0, so = 0, ls = 0, dmin = HUGE_VAL;
    int k, it = 0, reb = 0;
    if (sc_fold_create(nx, ny, 1, 0, &s) != RC_OK) { printf("  create failed\n"); return; }
    printf("== fold: %d x %d strip (%d vertices), %d steps (collapse over by ~step 25), 1 thread\n", nx, ny, rc_sim_num_verts(s), steps);
    for (k = 0; k < steps; ++k) {
        rc_step_stats st;
        rc_status rs = rc_sim_step(s, &st);
        if (rs != RC_OK) { printf("  step %d failed: %s (%s)\n", k + 1, rc_status_string(rs), rc_sim_last_error(s)); break; }
        t += st.t_total; bp += st.t_broad_phase; np += st.t_narrow_phase; ccd += st.t_ccd;
        as += st.t_assemble; fa += st.t_factor; so += st.t_solve; ls += st.t_line_search;
        it += st.newton_iters; reb += st.pattern_rebuilds;
        if (st.min_self_distance < dmin) dmin = st.min_self_distance;
    }
    printf("  %.2f s total, %.3f s/step, %.1f Newton it/step, %d pattern rebuilds, min self distance %.3f mm\n",
           t, t / steps, (double)it / steps, reb, 1e3 * dmin);
    printf("  | phase | s | share of step time |\n  |---|---|---|\n");
    printf("  | self broad phase (spatial hash) | %.3f | %.1f%% |\n", bp, 100 * bp / t);
    printf("  | self narrow phase (distances, barriers, derivatives) | %.3f | %.1f%% |\n", np, 100 * np / t);
    printf("  | self CCD (ACCD of candidates) | %.3f | %.1f%% |\n", ccd, 100 * ccd / t);
    printf("  (overlapping totals, for scale: assemble %.1f%%, factor %.1f%%, solve %.1f%%, line search %.1f%%)\n",
           100 * as / t, 100 * fa / t, 100 * so / t, 100 * ls / t);
    rc_sim_destroy(s);
}

int main(int argc, char **argv)
{
    int i, any = 0, do_over = 0, do_fold = 0, steps = 2;
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "overhead")) { do_over = 1; any = 1; }
        else if (!strcmp(argv[i], "fold")) { do_fold = 1; any = 1; }
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else { printf("unknown argument %s\n", argv[i]); return 1; }
    }
    if (!any) do_over = do_fold = 1;
    if (do_fold) { bench_fold(25, 6, 40); bench_fold(37, 9, 40); }
    if (do_over) bench_overhead(steps);
    return 0;
}
