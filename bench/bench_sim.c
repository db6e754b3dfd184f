/* bench/bench_sim.c - simulator benchmarks (issues 4 and 5). Single thread (def.num_threads = 1)
   unless --threads N is given. Every figure is measured in this run; a configuration that would
   not fit the time budget is skipped and the skip is printed.

   Sections (give any subset as arguments; none = all):
     scaling    fixed mesh, cloth on a sphere at ~1k, 4k, 16k, 64k vertices: Newton iterations and
                seconds per step, and the least-squares exponent of s/step vs vertex count
     adaptive   adaptive vs fixed on the same scene at ~1k (4k and 16k with --big)
     ablation   r-ITR accelerations: none / schedule / cache / both, each solving the same saved step problems
     energy     two-point drape (DESIGN §10): fixed N, 2N, 4N, 8N vs adaptive N, potential energy
   Options: --threads N   --big (adaptive at 4k and 16k too)   --no64k (skip the 64k fixed run)
            --only K (section 2: only size K, 0 = 1k, 1 = 4k, 2 = 16k)   --adaptive-steps N (section 2: timed
            adaptive steps per size; default 3, 16k 1)
            --static (section 4 with rc_sim_solve_static instead of the dynamic-step budget)
            --energy-steps N (section 4: dynamic steps per mesh; default 40)
            --cache-eps X (def.cache_eps, the caching threshold eps_d, of every adaptive sim)
            --reuse N, --eta X (def.itr_factor_reuse / itr_factor_eta of the cached variants)
            --reuse-alt N (section 3: one more variant, both-rN: schedule + cache with itr_factor_reuse = N)
            --etol X (section 3: def.itr_energy_tol of every sim; 0 = absolute tests only, so every
            variant converges to the same IP)
            --ablation-n N (section 3: the drape's grid side, N x N vertices; default 15)
            --ablation-scene two_point|sphere (section 3: the two-point drape, default, or the
            sphere drape with 10 fixed-mesh warm-up steps instead of 5: a contact drape)
            --reps R (section 3: interleaved passes per variant, the fastest counts; default 3)
            --ablation-steps S (section 3: the saved step problems, 1..8; default 8)
            --ablation-states FILE (section 3: load the step problems from FILE if it exists, else save
                 them there after the reference run: two builds of the header then solve the same ones)
            --ablation-variants LIST (section 3: comma-separated subset of none,schedule,cache,both,both-blk;
            default all; speedups need none)
            --projected (def.itr_exact_hessian = 0: DESIGN's per-stencil projected outer Hessian
            instead of the library's exact one)

   Usage: build/bench_sim [sections] [options]      (make bench-sim [BENCH_SIM_ARGS=...]) */
#include <stdlib.h>
#include <stddef.h>

/* The library's heap, counted: every RCLOTH_MALLOC/REALLOC/FREE goes through these, which keep the
   bytes in use and their peak (a 16-byte header holds each block's size and keeps the alignment).
   Section 2 reports the peak of each sim, from its creation to the end of its steps. */
static size_t g_heap_now = 0, g_heap_peak = 0;
static void heap_add(size_t n) { g_heap_now += n; if (g_heap_now > g_heap_peak) g_heap_peak = g_heap_now; }
static void *bench_malloc(size_t n)
{
    size_t *p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    heap_add(n);
    return (char *)p + 16;
}
static void bench_free(void *q)
{
    size_t *p;
    if (!q) return;
    p = (size_t *)((char *)q - 16);
    g_heap_now -= p[0];
    free(p);
}
static void *bench_realloc(void *q, size_t n)
{
    size_t *p, *r, old;
    if (!q) return bench_malloc(n);
    p = (size_t *)((char *)q - 16);
    old = p[0];
    r = (size_t *)realloc(p, n + 16);
    if (!r) return NULL;
    r[0] = n;
    g_heap_now -= old;
    heap_add(n);
    return (char *)r + 16;
}
#define RCLOTH_MALLOC(size, user) ((void)(user), bench_malloc(size))
#define RCLOTH_REALLOC(ptr, size, user) ((void)(user), bench_realloc((ptr), (size)))
#define RCLOTH_FREE(ptr, user) ((void)(user), bench_free(ptr))
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "bench_scenes.h"

/* a whole-string integer in [lo, hi], else -1 */
static int int_arg(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    return (end != s && *end == '\0' && v >= lo && v <= hi) ? (int)v : -1;
}

/* process CPU seconds: with one thread this is the solver's time even when other jobs share the
   machine (wall time, ss.t_total, is printed too) */
static double cpu_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

