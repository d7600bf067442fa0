// A call through a function pointer (PTX indirect call with a .callprototype): unsupported, must be
// a clear error.
__device__ __noinline__ int add1(int x) { return x + 1; }
__device__ __noinline__ int dbl(int x) { return 2 * x; }
typedef int (*fn_t)(int);
__device__ fn_t table[2] = {add1, dbl};
extern "C" __global__ void k(int* out, int sel) { out[threadIdx.x] = table[sel & 1]((int)threadIdx.x); }
