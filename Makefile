# reduce-stages: a GPU sum reduction, one stage at a time. `make help` lists the targets.
SHELL := /bin/bash
comma := ,
.DEFAULT_GOAL := help

# Parallel builds: a job per core (JOBS=1 builds one file at a time). A make that a recipe runs (the
# tests run make) shares the jobs of the first one, whose recipe line starts with +.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(JOBS)
endif

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
# The CUDA toolkit $(NVCC) belongs to, as nvcc itself names it (-dryrun prints its TOP): the folder of its
# include/ and lib64/, also where the nvcc on the PATH is a wrapper script that execs the toolkit's.
CUDA_ROOT := $(if $(NVCC),$(abspath $(shell $(NVCC) -dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p')))
CC := gcc
BUILD := build
stage_num = $(firstword $(subst _, ,$1))

# The oldest CUDA toolkit that builds the code: cub::DeviceReduce::TransformReduce (the harness's CUB
# baseline for every input type) came with CCCL 2.4, in CUDA 12.5.
NVCC_MIN := 12.5
# The shell command that prints the CUDA release of $(NVCC), e.g. 13.0.
nvcc_release = $(NVCC) --version | sed -n 's/.*release \([0-9][0-9.]*\),.*/\1/p'
# GPU code: ARCH=sm_90 builds for one architecture; otherwise the GPU in this machine (-arch=native),
# or, with no GPU, every architecture from Turing on that this nvcc can build (sm_100 and sm_120 need
# CUDA 12.8), plus PTX of the newest for newer GPUs.
# ARCH=all builds that list on a machine with a GPU too (make test-full does).
DEFAULT_ARCHS := 75 80 86 89 90 100 120
NVCC_ARCHS = $(patsubst compute_%,%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null))
BUILD_ARCHS = $(or $(filter $(NVCC_ARCHS),$(DEFAULT_ARCHS)),$(DEFAULT_ARCHS))
LIST_ARCH_FLAGS = $(foreach a,$(BUILD_ARCHS),-gencode arch=compute_$a,code=sm_$a) \
                  -gencode arch=compute_$(lastword $(BUILD_ARCHS)),code=compute_$(lastword $(BUILD_ARCHS))
ifeq ($(ARCH),all)
  ARCH_FLAGS := $(LIST_ARCH_FLAGS)
else ifdef ARCH
  ARCH_FLAGS := -arch=$(ARCH)
else ifeq ($(shell nvidia-smi -L >/dev/null 2>&1 && echo yes),yes)
  ARCH_FLAGS := -arch=native
else
  ARCH_FLAGS := $(LIST_ARCH_FLAGS)
endif
# A newer CCCL than the toolkit's (it is header-only): CCCL_HOME=/path, a CCCL checkout (its cub/,
# libcudacxx/include and thrust/), is read before the toolkit's by every build (make clean first: an
# object does not record which CCCL built it). Stage 13 then adds CUB's sums that require a determinism.
ifdef CCCL_HOME
  $(if $(wildcard $(CCCL_HOME)/cub/cub/cub.cuh),,$(error CCCL_HOME=$(CCCL_HOME) is not a CCCL checkout: no cub/cub/cub.cuh))
  CCCL_FLAGS := -I$(CCCL_HOME)/cub -I$(CCCL_HOME)/libcudacxx/include -I$(CCCL_HOME)/thrust
endif
# OpenMP only speeds up the host's data fill and fp64 reference (results do not depend on it).
NVCCFLAGS := -O3 -std=c++17 -lineinfo $(ARCH_FLAGS) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror,-Wno-missing-field-initializers,-fopenmp $(CCCL_FLAGS) -Icommon
# A student's file (make stage-NN grade) is built with warnings allowed.
GRADE_FLAGS = $(filter-out -Werror all-warnings,$(subst $(comma)-Werror,,$(NVCCFLAGS)))
CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -fopenmp -Icommon

# Stages are the folders stages/NN_name/. A stage's program is build/<stage>/<program>: its reduce.cu
# built on the common harness, or the program its stage.mk adds. Every verb reads what it needs from the
# program's --describe (its sizes, fills, kernels): nothing here knows a stage by its number.
HARNESS_STAGES := $(patsubst stages/%/reduce.cu,%,$(sort $(wildcard stages/*/reduce.cu)))
# The speed-up column's baseline: the first kernel of the first stage's reduce.cu (in sort order).
BASELINE_STAGE := $(firstword $(HARNESS_STAGES))
EXERCISES := $(patsubst stages/%/exercise.cu,%,$(sort $(wildcard stages/*/exercise.cu)))
# The exercises whose answer is here (a handout, make handout, has none).
SOLVED := $(filter $(patsubst solutions/%.cu,%,$(wildcard solutions/*.cu)),$(EXERCISES))
DEMOS := $(patsubst stages/%/demo.cu,%,$(sort $(wildcard stages/*/demo.cu)))

# The common objects: program.o (the command line, --describe), csv.o, timing.o (the timing loop),
# speed_of_light.o, gpu.o (the GPU, allocation, the flush), check.o (the error checks) and the plain C of
# common/*.c (HOST_OBJS: the parsers, the input types and files, the fills, the references, the chains of
# additions and their bounds) under every program; under a stage built on the harness also harness.o (its
# main) and the parts it calls: measure.o (a kernel timed, checked and reported), data.o (the input in
# each type), cub.o (CUB's rows) and rows.o (a row stage's references and checks). A stage file includes
# common/stage.h, the stage's vocabulary (check.h, chain.h, dtype.h, program.h, tree.h); every object is
# built again when a header of common/ changes.
HOST_OBJS := $(patsubst common/%.c,$(BUILD)/%.o,$(sort $(wildcard common/*.c)))
PROGRAM_OBJS := $(BUILD)/program.o $(BUILD)/csv.o $(BUILD)/timing.o $(BUILD)/speed_of_light.o $(BUILD)/gpu.o \
                $(BUILD)/check.o $(HOST_OBJS)
HARNESS_PARTS := $(BUILD)/measure.o $(BUILD)/data.o $(BUILD)/cub.o $(BUILD)/rows.o
HARNESS_OBJS := $(BUILD)/harness.o $(HARNESS_PARTS) $(PROGRAM_OBJS)
COMMON_HEADERS := $(sort $(wildcard common/*.h))

# What a stage.mk adds (it is included below, after these):
#   PROGRAMS += $(BUILD)/<stage>/<program>, and the rule that builds it, its last line
#               $(call save_description,$@)
#   ALL_BINS += what `make all` builds of it, where it can be built (its exercise and solution are here)
#   START_<stage> = a command that starts the program with the options $1, for a program that needs a
#                   launcher (e.g. one copy per GPU); otherwise the loops run the program itself
#   NVCCFLAGS_<stage> := flags its source needs beyond NVCCFLAGS (make stage-NN sass compiles it)
#   CHECK_ARGS_<stage> := options `make stage-NN check` adds to the check sizes and fills
#   UNBUILDABLE_<stage> := why its program cannot be built here (the verbs that compile it say so, exit 2)
#   USAGE_ERROR_<stage> = what is wrong with its own make variables, if anything (run and check say so first)
#   STAGE_HELP += lines for `make help` (its make variables)
PROGRAMS := $(foreach s,$(HARNESS_STAGES),$(BUILD)/$s/reduce)
ALL_BINS := $(PROGRAMS) $(foreach s,$(HARNESS_STAGES),$(BUILD)/$s/tree) $(foreach s,$(DEMOS),$(BUILD)/$s/demo) \
            $(foreach s,$(EXERCISES),$(BUILD)/$s/exercise) $(foreach s,$(SOLVED),$(BUILD)/$s/solution)
STAGE_HELP :=
-include $(sort $(wildcard stages/*/stage.mk))

STAGES := $(sort $(patsubst $(BUILD)/%/,%,$(dir $(PROGRAMS))))
program_of = $(firstword $(filter $(BUILD)/$1/%,$(PROGRAMS)))
# In stage order: the order of make programs, the tour and the bench.
PROGRAMS := $(foreach s,$(STAGES),$(call program_of,$s))
BUILDABLE_PROGRAMS := $(foreach s,$(STAGES),$(if $(UNBUILDABLE_$s),,$(call program_of,$s)))
# The scripts the verbs run read the programs from here rather than calling make again from inside a
# recipe (a make within make without the jobserver warns and builds serially).
export REDUCE_PROGRAMS := $(PROGRAMS)
# One key of a program's --describe, as shell text (scripts/describe.py says how): $(call describe,PROGRAM,KEY).
describe = $$(python3 scripts/describe.py $1 $2)
# The last line of the rule that links a stage's program: $(call save_description,$@) writes its description
# beside it (build/<stage>/<program>.json) and, from it, its input types (<program>.types, one line), which
# a program refusing a file of a type its kernels do not take reads to name the stages that take it: a file
# of each program's own, so that programs linked at once cannot overwrite each other's. Without python3 none
# is written (the refusal then names no stage).
save_description = @$1 --describe >$1.json && if command -v python3 >/dev/null; then \
                   python3 scripts/describe.py $1.json input_types >$1.types; fi
# The shell command that runs a stage's program with the options $2.
start = $(if $(value START_$1),$(call START_$1,$2),$(call program_of,$1) $2)

# `make stage-NN VERB`: the stage-NN goals name the stages the verbs act on.
SELECTED := $(foreach g,$(filter stage-%,$(MAKECMDGOALS)) $(if $(STAGE),stage-$(STAGE)),$(filter $(patsubst stage-%,%,$g)_%,$(STAGES)))
SELECTED_PROGRAMS := $(foreach s,$(SELECTED),$(call program_of,$s))

# The verbs that run kernels stop before building anything where no GPU can be used (no driver,
# nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides them all), in at most four lines: the command
# typed, where to go instead (the Colab notebook, the committed results of the reference GPUs) and what
# works here (sass only where cuobjdump is). What was asked is checked first: a stage named, a demo or a
# solution it has, a program that can be built here; profile, sanitize and tree of a program with a
# launcher of its own (several GPUs) say why they do not apply to it. make stage-NN exercise is not
# refused: without a GPU it builds the exercise and says that running it needs one (exit 0).
GPU_USABLE := $(shell nvidia-smi -L >/dev/null 2>&1 && [ "$${CUDA_VISIBLE_DEVICES-all}" != "" ] && echo yes)
GPU_GOAL := $(firstword $(filter tour audit bench accuracy limits,$(MAKECMDGOALS)) \
  $(if $(SELECTED),$(if $(strip $(foreach s,$(SELECTED),$(UNBUILDABLE_$s))),, \
    $(filter run check,$(MAKECMDGOALS)) \
    $(if $(strip $(foreach s,$(SELECTED),$(value START_$s))),,$(filter profile sanitize tree,$(MAKECMDGOALS))) \
    $(if $(filter $(DEMOS),$(SELECTED)),$(filter demo,$(MAKECMDGOALS))) \
    $(if $(filter $(SOLVED),$(SELECTED)),$(filter solution,$(MAKECMDGOALS))))))
# A usage error that a stage.mk finds in its own variables (USAGE_ERROR_<stage>, e.g. an unknown MODE)
# is said before anything else.
USAGE_ERRORS := $(strip $(foreach s,$(SELECTED),$(USAGE_ERROR_$s)))
ifneq ($(USAGE_ERRORS),)
  ifneq ($(filter run check,$(MAKECMDGOALS)),)
    $(error $(USAGE_ERRORS))
  endif
endif
REFERENCE_DIRS := $(patsubst %/results.csv,%/,$(wildcard plots/reference/*/results.csv))
# The verbs of stage $1 that work without a GPU, each followed by a comma: diff (a stage on the harness),
# sass (where cuobjdump is), exercise (it builds it).
HAVE_CUOBJDUMP = $(shell command -v cuobjdump >/dev/null 2>&1 && echo yes)
works_here = $(foreach v,$(if $(filter $(HARNESS_STAGES),$1),diff $(if $(HAVE_CUOBJDUMP),sass)) \
  $(if $(filter $(EXERCISES),$1),exercise),make stage-$(call stage_num,$1) $v$(comma))
ifneq ($(GPU_USABLE),yes)
  ifneq ($(GPU_GOAL),)
    $(shell printf '%s\n' >&2 \
      "make $(strip $(MAKECMDGOALS) $(MAKEOVERRIDES)) runs kernels on an NVIDIA GPU, and CUDA can use none here (nvidia-smi -L lists none, or CUDA_VISIBLE_DEVICES hides them)." \
      "Without one: run it on Colab's free GPU (notebooks/colab.ipynb), or read what it printed on the reference GPUs: $(subst $() ,$(comma) ,$(strip $(foreach s,$(SELECTED),stages/$s/README.md) $(REFERENCE_DIRS)))." \
      "What works here: $(strip $(foreach s,$(firstword $(SELECTED)),$(call works_here,$s)) make all$(comma) make test.)")
    $(error no usable GPU: nothing was built)
  endif
endif

define newline


endef

define need_stage
	@if [ -z "$(SELECTED)" ]; then \
	  echo "error: name a stage: make stage-NN $1 (NN: $(foreach s,$(STAGES),$(call stage_num,$s)))" >&2; \
	  exit 2; fi
endef

.PHONY: help all lib sum run check demo diff sass profile sanitize tree exercise solution grade handout tour audit bench accuracy limits programs plot \
        reference docs docs-check test test-full test-time mutants clean need-nvcc toolkit print-NVCCFLAGS \
        $(foreach s,$(STAGES),stage-$(call stage_num,$s))

help: export STAGE_HELP_TEXT = $(STAGE_HELP)
help:
	@echo "reduce-stages: a GPU sum reduction from naive to the memory-bandwidth limit"
	@echo
	@echo "Reading a stage:"
	@echo "  make stage-NN diff          what changed from the previous stage built the same way (diff -u)"
	@echo "  make stage-NN sass          the kernels' SASS and a summary per kernel (needs cuobjdump)"
	@echo "  make stage-NN tree [ARGS=..] see the tree: one block of a kernel run with its shared memory and"
	@echo "                              shuffles recorded, drawn (tree, active lanes, banks, shuffles) as a PNG"
	@echo "                              and on the terminal; ARGS=\"--kernel NAME --n 64\" one kernel into"
	@echo "                              plots/results/<gpu>/tree/, else the README's kernels into"
	@echo "                              plots/reference/<gpu>/tree/<stage>/ (needs a GPU; PROGRAM=solution: the"
	@echo "                              exercise's)"
	@echo "  make stage-NN demo          the stage's demo program (stages/NN_*/demo.cu; stages with one:$(foreach s,$(DEMOS), $(call stage_num,$s)))"
	@echo "  make tour                   every stage in order: its idea, its diff, a run, the chart so far"
	@echo
	@echo "Running and measuring:"
	@echo "  make stage-NN               build stage NN's program ($(foreach s,$(STAGES),$(call stage_num,$s)))"
	@echo "  make stage-NN run [ARGS=..] build and run it (ARGS: program options, e.g. ARGS=\"--n 16M\";"
	@echo "                              ARGS=\"--input x.npy\": your own data, where --help lists --input)"
	@echo "  make stage-NN check         verify every kernel at the program's check sizes, with each of its"
	@echo "                              check fills (its --describe lists both)"
	@echo "  make stage-NN profile       Nsight Compute metrics per kernel (needs ncu and a GPU; PROGRAM=solution: the exercise's)"
	@echo "  make stage-NN sanitize      compute-sanitizer memcheck/racecheck/synccheck/initcheck, and the"
	@echo "                              deliberately wrong kernels shown being caught (needs a GPU)"
	@printf '%s\n' "$$STAGE_HELP_TEXT" | sed '/^ *$$/d'
	@echo "  make all                    build every stage"
	@echo "  make lib                    the exact-sum library: build/lib/libexactsum.a and .so (lib/exact_sum.h),"
	@echo "                              and its example, build/lib/example"
	@echo "  make sum FILE=x.npy         the exact sum of a file, in its type and in fp64, timed beside CUB's"
	@echo "                              (ARGS=\"--csv --out rows.npy\"; docs/exact-sum.md)"
	@echo "  make programs               every stage's program (build/<stage>/<program>), one a line"
	@echo "  make toolkit                the nvcc a build uses, its CUDA release and the GPU code it builds"
	@echo "  make bench                  build what it runs, then every single-GPU program at its bench sizes"
	@echo "                              and fills (--describe), its warm-L2 kernels also with the L2 warm,"
	@echo "                              into plots/results/<gpu>/; the flush check (ncu), charts, the times"
	@echo "  make accuracy               the accuracy lab: each program's accuracy kernels (--describe) on"
	@echo "                              random, wide and cond data, relative error against N and against"
	@echo "                              the condition number, into plots/results/<gpu>/ (needs a GPU)"
	@echo "  make limits                 what limits each program's limit kernels (--describe) and CUB at"
	@echo "                              each bench size: DRAM throughput, stalls, occupancy from Nsight"
	@echo "                              Compute, into plots/results/<gpu>/limits.csv (needs ncu and a GPU)"
	@echo "  make audit [PARTS=...]      sanitizers, unaligned and non-finite inputs, run-to-run bits, each"
	@echo "                              program's edge sizes (64-bit indices), the L2 flush proven with DRAM"
	@echo "                              counters (ncu), and (PARTS=evidence) each stage's sass and profile kept"
	@echo "                              in plots/results/<gpu>/ for make reference, with a summary (needs a GPU)"
	@echo "  make plot [CSV=file]        draw the charts from a CSV (default: the committed reference results)"
	@echo
	@echo "Teaching:"
	@echo "  make stage-NN exercise      build and check the stage's exercise (stages/NN_*/exercise.cu)"
	@echo "  make stage-NN solution      the same with its solution (solutions/NN_*.cu)"
	@echo "  make stage-NN grade FILE=f  grade a student's file in place of the exercise's stubs: its declared"
	@echo "                              sizes, some from SEED, sanitizers, its promises, time against the"
	@echo "                              solution's (RATIO, TIMEOUT, CLASS=sheet.csv; also make grade STAGE=NN;"
	@echo "                              docs/classroom.md)"
	@echo "  make handout OUT=DIR        a copy for students: no solutions/, no tests/grade/"
	@echo
	@echo "Maintaining:"
	@echo "  make reference              copy the last bench (accuracy lab, limits) to plots/reference/<gpu>/"
	@echo "                              and update the READMEs and docs/"
	@echo "  make docs                   every generated README block, and the charts where gnuplot is installed,"
	@echo "                              from the committed reference results"
	@echo "  make docs-check             whether make docs would change anything, and every stage's claims"
	@echo "                              about measured results (claims.csv) on every GPU's results"
	@echo "  make test [ONLY=..] [LIST=1] the test suite, ending N passed, N failed, N skipped (its GPU tests"
	@echo "                              skipped without a GPU); ONLY=PATTERN: a module, a stage (stage-05) or a"
	@echo "                              test's name; LIST=1: list the tests (docs/README.md#the-tests)"
	@echo "  make test-full              make test, and every fill, sizes past 2^31, the sanitizers, ncu, the"
	@echo "                              notebook's cells, built for every architecture"
	@echo "  make test-time              how long make test and make test-full take in a fresh clone"
	@echo "  make mutants [GPU=1]        deliberate defects in a copy of the tree, each of which the tests must catch"
	@echo "  make clean                  remove build/ and plots/results/"
	@echo
	@echo "Options, for every build:"
	@echo "  ARCH=sm_90                  build for one GPU architecture (default: this machine's GPU, or a list)"
	@echo "  JOBS=N                      parallel build jobs (default: one per core)"
	@echo "  CCCL_HOME=/path             a newer CCCL checkout than the toolkit's, for every build (make clean first)"

need-nvcc:
	@if [ -z "$(NVCC)" ]; then \
	  echo "error: nvcc not found: building needs the CUDA toolkit ($(NVCC_MIN) or newer)," >&2; \
	  echo "       https://developer.nvidia.com/cuda-downloads (or set NVCC=/path/to/nvcc)" >&2; \
	  exit 2; fi
	@v=$$($(nvcc_release)); \
	if ! printf '%s\n' $(NVCC_MIN) "$$v" | sort -C -V; then \
	  echo "error: $(NVCC) is CUDA $${v:-of an unknown release}; building needs CUDA $(NVCC_MIN) or newer (CUB's DeviceReduce::TransformReduce)" >&2; \
	  exit 2; fi

# What a build here uses: the nvcc, its release, and the GPU code it is built for.
toolkit: need-nvcc
	@echo "nvcc: $(NVCC) (toolkit $(or $(CUDA_ROOT),not named by nvcc -dryrun)), CUDA $$($(nvcc_release)) (needs $(NVCC_MIN) or newer)"
	@echo "GPU code: $(strip $(ARCH_FLAGS))"
	@if [ "$(ARCH_FLAGS)" = -arch=native ]; then \
	  nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader | sed 's/^/  this machine'"'"'s GPU: /; s/, \([0-9]*\)\.\([0-9]*\)$$/, sm_\1\2/'; fi

# The flags of every CUDA build (ARCH=... as for a build), for the tests that build a file of their own.
print-NVCCFLAGS:
	@echo '$(NVCCFLAGS)'

# Rebuild the GPU objects when the compiler flags change (e.g. another ARCH).
$(BUILD)/flags.txt: need-nvcc
	@mkdir -p $(BUILD)
	@echo '$(NVCC) $(NVCCFLAGS)' | cmp -s - $@ || echo '$(NVCC) $(NVCCFLAGS)' > $@

# The programs that can be built here; one that no longer can (stage 12 after NCCL went missing) is removed
# with its description, so that a program left from another toolkit is neither run nor named as taking a
# type (save_description).
$(BUILD)/programs.txt: need-nvcc
	@mkdir -p $(BUILD)
	@rm -f $(foreach p,$(filter-out $(BUILDABLE_PROGRAMS),$(PROGRAMS)),$p $p.json $p.types)
	@echo '$(BUILDABLE_PROGRAMS)' | cmp -s - $@ || echo '$(BUILDABLE_PROGRAMS)' > $@

$(BUILD)/%.o: common/%.c $(COMMON_HEADERS)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: common/%.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(BUILDABLE_PROGRAMS): | $(BUILD)/programs.txt

# The record build (make stage-NN tree): the harness again, as the tree program's main (common/record.cu),
# and a stage's kernels compiled with -DRECORD_TREE (common/tree.h) into build/<stage>/tree, its
# exercise's solution into build/<stage>/tree-solution.
TREE_OBJS := $(BUILD)/harness_tree.o $(BUILD)/record.o $(HARNESS_PARTS) $(PROGRAM_OBJS) $(BUILD)/baseline_own.o
$(BUILD)/harness_tree.o: common/harness.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -DRECORD_TREE -c $< -o $@

# The speed-up column's baseline, the first stage's first GPU kernel (common/baseline.cu says how):
# baseline.o includes the first stage's reduce.cu beside any other program's table, every name of it made
# local but baseline_stage (and the compiler's own), so that another stage may reuse the first stage's
# names; the first stage's own program, and the record build, link baseline_own.o, which names the
# program's own table.
$(BUILD)/baseline.o: common/baseline.cu stages/$(BASELINE_STAGE)/reduce.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -DFIRST_STAGE_SOURCE='"../stages/$(BASELINE_STAGE)/reduce.cu"' -c $< -o $@
	objcopy --wildcard --keep-global-symbol='*baseline_stage*' --keep-global-symbol='DW.ref.*' $@
$(BUILD)/baseline_own.o: common/baseline.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
baseline_of = $(BUILD)/$(if $(filter $(BASELINE_STAGE),$1),baseline_own,baseline).o

# A stage's source compiles to an object of its own (build/<stage>/*.o), beside the common objects rather
# than after them, and is then linked with them into its program.
define harness_rules
$(BUILD)/$1/reduce.o: stages/$1/reduce.cu $(wildcard stages/$1/*.cuh) $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -c $$< -o $$@

$(BUILD)/$1/reduce: $(BUILD)/$1/reduce.o $(HARNESS_OBJS) $(call baseline_of,$1)
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@
	$$(call save_description,$$@)
endef
$(foreach s,$(HARNESS_STAGES),$(eval $(call harness_rules,$s)))

define tree_rules
$(BUILD)/$1/reduce-tree.o: stages/$1/reduce.cu $(wildcard stages/$1/*.cuh) $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -DRECORD_TREE -c $$< -o $$@

$(BUILD)/$1/tree: $(BUILD)/$1/reduce-tree.o $(TREE_OBJS)
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@
endef
$(foreach s,$(HARNESS_STAGES),$(eval $(call tree_rules,$s)))

# An exercise is built like its stage; its solution is the same file with solutions/NN_*.cu compiled
# in place of the stubs. (A stage with a program of its own builds its exercise in its stage.mk.)
define exercise_rules
$(BUILD)/$1/exercise.o: stages/$1/exercise.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -c $$< -o $$@

$(BUILD)/$1/exercise: $(BUILD)/$1/exercise.o $(HARNESS_OBJS) $(BUILD)/baseline.o
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@

$(BUILD)/$1/solution.o: stages/$1/exercise.cu solutions/$1.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -DSOLUTION_FILE='"../../solutions/$1.cu"' -c $$< -o $$@

$(BUILD)/$1/solution: $(BUILD)/$1/solution.o $(HARNESS_OBJS) $(BUILD)/baseline.o
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@
endef
$(foreach s,$(filter $(HARNESS_STAGES),$(EXERCISES)),$(eval $(call exercise_rules,$s)))
# make stage-NN grade compiles a student's file the same way, warnings allowed (GRADE_BUILD_<stage>: a stage
# whose exercise is built in its stage.mk).
grade_build = $(or $(GRADE_BUILD_$1),$(NVCC) $(GRADE_FLAGS) stages/$1/exercise.cu $(HARNESS_OBJS) $(BUILD)/baseline.o)

define tree_solution_rules
$(BUILD)/$1/tree-solution.o: stages/$1/exercise.cu solutions/$1.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -DRECORD_TREE -DSOLUTION_FILE='"../../solutions/$1.cu"' -c $$< -o $$@

$(BUILD)/$1/tree-solution: $(BUILD)/$1/tree-solution.o $(TREE_OBJS)
	$(NVCC) $(NVCCFLAGS) $$^ -o $$@
endef
$(foreach s,$(filter $(HARNESS_STAGES),$(SOLVED)),$(eval $(call tree_solution_rules,$s)))

# A demo is built again when a source of its stage that it may include changes.
$(BUILD)/%/demo: stages/%/demo.cu $(BUILD)/gpu.o $(BUILD)/check.o $(HOST_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(filter %.o,$^) -o $@
$(foreach s,$(DEMOS),$(eval $(BUILD)/$s/demo: $(filter-out stages/$s/demo.cu,$(wildcard stages/$s/*.cu stages/$s/*.cuh)) \
    $(COMMON_HEADERS) $(BUILD)/flags.txt))

# make stage-NN builds the stage's program (and demo); with a verb it only selects the stage, and the
# verb builds what it needs.
VERBS := run check demo diff sass profile sanitize tree exercise solution grade
$(foreach s,$(STAGES),$(eval stage-$(call stage_num,$s): \
    $(if $(filter $(VERBS),$(MAKECMDGOALS)),,$(call program_of,$s) $(if $(filter $s,$(DEMOS)),$(BUILD)/$s/demo)) ; @:))

# The exact-sum library (lib/): the exact sums of the stage whose folder holds exact_sum.cuh, its kernels built
# once more into a static and a shared library, a C API (lib/exact_sum.h) and an example program.
LIB := $(BUILD)/lib
EXACT_SUM_KERNELS := $(firstword $(wildcard stages/*/exact_sum.cuh))
LIB_BINS := $(LIB)/libexactsum.a $(LIB)/libexactsum.so $(LIB)/example $(LIB)/sum
ALL_BINS += $(LIB_BINS)
$(LIB)/exact_sum.o: lib/exact_sum.cu lib/exact_sum.h $(EXACT_SUM_KERNELS) $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fPIC -I$(dir $(EXACT_SUM_KERNELS)) -c $< -o $@
$(LIB)/libexactsum.a: $(LIB)/exact_sum.o
	ar rcs $@ $^
$(LIB)/libexactsum.so: $(LIB)/exact_sum.o
	$(NVCC) $(NVCCFLAGS) -shared $^ -o $@
$(LIB)/example: lib/example.cu $(LIB)/libexactsum.a
	$(NVCC) $(NVCCFLAGS) -Ilib $< $(LIB)/libexactsum.a -o $@
# make sum FILE=x.npy: the library's program for a file (lib/sum.cu); without FILE, its usage, before any build.
SUM_OBJS := $(LIB)/libexactsum.a $(BUILD)/cub.o $(BUILD)/gpu.o $(BUILD)/check.o $(BUILD)/timing.o $(HOST_OBJS)
$(LIB)/sum: lib/sum.cu lib/exact_sum.h $(SUM_OBJS) $(COMMON_HEADERS)
	$(NVCC) $(NVCCFLAGS) -Ilib $< $(SUM_OBJS) -o $@
sum: $(if $(FILE),$(LIB)/sum)
	@if [ -z "$(FILE)" ]; then \
	  echo 'usage: make sum FILE=x.npy [ARGS="--csv --out rows.npy --dtype T"]: the exact sum of a file (docs/exact-sum.md)' >&2; \
	  exit 2; fi
	$(LIB)/sum $(FILE) $(ARGS)
lib: $(LIB_BINS)

all: $(ALL_BINS)

programs:
	@printf '%s\n' $(PROGRAMS)

run: $(SELECTED_PROGRAMS)
	$(call need_stage,run)
	$(foreach s,$(SELECTED),@$(call start,$s,$(ARGS))$(newline))

# Every kernel at the check sizes, once for each check fill.
define check_stage
@p=$(call program_of,$1); sizes=$(call describe,$$p,check_sizes); fills=$(call describe,$$p,check_fills); \
if [ -z "$$sizes" ] || [ -z "$$fills" ]; then echo "error: $$p --describe names no check sizes or no check fills" >&2; exit 2; fi; \
for f in $$fills; do $(call start,$1,--check --n "$$sizes" --fill $$f --reps 3 --warmup 1 $(CHECK_ARGS_$1) $(ARGS)) || exit $$?; done
endef

check: $(SELECTED_PROGRAMS)
	$(call need_stage,check)
	$(foreach s,$(SELECTED),$(call check_stage,$s)$(newline))

demo: $(foreach s,$(filter $(DEMOS),$(SELECTED)),$(BUILD)/$s/demo)
	$(call need_stage,demo)
	@for s in $(SELECTED); do \
	  if [ -f stages/$$s/demo.cu ]; then $(BUILD)/$$s/demo || exit $$?; \
	  else echo "error: stage $$s has no demo (stages/$$s/demo.cu; stages with one:$(foreach s,$(DEMOS), $(call stage_num,$s)))" >&2; exit 2; fi; done

diff:
	$(call need_stage,diff)
	@for s in $(SELECTED); do scripts/stage_tool.sh diff $$s || exit $$?; done

sass: need-nvcc
	$(call need_stage,sass)
	$(foreach s,$(SELECTED),@$(if $(UNBUILDABLE_$s),echo "error: $(UNBUILDABLE_$s)" >&2; exit 2,scripts/stage_tool.sh sass $s $(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_$s))$(newline))

profile: $(SELECTED_PROGRAMS)
	$(call need_stage,profile)
	@for s in $(SELECTED); do scripts/stage_tool.sh profile $$s $(ARGS) || exit $$?; done

sanitize: $(SELECTED_PROGRAMS)
	$(call need_stage,sanitize)
	@for s in $(SELECTED); do scripts/stage_tool.sh sanitize $$s || exit $$?; done

# A stage on the harness has a record build; PROGRAM=solution records its exercise's solution instead.
TREE_PROGRAM := $(if $(filter solution,$(PROGRAM)),tree-solution,tree)
tree: $(foreach s,$(filter $(HARNESS_STAGES),$(if $(PROGRAM),$(filter $(if $(filter solution,$(PROGRAM)),$(SOLVED),$(EXERCISES)),$(SELECTED)),$(SELECTED))),$(BUILD)/$s/$(TREE_PROGRAM))
	$(call need_stage,tree)
	@for s in $(SELECTED); do scripts/tree.sh record $$s $(ARGS) || exit $$?; done

# Without a GPU it builds the exercise (warnings as errors) and says in one line that running it needs one.
exercise: $(foreach s,$(filter $(EXERCISES),$(SELECTED)),$(BUILD)/$s/exercise)
	$(call need_stage,exercise)
	@for s in $(SELECTED); do \
	  if [ "$(GPU_USABLE)" != yes ] && [ -f stages/$$s/exercise.cu ]; then \
	    echo "$(BUILD)/$$s/exercise built from stages/$$s/exercise.cu (warnings as errors); running it needs a GPU (Colab's free one: notebooks/colab.ipynb)"; \
	  else scripts/stage_tool.sh exercise $$s || exit $$?; fi; done

solution: $(foreach s,$(filter $(SOLVED),$(SELECTED)),$(BUILD)/$s/solution)
	$(call need_stage,solution)
	@for s in $(SELECTED); do scripts/stage_tool.sh solution $$s || exit $$?; done

grade: need-nvcc $(foreach s,$(filter $(EXERCISES),$(SELECTED)),$(call program_of,$s) $(HARNESS_OBJS) $(BUILD)/baseline.o) \
       $(foreach s,$(filter $(SOLVED),$(SELECTED)),$(BUILD)/$s/solution)
	$(call need_stage,grade FILE=student.cu)
	$(foreach s,$(SELECTED),@GRADE_BUILD='$(call grade_build,$s)' GRADE_DIR=$(BUILD)/grade/$s GPU_USABLE=$(GPU_USABLE) \
	  scripts/stage_tool.sh grade $s "$(FILE)" || exit $$?$(newline))

handout:
	@scripts/stage_tool.sh handout "$(OUT)"

tour: $(ALL_BINS)
	@scripts/tour.sh

audit: $(ALL_BINS)
	+@scripts/audit.sh $(PARTS)

# make bench builds only what it runs: the programs that need no launcher of their own (those start on
# one GPU) and their stages' demos; it times the build and the run apart.
BENCH_BINS := $(foreach s,$(STAGES),$(if $(value START_$s),,$(call program_of,$s) $(if $(filter $s,$(DEMOS)),$(BUILD)/$s/demo)))
export BENCH_PROGRAMS := $(filter $(PROGRAMS),$(BENCH_BINS))
bench:
	+@start=$$(date +%s); $(MAKE) --no-print-directory $(BENCH_BINS) || exit $$?; \
	BUILD_SECONDS=$$(($$(date +%s) - start)) scripts/bench.sh

accuracy: $(BENCH_BINS)
	@scripts/accuracy.sh

limits: $(BENCH_BINS)
	@scripts/limits.sh

reference:
	@scripts/docs.sh reference

docs:
	@scripts/docs.sh docs

docs-check:
	@scripts/docs.sh check

plot:
	@scripts/docs.sh plot $(CSV)

# The test suite (tests/run.py, tests/test_*.py): ONLY=PATTERN runs the tests that match, LIST=1 lists them.
# make test builds for the GPU present, or, without one, for one architecture and its PTX (TEST_ARCH); make
# test-full adds every fill, the sizes past 2^31, the sanitizers, ncu and the notebook's cells, and builds
# what make all builds. The makes the tests run are make's own first level (each a job per core).
TEST_ARCH := sm_75
TEST_RUN = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL JOBS=$(JOBS) python3 tests/run.py $(if $(ONLY),--only '$(ONLY)') $(if $(LIST),--list)
test:
	@$(if $(or $(ARCH),$(filter yes,$(GPU_USABLE))),,ARCH=$(TEST_ARCH)) $(if $(ARCH),ARCH=$(ARCH)) $(TEST_RUN)

test-full:
	@TEST_FULL=1 ARCH=$(or $(ARCH),all) $(TEST_RUN)

# Deliberate defects the tests must catch (tests/mutants.py), each in a copy of the tree; GPU=1 adds those
# only a GPU shows. It builds as make test does.
mutants:
	@$(if $(or $(ARCH),$(filter yes,$(GPU_USABLE))),,ARCH=$(TEST_ARCH)) $(if $(ARCH),ARCH=$(ARCH)) \
	  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL JOBS=$(JOBS) python3 tests/mutants.py $(if $(GPU),--gpu) $(if $(ONLY),--only '$(ONLY)')

# How long make test and make test-full take in a fresh clone of HEAD (build included), and their verdicts.
test-time:
	@scripts/test_time.sh

clean:
	rm -rf $(BUILD) plots/results
