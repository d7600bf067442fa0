// cuda_host.h: host (g++) emulation of the CUDA features used by the held-out kernels, to compute
// their expected outputs independently of regwatt's PTX executor. Extended copy of
// workloads/hostcheck/cuda_host.h.
//
// Model: blocks run one after another; the threads of a block are OS threads; __syncthreads is a
// std::barrier. Warp-level operations (shuffles, votes) rendezvous through a per-warp
// mutex/condition variable among the lanes of the member mask (restricted to lanes that exist).
// __shared__ variables are function-local statics (blocks never overlap). Atomics are GCC
// __atomic builtins. Approximate intrinsics (__expf, __sinf, tanh.approx...) are computed exactly;
// the tests use a documented tolerance for them. Float->int intrinsics follow the PTX cvt rules
// (saturate, NaN -> 0). Compile with g++ -std=c++20 -O1 -ffp-contract=off -pthread.
#pragma once
#include <atomic>
#include <barrier>
#include <cfenv>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <math.h>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <xmmintrin.h>

struct dim3 { unsigned x = 1, y = 1, z = 1; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(4) uchar4 { unsigned char x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(8) short4 { short x, y, z, w; };
struct alignas(4) ushort2 { unsigned short x, y; };
struct alignas(2) char2 { signed char x, y; };
inline double2 make_double2(double x, double y) { return double2{x, y}; }
inline longlong2 make_longlong2(long long x, long long y) { return longlong2{x, y}; }
inline short4 make_short4(short x, short y, short z, short w) { return short4{x, y, z, w}; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { return uchar4{x, y, z, w}; }

struct WarpGroup {   // one rendezvous per distinct member mask (divergent halves run concurrently)
    unsigned arrived = 0;
    unsigned long long gen = 0;
    uint64_t slot[32];
    uint64_t result[32];
};
struct WarpCtx {
    std::mutex m;
    std::condition_variable cv;
    unsigned present = 0;   // lanes that exist in this warp
    std::map<unsigned, WarpGroup> groups;
};
struct BlockCtx {
    std::unique_ptr<std::barrier<>> bar;
    std::vector<std::unique_ptr<WarpCtx>> warps;
    std::vector<unsigned char> dyn_smem;
};

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local BlockCtx* tl_block = nullptr;
inline thread_local WarpCtx* tl_warp = nullptr;
inline thread_local unsigned tl_lane = 0;
inline unsigned g_dyn_bytes = 0;

#define __global__
#define __device__ inline
#define __forceinline__
#define __noinline__
#define __shared__ static
#define __constant__
#define __launch_bounds__(...)
#define __restrict__

inline void* __dyn_smem() { return tl_block->dyn_smem.data(); }
inline void __syncthreads() { tl_block->bar->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Exchange a 64-bit value among the lanes of `mask` (intersected with the lanes present).
inline void warp_exchange(unsigned mask, uint64_t v, uint64_t out[32]) {
    WarpCtx* w = tl_warp;
    unsigned members = mask & w->present;
    std::unique_lock<std::mutex> lk(w->m);
    WarpGroup& g = w->groups[members];
    g.slot[tl_lane] = v;
    g.arrived |= 1u << tl_lane;
    if ((g.arrived & members) == members) {
        std::memcpy(g.result, g.slot, sizeof g.slot);
        g.arrived = 0;
        g.gen++;
        w->cv.notify_all();
    } else {
        unsigned long long gen = g.gen;
        w->cv.wait(lk, [&] { return g.gen != gen; });
    }
    std::memcpy(out, g.result, sizeof g.result);
}
inline unsigned __activemask() { return tl_warp->present; }

template <class T> inline uint64_t to_u64(T v) { uint64_t u = 0; std::memcpy(&u, &v, sizeof(T)); return u; }
template <class T> inline T from_u64(uint64_t u) { T v; std::memcpy(&v, &u, sizeof(T)); return v; }

template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    uint64_t s[32];
    warp_exchange(mask, to_u64(v), s);
    unsigned base = tl_lane & ~(unsigned)(width - 1);
    return from_u64<T>(s[base + ((unsigned)src & (unsigned)(width - 1))]);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) {
    d &= 31;  // PTX shfl: bval = b[4:0]
    uint64_t s[32];
    warp_exchange(mask, to_u64(v), s);
    unsigned base = tl_lane & ~(unsigned)(width - 1);
    int j = (int)tl_lane - (int)d;
    return j < (int)base ? v : from_u64<T>(s[j]);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
    d &= 31;  // PTX shfl: bval = b[4:0]
    uint64_t s[32];
    warp_exchange(mask, to_u64(v), s);
    unsigned maxl = (tl_lane & ~(unsigned)(width - 1)) + width - 1;
    unsigned j = tl_lane + d;
    return j > maxl ? v : from_u64<T>(s[j]);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) {
    m &= 31;  // PTX shfl: bval = b[4:0]
    uint64_t s[32];
    warp_exchange(mask, to_u64(v), s);
    unsigned maxl = (tl_lane & ~(unsigned)(width - 1)) + width - 1;
    unsigned j = tl_lane ^ (unsigned)m;
    return j > maxl ? v : from_u64<T>(s[j]);
}
inline unsigned __ballot_sync(unsigned mask, int p) {
    uint64_t s[32];
    warp_exchange(mask, p ? 1 : 0, s);
    unsigned members = mask & tl_warp->present, r = 0;
    for (int l = 0; l < 32; ++l) if ((members >> l & 1) && s[l]) r |= 1u << l;
    return r;
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __all_sync(unsigned mask, int p) { return __ballot_sync(mask, p) == (mask & tl_warp->present); }

template <class T> inline T __ldg(const T* p) { return *p; }

// ---- float helpers / intrinsics
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __saturatef(float x) { return std::isnan(x) ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
template <class R> inline R sat_cvt(double v, double lo, double hi, R rlo, R rhi) {
    if (std::isnan(v)) return 0;
    if (v <= lo) return rlo;
    if (v >= hi) return rhi;
    return (R)v;
}
inline int __float2int_rz(float x) { return sat_cvt<int>(std::trunc((double)x), -2147483648.0, 2147483647.0, INT_MIN, INT_MAX); }
inline int __float2int_rn(float x) { return sat_cvt<int>(std::nearbyint((double)x), -2147483648.0, 2147483647.0, INT_MIN, INT_MAX); }
inline int __float2int_rd(float x) { return sat_cvt<int>(std::floor((double)x), -2147483648.0, 2147483647.0, INT_MIN, INT_MAX); }
inline int __float2int_ru(float x) { return sat_cvt<int>(std::ceil((double)x), -2147483648.0, 2147483647.0, INT_MIN, INT_MAX); }
inline unsigned __float2uint_rz(float x) { return sat_cvt<unsigned>(std::trunc((double)x), 0.0, 4294967295.0, 0u, UINT_MAX); }
inline unsigned __float2uint_rn(float x) { return sat_cvt<unsigned>(std::nearbyint((double)x), 0.0, 4294967295.0, 0u, UINT_MAX); }
inline long long __float2ll_rz(float x) { return sat_cvt<long long>(std::trunc((double)x), -9223372036854775808.0, 9223372036854775807.0, LLONG_MIN, LLONG_MAX); }
inline long long __double2ll_rn(double x) { return sat_cvt<long long>(std::nearbyint(x), -9223372036854775808.0, 9223372036854775807.0, LLONG_MIN, LLONG_MAX); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

// ---- integer intrinsics
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1; }
inline unsigned __brev(unsigned x) { unsigned r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i); return r; }
inline unsigned long long __brevll(unsigned long long x) { unsigned long long r = 0; for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i); return r; }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t v = ((uint64_t)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; ++n) r |= (unsigned)((v >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) { uint64_t v = ((uint64_t)hi << 32) | lo; return (unsigned)((v << (s & 31)) >> 32); }
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) { uint64_t v = ((uint64_t)hi << 32) | lo; unsigned c = s < 32 ? s : 32; return (unsigned)((v << c) >> 32); }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) { uint64_t v = ((uint64_t)hi << 32) | lo; return (unsigned)(v >> (s & 31)); }
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) { uint64_t v = ((uint64_t)hi << 32) | lo; unsigned c = s < 32 ? s : 32; return (unsigned)(v >> c); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((int64_t)a * b) >> 32); }
inline int __mul24(int a, int b) { int64_t x = (int32_t)((uint32_t)a << 8) >> 8, y = (int32_t)((uint32_t)b << 8) >> 8; return (int)(uint32_t)(uint64_t)(x * y); }
inline unsigned __umul24(unsigned a, unsigned b) { return (unsigned)((uint64_t)(a & 0xffffff) * (b & 0xffffff)); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }

