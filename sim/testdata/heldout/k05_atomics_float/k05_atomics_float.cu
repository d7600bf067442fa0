// float atomics: atomicAdd float (integer-valued, so order-free), atomicCAS loop float max
// (negative values), atomicAdd double (sm_60+), atomicExch float.
__device__ float atomicMaxFloat(float* addr, float v) {
    int* a = (int*)addr;
    int old = *a, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(a, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}
extern "C" __global__ void atomics_float(const float* x, int n, float* sums, float* maxes, double* dsum, float* last) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    atomicAdd(&sums[i % 4], floorf(v * 8.0f));
    atomicMaxFloat(&maxes[i % 3], v);
    atomicAdd(dsum, (double)floorf(v * 1024.0f) * 0.25);
    if (i == n - 1) atomicExch(last, v);
}
