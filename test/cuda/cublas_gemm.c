/* cuBLAS SGEMM 4096 (the peer of test/cuda/device_check.sh when PyTorch is
 * not installed): median milliseconds of 20 timed calls after 3 warm-ups,
 * device buffers, no copies. Build: cc -O2 -I$CUDA/include cublas_gemm.c
 * -L$CUDA/lib64 -lcublas -lcudart. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  size_t bytes = (size_t)n * n * sizeof(float);
  float *a, *b, *c, times[20], one = 1.0f, zero = 0.0f;
  cublasHandle_t handle;
  cudaEvent_t start, stop;
  int i;
  if (cudaMalloc((void**)&a, bytes) || cudaMalloc((void**)&b, bytes) ||
      cudaMalloc((void**)&c, bytes) || cublasCreate(&handle)) {
    fprintf(stderr, "cublas_gemm: CUDA setup failed\n");
    return 1;
  }
  cudaMemset(a, 0, bytes);
  cudaMemset(b, 0, bytes);
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (i = 0; i < 23; ++i) {
    cudaEventRecord(start, 0);
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n,
                &zero, c, n);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    if (i >= 3) cudaEventElapsedTime(&times[i - 3], start, stop);
  }
  qsort(times, 20, sizeof(float), compare);
  printf("%.3f\n", (times[9] + times[10]) / 2);
  return 0;
}
