/* examples/common/picture.h - dependency-free pictures for the rcloth examples (libc + libm only).

   What is here:
     PNG      pic_write_png / pic_write_png_rgba / pic_encode_png: RGB8 or RGBA8, per-row PNG filter
              chosen by the minimum-sum-of-absolute-differences heuristic, zlib stream made of stored
              blocks (level 0) or one fixed-Huffman deflate block with LZ77 hash-chain matches (level 1).
     RASTER   pic_image (RGB8 + float z-buffer), a look-at camera (perspective or orthographic) that
              frames a bounding box seen along a direction, pic_draw_mesh: Lambert-shaded, two-sided
              triangles with per-object or per-vertex colour and an optional wire overlay.
              pic_make_sphere / pic_make_box / pic_make_capsule build triangle meshes for obstacles.
     MESH 2D  pic_draw_mesh2d (into an image) and pic_write_svg_mesh2d: the flat reference mesh u,
              triangles filled with a per-triangle scalar through a colour map, edges drawn thin.
     PLOTS    pic_write_svg_lines (several series, axes, ticks, legend) and pic_write_svg_histogram
              (two distributions overlaid, as fractions per bin).
     TEXT     a built-in 5x7 ASCII bitmap font: pic_draw_text; pic_side_by_side composes two images
              with captions ("adaptive" / "fixed").

   Every function returning int returns 0 on success and -1 on failure (bad argument, out of
   memory, or file error); nothing is printed, nothing aborts.

   Use: compile examples/common/picture.c with your program (or #include it in exactly one .c file).
   Image rows are stored top row first; pixel (x, y) is at rgb[3*(y*w + x)]. */
#ifndef RCLOTH_PICTURE_H
#define RCLOTH_PICTURE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- PNG */

/* Write an RGB8 image (3*w*h bytes) as a PNG file, compressed with deflate (level 1). */
int pic_write_png(const char *path, int w, int h, const unsigned char *rgb);
/* Same for RGBA8 (4*w*h bytes, straight alpha). */
int pic_write_png_rgba(const char *path, int w, int h, const unsigned char *rgba);
/* Encode a PNG into a malloc'ed buffer (*out, *out_len; free it with free()).
   channels: 3 (RGB) or 4 (RGBA). level: 0 = stored (uncompressed) deflate blocks,
   1 = fixed-Huffman deflate with LZ77 matches. */
int pic_encode_png(int w, int h, int channels, const unsigned char *px, int level,
                   unsigned char **out, size_t *out_len);
/* The checksums PNG and zlib use, exposed for tests. Start with crc = 0 / adler = 1. */
unsigned long pic_crc32(unsigned long crc, const unsigned char *buf, size_t n);
unsigned long pic_adler32(unsigned long adler, const unsigned char *buf, size_t n);

/* ---------------------------------------------------------------- images */

typedef struct pic_image {
    int w, h;
    unsigned char *rgb;  /* 3*w*h bytes, top row first */
    float *z;            /* w*h depth keys, larger = nearer; -FLT_MAX = empty */
} pic_image;

/* Allocate a w x h image filled with the colour bg[3] (NULL = white) and an empty z-buffer. */
int  pic_image_init(pic_image *img, int w, int h, const unsigned char *bg);
void pic_image_free(pic_image *img);
/* Fill with bg (NULL = white) and empty the z-buffer. */
void pic_image_clear(pic_image *img, const unsigned char *bg);
int  pic_image_write_png(const pic_image *img, const char *path);
/* Box-filter downsample by an integer factor (supersampling anti-aliasing): out is allocated
   (w/factor x h/factor). */
int  pic_image_downsample(const pic_image *img, int factor, pic_image *out);

/* ---------------------------------------------------------------- camera */

typedef struct pic_camera {
    double eye[3];       /* camera position */
    double target[3];    /* point looked at (centre of the image) */
    double up[3];        /* world up hint; need not be orthogonal to the view direction */
    double fov_y_deg;    /* vertical field of view in degrees; <= 0 means orthographic */
    double ortho_half_h; /* orthographic only: half the world height that fills the image */
} pic_camera;

/* Grow the box [bmin, bmax] by the nv points x (3*nv). Start from pic_bounds_reset. */
void pic_bounds_reset(double bmin[3], double bmax[3]);
void pic_bounds_add(double bmin[3], double bmax[3], int nv, const double *x);
/* Frame the box: look along view_dir (from the eye towards the scene), up hint (NULL = +z),
   fov_y_deg (<= 0: orthographic), image aspect = width / height. The box's 8 corners all fit
   with a 6 % margin. Returns -1 on a degenerate input (empty box, zero view_dir). */
int pic_camera_frame(pic_camera *cam, const double bmin[3], const double bmax[3],
                     const double view_dir[3], const double *up, double fov_y_deg, double aspect);

/* Refine a framed camera (keeping its view direction, up and field of view) so the given point
   sets (nsets arrays x[s] of nv[s] points) fill the image tightly (6 % margin) and are centred.
   Call after pic_camera_frame. Perspective: a few fixed-point rounds; orthographic: exact. */
int pic_camera_fit(pic_camera *cam, int nsets, const int *nv, const double *const *x, double aspect);

/* ---------------------------------------------------------------- meshes */

