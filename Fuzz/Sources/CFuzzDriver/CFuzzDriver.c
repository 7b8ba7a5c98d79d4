// Header-only: LLVMFuzzerRunDriver comes from the toolchain's libclang_rt.fuzzer (-sanitize=fuzzer).
#include "CFuzzDriver.h"
