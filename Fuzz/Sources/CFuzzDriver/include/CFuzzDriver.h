#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver for a program with its own `main`: SwiftPM gives every executable target
/// one, so the fuzz targets call this instead of linking libFuzzer's `main`.
/// https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
