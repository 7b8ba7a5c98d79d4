#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver for a program with its own `main`: SwiftPM gives every executable target
/// one, so the fuzz targets call this instead of linking libFuzzer's `main`.
/// https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// LeakSanitizer's interface (compiler-rt's sanitizer/lsan_interface.h, in the ASan runtime that
/// -sanitize=address links): what is allocated between the two calls is never reported as a leak.
void __lsan_disable(void);
void __lsan_enable(void);

#endif
