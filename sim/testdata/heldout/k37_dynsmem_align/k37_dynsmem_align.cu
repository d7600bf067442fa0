// dynamic shared memory of float4 after an odd-sized static shared array: the dynamic window must be
// 16-byte aligned (ld.shared.v4.f32 / st.shared.v4.f32); also a second extern __shared__ alias of a
// different type (both alias the same dynamic window).
extern "C" __global__ void dyn_align(const float4* in, float4* out, int* tags) {
    __shared__ char flag[3];
    extern __shared__ float4 dyn[];
    extern __shared__ int dyn_i[];
    int t = threadIdx.x;
    if (t < 3) flag[t] = (char)(t + 1);
    dyn[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    float4 v = dyn[blockDim.x - 1 - t];
    int bits = dyn_i[4 * ((t + 1) % blockDim.x)];
    out[blockIdx.x * blockDim.x + t] = make_float4(v.w, v.z, v.y, v.x + (float)flag[t % 3]);
    tags[blockIdx.x * blockDim.x + t] = bits;
}
