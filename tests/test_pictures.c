/* tests/test_pictures.c - the picture helpers in examples/common/ (PNG, rasteriser, SVG, text).
   The PNG files are decoded here by an independent reader: a bitwise CRC-32, a small inflate for
   stored, fixed and dynamic Huffman blocks, and the PNG unfilter, so a wrong encoder cannot agree
   with itself. */
#include "test.h"
#include "../examples/common/picture.c"

/* ---------------------------------------------------------------- independent checksums */
static unsigned long t_crc32_bitwise(const unsigned char *p, size_t n)
{
    unsigned long c = 0xFFFFFFFFUL;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320UL & (0UL - (c & 1UL)));
    }
    return (c ^ 0xFFFFFFFFUL) & 0xFFFFFFFFUL;
}
static unsigned long t_be32(const unsigned char *p)
{
    return ((unsigned long)p[0] << 24) | ((unsigned long)p[1] << 16) | ((unsigned long)p[2] << 8) | p[3];
}

/* ---------------------------------------------------------------- a tiny inflate (RFC 1951) */
typedef struct t_inf {
    const unsigned char *in; size_t n, pos;
    unsigned long bitbuf; int bitcnt;
    unsigned char *out; size_t cap, len;
    int err;                       /* 1 = truncated/overflow, 2 = bad data */
    int blocks[3];                 /* how many stored / fixed / dynamic blocks were seen */
} t_inf;

