// CNN convolution layer with 5x5 windows (after the ISPASS-2009 MNIST CNN of seed 001):
// out[k][oy][ox] = act(bias[k] + sum_c sum_ky sum_kx in[c][oy*s+ky][ox*s+kx] * w[k][c][ky][kx]),
// act(z) = 1.7159 tanh(2/3 z). One thread per output pixel, blockIdx.z = output feature map.
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
