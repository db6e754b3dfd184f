/* examples/common/picture.c - implementation of picture.h (PNG, software rasteriser, SVG plots,
   5x7 text). libc + libm only; C99 that also compiles as C++. See picture.h for the API. */
#include "picture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>

#ifndef PIC__PI
#define PIC__PI 3.14159265358979323846
#endif

/* ======================================================================
   SECTION: byte buffer (growable output for the PNG encoder)
   ====================================================================== */
typedef struct pic__buf {
    unsigned char *p;
    size_t n, cap;
    int failed;   /* sticky: once an allocation fails every later put is ignored */
} pic__buf;

static void pic__put(pic__buf *b, const unsigned char *src, size_t n)
{
    if (b->failed) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        unsigned char *q;
        while (cap < b->n + n) cap *= 2;
        q = (unsigned char *)realloc(b->p, cap);
        if (!q) { b->failed = 1; return; }
        b->p = q; b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void pic__put1(pic__buf *b, unsigned v) { unsigned char c = (unsigned char)(v & 0xffu); pic__put(b, &c, 1); }
static void pic__put32be(pic__buf *b, unsigned long v)
{
    unsigned char c[4];
    c[0] = (unsigned char)((v >> 24) & 0xffu); c[1] = (unsigned char)((v >> 16) & 0xffu);
    c[2] = (unsigned char)((v >> 8) & 0xffu);  c[3] = (unsigned char)(v & 0xffu);
    pic__put(b, c, 4);
}

/* ======================================================================
   SECTION: checksums
   CRC-32 (PNG chunks): reflected polynomial 0xEDB88320, pre/post inverted.
   Adler-32 (zlib trailer): A = 1 + sum(bytes), B = sum(A after each byte), both mod 65521,
   result B*65536 + A.
   ====================================================================== */
unsigned long pic_crc32(unsigned long crc, const unsigned char *buf, size_t n)
{
    unsigned long table[256];
    size_t i;
    unsigned k;
    /* the byte-wise table is 256 entries: building it per call keeps the file free of global state
       and costs nothing next to the image bytes it is used on */
    for (k = 0; k < 256; k++) {
        unsigned long c = k;
        int j;
        for (j = 0; j < 8; j++) c = (c & 1u) ? (0xEDB88320UL ^ (c >> 1)) : (c >> 1);
        table[k] = c;
    }
    crc = (crc ^ 0xFFFFFFFFUL) & 0xFFFFFFFFUL;
    for (i = 0; i < n; i++) crc = table[(crc ^ buf[i]) & 0xffu] ^ (crc >> 8);
    return (crc ^ 0xFFFFFFFFUL) & 0xFFFFFFFFUL;
}

unsigned long pic_adler32(unsigned long adler, const unsigned char *buf, size_t n)
{
    unsigned long a = adler & 0xffffUL, b = (adler >> 16) & 0xffffUL;
    while (n > 0) {
        /* 5552 is the largest block for which b cannot overflow 32 bits before the modulo */
        size_t blk = n < 5552 ? n : 5552, i;
        for (i = 0; i < blk; i++) { a += buf[i]; b += a; }
        a %= 65521UL; b %= 65521UL;
        buf += blk; n -= blk;
    }
    return (b << 16) | a;
}

/* ======================================================================
   SECTION: deflate (RFC 1951) in a zlib wrapper (RFC 1950)
   Level 0: stored blocks of at most 65535 bytes (BTYPE 00, LEN, NLEN = ~LEN).
   Level 1: one final block with the fixed Huffman code (BTYPE 01); greedy LZ77 matching
   through hash chains over 3-byte prefixes in the 32 KiB window.
   ====================================================================== */
typedef struct pic__bits {
    pic__buf *out;
    unsigned long acc;   /* pending bits, LSB first */
    int nbits;
} pic__bits;

static void pic__bits_put(pic__bits *w, unsigned long v, int n)
{
    w->acc |= v << w->nbits;
    w->nbits += n;
    while (w->nbits >= 8) { pic__put1(w->out, (unsigned)(w->acc & 0xffu)); w->acc >>= 8; w->nbits -= 8; }
}
/* Huffman codes are defined MSB first but packed LSB first: reverse before putting. */
static void pic__bits_code(pic__bits *w, unsigned code, int len)
{
    unsigned r = 0;
    int i;
    for (i = 0; i < len; i++) { r = (r << 1) | (code & 1u); code >>= 1; }
    pic__bits_put(w, r, len);
}
static void pic__bits_flush(pic__bits *w)
{
    if (w->nbits > 0) pic__put1(w->out, (unsigned)(w->acc & 0xffu));
    w->acc = 0; w->nbits = 0;
}
/* fixed literal/length code (RFC 1951 3.2.6) */
static void pic__fixed_lit(pic__bits *w, int s)
{
    if (s < 144) pic__bits_code(w, 0x30u + (unsigned)s, 8);
    else if (s < 256) pic__bits_code(w, 0x190u + (unsigned)(s - 144), 9);
    else if (s < 280) pic__bits_code(w, (unsigned)(s - 256), 7);
    else pic__bits_code(w, 0xC0u + (unsigned)(s - 280), 8);
}
static const int pic__len_base[29] = {3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,
                                      115,131,163,195,227,258};
static const int pic__len_extra[29] = {0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0};
static const int pic__dist_base[30] = {1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,
                                       1025,1537,2049,3073,4097,6145,8193,12289,16385,24577};
static const int pic__dist_extra[30] = {0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,
                                        12,13,13};

static void pic__emit_match(pic__bits *w, int len, int dist)
{
    int i = 28, d = 29;
    while (pic__len_base[i] > len) i--;
    pic__fixed_lit(w, 257 + i);
    if (pic__len_extra[i]) pic__bits_put(w, (unsigned long)(len - pic__len_base[i]), pic__len_extra[i]);
    while (pic__dist_base[d] > dist) d--;
    pic__bits_code(w, (unsigned)d, 5);
    if (pic__dist_extra[d]) pic__bits_put(w, (unsigned long)(dist - pic__dist_base[d]), pic__dist_extra[d]);
}

#define PIC__WSIZE 32768
#define PIC__HBITS 15
#define PIC__MAXCHAIN 48

static unsigned pic__hash3(const unsigned char *p)
{
    return (((unsigned)p[0] << 10) ^ ((unsigned)p[1] << 5) ^ (unsigned)p[2]) & ((1u << PIC__HBITS) - 1u);
}

static int pic__zlib(pic__buf *out, const unsigned char *d, size_t n, int level)
{
    unsigned long adler = pic_adler32(1, d, n);
    pic__put1(out, 0x78); /* CM = 8 (deflate), CINFO = 7 (32 KiB window) */
    pic__put1(out, 0x01); /* FCHECK: 0x7801 is a multiple of 31; no dictionary, FLEVEL 0 */
    if (level <= 0) {
        size_t pos = 0;
        do {
            size_t len = n - pos < 65535 ? n - pos : 65535;
            int final = pos + len == n;
            pic__put1(out, (unsigned)final);          /* BFINAL, BTYPE = 00, padded to the byte */
            pic__put1(out, (unsigned)(len & 0xff)); pic__put1(out, (unsigned)(len >> 8));
            pic__put1(out, (unsigned)(~len & 0xff)); pic__put1(out, (unsigned)((~len >> 8) & 0xff));
            pic__put(out, d + pos, len);
            pos += len;
        } while (pos < n);
    } else {
        int *head = (int *)malloc(sizeof(int) << PIC__HBITS);
        int *prev = (int *)malloc(sizeof(int) * PIC__WSIZE);
        pic__bits w;
        size_t i = 0;
        if (!head || !prev) { free(head); free(prev); return -1; }
        for (i = 0; i < (1u << PIC__HBITS); i++) head[i] = -1;
        w.out = out; w.acc = 0; w.nbits = 0;
        pic__bits_put(&w, 1, 1); /* BFINAL */
        pic__bits_put(&w, 1, 2); /* BTYPE = 01, fixed Huffman */
        i = 0;
        while (i < n) {
            int best = 0, bestd = 0;
            if (i + 3 <= n) {
                unsigned h = pic__hash3(d + i);
                int j = head[h], chain = PIC__MAXCHAIN;
                size_t maxlen = n - i < 258 ? n - i : 258;
                /* walk older positions with the same hash while they are inside the window; the
                   chain strictly decreases, which also guards against stale links */
                while (j >= 0 && i - (size_t)j <= PIC__WSIZE && chain-- > 0) {
                    size_t l = 0;
                    while (l < maxlen && d[(size_t)j + l] == d[i + l]) l++;
                    if ((int)l > best) { best = (int)l; bestd = (int)(i - (size_t)j); if (l == maxlen) break; }
                    {
                        int nj = prev[j & (PIC__WSIZE - 1)];
                        if (nj >= j) break;
                        j = nj;
                    }
                }
                prev[i & (PIC__WSIZE - 1)] = head[h];
                head[h] = (int)i;
            }
            if (best >= 3) {
                size_t k;
                pic__emit_match(&w, best, bestd);
                for (k = 1; k < (size_t)best; k++) {
                    size_t p = i + k;
                    if (p + 3 <= n) {
                        unsigned h = pic__hash3(d + p);
                        prev[p & (PIC__WSIZE - 1)] = head[h];
                        head[h] = (int)p;
                    }
                }
                i += (size_t)best;
            } else {
                pic__fixed_lit(&w, d[i]);
                i++;
            }
        }
        pic__fixed_lit(&w, 256); /* end of block */
        pic__bits_flush(&w);
        free(head); free(prev);
    }
    pic__put32be(out, adler);
    return out->failed ? -1 : 0;
}

/* ======================================================================
   SECTION: PNG (signature, IHDR, IDAT, IEND; each chunk = length, type, data, CRC(type+data))
   Each scanline is prefixed by a filter byte; the filter (None, Sub, Up, Average, Paeth) is
   chosen per row by the smallest sum of |signed residual|, the usual heuristic.
   ====================================================================== */
static void pic__chunk(pic__buf *b, const char *type, const unsigned char *data, size_t n)
{
    unsigned long crc;
    pic__put32be(b, (unsigned long)n);
    pic__put(b, (const unsigned char *)type, 4);
    if (n) pic__put(b, data, n);
    crc = pic_crc32(0, (const unsigned char *)type, 4);
    if (n) crc = pic_crc32(crc, data, n);
    pic__put32be(b, crc);
}

static int pic__paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

int pic_encode_png(int w, int h, int channels, const unsigned char *px, int level,
                   unsigned char **out, size_t *out_len)
{
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char ihdr[13], *raw, *cand;
    size_t stride, rawn;
    int y, f;
    pic__buf b, z;
    if (!out || !out_len) return -1;
    *out = NULL; *out_len = 0;
    if (!px || w < 1 || h < 1 || w > 65536 || h > 65536 || (channels != 3 && channels != 4)) return -1;
    stride = (size_t)w * (size_t)channels;
    rawn = (stride + 1) * (size_t)h;
    raw = (unsigned char *)malloc(rawn);
    cand = (unsigned char *)malloc(5 * stride);
    if (!raw || !cand) { free(raw); free(cand); return -1; }
    for (y = 0; y < h; y++) {
        const unsigned char *row = px + (size_t)y * stride;
        const unsigned char *up = y > 0 ? row - stride : NULL;
        size_t i, bestf = 0;
        unsigned long bestcost = 0;
        for (f = 0; f < 5; f++) {
            unsigned char *c = cand + (size_t)f * stride;
            unsigned long cost = 0;
            for (i = 0; i < stride; i++) {
                int a = i >= (size_t)channels ? row[i - (size_t)channels] : 0;
                int bb = up ? up[i] : 0;
                int cc = (up && i >= (size_t)channels) ? up[i - (size_t)channels] : 0;
                int pred = f == 0 ? 0 : f == 1 ? a : f == 2 ? bb : f == 3 ? (a + bb) / 2 : pic__paeth(a, bb, cc);
                c[i] = (unsigned char)((row[i] - pred) & 0xff);
                cost += (unsigned long)(c[i] < 128 ? c[i] : 256 - c[i]);
            }
            if (f == 0 || cost < bestcost) { bestcost = cost; bestf = (size_t)f; }
        }
        raw[(size_t)y * (stride + 1)] = (unsigned char)bestf;
        memcpy(raw + (size_t)y * (stride + 1) + 1, cand + bestf * stride, stride);
    }
    free(cand);
    memset(&z, 0, sizeof z);
    if (pic__zlib(&z, raw, rawn, level) != 0) { free(raw); free(z.p); return -1; }
    free(raw);
    memset(&b, 0, sizeof b);
    pic__put(&b, sig, 8);
    ihdr[0] = (unsigned char)((unsigned)w >> 24); ihdr[1] = (unsigned char)(((unsigned)w >> 16) & 0xff);
    ihdr[2] = (unsigned char)(((unsigned)w >> 8) & 0xff); ihdr[3] = (unsigned char)(w & 0xff);
    ihdr[4] = (unsigned char)((unsigned)h >> 24); ihdr[5] = (unsigned char)(((unsigned)h >> 16) & 0xff);
    ihdr[6] = (unsigned char)(((unsigned)h >> 8) & 0xff); ihdr[7] = (unsigned char)(h & 0xff);
    ihdr[8] = 8;                                 /* bit depth */
    ihdr[9] = (unsigned char)(channels == 3 ? 2 : 6); /* colour type: truecolour (+ alpha) */
    ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;    /* deflate, adaptive filtering, no interlace */
    pic__chunk(&b, "IHDR", ihdr, 13);
    pic__chunk(&b, "IDAT", z.p, z.n);
    pic__chunk(&b, "IEND", NULL, 0);
    free(z.p);
    if (b.failed) { free(b.p); return -1; }
    *out = b.p; *out_len = b.n;
    return 0;
}

static int pic__write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f;
    int ok;
    if (!path) return -1;
    f = fopen(path, "wb");
    if (!f) return -1;
    ok = fwrite(p, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}

static int pic__write_png_ch(const char *path, int w, int h, int ch, const unsigned char *px)
{
    unsigned char *png;
    size_t n;
    int r;
    if (!path || pic_encode_png(w, h, ch, px, 1, &png, &n) != 0) return -1;
    r = pic__write_file(path, png, n);
    free(png);
    return r;
}
int pic_write_png(const char *path, int w, int h, const unsigned char *rgb)
{
    return pic__write_png_ch(path, w, h, 3, rgb);
}
int pic_write_png_rgba(const char *path, int w, int h, const unsigned char *rgba)
{
    return pic__write_png_ch(path, w, h, 4, rgba);
}

/* ======================================================================
   SECTION: images
   ====================================================================== */
static const unsigned char pic__white[3] = {255, 255, 255};

int pic_image_init(pic_image *img, int w, int h, const unsigned char *bg)
{
    if (!img) return -1;
    img->w = 0; img->h = 0; img->rgb = NULL; img->z = NULL;
    if (w < 1 || h < 1 || w > 16384 || h > 16384) return -1;
    img->rgb = (unsigned char *)malloc((size_t)w * (size_t)h * 3);
    img->z = (float *)malloc((size_t)w * (size_t)h * sizeof(float));
    if (!img->rgb || !img->z) { free(img->rgb); free(img->z); img->rgb = NULL; img->z = NULL; return -1; }
    img->w = w; img->h = h;
    pic_image_clear(img, bg);
    return 0;
}

void pic_image_free(pic_image *img)
{
    if (!img) return;
    free(img->rgb); free(img->z);
    img->rgb = NULL; img->z = NULL; img->w = 0; img->h = 0;
}

void pic_image_clear(pic_image *img, const unsigned char *bg)
{
    size_t i, n;
    if (!img || !img->rgb) return;
    if (!bg) bg = pic__white;
    n = (size_t)img->w * (size_t)img->h;
    for (i = 0; i < n; i++) {
        img->rgb[3 * i] = bg[0]; img->rgb[3 * i + 1] = bg[1]; img->rgb[3 * i + 2] = bg[2];
        if (img->z) img->z[i] = -FLT_MAX;
    }
}

int pic_image_write_png(const pic_image *img, const char *path)
{
    if (!img || !img->rgb) return -1;
    return pic_write_png(path, img->w, img->h, img->rgb);
}

int pic_image_downsample(const pic_image *img, int factor, pic_image *out)
{
    int x, y, c, i, j;
    if (!img || !img->rgb || !out || factor < 1 || img->w / factor < 1 || img->h / factor < 1) return -1;
    if (pic_image_init(out, img->w / factor, img->h / factor, NULL) != 0) return -1;
    for (y = 0; y < out->h; y++)
        for (x = 0; x < out->w; x++)
            for (c = 0; c < 3; c++) {
                unsigned s = 0;
                for (j = 0; j < factor; j++)
                    for (i = 0; i < factor; i++)
                        s += img->rgb[3 * ((size_t)(y * factor + j) * (size_t)img->w + (size_t)(x * factor + i)) + (size_t)c];
                out->rgb[3 * ((size_t)y * (size_t)out->w + (size_t)x) + (size_t)c] =
                    (unsigned char)((s + (unsigned)(factor * factor) / 2) / (unsigned)(factor * factor));
            }
    return 0;
}

/* ======================================================================
   SECTION: triangle rasteriser (shared by the 3D mesh and the flat 2D mesh)
   Pixel centres at (x + 0.5, y + 0.5). For a pixel p the edge functions
   e_i(p) = cross(v_k - v_j, p - v_j) over the edge (j, k) opposite vertex i give barycentrics
   b_i = e_i / (e_0 + e_1 + e_2); p is inside when all b_i >= 0. Colour and the depth key are
   interpolated linearly in screen space (the depth key is 1/z_view for perspective, which is
   exactly screen-linear, and -z_view for orthographic). The distance of p to edge i in pixels is
   |e_i| / |v_k - v_j|; pixels within wire_px/2 of an edge take the wire colour.
   ====================================================================== */
static double pic__clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* P: 3 vertices x (sx, sy, depth key); C: 3 vertices x RGB in [0, 255] */
static void pic__raster_tri(pic_image *img, const double P[9], const double C[9], int depth_test,
                            const unsigned char *wire_rgb, double wire_px)
{
    double minx = P[0], maxx = P[0], miny = P[1], maxy = P[1], area, elen[3], wa = 1.0;
    int x0, x1, y0, y1, x, y, i;
    for (i = 1; i < 3; i++) {
        if (P[3 * i] < minx) minx = P[3 * i];
        if (P[3 * i] > maxx) maxx = P[3 * i];
        if (P[3 * i + 1] < miny) miny = P[3 * i + 1];
        if (P[3 * i + 1] > maxy) maxy = P[3 * i + 1];
    }
    if (maxx < 0 || maxy < 0 || minx > img->w || miny > img->h) return;
    area = (P[3] - P[0]) * (P[7] - P[1]) - (P[4] - P[1]) * (P[6] - P[0]);
    if (!(fabs(area) > 1e-12)) return;
    for (i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        elen[i] = sqrt((P[3 * k] - P[3 * j]) * (P[3 * k] - P[3 * j]) + (P[3 * k + 1] - P[3 * j + 1]) * (P[3 * k + 1] - P[3 * j + 1]));
    }
    if (wire_rgb) {
        /* a triangle only a few wire widths tall would be all wire: fade its edges so fine meshes
           read as a grey tone instead of a black blob (altitude = |2 area| / longest edge) */
        double lmax = elen[0] > elen[1] ? elen[0] : elen[1];
        double alt = fabs(area) / (lmax > elen[2] ? lmax : elen[2]);
        wa = pic__clamp(alt / (6.0 * wire_px), 0.15, 1.0);
    }
    x0 = (int)floor(pic__clamp(minx, 0, img->w - 1)); x1 = (int)floor(pic__clamp(maxx, 0, img->w - 1));
    y0 = (int)floor(pic__clamp(miny, 0, img->h - 1)); y1 = (int)floor(pic__clamp(maxy, 0, img->h - 1));
    for (y = y0; y <= y1; y++) {
        double py = y + 0.5;
        for (x = x0; x <= x1; x++) {
            double px = x + 0.5, e[3], b[3], q;
            size_t idx = (size_t)y * (size_t)img->w + (size_t)x;
            for (i = 0; i < 3; i++) {
                int j = (i + 1) % 3, k = (i + 2) % 3;
                e[i] = (P[3 * k] - P[3 * j]) * (py - P[3 * j + 1]) - (P[3 * k + 1] - P[3 * j + 1]) * (px - P[3 * j]);
                b[i] = e[i] / area;
            }
            if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
            q = b[0] * P[2] + b[1] * P[5] + b[2] * P[8];
            if (depth_test && img->z) {
                if (!(q > img->z[idx])) continue;
                img->z[idx] = (float)q;
            }
            {
                double col[3], a = 0.0;
                int c;
                for (c = 0; c < 3; c++) col[c] = b[0] * C[c] + b[1] * C[3 + c] + b[2] * C[6 + c];
                if (wire_rgb) {
                    double dmin = 1e300;
                    for (i = 0; i < 3; i++) {
                        double dd = fabs(e[i]) / (elen[i] > 1e-12 ? elen[i] : 1e-12);
                        if (dd < dmin) dmin = dd;
                    }
                    /* one pixel of linear falloff outside the half width: cheap anti-aliasing */
                    a = wa * pic__clamp(0.5 * wire_px + 0.5 - dmin, 0.0, 1.0);
                }
                for (c = 0; c < 3; c++) {
                    double v = wire_rgb ? (1.0 - a) * col[c] + a * wire_rgb[c] : col[c];
                    img->rgb[3 * idx + (size_t)c] = (unsigned char)pic__clamp(v + 0.5, 0.0, 255.0);
                }
            }
        }
    }
}

/* ======================================================================
   SECTION: camera
   Camera frame: forward f = (target - eye)/|.|, right r = f x up / |.|, true up u = r x f.
   A point p has view coordinates (xc, yc, zc) = ((p-eye).r, (p-eye).u, (p-eye).f).
   Perspective: screen = centre + (xc/zc, -yc/zc) * (h/2) / tan(fov/2); key 1/zc.
   Orthographic: screen = centre + (xc, -yc) * (h/2) / ortho_half_h; key -zc.
   ====================================================================== */
static void pic__sub3(const double *a, const double *b, double *o) { o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2]; }
static double pic__dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void pic__cross3(const double *a, const double *b, double *o)
{
    double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2], t2 = a[0] * b[1] - a[1] * b[0];
    o[0] = t0; o[1] = t1; o[2] = t2;
}
static double pic__normalize3(double *a)
{
    double n = sqrt(pic__dot3(a, a));
    if (n > 0) { a[0] /= n; a[1] /= n; a[2] /= n; }
    return n;
}
static int pic__finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* orthonormal camera basis; returns -1 if eye == target */
static int pic__cam_basis(const pic_camera *cam, double f[3], double r[3], double u[3])
{
    double up[3];
    pic__sub3(cam->target, cam->eye, f);
    if (!(pic__normalize3(f) > 0)) return -1;
    up[0] = cam->up[0]; up[1] = cam->up[1]; up[2] = cam->up[2];
    pic__cross3(f, up, r);
    if (!(pic__normalize3(r) > 1e-9)) {
        /* up parallel to the view direction: any perpendicular will do */
        up[0] = fabs(f[0]) < 0.9 ? 1.0 : 0.0; up[1] = fabs(f[0]) < 0.9 ? 0.0 : 1.0; up[2] = 0.0;
        pic__cross3(f, up, r);
        pic__normalize3(r);
    }
    pic__cross3(r, f, u);
    return 0;
}