typedef struct pic_style {
    unsigned char color[3];       /* front-face colour (default light blue-grey) */
    unsigned char back_color[3];  /* back-face colour (default: a darker tint of color) */
    const unsigned char *vcolor;  /* optional per-vertex RGB (3*nv); replaces color/back_color */
    int smooth;                   /* 1 = Gouraud shading with area-weighted vertex normals (default 1) */
    int wire;                     /* 1 = draw triangle edges (default 0) */
    unsigned char wire_color[3];  /* default dark grey */
    double wire_px;               /* edge line width in pixels (default 1.0) */
    double ambient;               /* ambient fraction of the colour (default 0.3) */
} pic_style;

pic_style pic_default_style(void);

/* Draw the triangles tris (3*nt, indices in [0, nv)) of positions x (3*nv) with the camera.
   Two-sided Lambert shading with a fixed light coming from the upper left behind the viewer.
   Depth test against img->z, so several meshes can be drawn into one image in any order.
   The wire overlay is drawn inside each visible triangle, within wire_px/2 of its edges in
   screen space, so hidden edges are hidden by the same depth test (no z-fighting).
   style NULL = pic_default_style(). Triangles with a vertex behind the eye are skipped. */
int pic_draw_mesh(pic_image *img, const pic_camera *cam, int nv, const double *x,
                  int nt, const int *tris, const pic_style *style);

/* A triangle mesh owned by the caller (free with pic_mesh_free), for drawing obstacles. */
typedef struct pic_mesh {
    int nv, nt;
    double *x;  /* 3*nv */
    int *tris;  /* 3*nt, counter-clockwise seen from outside */
} pic_mesh;
void pic_mesh_free(pic_mesh *m);
/* UV sphere: nseg >= 3 segments around the axis (z), nring >= 2 rings pole to pole. */
int pic_make_sphere(pic_mesh *m, const double center[3], double radius, int nseg, int nring);
/* Axis-aligned box [lo, hi]: 8 vertices, 12 triangles. */
int pic_make_box(pic_mesh *m, const double lo[3], const double hi[3]);
/* Capsule: segment a-b swept by a sphere of the given radius; nseg around, nring per hemisphere. */
int pic_make_capsule(pic_mesh *m, const double a[3], const double b[3], double radius,
                     int nseg, int nring);

/* ---------------------------------------------------------------- reference mesh (2D) */

/* Colour map for a value t in [0, 1] (clamped): 0 = good = near-white, 0.5 = yellow-orange,
   1 = bad = red. NaN maps to grey. */
void pic_colormap(double t, unsigned char rgb[3]);
/* Draw the 2D mesh uv (2*nv) fitted into img with a margin in pixels (v up). Triangles filled
   by pic_colormap((tri_value[t] - vmin) / (vmax - vmin)) (tri_value NULL: light grey), edges
   wire_px wide in dark grey (wire_px <= 0: no edges). */
int pic_draw_mesh2d(pic_image *img, int nv, const double *uv, int nt, const int *tris,
                    const double *tri_value, double vmin, double vmax, int margin, double wire_px);
/* The same as an SVG file (800 px on the long side), one <polygon> per triangle. */
int pic_write_svg_mesh2d(const char *path, int nv, const double *uv, int nt, const int *tris,
                         const double *tri_value, double vmin, double vmax);

/* ---------------------------------------------------------------- SVG plots */

typedef struct pic_series {
    const double *x;    /* n abscissae, or NULL for 0, 1, ..., n-1 */
    const double *y;    /* n ordinates; non-finite values break the line */
    int n;
    const char *label;  /* legend text (NULL: no legend entry) */
} pic_series;

/* Line plot of nseries series with axes, "nice" 1-2-5 ticks, labels and a legend.
   log_y: plot log10(y) of the positive values (ticks labelled 10^k). Any string may be NULL. */
int pic_write_svg_lines(const char *path, const char *title, const char *xlabel,
                        const char *ylabel, int nseries, const pic_series *series, int log_y);
/* Two distributions overlaid as step histograms over the common range of their finite values,
   each normalised to fractions per bin (so different sample counts compare fairly). */
int pic_write_svg_histogram(const char *path, const char *title, const char *xlabel,
                            const double *a, int na, const char *label_a,
                            const double *b, int nb, const char *label_b, int bins);

/* ---------------------------------------------------------------- text and composition */

/* Draw ASCII text with the 5x7 font (plus 2 descender rows; a line is 10*scale high), each font
   pixel a scale x scale block, top-left at (x, y). '\n' starts a new line.
   Characters outside 32..126 draw as '?'. Clipped at the image border. */
void pic_draw_text(pic_image *img, int x, int y, const char *text, int scale,
                   const unsigned char rgb[3]);
/* Width in pixels of text drawn at this scale (6*scale per character, minus the last gap). */
int  pic_text_width(const char *text, int scale);
/* Put a and b next to each other on a white background with a gap, with the captions (NULL = none)
   centred above each; out is allocated. */
int pic_side_by_side(const pic_image *a, const char *label_a, const pic_image *b,
                     const char *label_b, pic_image *out);

#ifdef __cplusplus
}
#endif
#endif /* RCLOTH_PICTURE_H */
