// wgmma_desc.cu: checks on a Hopper GPU (sm_90a) the shared-memory
// matrix-descriptor address formula that txc's tcgen05 emulator uses
// (runtime/emu-tccp.c, doc/tcgen05-cp.md, doc/tcgen05-mma.md), through
// wgmma.mma_async, whose descriptor has the same start / LBO / SBO fields
// (PTX ISA 9.7.15.5.1.2.2 "Matrix Descriptor Format" and 9.7.16.4.1
// "Shared Memory Descriptor").
//
// For each case (no swizzle, 32B, 64B, 128B swizzle; the operands at a
// 1024-byte boundary or 256 bytes after one), one warpgroup:
//   1. places A (64 x K) and B (8 x K), K-major, in shared memory where
//      the formula says (row r, 16-byte chunk c of one MMA's K = 16):
//        no swizzle: start + (r >> 3) * SBO + (r & 7) * 16 + c * LBO
//        swizzle of span Sp: start + (r >> 3) * SBO + (r & 7) * Sp + 16 c,
//          then A ^= ((A >> 7) & m) << 4 on the ABSOLUTE shared address
//          (m = 1, 3, 7 for 32B, 64B, 128B)
//      element k % 8 of the chunk at + 2 (k % 8);
//   2. builds each MMA's descriptor exactly as txc's encoder does for
//      tcgen05 (txc_tcgen05_smem_desc in backend/txc-cuda.c: start >> 4,
//      ldo, sdo, 0b001 at bit 46, the layout type at [63:61], base offset
//      0), then turns it into wgmma's by keeping bits [45:0] and putting
//      wgmma's swizzle code at [63:62] (1 128B, 2 64B, 3 32B);
//   3. runs K / 16 wgmma.mma_async.m64n8k16.f32.f16.f16 (scale-d 0 for
//      the first), the descriptor's start moved on per MMA (256 bytes
//      without a swizzle, 32 bytes inside the swizzled row);
//   4. writes D (64 x 8, from the accumulator fragment: thread 32w + l
//      holds rows 16w + l/4 and + 8, columns 2(l%4) and + 1) to global.
// The host compares D with a CPU product of the same small integers
// (exact in float32 whatever the summation order), element by element.
// Prints one PASS/FAIL line per case and exits 1 if any fails.
//
// Build and run: bench/wgmma_desc.sh (nvcc -arch=sm_90a).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_));                                        \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

enum { M = 64, N = 8, KMAX = 64, SMEM = 32768 };

struct Case {
  const char* name;
  int swz;       // tcgen05 encoder's swizzle= (0 none, 1 32B, 2 64B, 3 128B)
  int offset;    // bytes from a 1024-byte boundary where A starts (B: A + 8192)
};

// txc's tcgen05 layout types (ir/tccp.def) and wgmma's swizzle codes
__host__ __device__ static int tc_layout(int swz) { return swz == 0 ? 0 : swz == 1 ? 6 : swz == 2 ? 4 : 2; }
__host__ __device__ static int wg_code(int swz) { return swz == 0 ? 0 : swz == 1 ? 3 : swz == 2 ? 2 : 1; }
__host__ __device__ static int span(int swz) { return swz ? 16 << swz : 16; }
__host__ __device__ static int nk(int swz) { return swz ? (16 << swz) / 2 : 32; } // K elements in all
__host__ __device__ static int ldo16(int swz) { return swz ? 1 : 8; }            // LBO in 16-byte units
__host__ __device__ static int sdo16(int swz) { return swz ? 8 * span(swz) / 16 : 16 * nk(swz) / 16; }
__host__ __device__ static int step(int swz) { return swz ? 32 : 256; }           // start per MMA, bytes

// the absolute shared address of element k of row r (the formula above)
__device__ static uint32_t elem_addr(uint32_t start, int swz, int r, int k)
{
  int j = k / 16, c = (k % 16) / 8, e = k % 8;
  uint32_t a = start + j * step(swz) + (r >> 3) * sdo16(swz) * 16 + (r & 7) * span(swz) +
               (swz ? 16 * c : c * ldo16(swz) * 16);
  uint32_t m = swz ? (1u << swz) - 1 : 0;
  a ^= ((a >> 7) & m) << 4;
  return a + 2 * e;
}

// as txc_tcgen05_smem_desc (backend/txc-cuda.c)
__device__ static uint64_t tc_desc(uint32_t addr, uint32_t ldo, uint32_t sdo, uint32_t layout)
{
  return (uint64_t)((addr >> 4) & 0x3FFF) | (uint64_t)(ldo & 0x3FFF) << 16 | (uint64_t)(sdo & 0x3FFF) << 32 |
         (uint64_t)1 << 46 | (uint64_t)(layout & 7) << 61;
}