void pic_bounds_reset(double bmin[3], double bmax[3])
{
    int k;
    for (k = 0; k < 3; k++) { bmin[k] = DBL_MAX; bmax[k] = -DBL_MAX; }
}

void pic_bounds_add(double bmin[3], double bmax[3], int nv, const double *x)
{
    int i, k;
    if (!bmin || !bmax || !x) return;
    for (i = 0; i < nv; i++) {
        if (!pic__finite3(x + 3 * i)) continue;
        for (k = 0; k < 3; k++) {
            if (x[3 * i + k] < bmin[k]) bmin[k] = x[3 * i + k];
            if (x[3 * i + k] > bmax[k]) bmax[k] = x[3 * i + k];
        }
    }
}

int pic_camera_frame(pic_camera *cam, const double bmin[3], const double bmax[3],
                     const double view_dir[3], const double *up, double fov_y_deg, double aspect)
{
    static const double zup[3] = {0.0, 0.0, 1.0};
    const double margin = 1.06;
    double c[3], f[3], r[3], u[3], rad = 0.0, xmax = 0, ymax = 0, zmax = -DBL_MAX, dist = 0.0;
    int k, corner;
    if (!cam || !bmin || !bmax || !view_dir || !(aspect > 0) || !isfinite(aspect) || !isfinite(fov_y_deg)
        || fov_y_deg >= 179.0) return -1;
    for (k = 0; k < 3; k++)
        if (!(bmin[k] <= bmax[k]) || !isfinite(bmin[k]) || !isfinite(bmax[k])) return -1;
    if (!up) up = zup;
    for (k = 0; k < 3; k++) { c[k] = 0.5 * (bmin[k] + bmax[k]); rad += 0.25 * (bmax[k] - bmin[k]) * (bmax[k] - bmin[k]); }
    rad = sqrt(rad);
    if (!(rad > 0)) rad = 1.0;  /* a single point: frame a unit neighbourhood */
    for (k = 0; k < 3; k++) { cam->target[k] = c[k]; cam->up[k] = up[k]; cam->eye[k] = c[k] - view_dir[k]; }
    if (!pic__finite3(view_dir) || pic__cam_basis(cam, f, r, u) != 0) return -1;
    for (corner = 0; corner < 8; corner++) {
        double p[3], x, y, z;
        for (k = 0; k < 3; k++) p[k] = ((corner >> k) & 1 ? bmax[k] : bmin[k]) - c[k];
        x = fabs(pic__dot3(p, r)); y = fabs(pic__dot3(p, u)); z = pic__dot3(p, f);
        if (x > xmax) xmax = x;
        if (y > ymax) ymax = y;
        if (-z > zmax) zmax = -z;
        if (fov_y_deg > 0) {
            /* eye = c - D f, the corner's depth is D + z; it fits when |x| <= (D + z) tan_x / margin */
            double ty = tan(0.5 * fov_y_deg * PIC__PI / 180.0), tx = ty * aspect;
            double need = (x * margin / tx > y * margin / ty ? x * margin / tx : y * margin / ty) - z;
            if (need > dist) dist = need;
        }
    }
    if (fov_y_deg > 0) {
        if (dist < zmax + 1e-3 * rad) dist = zmax + 1e-3 * rad; /* every corner in front of the eye */
        cam->fov_y_deg = fov_y_deg;
        cam->ortho_half_h = 0.0;
    } else {
        double hh = ymax > xmax / aspect ? ymax : xmax / aspect;
        dist = 2.0 * rad + 1.0;
        cam->fov_y_deg = 0.0;
        cam->ortho_half_h = hh > 0 ? margin * hh : rad;
    }
    for (k = 0; k < 3; k++) cam->eye[k] = c[k] - dist * f[k];
    return 0;
}

