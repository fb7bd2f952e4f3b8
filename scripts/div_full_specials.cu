// Measures, on the GPU it runs on, what div.full.f32 and div.full.ftz.f32
// give when one operand is a zero, an infinity or a NaN:
//
//   div.full(x, y) == x / y (IEEE)   when x or y is +-0, +-Inf or NaN
//
// for every f32 bit pattern as the other operand, each special value on
// either side (NaNs compare equal to NaNs). The PTX ISA bounds div.full only
// to 2 ulp "across the full range", which leaves a zero dividend's quotient
// anything within 2 ulp of zero; stagecheck fixes these rows only as far as
// this holds. docs/design-decisions.md says where the measurement is used and
// on which hardware it was taken.
//
// The quotient is compared twice: with the operands as they are, and with a
// subnormal operand read as a zero of its sign first (what a .ftz form does),
// so the record also says whether the plain form flushes its operands.
//
// build: nvcc -O2 -arch=sm_90 -o div_full_specials scripts/div_full_specials.cu
// run:   ./div_full_specials      (one JSON object per form and reading, stdout)
#include <cstdint>
#include <cstdio>
#include <cstring>

__device__ float divFull(float X, float Y) {
  float R;
  asm("div.full.f32 %0, %1, %2;" : "=f"(R) : "f"(X), "f"(Y));
  return R;
}
__device__ float divFullFtz(float X, float Y) {
  float R;
  asm("div.full.ftz.f32 %0, %1, %2;" : "=f"(R) : "f"(X), "f"(Y));
  return R;
}

constexpr uint32_t SignBit = 0x80000000u, ExponentBits = 0x7f800000u,
                   FractionBits = 0x007fffffu, QuietNan = 0x7fc00000u;
// +0, -0, +Inf, -Inf, the canonical NaN, a negative quiet NaN with a
// payload, a signalling NaN.
__constant__ uint32_t Specials[] = {0x00000000u, 0x80000000u, 0x7f800000u,
                                    0xff800000u, 0x7fc00000u, 0xffc00123u,
                                    0x7f800001u};
constexpr int SpecialCount = 7;
// Classes of the other operand, signs merged.
enum Class { Nan, Infinity, Zero, Subnormal, Normal, ClassCount };
const char *ClassNames[] = {"nan", "infinity", "zero", "subnormal", "normal"};

__host__ __device__ int classOf(uint32_t B) {
  uint32_t E = B & ExponentBits, F = B & FractionBits;
  if (E == ExponentBits)
    return F ? Nan : Infinity;
  if (E == 0)
    return F ? Subnormal : Zero;
  return Normal;
}
__device__ uint32_t flush(uint32_t B) {
  return classOf(B) == Subnormal ? (B & SignBit) : B;
}
__device__ bool same(uint32_t A, uint32_t B) {
  return A == B || (classOf(A) == Nan && classOf(B) == Nan);
}

/// The IEEE quotient where X or Y is a zero, an infinity or a NaN: exact, so
/// no rounding is involved.
__device__ uint32_t specialQuotient(uint32_t X, uint32_t Y) {
  int Cx = classOf(X), Cy = classOf(Y);
  uint32_t Sign = (X ^ Y) & SignBit;
  if (Cx == Nan || Cy == Nan || (Cx == Zero && Cy == Zero) ||
      (Cx == Infinity && Cy == Infinity))
    return QuietNan;
  if (Cx == Infinity || Cy == Zero)
    return Sign | ExponentBits;
  return Sign; // Cx == Zero or Cy == Infinity, the other finite
}

struct Cell {
  unsigned long long Mismatches;
  unsigned int Example[3]; // x, y, result
};
// [form][reading][special index][special as dividend or divisor][class]
struct Tally {
  Cell Cells[2][2][SpecialCount][2][ClassCount];
};

template <float (*Div)(float, float)>
__global__ void measure(Tally *T, int Form) {
  uint64_t Stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t I = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
       I < (1ull << 32); I += Stride) {
    uint32_t V = uint32_t(I);
    for (int S = 0; S < SpecialCount; ++S)
      for (int Side = 0; Side < 2; ++Side) {
        uint32_t X = Side == 0 ? Specials[S] : V;
        uint32_t Y = Side == 0 ? V : Specials[S];
        float Xf, Yf;
        memcpy(&Xf, &X, 4);
        memcpy(&Yf, &Y, 4);
        float Rf = Div(Xf, Yf);
        uint32_t R;
        memcpy(&R, &Rf, 4);
        uint32_t Expected[2] = {specialQuotient(X, Y),
                                specialQuotient(flush(X), flush(Y))};
        for (int Reading = 0; Reading < 2; ++Reading)
          if (!same(R, Expected[Reading])) {
            Cell &C = T->Cells[Form][Reading][S][Side][classOf(V)];
            if (atomicAdd(&C.Mismatches, 1ull) == 0) {
              C.Example[0] = X;
              C.Example[1] = Y;
              C.Example[2] = R;
            }
          }
      }
  }
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
  cudaMemset(Device, 0, sizeof(Tally));
  measure<divFull><<<4096, 256>>>(Device, 0);
  measure<divFullFtz><<<4096, 256>>>(Device, 1);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  static Tally Host;
  cudaMemcpy(&Host, Device, sizeof Host, cudaMemcpyDeviceToHost);
  const char *Forms[] = {"div.full.f32", "div.full.ftz.f32"};
  const char *Readings[] = {"operands as they are",
                            "subnormal operands read as zeros"};
  uint32_t SpecialValues[SpecialCount];
  cudaMemcpyFromSymbol(SpecialValues, Specials, sizeof SpecialValues);
  for (int Form = 0; Form < 2; ++Form)
    for (int Reading = 0; Reading < 2; ++Reading) {
      unsigned long long Total = 0;
      printf("{\"instruction\": \"%s\", \"reference\": \"IEEE quotient, %s\", "
             "\"cases\": %llu, \"mismatches_by_cell\": [",
             Forms[Form], Readings[Reading],
             2ull * SpecialCount * (1ull << 32));
      bool First = true;
      for (int S = 0; S < SpecialCount; ++S)
        for (int Side = 0; Side < 2; ++Side)
          for (int K = 0; K < ClassCount; ++K) {
            const Cell &C = Host.Cells[Form][Reading][S][Side][K];
            Total += C.Mismatches;
            if (!C.Mismatches)
              continue;
            printf("%s{\"special\": \"0x%08x\", \"as\": \"%s\", "
                   "\"other\": \"%s\", \"mismatches\": %llu, "
                   "\"example\": [\"0x%08x\", \"0x%08x\", \"0x%08x\"]}",
                   First ? "" : ", ", SpecialValues[S],
                   Side == 0 ? "dividend" : "divisor", ClassNames[K],
                   C.Mismatches, C.Example[0], C.Example[1], C.Example[2]);
            First = false;
          }
      printf("], \"mismatches\": %llu}\n", Total);
    }
  return 0;
}
