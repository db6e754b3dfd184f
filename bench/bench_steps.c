/* bench/bench_steps.c - the same step problems solved by two builds of the header.

   A change to the solver moves an adaptive trajectory from its first steps (round-off is enough),
   so two builds stepped side by side soon solve different problems and their times mix the
   change with the trajectory. This driver separates them: `save` steps a CLI scene
   (examples/common/scenes.h) and writes the state (rc_sim_save_state) after every EVERY-th step;
   `solve` loads each saved state in turn and takes one step from it, printing per problem the CPU
   seconds, iterations, incremental potential and flags, and a total. Build it against each header
   and run `solve` on one file with both (states are plain doubles; the layout is the header's
   rc_sim_state_size, the same in builds that did not change the state).

   Usage: build/bench_steps save  SCENE ADAPTIVE VERTS STEPS EVERY FILE
          build/bench_steps solve SCENE ADAPTIVE VERTS FILE
          (VERTS 0 = the scene's default size; one thread). The scene's animation (moving pins or
          obstacles) is posed at the loaded state's time before each step. */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include "../examples/common/scenes.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    sc_params p = sc_default_params();
    sc_scene sc;
    rc_step_stats st;
    const sc_info *info = argc > 2 ? sc_find_scene(argv[2]) : NULL;
    int save = argc > 1 && !strcmp(argv[1], "save"), k, ok = 1;
    size_t n;
    double *buf;
    FILE *f;
    if (!info || (save ? argc != 8 : argc != 6 || strcmp(argv[1], "solve"))) {
        fprintf(stderr, "usage: %s save SCENE ADAPTIVE VERTS STEPS EVERY FILE | %s solve SCENE ADAPTIVE VERTS FILE\n", argv[0], argv[0]);
        return 2;
    }
    p.adaptive = atoi(argv[3]) != 0;
    p.verts = atoi(argv[4]);
    p.threads = 1;
    if (p.verts < 0 || sc_create(&sc, info, &p) != RC_OK) { fprintf(stderr, "%s: create failed\n", argv[2]); return 1; }
    n = rc_sim_state_size(sc.sim);
    buf = (double *)malloc(sizeof(double) * n);
    f = buf ? fopen(argv[save ? 7 : 5], save ? "wb" : "rb") : NULL;
    if (!f) { fprintf(stderr, "cannot open %s\n", argv[save ? 7 : 5]); free(buf); sc_destroy(&sc); return 1; }
    if (save) {
        int steps = atoi(argv[5]), every = atoi(argv[6]), saved = 0;
        for (k = 1; k <= steps && every > 0; ++k) {
            rc_status rs = sc_step(&sc, &st);
            if (rs != RC_OK) { fprintf(stderr, "step %d: %s\n", k, rc_sim_last_error(sc.sim)); ok = 0; break; }
            if (k % every == 0) {
                rc_sim_save_state(sc.sim, buf);
                ok = fwrite(buf, sizeof(double), n, f) == n;
                saved += ok;
                if (!ok) break;
            }
        }
        printf("%s, %s, %d states saved to %s\n", argv[2], p.adaptive ? "adaptive" : "fixed", saved, argv[7]);
    } else {
        double total = 0.0;
        long iters = 0;
        int np = 0, nconv = 0, ncross = 0, nfail = 0;
        printf("%s, %s, step problems from %s\n", argv[2], p.adaptive ? "adaptive" : "fixed", argv[5]);
        while (fread(buf, sizeof(double), n, f) == n) {
            clock_t c0;
            double c;
            rc_status rs = rc_sim_load_state(sc.sim, buf);
            np++;
            if (rs != RC_OK) { printf("problem %d: load failed: %s\n", np, rc_sim_last_error(sc.sim)); ok = 0; break; }
            /* pose the animation at the state's time first, so that sc_step moves pins and
               obstacles over this step from there (as along the saved trajectory) and not from
               the previous problem's pose */
            sc.time = rc_sim_time(sc.sim);
            if (sc.info->animate) sc.info->animate(&sc, sc.time);
            c0 = clock();
            rs = sc_step(&sc, &st);
            c = (double)(clock() - c0) / CLOCKS_PER_SEC;
            if (rs != RC_OK) { printf("problem %2d: %s (%s)\n", np, rc_status_string(rs), rc_sim_last_error(sc.sim)); nfail++; continue; }
            total += c;
            iters += p.adaptive ? st.outer_iters + st.inner_iters : st.newton_iters;
            nconv += st.converged;
            ncross += st.self_crossed;
            printf("problem %2d: %7.3f s cpu, %s %3d, inner %3d, IP %.9e -> %.9e, conv %d%s | asm %.2f fac %.2f sol %.2f ls %.2f, "
                   "patterns %d\n", np, c, p.adaptive ? "outer" : "newton", p.adaptive ? st.outer_iters : st.newton_iters, st.inner_iters,
                   st.ip_start, st.ip_end, st.converged, st.self_crossed ? " SELF-CROSSED" : "", st.t_assemble, st.t_factor, st.t_solve,
                   st.t_line_search, st.pattern_rebuilds);
        }
        printf("TOTAL %d problems: %.2f s cpu, %s %ld, converged %d, failed %d, self-crossed %d\n", np, total,
               p.adaptive ? "outer + inner" : "newton", iters, nconv, nfail, ncross);
    }
    fclose(f);
    free(buf);
    sc_destroy(&sc);
    return ok ? 0 : 1;
}