int pic_camera_fit(pic_camera *cam, int nsets, const int *nv, const double *const *x, double aspect)
{
    const double margin = 1.06;
    double f[3], r[3], u[3];
    int it, s, i, k, any = 0;
    if (!cam || nsets < 1 || !nv || !x || !(aspect > 0) || !isfinite(aspect)) return -1;
    for (s = 0; s < nsets; s++) if (nv[s] < 0 || (nv[s] > 0 && !x[s])) return -1;
    if (pic__cam_basis(cam, f, r, u) != 0) return -1;
    /* Perspective: fixed point iteration. With the eye at distance D before the target, a point
       has tangent coordinates (X/(D+Z), Y/(D+Z)) in the camera frame centred on the target.
       Shift the target (and eye) sideways so the tangent box is centred, then scale D so its half
       extent is tan(fov/2)/margin; a few rounds settle it (each round is exact for far points).
       Orthographic: one round is exact (centre the box, half height = extent). */
    for (it = 0; it < (cam->fov_y_deg > 0 ? 8 : 1); it++) {
        double D, lo[2] = {DBL_MAX, DBL_MAX}, hi[2] = {-DBL_MAX, -DBL_MAX}, zmin = DBL_MAX;
        double d[3], ty, tx, ex, ey, cx, cy, scale;
        pic__sub3(cam->target, cam->eye, d);
        D = sqrt(pic__dot3(d, d));
        for (s = 0; s < nsets; s++)
            for (i = 0; i < nv[s]; i++) {
                const double *p = x[s] + 3 * i;
                double q[3], X, Y, Z;
                if (!pic__finite3(p)) continue;
                pic__sub3(p, cam->target, q);
                X = pic__dot3(q, r); Y = pic__dot3(q, u); Z = pic__dot3(q, f);
                if (cam->fov_y_deg > 0) {
                    if (D + Z <= 1e-9 * D) { X = 0; Y = 0; Z = DBL_MAX; }  /* behind the eye: handled by zmin */
                    else { X /= D + Z; Y /= D + Z; }
                }
                if (Z < zmin) zmin = Z;
                if (X < lo[0]) lo[0] = X;
                if (X > hi[0]) hi[0] = X;
                if (Y < lo[1]) lo[1] = Y;
                if (Y > hi[1]) hi[1] = Y;
                any = 1;
            }
        if (!any) return -1;
        cx = 0.5 * (lo[0] + hi[0]); cy = 0.5 * (lo[1] + hi[1]);
        ex = 0.5 * (hi[0] - lo[0]); ey = 0.5 * (hi[1] - lo[1]);
        if (cam->fov_y_deg > 0) {
            ty = tan(0.5 * cam->fov_y_deg * PIC__PI / 180.0); tx = ty * aspect;
            scale = (ex / tx > ey / ty ? ex / tx : ey / ty) * margin;   /* > 1: move back */
            for (k = 0; k < 3; k++) cam->target[k] += D * (cx * r[k] + cy * u[k]);
            if (scale > 0) D *= scale;
            if (D < -zmin + 1e-3 * (D > 0 ? D : 1.0)) D = -zmin * 1.05 + 1e-9;
            if (!(D > 0)) return -1;
            for (k = 0; k < 3; k++) cam->eye[k] = cam->target[k] - D * f[k];
        } else {
            for (k = 0; k < 3; k++) { cam->target[k] += cx * r[k] + cy * u[k]; cam->eye[k] = cam->target[k] - D * f[k]; }
            scale = ey > ex / aspect ? ey : ex / aspect;
            if (scale > 0) cam->ortho_half_h = margin * scale;
        }
    }
    return 0;
}

