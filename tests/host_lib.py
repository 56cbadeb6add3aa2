"""What the host half's test modules (test_make, test_programs, test_teaching) share beyond tests/support.py:
a PATH without the CUDA tools, and a stage's number."""
import os
import shutil

from tests import support

# What make and the scripts need on a PATH without the CUDA tools (make programs too).
BASIC_TOOLS = "bash dirname basename cat sed awk grep ls xargs mktemp rm make head tail tr uniq sort".split()


def without_cuda_tools(test):
    """A folder of the basic utilities alone, for PATH (removed when TEST ends): no nvcc, ncu,
    compute-sanitizer, cuobjdump or nvidia-smi."""
    folder = os.path.join(support.scratch(test), "bin")
    os.mkdir(folder)
    for tool in BASIC_TOOLS:
        os.symlink(shutil.which(tool), os.path.join(folder, tool))
    return folder


def num(stage):
    """NN of a stage folder NN_name: make stage-NN names it."""
    return stage.split("_")[0]
