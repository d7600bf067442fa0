// CifarNet-shaped forward pass (the CifarNet of the Tango DNN benchmark suite that seed paper 000
// evaluates, scaled down; see workloads/README.md): pad -> conv1 5x5 (3 -> 6, ReLU) -> pool1 3x3/2
// -> norm1 (LRN) -> conv2 5x5 (6 -> 6, ReLU) -> norm2 -> pool2 3x3/2 -> fc3 -> fc4 -> fc5 (logits),
// one launch per layer on a 3 x 32 x 32 image.
// ---- layer kernels: one thread per output element, x (output column) fastest in a warp, ----
// ---- direct global loads, no shared memory (the naive style of Tango's CNN kernels)   ----
// Feature maps are [channel][row][column] float arrays. A map stored with a zero border of p
// (`pad2d`, or a producer's `opad`) is (H + 2p) x (W + 2p); the borders stay 0 (the buffers are
// zero-filled), so a 'same' convolution reads its padded input without bounds checks.

// out = ReLU(bias[k] + sum_c sum_ky sum_kx in[c][oy*S + ky][ox*S + kx] * w[k][c][ky][kx]), one
// fmaf chain in (c, ky, kx) order. H, W: the input as stored (padding included); the output
// (OH x OW) is written into the interior of a map with a zero border of opad. blockIdx.z = k.
template <int KS>
__device__ void conv_relu(const float* in, const float* w, const float* bias, float* out, int C, int H,
                          int W, int S, int OH, int OW, int opad)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (ox >= OW || oy >= OH) return;
    float acc = bias[k];
    for (int c = 0; c < C; ++c) {
        const float* ip = in + (c * H + oy * S) * W + ox * S;
        const float* wp = w + (k * C + c) * (KS * KS);
#pragma unroll
        for (int ky = 0; ky < KS; ++ky) {
#pragma unroll
            for (int kx = 0; kx < KS; ++kx) {
                acc = fmaf(ip[ky * W + kx], wp[ky * KS + kx], acc);
            }
        }
    }
    int PW = OW + 2 * opad;
    out[(k * (OH + 2 * opad) + oy + opad) * PW + ox + opad] = fmaxf(acc, 0.0f);
}

// 3x3 max pooling with stride 2 (overlapping windows), Caffe's ceil mode: OH = ceil((H-3)/2)+1,
// windows clipped at the bottom/right border. Input dense H x W, output dense OH x OW.
extern "C" __global__ void maxpool3x3s2(const float* in, float* out, int C, int H, int W, int OH, int OW)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.z;
    if (ox >= OW || oy >= OH || c >= C) return;
    float m = __int_as_float(0xff800000);  // -inf
#pragma unroll
    for (int ky = 0; ky < 3; ++ky) {
        int iy = oy * 2 + ky;
#pragma unroll
        for (int kx = 0; kx < 3; ++kx) {
            int ix = ox * 2 + kx;
            if (iy < H && ix < W) m = fmaxf(m, in[(c * H + iy) * W + ix]);
        }
    }
    out[(c * OH + oy) * OW + ox] = m;
}

// Local response normalisation across channels (AlexNet / Caffe ACROSS_CHANNELS):
// out = in[c] / (kb + alpha_n * sum_{j = c-n/2 .. c+n/2, 0 <= j < C} in[j]^2)^beta, the sum an
// fmaf chain in j order. Input dense, output into a map with a zero border of opad.
extern "C" __global__ void lrn(const float* in, float* out, int C, int H, int W, int n, float kb,
                               float alpha_n, float beta, int opad)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.z;
    if (x >= W || y >= H || c >= C) return;
    int lo = max(c - n / 2, 0);
    int hi = min(c + n / 2, C - 1);
    float s = 0.0f;
    for (int j = lo; j <= hi; ++j) {
        float v = in[(j * H + y) * W + x];
        s = fmaf(v, v, s);
    }
    float v = in[(c * H + y) * W + x];
    int PW = W + 2 * opad;
    out[(c * (H + 2 * opad) + y + opad) * PW + x + opad] = v / powf(fmaf(alpha_n, s, kb), beta);
}

// Fully connected: out[o] = act(bias[o] + sum_i in[i] * w[i][o]), one thread per output neuron,
// fmaf chain in i order. w is input-major ([N][M]): a warp loads M-consecutive weights and all
// its lanes (and every warp) the same in[i]. act: 1 = ReLU, 0 = identity (logits).
extern "C" __global__ void fc(const float* in, const float* w, const float* bias, float* out, int N, int M,
                              int relu)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= M) return;
    float acc = bias[o];
    for (int i = 0; i < N; ++i) {
        acc = fmaf(in[i], w[i * M + o], acc);
    }
    out[o] = relu ? fmaxf(acc, 0.0f) : acc;
}

// Copies a dense C x H x W map into the interior of a map with a zero border of p (the 'same'
// padding of conv1).
extern "C" __global__ void pad2d(const float* in, float* out, int C, int H, int W, int p)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.z;
    if (x >= W || y >= H || c >= C) return;
    out[(c * (H + 2 * p) + y + p) * (W + 2 * p) + x + p] = in[(c * H + y) * W + x];
}

extern "C" __global__ void conv5x5_relu(const float* in, const float* w, const float* bias, float* out, int C,
                                        int H, int W, int S, int OH, int OW, int opad)
{
    conv_relu<5>(in, w, bias, out, C, H, W, S, OH, OW, opad);
}
