# Stage 12 (the sum across GPUs with NCCL): a program of its own, included by the top Makefile. Its verbs
# are every stage's; run and check start it in one of two ways:
#   make stage-12 run|check [MODE=threads|mpi] [GPUS=G] [ARGS="..."]
#       threads: one process drives every GPU (ncclCommInitAll), GPUS is passed as --gpus
#       mpi:     mpirun -np G starts G copies with --mpi, one per GPU (ncclCommInitRank)
#   NCCL_HOME=/path   use the NCCL in /path/include and /path/lib (or lib64), and nothing else
#   MPI_HOME=/path    build the MPI mode with the MPI in /path (mpi.h, libmpi.so, bin/mpirun), else with
#                     the one `mpicc --showme` names; MPIRUN_FLAGS: more options for mpirun
# Without NCCL, make all leaves the program out and every verb that needs it says why (exit 2). Without
# MPI, the program is built with the threads mode alone, and MODE=mpi says how to get the other (exit 2).

# Where NCCL is: $(NCCL_HOME) if set; else the CUDA toolkit of $(NVCC); else the system's.
# Each candidate is INCLUDE_DIR|LIB_DIR; the first with nccl.h and libnccl.so (or only libnccl.so.2,
# as in the nvidia-nccl Python wheels) wins.
ifdef NCCL_HOME
  NCCL_CANDIDATES := $(NCCL_HOME)/include|$(NCCL_HOME)/lib $(NCCL_HOME)/include|$(NCCL_HOME)/lib64
else
  NCCL_CANDIDATES := $(if $(CUDA_ROOT),$(foreach l,lib lib64 targets/x86_64-linux/lib targets/sbsa-linux/lib,\
                       $(CUDA_ROOT)/include|$(CUDA_ROOT)/$l)) \
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

# Where MPI is: $(MPI_HOME) if set (its include/ and lib/, or Debian's lib/<triplet>/openmpi/ inside it),
# else the folders Open MPI's compiler wrapper names (mpicc --showme). The first folder with mpi.h and
# the first with libmpi.so win; mpirun is $(MPI_HOME)/bin/mpirun, else the one on the PATH.
ifdef MPI_HOME
  MPI_DIRS := $(MPI_HOME)/include $(MPI_HOME)/lib $(MPI_HOME)/lib64 \
              $(wildcard $(MPI_HOME)/lib/*/openmpi/include $(MPI_HOME)/lib/*/openmpi/lib)
  MPIRUN := $(firstword $(wildcard $(MPI_HOME)/bin/mpirun) $(shell command -v mpirun 2>/dev/null))
  MPI_LOOKED := looked in MPI_HOME=$(MPI_HOME)
else
  MPI_DIRS := $(shell mpicc --showme:incdirs 2>/dev/null; mpicc --showme:libdirs 2>/dev/null)
  MPIRUN := $(shell command -v mpirun 2>/dev/null)
  MPI_LOOKED := $(if $(MPI_DIRS),looked where mpicc --showme says: $(MPI_DIRS),no mpicc on the PATH and no MPI_HOME)
endif
MPI_INC := $(firstword $(foreach d,$(MPI_DIRS),$(if $(wildcard $d/mpi.h),$d)))
MPI_LIB := $(firstword $(foreach d,$(MPI_DIRS),$(if $(wildcard $d/libmpi.so),$d)))
MPI_FOUND := $(if $(and $(MPI_INC),$(MPI_LIB)),1)
MPI_HOWTO := install Open MPI (Debian$(comma) Ubuntu: apt-get install libopenmpi-dev openmpi-bin) or set MPI_HOME=/path
MPI_STAMP := $(BUILD)/12_multigpu/mpi.txt

MULTIGPU := $(BUILD)/12_multigpu/multigpu
MODE ?= threads
# Open MPI binds each rank to one core by default; the program's host fill and fp64 reference (OpenMP)
# want every core.
MPIRUN_FLAGS ?= --bind-to none
USAGE_ERROR_12_multigpu = $(if $(filter-out threads mpi,$(MODE)),MODE=$(MODE): give MODE=threads (one process$(comma) every GPU) \
  or MODE=mpi (mpirun starts one process per GPU),$(if $(filter mpi,$(MODE)),$(if $(MPI_FOUND),$(if $(MPIRUN),,MODE=mpi \
  needs mpirun$(comma) and none was found ($(MPI_LOOKED); no mpirun on the PATH): $(MPI_HOWTO)),MODE=mpi needs MPI$(comma) \
  and none was found ($(MPI_LOOKED)): $(MPI_HOWTO))))
GPUS ?=
MPI_ROOT_NOTE := note: running as root, where Open MPI's mpirun stops with a warning: set OMPI_ALLOW_RUN_AS_ROOT=1 \
  and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, add --allow-run-as-root to MPIRUN_FLAGS, or run as a user
