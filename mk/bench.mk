# SIM benchmarks (issues 4, 5): make bench-sim [BENCH_SIM_ARGS="scaling adaptive ablation energy --threads 1"]
# build/bench_sim SECTION... runs only the named sections (see bench/bench_sim.c).
.PHONY: bench-sim
BENCH_SIM_ARGS ?=
$(BUILD)/bench_sim: bench/bench_sim.c bench/bench_scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 $(NATIVE) -std=c99 -Wall -Wextra -pedantic $(OMP) -o $@ bench/bench_sim.c -lm

bench-sim: $(BUILD)/bench_sim
	$(BUILD)/bench_sim $(BENCH_SIM_ARGS)

# one CLI scene stepped N times (the 100-step figures of bench/RESULTS.md section 5):
# make bench-scene BENCH_SCENE_ARGS="sphere_drape 100 1024 1"   (scene steps verts adaptive)
.PHONY: bench-scene
BENCH_SCENE_ARGS ?= sphere_drape 100 1024 1
$(BUILD)/bench_scene: bench/bench_scene.c examples/common/scenes.c examples/common/scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 $(NATIVE) -std=c99 -Wall -Wextra -pedantic -o $@ bench/bench_scene.c examples/common/scenes.c -lm

bench-scene: $(BUILD)/bench_scene
	$(BUILD)/bench_scene $(BENCH_SCENE_ARGS)

# the same driver built with OpenMP (as the CLI is), for the threads argument:
# make bench-scene-omp BENCH_SCENE_ARGS="sphere_drape 100 1024 1 2"
.PHONY: bench-scene-omp
$(BUILD)/bench_scene_omp: bench/bench_scene.c examples/common/scenes.c examples/common/scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 $(NATIVE) $(OMP) -std=c99 -Wall -Wextra -pedantic -o $@ bench/bench_scene.c examples/common/scenes.c -lm

bench-scene-omp: $(BUILD)/bench_scene_omp
	$(BUILD)/bench_scene_omp $(BENCH_SCENE_ARGS)

# the same step problems solved by two builds (bench/bench_steps.c): save states along a scene,
# then `solve` them with this build and with another tree's build of the same file
$(BUILD)/bench_steps: bench/bench_steps.c examples/common/scenes.c examples/common/scenes.h rcloth.h | $(BUILD)
	$(CC) -O2 $(NATIVE) -std=c99 -Wall -Wextra -pedantic -o $@ bench/bench_steps.c examples/common/scenes.c -lm
