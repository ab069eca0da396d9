#ifndef TICKWIRE_CFUZZER_H
#define TICKWIRE_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program whose `main` is its own (SwiftPM gives every executable one).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
