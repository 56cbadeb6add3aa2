/* Solution of stages/09_rows/exercise.cu (compiled in place of its stub), and the packed_share of the
 * stage's own kernels (stages/09_rows/reduce.cu includes it). */
__device__ __forceinline__ float packed_share(const float *p, uint64_t cols, unsigned lane, unsigned width)
{
    uint64_t head = ((16 - (uintptr_t)p % 16) % 16) / sizeof(float);
    if (head > cols) head = cols;
    const Packed<float, PACK> *packs = reinterpret_cast<const Packed<float, PACK> *>(p + head);
    uint64_t count = (cols - head) / PACK, tail = head + count * PACK;
    float s = 0.0f;
    for (uint64_t i = lane; i < head; i += width) s += p[i]; /* a loop: a group of fewer than 3 lanes too */
    for (uint64_t i = lane; i < count; i += width) {
        Packed<float, PACK> v = packs[i];
        s += (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
    }
    for (uint64_t i = tail + lane; i < cols; i += width) s += p[i];
    return s;
}
