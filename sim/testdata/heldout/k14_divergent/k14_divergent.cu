// divergent while-loops with break/continue, nested divergence, early return, and a loop whose
// trip count depends on the thread; reconvergence then a __syncthreads-free block store.
extern "C" __global__ void divergent(const int* in, int* out, int* iters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    if (v < 0) {               // early return for negative inputs
        out[i] = -1;
        iters[i] = 0;
        return;
    }
    int acc = 0, k = 0;
    while (v != 1 && v != 0) {
        ++k;
        if (k > 200) break;
        if (v % 3 == 0) { v /= 3; acc += 3; continue; }
        if (v & 1) {
            v = 3 * v + 1;
            if ((v & 7) == 4) { acc ^= k; }
            else { acc += v & 15; }
        } else {
            v >>= 1;
            if (k & 1) continue;
            acc -= 1;
        }
    }
    int j = 0;
    do { acc += j * (i & 3); } while (++j < (i & 7));
    out[i] = acc;
    iters[i] = k;
}
