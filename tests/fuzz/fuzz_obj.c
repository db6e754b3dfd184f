/* tests/fuzz/fuzz_obj.c - bytes -> a temporary file -> rc_mesh_read_obj (-> rc_mesh_validate).
   The reader has no in-memory entry point, so the input goes through a per-process temp file. */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include "replay.h"
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], msg[128];
    FILE *fp;
    rc_mesh m;
    rc_status st;
    snprintf(path, sizeof path, "/tmp/rc_fuzz_obj_%ld.obj", (long)getpid());
    fp = fopen(path, "wb");
    if (!fp) return 0;
    if (size) fwrite(data, 1, size, fp);
    fclose(fp);
    st = rc_mesh_read_obj(&m, path);
    remove(path);
    if (st == RC_OK) {
        int i, flipped;
        if (m.num_verts < 1 || m.num_tris < 1 || !m.pos || !m.ref_uv || !m.tris) __builtin_trap();
        for (i = 0; i < 3 * m.num_tris; ++i) if (m.tris[i] < 0 || m.tris[i] >= m.num_verts) __builtin_trap();
        for (i = 0; i < 3 * m.num_verts; ++i) if (!rc__isfinite(m.pos[i])) __builtin_trap();
        (void)rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, msg, (int)sizeof msg);
    } else if (m.pos || m.tris || m.ref_uv || m.num_verts || m.num_tris) {
        __builtin_trap();   /* *out is zeroed on error */
    }
    rc_mesh_free(&m);
    return 0;
}
