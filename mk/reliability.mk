# RELIABILITY (issue 8): allocation failure, fuzzing, soak, determinism, valgrind.
#   make oom            every allocation of small scenes failed in turn (ASan), checks status + no leak
#   make oom-quick      the same without the sanitizers (CI: its own block count finds leaks, and
#                       steps that return RC_OK must keep the trajectory of the run without failures)
#   make fuzz-replay    fuzz harnesses built as replay programs (ASan+UBSan), run on tests/fuzz/corpus
#   make fuzz           libFuzzer runs (clang -fsanitize=fuzzer), FUZZ_TIME seconds per harness
#   make soak           long run: random pins, fast obstacles, big steps (SOAK_STEPS, default 10000)
#   make determinism    bit-identical positions with 1 and 2 OpenMP threads
#   make valgrind       the test runner under valgrind (VALGRIND_FILTER selects tests)
.PHONY: oom oom-quick fuzz-replay fuzz fuzz-corpus soak determinism valgrind
REL_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_HARNESSES = fuzz_mesh fuzz_obj fuzz_sparse
FUZZ_TIME ?= 60
SOAK_STEPS ?= 10000
VALGRIND_FILTER ?=

$(BUILD)/oom: tests/oom/oom.c rcloth.h | $(BUILD)
	$(CC) -O2 -g $(STRICT) $(REL_SAN) -o $@ tests/oom/oom.c -lm

oom: $(BUILD)/oom
	@ASAN_OPTIONS=detect_leaks=1 $(BUILD)/oom

$(BUILD)/oom_quick: tests/oom/oom.c rcloth.h | $(BUILD)
	$(CC) -O2 -g $(STRICT) -o $@ tests/oom/oom.c -lm

oom-quick: $(BUILD)/oom_quick
	@$(BUILD)/oom_quick

$(BUILD)/replay_%: tests/fuzz/%.c tests/fuzz/replay.h rcloth.h | $(BUILD)
	$(CC) -O1 -g -std=c99 -Wall -Wextra $(REL_SAN) -o $@ $< -lm

# every harness in one program (one ASan compile of the implementation instead of three);
# $(BUILD)/replay_<harness> still builds one harness alone
$(BUILD)/replay_all: tests/fuzz/replay_all.c $(addprefix tests/fuzz/,$(addsuffix .c,$(FUZZ_HARNESSES))) tests/fuzz/replay.h rcloth.h | $(BUILD)
	$(CC) -O1 -g -std=c99 -Wall -Wextra $(REL_SAN) -o $@ tests/fuzz/replay_all.c -lm

fuzz-replay: $(BUILD)/replay_all
	@ASAN_OPTIONS=detect_leaks=1 $(BUILD)/replay_all $(foreach h,$(FUZZ_HARNESSES),$(h) tests/fuzz/corpus/$(h))

# regenerate the seed corpus (committed; the script is deterministic)
fuzz-corpus:
	python3 tests/fuzz/make_corpus.py tests/fuzz/corpus

$(BUILD)/libfuzzer_%: tests/fuzz/%.c tests/fuzz/replay.h rcloth.h | $(BUILD)
	clang -O1 -g -DRC_FUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< -lm

# new inputs go to build/fuzz_work/<harness> (not the committed corpus); crashes to build/
fuzz: $(addprefix $(BUILD)/libfuzzer_,$(FUZZ_HARNESSES))
	@for h in $(FUZZ_HARNESSES); do mkdir -p $(BUILD)/fuzz_work/$$h; \
	  $(BUILD)/libfuzzer_$$h -max_total_time=$(FUZZ_TIME) -max_len=512 -artifact_prefix=$(BUILD)/crash_$$h- \
	    $(BUILD)/fuzz_work/$$h tests/fuzz/corpus/$$h || exit 1; done

$(BUILD)/soak: tests/soak/soak.c rcloth.h | $(BUILD)
	$(CC) -O2 -g $(STRICT) -o $@ tests/soak/soak.c -lm

soak: $(BUILD)/soak
	@$(BUILD)/soak $(SOAK_STEPS)

$(BUILD)/determinism: tests/soak/determinism.c rcloth.h | $(BUILD)
	$(CC) -O2 -g $(STRICT) $(OMP) -o $@ tests/soak/determinism.c -lm

determinism: $(BUILD)/determinism
	@$(BUILD)/determinism

valgrind: $(BUILD)/run_tests
	@# libgomp keeps its thread pool (TLS blocks "possibly lost" at exit): only definite/indirect leaks count
	valgrind -q --error-exitcode=1 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect $(BUILD)/run_tests $(VALGRIND_FILTER)
