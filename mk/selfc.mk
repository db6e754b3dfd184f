# Cloth self-contact benchmark (issue 6): make bench-self [BENCH_SELF_ARGS="overhead fold --steps N"]
.PHONY: bench-self
BENCH_SELF_ARGS ?=
$(BUILD)/bench_self: bench/bench_self.c bench/bench_scenes.h examples/common/scenes.c examples/common/scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 -std=c99 -Wall -Wextra -pedantic $(OMP) -o $@ bench/bench_self.c examples/common/scenes.c -lm

bench-self: $(BUILD)/bench_self
	$(BUILD)/bench_self $(BENCH_SELF_ARGS)
