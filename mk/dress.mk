# DRESS scene check (issue 6): the dress scene run to the end with an exact intersection check
# after every step (tests/scenes/dress_check.c).
#   make dress-check                          fixed mode, default size
#   make dress-check DRESS_ARGS="--adaptive"  (also --verts N --frames N --dt S --t0 S --keep-going)
.PHONY: dress-check
DRESS_ARGS ?=
$(BUILD)/dress_check: tests/scenes/dress_check.c tests/scenes/dress_check.h examples/common/scenes.c examples/common/scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 -std=c99 -Wall -Wextra -pedantic $(OMP) -o $@ tests/scenes/dress_check.c examples/common/scenes.c -lm

dress-check: $(BUILD)/dress_check
	$(BUILD)/dress_check --threads 1 $(DRESS_ARGS)

# the test runner #includes the exact-geometry check (tests/test_sim.c): rebuild on change
$(BUILD)/run_tests $(BUILD)/run_tests_asan: tests/scenes/dress_check.h
