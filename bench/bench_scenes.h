/* bench/bench_scenes.h - the sheet the simulator benchmarks share (bench_sim.c, bench_self.c);
   include after the rcloth.h implementation.

   Sphere drape: a 1 m cotton square (n x n grid, alternating diagonals) centred over a sphere of
   radius 0.25 m at the origin, released flat at 2 mm above the sphere top: inside the barrier
   activation band (xi 1 mm + dhat 2 mm), so the cloth is in contact from the first step and the
   first step already drapes the sheet; every timed step is a contact step. cache_eps < 0: the
   library default. */
#ifndef RCLOTH_BENCH_SCENES_H
#define RCLOTH_BENCH_SCENES_H

/* the sheet and the sphere with the caller's def (its mesh fields are set here) */
static rc_sim *bench_sphere_drape_def(int n, rc_sim_def def)
{
    rc_mesh m;
    rc_sim *s = NULL;
    double c[3] = { 0.0, 0.0, 0.0 }, r = 0.25;
    int i;
    if (rc_mesh_grid(&m, 1.0, 1.0, n, n, RC_DIAG_ALTERNATING) != RC_OK) return NULL;
    for (i = 0; i < m.num_verts; ++i) {
        m.pos[3 * i] -= 0.5;
        m.pos[3 * i + 1] -= 0.5;
        m.pos[3 * i + 2] = r + 0.002;
    }
    def.mesh = rc_mesh_describe(&m);
    if (rc_sim_create(&def, &s) != RC_OK) s = NULL;
    rc_mesh_free(&m);
    if (s && rc_sim_add_sphere(s, c, r, NULL) != RC_OK) { rc_sim_destroy(s); s = NULL; }
    return s;
}

static rc_sim *bench_sphere_drape(int n, int adaptive, int self_contact, int threads, double cache_eps)
{
    rc_sim_def def = rc_default_sim_def();
    def.adaptive = adaptive;
    def.self_contact = self_contact;
    def.num_threads = threads;
    if (cache_eps >= 0.0) def.cache_eps = cache_eps;
    return bench_sphere_drape_def(n, def);
}

#endif
