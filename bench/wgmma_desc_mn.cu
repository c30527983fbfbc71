// wgmma_desc_mn.cu: checks on a Hopper GPU (sm_90a) the MN-major
// shared-memory matrix-descriptor layouts that txc's tcgen05 emulator uses
// for transposed tcgen05.mma operands (emu_smem_desc_chunk_mn in
// runtime/emu-tccp.c, doc/tcgen05-mma.md "How A and B are read
// (MN-major)"), through wgmma.mma_async with imm-trans-b = 1 (B N-major)
// and, in half the cases, imm-trans-a = 1 (A M-major). wgmma's descriptor
// has the same start / LBO / SBO fields and the same MN-major canonical
// layouts (PTX ISA 9.7.15.5.1.2.1, CUTLASS's GMMA and UMMA descriptors).
//
// The rule (16-bit elements; element (i, k) of one MMA's K = 16, i along
// M or N):
//   no swizzle:       start + (i / 8) * SBO + (k / 8) * LBO + (k % 8) * 16
//                     + (i % 8) * 2
//   swizzle, span Sp: start + (i / E) * LBO + (k / 8) * SBO + (k % 8) * Sp
//                     + (i % E) * 2, E = Sp / 2, then
//                     A ^= ((A >> 7) & m) << 4 on the ABSOLUTE shared
//                     address (m = 1, 3, 7 for 32B, 64B, 128B)
// and for a K-major A, the rule bench/wgmma_desc.cu checked.
//
// Each case (no swizzle, 32B, 64B, 128B; A K-major or M-major; "order" 0
// or 1: the blocks (128-byte core matrices, or 8 x Sp-byte atoms) of one
// MN group side by side along k, or those of one k group side by side
// along MN, so that LBO and SBO both matter), one warpgroup:
//   1. places A (64 x K) and B (128 x K) in shared memory by the rule;
//   2. builds each descriptor as txc's tcgen05 encoder does
//      (txc_tcgen05_smem_desc in backend/txc-cuda.c), turned into wgmma's
//      (bits [45:0] kept, wgmma's swizzle code at [63:62]);
//   3. runs K / 16 wgmma.mma_async.m64n128k16.f32.f16.f16 with
//      imm-trans-b 1 (and imm-trans-a as the case says), the start moved
//      on 16 k per MMA (two k groups: 2 LBO without a swizzle, 2 SBO with
//      one; 256 or 32 bytes for a K-major A);
//   4. writes D (64 x 128) from the accumulator fragment (thread 32w + l,
//      register i: row 16w + l/4 + 8 ((i/2) % 2), column 8 (i/4) +
//      2 (l%4) + i%2) to global.
// The host compares D with a CPU product of the same small integers
// (exact in float32 whatever the order), element by element, and prints
// one PASS/FAIL line per case; exit status 1 if any fails.
//
// Build and run: bench/wgmma_desc_mn.sh (wgmma_desc_mn --layouts checks only
// the cases' layouts on the host, no GPU needed).
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

enum { M = 64, N = 128, KMAX = 64, SMEM = 49152 };

// One operand's layout: MN-major or K-major, its LBO / SBO in 16-byte
// units, the bytes its start moves per MMA, its offset in the buffer.
struct Op {
  int mn, ldo, sdo, step, off, bytes;
};

struct Case {
  int swz;    // tcgen05 encoder's swizzle= (0 none, 1 32B, 2 64B, 3 128B)
  int ta;     // A M-major
  int order;  // 0: the k groups of an MN group together; 1: the MN groups of a k group
  int K;
  Op a, b;
};

__host__ __device__ static int tc_layout(int swz) { return swz == 0 ? 0 : swz == 1 ? 6 : swz == 2 ? 4 : 2; }
__host__ __device__ static int wg_code(int swz) { return swz == 0 ? 0 : swz == 1 ? 3 : swz == 2 ? 2 : 1; }
__host__ __device__ static int span(int swz) { return swz ? 16 << swz : 16; }

