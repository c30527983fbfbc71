export CONFIGS="
g_16x512_t128   gmem_smem TR=16 TC=512 THREADS=128
g_32x256_t128   gmem_smem TR=32 TC=256 THREADS=128
g_16x256_t64    gmem_smem TR=16 TC=256 THREADS=64
r_16x256_t128   reg TR=16 TC=256 THREADS=128
r_32x256_t256   reg TR=32 TC=256 THREADS=256
r_8x256_t128    reg TR=8 TC=256 THREADS=128
r_16x256_t256   reg TR=16 TC=256 THREADS=256
r_16x512_t256   reg TR=16 TC=512 THREADS=256
r_8x512_t128    reg TR=8 TC=512 THREADS=128
l_32x256_t128   ldgsts TR=32 TC=256 THREADS=128 L=1 S=1
l_16x256_t128   ldgsts TR=16 TC=256 THREADS=128 L=1 S=1
l_16x512_t128   ldgsts TR=16 TC=512 THREADS=128 L=1 S=1
l_32x256_t256   ldgsts TR=32 TC=256 THREADS=256 L=1 S=1
l_16x256_t128_s2 ldgsts TR=16 TC=256 THREADS=128 L=2 S=2
t_16x256        tma TR=16 TC=256 L=1 S=1
t_8x256         tma TR=8 TC=256 L=1 S=1
t_16x128        tma TR=16 TC=128 L=1 S=1
t_32x128        tma TR=32 TC=128 L=1 S=1
t_16x256_s2     tma TR=16 TC=256 L=2 S=2
"
SIZES=1 bench/bandwidth.sh "$1/sweep1g" 2>&1 | grep -v "^time kernel triton\|^triton" | tail -22
export CONFIGS="
g_16x512_t128   gmem_smem TR=16 TC=512 THREADS=128
g_32x256_t128   gmem_smem TR=32 TC=256 THREADS=128
r_16x256_t128   reg TR=16 TC=256 THREADS=128
r_32x256_t256   reg TR=32 TC=256 THREADS=256
l_32x256_t128_s2 ldgsts TR=32 TC=256 THREADS=128 L=2 S=2
l_16x256_t128   ldgsts TR=16 TC=256 THREADS=128 L=1 S=1
t_16x256        tma TR=16 TC=256 L=1 S=1
t_64x128        tma TR=64 TC=128 L=1 S=1
"
SIZES=4 timeout 420 bench/bandwidth.sh "$1/sweep4g" 2>&1 | grep -v "^time kernel triton\|^triton" | tail -11