static int g_threads = 1, g_big = 0, g_no64k = 0, g_static = 0, g_only = -1, g_asteps = 0;
static double g_cache_eps = -1.0;   /* --cache-eps X: def.cache_eps of the adaptive sims (< 0: library default) */
static int g_reuse = -1;            /* --reuse N: def.itr_factor_reuse of the cached variants (< 0: default) */
static int g_reuse_alt = -1;        /* --reuse-alt N: section 3 adds a variant "both-rN", both with itr_factor_reuse = N */
static double g_eta = -1.0;         /* --eta X: def.itr_factor_eta (< 0: default) */
static double g_etol = -1.0;        /* --etol X: def.itr_energy_tol of the ablation's sims (< 0: default) */
static int g_abl_n = 15, g_reps = 3; /* --ablation-n N, --reps R */
static int g_abl_skip = 0;           /* --ablation-skip A: reference adaptive steps before the saved ones */
static int g_abl_steps = 8;          /* --ablation-steps S: saved step problems (a 16k run cannot afford 8) */
static const char *g_abl_variants = NULL; /* --ablation-variants LIST: NULL = all */
static const char *g_abl_states = NULL;   /* --ablation-states FILE: load the step problems from FILE if it exists, else save them there */
static int g_projected = 0;          /* --projected: def.itr_exact_hessian = 0 (DESIGN's projected outer step) */

/* ------------------------------------------------------------------ scenes */

/* the sphere drape of bench_scenes.h with this run's threads and cache_eps */
static rc_sim *make_sphere_drape(int n, int adaptive)
{
    return bench_sphere_drape(n, adaptive, 0, g_threads, g_cache_eps);
}

/* the solver settings of the ablation's variants (and --reuse/--eta/--etol/--cache-eps): cache 1 =
   stencil blocks + the joint factor reused, 2 = blocks only (the factor rebuilt every outer
   iteration) */
static void solver_flags(rc_sim_def *def, int adaptive, int schedule, int cache, double dt)
{
    def->adaptive = adaptive;
    def->itr_schedule = schedule;
    def->itr_cache = cache != 0;
    if (g_reuse >= 0) def->itr_factor_reuse = g_reuse;
    if (g_eta >= 0.0) def->itr_factor_eta = g_eta;
    if (g_etol >= 0.0) def->itr_energy_tol = g_etol;
    if (cache == 2) def->itr_factor_reuse = 0;
    if (cache == 3) def->itr_factor_reuse = g_reuse_alt;
    if (g_projected) def->itr_exact_hessian = 0;
    if (g_cache_eps >= 0.0) def->cache_eps = g_cache_eps;
    def->dt = dt;
    def->num_threads = g_threads;
}

/* Two-point drape (DESIGN §10): a 0.8 m square of the prototype material (n x n grid) hanging in
   the x-z plane from its two top corners, which are pinned 0.6 m apart (each moved 0.1 m
   inwards from its rest position). A 1 cm out-of-plane bulge breaks the symmetry, as in the
   two_point_drape example scene. */
static rc_sim *make_two_point_pins(int n, int adaptive, int schedule, int cache, double dt, double half_gap);
static rc_sim *make_two_point(int n, int adaptive, int schedule, int cache, double dt)
{
    return make_two_point_pins(n, adaptive, schedule, cache, dt, 0.3);
}
/* the same sheet with its corners pinned half_gap from the middle */
static rc_sim *make_two_point_pins(int n, int adaptive, int schedule, int cache, double dt, double half_gap)
{
    const double L = 0.8;
    rc_sim_def def = rc_default_sim_def();
    rc_mesh m;
    rc_sim *s = NULL;
    int i, c0, c1;
    if (rc_mesh_grid(&m, L, L, n, n, RC_DIAG_ALTERNATING) != RC_OK) return NULL;
    for (i = 0; i < m.num_verts; ++i) {
        double u = m.ref_uv[2 * i], v = m.ref_uv[2 * i + 1];
        m.pos[3 * i] = u - 0.5 * L;
        m.pos[3 * i + 1] = 0.01 * sin(3.14159265358979323846 * u / L) * (L - v) / L;
        m.pos[3 * i + 2] = v - L;
    }
    def.mesh = rc_mesh_describe(&m);
    def.material = rc_material_proto();
    solver_flags(&def, adaptive, schedule, cache, dt);
    if (rc_sim_create(&def, &s) != RC_OK) s = NULL;
    rc_mesh_free(&m);
    c0 = (n - 1) * n;        /* top-left corner: (u, v) = (0, L) */
    c1 = n * n - 1;          /* top-right corner: (L, L) */
    if (s) {
        double a[3] = { 0.0, 0.0, 0.0 }, b[3] = { 0.0, 0.0, 0.0 };
        a[0] = -half_gap; b[0] = half_gap;
        if (rc_sim_pin(s, c0, a) != RC_OK || rc_sim_pin(s, c1, b) != RC_OK) { rc_sim_destroy(s); s = NULL; }
    }
    return s;
}

/* The ablation on a contact drape (--ablation-scene sphere): bench_sphere_drape's sheet (1 m cotton
   square released 2 mm over a sphere of radius 0.25 m), with the two-point drape's solver flags. */
