/* tests/fuzz/fuzz_mesh.c - bytes -> mesh arrays -> rc_mesh_validate, rc_trimesh_num_edges,
   rc_shell_energy, rc_mips_energy, rc_sim_create (+ one step on small valid meshes).
   Layout: byte 0 = nv (3 + b % 30), byte 1 = nt (1 + b % 40), byte 2 = flags, then 2 bytes per uv
   coordinate (int16, 1/1000 m; 0x7fff = NaN, 0x8000 = inf), then one byte per triangle corner
   (index = b - 2: -2 .. 253, so out-of-range and negative indices occur), missing bytes are 0. */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include "replay.h"

static double fz_coord(fz_in *in)
{
    unsigned v = fz_byte(in) | (fz_byte(in) << 8);
    if (v == 0x7fffu) return 0.0 / 0.0;
    if (v == 0x8000u) return 1.0 / 0.0;
    return (double)(int)(short)v * 1e-3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in;
    int nv, nt, flags, i, flipped = 0;
    double uv[2 * 33], pos[3 * 33], phi[3 * 40], S, B, E, gx[3 * 33], gu[2 * 33];
    int tris[3 * 40];
    char msg[128];
    rc_status vs;
    rc_trimesh tm;
    rc_material mat = rc_material_cotton();
    in.p = data; in.n = size; in.i = 0;
    nv = 3 + (int)(fz_byte(&in) % 30u);
    nt = 1 + (int)(fz_byte(&in) % 40u);
    flags = (int)fz_byte(&in);
    for (i = 0; i < 2 * nv; ++i) uv[i] = fz_coord(&in);
    for (i = 0; i < 3 * nt; ++i) tris[i] = (int)fz_byte(&in) - 2;
    for (i = 0; i < nv; ++i) { pos[3 * i] = uv[2 * i]; pos[3 * i + 1] = uv[2 * i + 1]; pos[3 * i + 2] = 0.01 * (i % 3); }
    for (i = 0; i < 3 * nt; ++i) phi[i] = 0.1 * (i % 5);

    vs = rc_mesh_validate(nv, nt, uv, tris, &flipped, msg, (int)sizeof msg);
    if (vs != RC_OK && msg[0] == 0) __builtin_trap();          /* every error has a message */
    tm.num_verts = nv; tm.num_tris = nt; tm.tris = tris;
    {
        int ne = rc_trimesh_num_edges(&tm);
        if (ne > 3 * nt) __builtin_trap();
        /* phi has room for 3 nt angles >= ne */
        (void)rc_shell_energy(&tm, pos, uv, (flags & 1) ? phi : NULL, &mat, &S, &B, gx, gu);
    }
    (void)rc_mips_energy(&tm, uv, uv, 2.5, &E, gu);
    {
        rc_sim_def d = rc_default_sim_def();
        rc_sim *s = NULL;
        rc_status cs;
        d.mesh.num_verts = nv; d.mesh.num_tris = nt; d.mesh.ref_uv = uv; d.mesh.tris = tris;
        d.mesh.pos = (flags & 2) ? pos : NULL;
        d.max_newton_iters = 20;
        d.max_substeps = 1;
        cs = rc_sim_create(&d, &s);
        /* create validates the same mesh: it succeeds exactly when the validator accepts it and
           every vertex is in a triangle */
        int used[33] = { 0 }, all_used = 1;
        if (vs == RC_OK) {
            for (i = 0; i < 3 * nt; ++i) used[tris[i]] = 1;
            for (i = 0; i < nv; ++i) all_used = all_used && used[i];
        }
        if ((cs == RC_OK) != (vs == RC_OK && all_used)) __builtin_trap();
        if (s) {
            if (flags & 4) {
                double c[3] = { 0, 0, -0.05 };
                (void)rc_sim_add_sphere(s, c, 0.03, NULL);
            }
            if (nv <= 12 && (flags & 8)) {
                rc_status ss = rc_sim_step(s, NULL);
                const double *x = rc_sim_positions(s);
                if (ss != RC_OK && rc_sim_last_error(s)[0] == 0) __builtin_trap();
                for (i = 0; i < 3 * nv; ++i) if (!rc__isfinite(x[i])) __builtin_trap();
            }
            rc_sim_destroy(s);
        }
    }
    return 0;
}
