/* tests/main.c - runs every suite. Usage: build/run_tests [substring] [--shard K/N]
   substring: only tests whose name contains it; --shard K/N: only the tests whose position in the
   full list (0, 1, 2, ...) is K modulo N, so N processes run the suite between them (.ci/run
   spreads the sanitizer suite over both cores this way). */
#include "test.h"

static int t_passed, t_failed;
static const char *t_filter;
static int t_index, t_shard = 0, t_shards = 1;
static unsigned long t_state = 88172645463325252UL;

static void t_seed(unsigned long s) { t_state = s ? s : 88172645463325252UL; }
static double t_rand(void)
{
    t_state ^= t_state << 13; t_state ^= t_state >> 7; t_state ^= t_state << 17;
    return (double)(t_state >> 11) * (1.0 / 9007199254740992.0);
}
static double t_relerr(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < 1e-300) m = 1e-300;
    return fabs(a - b) / m;
}
static void t_run(const char *name, void (*fn)(void))
{
    int index = t_index++;
    if (index % t_shards != t_shard) return;
    if (t_filter && !strstr(name, t_filter)) return;
    t_current_failures = 0;
    t_seed(12345);
    fn();
    if (t_current_failures) { t_failed++; printf("FAIL %s\n", name); }
    else { t_passed++; printf("ok   %s\n", name); }
    fflush(stdout);
}

/* RC_TESTS_SPARSE_ONLY: the sparse suite alone (CI builds it per SIMD kernel variant; compiling
   every suite three more times cost CI about two minutes) */
#include "test_sparse.c"
#ifndef RC_TESTS_SPARSE_ONLY
#include "test_base.c"
#include "test_mesh.c"
#include "test_energy.c"
#include "test_contact.c"
#include "test_sim.c"
#include "test_meshfric.c"
#include "test_adaptive.c"
#include "test_io.c"
#include "test_pictures.c"
#include "test_reliability.c"
#include "test_garment.c"
#endif

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--shard") == 0) {
            char end = 0;
            if (i + 1 >= argc || sscanf(argv[i + 1], "%d/%d%c", &t_shard, &t_shards, &end) != 2 || t_shards < 1 || t_shard < 0 ||
                t_shard >= t_shards) {
                fprintf(stderr, "usage: %s [substring] [--shard K/N]  (0 <= K < N)\n", argv[0]);
                return 2;
            }
            ++i;
        } else {
            t_filter = argv[i];
        }
    }
    suite_sparse();
#ifndef RC_TESTS_SPARSE_ONLY
    suite_base();
    suite_mesh();
    suite_energy();
    suite_contact();
    suite_sim();
    suite_meshfric();
    suite_adaptive();
    suite_io();
    suite_pictures();
    suite_reliability();
    suite_garment();
#endif
    printf("%d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}
