__device__ __noinline__ int twice(int a) { return 2 * a; }
extern "C" __global__ void k(int* out) { out[threadIdx.x] = twice((int)threadIdx.x); }
