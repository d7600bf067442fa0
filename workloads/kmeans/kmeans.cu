// One k-means iteration over 4-feature points (float4, __ldg).
// kmeans_assign: nearest centroid (squared distance, the lowest index wins ties); per-cluster
//   member count (atomicAdd int), coordinate sums (atomicAdd float) and largest member distance
//   (float max built from an atomicCAS loop).
// kmeans_update: new centroid = sum / count, or the old centroid for an empty cluster.
extern "C" __global__ void kmeans_assign(const float4* points, const float4* centroids, int* membership, int* counts,
                                         float* sums, float* maxdist, int n, int k)
{
    __shared__ float4 c[32];
    if (threadIdx.x < k) c[threadIdx.x] = centroids[threadIdx.x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = __ldg(&points[i]);
    int best = 0;
    float bestd = 3.402823466e38f;
    for (int j = 0; j < k; ++j) {
        float dx = p.x - c[j].x;
        float dy = p.y - c[j].y;
        float dz = p.z - c[j].z;
        float dw = p.w - c[j].w;
        float d = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, __fmul_rn(dw, dw))));
        if (d < bestd) {
            bestd = d;
            best = j;
        }
    }
    membership[i] = best;
    atomicAdd(&counts[best], 1);
    atomicAdd(&sums[best * 4 + 0], p.x);
    atomicAdd(&sums[best * 4 + 1], p.y);
    atomicAdd(&sums[best * 4 + 2], p.z);
    atomicAdd(&sums[best * 4 + 3], p.w);
    int* addr = (int*)&maxdist[best];
    int old = *addr;
    while (__int_as_float(old) < bestd) {
        int assumed = old;
        old = atomicCAS(addr, assumed, __float_as_int(bestd));
        if (old == assumed) break;
    }
}

extern "C" __global__ void kmeans_update(const int* counts, const float* sums, const float* centroids,
                                         float* new_centroids, int k)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 4 * k) return;
    int cnt = counts[t / 4];
    new_centroids[t] = (cnt > 0) ? sums[t] / (float)cnt : centroids[t];
}
