// 5x5 convolution layers on a larger (73x73) input, as in seed 001's enlarged images.
// conv5x5_shared: stride 1; each 16x16 block stages a 20x20 input tile per channel in shared
//                 memory and computes a 16x16 output tile of feature map blockIdx.z.
// conv5x5:        stride s, direct global loads (same arithmetic as conv_mnist).
// Both: out = 1.7159 tanh(2/3 (bias + sum in*w)), accumulation order c, ky, kx.
#define OT 16
#define IT (OT + 4)
extern "C" __global__ void conv5x5_shared(const float* in, const float* w, const float* bias, float* out,
                                          int C, int H, int W, int K, int OH, int OW)
{
    __shared__ float tile[IT][IT];
    __shared__ float wk[25];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * OT + tx;
    int ox0 = blockIdx.x * OT, oy0 = blockIdx.y * OT;
    int k = blockIdx.z;
    int ox = ox0 + tx, oy = oy0 + ty;
    float acc = bias[k];
    for (int c = 0; c < C; ++c) {
        __syncthreads();
        for (int e = t; e < IT * IT; e += OT * OT) {
            int y = oy0 + e / IT, x = ox0 + e % IT;
            tile[e / IT][e % IT] = (y < H && x < W) ? in[(c * H + y) * W + x] : 0.0f;
        }
        if (t < 25) wk[t] = w[(k * C + c) * 25 + t];
        __syncthreads();
#pragma unroll
        for (int ky = 0; ky < 5; ++ky) {
#pragma unroll
            for (int kx = 0; kx < 5; ++kx) {
                acc = fmaf(tile[ty + ky][tx + kx], wk[ky * 5 + kx], acc);
            }
        }
    }
    if (ox < OW && oy < OH) out[(k * OH + oy) * OW + ox] = 1.7159f * tanhf(0.66666667f * acc);
}

extern "C" __global__ void conv5x5(const float* in, const float* w, const float* bias, float* out, int C,
                                   int H, int W, int K, int stride, int OH, int OW)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (ox >= OW || oy >= OH || k >= K) return;
    float acc = bias[k];
    for (int c = 0; c < C; ++c) {
        const float* ip = in + (c * H + oy * stride) * W + ox * stride;
        const float* wp = w + (k * C + c) * 25;
#pragma unroll
        for (int ky = 0; ky < 5; ++ky) {
#pragma unroll
            for (int kx = 0; kx < 5; ++kx) {
                acc = fmaf(ip[ky * W + kx], wp[ky * 5 + kx], acc);
            }
        }
    }
    out[(k * OH + oy) * OW + ox] = 1.7159f * tanhf(0.66666667f * acc);
}