static Op layout(int swz, int order, int rows, int mn, int K)
{
  Op o = {};
  o.mn = mn;
  int G = K / 8;  // k groups
  if (!mn) {      // K-major, as bench/wgmma_desc.cu
    o.ldo = swz ? 1 : 8;
    o.sdo = swz ? 8 * span(swz) / 16 : 16 * (K / 16);
    o.step = swz ? 32 : 256;
    o.bytes = rows / 8 * o.sdo * 16;
    return o;
  }
  int blk, nmn;
  if (!swz) {
    blk = 128, nmn = rows / 8;
    o.sdo = order ? blk / 16 : blk * G / 16;  // SBO along MN
    o.ldo = order ? blk * nmn / 16 : blk / 16; // LBO along k
    o.step = 2 * o.ldo * 16;
  } else {
    blk = 8 * span(swz), nmn = (rows + span(swz) / 2 - 1) / (span(swz) / 2);
    o.ldo = order ? blk / 16 : blk * G / 16;   // LBO along MN
    o.sdo = order ? blk * nmn / 16 : blk / 16; // SBO along k
    o.step = 2 * o.sdo * 16;
  }
  o.bytes = blk * nmn * G;
  return o;
}

// the absolute shared address of element (i, k) of operand o (k < K)
__host__ __device__ static uint32_t elem_addr(uint32_t base, const Op& o, int swz, int i, int k)
{
  int j = k / 16, kk = k % 16;
  uint32_t a = base + o.off + j * o.step, lbo = o.ldo * 16, sbo = o.sdo * 16;
  if (!o.mn)
    a += (i >> 3) * sbo + (i & 7) * span(swz) + (swz ? 16 * (kk / 8) : (kk / 8) * lbo) + 2 * (kk % 8);
  else if (!swz)
    a += (i / 8) * sbo + (kk / 8) * lbo + (kk % 8) * 16 + (i % 8) * 2;
  else {
    int E = span(swz) / 2;
    a += (i / E) * lbo + (kk / 8) * sbo + (kk % 8) * span(swz) + (i % E) * 2;
  }
  uint32_t m = swz ? (1u << swz) - 1 : 0;
  return a ^ (((a >> 7) & m) << 4);
}

// as txc_tcgen05_smem_desc (backend/txc-cuda.c), then wgmma's swizzle code
__device__ static uint64_t wg_desc(uint32_t addr, uint32_t ldo, uint32_t sdo, int swz)
{
  uint64_t d = (uint64_t)((addr >> 4) & 0x3FFF) | (uint64_t)(ldo & 0x3FFF) << 16 | (uint64_t)(sdo & 0x3FFF) << 32 |
               (uint64_t)1 << 46 | (uint64_t)(tc_layout(swz) & 7) << 61;
  return (d & 0x00003FFF3FFF3FFFull) | (uint64_t)wg_code(swz) << 62;
}

template <int TA>
__device__ static void mma(float* d, uint64_t da, uint64_t db, int acc)
{
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %67, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(acc), "n"(TA));
}

