/* examples/common/demo.h - the side-by-side run pipeline behind `make demo` and build/rcloth.

   dm_run runs one scene (scenes.h) in each of its variants (adaptive / fixed / ...) at the same
   vertex count, prints one progress line per frame, and writes into o->outdir:
       <label>/x_NNNN.obj   world positions x of frame NNNN (vt = reference u); frame 0 is the
                            initial state, and a frame is round(frame_time / dt) steps, the last
                            one shorter when o->steps is not a multiple of that
       <label>/u_NNNN.obj   the reference mesh (u, 0) of frame NNNN (same faces as x_NNNN.obj)
                            (the frames an earlier run left in the scene's run folders are
                            removed first, and its pictures when none are written, so the
                            folder holds one run)
       final.png            the last frames side by side (cloth + obstacles, one camera), captioned
       reference.png        the reference meshes u side by side, triangles coloured by MIPS quality
                            (relative to the initial reference; white = undistorted, red >= 3)
       energy.svg           potential energy (stretch + bend + gravity) per frame, one line per run
       curvature.svg        histogram of log(H^2), H the discrete mean curvature of the final
                            frame at interior vertices (first run vs last run)
       summary.txt          per run: vertices, steps and unconverged steps, final IP, potential,
                            Newton iterations, seconds, the reference mesh's worst MIPS and
                            smallest area ratio over the frames
   Depends on rcloth.h (declarations), scenes.h, curvature.h, picture.h. */
#ifndef RCLOTH_DEMO_H
#define RCLOTH_DEMO_H
#include <stdio.h>
#include "scenes.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { DM_BOTH = 0, DM_ADAPTIVE = 1, DM_FIXED = 2 };

typedef struct dm_options {
    const char *scene;      /* scene name (default "sphere_drape") */
    const char *outdir;     /* output folder (default "out/<scene>"); created if missing */
    int verts;              /* target vertex count, 0 = scene default */
    int frames;             /* frames to simulate, 0 = scene default */
    int steps;              /* > 0: simulate this many time steps instead (overrides frames; more
                               than INT_MAX steps from frames is refused: -1) */
    const char *variant;    /* non-NULL: run only the scene's variant of this label (with mode) */
    double quality_weight;  /* >= 0: the regulariser's weight in every adaptive variant (0 = off);
                               < 0 (default): each variant's own */
    int mode;               /* DM_BOTH (every variant of the scene), DM_ADAPTIVE (the adaptive
                               variants), DM_FIXED (the fixed one) */
    int threads;            /* OpenMP threads per sim (default 1), 0 = runtime default */
    int parallel;           /* 1: run the variants concurrently, one thread each (needs OpenMP) */
    double dt;              /* time step, s; 0 = scene default */
    double thickness;       /* cloth thickness, m; 0 = scene default */
    double tol;             /* solver tolerance (def.tol); 0 = library default */
    int obj_every;          /* write OBJ frames every k frames (and always the first and last); 0 = none */
    int pictures;           /* 1: write the PNG and SVG files */
    int panel_px;           /* width of one picture panel in pixels (default 640) */
    int static_solve;       /* 1: after the frames, rc_sim_solve_static (equilibrium energy) */
    FILE *log;              /* progress lines (default stdout; NULL in dm_default_options = stdout) */
    int quiet;              /* 1: no progress lines */
} dm_options;

typedef struct dm_run_result {
    char label[32];
    int status;             /* rc_status of the run (RC_OK) */
    int nv, nt, frames_done;
    int steps_done;         /* time steps taken */
    int unconverged_steps;  /* steps that ended RC_OK with converged = 0 (rc_step_stats) */
    double max_mips;        /* worst MIPS of the reference mesh against the initial one, over the
                               frames and the static solve (2 = undistorted; stays 2 in the fixed
                               mode); NaN if not measured (a run not created, no memory) */
    double min_area_ratio;  /* smallest reference triangle area / its initial area, likewise */
    double ip;              /* incremental potential at the end of the last step */
    double potential;       /* stretch + bend + gravity of the final state, J */
    double stretch, bend, gravity;
    int newton_total, outer_total;
    double seconds;         /* solver seconds (sum of step t_total) */
    int curvature_samples;  /* interior vertices with a finite log(H^2) */
    double mean_log_h2;
    int static_converged;   /* --static: 1 equilibrium reached, 0 not; -1 no static solve */
} dm_run_result;

typedef struct dm_result {
    int nruns;
    dm_run_result run[SC_MAX_VARIANTS];
} dm_result;

dm_options dm_default_options(void);
/* Returns 0 on success, -1 on a bad option, unknown scene or variant, -2 if a run failed, -3 if an
   output file could not be written. r (may be NULL) receives per-run figures in any case. */
int dm_run(const dm_options *o, dm_result *r);

/* MIPS = |J|_F^2 / det J of each triangle's map J from the reference u0 to u (>= 2, HUGE_VAL if
   inverted or degenerate), and (area_ratio, may be NULL) det J = its area in u over its area in u0
   (negative if inverted). */
void dm_mips(int nt, const int *tris, const double *u0, const double *u, double *mips, double *area_ratio);

#ifdef __cplusplus
}
#endif
#endif /* RCLOTH_DEMO_H */