static unsigned t_bits(t_inf *s, int need)
{
    unsigned long v;
    while (s->bitcnt < need) {
        if (s->pos >= s->n) { s->err = 1; return 0; }
        s->bitbuf |= (unsigned long)s->in[s->pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    v = s->bitbuf & ((1UL << need) - 1UL);
    s->bitbuf >>= need; s->bitcnt -= need;
    return (unsigned)v;
}
/* canonical Huffman code: count[len] codes of each length, symbols sorted by (length, value) */
typedef struct t_huff { short count[16]; short sym[320]; } t_huff;
static int t_huff_build(t_huff *h, const unsigned char *len, int n)
{
    short offs[16];
    int i, left = 1;
    memset(h->count, 0, sizeof h->count);
    for (i = 0; i < n; i++) h->count[len[i]]++;
    for (i = 1; i < 16; i++) { left <<= 1; left -= h->count[i]; if (left < 0) return -1; } /* over-subscribed */
    offs[1] = 0;
    for (i = 1; i < 15; i++) offs[i + 1] = (short)(offs[i] + h->count[i]);
    for (i = 0; i < n; i++) if (len[i]) h->sym[offs[len[i]]++] = (short)i;
    return 0;
}
static int t_decode(t_inf *s, const t_huff *h)
{
    int code = 0, first = 0, index = 0, l;
    for (l = 1; l < 16; l++) {
        int cnt = h->count[l];
        code |= (int)t_bits(s, 1);
        if (s->err) return -1;
        if (code - first < cnt) return h->sym[index + code - first];
        index += cnt; first += cnt;
        first <<= 1; code <<= 1;
    }
    s->err = 2;
    return -1;
}
static const short t_lbase[29] = {3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,115,131,163,195,227,258};
static const short t_lext[29] = {0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0};
static const short t_dbase[30] = {1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,1025,1537,2049,3073,4097,6145,8193,12289,16385,24577};
static const short t_dext[30] = {0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13};

static void t_codes(t_inf *s, const t_huff *lit, const t_huff *dist)
{
    for (;;) {
        int sym = t_decode(s, lit);
        if (s->err) return;
        if (sym < 256) {
            if (s->len >= s->cap) { s->err = 1; return; }
            s->out[s->len++] = (unsigned char)sym;
        } else if (sym == 256) {
            return;
        } else {
            int len, d, ds;
            size_t k;
            sym -= 257;
            if (sym >= 29) { s->err = 2; return; }
            len = t_lbase[sym] + (int)t_bits(s, t_lext[sym]);
            ds = t_decode(s, dist);
            if (s->err) return;
            if (ds < 0 || ds >= 30) { s->err = 2; return; }
            d = t_dbase[ds] + (int)t_bits(s, t_dext[ds]);
            if (s->err) return;
            if ((size_t)d > s->len) { s->err = 2; return; }   /* distance before the start */
            if (s->len + (size_t)len > s->cap) { s->err = 1; return; }
            for (k = 0; k < (size_t)len; k++) { s->out[s->len] = s->out[s->len - (size_t)d]; s->len++; }
        }
    }
}

/* inflate a raw deflate stream into out[cap]; returns the number of bytes or -1 */
static long t_inflate(t_inf *s, const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    int last;
    memset(s, 0, sizeof *s);
    s->in = in; s->n = n; s->out = out; s->cap = cap;
    do {
        int type;
        last = (int)t_bits(s, 1);
        type = (int)t_bits(s, 2);
        if (s->err) return -1;
        if (type == 0) {
            unsigned len, nlen;
            s->bitbuf = 0; s->bitcnt = 0;             /* stored: skip to the byte boundary */
            if (s->pos + 4 > s->n) return -1;
            len = s->in[s->pos] | ((unsigned)s->in[s->pos + 1] << 8);
            nlen = s->in[s->pos + 2] | ((unsigned)s->in[s->pos + 3] << 8);
            s->pos += 4;
            if (len != (~nlen & 0xffffu)) { s->err = 2; return -1; }
            if (s->pos + len > s->n || s->len + len > s->cap) return -1;
            memcpy(s->out + s->len, s->in + s->pos, len);
            s->pos += len; s->len += len;
            s->blocks[0]++;
        } else if (type == 1) {
            unsigned char l[288];
            t_huff lit, dist;
            int i;
            for (i = 0; i < 144; i++) l[i] = 8;
            for (; i < 256; i++) l[i] = 9;
            for (; i < 280; i++) l[i] = 7;
            for (; i < 288; i++) l[i] = 8;
            t_huff_build(&lit, l, 288);
            for (i = 0; i < 30; i++) l[i] = 5;
            t_huff_build(&dist, l, 30);
            t_codes(s, &lit, &dist);
            s->blocks[1]++;
        } else if (type == 2) {
            static const unsigned char order[19] = {16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15};
            unsigned char l[320];
            t_huff lencode, lit, dist;
            int nlit = (int)t_bits(s, 5) + 257, ndist = (int)t_bits(s, 5) + 1, ncode = (int)t_bits(s, 4) + 4, i;
            if (s->err || nlit > 286 || ndist > 30) return -1;
            memset(l, 0, sizeof l);
            for (i = 0; i < ncode; i++) l[order[i]] = (unsigned char)t_bits(s, 3);
            if (t_huff_build(&lencode, l, 19) != 0) return -1;
            i = 0;
            while (i < nlit + ndist) {
                int sym = t_decode(s, &lencode), rep = 0;
                unsigned char v = 0;
                if (s->err) return -1;
                if (sym < 16) { l[i++] = (unsigned char)sym; continue; }
                if (sym == 16) { if (i == 0) return -1; v = l[i - 1]; rep = 3 + (int)t_bits(s, 2); }
                else if (sym == 17) rep = 3 + (int)t_bits(s, 3);
                else rep = 11 + (int)t_bits(s, 7);
                if (i + rep > nlit + ndist) return -1;
                while (rep--) l[i++] = v;
            }
            if (t_huff_build(&lit, l, nlit) != 0 || t_huff_build(&dist, l + nlit, ndist) != 0) return -1;
            t_codes(s, &lit, &dist);
            s->blocks[2]++;
        } else return -1;
        if (s->err) return -1;
    } while (!last);
    return (long)s->len;
}

/* ---------------------------------------------------------------- PNG reader */
typedef struct t_png {
    int w, h, depth, ctype, comp, filter, interlace;
    int nchunks, crc_bad, nidat, zlib_ok, adler_ok, blocks[3];
    unsigned char *px;             /* decoded pixels, channels per pixel from ctype */
} t_png;

static int t_png_decode(const unsigned char *d, size_t n, t_png *p)
{
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char *z = NULL, *raw = NULL;
    size_t zn = 0, pos = 8, stride, rawn;
    int ch, y, seen_end = 0;
    t_inf s;
    memset(p, 0, sizeof *p);
    if (n < 8 || memcmp(d, sig, 8) != 0) return -1;
    while (pos + 12 <= n && !seen_end) {
        unsigned long len = t_be32(d + pos), crc;
        const unsigned char *type = d + pos + 4;
        if (pos + 12 + len > n) return -1;
        crc = t_be32(d + pos + 8 + len);
        if (crc != t_crc32_bitwise(type, len + 4)) p->crc_bad++;
        p->nchunks++;
        if (!memcmp(type, "IHDR", 4)) {
            if (len != 13 || p->nchunks != 1) return -1;
            p->w = (int)t_be32(type + 4); p->h = (int)t_be32(type + 8);
            p->depth = type[12]; p->ctype = type[13]; p->comp = type[14]; p->filter = type[15]; p->interlace = type[16];
        } else if (!memcmp(type, "IDAT", 4)) {
            unsigned char *q = (unsigned char *)realloc(z, zn + len + 1);
            if (!q) { free(z); return -1; }
            z = q; memcpy(z + zn, type + 4, len); zn += len; p->nidat++;
        } else if (!memcmp(type, "IEND", 4)) {
            seen_end = 1;
        }
        pos += 12 + len;
    }
    if (!seen_end || pos != n || p->w < 1 || p->h < 1 || zn < 6) { free(z); return -1; }
    ch = p->ctype == 2 ? 3 : p->ctype == 6 ? 4 : 0;
    if (!ch || p->depth != 8) { free(z); return -1; }
    /* zlib header: CM 8, window <= 32K, (CMF*256 + FLG) % 31 == 0, no preset dictionary */
    p->zlib_ok = (z[0] & 15) == 8 && (z[0] >> 4) <= 7 && ((z[0] << 8) | z[1]) % 31 == 0 && !(z[1] & 0x20);
    stride = (size_t)p->w * (size_t)ch;
    rawn = (stride + 1) * (size_t)p->h;
    raw = (unsigned char *)malloc(rawn + 1);
    p->px = (unsigned char *)malloc(stride * (size_t)p->h);
    if (!raw || !p->px) { free(z); free(raw); free(p->px); p->px = NULL; return -1; }
    if (t_inflate(&s, z + 2, zn - 6, raw, rawn + 1) != (long)rawn) { free(z); free(raw); free(p->px); p->px = NULL; return -1; }
    memcpy(p->blocks, s.blocks, sizeof p->blocks);
    p->adler_ok = t_be32(z + zn - 4) == pic_adler32(1, raw, rawn);
    free(z);
    for (y = 0; y < p->h; y++) {
        const unsigned char *r = raw + (size_t)y * (stride + 1) + 1;
        unsigned char *o = p->px + (size_t)y * stride, *up = y ? o - stride : NULL;
        size_t i;
        int f = r[-1];
        if (f > 4) { free(raw); free(p->px); p->px = NULL; return -1; }
        for (i = 0; i < stride; i++) {
            int a = i >= (size_t)ch ? o[i - (size_t)ch] : 0, b = up ? up[i] : 0;
            int c = (up && i >= (size_t)ch) ? up[i - (size_t)ch] : 0, pr;
            if (f == 0) pr = 0;
            else if (f == 1) pr = a;
            else if (f == 2) pr = b;
            else if (f == 3) pr = (a + b) >> 1;
            else {
                int pp = a + b - c, pa = abs(pp - a), pb = abs(pp - b), pc = abs(pp - c);
                pr = (pa <= pb && pa <= pc) ? a : pb <= pc ? b : c;
            }
            o[i] = (unsigned char)((r[i] + pr) & 255);
        }
    }
    free(raw);
    return 0;
}

/* a test image with flat areas, gradients, repeats and noise so every filter and match kind occurs */
static unsigned char *t_make_image(int w, int h, int ch)
{
    unsigned char *px = (unsigned char *)malloc((size_t)w * (size_t)h * (size_t)ch);
    int x, y, c;
    if (!px) return NULL;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++) {
                unsigned char v;
                if (y < h / 4) v = (unsigned char)(c == 0 ? 200 : 40);           /* flat */
                else if (y < h / 2) v = (unsigned char)(x * 3 + y * c);          /* gradient */
                else if (y < 3 * h / 4) v = (unsigned char)(((x / 7) % 3) * 90 + c); /* stripes */
                else v = (unsigned char)(t_rand() * 256.0);                      /* noise */
                px[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c] = v;
            }
    return px;
}

static unsigned char *t_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long sz;
    *n = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        b = (unsigned char *)malloc((size_t)sz + 1);
        if (b && fread(b, 1, (size_t)sz, f) == (size_t)sz) { *n = (size_t)sz; b[sz] = 0; }
        else { free(b); b = NULL; }
    }
    fclose(f);
    return b;
}

