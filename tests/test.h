/* tests/test.h - the tiny test harness shared by every test file.
   A test is a void function; it fails if any CHECK in it fails. Suites are functions that RUN
   their tests; tests/main.c calls every suite and prints "N passed, N failed" last. */
#ifndef RCLOTH_TEST_H
#define RCLOTH_TEST_H
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
/* The runner is one translation unit (tests/main.c includes every test_*.c), compiled with the
   implementation, so tests may call the private rc__ helpers directly. */
#define RCLOTH_IMPLEMENTATION
#include "../rcloth.h"

static int t_current_failures;
static void t_run(const char *name, void (*fn)(void));
static RC__UNUSED double t_rand(void);            /* uniform in [0, 1), deterministic */
static void t_seed(unsigned long s);
static RC__UNUSED double t_relerr(double a, double b);  /* |a-b| / max(|a|, |b|, tiny) */

/* T_SANITIZED: the build runs under AddressSanitizer (CI's sanitizer suite, `make asan`). That
   build is there for memory errors and undefined behaviour, and runs 3-6 times slower, so a few
   long scenes run a shorter version of themselves there (each says what it leaves to the normal
   build, which checks everything). */
#if defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif

#define RUN(fn) t_run(#fn, fn)
#define CHECK(c) do { if (!(c)) { t_current_failures++; \
    printf("    FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECKF(c, ...) do { if (!(c)) { t_current_failures++; \
    printf("    FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); printf(__VA_ARGS__); printf("\n"); } } while (0)
#define CHECK_NEAR(a, b, tol) do { double t__a = (a), t__b = (b); if (!(fabs(t__a - t__b) <= (tol))) { \
    t_current_failures++; printf("    FAIL %s:%d: |%s - %s| = |%.12g - %.12g| > %g\n", __FILE__, __LINE__, \
    #a, #b, t__a, t__b, (double)(tol)); } } while (0)
#define CHECK_OK(expr) do { rc_status t__s = (expr); if (t__s != RC_OK) { t_current_failures++; \
    printf("    FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #expr, rc_status_string(t__s)); } } while (0)

#endif
