# reduce-stages: a GPU sum reduction, one stage at a time. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CC := gcc
BUILD := build
STAGES := $(patsubst stages/%/reduce.cu,%,$(sort $(wildcard stages/*/reduce.cu)))
stage_num = $(firstword $(subst _, ,$1))

# GPU code: ARCH=sm_90 builds for one architecture; otherwise the GPU in this machine (-arch=native),
# or, with no GPU, every architecture CUDA 13 supports from Turing on, plus PTX for newer GPUs.
DEFAULT_ARCHS := 75 80 86 89 90 100 120
ifdef ARCH
  ARCH_FLAGS := -arch=$(ARCH)
else ifeq ($(shell nvidia-smi -L >/dev/null 2>&1 && echo yes),yes)
  ARCH_FLAGS := -arch=native
else
  ARCH_FLAGS := $(foreach a,$(DEFAULT_ARCHS),-gencode arch=compute_$a,code=sm_$a) -gencode arch=compute_120,code=compute_120
endif
# OpenMP only speeds up the host's data fill and fp64 reference (results do not depend on it).
NVCCFLAGS := -O3 -std=c++17 -lineinfo $(ARCH_FLAGS) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror,-Wno-missing-field-initializers,-fopenmp -Icommon
CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -fopenmp -Icommon

# Sizes of `make bench` (a stage with sizes of its own, stage 07, runs at those). The sizes that
# `make stage-NN check` and the tests verify are each stage's own: `--list` shows them.
BENCH_SIZES := 2^16,2^18,2^20,2^22,2^24,2^26,2^28

# `make stage-05 run`: the stage-NN goals name the stages the actions (run, check, demo) act on.
SELECTED := $(foreach g,$(filter stage-%,$(MAKECMDGOALS)),$(filter $(patsubst stage-%,%,$g)_%,$(STAGES)))
SELECTED_BINS := $(foreach s,$(SELECTED),$(BUILD)/$s/reduce)
# The engineer's tools (diff, sass, profile, sanitize) take any stage, those with a program of their own too.
SELECTED_ANY := $(foreach g,$(filter stage-%,$(MAKECMDGOALS)),$(patsubst stages/%/,%,$(wildcard stages/$(patsubst stage-%,%,$g)_*/)))
EXERCISES := $(filter $(STAGES),$(patsubst stages/%/exercise.cu,%,$(sort $(wildcard stages/*/exercise.cu))))
ALL_BINS := $(foreach s,$(STAGES),$(BUILD)/$s/reduce) $(BUILD)/05_shuffle/demo \
            $(foreach s,$(EXERCISES),$(BUILD)/$s/exercise $(BUILD)/$s/solution)
# Stage 12 (several GPUs, NCCL) has a program of its own; built only where NCCL is found.
-include stages/12_multigpu/stage.mk
# Stage 11 (scan and histogram) has a program of its own.
-include stages/11_scan_histogram/stage.mk

define need_stage
	@if [ -z "$(SELECTED)$(filter stage-11 stage-12,$(MAKECMDGOALS))" ]; then \
	  echo "error: name a stage, e.g. make stage-05 $1 (stages: $(foreach s,$(STAGES),$(call stage_num,$s)))" >&2; \
	  exit 2; fi
endef

.PHONY: help all run check demo diff sass profile sanitize exercise solution tour audit bench plot reference test clean \
        need-nvcc $(foreach s,$(STAGES),stage-$(call stage_num,$s))

help:
	@echo "reduce-stages: a GPU sum reduction from naive to the memory-bandwidth limit"
	@echo
	@echo "  make stage-NN               build stage NN ($(foreach s,$(STAGES),$(call stage_num,$s)))"
	@echo "  make stage-NN run [ARGS=..] build and run it (ARGS: program options, e.g. ARGS=\"--n 16M\")"
	@echo "  make stage-NN check         verify every kernel at the stage's check sizes (--list), random and ones"
	@echo "  make stage-05 demo          what each warp shuffle returns, lane by lane"
	@echo "  make stage-NN diff          what changed from the previous stage (diff -u of reduce.cu)"
	@echo "  make stage-NN sass          the kernels' SASS and a summary per kernel (needs cuobjdump)"
	@echo "  make stage-NN profile       Nsight Compute metrics per kernel (needs ncu and a GPU)"
	@echo "  make stage-NN sanitize      compute-sanitizer memcheck/racecheck/synccheck/initcheck, and the"
	@echo "                              deliberately wrong kernels shown being caught (needs a GPU)"
	@echo "  make stage-NN exercise      build and check the stage's exercise (stages/NN_*/exercise.cu)"
	@echo "  make stage-NN solution      the same with its solution (solutions/NN_*.cu)"
	@echo "  make stage-11 run|check|exercise|solution   stage 11: scan and histogram (a program of its own)"
	@echo "  make multigpu-run [MODE=threads|processes] [GPUS=G]"
	@echo "                              stage 12: the sum and the all-reduce across GPUs with NCCL"
	@echo "  make tour                   every stage in order: its idea, its diff, a run, the chart so far"
	@echo "  make audit [PARTS=...]      sanitizers, unaligned and non-finite inputs, run-to-run bits,"
	@echo "                              N = 2^31+17 for every kernel, the L2 flush proven with DRAM"
	@echo "                              counters (ncu), with a summary (needs a GPU)"
	@echo "  make all                    build every stage"
	@echo "  make bench                  every stage at N = 2^16..2^28 (07: its grid, 08: 2^10..2^30, also with L2 warm)"
	@echo "                              into plots/results/<gpu>/, the flush check (ncu), charts"
	@echo "  make reference              copy the last bench to plots/reference/<gpu>/ and update README.md"
	@echo "  make plot [CSV=file]        draw the charts from a CSV (default: the committed reference results)"
	@echo "  make test                   the test suite (GPU half skipped when no GPU is present)"
	@echo "  make clean                  remove build/ and plots/results/"
	@echo
	@echo "  ARCH=sm_90                  build for one GPU architecture (default: this machine's GPU, or a list)"

need-nvcc:
	@if [ -z "$(NVCC)" ]; then \
	  echo "error: nvcc not found: building needs the CUDA toolkit (12.0 or newer)," >&2; \
	  echo "       https://developer.nvidia.com/cuda-downloads (or set NVCC=/path/to/nvcc)" >&2; \
	  exit 2; fi

# Rebuild the GPU objects when the compiler flags change (e.g. another ARCH).
$(BUILD)/flags.txt: need-nvcc
	@mkdir -p $(BUILD)
	@echo '$(NVCC) $(NVCCFLAGS)' | cmp -s - $@ || echo '$(NVCC) $(NVCCFLAGS)' > $@

$(BUILD)/host.o: common/host.c common/host.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: common/%.cu common/common.h common/host.h $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# Stage 01's first kernel, linked into every other stage for its speed-up column.
$(BUILD)/baseline.o: stages/01_naive/reduce.cu common/common.h common/host.h $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -DAS_BASELINE -c $< -o $@

COMMON_OBJS := $(BUILD)/harness.o $(BUILD)/check.o $(BUILD)/host.o

define stage_rules
stage-$(call stage_num,$1): $(BUILD)/$1/reduce $(if $(wildcard stages/$1/demo.cu),$(BUILD)/$1/demo)

# A stage whose exercise is a part of its own kernels compiles that part from its solution (it includes
# solutions/NN_*.cu), so the solution is a prerequisite, not a file to link.
$(BUILD)/$1/reduce: stages/$1/reduce.cu $(COMMON_OBJS) $(if $(filter 01_%,$1),,$(BUILD)/baseline.o) $(wildcard solutions/$1.cu)
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $$(filter-out solutions/%,$$^) -o $$@
endef
$(foreach s,$(STAGES),$(eval $(call stage_rules,$s)))

# An exercise is built like its stage; its solution is the same file with solutions/NN_*.cu compiled
# in place of the stubs.
define exercise_rules
$(BUILD)/$1/exercise: stages/$1/exercise.cu $(COMMON_OBJS) $(BUILD)/baseline.o
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@

$(BUILD)/$1/solution: stages/$1/exercise.cu solutions/$1.cu $(COMMON_OBJS) $(BUILD)/baseline.o
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -DSOLUTION_FILE='"../../solutions/$1.cu"' $$(filter-out solutions/%,$$^) -o $$@
endef
$(foreach s,$(EXERCISES),$(eval $(call exercise_rules,$s)))

$(BUILD)/05_shuffle/demo: stages/05_shuffle/demo.cu $(BUILD)/check.o $(BUILD)/host.o
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $^ -o $@

all: $(ALL_BINS)

run: $(SELECTED_BINS)
	$(call need_stage,run)
	@for s in $(SELECTED); do $(BUILD)/$$s/reduce $(ARGS) || exit $$?; done

check: $(SELECTED_BINS)
	$(call need_stage,check)
	@for s in $(SELECTED); do for f in random ones; do \
	  sizes=$$($(BUILD)/$$s/reduce --list | sed -n 's/^check sizes: //p'); \
	  $(BUILD)/$$s/reduce --check --n "$$sizes" --fill $$f --reps 3 --warmup 1 $(ARGS) || exit $$?; \
	done; done

demo: $(SELECTED_BINS) $(foreach s,$(SELECTED),$(if $(wildcard stages/$s/demo.cu),$(BUILD)/$s/demo))
	$(call need_stage,demo)
	@for s in $(SELECTED); do \
	  if [ -x $(BUILD)/$$s/demo ]; then $(BUILD)/$$s/demo || exit $$?; \
	  else echo "stage $$s has no demo (stage 05 does: make stage-05 demo)" >&2; exit 2; fi; done

diff:
	$(call need_stage,diff)
	@for s in $(SELECTED_ANY); do scripts/stage_tool.sh diff $$s || exit $$?; done

sass: need-nvcc
	$(call need_stage,sass)
	@for s in $(SELECTED_ANY); do scripts/stage_tool.sh sass $$s $(NVCC) $(NVCCFLAGS) || exit $$?; done

profile: $(SELECTED_BINS)
	$(call need_stage,profile)
	@for s in $(SELECTED_ANY); do scripts/stage_tool.sh profile $$s $(ARGS) || exit $$?; done

sanitize: $(SELECTED_BINS)
	$(call need_stage,sanitize)
	@for s in $(SELECTED_ANY); do scripts/stage_tool.sh sanitize $$s || exit $$?; done

exercise: $(foreach s,$(filter $(EXERCISES),$(SELECTED)),$(BUILD)/$s/exercise)
	$(call need_stage,exercise)
	@for s in $(SELECTED); do scripts/exercise.sh exercise $$s || exit $$?; done

solution: $(foreach s,$(filter $(EXERCISES),$(SELECTED)),$(BUILD)/$s/solution)
	$(call need_stage,solution)
	@for s in $(SELECTED); do scripts/exercise.sh solution $$s || exit $$?; done

tour: $(ALL_BINS)
	@scripts/tour.sh $(STAGES)

audit: $(ALL_BINS)
	@scripts/audit.sh $(PARTS)

bench: $(ALL_BINS)
	@scripts/bench.sh "$(BENCH_SIZES)" $(STAGES)

reference:
	@scripts/reference.sh

plot:
	@scripts/plot_all.sh $(CSV)

test:
	@tests/run.sh

clean:
	rm -rf $(BUILD) plots/results