static rc_sim *make_sphere_abl(int n, int adaptive, int schedule, int cache, double dt)
{
    rc_sim_def def = rc_default_sim_def();
    solver_flags(&def, adaptive, schedule, cache, dt);
    return bench_sphere_drape_def(n, def);
}
static int g_abl_sphere = 0;         /* --ablation-scene: 0 two_point, 1 sphere, 2 two_point_moving */
static rc_sim *make_abl(int n, int adaptive, int schedule, int cache, double dt)
{
    if (g_abl_sphere == 2) return make_two_point_pins(n, adaptive, schedule, cache, dt, 0.4);
    return g_abl_sphere ? make_sphere_abl(n, adaptive, schedule, cache, dt) : make_two_point(n, adaptive, schedule, cache, dt);
}
/* Before global step g (0-based) of the ablation's scene: the moving two-point drape (the
   two_point_drape example scene's animation) brings its corners from 0.8 m to 0.6 m apart over the
   first 0.5 s (smoothstep), so every step of that half second compresses the sheet further; the
   other scenes hold still. */
static void abl_animate(rc_sim *s, int n, int g, double dt)
{
    double a = (g + 1) * dt / 0.5, sm, p0[3] = { 0.0, 0.0, 0.0 }, p1[3] = { 0.0, 0.0, 0.0 };
    if (g_abl_sphere != 2) return;
    if (a > 1.0) a = 1.0;
    sm = a * a * (3.0 - 2.0 * a);
    p0[0] = -0.4 + 0.1 * sm; p1[0] = 0.4 - 0.1 * sm;
    rc_sim_pin(s, (n - 1) * n, p0);
    rc_sim_pin(s, n * n - 1, p1);
}

