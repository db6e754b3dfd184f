# SPARSE section: benchmarks and a native-SIMD run of its tests.
#   make bench-sparse        our LDL^T on cloth-like matrices (5k..150k unknowns)
#   make bench-sparse-omp    the same built with OpenMP: 1 and 2 threads side by side (wall times)
#   make bench-peers         the same matrices side by side with CHOLMOD and Eigen (installs them with apt)
#   make test-sparse-native  the sparse tests built with -O3 -march=native (runs the AVX2 kernels),
#                            with -DRCLOTH_NO_CPU_DISPATCH (the SSE2 kernels, which the default x86-64
#                            build replaces by the AVX2 one on a CPU that has it), and with
#                            -DRCLOTH_NO_SIMD (the scalar kernels)
SPARSE_BENCH_OPT ?= -O3 -march=native
.PHONY: bench-sparse bench-sparse-omp bench-peers test-sparse-native


$(BUILD)/bench_sparse: bench/bench_sparse.c rcloth.h | $(BUILD)
	$(CC) $(SPARSE_BENCH_OPT) -std=c99 -Wall -Wextra -o $@ bench/bench_sparse.c -lm

# the same with OpenMP: each matrix also on 2 threads, ratios printed (wall times)
$(BUILD)/bench_sparse_omp: bench/bench_sparse.c rcloth.h | $(BUILD)
	$(CC) $(SPARSE_BENCH_OPT) $(OMP) -std=c99 -Wall -Wextra -o $@ bench/bench_sparse.c -lm

bench-sparse-omp: $(BUILD)/bench_sparse_omp
	$(BUILD)/bench_sparse_omp

bench-sparse: $(BUILD)/bench_sparse
	@$(BUILD)/bench_sparse

test-sparse-native: rcloth.h $(TEST_SRC) | $(BUILD)
	$(CC) $(SPARSE_BENCH_OPT) -DRC_TESTS_SPARSE_ONLY -g -std=c99 -Wall -Wextra -o $(BUILD)/run_tests_native tests/main.c -lm
	@$(BUILD)/run_tests_native sparse
	$(CC) -O2 -DRC_TESTS_SPARSE_ONLY -DRCLOTH_NO_CPU_DISPATCH -g -std=c99 -Wall -Wextra -o $(BUILD)/run_tests_sse2 tests/main.c -lm
	@$(BUILD)/run_tests_sse2 sparse
	$(CC) -O2 -DRC_TESTS_SPARSE_ONLY -DRCLOTH_NO_SIMD -g -std=c99 -Wall -Wextra -o $(BUILD)/run_tests_scalar tests/main.c -lm
	@$(BUILD)/run_tests_scalar sparse

# peers: CHOLMOD (default: supernodal, BLAS = OpenBLAS, single thread) and Eigen SimplicialLDLT,
# linked in this benchmark only.
SPARSE_PEER_PKGS = libsuitesparse-dev libeigen3-dev libopenblas0-pthread
$(BUILD)/bench_peers: bench/peers/peers.cpp bench/bench_sparse.c rcloth.h | $(BUILD)
	@dpkg -s $(SPARSE_PEER_PKGS) >/dev/null 2>&1 || { apt-get update && apt-get install -y $(SPARSE_PEER_PKGS); }
	$(CXX) $(SPARSE_BENCH_OPT) -std=c++14 -DNDEBUG -I/usr/include/eigen3 -I/usr/include/suitesparse \
	  -o $@ bench/peers/peers.cpp -lcholmod -lamd -lm

bench-peers: $(BUILD)/bench_peers
	@OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BUILD)/bench_peers
