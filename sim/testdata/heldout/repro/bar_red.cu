extern "C" __global__ void k(const int* in, int* out) {
    int c = __syncthreads_count(in[threadIdx.x] > 0);
    int a = __syncthreads_and(in[threadIdx.x] > -5);
    int o = __syncthreads_or(in[threadIdx.x] > 30);
    out[threadIdx.x] = c * 100 + a * 10 + o;
}
