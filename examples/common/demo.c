/* examples/common/demo.c - the side-by-side run pipeline (see demo.h). */
#include "demo.h"
#include "curvature.h"
#include "picture.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif

dm_options dm_default_options(void)
{
    dm_options o;
    memset(&o, 0, sizeof o);
    o.scene = "sphere_drape";
    o.mode = DM_BOTH;
    o.obj_every = 1;
    o.pictures = 1;
    o.panel_px = 640;
    o.threads = 1;   /* as the library's default: threads are opt-in (rc_sim_def.num_threads) */
    o.quality_weight = -1.0;
    return o;
}

void dm_mips(int nt, const int *tris, const double *u0, const double *u, double *mips, double *area_ratio)
{
    int t;
    for (t = 0; t < nt; t++) {
        const int *v = tris + 3 * t;
        /* D = [u1-u0, u2-u0] (columns), J = D(u) D(u0)^-1, MIPS = |J|_F^2 / det J */
        double a = u0[2 * v[1]] - u0[2 * v[0]], b = u0[2 * v[2]] - u0[2 * v[0]];
        double c = u0[2 * v[1] + 1] - u0[2 * v[0] + 1], d = u0[2 * v[2] + 1] - u0[2 * v[0] + 1];
        double p = u[2 * v[1]] - u[2 * v[0]], q = u[2 * v[2]] - u[2 * v[0]];
        double r = u[2 * v[1] + 1] - u[2 * v[0] + 1], s = u[2 * v[2] + 1] - u[2 * v[0] + 1];
        double det0 = a * d - b * c, J[4], det;
        if (det0 == 0.0) { mips[t] = HUGE_VAL; if (area_ratio) area_ratio[t] = HUGE_VAL; continue; }
        /* D0^-1 = [d -b; -c a] / det0 */
        J[0] = (p * d - q * c) / det0; J[1] = (-p * b + q * a) / det0;
        J[2] = (r * d - s * c) / det0; J[3] = (-r * b + s * a) / det0;
        det = J[0] * J[3] - J[1] * J[2];
        mips[t] = det > 0.0 ? (J[0] * J[0] + J[1] * J[1] + J[2] * J[2] + J[3] * J[3]) / det : HUGE_VAL;
        if (area_ratio) area_ratio[t] = det;   /* det J = A(u) / A(u0) */
    }
}

/* ---------------------------------------------------------------- files */

static int dm__mkdir(const char *path)
{
    /* creates every missing component of path (like mkdir -p) */
    char buf[1024];
    size_t i, n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    }
    return 0;
}

/* 1 if name is an OBJ frame's file name: x_ or u_, four or more digits, .obj */
static int dm__is_frame_name(const char *name)
{
    size_t n = strlen(name), i;
    if (n < 10 || (name[0] != 'x' && name[0] != 'u') || name[1] != '_' || strcmp(name + n - 4, ".obj") != 0) return 0;
    for (i = 2; i < n - 4; i++) if (name[i] < '0' || name[i] > '9') return 0;
    return 1;
}
/* Removes the OBJ frames (x_NNNN.obj, u_NNNN.obj) an earlier run left in dir/label, so that the
   folder holds one run's frames (a missing folder is nothing to remove) */
static void dm__remove_frames(const char *dir, const char *label)
{
    char path[1200];
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/%s", dir, label);
    d = opendir(path);
    if (!d) return;
    while ((e = readdir(d)) != NULL)
        if (dm__is_frame_name(e->d_name)) {
            char file[1500];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            remove(file);
        }
    closedir(d);
}

/* ---------------------------------------------------------------- one run */

typedef struct dm__run {
    const sc_variant *var;
    sc_scene sc;
    double *time, *energy;     /* per frame (frames + 1) */
    double *H;                 /* nv, final frame */
    double *logh2;
    int nlog;
    dm_run_result res;
    int write_failed;
    int nwarn;                 /* the sim's warnings printed so far */
    double *tri_scratch;       /* 2 nt: MIPS and area ratios of the reference mesh */
} dm__run;

/* prints the sim's last warning when it issued a new one (rc_sim_warning_count) */
static void dm__report_warning(dm__run *R, FILE *log)
{
    int n = rc_sim_warning_count(R->sc.sim);
    if (n == R->nwarn) return;
    R->nwarn = n;
    if (log) { fprintf(log, "%-15s warning: %s\n", R->var->label, rc_sim_last_warning(R->sc.sim)); fflush(log); }
}

