# Cloth self-contact benchmark (issue 6): make bench-self [BENCH_SELF_ARGS="overhead fold --steps N"]
.PHONY: bench-self
BENCH_SELF_ARGS ?=
$(BUILD)/bench_self: bench/bench_self.c rcloth.h | $(BUILD)
	$(CC) -O2 -std=c99 -Wall -Wextra -pedantic -fopenmp -o $@ bench/bench_self.c -lm

bench-self: $(BUILD)/bench_self
	$(BUILD)/bench_self $(BENCH_SELF_ARGS)