/* ======================================================================
   SECTION: shaded meshes
   Lambert: I = ambient + (1 - ambient) max(0, n.L), with n the normal turned towards the viewer
   (two-sided) and L a fixed light direction in camera space (upper left, behind the viewer).
   ====================================================================== */
pic_style pic_default_style(void)
{
    pic_style s;
    memset(&s, 0, sizeof s);
    s.color[0] = 170; s.color[1] = 190; s.color[2] = 225;
    s.back_color[0] = 215; s.back_color[1] = 160; s.back_color[2] = 130;
    s.vcolor = NULL;
    s.smooth = 1;
    s.wire = 0;
    s.wire_color[0] = 40; s.wire_color[1] = 40; s.wire_color[2] = 50;
    s.wire_px = 1.0;
    s.ambient = 0.3;
    return s;
}

int pic_draw_mesh(pic_image *img, const pic_camera *cam, int nv, const double *x,
                  int nt, const int *tris, const pic_style *style)
{
    pic_style st = style ? *style : pic_default_style();
    double f[3], r[3], u[3], L[3], th = 1.0;
    double *scr, *vn = NULL;
    int i, t, persp;
    if (!img || !img->rgb || !cam || nv < 0 || nt < 0 || (nv > 0 && !x) || (nt > 0 && !tris)) return -1;
    if (pic__cam_basis(cam, f, r, u) != 0) return -1;
    persp = cam->fov_y_deg > 0;
    if (persp) {
        if (!(cam->fov_y_deg < 179.0)) return -1;
        th = tan(0.5 * cam->fov_y_deg * PIC__PI / 180.0);
    } else if (!(cam->ortho_half_h > 0)) return -1;
    for (t = 0; t < 3 * nt; t++) if (tris[t] < 0 || tris[t] >= nv) return -1;
    if (!(st.wire_px > 0)) st.wire_px = 1.0;
    if (nt == 0) return 0;
    scr = (double *)malloc(sizeof(double) * 4 * (size_t)nv);
    if (!scr) return -1;
    if (st.smooth) {
        vn = (double *)calloc(3 * (size_t)nv, sizeof(double));
        if (!vn) { free(scr); return -1; }
        /* area-weighted vertex normals: sum of the unnormalised face normals (x1-x0) x (x2-x0) */
        for (t = 0; t < nt; t++) {
            const double *a = x + 3 * tris[3 * t], *b = x + 3 * tris[3 * t + 1], *c = x + 3 * tris[3 * t + 2];
            double e1[3], e2[3], n[3];
            int k;
            if (!pic__finite3(a) || !pic__finite3(b) || !pic__finite3(c)) continue;
            pic__sub3(b, a, e1); pic__sub3(c, a, e2); pic__cross3(e1, e2, n);
            for (k = 0; k < 3; k++) { int v = tris[3 * t + k]; vn[3 * v] += n[0]; vn[3 * v + 1] += n[1]; vn[3 * v + 2] += n[2]; }
        }
        for (i = 0; i < nv; i++) pic__normalize3(vn + 3 * i);
    }
    for (i = 0; i < nv; i++) {
        double d[3], xc, yc, zc, s;
        if (!pic__finite3(x + 3 * i)) { scr[4 * i + 3] = -1.0; continue; }
        pic__sub3(x + 3 * i, cam->eye, d);
        xc = pic__dot3(d, r); yc = pic__dot3(d, u); zc = pic__dot3(d, f);
        if (persp) {
            s = 0.5 * img->h / th;
            scr[4 * i + 3] = zc > 1e-9 ? 1.0 : -1.0;     /* usable only in front of the eye */
            if (zc <= 1e-9) zc = 1e-9;
            scr[4 * i] = 0.5 * img->w + s * xc / zc;
            scr[4 * i + 1] = 0.5 * img->h - s * yc / zc;
            scr[4 * i + 2] = 1.0 / zc;
        } else {
            s = 0.5 * img->h / cam->ortho_half_h;
            scr[4 * i] = 0.5 * img->w + s * xc;
            scr[4 * i + 1] = 0.5 * img->h - s * yc;
            scr[4 * i + 2] = -zc;
            scr[4 * i + 3] = 1.0;
        }
    }
    /* light towards upper left, from the viewer's side: L = normalize(-0.45 r + 0.6 u - 0.65 f) */
    for (i = 0; i < 3; i++) L[i] = -0.45 * r[i] + 0.6 * u[i] - 0.65 * f[i];
    pic__normalize3(L);
    for (t = 0; t < nt; t++) {
        const int *tv = tris + 3 * t;
        double P[9], C[9], e1[3], e2[3], ng[3], view[3], sgn;
        int k, front;
        if (scr[4 * tv[0] + 3] < 0 || scr[4 * tv[1] + 3] < 0 || scr[4 * tv[2] + 3] < 0) continue;
        pic__sub3(x + 3 * tv[1], x + 3 * tv[0], e1);
        pic__sub3(x + 3 * tv[2], x + 3 * tv[0], e2);
        pic__cross3(e1, e2, ng);
        if (!(pic__normalize3(ng) > 0)) continue;
        if (persp) pic__sub3(x + 3 * tv[0], cam->eye, view);
        else { view[0] = f[0]; view[1] = f[1]; view[2] = f[2]; }
        front = pic__dot3(ng, view) < 0;   /* the normal points towards the eye */
        sgn = front ? 1.0 : -1.0;
        for (k = 0; k < 3; k++) {
            const double *n = st.smooth ? vn + 3 * tv[k] : ng;
            double lam = sgn * pic__dot3(n, L), I;
            const unsigned char *base = st.vcolor ? st.vcolor + 3 * tv[k] : (front ? st.color : st.back_color);
            int c;
            if (lam < 0) lam = 0;
            I = st.ambient + (1.0 - st.ambient) * lam;
            P[3 * k] = scr[4 * tv[k]]; P[3 * k + 1] = scr[4 * tv[k] + 1]; P[3 * k + 2] = scr[4 * tv[k] + 2];
            for (c = 0; c < 3; c++) C[3 * k + c] = base[c] * I;
        }
        pic__raster_tri(img, P, C, 1, st.wire ? st.wire_color : NULL, st.wire_px);
    }
    free(scr); free(vn);
    return 0;
}

/* ======================================================================
   SECTION: primitive meshes for obstacles
   A lathe: profile points (h_k, r_k), k = 0..np-1, from the top pole (r = 0) down to the bottom
   pole (r = 0), swept around the axis with nseg segments; ring vertex
   o + h axis + r (cos phi e1 + sin phi e2) with e1 x e2 = axis. Top fan (pole, R_j, R_j+1) and
   bands (A_j, B_j, B_j+1), (A_j, B_j+1, A_j+1) are counter-clockwise seen from outside.
   ====================================================================== */
void pic_mesh_free(pic_mesh *m)
{
    if (!m) return;
    free(m->x); free(m->tris);
    m->x = NULL; m->tris = NULL; m->nv = 0; m->nt = 0;
}

static int pic__mesh_alloc(pic_mesh *m, int nv, int nt)
{
    m->nv = nv; m->nt = nt;
    m->x = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
    m->tris = (int *)malloc(sizeof(int) * 3 * (size_t)nt);
    if (!m->x || !m->tris) { pic_mesh_free(m); return -1; }
    return 0;
}

