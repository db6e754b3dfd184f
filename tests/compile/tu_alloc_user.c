/* compile-and-run test: every allocation a sim makes reaches the allocator macros with the pointer
   given as rc_sim_def.alloc_user (the header's promise; until session 19, 181 of 289 allocations
   of a create + step + destroy, among them the sim's LDL^T factor, came with NULL): an adaptive
   sim with self contact, a sphere and a triangle-mesh obstacle, LDL^T and PCG, saved and loaded */
#include <stdio.h>
#include <stdlib.h>
static int g_arena;
static long g_user, g_other, g_counting;
static void *t_alloc(size_t n, void *user) { if (g_counting) { if (user == &g_arena) ++g_user; else ++g_other; } return malloc(n); }
static void *t_realloc(void *p, size_t n, void *user) { if (g_counting) { if (user == &g_arena) ++g_user; else ++g_other; } return realloc(p, n); }
static void t_free(void *p, void *user) { if (g_counting && p && user != &g_arena) ++g_other; free(p); }
#define RCLOTH_MALLOC(sz, u) t_alloc(sz, u)
#define RCLOTH_REALLOC(p, sz, u) t_realloc(p, sz, u)
#define RCLOTH_FREE(p, u) t_free(p, u)
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
int main(void)
{
    rc_mesh m;
    int solver, k, ok = 1;
    if (rc_mesh_grid(&m, 0.5, 0.5, 8, 8, RC_DIAG_ALTERNATING) != RC_OK) return 1;
    for (solver = 0; solver < 2; ++solver) {
        rc_sim_def def = rc_default_sim_def();
        rc_sim *s = NULL;
        rc_step_stats st;
        double c[3] = { 0.25, 0.25, -0.2 }, V[9] = { -1, -1, -0.05, 2, -1, -0.05, -1, 2, -0.05 }, *state;
        int T[3] = { 0, 1, 2 };
        def.mesh = rc_mesh_describe(&m);
        def.adaptive = 1;
        def.self_contact = 1;
        def.linear_solver = solver ? RC_SOLVER_PCG : RC_SOLVER_LDLT;
        def.alloc_user = &g_arena;
        g_counting = 1;
        ok = ok && rc_sim_create(&def, &s) == RC_OK;
        ok = ok && rc_sim_add_sphere(s, c, 0.1, NULL) == RC_OK && rc_sim_add_trimesh(s, 3, V, 1, T, NULL) == RC_OK;
        for (k = 0; k < 4 && ok; ++k) ok = rc_sim_step(s, &st) == RC_OK;
        g_counting = 0;
        state = ok ? (double *)malloc(sizeof(double) * rc_sim_state_size(s)) : NULL;
        g_counting = 1;
        if (state) ok = rc_sim_save_state(s, state) == RC_OK && rc_sim_load_state(s, state) == RC_OK && rc_sim_step(s, &st) == RC_OK;
        if (ok) ok = rc_sim_write_obj(s, "build/alloc_user.obj") == RC_OK && rc_sim_write_reference_obj(s, "build/alloc_user.obj") == RC_OK;
        remove("build/alloc_user.obj");
        rc_sim_destroy(s);
        g_counting = 0;
        free(state);
    }
    rc_mesh_free(&m);
    printf("alloc_user: %ld allocator calls with the sim's pointer, %ld without\n", g_user, g_other);
    return ok && g_user > 100 && g_other == 0 ? 0 : 1;
}
