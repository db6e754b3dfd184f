/* compile test, built with -O2 -ffast-math: the finiteness checks still refuse NaN and inf (they
   read the bits; arithmetic tests such as v - v == 0 fold to "finite" under -ffinite-math-only, and
   a session-21 probe had dt = NaN accepted and a step return RC_OK with a NaN energy). Not a claim
   that fast-math builds give the default build's trajectories. */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    /* the NaN and inf come from strtod at run time, so the compiler cannot reason about them */
    double nan_ = strtod(argc > 99 ? argv[1] : "nan", NULL), inf_ = strtod("inf", NULL);
    double f[3], z0;
    rc_mesh m;
    rc_sim_def def = rc_default_sim_def();
    rc_sim *s = NULL;
    rc_step_stats st;
    int fails = 0;
    if (rc_mesh_grid(&m, 0.2, 0.2, 5, 5, RC_DIAG_ALTERNATING) != RC_OK) return 1;
    def.mesh = rc_mesh_describe(&m);
    def.dt = nan_;
    fails += rc_sim_create(&def, &s) != RC_ERR_NON_FINITE;
    def.dt = inf_;
    fails += rc_sim_create(&def, &s) != RC_ERR_NON_FINITE;
    def.dt = 0.01;
    def.adaptive = 1;
    if (rc_sim_create(&def, &s) != RC_OK) { rc_mesh_free(&m); return 1; }
    f[0] = 0.0; f[1] = nan_; f[2] = 0.0;
    fails += rc_sim_set_force(s, 3, f) != RC_ERR_NON_FINITE;
    fails += rc_sim_pin(s, 3, f) != RC_ERR_NON_FINITE;
    {
        double kappa = 1.0;   /* the public barrier helpers too (the review: x != x folded away here) */
        fails += rc_barrier_stiffness_update(1.0, nan_, 1e-3, 2e-3, 0.1, 1e6, &kappa) != RC_ERR_INVALID_ARGUMENT;
        fails += rc_barrier_stiffness_update(nan_, 1.0, 1e-3, 2e-3, 0.1, 1e6, &kappa) != RC_ERR_INVALID_ARGUMENT;
        fails += rc__isfinite(rc_barrier(nan_, 1e-3, 2e-3, NULL, NULL));
    }
    z0 = rc_sim_positions(s)[2];
    fails += rc_sim_step(s, &st) != RC_OK || !(rc_sim_positions(s)[2] < z0);   /* it falls */
    if (fails) printf("fast-math: %d checks failed\n", fails);
    rc_sim_destroy(s);
    rc_mesh_free(&m);
    return fails != 0;
}