/* ---------------------------------------------------------------- PNG tests */
static void test_pic_checksums(void)
{
    /* published check values: CRC-32("123456789") = CBF43926, Adler-32("Wikipedia") = 11E60398 */
    CHECK(pic_crc32(0, (const unsigned char *)"123456789", 9) == 0xCBF43926UL);
    CHECK(t_crc32_bitwise((const unsigned char *)"123456789", 9) == 0xCBF43926UL);
    CHECK(pic_adler32(1, (const unsigned char *)"Wikipedia", 9) == 0x11E60398UL);
    /* incremental use equals one call */
    CHECK(pic_crc32(pic_crc32(0, (const unsigned char *)"1234", 4), (const unsigned char *)"56789", 5) == 0xCBF43926UL);
    {
        /* Adler-32 over more than the 5552-byte modulo block */
        unsigned char *b = (unsigned char *)malloc(20000);
        unsigned long a = 1, s = 0;
        int i;
        for (i = 0; i < 20000; i++) { b[i] = (unsigned char)(255 - i % 7); a = (a + b[i]) % 65521; s = (s + a) % 65521; }
        CHECK(pic_adler32(1, b, 20000) == ((s << 16) | a));
        free(b);
    }
}

static const char t_dyn_comment[] = "zlib.compress of random text at level 9: one dynamic-Huffman block";
/* btype 2 400 249 */
static const char t_dyn_plain[] = "ies ba ihe  tehesabeanaj sutwescae hivnt sqthpakeochjleb  bqbteamuteaasok iaoabcaftmieaposessysc jvinvinpatoaseaozrrk aaasiynoeseosinscaeo hjioevccoohwebphxjheaeoekpbqetmjzqtmttatefa vhaylphbleiaafvaa ee niatadpei arhfeeeikea tajijua oaaeaeab ab  oeobqssnsieoueeasbeasysavas ottyaihjbuhueaosiezescoca eisabcseapead lnbaiccaoebieiytistqtbs itet eteec  weejfeohmtjhoaj sfesio et gza btazhibhiieieeaieao";
static const unsigned char t_dyn_z[] = {120,218,21,80,91,146,132,64,8,187,10,87,75,247,196,133,118,148,118,64,103,245,244,203,86,81,124,0,33,15,99,72,131,152,82,36,169,12,52,98,199,144,56,243,203,232,160,168,93,123,74,28,169,19,43,189,235,120,179,137,180,163,37,177,157,213,16,190,138,193,209,58,150,220,140,152,30,140,184,163,203,184,108,175,154,72,71,16,254,124,62,171,160,32,118,239,206,160,135,237,255,52,46,58,204,121,245,238,174,95,182,169,191,67,89,115,174,179,29,204,109,60,71,110,153,72,46,144,75,113,191,167,182,55,13,88,46,64,72,217,13,137,215,164,9,62,186,144,180,149,144,196,176,113,66,28,168,119,104,82,37,78,111,71,196,30,70,63,73,68,185,46,185,184,16,226,153,55,76,71,59,245,44,193,117,242,84,16,222,139,195,42,158,94,46,38,241,146,247,222,96,189,195,217,140,118,167,69,30,217,66,44,153,194,36,187,200,151,28,11,93,183,28,234,255,169,46,12,243,218,202,207,3,105,137,71,173,169,21,190,68,84,110,254,7,108,0,156,69};

static void test_pic_inflate_reference(void)
{
    /* the test's own inflate must decode a stream made by zlib (dynamic block), or the PNG
       round trips below would prove nothing */
    unsigned char out[512];
    t_inf s;
    long n = t_inflate(&s, t_dyn_z + 2, sizeof t_dyn_z - 6, out, sizeof out);
    (void)t_dyn_comment;
    CHECK(n == (long)strlen(t_dyn_plain));
    CHECK(s.blocks[2] == 1);
    CHECK(n > 0 && memcmp(out, t_dyn_plain, (size_t)n) == 0);
    CHECK(t_be32(t_dyn_z + sizeof t_dyn_z - 4) == pic_adler32(1, out, (size_t)(n > 0 ? n : 0)));
}

