// Measures, on the GPU it runs on, whether each approximate PTX instruction's
// .ftz form is its plain form with subnormal inputs and results flushed:
//
//   op.approx.ftz.f32(x) == flush(op.approx.f32(flush(x)))   for every x
//
// over all 2^32 f32 bit patterns (NaNs compare equal to NaNs: the GPU gives
// one canonical NaN). The PTX ISA defines the two forms separately, so
// stagecheck relates them only if this holds; docs/design-decisions.md says
// where the measurement is used and on which hardware it was taken.
//
// Also counted per instruction, for the record: the finite inputs whose plain
// result is subnormal (where flushing the result matters), and the subnormal
// inputs whose plain result differs from the .ftz one (where flushing the
// input matters).
//
// build: nvcc -O2 -arch=sm_90 -o ftz_relation scripts/ftz_relation.cu
// run:   ./ftz_relation          (one JSON object per instruction, stdout)
#include <cstdint>
#include <cstdio>
#include <cstring>

#define APPROX_PAIR(NAME, INSTR)                                               \
  __device__ float NAME##Plain(float X) {                                      \
    float R;                                                                   \
    asm(INSTR ".approx.f32 %0, %1;" : "=f"(R) : "f"(X));                       \
    return R;                                                                  \
  }                                                                            \
  __device__ float NAME##Ftz(float X) {                                        \
    float R;                                                                   \
    asm(INSTR ".approx.ftz.f32 %0, %1;" : "=f"(R) : "f"(X));                   \
    return R;                                                                  \
  }

APPROX_PAIR(Rsqrt, "rsqrt")
APPROX_PAIR(Ex2, "ex2")
APPROX_PAIR(Lg2, "lg2")
APPROX_PAIR(Rcp, "rcp")
APPROX_PAIR(Sqrt, "sqrt")
APPROX_PAIR(Sin, "sin")
APPROX_PAIR(Cos, "cos")

__device__ bool isSubnormal(uint32_t B) {
  return (B & 0x7f800000u) == 0 && (B & 0x007fffffu) != 0;
}
__device__ uint32_t flush(uint32_t B) {
  return isSubnormal(B) ? (B & 0x80000000u) : B;
}
__device__ bool isNan(uint32_t B) {
  return (B & 0x7f800000u) == 0x7f800000u && (B & 0x007fffffu) != 0;
}
__device__ bool same(uint32_t A, uint32_t B) {
  return A == B || (isNan(A) && isNan(B));
}

struct Tally {
  unsigned long long Mismatches;
  unsigned long long SubnormalResults;    // finite x, plain result subnormal
  unsigned long long SubnormalInputsApart; // subnormal x, plain != ftz
  unsigned int Examples[8][3];            // x, ftz result, related result
};

template <float (*Plain)(float), float (*Ftz)(float)>
__global__ void measure(Tally *T) {
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t I = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
       I < (1ull << 32); I += Stride) {
    uint32_t X = uint32_t(I);
    float Xf, Flushed;
    uint32_t FlushedBits = flush(X);
    memcpy(&Xf, &X, 4);
    memcpy(&Flushed, &FlushedBits, 4);
    float A = Ftz(Xf), P = Plain(Xf), Related = Plain(Flushed);
    uint32_t Ab, Pb, Rb;
    memcpy(&Ab, &A, 4);
    memcpy(&Pb, &P, 4);
    memcpy(&Rb, &Related, 4);
    Rb = flush(Rb);
    if (!same(Ab, Rb)) {
      unsigned long long K = atomicAdd(&T->Mismatches, 1ull);
      if (K < 8) {
        T->Examples[K][0] = X;
        T->Examples[K][1] = Ab;
        T->Examples[K][2] = Rb;
      }
    }
    if ((X & 0x7f800000u) != 0x7f800000u && isSubnormal(Pb))
      atomicAdd(&T->SubnormalResults, 1ull);
    if (isSubnormal(X) && !same(Pb, Ab))
      atomicAdd(&T->SubnormalInputsApart, 1ull);
  }
}

template <float (*Plain)(float), float (*Ftz)(float)>
static bool run(const char *Name, Tally *Device) {
  Tally Host;
  memset(&Host, 0, sizeof Host);
  cudaMemcpy(Device, &Host, sizeof Host, cudaMemcpyHostToDevice);
  measure<Plain, Ftz><<<4096, 256>>>(Device);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", Name, cudaGetErrorString(cudaGetLastError()));
    return false;
  }
  cudaMemcpy(&Host, Device, sizeof Host, cudaMemcpyDeviceToHost);
  printf("{\"instruction\": \"%s.approx.f32\", \"inputs\": 4294967296, "
         "\"ftz_is_flushed_plain\": %s, \"mismatches\": %llu, "
         "\"finite_inputs_with_subnormal_result\": %llu, "
         "\"subnormal_inputs_where_forms_differ\": %llu, \"examples\": [",
         Name, Host.Mismatches ? "false" : "true", Host.Mismatches,
         Host.SubnormalResults, Host.SubnormalInputsApart);
  for (unsigned long long K = 0; K < Host.Mismatches && K < 8; ++K)
    printf("%s[\"0x%08x\", \"0x%08x\", \"0x%08x\"]", K ? ", " : "",
           Host.Examples[K][0], Host.Examples[K][1], Host.Examples[K][2]);
  printf("]}\n");
  return true;
}

int main() {
  cudaDeviceProp Prop;
  if (cudaGetDeviceProperties(&Prop, 0) != cudaSuccess) {
    fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  printf("{\"device\": \"%s\", \"sm\": %d%d}\n", Prop.name, Prop.major,
         Prop.minor);
  Tally *Device;
  cudaMalloc(&Device, sizeof(Tally));
  bool Ok = run<RsqrtPlain, RsqrtFtz>("rsqrt", Device) &&
            run<Ex2Plain, Ex2Ftz>("ex2", Device) &&
            run<Lg2Plain, Lg2Ftz>("lg2", Device) &&
            run<RcpPlain, RcpFtz>("rcp", Device) &&
            run<SqrtPlain, SqrtFtz>("sqrt", Device) &&
            run<SinPlain, SinFtz>("sin", Device) &&
            run<CosPlain, CosFtz>("cos", Device);
  return Ok ? 0 : 1;
}