static int pic__lathe(pic_mesh *m, const double o[3], const double axis[3], int np, const double *ph,
                      const double *pr, int nseg)
{
    double a[3], e1[3], e2[3], tmp[3];
    int k, j, v = 0, t = 0, nring = np - 2;
    a[0] = axis[0]; a[1] = axis[1]; a[2] = axis[2];
    if (!(pic__normalize3(a) > 0)) return -1;
    tmp[0] = fabs(a[0]) < 0.9 ? 1.0 : 0.0; tmp[1] = fabs(a[0]) < 0.9 ? 0.0 : 1.0; tmp[2] = 0.0;
    pic__cross3(a, tmp, e2); pic__normalize3(e2);  /* e2 = a x tmp, e1 = e2 x a: e1 x e2 = a */
    pic__cross3(e2, a, e1);
    if (pic__mesh_alloc(m, 2 + nring * nseg, 2 * nseg + 2 * nseg * (nring - 1)) != 0) return -1;
    for (k = 0; k < np; k++) {
        int count = (k == 0 || k == np - 1) ? 1 : nseg;
        for (j = 0; j < count; j++) {
            double phi = 2.0 * PIC__PI * j / nseg, cr = count == 1 ? 0.0 : pr[k];
            int c;
            for (c = 0; c < 3; c++)
                m->x[3 * v + c] = o[c] + ph[k] * a[c] + cr * (cos(phi) * e1[c] + sin(phi) * e2[c]);
            v++;
        }
    }
    /* vertex numbering: 0 = top pole, 1 + (k-1) nseg + j = ring k, last = bottom pole */
    for (j = 0; j < nseg; j++) {
        int jn = (j + 1) % nseg;
        m->tris[3 * t] = 0; m->tris[3 * t + 1] = 1 + j; m->tris[3 * t + 2] = 1 + jn; t++;
    }
    for (k = 1; k < nring; k++) {
        int A = 1 + (k - 1) * nseg, B = 1 + k * nseg;
        for (j = 0; j < nseg; j++) {
            int jn = (j + 1) % nseg;
            m->tris[3 * t] = A + j; m->tris[3 * t + 1] = B + j; m->tris[3 * t + 2] = B + jn; t++;
            m->tris[3 * t] = A + j; m->tris[3 * t + 1] = B + jn; m->tris[3 * t + 2] = A + jn; t++;
        }
    }
    for (j = 0; j < nseg; j++) {
        int jn = (j + 1) % nseg, B = 1 + (nring - 1) * nseg;
        m->tris[3 * t] = v - 1; m->tris[3 * t + 1] = B + jn; m->tris[3 * t + 2] = B + j; t++;
    }
    return 0;
}

int pic_make_sphere(pic_mesh *m, const double center[3], double radius, int nseg, int nring)
{
    static const double zaxis[3] = {0.0, 0.0, 1.0};
    double *ph, *pr;
    int k, r;
    if (!m) return -1;
    m->nv = 0; m->nt = 0; m->x = NULL; m->tris = NULL;
    if (!center || !pic__finite3(center) || !(radius > 0) || !isfinite(radius) || nseg < 3 || nring < 2
        || nseg > 100000 || nring > 100000) return -1;
    ph = (double *)malloc(sizeof(double) * 2 * (size_t)(nring + 1));
    if (!ph) return -1;
    pr = ph + nring + 1;
    for (k = 0; k <= nring; k++) {
        double th = PIC__PI * k / nring;
        ph[k] = radius * cos(th); pr[k] = radius * sin(th);
    }
    r = pic__lathe(m, center, zaxis, nring + 1, ph, pr, nseg);
    free(ph);
    return r;
}

int pic_make_capsule(pic_mesh *m, const double a[3], const double b[3], double radius, int nseg, int nring)
{
    double axis[3], len, *ph, *pr;
    int k, r, np;
    if (!m) return -1;
    m->nv = 0; m->nt = 0; m->x = NULL; m->tris = NULL;
    if (!a || !b || !pic__finite3(a) || !pic__finite3(b) || !(radius > 0) || !isfinite(radius) || nseg < 3
        || nring < 1 || nseg > 100000 || nring > 100000) return -1;
    pic__sub3(b, a, axis);
    len = pic__normalize3(axis);
    if (!(len > 0)) { axis[0] = 0; axis[1] = 0; axis[2] = 1; }  /* a == b: a sphere */
    /* profile: hemisphere around b (h = len + R cos th, th in [0, pi/2]), then around a */
    np = 2 * (nring + 1);
    ph = (double *)malloc(sizeof(double) * 2 * (size_t)np);
    if (!ph) return -1;
    pr = ph + np;
    for (k = 0; k <= nring; k++) {
        double th = 0.5 * PIC__PI * k / nring;
        ph[k] = len + radius * cos(th); pr[k] = radius * sin(th);
        ph[nring + 1 + k] = radius * cos(0.5 * PIC__PI + th); pr[nring + 1 + k] = radius * sin(0.5 * PIC__PI + th);
    }
    r = pic__lathe(m, a, axis, np, ph, pr, nseg);
    free(ph);
    return r;
}

int pic_make_box(pic_mesh *m, const double lo[3], const double hi[3])
{
    /* corner index = (x == hi) + 2 (y == hi) + 4 (z == hi); each face as a cycle of 4 corners */
    static const int quads[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
    double c[3];
    int i, q, k;
    if (!m) return -1;
    m->nv = 0; m->nt = 0; m->x = NULL; m->tris = NULL;
    if (!lo || !hi || !pic__finite3(lo) || !pic__finite3(hi)) return -1;
    for (k = 0; k < 3; k++) if (!(lo[k] < hi[k])) return -1;
    if (pic__mesh_alloc(m, 8, 12) != 0) return -1;
    for (i = 0; i < 8; i++)
        for (k = 0; k < 3; k++) m->x[3 * i + k] = (i >> k) & 1 ? hi[k] : lo[k];
    for (k = 0; k < 3; k++) c[k] = 0.5 * (lo[k] + hi[k]);
    for (q = 0; q < 6; q++) {
        for (i = 0; i < 2; i++) {
            int *tr = m->tris + 3 * (2 * q + i);
            double e1[3], e2[3], n[3], d[3];
            tr[0] = quads[q][0]; tr[1] = quads[q][1 + i]; tr[2] = quads[q][2 + i];
            /* the box is convex: orient each triangle so its normal points away from the centre */
            pic__sub3(m->x + 3 * tr[1], m->x + 3 * tr[0], e1);
            pic__sub3(m->x + 3 * tr[2], m->x + 3 * tr[0], e2);
            pic__cross3(e1, e2, n);
            pic__sub3(m->x + 3 * tr[0], c, d);
            if (pic__dot3(n, d) < 0) { int s = tr[1]; tr[1] = tr[2]; tr[2] = s; }
        }
    }
    return 0;
}

/* ======================================================================
   SECTION: reference mesh (2D)
   ====================================================================== */
void pic_colormap(double t, unsigned char rgb[3])
{
    /* stops: good = near-white, pale yellow, orange, bad = red */
    static const double stop[4][3] = {{246, 246, 242}, {250, 226, 140}, {244, 140, 60}, {196, 24, 30}};
    double s;
    int i, c;
    if (!rgb) return;
    if (isnan(t)) { rgb[0] = rgb[1] = rgb[2] = 160; return; }
    t = pic__clamp(t, 0.0, 1.0);
    s = t * 3.0;
    i = (int)s;
    if (i > 2) i = 2;
    s -= i;
    for (c = 0; c < 3; c++) rgb[c] = (unsigned char)(stop[i][c] + s * (stop[i + 1][c] - stop[i][c]) + 0.5);
}

static void pic__tri_color(const double *tri_value, int t, double vmin, double vmax, unsigned char rgb[3])
{
    if (!tri_value) { rgb[0] = 228; rgb[1] = 230; rgb[2] = 235; return; }
    pic_colormap(vmax > vmin ? (tri_value[t] - vmin) / (vmax - vmin) : 0.0, rgb);
}

/* bounds of a 2D point set; -1 if invalid (non-finite or out-of-range indices checked by caller) */
static int pic__check_mesh2d(int nv, const double *uv, int nt, const int *tris, double lo[2], double hi[2])
{
    int i;
    if (nv < 1 || nt < 0 || !uv || (nt > 0 && !tris)) return -1;
    lo[0] = lo[1] = DBL_MAX; hi[0] = hi[1] = -DBL_MAX;
    for (i = 0; i < 2 * nv; i++) {
        if (!isfinite(uv[i])) return -1;
        if (uv[i] < lo[i & 1]) lo[i & 1] = uv[i];
        if (uv[i] > hi[i & 1]) hi[i & 1] = uv[i];
    }
    for (i = 0; i < 3 * nt; i++) if (tris[i] < 0 || tris[i] >= nv) return -1;
    if (!(hi[0] > lo[0])) { lo[0] -= 0.5; hi[0] += 0.5; }
    if (!(hi[1] > lo[1])) { lo[1] -= 0.5; hi[1] += 0.5; }
    return 0;
}

int pic_draw_mesh2d(pic_image *img, int nv, const double *uv, int nt, const int *tris,
                    const double *tri_value, double vmin, double vmax, int margin, double wire_px)
{
    static const unsigned char wire[3] = {45, 45, 55};
    double lo[2], hi[2], s, ox, oy;
    int t;
    if (!img || !img->rgb || margin < 0 || 2 * margin >= img->w || 2 * margin >= img->h) return -1;
    if (pic__check_mesh2d(nv, uv, nt, tris, lo, hi) != 0) return -1;
    if (tri_value && (!isfinite(vmin) || !isfinite(vmax))) return -1;
    /* uniform scale so the mesh fits inside the margin, centred; v grows upwards */
    s = (img->w - 2.0 * margin) / (hi[0] - lo[0]);
    if ((img->h - 2.0 * margin) / (hi[1] - lo[1]) < s) s = (img->h - 2.0 * margin) / (hi[1] - lo[1]);
    ox = 0.5 * img->w - s * 0.5 * (lo[0] + hi[0]);
    oy = 0.5 * img->h + s * 0.5 * (lo[1] + hi[1]);
    for (t = 0; t < nt; t++) {
        double P[9], C[9];
        unsigned char rgb[3];
        int k;
        pic__tri_color(tri_value, t, vmin, vmax, rgb);
        for (k = 0; k < 3; k++) {
            const double *p = uv + 2 * tris[3 * t + k];
            P[3 * k] = ox + s * p[0]; P[3 * k + 1] = oy - s * p[1]; P[3 * k + 2] = 0.0;
            C[3 * k] = rgb[0]; C[3 * k + 1] = rgb[1]; C[3 * k + 2] = rgb[2];
        }
        pic__raster_tri(img, P, C, 0, wire_px > 0 ? wire : NULL, wire_px > 0 ? wire_px : 1.0);
    }
    return 0;
}

/* ======================================================================
   SECTION: SVG helpers
   ====================================================================== */
static void pic__svg_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 32 || *s == '\t') fputc(*s, f);
        }
    }
}

