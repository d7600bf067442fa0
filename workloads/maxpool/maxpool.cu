// 2x2 max pooling with stride 2 over C feature maps of H x W (H, W even), plus the argmax
// (0..3, row-major within the window; the first maximum wins ties). One thread per output.
extern "C" __global__ void maxpool2x2(const float* in, float* out, int* arg, int C, int H, int W)
{
    int OH = H / 2, OW = W / 2;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= C * OH * OW) return;
    int ox = idx % OW;
    int oy = (idx / OW) % OH;
    int c = idx / (OW * OH);
    int base = (c * H + 2 * oy) * W + 2 * ox;
    float v[4] = {in[base], in[base + 1], in[base + W], in[base + W + 1]};
    float best = v[0];
    int bi = 0;
#pragma unroll
    for (int q = 1; q < 4; ++q) {
        if (v[q] > best) {
            best = v[q];
            bi = q;
        }
    }
    out[idx] = best;
    arg[idx] = bi;
}