static void dm__frame_obj(dm__run *R, const char *dir, int frame, int *failed)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s/x_%04d.obj", dir, R->var->label, frame);
    if (rc_sim_write_obj(R->sc.sim, path) != RC_OK) *failed = 1;
    snprintf(path, sizeof path, "%s/%s/u_%04d.obj", dir, R->var->label, frame);
    if (rc_sim_write_reference_obj(R->sc.sim, path) != RC_OK) *failed = 1;
}

static void dm__potential(dm__run *R, double *s, double *b, double *g)
{
    *s = *b = *g = NAN;
    rc_sim_potential(R->sc.sim, s, b, g);
}
/* the reference mesh's worst MIPS and smallest area ratio (against the initial mesh) so far */
static void dm__reference_quality(dm__run *R)
{
    const rc_sim *s = R->sc.sim;
    int nt = rc_sim_num_tris(s), t;
    const double *q = R->tri_scratch, *ar = R->tri_scratch + nt;
    if (!R->tri_scratch) return;
    dm_mips(nt, rc_sim_tris(s), R->sc.mesh.ref_uv, rc_sim_reference(s), R->tri_scratch, R->tri_scratch + nt);
    for (t = 0; t < nt; t++) {
        if (!(q[t] <= R->res.max_mips)) R->res.max_mips = q[t];
        if (!(ar[t] >= R->res.min_area_ratio)) R->res.min_area_ratio = ar[t];
    }
}

/* a frame is the whole number of steps nearest the scene's frame time, at least one */
static int dm__steps_per_frame(const sc_scene *sc)
{
    int n = (int)floor(sc->info->frame_time / sc->def.dt + 0.5);
    return n < 1 ? 1 : n;
}

static void dm__simulate(dm__run *R, const dm_options *o, const char *dir, int frames, int steps, FILE *log)
{
    int steps_per_frame = dm__steps_per_frame(&R->sc), f, k, nv;
    double s, b, g;
    rc_status st = RC_OK;
    R->tri_scratch = (double *)malloc(sizeof(double) * 2 * (size_t)rc_sim_num_tris(R->sc.sim));
    if (R->tri_scratch) { R->res.max_mips = 0.0; R->res.min_area_ratio = HUGE_VAL; }   /* else NaN: not measured */
    dm__reference_quality(R);
    dm__report_warning(R, log);   /* the scene's set-up may have warned (a thin capsule) */
    dm__potential(R, &s, &b, &g);
    R->time[0] = 0.0;
    R->energy[0] = s + b + g;
    if (o->obj_every > 0) dm__frame_obj(R, dir, 0, &R->write_failed);
    for (f = 1; f <= frames && st == RC_OK; f++) {
        int iters = 0, outer = 0, conv = 1;
        double active = 0.0, secs = 0.0, ip = NAN;
        const char *why = NULL;   /* the last unconverged step's stop reason */
        int nsteps = steps - R->res.steps_done < steps_per_frame ? steps - R->res.steps_done : steps_per_frame;
        for (k = 0; k < nsteps; k++) {
            rc_step_stats ss;
            memset(&ss, 0, sizeof ss);
            st = sc_step(&R->sc, &ss);
            if (st != RC_OK) break;
            dm__report_warning(R, log);
            iters += ss.newton_iters;
            outer += ss.outer_iters;
            active += ss.active_rate / nsteps;
            secs += ss.t_total;
            conv &= ss.converged;
            if (!ss.converged) { why = ss.stop_reason; R->res.unconverged_steps++; }
            ip = ss.ip_end;
            R->res.steps_done++;
        }
        R->res.newton_total += iters;
        R->res.outer_total += outer;
        R->res.seconds += secs;
        R->res.ip = ip;
        dm__potential(R, &s, &b, &g);
        R->time[f] = R->sc.time;
        R->energy[f] = s + b + g;
        R->res.frames_done = f;
        dm__reference_quality(R);
        if (log) {
            char extra[32] = "";
            if (R->sc.def.adaptive) snprintf(extra, sizeof extra, " (outer %d)", outer);
            fprintf(log, "%-15s frame %3d/%d  t %.3f s  iters %4d%s  IP % .6e  active %.2f  %6.2f s%s%s%s%s\n", R->var->label, f,
                    frames, R->sc.time, iters, extra, ip, active, secs, conv ? "" : "  (not converged: ", conv ? "" : why ? why : "?",
                    conv ? "" : ")", st != RC_OK ? "  FAILED" : "");
            fflush(log);
        }
        if (st == RC_OK && o->obj_every > 0 && (f % o->obj_every == 0 || f == frames))
            dm__frame_obj(R, dir, f, &R->write_failed);
    }
    if (st == RC_OK && o->static_solve) {
        rc_step_stats ss;
        st = rc_sim_solve_static(R->sc.sim, &ss);
        if (st == RC_OK) { R->res.ip = ss.ip_end; dm__reference_quality(R); }   /* statics moves u too (adaptive) */
        R->res.static_converged = st == RC_OK && ss.converged;
        if (log)
            fprintf(log, "%-15s static solve: %s, %s%s, %d Newton iterations\n", R->var->label, rc_status_string(st),
                    st != RC_OK ? "-" : ss.converged ? "converged" : "NOT converged: ",
                    st == RC_OK && !ss.converged && ss.stop_reason ? ss.stop_reason : "", ss.newton_iters);
        if (st == RC_OK) dm__report_warning(R, log);
    }
    if (st != RC_OK && log) fprintf(log, "%-15s failed: %s (%s)\n", R->var->label, rc_status_string(st), rc_sim_last_error(R->sc.sim));
    R->res.status = (int)st;
    dm__potential(R, &R->res.stretch, &R->res.bend, &R->res.gravity);
    R->res.potential = R->res.stretch + R->res.bend + R->res.gravity;
    free(R->tri_scratch); R->tri_scratch = NULL;
    nv = rc_sim_num_verts(R->sc.sim);
    R->res.nv = nv;
    R->res.nt = rc_sim_num_tris(R->sc.sim);
    R->H = (double *)malloc((size_t)nv * sizeof(double));
    R->logh2 = (double *)malloc((size_t)nv * sizeof(double));
    if (R->H && R->logh2 &&
        curv_mean_curvature(nv, rc_sim_positions(R->sc.sim), R->res.nt, rc_sim_tris(R->sc.sim), R->H) == 0) {
        double sum = 0.0;
        R->nlog = curv_log_h2(nv, R->H, R->logh2);
        for (k = 0; k < R->nlog; k++) sum += R->logh2[k];
        R->res.curvature_samples = R->nlog;
        R->res.mean_log_h2 = R->nlog ? sum / R->nlog : NAN;
    }
}

