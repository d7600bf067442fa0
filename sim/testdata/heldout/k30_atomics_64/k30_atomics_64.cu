// 64-bit and shared floating atomics: atomicCAS on unsigned long long (atom.cas.b64),
// atomicMin/Max on long long / unsigned long long, shared double atomicAdd, shared float atomicExch,
// atomicSub; returned old values used (counter-based slot reservation, compared as a sorted set
// via a bitmap).
extern "C" __global__ void atomics64(const long long* in, int n, unsigned long long* gcas, long long* gmm,
                                     unsigned long long* umm, double* dsum, unsigned* slots_used, int* gsub) {
    __shared__ double sd;
    __shared__ float sx;
    __shared__ unsigned counter;
    if (threadIdx.x == 0) { sd = 0.0; sx = -1.0f; counter = 0; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long v = in[i];
        unsigned long long old = *gcas, assumed;
        do { assumed = old; old = atomicCAS(gcas, assumed, assumed + (unsigned long long)(v & 0xff)); } while (old != assumed);
        atomicMin(&gmm[0], v);
        atomicMax(&gmm[1], v);
        atomicMin(&umm[0], (unsigned long long)v);
        atomicMax(&umm[1], (unsigned long long)v);
        atomicAdd(&sd, (double)(v % 1000) * 0.5);
        atomicExch(&sx, 2.0f);
        unsigned slot = atomicAdd(&counter, 1u);
        atomicOr(&slots_used[blockIdx.x], 1u << (slot & 31));
        atomicSub(gsub, (int)(v & 0xffff));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(dsum, sd + (double)sx);
        slots_used[8 + blockIdx.x] = counter;
    }
}
