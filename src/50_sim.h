/* ==========================================================================
   SECTION: SIM  (the simulator: fixed-mesh Newton and r-adaptive r-ITR)
   Owns: rc_sim and its definition, the degree-of-freedom map (x, director
   angles phi, reference u), sparse assembly into a fixed pattern, Newton with
   CCD-bounded backtracking line search, analytic obstacles with IPC barrier
   and lagged friction, statics, and the scheduled r-ITR loop with derivative
   caching. Calls BASE, SPARSE, MESH, ENERGY, CONTACT.
   ========================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* The mesh given to rc_sim_create: flat reference uv (the material domain), optional world
   positions, counter-clockwise triangles in uv (clockwise meshes are flipped and reported).
   Every vertex must be used by a triangle (RC_ERR_INVALID_ARGUMENT otherwise). */
typedef struct rc_mesh_desc {
    int num_verts, num_tris;
    const double *ref_uv;   /* 2*num_verts, metres in the flat rest domain */
    const double *pos;      /* 3*num_verts world positions; NULL: ref_uv lifted to z = 0 */
    const int *tris;        /* 3*num_tris vertex indices */
} rc_mesh_desc;

/* Everything that defines a simulation. Start from rc_default_sim_def() and change what you
   need; every field has a usable default. Units are SI. Gravity is along -z by default. */
typedef struct rc_sim_def {
    rc_mesh_desc mesh;
    rc_material material;       /* default: cotton-like (rc_material_cotton()) */
    double bending_scale;       /* 1.0 = a thin plate of material.thickness. Real cloth bends far
                                   more easily: the cotton default uses 1.0 with the plate
                                   thickness already chosen for bending; lower it for limp fabric */
    double dt;                  /* time step, s (default 1/100) */
    double gravity[3];          /* m/s^2 (default 0, 0, -9.81) */
    int adaptive;               /* 0: fixed mesh (u frozen, the baseline); 1: r-adaptive (default 0) */

    /* Newton on (x, phi): converged when max |dx| <= tol * L * dt, L = bounding-box diagonal of
       the initial world mesh, tol in 1/s (IPC-style velocity tolerance). */
    double tol;                 /* default 1e-4 (this is eps* of the r-ITR schedule too) */
    int max_newton_iters;       /* per (inner) solve, default 100 */
    int newton_exact_hessian;   /* 1 (default): after a full Newton step try the exact Hessian, falling
                                   back to per-element PSD projection when the LDL^T finds a
                                   non-positive pivot (projection alone converges linearly under
                                   compression/buckling, DESIGN §3); 0: always project */
    int max_substeps;           /* automatic halving of dt after a failed step, default 4 levels */

    /* r-ITR (adaptive = 1), DESIGN §4-6 */
    double itr_eps0;            /* initial inner tolerance, default 1e-2 */
    double itr_lambda;          /* tolerance decay per outer iteration, default 0.98 */
    int itr_strict_every;       /* strict inner solve every k outer iterations, default 10 */
    int itr_max_outer;          /* outer iteration cap, default 300 */
    int itr_schedule;           /* 1: scheduled tolerances (default); 0: eps* at every outer iteration */
    int itr_cache;              /* 1: reuse cached stencil Hessians (default); 0: recompute all */
    double cache_eps;           /* eps_d: relative displacement below which a stencil reuses its cache, default 1e-3 */
    double quality_threshold;   /* eps_q of the MIPS regulariser, default 2.5 */
    double quality_weight;      /* multiplier on the inertial-scale weight rho*tau*A0^2/h^2, default 1 */

    /* contact (IPC): barrier active below thickness + dhat */
    double contact_thickness;   /* xi, m: cloth half-thickness offset kept from obstacles, default 1e-3 */
    double contact_dhat;        /* dhat, m: barrier activation distance beyond xi, default 2e-3 */
    double friction;            /* default Coulomb coefficient mu for obstacles added later, default 0.3 */
    double friction_eps_v;      /* static/dynamic smoothing speed eps_v, m/s, default 1e-3 */

    int num_threads;            /* OpenMP threads (0 = runtime default); ignored without OpenMP */
    void *alloc_user;           /* passed to RCLOTH_MALLOC/REALLOC/FREE */
} rc_sim_def;

/* Per-step report. Energies are those of the incremental potential at the end of the step. */
typedef struct rc_step_stats {
    int converged;              /* 1 if the tolerance was met; 0 if a cap/stall ended the step (still RC_OK) */
    int newton_iters;           /* Newton iterations on (x, phi) in total */
    int outer_iters;            /* r-ITR outer (joint) iterations; 0 in fixed mode */
    int inner_iters;            /* Newton iterations inside inner solves */
    int linear_solves;
    int substeps;               /* 1 unless automatic substepping split the step */
    double ip_start, ip_end;    /* incremental potential at the start iterate and at the end */
    double e_inertia, e_stretch, e_bend, e_gravity, e_external, e_contact, e_friction, e_quality;
    double active_rate;         /* mean fraction of stencils whose Hessian was recomputed */
    double min_quality, max_quality, mean_quality;   /* MIPS of the reference triangles */
    double min_area_ratio;      /* min over triangles of A(u)/A(u0) */
    double ref_travel;          /* max |u_i - u_i^t| over the step, m */
    double min_contact_distance;/* min vertex-obstacle distance at the end (inf if no obstacle) */
    double t_total, t_assemble, t_factor, t_solve, t_line_search;   /* seconds */
} rc_step_stats;

typedef struct rc_sim rc_sim;

RCLOTHDEF rc_sim_def rc_default_sim_def(void);
RCLOTHDEF rc_status rc_sim_create(const rc_sim_def *def, rc_sim **out);
RCLOTHDEF void      rc_sim_destroy(rc_sim *s);
/* the message of the last error of this sim ("" if none) */
RCLOTHDEF const char *rc_sim_last_error(const rc_sim *s);
/* 1 if rc_sim_create flipped a clockwise reference mesh to counter-clockwise */
RCLOTHDEF int       rc_sim_mesh_was_flipped(const rc_sim *s);

RCLOTHDEF rc_status rc_sim_pin(rc_sim *s, int vertex, const double target[3]);   /* call again to move it */
RCLOTHDEF rc_status rc_sim_unpin(rc_sim *s, int vertex);
RCLOTHDEF rc_status rc_sim_set_force(rc_sim *s, int vertex, const double f[3]);  /* external force, N; zero removes */
RCLOTHDEF rc_status rc_sim_add_plane(rc_sim *s, const double point[3], const double normal[3], int *id);
RCLOTHDEF rc_status rc_sim_add_sphere(rc_sim *s, const double center[3], double radius, int *id);
RCLOTHDEF rc_status rc_sim_add_box(rc_sim *s, const double center[3], const double half[3], int *id);
RCLOTHDEF rc_status rc_sim_add_capsule(rc_sim *s, const double a[3], const double b[3], double radius, int *id);
RCLOTHDEF rc_status rc_sim_set_obstacle_friction(rc_sim *s, int id, double mu);
/* pose at the end of the next step: x -> R x + t applied to the shape as added */
RCLOTHDEF rc_status rc_sim_move_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9]);

RCLOTHDEF rc_status rc_sim_step(rc_sim *s, rc_step_stats *stats);
/* equilibrium (no inertia) under the current pins, forces and contact; def.dt is the pseudo step */
RCLOTHDEF rc_status rc_sim_solve_static(rc_sim *s, rc_step_stats *stats);

RCLOTHDEF int           rc_sim_num_verts(const rc_sim *s);
RCLOTHDEF int           rc_sim_num_tris(const rc_sim *s);
RCLOTHDEF int           rc_sim_num_edges(const rc_sim *s);
RCLOTHDEF const int    *rc_sim_tris(const rc_sim *s);        /* 3*nt (counter-clockwise in uv) */
RCLOTHDEF const double *rc_sim_positions(const rc_sim *s);   /* 3*nv */
RCLOTHDEF const double *rc_sim_velocities(const rc_sim *s);  /* 3*nv */
RCLOTHDEF const double *rc_sim_reference(const rc_sim *s);   /* 2*nv, current u */
RCLOTHDEF const double *rc_sim_directors(const rc_sim *s);   /* ne director angles, radians */
/* reaction force the pin exerts on the cloth at the end of the last step, N */
RCLOTHDEF rc_status rc_sim_pin_reaction(const rc_sim *s, int vertex, double force[3]);
/* energies of the current state (no inertia): elastic stretch, bending, gravity potential */
RCLOTHDEF rc_status rc_sim_potential(const rc_sim *s, double *stretch, double *bend, double *gravity);
RCLOTHDEF rc_status rc_sim_write_obj(const rc_sim *s, const char *path);            /* v = x, vt = u */
RCLOTHDEF rc_status rc_sim_write_reference_obj(const rc_sim *s, const char *path);  /* v = (u, 0) */

/* State save/restore (positions, director angles, velocities, reference, time): for retrying a
   step or branching a simulation. The buffer size is rc_sim_state_size() doubles. */
RCLOTHDEF size_t    rc_sim_state_size(const rc_sim *s);
RCLOTHDEF rc_status rc_sim_save_state(const rc_sim *s, double *buffer);
RCLOTHDEF rc_status rc_sim_load_state(rc_sim *s, const double *buffer);

#ifdef __cplusplus
}
#endif

/* ==== IMPLEMENTATION ==== */
#include <stdio.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
   Data. Unknowns per step (DESIGN §2): world positions x (3/vertex), one director angle phi per
   edge (solved with x; the solver's unknown is s_e = l_e phi_e so angle and position pivots have
   similar scales), and in adaptive mode reference positions u (0-2 per vertex, DESIGN §5).
   --------------------------------------------------------------------------------------------- */
typedef struct rc__obstacle {
    rc__ct_shape shape;           /* as added (rest pose) */
    double R[9], t[3];            /* pose at the end of the step being solved */
    double R_prev[9], t_prev[3];  /* pose at the start of that step */
    double mu;
} rc__obstacle;

/* One linear system layout: which unknown each free scalar DOF is, its CSC upper pattern and
   its factorization. The sim has two: (x, phi) for Newton/inner solves, (x, phi, u) for the
   joint r-ITR direction. A local stencil DOF maps to (global index, coefficient) with at most
   one target, because a sliding boundary vertex has one DOF t with u = u_start + t * dir. */
typedef struct rc__system {
    int with_u;
    int ndof;
    int *dof_x;        /* 3*nv: global DOF or -1 (pinned) */
    int *dof_phi;      /* ne */
    int *dof_u;        /* nv: first u DOF or -1; number of u DOFs in nu */
    unsigned char *nu; /* nv: 0, 1 (sliding), 2 */
    int *colptr, *rowind;
    double *val;
    rc_ldlt *ldlt;
    double *g, *d;     /* gradient and direction, ndof */
    int *posA, *posB;  /* scatter tables (rc__system_build_tables), NULL: search */
} rc__system;

struct rc_sim {
    void *user;
    rc_sim_def def;
    int nv, nt, ne;
    int *tris;
    rc__topo topo;
    int flipped;
    double *x, *v, *u, *phi;             /* state at the current time */
    double *x0, *u0_step, *phi0;         /* state at the start of the step (x^t, u^t) */
    double *xt;                           /* predicted field x^t + h v^t at old vertices */
    double *u_init;                       /* the initial reference (MIPS measures against it) */
    double *Dinv0;                        /* 4*nt inverse of the initial D_u */
    double *A0;                           /* nt initial reference areas */
    double *edge_len0;                    /* ne initial rest edge lengths */
    double *vert_len0;                    /* nv mean rest length of incident edges */
    unsigned char *pinned, *phi_fixed, *u_fixed;
    double *pin_target, *force, *reaction;
    double L, mean_edge, total_mass;
    int nobs, cap_obs;
    rc__obstacle *obs;
    double kappa;                         /* barrier stiffness */
    double *fr_lambda, *fr_T, *fr_anchor; /* lagged friction per (vertex, obstacle): normal force,
                                             3x2 tangent basis, material anchor point */
    rc__sh_coef coef;                     /* material constants of the shell kernels */
    rc__system sys_p;                     /* director angles alone (the polish after x converged) */
    int phi_only;                         /* assembling sys_p: project only the angle block */
    int proj;                             /* element Hessian treatment: RC__PROJECT_CLAMP, RC__PROJECT_ABS, or -1 (exact) */
    int exact_newton;                     /* try the unprojected Hessian after full steps */
    rc__system sys_xp, sys_xpu;
    /* per-vertex inertia target at the current u: xtil (3), dxtil/du (3x2), old triangle hint */
    double *xtil, *xtil_G;
    double *x0_G;                         /* 6*nv recovered u-gradient of x^t (material-point velocities) */
    /* derivative cache (r-ITR, DESIGN §6): the projected Hessians in bufA/bufB are kept with the
       stencil state they were computed at (x of 6 vertices, u of 3, phi of 3 = 27 numbers) */
    double *cache_state;                  /* nt*27 */
    unsigned char *cache_valid;           /* nt */
    double *cache_score;                  /* nt scratch: relative displacement since caching */
    double *tri_e;                        /* nt*6 per-triangle energy terms (fixed-order sums) */
    double *chunkA, *chunkB;              /* RC__CHUNK*(15 + 225), RC__CHUNK*(27 + 729) element scratch */
    double *cacheA, *cacheB;              /* nt*(15+225), nt*(27+729): cached joint element derivatives (adaptive) */
    double *ls_x, *ls_u, *ls_phi;
    double h, inv_h2;                     /* current (sub)step size and 1/h^2 (inertia weight) */
    double quality_h;                     /* the h of the regulariser weight rho*tau*A0^2/h^2 */
    double time;
    int steps;
    char err[256];
};

/* ---------------------------------------------------------------------------------------------
   Errors: a readable message kept in the sim; the status is returned.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__sim_set_step_size(rc_sim *s, double h);
static RC__UNUSED void rc__sim_pin_reactions(rc_sim *s);

static RC__UNUSED rc_status rc__sim_fail(rc_sim *s, rc_status st, const char *msg)
{
    if (s) {
        size_t n = strlen(msg);
        if (n > sizeof(s->err) - 1) n = sizeof(s->err) - 1;
        memcpy(s->err, msg, n);
        s->err[n] = 0;
    }
    return st;
}

/* The same from a const entry point: the message buffer is the only thing written (every rc_sim is
   heap-allocated, never a const object, so the cast is well defined). */
static RC__UNUSED rc_status rc__sim_fail_c(const rc_sim *s, rc_status st, const char *msg)
{
    return rc__sim_fail((rc_sim *)s, st, msg);
}

static RC__UNUSED double rc__now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / (double)CLOCKS_PER_SEC;
#endif
}

RCLOTHDEF rc_sim_def rc_default_sim_def(void)
{
    rc_sim_def d;
    memset(&d, 0, sizeof d);
    d.material = rc_material_cotton();
    d.bending_scale = 1.0;
    d.dt = 0.01;
    d.gravity[2] = -9.81;
    d.adaptive = 0;
    d.tol = 1e-4;
    d.max_newton_iters = 100;
    d.newton_exact_hessian = 1;
    d.max_substeps = 4;
    d.itr_eps0 = 1e-2;
    d.itr_lambda = 0.98;
    d.itr_strict_every = 10;
    d.itr_max_outer = 300;
    d.itr_schedule = 1;
    d.itr_cache = 1;
    d.cache_eps = 1e-3;
    d.quality_threshold = 2.5;
    d.quality_weight = 1.0;
    d.contact_thickness = 1e-3;
    d.contact_dhat = 2e-3;
    d.friction = 0.3;
    d.friction_eps_v = 1e-3;
    d.num_threads = 0;
    d.alloc_user = NULL;
    return d;
}