// ---- atomics
template <class T> inline T atomicAdd(T* p, T v) {
    if constexpr (std::is_floating_point_v<T>) {
        T old, nw;
        __atomic_load(p, &old, __ATOMIC_SEQ_CST);
        do { nw = old + v; } while (!__atomic_compare_exchange(p, &old, &nw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
        return old;
    } else {
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    }
}
template <class T> inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicExch(T* p, T v) { T r; __atomic_exchange(p, &v, &r, __ATOMIC_SEQ_CST); return r; }
template <class T> inline T atomicCAS(T* p, T cmp, T val) { __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return cmp; }
template <class T, class F> inline T atomic_rmw(T* p, F f) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> inline T atomicMin(T* p, T v) { return atomic_rmw(p, [&](T o) { return v < o ? v : o; }); }
template <class T> inline T atomicMax(T* p, T v) { return atomic_rmw(p, [&](T o) { return v > o ? v : o; }); }
inline unsigned atomicInc(unsigned* p, unsigned lim) { return atomic_rmw(p, [&](unsigned o) { return o >= lim ? 0u : o + 1; }); }
inline unsigned atomicDec(unsigned* p, unsigned lim) { return atomic_rmw(p, [&](unsigned o) { return (o == 0 || o > lim) ? lim : o - 1; }); }

struct DevPtr {
    void* p;
    template <class T> operator T*() const { return static_cast<T*>(p); }
};

inline void launch(dim3 grid, dim3 block, unsigned dyn, const std::function<void()>& body) {
    gridDim = grid;
    blockDim = block;
    unsigned nthreads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                BlockCtx ctx;
                ctx.bar = std::make_unique<std::barrier<>>(nthreads);
                ctx.dyn_smem.assign(dyn + 16, 0xcd);
                for (unsigned w = 0; w < (nthreads + 31) / 32; ++w) {
                    auto wc = std::make_unique<WarpCtx>();
                    unsigned lanes = std::min(32u, nthreads - 32 * w);
                    wc->present = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
                    ctx.warps.push_back(std::move(wc));
                }
                std::vector<std::thread> threads;
                threads.reserve(nthreads);
                for (unsigned t = 0; t < nthreads; ++t) {
                    threads.emplace_back([&, t, bx, by, bz] {
                        threadIdx = dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        blockIdx = dim3{bx, by, bz};
                        tl_block = &ctx;
                        tl_warp = ctx.warps[t / 32].get();
                        tl_lane = t % 32;
#ifdef HOST_FTZ
                        _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ | DAZ
#endif
                        body();
                        ctx.bar->arrive_and_drop();
                    });
                }
                for (auto& th : threads) th.join();
            }
}

// ---- sm_80 warp reductions and matches
inline void __syncwarp(unsigned mask = 0xffffffffu) { uint64_t s[32]; warp_exchange(mask, 0, s); }
template <class T, class F> inline T warp_reduce(unsigned mask, T v, F f) {
    uint64_t s[32];
    warp_exchange(mask, to_u64(v), s);
    unsigned members = mask & tl_warp->present;
    bool first = true;
    T r{};
    for (int l = 0; l < 32; ++l)
        if (members >> l & 1) { T x = from_u64<T>(s[l]); r = first ? x : f(r, x); first = false; }
    return r;
}
inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return warp_reduce(m, v, [](unsigned a, unsigned b) { return a + b; }); }
inline int __reduce_min_sync(unsigned m, int v) { return warp_reduce(m, v, [](int a, int b) { return a < b ? a : b; }); }
inline int __reduce_max_sync(unsigned m, int v) { return warp_reduce(m, v, [](int a, int b) { return a > b ? a : b; }); }
inline unsigned __reduce_and_sync(unsigned m, unsigned v) { return warp_reduce(m, v, [](unsigned a, unsigned b) { return a & b; }); }
inline unsigned __reduce_or_sync(unsigned m, unsigned v) { return warp_reduce(m, v, [](unsigned a, unsigned b) { return a | b; }); }
inline unsigned __reduce_xor_sync(unsigned m, unsigned v) { return warp_reduce(m, v, [](unsigned a, unsigned b) { return a ^ b; }); }
inline unsigned __match_any_sync(unsigned mask, int v) {
    uint64_t s[32];
    warp_exchange(mask, (uint64_t)(uint32_t)v, s);
    unsigned members = mask & tl_warp->present, r = 0;
    for (int l = 0; l < 32; ++l) if ((members >> l & 1) && (uint32_t)s[l] == (uint32_t)v) r |= 1u << l;
    return r;
}
inline unsigned __match_all_sync(unsigned mask, int v, int* pred) {
    unsigned r = __match_any_sync(mask, v), members = mask & tl_warp->present;
    *pred = r == members;
    return r == members ? members : 0;
}