static void t_png_roundtrip(int w, int h, int ch, int level)
{
    unsigned char *px = t_make_image(w, h, ch), *png = NULL;
    size_t n = 0;
    t_png p;
    CHECK(px != NULL);
    if (!px) return;
    CHECK(pic_encode_png(w, h, ch, px, level, &png, &n) == 0);
    CHECK(png != NULL && n > 8);
    if (png && t_png_decode(png, n, &p) == 0) {
        CHECKF(p.crc_bad == 0, "%d chunks with a bad CRC", p.crc_bad);
        CHECK(p.nchunks == 3 && p.nidat == 1);
        CHECK(p.w == w && p.h == h && p.depth == 8 && p.ctype == (ch == 3 ? 2 : 6));
        CHECK(p.comp == 0 && p.filter == 0 && p.interlace == 0);
        CHECK(p.zlib_ok);
        CHECK(p.adler_ok);
        if (level == 0) {
            /* stored blocks hold at most 65535 bytes each */
            size_t rawn = ((size_t)w * (size_t)ch + 1) * (size_t)h;
            CHECK(p.blocks[0] == (int)((rawn + 65534) / 65535) && p.blocks[1] == 0 && p.blocks[2] == 0);
        } else {
            CHECK(p.blocks[1] == 1 && p.blocks[0] == 0);
        }
        CHECK(memcmp(p.px, px, (size_t)w * (size_t)h * (size_t)ch) == 0);
        free(p.px);
    } else {
        CHECKF(0, "the PNG (%dx%d ch %d level %d) did not decode", w, h, ch, level);
    }
    free(png); free(px);
}

static void test_pic_png_roundtrip(void)
{
    t_png_roundtrip(1, 1, 3, 0);
    t_png_roundtrip(1, 1, 3, 1);
    t_png_roundtrip(37, 23, 3, 0);
    t_png_roundtrip(37, 23, 3, 1);
    t_png_roundtrip(29, 31, 4, 1);
    t_png_roundtrip(256, 120, 3, 0);   /* 92k raw bytes: two stored blocks */
    t_png_roundtrip(256, 120, 4, 1);
    t_png_roundtrip(700, 90, 3, 1);    /* long rows: matches at distances up to 32K */
}

static void test_pic_png_file(void)
{
    const int w = 64, h = 48;
    unsigned char *px = t_make_image(w, h, 3), *d;
    size_t n;
    t_png p;
    CHECK(pic_write_png("build/test_pic.png", w, h, px) == 0);
    d = t_read_file("build/test_pic.png", &n);
    CHECK(d != NULL);
    if (d && t_png_decode(d, n, &p) == 0) {
        CHECK(p.crc_bad == 0 && p.adler_ok && p.zlib_ok && p.w == w && p.h == h);
        CHECK(memcmp(p.px, px, (size_t)w * (size_t)h * 3) == 0);
        free(p.px);
    } else CHECK(0);
    free(d);
    /* bad arguments */
    CHECK(pic_write_png("build/test_pic_bad.png", 0, 5, px) != 0);
    CHECK(pic_write_png(NULL, 4, 4, px) != 0);
    CHECK(pic_write_png("build/test_pic_bad.png", 4, 4, NULL) != 0);
    CHECK(pic_write_png("build/no_such_dir/x.png", 1, 1, (const unsigned char *)"abc") != 0);
    free(px);
}

static void test_pic_png_compresses(void)
{
    /* a flat 300x200 image: 180 kB raw. Runs of 258-byte matches cost about 2 bytes each, so the
       fixed-Huffman stream must be far below 2 % of the stored one; stored is raw + 5 per 64K + headers */
    const int w = 300, h = 200;
    unsigned char *px = (unsigned char *)malloc((size_t)w * h * 3), *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    memset(px, 230, (size_t)w * h * 3);
    CHECK(pic_encode_png(w, h, 3, px, 0, &a, &na) == 0);
    CHECK(pic_encode_png(w, h, 3, px, 1, &b, &nb) == 0);
    CHECKF(na > (size_t)w * h * 3 && na < (size_t)w * h * 3 + 400, "stored size %lu", (unsigned long)na);
    CHECKF(nb * 50 < na, "compressed %lu vs stored %lu", (unsigned long)nb, (unsigned long)na);
    free(a); free(b); free(px);
}

/* ---------------------------------------------------------------- rasteriser tests */
static const unsigned char t_bg[3] = {255, 255, 255};

/* orthographic camera looking down -z at the origin, half height 1: 100 px per unit on 200x200 */
static void t_top_camera(pic_camera *cam)
{
    memset(cam, 0, sizeof *cam);
    cam->eye[2] = 10.0; cam->up[1] = 1.0;
    cam->fov_y_deg = 0.0; cam->ortho_half_h = 1.0;
}
static pic_style t_flat(unsigned char r, unsigned char g, unsigned char b)
{
    pic_style s = pic_default_style();
    s.color[0] = s.back_color[0] = r; s.color[1] = s.back_color[1] = g; s.color[2] = s.back_color[2] = b;
    s.ambient = 1.0;     /* intensity 1 everywhere: the exact colour shows */
    s.smooth = 0;
    return s;
}
static int t_count_not_bg(const pic_image *img)
{
    int i, c = 0;
    for (i = 0; i < img->w * img->h; i++)
        if (memcmp(img->rgb + 3 * i, t_bg, 3) != 0) c++;
    return c;
}
static const unsigned char *t_px(const pic_image *img, int x, int y) { return img->rgb + 3 * (y * img->w + x); }