PROGRAMS += $(MULTIGPU)

# Each block of help text starts on a line of its own (make help drops the empty lines).
define STAGE_HELP +=

  make stage-12 run|check [MODE=threads|mpi] [GPUS=G]
                              stage 12 on several GPUs: one process drives G GPUs (MODE=threads,
                              the default), or mpirun -np G starts one process per GPU (MODE=mpi);
                              G: GPUS, else every visible GPU; NCCL_HOME=/path: the NCCL to build
                              with; MPI_HOME=/path: the MPI (else mpicc's), MPIRUN_FLAGS: mpirun's
endef

# The check's all-reduce: a few message sizes, not the default 1M ... 1G.
CHECK_ARGS_12_multigpu := --sizes 4K,1M,16M

ifeq ($(NCCL_FOUND),1)
ALL_BINS += $(MULTIGPU)
NVCCFLAGS_12_multigpu := -I$(NCCL_INC) $(if $(MPI_FOUND),-DWITH_MPI -I$(MPI_INC))
MPI_LINK := $(if $(MPI_FOUND),-L$(MPI_LIB) -Xlinker -rpath$(comma)$(MPI_LIB) -lmpi)

# The MPI the program was built with (or none): another one, or none where there was one, builds it again.
$(MPI_STAMP): need-nvcc
	@mkdir -p $(@D)
	@echo '$(or $(MPI_LINK),no MPI)' | cmp -s - $@ || echo '$(or $(MPI_LINK),no MPI)' > $@

# Stage 08's kernels, compiled on their own: the program calls them through stage 08's table.
$(BUILD)/12_multigpu/roofline.o: stages/08_roofline/reduce.cu $(COMMON_HEADERS) $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(MULTIGPU): stages/12_multigpu/multigpu.cu $(BUILD)/12_multigpu/roofline.o $(PROGRAM_OBJS) \
             $(COMMON_HEADERS) $(BUILD)/flags.txt $(MPI_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVCCFLAGS_12_multigpu) $(filter %.cu %.o,$^) -L$(NCCL_LIB) -Xlinker -rpath,$(NCCL_LIB) $(NCCL_LINK) \
	    $(MPI_LINK) -o $@
	$(call save_description,$@)
	$(if $(MPI_FOUND),,@echo "note: stage 12 built without MPI ($(MPI_LOOKED)), so MODE=threads alone runs; for MODE=mpi$(comma) $(MPI_HOWTO)" >&2)
else
# Always says so, even over a program left from a build with NCCL.
.PHONY: $(MULTIGPU)
$(MULTIGPU):
	@echo "error: $(UNBUILDABLE_12_multigpu)" >&2; exit 2
UNBUILDABLE_12_multigpu := stage 12 needs NCCL, and it was not found (looked in $(NCCL_LOOKED); set NCCL_HOME)
endif

# The launch, with the program's options as $1 (a subshell: the loops run it once per check fill). mpi:
# G = GPUS, else the GPUs in CUDA_VISIBLE_DEVICES, else those nvidia-smi lists; mpirun starts the G
# copies and ends them all when one fails. As root, Open MPI's mpirun refuses to start unless both
# OMPI_ALLOW_RUN_AS_ROOT variables are set or it is given --allow-run-as-root: a line says so first (and
# sets nothing: running as root is the user's choice to make).
define START_12_multigpu
( case "$(MODE)" in \
  threads) $(MULTIGPU) $(if $(GPUS),--gpus $(GPUS)) $1 ;; \
  mpi) \
    g="$(GPUS)"; \
    if [ -z "$$g" ] && [ -n "$${CUDA_VISIBLE_DEVICES+set}" ]; then g=$$(echo "$$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .); fi; \
    if [ -z "$$g" ]; then g=$$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); fi; \
    case "$$g" in ''|*[!0-9]*|0) \
      echo "error: no CUDA-capable GPU found to start one process per GPU on (GPUS=G chooses G)" >&2; exit 3 ;; esac; \
    if [ "$$(id -u)" = 0 ] && { [ -z "$${OMPI_ALLOW_RUN_AS_ROOT:-}" ] || [ -z "$${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-}" ]; } && \
       case " $(MPIRUN_FLAGS) " in *" --allow-run-as-root "*) false ;; *) true ;; esac; then \
      echo "$(MPI_ROOT_NOTE)" >&2; fi; \
    $(MPIRUN) -np "$$g" $(MPIRUN_FLAGS) $(MULTIGPU) --mpi $1 ;; \
  *) echo "error: MODE=$(MODE): give MODE=threads (one process, every GPU) or MODE=mpi (one process per GPU)" >&2; exit 2 ;; \
  esac )
endef
