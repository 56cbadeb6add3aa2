/* See the tree: a stage's kernels built a second time with -DRECORD_TREE (build/<stage>/tree), in which one block
 * records every shared-memory access and every shuffle, with its thread and its step; the record is written as a
 * CSV and scripts/tree.sh draws the reduction tree, the active lanes and the shared-memory banks from it. The
 * kernels' source is the same in both builds (tree.h): a TRACED shared array is an array of recording proxies
 * here, and __syncthreads, __syncwarp and the __shfl_*_sync intrinsics become recording wrappers (a barrier ends
 * a step for the threads it orders; a shuffle ends one for the lane that makes it). A TRACED_LD global load is
 * recorded too: the elements a thread adds in registers before the tree are its leaves, and the step after its
 * loads is its first in the tree. Only block 0 of each launch records. A library header read after this one is
 * recorded too: stage 10 reads cooperative groups after stage.h, so cg::reduce's own shuffles and its
 * block.sync() (a __barrier_sync) are in the record. CUB's are not: its shuffles are inline PTX and its shared
 * memory an opaque TempStorage, so a kernel built on CUB says that it cannot be recorded. */
#ifndef REDUCE_TREE_RECORD_H
#define REDUCE_TREE_RECORD_H

#include <stdint.h>

#include "check.h"

/* What one record line is: a thread's access to shared memory (addr: its shared-memory address, whose
 * 4-byte word mod 32 is the bank; the block's arrays need not start at 0, the drawing counts slots from
 * the lowest address recorded; bytes: its width), a shuffle (addr: its delta, lane mask or source lane
 * as given; src: the lane it read, -1 where the lane kept its own value), the thread's arrival at a
 * __syncthreads (a value it then shuffles without reading shared memory first is a new one, not the
 * one it held before) or a load from global memory (addr: its element's index in the input). */
enum { TREE_LD = 1, TREE_ST, TREE_SHFL_DOWN, TREE_SHFL_UP, TREE_SHFL_XOR, TREE_SHFL_IDX, TREE_BAR, TREE_GLD };
typedef struct {
    uint32_t step, thread, seq; /* seq orders one thread's events */
    uint16_t op, bytes;
    uint32_t addr;
    int32_t src;
} TreeEvent;

#define TREE_MAX_THREADS 1024
typedef struct {
    unsigned count, capacity, threads, block_step;
    unsigned warp_step[TREE_MAX_THREADS / 32];
    unsigned step[TREE_MAX_THREADS], seq[TREE_MAX_THREADS];
    unsigned char loaded[TREE_MAX_THREADS]; /* global loads since the thread's last other event */
    TreeEvent *events;
} TreeLog;

#if defined(RECORD_TREE) && defined(__CUDACC__)

static __device__ TreeLog *tree_log; /* set by tree_bind (the STAGE macro defines it in the stage's file) */