static void pic__svg_open(FILE *f, int w, int h)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"Helvetica, Arial, sans-serif\">\n", w, h, w, h);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h);
}

static int pic__svg_close(FILE *f)
{
    int ok;
    fputs("</svg>\n", f);
    ok = !ferror(f);
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int pic_write_svg_mesh2d(const char *path, int nv, const double *uv, int nt, const int *tris,
                         const double *tri_value, double vmin, double vmax)
{
    const double side = 800.0, m = 12.0;
    double lo[2], hi[2], s;
    int W, H, t, barh;
    FILE *f;
    if (!path || pic__check_mesh2d(nv, uv, nt, tris, lo, hi) != 0) return -1;
    if (tri_value) {
        if (!isfinite(vmin) || !isfinite(vmax)) return -1;
        for (t = 0; t < nt; t++) if (!isfinite(tri_value[t])) return -1;
    }
    s = side / ((hi[0] - lo[0]) > (hi[1] - lo[1]) ? (hi[0] - lo[0]) : (hi[1] - lo[1]));
    barh = tri_value ? 40 : 0;
    W = (int)ceil(s * (hi[0] - lo[0]) + 2 * m);
    H = (int)ceil(s * (hi[1] - lo[1]) + 2 * m) + barh;
    f = fopen(path, "w");
    if (!f) return -1;
    pic__svg_open(f, W, H);
    /* stroke width scales with the mean edge length so fine meshes stay readable */
    {
        double sw = 0.6 * sqrt(side * side / (nt > 0 ? nt : 1));
        if (sw > 1.0) sw = 1.0;
        if (sw < 0.15) sw = 0.15;
        fprintf(f, "<g stroke=\"#2d2d37\" stroke-width=\"%.3f\" stroke-linejoin=\"round\">\n", sw);
    }
    for (t = 0; t < nt; t++) {
        unsigned char rgb[3];
        int k;
        pic__tri_color(tri_value, t, vmin, vmax, rgb);
        fputs("<polygon points=\"", f);
        for (k = 0; k < 3; k++) {
            const double *p = uv + 2 * tris[3 * t + k];
            fprintf(f, "%s%.2f,%.2f", k ? " " : "", m + s * (p[0] - lo[0]), m + s * (hi[1] - p[1]));
        }
        fprintf(f, "\" fill=\"#%02x%02x%02x\"/>\n", rgb[0], rgb[1], rgb[2]);
    }
    fputs("</g>\n", f);
    if (tri_value) {
        /* colour bar: 20 swatches from vmin to vmax */
        double bx = m, bw = (W - 2 * m) * 0.5, by = H - barh + 8;
        int k;
        for (k = 0; k < 20; k++) {
            unsigned char rgb[3];
            pic_colormap((k + 0.5) / 20.0, rgb);
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"12\" fill=\"#%02x%02x%02x\"/>\n",
                    bx + bw * k / 20.0, by, bw / 20.0 + 0.3, rgb[0], rgb[1], rgb[2]);
        }
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">%g</text>\n", bx, by + 26, vmin);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n", bx + bw, by + 26, vmax);
    }
    return pic__svg_close(f);
}

/* "nice" tick step for a range: 1, 2 or 5 times a power of ten, about `target` ticks */
static double pic__nice_step(double range, int target)
{
    double raw = range / target, mag, norm;
    if (!(raw > 0) || !isfinite(raw)) return 1.0;
    mag = pow(10.0, floor(log10(raw)));
    norm = raw / mag;
    return (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * mag;
}

/* plot frame shared by the line plot and the histogram */
typedef struct pic__frame {
    double x0, y0, x1, y1;       /* plot rectangle in SVG pixels (y0 top) */
    double xmin, xmax, ymin, ymax, xstep, ystep;
} pic__frame;

static double pic__fx(const pic__frame *fr, double x) { return fr->x0 + (x - fr->xmin) / (fr->xmax - fr->xmin) * (fr->x1 - fr->x0); }
static double pic__fy(const pic__frame *fr, double y) { return fr->y1 - (y - fr->ymin) / (fr->ymax - fr->ymin) * (fr->y1 - fr->y0); }

/* widen [lo, hi] to whole tick steps; a degenerate range becomes a unit interval around it */
static void pic__nice_range(double *lo, double *hi, double *step, int target, int integer_step)
{
    if (!(*hi > *lo)) { double c = *lo; double d = fabs(c) > 0 ? 0.1 * fabs(c) : 0.5; *lo = c - d; *hi = c + d; }
    *step = pic__nice_step(*hi - *lo, target);
    if (integer_step && *step < 1.0) *step = 1.0;
    *lo = floor(*lo / *step + 1e-9) * *step;
    *hi = ceil(*hi / *step - 1e-9) * *step;
    if (!(*hi > *lo)) *hi = *lo + *step;
}

static void pic__svg_frame(FILE *f, const pic__frame *fr, int W, const char *title, const char *xlabel,
                           const char *ylabel, int log_y)
{
    double v;
    int k;
    fprintf(f, "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n");
    for (k = 0, v = fr->xmin; v <= fr->xmax + 1e-9 * fr->xstep && k < 200; k++, v = fr->xmin + k * fr->xstep)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", pic__fx(fr, v), fr->y0, pic__fx(fr, v), fr->y1);
    for (k = 0, v = fr->ymin; v <= fr->ymax + 1e-9 * fr->ystep && k < 200; k++, v = fr->ymin + k * fr->ystep)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", fr->x0, pic__fy(fr, v), fr->x1, pic__fy(fr, v));
    fputs("</g>\n", f);
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
            fr->x0, fr->y0, fr->x1 - fr->x0, fr->y1 - fr->y0);
    fputs("<g font-size=\"12\" fill=\"#222222\">\n", f);
    for (k = 0, v = fr->xmin; v <= fr->xmax + 1e-9 * fr->xstep && k < 200; k++, v = fr->xmin + k * fr->xstep) {
        double tv = fabs(v) < 1e-9 * fr->xstep ? 0.0 : v;
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333333\"/>\n",
                pic__fx(fr, v), fr->y1, pic__fx(fr, v), fr->y1 + 5);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%g</text>\n", pic__fx(fr, v), fr->y1 + 19, tv);
    }
    for (k = 0, v = fr->ymin; v <= fr->ymax + 1e-9 * fr->ystep && k < 200; k++, v = fr->ymin + k * fr->ystep) {
        double tv = fabs(v) < 1e-9 * fr->ystep ? 0.0 : v;
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333333\"/>\n",
                fr->x0 - 5, pic__fy(fr, v), fr->x0, pic__fy(fr, v));
        if (log_y)
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">10<tspan dy=\"-6\" font-size=\"9\">%g</tspan></text>\n",
                    fr->x0 - 8, pic__fy(fr, v) + 4, tv);
        else
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%g</text>\n", fr->x0 - 8, pic__fy(fr, v) + 4, tv);
    }
    fputs("</g>\n", f);
    if (title) {
        fprintf(f, "<text x=\"%.2f\" y=\"24\" font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\">", 0.5 * W);
        pic__svg_text(f, title);
        fputs("</text>\n", f);
    }
    if (xlabel) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"13\" text-anchor=\"middle\">", 0.5 * (fr->x0 + fr->x1), fr->y1 + 40);
        pic__svg_text(f, xlabel);
        fputs("</text>\n", f);
    }
    if (ylabel) {
        double cy = 0.5 * (fr->y0 + fr->y1);
        fprintf(f, "<text x=\"18\" y=\"%.2f\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.2f)\">", cy, cy);
        pic__svg_text(f, ylabel);
        fputs("</text>\n", f);
    }
}

static const char *const pic__palette[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                            "#e377c2", "#7f7f7f"};

static void pic__svg_legend(FILE *f, const pic__frame *fr, int n, const char *const *labels, int filled)
{
    int k, rows = 0, maxlen = 0;
    double w, x, y;
    for (k = 0; k < n; k++) if (labels[k]) { int l = (int)strlen(labels[k]); rows++; if (l > maxlen) maxlen = l; }
    if (!rows) return;
    w = 40 + 7.0 * maxlen;
    x = fr->x1 - w - 8; y = fr->y0 + 8;
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n",
            x, y, w, 18 * rows + 8);
    rows = 0;
    for (k = 0; k < n; k++) {
        double ly;
        if (!labels[k]) continue;
        ly = y + 16 + 18 * rows++;
        if (filled)
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"20\" height=\"10\" fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                    x + 8, ly - 9, pic__palette[k % 8], pic__palette[k % 8]);
        else
            fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    x + 8, ly - 4, x + 28, ly - 4, pic__palette[k % 8]);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\">", x + 34, ly);
        pic__svg_text(f, labels[k]);
        fputs("</text>\n", f);
    }
}

