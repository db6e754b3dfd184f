/* examples/common/scenes.h - the example scenes of rcloth (DESIGN.md §9), shared by the CLI
   (examples/rcloth.c), the demo pipeline (examples/common/demo.c), benchmarks and tests.

   A scene is a builder that fills an rc_sim_def (mesh, material, time step), creates the sim, adds
   obstacles and pins, and an optional animation hook that moves pins / obstacles before each step.
   Every scene works in fixed (def.adaptive = 0) and r-adaptive (def.adaptive = 1) mode; a scene
   lists the variants ("adaptive", "fixed", ...) that a side-by-side comparison runs.

   Use:
       const sc_info *info = sc_find_scene("sphere_drape");
       sc_params p = sc_default_params();   p.verts = 900;  p.adaptive = 1;
       sc_scene sc;
       if (sc_create(&sc, info, &p) == RC_OK) {
           for (k = 0; k < 100; k++) sc_step(&sc, &stats);   (pins/obstacles animated, time kept)
           sc_destroy(&sc);
       }
   Depends on rcloth.h only (declarations; link or include the implementation once elsewhere). */
#ifndef RCLOTH_SCENES_H
#define RCLOTH_SCENES_H
#include "../../rcloth.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SC_MAX_OBSTACLES = 8, SC_MAX_VARIANTS = 3 };
enum { SC_PLANE = 0, SC_SPHERE = 1, SC_BOX = 2, SC_CAPSULE = 3, SC_MESH = 4 };

/* An obstacle as added to the sim (kept for drawing): its shape at rest and its current offset. */
typedef struct sc_obstacle {
    int kind;            /* SC_PLANE, SC_SPHERE, SC_BOX, SC_CAPSULE, SC_MESH */
    int id;              /* the sim's obstacle id */
    double p[3];         /* plane point / sphere centre / box centre / capsule end a */
    double q[3];         /* plane normal / box half extents / capsule end b (sphere: unused) */
    double radius;       /* sphere, capsule; SC_MESH > 0: the mesh tessellates the capsule p-q of this
                            radius (the dress legs; p, q follow the current pose) */
    double offset[3];    /* current translation (moving obstacles; zero otherwise) */
    /* SC_MESH (a kinematic, closed triangle mesh): current world vertices, triangles
       counter-clockwise seen from outside */
    int mesh_nv, mesh_nt;
    double *mesh_x;      /* 3*mesh_nv */
    int *mesh_tris;      /* 3*mesh_nt */
    int mesh_owned;      /* 1: sc_destroy frees mesh_x / mesh_tris; 0: they belong to the dress rig */
} sc_obstacle;

/* What the caller may choose; 0 (or a negative value where noted) keeps the scene's default. */
typedef struct sc_params {
    int verts;              /* target vertex count (the generators land within a few percent) */
    double dt;              /* time step, s */
    int threads;            /* OpenMP threads for the sim (default 1; 0 = runtime default) */
    int adaptive;           /* 0 fixed mesh, 1 r-adaptive */
    double quality_weight;  /* < 0: library default (1) */
    double travel_weight;   /* < 0: library default (1) */
    double thickness;       /* cloth thickness, m (cube_drape's thickness option; any scene) */
    double tol;             /* Newton / r-ITR tolerance (def.tol, 1/s) */
    double t0;              /* animated scenes with a timeline (dress): start time, s; the rig
                               starts in its pose at t0 and the flat cloth is placed on it */
} sc_params;

typedef struct sc_scene sc_scene;

/* One run of a side-by-side comparison. */
typedef struct sc_variant {
    const char *label;      /* caption and output sub-folder: "adaptive", "fixed", ... */
    int adaptive;
    double quality_weight;  /* < 0: default */
} sc_variant;