/* ---------------------------------------------------------------------------------------------
   Creation and destruction
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__system_free(rc__system *y, void *user)
{
    rc__free(user, y->dof_x); rc__free(user, y->dof_phi); rc__free(user, y->dof_u); rc__free(user, y->nu);
    rc__free(user, y->colptr); rc__free(user, y->rowind); rc__free(user, y->val);
    rc__free(user, y->g); rc__free(user, y->d);
    rc__free(user, y->posA); rc__free(user, y->posB);
    if (y->ldlt) rc_ldlt_destroy(y->ldlt);
    memset(y, 0, sizeof *y);
}

RCLOTHDEF void rc_sim_destroy(rc_sim *s)
{
    void *user;
    if (!s) return;
    user = s->user;
    rc__free(user, s->tris);
    rc__topo_free(&s->topo, user);
    rc__free(user, s->x); rc__free(user, s->v); rc__free(user, s->u); rc__free(user, s->phi);
    rc__free(user, s->x0); rc__free(user, s->u0_step); rc__free(user, s->phi0); rc__free(user, s->xt);
    rc__free(user, s->u_init); rc__free(user, s->Dinv0); rc__free(user, s->A0);
    rc__free(user, s->edge_len0); rc__free(user, s->vert_len0);
    rc__free(user, s->pinned); rc__free(user, s->phi_fixed); rc__free(user, s->u_fixed);
    rc__free(user, s->pin_target); rc__free(user, s->force); rc__free(user, s->reaction);
    rc__free(user, s->obs);
    rc__free(user, s->fr_lambda); rc__free(user, s->fr_T); rc__free(user, s->fr_anchor);
    rc__system_free(&s->sys_xp, user);
    rc__system_free(&s->sys_xpu, user);
    rc__system_free(&s->sys_p, user);
    rc__free(user, s->xtil); rc__free(user, s->xtil_G); rc__free(user, s->x0_G);
    rc__free(user, s->tri_e); rc__free(user, s->chunkA); rc__free(user, s->chunkB);
    rc__free(user, s->cacheA); rc__free(user, s->cacheB);
    rc__free(user, s->cache_state); rc__free(user, s->cache_valid); rc__free(user, s->cache_score);
    rc__free(user, s->ls_x); rc__free(user, s->ls_u); rc__free(user, s->ls_phi);
    RCLOTH_FREE(s, user);
}

RCLOTHDEF const char *rc_sim_last_error(const rc_sim *s) { return s ? s->err : "no sim"; }
RCLOTHDEF int rc_sim_mesh_was_flipped(const rc_sim *s) { return s ? s->flipped : 0; }

static RC__UNUSED rc_status rc__sim_check_def(const rc_sim_def *d, char *msg, size_t len)
{
    const rc_mesh_desc *m = &d->mesh;
    rc_status st;
#define RC__DEFCHECK(cond, text) do { if (!(cond)) { snprintf(msg, len, "rc_sim_def: %s", text); return RC_ERR_INVALID_ARGUMENT; } } while (0)
    RC__DEFCHECK(m->num_verts >= 3 && m->num_tris >= 1, "mesh needs at least 3 vertices and 1 triangle");
    RC__DEFCHECK(m->ref_uv != NULL && m->tris != NULL, "mesh.ref_uv and mesh.tris must not be NULL");
    RC__DEFCHECK(m->num_verts <= 50000000 && m->num_tris <= 100000000, "mesh too large");
    RC__DEFCHECK(rc__isfinite(d->dt) && d->dt > 0.0, "dt must be positive and finite");
    RC__DEFCHECK(rc__all_finite(d->gravity, 3), "gravity must be finite");
    RC__DEFCHECK(rc__isfinite(d->bending_scale) && d->bending_scale >= 0.0, "bending_scale must be >= 0");
    RC__DEFCHECK(d->adaptive == 0 || d->adaptive == 1, "adaptive must be 0 or 1");
    RC__DEFCHECK(rc__isfinite(d->tol) && d->tol > 0.0, "tol must be positive");
    RC__DEFCHECK(d->max_newton_iters >= 1, "max_newton_iters must be >= 1");
    RC__DEFCHECK(d->newton_exact_hessian == 0 || d->newton_exact_hessian == 1, "newton_exact_hessian must be 0 or 1");
    RC__DEFCHECK(d->max_substeps >= 0 && d->max_substeps <= 20, "max_substeps must be in [0, 20]");
    RC__DEFCHECK(rc__isfinite(d->itr_eps0) && d->itr_eps0 >= d->tol, "itr_eps0 must be >= tol");
    RC__DEFCHECK(rc__isfinite(d->itr_lambda) && d->itr_lambda > 0.0 && d->itr_lambda <= 1.0, "itr_lambda must be in (0, 1]");
    RC__DEFCHECK(d->itr_strict_every >= 1, "itr_strict_every must be >= 1");
    RC__DEFCHECK(d->itr_max_outer >= 1, "itr_max_outer must be >= 1");
    RC__DEFCHECK(rc__isfinite(d->cache_eps) && d->cache_eps >= 0.0, "cache_eps must be >= 0");
    RC__DEFCHECK(rc__isfinite(d->quality_threshold) && d->quality_threshold > 2.0, "quality_threshold must be > 2 (MIPS >= 2)");
    RC__DEFCHECK(rc__isfinite(d->quality_weight) && d->quality_weight >= 0.0, "quality_weight must be >= 0");
    RC__DEFCHECK(rc__isfinite(d->contact_thickness) && d->contact_thickness >= 0.0, "contact_thickness must be >= 0");
    RC__DEFCHECK(rc__isfinite(d->contact_dhat) && d->contact_dhat > 0.0, "contact_dhat must be > 0");
    RC__DEFCHECK(rc__isfinite(d->friction) && d->friction >= 0.0, "friction must be >= 0");
    RC__DEFCHECK(rc__isfinite(d->friction_eps_v) && d->friction_eps_v > 0.0, "friction_eps_v must be > 0");
    RC__DEFCHECK(d->num_threads >= 0, "num_threads must be >= 0");
#undef RC__DEFCHECK
    st = rc_material_validate(&d->material);
    if (st != RC_OK) { snprintf(msg, len, "rc_sim_def.material: density, thickness, young must be > 0 and poisson in (-1, 0.5)"); return st; }
    if (!rc__all_finite(m->ref_uv, (size_t)2 * (size_t)m->num_verts) ||
        (m->pos && !rc__all_finite(m->pos, (size_t)3 * (size_t)m->num_verts))) {
        snprintf(msg, len, "mesh coordinates contain NaN or inf");
        return RC_ERR_NON_FINITE;
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_create(const rc_sim_def *def, rc_sim **out)
{
    rc_sim *s;
    void *user;
    int nv, nt, ne, i, t, e, flipped = 0;
    rc_status st;
    char msg[256];
    double lo[3] = { DBL_MAX, DBL_MAX, DBL_MAX }, hi[3] = { -DBL_MAX, -DBL_MAX, -DBL_MAX };
    if (!out) return RC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!def) return RC_ERR_INVALID_ARGUMENT;
    st = rc__sim_check_def(def, msg, sizeof msg);
    if (st != RC_OK) return st;
    st = rc_mesh_validate(def->mesh.num_verts, def->mesh.num_tris, def->mesh.ref_uv, def->mesh.tris, &flipped, msg, (int)sizeof msg);
    if (st != RC_OK) return st;
    user = def->alloc_user;
    s = (rc_sim *)RCLOTH_MALLOC(sizeof(rc_sim), user);
    if (!s) return RC_ERR_OUT_OF_MEMORY;
    memset(s, 0, sizeof *s);
    s->user = user;
    s->def = *def;
    s->def.mesh.ref_uv = NULL; s->def.mesh.pos = NULL; s->def.mesh.tris = NULL;   /* not retained */
    s->flipped = flipped;
    nv = s->nv = def->mesh.num_verts;
    nt = s->nt = def->mesh.num_tris;
    s->tris = (int *)rc__alloc(user, (size_t)3 * nt, sizeof(int));
    if (!s->tris) goto oom;
    memcpy(s->tris, def->mesh.tris, sizeof(int) * 3 * (size_t)nt);
    if (flipped)
        for (t = 0; t < nt; ++t) { int tmp = s->tris[3 * t + 1]; s->tris[3 * t + 1] = s->tris[3 * t + 2]; s->tris[3 * t + 2] = tmp; }
    st = rc__topo_build(&s->topo, user, nv, nt, s->tris, def->mesh.ref_uv);
    if (st != RC_OK) { rc_sim_destroy(s); return st; }
    /* a vertex in no triangle has no mass, no elastic energy and no incident triangle (the
       inertia transfer indexes its first one): the step would be singular or read out of bounds */
    for (i = 0; i < nv; ++i)
        if (s->topo.vt_ptr[i + 1] == s->topo.vt_ptr[i]) { rc_sim_destroy(s); return RC_ERR_INVALID_ARGUMENT; }
    ne = s->ne = s->topo.ne;

#define RC__A(ptr, n, type) do { (ptr) = (type *)rc__calloc(user, (size_t)(n), sizeof(type)); if (!(ptr)) goto oom; } while (0)
    RC__A(s->x, 3 * nv, double); RC__A(s->v, 3 * nv, double); RC__A(s->u, 2 * nv, double); RC__A(s->phi, ne, double);
    RC__A(s->x0, 3 * nv, double); RC__A(s->u0_step, 2 * nv, double); RC__A(s->phi0, ne, double); RC__A(s->xt, 3 * nv, double);
    RC__A(s->u_init, 2 * nv, double); RC__A(s->Dinv0, 4 * nt, double); RC__A(s->A0, nt, double);
    RC__A(s->edge_len0, ne, double); RC__A(s->vert_len0, nv, double);
    RC__A(s->pinned, nv, unsigned char); RC__A(s->phi_fixed, ne, unsigned char); RC__A(s->u_fixed, nv, unsigned char);
    RC__A(s->pin_target, 3 * nv, double); RC__A(s->force, 3 * nv, double); RC__A(s->reaction, 3 * nv, double);
    RC__A(s->xtil, 3 * nv, double); RC__A(s->xtil_G, 6 * nv, double); RC__A(s->x0_G, 6 * nv, double);
    RC__A(s->ls_x, 3 * nv, double); RC__A(s->ls_u, 2 * nv, double); RC__A(s->ls_phi, ne, double);
    RC__A(s->tri_e, 6 * nt, double);
    RC__A(s->chunkA, (size_t)(nt < 1024 ? nt : 1024) * 240, double); RC__A(s->chunkB, (size_t)(nt < 1024 ? nt : 1024) * 756, double);
    if (def->adaptive && def->itr_cache) { RC__A(s->cacheA, (size_t)nt * 240, double); RC__A(s->cacheB, (size_t)nt * 756, double); }
    RC__A(s->cache_state, (size_t)nt * 27, double); RC__A(s->cache_valid, nt, unsigned char); RC__A(s->cache_score, nt, double);
#undef RC__A
    memcpy(s->u, def->mesh.ref_uv, sizeof(double) * 2 * (size_t)nv);
    memcpy(s->u_init, s->u, sizeof(double) * 2 * (size_t)nv);
    for (i = 0; i < nv; ++i) {
        int c;
        if (def->mesh.pos) for (c = 0; c < 3; ++c) s->x[3 * i + c] = def->mesh.pos[3 * i + c];
        else { s->x[3 * i] = s->u[2 * i]; s->x[3 * i + 1] = s->u[2 * i + 1]; s->x[3 * i + 2] = 0.0; }
        for (c = 0; c < 3; ++c) { if (s->x[3 * i + c] < lo[c]) lo[c] = s->x[3 * i + c]; if (s->x[3 * i + c] > hi[c]) hi[c] = s->x[3 * i + c]; }
    }
    s->L = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    for (t = 0; t < nt; ++t) {
        const int *tri = s->tris + 3 * t;
        const double *a = s->u + 2 * tri[0], *b = s->u + 2 * tri[1], *c = s->u + 2 * tri[2];
        double D[4], det;
        D[0] = b[0] - a[0]; D[1] = c[0] - a[0]; D[2] = b[1] - a[1]; D[3] = c[1] - a[1];   /* [e1 e2] */
        det = D[0] * D[3] - D[1] * D[2];
        s->A0[t] = 0.5 * det;
        s->Dinv0[4 * t + 0] = D[3] / det; s->Dinv0[4 * t + 1] = -D[1] / det;
        s->Dinv0[4 * t + 2] = -D[2] / det; s->Dinv0[4 * t + 3] = D[0] / det;
        s->total_mass += def->material.density * def->material.thickness * s->A0[t];
    }
    {
        int *cnt = (int *)rc__calloc(user, (size_t)nv, sizeof(int));
        if (!cnt) goto oom;
        for (e = 0; e < ne; ++e) {
            int a = s->topo.edge_v[2 * e], b = s->topo.edge_v[2 * e + 1];
            double du = s->u[2 * a] - s->u[2 * b], dv = s->u[2 * a + 1] - s->u[2 * b + 1];
            double l = sqrt(du * du + dv * dv);
            s->edge_len0[e] = l;
            s->mean_edge += l;
            s->vert_len0[a] += l; s->vert_len0[b] += l; cnt[a]++; cnt[b]++;
        }
        s->mean_edge /= (double)(ne > 0 ? ne : 1);
        for (i = 0; i < nv; ++i) s->vert_len0[i] = cnt[i] ? s->vert_len0[i] / cnt[i] : s->mean_edge;
        rc__free(user, cnt);
    }
    if (s->L <= 0.0) s->L = s->mean_edge;
    rc__sim_set_step_size(s, def->dt);
    s->quality_h = def->dt;
    s->coef = rc__sh_make_coef(&def->material, def->bending_scale);
    s->proj = RC__PROJECT_CLAMP;
    s->exact_newton = def->newton_exact_hessian;
    s->kappa = 0.0;   /* set from the mass scale when the first contact appears */
    *out = s;
    return RC_OK;
oom:
    rc_sim_destroy(s);
    return RC_ERR_OUT_OF_MEMORY;
}

RCLOTHDEF int rc_sim_num_verts(const rc_sim *s) { return s ? s->nv : 0; }
RCLOTHDEF int rc_sim_num_tris(const rc_sim *s) { return s ? s->nt : 0; }
RCLOTHDEF int rc_sim_num_edges(const rc_sim *s) { return s ? s->ne : 0; }
RCLOTHDEF const int *rc_sim_tris(const rc_sim *s) { return s ? s->tris : NULL; }
RCLOTHDEF const double *rc_sim_positions(const rc_sim *s) { return s ? s->x : NULL; }
RCLOTHDEF const double *rc_sim_velocities(const rc_sim *s) { return s ? s->v : NULL; }
RCLOTHDEF const double *rc_sim_reference(const rc_sim *s) { return s ? s->u : NULL; }
RCLOTHDEF const double *rc_sim_directors(const rc_sim *s) { return s ? s->phi : NULL; }