static void test_pic_raster_coverage(void)
{
    pic_image img;
    pic_camera cam;
    pic_style st = t_flat(200, 10, 10);
    const double x[9] = {-0.5, -0.5, 0.0, 0.5, -0.5, 0.0, -0.5, 0.5, 0.0};
    const int tri[3] = {0, 1, 2};
    int cnt;
    t_top_camera(&cam);
    CHECK(pic_image_init(&img, 200, 200, t_bg) == 0);
    CHECK(pic_draw_mesh(&img, &cam, 3, x, 1, tri, &st) == 0);
    cnt = t_count_not_bg(&img);
    /* area 0.5 unit^2 = 5000 px; the 100 pixel centres lying exactly on the hypotenuse are the
       only ambiguous ones, so the count is within 100 of 5000 */
    CHECKF(abs(cnt - 5000) <= 100, "covered %d px", cnt);
    /* pixel (60, 60) is inside (upper left of the image = (-0.4, 0.4)), (140, 60) is outside */
    CHECK(t_px(&img, 60, 60)[0] == 200 && t_px(&img, 60, 60)[1] == 10);
    CHECK(memcmp(t_px(&img, 140, 60), t_bg, 3) == 0);
    CHECK(memcmp(t_px(&img, 60, 160), t_bg, 3) == 0);
    /* seen from below (-z) the same triangle is drawn too (two-sided) */
    pic_image_clear(&img, t_bg);
    cam.eye[2] = -10.0;
    CHECK(pic_draw_mesh(&img, &cam, 3, x, 1, tri, &st) == 0);
    cnt = t_count_not_bg(&img);
    CHECKF(abs(cnt - 5000) <= 100, "covered %d px from below", cnt);
    /* invalid input */
    {
        const int bad[3] = {0, 1, 3};
        CHECK(pic_draw_mesh(&img, &cam, 3, x, 1, bad, &st) != 0);
        CHECK(pic_draw_mesh(NULL, &cam, 3, x, 1, tri, &st) != 0);
    }
    pic_image_free(&img);
}

static void test_pic_raster_zbuffer(void)
{
    /* two overlapping squares: red at z = 0.5 (nearer to the eye at z = 10), blue at z = -0.5 */
    const double red[12] = {-0.6, -0.6, 0.5, 0.4, -0.6, 0.5, 0.4, 0.4, 0.5, -0.6, 0.4, 0.5};
    const double blue[12] = {-0.4, -0.4, -0.5, 0.6, -0.4, -0.5, 0.6, 0.6, -0.5, -0.4, 0.6, -0.5};
    const int q[6] = {0, 1, 2, 0, 2, 3};
    pic_style sr = t_flat(220, 0, 0), sb = t_flat(0, 0, 220);
    pic_camera cam;
    pic_image img;
    int order, persp;
    CHECK(pic_image_init(&img, 200, 200, t_bg) == 0);
    for (persp = 0; persp < 2; persp++)
        for (order = 0; order < 2; order++) {
            t_top_camera(&cam);
            if (persp) { cam.fov_y_deg = 20.0; }
            pic_image_clear(&img, t_bg);
            if (order == 0) {
                pic_draw_mesh(&img, &cam, 4, red, 2, q, &sr);
                pic_draw_mesh(&img, &cam, 4, blue, 2, q, &sb);
            } else {
                pic_draw_mesh(&img, &cam, 4, blue, 2, q, &sb);
                pic_draw_mesh(&img, &cam, 4, red, 2, q, &sr);
            }
            /* the centre is covered by both: the nearer red must win in either order */
            CHECKF(t_px(&img, 100, 100)[0] == 220 && t_px(&img, 100, 100)[2] == 0, "persp %d order %d", persp, order);
            /* the upper right corner region is only blue */
            CHECK(t_px(&img, 100 + (persp ? 25 : 50), 100 - (persp ? 25 : 50))[2] == 220);
        }
    pic_image_free(&img);
}

static void test_pic_raster_wire(void)
{
    const double x[9] = {-0.8, -0.8, 0.0, 0.8, -0.8, 0.0, -0.8, 0.8, 0.0};
    const int tri[3] = {0, 1, 2};
    pic_style st = t_flat(200, 200, 100);
    pic_camera cam;
    pic_image img;
    t_top_camera(&cam);
    st.wire = 1; st.wire_px = 2.0;
    CHECK(pic_image_init(&img, 200, 200, t_bg) == 0);
    CHECK(pic_draw_mesh(&img, &cam, 3, x, 1, tri, &st) == 0);
    /* the bottom edge y = -0.8 is pixel row 180: pixel centre (100, 179.5) is 0.5 px from it */
    CHECK(t_px(&img, 100, 179)[0] < 100);
    /* an interior pixel 30 px from every edge keeps the face colour */
    CHECK(t_px(&img, 50, 150)[0] == 200 && t_px(&img, 50, 150)[2] == 100);
    pic_image_free(&img);
}

