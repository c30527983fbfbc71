cd "$(dirname "$0")/.."
nvidia-smi -L
export PATH=$PATH:/usr/local/cuda/bin
timeout 330 prove -j4 tests/run.t tests/tvm.t tests/im2col.t tests/layouts.t tests/pipeline.t tests/emu.t tests/warpspec.t tests/cuda.t tests/ptx-run.t 2>&1 | tail -14
prove -v tests/ptx-run.t 2>&1 | grep -c "^ok.*passes on the GPU"
EXAMPLES="examples/copy_persistent.tx examples/copy_tile.tx examples/tma_ring.tx" REPS=30 timeout 200 bench/run.sh "$1/run" 2>&1 | tail -8
