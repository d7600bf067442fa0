// Recursion cannot be inlined: regwatt must reject it with an error naming the function and line.
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void k(int* out) { out[threadIdx.x] = fib((int)threadIdx.x & 7); }
