/* tests/fuzz/fuzz_obj.c - bytes -> a temporary file -> rc_mesh_read_obj_map (-> rc_mesh_validate).
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
    rc_obj_map map;
    rc_status st;
    snprintf(path, sizeof path, "/tmp/rc_fuzz_obj_%ld.obj", (long)getpid());
    fp = fopen(path, "wb");
    if (!fp) return 0;
    if (size) fwrite(data, 1, size, fp);
    fclose(fp);
    st = rc_mesh_read_obj_map(&m, &map, path, NULL, 0);   /* rc_mesh_read_obj is this with map NULL */
    remove(path);
    if (st == RC_OK) {
        int i, flipped;
        if (m.num_verts < 1 || m.num_tris < 1 || !m.pos || !m.ref_uv || !m.tris) __builtin_trap();
        for (i = 0; i < 3 * m.num_tris; ++i) if (m.tris[i] < 0 || m.tris[i] >= m.num_verts) __builtin_trap();
        for (i = 0; i < 3 * m.num_verts; ++i) if (!rc__isfinite(m.pos[i])) __builtin_trap();
        /* the map: a vertex copies an earlier-or-same "v" vertex's position; faces in file order */
        if (map.num_verts != m.num_verts || map.num_tris != m.num_tris) __builtin_trap();
        for (i = 0; i < m.num_verts; ++i) {
            int s = map.vertex_source[i];
            if (s < 0 || s > i || memcmp(m.pos + 3 * i, m.pos + 3 * s, 3 * sizeof(double)) != 0) __builtin_trap();
        }
        if (map.tri_face[0] != 0 || map.tri_line[0] < 1) __builtin_trap();
        for (i = 1; i < m.num_tris; ++i)
            if (map.tri_face[i] - map.tri_face[i - 1] < 0 || map.tri_face[i] - map.tri_face[i - 1] > 1 ||
                (map.tri_face[i] == map.tri_face[i - 1]) != (map.tri_line[i] == map.tri_line[i - 1]) ||
                map.tri_line[i] < map.tri_line[i - 1]) __builtin_trap();
        (void)rc_mesh_validate(m.num_verts, m.num_tris, m.ref_uv, m.tris, &flipped, msg, (int)sizeof msg);
    } else if (m.pos || m.tris || m.ref_uv || m.num_verts || m.num_tris || map.vertex_source || map.tri_line || map.tri_face ||
               map.num_verts || map.num_tris) {
        __builtin_trap();   /* *out and *map are zeroed on error */
    }
    rc_mesh_free(&m);
    rc_obj_map_free(&map);
    return 0;
}
