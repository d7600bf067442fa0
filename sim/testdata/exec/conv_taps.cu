// A 1-D convolution whose taps live in a __constant__ array, set by the host with
// cudaMemcpyToSymbol (in a launch spec: a [constants.taps] table). Boundary elements read
// zero beyond the input. PTX: python3 scripts/cu2ptx.py sim/testdata/exec/conv_taps.cu
#define RADIUS 4

__constant__ float taps[2 * RADIUS + 1];

extern "C" __global__ void conv_taps(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = i + k;
        if (j >= 0 && j < n)
            sum += taps[k + RADIUS] * in[j];
    }
    out[i] = sum;
}