static double t_signed_volume(const pic_mesh *m)
{
    /* divergence theorem: V = 1/6 sum x0 . (x1 x x2), positive for outward counter-clockwise faces */
    double v = 0.0;
    int t;
    for (t = 0; t < m->nt; t++) {
        const double *a = m->x + 3 * m->tris[3 * t], *b = m->x + 3 * m->tris[3 * t + 1], *c = m->x + 3 * m->tris[3 * t + 2];
        v += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    return v / 6.0;
}
/* closed and consistently oriented: every directed edge (a, b) appears once and (b, a) once */
static int t_closed(const pic_mesh *m)
{
    int t, k, s, ok = 1;
    for (t = 0; t < m->nt && ok; t++)
        for (k = 0; k < 3 && ok; k++) {
            int a = m->tris[3 * t + k], b = m->tris[3 * t + (k + 1) % 3], same = 0, opp = 0;
            for (s = 0; s < m->nt; s++) {
                int j;
                for (j = 0; j < 3; j++) {
                    int c = m->tris[3 * s + j], d = m->tris[3 * s + (j + 1) % 3];
                    if (c == a && d == b) same++;
                    if (c == b && d == a) opp++;
                }
            }
            ok = same == 1 && opp == 1;
        }
    return ok;
}

static void test_pic_primitives(void)
{
    const double c[3] = {0.3, -0.2, 1.0}, lo[3] = {-1, 0, 0}, hi[3] = {1, 2, 0.5};
    const double a[3] = {0, 0, 0}, b[3] = {1, 1, 1};
    const double pi = 3.14159265358979323846;
    pic_mesh m;
    double v, L = sqrt(3.0), r = 0.25;
    CHECK(pic_make_sphere(&m, c, 0.5, 64, 32) == 0);
    CHECK(m.nv == 2 + 31 * 64 && m.nt == 2 * 64 * 31);
    CHECK(t_closed(&m));
    /* inscribed polyhedron: volume error O(h^2), about 0.5 % at 64 x 32; 2 % leaves room only
       for that, not for a wrong orientation (negative) or missing band */
    v = t_signed_volume(&m);
    CHECKF(v > 0 && fabs(v - 4.0 / 3.0 * pi * 0.125) < 0.02 * 4.0 / 3.0 * pi * 0.125, "sphere volume %g", v);
    pic_mesh_free(&m);
    CHECK(pic_make_box(&m, lo, hi) == 0);
    CHECK(m.nv == 8 && m.nt == 12 && t_closed(&m));
    CHECK_NEAR(t_signed_volume(&m), 2.0 * 2.0 * 0.5, 1e-12);
    pic_mesh_free(&m);
    CHECK(pic_make_capsule(&m, a, b, r, 48, 12) == 0);
    CHECK(t_closed(&m));
    v = t_signed_volume(&m);
    CHECKF(v > 0 && fabs(v - (pi * r * r * L + 4.0 / 3.0 * pi * r * r * r)) < 0.02 * (pi * r * r * L + 4.0 / 3.0 * pi * r * r * r),
           "capsule volume %g", v);
    pic_mesh_free(&m);
    CHECK(pic_make_sphere(&m, c, -1.0, 8, 4) != 0);
    CHECK(pic_make_box(&m, hi, lo) != 0);
}

static void test_pic_camera_frame(void)
{
    /* a framed box fills the image tightly: its drawn pixels reach close to two opposite borders
       (6 % margin: within about 10 % of the size) and never touch any border */
    pic_mesh box;
    const double lo[3] = {-1, -2, 0}, hi[3] = {3, 1, 0.5}, dir[3] = {-1.0, 2.0, -1.5};
    pic_camera cam;
    pic_image img;
    int persp;
    CHECK(pic_make_box(&box, lo, hi) == 0);
    CHECK(pic_image_init(&img, 160, 120, t_bg) == 0);
    for (persp = 0; persp < 2; persp++) {
        int x, y, x0 = 1 << 30, x1 = -1, y0 = 1 << 30, y1 = -1;
        double bmin[3], bmax[3];
        const double *sets[1];
        pic_bounds_reset(bmin, bmax);
        pic_bounds_add(bmin, bmax, box.nv, box.x);
        CHECK(pic_camera_frame(&cam, bmin, bmax, dir, NULL, persp ? 40.0 : 0.0, 160.0 / 120.0) == 0);
        sets[0] = box.x;
        CHECK(pic_camera_fit(&cam, 1, &box.nv, sets, 160.0 / 120.0) == 0);
        pic_image_clear(&img, t_bg);
        CHECK(pic_draw_mesh(&img, &cam, box.nv, box.x, box.nt, box.tris, NULL) == 0);
        for (y = 0; y < img.h; y++)
            for (x = 0; x < img.w; x++)
                if (memcmp(t_px(&img, x, y), t_bg, 3) != 0) {
                    if (x < x0) x0 = x;
                    if (x > x1) x1 = x;
                    if (y < y0) y0 = y;
                    if (y > y1) y1 = y;
                }
        CHECKF(x0 > 0 && y0 > 0 && x1 < img.w - 1 && y1 < img.h - 1, "persp %d: %d %d %d %d", persp, x0, y0, x1, y1);
        CHECKF((x1 - x0 + 1) > 0.88 * img.w || (y1 - y0 + 1) > 0.88 * img.h, "persp %d: %dx%d", persp, x1 - x0 + 1, y1 - y0 + 1);
        /* centred: the margins left/right (or top/bottom) agree within 3 px */
        CHECKF(abs(x0 - (img.w - 1 - x1)) <= 3 && abs(y0 - (img.h - 1 - y1)) <= 3, "persp %d: %d %d %d %d", persp, x0, y0, x1, y1);
    }
    CHECK(pic_camera_frame(&cam, hi, lo, dir, NULL, 40.0, 1.0) != 0);   /* empty box */
    pic_image_free(&img);
    pic_mesh_free(&box);
}

static void test_pic_mesh2d_and_compose(void)
{
    /* two triangles of the unit square: values 0 and 1 map to the colour map's ends */
    const double uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const int tris[6] = {0, 1, 2, 0, 2, 3};
    const double val[2] = {0.0, 1.0};
    unsigned char c0[3], c1[3];
    pic_image img, img2, out, small;
    pic_colormap(0.0, c0);
    pic_colormap(1.0, c1);
    CHECK(c1[0] > 150 && c1[1] < 80 && c1[2] < 80);                 /* bad = red */
    CHECK(c0[0] > 230 && c0[1] > 230 && c0[2] > 230);               /* good = light */
    CHECK(pic_image_init(&img, 100, 100, t_bg) == 0);
    CHECK(pic_draw_mesh2d(&img, 4, uv, 2, tris, val, 0.0, 1.0, 0, 0.0) == 0);
    /* v is up: triangle 0 (below the diagonal) is at the lower right of the image */
    CHECK(memcmp(t_px(&img, 80, 80), c0, 3) == 0);
    CHECK(memcmp(t_px(&img, 20, 20), c1, 3) == 0);
    /* bad index, non-finite uv */
    {
        const int bad[3] = {0, 1, 4};
        double uvn[8];
        memcpy(uvn, uv, sizeof uvn);
        uvn[3] = NAN;
        CHECK(pic_draw_mesh2d(&img, 4, uv, 1, bad, NULL, 0, 1, 0, 1.0) != 0);
        CHECK(pic_draw_mesh2d(&img, 4, uvn, 2, tris, NULL, 0, 1, 0, 1.0) != 0);
    }
    /* side by side with captions: the images are copied unchanged, the captions leave ink */
    CHECK(pic_image_init(&img2, 60, 80, t_bg) == 0);
    CHECK(pic_side_by_side(&img, "adaptive", &img2, "fixed", &out) == 0);
    CHECK(out.w == 100 + 60 + 3 * 16);
    {
        int x, y, ink = 0, same = 1, top = out.h - 16 - 100;
        for (y = 0; y < top; y++)
            for (x = 0; x < out.w; x++)
                if (t_px(&out, x, y)[0] < 100) ink++;
        /* "adaptive" + "fixed" at scale 2: dozens of lit font pixels, 4 device pixels each */
        CHECKF(ink > 200, "caption ink %d", ink);
        for (y = 0; y < 100; y++)
            for (x = 0; x < 100; x++)
                if (memcmp(t_px(&out, 16 + x, top + y), t_px(&img, x, y), 3) != 0) same = 0;
        CHECK(same);
    }
    /* downsample by 2 averages 2x2 blocks */
    CHECK(pic_image_downsample(&out, 2, &small) == 0);
    CHECK(small.w == out.w / 2 && small.h == out.h / 2);
    {
        int c, s = 0;
        for (c = 0; c < 4; c++) s += t_px(&out, 20 + (c & 1), 60 + (c >> 1))[1];
        CHECK(abs((int)t_px(&small, 10, 30)[1] - (s + 2) / 4) == 0);
    }
    pic_image_free(&img); pic_image_free(&img2); pic_image_free(&out); pic_image_free(&small);
}

static void test_pic_font(void)
{
    /* every printable glyph but the space has ink, and no two glyphs are identical */
    int a, b, r, distinct = 1, inked = 1;
    for (a = 1; a < 95; a++) {
        int any = 0;
        for (r = 0; r < 9; r++) any |= pic__font[a][r];
        if (!any) inked = 0;
        for (b = a + 1; b < 95; b++)
            if (!memcmp(pic__font[a], pic__font[b], 9)) distinct = 0;
    }
    CHECK(inked && distinct);
    CHECK(pic_text_width("fixed", 2) == (6 * 5 - 1) * 2);
    CHECK(pic_text_width("ab\nlonger", 1) == 6 * 6 - 1);
}

/* ---------------------------------------------------------------- SVG tests */
/* A minimal XML scan: tags balance (a stack of names), text has no raw '<' or bare '&', and every
   numeric attribute (coordinates, sizes, path data, point lists) parses as finite numbers. */
static int t_svg_check(const char *s, int *nelem)
{
    char stack[32][16];
    int depth = 0, first = 1;
    const char *p = s;
    *nelem = 0;
    while (*p == ' ' || *p == '\n') p++;
    if (strncmp(p, "<svg", 4) != 0) return -1;
    while (*p) {
        if (*p == '&') {
            if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) && strncmp(p, "&quot;", 6)
                && strncmp(p, "&apos;", 6)) return -2;
            p++;
            continue;
        }
        if (*p != '<') { if (*p == '>') return -3; p++; continue; }
        if (p[1] == '/') {
            char name[16];
            int n = 0;
            p += 2;
            while (*p && *p != '>' && n < 15) name[n++] = *p++;
            name[n] = 0;
            if (*p != '>' || depth == 0 || strcmp(stack[depth - 1], name) != 0) return -4;
            depth--; p++;
            if (depth == 0) { while (*p == '\n') p++; return *p ? -5 : 0; }   /* nothing after </svg> */
            continue;
        }
        {
            char name[16];
            int n = 0, selfclose = 0;
            p++;
            while (*p && *p != ' ' && *p != '>' && *p != '/' && n < 15) name[n++] = *p++;
            name[n] = 0;
            if (first && strcmp(name, "svg") != 0) return -6;
            first = 0;
            (*nelem)++;
            /* attributes: name="value" */
            for (;;) {
                char an[32];
                const char *v, *e;
                int k = 0;
                while (*p == ' ' || *p == '\n') p++;
                if (*p == '/' && p[1] == '>') { selfclose = 1; p += 2; break; }
                if (*p == '>') { p++; break; }
                while (*p && *p != '=' && k < 31) an[k++] = *p++;
                an[k] = 0;
                if (*p != '=' || p[1] != '"') return -7;
                v = p + 2;
                e = strchr(v, '"');
                if (!e) return -7;
                if (!strcmp(an, "x") || !strcmp(an, "y") || !strcmp(an, "x1") || !strcmp(an, "x2") || !strcmp(an, "y1")
                    || !strcmp(an, "y2") || !strcmp(an, "cx") || !strcmp(an, "cy") || !strcmp(an, "r") || !strcmp(an, "d")
                    || !strcmp(an, "points") || !strcmp(an, "width") || !strcmp(an, "height") || !strcmp(an, "stroke-width")) {
                    const char *q = v;
                    while (q < e) {
                        char *end;
                        double num;
                        if (*q == ' ' || *q == ',' || *q == 'M' || *q == 'L' || *q == 'Z') { q++; continue; }
                        num = strtod(q, &end);
                        if (end == q || !isfinite(num)) return -8;
                        q = end;
                    }
                }
                p = e + 1;
            }
            if (!selfclose) {
                if (depth >= 32) return -9;
                strcpy(stack[depth++], name);
            }
        }
    }
    return -10;   /* ran out before </svg> */
}

