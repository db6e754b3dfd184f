/* examples/picture_demo.c - renders a wavy cloth sheet over a sphere with the picture helpers and
   writes build/picture_demo.png (plus the side-by-side, reference-mesh and plot outputs below).
   Build and run: make picture-demo   (or cc -O2 examples/picture_demo.c examples/common/picture.c -lm) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "common/picture.h"

/* An n x n grid sheet over [-1, 1]^2 with a wave z = 0.12 sin(4x) cos(3y) and a sag, 0.6 above z = 0.
   graded != 0 grades the reference mesh: grid lines crowd towards x = 0 (u -> sign(u) |u|^1.6). */
static int make_sheet(int n, int graded, double **x, double **uv, int **tris, int *nv, int *nt)
{
    int i, j, t = 0;
    *nv = (n + 1) * (n + 1);
    *nt = 2 * n * n;
    *x = (double *)malloc(sizeof(double) * 3 * (size_t)*nv);
    *uv = (double *)malloc(sizeof(double) * 2 * (size_t)*nv);
    *tris = (int *)malloc(sizeof(int) * 3 * (size_t)*nt);
    if (!*x || !*uv || !*tris) return -1;
    for (j = 0; j <= n; j++)
        for (i = 0; i <= n; i++) {
            int v = j * (n + 1) + i;
            double u = -1.0 + 2.0 * i / n, w = -1.0 + 2.0 * j / n, r2;
            if (graded) u = (u < 0 ? -1.0 : 1.0) * pow(fabs(u), 1.6);
            (*uv)[2 * v] = u; (*uv)[2 * v + 1] = w;
            r2 = u * u + w * w;
            (*x)[3 * v] = u;
            (*x)[3 * v + 1] = w;
            /* wave plus a sag around the sphere below */
            (*x)[3 * v + 2] = 0.6 + 0.12 * sin(4.0 * u) * cos(3.0 * w) - 0.35 * exp(-3.0 * r2);
        }
    for (j = 0; j < n; j++)
        for (i = 0; i < n; i++) {
            int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            (*tris)[3 * t] = a; (*tris)[3 * t + 1] = b; (*tris)[3 * t + 2] = d; t++;
            (*tris)[3 * t] = a; (*tris)[3 * t + 1] = d; (*tris)[3 * t + 2] = c; t++;
        }
    return 0;
}

/* render sheet + sphere at 2x and downsample (supersampling anti-aliasing) */
static int render(int n, int graded, int W, int H, pic_image *out)
{
    static const double view[3] = {-1.0, 1.6, -0.9};
    static const double center[3] = {0.0, 0.0, 0.0};
    double *x, *uv, bmin[3], bmax[3];
    int *tris, nv, nt, r = -1;
    pic_mesh sphere;
    pic_camera cam;
    pic_image big;
    pic_style cloth = pic_default_style(), obst = pic_default_style();
    if (make_sheet(n, graded, &x, &uv, &tris, &nv, &nt) != 0) return -1;
    if (pic_make_sphere(&sphere, center, 0.45, 48, 24) != 0) return -1;
    pic_bounds_reset(bmin, bmax);
    pic_bounds_add(bmin, bmax, nv, x);
    pic_bounds_add(bmin, bmax, sphere.nv, sphere.x);
    if (pic_camera_frame(&cam, bmin, bmax, view, NULL, 35.0, (double)W / H) != 0) return -1;
    {
        const double *sets[2];
        int counts[2];
        sets[0] = x; sets[1] = sphere.x; counts[0] = nv; counts[1] = sphere.nv;
        if (pic_camera_fit(&cam, 2, counts, sets, (double)W / H) != 0) return -1;
    }
    if (pic_image_init(&big, 2 * W, 2 * H, NULL) != 0) return -1;
    cloth.wire = 1;
    cloth.wire_px = 2.0;  /* at 2x supersampling: 1 px after downsampling */
    obst.color[0] = 200; obst.color[1] = 200; obst.color[2] = 195;
    if (pic_draw_mesh(&big, &cam, sphere.nv, sphere.x, sphere.nt, sphere.tris, &obst) == 0 &&
        pic_draw_mesh(&big, &cam, nv, x, nt, tris, &cloth) == 0 &&
        pic_image_downsample(&big, 2, out) == 0) r = 0;
    pic_image_free(&big);
    pic_mesh_free(&sphere);
    free(x); free(uv); free(tris);
    return r;
}

