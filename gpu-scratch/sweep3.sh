export CONFIGS="
l_16x256_t64     ldgsts TR=16 TC=256 THREADS=64 L=1 S=1
l_8x256_t128     ldgsts TR=8 TC=256 THREADS=128 L=1 S=1
l_32x256_t128    ldgsts TR=32 TC=256 THREADS=128 L=1 S=1
l_64x256_t512    ldgsts TR=64 TC=256 THREADS=512 L=1 S=1
l_32x256_t256_s2 ldgsts TR=32 TC=256 THREADS=256 L=2 S=2
l_16x512_t256    ldgsts TR=16 TC=512 THREADS=256 L=1 S=1
t_16x256_t64     tma TR=16 TC=256 THREADS=64 L=1 S=1
"
SIZES=4 REPS=30 timeout 500 bench/bandwidth.sh "$1/sweep4g" 2>&1 | grep -v "^time kernel triton\|^triton" | tail -9
