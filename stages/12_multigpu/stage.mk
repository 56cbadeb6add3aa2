# Stage 12 (the sum across GPUs with NCCL): a program of its own, included by the top Makefile. Its verbs
# are every stage's; run and check start it through the launcher below:
#   make stage-12 run|check [MODE=threads|processes] [GPUS=G] [ARGS="..."]
#       threads:   one process drives every GPU (ncclCommInitAll), GPUS is passed as --gpus
#       processes: G copies, one per GPU (--rank/--nranks/--id-file), started together; fails if any fails
#   NCCL_HOME=/path   use the NCCL in /path/include and /path/lib (or lib64), and nothing else
# Without NCCL, make all leaves the program out and every verb that needs it says why (exit 2).

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
nccl_empty :=
nccl_space := $(nccl_empty) $(nccl_empty)
NCCL_LOOKED := $(subst |, and ,$(subst $(nccl_space),; ,$(strip $(NCCL_CANDIDATES))))

MULTIGPU := $(BUILD)/12_multigpu/multigpu
MODE ?= threads
USAGE_ERROR_12_multigpu = $(if $(filter-out threads processes,$(MODE)),MODE=$(MODE): give MODE=threads (one process$(comma) every GPU) or MODE=processes (one per GPU))
GPUS ?=
PROGRAMS += $(MULTIGPU)

# Each block of help text starts on a line of its own (make help drops the empty lines).
define STAGE_HELP +=

  make stage-12 run|check [MODE=threads|processes] [GPUS=G]
                              stage 12 on several GPUs: one process drives G GPUs (MODE=threads,
                              the default), or G copies run, one per GPU (MODE=processes); G: GPUS,
                              else every visible GPU; NCCL_HOME=/path: the NCCL to build with
endef

# The check's all-reduce: a few message sizes, not the default 1M ... 1G.
CHECK_ARGS_12_multigpu := --sizes 4K,1M,16M

ifeq ($(NCCL_FOUND),1)
ALL_BINS += $(MULTIGPU)
NVCCFLAGS_12_multigpu := -I$(NCCL_INC)

# Stage 08's kernels, compiled on their own: the program calls them through stage 08's table.
$(BUILD)/12_multigpu/roofline.o: stages/08_roofline/reduce.cu common/common.h common/host.h $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(MULTIGPU): stages/12_multigpu/multigpu.cu $(BUILD)/12_multigpu/roofline.o $(PROGRAM_OBJS) \
             common/common.h common/host.h $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_12_multigpu) $(filter %.cu %.o,$^) -L$(NCCL_LIB) -Xlinker -rpath,$(NCCL_LIB) $(NCCL_LINK) -o $@
else
# Always says so, even over a program left from a build with NCCL.
.PHONY: $(MULTIGPU)
$(MULTIGPU):
	@echo "error: $(UNBUILDABLE_12_multigpu)" >&2; exit 2
UNBUILDABLE_12_multigpu := stage 12 needs NCCL, and it was not found (looked in $(NCCL_LOOKED); set NCCL_HOME)
endif

# The launch, with the program's options as $1 (a subshell: the loops run it once per check fill).
# processes: G = GPUS, else the GPUs in CUDA_VISIBLE_DEVICES, else those nvidia-smi lists. The id file
# is removed first (a stale one would send the ranks to a dead rank 0); on the first failure the other
# copies are stopped, since they would wait for the failed one in NCCL's setup.
define START_12_multigpu
( case "$(MODE)" in \
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
  esac )
endef
