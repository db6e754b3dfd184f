# ENERGY section: kernel benchmark (ns per stencil; runs in a few seconds)
.PHONY: bench-energy
bench-energy: rcloth.h bench/bench_energy.c | $(BUILD)
	$(CC) -O2 -std=c99 -Wall -Wextra -o $(BUILD)/bench_energy bench/bench_energy.c -lm
	$(BUILD)/bench_energy
