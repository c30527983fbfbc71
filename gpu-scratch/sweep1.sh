export CONFIGS="
g_32x256_t128   gmem_smem TR=32 TC=256 THREADS=128
g_16x256_t128   gmem_smem TR=16 TC=256 THREADS=128
g_16x512_t128   gmem_smem TR=16 TC=512 THREADS=128
g_32x512_t256   gmem_smem TR=32 TC=512 THREADS=256
g_64x256_t256   gmem_smem TR=64 TC=256 THREADS=256
g_32x256_t256   gmem_smem TR=32 TC=256 THREADS=256
r_32x256_t128   reg TR=32 TC=256 THREADS=128
r_16x256_t128   reg TR=16 TC=256 THREADS=128
r_64x256_t256   reg TR=64 TC=256 THREADS=256
r_32x256_t256   reg TR=32 TC=256 THREADS=256
l_32x256_t128   ldgsts TR=32 TC=256 THREADS=128 L=1 S=1
l_16x256_t128   ldgsts TR=16 TC=256 THREADS=128 L=1 S=1
l_64x256_t256   ldgsts TR=64 TC=256 THREADS=256 L=1 S=1
l_32x256_t128_s2 ldgsts TR=32 TC=256 THREADS=128 L=2 S=2
t_32x256        tma TR=32 TC=256 L=1 S=1
t_16x256        tma TR=16 TC=256 L=1 S=1
t_64x256        tma TR=64 TC=256 L=1 S=1
t_128x256       tma TR=128 TC=256 L=1 S=1
t_32x256_s2     tma TR=32 TC=256 L=2 S=2
t_64x128        tma TR=64 TC=128 L=1 S=1
"
SIZES=1 bench/bandwidth.sh "$1/sweep" 2>&1 | tail -23
perl bench/copykernel.pl gmem_smem 131072 16384 TR=32 TC=256 > /tmp/g4.tx
bin/txc /tmp/g4.tx --emit=cubin -o /tmp/g4.cubin
/usr/bin/time -v bin/txc-run /tmp/g4.tx --cubin /tmp/g4.cubin --expect B=A --time 20 2>&1 | grep -E "PASS|time kernel|Elapsed|Maximum resident|User time|System time"
timeout 200 python3 bench/triton_copy.py --gib 1 4 2>&1 | tail -8