int pic_write_svg_lines(const char *path, const char *title, const char *xlabel,
                        const char *ylabel, int nseries, const pic_series *series, int log_y)
{
    const int W = 720, H = 440;
    pic__frame fr;
    const char *labels[64];
    double xlo = DBL_MAX, xhi = -DBL_MAX, ylo = DBL_MAX, yhi = -DBL_MAX;
    int s, i, any = 0;
    FILE *f;
    if (!path || nseries < 1 || nseries > 64 || !series) return -1;
    for (s = 0; s < nseries; s++) {
        if (series[s].n < 0 || (series[s].n > 0 && !series[s].y)) return -1;
        labels[s] = series[s].label;
        for (i = 0; i < series[s].n; i++) {
            double x = series[s].x ? series[s].x[i] : (double)i, y = series[s].y[i];
            if (log_y) y = y > 0 ? log10(y) : NAN;
            if (!isfinite(x) || !isfinite(y)) continue;
            any = 1;
            if (x < xlo) xlo = x;
            if (x > xhi) xhi = x;
            if (y < ylo) ylo = y;
            if (y > yhi) yhi = y;
        }
    }
    if (!any) { xlo = 0; xhi = 1; ylo = 0; yhi = 1; }
    fr.x0 = 78; fr.x1 = W - 20; fr.y0 = 40; fr.y1 = H - 56;
    fr.xmin = xlo; fr.xmax = xhi; fr.ymin = ylo; fr.ymax = yhi;
    pic__nice_range(&fr.xmin, &fr.xmax, &fr.xstep, 8, 0);
    pic__nice_range(&fr.ymin, &fr.ymax, &fr.ystep, 6, log_y);
    f = fopen(path, "w");
    if (!f) return -1;
    pic__svg_open(f, W, H);
    pic__svg_frame(f, &fr, W, title, xlabel, ylabel, log_y);
    for (s = 0; s < nseries; s++) {
        const char *col = pic__palette[s % 8];
        int pen = 0, npts = 0;
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-linejoin=\"round\" d=\"", col);
        for (i = 0; i < series[s].n; i++) {
            double x = series[s].x ? series[s].x[i] : (double)i, y = series[s].y[i];
            if (log_y) y = y > 0 ? log10(y) : NAN;
            if (!isfinite(x) || !isfinite(y)) { pen = 0; continue; }  /* a gap in the line */
            fprintf(f, "%s%.2f %.2f ", pen ? "L" : "M", pic__fx(&fr, x), pic__fy(&fr, y));
            pen = 1; npts++;
        }
        fputs("\"/>\n", f);
        if (npts <= 40) {  /* few points: mark them so isolated points are visible */
            for (i = 0; i < series[s].n; i++) {
                double x = series[s].x ? series[s].x[i] : (double)i, y = series[s].y[i];
                if (log_y) y = y > 0 ? log10(y) : NAN;
                if (!isfinite(x) || !isfinite(y)) continue;
                fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n", pic__fx(&fr, x), pic__fy(&fr, y), col);
            }
        }
    }
    pic__svg_legend(f, &fr, nseries, labels, 0);
    return pic__svg_close(f);
}

int pic_write_svg_histogram(const char *path, const char *title, const char *xlabel,
                            const double *a, int na, const char *label_a,
                            const double *b, int nb, const char *label_b, int bins)
{
    const int W = 720, H = 440;
    const double *data[2];
    int n[2], cnt[2], s, i;
    double lo = DBL_MAX, hi = -DBL_MAX, width, fmax = 0.0, *frac;
    const char *labels[2];
    pic__frame fr;
    FILE *f;
    if (!path || na < 0 || nb < 0 || (na > 0 && !a) || (nb > 0 && !b) || bins < 1 || bins > 100000) return -1;
    data[0] = a; data[1] = b; n[0] = na; n[1] = nb; labels[0] = label_a; labels[1] = label_b;
    for (s = 0; s < 2; s++)
        for (i = 0; i < n[s]; i++) {
            double v = data[s][i];
            if (!isfinite(v)) continue;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    if (lo > hi) { lo = 0; hi = 1; }
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    width = (hi - lo) / bins;
    frac = (double *)calloc(2 * (size_t)bins, sizeof(double));
    if (!frac) return -1;
    for (s = 0; s < 2; s++) {
        cnt[s] = 0;
        for (i = 0; i < n[s]; i++) {
            double v = data[s][i];
            int k;
            if (!isfinite(v)) continue;
            k = (int)((v - lo) / width);
            if (k >= bins) k = bins - 1;   /* the maximum lands in the last bin */
            if (k < 0) k = 0;
            frac[s * bins + k] += 1.0;
            cnt[s]++;
        }
        for (i = 0; i < bins; i++) {
            if (cnt[s]) frac[s * bins + i] /= cnt[s];
            if (frac[s * bins + i] > fmax) fmax = frac[s * bins + i];
        }
    }
    fr.x0 = 78; fr.x1 = W - 20; fr.y0 = 40; fr.y1 = H - 56;
    fr.xmin = lo; fr.xmax = hi; fr.ymin = 0.0; fr.ymax = fmax > 0 ? fmax : 1.0;
    pic__nice_range(&fr.xmin, &fr.xmax, &fr.xstep, 8, 0);
    pic__nice_range(&fr.ymin, &fr.ymax, &fr.ystep, 6, 0);
    f = fopen(path, "w");
    if (!f) { free(frac); return -1; }
    pic__svg_open(f, W, H);
    pic__svg_frame(f, &fr, W, title, xlabel, "fraction of samples", 0);
    for (s = 0; s < 2; s++) {
        if (!cnt[s]) continue;
        fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"1.5\" d=\"M%.2f %.2f",
                pic__palette[s], pic__palette[s], pic__fx(&fr, lo), pic__fy(&fr, 0.0));
        for (i = 0; i < bins; i++) {
            double yv = pic__fy(&fr, frac[s * bins + i]);
            fprintf(f, " L%.2f %.2f L%.2f %.2f", pic__fx(&fr, lo + i * width), yv, pic__fx(&fr, lo + (i + 1) * width), yv);
        }
        fprintf(f, " L%.2f %.2f Z\"/>\n", pic__fx(&fr, hi), pic__fy(&fr, 0.0));
    }
    free(frac);
    pic__svg_legend(f, &fr, 2, labels, 1);
    return pic__svg_close(f);
}

/* ======================================================================
   SECTION: 5x7 bitmap font (ASCII 32..126), rows top to bottom, bit 4 = leftmost column.
   Drawn for this file. Rows 0-6 are the 5x7 body (baseline under row 6); rows 7-8 hold only the
   descenders of g j p q y and the comma. Each glyph occupies a 6x10 cell.
   ====================================================================== */
