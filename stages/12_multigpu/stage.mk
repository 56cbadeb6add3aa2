# Stage 12 (the sum across GPUs with NCCL): included by the top Makefile after ALL_BINS is defined.
#   make stage-12                                  build build/12_multigpu/multigpu (if NCCL is found)
#   make multigpu-run [MODE=threads|processes] [GPUS=G] [ARGS="..."]
#       threads:   one process drives every GPU (ncclCommInitAll), GPUS is passed as --gpus
#       processes: G copies, one per GPU (--rank/--nranks/--id-file), started together; fails if any fails
#   NCCL_HOME=/path   use the NCCL in /path/include and /path/lib (or lib64), and nothing else

# Where NCCL is: $(NCCL_HOME) if set; else the CUDA toolkit of $(NVCC); else the system's.
# Each candidate is INCLUDE_DIR|LIB_DIR; the first with nccl.h and libnccl.so (or only libnccl.so.2,
# as in the nvidia-nccl Python wheels) wins.
NCCL_CUDA_ROOT := $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
ifdef NCCL_HOME
  NCCL_CANDIDATES := $(NCCL_HOME)/include|$(NCCL_HOME)/lib $(NCCL_HOME)/include|$(NCCL_HOME)/lib64
else
  NCCL_CANDIDATES := $(if $(NCCL_CUDA_ROOT),$(foreach l,lib lib64 targets/x86_64-linux/lib targets/sbsa-linux/lib,\
                       $(NCCL_CUDA_ROOT)/include|$(NCCL_CUDA_ROOT)/$l)) \
                     /usr/include|/usr/lib/x86_64-linux-gnu /usr/include|/usr/lib/aarch64-linux-gnu
endif
nccl_dirs = $(subst |, ,$1)
nccl_has = $(and $(wildcard $(word 1,$(call nccl_dirs,$1))/nccl.h),$(wildcard $(addprefix $(word 2,$(call nccl_dirs,$1))/,libnccl.so libnccl.so.2)))
NCCL_PAIR := $(firstword $(foreach c,$(NCCL_CANDIDATES),$(if $(call nccl_has,$c),$c)))
NCCL_INC := $(word 1,$(call nccl_dirs,$(NCCL_PAIR)))
NCCL_LIB := $(word 2,$(call nccl_dirs,$(NCCL_PAIR)))
NCCL_FOUND := $(if $(NCCL_PAIR),1)
NCCL_LINK := $(if $(wildcard $(NCCL_LIB)/libnccl.so),-lnccl,-l:libnccl.so.2)
nccl_comma := ,
nccl_empty :=
nccl_space := $(nccl_empty) $(nccl_empty)
NCCL_LOOKED := $(subst |, and ,$(subst $(nccl_space),; ,$(strip $(NCCL_CANDIDATES))))

MULTIGPU := $(BUILD)/12_multigpu/multigpu
MODE ?= threads
GPUS ?=

.PHONY: stage-12 multigpu-run multigpu-check

ifeq ($(NCCL_FOUND),1)
ALL_BINS += $(MULTIGPU)

stage-12: $(MULTIGPU)

# Stage 08's kernels, compiled on their own: the program calls them through stage 08's table.
$(BUILD)/12_multigpu/roofline.o: stages/08_roofline/reduce.cu common/common.h common/host.h $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(MULTIGPU): stages/12_multigpu/multigpu.cu $(BUILD)/12_multigpu/roofline.o $(BUILD)/check.o $(BUILD)/host.o \
             common/common.h common/host.h $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -I$(NCCL_INC) $(filter %.cu %.o,$^) -L$(NCCL_LIB) -Xlinker -rpath,$(NCCL_LIB) $(NCCL_LINK) -o $@

# The launch, with the program's options as $1. processes: G = GPUS, else the GPUs in
# CUDA_VISIBLE_DEVICES, else those nvidia-smi lists. The id file is removed first (a stale one would
# send the ranks to a dead rank 0); on the first failure the other copies are stopped, since they
# would wait for the failed one in NCCL's setup.
define multigpu_launch
	@case "$(MODE)" in \
	threads) $(MULTIGPU) $(if $(GPUS),--gpus $(GPUS)) $1 ;; \
	processes) \
	  g="$(GPUS)"; \
	  if [ -z "$$g" ] && [ -n "$${CUDA_VISIBLE_DEVICES+set}" ]; then g=$$(echo "$$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .); fi; \
	  if [ -z "$$g" ]; then g=$$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); fi; \
	  case "$$g" in ''|*[!0-9]*|0) \
	    echo "error: no CUDA-capable GPU found to start one process per GPU on (GPUS=G chooses G)" >&2; exit 3 ;; esac; \
	  id=$(BUILD)/12_multigpu/nccl-id.$$$$; rm -f "$$id"; pids=; \
	  for r in $$(seq 0 $$((g - 1))); do $(MULTIGPU) --rank $$r --nranks $$g --id-file "$$id" $1 & pids="$$pids $$!"; done; \
	  status=0; left=$$g; \
	  while [ $$left -gt 0 ]; do \
	    wait -n; rc=$$?; left=$$((left - 1)); \
	    if [ $$rc -ne 0 ] && [ $$status -eq 0 ]; then status=$$rc; kill $$pids 2>/dev/null; fi; \
	  done; \
	  rm -f "$$id"; \
	  if [ $$status -ne 0 ]; then echo "error: one of the $$g processes failed (exit $$status)" >&2; fi; \
	  exit $$status ;; \
	*) echo "error: MODE=$(MODE): give MODE=threads (one process, every GPU) or MODE=processes (one per GPU)" >&2; exit 2 ;; \
	esac
endef

multigpu-run: $(MULTIGPU)
	$(call multigpu_launch,$(ARGS))

# Small sizes, few reps, exit 1 on a failed check: what `make stage-12 check` runs.
multigpu-check: $(MULTIGPU)
	$(call multigpu_launch,--check --n 1000003 --sizes 4K$(nccl_comma)1M$(nccl_comma)16M --reps 3 --warmup 1 $(ARGS))

else
stage-12 multigpu-run multigpu-check:
	@echo "stage 12 skipped: NCCL not found (looked in $(NCCL_LOOKED); set NCCL_HOME)"
endif

# `make stage-12 run` and `make stage-12 check`: the top Makefile's run and check loops know only the
# single-GPU stages, so these add the stage-12 work as a prerequisite when stage-12 is named.
ifneq ($(filter stage-12,$(MAKECMDGOALS)),)
run: multigpu-run
check: multigpu-check
endif