/* ---------------------------------------------------------------------------------------------
   Pins, forces, obstacles. Changing the set of pinned vertices or of loaded vertices changes the
   DOF layout; the systems are rebuilt lazily at the next step.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__sim_invalidate_layout(rc_sim *s)
{
    rc__system_free(&s->sys_xp, s->user);
    rc__system_free(&s->sys_xpu, s->user);
    rc__system_free(&s->sys_p, s->user);
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
}

RCLOTHDEF rc_status rc_sim_pin(rc_sim *s, int vertex, const double target[3])
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!target) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin: target is NULL");
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin: vertex out of range");
    if (!rc__all_finite(target, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_pin: target is not finite");
    if (!s->pinned[vertex]) { s->pinned[vertex] = 1; rc__sim_invalidate_layout(s); }
    memcpy(s->pin_target + 3 * vertex, target, 3 * sizeof(double));
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_unpin(rc_sim *s, int vertex)
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_unpin: vertex out of range");
    if (s->pinned[vertex]) { s->pinned[vertex] = 0; rc__sim_invalidate_layout(s); }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_set_force(rc_sim *s, int vertex, const double f[3])
{
    int had, has;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!f) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_force: force is NULL");
    if (vertex < 0 || vertex >= s->nv) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_force: vertex out of range");
    if (!rc__all_finite(f, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_set_force: force is not finite");
    had = s->force[3 * vertex] != 0.0 || s->force[3 * vertex + 1] != 0.0 || s->force[3 * vertex + 2] != 0.0;
    has = f[0] != 0.0 || f[1] != 0.0 || f[2] != 0.0;
    memcpy(s->force + 3 * vertex, f, 3 * sizeof(double));
    if (had != has && s->def.adaptive) rc__sim_invalidate_layout(s);   /* loaded vertices keep u fixed */
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_pin_reaction(const rc_sim *s, int vertex, double force[3])
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!force || vertex < 0 || vertex >= s->nv) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_pin_reaction: force is NULL or vertex out of range");
    memcpy(force, s->reaction + 3 * vertex, 3 * sizeof(double));
    return RC_OK;
}

static RC__UNUSED rc_status rc__sim_add_obstacle(rc_sim *s, const rc__obstacle *o, int *id)
{
    if (s->nobs == s->cap_obs) {
        int cap = s->cap_obs ? 2 * s->cap_obs : 4;
        rc__obstacle *n = (rc__obstacle *)rc__realloc(s->user, s->obs, (size_t)cap, sizeof(rc__obstacle));
        double *lam, *T, *anc;
        if (!n) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->obs = n;
        lam = (double *)rc__realloc(s->user, s->fr_lambda, (size_t)cap * s->nv, sizeof(double));
        if (!lam) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_lambda = lam;
        T = (double *)rc__realloc(s->user, s->fr_T, (size_t)cap * s->nv * 6, sizeof(double));
        if (!T) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_T = T;
        anc = (double *)rc__realloc(s->user, s->fr_anchor, (size_t)cap * s->nv * 3, sizeof(double));
        if (!anc) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory adding an obstacle");
        s->fr_anchor = anc;
        s->cap_obs = cap;
    }
    s->obs[s->nobs] = *o;
    memset(s->fr_lambda + (size_t)s->nobs * s->nv, 0, sizeof(double) * (size_t)s->nv);
    if (id) *id = s->nobs;
    s->nobs++;
    return RC_OK;
}

static RC__UNUSED void rc__obstacle_init(rc__obstacle *o, int kind, double mu)
{
    memset(o, 0, sizeof *o);
    o->shape.kind = kind;
    o->shape.R[0] = o->shape.R[4] = o->shape.R[8] = 1.0;
    o->R[0] = o->R[4] = o->R[8] = 1.0;
    memcpy(o->R_prev, o->R, sizeof o->R);
    o->mu = mu;
}