inline int __syncthreads_count(int p) {
    static std::atomic<int> acc;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) acc = 0;
    __syncthreads();
    acc += p ? 1 : 0;
    __syncthreads();
    int r = acc;
    __syncthreads();
    return r;
}
inline int __syncthreads_and(int p) { return __syncthreads_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z); }
inline int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }

// ---- SIMD integer intrinsics
inline int dp_bytes(unsigned a, unsigned b, bool sa, bool sb) {
    int r = 0;
    for (int k = 0; k < 4; ++k) {
        int x = sa ? (int)(signed char)(a >> 8 * k) : (int)(unsigned char)(a >> 8 * k);
        int y = sb ? (int)(signed char)(b >> 8 * k) : (int)(unsigned char)(b >> 8 * k);
        r += x * y;
    }
    return r;
}
inline int __dp4a(int a, int b, int c) { return (int)((unsigned)dp_bytes(a, b, true, true) + (unsigned)c); }
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) { return (unsigned)dp_bytes(a, b, false, false) + c; }
inline int __dp2a_lo(int a, int b, int c) {
    int r = 0;
    for (int k = 0; k < 2; ++k) r += (int)(short)(a >> 16 * k) * (int)(signed char)(b >> 8 * k);
    return (int)((unsigned)r + (unsigned)c);
}
inline unsigned __sad(int x, int y, unsigned z) { return (unsigned)(x > y ? (long long)x - y : (long long)y - x) + z; }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
inline unsigned __uhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y) >> 1); }
inline unsigned __urhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y + 1) >> 1); }
inline unsigned __vabsdiffu4(unsigned a, unsigned b) {
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) { int x = (a >> 8 * k) & 0xff, y = (b >> 8 * k) & 0xff; r |= (unsigned)(x > y ? x - y : y - x) << 8 * k; }
    return r;
}
inline unsigned __vadd4(unsigned a, unsigned b) {
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) r |= (((a >> 8 * k) + (b >> 8 * k)) & 0xff) << 8 * k;
    return r;
}
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