/* ---------------------------------------------------------------- pictures */

/* n panels next to each other on white, a caption centred above each, an optional footer line. */
static int dm__compose(int n, const pic_image *im, const char *const *caption, const char *footer, pic_image *out)
{
    static const unsigned char ink[3] = { 20, 20, 30 };
    const int gap = 16, scale = im[0].w >= 400 ? 2 : 1;
    int W = gap, H, hmax = 0, k, y, x0 = gap, cap_h = gap + 10 * scale + gap / 2, foot_h = footer ? 10 * scale + gap : 0;
    for (k = 0; k < n; k++) { W += im[k].w + gap; if (im[k].h > hmax) hmax = im[k].h; }
    H = cap_h + hmax + gap + foot_h;
    if (pic_image_init(out, W, H, NULL) != 0) return -1;
    for (k = 0; k < n; k++) {
        int top = cap_h + (hmax - im[k].h) / 2;
        for (y = 0; y < im[k].h; y++)
            memcpy(out->rgb + 3 * ((size_t)(top + y) * (size_t)W + (size_t)x0), im[k].rgb + 3 * (size_t)y * (size_t)im[k].w,
                   3 * (size_t)im[k].w);
        if (caption[k]) pic_draw_text(out, x0 + (im[k].w - pic_text_width(caption[k], scale)) / 2, gap, caption[k], scale, ink);
        x0 += im[k].w + gap;
    }
    if (footer) pic_draw_text(out, gap, cap_h + hmax + gap / 2, footer, scale, ink);
    return 0;
}

/* Triangle meshes of the obstacles for drawing; a horizontal plane becomes a floor quad under the
   cloth bounds (grown by half their size). Returns the number of meshes made. */
