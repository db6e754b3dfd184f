/* examples/rcloth.c - command-line runner for every example scene.

     build/rcloth [scene] [options]        (build/rcloth --help lists scenes and options)

   Runs the scene in its variants (adaptive and fixed, at the same vertex count) and writes OBJ
   frames, pictures and plots into the output folder (see examples/common/demo.h). Exit code 0 on
   success, 1 if a run failed or an output could not be written, 2 on a bad command line. */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"
#include "common/demo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    int i;
    fprintf(f,
            "usage: rcloth [scene] [options]\n"
            "\n"
            "scenes:\n");
    for (i = 0; i < sc_num_scenes(); i++) {
        const sc_info *s = sc_scene_at(i);
        int k;
        fprintf(f, "  %-16s %s\n  %-16s (default %d verts, dt %g s, %d frames; runs:", s->name, s->summary, "", s->default_verts,
                s->default_dt, s->default_frames);
        for (k = 0; k < s->nvariants; k++) fprintf(f, " %s", s->variants[k].label);
        fprintf(f, ")\n");
    }
    fprintf(f,
            "\n"
            "options:\n"
            "  --scene NAME      scene to run (default sphere_drape; also the first bare argument)\n"
            "  --verts N         target vertex count (same for every run)\n"
            "  --frames N        number of frames (a frame is round(0.04 s / dt) steps, at least one: 0.04 s\n"
            "                    when dt divides it; the run's first line says how long)\n"
            "  --steps N         number of time steps instead (the last frame takes what is left; of\n"
            "                    --frames and --steps the later one counts)\n"
            "  --mode M          adaptive | fixed | both (default both: every run of the scene side by side;\n"
            "                    adaptive: every adaptive run, e.g. didactic_drape's two)\n"
            "  --adaptive        same as --mode adaptive;  --fixed: same as --mode fixed\n"
            "  --variant LABEL   only the run of this label (the labels are listed with the scenes above)\n"
            "  --quality-weight W  the mesh-quality regulariser's weight in every adaptive run, didactic_drape's\n"
            "                    no_regulariser too (0 = off; default: the run's own, 1 but for no_regulariser)\n"
            "  --threads N       OpenMP threads per simulation (default 1; 0 = all cores; more threads\n"
            "                    than idle cores make OpenMP slow: see rc_sim_def.num_threads)\n"
            "  --parallel        run the variants at the same time, one thread each\n"
            "  --out DIR         output folder (default out/<scene>)\n"
            "  --dt S            time step in seconds\n"
            "  --thickness M     cloth thickness in metres, any scene (default the scene's material: cotton\n"
            "                    0.3 mm in most; the density stays, so the mass scales with it)\n"
            "  --tol T           solver tolerance (default 1e-4, 1/s)\n"
            "  --obj-every K     write OBJ frames every K frames (0 = none; default 1)\n"
            "  --no-pictures     skip the PNG and SVG files\n"
            "  --static          finish with a static equilibrium solve\n"
            "  --small           reduced size for CI: 49 vertices, 3 frames (options after it override)\n"
            "  --quiet           no progress lines\n"
            "  --list            print the scene names and exit\n"
            "  -h, --help        this text\n"
            "\n"
            "output, in the folder (--out):\n"
            "  <run>/x_NNNN.obj  frame NNNN's world positions (v) with the reference uv (vt); frame 0 is\n"
            "                    the initial state; with --obj-every K, every K-th frame, the first and the\n"
            "                    last (unless a step failed)\n"
            "  <run>/u_NNNN.obj  frame NNNN's reference mesh: v = (u, 0), the same faces\n"
            "                    (frames an earlier run left in the scene's run folders are removed first,\n"
            "                    and its pictures with --no-pictures)\n"
            "  summary.txt       one line per run: steps, unconverged steps, final IP, potential,\n"
            "                    iterations, solver time, the reference mesh's max MIPS and min area ratio\n"
            "  final.png, reference.png, energy.svg, curvature.svg   pictures (--no-pictures: none)\n"
            "and on stdout, last, one line per run: final <run> IP ... potential ... J, then the same\n"
            "counts. Exit status: 0 done (also with unconverged steps: see the counts), 1 a run failed or\n"
            "an output could not be written, 2 a bad command line.\n");
}

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, "rcloth: %s%s%s\n\n", msg, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    return 2;
}

/* strict number parsing: the whole argument must be a number (>= 0 where zero_ok) */
static int parse_int(const char *s, int lo, int *out)
{
    char *end;
    long v;
    if (!s) return 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > 100000000L) return 0;
    *out = (int)v;
    return 1;
}

