# DEMO / CLI (issue 7): build/rcloth runs every example scene by name (build/rcloth --help).
#   make demo                         sphere drape, adaptive and fixed side by side -> out/demo/
#   make demo DEMO_ARGS="--small"     reduced size
#   make demo-ci                      tiny run (seconds) and a check that every output exists
DEMO_CFLAGS ?= -O2 $(NATIVE) -std=c99 -Wall -Wextra -pedantic
DEMO_OMP    ?= $(OMP)
DEMO_ARGS   ?=
DEMO_SRC = examples/rcloth.c examples/common/demo.c examples/common/scenes.c examples/common/curvature.c \
           examples/common/picture.c
DEMO_HDR = examples/common/demo.h examples/common/scenes.h examples/common/curvature.h examples/common/picture.h
.PHONY: demo demo-ci rcloth

$(BUILD)/rcloth: rcloth.h $(DEMO_SRC) $(DEMO_HDR) | $(BUILD)
	$(CC) $(DEMO_CFLAGS) $(DEMO_OMP) -o $@ $(DEMO_SRC) -lm

rcloth: $(BUILD)/rcloth

# the default demo: both runs at once (one core each), sizes chosen to finish in < 2 min on 2 cores
DEMO_DEFAULT = sphere_drape --verts 144 --frames 10 --dt 0.05 --tol 1e-3 --parallel --out out/demo
demo: $(BUILD)/rcloth
	$(BUILD)/rcloth $(DEMO_DEFAULT) $(DEMO_ARGS)

DEMO_CI_DIR = out/demo-ci
DEMO_CI_FILES = final.png reference.png energy.svg curvature.svg summary.txt \
                adaptive/x_0000.obj adaptive/x_0002.obj adaptive/u_0002.obj fixed/x_0002.obj fixed/u_0002.obj
demo-ci: $(BUILD)/rcloth
	rm -rf $(DEMO_CI_DIR)
	$(BUILD)/rcloth sphere_drape --small --frames 2 --parallel --out $(DEMO_CI_DIR)
	@for f in $(DEMO_CI_FILES); do test -s $(DEMO_CI_DIR)/$$f || { echo "demo-ci: missing $(DEMO_CI_DIR)/$$f"; exit 1; }; done
	@$(BUILD)/rcloth --bogus >/dev/null 2>&1; test $$? -eq 2 || { echo "demo-ci: bad option must exit 2"; exit 1; }
	@echo "demo-ci: ok"

# the test runner #includes the example pipeline (tests/test_io.c): rebuild on change
$(BUILD)/run_tests $(BUILD)/run_tests_asan: $(DEMO_SRC) $(DEMO_HDR)
