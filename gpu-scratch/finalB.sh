cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
SIZES=1 bench/bandwidth.sh "$1/bw1" 2>&1 | tail -13
SIZES=4 ONLY='gmem_smem_16x512|reg_8x256|ldgsts_8x256|tma_16x256' bench/bandwidth.sh "$1/bw4" 2>&1 | tail -8
BACKEND=cuda SIZES=1 ONLY='gmem_smem_16x512|reg_8x256|ldgsts_8x256|tma_16x256' bench/bandwidth.sh "$1/bw1cuda" 2>&1 | grep -v "^triton\|triton_" | tail -6
CONFIGS="
reg_8x256_noalloc   reg TR=8 TC=256 THREADS=128 HINT=noalloc
reg_8x256_first     reg TR=8 TC=256 THREADS=128 HINT=first
reg_8x256_nc_pf256  reg TR=8 TC=256 THREADS=128 HINT=nc+noalloc+pf256
gmem_smem_16x512_noalloc gmem_smem TR=16 TC=512 THREADS=128 HINT=noalloc
ldgsts_8x256_pf256  ldgsts TR=8 TC=256 THREADS=128 L=1 S=1 HINT=pf256
tma_16x256_first    tma TR=16 TC=256 THREADS=128 L=1 S=1 HINT=first
" SIZES=1 bench/bandwidth.sh "$1/hints" 2>&1 | grep -v "^triton\|triton_" | tail -8
EXAMPLES="examples/copy_persistent.tx examples/copy_tile.tx" REPS=30 timeout 120 bench/run.sh "$1/run" 2>&1 | tail -5
