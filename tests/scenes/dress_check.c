/* tests/scenes/dress_check.c - runs the dress scene (examples/common/scenes.c) to the end and checks
   the cloth after EVERY step with exact geometry (tests/scenes/dress_check.h), independent of the
   simulator's barrier: no cloth vertex inside the body or a leg (closed meshes; the legs tessellate
   capsules), no cloth edge crossing a body or leg triangle (nor a body or leg edge a cloth
   triangle), no cloth-cloth crossing, no NaN; for information also how deep cloth vertices and
   edges reach into the legs' ideal (continuous) capsules ("edge dip vs the capsule"); failed steps (rc_sim_step != RC_OK) are counted. Prints one line per frame and a verdict;
   exit status 0 = pass, 1 = fail.

   build/dress_check [--adaptive|--fixed] [--verts N] [--frames N] [--dt S] [--t0 S] [--threads N]
                     [--tol T] [--keep-going]
   make dress-check [DRESS_ARGS="..."] */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include "../../examples/common/scenes.h"
#include "dress_check.h"
#include <stdio.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static void report_line(const char *what, const dc_report *r)
{
    printf("%s: nan %d | legs (mesh): inside %d, crossings %d, min dist %.3f mm | body: inside %d, crossings %d, min dist %.3f mm"
           " | self: crossings %d, min dist %.3f mm | info, depth inside the ideal leg capsules: vertices %.3f mm, edge dip %.3f mm\n",
           what, r->nan, r->leg_inside, r->leg_cross, 1e3 * r->leg_gap, r->mesh_inside, r->mesh_cross, 1e3 * r->mesh_gap,
           r->self_cross, 1e3 * r->self_gap, 1e3 * r->leg_vdip, 1e3 * r->leg_edip);
    if (r->cap_inside > 0) printf("  analytic capsules (none in the dress now): %d vertices inside\n", r->cap_inside);
}

int main(int argc, char **argv)
{
    const sc_info *info = sc_find_scene("dress");
    sc_params p = sc_default_params();
    sc_scene sc;
    dc_report r, worst;
    int frames = -1, keep_going = 0, verbose = 0, i, f, failed = 0, bad_steps = 0, steps_per_frame, total_steps = 0;
    int newton_total = 0, outer_total = 0, unconverged = 0, substeps = 0;
    double t_asm = 0.0, t_fac = 0.0, t_sol = 0.0, t_ls = 0.0, t_bp = 0.0, t_np = 0.0, t_ccd = 0.0;
    double band = 0.02, t_all = 0.0, t_check = 0.0;
    rc_status st;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--adaptive")) p.adaptive = 1;
        else if (!strcmp(argv[i], "--fixed")) p.adaptive = 0;
        else if (!strcmp(argv[i], "--keep-going")) keep_going = 1;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--verts")) p.verts = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--frames")) frames = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--dt")) p.dt = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--t0")) p.t0 = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--threads")) p.threads = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--tol")) p.tol = atof(argv[++i]);
        else { fprintf(stderr, "usage: %s [--adaptive|--fixed] [--verts N] [--frames N] [--dt S] [--t0 S] [--threads N] [--tol T] [--keep-going] [--verbose]\n", argv[0]); return 2; }
    }
    if (!info) { fprintf(stderr, "no dress scene\n"); return 2; }
    if (frames < 0) frames = (int)floor((2.4 - p.t0) / info->frame_time + 0.5);
#ifdef _OPENMP
    if (p.threads > 0) omp_set_num_threads(p.threads);