static void t_check_svg_file(const char *path, int min_elems)
{
    size_t n;
    char *s = (char *)t_read_file(path, &n);
    int ne = 0, r;
    CHECKF(s != NULL, "%s not written", path);
    if (!s) return;
    r = t_svg_check(s, &ne);
    CHECKF(r == 0, "%s: check failed with %d", path, r);
    CHECKF(ne >= min_elems, "%s: %d elements", path, ne);
    free(s);
}

static void test_pic_svg(void)
{
    double y1[30], y2[30], xs[30], ha[500], hb[800];
    pic_series s[2];
    const double uv[10] = {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5};
    const int tris[12] = {0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4};
    const double val[4] = {0.1, 0.5, 0.9, 2.0};
    int i;
    for (i = 0; i < 30; i++) { xs[i] = 0.1 * i; y1[i] = exp(-0.1 * i); y2[i] = 1.0 + 0.5 * sin(0.3 * i); }
    y2[10] = NAN;          /* a gap in the line */
    y1[5] = INFINITY;
    s[0].x = xs; s[0].y = y1; s[0].n = 30; s[0].label = "adaptive <r & u>";
    s[1].x = NULL; s[1].y = y2; s[1].n = 30; s[1].label = "fixed \"mesh\"";
    CHECK(pic_write_svg_lines("build/test_pic_lines.svg", "Energy & <stuff>", "frame", "E (J)", 2, s, 0) == 0);
    t_check_svg_file("build/test_pic_lines.svg", 20);
    CHECK(pic_write_svg_lines("build/test_pic_lines_log.svg", "log", NULL, NULL, 2, s, 1) == 0);
    t_check_svg_file("build/test_pic_lines_log.svg", 20);
    {
        /* the NaN splits series 1 into two subpaths: count the 'M' commands in its path */
        size_t n;
        char *t = (char *)t_read_file("build/test_pic_lines.svg", &n);
        const char *p = t ? strstr(t, "stroke=\"#d62728\" stroke-width=\"2\"") : NULL;
        int moves = 0;
        CHECK(p != NULL);
        if (p) {
            const char *d = strstr(p, "d=\""), *e = d ? strchr(d + 3, '"') : NULL;
            for (; d && e && d < e; d++) if (*d == 'M') moves++;
        }
        CHECK(moves == 2);
        free(t);
    }
    for (i = 0; i < 500; i++) ha[i] = -3.0 + 2.0 * t_rand();
    for (i = 0; i < 800; i++) hb[i] = -2.0 + 2.0 * t_rand();
    hb[3] = NAN;
    CHECK(pic_write_svg_histogram("build/test_pic_hist.svg", "log(H^2)", "log(H^2)", ha, 500, "adaptive", hb, 800, "fixed", 30) == 0);
    t_check_svg_file("build/test_pic_hist.svg", 20);
    CHECK(pic_write_svg_histogram("build/test_pic_hist1.svg", NULL, NULL, ha, 1, NULL, hb, 0, NULL, 5) == 0);
    t_check_svg_file("build/test_pic_hist1.svg", 5);
    CHECK(pic_write_svg_mesh2d("build/test_pic_mesh.svg", 5, uv, 4, tris, val, 0.0, 1.0) == 0);
    t_check_svg_file("build/test_pic_mesh.svg", 4 + 20);
    CHECK(pic_write_svg_mesh2d("build/test_pic_mesh0.svg", 5, uv, 4, tris, NULL, 0.0, 0.0) == 0);
    t_check_svg_file("build/test_pic_mesh0.svg", 4);
    /* invalid input */
    CHECK(pic_write_svg_lines("build/test_pic_bad.svg", NULL, NULL, NULL, 0, s, 0) != 0);
    CHECK(pic_write_svg_histogram("build/test_pic_bad.svg", NULL, NULL, ha, 10, NULL, hb, 10, NULL, 0) != 0);
    {
        const int bad[3] = {0, 1, 5};
        CHECK(pic_write_svg_mesh2d("build/test_pic_bad.svg", 5, uv, 1, bad, NULL, 0, 1) != 0);
    }
    {
        /* the checker itself must reject what it is there to catch */
        int ne;
        CHECK(t_svg_check("<svg><g></svg>", &ne) != 0);
        CHECK(t_svg_check("<svg><text>a < b</text></svg>", &ne) != 0);
        CHECK(t_svg_check("<svg><line x1=\"nan\"/></svg>", &ne) != 0);
        CHECK(t_svg_check("<svg><g><line x1=\"1\"/></g></svg>\n", &ne) == 0 && ne == 3);
    }
}

static void suite_pictures(void)
{
    RUN(test_pic_checksums);
    RUN(test_pic_inflate_reference);
    RUN(test_pic_png_roundtrip);
    RUN(test_pic_png_file);
    RUN(test_pic_png_compresses);
    RUN(test_pic_raster_coverage);
    RUN(test_pic_raster_zbuffer);
    RUN(test_pic_raster_wire);
    RUN(test_pic_primitives);
    RUN(test_pic_camera_frame);
    RUN(test_pic_mesh2d_and_compose);
    RUN(test_pic_font);
    RUN(test_pic_svg);
}