__global__ void __launch_bounds__(128) kern(const __half* A, const __half* B, float* D, int swz, int offset)
{
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  uint32_t pad = (1024 - (base & 1023)) & 1023;  // to the next 1024-byte boundary
  uint32_t a0 = base + pad + offset, b0 = a0 + 8192;
  int t = threadIdx.x, K = nk(swz);
  for (int i = t; i < SMEM / 4; i += 128)
    ((uint32_t*)smem)[i] = 0x7E007E00u;  // float16 NaNs: a misread shows
  __syncthreads();
  for (int i = t; i < M * K; i += 128)
    *(__half*)(smem + (elem_addr(a0, swz, i / K, i % K) - base)) = A[i];
  for (int i = t; i < N * K; i += 128)
    *(__half*)(smem + (elem_addr(b0, swz, i / K, i % K) - base)) = B[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int j = 0; j < K / 16; j++) {
    uint64_t da = tc_desc(a0 + j * step(swz), ldo16(swz), sdo16(swz), tc_layout(swz));
    uint64_t db = tc_desc(b0 + j * step(swz), ldo16(swz), sdo16(swz), tc_layout(swz));
    // tcgen05 -> wgmma: start, LBO, SBO as they are; the swizzle code at [63:62]
    da = (da & 0x00003FFF3FFF3FFFull) | (uint64_t)wg_code(swz) << 62;
    db = (db & 0x00003FFF3FFF3FFFull) | (uint64_t)wg_code(swz) << 62;
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "l"(da), "l"(db), "r"((int)(j > 0)));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int w = t / 32, l = t % 32, r = 16 * w + l / 4, c = 2 * (l % 4);
  D[r * N + c] = d0;
  D[r * N + c + 1] = d1;
  D[(r + 8) * N + c] = d2;
  D[(r + 8) * N + c + 1] = d3;
}

int main()
{
  static const Case cases[] = {
    { "no swizzle, at a 1024-byte boundary", 0, 0 },   { "no swizzle, 256 bytes after one", 0, 256 },
    { "32B swizzle, at a 1024-byte boundary", 1, 0 },  { "32B swizzle, 256 bytes after one", 1, 256 },
    { "64B swizzle, at a 1024-byte boundary", 2, 0 },  { "64B swizzle, 256 bytes after one", 2, 256 },
    { "128B swizzle, at a 1024-byte boundary", 3, 0 }, { "128B swizzle, 256 bytes after one", 3, 256 },
  };
  int fails = 0;
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, M * KMAX * sizeof(__half)));
  CK(cudaMalloc(&dB, N * KMAX * sizeof(__half)));
  CK(cudaMalloc(&dD, M * N * sizeof(float)));
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM + 1024));
  uint32_t seed = 12345;
  for (const Case& c : cases) {
    int K = nk(c.swz);
    static float a[M * KMAX], b[N * KMAX], d[M * N];
    static __half ha[M * KMAX], hb[N * KMAX];
    for (int i = 0; i < M * K; i++) {
      seed = seed * 1103515245u + 12345u;
      a[i] = (float)((int)((seed >> 16) % 7) - 3);
      ha[i] = __float2half(a[i]);
    }
    for (int i = 0; i < N * K; i++) {
      seed = seed * 1103515245u + 12345u;
      b[i] = (float)((int)((seed >> 16) % 7) - 3);
      hb[i] = __float2half(b[i]);
    }
    CK(cudaMemcpy(dA, ha, M * K * sizeof(__half), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hb, N * K * sizeof(__half), cudaMemcpyHostToDevice));
    CK(cudaMemset(dD, 0xFF, M * N * sizeof(float)));
    kern<<<1, 128, SMEM + 1024>>>(dA, dB, dD, c.swz, c.offset);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(d, dD, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    char first[160] = "";
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        float want = 0;
        for (int k = 0; k < K; k++)
          want += a[m * K + k] * b[n * K + k];
        if (memcmp(&want, &d[m * N + n], 4) && !bad++)
          snprintf(first, sizeof first, " (first: D[%d][%d] = %g, want %g)", m, n, d[m * N + n], want);
      }
    printf("%s: %s, K = %d (%d MMAs)%s%s\n", bad ? "FAIL" : "PASS", c.name, K, K / 16,
           bad ? "" : "", bad ? first : "");
    if (bad)
      printf("      %d of %d elements differ\n", bad, M * N);
    fails += bad != 0;
  }
  printf("%s: %d of %d cases\n", fails ? "FAIL" : "PASS", (int)(sizeof cases / sizeof cases[0]) - fails,
         (int)(sizeof cases / sizeof cases[0]));
  return fails ? 1 : 0;
}
