// dynamic shared memory (extern __shared__) + a static shared array in the same kernel:
// each block reverses its chunk and adds the block sum computed through the static array.
extern "C" __global__ void dyn_reverse(const int* in, int* out, int n) {
    extern __shared__ int buf[];
    __shared__ int total[1];
    int base = blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    if (t == 0) total[0] = 0;
    buf[t] = (base + t < n) ? in[base + t] : 0;
    __syncthreads();
    atomicAdd(&total[0], buf[t]);
    __syncthreads();
    int v = buf[blockDim.x - 1 - t];
    if (base + t < n) out[base + t] = v * 3 + total[0];
}