__device__ inline unsigned tree_thread(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline bool tree_on(void) { return tree_log && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0; }

/* A thread's first event after its global loads starts a step of its own: the loads' sum is made there. */
__device__ inline void tree_settle(unsigned t)
{
    if (tree_log->loaded[t]) {
        tree_log->loaded[t] = 0;
        tree_log->step[t]++;
    }
}

__device__ inline void tree_event(unsigned op, unsigned bytes, unsigned addr, int src)
{
    if (!tree_on()) return;
    unsigned t = tree_thread();
    if (op == TREE_GLD) tree_log->loaded[t] = 1;
    else tree_settle(t);
    if (t == 0) tree_log->threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned i = atomicAdd(&tree_log->count, 1u);
    if (i < tree_log->capacity)
        tree_log->events[i] = {tree_log->step[t], t, tree_log->seq[t]++, (uint16_t)op, (uint16_t)bytes, addr, src};
}

/* An element of a shared array that records its reads and writes (same size and place as a T). It
 * cannot be copied: a copy would read the element unrecorded, into a register that is no slot. So a
 * template that would deduce its type from an element (cg::reduce(tile, s[i], op)) is given the
 * element's value, T(s[i]), or its type, f<T>(s[i]); the record build refuses to compile otherwise. */
template <typename T>
struct Traced {
    T v;
    Traced() = default;
    Traced(const Traced &) = delete;
    __device__ unsigned where() const volatile { return (unsigned)__cvta_generic_to_shared((const void *)this); }
    __device__ operator T() const { tree_event(TREE_LD, sizeof(T), where(), -1); return v; }
    __device__ operator T() const volatile { tree_event(TREE_LD, sizeof(T), where(), -1); return *(const volatile T *)&v; }
    __device__ Traced &operator=(const T &x) { tree_event(TREE_ST, sizeof(T), where(), -1); v = x; return *this; }
    __device__ void operator=(const T &x) volatile { tree_event(TREE_ST, sizeof(T), where(), -1); *(volatile T *)&v = x; }
    __device__ Traced &operator=(const Traced &o) { T x = o; return *this = x; }
    __device__ Traced &operator+=(const T &x) { T a = *this; return *this = a + x; }
    __device__ void operator+=(const T &x) volatile { T a = *this; *this = a + x; }
};
#define TRACED(T) Traced<T>

/* A global load the record follows: TRACED_LD(x[i]) reads x[i] as the plain build does. */
template <typename T>
__device__ inline T tree_load(const T *p)
{
    tree_event(TREE_GLD, sizeof(T), (unsigned)((uintptr_t)p / sizeof(T)), -1);
    return *p;
}
#define TRACED_LD(x) tree_load(&(x))

/* A barrier ends the step of the threads it orders: their next step is one past the latest of theirs. */
__device__ inline void tree_syncthreads(void)
{
    if (!tree_on()) { __syncthreads(); return; }
    unsigned t = tree_thread();
    tree_event(TREE_BAR, 0, 0, -1);
    atomicMax(&tree_log->block_step, tree_log->step[t]);
    __syncthreads();
    tree_log->step[t] = tree_log->block_step + 1;
    __syncthreads();
}
/* A named barrier: barrier 0 is __syncthreads' (cooperative groups' block.sync() uses it). */
__device__ inline void tree_barrier_sync(unsigned id)
{
    if (id == 0) tree_syncthreads();
    else __barrier_sync(id);
}
__device__ inline void tree_syncwarp(unsigned mask = 0xffffffffu)
{
    if (!tree_on()) { __syncwarp(mask); return; }
    unsigned t = tree_thread();
    tree_settle(t);
    atomicMax(&tree_log->warp_step[t / 32], tree_log->step[t]);
    __syncwarp(mask);
    tree_log->step[t] = tree_log->warp_step[t / 32] + 1;
    __syncwarp(mask);
}

/* A shuffle: the lane it read within its group of `width` lanes (-1: none, the lane keeps its value). */
__device__ inline void tree_shuffle(unsigned op, unsigned arg, int src)
{
    tree_event(op, 0, arg, src);
    if (tree_on()) tree_log->step[tree_thread()]++;
}
__device__ inline int tree_lane(void) { return (int)(tree_thread() % 32); }
template <typename T>
__device__ T tree_shfl_down(unsigned mask, T v, unsigned delta, int width = 32)
{
    T r = __shfl_down_sync(mask, v, delta, width);
    int lane = tree_lane();
    tree_shuffle(TREE_SHFL_DOWN, delta, lane % width + (int)delta < width ? lane + (int)delta : -1);
    return r;
}
template <typename T>
__device__ T tree_shfl_up(unsigned mask, T v, unsigned delta, int width = 32)
{
    T r = __shfl_up_sync(mask, v, delta, width);
    int lane = tree_lane();
    tree_shuffle(TREE_SHFL_UP, delta, lane % width >= (int)delta ? lane - (int)delta : -1);
    return r;
}
template <typename T>
__device__ T tree_shfl_xor(unsigned mask, T v, int lane_mask, int width = 32)
{
    T r = __shfl_xor_sync(mask, v, lane_mask, width);
    int lane = tree_lane(), src = lane ^ lane_mask;
    tree_shuffle(TREE_SHFL_XOR, (unsigned)lane_mask, src / width == lane / width && src != lane ? src : -1);
    return r;
}
template <typename T>
__device__ T tree_shfl_idx(unsigned mask, T v, int src_lane, int width = 32)
{
    T r = __shfl_sync(mask, v, src_lane, width);
    int lane = tree_lane(), src = lane - lane % width + src_lane % width;
    tree_shuffle(TREE_SHFL_IDX, (unsigned)src_lane, src != lane ? src : -1);
    return r;
}
#define __syncthreads() tree_syncthreads()
#define __barrier_sync(id) tree_barrier_sync(id)
#define __syncwarp(...) tree_syncwarp(__VA_ARGS__)
#define __shfl_down_sync(...) tree_shfl_down(__VA_ARGS__)
#define __shfl_up_sync(...) tree_shfl_up(__VA_ARGS__)
#define __shfl_xor_sync(...) tree_shfl_xor(__VA_ARGS__)
#define __shfl_sync(...) tree_shfl_idx(__VA_ARGS__)

#define TREE_BIND \
    void tree_bind(TreeLog *log) { CUDA_CHECK(cudaMemcpyToSymbol(tree_log, &log, sizeof log)); }
#endif

/* Where a stage's kernels log: defined by TREE_BIND (in STAGE), bound by record.cu before the launch. */
void tree_bind(TreeLog *log);

#endif