static int dm__obstacle_meshes(const sc_scene *sc, const double bmin[3], const double bmax[3], pic_mesh *m)
{
    int k, n = 0;
    for (k = 0; k < sc->nobs; k++) {
        const sc_obstacle *o = &sc->obs[k];
        double p[3], q[3];
        int c, ok = -1;
        for (c = 0; c < 3; c++) { p[c] = o->p[c] + o->offset[c]; q[c] = o->q[c] + o->offset[c]; }
        memset(&m[n], 0, sizeof m[n]);
        if (o->kind == SC_SPHERE) ok = pic_make_sphere(&m[n], p, o->radius, 64, 32);
        else if (o->kind == SC_CAPSULE) { sc_capsule_world(o, p, q); ok = pic_make_capsule(&m[n], p, q, o->radius, 32, 8); }
        else if (o->kind == SC_MESH && o->mesh_nv > 0 && o->mesh_nt > 0) {   /* a mesh obstacle (dress body, pelvis): a copy of its current vertices */
            m[n].x = (double *)malloc(sizeof(double) * 3 * (size_t)o->mesh_nv);
            m[n].tris = (int *)malloc(sizeof(int) * 3 * (size_t)o->mesh_nt);
            if (m[n].x && m[n].tris) {
                memcpy(m[n].x, o->mesh_x, sizeof(double) * 3 * (size_t)o->mesh_nv);
                memcpy(m[n].tris, o->mesh_tris, sizeof(int) * 3 * (size_t)o->mesh_nt);
                m[n].nv = o->mesh_nv; m[n].nt = o->mesh_nt; ok = 0;
            } else pic_mesh_free(&m[n]);
        }
        else if (o->kind == SC_BOX) {
            double lo[3], hi[3];
            for (c = 0; c < 3; c++) { lo[c] = p[c] - o->q[c]; hi[c] = p[c] + o->q[c]; }
            ok = pic_make_box(&m[n], lo, hi);
        } else if (o->kind == SC_PLANE && fabs(o->q[2]) > 0.99 * sqrt(o->q[0] * o->q[0] + o->q[1] * o->q[1] + o->q[2] * o->q[2])) {
            double cx = 0.5 * (bmin[0] + bmax[0]), cy = 0.5 * (bmin[1] + bmax[1]);
            double hx = 0.75 * (bmax[0] - bmin[0]) + 0.05, hy = 0.75 * (bmax[1] - bmin[1]) + 0.05;
            double lo[3], hi[3];
            lo[0] = cx - hx; lo[1] = cy - hy; lo[2] = p[2] - 0.01;
            hi[0] = cx + hx; hi[1] = cy + hy; hi[2] = p[2];
            ok = pic_make_box(&m[n], lo, hi);   /* a thin slab reads better than a bare quad */
        }
        if (ok == 0) n++;
    }
    return n;
}

