# Stage 11 (scan and histogram): a program of its own on the common program objects, included by the
# top Makefile. Its verbs are every stage's (make stage-11 run|check|exercise|solution|...): the top
# Makefile runs build/11_scan_histogram/scan_histogram and reads its --describe.
SCAN_HIST_DIR := $(BUILD)/11_scan_histogram
SCAN_HIST := $(SCAN_HIST_DIR)/scan_histogram
SCAN_HIST_DEPS := stages/11_scan_histogram/scan_histogram.cu $(PROGRAM_OBJS) $(COMMON_HEADERS) \
                  $(BUILD)/flags.txt

PROGRAMS += $(SCAN_HIST)
ALL_BINS += $(SCAN_HIST)

$(SCAN_HIST): $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(PROGRAM_OBJS) -o $@
	$(call save_description,$@)

# The exercise is the stage's program with one more kernel, the exercise's (it includes scan_histogram.cu
# with SCAN_HISTOGRAM_EXERCISE defined); the solution compiles solutions/11_scan_histogram.cu in place of
# its stub.
$(SCAN_HIST_DIR)/exercise: stages/11_scan_histogram/exercise.cu $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(PROGRAM_OBJS) -o $@

$(SCAN_HIST_DIR)/solution: stages/11_scan_histogram/exercise.cu solutions/11_scan_histogram.cu $(SCAN_HIST_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -DSOLUTION_FILE='"../../solutions/11_scan_histogram.cu"' \
	    $< $(PROGRAM_OBJS) -o $@

# make stage-11 grade builds a student's file as the solution is built.
GRADE_BUILD_11_scan_histogram = $(NVCC) $(GRADE_FLAGS) stages/11_scan_histogram/exercise.cu $(PROGRAM_OBJS)