typedef struct sc_info {
    const char *name;
    const char *summary;    /* one line for --help */
    int default_verts;
    int default_frames;
    double default_dt;
    double frame_time;      /* simulated seconds per output frame */
    double view_dir[3];     /* camera direction (eye towards scene) for pictures */
    int nvariants;
    sc_variant variants[SC_MAX_VARIANTS];
    rc_status (*build)(sc_scene *sc, const sc_params *p);
    void (*animate)(sc_scene *sc, double t_next);   /* set pins / obstacle poses for time t_next (may be NULL) */
} sc_info;

struct sc_scene {
    const sc_info *info;
    rc_sim *sim;
    rc_sim_def def;          /* as given to rc_sim_create (def.mesh points into mesh) */
    rc_mesh mesh;            /* the generated mesh: initial reference u0 and world positions */
    int nobs;
    sc_obstacle obs[SC_MAX_OBSTACLES];
    int npins;
    int *pin_vertex;         /* npins vertices */
    double *pin_rest;        /* 3*npins initial targets (animate moves them from here) */
    double time;             /* simulated time at the end of the last step, s */
    struct sc_rig *rig;      /* the dress scene's rig (NULL in other scenes) */
    int steps;               /* steps taken */
    /* garments (skirt_panels): seam stitches, side_a[i] sewn to side_b[i] (owned) */
    int nseam;
    int *seam_a, *seam_b;
};

int            sc_num_scenes(void);
const sc_info *sc_scene_at(int i);
const sc_info *sc_find_scene(const char *name);   /* NULL if unknown */
sc_params      sc_default_params(void);

/* Build the scene; on failure everything is freed and sc is zeroed (the sim's message, if any, is
   lost: the status says what failed). */
rc_status sc_create(sc_scene *sc, const sc_info *info, const sc_params *p);
/* Animate pins/obstacles to time + dt, then rc_sim_step. */
rc_status sc_step(sc_scene *sc, rc_step_stats *st);
void      sc_destroy(sc_scene *sc);

/* The dress scene's procedural rig (issue 6): a closed body mesh (hips and torso, a surface of
   revolution with elliptic sections, moved rigidly: walk, bob, yaw) and two legs (closed meshes
   tessellating capsules) hinged at the hips (walk swing, then a fast kick of the right leg). Pose of every part at time t:
   world = R x_rest + t_ for the rest shapes the scene adds. Timeline (s): 0-0.5 stand, 0.5-1.3
   walk forward (+x), 1.45-1.7 kick 0 -> 90 degrees forward (smoothstep, peak 9.4 rad/s), 1.7-1.9
   hold, 1.9-2.4 lower; 2.4 s = 60 frames of 0.04 s. */
enum { SC_DRESS_LEFT = 0, SC_DRESS_RIGHT = 1 };
typedef struct sc_rig_pose {
    double body_R[9], body_t[3];       /* body mesh and the waist pins */
    double leg_R[2][9], leg_t[2][3];   /* legs: world = leg_R x + leg_t for x in the body frame at rest */
    double leg_angle[2];               /* forward swing about the hip joint, radians */
} sc_rig_pose;
void sc_dress_pose(double t, sc_rig_pose *pose);
/* World endpoints of a capsule obstacle in its current pose. */
void sc_capsule_world(const sc_obstacle *o, double a[3], double b[3]);

/* The vertex of the mesh whose reference uv is nearest to (u, v). */
int sc_nearest_vertex(const rc_mesh *m, double u, double v);
/* The fold scene's strip (also built by the self-contact tests and bench): 0.6 x 0.12 m, nx x ny
   grid, centred on the origin in x-y; the left half lies flat 2 mm above z = 0, the right half
   stands up from the middle line leaning 10 degrees back over the left half. */
rc_status sc_fold_mesh(rc_mesh *m, int nx, int ny);
/* That strip as a bare sim on the ground plane z = 0 (default material, bending_scale 0.2, dt
   0.01, 1 thread): what the fold tests and bench/bench_self.c run. */
rc_status sc_fold_create(int nx, int ny, int self_contact, int adaptive, rc_sim **out);

#ifdef __cplusplus
}
#endif
#endif /* RCLOTH_SCENES_H */
