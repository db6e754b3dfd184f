# picture helpers demo: make picture-demo (writes build/picture_demo*.png/svg)
.PHONY: picture-demo
$(BUILD)/picture_demo: examples/picture_demo.c examples/common/picture.c examples/common/picture.h | $(BUILD)
	$(CC) $(OPT) $(STRICT) -o $@ examples/picture_demo.c examples/common/picture.c -lm

picture-demo: $(BUILD)/picture_demo
	@$(BUILD)/picture_demo