RCLOTHDEF rc_status rc_sim_add_plane(rc_sim *s, const double point[3], const double normal[3], int *id)
{
    rc__obstacle o;
    double len;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!point || !normal) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_plane: point or normal is NULL");
    if (!rc__all_finite(point, 3) || !rc__all_finite(normal, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_plane: non-finite input");
    len = rc__norm3(normal);
    if (!(len > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_plane: zero normal");
    rc__obstacle_init(&o, RC__CT_SHAPE_PLANE, s->def.friction);
    memcpy(o.shape.p, point, sizeof o.shape.p);
    rc__scale3(o.shape.n, 1.0 / len, normal);
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_sphere(rc_sim *s, const double center[3], double radius, int *id)
{
    rc__obstacle o;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!center) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_sphere: center is NULL");
    if (!rc__all_finite(center, 3) || !rc__isfinite(radius)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_sphere: non-finite input");
    if (!(radius > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_sphere: radius must be > 0");
    rc__obstacle_init(&o, RC__CT_SHAPE_SPHERE, s->def.friction);
    memcpy(o.shape.p, center, sizeof o.shape.p);
    o.shape.r = radius;
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_box(rc_sim *s, const double center[3], const double half[3], int *id)
{
    rc__obstacle o;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!center || !half) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_box: center or half is NULL");
    if (!rc__all_finite(center, 3) || !rc__all_finite(half, 3)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_box: non-finite input");
    if (!(half[0] > 0.0 && half[1] > 0.0 && half[2] > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_box: half extents must be > 0");
    rc__obstacle_init(&o, RC__CT_SHAPE_BOX, s->def.friction);
    memcpy(o.shape.p, center, sizeof o.shape.p);
    memcpy(o.shape.half, half, sizeof o.shape.half);
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_add_capsule(rc_sim *s, const double a[3], const double b[3], double radius, int *id)
{
    rc__obstacle o;
    double d[3];
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!a || !b) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_capsule: an end point is NULL");
    if (!rc__all_finite(a, 3) || !rc__all_finite(b, 3) || !rc__isfinite(radius)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_add_capsule: non-finite input");
    rc__sub3(d, b, a);
    if (!(radius > 0.0)) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_add_capsule: radius must be > 0");
    rc__obstacle_init(&o, RC__CT_SHAPE_CAPSULE, s->def.friction);
    memcpy(o.shape.a, a, sizeof o.shape.a);
    memcpy(o.shape.b, b, sizeof o.shape.b);
    o.shape.r = radius;
    return rc__sim_add_obstacle(s, &o, id);
}

RCLOTHDEF rc_status rc_sim_set_obstacle_friction(rc_sim *s, int id, double mu)
{
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (id < 0 || id >= s->nobs) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_obstacle_friction: no such obstacle");
    if (!rc__isfinite(mu) || mu < 0.0) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_set_obstacle_friction: mu must be >= 0");
    s->obs[id].mu = mu;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_move_obstacle(rc_sim *s, int id, const double translation[3], const double rotation[9])
{
    static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const double *R = rotation ? rotation : I;
    double RtR[9];
    int i, j, k;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!translation) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_obstacle: translation is NULL");
    if (id < 0 || id >= s->nobs) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_obstacle: no such obstacle");
    if (!rc__all_finite(translation, 3) || !rc__all_finite(R, 9)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_move_obstacle: non-finite pose");
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
            RtR[3 * i + j] = 0.0;
            for (k = 0; k < 3; ++k) RtR[3 * i + j] += R[3 * k + i] * R[3 * k + j];
            if (fabs(RtR[3 * i + j] - (i == j ? 1.0 : 0.0)) > 1e-6)
                return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_obstacle: rotation is not orthonormal");
        }
    /* an orthonormal matrix with det -1 is a reflection: it would turn the shape inside out */
    if (R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]) < 0.0)
        return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_move_obstacle: rotation is a reflection (det -1)");
    memcpy(s->obs[id].R, R, 9 * sizeof(double));
    memcpy(s->obs[id].t, translation, 3 * sizeof(double));
    return RC_OK;
}


/* ---------------------------------------------------------------------------------------------
   DOF layout and the sparse pattern. Nodes are vertices (x, and u when adaptive) and edges (phi);
   a triangle couples its 3 own vertices, its up to 3 flap vertices and its 3 edges (the bending
   stencil), which covers every other stencil (stretch, inertia, MIPS, vertex contact).
   --------------------------------------------------------------------------------------------- */

/* Which vertices keep u fixed (DESIGN §5): domain corners and any non-sliding boundary vertex,
   pinned vertices, and vertices carrying an external force. */
static RC__UNUSED void rc__sim_update_u_fixed(rc_sim *s)
{
    int i;
    for (i = 0; i < s->nv; ++i) {
        int loaded = s->force[3 * i] != 0.0 || s->force[3 * i + 1] != 0.0 || s->force[3 * i + 2] != 0.0;
        s->u_fixed[i] = (unsigned char)(s->pinned[i] || loaded || s->topo.vkind[i] == RC__VK_CORNER);
    }
}

/* A clamp clamps rotation too: every edge of a triangle whose three vertices are pinned keeps its
   director angle (DESIGN §2). */
static RC__UNUSED void rc__sim_update_phi_fixed(rc_sim *s)
{
    int t, k;
    memset(s->phi_fixed, 0, (size_t)s->ne);
    for (t = 0; t < s->nt; ++t) {
        const int *tri = s->tris + 3 * t;
        if (s->pinned[tri[0]] && s->pinned[tri[1]] && s->pinned[tri[2]])
            for (k = 0; k < 3; ++k) s->phi_fixed[s->topo.tri_edge[3 * t + k]] = 1;
    }
}

static RC__UNUSED int rc__cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* the up-to-9 nodes of triangle t's stencil: own vertices, flap vertices (-1 if boundary), edges */
static RC__UNUSED int rc__sim_tri_nodes(const rc_sim *s, int t, int *nodes)
{
    int k, n = 0;
    for (k = 0; k < 3; ++k) nodes[n++] = s->tris[3 * t + k];
    for (k = 0; k < 3; ++k) if (s->topo.tri_flap[3 * t + k] >= 0) nodes[n++] = s->topo.tri_flap[3 * t + k];
    for (k = 0; k < 3; ++k) nodes[n++] = s->nv + s->topo.tri_edge[3 * t + k];
    return n;
}

static RC__UNUSED rc_status rc__system_build(rc_sim *s, rc__system *y, int with_u)
{
    void *user = s->user;
    int nv = s->nv, ne = s->ne, nn = nv + ne, i, e, t, ndof = 0;
    int *node_first = NULL, *node_cnt = NULL, *adj_ptr = NULL, *adj = NULL;
    long long *pairs = NULL;
    size_t npairs = 0, np, p;
    rc_status st = RC_ERR_OUT_OF_MEMORY;
    rc__system_free(y, user);
    y->with_u = with_u > 0;   /* with_u < 0: the angle-only system (no x, no u) */
    rc__sim_update_u_fixed(s);
    rc__sim_update_phi_fixed(s);
    y->dof_x = (int *)rc__alloc(user, (size_t)3 * nv, sizeof(int));
    y->dof_phi = (int *)rc__alloc(user, (size_t)(ne > 0 ? ne : 1), sizeof(int));
    y->dof_u = (int *)rc__alloc(user, (size_t)nv, sizeof(int));
    y->nu = (unsigned char *)rc__calloc(user, (size_t)nv, 1);
    node_first = (int *)rc__alloc(user, (size_t)nn, sizeof(int));
    node_cnt = (int *)rc__calloc(user, (size_t)nn, sizeof(int));
    if (!y->dof_x || !y->dof_phi || !y->dof_u || !y->nu || !node_first || !node_cnt) goto done;
    for (i = 0; i < nv; ++i) {
        int c;
        node_first[i] = ndof;
        for (c = 0; c < 3; ++c) y->dof_x[3 * i + c] = (s->pinned[i] || with_u < 0) ? -1 : ndof++;
        y->dof_u[i] = -1;
        if (with_u > 0 && !s->u_fixed[i]) {
            y->nu[i] = (unsigned char)(s->topo.vkind[i] == RC__VK_SLIDING ? 1 : 2);
            y->dof_u[i] = ndof;
            ndof += y->nu[i];
        }
        node_cnt[i] = ndof - node_first[i];
    }
    for (e = 0; e < ne; ++e) {
        node_first[nv + e] = ndof;
        y->dof_phi[e] = s->phi_fixed[e] ? -1 : ndof++;
        node_cnt[nv + e] = ndof - node_first[nv + e];
    }
    y->ndof = ndof;
    /* node adjacency from the triangle stencils: sorted unique pairs (a <= b) */
    pairs = (long long *)rc__alloc(user, (size_t)s->nt * 45 + (size_t)nn, sizeof(long long));
    if (!pairs) goto done;
    for (i = 0; i < nn; ++i) pairs[npairs++] = (long long)i * nn + i;
    for (t = 0; t < s->nt; ++t) {
        int nodes[9], n = rc__sim_tri_nodes(s, t, nodes), a, b;
        for (a = 0; a < n; ++a)
            for (b = 0; b < n; ++b)
                if (nodes[a] < nodes[b]) pairs[npairs++] = (long long)nodes[a] * nn + nodes[b];
    }
    qsort(pairs, npairs, sizeof(long long), rc__cmp_ll);
    for (p = 0, np = 0; p < npairs; ++p)
        if (np == 0 || pairs[p] != pairs[np - 1]) pairs[np++] = pairs[p];
    /* column J's row nodes are the a with (a, J) in pairs: bucket by b */
    adj_ptr = (int *)rc__calloc(user, (size_t)nn + 1, sizeof(int));
    adj = (int *)rc__alloc(user, np, sizeof(int));
    if (!adj_ptr || !adj) goto done;
    for (p = 0; p < np; ++p) adj_ptr[(int)(pairs[p] % nn) + 1]++;
    for (i = 0; i < nn; ++i) adj_ptr[i + 1] += adj_ptr[i];
    {
        int *fill = node_cnt;   /* reuse as a cursor after saving counts in adj order */
        int *cur = (int *)rc__alloc(user, (size_t)nn, sizeof(int));
        if (!cur) goto done;
        memcpy(cur, adj_ptr, sizeof(int) * (size_t)nn);
        for (p = 0; p < np; ++p) { int b = (int)(pairs[p] % nn), a = (int)(pairs[p] / nn); adj[cur[b]++] = a; }
        rc__free(user, cur);
        (void)fill;
    }
    /* pairs are sorted by a then b, so bucket b receives its a in increasing order */
    y->colptr = (int *)rc__calloc(user, (size_t)ndof + 1, sizeof(int));
    if (!y->colptr) goto done;
    for (i = 0; i < nn; ++i) {
        int c, q;
        for (c = 0; c < node_cnt[i]; ++c) {
            int col = node_first[i] + c, cnt = 0;
            for (q = adj_ptr[i]; q < adj_ptr[i + 1]; ++q) {
                int a = adj[q];
                if (a == i) cnt += c + 1;          /* upper part of the diagonal block */
                else cnt += node_cnt[a];
            }
            y->colptr[col + 1] = cnt;
        }
    }
    for (i = 0; i < ndof; ++i) y->colptr[i + 1] += y->colptr[i];
    y->rowind = (int *)rc__alloc(user, (size_t)y->colptr[ndof], sizeof(int));
    y->val = (double *)rc__calloc(user, (size_t)y->colptr[ndof], sizeof(double));
    y->g = (double *)rc__calloc(user, (size_t)ndof, sizeof(double));
    y->d = (double *)rc__calloc(user, (size_t)ndof, sizeof(double));
    if (!y->rowind || !y->val || !y->g || !y->d) goto done;
    for (i = 0; i < nn; ++i) {
        int c, q, r;
        for (c = 0; c < node_cnt[i]; ++c) {
            int col = node_first[i] + c, pos = y->colptr[col];
            for (q = adj_ptr[i]; q < adj_ptr[i + 1]; ++q) {
                int a = adj[q];
                if (a == i) for (r = 0; r <= c; ++r) y->rowind[pos++] = node_first[i] + r;
                else for (r = 0; r < node_cnt[a]; ++r) y->rowind[pos++] = node_first[a] + r;
            }
        }
    }
    if (ndof > 0) {
        st = rc_ldlt_analyze(&y->ldlt, ndof, y->colptr, y->rowind);
        if (st != RC_OK) goto done;
    }
    st = RC_OK;
done:
    rc__free(user, node_first); rc__free(user, node_cnt);
    rc__free(user, adj_ptr); rc__free(user, adj); rc__free(user, pairs);
    if (st != RC_OK) rc__system_free(y, user);
    return st;
}

/* position of (row, col), row <= col, in the CSC values; -1 if absent */
static RC__UNUSED int rc__system_find(const rc__system *y, int row, int col)
{
    int lo = y->colptr[col], hi = y->colptr[col + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1, r = y->rowind[mid];
        if (r == row) return mid;
        if (r < row) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* Local stencil DOF -> (global DOF, coefficient). */
typedef struct rc__dofmap { int n; int g[27]; double c[27]; } rc__dofmap;

static RC__UNUSED void rc__map_x(const rc__system *y, int v, rc__dofmap *m)
{
    int c;
    for (c = 0; c < 3; ++c) { m->g[m->n] = (v >= 0) ? y->dof_x[3 * v + c] : -1; m->c[m->n++] = 1.0; }
}
static RC__UNUSED void rc__map_u(const rc_sim *s, const rc__system *y, int v, rc__dofmap *m)
{
    int c;
    for (c = 0; c < 2; ++c) {
        if (!y->with_u || y->dof_u[v] < 0) { m->g[m->n] = -1; m->c[m->n++] = 0.0; }
        else if (y->nu[v] == 2) { m->g[m->n] = y->dof_u[v] + c; m->c[m->n++] = 1.0; }
        else { m->g[m->n] = y->dof_u[v]; m->c[m->n++] = s->topo.slide_dir[2 * v + c]; }
    }
}
/* triangle element A: x of the 3 vertices (9), u of the 3 vertices (6) */
static void rc__map_triA(const rc_sim *s, const rc__system *y, int t, rc__dofmap *m)
{
    int k;
    m->n = 0;
    for (k = 0; k < 3; ++k) rc__map_x(y, s->tris[3 * t + k], m);
    for (k = 0; k < 3; ++k) rc__map_u(s, y, s->tris[3 * t + k], m);
}
/* triangle element B (bending): x of own 3 and flap 3 vertices (18), phi of the 3 edges (3),
   u of the own 3 vertices (6). The solver's angle unknown is s_e = l_e phi_e. */
static void rc__map_triB(const rc_sim *s, const rc__system *y, int t, rc__dofmap *m)
{
    int k;
    m->n = 0;
    for (k = 0; k < 3; ++k) rc__map_x(y, s->tris[3 * t + k], m);
    for (k = 0; k < 3; ++k) rc__map_x(y, s->topo.tri_flap[3 * t + k], m);
    for (k = 0; k < 3; ++k) {
        int e = s->topo.tri_edge[3 * t + k];
        m->g[m->n] = y->dof_phi[e];
        m->c[m->n++] = 1.0 / s->edge_len0[e];
    }
    for (k = 0; k < 3; ++k) rc__map_u(s, y, s->tris[3 * t + k], m);
}

/* add a local gradient g (n) and Hessian H (n*n, symmetric) into the global system */
static RC__UNUSED void rc__system_scatter(rc__system *y, const rc__dofmap *m, const double *g, const double *H, const int *table)
{
    int a, b, n = m->n;
    for (a = 0; a < n; ++a) {
        int ga = m->g[a];
        if (ga < 0) continue;
        if (g) y->g[ga] += m->c[a] * g[a];
        if (!H) continue;
        for (b = 0; b < n; ++b) {
            int gb = m->g[b], pos;
            if (gb < ga) continue;
            pos = table ? table[a * n + b] : rc__system_find(y, ga, gb);
            RCLOTH_ASSERT(pos >= 0);
            y->val[pos] += m->c[a] * m->c[b] * H[a * n + b];
        }
    }
}

/* Positions in the CSC values of every (local a, local b) pair of the triangle elements A (15) and
   B (27), computed once per layout so assembly does no searching. Skipped (binary search instead)
   when the table would exceed 256 MB (3.8 KB per triangle). */
static RC__UNUSED void rc__system_build_tables(const rc_sim *s, rc__system *y)
{
    int t, a, b;
    if ((double)s->nt * 954.0 * sizeof(int) > 256.0 * 1024 * 1024) return;
    y->posA = (int *)rc__alloc(s->user, (size_t)s->nt * 225, sizeof(int));
    y->posB = (int *)rc__alloc(s->user, (size_t)s->nt * 729, sizeof(int));
    if (!y->posA || !y->posB) { rc__free(s->user, y->posA); rc__free(s->user, y->posB); y->posA = y->posB = NULL; return; }
    for (t = 0; t < s->nt; ++t) {
        rc__dofmap m;
        rc__map_triA(s, y, t, &m);
        for (a = 0; a < 15; ++a)
            for (b = 0; b < 15; ++b)
                y->posA[(size_t)225 * t + 15 * a + b] = (m.g[a] >= 0 && m.g[b] >= m.g[a]) ? rc__system_find(y, m.g[a], m.g[b]) : -1;
        rc__map_triB(s, y, t, &m);
        for (a = 0; a < 27; ++a)
            for (b = 0; b < 27; ++b)
                y->posB[(size_t)729 * t + 27 * a + b] = (m.g[a] >= 0 && m.g[b] >= m.g[a]) ? rc__system_find(y, m.g[a], m.g[b]) : -1;
    }
}


/* ---------------------------------------------------------------------------------------------
   Fields of the previous step at moved reference positions (DESIGN §2, our choice of transfer).
   The predictor x~ = x^t + h v^t (and x^t itself, for velocities) lives on the old reference mesh
   u^t. DESIGN's point interpolation (locate u_i in an old triangle) is only C^0: every u_i starts
   a step exactly on an old vertex, where it has one gradient per incident triangle, and Newton
   directions computed with one of them are often not descent directions for the true one-sided
   slope (measured: the joint line search stalled on the first outer iteration of most steps). We
   use instead the first-order expansion about the old vertex with its recovered gradient,
       x~_i(u_i) = x~_i + Gbar_i (u_i - u_i^t),   Gbar_i = sum_T A_T grad_T x~ / sum_T A_T,
   (area-weighted average of the old triangles' 3x2 gradients): smooth (linear) in u_i, exact for
   affine fields, so free flight and rigid motion stay exact, and O(h |du|) from the piecewise
   linear interpolant elsewhere. The same rule gives the material-point velocity after the step.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__sim_recover_gradients(const rc_sim *s, const double *field, double *Gbar)
{
    int i, c, k;
    memset(Gbar, 0, sizeof(double) * 6 * (size_t)s->nv);
    for (i = 0; i < s->nv; ++i) {
        double W = 0.0;
        int q;
        for (q = s->topo.vt_ptr[i]; q < s->topo.vt_ptr[i + 1]; ++q) {
            const int *tri = s->tris + 3 * s->topo.vt_idx[q];
            const double *a = s->u0_step + 2 * tri[0], *b = s->u0_step + 2 * tri[1], *cc = s->u0_step + 2 * tri[2];
            double D[4], det, Di[4];
            D[0] = b[0] - a[0]; D[1] = cc[0] - a[0]; D[2] = b[1] - a[1]; D[3] = cc[1] - a[1];
            det = D[0] * D[3] - D[1] * D[2];
            if (!(det > 0.0)) continue;
            Di[0] = D[3] / det; Di[1] = -D[1] / det; Di[2] = -D[2] / det; Di[3] = D[0] / det;
            /* grad_T f = [f1 - f0, f2 - f0] D^{-1}, weighted by 2A_T = det */
            for (c = 0; c < 3; ++c) {
                double f1 = field[3 * tri[1] + c] - field[3 * tri[0] + c], f2 = field[3 * tri[2] + c] - field[3 * tri[0] + c];
                for (k = 0; k < 2; ++k) Gbar[6 * i + 2 * c + k] += det * (f1 * Di[k] + f2 * Di[2 + k]);
            }
            W += det;
        }
        if (W > 0.0) for (k = 0; k < 6; ++k) Gbar[6 * i + k] /= W;
    }
}

/* x~ and its u-gradient at the current u (fixed mode: the old vertex values, zero gradient) */
static RC__UNUSED void rc__sim_update_xtil(rc_sim *s, const double *u)
{
    int i, c;
    if (!s->def.adaptive) {
        memcpy(s->xtil, s->xt, sizeof(double) * 3 * (size_t)s->nv);
        memset(s->xtil_G, 0, sizeof(double) * 6 * (size_t)s->nv);
        return;
    }
    for (i = 0; i < s->nv; ++i) {
        double du0 = u[2 * i] - s->u0_step[2 * i], du1 = u[2 * i + 1] - s->u0_step[2 * i + 1];
        for (c = 0; c < 3; ++c) s->xtil[3 * i + c] = s->xt[3 * i + c] + s->xtil_G[6 * i + 2 * c] * du0 + s->xtil_G[6 * i + 2 * c + 1] * du1;
    }
}

/* ---------------------------------------------------------------------------------------------
   Obstacles in their end-of-step pose: p_world = R p_rest + t.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__obs_to_rest(const double *R, const double *t, const double *x, double *xr)
{
    double d[3];
    int i;
    rc__sub3(d, x, t);
    for (i = 0; i < 3; ++i) xr[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2];   /* R^T d */
}
static RC__UNUSED void rc__obs_from_rest_vec(const double *R, const double *vr, double *v)
{
    int i;
    for (i = 0; i < 3; ++i) v[i] = R[3 * i] * vr[0] + R[3 * i + 1] * vr[1] + R[3 * i + 2] * vr[2];
}

/* signed distance of world point x to obstacle o at pose (R, t); gradient and Hessian of d w.r.t. x */
static RC__UNUSED double rc__sim_obs_sdf_pose(const rc__obstacle *o, const double *R, const double *t, const double *x, double *grad, double *hess)
{
    double xr[3], gr[3], Hr[9], d;
    int i, j, k, l;
    rc__obs_to_rest(R, t, x, xr);
    if (!rc__ct_shape_sdf(&o->shape, xr, &d, grad ? gr : NULL, hess ? Hr : NULL)) d = HUGE_VAL;
    if (grad) rc__obs_from_rest_vec(R, gr, grad);
    if (hess)
        for (i = 0; i < 3; ++i)
            for (j = 0; j < 3; ++j) {
                double acc = 0.0;
                for (k = 0; k < 3; ++k)
                    for (l = 0; l < 3; ++l) acc += R[3 * i + k] * Hr[3 * k + l] * R[3 * j + l];
                hess[3 * i + j] = acc;
            }
    return d;
}
static RC__UNUSED double rc__sim_obs_sdf(const rc__obstacle *o, const double *x, double *grad, double *hess)
{
    return rc__sim_obs_sdf_pose(o, o->R, o->t, x, grad, hess);
}

/* conservative CCD of the path x0 -> x0 + a dx, a in [0, amax], against the obstacle at its end
   pose (the map to the rest frame is affine, so the path stays a segment) */
static RC__UNUSED double rc__sim_obs_ccd(const rc__obstacle *o, const double *x0, const double *dx, double xi, double amax)
{
    double xr[3], dr[3], z[3] = { 0, 0, 0 };
    rc__obs_to_rest(o->R, o->t, x0, xr);
    rc__obs_to_rest(o->R, z, dx, dr);
    return rc__ct_ccd_point_shape(&o->shape, xr, dr, xi, amax);
}

/* ---------------------------------------------------------------------------------------------
   Vertex terms: external force -f.x, contact barrier kappa * b(d^2) against each obstacle, and
   lagged friction mu * lambda * f0(|T^T (x - anchor)|) (DESIGN §2).
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED double rc__sim_vertex_energy(const rc_sim *s, int i, const double *xi, double *ext, double *con, double *fri, double *mind)
{
    int o;
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    double e_ext = -rc__dot3(s->force + 3 * i, xi), e_con = 0.0, e_fri = 0.0;
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        double d = rc__sim_obs_sdf(ob, xi, NULL, NULL), lam;
        if (d < *mind) *mind = d;
        if (ob->shape.kind == RC__CT_SHAPE_SPHERE) { /* barrier on the triangles (element A) */ }
        else if (d <= xi_) e_con = HUGE_VAL;
        else if (d < xi_ + dh) e_con += s->kappa * rc_barrier(d * d, xi_, dh, NULL, NULL);
        lam = s->fr_lambda[(size_t)o * s->nv + i];
        if (lam > 0.0 && ob->mu > 0.0) {
            const double *T = s->fr_T + ((size_t)o * s->nv + i) * 6, *anc = s->fr_anchor + ((size_t)o * s->nv + i) * 3;
            double dx[3], w = 1.0;
            rc__sub3(dx, xi, anc);
            e_fri += rc__ct_friction(1, &w, T, dx, ob->mu * lam, s->def.friction_eps_v * s->h, NULL, NULL);
        }
    }
    *ext += e_ext; *con += e_con; *fri += e_fri;
    return e_ext + e_con + e_fri;
}

/* gradient (3) and projected Hessian (3x3) of the vertex terms */
static RC__UNUSED void rc__sim_vertex_derivs(const rc_sim *s, int i, const double *xi, double *g, double *H)
{
    int o, a, b;
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    for (a = 0; a < 3; ++a) g[a] = -s->force[3 * i + a];
    memset(H, 0, 9 * sizeof(double));
    for (o = 0; o < s->nobs; ++o) {
        const rc__obstacle *ob = s->obs + o;
        double n[3], Hd[9], d = rc__sim_obs_sdf(ob, xi, n, Hd), lam;
        if (d < xi_ + dh && d > xi_ && ob->shape.kind != RC__CT_SHAPE_SPHERE) {
            /* E = kappa b(d^2): grad = kappa b' 2d n, Hess = kappa (4 d^2 b'' n n^T + 2 b' (n n^T + d Hd)) */
            double db, d2b, Hl[9], work[3 * 9 + 3];
            rc_barrier(d * d, xi_, dh, &db, &d2b);
            for (a = 0; a < 3; ++a) g[a] += s->kappa * db * 2.0 * d * n[a];
            for (a = 0; a < 3; ++a)
                for (b = 0; b < 3; ++b)
                    Hl[3 * a + b] = s->kappa * (4.0 * d * d * d2b * n[a] * n[b] + 2.0 * db * (n[a] * n[b] + d * Hd[3 * a + b]));
            rc__psd_project(3, Hl, RC__PROJECT_CLAMP, work);
            for (a = 0; a < 9; ++a) H[a] += Hl[a];
        }
        lam = s->fr_lambda[(size_t)o * s->nv + i];
        if (lam > 0.0 && ob->mu > 0.0) {
            const double *T = s->fr_T + ((size_t)o * s->nv + i) * 6, *anc = s->fr_anchor + ((size_t)o * s->nv + i) * 3;
            double dx[3], w = 1.0, gf[3], Hf[9];
            rc__sub3(dx, xi, anc);
            rc__ct_friction(1, &w, T, dx, ob->mu * lam, s->def.friction_eps_v * s->h, gf, Hf);   /* Hf is PSD */
            for (a = 0; a < 3; ++a) g[a] += gf[a];
            for (a = 0; a < 9; ++a) H[a] += Hf[a];
        }
    }
}


/* ---------------------------------------------------------------------------------------------
   Triangle elements. Element A couples the 3 own vertices: stretch S_T, inertia + gravity, and in
   adaptive mode the MIPS regulariser C_T; its Hessians are summed and projected once (the mass
   block usually makes it diagonally dominant, which skips the eigen-decomposition). Element B is
   the bending stencil (own + flap vertices + 3 edge angles). Both write their gradient and
   Hessian in the full local layout (15 and 27) whatever the mode; u rows stay zero when with_u = 0.
   a[4] = stretch, inertia, gravity, quality energies.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED void rc__sim_expand(int n, int nfull, double *g, double *H)
{
    int i, j;
    if (n == nfull) return;
    if (H) {
        for (i = n - 1; i >= 0; --i)
            for (j = n - 1; j >= 0; --j) H[i * nfull + j] = H[i * n + j];
        for (i = 0; i < nfull; ++i)
            for (j = 0; j < nfull; ++j) if (i >= n || j >= n) H[i * nfull + j] = 0.0;
    }
    if (g) for (i = n; i < nfull; ++i) g[i] = 0.0;
}

/* Sphere against a cloth triangle (not only its vertices, or a sphere slips between vertices,
   and r-adaptivity would slide the vertices off it): d = dist(c, T) - r with the point-triangle
   distance of the CONTACT section, barrier kappa b(d^2) with the thickness offset. Returns the
   energy; g (9) and H (9x9, unprojected; element A projects its sum) w.r.t. the 3 vertices. */
static RC__UNUSED double rc__sim_tri_sphere(const rc_sim *s, const rc__obstacle *o, const double *xl, double *g, double *H)
{
    double c[3], d2, dist, ds, db, d2b, g12[12], H144[144], lo = HUGE_VAL, emax = 0.0, E, dd[9];
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    int k, i, j, type;
    rc__obs_from_rest_vec(o->R, o->shape.p, c);
    rc__add3(c, c, o->t);
    if (g) memset(g, 0, 9 * sizeof(double));
    if (H) memset(H, 0, 81 * sizeof(double));
    for (k = 0; k < 3; ++k) {
        double e[3], v[3];
        rc__sub3(v, xl + 3 * k, c);
        if (rc__norm3(v) < lo) lo = rc__norm3(v);
        rc__sub3(e, xl + 3 * ((k + 1) % 3), xl + 3 * k);
        if (rc__norm3(e) > emax) emax = rc__norm3(e);
    }
    if (lo - emax - o->shape.r >= xi_ + dh) return 0.0;   /* dist(c, T) >= min vertex distance - longest edge */
    d2 = rc__ct_point_triangle_d2(c, xl, xl + 3, xl + 6, &type, g12, H ? H144 : NULL);
    dist = sqrt(d2);
    ds = dist - o->shape.r;
    if (ds >= xi_ + dh) return 0.0;
    if (ds <= xi_) return HUGE_VAL;
    E = s->kappa * rc_barrier(ds * ds, xi_, dh, &db, &d2b);
    for (i = 0; i < 9; ++i) dd[i] = g12[3 + i] / (2.0 * dist);   /* d(ds)/dx */
    if (g) for (i = 0; i < 9; ++i) g[i] = s->kappa * db * 2.0 * ds * dd[i];
    if (H)
        for (i = 0; i < 9; ++i)
            for (j = 0; j < 9; ++j) {
                double hds = H144[(3 + i) * 12 + 3 + j] / (2.0 * dist) - g12[3 + i] * g12[3 + j] / (4.0 * d2 * dist);
                H[9 * i + j] = s->kappa * (4.0 * ds * ds * d2b * dd[i] * dd[j] + 2.0 * db * (dd[i] * dd[j] + ds * hds));
            }
    return E;
}

static void rc__sim_kernel_A(const rc_sim *s, int t, const double *x, const double *u, int with_u, double *a,
                             double *g, double *H)
{
    const int *tri = s->tris + 3 * t;
    const rc_material *mat = &s->def.material;
    double xl[9], ul[6], xt[9], G[18], gi[15], Hi[225], gm[6], Hm[36], A2;
    int k, c, i, j, n = with_u ? 15 : 9;
    int flags = (g ? RC__SH_GRAD : 0) | (H ? RC__SH_HESS : 0) | (with_u ? 0 : RC__SH_NO_U);
    double rho_tau = mat->density * mat->thickness;
    for (k = 0; k < 3; ++k) {
        for (c = 0; c < 3; ++c) { xl[3 * k + c] = x[3 * tri[k] + c]; xt[3 * k + c] = s->xtil[3 * tri[k] + c]; }
        for (c = 0; c < 6; ++c) G[6 * k + c] = s->xtil_G[6 * tri[k] + c];
        ul[2 * k] = u[2 * tri[k]]; ul[2 * k + 1] = u[2 * tri[k] + 1];
    }
    a[0] = rc__sh_stretch_tri(xl, ul, &s->coef, flags, g, H);
    a[1] = rc__inertia_tri(xl, ul, xt, G, rho_tau, s->h, s->def.gravity, flags, g ? gi : NULL, H ? Hi : NULL);
    A2 = (ul[2] - ul[0]) * (ul[5] - ul[1]) - (ul[4] - ul[0]) * (ul[3] - ul[1]);
    a[2] = -rho_tau * A2 / 6.0 * (rc__dot3(s->def.gravity, xl) + rc__dot3(s->def.gravity, xl + 3) + rc__dot3(s->def.gravity, xl + 6));
    a[1] -= a[2];
    if (g) for (i = 0; i < n; ++i) g[i] += gi[i];
    if (H) for (i = 0; i < n * n; ++i) H[i] += Hi[i];
    a[3] = 0.0;
    if (s->def.adaptive && s->def.quality_weight > 0.0) {
        double w = s->def.quality_weight * rho_tau * s->A0[t] * s->A0[t] / (s->quality_h * s->quality_h);
        a[3] = rc__mips_tri(ul, s->Dinv0 + 4 * t, w, s->def.quality_threshold, with_u ? (flags & (RC__SH_GRAD | RC__SH_HESS)) : 0,
                            gm, Hm);
        if (with_u) {
            if (g) for (i = 0; i < 6; ++i) g[9 + i] += gm[i];
            if (H) for (i = 0; i < 6; ++i) for (j = 0; j < 6; ++j) H[(9 + i) * n + 9 + j] += Hm[6 * i + j];
        }
    }
    a[4] = 0.0;
    for (k = 0; k < s->nobs; ++k)
        if (s->obs[k].shape.kind == RC__CT_SHAPE_SPHERE) {
            double gc[9], Hc[81];
            a[4] += rc__sim_tri_sphere(s, s->obs + k, xl, g ? gc : NULL, H ? Hc : NULL);
            if (g) for (i = 0; i < 9; ++i) g[i] += gc[i];
            if (H) for (i = 0; i < 9; ++i) for (j = 0; j < 9; ++j) H[i * n + j] += Hc[9 * i + j];
        }
    if (H && s->proj >= 0) rc__sh_psd_project(n, H, s->proj);
    rc__sim_expand(n, 15, g, H);
}

static void rc__sim_kernel_B(const rc_sim *s, int t, const double *x, const double *u, const double *phi, int with_u,
                             double *b, double *g, double *H)
{
    const int *tri = s->tris + 3 * t;
    double xl[9], xf[9], ph[3], ul[6];
    int k, c, mask = 0;
    int proj = s->proj == RC__PROJECT_CLAMP ? RC__SH_PROJECT : s->proj == RC__PROJECT_ABS ? RC__SH_PROJECT_ABS : 0;
    int flags = (g ? RC__SH_GRAD : 0) | (H ? RC__SH_HESS | proj : 0) | (with_u ? 0 : RC__SH_NO_U);
    for (k = 0; k < 3; ++k) {
        int f = s->topo.tri_flap[3 * t + k];
        for (c = 0; c < 3; ++c) { xl[3 * k + c] = x[3 * tri[k] + c]; xf[3 * k + c] = f >= 0 ? x[3 * f + c] : 0.0; }
        if (f >= 0) mask |= 1 << k;
        ph[k] = phi[s->topo.tri_edge[3 * t + k]];
        ul[2 * k] = u[2 * tri[k]]; ul[2 * k + 1] = u[2 * tri[k] + 1];
    }
    if (s->phi_only && H) {
        /* only the 3x3 angle block is assembled: project that block, not the whole stencil
           (whole-stencil clamping removes angle curvature that is real once x is fixed) */
        double Hp[9], work[3 * 9 + 3];
        int i, j;
        *b = rc__sh_bend_tri(xl, xf, mask, ph, tri, ul, &s->coef, (flags & ~(RC__SH_PROJECT | RC__SH_PROJECT_ABS)) | RC__SH_NO_U, g, H);
        for (i = 0; i < 3; ++i) for (j = 0; j < 3; ++j) Hp[3 * i + j] = H[(18 + i) * 21 + 18 + j];
        rc__psd_project(3, Hp, RC__PROJECT_CLAMP, work);
        for (i = 0; i < 3; ++i) for (j = 0; j < 3; ++j) H[(18 + i) * 21 + 18 + j] = Hp[3 * i + j];
        rc__sim_expand(21, 27, g, H);
        return;
    }
    *b = rc__sh_bend_tri(xl, xf, mask, ph, tri, ul, &s->coef, flags, g, H);
    rc__sim_expand(with_u ? 27 : 21, 27, g, H);
}

/* threads for the element loops: def.num_threads, or the OpenMP default when 0. Small loops run
   serially (the if clauses): thread start-up costs more than a few hundred elements. */
static RC__UNUSED int rc__sim_threads(const rc_sim *s)
{
#ifdef _OPENMP
    return s->def.num_threads > 0 ? s->def.num_threads : omp_get_max_threads();
#else
    (void)s;
    return 1;
#endif
}

/* ---------------------------------------------------------------------------------------------
   The incremental potential (DESIGN §2)
     E(x, phi, u) = sum_T [ I_T + S_T + B_T + G_T + C_T ] + sum_i [ -f_i.x_i + K_i + D_i ]
   evaluated exactly (never cached); per-triangle terms go to a buffer and are summed in a fixed
   order so results do not depend on the thread count.
   --------------------------------------------------------------------------------------------- */
typedef struct rc__terms {
    double inertia, stretch, bend, gravity, quality, ext, contact, friction, min_dist;
} rc__terms;

static RC__UNUSED double rc__terms_total(const rc__terms *T)
{
    return T->inertia + T->stretch + T->bend + T->gravity + T->quality + T->ext + T->contact + T->friction;
}

static RC__UNUSED double rc__sim_energy(rc_sim *s, const double *x, const double *u, const double *phi, rc__terms *T)
{
    int t, i, nt = s->nt;
    memset(T, 0, sizeof *T);
    T->min_dist = HUGE_VAL;
    if (s->def.adaptive) rc__sim_update_xtil(s, u);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(rc__sim_threads(s)) if (nt >= 512)
#endif
    for (t = 0; t < nt; ++t) {
        double a[5], b;
        rc__sim_kernel_A(s, t, x, u, 0, a, NULL, NULL);
        rc__sim_kernel_B(s, t, x, u, phi, 0, &b, NULL, NULL);
        s->tri_e[6 * t + 0] = a[0]; s->tri_e[6 * t + 1] = a[1]; s->tri_e[6 * t + 2] = a[2];
        s->tri_e[6 * t + 3] = a[3]; s->tri_e[6 * t + 4] = b; s->tri_e[6 * t + 5] = a[4];
    }
    for (t = 0; t < nt; ++t) {
        T->stretch += s->tri_e[6 * t + 0]; T->inertia += s->tri_e[6 * t + 1]; T->gravity += s->tri_e[6 * t + 2];
        T->quality += s->tri_e[6 * t + 3]; T->bend += s->tri_e[6 * t + 4]; T->contact += s->tri_e[6 * t + 5];
    }
    for (i = 0; i < s->nv; ++i) rc__sim_vertex_energy(s, i, x + 3 * i, &T->ext, &T->contact, &T->friction, &T->min_dist);
    return rc__terms_total(T);
}

/* the 27 numbers a triangle's cached Hessians depend on: x of its 6 stencil vertices, u of its
   own 3, phi of its 3 edges (absent flaps read as zero) */
static RC__UNUSED void rc__sim_stencil_state(const rc_sim *s, int t, const double *x, const double *u, const double *phi, double *st)
{
    int k, c;
    for (k = 0; k < 6; ++k) {
        int v = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
        for (c = 0; c < 3; ++c) st[3 * k + c] = v >= 0 ? x[3 * v + c] : 0.0;
    }
    for (k = 0; k < 3; ++k) { st[18 + 2 * k] = u[2 * s->tris[3 * t + k]]; st[19 + 2 * k] = u[2 * s->tris[3 * t + k] + 1]; }
    for (k = 0; k < 3; ++k) st[24 + k] = phi[s->topo.tri_edge[3 * t + k]];
}

/* relative displacement of a stencil since its cache was made (DESIGN §6): vertices by their mean
   incident rest edge length, angles in radians */
static RC__UNUSED double rc__sim_stencil_displacement(const rc_sim *s, int t, const double *now)
{
    const double *old = s->cache_state + (size_t)27 * t;
    double dmax = 0.0;
    int k;
    for (k = 0; k < 6; ++k) {
        int v = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
        double dx, du = 0.0, d;
        if (v < 0) continue;
        dx = fabs(now[3 * k] - old[3 * k]);
        if (fabs(now[3 * k + 1] - old[3 * k + 1]) > dx) dx = fabs(now[3 * k + 1] - old[3 * k + 1]);
        if (fabs(now[3 * k + 2] - old[3 * k + 2]) > dx) dx = fabs(now[3 * k + 2] - old[3 * k + 2]);
        if (k < 3) {
            du = fabs(now[18 + 2 * k] - old[18 + 2 * k]);
            if (fabs(now[19 + 2 * k] - old[19 + 2 * k]) > du) du = fabs(now[19 + 2 * k] - old[19 + 2 * k]);
        }
        d = (dx > du ? dx : du) / s->vert_len0[v];
        if (d > dmax) dmax = d;
    }
    for (k = 0; k < 3; ++k)
        if (fabs(now[24 + k] - old[24 + k]) > dmax) dmax = fabs(now[24 + k] - old[24 + k]);
    return dmax;
}

static RC__UNUSED int rc__cmp_desc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Gradient and PSD-projected Hessian of E over the DOFs of system y at (x, u, phi).
   use_cache (joint system only): reuse a triangle's Hessians when its stencil moved less than
   cache_eps (relative) since they were computed, except the 10% that moved most (DESIGN §6);
   gradients are always exact, so a stale PSD Hessian still gives a descent direction. Element
   derivatives are computed in parallel in chunks and scattered serially in triangle order, so the
   result is bit-identical for any thread count. Returns the active rate (recomputed / all). */
#define RC__CHUNK 1024
static RC__UNUSED double rc__sim_assemble(rc_sim *s, rc__system *y, const double *x, const double *u, const double *phi, int use_cache)
{
    int t, i, nt = s->nt, nactive = 0, with_u = y->with_u, c0;
    double thresh = HUGE_VAL;
    if (s->def.adaptive) rc__sim_update_xtil(s, u);
    memset(y->g, 0, sizeof(double) * (size_t)y->ndof);
    memset(y->val, 0, sizeof(double) * (size_t)y->colptr[y->ndof]);
    use_cache = use_cache && with_u && s->cacheA && s->proj >= 0;
    if (use_cache) {
        double *tmp = s->tri_e;   /* nt*6 scratch, free here */
        for (t = 0; t < nt; ++t) {
            double st[27];
            rc__sim_stencil_state(s, t, x, u, phi, st);
            s->cache_score[t] = s->cache_valid[t] ? rc__sim_stencil_displacement(s, t, st) : HUGE_VAL;
            tmp[t] = s->cache_score[t];
        }
        qsort(tmp, (size_t)nt, sizeof(double), rc__cmp_desc_double);
        thresh = tmp[nt / 10];
    }
    for (c0 = 0; c0 < nt; c0 += RC__CHUNK) {
        int c1 = c0 + RC__CHUNK < nt ? c0 + RC__CHUNK : nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : nactive) num_threads(rc__sim_threads(s)) if (c1 - c0 >= 256)
#endif
        for (t = c0; t < c1; ++t) {
            double a[5], b;
            double *gA, *HA, *gB, *HB;
            int recompute = 1;
            if (use_cache) {
                gA = s->cacheA + (size_t)240 * t; gB = s->cacheB + (size_t)756 * t;
                recompute = !s->cache_valid[t] || s->cache_score[t] >= s->def.cache_eps || s->cache_score[t] > thresh;
            } else {
                gA = s->chunkA + (size_t)240 * (t - c0); gB = s->chunkB + (size_t)756 * (t - c0);
            }
            HA = gA + 15; HB = gB + 27;
            rc__sim_kernel_A(s, t, x, u, with_u, a, gA, (recompute && !s->phi_only) ? HA : NULL);
            rc__sim_kernel_B(s, t, x, u, phi, with_u, &b, gB, recompute ? HB : NULL);
            if (recompute) {
                nactive++;
                if (use_cache) {
                    rc__sim_stencil_state(s, t, x, u, phi, s->cache_state + (size_t)27 * t);
                    s->cache_valid[t] = 1;
                }
            }
        }
        for (t = c0; t < c1; ++t) {
            rc__dofmap m;
            const double *bA = use_cache ? s->cacheA + (size_t)240 * t : s->chunkA + (size_t)240 * (t - c0);
            const double *bB = use_cache ? s->cacheB + (size_t)756 * t : s->chunkB + (size_t)756 * (t - c0);
            rc__map_triA(s, y, t, &m);
            rc__system_scatter(y, &m, bA, bA + 15, y->posA ? y->posA + (size_t)225 * t : NULL);
            rc__map_triB(s, y, t, &m);
            rc__system_scatter(y, &m, bB, bB + 27, y->posB ? y->posB + (size_t)729 * t : NULL);
        }
    }
    for (i = 0; i < s->nv; ++i) {
        double g[3], H[9];
        rc__dofmap m;
        if (s->pinned[i]) continue;
        rc__sim_vertex_derivs(s, i, x + 3 * i, g, H);
        m.n = 0;
        rc__map_x(y, i, &m);
        rc__system_scatter(y, &m, g, H, NULL);
    }
    return (double)nactive / (double)(nt > 0 ? nt : 1);
}


/* ---------------------------------------------------------------------------------------------
   Newton machinery: factor with a regularised retry, CCD and inversion-filter step bounds,
   backtracking Armijo line search on the exact E.
   --------------------------------------------------------------------------------------------- */

/* factor y->val and solve y->d = -H^{-1} g. A projected Hessian is PSD, but it can be singular
   (u DOFs of an unstressed flat region have no stiffness): then retry with a growing diagonal
   shift relative to the mean diagonal. */
static RC__UNUSED rc_status rc__system_direction(rc_sim *s, rc__system *y, rc_step_stats *st)
{
    int i, attempt;
    double diag = 0.0, t0 = rc__now();
    rc_status rs = RC_OK;
    if (y->ndof == 0) return RC_OK;
    for (i = 0; i < y->ndof; ++i) diag += fabs(y->val[y->colptr[i + 1] - 1]);   /* diagonal is last in each column */
    diag /= y->ndof;
    if (!(diag > 0.0)) diag = 1.0;
    for (attempt = 0; attempt < 8; ++attempt) {
        double shift = attempt == 0 ? 0.0 : diag * pow(10.0, -10.0 + 1.5 * attempt);
        rs = shift == 0.0 ? rc_ldlt_factor(y->ldlt, y->val) : rc_ldlt_factor_shifted(y->ldlt, y->val, shift);
        if (rs == RC_OK) break;
        if (rs != RC_ERR_NOT_SPD) break;
    }
    if (st) st->t_factor += rc__now() - t0;
    if (rs != RC_OK) return rc__sim_fail(s, rs, rs == RC_ERR_NOT_SPD ? "Newton system could not be made positive definite" : "factorization failed");
    t0 = rc__now();
    for (i = 0; i < y->ndof; ++i) y->d[i] = -y->g[i];
    rs = rc_ldlt_solve(y->ldlt, y->d);
    if (st) { st->t_solve += rc__now() - t0; st->linear_solves++; }
    if (rs != RC_OK) return rc__sim_fail(s, rs, "linear solve failed");
    if (!rc__all_finite(y->d, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "Newton direction is not finite");
    return RC_OK;
}

/* state = base + alpha * d (x, phi and, for the joint system, u) */
static RC__UNUSED void rc__sim_apply(const rc_sim *s, const rc__system *y, double alpha, const double *bx, const double *bu, const double *bphi,
                          double *x, double *u, double *phi)
{
    int i, c, e;
    for (i = 0; i < s->nv; ++i) {
        for (c = 0; c < 3; ++c) {
            int g = y->dof_x[3 * i + c];
            x[3 * i + c] = bx[3 * i + c] + (g >= 0 ? alpha * y->d[g] : 0.0);
        }
        u[2 * i] = bu[2 * i]; u[2 * i + 1] = bu[2 * i + 1];
        if (y->with_u && y->dof_u[i] >= 0) {
            if (y->nu[i] == 2) { u[2 * i] += alpha * y->d[y->dof_u[i]]; u[2 * i + 1] += alpha * y->d[y->dof_u[i] + 1]; }
            else { u[2 * i] += alpha * y->d[y->dof_u[i]] * s->topo.slide_dir[2 * i]; u[2 * i + 1] += alpha * y->d[y->dof_u[i]] * s->topo.slide_dir[2 * i + 1]; }
        }
    }
    for (e = 0; e < s->ne; ++e) phi[e] = bphi[e] + (y->dof_phi[e] >= 0 ? alpha * y->d[y->dof_phi[e]] / s->edge_len0[e] : 0.0);
}

/* largest displacement of the direction: x (m), u (m), edge-scaled angle l_e phi (m) */
static RC__UNUSED void rc__sim_dir_size(const rc_sim *s, const rc__system *y, double *dx, double *du, double *dphi)
{
    int i, c, e;
    *dx = *du = *dphi = 0.0;
    for (i = 0; i < s->nv; ++i) {
        for (c = 0; c < 3; ++c) if (y->dof_x[3 * i + c] >= 0 && fabs(y->d[y->dof_x[3 * i + c]]) > *dx) *dx = fabs(y->d[y->dof_x[3 * i + c]]);
        if (y->with_u && y->dof_u[i] >= 0)
            for (c = 0; c < y->nu[i]; ++c) if (fabs(y->d[y->dof_u[i] + c]) > *du) *du = fabs(y->d[y->dof_u[i] + c]);
    }
    for (e = 0; e < s->ne; ++e) if (y->dof_phi[e] >= 0 && fabs(y->d[y->dof_phi[e]]) > *dphi) *dphi = fabs(y->d[y->dof_phi[e]]);
}

/* largest alpha in (0, 1] such that the vertex paths base -> base + alpha d stay outside every
   obstacle inflated by the contact thickness (conservative CCD) */
static RC__UNUSED double rc__sim_ccd_bound(const rc_sim *s, const rc__system *y, const double *bx)
{
    double amax = 1.0;
    int i, o, c, t, k;
    if (s->nobs == 0) return 1.0;
    for (o = 0; o < s->nobs; ++o) {
        double ctr[3], zero[3] = { 0, 0, 0 };
        if (s->obs[o].shape.kind != RC__CT_SHAPE_SPHERE) continue;
        rc__obs_from_rest_vec(s->obs[o].R, s->obs[o].shape.p, ctr);
        rc__add3(ctr, ctr, s->obs[o].t);
        for (t = 0; t < s->nt; ++t) {
            double dxk[9], a;
            const int *tri = s->tris + 3 * t;
            int moving = 0;
            for (k = 0; k < 3; ++k)
                for (c = 0; c < 3; ++c) { int g = y->dof_x[3 * tri[k] + c]; dxk[3 * k + c] = g >= 0 ? y->d[g] : 0.0; moving |= g >= 0; }
            if (!moving) continue;
            a = rc__ct_ccd_point_triangle(ctr, bx + 3 * tri[0], bx + 3 * tri[1], bx + 3 * tri[2], zero, dxk, dxk + 3, dxk + 6,
                                          s->obs[o].shape.r + s->def.contact_thickness, amax);
            if (a < amax) amax = a;
        }
    }
    for (i = 0; i < s->nv; ++i) {
        double dx[3];
        if (s->pinned[i]) continue;
        for (c = 0; c < 3; ++c) { int g = y->dof_x[3 * i + c]; dx[c] = g >= 0 ? y->d[g] : 0.0; }
        if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) continue;
        for (o = 0; o < s->nobs; ++o) {
            double a = rc__sim_obs_ccd(s->obs + o, bx + 3 * i, dx, s->def.contact_thickness, amax);
            if (a < amax) amax = a;
        }
    }
    return amax;
}

/* reference-inversion filter (DESIGN §4): the smallest positive root of A_T(u + a du) = 0, x 0.8 */
static RC__UNUSED double rc__sim_inversion_bound(const rc_sim *s, const rc__system *y, const double *bu)
{
    double amax = 1.0;
    int t, k;
    if (!y->with_u) return 1.0;
    for (t = 0; t < s->nt; ++t) {
        double p[3][2], q[3][2], A0, A1, A2, e1[2], e2[2], f1[2], f2[2], r = HUGE_VAL;
        int moving = 0;
        for (k = 0; k < 3; ++k) {
            int v = s->tris[3 * t + k];
            p[k][0] = bu[2 * v]; p[k][1] = bu[2 * v + 1];
            q[k][0] = q[k][1] = 0.0;
            if (y->dof_u[v] >= 0) {
                moving = 1;
                if (y->nu[v] == 2) { q[k][0] = y->d[y->dof_u[v]]; q[k][1] = y->d[y->dof_u[v] + 1]; }
                else { q[k][0] = y->d[y->dof_u[v]] * s->topo.slide_dir[2 * v]; q[k][1] = y->d[y->dof_u[v]] * s->topo.slide_dir[2 * v + 1]; }
            }
        }
        if (!moving) continue;
        /* 2A(a) = (e1 + a f1) x (e2 + a f2) */
        e1[0] = p[1][0] - p[0][0]; e1[1] = p[1][1] - p[0][1]; e2[0] = p[2][0] - p[0][0]; e2[1] = p[2][1] - p[0][1];
        f1[0] = q[1][0] - q[0][0]; f1[1] = q[1][1] - q[0][1]; f2[0] = q[2][0] - q[0][0]; f2[1] = q[2][1] - q[0][1];
        A0 = e1[0] * e2[1] - e1[1] * e2[0];
        A1 = e1[0] * f2[1] - e1[1] * f2[0] + f1[0] * e2[1] - f1[1] * e2[0];
        A2 = f1[0] * f2[1] - f1[1] * f2[0];
        if (fabs(A2) < 1e-300 * (fabs(A0) + 1e-300)) { if (A1 < 0.0) r = -A0 / A1; }
        else {
            double disc = A1 * A1 - 4.0 * A2 * A0;
            if (disc >= 0.0) {
                double sq = sqrt(disc), qq = -0.5 * (A1 + (A1 >= 0 ? sq : -sq)), r1 = qq / A2, r2 = qq != 0.0 ? A0 / qq : HUGE_VAL;
                if (r1 > 0.0 && r1 < r) r = r1;
                if (r2 > 0.0 && r2 < r) r = r2;
            }
        }
        if (0.8 * r < amax) amax = 0.8 * r;
    }
    return amax;
}

/* Backtracking Armijo from alpha_max on the exact E. On success the sim state is the accepted
   iterate and *E the new energy; returns 0 if no decrease was found (stall at round-off). */
static RC__UNUSED int rc__sim_line_search(rc_sim *s, const rc__system *y, double *E, rc__terms *T, double *alpha_out, rc_step_stats *st)
{
    double gTd = 0.0, alpha, E0 = *E, t0 = rc__now();
    int i, ok = 0;
    for (i = 0; i < y->ndof; ++i) gTd += y->g[i] * y->d[i];
    memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->ls_u, s->u, sizeof(double) * 2 * (size_t)s->nv);
    memcpy(s->ls_phi, s->phi, sizeof(double) * (size_t)s->ne);
    *alpha_out = 0.0;
    if (!(gTd < 0.0)) { if (st) st->t_line_search += rc__now() - t0; return 0; }
    alpha = rc__sim_ccd_bound(s, y, s->ls_x);
    if (y->with_u) { double ai = rc__sim_inversion_bound(s, y, s->ls_u); if (ai < alpha) alpha = ai; }
    for (i = 0; i < 60 && alpha > 1e-14; ++i, alpha *= 0.5) {
        rc__terms Tn;
        double En;
        rc__sim_apply(s, y, alpha, s->ls_x, s->ls_u, s->ls_phi, s->x, s->u, s->phi);
        En = rc__sim_energy(s, s->x, s->u, s->phi, &Tn);
        if (rc__isfinite(En) && En <= E0 + 1e-4 * alpha * gTd) { *E = En; *T = Tn; *alpha_out = alpha; ok = 1; break; }
        if (fabs(alpha * gTd) <= 1e-12 * fabs(E0)) break;   /* the model decrease is below round-off */
    }
    if (!ok) {
        memcpy(s->x, s->ls_x, sizeof(double) * 3 * (size_t)s->nv);
        memcpy(s->u, s->ls_u, sizeof(double) * 2 * (size_t)s->nv);
        memcpy(s->phi, s->ls_phi, sizeof(double) * (size_t)s->ne);
    }
    if (st) st->t_line_search += rc__now() - t0;
    return ok;
}


static RC__UNUSED rc_status rc__sim_ensure_systems(rc_sim *s)
{
    rc_status st;
    if (!s->sys_xp.dof_x) {
        st = rc__system_build(s, &s->sys_xp, 0);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the (x, phi) system failed");
        rc__system_build_tables(s, &s->sys_xp);
        st = rc__system_build(s, &s->sys_p, -1);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the angle system failed");
    }
    if (s->def.adaptive && !s->sys_xpu.dof_x) {
        st = rc__system_build(s, &s->sys_xpu, 1);
        if (st != RC_OK) return rc__sim_fail(s, st, "building the (x, phi, u) system failed");
        rc__system_build_tables(s, &s->sys_xpu);
        if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    }
    return RC_OK;
}

/* Newton on (x, phi) with u fixed, until the direction satisfies max|dx| <= tol L h and
   max l_e|dphi| <= tol L h. *conv = 1 on convergence; a cap or a stalled line search leaves
   *conv = 0 and returns RC_OK. */
/* Newton on the director angles alone (x, u fixed), at most 10 iterations, until l_e |dphi| <= bound. */
static RC__UNUSED rc_status rc__sim_polish_phi(rc_sim *s, double bound, double *E, rc__terms *T, rc_step_stats *st)
{
    rc__system *y = &s->sys_p;
    int it;
    rc_status rs = RC_OK;
    if (y->ndof == 0) return RC_OK;
    for (it = 0; it < 10; ++it) {
        double dx, du, dphi, alpha, t0 = rc__now();
        s->phi_only = 1;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        s->phi_only = 0;
        if (st) st->t_assemble += rc__now() - t0;
        rs = rc__system_direction(s, y, st);
        if (rs != RC_OK) return rs;
        rc__sim_dir_size(s, y, &dx, &du, &dphi);
        if (!rc__sim_line_search(s, y, E, T, &alpha, st) || dphi <= bound) break;
    }
    return RC_OK;
}

static RC__UNUSED rc_status rc__sim_newton_xp(rc_sim *s, double tol, int max_iter, double *E, rc__terms *T, int *iters, int *conv, rc_step_stats *st)
{
    rc__system *y = &s->sys_xp;
    double bound = tol * s->L * s->def.dt;
    int it, ok;
    rc_status rs;
    *conv = 0;
    *iters = 0;
    int exact = 0;
    for (it = 0; it < max_iter; ++it) {
        double dx, du, dphi, alpha, t0 = rc__now();
        /* Projected Hessians make Newton linear when the true Hessian has negative curvature
           (compression, buckling; DESIGN §3). After a full step, try the exact Hessian: if the
           LDL^T finds a non-positive pivot, fall back to the projected one for this iteration. */
        int saved_proj = s->proj;
        if (exact && s->exact_newton) s->proj = -1;
        rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
        if (st) st->t_assemble += rc__now() - t0;
        if (!rc__all_finite(y->g, (size_t)y->ndof)) { s->proj = saved_proj; return rc__sim_fail(s, RC_ERR_NON_FINITE, "gradient is not finite"); }
        if (s->proj == -1) {
            rs = rc_ldlt_factor(y->ldlt, y->val);
            s->proj = saved_proj;
            if (rs == RC_OK) {
                int k;
                for (k = 0; k < y->ndof; ++k) y->d[k] = -y->g[k];
                rs = rc_ldlt_solve(y->ldlt, y->d);
                if (st) st->linear_solves++;
            } else {
                t0 = rc__now();
                rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
                if (st) st->t_assemble += rc__now() - t0;
                rs = rc__system_direction(s, y, st);
            }
        } else rs = rc__system_direction(s, y, st);
        s->proj = saved_proj;
        if (rs != RC_OK) return rs;
        rc__sim_dir_size(s, y, &dx, &du, &dphi);
        /* the direction is paid for: take it even when it is already below the bound, else a
           sub-tolerance velocity error is never corrected and carries on from step to step */
        ++*iters;
        ok = rc__sim_line_search(s, y, E, T, &alpha, st);
        if (dx <= bound && dphi <= bound) { *conv = 1; break; }
        if (!ok) break;
        exact = alpha == 1.0;
        if (dx <= bound && dphi > bound) {
            /* x has converged but the director angles have not: with x fixed the angle problem is
               small and well conditioned, so polish it by Newton on phi alone */
            rs = rc__sim_polish_phi(s, bound, E, T, st);
            if (rs != RC_OK) return rs;
        }
    }
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------------
   The scheduled r-ITR solve of one step (DESIGN §4): inner Newton on (x, phi) at a tolerance that
   tightens geometrically from eps0 to eps* with a strict solve every k-th outer iteration, and an
   outer projected-Newton step on (x, phi, u) jointly with cached stencil Hessians.
   --------------------------------------------------------------------------------------------- */
static RC__UNUSED rc_status rc__sim_ritr(rc_sim *s, double *E, rc__terms *T, rc_step_stats *st, int *conv)
{
    const rc_sim_def *d = &s->def;
    rc__system *y = &s->sys_xpu;
    double eps = d->itr_schedule ? d->itr_eps0 : d->tol, last_dx = HUGE_VAL, active_sum = 0.0;
    double bound_x_strict = d->tol * s->L * d->dt, bound_u_strict = d->tol * s->mean_edge * d->dt;
    int j, inner_it, inner_conv, nactive = 0;
    rc_status rs;
    *conv = 0;
    for (j = 1; j <= d->itr_max_outer; ++j) {
        int strict = !d->itr_schedule || (j % d->itr_strict_every) == 0;
        double tol = strict ? d->tol : eps, dx, du, dphi, alpha, t0, gTd = 0.0;
        int k;
        /* inner solve; skipped when the previous joint step already met this tolerance */
        if (strict || last_dx > tol * s->L * d->dt) {
            rs = rc__sim_newton_xp(s, tol, d->max_newton_iters, E, T, &inner_it, &inner_conv, st);
            if (rs != RC_OK) return rs;
            st->inner_iters += inner_it;
        }
        /* outer joint direction */
        t0 = rc__now();
        active_sum += rc__sim_assemble(s, y, s->x, s->u, s->phi, d->itr_cache);
        nactive++;
        st->t_assemble += rc__now() - t0;
        if (!rc__all_finite(y->g, (size_t)y->ndof)) return rc__sim_fail(s, RC_ERR_NON_FINITE, "gradient is not finite");
        rs = rc__system_direction(s, y, st);
        if (rs != RC_OK) return rs;
        for (k = 0; k < y->ndof; ++k) gTd += y->g[k] * y->d[k];
        if (!(gTd < 0.0) && d->itr_cache) {
            /* a stale Hessian can still be singular-shifted into a bad direction: refresh all */
            memset(s->cache_valid, 0, (size_t)s->nt);
            rc__sim_assemble(s, y, s->x, s->u, s->phi, 0);
            rs = rc__system_direction(s, y, st);
            if (rs != RC_OK) return rs;
        }
        rc__sim_dir_size(s, y, &dx, &du, &dphi);
        st->outer_iters = j;
        if (dx <= bound_x_strict && du <= bound_u_strict && dphi <= bound_x_strict) {
            /* small joint step: confirm with a strict inner solve */
            rs = rc__sim_newton_xp(s, d->tol, d->max_newton_iters, E, T, &inner_it, &inner_conv, st);
            if (rs != RC_OK) return rs;
            st->inner_iters += inner_it;
            if (inner_conv && inner_it <= 1) { *conv = 1; break; }
            last_dx = 0.0;
        } else {
            if (!rc__sim_line_search(s, y, E, T, &alpha, st)) {
                /* stalled at round-off: finish with a strict inner solve */
                rs = rc__sim_newton_xp(s, d->tol, d->max_newton_iters, E, T, &inner_it, &inner_conv, st);
                if (rs != RC_OK) return rs;
                st->inner_iters += inner_it;
                break;
            }
            last_dx = alpha * dx;
        }
        eps = eps * d->itr_lambda > d->tol ? eps * d->itr_lambda : d->tol;
    }
    st->active_rate = nactive ? active_sum / nactive : 0.0;
    return RC_OK;
}


/* ---------------------------------------------------------------------------------------------
   One time step: prepare (predictor, pins, barrier stiffness, lagged friction, a feasible start),
   solve (Newton or r-ITR), finish (velocities at material points, reactions, stats). An error
   restores the state exactly as it was and, if allowed, retries as two half steps.
   --------------------------------------------------------------------------------------------- */

/* Barrier stiffness (ours, IPC-like): at the first contact, kappa is set so that the barrier force
   at mid-range distance xi + dhat/2 carries ten times the weight of an average vertex (plus one
   m/s^2 so gravity-free scenes get a scale); it doubles after a step that ends closer than
   xi + dhat/100 to an obstacle (IPC's growth rule). */
static RC__UNUSED void rc__sim_init_kappa(rc_sim *s)
{
    double dm = s->def.contact_thickness + 0.5 * s->def.contact_dhat, db, m_avg = s->total_mass / s->nv;
    rc_barrier(dm * dm, s->def.contact_thickness, s->def.contact_dhat, &db, NULL);
    s->kappa = 10.0 * m_avg * (rc__norm3(s->def.gravity) + 1.0) / (fabs(db) * 2.0 * dm);
}

/* IPC lagged friction: normal force magnitude lambda and tangent basis T at the step start, and
   the anchor: the start point carried by the obstacle's motion over the step, so slip is measured
   relative to the obstacle surface. */
static RC__UNUSED void rc__sim_lag_friction(rc_sim *s)
{
    int o, i;
    double xi_ = s->def.contact_thickness, dh = s->def.contact_dhat;
    for (o = 0; o < s->nobs; ++o) {
        rc__obstacle *ob = s->obs + o;
        for (i = 0; i < s->nv; ++i) {
            size_t k = (size_t)o * s->nv + i;
            double n[3], d, db, xr[3], *T = s->fr_T + 6 * k, t1[3], t2[3], len;
            s->fr_lambda[k] = 0.0;
            if (ob->mu <= 0.0 || s->pinned[i]) continue;
            d = rc__sim_obs_sdf_pose(ob, ob->R_prev, ob->t_prev, s->x0 + 3 * i, n, NULL);
            if (!(d > xi_ && d < xi_ + dh)) continue;
            rc_barrier(d * d, xi_, dh, &db, NULL);
            s->fr_lambda[k] = s->kappa * fabs(db) * 2.0 * d;
            /* tangent basis orthogonal to n, rotated with the obstacle to its end pose */
            if (fabs(n[0]) < 0.9) { double ex[3] = { 1, 0, 0 }; rc__cross3(t1, n, ex); } else { double ey[3] = { 0, 1, 0 }; rc__cross3(t1, n, ey); }
            len = rc__norm3(t1); rc__scale3(t1, 1.0 / len, t1);
            rc__cross3(t2, n, t1);
            rc__obs_to_rest(ob->R_prev, ob->t_prev, s->x0 + 3 * i, xr);
            {
                double a[3], r1[3], r2[3], q1[3], q2[3], z[3] = { 0, 0, 0 };
                rc__obs_to_rest(ob->R_prev, z, t1, r1); rc__obs_to_rest(ob->R_prev, z, t2, r2);
                rc__obs_from_rest_vec(ob->R, r1, q1); rc__obs_from_rest_vec(ob->R, r2, q2);
                rc__obs_from_rest_vec(ob->R, xr, a);
                rc__add3(s->fr_anchor + 3 * k, a, ob->t);
                T[0] = q1[0]; T[2] = q1[1]; T[4] = q1[2];
                T[1] = q2[0]; T[3] = q2[1]; T[5] = q2[2];
            }
        }
    }
}

/* A start inside the contact offset of an obstacle that moved onto the cloth: push those vertices
   out along the obstacle normal to xi + dhat/2 (documented: moving obstacles carry the cloth). */
static RC__UNUSED void rc__sim_resolve_start(rc_sim *s)
{
    int o, i, pass;
    double xi_ = s->def.contact_thickness, target = xi_ + 0.5 * s->def.contact_dhat;
    for (pass = 0; pass < 4; ++pass)
        for (o = 0; o < s->nobs; ++o)
            for (i = 0; i < s->nv; ++i) {
                double n[3], d;
                if (s->pinned[i]) continue;
                d = rc__sim_obs_sdf(s->obs + o, s->x + 3 * i, n, NULL);
                if (d <= xi_ + 1e-3 * s->def.contact_dhat) rc__axpy3(s->x + 3 * i, target - d, n);
            }
    /* spheres act on whole triangles: a sphere that moved into a triangle's interior pushes the
       triangle's free vertices out along the direction from the centre to its closest point */
    for (pass = 0; pass < 8; ++pass) {
        int moved = 0, t, k;
        for (o = 0; o < s->nobs; ++o) {
            double c[3];
            if (s->obs[o].shape.kind != RC__CT_SHAPE_SPHERE) continue;
            rc__obs_from_rest_vec(s->obs[o].R, s->obs[o].shape.p, c);
            rc__add3(c, c, s->obs[o].t);
            for (t = 0; t < s->nt; ++t) {
                const int *tri = s->tris + 3 * t;
                double g[12], d2 = rc__ct_point_triangle_d2(c, s->x + 3 * tri[0], s->x + 3 * tri[1], s->x + 3 * tri[2], NULL, g, NULL);
                double dist = sqrt(d2), ds = dist - s->obs[o].shape.r, dir[3];
                if (ds > xi_ + 1e-3 * s->def.contact_dhat || !(dist > 0.0)) continue;
                /* closest point q = c - g_c / 2 (g_c = d(d2)/dc = 2 (c - q)): push away from c */
                rc__scale3(dir, 1.0 / (2.0 * dist), g);
                for (k = 0; k < 3; ++k)
                    if (!s->pinned[tri[k]]) rc__axpy3(s->x + 3 * tri[k], -(target - ds), dir);
                moved = 1;
            }
        }
        if (!moved) break;
    }
}

static RC__UNUSED void rc__sim_quality_stats(const rc_sim *s, rc_step_stats *st)
{
    int t;
    double mn = HUGE_VAL, mx = 0.0, sum = 0.0, amin = HUGE_VAL;
    for (t = 0; t < s->nt; ++t) {
        const int *tri = s->tris + 3 * t;
        const double *a = s->u + 2 * tri[0], *b = s->u + 2 * tri[1], *c = s->u + 2 * tri[2], *Di = s->Dinv0 + 4 * t;
        double D[4], J[4], det, q, ar;
        D[0] = b[0] - a[0]; D[1] = c[0] - a[0]; D[2] = b[1] - a[1]; D[3] = c[1] - a[1];
        J[0] = D[0] * Di[0] + D[1] * Di[2]; J[1] = D[0] * Di[1] + D[1] * Di[3];
        J[2] = D[2] * Di[0] + D[3] * Di[2]; J[3] = D[2] * Di[1] + D[3] * Di[3];
        det = J[0] * J[3] - J[1] * J[2];
        q = det > 0.0 ? (J[0] * J[0] + J[1] * J[1] + J[2] * J[2] + J[3] * J[3]) / det : HUGE_VAL;   /* MIPS = |J|_F^2 / det J */
        ar = det;   /* A(u)/A(u0) = det J */
        if (q < mn) mn = q;
        if (q > mx) mx = q;
        if (ar < amin) amin = ar;
        sum += q;
    }
    st->min_quality = mn; st->max_quality = mx; st->mean_quality = sum / s->nt; st->min_area_ratio = amin;
}

static RC__UNUSED void rc__sim_set_step_size(rc_sim *s, double h)
{
    s->h = h;
    s->inv_h2 = 1.0 / (h * h);
}

/* the solve of one step of size s->h from the current state, with x^t + h v^t as predictor */
static RC__UNUSED rc_status rc__sim_solve(rc_sim *s, rc_step_stats *st)
{
    rc__terms T;
    double E, alpha = 1.0;
    int i, conv = 0, iters = 0;
    rc_status rs = rc__sim_ensure_systems(s);
    if (rs != RC_OK) return rs;
    memcpy(s->x0, s->x, sizeof(double) * 3 * (size_t)s->nv);
    memcpy(s->u0_step, s->u, sizeof(double) * 2 * (size_t)s->nv);
    memcpy(s->phi0, s->phi, sizeof(double) * (size_t)s->ne);
    for (i = 0; i < 3 * s->nv; ++i) s->xt[i] = s->x[i] + s->h * s->v[i];
    if (s->def.adaptive) rc__sim_recover_gradients(s, s->xt, s->xtil_G);
    rc__sim_update_xtil(s, s->u);   /* fixed mode: x~ once per step; adaptive: again at every new u */
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    if (s->nobs > 0 && s->kappa == 0.0) rc__sim_init_kappa(s);
    rc__sim_lag_friction(s);
    for (i = 0; i < s->nv; ++i)
        if (s->pinned[i]) memcpy(s->x + 3 * i, s->pin_target + 3 * i, 3 * sizeof(double));
    rc__sim_resolve_start(s);
    /* CCD-safe start: free vertices move toward the predictor as far as CCD allows */
    {
        rc__system *y = &s->sys_xp;
        int c;
        memset(y->d, 0, sizeof(double) * (size_t)y->ndof);
        for (i = 0; i < s->nv; ++i)
            for (c = 0; c < 3; ++c) if (y->dof_x[3 * i + c] >= 0) y->d[y->dof_x[3 * i + c]] = s->xt[3 * i + c] - s->x[3 * i + c];
        memcpy(s->ls_x, s->x, sizeof(double) * 3 * (size_t)s->nv);
        alpha = rc__sim_ccd_bound(s, y, s->ls_x);
        rc__sim_apply(s, y, alpha, s->ls_x, s->u, s->phi, s->x, s->u, s->phi);
    }
    E = rc__sim_energy(s, s->x, s->u, s->phi, &T);
    if (E != E) return rc__sim_fail(s, RC_ERR_NON_FINITE, "the energy of the step's start is NaN (a world triangle degenerated, e.g. a pin moved onto a neighbour)");
    if (!rc__isfinite(E)) return rc__sim_fail(s, RC_ERR_INTERSECTING, "the start of the step is inside an obstacle's contact offset");
    st->ip_start = E;
    if (s->def.adaptive) rs = rc__sim_ritr(s, &E, &T, st, &conv);
    else { rs = rc__sim_newton_xp(s, s->def.tol, s->def.max_newton_iters, &E, &T, &iters, &conv, st); st->newton_iters += iters; }
    if (rs != RC_OK) return rs;
    st->newton_iters += st->inner_iters;
    st->converged = conv;
    st->ip_end = E;
    st->e_inertia = T.inertia; st->e_stretch = T.stretch; st->e_bend = T.bend; st->e_gravity = T.gravity;
    st->e_external = T.ext; st->e_contact = T.contact; st->e_friction = T.friction; st->e_quality = T.quality;
    st->min_contact_distance = T.min_dist;
    if (s->nobs > 0 && T.min_dist < s->def.contact_thickness + 1e-2 * s->def.contact_dhat) s->kappa *= 2.0;
    return RC_OK;
}

/* velocities at material points, v_i = (x_i - x^t(u_i)) / h, and pin reactions */
static RC__UNUSED void rc__sim_finish(rc_sim *s, rc_step_stats *st)
{
    int i, c;
    double travel = 0.0, *G0 = s->x0_G;
    if (s->def.adaptive) rc__sim_recover_gradients(s, s->x0, G0);
    for (i = 0; i < s->nv; ++i) {
        double old[3];
        memcpy(old, s->x0 + 3 * i, sizeof old);
        if (s->def.adaptive)
            for (c = 0; c < 3; ++c)
                old[c] += G0[6 * i + 2 * c] * (s->u[2 * i] - s->u0_step[2 * i]) + G0[6 * i + 2 * c + 1] * (s->u[2 * i + 1] - s->u0_step[2 * i + 1]);
        for (c = 0; c < 3; ++c) s->v[3 * i + c] = (s->x[3 * i + c] - old[c]) / s->h;
        {
            double du = hypot(s->u[2 * i] - s->u0_step[2 * i], s->u[2 * i + 1] - s->u0_step[2 * i + 1]);
            if (du > travel) travel = du;
        }
    }
    if (travel > st->ref_travel) st->ref_travel = travel;
    rc__sim_pin_reactions(s);
    for (i = 0; i < s->nobs; ++i) {
        memcpy(s->obs[i].R_prev, s->obs[i].R, sizeof s->obs[i].R);
        memcpy(s->obs[i].t_prev, s->obs[i].t, sizeof s->obs[i].t);
    }
    s->time += s->h;
}


/* f_pin = dE/dx_i at a pinned vertex: the force the pin applies to the cloth (the momentum
   balance M(x - x~)/h^2 = -grad V + f_pin). */
static RC__UNUSED void rc__sim_pin_reactions(rc_sim *s)
{
    int t, i, k, c, any = 0;
    for (i = 0; i < s->nv; ++i) any |= s->pinned[i];
    memset(s->reaction, 0, sizeof(double) * 3 * (size_t)s->nv);
    if (!any) return;
    if (s->def.adaptive) rc__sim_update_xtil(s, s->u);
    for (t = 0; t < s->nt; ++t) {
        double a[5], b, gA[15], gB[27];
        int touches = 0, verts[6];
        for (k = 0; k < 6; ++k) {
            verts[k] = k < 3 ? s->tris[3 * t + k] : s->topo.tri_flap[3 * t + k - 3];
            if (verts[k] >= 0 && s->pinned[verts[k]]) touches = 1;
        }
        if (!touches) continue;
        rc__sim_kernel_A(s, t, s->x, s->u, 0, a, gA, NULL);
        rc__sim_kernel_B(s, t, s->x, s->u, s->phi, 0, &b, gB, NULL);
        for (k = 0; k < 6; ++k)
            if (verts[k] >= 0 && s->pinned[verts[k]])
                for (c = 0; c < 3; ++c) s->reaction[3 * verts[k] + c] += gB[3 * k + c] + (k < 3 ? gA[3 * k + c] : 0.0);
    }
    for (i = 0; i < s->nv; ++i)
        if (s->pinned[i]) {
            double g[3], H[9];
            rc__sim_vertex_derivs(s, i, s->x + 3 * i, g, H);
            for (c = 0; c < 3; ++c) s->reaction[3 * i + c] += g[c];
        }
}

RCLOTHDEF size_t rc_sim_state_size(const rc_sim *s)
{
    if (!s) return 0;
    return (size_t)8 * s->nv + (size_t)s->ne + 2 + (size_t)24 * s->nobs;
}

RCLOTHDEF rc_status rc_sim_save_state(const rc_sim *s, double *b)
{
    int o;
    size_t nv = s ? (size_t)s->nv : 0;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!b) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_save_state: buffer is NULL");
    memcpy(b, s->x, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(b, s->v, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(b, s->u, sizeof(double) * 2 * nv); b += 2 * nv;
    memcpy(b, s->phi, sizeof(double) * (size_t)s->ne); b += s->ne;
    *b++ = s->time;
    *b++ = s->kappa;
    for (o = 0; o < s->nobs; ++o) {
        memcpy(b, s->obs[o].R, 9 * sizeof(double)); memcpy(b + 9, s->obs[o].t, 3 * sizeof(double));
        memcpy(b + 12, s->obs[o].R_prev, 9 * sizeof(double)); memcpy(b + 21, s->obs[o].t_prev, 3 * sizeof(double));
        b += 24;
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_load_state(rc_sim *s, const double *b)
{
    int o;
    size_t nv = s ? (size_t)s->nv : 0;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!b) return rc__sim_fail(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_load_state: buffer is NULL");
    if (!rc__all_finite(b, rc_sim_state_size(s))) return rc__sim_fail(s, RC_ERR_NON_FINITE, "rc_sim_load_state: non-finite state");
    memcpy(s->x, b, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(s->v, b, sizeof(double) * 3 * nv); b += 3 * nv;
    memcpy(s->u, b, sizeof(double) * 2 * nv); b += 2 * nv;
    memcpy(s->phi, b, sizeof(double) * (size_t)s->ne); b += s->ne;
    s->time = *b++;
    s->kappa = *b++;
    for (o = 0; o < s->nobs; ++o) {
        memcpy(s->obs[o].R, b, 9 * sizeof(double)); memcpy(s->obs[o].t, b + 9, 3 * sizeof(double));
        memcpy(s->obs[o].R_prev, b + 12, 9 * sizeof(double)); memcpy(s->obs[o].t_prev, b + 21, 3 * sizeof(double));
        b += 24;
    }
    if (s->cache_valid) memset(s->cache_valid, 0, (size_t)s->nt);
    return RC_OK;
}

static RC__UNUSED void rc__stats_add(rc_step_stats *acc, const rc_step_stats *st, int first)
{
    if (first) { double ip0 = st->ip_start; *acc = *st; acc->ip_start = ip0; return; }
    acc->newton_iters += st->newton_iters; acc->outer_iters += st->outer_iters; acc->inner_iters += st->inner_iters;
    acc->linear_solves += st->linear_solves; acc->substeps += st->substeps;
    acc->converged = acc->converged && st->converged;
    acc->ip_end = st->ip_end;
    acc->e_inertia = st->e_inertia; acc->e_stretch = st->e_stretch; acc->e_bend = st->e_bend; acc->e_gravity = st->e_gravity;
    acc->e_external = st->e_external; acc->e_contact = st->e_contact; acc->e_friction = st->e_friction; acc->e_quality = st->e_quality;
    acc->active_rate = 0.5 * (acc->active_rate + st->active_rate);
    if (st->ref_travel > acc->ref_travel) acc->ref_travel = st->ref_travel;
    acc->min_contact_distance = st->min_contact_distance;
    acc->t_assemble += st->t_assemble; acc->t_factor += st->t_factor; acc->t_solve += st->t_solve; acc->t_line_search += st->t_line_search;
}

/* advance by h; on error restore and, while levels remain, do two half steps with pin targets
   and obstacle translations interpolated to the midpoint (rotations jump to the end pose). */
static RC__UNUSED rc_status rc__sim_advance(rc_sim *s, double h, int levels, double *saved, rc_step_stats *st)
{
    rc_status rs;
    memset(st, 0, sizeof *st);
    st->substeps = 1;
    rc_sim_save_state(s, saved);
    rc__sim_set_step_size(s, h);
    rs = rc__sim_solve(s, st);
    if (rs == RC_OK) { rc__sim_finish(s, st); return RC_OK; }
    rc_sim_load_state(s, saved);
    if (levels <= 0) return rs;
    {
        size_t n3 = (size_t)3 * s->nv;
        double *mid = (double *)rc__alloc(s->user, n3 + (size_t)6 * (s->nobs + 1), sizeof(double));
        double *tend = mid ? mid + n3 : NULL;
        rc_step_stats a, b;
        int i, o;
        if (!mid) return rs;
        memcpy(mid, s->pin_target, sizeof(double) * n3);
        for (o = 0; o < s->nobs; ++o) {
            memcpy(tend + 3 * o, s->obs[o].t, 3 * sizeof(double));
            for (i = 0; i < 3; ++i) s->obs[o].t[i] = 0.5 * (s->obs[o].t_prev[i] + s->obs[o].t[i]);
        }
        for (i = 0; i < s->nv; ++i)
            if (s->pinned[i]) { int c; for (c = 0; c < 3; ++c) s->pin_target[3 * i + c] = 0.5 * (s->x[3 * i + c] + mid[3 * i + c]); }
        rs = rc__sim_advance(s, 0.5 * h, levels - 1, saved, &a);
        memcpy(s->pin_target, mid, sizeof(double) * n3);
        for (o = 0; o < s->nobs; ++o) memcpy(s->obs[o].t, tend + 3 * o, 3 * sizeof(double));
        if (rs == RC_OK) rs = rc__sim_advance(s, 0.5 * h, levels - 1, saved, &b);
        rc__free(s->user, mid);
        if (rs != RC_OK) return rs;
        rc__stats_add(&a, &b, 0);
        *st = a;
    }
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_step(rc_sim *s, rc_step_stats *stats)
{
    rc_step_stats st;
    double *saved, t0 = rc__now();
    rc_status rs;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    s->err[0] = 0;
    saved = (double *)rc__alloc(s->user, 2 * rc_sim_state_size(s), sizeof(double));
    if (!saved) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_step");
    rc_sim_save_state(s, saved);
    rs = rc__sim_advance(s, s->def.dt, s->def.max_substeps, saved + rc_sim_state_size(s), &st);
    if (rs != RC_OK) {
        /* a failed second half step leaves the midpoint: restore the state of the step start */
        rc_sim_load_state(s, saved);
        rc__free(s->user, saved);
        if (stats) memset(stats, 0, sizeof *stats);
        return rs;
    }
    rc__free(s->user, saved);
    rc__sim_quality_stats(s, &st);
    st.t_total = rc__now() - t0;
    s->steps++;
    if (stats) *stats = st;
    return RC_OK;
}


/* Statics (ours): a proximal-point sequence of pseudo time steps with zero velocity. Pseudo step
   k minimises V(x, u) + sum_i m_i/(2 h_k^2)|x_i - x_i^k|^2 (+ C(u) with the regulariser's h =
   def.dt), so V never increases from one pseudo step to the next; h_k starts at def.dt and
   doubles after every converged pseudo step, so late steps are plain (projected) Newton on V.
   Converged when a pseudo step moves no vertex more than tol * L * dt (and no u more than
   tol * l * dt). Velocities are zero afterwards. */
RCLOTHDEF rc_status rc_sim_solve_static(rc_sim *s, rc_step_stats *stats)
{
    rc_step_stats st, acc;
    double *saved, h, t0 = rc__now();
    int k, i, first = 1, conv = 0;
    rc_status rs = RC_OK;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    s->err[0] = 0;
    saved = (double *)rc__alloc(s->user, rc_sim_state_size(s), sizeof(double));
    if (!saved) return rc__sim_fail(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_solve_static");
    rc_sim_save_state(s, saved);
    memset(&acc, 0, sizeof acc);
    h = s->def.dt;
    for (k = 0; k < 400; ++k) {
        double move = 0.0, umove = 0.0;
        memset(s->v, 0, sizeof(double) * 3 * (size_t)s->nv);
        memset(&st, 0, sizeof st);
        rc__sim_set_step_size(s, h);
        rs = rc__sim_solve(s, &st);
        if (rs != RC_OK) break;
        for (i = 0; i < 3 * s->nv; ++i) if (fabs(s->x[i] - s->x0[i]) > move) move = fabs(s->x[i] - s->x0[i]);
        for (i = 0; i < 2 * s->nv; ++i) if (fabs(s->u[i] - s->u0_step[i]) > umove) umove = fabs(s->u[i] - s->u0_step[i]);
        for (i = 0; i < s->nobs; ++i) {
            memcpy(s->obs[i].R_prev, s->obs[i].R, sizeof s->obs[i].R);
            memcpy(s->obs[i].t_prev, s->obs[i].t, sizeof s->obs[i].t);
        }
        rc__stats_add(&acc, &st, first);
        first = 0;
        if (move <= s->def.tol * s->L * s->def.dt && umove <= s->def.tol * s->mean_edge * s->def.dt && st.converged) { conv = 1; break; }
        if (st.converged && h < 1e6 * s->def.dt) h *= 2.0;
        else if (!st.converged && h > s->def.dt) h *= 0.5;
    }
    memset(s->v, 0, sizeof(double) * 3 * (size_t)s->nv);
    rc__sim_set_step_size(s, s->def.dt);
    if (rs != RC_OK) {
        rc_sim_load_state(s, saved);
        rc__free(s->user, saved);
        if (stats) memset(stats, 0, sizeof *stats);
        return rs;
    }
    rc__free(s->user, saved);
    rc__sim_pin_reactions(s);
    acc.converged = conv;
    acc.outer_iters = acc.outer_iters;
    rc__sim_quality_stats(s, &acc);
    acc.t_total = rc__now() - t0;
    if (stats) *stats = acc;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_potential(const rc_sim *s, double *stretch, double *bend, double *gravity)
{
    int t;
    double S = 0.0, B = 0.0, G = 0.0;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    for (t = 0; t < s->nt; ++t) {
        double a[5], b;
        rc__sim_kernel_A(s, t, s->x, s->u, 0, a, NULL, NULL);
        rc__sim_kernel_B(s, t, s->x, s->u, s->phi, 0, &b, NULL, NULL);
        S += a[0]; G += a[2]; B += b;
    }
    if (stretch) *stretch = S;
    if (bend) *bend = B;
    if (gravity) *gravity = G;
    return RC_OK;
}

RCLOTHDEF rc_status rc_sim_write_obj(const rc_sim *s, const char *path)
{
    rc_status st;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!path) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_write_obj: path is NULL");
    st = rc_mesh_write_obj(path, s->nv, s->x, s->u, s->nt, s->tris);
    if (st != RC_OK) rc__sim_fail_c(s, st, "rc_sim_write_obj: could not write the file");
    return st;
}

RCLOTHDEF rc_status rc_sim_write_reference_obj(const rc_sim *s, const char *path)
{
    rc_status st;
    double *p;
    int i;
    if (!s) return RC_ERR_INVALID_ARGUMENT;
    if (!path) return rc__sim_fail_c(s, RC_ERR_INVALID_ARGUMENT, "rc_sim_write_reference_obj: path is NULL");
    p = (double *)rc__alloc(s->user, (size_t)3 * s->nv, sizeof(double));
    if (!p) return rc__sim_fail_c(s, RC_ERR_OUT_OF_MEMORY, "out of memory in rc_sim_write_reference_obj");
    for (i = 0; i < s->nv; ++i) { p[3 * i] = s->u[2 * i]; p[3 * i + 1] = s->u[2 * i + 1]; p[3 * i + 2] = 0.0; }
    st = rc_mesh_write_obj(path, s->nv, p, s->u, s->nt, s->tris);
    rc__free(s->user, p);
    if (st != RC_OK) rc__sim_fail_c(s, st, "rc_sim_write_reference_obj: could not write the file");
    return st;
}

#ifdef __cplusplus
}
#endif
