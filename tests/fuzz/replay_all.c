/* tests/fuzz/replay_all.c - every fuzz harness in one replay program (make fuzz-replay).
   Why one program: each harness includes the whole implementation, and its ASan+UBSan compile
   is most of what replaying the corpus costs (three programs: ~160 s of CI's CPU, one: a third).
   Each harness is included with its entry point renamed; the libFuzzer builds (make fuzz) still
   build one program per harness, as libFuzzer needs.
   Usage: replay_all HARNESS PATH... [HARNESS PATH...]: each PATH (a file, or a directory of
   files) is replayed through the HARNESS named before it (fuzz_mesh, fuzz_obj, fuzz_sparse). */
#define RC_FUZZ_NO_MAIN

#define LLVMFuzzerTestOneInput rc_fuzz_mesh_input
#include "fuzz_mesh.c"
#undef LLVMFuzzerTestOneInput

#define LLVMFuzzerTestOneInput rc_fuzz_obj_input
#include "fuzz_obj.c"
#undef LLVMFuzzerTestOneInput

#define LLVMFuzzerTestOneInput rc_fuzz_sparse_input
#include "fuzz_sparse.c"
#undef LLVMFuzzerTestOneInput

static const struct { const char *name; rc_fuzz_fn fn; } rc_fuzz_harnesses[] = {
    { "fuzz_mesh", rc_fuzz_mesh_input },
    { "fuzz_obj", rc_fuzz_obj_input },
    { "fuzz_sparse", rc_fuzz_sparse_input },
};

#define RC_FUZZ_NUM_HARNESSES ((int)(sizeof rc_fuzz_harnesses / sizeof rc_fuzz_harnesses[0]))

/* the index of the harness called name, or -1 */
static int rc_fuzz_find(const char *name)
{
    int h;
    for (h = 0; h < RC_FUZZ_NUM_HARNESSES; ++h)
        if (strcmp(name, rc_fuzz_harnesses[h].name) == 0) return h;
    return -1;
}

int main(int argc, char **argv)
{
    int i = 1, bad = 0;
    while (i < argc) {
        int h = rc_fuzz_find(argv[i]), first;
        if (h < 0) {
            fprintf(stderr, "replay_all: '%s' is not a harness (fuzz_mesh, fuzz_obj, fuzz_sparse)\n", argv[i]);
            return 2;
        }
        first = ++i;
        while (i < argc && rc_fuzz_find(argv[i]) < 0) ++i;
        if (i == first) { fprintf(stderr, "replay_all: no input for %s\n", rc_fuzz_harnesses[h].name); return 2; }
        bad += rc_fuzz_replay(rc_fuzz_harnesses[h].name, i - first, argv + first, rc_fuzz_harnesses[h].fn);
    }
    return bad ? 1 : 0;
}
