# Stage 11 (scan and histogram): a program of its own; included by the top Makefile after ALL_BINS.
#   make stage-11                       build build/11_scan_histogram/scan_histogram (and the exercise)
#   make scan-histogram-run [ARGS=...]  run it (default sizes, every kernel, uniform and skewed data)
#   make scan-histogram-check           every kernel at the check sizes, both data sets, --check
#   make scan-histogram-exercise        the exercise stub's check (fails until it is solved), with hints
#   make scan-histogram-solution        the same with solutions/11_scan_histogram.cu (passes)
SCAN_HIST_DIR := $(BUILD)/11_scan_histogram
SCAN_HIST := $(SCAN_HIST_DIR)/scan_histogram
SCAN_HIST_OBJS := $(BUILD)/check.o $(BUILD)/host.o
SCAN_HIST_DEPS := stages/11_scan_histogram/scan_histogram.cu $(SCAN_HIST_OBJS) common/common.h common/host.h \
                  $(BUILD)/flags.txt solutions/11_scan_histogram.cu

# The top Makefile's exercise rules (stage harness, baseline) are not for this stage: it builds its own.
EXERCISES := $(filter-out 11_scan_histogram,$(EXERCISES))
ALL_BINS += $(SCAN_HIST) $(filter-out $(ALL_BINS),$(SCAN_HIST_DIR)/exercise $(SCAN_HIST_DIR)/solution)

.PHONY: stage-11 scan-histogram-run scan-histogram-check scan-histogram-exercise scan-histogram-solution

stage-11: $(SCAN_HIST) $(SCAN_HIST_DIR)/exercise

$(SCAN_HIST): $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(SCAN_HIST_OBJS) -o $@

# The exercise is the stage's program with two parts stubbed (it includes scan_histogram.cu); the
# solution compiles solutions/11_scan_histogram.cu in place of the stubs.
$(SCAN_HIST_DIR)/exercise: stages/11_scan_histogram/exercise.cu $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(SCAN_HIST_OBJS) -o $@

$(SCAN_HIST_DIR)/solution: stages/11_scan_histogram/exercise.cu solutions/11_scan_histogram.cu $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -DSOLUTION_FILE='"../../solutions/11_scan_histogram.cu"' \
	    $< $(SCAN_HIST_OBJS) -o $@

scan-histogram-run: $(SCAN_HIST)
	$(SCAN_HIST) $(ARGS)

scan_hist_check_sizes = $$($1 --list | sed -n 's/^check sizes: //p')

scan-histogram-check: $(SCAN_HIST)
	$(SCAN_HIST) --check --n "$(call scan_hist_check_sizes,$(SCAN_HIST))" --fill both --reps 3 --warmup 1 $(ARGS)

# $1: exercise or solution. Its kernels at the check sizes, both data sets; on a failing exercise,
# the failing rows and the hints of exercise.cu (its " * Hint:" lines, then its " * 提示：" lines).
define scan_hist_exercise
	@bin=$(SCAN_HIST_DIR)/$1; \
	$$bin --check --n "$(call scan_hist_check_sizes,$$bin)" --fill both --reps 1 --warmup 0 >$(SCAN_HIST_DIR)/$1.log 2>&1; \
	rc=$$?; \
	if [ $$rc -eq 0 ]; then echo "PASS: the $1 of stage 11 passes its check at the check sizes, uniform and skewed data"; exit 0; fi; \
	if [ $$rc -ne 1 ]; then tail -3 $(SCAN_HIST_DIR)/$1.log; exit $$rc; fi; \
	echo "FAIL: the $1 of stage 11 (stages/11_scan_histogram/exercise.cu) does not pass its check yet. Failing rows:"; \
	grep ' FAIL@' $(SCAN_HIST_DIR)/$1.log | head -8 | sed 's/^/  /'; \
	if [ "$1" = exercise ]; then echo "Hints:"; \
	  sed -n '/^ \* \(Hint:\|提示：\)/{s/^ \* \(Hint:\|提示：\) */  - /;s/ *\*\/ *$$//;p}' stages/11_scan_histogram/exercise.cu; fi; \
	exit 1
endef

scan-histogram-exercise: $(SCAN_HIST_DIR)/exercise
	$(call scan_hist_exercise,exercise)

scan-histogram-solution: $(SCAN_HIST_DIR)/solution
	$(call scan_hist_exercise,solution)

# `make stage-11 run|check|exercise|solution`: the top Makefile's loops know only the stages built on
# the common harness, so these add the stage-11 work when stage-11 is named.
ifneq ($(filter stage-11,$(MAKECMDGOALS)),)
run: scan-histogram-run
check: scan-histogram-check
exercise: scan-histogram-exercise
solution: scan-histogram-solution
endif
