// One all-pairs gravitational n-body step (softened), positions as float4 (x, y, z, mass).
// Bodies are staged through shared memory one block-sized tile at a time (__ldg float4 loads);
// the interaction uses rsqrtf. Then a semi-implicit Euler update: v += a dt, p += v dt.
extern "C" __global__ void nbody_step(const float4* pos, const float4* vel, float4* pos_out, float4* vel_out,
                                      int n, float dt, float eps2)
{
    __shared__ float4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += blockDim.x) {
        tile[threadIdx.x] = __ldg(&pos[base + threadIdx.x]);
        __syncthreads();
        for (int j = 0; j < blockDim.x; ++j) {
            float4 q = tile[j];
            float dx = q.x - p.x;
            float dy = q.y - p.y;
            float dz = q.z - p.z;
            float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax = fmaf(dx, s, ax);
            ay = fmaf(dy, s, ay);
            az = fmaf(dz, s, az);
        }
        __syncthreads();
    }
    float4 v = vel[i];
    v.x = fmaf(ax, dt, v.x);
    v.y = fmaf(ay, dt, v.y);
    v.z = fmaf(az, dt, v.z);
    p.x = fmaf(v.x, dt, p.x);
    p.y = fmaf(v.y, dt, p.y);
    p.z = fmaf(v.z, dt, p.z);
    pos_out[i] = p;
    vel_out[i] = v;
}
