// Only the declaration of CFuzzer.h: libFuzzer (linked by -sanitize=fuzzer) defines the driver.
#include "CFuzzer.h"
