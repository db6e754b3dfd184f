/* compile test: the usual stb-style allocator override that ignores the user pointer must build
   with -Wall -Wextra -pedantic -Werror (until session 19 rc__alloc / rc__realloc / rc__free left
   `user` unused), and a sim must run on it */
#include <stdlib.h>
#define RCLOTH_MALLOC(sz, u) malloc(sz)
#define RCLOTH_REALLOC(p, sz, u) realloc(p, sz)
#define RCLOTH_FREE(p, u) free(p)
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
int main(void)
{
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    int ok;
    if (rc_mesh_grid(&m, 0.5, 0.5, 6, 6, RC_DIAG_ALTERNATING) != RC_OK) return 1;
    def.mesh = rc_mesh_describe(&m);
    def.adaptive = 1;
    ok = rc_sim_create(&def, &s) == RC_OK && rc_sim_step(s, &st) == RC_OK;
    rc_sim_destroy(s);
    rc_mesh_free(&m);
    return ok ? 0 : 1;
}