static int dm__pictures(dm__run *runs, int nruns, const dm_options *o, const char *dir)
{
    static const unsigned char obstacle_rgb[3] = { 200, 196, 188 };
    const int W = o->panel_px > 64 ? o->panel_px : 640, Hh = W * 3 / 4, ss = 2;
    pic_image panel[SC_MAX_VARIANTS], big, out;
    const char *cap[SC_MAX_VARIANTS];
    char capbuf[SC_MAX_VARIANTS][96], path[1200], footer[200];
    double bmin[3], bmax[3], cmin[3], cmax[3];
    pic_camera cam;
    pic_mesh obs[SC_MAX_OBSTACLES];
    int nobs, k, j, err = 0;
    const sc_scene *sc0 = &runs[0].sc;

    /* one camera for every panel: frame the cloth of all runs and the obstacles near it */
    pic_bounds_reset(cmin, cmax);
    for (k = 0; k < nruns; k++) pic_bounds_add(cmin, cmax, rc_sim_num_verts(runs[k].sc.sim), rc_sim_positions(runs[k].sc.sim));
    nobs = dm__obstacle_meshes(sc0, cmin, cmax, obs);
    memcpy(bmin, cmin, sizeof bmin); memcpy(bmax, cmax, sizeof bmax);
    for (k = 0; k < nobs; k++) pic_bounds_add(bmin, bmax, obs[k].nv, obs[k].x);
    /* tall obstacles (the skirt's body, floors) would shrink the cloth: clamp the box to the cloth's
       neighbourhood */
    for (j = 0; j < 3; j++) {
        double pad = 0.35 * (cmax[j] - cmin[j]) + 0.05;
        if (bmin[j] < cmin[j] - pad) bmin[j] = cmin[j] - pad;
        if (bmax[j] > cmax[j] + pad) bmax[j] = cmax[j] + pad;
    }
    if (pic_camera_frame(&cam, bmin, bmax, sc0->info->view_dir, NULL, 30.0, (double)W / Hh) != 0) err = -1;
    memset(panel, 0, sizeof panel);
    for (k = 0; k < nruns && !err; k++) {
        pic_style cs = pic_default_style(), os = pic_default_style();
        const rc_sim *s = runs[k].sc.sim;
        memset(&big, 0, sizeof big);
        if (pic_image_init(&big, W * ss, Hh * ss, NULL) != 0) { err = -1; break; }
        cs.wire = 1; cs.wire_px = 1.0 * ss * 0.6;
        cs.wire_color[0] = 60; cs.wire_color[1] = 70; cs.wire_color[2] = 100;
        memcpy(os.color, obstacle_rgb, 3); memcpy(os.back_color, obstacle_rgb, 3);
        for (j = 0; j < nobs; j++) pic_draw_mesh(&big, &cam, obs[j].nv, obs[j].x, obs[j].nt, obs[j].tris, &os);
        pic_draw_mesh(&big, &cam, rc_sim_num_verts(s), rc_sim_positions(s), rc_sim_num_tris(s), rc_sim_tris(s), &cs);
        if (pic_image_downsample(&big, ss, &panel[k]) != 0) err = -1;
        pic_image_free(&big);
        snprintf(capbuf[k], sizeof capbuf[k], "%s  (%d verts)  V = %.4g J", runs[k].var->label, runs[k].res.nv, runs[k].res.potential);
        cap[k] = capbuf[k];
    }
    for (j = 0; j < nobs; j++) pic_mesh_free(&obs[j]);
    snprintf(footer, sizeof footer, "%s, t = %.2f s (%d frames); V = stretch + bend + gravity", sc0->info->name, sc0->time,
             runs[0].res.frames_done);
    if (!err && dm__compose(nruns, panel, cap, footer, &out) == 0) {
        snprintf(path, sizeof path, "%s/final.png", dir);
        if (pic_image_write_png(&out, path) != 0) err = -3;
        pic_image_free(&out);
    } else if (!err) err = -1;
    for (k = 0; k < nruns; k++) pic_image_free(&panel[k]);

    /* reference meshes, coloured by MIPS against the initial reference */
    memset(panel, 0, sizeof panel);
    for (k = 0; k < nruns && !err; k++) {
        const rc_sim *s = runs[k].sc.sim;
        int nt = rc_sim_num_tris(s);
        double *q = (double *)malloc((size_t)nt * sizeof(double)), qmax = 0.0;
        int side = W * 3 / 4;
        if (!q || pic_image_init(&big, side * ss, side * ss, NULL) != 0) { free(q); err = -1; break; }
        dm_mips(nt, rc_sim_tris(s), runs[k].sc.mesh.ref_uv, rc_sim_reference(s), q, NULL);
        for (j = 0; j < nt; j++) if (q[j] > qmax) qmax = q[j];
        /* edges: thinner when the mesh is dense, so the clustering shows as darker regions */
        pic_draw_mesh2d(&big, rc_sim_num_verts(s), rc_sim_reference(s), nt, rc_sim_tris(s), q, 2.0, 3.0, 12 * ss,
                        runs[k].res.nv > 3000 ? 0.8 : 1.2 * ss * 0.6);
        free(q);
        if (pic_image_downsample(&big, ss, &panel[k]) != 0) err = -1;
        pic_image_free(&big);
        snprintf(capbuf[k], sizeof capbuf[k], "%s: max MIPS %.3g", runs[k].var->label, qmax);
        cap[k] = capbuf[k];
    }
    if (!err && dm__compose(nruns, panel, cap, "reference mesh u; colour = MIPS vs initial u: 2 white, 2.5 orange, >= 3 red", &out) == 0) {
        snprintf(path, sizeof path, "%s/reference.png", dir);
        if (pic_image_write_png(&out, path) != 0) err = -3;
        pic_image_free(&out);
    } else if (!err) err = -1;
    for (k = 0; k < nruns; k++) pic_image_free(&panel[k]);

    /* energy per frame */
    if (!err) {
        pic_series ser[SC_MAX_VARIANTS];
        memset(ser, 0, sizeof ser);   /* gcc -O1 cannot see that nruns >= 1 fills what is read */
        for (k = 0; k < nruns; k++) {
            ser[k].x = runs[k].time; ser[k].y = runs[k].energy;
            ser[k].n = runs[k].res.frames_done + 1; ser[k].label = runs[k].var->label;
        }
        snprintf(path, sizeof path, "%s/energy.svg", dir);
        snprintf(footer, sizeof footer, "%s: potential energy per frame", sc0->info->name);
        if (pic_write_svg_lines(path, footer, "simulated time (s)", "stretch + bend + gravity (J)", nruns, ser, 0) != 0) err = -3;
    }
    /* mean curvature histogram, first run against last (adaptive vs fixed) */
    if (!err && nruns >= 1) {
        const dm__run *a = &runs[0], *b = &runs[nruns - 1];
        snprintf(path, sizeof path, "%s/curvature.svg", dir);
        snprintf(footer, sizeof footer, "%s: mean curvature at interior vertices, final frame", sc0->info->name);
        if (pic_write_svg_histogram(path, footer, "log(H^2), H in 1/m", a->logh2, a->nlog, a->var->label,
                                    b->logh2, nruns > 1 ? b->nlog : 0, nruns > 1 ? b->var->label : NULL, 30) != 0)
            err = -3;
    }
    return err;
}

