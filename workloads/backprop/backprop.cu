// One training step of a single sigmoid layer (n_in inputs -> n_hid units), backprop style.
// bp_forward:  block (16 units x 16 inputs): products in[i]*w[i][j] into shared memory, tree
//              reduction over the 16 inputs; one partial sum per (input block, unit).
// bp_delta:    sums the partials in block order, h = sigmoid(sum), delta = h(1-h)(target-h).
// bp_adjust:   dw = eta*delta[j]*in[i] + momentum*oldw[i][j]; w += dw; oldw = dw.
// Weights are row-major w[i * n_hid + j].
#define BP 16
extern "C" __global__ void bp_forward(const float* in, const float* w, float* partial, int n_in, int n_hid)
{
    __shared__ float prod[BP][BP];
    int j = blockIdx.x * BP + threadIdx.x;
    int i = blockIdx.y * BP + threadIdx.y;
    prod[threadIdx.y][threadIdx.x] = (i < n_in && j < n_hid) ? in[i] * w[i * n_hid + j] : 0.0f;
    __syncthreads();
    for (int s = BP / 2; s > 0; s >>= 1) {
        if (threadIdx.y < s) prod[threadIdx.y][threadIdx.x] += prod[threadIdx.y + s][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y == 0 && j < n_hid) partial[blockIdx.y * n_hid + j] = prod[0][threadIdx.x];
}

extern "C" __global__ void bp_delta(const float* partial, const float* target, float* hidden, float* delta,
                                    int nblocks, int n_hid)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_hid) return;
    float sum = 0.0f;
    for (int b = 0; b < nblocks; ++b) sum += partial[b * n_hid + j];
    float h = 1.0f / (1.0f + expf(-sum));
    hidden[j] = h;
    delta[j] = h * (1.0f - h) * (target[j] - h);
}

extern "C" __global__ void bp_adjust(const float* in, const float* delta, float* w, float* oldw, int n_in,
                                     int n_hid, float eta, float momentum)
{
    int j = blockIdx.x * BP + threadIdx.x;
    int i = blockIdx.y * BP + threadIdx.y;
    if (i >= n_in || j >= n_hid) return;
    int idx = i * n_hid + j;
    float dw = eta * delta[j] * in[i] + momentum * oldw[idx];
    w[idx] += dw;
    oldw[idx] = dw;
}