int main(void)
{
    pic_image a, b, both;
    if (render(24, 1, 640, 480, &a) != 0 || pic_image_write_png(&a, "build/picture_demo.png") != 0) {
        fprintf(stderr, "picture_demo: rendering failed\n");
        return 1;
    }
    if (render(16, 0, 480, 360, &b) != 0) return 1;
    {
        pic_image a2;
        if (render(24, 1, 480, 360, &a2) != 0) return 1;
        if (pic_side_by_side(&a2, "adaptive", &b, "fixed", &both) != 0 ||
            pic_image_write_png(&both, "build/picture_demo_side.png") != 0) return 1;
        pic_image_free(&a2);
    }
    /* the graded reference mesh, coloured by the aspect ratio of each reference triangle */
    {
        double *x, *uv, *q;
        int *tris, nv, nt, t;
        pic_image m;
        if (make_sheet(24, 1, &x, &uv, &tris, &nv, &nt) != 0) return 1;
        q = (double *)malloc(sizeof(double) * (size_t)nt);
        if (!q) return 1;
        for (t = 0; t < nt; t++) {
            /* 4 sqrt(3) A / sum |e|^2: 1 for equilateral, -> 0 for slivers; plotted as 1 - that */
            const double *p0 = uv + 2 * tris[3 * t], *p1 = uv + 2 * tris[3 * t + 1], *p2 = uv + 2 * tris[3 * t + 2];
            double A = 0.5 * fabs((p1[0] - p0[0]) * (p2[1] - p0[1]) - (p1[1] - p0[1]) * (p2[0] - p0[0]));
            double s = (p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1])
                     + (p2[0] - p1[0]) * (p2[0] - p1[0]) + (p2[1] - p1[1]) * (p2[1] - p1[1])
                     + (p0[0] - p2[0]) * (p0[0] - p2[0]) + (p0[1] - p2[1]) * (p0[1] - p2[1]);
            q[t] = 1.0 - 4.0 * sqrt(3.0) * A / s;
        }
        if (pic_image_init(&m, 500, 500, NULL) != 0 ||
            pic_draw_mesh2d(&m, nv, uv, nt, tris, q, 0.0, 1.0, 10, 1.0) != 0 ||
            pic_image_write_png(&m, "build/picture_demo_mesh2d.png") != 0 ||
            pic_write_svg_mesh2d("build/picture_demo_mesh2d.svg", nv, uv, nt, tris, q, 0.0, 1.0) != 0) return 1;
        pic_image_free(&m);
        free(x); free(uv); free(tris); free(q);
    }
    /* plots with synthetic data */
    {
        double e1[60], e2[60], h1[2000], h2[3000];
        pic_series s[2];
        int i;
        for (i = 0; i < 60; i++) { e1[i] = 2.0 + 3.0 * exp(-i / 8.0); e2[i] = 2.4 + 3.0 * exp(-i / 12.0); }
        s[0].x = NULL; s[0].y = e1; s[0].n = 60; s[0].label = "adaptive";
        s[1].x = NULL; s[1].y = e2; s[1].n = 60; s[1].label = "fixed";
        for (i = 0; i < 2000; i++) h1[i] = -4.0 + 1.5 * sin(i * 0.7) * cos(i * 1.3) + 0.001 * i;
        for (i = 0; i < 3000; i++) h2[i] = -2.5 + 1.5 * sin(i * 0.9) * cos(i * 0.4) + 0.0005 * i;
        if (pic_write_svg_lines("build/picture_demo_energy.svg", "Potential energy per frame", "frame",
                                "energy (J)", 2, s, 0) != 0 ||
            pic_write_svg_histogram("build/picture_demo_hist.svg", "Mean curvature", "log(H^2)",
                                    h1, 2000, "adaptive", h2, 3000, "fixed", 40) != 0) return 1;
    }
    pic_image_free(&a); pic_image_free(&b); pic_image_free(&both);
    printf("wrote build/picture_demo.png, build/picture_demo_side.png, build/picture_demo_mesh2d.{png,svg}, "
           "build/picture_demo_energy.svg, build/picture_demo_hist.svg\n");
    return 0;
}