static double fit_exponent(int k, const double *n, const double *t)
{
    /* slope of log t = a + p log n by least squares */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int i;
    for (i = 0; i < k; ++i) {
        double x = log(n[i]), y = log(t[i]);
        sx += x; sy += y; sxx += x * x; sxy += x * y;
    }
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/* Runs `steps` steps (after `warm` untimed ones), returns mean seconds and Newton / outer
   iterations per timed step; prints one line per step as it comes. */
typedef struct run_result { double t, cpu, newton, outer, active, active_late, peak_mib; int steps, conv, ok, late_n, late_low; } run_result;

static run_result run_steps(rc_sim *s, const char *label, int warm, int steps)
{
    run_result r;
    int k;
    memset(&r, 0, sizeof r);
    r.ok = 1;
    for (k = 0; k < warm + steps; ++k) {
        rc_step_stats ss;
        double c0 = cpu_now(), cpu;
        rc_status st = rc_sim_step(s, &ss);
        cpu = cpu_now() - c0;
        if (st != RC_OK) {
            printf("    %s step %d: %s (%s)\n", label, k + 1, rc_status_string(st), rc_sim_last_error(s));
            r.ok = 0;
            break;
        }
        {
            /* this step's active rate over its outer iterations after the fifth (the bar's measure),
               printed and, for timed steps, added to the run's */
            double late = 0.0;
            int j, n = 0, low = 0;
            char after5[32];
            for (j = 5; ss.active_rate_per_iter && j < ss.num_active_rates; ++j, ++n) {
                late += ss.active_rate_per_iter[j];
                low += ss.active_rate_per_iter[j] < 0.3;
            }
            if (n) sprintf(after5, "%.2f", late / n); else strcpy(after5, "-");
            printf("    %s step %d%s: %.3f s wall, %.3f s cpu, newton %d, outer %d, conv %d, active %.2f (after 5 outer its: %s), min contact %.2f mm\n",
                   label, k + 1, k < warm ? " (warm-up, untimed)" : "", ss.t_total, cpu, ss.newton_iters, ss.outer_iters, ss.converged,
                   ss.active_rate, after5, 1e3 * ss.min_contact_distance);
            fflush(stdout);
            if (k < warm) continue;
            r.active_late += late; r.late_n += n; r.late_low += low;
        }
        r.t += ss.t_total; r.cpu += cpu; r.newton += ss.newton_iters; r.outer += ss.outer_iters; r.conv += ss.converged;
        r.active += ss.active_rate;
        r.steps++;
    }
    if (r.steps) { r.t /= r.steps; r.cpu /= r.steps; r.newton /= r.steps; r.outer /= r.steps; r.active /= r.steps; }
    if (r.late_n) r.active_late /= r.late_n;
    return r;
}

/* ------------------------------------------------------------------ 1. fixed-mode scaling */

static void section_scaling(void)
{
    static const int ns[4] = { 32, 64, 128, 256 };
    static const int warm[4] = { 1, 1, 1, 0 }, steps[4] = { 4, 3, 1, 1 };
    double nv[4], ts[4];
    run_result res[4];
    int i, k = 0;
    printf("\n== 1. fixed-mode scaling: 1 m cotton square on a sphere (r 0.25 m), dt 0.01, %d thread(s)\n", g_threads);
    for (i = 0; i < 4; ++i) {
        rc_sim *s;
        char label[32];
        if (i == 3 && g_no64k) { printf("  %d verts: skipped (--no64k)\n", ns[i] * ns[i]); res[i].ok = 0; continue; }
        s = make_sphere_drape(ns[i], 0);
        if (!s) { printf("  %d verts: create failed\n", ns[i] * ns[i]); res[i].ok = 0; continue; }
        sprintf(label, "%d", ns[i] * ns[i]);
        res[i] = run_steps(s, label, warm[i], steps[i]);
        rc_sim_destroy(s);
        if (res[i].ok && res[i].steps) { nv[k] = ns[i] * ns[i]; ts[k] = res[i].t; k++; }
    }
    printf("\n  | vertices | timed steps | Newton it/step | s/step | converged |\n  |---|---|---|---|---|\n");
    for (i = 0; i < 4; ++i)
        if (res[i].ok && res[i].steps)
            printf("  | %d | %d | %.1f | %.3f | %d/%d |\n", ns[i] * ns[i], res[i].steps, res[i].newton, res[i].t,
                   res[i].conv, res[i].steps);
    if (k >= 2) printf("  fitted exponent (s/step ~ N^p, least squares on log-log over %d sizes): p = %.2f\n", k, fit_exponent(k, nv, ts));
    if (k == 4) printf("  fitted exponent over the first 3 sizes (all with a warm-up step): p = %.2f\n", fit_exponent(3, nv, ts));
}

/* ------------------------------------------------------------------ 2. adaptive vs fixed */

static void section_adaptive(void)
{
    int ns[3] = { 32, 64, 128 }, i, m = g_big ? 3 : 1;
    run_result rf[3], ra[3];
    printf("\n== 2. adaptive vs fixed: same sphere drape, dt 0.01, %d thread(s). One fixed warm-up step, its state\n"
           "   saved; fixed: 2 timed steps from it; adaptive: the state loaded into an adaptive sim, %s timed steps\n"
           "   (the first adaptive step moves the uniform mesh furthest; later ones start from an adapted mesh)\n", g_threads,
           g_asteps > 0 ? "--adaptive-steps" : "3 (16k: 1)");
    if (g_only >= 0) m = g_only + 1;
    for (i = 0; i < m; ++i) {
        rc_sim *s;
        rc_sim *a;
        char label[48];
        double *state;
        size_t base;
        if (g_only >= 0 && i != g_only) { rf[i].ok = ra[i].ok = 0; continue; }
        base = g_heap_peak = g_heap_now;
        s = make_sphere_drape(ns[i], 0);
        memset(&rf[i], 0, sizeof rf[i]);
        memset(&ra[i], 0, sizeof ra[i]);
        if (!s) continue;
        sprintf(label, "fixed %d", ns[i] * ns[i]);
        rf[i] = run_steps(s, label, 1, 0);
        state = (double *)malloc(rc_sim_state_size(s) * sizeof(double));
        if (!state) { rc_sim_destroy(s); continue; }
        rc_sim_save_state(s, state);
        rf[i] = run_steps(s, label, 0, 2);
        rf[i].peak_mib = (double)(g_heap_peak - base) / (1024.0 * 1024.0);
        rc_sim_destroy(s);
        base = g_heap_peak = g_heap_now;
        a = make_sphere_drape(ns[i], 1);
        if (a && rc_sim_load_state(a, state) == RC_OK) {
            sprintf(label, "adaptive %d", ns[i] * ns[i]);
            ra[i] = run_steps(a, label, 0, g_asteps > 0 ? g_asteps : i < 2 ? 3 : 1);   /* 16k: one step (minutes each) */
            ra[i].peak_mib = (double)(g_heap_peak - base) / (1024.0 * 1024.0);
        }
        rc_sim_destroy(a);
        free(state);
    }
    printf("\n  cpu seconds per step (means over the timed steps)\n");
    printf("  | vertices | fixed s/step | fixed Newton/step | adaptive s/step | adaptive outer/step | adaptive converged | adaptive/fixed time | mean active rate | active rate after 5 outer its: mean, share of its < 0.3 |\n");
    printf("  |---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < m; ++i)
        if (rf[i].ok && ra[i].ok && rf[i].steps && ra[i].steps)
            printf("  | %d | %.3f | %.1f | %.3f | %.1f | %d/%d | %.1fx | %.2f | %.2f, %.0f%% |\n", ns[i] * ns[i], rf[i].cpu, rf[i].newton, ra[i].cpu,
                   ra[i].outer, ra[i].conv, ra[i].steps, ra[i].cpu / rf[i].cpu, ra[i].active, ra[i].active_late,
                   ra[i].late_n ? 100.0 * ra[i].late_low / ra[i].late_n : 0.0);
    printf("\n  the library's peak heap per sim, from its creation to the end of its steps (RCLOTH_MALLOC counted)\n");
    printf("  | vertices | fixed peak MiB | fixed bytes/vertex | adaptive peak MiB | adaptive bytes/vertex | adaptive/fixed |\n");
    printf("  |---|---|---|---|---|---|\n");
    for (i = 0; i < m; ++i)
        if (rf[i].ok && ra[i].ok && rf[i].steps && ra[i].steps)
            printf("  | %d | %.1f | %.0f | %.1f | %.0f | %.2fx |\n", ns[i] * ns[i], rf[i].peak_mib, rf[i].peak_mib * 1048576.0 / (ns[i] * ns[i]),
                   ra[i].peak_mib, ra[i].peak_mib * 1048576.0 / (ns[i] * ns[i]), ra[i].peak_mib / rf[i].peak_mib);
    if (!g_big) printf("  4k and 16k adaptive not run by default (pass --big): over the 10-minute budget, see RESULTS.md\n");
}

/* ------------------------------------------------------------------ 3. acceleration ablation */

static void section_ablation(void)
{
    /* cache = stencil Hessian blocks + the joint factor reused as a CG preconditioner; "both-blk"
       caches the blocks only (itr_factor_reuse = 0), to show what each part gives.
       Every variant solves the SAME step problems: a reference trajectory (schedule + cache, library
       defaults but for --etol) is saved before each of its steps, and each variant solves each saved
       step from its saved state. So final IPs compare step by step, and a variant's time is not a
       matter of where its own trajectory went (the drape buckles: trajectories of different
       solvers part after a step or two, and one lucky or unlucky fold moved a 3-step ratio by
       +-0.3 between builds that differed only in round-off). */
    enum { NVMAX = 6, NSTEP = 8 };
    char names[NVMAX][16] = { "none", "schedule", "cache", "both", "both-blk", "both-r" };
    static const int sch[NVMAX] = { 0, 1, 0, 1, 1, 1 }, cac[NVMAX] = { 0, 0, 1, 1, 2, 3 };
    const int NV = g_reuse_alt >= 0 ? 6 : 5;
    const int n = g_abl_n, warm = g_abl_sphere == 1 ? 10 : 5, steps = g_abl_steps, reps = g_reps;
    double *states[NSTEP] = { NULL }, ip_none[NSTEP], dev_max[NVMAX], dev_sum[NVMAX];
    size_t ssz;
    rc_sim *s;
    rc_step_stats acc[NVMAX];
    double tt[NVMAX];
    int ok[NVMAX], c, k, r;
    if (g_reuse_alt >= 0) sprintf(names[5], "both-r%d", g_reuse_alt % 1000);
    printf("\n== 3. r-ITR acceleration ablation: %s (%d verts), dt 0.01, %d thread(s)\n"
           "   %d fixed-mesh steps from the flat sheet, %d adaptive steps of the default solver, then %d more, its state"
           " saved before each;\n   every variant solves each of those %d steps from the saved state (one sim per variant and pass, warmed by an untimed step)\n",
           g_abl_sphere == 1 ? "sphere drape (cotton, 1 m square onto a sphere of radius 0.25 m)"
           : g_abl_sphere == 2 ? "two-point drape, moving corners (prototype material, corners 0.8 -> 0.6 m apart over 0.5 s)"
                               : "two-point drape (prototype material, corners 0.6 m apart)", n * n, g_threads, warm, g_abl_skip, steps, steps);
    s = make_abl(n, 0, 1, 1, 0.01);
    if (!s) { printf("  create failed\n"); return; }
    for (k = 0; k < warm; ++k) {
        rc_step_stats ss;
        abl_animate(s, n, k, 0.01);
        if (rc_sim_step(s, &ss) != RC_OK) { printf("  warm-up failed: %s\n", rc_sim_last_error(s)); rc_sim_destroy(s); return; }
    }
    ssz = rc_sim_state_size(s);
    for (k = 0; k < steps; ++k) states[k] = (double *)malloc(ssz * sizeof(double));
    for (k = 0; k < steps; ++k) if (!states[k]) { printf("  out of memory\n"); rc_sim_destroy(s); goto done; }
    rc_sim_save_state(s, states[0]);
    rc_sim_destroy(s);
    {   /* the reference solver ignores --cache-eps/--reuse/--eta, so runs with different settings
           solve the same step problems (--etol, the stopping rule, applies to it too) */
        double ce = g_cache_eps, eta = g_eta;
        int reuse = g_reuse;
        g_cache_eps = -1.0; g_eta = -1.0; g_reuse = -1;
        s = make_abl(n, 1, 1, 1, 0.01);
        g_cache_eps = ce; g_eta = eta; g_reuse = reuse;
    }
    if (!s || rc_sim_load_state(s, states[0]) != RC_OK) { printf("  reference create/load failed\n"); rc_sim_destroy(s); goto done; }
    {   /* --ablation-states: the same step problems for two builds of the header (a solver change
           moves the reference trajectory, so each build would otherwise sample other steps) */
        FILE *f = g_abl_states ? fopen(g_abl_states, "rb") : NULL;
        int loaded = 0;
        if (f) {
            for (k = 0; k < steps && fread(states[k], sizeof(double), ssz, f) == ssz; ++k) {}
            fclose(f);
            if (k < steps) { printf("  %s holds fewer than %d states of this size\n", g_abl_states, steps); rc_sim_destroy(s); goto done; }
            printf("   step problems loaded from %s\n", g_abl_states);
            loaded = 1;
        }
        for (k = -g_abl_skip; k < steps && !loaded; ++k) {
            rc_step_stats ss;
            if (k >= 0) rc_sim_save_state(s, states[k]);
            abl_animate(s, n, warm + g_abl_skip + k, 0.01);
            if (rc_sim_step(s, &ss) != RC_OK) { printf("  reference step failed: %s\n", rc_sim_last_error(s)); rc_sim_destroy(s); goto done; }
        }
        if (g_abl_states && !loaded && (f = fopen(g_abl_states, "wb")) != NULL) {
            for (k = 0; k < steps; ++k) fwrite(states[k], sizeof(double), ssz, f);
            fclose(f);
            printf("   step problems saved to %s\n", g_abl_states);
        }
    }
    rc_sim_destroy(s);
    /* the machine is shared: a load burst during one variant skews a single pass, so every variant
       runs reps times, interleaved, and its time is the fastest pass (the runs are deterministic:
       same iterates, same stats in every pass) */
    for (c = 0; c < NV; ++c) {
        memset(&acc[c], 0, sizeof acc[c]); tt[c] = HUGE_VAL; ok[c] = 1; dev_max[c] = dev_sum[c] = 0.0;
        if (g_abl_variants) {   /* whole names in the comma-separated list */
            const char *p = g_abl_variants;
            size_t len = strlen(names[c]);
            ok[c] = 0;
            while (p && *p) {
                if (strncmp(p, names[c], len) == 0 && (p[len] == ',' || p[len] == '\0')) ok[c] = 1;
                p = strchr(p, ',');
                if (p) ++p;
            }
        }
    }
    for (r = 0; r < reps; ++r)
        for (c = 0; c < NV; ++c) {
            double pass = 0.0;
            if (!ok[c]) continue;
            /* one sim per variant and pass, its systems built (pattern, ordering, symbolic
               factorization) by an untimed step of the first problem: a running simulation does
               that once, not per step. rc_sim_load_state drops everything a step carries to the
               next (derivative cache, joint factor, kept shifts are state), so each problem is
               solved exactly as from a fresh sim (session 49: every printed iterate matched the
               fresh-sim runs). */
            s = make_abl(n, 1, sch[c], cac[c], 0.01);
            if (!s || rc_sim_load_state(s, states[0]) != RC_OK) { printf("  %s: create/load failed\n", names[c]); rc_sim_destroy(s); ok[c] = 0; continue; }
            abl_animate(s, n, warm + g_abl_skip, 0.01);
            if (rc_sim_step(s, NULL) != RC_OK) { printf("  %s warm-up step failed: %s\n", names[c], rc_sim_last_error(s)); ok[c] = 0; rc_sim_destroy(s); continue; }
            for (k = 0; k < steps && ok[c]; ++k) {
                rc_step_stats ss;
                double c0, cpu;
                if (rc_sim_load_state(s, states[k]) != RC_OK) { printf("  %s: load failed: %s\n", names[c], rc_sim_last_error(s)); ok[c] = 0; break; }
                abl_animate(s, n, warm + g_abl_skip + k, 0.01);
                c0 = cpu_now();
                if (rc_sim_step(s, &ss) != RC_OK) { printf("  %s step failed: %s\n", names[c], rc_sim_last_error(s)); ok[c] = 0; break; }
                cpu = cpu_now() - c0;
                pass += cpu;
                if (r > 0) continue;
                if (c == 0) ip_none[k] = ss.ip_end;
                else if (ok[0]) {
                    /* this variant's final IP against the unaccelerated one's, in units of that step's IP decrease */
                    double dev = fabs(ss.ip_end - ip_none[k]) / (ss.ip_start - ip_none[k]);
                    dev_sum[c] += dev / steps;
                    if (dev > dev_max[c]) dev_max[c] = dev;
                }
                printf("    %-8s step %d: %.3f s cpu (assemble %.3f, factor %.3f, solve %.3f, line search %.3f), outer %d, inner %d, solves %d (%d on the previous factor, %d CG its), active %.3f, IP %.10g -> %.10g, conv %d\n",
                       names[c], k + 1, cpu, ss.t_assemble, ss.t_factor, ss.t_solve, ss.t_line_search, ss.outer_iters, ss.inner_iters,
                       ss.linear_solves, ss.factor_reuses, ss.cg_iters, ss.active_rate, ss.ip_start, ss.ip_end, ss.converged);
                fflush(stdout);
                acc[c].outer_iters += ss.outer_iters;
                acc[c].inner_iters += ss.inner_iters;
                acc[c].linear_solves += ss.linear_solves;
                acc[c].active_rate += ss.active_rate / steps;
                acc[c].converged += ss.converged;
            }
            rc_sim_destroy(s);
            if (ok[c] && pass < tt[c]) tt[c] = pass;
        }
    printf("\n  per step (mean of the %d step problems; time: the fastest of %d interleaved passes), cpu seconds; speedup = unaccelerated\n"
           "  time / variant time; other ratios vs unaccelerated in brackets; IP dev = |final IP - unaccelerated final IP| / that step's\n"
           "  unaccelerated IP decrease, mean and max over the steps\n", steps, reps);
    printf("  | variant | s/step (speedup) | outer/step | inner/step | linear solves/step | active rate | IP dev mean / max | converged |\n");
    printf("  |---|---|---|---|---|---|---|---|\n");
    for (c = 0; c < NV; ++c) {
        if (!ok[c]) { printf("  | %s | %s | | | | | | |\n", names[c], tt[c] == HUGE_VAL ? "not run" : "failed"); continue; }
        printf("  | %s | %.3f (%.2f) | %.1f (%.2f) | %.1f (%.2f) | %.1f (%.2f) | %.3f | %.2f%% / %.2f%% | %d/%d |\n", names[c],
               tt[c] / steps, ok[0] ? tt[0] / tt[c] : 0.0,
               (double)acc[c].outer_iters / steps, ok[0] ? (double)acc[c].outer_iters / acc[0].outer_iters : 0.0,
               (double)acc[c].inner_iters / steps, ok[0] ? (double)acc[c].inner_iters / acc[0].inner_iters : 0.0,
               (double)acc[c].linear_solves / steps, ok[0] ? (double)acc[c].linear_solves / acc[0].linear_solves : 0.0,
               acc[c].active_rate, 100.0 * dev_sum[c], 100.0 * dev_max[c], acc[c].converged, steps);
    }
done:
    for (k = 0; k < steps; ++k) free(states[k]);
}

/* ------------------------------------------------------------------ 4. adaptive vs fixed energy */

/* Default: a fixed budget of dynamic steps with a large step (backward Euler's numerical damping
   brings the sheet towards rest; rc_sim_solve_static is itself a pseudo-time continuation of this
   kind, but to a tolerance, and was too slow for the budget: --static runs it). */
static int g_energy_steps = 40;   /* --energy-steps N; 40 steps bring every mesh to rest (dV <= 1e-7 J) */
static const double ENERGY_DT = 0.25;

static void section_energy(int statics)
{
    /* N = 13x13 = 169 as in DESIGN §10; 2N, 4N, 8N rounded to the nearest square grid */
    static const int ns[4] = { 13, 18, 26, 37 };
    double V[5], T[5], dV[5];
    int ok[5], conv[5], i;
    if (statics)
        printf("\n== 4. two-point drape, rc_sim_solve_static (dt 0.01 pseudo step), prototype material, corners 0.6 m apart, %d thread(s)\n", g_threads);
    else
        printf("\n== 4. two-point drape, %d dynamic steps of dt %.2f s from the flat hanging sheet, prototype material,\n"
               "   corners 0.6 m apart, %d thread(s); dV = change of V over the last step (how far from rest)\n",
               g_energy_steps, ENERGY_DT, g_threads);
    for (i = 0; i < 5; ++i) {
        int adaptive = i == 4, n = adaptive ? ns[0] : ns[i], k;
        rc_sim *s = make_two_point(n, adaptive, 1, 1, statics ? 0.01 : ENERGY_DT);
        rc_step_stats ss;
        rc_status st = RC_OK;
        double S, B, G, Vprev = 0.0;
        ok[i] = 0;
        if (!s) { printf("  create failed\n"); continue; }
        T[i] = 0.0; conv[i] = 0; dV[i] = 0.0;
        if (statics) {
            double c0 = cpu_now();
            st = rc_sim_solve_static(s, &ss);
            T[i] = cpu_now() - c0; conv[i] = ss.converged;
        } else {
            for (k = 0; k < g_energy_steps && st == RC_OK; ++k) {
                double c0 = cpu_now();
                st = rc_sim_step(s, &ss);
                if (st != RC_OK) break;
                T[i] += cpu_now() - c0; conv[i] += ss.converged;
                rc_sim_potential(s, &S, &B, &G);
                if (k == g_energy_steps - 1) dV[i] = S + B + G - Vprev;
                Vprev = S + B + G;
                if (adaptive) {
                    printf("      adaptive step %d: V %.5f J, %.2f s wall, outer %d, conv %d\n", k + 1, Vprev, ss.t_total, ss.outer_iters, ss.converged);
                    fflush(stdout);
                }
            }
        }
        if (st != RC_OK) { printf("  %s %d: %s (%s)\n", adaptive ? "adaptive" : "fixed", n * n, rc_status_string(st), rc_sim_last_error(s)); rc_sim_destroy(s); continue; }
        rc_sim_potential(s, &S, &B, &G);
        V[i] = S + B + G; ok[i] = 1;
        printf("    %-8s %5d verts: V %.5f J (stretch %.5f, bend %.5f, gravity %.5f), %.2f s cpu, converged %d, max MIPS %.2f\n",
               adaptive ? "adaptive" : "fixed", n * n, V[i], S, B, G, T[i], conv[i], ss.max_quality);
        fflush(stdout);
        rc_sim_destroy(s);
    }
    printf("\n  | mesh | vertices | V = stretch+bend+gravity (J) | dV last step (J) | cpu s | converged |\n  |---|---|---|---|---|---|\n");
    for (i = 0; i < 5; ++i)
        if (ok[i]) {
            int n = i == 4 ? ns[0] : ns[i];
            if (statics) printf("  | %s | %d | %.5f | n/a %.1e | %.2f | %d |\n", i == 4 ? "adaptive" : "fixed", n * n, V[i], dV[i], T[i], conv[i]);
            else printf("  | %s | %d | %.5f | %.1e | %.2f | %d/%d steps |\n", i == 4 ? "adaptive" : "fixed", n * n, V[i], dV[i], T[i], conv[i], g_energy_steps);
        }
    if (ok[4]) {
        int best = -1;
        for (i = 0; i < 4; ++i) if (ok[i] && V[4] < V[i]) best = i;
        for (i = 0; i < 4; ++i)
            printf("  adaptive %d vs fixed %d: %s\n", ns[0] * ns[0], ns[i] * ns[i], !ok[i] ? "fixed run failed" : V[4] < V[i] ? "adaptive lower" : "fixed lower or equal");
        if (best >= 0) printf("  largest fixed mesh with higher V than adaptive %d: %d verts\n", ns[0] * ns[0], ns[best] * ns[best]);
        else printf("  adaptive %d beats none of the fixed meshes\n", ns[0] * ns[0]);
    }
}

int main(int argc, char **argv)
{
    int i, any = 0, want[4] = { 0, 0, 0, 0 };
    static const char *sec[4] = { "scaling", "adaptive", "ablation", "energy" };
    for (i = 1; i < argc; ++i) {
        int j, hit = 0;
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) { g_threads = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--big") == 0) { g_big = 1; continue; }
        if (strcmp(argv[i], "--cache-eps") == 0 && i + 1 < argc) { g_cache_eps = atof(argv[++i]); continue; }
        if (strcmp(argv[i], "--reuse") == 0 && i + 1 < argc) { g_reuse = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--reuse-alt") == 0 && i + 1 < argc) { g_reuse_alt = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--eta") == 0 && i + 1 < argc) { g_eta = atof(argv[++i]); continue; }
        if (strcmp(argv[i], "--etol") == 0 && i + 1 < argc) { g_etol = atof(argv[++i]); continue; }
        if (strcmp(argv[i], "--ablation-states") == 0 && i + 1 < argc) { g_abl_states = argv[++i]; continue; }
        if (strcmp(argv[i], "--ablation-skip") == 0 && i + 1 < argc) { g_abl_skip = int_arg(argv[++i], 0, 100000); continue; }
        if (strcmp(argv[i], "--ablation-n") == 0 && i + 1 < argc) { g_abl_n = int_arg(argv[++i], 2, 1000); continue; }
        if (strcmp(argv[i], "--ablation-scene") == 0 && i + 1 < argc) {
            ++i;
            if (strcmp(argv[i], "sphere") == 0) g_abl_sphere = 1;
            else if (strcmp(argv[i], "two_point") == 0) g_abl_sphere = 0;
            else if (strcmp(argv[i], "two_point_moving") == 0) g_abl_sphere = 2;
            else { fprintf(stderr, "--ablation-scene needs two_point, two_point_moving or sphere\n"); return 2; }
            continue;
        }
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) { g_reps = int_arg(argv[++i], 1, 100); continue; }
        if (strcmp(argv[i], "--ablation-steps") == 0 && i + 1 < argc) { g_abl_steps = int_arg(argv[++i], 1, 8); continue; }
        if (strcmp(argv[i], "--ablation-variants") == 0 && i + 1 < argc) { g_abl_variants = argv[++i]; continue; }
        if (strcmp(argv[i], "--no64k") == 0) { g_no64k = 1; continue; }
        if (strcmp(argv[i], "--projected") == 0) { g_projected = 1; continue; }
        if (strcmp(argv[i], "--static") == 0) { g_static = 1; continue; }
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) { g_only = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--adaptive-steps") == 0 && i + 1 < argc) { g_asteps = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--energy-steps") == 0 && i + 1 < argc) { g_energy_steps = atoi(argv[++i]); if (g_energy_steps < 1) g_energy_steps = 1; continue; }
        for (j = 0; j < 4; ++j) if (strcmp(argv[i], sec[j]) == 0) { want[j] = 1; any = 1; hit = 1; }
        if (!hit) { fprintf(stderr, "usage: %s [scaling|adaptive|ablation|energy]... [--threads N] [--big] [--no64k] [--static] [--only K] [--adaptive-steps N] [--energy-steps N] [--cache-eps X] [--reuse N] [--eta X] [--etol X] [--ablation-n N] [--ablation-scene two_point|two_point_moving|sphere] [--ablation-skip A] [--ablation-states FILE] [--reps R] [--projected]\n", argv[0]); return 2; }
    }
    if (g_abl_n < 0 || g_reps < 0 || g_abl_skip < 0 || g_abl_steps < 0) { fprintf(stderr, "--ablation-n needs an integer N in [2, 1000], --reps R in [1, 100], --ablation-skip A >= 0, --ablation-steps S in [1, 8]\n"); return 2; }
    if (!any) for (i = 0; i < 4; ++i) want[i] = 1;
    if (want[0]) section_scaling();
    if (want[1]) section_adaptive();
    if (want[2]) section_ablation();
    if (want[3]) section_energy(g_static);
    return 0;
}
