/* bench/bench_scene.c - one CLI scene (examples/common/scenes.h) stepped N times through sc_step,
   one thread unless told otherwise: one line per step (with the solver's time split from rc_step_stats: assembly,
   factorizations, solves, line searches, seconds; linear solves, CG iterations on a reused factor,
   reused factors) and a summary with CPU seconds (total, median and slowest step), outer and inner
   iterations, unconverged steps, and the active rate over the outer iterations after the fifth of
   each step (the measure of issue 5's active-rate bar), and a table of the active rate by outer
   iteration index over all steps. The driver behind the 100-step figures of
   bench/RESULTS.md section 5.

   Usage: build/bench_scene [scene] [steps] [verts] [adaptive] [threads] [thickness] [quality weight] [dt] [travel weight]
          (defaults: sphere_drape 100 0 1 1; verts 0 = the scene's default size, adaptive 0 = fixed;
          thickness in metres, 0 = the scene's material, as the CLI's --thickness;
          threads > 1 needs an OpenMP build, e.g. make bench-scene-omp; CPU seconds then add up
          over the threads, so the summary also gives the steps' rc_step_stats.t_total, which is
          wall time in an OpenMP build and CPU time without one)
          make bench-scene BENCH_SCENE_ARGS="sphere_drape 100 1024 1" */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include "../examples/common/scenes.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "sphere_drape";
    int steps = argc > 2 ? atoi(argv[2]) : 100, verts = argc > 3 ? atoi(argv[3]) : 0, adaptive = argc > 4 ? atoi(argv[4]) : 1;
    int threads = argc > 5 ? atoi(argv[5]) : 1;
    double thickness = argc > 6 ? atof(argv[6]) : 0.0;
    double qweight = argc > 7 ? atof(argv[7]) : -1.0;   /* the regulariser's weight (< 0: the default) */
    double dt = argc > 8 ? atof(argv[8]) : 0.0;          /* time step (0: the scene's) */
    double tweight = argc > 9 ? atof(argv[9]) : -1.0;    /* the travel term's weight (< 0: the default) */
    const sc_info *info = sc_find_scene(name);
    sc_params p = sc_default_params();
    sc_scene sc;
    rc_step_stats st;
    double cpu = 0.0, wall = 0.0, late = 0.0, *times, by_iter[16] = { 0 };   /* active rate by outer iteration */
    int n_iter[16] = { 0 };
    long outer = 0, inner = 0;
    int k, done = 0, unconverged = 0, nlate = 0, crossed = 0, kept = 0;
    if (!info || steps < 1 || verts < 0 || threads < 1 || !(thickness >= 0.0) || !(dt >= 0.0)) {
        fprintf(stderr, "usage: %s [scene] [steps >= 1] [verts >= 0] [adaptive 0/1] [threads >= 1] [thickness m >= 0] [quality weight, 0 = regulariser off, < 0 default] [dt s, 0 = default] [travel weight, 0 = off, < 0 default]\n", argv[0]);
        return 2;
    }
    p.verts = verts;
    p.adaptive = adaptive != 0;
    p.threads = threads;
    p.thickness = thickness;
    p.quality_weight = qweight;
    p.travel_weight = tweight;
    p.dt = dt;
    if (sc_create(&sc, info, &p) != RC_OK) { fprintf(stderr, "%s: create failed\n", name); return 1; }
    times = (double *)malloc(sizeof(double) * (size_t)steps);
    if (!times) { sc_destroy(&sc); return 1; }
    printf("%s, %s, %d steps, %d thread(s)", name, adaptive ? "adaptive" : "fixed", steps, threads);
    if (thickness > 0.0) printf(", thickness %g m", thickness);
    printf("\n");
    for (k = 0; k < steps; ++k) {
        clock_t c0 = clock();
        rc_status rs = sc_step(&sc, &st);
        double c = (double)(clock() - c0) / CLOCKS_PER_SEC, l = 0.0;
        int j, nl = 0;
        char sub[32] = "";
        if (rs != RC_OK) { printf("step %d: %s (%s)\n", k + 1, rc_status_string(rs), rc_sim_last_error(sc.sim)); break; }
        if (st.substeps > 1) sprintf(sub, " substeps %d", st.substeps);
        wall += st.t_total;
        for (j = 5; st.active_rate_per_iter && j < st.num_active_rates; ++j, ++nl) l += st.active_rate_per_iter[j];
        for (j = 0; st.active_rate_per_iter && j < st.num_active_rates; ++j) {   /* iterations 16+ pooled in the last bin */
            by_iter[j < 15 ? j : 15] += st.active_rate_per_iter[j];
            n_iter[j < 15 ? j : 15]++;
        }
        times[done++] = c;
        cpu += c; outer += adaptive ? st.outer_iters : st.newton_iters; inner += adaptive ? st.inner_iters : 0;
        unconverged += !st.converged; late += l; nlate += nl; crossed += st.self_crossed; kept += st.kept_start;
        printf("step %3d: %.3f s cpu, IP %.9e -> %.9e, %s %3d, inner %3d, conv %d, active %.2f, after 5 outer its %s%.2f | asm %.2f fac %.2f sol %.2f ls %.2f lin %d cg %d reuse %d%s%s\n", k + 1, c,
               st.ip_start, st.ip_end, adaptive ? "outer" : "newton", adaptive ? st.outer_iters : st.newton_iters, st.inner_iters,
               st.converged, st.active_rate, nl ? "" : "(none) ", nl ? l / nl : 0.0, st.t_assemble, st.t_factor, st.t_solve,
               st.t_line_search, st.linear_solves, st.cg_iters, st.factor_reuses, sub, st.self_crossed ? " SELF-CROSSED" : "");
        fflush(stdout);
    }
    if (done) {
        qsort(times, (size_t)done, sizeof(double), cmp_double);
        double median = done % 2 ? times[done / 2] : 0.5 * (times[done / 2 - 1] + times[done / 2]);
        printf("TOTAL %d steps: %.2f s cpu (%.3f s/step, median %.3f, slowest %.3f), %s %ld, inner %ld, unconverged %d (%d kept their start), self-crossed %d, final IP %.9e,"
               " active rate after the 5th outer iteration %.3f over %d iterations; wall %.2f s (%.3f s/step)\n",
               done, cpu, cpu / done, median, times[done - 1], adaptive ? "outer" : "newton", outer, inner, unconverged, kept, crossed,
               st.ip_end, nlate ? late / nlate : 0.0, nlate, wall, wall / done);
        if (adaptive) {
            int j;
            printf("active rate by outer iteration index (mean, and the number of outer iterations with that index):\n");
            for (j = 0; j < 16; ++j)
                if (n_iter[j]) printf("  %s%2d: %.3f (%d)\n", j < 15 ? "" : ">=", j + 1, by_iter[j] / n_iter[j], n_iter[j]);
        }
    }
    free(times);
    sc_destroy(&sc);
    return done == steps ? 0 : 1;
}
