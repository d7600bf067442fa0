// stream_triad (the triad of McCalpin's STREAM benchmark): a[i] = b[i] + s * c[i] over long
// arrays, a grid-stride loop (each thread handles elements i, i + stride, ... with stride =
// gridDim.x * blockDim.x), so every warp access is one coalesced 128-byte line that is never
// touched again: a streaming, cache-insensitive reference next to the PolyBench kernels.
// b[i] + s * c[i] contracts to one fmaf(s, c[i], b[i]).
extern "C" __global__ void stream_triad(float* a, const float* b, const float* c, float s, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        a[i] = b[i] + s * c[i];
    }
}