/* ---------------------------------------------------------------- the pipeline */

int dm_run(const dm_options *o, dm_result *r)
{
    const sc_info *info;
    dm__run runs[SC_MAX_VARIANTS];
    const sc_variant *vars[SC_MAX_VARIANTS];
    char dir[1024], path[1200];
    int nruns = 0, k, frames, steps, err = 0;
    FILE *log;
    if (r) memset(r, 0, sizeof *r);
    if (!o || !(info = sc_find_scene(o->scene ? o->scene : "sphere_drape"))) return -1;
    if (o->verts < 0 || o->frames < 0 || o->steps < 0 || o->dt < 0.0 || o->mode < DM_BOTH || o->mode > DM_FIXED) return -1;
    log = o->quiet ? NULL : (o->log ? o->log : stdout);
    for (k = 0; k < info->nvariants; k++) {
        const sc_variant *v = &info->variants[k];
        if (o->variant && strcmp(o->variant, v->label) != 0) continue;
        if (o->mode == DM_BOTH || (o->mode == DM_ADAPTIVE && v->adaptive) || (o->mode == DM_FIXED && !v->adaptive))
            vars[nruns++] = v;
    }
    if (nruns == 0) return -1;
    if (o->outdir) snprintf(dir, sizeof dir, "%s", o->outdir);
    else snprintf(dir, sizeof dir, "out/%s", info->name);
    if (dm__mkdir(dir) != 0) return -3;
    for (k = 0; k < nruns; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, vars[k]->label);
        if (o->obj_every > 0 && dm__mkdir(path) != 0) return -3;
    }
    /* the folder holds this run only: the frames of every run of the scene (those not run now too),
       and the pictures when none are written */
    for (k = 0; k < info->nvariants; k++) dm__remove_frames(dir, info->variants[k].label);
    if (!o->pictures) {
        static const char *const pics[] = { "final.png", "reference.png", "energy.svg", "curvature.svg" };
        for (k = 0; k < 4; k++) { snprintf(path, sizeof path, "%s/%s", dir, pics[k]); remove(path); }
    }
    memset(runs, 0, sizeof runs);
    for (k = 0; k < nruns; k++) runs[k].res.max_mips = runs[k].res.min_area_ratio = NAN;   /* not measured (a run not created) */
    for (k = 0; k < nruns && !err; k++) {
        sc_params p = sc_default_params();
        dm__run *R = &runs[k];
        rc_status st;
        R->var = vars[k];
        snprintf(R->res.label, sizeof R->res.label, "%s", vars[k]->label);
        R->res.static_converged = -1;
        p.verts = o->verts; p.dt = o->dt; p.thickness = o->thickness; p.tol = o->tol;
        p.threads = o->parallel && nruns > 1 ? 1 : o->threads;
        p.adaptive = vars[k]->adaptive;
        p.quality_weight = vars[k]->adaptive && o->quality_weight >= 0.0 ? o->quality_weight : vars[k]->quality_weight;
        st = sc_create(&R->sc, info, &p);
        if (st != RC_OK) {
            if (log) fprintf(log, "%s/%s: cannot create the scene: %s\n", info->name, vars[k]->label, rc_status_string(st));
            R->res.status = (int)st;
            err = -2;
        }
    }
    /* every run has the scene's dt, so the same steps per frame */
    frames = o->frames > 0 ? o->frames : info->default_frames;
    steps = frames;
    if (runs[0].sc.sim) {
        double spf = dm__steps_per_frame(&runs[0].sc);
        if (o->steps > 0) { steps = o->steps; frames = (int)ceil(steps / spf); }
        else if ((double)frames * spf > INT_MAX) {
            if (log) fprintf(log, "%s: %d frames of %g steps are more than %d steps\n", info->name, frames, spf, INT_MAX);
            err = err ? err : -1;
        } else steps = frames * (int)spf;
    }
    for (k = 0; k < nruns && !err; k++) {
        dm__run *R = &runs[k];
        R->time = (double *)calloc((size_t)frames + 1, sizeof(double));
        R->energy = (double *)calloc((size_t)frames + 1, sizeof(double));
        if (!R->time || !R->energy) {
            if (log) fprintf(log, "%s/%s: out of memory\n", info->name, vars[k]->label);
            R->res.status = (int)RC_ERR_OUT_OF_MEMORY;
            err = -2;
        }
    }
    if (!err) {
        if (log) {
            int spf = dm__steps_per_frame(&runs[0].sc);
            fprintf(log, "%s: %d vertices, %d triangles, dt %g s, %d step%s in %d frame%s of up to %d step%s (%g s), runs:", info->name,
                    runs[0].sc.mesh.num_verts, runs[0].sc.mesh.num_tris, runs[0].sc.def.dt, steps, steps == 1 ? "" : "s", frames,
                    frames == 1 ? "" : "s", spf, spf == 1 ? "" : "s", spf * runs[0].sc.def.dt);
            for (k = 0; k < nruns; k++) fprintf(log, " %s", vars[k]->label);
            fprintf(log, "%s\n", o->parallel && nruns > 1 ? " (in parallel)" : "");
            fflush(log);
        }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nruns) if (o->parallel && nruns > 1)
