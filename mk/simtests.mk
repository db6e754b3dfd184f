# SIM tests: the 2,500-vertex sphere drop of issue 4 (too slow for the unit suite).
# make scene-sphere [SCENE_ARGS="frames n"]
.PHONY: scene-sphere
SCENE_ARGS ?= 100 50
scene-sphere: rcloth.h bench/scene_sphere_drop.c | $(BUILD)
	$(CC) -O2 -std=c99 -Wall -Wextra -pedantic $(OMP) -o $(BUILD)/scene_sphere_drop bench/scene_sphere_drop.c -lm
	$(BUILD)/scene_sphere_drop $(SCENE_ARGS)