template <int TA>
__global__ void __launch_bounds__(128) kern(const __half* A, const __half* B, float* D, Case c)
{
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  uint32_t pad = (1024 - (base & 1023)) & 1023;  // to the next 1024-byte boundary
  uint32_t b0 = base + pad;
  int t = threadIdx.x, K = c.K;
  for (int i = t; i < SMEM / 4; i += 128)
    ((uint32_t*)smem)[i] = 0x7E007E00u;  // float16 NaNs: a misread shows
  __syncthreads();
  for (int i = t; i < M * K; i += 128)
    *(__half*)(smem + (elem_addr(b0, c.a, c.swz, i / K, i % K) - base)) = A[i];
  for (int i = t; i < N * K; i += 128)
    *(__half*)(smem + (elem_addr(b0, c.b, c.swz, i / K, i % K) - base)) = B[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[64];
  for (int i = 0; i < 64; i++)
    d[i] = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int j = 0; j < K / 16; j++) {
    uint64_t da = wg_desc(b0 + c.a.off + j * c.a.step, c.a.ldo, c.a.sdo, c.swz);
    uint64_t db = wg_desc(b0 + c.b.off + j * c.b.step, c.b.ldo, c.b.sdo, c.swz);
    mma<TA>(d, da, db, j > 0);
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int w = t / 32, l = t % 32;
  for (int i = 0; i < 64; i++)
    D[(16 * w + l / 4 + 8 * ((i / 2) % 2)) * N + 8 * (i / 4) + 2 * (l % 4) + i % 2] = d[i];
}

// Every element of A and B at its own byte inside the buffer (the host's
// check of the cases' layouts, before any GPU work).
static bool layouts_ok(const Case& c, int ci)
{
  static unsigned char used[SMEM];
  memset(used, 0, sizeof used);
  for (int op = 0; op < 2; op++)
    for (int i = 0; i < (op ? N : M); i++)
      for (int k = 0; k < c.K; k++) {
        uint32_t a = elem_addr(0, op ? c.b : c.a, c.swz, i, k);
        if (a + 2 > SMEM || used[a] || used[a + 1]) {
          printf("FAIL: case %d: element (%d, %d) of %s at byte %u clashes or is out of the buffer\n", ci, i, k,
                 op ? "B" : "A", a);
          return false;
        }
        used[a] = used[a + 1] = 1;
      }
  return true;
}

// wgmma_desc_mn [--layouts]: with --layouts, only the host's check of the
// layouts (no GPU needed).
int main(int argc, char** argv)
{
  static const char* const swname[] = { "no swizzle", "32B swizzle", "64B swizzle", "128B swizzle" };
  Case cases[16];
  int nc = 0;
  for (int swz = 0; swz < 4; swz++)
    for (int ta = 0; ta < 2; ta++)
      for (int order = 0; order < 2; order++) {
        Case& c = cases[nc++];
        c.swz = swz, c.ta = ta, c.order = order;
        c.K = ta ? KMAX : swz ? span(swz) / 2 : 32;  // a K-major swizzled A: one span of K
        c.a = layout(swz, order, M, ta, c.K);
        c.b = layout(swz, order, N, 1, c.K);
        c.a.off = 0;
        c.b.off = (c.a.bytes + 1023) / 1024 * 1024;
        if (c.b.off + c.b.bytes > SMEM || !layouts_ok(c, nc - 1)) {
          printf("FAIL: case %d does not fit\n", nc - 1);
          return 1;
        }
      }
  if (argc > 1 && !strcmp(argv[1], "--layouts")) {
    printf("PASS: the %d cases' layouts (every element at a byte of its own)\n", nc);
    return 0;
  }
  int fails = 0;
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, M * KMAX * sizeof(__half)));
  CK(cudaMalloc(&dB, N * KMAX * sizeof(__half)));
  CK(cudaMalloc(&dD, M * N * sizeof(float)));
  CK(cudaFuncSetAttribute(kern<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM + 1024));
  CK(cudaFuncSetAttribute(kern<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM + 1024));
  uint32_t seed = 777;
  for (int ci = 0; ci < nc; ci++) {
    const Case& c = cases[ci];
    int K = c.K;
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
    if (c.ta)
      kern<1><<<1, 128, SMEM + 1024>>>(dA, dB, dD, c);
    else
      kern<0><<<1, 128, SMEM + 1024>>>(dA, dB, dD, c);
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
    printf("%s: %s, A %s-major (LBO %d, SBO %d), B N-major (LBO %d, SBO %d), order %d, K = %d (%d MMAs)%s\n",
           bad ? "FAIL" : "PASS", swname[c.swz], c.ta ? "M" : "K", 16 * c.a.ldo, 16 * c.a.sdo, 16 * c.b.ldo,
           16 * c.b.sdo, c.order, K, K / 16, bad ? first : "");
    if (bad)
      printf("      %d of %d elements differ\n", bad, M * N);
    fails += bad != 0;
  }
  printf("%s: %d of %d cases\n", fails ? "FAIL" : "PASS", nc - fails, nc);
  return fails ? 1 : 0;
}