static int parse_double(const char *s, int zero_ok, double *out)
{
    char *end;
    double v;
    if (!s) return 0;
    v = strtod(s, &end);
    if (end == s || *end || !(zero_ok ? v >= 0.0 : v > 0.0) || v > 1e6) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    dm_options o = dm_default_options();
    dm_result res;
    int i, rc, small = 0;
    time_t t0;
    const char *scene = NULL;
    o.scene = NULL;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--list")) {
            int k;
            for (k = 0; k < sc_num_scenes(); k++) printf("%s\n", sc_scene_at(k)->name);
            return 0;
        }
        else if (!strcmp(a, "--scene")) { if (!v) return bad("missing value", a); scene = v; i++; }
        else if (!strcmp(a, "--verts")) { if (!parse_int(v, 4, &o.verts)) return bad("--verts needs an integer >= 4", v); i++; }
        else if (!strcmp(a, "--frames")) { if (!parse_int(v, 1, &o.frames)) return bad("--frames needs an integer >= 1", v); o.steps = 0; i++; }
        else if (!strcmp(a, "--steps")) { if (!parse_int(v, 1, &o.steps)) return bad("--steps needs an integer >= 1", v); i++; }
        else if (!strcmp(a, "--variant")) { if (!v || !*v) return bad("missing value", a); o.variant = v; i++; }
        else if (!strcmp(a, "--quality-weight")) {
            if (!parse_double(v, 1, &o.quality_weight)) return bad("--quality-weight needs a number in [0, 1e6]", v);
            i++;
        }
        else if (!strcmp(a, "--threads")) { if (!parse_int(v, 0, &o.threads)) return bad("--threads needs an integer >= 0", v); i++; }
        else if (!strcmp(a, "--obj-every")) { if (!parse_int(v, 0, &o.obj_every)) return bad("--obj-every needs an integer >= 0", v); i++; }
        else if (!strcmp(a, "--out")) { if (!v || !*v) return bad("missing value", a); o.outdir = v; i++; }
        else if (!strcmp(a, "--dt")) { if (!parse_double(v, 0, &o.dt)) return bad("--dt needs a positive number", v); i++; }
        else if (!strcmp(a, "--thickness")) { if (!parse_double(v, 0, &o.thickness)) return bad("--thickness needs a positive number", v); i++; }
        else if (!strcmp(a, "--tol")) { if (!parse_double(v, 0, &o.tol)) return bad("--tol needs a positive number", v); i++; }
        else if (!strcmp(a, "--mode")) {
            if (!v) return bad("missing value", a);
            if (!strcmp(v, "adaptive")) o.mode = DM_ADAPTIVE;
            else if (!strcmp(v, "fixed")) o.mode = DM_FIXED;
            else if (!strcmp(v, "both")) o.mode = DM_BOTH;
            else return bad("--mode is adaptive, fixed or both", v);
            i++;
        }
        else if (!strcmp(a, "--adaptive")) o.mode = DM_ADAPTIVE;
        else if (!strcmp(a, "--fixed")) o.mode = DM_FIXED;
        else if (!strcmp(a, "--parallel")) o.parallel = 1;
        else if (!strcmp(a, "--no-pictures")) o.pictures = 0;
        else if (!strcmp(a, "--static")) o.static_solve = 1;
        else if (!strcmp(a, "--small")) { small = 1; o.verts = 49; o.frames = 3; o.steps = 0; }   /* later options still override */
        else if (!strcmp(a, "--quiet")) o.quiet = 1;
        else if (a[0] == '-') return bad("unknown option", a);
        else if (!scene) scene = a;
        else return bad("more than one scene given", a);
    }
    if (!scene) scene = "sphere_drape";
    if (!sc_find_scene(scene)) return bad("unknown scene", scene);
    if (o.variant) {   /* a label of this scene's, of the mode asked for */
        const sc_info *info = sc_find_scene(scene);
        int k, found = 0;
        for (k = 0; k < info->nvariants; k++)
            if (!strcmp(info->variants[k].label, o.variant) &&
                (o.mode == DM_BOTH || (o.mode == DM_ADAPTIVE) == (info->variants[k].adaptive != 0))) found = 1;
        if (!found) return bad("--variant: no run of that label in this scene (and --mode)", o.variant);
    }
    o.scene = scene;
    if (small) o.panel_px = 320;   /* CI size: a few seconds for any scene */
    t0 = time(NULL);
    rc = dm_run(&o, &res);
    if (!o.quiet) printf("%s: %s, wall %.0f s\n", scene, rc == 0 ? "done" : rc == -2 ? "a run failed" : rc == -1 ? "bad options" : "could not write the outputs",
                         difftime(time(NULL), t0));
    /* errors reach stderr with --quiet too, with the folder that could not be written */
    if (rc == -2) fprintf(stderr, "rcloth: %s: a run failed (see %s/summary.txt)\n", scene, o.outdir ? o.outdir : "out/<scene>");
    else if (rc == -1) fprintf(stderr, "rcloth: %s: options the run cannot take (see the lines above)\n", scene);
    else if (rc != 0) fprintf(stderr, "rcloth: %s: could not write the outputs to %s\n", scene, o.outdir ? o.outdir : "out/<scene>");
    for (i = 0; i < res.nruns && rc != -1; i++)
        printf("final %-15s IP %.8e  potential %.8e J  steps %d  unconverged %d  reference max MIPS %.4g  min area ratio %.4g\n",
               res.run[i].label, res.run[i].ip, res.run[i].potential, res.run[i].steps_done, res.run[i].unconverged_steps,
               res.run[i].max_mips, res.run[i].min_area_ratio);
    return rc == 0 ? 0 : rc == -1 ? 2 : 1;
}
