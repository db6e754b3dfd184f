# rcloth: make test | make demo | make asan | make bench | make bench-peers
CC      ?= cc
CXX     ?= c++
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g -std=c99 -Wall -Wextra -pedantic
LDLIBS  = -lm
STRICT  = -std=c99 -Wall -Wextra -pedantic -Werror
SAN     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# OpenMP is optional (the library never requires it): OMP is -fopenmp where $(CC) can compile and
# link it, else empty (a clang without libomp, Apple's clang) and everything builds serial; the
# same for $(CXX) in CXX_OMP. Set OMP= to build without it.
ifeq ($(origin OMP), undefined)
OMP := $(shell echo 'int main(void) { return 0; }' | $(CC) -fopenmp -x c -o /dev/null - 2>/dev/null && echo -fopenmp)
endif
ifeq ($(origin CXX_OMP), undefined)
CXX_OMP := $(shell echo 'int main() { return 0; }' | $(CXX) -fopenmp -x c++ -o /dev/null - 2>/dev/null && echo -fopenmp)
endif

# NATIVE=-march=native builds the demo CLI and the simulator benchmarks for this machine's
# instruction set: since session 9 the portable build already runs the sparse LDL^T's AVX2 + FMA
# tile on a CPU that has it (chosen at run time), so NATIVE adds the AVX-512 tile where there is one
# and whatever else the compiler vectorises. Off by default; the scene figures in the README are
# for the portable build.
# make test-sparse-native runs the SIMD kernels' tests (CI does).
NATIVE ?=

TEST_SRC  := $(wildcard tests/*.c tests/*.h)
BUILD     = build

.PHONY: all test check-compile asan demo bench bench-peers clean

all: rcloth.h $(BUILD)/run_tests

$(BUILD):
	@mkdir -p $(BUILD)

$(BUILD)/run_tests: rcloth.h $(TEST_SRC) | $(BUILD)
	$(CC) $(CFLAGS) $(OMP) -o $@ tests/main.c $(LDLIBS)

$(BUILD)/run_tests_asan: rcloth.h $(TEST_SRC) | $(BUILD)
	$(CC) $(CFLAGS) $(SAN) -o $@ tests/main.c $(LDLIBS)

# the header must compile cleanly as C99 and C++, with and without OpenMP, static, in two TUs, with
# allocator macros that ignore the user pointer; every sim allocation must carry def.alloc_user
check-compile: rcloth.h | $(BUILD)
	@echo "compile checks: $(CC) (and clang if present) C99 (-O0, -O2, -O3, -O2 -ffast-math with NaN input), C++, OpenMP, RCLOTH_STATIC, two translation units, allocator overrides"
	@$(CC) $(STRICT) -o $(BUILD)/cc_c99 tests/compile/tu_impl.c tests/compile/tu_other.c -lm && $(BUILD)/cc_c99
	@$(CC) $(STRICT) -O2 -o $(BUILD)/cc_o2 tests/compile/tu_impl.c tests/compile/tu_other.c -lm && $(BUILD)/cc_o2
	@$(CC) $(STRICT) -O3 -o $(BUILD)/cc_o3 tests/compile/tu_impl.c tests/compile/tu_other.c -lm && $(BUILD)/cc_o3
	@$(CC) $(STRICT) -O2 -ffast-math -o $(BUILD)/cc_fastmath tests/compile/tu_fastmath.c -lm && $(BUILD)/cc_fastmath
	@$(CC) $(STRICT) $(OMP) -o $(BUILD)/cc_omp tests/compile/tu_impl.c tests/compile/tu_other.c -lm && $(BUILD)/cc_omp
	@$(CC) $(STRICT) -o $(BUILD)/cc_static tests/compile/tu_static.c -lm && $(BUILD)/cc_static
	@$(CC) $(STRICT) -o $(BUILD)/cc_alloc_ignore tests/compile/tu_alloc_ignore.c -lm && $(BUILD)/cc_alloc_ignore
	@$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ -o $(BUILD)/cc_alloc_ignore_cxx tests/compile/tu_alloc_ignore.c -lm && $(BUILD)/cc_alloc_ignore_cxx
	@$(CC) $(STRICT) -o $(BUILD)/cc_alloc_user tests/compile/tu_alloc_user.c -lm && $(BUILD)/cc_alloc_user
	@if command -v clang >/dev/null 2>&1; then clang $(STRICT) -o $(BUILD)/cc_clang tests/compile/tu_impl.c tests/compile/tu_other.c -lm && $(BUILD)/cc_clang; fi
	@$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ -o $(BUILD)/cc_cxx tests/compile/tu_impl.c -x c++ tests/compile/tu_other.c -lm && $(BUILD)/cc_cxx
	@$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror $(CXX_OMP) -x c++ -o $(BUILD)/cc_cxx_omp tests/compile/tu_impl.c -x c++ tests/compile/tu_other.c -lm && $(BUILD)/cc_cxx_omp
	@# the benchmarks use the header's internals, so they are compiled here too (session 57 changed
	@# rc__inertia_tri's arguments and bench_energy.c stopped compiling unnoticed until session 60)
	@for f in bench/*.c; do $(CC) $(STRICT) -fsyntax-only $$f || exit 1; done

test: check-compile $(BUILD)/run_tests
	@$(BUILD)/run_tests

asan: $(BUILD)/run_tests_asan
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/run_tests_asan

# every benchmark (figures and side-by-side ratios; minutes, not part of make test)
bench: bench-sparse bench-energy bench-sim

clean:
	rm -rf $(BUILD) out

# per-area rules (benchmarks, examples) live in mk/*.mk
-include mk/*.mk
