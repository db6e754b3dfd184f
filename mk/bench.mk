# SIM benchmarks (issues 4, 5): make bench-sim [BENCH_SIM_ARGS="scaling adaptive ablation energy --threads 1"]
# build/bench_sim SECTION... runs only the named sections (see bench/bench_sim.c).
.PHONY: bench-sim
BENCH_SIM_ARGS ?=
$(BUILD)/bench_sim: bench/bench_sim.c bench/bench_scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 $(NATIVE) -std=c99 -Wall -Wextra -pedantic -fopenmp -o $@ bench/bench_sim.c -lm

bench-sim: $(BUILD)/bench_sim
	$(BUILD)/bench_sim $(BENCH_SIM_ARGS)