#endif
        for (k = 0; k < nruns; k++) dm__simulate(&runs[k], o, dir, frames, steps, log);
        for (k = 0; k < nruns; k++) {
            if (runs[k].res.status != (int)RC_OK) err = -2;
            if (runs[k].write_failed) err = err ? err : -3;
        }
    }
    if (!err || err == -2) {
        /* pictures and summary even after a failed step: they show where it went wrong */
        int all = 1;
        for (k = 0; k < nruns; k++) if (!runs[k].sc.sim || !runs[k].time || !runs[k].energy) all = 0;
        if (all && o->pictures) { int e = dm__pictures(runs, nruns, o, dir); if (!err && e) err = e; }
        if (all) {
            FILE *f;
            snprintf(path, sizeof path, "%s/summary.txt", dir);
            f = fopen(path, "w");
            if (!f) err = err ? err : -3;
            for (k = 0; k < nruns; k++) {
                const dm_run_result *q = &runs[k].res;
                char line[600];
                snprintf(line, sizeof line,
                         "%-15s %s  verts %d  tris %d  frames %d  steps %d  unconverged %d  IP %.8e  potential %.8e J (stretch %.4e bend "
                         "%.4e gravity %.4e)  newton %d outer %d  solver %.2f s  mean log(H^2) %.3f  reference: max MIPS %.4g, "
                         "min area ratio %.4g%s\n",
                         q->label, rc_status_string((rc_status)q->status), q->nv, q->nt, q->frames_done, q->steps_done,
                         q->unconverged_steps, q->ip, q->potential, q->stretch, q->bend, q->gravity, q->newton_total, q->outer_total,
                         q->seconds, q->mean_log_h2, q->max_mips, q->min_area_ratio,
                         q->static_converged < 0 ? "" : q->static_converged ? "  static: equilibrium" : "  static: NOT converged (no equilibrium)");
                if (f) fputs(line, f);
                if (log) fputs(line, log);
            }
            if (f && fclose(f) != 0) err = err ? err : -3;
        }
    }
    if (r) { r->nruns = nruns; for (k = 0; k < nruns; k++) r->run[k] = runs[k].res; }
    for (k = 0; k < nruns; k++) {
        sc_destroy(&runs[k].sc);
        free(runs[k].time); free(runs[k].energy); free(runs[k].H); free(runs[k].logh2);
    }
    return err;
}