#endif
    st = sc_create(&sc, info, &p);
    if (st != RC_OK) { fprintf(stderr, "sc_create: %s\n", rc_status_string(st)); return 1; }
    steps_per_frame = (int)floor(info->frame_time / sc.def.dt + 0.5);
    if (steps_per_frame < 1) steps_per_frame = 1;
    printf("dress check: %s, %d verts, %d tris, %d pins, dt %.4g s, %d steps/frame, %d frames from t = %.2f s, warning: %s\n",
           p.adaptive ? "adaptive" : "fixed", rc_sim_num_verts(sc.sim), rc_sim_num_tris(sc.sim), sc.npins, sc.def.dt,
           steps_per_frame, frames, sc.time, rc_sim_last_warning(sc.sim)[0] ? rc_sim_last_warning(sc.sim) : "none");
    if (dc_check(&sc, band, &r) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
    report_line("start", &r);
    worst = r;
    if (dc_bad(&r)) printf("START STATE INVALID\n");
    for (f = 0; f < frames && (!failed || keep_going); f++) {
        double t_frame = 0.0, fmin_leg = band, fmin_mesh = band, fmin_self = band, fdip = 0.0;
        int fbad = 0, fnewton = 0, fouter = 0, k;
        for (k = 0; k < steps_per_frame; k++) {
            rc_step_stats ss;
            double t0 = now(), t1;
            st = sc_step(&sc, &ss);
            t1 = now();
            t_frame += t1 - t0;
            total_steps++;
            if (st != RC_OK) {
                failed++;
                printf("  step %d (t = %.3f s) FAILED: %s (%s)\n", total_steps, sc.time + sc.def.dt, rc_status_string(st), rc_sim_last_error(sc.sim));
                if (!keep_going) break;
                sc.time += sc.def.dt;   /* skip it: the rig moves on (the next step sees a larger jump) */
                continue;
            }
            fnewton += ss.newton_iters; fouter += ss.outer_iters;
            if (verbose)
                printf("  step %d t %.3f: newton %d outer %d substeps %d conv %d  min obstacle %.3f self %.3f mm  e_contact %.3g  %.2f s\n",
                       total_steps, sc.time, ss.newton_iters, ss.outer_iters, ss.substeps, ss.converged, 1e3 * ss.min_contact_distance,
                       1e3 * ss.min_self_distance, ss.e_contact, ss.t_total);
            unconverged += !ss.converged; substeps += ss.substeps > 1;
            t_asm += ss.t_assemble; t_fac += ss.t_factor; t_sol += ss.t_solve; t_ls += ss.t_line_search;
            t_bp += ss.t_broad_phase; t_np += ss.t_narrow_phase; t_ccd += ss.t_ccd;
            if (dc_check(&sc, band, &r) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
            t_check += now() - t1;
            if (dc_bad(&r)) {
                fbad++; bad_steps++;
                printf("  step %d (t = %.3f s) ", total_steps, sc.time);
                report_line("INTERSECTION", &r);
            }
            if (r.leg_gap < fmin_leg) fmin_leg = r.leg_gap;
            if (r.leg_edip > fdip) fdip = r.leg_edip;
            if (r.mesh_gap < fmin_mesh) fmin_mesh = r.mesh_gap;
            if (r.self_gap < fmin_self) fmin_self = r.self_gap;
            worst.nan += r.nan; worst.cap_inside += r.cap_inside; worst.mesh_inside += r.mesh_inside;
            worst.mesh_cross += r.mesh_cross; worst.self_cross += r.self_cross;
            worst.leg_inside += r.leg_inside; worst.leg_cross += r.leg_cross;
            if (r.leg_gap < worst.leg_gap) worst.leg_gap = r.leg_gap;
            if (r.leg_vdip > worst.leg_vdip) worst.leg_vdip = r.leg_vdip;
            if (r.leg_edip > worst.leg_edip) worst.leg_edip = r.leg_edip;
            if (r.cap_gap < worst.cap_gap) worst.cap_gap = r.cap_gap;
            if (r.cap_edge_gap < worst.cap_edge_gap) worst.cap_edge_gap = r.cap_edge_gap;
            if (r.mesh_gap < worst.mesh_gap) worst.mesh_gap = r.mesh_gap;
            if (r.self_gap < worst.self_gap) worst.self_gap = r.self_gap;
        }
        t_all += t_frame;
        newton_total += fnewton; outer_total += fouter;
        {
            sc_rig_pose P;
            sc_dress_pose(sc.time, &P);
            printf("frame %3d t %.2f s  %6.2f s/frame  newton %4d outer %4d  kick %5.1f deg  min gap: legs %.3f body %.3f self %.3f mm"
                   "  (edge dip vs capsule %.3f mm)%s\n",
                   f + 1, sc.time, t_frame, fnewton, fouter, P.leg_angle[SC_DRESS_RIGHT] * 180.0 / 3.14159265358979323846,
                   1e3 * fmin_leg, 1e3 * fmin_mesh, 1e3 * fmin_self, 1e3 * fdip, fbad ? "  INTERSECTION" : "");
        }
        fflush(stdout);
    }
    report_line("over the run (counts summed over steps, distances min)", &worst);
    printf("steps %d, failed steps %d, steps with an intersection %d, sim time %.1f s (%.3f s/step, %.2f s/frame), check time %.1f s, newton %d, outer %d\n",
           total_steps, failed, bad_steps, t_all, t_all / (total_steps > 0 ? total_steps : 1),
           t_all / (f > 0 ? f : 1), t_check, newton_total, outer_total);
    printf("steps not converged (cap or stall, still RC_OK) %d, steps split into substeps %d\n", unconverged, substeps);
    printf("time shares (of sim time; contact phases overlap assembly/line search): assemble %.0f%%, factor %.0f%%, solve %.0f%%, line search %.0f%%;"
           " broad phase %.0f%%, narrow phase %.0f%%, ccd %.0f%%\n", 100 * t_asm / t_all, 100 * t_fac / t_all, 100 * t_sol / t_all,
           100 * t_ls / t_all, 100 * t_bp / t_all, 100 * t_np / t_all, 100 * t_ccd / t_all);
    printf("VERDICT: %s\n", (failed == 0 && bad_steps == 0 && !dc_bad(&worst) && f == frames) ? "PASS (no intersection, no failed step)" : "FAIL");
    sc_destroy(&sc);
    return (failed == 0 && bad_steps == 0 && f == frames) ? 0 : 1;
}
