# picture helpers demo: make picture-demo (writes build/picture_demo*.png/svg)
.PHONY: picture-demo
$(BUILD)/picture_demo: examples/picture_demo.c examples/common/picture.c examples/common/picture.h | $(BUILD)
	$(CC) $(OPT) $(STRICT) -o $@ examples/picture_demo.c examples/common/picture.c -lm

picture-demo: $(BUILD)/picture_demo
	@$(BUILD)/picture_demo

# the test runner #includes examples/common/picture.c (tests/test_pictures.c): rebuild on change
$(BUILD)/run_tests $(BUILD)/run_tests_asan: examples/common/picture.c examples/common/picture.h