static const unsigned char pic__font[95][9] = {
    {0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00}, /*   */
    {0x04,0x04,0x04,0x04,0x04,0x00,0x04,0x00,0x00}, /* ! */
    {0x0a,0x0a,0x00,0x00,0x00,0x00,0x00,0x00,0x00}, /* " */
    {0x0a,0x0a,0x1f,0x0a,0x1f,0x0a,0x0a,0x00,0x00}, /* # */
    {0x04,0x0f,0x14,0x0e,0x05,0x1e,0x04,0x00,0x00}, /* $ */
    {0x18,0x19,0x02,0x04,0x08,0x13,0x03,0x00,0x00}, /* % */
    {0x0c,0x12,0x14,0x08,0x15,0x12,0x0d,0x00,0x00}, /* & */
    {0x04,0x04,0x00,0x00,0x00,0x00,0x00,0x00,0x00}, /* ' */
    {0x02,0x04,0x08,0x08,0x08,0x04,0x02,0x00,0x00}, /* ( */
    {0x08,0x04,0x02,0x02,0x02,0x04,0x08,0x00,0x00}, /* ) */
    {0x00,0x04,0x15,0x0e,0x15,0x04,0x00,0x00,0x00}, /* * */
    {0x00,0x04,0x04,0x1f,0x04,0x04,0x00,0x00,0x00}, /* + */
    {0x00,0x00,0x00,0x00,0x00,0x0c,0x0c,0x04,0x08}, /* , */
    {0x00,0x00,0x00,0x1f,0x00,0x00,0x00,0x00,0x00}, /* - */
    {0x00,0x00,0x00,0x00,0x00,0x0c,0x0c,0x00,0x00}, /* . */
    {0x00,0x01,0x02,0x04,0x08,0x10,0x00,0x00,0x00}, /* / */
    {0x0e,0x11,0x13,0x15,0x19,0x11,0x0e,0x00,0x00}, /* 0 */
    {0x04,0x0c,0x04,0x04,0x04,0x04,0x0e,0x00,0x00}, /* 1 */
    {0x0e,0x11,0x01,0x02,0x04,0x08,0x1f,0x00,0x00}, /* 2 */
    {0x1f,0x02,0x04,0x02,0x01,0x11,0x0e,0x00,0x00}, /* 3 */
    {0x02,0x06,0x0a,0x12,0x1f,0x02,0x02,0x00,0x00}, /* 4 */
    {0x1f,0x10,0x1e,0x01,0x01,0x11,0x0e,0x00,0x00}, /* 5 */
    {0x06,0x08,0x10,0x1e,0x11,0x11,0x0e,0x00,0x00}, /* 6 */
    {0x1f,0x01,0x02,0x04,0x08,0x08,0x08,0x00,0x00}, /* 7 */
    {0x0e,0x11,0x11,0x0e,0x11,0x11,0x0e,0x00,0x00}, /* 8 */
    {0x0e,0x11,0x11,0x0f,0x01,0x02,0x0c,0x00,0x00}, /* 9 */
    {0x00,0x0c,0x0c,0x00,0x0c,0x0c,0x00,0x00,0x00}, /* : */
    {0x00,0x0c,0x0c,0x00,0x0c,0x04,0x08,0x00,0x00}, /* ; */
    {0x02,0x04,0x08,0x10,0x08,0x04,0x02,0x00,0x00}, /* < */
    {0x00,0x00,0x1f,0x00,0x1f,0x00,0x00,0x00,0x00}, /* = */
    {0x08,0x04,0x02,0x01,0x02,0x04,0x08,0x00,0x00}, /* > */
    {0x0e,0x11,0x01,0x02,0x04,0x00,0x04,0x00,0x00}, /* ? */
    {0x0e,0x11,0x01,0x0d,0x15,0x15,0x0e,0x00,0x00}, /* @ */
    {0x0e,0x11,0x11,0x1f,0x11,0x11,0x11,0x00,0x00}, /* A */
    {0x1e,0x11,0x11,0x1e,0x11,0x11,0x1e,0x00,0x00}, /* B */
    {0x0e,0x11,0x10,0x10,0x10,0x11,0x0e,0x00,0x00}, /* C */
    {0x1c,0x12,0x11,0x11,0x11,0x12,0x1c,0x00,0x00}, /* D */
    {0x1f,0x10,0x10,0x1e,0x10,0x10,0x1f,0x00,0x00}, /* E */
    {0x1f,0x10,0x10,0x1e,0x10,0x10,0x10,0x00,0x00}, /* F */
    {0x0e,0x11,0x10,0x17,0x11,0x11,0x0f,0x00,0x00}, /* G */
    {0x11,0x11,0x11,0x1f,0x11,0x11,0x11,0x00,0x00}, /* H */
    {0x0e,0x04,0x04,0x04,0x04,0x04,0x0e,0x00,0x00}, /* I */
    {0x07,0x02,0x02,0x02,0x02,0x12,0x0c,0x00,0x00}, /* J */
    {0x11,0x12,0x14,0x18,0x14,0x12,0x11,0x00,0x00}, /* K */
    {0x10,0x10,0x10,0x10,0x10,0x10,0x1f,0x00,0x00}, /* L */
    {0x11,0x1b,0x15,0x15,0x11,0x11,0x11,0x00,0x00}, /* M */
    {0x11,0x11,0x19,0x15,0x13,0x11,0x11,0x00,0x00}, /* N */
    {0x0e,0x11,0x11,0x11,0x11,0x11,0x0e,0x00,0x00}, /* O */
    {0x1e,0x11,0x11,0x1e,0x10,0x10,0x10,0x00,0x00}, /* P */
    {0x0e,0x11,0x11,0x11,0x15,0x12,0x0d,0x00,0x00}, /* Q */
    {0x1e,0x11,0x11,0x1e,0x14,0x12,0x11,0x00,0x00}, /* R */
    {0x0f,0x10,0x10,0x0e,0x01,0x01,0x1e,0x00,0x00}, /* S */
    {0x1f,0x04,0x04,0x04,0x04,0x04,0x04,0x00,0x00}, /* T */
    {0x11,0x11,0x11,0x11,0x11,0x11,0x0e,0x00,0x00}, /* U */
    {0x11,0x11,0x11,0x11,0x11,0x0a,0x04,0x00,0x00}, /* V */
    {0x11,0x11,0x11,0x15,0x15,0x15,0x0a,0x00,0x00}, /* W */
    {0x11,0x11,0x0a,0x04,0x0a,0x11,0x11,0x00,0x00}, /* X */
    {0x11,0x11,0x0a,0x04,0x04,0x04,0x04,0x00,0x00}, /* Y */
    {0x1f,0x01,0x02,0x04,0x08,0x10,0x1f,0x00,0x00}, /* Z */
    {0x0e,0x08,0x08,0x08,0x08,0x08,0x0e,0x00,0x00}, /* [ */
    {0x00,0x10,0x08,0x04,0x02,0x01,0x00,0x00,0x00}, /* backslash */
    {0x0e,0x02,0x02,0x02,0x02,0x02,0x0e,0x00,0x00}, /* ] */
    {0x04,0x0a,0x11,0x00,0x00,0x00,0x00,0x00,0x00}, /* ^ */
    {0x00,0x00,0x00,0x00,0x00,0x00,0x1f,0x00,0x00}, /* _ */
    {0x08,0x04,0x00,0x00,0x00,0x00,0x00,0x00,0x00}, /* ` */
    {0x00,0x00,0x0e,0x01,0x0f,0x11,0x0f,0x00,0x00}, /* a */
    {0x10,0x10,0x16,0x19,0x11,0x11,0x1e,0x00,0x00}, /* b */
    {0x00,0x00,0x0e,0x10,0x10,0x11,0x0e,0x00,0x00}, /* c */
    {0x01,0x01,0x0d,0x13,0x11,0x11,0x0f,0x00,0x00}, /* d */
    {0x00,0x00,0x0e,0x11,0x1f,0x10,0x0e,0x00,0x00}, /* e */
    {0x06,0x09,0x08,0x1c,0x08,0x08,0x08,0x00,0x00}, /* f */
    {0x00,0x00,0x0f,0x11,0x11,0x11,0x0f,0x01,0x0e}, /* g */
    {0x10,0x10,0x16,0x19,0x11,0x11,0x11,0x00,0x00}, /* h */
    {0x04,0x00,0x0c,0x04,0x04,0x04,0x0e,0x00,0x00}, /* i */
    {0x02,0x00,0x06,0x02,0x02,0x02,0x02,0x12,0x0c}, /* j */
    {0x10,0x10,0x12,0x14,0x18,0x14,0x12,0x00,0x00}, /* k */
    {0x0c,0x04,0x04,0x04,0x04,0x04,0x0e,0x00,0x00}, /* l */
    {0x00,0x00,0x1a,0x15,0x15,0x11,0x11,0x00,0x00}, /* m */
    {0x00,0x00,0x16,0x19,0x11,0x11,0x11,0x00,0x00}, /* n */
    {0x00,0x00,0x0e,0x11,0x11,0x11,0x0e,0x00,0x00}, /* o */
    {0x00,0x00,0x1e,0x11,0x11,0x11,0x1e,0x10,0x10}, /* p */
    {0x00,0x00,0x0f,0x11,0x11,0x11,0x0f,0x01,0x01}, /* q */
    {0x00,0x00,0x16,0x19,0x10,0x10,0x10,0x00,0x00}, /* r */
    {0x00,0x00,0x0e,0x10,0x0e,0x01,0x1e,0x00,0x00}, /* s */
    {0x08,0x08,0x1c,0x08,0x08,0x09,0x06,0x00,0x00}, /* t */
    {0x00,0x00,0x11,0x11,0x11,0x13,0x0d,0x00,0x00}, /* u */
    {0x00,0x00,0x11,0x11,0x11,0x0a,0x04,0x00,0x00}, /* v */
    {0x00,0x00,0x11,0x11,0x15,0x15,0x0a,0x00,0x00}, /* w */
    {0x00,0x00,0x11,0x0a,0x04,0x0a,0x11,0x00,0x00}, /* x */
    {0x00,0x00,0x11,0x11,0x11,0x11,0x0f,0x01,0x0e}, /* y */
    {0x00,0x00,0x1f,0x02,0x04,0x08,0x1f,0x00,0x00}, /* z */
    {0x02,0x04,0x04,0x08,0x04,0x04,0x02,0x00,0x00}, /* { */
    {0x04,0x04,0x04,0x04,0x04,0x04,0x04,0x00,0x00}, /* | */
    {0x08,0x04,0x04,0x02,0x04,0x04,0x08,0x00,0x00}, /* } */
    {0x00,0x00,0x08,0x15,0x02,0x00,0x00,0x00,0x00}, /* ~ */
};

int pic_text_width(const char *text, int scale)
{
    int n = 0, best = 0;
    if (!text || scale < 1) return 0;
    for (; *text; text++) {
        if (*text == '\n') { if (n > best) best = n; n = 0; }
        else n++;
    }
    if (n > best) best = n;
    return best > 0 ? (6 * best - 1) * scale : 0;
}

void pic_draw_text(pic_image *img, int x, int y, const char *text, int scale, const unsigned char rgb[3])
{
    int cx = x, cy = y;
    if (!img || !img->rgb || !text || scale < 1 || !rgb) return;
    for (; *text; text++) {
        int ch = (unsigned char)*text, r, c, i, j;
        if (ch == '\n') { cx = x; cy += 10 * scale; continue; }
        if (ch < 32 || ch > 126) ch = '?';
        for (r = 0; r < 9; r++)
            for (c = 0; c < 5; c++) {
                if (!((pic__font[ch - 32][r] >> (4 - c)) & 1)) continue;
                for (j = 0; j < scale; j++)
                    for (i = 0; i < scale; i++) {
                        int px = cx + c * scale + i, py = cy + r * scale + j;
                        size_t idx;
                        if (px < 0 || py < 0 || px >= img->w || py >= img->h) continue;
                        idx = 3 * ((size_t)py * (size_t)img->w + (size_t)px);
                        img->rgb[idx] = rgb[0]; img->rgb[idx + 1] = rgb[1]; img->rgb[idx + 2] = rgb[2];
                    }
            }
        cx += 6 * scale;
    }
}

int pic_side_by_side(const pic_image *a, const char *label_a, const pic_image *b,
                     const char *label_b, pic_image *out)
{
    static const unsigned char ink[3] = {20, 20, 30};
    const int gap = 16;
    int scale, label_h, W, H, y, hmax;
    if (!a || !b || !a->rgb || !b->rgb || !out) return -1;
    scale = (a->w < b->w ? a->w : b->w) >= 600 ? 3 : 2;
    /* rows: gap, caption (9 scale with descenders), gap/2, images, gap; without captions: gap, images, gap */
    label_h = (label_a || label_b) ? gap + 9 * scale + gap / 2 : gap;
    hmax = a->h > b->h ? a->h : b->h;
    W = a->w + b->w + 3 * gap;
    H = label_h + hmax + gap;
    if (pic_image_init(out, W, H, NULL) != 0) return -1;
    {
        const pic_image *im[2];
        const char *lab[2];
        int k, x0 = gap;
        im[0] = a; im[1] = b; lab[0] = label_a; lab[1] = label_b;
        for (k = 0; k < 2; k++) {
            int top = label_h + (hmax - im[k]->h) / 2;
            for (y = 0; y < im[k]->h; y++)
                memcpy(out->rgb + 3 * ((size_t)(top + y) * (size_t)W + (size_t)x0),
                       im[k]->rgb + 3 * (size_t)y * (size_t)im[k]->w, 3 * (size_t)im[k]->w);
            if (lab[k])
                pic_draw_text(out, x0 + (im[k]->w - pic_text_width(lab[k], scale)) / 2, gap, lab[k], scale, ink);
            x0 += im[k]->w + gap;
        }
    }
    return 0;
}
